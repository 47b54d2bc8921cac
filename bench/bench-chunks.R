## Benchmark of the chunked route: 10 chunk files mapped on 2 multisession workers (future.apply),
## statistics added, then fgseq() on the statistics, against the in-memory fit of the same rows.
##
## Usage (from the package root, with fgseq, future and future.apply installed):
##   Rscript bench/bench-chunks.R                 # n = 200000, p = 500 in 50 groups of 10, 5 repeats
##   Rscript bench/bench-chunks.R 100000          # smaller n
##   Rscript bench/bench-chunks.R 100000 9        # 9 repeats
## Target: equal to the in-memory fit to 1e-10; at most 1.2 x its time.
##
## What is timed. In memory: fgseq(x, y, ...) on the rows held in memory. Chunked: fgseq_stats(files)
## (the workers read the chunk files from disk, compute the statistics of their chunks and add them),
## the sum of the workers' statistics, and fgseq() on it. Writing the files is not timed. The 2
## workers are started (and have loaded fgseq) before any timing, as they would be in a session that
## set future::plan() once and maps chunks repeatedly; the time to start them is printed apart. The
## workers are set up as the fgseq_stats() documentation advises (sockets without delay, one BLAS
## thread per worker, freed memory kept for reuse); a second phase restarts them as a plain
## plan(multisession, workers = 2) to show what that setup gains. The routes are timed alternately,
## `repeats` times each, after a short pause (see timed()), and the medians are compared, since other
## work on the machine moves single timings (the load average and the CPU used are printed; with
## fewer free cores than workers the chunked route cannot gain from its workers).
##
## The chunk files are written with saveRDS(compress = FALSE), which stores numbers big-endian (XDR);
## a second set written with serialize(xdr = FALSE) (native byte order, still read by readRDS())
## shows how much of the time goes to byte swapping when the files are read.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(c("fgseq", "future", "future.apply"))
args <- bench_args(c(n = 200000, repeats = 5))
n <- args$n
repeats <- args$repeats
p <- 500L
n_chunks <- 10L
n_workers <- 2L

set.seed(20261121)
group <- rep(sprintf("g%02d", 1:50), each = 10)
cost <- stats::setNames(sample(c(1, 5, 20, 50, 100, 150, 200), 50, replace = TRUE), unique(group))
x <- normal_matrix(n, p, "x")
y <- drop(x[, seq(1, p, by = 7)] %*% stats::rnorm(length(seq(1, p, by = 7)))) + stats::rnorm(n)
rows <- split(seq_len(n), cut(seq_len(n), n_chunks, labels = FALSE))
dir <- tempfile("chunks")
dir.create(dir)
write_chunks <- function(prefix, write) {
  vapply(seq_len(n_chunks), function(k) {
    f <- file.path(dir, sprintf("%s%02d.rds", prefix, k))
    write(list(x = x[rows[[k]], ], y = y[rows[[k]]]), f)
    f
  }, character(1))
}
files <- write_chunks("xdr", function(obj, f) saveRDS(obj, f, compress = FALSE))
files_native <- write_chunks("native", function(obj, f) {
  con <- file(f, "wb")
  on.exit(close(con))
  serialize(obj, con, xdr = FALSE)
})
cat(sprintf("n = %d, p = %d (x is %.0f MB), %d chunk files of %.0f MB, %d workers, %d repeats\n\n", n, p,
            as.numeric(utils::object.size(x)) / 2^20, n_chunks, file.size(files[[1]]) / 2^20, n_workers, repeats))

elapsed <- function(expr) system.time(expr, gcFirst = TRUE)[["elapsed"]]
cat("load average (1, 5, 15 min) before:", load_average(), "\n")
# Where the installed fgseq reads options(fgseq.threads), the in-memory fit is also timed on one thread:
# options(fgseq.threads = 1, fgseq.linear_algebra = "eigen") (an optimized BLAS would use its own threads for the
# cross-product, so the one-thread fit uses Eigen's).
ns <- asNamespace("fgseq")
has_threads <- any(vapply(ls(ns, all.names = TRUE), function(f) {
  obj <- get(f, envir = ns)
  is.function(obj) && any(grepl("fgseq.threads", deparse(obj), fixed = TRUE))
}, logical(1)))
in_memory <- function(threads = NULL) {
  if (!is.null(threads)) {
    old <- options(fgseq.threads = threads, fgseq.linear_algebra = "eigen")
    on.exit(options(old))
  }
  fgseq(x, y, group = group, cost = cost, method = "fr")
}
chunked <- function(f) fgseq(fgseq_stats(f, group = group), cost = cost, method = "fr")

## ---- where the time goes (sequential, in this session, once) --------------------
invisible(in_memory())  # warm-up
t_read <- elapsed(for (f in files) chunk <- readRDS(f))
t_read_native <- elapsed(for (f in files_native) chunk <- readRDS(f))
t_stats1 <- elapsed(st1 <- fgseq_stats(chunk$x, chunk$y, group = group))
t_add <- elapsed(for (k in seq_len(n_chunks - 1L)) st1 <- st1 + st1)
st_mem <- fgseq_stats(x, y, group = group)
t_path <- elapsed(fgseq(st_mem, cost = cost, method = "fr"))
rm(chunk, st1, st_mem)
cat("sequential parts: read the", n_chunks, sprintf("files %.2f s (native byte order %.2f s);", t_read, t_read_native),
    sprintf("statistics of one chunk %.3f s (x %d = %.2f s); %d additions %.3f s; path from the statistics %.3f s\n",
            t_stats1, n_chunks, n_chunks * t_stats1, n_chunks - 1L, t_add, t_path))
cat("(timed in this session, whose cross-product may use several threads)\n\n")

## ---- start the workers (not timed in the comparison) ----------------------------
# The workers are set up as the fgseq_stats() documentation advises (section "Setting up the workers"):
# the main session's sockets send without delay, and the workers start with one BLAS thread each and
# with glibc's malloc keeping freed memory for reuse (environment variables set before plan(), which
# the workers inherit; the running session is not affected). A second phase restarts the workers as a
# plain plan(multisession, workers = 2) to show what that setup gains.
advised_env <- c(OPENBLAS_NUM_THREADS = "1", MKL_NUM_THREADS = "1", OMP_NUM_THREADS = "1",
                 MALLOC_MMAP_THRESHOLD_ = "1073741824", MALLOC_TRIM_THRESHOLD_ = "4294967296")
worker_pids <- integer(0)
start_workers <- function(advised) {
  options(socketOptions = if (advised) "no-delay")
  old_env <- Sys.getenv(names(advised_env), unset = NA)
  if (advised) do.call(Sys.setenv, as.list(advised_env))
  on.exit({
    Sys.unsetenv(names(advised_env))
    if (any(!is.na(old_env))) do.call(Sys.setenv, as.list(old_env[!is.na(old_env)]))
  })
  t <- elapsed({
    future::plan(future::multisession, workers = n_workers)
    # each future holds its worker for a moment, so that every worker answers once
    worker_pids <<- unlist(future.apply::future_lapply(seq_len(n_workers), function(i) {
      requireNamespace("fgseq", quietly = TRUE)
      Sys.sleep(0.5)
      Sys.getpid()
    }, future.chunk.size = 1L))
  })
  invisible(chunked(files))  # warm-up of the workers' code paths
  t
}
# CPU seconds (user + system) used so far by the workers, from /proc (Linux; NA elsewhere).
clock_tick <- suppressWarnings(as.numeric(system("getconf CLK_TCK", intern = TRUE)))
workers_cpu <- function() {
  sum(vapply(worker_pids, function(pid) {
    f <- sprintf("/proc/%d/stat", pid)
    if (!file.exists(f) || !is.finite(clock_tick)) return(NA_real_)
    fields <- strsplit(sub("^.*\\) ", "", readLines(f, warn = FALSE)), " ")[[1]]
    sum(as.numeric(fields[12:13])) / clock_tick  # utime, stime (fields 14, 15 of the line)
  }, numeric(1)))
}
# Elapsed seconds and CPU seconds (this session plus the workers) of an expression. The pause first lets
# the threads of a multi-threaded BLAS, which spin for a while after a call, fall asleep, so that one
# measurement does not take cores from the next.
timed <- function(expr) {
  invisible(gc())
  Sys.sleep(0.5)
  w0 <- workers_cpu()
  p0 <- proc.time()
  force(expr)
  p1 <- proc.time()
  c(elapsed = p1[[3]] - p0[[3]], cpu = p1[[1]] - p0[[1]] + p1[[2]] - p0[[2]] + workers_cpu() - w0)
}

## ---- alternate timings ------------------------------------------------------------
times <- list(mem = NULL, mem1 = NULL, chunk = NULL, native = NULL, default = NULL)
t_start <- start_workers(TRUE)
cat(sprintf("starting %d workers and loading fgseq on them: %.2f s (once per session, not in the ratio)\n",
            n_workers, t_start))
for (r in seq_len(repeats)) {
  times$mem <- rbind(times$mem, timed(f_mem <- in_memory()))
  if (has_threads) times$mem1 <- rbind(times$mem1, timed(in_memory(1L)))
  times$chunk <- rbind(times$chunk, timed(f_chunk <- chunked(files)))
  times$native <- rbind(times$native, timed(chunked(files_native)))
}
invisible(start_workers(FALSE))
for (r in seq_len(repeats)) {
  times$mem <- rbind(times$mem, timed(in_memory()))
  times$default <- rbind(times$default, timed(chunked(files)))
}
future::plan(future::sequential)
cat("load average (1, 5, 15 min) after: ", load_average(), "\n\n")
unlink(dir, recursive = TRUE)

med <- vapply(times, function(t) if (length(t)) stats::median(t[, "elapsed"]) else NA_real_, numeric(1))
med_cpu <- vapply(times, function(t) if (length(t)) stats::median(t[, "cpu"]) else NA_real_, numeric(1))
show <- function(t) paste(sprintf("%.2f", t[, "elapsed"]), collapse = " ")
cat("elapsed seconds, each repeat (in memory: both phases):\n")
cat("  in memory, fgseq(x, y):                        ", show(times$mem), "\n")
if (has_threads) cat("  in memory, one thread (fgseq.threads = 1, Eigen):", show(times$mem1), "\n")
cat("  chunked, saveRDS files (read, statistics, path):", show(times$chunk), "\n")
cat("  chunked, native byte order files:               ", show(times$native), "\n")
cat("  chunked, saveRDS files, plain multisession plan:", show(times$default), "\n")
cat(sprintf("median CPU seconds (session + workers): in memory %.2f; chunked %.2f; native %.2f; plain plan %.2f\n",
            med_cpu[["mem"]], med_cpu[["chunk"]], med_cpu[["native"]], med_cpu[["default"]]))
cat(sprintf("  (chunked: CPU / elapsed = %.2f of the %d workers' cores; below %d, other work took the cores)\n\n",
            med_cpu[["chunk"]] / med[["chunk"]], n_workers, n_workers))
cat(sprintf("median: in memory %.2f s; chunked %.2f s; ratio %.2f (target <= 1.2)\n",
            med[["mem"]], med[["chunk"]], med[["chunk"]] / med[["mem"]]))
# Both cores are busy in either route, so reading the files adds to the work: each worker reads its
# share of them (t_read / n_workers, timed above in this session) beside computing about what the
# in-memory fit computes on its cores. The ratio cannot fall below 1 + that share / the in-memory time.
cat(sprintf("floor of the ratio from reading alone: 1 + %.2f s / %d workers / %.2f s = %.2f (native byte order %.2f)\n",
            t_read, n_workers, med[["mem"]], 1 + t_read / n_workers / med[["mem"]],
            1 + t_read_native / n_workers / med[["mem"]]))
cat(sprintf("median chunked / (in memory + reading share): %.2f\n",
            med[["chunk"]] / (med[["mem"]] + t_read / n_workers)))
cat(sprintf("median ratios of the variants: native byte order files %.2f; plain multisession plan %.2f\n",
            med[["native"]] / med[["mem"]], med[["default"]] / med[["mem"]]))
if (has_threads) {
  cat(sprintf("against the in-memory fit on 1 thread (%.2f s): ratio %.2f (saveRDS files), %.2f (native)\n",
              med[["mem1"]], med[["chunk"]] / med[["mem1"]], med[["native"]] / med[["mem1"]]))
} else {
  cat("the installed fgseq has no option fgseq.threads: the in-memory fit runs as built\n")
}
cat(sprintf("same sequence: %s; max |beta difference| = %.2e; max |r2 difference| = %.2e (target 1e-10)\n",
            identical(f_mem$sequence, f_chunk$sequence), max(abs(f_mem$beta - f_chunk$beta)),
            max(abs(f_mem$path$r2 - f_chunk$path$r2))))
