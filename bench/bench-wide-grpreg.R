## Benchmark of the wide setting: n = 2,000 rows, p = 50,000 columns in 5,000 groups of 10. The
## baseline is the group lasso path of grpreg (penalty = "grLasso", stopped at gmax = 200 groups);
## against it, fgseq's sample-space engine for CS-G-OMP and CS-G-FR, 200 steps each (a p x p Gram
## matrix would take 20 GB here, so only the sample-space engine is run).
##
## Usage (from the package root, with fgseq and grpreg installed):
##   Rscript bench/bench-wide-grpreg.R                     # n = 2000, p = 50000, both parts
##   Rscript bench/bench-wide-grpreg.R 500 5000            # quick trial: n = 500, p = 5000
##   Rscript bench/bench-wide-grpreg.R 2000 50000 grpreg   # only grpreg ("fgseq": only fgseq)
##   Rscript bench/bench-wide-grpreg.R 2000 50000 all 3    # 3 rounds (grpreg, CS-G-OMP, CS-G-FR in turn)
##
## Data: within a group the 10 columns share a common factor (correlation 0.3), groups are
## independent; 50 groups (1 in 100, at least 1) carry signal, with the noise set for a population
## R^2 of about 0.8. Group costs are drawn from {1, 5, 20, 100}. Seeded.
##
## Time is elapsed seconds of one call. With several rounds, the calls run in turn (grpreg, CS-G-OMP,
## CS-G-FR, then again), since other work on the machine moves single timings (grpreg's own time moved by
## a third within an hour on one machine), and the ratios are also given from the median times of the
## rounds both calls finished. Memory beyond x, as a multiple of object.size(x), is measured
## by bench/bench-utils.R: the R heap peak and, on Linux, the peak resident set (a lower bound).

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(c("fgseq", "grpreg"))
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1L) as.integer(args[[1L]]) else 2000L
p <- if (length(args) >= 2L) as.integer(args[[2L]]) else 50000L
parts <- if (length(args) >= 3L) args[[3L]] else "all"
rounds <- if (length(args) >= 4L) as.integer(args[[4L]]) else 1L
if (is.na(rounds) || rounds < 1L) stop("rounds (fourth argument) must be a whole number >= 1")
if (!parts %in% c("all", "grpreg", "fgseq")) stop("third argument must be \"all\", \"grpreg\" or \"fgseq\"")
p_group <- 10L
if (is.na(n) || n < 50L || is.na(p) || p < p_group || p %% p_group != 0L) {
  stop("n (first argument) must be >= 50 and p (second argument) a multiple of ", p_group)
}
n_group <- p %/% p_group
rho <- 0.3
gmax <- 200L
steps <- 200L

## ---- data ------------------------------------------------------------------------
set.seed(20261122)
t_data <- system.time({
  group <- rep(sprintf("g%04d", seq_len(n_group)), each = p_group)
  cost <- stats::setNames(sample(c(1, 5, 20, 100), n_group, replace = TRUE), unique(group))
  x <- matrix(0, n, p, dimnames = list(NULL, sprintf("x%05d", seq_len(p))))
  for (g in seq_len(n_group)) {
    cols <- (g - 1L) * p_group + seq_len(p_group)
    x[, cols] <- sqrt(rho) * stats::rnorm(n) + sqrt(1 - rho) * stats::rnorm(n * p_group)
  }
  signal_groups <- sort(sample.int(n_group, max(1L, n_group %/% 100L)))
  beta <- numeric(p)
  for (g in signal_groups) beta[(g - 1L) * p_group + seq_len(p_group)] <- stats::rnorm(p_group) / sqrt(p_group)
  signal <- drop(x %*% beta)
  y <- signal + stats::rnorm(n, sd = stats::sd(signal) / 2)   # R^2 about 0.8
  rm(signal)
})[["elapsed"]]
size_x <- as.numeric(utils::object.size(x))
mb <- function(bytes) bytes / 2^20
cat(sprintf("n = %d, p = %d (%d groups of %d, within-group correlation %.1f), %d signal groups; x is %.0f MB (made in %.1f s)\n",
            n, p, n_group, p_group, rho, length(signal_groups), mb(size_x), t_data))
cat("group costs:", paste(names(table(cost)), table(cost), sep = " x ", collapse = ", "), "\n\n")

## ---- measurement (measure_fit() of bench/bench-utils.R) -------------------------------
measure <- function(expr) {
  r <- measure_fit(substitute(tryCatch(expr, error = function(e) e)), parent.frame(), size_x)
  list(value = r$value, time = r$time, heap = r$heap_extra, rss = r$rss_extra)
}
show <- function(label, r, extra = "") {
  cat(sprintf("%-26s %8.2f s   peak heap +%.2f x size(x)   peak RSS +%.2f x size(x)   %s\n",
              label, r$time, r$heap, r$rss, extra))
}
results <- list()

for (round in seq_len(rounds)) {
  if (rounds > 1L) cat(sprintf("round %d of %d\n", round, rounds))
  ## ---- grpreg: group lasso path up to gmax groups ---------------------------------------
  if (parts %in% c("all", "grpreg")) {
    if (!requireNamespace("grpreg", quietly = TRUE)) stop("grpreg is not installed")
    r <- measure(grpreg::grpreg(x, y, group, penalty = "grLasso", gmax = gmax))
    if (inherits(r$value, "error")) stop("grpreg failed: ", conditionMessage(r$value))
    fit <- r$value
    groups_at <- apply(fit$beta[-1, , drop = FALSE] != 0, 2, function(nz) length(unique(group[nz])))
    show("grpreg grLasso, gmax = 200", r,
         sprintf("%d lambdas, %d groups at the last", length(fit$lambda), utils::tail(groups_at, 1L)))
    r$value <- NULL
    results$grpreg[[round]] <- r
    rm(fit)
  }

  ## ---- fgseq: sample-space engine, 200 steps ---------------------------------------------
  if (parts %in% c("all", "fgseq")) {
    # fgseq.default() passes unknown arguments through `...` silently, and the feature-space engine would
    # build a p x p matrix: run only when the installed fgseq knows the `engine` argument.
    has_engine <- "engine" %in% names(formals(fgseq:::fgseq.default))
    if (!has_engine) {
      cat("fgseq: engine argument not available yet in the installed fgseq", format(utils::packageVersion("fgseq")), "\n")
    } else {
      for (m in c("omp", "fr")) {
        r <- measure(fgseq(x, y, group = group, cost = cost, method = m, max_steps = steps, engine = "sample"))
        if (inherits(r$value, "error")) {
          cat(sprintf("fgseq %s (engine = \"sample\") failed: %s\n", m, conditionMessage(r$value)))
          next
        }
        fit <- r$value
        show(sprintf("fgseq %s, sample, %d steps", m, steps), r,
             sprintf("%d steps, training r2 %.3f, cost %g", length(fit$sequence), utils::tail(fit$path$r2, 1L),
                     utils::tail(fit$path$cost, 1L)))
        r$value <- NULL
        results[[m]][[round]] <- r
        rm(fit)
      }
    }
  }
}

## ---- ratios (this run) -------------------------------------------------------------------
# the rounds in which both calls finished (a failed fgseq fit leaves its round empty)
field <- function(rs, f) vapply(rs, function(r) r[[f]], numeric(1))
for (m in intersect(c("omp", "fr"), names(results))) {
  both <- which(!vapply(results[[m]], is.null, logical(1)))
  both <- both[both <= length(results$grpreg)]
  if (!length(both)) next
  ours <- results[[m]][both]
  theirs <- results$grpreg[both]
  time <- field(ours, "time")
  base <- field(theirs, "time")
  cat(sprintf("fgseq %s / grpreg: time %s, peak heap %.2f, peak RSS %.2f\n", m,
              paste(sprintf("%.3f", time / base), collapse = " "),
              max(field(ours, "heap")) / max(field(theirs, "heap")), max(field(ours, "rss")) / max(field(theirs, "rss"))))
  if (rounds > 1L) {
    cat(sprintf("  medians over %d rounds: %.2f s / %.2f s = %.3f\n", length(both), stats::median(time),
                stats::median(base), stats::median(time) / stats::median(base)))
  }
}
