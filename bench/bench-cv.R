## Benchmark of cross-validation at its defaults: cv_fgseq() against cv.grpreg() (and cv.glmnet()) on
## the same folds, a logistic model of modeldata's credit_data (the 4,039 complete rows, 13 terms in 22
## columns; each factor term is one group).
##
## Usage (from the package root, with fgseq, grpreg, glmnet and modeldata installed):
##   Rscript bench/bench-cv.R          # 10 folds, 3 repeats
##   Rscript bench/bench-cv.R 5 1      # 5 folds, 1 repeat
##
## Each call runs once untimed first, then the three are timed in turn, `repeats` times each, and the
## medians compared (other work on the machine moves single timings). Printed: every time, the medians,
## the ratio cv_fgseq / cv.grpreg (target <= 2) and how many lambdas cv_fgseq() cross-validated (its
## default grid stops where the fits stop changing, see ?cv_fgseq).

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(c("fgseq", "grpreg", "glmnet"))
a <- bench_args(c(nfolds = 10, repeats = 3))
data(credit_data, package = "modeldata")
d <- stats::na.omit(credit_data)
mm <- stats::model.matrix(Status ~ ., d)
x <- mm[, -1]
group <- attr(mm, "assign")[-1]
y <- as.integer(d$Status == levels(d$Status)[2L])
set.seed(1)
foldid <- sample(rep_len(seq_len(a$nfolds), nrow(d)))
cat(sprintf("credit_data: %d rows, %d terms in %d columns, binomial, %d folds\n", nrow(d), max(group), ncol(x), a$nfolds))

calls <- list(
  cv_fgseq = function() cv_fgseq(Status ~ ., data = d, family = "binomial", foldid = foldid, progress = FALSE),
  cv.grpreg = function() grpreg::cv.grpreg(x, y, group = group, family = "binomial", fold = foldid),
  cv.glmnet = function() glmnet::cv.glmnet(x, y, family = "binomial", foldid = foldid))
out <- lapply(calls, function(f) f())  # untimed first runs
times <- lapply(calls, function(f) numeric(0))
for (k in seq_len(a$repeats)) {
  for (nm in names(calls)) times[[nm]] <- c(times[[nm]], system.time(out[[nm]] <- calls[[nm]]())[["elapsed"]])
}
for (nm in names(calls)) cat(sprintf("  %-10s %s\n", nm, paste(sprintf("%.2f", times[[nm]]), collapse = " ")))
m <- vapply(times, stats::median, numeric(1))
cat(sprintf("median seconds: cv_fgseq %.2f, cv.grpreg %.2f, cv.glmnet %.2f\n", m[["cv_fgseq"]], m[["cv.grpreg"]], m[["cv.glmnet"]]))
cat(sprintf("ratio cv_fgseq / cv.grpreg %.2f (target <= 2); cv_fgseq / cv.glmnet %.2f\n",
            m[["cv_fgseq"]] / m[["cv.grpreg"]], m[["cv_fgseq"]] / m[["cv.glmnet"]]))
cv <- out$cv_fgseq
cat(sprintf("cv_fgseq cross-validated %d of the default grid's 15 lambdas (%d fits), lambda.1se = %.3g\n",
            length(cv$lambda), length(cv$lambda) * (a$nfolds + 1L), cv$lambda.1se))
cat("load average after (1, 5, 15 min):", load_average(), "\n")
