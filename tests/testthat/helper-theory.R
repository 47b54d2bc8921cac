# Exact objectives of small problems, for the theory checks of test-theory.R
# (Hu, Grubb, Bagnell and Hebert 2016, sections 3 and 4).
#
# A set S of groups is a bit mask over the groups in `unique(group)` order: group
# k is bit k - 1, and mask m is stored at index m + 1. F(S) is computed in the
# coordinates fgseq() works in (standardized columns, whitened groups, ridge on
# the whitened coefficients) from the Gram matrix:
#   R(S) = yy/2 - max_w (rho_S' w - w' C_SS w / 2),  C = Z'Z/n + lambda I,
#   F(S) = R(empty) - R(S) = rho_S' C_SS^-1 rho_S / 2,  rho = Z' yc / n.

# Every subset of the groups: F, cost and the constants of the theorems.
theory_exact <- function(x, y, group, cost, lambda) {
  n <- nrow(x)
  labels <- unique(as.character(group))
  J <- length(labels)
  stopifnot(J <= 12)
  st <- ref_standardize(x)
  yc <- y - mean(y)
  z <- lapply(labels, function(g) ref_whiten(st$xs[, group == g, drop = FALSE])$z)
  blocks <- rep(seq_len(J), vapply(z, ncol, integer(1)))
  z <- do.call(cbind, z)
  gram <- crossprod(z) / n
  cmat <- gram + diag(lambda, ncol(z))
  rho <- drop(crossprod(z, yc)) / n
  masks <- 0:(2^J - 1)
  members <- lapply(masks, function(m) which(bitwAnd(m, 2^(seq_len(J) - 1)) > 0))
  objective <- vapply(members, function(s) {
    if (!length(s)) return(0)
    j <- blocks %in% s
    sum(rho[j] * solve(cmat[j, j, drop = FALSE], rho[j])) / 2
  }, numeric(1))
  cost <- cost[labels]
  lambda_min <- min(eigen(gram, symmetric = TRUE, only.values = TRUE)$values)
  list(labels = labels, J = J, objective = objective,
       cost = vapply(members, function(s) sum(cost[s]), numeric(1)),
       risk0 = sum(yc^2) / (2 * n), lambda = lambda, lambda_min = lambda_min,
       # Lemma 3.1 / Theorem 3.2: gamma = (lambda* + lambda) / (1 + lambda)
       gamma = (lambda_min + lambda) / (1 + lambda))
}

# The mask of a set of group labels.
theory_mask <- function(ex, set) sum(2^(match(set, ex$labels) - 1))

# The masks of the prefixes G_0, G_1, ..., G_K of a sequence.
theory_prefix_masks <- function(ex, sequence) {
  cumsum(c(0, 2^(match(sequence, ex$labels) - 1)))
}

# max {F(S) : c(S) <= K} (or < K with strict = TRUE), for each K.
theory_best <- function(ex, K, strict = FALSE, tol = 1e-12) {
  vapply(K, function(k) {
    ok <- if (strict) ex$cost < k - tol * k else ex$cost <= k + tol * k
    max(ex$objective[ok])
  }, numeric(1))
}

# Approximate submodularity ratio of equation (9), by brute force: the largest
# gamma <= 1 with gamma (F(A + x) - F(A)) <= F(A' + x) - F(A') for all A' in A,
# x outside A. Gains below `tol` * R(empty) count as 0 (a zero gain at A with a
# positive one at A' costs nothing; a zero gain at A' against a positive one at
# A makes gamma 0).
theory_submodularity_ratio <- function(ex, tol = 1e-10) {
  J <- ex$J
  f <- ex$objective
  masks <- 0:(2^J - 1)
  pairs <- expand.grid(sub = masks, set = masks)
  pairs <- pairs[bitwAnd(pairs$sub, pairs$set) == pairs$sub, ]
  ratio <- 1
  for (k in seq_len(J)) {
    bit <- 2^(k - 1)
    pk <- pairs[bitwAnd(pairs$set, bit) == 0, ]
    gain_set <- f[pk$set + bit + 1] - f[pk$set + 1]
    gain_sub <- f[pk$sub + bit + 1] - f[pk$sub + 1]
    use <- gain_set > tol * ex$risk0
    if (any(use)) ratio <- min(ratio, gain_sub[use] / gain_set[use])
  }
  max(0, ratio)
}

# Small problems: `sizes` columns per group (correlated as in sim_groups()),
# costs drawn at random; with doubling = TRUE the two cheapest groups share
# cost 1 and each next cost (in increasing order) is at most the sum of the
# cheaper ones, so that every Doubling step has a candidate (Definition 4.2).
# With aligned = TRUE, y = sum of the standardized columns times weights in
# [0.5, 1.5] plus noise: positively correlated columns with positive weights,
# no suppressor effects, so the ratio of equation (9) stays well above 0.
theory_problem <- function(seed, sizes = c(2, 1, 3, 1, 2, 1, 2), rho = 0.5, n = 100,
                           doubling = FALSE, aligned = FALSE) {
  d <- sim_groups(n = n, sizes = sizes, rho = rho, seed = seed)
  J <- length(sizes)
  if (aligned) {
    set.seed(seed + 2000)
    d$y <- drop(scale(d$x) %*% runif(ncol(d$x), 0.5, 1.5)) + rnorm(n, sd = 2)
  }
  if (doubling) {
    set.seed(seed + 1000)
    cc <- c(1, 1)
    while (length(cc) < J) cc <- c(cc, round(runif(1, max(cc), sum(cc)), 2))
    d$cost[] <- sample(cc)
  }
  d
}
