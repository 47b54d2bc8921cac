## Benchmark of the GLM engine: the full CS-G-OMP path of a logistic model against one glm.fit() on
## the full design, with the exact and quadratic (one Newton step) CS-G-FR beside it.
##
## Usage (from the package root, with fgseq installed):
##   Rscript bench/bench-glm.R                 # n = 100000, p = 500 in 50 groups of 10
##   Rscript bench/bench-glm.R 20000           # smaller n
##   Rscript bench/bench-glm.R 100000 10       # exact FR timed over its first 10 steps only
## Target: CS-G-OMP full path <= 3 x glm.fit. Exact FR refits every candidate at every step (about
## J - k penalized Newton solves at step k), so it is timed over its first steps and extrapolated
## as a lower bound; the quadratic FR runs the full path.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header()
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1L) as.integer(args[[1L]]) else 100000L
fr_steps <- if (length(args) >= 2L) as.integer(args[[2L]]) else 5L
p_group <- 10L
n_group <- 50L
p <- p_group * n_group

set.seed(20261121)
group <- rep(sprintf("g%02d", seq_len(n_group)), each = p_group)
cost <- stats::setNames(sample(c(1, 5, 20, 50, 100, 150, 200), n_group, replace = TRUE), unique(group))
x <- matrix(stats::rnorm(n * p), n, p)
beta <- numeric(p)
signal <- unlist(lapply(seq(1L, n_group, by = 5L), function(g) (g - 1L) * p_group + seq_len(3L)))
beta[signal] <- stats::rnorm(length(signal), sd = 0.4)
y <- stats::rbinom(n, 1L, stats::plogis(drop(x %*% beta)))
cat(sprintf("n = %d, p = %d (%d groups of %d), %.0f%% ones\n\n", n, p, n_group, p_group, 100 * mean(y)))

time_it <- function(expr) system.time(expr, gcFirst = TRUE)[["elapsed"]]
t_glm <- time_it(g <- stats::glm.fit(cbind(1, x), y, family = stats::binomial()))
t_omp <- time_it(f_omp <- fgseq(x, y, group = group, cost = cost, family = "binomial"))
t_frq <- time_it(f_frq <- fgseq(x, y, group = group, cost = cost, family = "binomial", method = "fr",
                                fr_gain = "quadratic"))
t_fre <- time_it(f_fre <- fgseq(x, y, group = group, cost = cost, family = "binomial", method = "fr",
                                fr_gain = "exact", max_steps = fr_steps))

K <- length(f_omp$sequence)
agree <- max(abs(stats::plogis(drop(cbind(1, x) %*% coef(f_omp, step = K))) - g$fitted.values))
tab <- data.frame(
  what = c("glm.fit (full design)", "CS-G-OMP full path", "CS-G-FR quadratic full path",
           sprintf("CS-G-FR exact, first %d steps", fr_steps)),
  steps = c(NA, K, length(f_frq$sequence), length(f_fre$sequence)),
  elapsed_s = round(c(t_glm, t_omp, t_frq, t_fre), 2),
  ratio_to_glm = round(c(t_glm, t_omp, t_frq, t_fre) / t_glm, 2))
print(tab, row.names = FALSE)
cat(sprintf("\nglm.fit iterations: %d; target CS-G-OMP / glm.fit <= 3: %s\n", g$iter, t_omp / t_glm <= 3))
cat(sprintf("max |fitted probability, last OMP step - glm.fit| = %.2e (lambda = %g)\n", agree, f_omp$lambda))
cat("first steps, OMP:", paste(utils::head(f_omp$sequence, 8), collapse = " "),
    "\n             FR quadratic:", paste(utils::head(f_frq$sequence, 8), collapse = " "),
    "\n             FR exact:", paste(f_fre$sequence, collapse = " "), "\n")
