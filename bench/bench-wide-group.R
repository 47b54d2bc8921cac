## One group wider than the data are long: n = 20 rows, one group of d columns (whitened rank 19).
## The sample-space engine (and the GLM families) whiten such a group from the n x n matrix of its rows
## (O(n^2 d)); the Gram engine whitens its d x d block (O(d^3)). Prints both times at d = d_small and
## their ratio, and the sample-space engine's time (Gaussian and binomial) at d = d_large.
##   Rscript bench/bench-wide-group.R [d_small] [d_large]      (defaults 1000 and 3000)
suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header()
args <- bench_args(c(d_small = 1000, d_large = 3000))
n <- 20

set.seed(9)
timed_fit <- function(d, engine, family = "gaussian") {
  x <- normal_matrix(n, d, "v")
  y <- x[, 1] + stats::rnorm(n)
  if (family == "binomial") y <- as.numeric(y > stats::median(y))
  t <- system.time(fit <- fgseq(x, y, group = rep("wide", d), engine = engine, family = family))[["elapsed"]]
  route <- if (family == "gaussian") paste(engine, "engine") else "GLM pass"
  cat(sprintf("d = %5d  %-8s %-13s  %7.2f s  whitened rank %d\n", d, family, route, t, fit$rank[[1L]]))
  t
}
rows <- timed_fit(args$d_small, "sample")
block <- timed_fit(args$d_small, "gram")
cat(sprintf("d = %d: block / rows = %.1f\n", args$d_small, block / rows))
invisible(timed_fit(args$d_large, "sample"))
invisible(timed_fit(args$d_large, "gram", "binomial"))
cat("load after:", load_average(), "\n")
