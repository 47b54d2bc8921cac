## Benchmark of the chunked route: 10 chunk files mapped on 2 multisession workers (future.apply),
## statistics added, then fgseq() on the statistics, against the in-memory fit of the same rows.
##
## Usage (from the package root, with fgseq, future and future.apply installed):
##   Rscript bench/bench-chunks.R            # n = 200000, p = 500 in 50 groups of 10
##   Rscript bench/bench-chunks.R 50000
## Target: equal to the in-memory fit to 1e-10; at most 1.5 x its time (the chunks are read from disk
## by the workers; writing them is not timed).

suppressPackageStartupMessages(library(fgseq))
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1L) as.integer(args[[1L]]) else 200000L
p <- 500L
n_chunks <- 10L
cat("command: Rscript bench/bench-chunks.R", paste(args, collapse = " "), "\n")
cat("machine:", R.version.string, "|", parallel::detectCores(), "cores | BLAS:", utils::sessionInfo()$BLAS, "\n\n")

set.seed(20261121)
group <- rep(sprintf("g%02d", 1:50), each = 10)
cost <- stats::setNames(sample(c(1, 5, 20, 50, 100, 150, 200), 50, replace = TRUE), unique(group))
x <- matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, sprintf("x%03d", seq_len(p))))
y <- drop(x[, seq(1, p, by = 7)] %*% stats::rnorm(length(seq(1, p, by = 7)))) + stats::rnorm(n)
rows <- split(seq_len(n), cut(seq_len(n), n_chunks, labels = FALSE))
dir <- tempfile("chunks")
dir.create(dir)
files <- vapply(seq_len(n_chunks), function(k) {
  f <- file.path(dir, sprintf("chunk%02d.rds", k))
  saveRDS(list(x = x[rows[[k]], ], y = y[rows[[k]]]), f, compress = FALSE)
  f
}, character(1))

t_mem <- system.time(f_mem <- fgseq(x, y, group = group, cost = cost, method = "fr"))[["elapsed"]]
future::plan(future::multisession, workers = 2L)
invisible(future.apply::future_lapply(1:2, function(i) requireNamespace("fgseq")))  # start the workers
t_chunk <- system.time({
  st <- fgseq_stats(files, group = group)
  f_chunk <- fgseq(st, cost = cost, method = "fr")
})[["elapsed"]]
future::plan(future::sequential)
unlink(dir, recursive = TRUE)

cat(sprintf("n = %d, p = %d, %d chunks on 2 workers\n", n, p, n_chunks))
cat(sprintf("in-memory CS-G-FR path: %.2f s; chunked (read, statistics, add, path): %.2f s; ratio %.2f (target <= 1.5)\n",
            t_mem, t_chunk, t_chunk / t_mem))
cat(sprintf("same sequence: %s; max |beta difference| = %.2e; max |r2 difference| = %.2e (target 1e-10)\n",
            identical(f_mem$sequence, f_chunk$sequence), max(abs(f_mem$beta - f_chunk$beta)),
            max(abs(f_mem$path$r2 - f_chunk$path$r2))))
