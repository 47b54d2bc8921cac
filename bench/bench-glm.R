## Benchmark of the GLM engine: the full CS-G-OMP and CS-G-FR (quadratic gain) paths against one fit of
## the full design (glm.fit() for binomial and Poisson, nnet::multinom() for the multinomial family),
## with the exact CS-G-FR timed over its first steps.
##
## Usage (from the package root, with fgseq installed):
##   Rscript bench/bench-glm.R                          # binomial, n = 100000, p = 500 in 50 groups of 10
##   Rscript bench/bench-glm.R binomial 20000           # smaller n
##   Rscript bench/bench-glm.R poisson 100000
##   Rscript bench/bench-glm.R multinomial 20000        # 5 classes
##   Rscript bench/bench-glm.R multinomial 50000 0 10   # 10 classes (the fourth argument; default 5)
##   Rscript bench/bench-glm.R multinomial 50000 0 10 0 # without the CS-G-FR quadratic path (fifth argument 0)
##   Rscript bench/bench-glm.R binomial 100000 3        # also the exact FR over its first 3 steps
## Targets (binomial, n = 100000, p = 500): CS-G-FR quadratic path <= 1.5 x the CS-G-OMP path, and the
## CS-G-OMP path <= 1.0 x one glm.fit. The ratios are printed from timings of one run. Exact FR refits
## every candidate at every step (about J - k penalized Newton solves at step k), so it is timed over
## its first steps only (0, the default, skips it). Targets (multinomial, n = 50000): the CS-G-OMP path
## <= 1.0 x one nnet::multinom fit, the CS-G-FR quadratic path <= 2.0 x it.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(c("fgseq", "nnet"), note = paste(getOption("fgseq.threads", 2), "threads for fgseq"))
args <- commandArgs(trailingOnly = TRUE)
family <- if (length(args) >= 1L) args[[1L]] else "binomial"
stopifnot(family %in% c("binomial", "poisson", "multinomial"))
n <- if (length(args) >= 2L) as.integer(args[[2L]]) else 100000L
fr_steps <- if (length(args) >= 3L) as.integer(args[[3L]]) else 0L
n_class <- if (length(args) >= 4L) as.integer(args[[4L]]) else 5L
stopifnot(n_class >= 2L)
with_frq <- if (length(args) >= 5L) as.integer(args[[5L]]) != 0L else TRUE
p_group <- 10L
n_group <- 50L
p <- p_group * n_group

set.seed(20261121)
group <- rep(sprintf("g%02d", seq_len(n_group)), each = p_group)
cost <- stats::setNames(sample(c(1, 5, 20, 50, 100, 150, 200), n_group, replace = TRUE), unique(group))
x <- matrix(stats::rnorm(n * p), n, p)
signal <- unlist(lapply(seq(1L, n_group, by = 5L), function(g) (g - 1L) * p_group + seq_len(3L)))
effect <- function(sd) {
  beta <- numeric(p)
  beta[signal] <- stats::rnorm(length(signal), sd = sd)
  drop(x %*% beta)
}
y <- switch(family,
  binomial = stats::rbinom(n, 1L, stats::plogis(effect(0.4))),
  poisson = stats::rpois(n, exp(0.5 + effect(0.15))),
  multinomial = {
    eta <- cbind(0, vapply(seq_len(n_class - 1L), function(k) effect(0.3), numeric(n)))
    pr <- exp(eta) / rowSums(exp(eta))
    factor(apply(pr, 1L, function(q) sample.int(n_class, 1L, prob = q)))
  })
cat(sprintf("%s%s, n = %d, p = %d (%d groups of %d)\n\n", family,
            if (family == "multinomial") sprintf(" (%d classes)", n_class) else "", n, p, n_group, p_group))

## elapsed seconds of expr, with the load average just before it
timed <- function(what, expr) {
  load <- load_average()
  t <- system.time(expr, gcFirst = TRUE)[["elapsed"]]
  cat(sprintf("  %-32s %8.2f s   (load before: %s)\n", what, t, load))
  t
}
t_full <- timed(if (family == "multinomial") "nnet::multinom (full design)" else "glm.fit (full design)",
                full <- if (family == "multinomial") {
                  nnet::multinom(y ~ x, maxit = 10000L, MaxNWts = 1e5, trace = FALSE)
                } else {
                  stats::glm.fit(cbind(1, x), y, family = if (family == "binomial") stats::binomial() else stats::poisson())
                })
t_omp <- timed("CS-G-OMP full path", f_omp <- fgseq(x, y, group = group, cost = cost, family = family))
t_frq <- NA_real_
f_frq <- NULL
if (with_frq) {
  t_frq <- timed("CS-G-FR quadratic full path",
                 f_frq <- fgseq(x, y, group = group, cost = cost, family = family, method = "fr", fr_gain = "quadratic"))
}
if (fr_steps > 0L) {
  t_fre <- timed(sprintf("CS-G-FR exact, first %d steps", fr_steps),
                 f_fre <- fgseq(x, y, group = group, cost = cost, family = family, method = "fr", fr_gain = "exact",
                                max_steps = fr_steps))
}
cat(sprintf("\nCS-G-OMP path / one full fit:     %.2f\n", t_omp / t_full))
cat(sprintf("CS-G-FR quadratic / CS-G-OMP:     %.2f\n", t_frq / t_omp))
cat(sprintf("CS-G-FR quadratic / one full fit: %.2f\n", t_frq / t_full))
if (family == "binomial") {
  cat(sprintf("targets: FR quadratic / OMP <= 1.5: %s; OMP / glm.fit <= 1.0: %s\n", t_frq / t_omp <= 1.5,
              t_omp / t_full <= 1.0))
}
if (family == "multinomial") {
  cat(sprintf("targets (n = 50000): OMP / nnet::multinom <= 1.0: %s; FR quadratic / nnet::multinom <= 2.0: %s\n",
              t_omp / t_full <= 1.0, t_frq / t_full <= 2.0))
}
K <- length(f_omp$sequence)
if (family != "multinomial") {
  mu <- predict(f_omp, x, step = K, type = "response")
  cat(sprintf("max |fitted mean, last OMP step - glm.fit| = %.2e (lambda = %g; glm.fit iterations: %d)\n",
              max(abs(mu - full$fitted.values)), f_omp$lambda, full$iter))
}
cat("first steps, OMP:", paste(utils::head(f_omp$sequence, 8), collapse = " "),
    "\n             FR quadratic:", paste(utils::head(f_frq$sequence, 8), collapse = " "), "\n")
cat("load average at the end:", load_average(), "\n")
