# One test per error or warning message of the data checks (R/inputs.R), the fitting verbs and the methods: bad input gets a clear message
# that names the argument.

set.seed(11)
vx <- matrix(rnorm(40 * 4), 40, 4, dimnames = list(NULL, c("a", "b", "c", "d")))
vy <- drop(vx %*% c(1, -1, 0.5, 0)) + rnorm(40)
vg <- c("g1", "g1", "g2", "g3")
vfit <- fgseq(vx, vy, group = vg, cost = c(g1 = 1, g2 = 2, g3 = 3))

test_that("x: non-numeric, too few rows, NA / NaN / Inf", {
  expect_error(fgseq(matrix(letters[1:8], 4), 1:4), "`x` must be a numeric matrix; it has storage mode 'character'",
               class = "fgseq_error_input")
  expect_error(fgseq(data.frame(a = 1:4, b = letters[1:4]), 1:4),
               "`x` must be a numeric matrix; it is a data frame with non-numeric columns",
               class = "fgseq_error_input")
  expect_error(fgseq(list(1, 2), 1:2), "`x` must be a numeric matrix \\(n rows, p columns\\)",
               class = "fgseq_error_input")
  expect_error(fgseq(vx[1, , drop = FALSE], 1), "`x` must have at least 2 rows; it has 1",
               class = "fgseq_error_input")
  for (bad in c(NA, NaN, Inf)) {
    x <- vx
    x[3, "c"] <- bad
    expect_error(fgseq(x, vy), "`x` contains NA, NaN or Inf \\(first in column 'c'\\)", class = "fgseq_error_input")
  }
})

test_that("x of many blocks of rows: NA / NaN / Inf anywhere is refused by the Gram engine's one pass over x", {
  # p = 200: the core's pass reads x in blocks of 2621 rows, so 6000 rows are 3 blocks; the first is
  # copied and centred, the others are read in place. A non-finite value in any block (the last
  # row of the last column included), weighted or not, through the BLAS or Eigen, on 1 or 2 threads,
  # is refused with the message that names the first column holding one.
  set.seed(12)
  n <- 6000
  x <- matrix(rnorm(n * 200), n, 200, dimnames = list(NULL, sprintf("v%03d", 1:200)))
  y <- x[, 1] + rnorm(n)
  w <- runif(n, 0.5, 2)
  on.exit(options(fgseq.linear_algebra = NULL, fgseq.threads = NULL), add = TRUE)
  sweeps <- new.env()
  sweeps$n <- 0L
  count <- function() sweeps$n <- sweeps$n + 1L
  suppressMessages(trace(".scan_columns", tracer = bquote(.(count)()), where = asNamespace("fgseq"), print = FALSE))
  on.exit(suppressMessages(untrace(".scan_columns", where = asNamespace("fgseq"))), add = TRUE)
  for (gram in c("blas", "eigen")) for (threads in 1:2) {
    options(fgseq.linear_algebra = gram, fgseq.threads = threads)
    for (at in list(c(1, 150), c(3000, 7), c(n, 200))) {
      xb <- x
      xb[at[1], at[2]] <- if (at[1] == 3000) -Inf else NA
      xb[n, 199] <- NaN
      first <- sprintf("v%03d", min(at[2], 199))
      expect_error(fgseq(xb, y, group = rep(1:20, each = 10)),
                   paste0("`x` contains NA, NaN or Inf \\(first in column '", first, "'\\)"), class = "fgseq_error_input")
      expect_error(fgseq(xb, y, group = rep(1:20, each = 10), weights = w, method = "fr"),
                   paste0("`x` contains NA, NaN or Inf \\(first in column '", first, "'\\)"), class = "fgseq_error_input")
    }
  }
  # a finite x is fitted from that one pass, not swept before it
  sweeps$n <- 0L
  fit <- fgseq(x[, 1:20], y, group = rep(1:4, each = 5), lambda = 0)
  expect_identical(sweeps$n, 0L)
  expect_equal(unname(fit$beta[, ncol(fit$beta)]), unname(coef(lm(y ~ x[, 1:20]))[-1]), tolerance = 1e-9)
})

test_that("NA / NaN / Inf anywhere in x is refused by the sample-space engine's statistics pass", {
  # 40 groups of 5 columns, read group by group on 1 or 2 threads: a non-finite value in any group (the
  # first row of the first column, the last row of the last), with other groups holding one too, is
  # refused with the message that names the first column holding one; no sweep of its own reads x first
  set.seed(13)
  n <- 60
  x <- matrix(rnorm(n * 200), n, 200, dimnames = list(NULL, sprintf("v%03d", 1:200)))
  y <- x[, 1] - x[, 101] + rnorm(n)
  w <- runif(n, 0.5, 2)
  group <- rep(1:40, each = 5)
  on.exit(options(fgseq.threads = NULL), add = TRUE)
  sweeps <- new.env()
  sweeps$n <- 0L
  count <- function() sweeps$n <- sweeps$n + 1L
  suppressMessages(trace(".scan_columns", tracer = bquote(.(count)()), where = asNamespace("fgseq"), print = FALSE))
  on.exit(suppressMessages(untrace(".scan_columns", where = asNamespace("fgseq"))), add = TRUE)
  for (threads in 1:2) {
    options(fgseq.threads = threads)
    for (at in list(c(1, 1), c(30, 57), c(n, 200))) {
      xb <- x
      xb[at[1], at[2]] <- if (at[1] == 30) -Inf else NA
      xb[n, 200] <- NaN
      first <- sprintf("v%03d", at[2])
      for (method in c("omp", "fr")) {
        expect_error(fgseq(xb, y, group = group, method = method, engine = "sample"),
                     paste0("`x` contains NA, NaN or Inf \\(first in column '", first, "'\\)"), class = "fgseq_error_input")
        expect_error(fgseq(xb, y, group = group, weights = w, method = method, engine = "sample"),
                     paste0("`x` contains NA, NaN or Inf \\(first in column '", first, "'\\)"), class = "fgseq_error_input")
      }
    }
  }
  # a finite x is fitted from that pass, not swept before it: the final model is lm()'s
  sweeps$n <- 0L
  fit <- fgseq(x[, 1:20], y, group = group[1:20], lambda = 0, engine = "sample")
  expect_identical(sweeps$n, 0L)
  expect_equal(unname(fit$beta[, ncol(fit$beta)]), unname(coef(lm(y ~ x[, 1:20]))[-1]), tolerance = 1e-9)
})

test_that("y: type, length, NA / NaN / Inf, constant", {
  expect_error(fgseq(vx, letters[1:40]), "`y` must be a numeric vector", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy[-1]), "`y` must have one value per row of `x`: length\\(y\\) is 39, nrow\\(x\\) is 40",
               class = "fgseq_error_input")
  for (bad in c(NA, NaN, -Inf)) {
    y <- vy
    y[5] <- bad
    expect_error(fgseq(vx, y), "`y` contains NA, NaN or Inf", class = "fgseq_error_input")
  }
  expect_error(fgseq(vx, rep(2, 40)), "`y` is constant; there is nothing to explain", class = "fgseq_error_input")
})

test_that("group: length and NA", {
  expect_error(fgseq(vx, vy, group = vg[-1]),
               "`group` must have one label per column of `x`: length\\(group\\) is 3, ncol\\(x\\) is 4",
               class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, group = c("g1", NA, "g2", "g3")), "`group` contains NA", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, group = matrix(1:4, 2)), "`group` must be a vector of labels",
               class = "fgseq_error_input")
})

test_that("cost: missing, unused, duplicated, wrong length, zero, negative, non-finite, non-numeric", {
  expect_error(fgseq(vx, vy, group = vg, cost = c(g1 = 1, g2 = 2)), "`cost` is missing for group\\(s\\): g3",
               class = "fgseq_error_input")
  # a name that is no group is ignored, with one message (the rule of every interface)
  expect_message(fgseq(vx, vy, group = vg, cost = c(g1 = 1, g2 = 2, g3 = 3, g9 = 4)),
                 "of the fit, ignored: g9", class = "fgseq_message_unused_cost")
  expect_error(fgseq(vx, vy, group = vg, cost = c(g1 = 1, g1 = 2, g2 = 2, g3 = 3)),
               "`cost` names a group more than once: g1", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, group = vg, cost = c(1, 2)),
               "`cost` must have one value per group \\(3 groups\\)", class = "fgseq_error_input")
  # a cost of 0 is a free group; a negative one an error
  expect_equal(fgseq(vx, vy, group = vg, cost = c(g1 = 1, g2 = 0, g3 = 3))$cost, c(g1 = 1, g2 = 0, g3 = 3))
  expect_error(fgseq(vx, vy, group = vg, cost = c(g1 = -1, g2 = 2, g3 = 3)),
               "`cost` must be non-negative; group\\(s\\) g1", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, group = vg, cost = c(g1 = 1, g2 = Inf, g3 = NA)),
               "`cost` must be finite; group\\(s\\) g2, g3 have NA, NaN or Inf", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, group = vg, cost = c("a", "b", "c")), "`cost` must be a numeric vector",
               class = "fgseq_error_input")
})

test_that("scalar options: lambda, max_cost, max_steps, c_min, cost_sensitive, method", {
  expect_error(fgseq(vx, vy, lambda = -1), "`lambda` must be a single finite number >= 0",
               class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, lambda = c(0, 1)), "`lambda` must be a single finite number >= 0",
               class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, max_cost = 0), "`max_cost` must be a single number > 0", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, max_steps = 1.5), "`max_steps` must be a whole number of steps",
               class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, max_steps = 0), "`max_steps` must be a single number >= 1", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, method = "doubling", c_min = -2), "`c_min` must be a single finite number > 0",
               class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, cost_sensitive = NA), "`cost_sensitive` must be TRUE or FALSE",
               class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, method = "lasso"), "`method` must be one of", class = "fgseq_error_input")
})

test_that("criterion: one of the selection criteria, by every fitting route, and its label in print()", {
  msg <- "^`criterion` must be one of \"whitened\", \"l2\", \"linf\"\\.$"
  expect_error(fgseq(vx, vy, criterion = "l1"), msg, class = "fgseq_error_input")
  expect_error(fgseq(fgseq_stats(vx, vy, group = vg), criterion = "l1"), msg, class = "fgseq_error_input")
  chunks <- fgseq_chunks(list(list(x = vx[1:20, ], y = vy[1:20]), list(x = vx[21:40, ], y = vy[21:40])))
  expect_error(fgseq(chunks, criterion = c("l2", "linf")), msg, class = "fgseq_error_input")
  # the default is "whitened"; each criterion is kept with the fit and named in its label
  expect_identical(vfit$criterion, "whitened")
  expect_identical(fgseq(vx, vy, group = vg, criterion = "linf")$criterion, "linf")
  expect_output(print(fgseq(vx, vy, group = vg, criterion = "l2")), "CS-G-OMP \\(No-Whiten\\)")
  expect_output(print(vfit), "CS-G-OMP")
})

test_that("constant columns and groups: warned about, dropped, or an error when all are constant", {
  x <- cbind(vx, k = 3)
  expect_warning(f <- fgseq(x, vy), "constant column\\(s\\) in `x` keep coefficient 0: k|left out of the sequence: k",
                 class = "fgseq_warning_constant_group")
  x2 <- cbind(vx, k1 = 3, k2 = 0)
  g2 <- c(vg, "g1", "dead")
  w <- character()
  f2 <- withCallingHandlers(fgseq(x2, vy, group = g2),
                            warning = function(e) { w <<- c(w, conditionMessage(e)); invokeRestart("muffleWarning") })
  expect_match(w, "constant column\\(s\\) in `x` keep coefficient 0: k1", all = FALSE)
  expect_match(w, "group\\(s\\) with only constant columns are left out of the sequence: dead", all = FALSE)
  expect_false("dead" %in% f2$sequence)
  expect_equal(unname(f2$beta["k1", ]), rep(0, length(f2$sequence) + 1))
  expect_error(fgseq(matrix(rep(c(1, 2), each = 10), 10), rnorm(10)),
               "`x` has only constant columns", class = "fgseq_error_input")
})

test_that("budget and step selectors", {
  expect_error(coef(vfit, budget = -1), "`budget` must be non-negative \\(in cost units\\); got -1",
               class = "fgseq_error_input")
  expect_error(predict(vfit, vx, budget = NA), "`budget` must be numeric, without NA", class = "fgseq_error_input")
  expect_error(coef(vfit, budget = 2, step = 1), "give either `budget` or `step`, not both",
               class = "fgseq_error_input")
  expect_error(coef(vfit, step = 9), "`step` must be whole numbers between 0 and 3", class = "fgseq_error_input")
  expect_error(coef(vfit, step = 0.5), "`step` must be whole numbers between 0 and 3", class = "fgseq_error_input")
})

test_that("newx: number of columns, names, type", {
  expect_error(predict(vfit, vx[, 1:3]), "`newx` must have 4 columns, as the training x; it has 3",
               class = "fgseq_error_input")
  bad <- vx
  colnames(bad)[2] <- "zz"
  expect_error(predict(vfit, bad), "`newx` column names do not match the training x: unknown zz; missing b",
               class = "fgseq_error_input")
  expect_error(predict(vfit, matrix("a", 2, 4)), "`newx` must be a numeric matrix with the 4 columns",
               class = "fgseq_error_input")
  # without new data, predict() predicts the training rows, as predict.glm() does (issue 15)
  expect_identical(predict(vfit), predict(vfit, vx))
  nx <- vx[1:3, ]
  nx[2, 1] <- NA
  expect_error(predict(vfit, nx), "`newx` contains NA, NaN or Inf", class = "fgseq_error_na")
  # a permutation of the training names is reordered, not refused
  expect_equal(predict(vfit, vx[, 4:1], step = 3), predict(vfit, vx, step = 3))
})

test_that("newy, newdata and the formula interface", {
  expect_error(timeliness(vfit, newx = vx, newy = vy[-1]), "`newy` must be a numeric vector with one value per row of `newx` \\(40\\)",
               class = "fgseq_error_input")
  expect_error(plot(vfit, newx = vx), "give `newy` with `newx`", class = "fgseq_error_input")
  expect_error(predict(vfit, newdata = heart), "`newdata` works with fits made by the formula interface",
               class = "fgseq_error_input")
  hf <- fgseq(diagnosis ~ age + sex + cp, data = heart, cost = heart_cost[c("age", "sex", "cp")])
  expect_error(predict(hf, newdata = heart[, c("age", "sex")]), "`newdata` lacks the model variable\\(s\\) cp",
               class = "fgseq_error_input")
  h2 <- heart[1:5, ]
  h2$age[2] <- NA
  expect_error(predict(hf, newdata = h2), "`newdata` has NA in the model variables", class = "fgseq_error_na")
  with_na_option("na.fail", expect_error(fgseq(diagnosis ~ age + sex, data = h2), "`data` has NA in age",
                                         class = "fgseq_error_na"))
  expect_error(fgseq(diagnosis ~ age), "`data` must be given with the formula interface",
               class = "fgseq_error_formula")
  expect_error(fgseq(~ age + sex, data = heart), "must have a response", class = "fgseq_error_formula")
  expect_error(fgseq(diagnosis ~ age + sex, data = heart, cost = c(age = 1)), "`cost` is missing for measurement\\(s\\): sex",
               class = "fgseq_error_input")
})

test_that("alpha, stop_cost and curve inputs", {
  expect_error(stop_cost(vfit, alpha = 0), "`alpha` must be a single number in \\(0, 1\\]",
               class = "fgseq_error_input")
  expect_error(timeliness(vfit, alpha = 1.2), "`alpha` must be a single number in \\(0, 1\\]",
               class = "fgseq_error_input")
  expect_error(timeliness(vfit, stop_cost = -3), "`stop_cost` must be a single finite number > 0",
               class = "fgseq_error_input")
  expect_error(curve_timeliness(c(0, 1), c(0, 1, 2), 1), "`cost` and `value` must be numeric vectors of the same length",
               class = "fgseq_error_input")
  expect_error(curve_timeliness(c(1, 2), c(0, 1), 1), "`cost` must start at 0 and be non-decreasing",
               class = "fgseq_error_input")
  expect_error(summary(vfit, alpha = 2), "`alpha` must be a single number in \\(0, 1\\]", class = "fgseq_error_input")
})

test_that("max_steps beyond the range of an integer is no limit (the least-squares fit of lm())", {
  for (ms in c(2^63, 2^64, 1e300)) {
    fit <- fgseq(vx, vy, group = vg, lambda = 0, max_steps = ms)
    expect_equal(length(fit$sequence), 3L)
    expect_equal(unname(fit$beta[, 4]), unname(coef(lm(vy ~ vx))[-1]), tolerance = 1e-9)
  }
})

test_that("x with NA, empty or duplicated column names", {
  x <- vx
  colnames(x)[2] <- NA
  expect_error(fgseq(x, vy), "`x` has column\\(s\\) without a name \\(NA or \"\"\\): column\\(s\\) 2",
               class = "fgseq_error_input")
  colnames(x)[2] <- ""
  expect_error(fgseq(x, vy), "`x` has column\\(s\\) without a name", class = "fgseq_error_input")
  expect_error(miser(x, vy, cost = rep(1, 4)), "`x` has column\\(s\\) without a name", class = "fgseq_error_input")
  colnames(x)[2] <- "a"
  expect_error(fgseq(x, vy), "`x` has duplicated column names: a\\. Give every column a distinct name",
               class = "fgseq_error_input")
  expect_error(fgseq_stats(x, vy), "`x` has duplicated column names: a", class = "fgseq_error_input")
  expect_error(fgseq(Matrix::Matrix(x, sparse = TRUE), vy), "`x` has duplicated column names: a",
               class = "fgseq_error_input")
})

test_that("cost named for some groups only, or summing to Inf", {
  expect_error(fgseq(vx, vy, group = vg, cost = c(g1 = 1, 2, g3 = 3)),
               "`cost` has names for some values and not for others", class = "fgseq_error_input")
  expect_error(fgseq(vx, vy, group = vg, cost = c(g1 = 1e308, g2 = 1e308, g3 = 1e308)),
               "`cost` sums to Inf", class = "fgseq_error_input")
})

test_that("budget = numeric(0)", {
  expect_error(predict(vfit, vx, budget = numeric(0)), "`budget` is empty: give at least one budget",
               class = "fgseq_error_input")
  expect_error(coef(vfit, budget = numeric(0)), "`budget` is empty", class = "fgseq_error_input")
})

test_that("y in a tiny unit is not constant (a relative rule): the fit of lm()", {
  fit <- fgseq(vx, vy * 1e-20, group = vg, lambda = 0)
  ref <- lm(vy ~ vx)   # the same data, rescaled
  expect_equal(unname(fit$beta[, 4]) * 1e20, unname(coef(ref)[-1]), tolerance = 1e-9)
  expect_equal(fit$path$r2[4], summary(ref)$r.squared, tolerance = 1e-9)
  expect_error(fgseq(vx, rep(1e-20, 40)), "`y` is constant", class = "fgseq_error_input")
})

test_that("weights summing to Inf", {
  expect_error(fgseq(vx, vy, weights = rep(1e308, 40)), "`weights` sum to Inf; divide them by a constant",
               class = "fgseq_error_input")
})

test_that("a named group is matched to the columns by name, as cost is", {
  x <- as.matrix(mtcars[, c("cyl", "disp", "carb", "hp")])
  ordered <- c(cyl = "engine", disp = "engine", carb = "carb", hp = "power")
  shuffled <- ordered[c("carb", "hp", "cyl", "disp")]
  cost <- c(carb = 1, engine = 2, power = 3)
  a <- fgseq(x, mtcars$mpg, group = unname(ordered), cost = cost)
  b <- fgseq(x, mtcars$mpg, group = shuffled, cost = cost)
  expect_identical(b$group, a$group)
  expect_equal(b$beta, a$beta)
  expect_identical(b$group[["cyl"]], "engine")
  m <- miser(x, mtcars$mpg, group = shuffled, cost = cost, max_steps = 3, depth = 2)
  expect_identical(m$group[["cyl"]], "engine")
  expect_error(fgseq(x, mtcars$mpg, group = stats::setNames(ordered, c("cyl", "disp", "carb", "wt"))),
               "wt", class = "fgseq_error_input")
  # a column named twice: the message lists what is wrong (repeated, missing), and no empty list
  twice <- stats::setNames(ordered, c("cyl", "cyl", "carb", "hp"))
  e <- tryCatch(fgseq(x, mtcars$mpg, group = twice, cost = cost), error = identity)
  expect_s3_class(e, "fgseq_error_input")
  expect_match(conditionMessage(e), "repeated cyl", fixed = TRUE)
  expect_match(conditionMessage(e), "missing disp", fixed = TRUE)
  expect_false(grepl("unknown ;", conditionMessage(e), fixed = TRUE))
  expect_false(grepl("unknown", conditionMessage(e), fixed = TRUE))
})

test_that("zero-row newx and an empty step are clear errors", {
  x <- as.matrix(mtcars[, -1])
  fit <- fgseq(x, mtcars$mpg)
  expect_error(predict(fit, x[0, ]), "`newx` has no rows", class = "fgseq_error_input")
  expect_error(predict(fit, x[1:2, ], step = numeric(0)), "`step` is empty", class = "fgseq_error_input")
  expect_error(coef(fit, step = integer(0)), "`step` is empty", class = "fgseq_error_input")
})

test_that("an absurd fgseq.threads is refused before any allocation", {
  x <- as.matrix(mtcars[, -1])
  old <- options(fgseq.threads = 2e9)
  on.exit(options(old))
  expect_error(fgseq(x, mtcars$mpg), "fgseq.threads", class = "fgseq_error_input")
  expect_error(miser(x, mtcars$mpg, cost = rep(1, 10), max_steps = 2), "fgseq.threads", class = "fgseq_error_input")
})
