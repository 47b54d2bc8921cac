## Build the package data sets `heart` and `heart_cost`.
##
## Usage (from the package root):
##   Rscript data-raw/heart.R [DIR]
## DIR holds heartdisease.csv and heart_cost.csv (default: ../shared/data,
## relative to the package root). Writes data/heart.rda and data/heart_cost.rda.

args <- commandArgs(trailingOnly = TRUE)
src_dir <- if (length(args) >= 1L) args[[1L]] else file.path("..", "shared", "data")
heart_file <- file.path(src_dir, "heartdisease.csv")
cost_file <- file.path(src_dir, "heart_cost.csv")
if (!file.exists(heart_file) || !file.exists(cost_file)) {
  stop("cannot find heartdisease.csv and heart_cost.csv in '", src_dir,
       "'; give their directory as the first argument", call. = FALSE)
}
if (!dir.exists("data")) {
  if (!file.exists("DESCRIPTION")) {
    stop("run this script from the package root (the folder with DESCRIPTION)",
         call. = FALSE)
  }
  dir.create("data")
}

raw <- utils::read.csv(heart_file, stringsAsFactors = FALSE)

levels_of <- list(
  cp      = c("ta", "aa", "np", "a"),
  restecg = c("normal", "abnormal", "hypertrophy"),
  slope   = c("up", "flat", "down"),
  thal    = c("normal", "fd", "rd")
)
tests <- c("age", "sex", "cp", "trestbps", "chol", "fbs", "restecg",
           "thalach", "exang", "oldpeak", "slope", "ca", "thal")
stopifnot(identical(names(raw), c("diagnosis", tests)))
stopifnot(!anyNA(raw))

heart <- data.frame(diagnosis = as.logical(raw$diagnosis))
for (v in tests) {
  if (v %in% names(levels_of)) {
    bad <- setdiff(unique(raw[[v]]), levels_of[[v]])
    if (length(bad)) stop("unexpected level(s) of ", v, ": ", toString(bad))
    heart[[v]] <- factor(raw[[v]], levels = levels_of[[v]])
  } else {
    heart[[v]] <- as.numeric(raw[[v]])
  }
}
stopifnot(nrow(heart) == 303L, ncol(heart) == 14L, !anyNA(heart))

cost_raw <- utils::read.csv(cost_file, stringsAsFactors = FALSE)
stopifnot(setequal(cost_raw$variable, tests), !anyDuplicated(cost_raw$variable))
heart_cost <- stats::setNames(as.numeric(cost_raw$cost), cost_raw$variable)[tests]
stopifnot(all(heart_cost > 0))

save(heart, file = file.path("data", "heart.rda"), compress = "xz")
save(heart_cost, file = file.path("data", "heart_cost.rda"), compress = "xz")
message("wrote data/heart.rda (", nrow(heart), " x ", ncol(heart),
        ") and data/heart_cost.rda (", length(heart_cost), " costs)")
