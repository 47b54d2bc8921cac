#' Cleveland heart-disease patients
#'
#' Test results and angiographic diagnosis of 303 patients of the Cleveland
#' Clinic Foundation: the classic "Cleveland" subset of the UCI Heart Disease
#' data. Each of the 13 tests is one feature group; its cost, in Canadian
#' dollars, is in [heart_cost]. A factor test expands to a group of dummy
#' columns in the formula interface of [fgseq()].
#'
#' @format A data frame with 303 rows and 14 columns:
#' \describe{
#'   \item{`diagnosis`}{logical, `TRUE` = heart disease (more than 50%
#'     narrowing of a major vessel at angiography; the original 0-4 `num`
#'     collapsed to 0 versus 1-4). 139 of the 303 patients are `TRUE`.}
#'   \item{`age`}{numeric, age in years.}
#'   \item{`sex`}{numeric, 1 = male, 0 = female.}
#'   \item{`cp`}{factor, chest pain type: `ta` typical angina, `aa` atypical
#'     angina, `np` non-anginal pain, `a` asymptomatic.}
#'   \item{`trestbps`}{numeric, resting blood pressure on admission (mm Hg).}
#'   \item{`chol`}{numeric, serum cholesterol (mg/dl).}
#'   \item{`fbs`}{numeric, fasting blood sugar above 120 mg/dl: 1 = yes,
#'     0 = no.}
#'   \item{`restecg`}{factor, resting electrocardiogram: `normal`, `abnormal`
#'     (ST-T wave abnormality), `hypertrophy` (probable or definite left
#'     ventricular hypertrophy by Estes' criteria).}
#'   \item{`thalach`}{numeric, maximum heart rate achieved in the exercise
#'     test (beats per minute).}
#'   \item{`exang`}{numeric, exercise-induced angina: 1 = yes, 0 = no.}
#'   \item{`oldpeak`}{numeric, ST depression induced by exercise relative to
#'     rest (mm).}
#'   \item{`slope`}{factor, slope of the peak exercise ST segment: `up`,
#'     `flat`, `down`.}
#'   \item{`ca`}{numeric, number of major vessels (0-3) coloured by
#'     fluoroscopy.}
#'   \item{`thal`}{factor, thallium scintigraphy: `normal`, `fd` fixed defect,
#'     `rd` reversible defect.}
#' }
#'
#' @source UCI Machine Learning Repository, "Heart Disease" data set
#'   (<https://archive.ics.uci.edu/dataset/45/heart+disease>), principal
#'   investigator Robert Detrano, M.D., Ph.D., V.A. Medical Center, Long Beach,
#'   and Cleveland Clinic Foundation. This copy was taken from the CC0-licensed
#'   R package FFTrees (version 2.1.0, data `heartdisease`).
#'
#' @references
#' Detrano, R., Janosi, A., Steinbrunn, W., Pfisterer, M., Schmid, J.-J.,
#' Sandhu, S., Guppy, K. H., Lee, S. and Froelicher, V. (1989). International
#' application of a new probability algorithm for the diagnosis of coronary
#' artery disease. *American Journal of Cardiology* 64(5):304-310.
#' \doi{10.1016/0002-9149(89)90524-9}
#'
#' @seealso [heart_cost] for the cost of each test.
#' @examples
#' str(heart)
#' table(heart$diagnosis)
#'
#' # one feature group per test, each test charged its cost
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' fit
#'
#' # chol and fbs share one blood draw (Turney's discount): $2.10 charged once,
#' # then $5.17 for cholesterol and $3.10 for fasting blood sugar
#' needs <- list(chol = c("blood_draw", "chol"), fbs = c("blood_draw", "fbs"))
#' cost <- c(replace(heart_cost, c("chol", "fbs"), c(5.17, 3.10)), blood_draw = 2.10)
#' shared <- fgseq(diagnosis ~ ., data = heart, cost = cost, needs = needs)
#' shared$cost[c("chol", "fbs")]   # each test alone costs what heart_cost says
#' shared$path[shared$path$group %in% c("chol", "fbs"), c("group", "group_cost", "cost")]
"heart"

#' Cost of each test in the heart-disease data
#'
#' What it costs to obtain each of the 13 tests of [heart], in Canadian
#' dollars (Ontario Health Insurance Plan fee schedule), as published by
#' Turney (1995). Cheap tests (age, sex, chest pain type, resting blood
#' pressure) cost $1; the exercise test measures and the thallium scan cost
#' around $100 each.
#'
#' Turney also lists discounts for tests that share a procedure: `chol` and
#' `fbs` come from the same blood draw, whose $2.10 is charged only once when
#' both are ordered. `heart_cost` charges every test its full cost (`chol`
#' 7.27 = 2.10 + 5.17, `fbs` 5.20 = 2.10 + 3.10); the shared draw is modelled by
#' the `needs` argument of [fgseq()] and [miser()], as in the examples of
#' [heart].
#'
#' @format A named numeric vector of length 13: one cost per test, named by the
#'   test (a column of [heart]) and in the column order of [heart]:
#'   `age`, `sex`, `cp`, `trestbps` 1.00; `chol` 7.27; `fbs` 5.20;
#'   `restecg` 15.50; `thalach` 102.90; `exang`, `oldpeak`, `slope` 87.30;
#'   `ca` 100.90; `thal` 102.90.
#'
#' @source Turney, P. D. (1995). Cost-sensitive classification: empirical
#'   evaluation of a hybrid genetic decision tree induction algorithm.
#'   *Journal of Artificial Intelligence Research* 2:369-409.
#'   \doi{10.1613/jair.120}. This copy was taken from the CC0-licensed R
#'   package FFTrees (version 2.1.0, data `heart.cost`).
#'
#' @seealso [heart] for the data.
#' @examples
#' heart_cost
#' sum(heart_cost)          # cost of running every test
#' identical(names(heart_cost), setdiff(names(heart), "diagnosis"))
"heart_cost"
