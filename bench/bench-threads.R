## Benchmark of the core's two threading mechanisms (inst/include/fgseq/common/threads.hpp), each on
## the work it is meant for, at the option fgseq.threads = 1 and = 2, in one run:
##   - parallel_ranges(), long passes over the rows: a binomial fit (the GLM's passes over the rows at
##     every Newton iteration);
##   - WorkerPool, many short loops: the sample-space engine's fit of a wide problem
##     (fgseq(engine = "sample"), its products with x, the screening copy and the basis at every step)
##     and the Greedy Miser's histogram trees (the levels of 100 trees).
## Prints the time of each at 1 and 2 threads and their ratio (2 threads / 1 thread; below 1 is a gain).
## The fits are the same at both settings (checked: the same sequence, or the same training r2).
##
## Usage (from the package root, with fgseq installed):
##   Rscript bench/bench-threads.R            # n = 50000
##   Rscript bench/bench-threads.R 20000      # smaller n
##   Rscript bench/bench-threads.R 50000 3    # best of 3 runs per setting
## On a machine shared with other work the ratios move with its load (printed beside them).

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(note = "the fits use 1 and 2")
args <- bench_args(c(n = 50000, reps = 1))
n <- args$n
reps <- args$reps

set.seed(20123)
p <- 300L
x <- normal_matrix(n, p, "x")
group <- rep(sprintf("g%02d", seq_len(p / 10L)), each = 10L)
cost <- stats::setNames(rep(c(1, 5, 20), length.out = p / 10L), unique(group))
y <- drop(x[, 1:20] %*% stats::rnorm(20)) + stats::rnorm(n)
yb <- as.integer(y + stats::rnorm(n) > 0)

time_at <- function(threads, expr) {
  options(fgseq.threads = threads)
  best <- Inf
  out <- NULL
  for (r in seq_len(reps)) {
    t <- system.time(out <- force(expr()))[["elapsed"]]
    best <- min(best, t)
  }
  list(time = best, fit = out)
}

settings <- list(
  "sample-space engine (WorkerPool)" = list(
    run = function() fgseq(x, y, group = group, cost = cost, engine = "sample", max_steps = 10),
    same = function(a, b) identical(a$sequence, b$sequence)),
  "binomial, Newton passes (parallel_ranges)" = list(
    run = function() fgseq(x, yb, group = group, cost = cost, family = "binomial", max_steps = 5),
    same = function(a, b) identical(a$sequence, b$sequence)),
  "Greedy Miser, histogram trees (WorkerPool)" = list(
    run = function() miser(x, y, group = group, cost = cost, max_steps = 100, depth = 4),
    same = function(a, b) isTRUE(all.equal(a$path$r2, b$path$r2))))

rows <- lapply(names(settings), function(s) {
  one <- time_at(1L, settings[[s]]$run)
  two <- time_at(2L, settings[[s]]$run)
  data.frame(setting = s, threads_1_s = round(one$time, 2), threads_2_s = round(two$time, 2),
             ratio = round(two$time / one$time, 2), same_fit = settings[[s]]$same(one$fit, two$fit),
             load = load_average(), stringsAsFactors = FALSE)
})
options(width = 160)
print(do.call(rbind, rows), row.names = FALSE)
