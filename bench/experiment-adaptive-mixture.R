## Experiment: how far a richer working model of x could take the adaptive policy on the synthetic set of
## bench/bench-adaptive.R (a latent vertex z of the cube picks the informative group of each row, which
## shows only in the size of its values). The adaptive rule of fgseq_policy() (largest expected
## reduction of the decision risk per unit of cost) is run with the data's true class mixture as its
## working model (z uniform; hint | z ~ N(v_z, 0.6^2 I); g_k | z ~ N(0, s^2 I), s = 1 for k = z, else
## 0.15; the expected risk after a group by Monte Carlo, 64 draws), beside fgseq_policy() itself (one
## Gaussian working model) and the cascade on the static prefixes, on the same fit (CS-G-OMP, binomial,
## lambda 1e-3) and test rows. No calibration: each rule at each of its thresholds, and printed is the
## least mean cost at which its disagreement with the full model on these rows is at most eps. The true
## mixture is not available to a fit: the figures bound what a mixture fitted to the training rows
## could give.
##
## Usage (from the package root, with fgseq installed):
##   Rscript bench/experiment-adaptive-mixture.R         # 600 test rows (about 8 minutes of CPU)
##   Rscript bench/experiment-adaptive-mixture.R 200     # fewer rows

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
sc <- synthetic_cube(2000)
x <- sc$x
y <- sc$y
group <- sc$group
cost <- sc$cost
vertices <- sc$vertices
train <- sc$train; cal <- sc$cal; test <- sc$test
fit <- fgseq(x[train, ], y[train], group, cost, family = "binomial", lambda = 1e-3)
K <- ncol(fit$beta)
beta <- fit$beta[, K]; a0 <- fit$a0[K]
xt <- x[test, ]; yt <- y[test]
full_eta <- drop(a0 + xt %*% beta)
stopifnot(max(abs(full_eta - predict(fit, xt, type = "link")[, K])) < 1e-8)
full <- full_eta > 0
cat(sprintf("full model: %d steps, test accuracy %.4f, sequence %s\n", K - 1, mean(full == yt), paste(fit$sequence, collapse = " ")))

# the static prefixes: their cumulative costs and the probabilities of their models (for the cascade)
seqc <- cumsum(c(0, cost[fit$sequence]))
P <- sapply(seq_len(K), function(k) plogis(predict(fit, xt, type = "link")[, k]))

# the oracle mixture: z uniform; hint | z ~ N(v_z, 0.6^2 I); g_k | z ~ N(0, s^2 I), s = 1 for k = z, 0.15 else
gnames <- names(cost)
gcols <- lapply(gnames, function(g) which(group == g))
names(gcols) <- gnames
mean_z <- function(g, zz) if (g == "hint") vertices[zz, , drop = FALSE] else matrix(0, length(zz), 3)
sd_z <- function(g, zz) if (g == "hint") rep(0.6, length(zz)) else ifelse(as.integer(sub("g", "", g)) == zz, 1, 0.15)
loglik <- function(g, xg, zz) {  # xg: S x 3 values, zz: components (length S or 1 each row)
  mu <- mean_z(g, zz); s <- sd_z(g, zz)
  rowSums(stats::dnorm(xg, mu, s, log = TRUE))
}
# P(eta > 0) under the mixture given the log-weights lw (8) and observed set O (values xo of the row)
p_pos <- function(lw, O, xr) {
  wz <- exp(lw - max(lw)); wz <- wz / sum(wz)
  m <- rep(a0 + sum(beta[unlist(gcols[O])] * xr[unlist(gcols[O])]), 8)
  s2 <- rep(0, 8)
  for (g in setdiff(gnames, O)) {
    b <- beta[gcols[[g]]]
    m <- m + drop(mean_z(g, 1:8) %*% b)
    s2 <- s2 + sd_z(g, 1:8)^2 * sum(b^2)
  }
  sum(wz * stats::pnorm(m / sqrt(pmax(s2, 1e-300))))
}
S <- 64
trajectory <- function(i) {
  xr <- xt[i, ]
  O <- character(0); lw <- rep(0, 8); paid <- 0
  out <- list()
  repeat {
    p <- p_pos(lw, O, xr); risk <- min(p, 1 - p)
    rest <- setdiff(gnames, O)
    if (!length(rest)) { out[[length(out) + 1]] <- c(ratio = 0, cost = paid, d = p > 0.5); break }
    wz <- exp(lw - max(lw)); wz <- wz / sum(wz)
    ratio <- sapply(rest, function(g) {
      zs <- sample(8L, S, replace = TRUE, prob = wz)
      xg <- mean_z(g, zs) + matrix(stats::rnorm(3 * S), S) * sd_z(g, zs)
      ll <- sapply(1:8, function(k) loglik(g, xg, rep(k, S)))  # S x 8
      after <- vapply(seq_len(S), function(s2) {
        xr2 <- xr; xr2[gcols[[g]]] <- xg[s2, ]
        p2 <- p_pos(lw + ll[s2, ], c(O, g), xr2); min(p2, 1 - p2)
      }, 0)
      (risk - mean(after)) / cost[[g]]
    })
    out[[length(out) + 1]] <- c(ratio = max(ratio), cost = paid, d = p > 0.5)
    g <- rest[which.max(ratio)]
    O <- c(O, g); paid <- paid + cost[[g]]
    lw <- lw + loglik(g, matrix(xr[gcols[[g]]], 1), 1:8)
  }
  do.call(rbind, out)
}
set.seed(1)
args <- commandArgs(trailingOnly = TRUE)
rows <- seq_len(if (length(args)) as.integer(args[[1L]]) else 600L)  # a subset of test rows, for time
t0 <- proc.time()[[3]]
tr <- lapply(rows, trajectory)
cat(sprintf("trajectories of %d rows: %.1f s\n", length(rows), proc.time()[[3]] - t0))
adaptive <- function(tau) {
  r <- t(sapply(tr, function(m) { k <- which(m[, "ratio"] <= tau)[1]; if (is.na(k)) k <- nrow(m); m[k, c("cost", "d")] }))
  c(cost = mean(r[, "cost"]), dis = mean((r[, "d"] > 0.5) != full[rows]), acc = mean((r[, "d"] > 0.5) == yt[rows]))
}
taus <- c(0, 10^seq(-5, -1, by = 0.25))
mix <- t(sapply(taus, adaptive))
# the cascade on the same rows
cas_rows <- t(sapply(seq(0, 0.5, by = 0.01), function(m) {
  k <- apply(abs(P[rows, , drop = FALSE] - 0.5) >= m, 1, function(r) { i <- which(r); if (length(i)) i[1] else K })
  d <- P[cbind(rows, k)] > 0.5
  c(cost = mean(seqc[k]), dis = mean(d != full[rows]), acc = mean(d == yt[rows]))
}))
# fgseq's adaptive policy (single Gaussian working model) at fixed tau on the same rows
pol <- t(sapply(c(0, 10^seq(-5, -1, by = 0.5)), function(tau) {
  p <- fgseq_policy(fit, x[cal, ], y[cal], rule = "adaptive", tau = tau)
  pr <- predict(p, xt[rows, ], type = "class")
  c(cost = mean(attr(pr, "cost")), dis = mean((as.character(pr) == "1") != full[rows]), acc = mean((as.character(pr) == "1") == yt[rows]))
}))
at <- function(tab, eps) { ok <- tab[, "dis"] <= eps; if (any(ok)) min(tab[ok, "cost"]) else NA }
cat(sprintf("mean cost at a disagreement with the full model of at most eps (%d test rows):\n", length(rows)))
for (eps in c(0.01, 0.02, 0.05, 0.1, 0.2)) {
  cat(sprintf("  eps %.2f: oracle mixture %6.1f   single Gaussian (fgseq_policy) %6.1f   cascade %6.1f\n", eps,
              at(mix, eps), at(pol, eps), at(cas_rows, eps)))
}
