## Benchmark of the linear engine: time and memory of the full path of each
## method against the cost of one crossprod(x), the floor every method needs.
##
## Usage (from the package root, with fgseq installed):
##   Rscript bench/bench-linear.R            # n = 500000, p = 500 (x is 2 GB)
##   Rscript bench/bench-linear.R 20000      # smaller n, same p
##   Rscript bench/bench-linear.R 500000 5   # and then 5 more pairs (crossprod(x), then omp), alternately
##
## On a shared machine crossprod(x) alone can vary by a third between runs, more than the distance
## to the omp target: the pairs give one ratio each, timed next to each other, and their median.
##
## Data: p = 500 columns in 50 groups of 10; within a group the columns share a
## common factor (correlation 0.5), groups are independent; 10 groups carry
## signal. Group costs are drawn from c(1, 5, 20, 50, 100, 150, 200).
## Targets: elapsed time of the full path <= 1.05 x crossprod(x) for omp and
## <= 1.3 x for fr and doubling; peak memory beyond x <= 0.10 x size of x
## (for n = 500000 with R linked to OpenBLAS).
## Memory is measured two ways: the R heap (gc(reset = TRUE) before the fit,
## "max used" Vcells after, minus object.size(x)) and, on Linux, the peak
## resident set of the process (VmHWM, reset through /proc/self/clear_refs),
## which also sees memory allocated by compiled code outside the R heap. The
## second is a lower bound (memory freed earlier and reused does not raise the
## peak) but catches any large copy of x. The time ratios depend on the BLAS
## that crossprod() uses: the reference BLAS makes crossprod() slow, an
## optimized one (OpenBLAS, MKL) fast; the BLAS line below says which.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header()

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1L) as.numeric(args[[1L]]) else 500000
if (!is.finite(n) || n < 100) stop("n (first argument) must be a number >= 100")
n <- as.integer(n)
pairs <- if (length(args) >= 2L) as.integer(args[[2L]]) else 0L
if (is.na(pairs) || pairs < 0L) stop("pairs (second argument) must be a whole number >= 0")
p_group <- 10L
n_group <- 50L
p <- p_group * n_group
rho <- 0.5

## ---- data ----------------------------------------------------------------------
set.seed(20260101)
group <- rep(sprintf("g%02d", seq_len(n_group)), each = p_group)
cost <- stats::setNames(sample(c(1, 5, 20, 50, 100, 150, 200), n_group, replace = TRUE),
                        unique(group))
x <- matrix(0, n, p, dimnames = list(NULL, sprintf("x%03d", seq_len(p))))
for (g in seq_len(n_group)) {
  cols <- (g - 1L) * p_group + seq_len(p_group)
  common <- stats::rnorm(n)
  x[, cols] <- sqrt(rho) * common + sqrt(1 - rho) * stats::rnorm(n * p_group)
}
signal_groups <- seq(1L, n_group, by = 5L)
beta <- numeric(p)
for (g in signal_groups) {
  beta[(g - 1L) * p_group + seq_len(p_group)] <- stats::rnorm(p_group) / sqrt(p_group)
}
y <- drop(x %*% beta) + stats::rnorm(n)
rm(common)

size_x <- as.numeric(utils::object.size(x))
mb <- function(bytes) bytes / 2^20
cat(sprintf("n = %d, p = %d (%d groups of %d, within-group correlation %.1f); x is %.0f MB\n",
            n, p, n_group, p_group, rho, mb(size_x)))
cat("group costs:", paste(names(table(cost)), table(cost), sep = " x ", collapse = ", "), "\n\n")

## ---- measurement (measure_fit() of bench/bench-utils.R) -------------------------
measure <- function(expr) measure_fit(substitute(expr), parent.frame(), size_x)

## ---- warm-up (loads code paths, not timed) ---------------------------------------
# each method once on (up to) 2,000 rows with the timed call's arguments: the session compiles the R code a call
# runs the first time it runs it (R's byte-code compiler), once per session
warm <- seq_len(min(n, 2000L))
for (m in c("omp", "fr", "doubling")) invisible(fgseq(x[warm, ], y[warm], group = group, cost = cost, method = m))

## ---- crossprod(x): the floor -----------------------------------------------------
cp <- measure(crossprod(x))
cp$value <- NULL
cat(sprintf("crossprod(x): %.2f s elapsed\n\n", cp$time))

## ---- the three methods, full path ----------------------------------------------
methods <- c("omp", "fr", "doubling")
target_time <- c(omp = 1.05, fr = 1.3, doubling = 1.3)
target_mem <- 0.10
res <- vector("list", length(methods))
names(res) <- methods
for (m in methods) {
  r <- measure(fgseq(x, y, group = group, cost = cost, method = m))
  fit <- r$value
  r$value <- NULL
  r$steps <- length(fit$sequence)
  r$r2 <- utils::tail(fit$path$r2, 1L)
  res[[m]] <- r
  rm(fit)
  cat(sprintf("%-8s done: %.2f s, %d steps\n", m, r$time, r$steps))
}

tab <- data.frame(
  method = methods,
  steps = vapply(res, `[[`, numeric(1), "steps"),
  final_r2 = round(vapply(res, `[[`, numeric(1), "r2"), 4),
  elapsed_s = round(vapply(res, `[[`, numeric(1), "time"), 2),
  time_ratio = round(vapply(res, `[[`, numeric(1), "time") / cp$time, 2),
  time_target = target_time[methods],
  mem_heap = round(vapply(res, `[[`, numeric(1), "heap_extra"), 3),
  mem_rss = round(vapply(res, `[[`, numeric(1), "rss_extra"), 3),
  mem_target = target_mem,
  row.names = NULL
)
tab$time_ok <- tab$time_ratio <= tab$time_target
tab$mem_ok <- tab$mem_heap <= target_mem &
  (is.na(tab$mem_rss) | tab$mem_rss <= target_mem)

cat("\ntime_ratio = elapsed(full path) / elapsed(crossprod(x)) =",
    sprintf("%.2f s", cp$time), "\n")
cat("mem_heap = (R heap peak during the fit - object.size(x)) / object.size(x)\n")
cat("mem_rss  = (peak resident set during the fit - resident set before) / object.size(x)\n")
cat(sprintf("crossprod itself: mem_heap %.3f, mem_rss %.3f\n\n", cp$heap_extra, cp$rss_extra))
print(tab, row.names = FALSE)
cat("\nall targets met:", all(tab$time_ok & tab$mem_ok), "\n")

## ---- pairs: crossprod(x) and the omp path timed next to each other ------------------------------
if (pairs > 0L) {
  ratio <- numeric(pairs)
  for (k in seq_len(pairs)) {
    t_cp <- system.time(crossprod(x))[["elapsed"]]
    t_omp <- system.time(fgseq(x, y, group = group, cost = cost, method = "omp"))[["elapsed"]]
    ratio[k] <- t_omp / t_cp
    cat(sprintf("pair %d: crossprod(x) %.2f s, omp %.2f s, ratio %.3f\n", k, t_cp, t_omp, ratio[k]))
  }
  cat(sprintf("omp / crossprod(x) over %d pairs: median %.3f (min %.3f, max %.3f; target %.2f)\n",
              pairs, stats::median(ratio), min(ratio), max(ratio), target_time[["omp"]]))
}
