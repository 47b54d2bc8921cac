## Benchmark of a logistic fit from chunk files (fgseq(fgseq_chunks(files), family = "binomial")):
## one map-reduce pass over the chunks per Newton step, on 2 multisession workers, against the
## in-memory fit of the same rows.
##
## Usage (from the package root, with fgseq, future and future.apply installed):
##   Rscript bench/bench-chunks-glm.R             # n = 100000, p = 100 in 20 groups of 5, 10 steps, 3 repeats
##   Rscript bench/bench-chunks-glm.R 20000       # smaller n
##   Rscript bench/bench-chunks-glm.R 100000 5    # 5 repeats
##
## The workers are started (and set up as ?fgseq_stats advises) before timing; writing the chunk files
## is not timed. Each route runs once untimed first (the session and the workers compile the R code a
## fit runs the first time it runs it), then the two are timed alternately, `repeats` times each, and
## the medians compared, since other work on the machine moves single timings. Printed: every time,
## the medians, their ratio and the largest difference.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(c("fgseq", "future", "future.apply"))
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1L) as.integer(args[[1L]]) else 100000L
repeats <- if (length(args) >= 2L) as.integer(args[[2L]]) else 3L
if (is.na(n) || n < 1000L || is.na(repeats) || repeats < 1L) stop("n must be >= 1000 and repeats >= 1")
p <- 100L
steps <- 10L
set.seed(1)
x <- matrix(stats::rnorm(n * p), n)
group <- rep(seq_len(p / 5L), each = 5L)
cost <- sample(c(1, 5, 20), p / 5L, replace = TRUE)
y <- stats::rbinom(n, 1, stats::plogis(drop(x[, c(1, 7, 33, 60)] %*% c(1, -1, 0.5, 0.8))))
dir <- tempfile("chunks")
dir.create(dir)
idx <- split(seq_len(n), rep(1:10, length.out = n))
files <- file.path(dir, sprintf("chunk%02d.rds", seq_along(idx)))
for (k in seq_along(idx)) saveRDS(list(x = x[idx[[k]], ], y = y[idx[[k]]]), files[k], compress = FALSE)
cat(sprintf("n = %d, p = %d in %d groups, %d steps of CS-G-OMP (binomial), 10 chunk files\n", n, p, p / 5L, steps))

options(socketOptions = "no-delay")
Sys.setenv(OPENBLAS_NUM_THREADS = "1", OMP_NUM_THREADS = "1")
future::plan(future::multisession, workers = 2)
invisible(future.apply::future_lapply(1:2, function(i) requireNamespace("fgseq", quietly = TRUE)))

in_memory <- function() fgseq(x, y, group, cost, family = "binomial", max_steps = steps)
chunked <- function() fgseq(fgseq_chunks(files), group = group, cost = cost, family = "binomial", max_steps = steps)
invisible(in_memory())  # untimed first runs
invisible(chunked())
t_mem <- t_chunk <- numeric(0)
for (r in seq_len(repeats)) {
  t_mem <- c(t_mem, system.time(a <- in_memory())[["elapsed"]])
  t_chunk <- c(t_chunk, system.time(b <- chunked())[["elapsed"]])
}
future::plan(future::sequential)
unlink(dir, recursive = TRUE)
cat("elapsed seconds, each repeat: in memory", sprintf("%.2f", t_mem), "; from chunk files", sprintf("%.2f", t_chunk), "\n")
cat(sprintf("median: in memory: %.2f s; from chunk files on 2 workers: %.2f s; ratio %.2f (target <= 2)\n",
            stats::median(t_mem), stats::median(t_chunk), stats::median(t_chunk) / stats::median(t_mem)))
cat(sprintf("same sequence: %s; max |beta difference| %.2e\n", identical(a$sequence, b$sequence),
            max(abs(a$beta - b$beta))))
