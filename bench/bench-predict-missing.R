## Benchmark of anytime prediction of partially computed rows: predict(missing = "prefix") on rows of
## which a fifth stopped at a random group of the sequence (NA from there on), at 5 budgets, against
## predict() on the same rows complete (missing = "error"). Both go through the core's one-pass prefix
## kernel (greedy/predict.hpp); the complete rows also have their unread columns checked for NA.
## Targets: predict() of complete rows within 1.2 x predict(missing = "prefix") of the same rows, and
## the prefix prediction of the rows with NA within 3 x the complete one.
##
## Usage (from the package root, with fgseq installed):
##   Rscript bench/bench-predict-missing.R              # n = 1e6 rows, p = 500 columns (4 GB of x)
##   Rscript bench/bench-predict-missing.R 200000       # fewer rows
##   Rscript bench/bench-predict-missing.R 200000 3     # best of 3 runs per setting
##   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3 Rscript bench/bench-predict-missing.R
##                                                      # today's predict() through the reference BLAS
## The model is fitted on 20000 rows (50 groups of 10 columns); the timed predictions use one thread.
## The rows with NA are made in place in the same matrix, so x is held once.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header()
# R's BLAS can be replaced for this process only, e.g. the reference BLAS while the system uses another:
#   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3 Rscript bench/bench-predict-missing.R
if (nzchar(Sys.getenv("LD_PRELOAD"))) cat("LD_PRELOAD (BLAS symbols taken from it first):", Sys.getenv("LD_PRELOAD"), "\n\n")
args <- bench_args(c(n = 1e6, reps = 1))
n <- args$n
reps <- args$reps
p <- 500L
size <- 10L

set.seed(1409)
group <- rep(sprintf("g%02d", seq_len(p / size)), each = size)
cost <- stats::setNames(sample(c(1, 2, 5, 10, 20), p / size, replace = TRUE), unique(group))
beta <- stats::rnorm(p) * rep(stats::runif(p / size) < 0.5, each = size)
train <- normal_matrix(20000, p, "f")
fit <- fgseq(train, drop(train %*% beta) + stats::rnorm(20000), group = group, cost = cost, max_steps = 40)
rm(train)
budgets <- stats::quantile(fit$path$cost, c(0.1, 0.3, 0.5, 0.7, 1), names = FALSE)
cat(sprintf("n = %.0f rows, p = %d columns (%d groups), %d steps in the sequence, budgets %s\n", n, p,
            p / size, length(fit$sequence), paste(format(budgets), collapse = ", ")))

x <- normal_matrix(n, p, "f")
best_of <- function(f) min(vapply(seq_len(reps), function(r) system.time(f())[["elapsed"]], numeric(1)))

load_before <- load_average()
t_complete <- best_of(function() predict(fit, x, budget = budgets))
t_prefix_complete <- best_of(function() predict(fit, x, budget = budgets, missing = "prefix"))
# a fifth of the rows stop at a random step of the sequence: NA in the groups from that step on
rows <- sample(n, n / 5)
stop_at <- sample(length(fit$sequence), length(rows), replace = TRUE)
for (k in seq_along(fit$sequence)) {
  cols <- which(group == fit$sequence[k])
  r <- rows[stop_at <= k]
  x[r, cols] <- NA
}
t_prefix <- best_of(function() predict(fit, x, budget = budgets, missing = "prefix"))
load_after <- load_average()

cat(sprintf("\n%-58s %8.2f s   ratio to the next %.2f   (target <= 1.2)\n", "predict(), complete rows", t_complete,
            t_complete / t_prefix_complete))
cat(sprintf("%-58s %8.2f s   ratio %.2f\n", "predict(missing = \"prefix\"), complete rows", t_prefix_complete,
            t_prefix_complete / t_complete))
cat(sprintf("%-58s %8.2f s   ratio %.2f   (target <= 3)\n", "predict(missing = \"prefix\"), 20% of rows with NA",
            t_prefix, t_prefix / t_complete))
cat("load average before / after the timings:", load_before, "/", load_after, "\n")
