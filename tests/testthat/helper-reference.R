# Plain-R reference implementation of feature group sequencing (Hu, Grubb,
# Bagnell and Hebert 2016, AISTATS), written in SAMPLE space, straight from
# the paper and the package specification. It is slow on purpose: every
# prefix is refitted from scratch, FR gains refit every candidate set, and no
# Gram-matrix identity is used. The tests compare fgseq() against it.

# --- Standardization and group whitening -----------------------------------

# Centre every column and scale it by its population sd (divisor n).
# Returns the standardized matrix, the means, the sds and a flag for
# constant columns (kept at coefficient 0).
ref_standardize <- function(x) {
  n <- nrow(x)
  mu <- colMeans(x)
  xc <- sweep(x, 2, mu)
  s <- sqrt(colSums(xc^2) / n)
  constant <- s <= 1e-12 * pmax(1, abs(mu))
  xs <- sweep(xc, 2, ifelse(constant, 1, s), "/")
  xs[, constant] <- 0
  list(xs = xs, mu = mu, sd = s, constant = constant)
}

# Whiten one group (spec "Group whitening"): Sigma_gg = Xs_g' Xs_g / n =
# U diag(d) U', keep d_i > 1e-9 max(d), T_g = U_r diag(d_r^-1/2), so that
# Z_g = Xs_g T_g has Z_g' Z_g / n = I. This makes the paper's criterion
# b' (X_g' X_g)^-1 b equal to ||Z_g' r / n||^2 (Section 2, "group whitening").
ref_whiten <- function(xs_g) {
  n <- nrow(xs_g)
  e <- eigen(crossprod(xs_g) / n, symmetric = TRUE)
  keep <- e$values > 1e-9 * max(e$values)
  t_g <- e$vectors[, keep, drop = FALSE] %*%
    diag(1 / sqrt(e$values[keep]), sum(keep), sum(keep))
  list(t = t_g, z = xs_g %*% t_g)
}

# --- Risk of a set of groups, Eq. (1) ----------------------------------------

# R(S) = min_w 1/(2n) ||yc - Z_S w||^2 + lambda/2 ||w||^2 on the whitened
# columns of the groups in S. At lambda = 0 the fit is the projection of yc on
# span(Z_S) by QR, which copes with collinearity between groups.
ref_fit_set <- function(z_list, yc, lambda) {
  n <- length(yc)
  if (length(z_list) == 0L) {
    return(list(w = numeric(0), resid = yc, risk = sum(yc^2) / (2 * n)))
  }
  z <- do.call(cbind, z_list)
  if (lambda == 0) {
    q <- qr(z)
    w <- qr.coef(q, yc)
    w[is.na(w)] <- 0                  # aliased columns: any solution will do
    resid <- qr.resid(q, yc)
  } else {
    # ridge normal equations (Z'Z/n + lambda I) w = Z'yc/n
    w <- drop(solve(crossprod(z) / n + diag(lambda, ncol(z)),
                    crossprod(z, yc) / n))
    resid <- drop(yc - z %*% w)
  }
  risk <- sum(resid^2) / (2 * n) + lambda / 2 * sum(w^2)
  list(w = w, resid = resid, risk = risk)
}

# --- Tie rule ------------------------------------------------------------------

# Every candidate scoring >= max - 1e-10 * max(|max|, 1e-300) is tied; the tied
# group that comes first in the group order wins. `cand` is in group order.
ref_argmax <- function(cand, score) {
  m <- max(score)
  tied <- score >= m - 1e-10 * max(abs(m), 1e-300)
  cand[which(tied)[1L]]
}

# --- Measurements: marginal costs ---------------------------------------------------

# The measurements of groups `labels`: without `needs`, `cost` is one cost per
# group and each group is its own measurement; with `needs` (group -> measurement
# names; a group not listed needs its own label), `cost` is named by measurement.
# Returns needs (per label), mcost (per measurement) and cost (each group's
# stand-alone cost: the sum over its measurements).
ref_measurements <- function(labels, cost, needs = NULL) {
  if (is.null(cost)) cost <- rep(1, length(labels))
  if (is.null(needs)) {
    cost <- if (is.null(names(cost))) setNames(as.numeric(cost), labels) else cost[labels]
    return(list(needs = setNames(as.list(labels), labels), mcost = cost, cost = cost))
  }
  needs <- lapply(setNames(labels, labels), function(g) if (is.null(needs[[g]])) g else needs[[g]])
  list(needs = needs, mcost = cost, cost = vapply(needs, function(m) sum(cost[m]), numeric(1)))
}

# The cost of the union of the measurements of `groups`, counted from scratch.
ref_union_cost <- function(meas, groups) sum(meas$mcost[unique(unlist(meas$needs[groups]))])

# Marginal cost of each candidate given the selected groups: the cost of its
# measurements that no selected group needs.
ref_marginal <- function(meas, cand, selected) {
  paid <- unique(unlist(meas$needs[selected]))
  vapply(cand, function(h) sum(meas$mcost[setdiff(meas$needs[[h]], paid)]), numeric(1))
}

# The selection step on marginal costs: with costs, a candidate of zero marginal
# cost and positive gain (above `tiny`) is taken first, largest gain first (its
# score is the gain); otherwise the score is the gain per unit of marginal cost
# (0 for a free candidate without gain), or the gain itself without costs.
# Returns the chosen group, its score and every candidate's score.
ref_select <- function(cand, gain, marginal, cost_sensitive, tiny) {
  free <- cost_sensitive & marginal == 0 & gain > tiny
  if (any(free)) {
    g <- ref_argmax(cand[free], gain[free])
    return(list(g = g, score = gain[[g]], scores = gain))
  }
  score <- if (cost_sensitive) ifelse(marginal > 0, gain / marginal, 0) else gain
  names(score) <- cand
  g <- ref_argmax(cand, score)
  list(g = g, score = score[[g]], scores = score)
}

# --- The greedy sequence: Algorithm 1 (CS-G-OMP), CS-G-FR, Algorithm 2 --------

# Algorithm 2: c(x) <= c_min at step 1, c(x) <= c(G_{j-1}) afterwards, c(x) the
# marginal cost of x given G_{j-1} and c(G_{j-1}) the cost spent so far;
# fallback when that is empty: the remaining groups of least marginal cost.
ref_doubling_candidates <- function(cand, selected, cost, c_min, marginal = cost[cand],
                                    spent = sum(cost[selected])) {
  limit <- if (length(selected) == 0L) c_min else spent
  ok <- cand[marginal <= limit]
  if (length(ok)) ok else cand[marginal <= min(marginal)]
}

# The greedy loop shared by the references (Algorithm 1, CS-G-FR, Algorithm 2): from the empty set,
# add the candidate of `pool` that ref_select() picks from gain_of(cand, current fit, selected) and
# the marginal costs (Doubling: among its candidates), refit with fit_of(set), until every group of
# the pool is in. Returns the sequence `selected`, the fits after steps 0..K, the scores (NA, then
# one per step), the marginal cost `paid` of each step and every candidate's score per step.
ref_greedy <- function(pool, meas, cost, c_min, method, cost_sensitive, fit_of, gain_of, tiny) {
  selected <- character(0)
  fits <- list(fit_of(selected))
  scores <- NA_real_
  candidates <- list()
  paid <- numeric(0)
  while (length(selected) < length(pool)) {
    cand <- setdiff(pool, selected)             # keeps group order
    marginal <- ref_marginal(meas, cand, selected)
    if (method == "doubling") {                 # paper Algorithm 2 (Doubling)
      cand <- ref_doubling_candidates(cand, selected, cost, c_min, marginal, ref_union_cost(meas, selected))
      marginal <- marginal[cand]
    }
    gain <- gain_of(cand, fits[[length(fits)]], selected)
    pick <- ref_select(cand, gain, marginal, cost_sensitive, tiny)
    candidates[[length(candidates) + 1L]] <- pick$scores
    g <- pick$g
    scores <- c(scores, pick$score)
    paid <- c(paid, marginal[[g]])
    selected <- c(selected, g)
    fits[[length(fits) + 1L]] <- fit_of(selected)
  }
  list(selected = selected, fits = fits, scores = scores, paid = paid, candidates = candidates)
}

# OMP scores, Algorithm 1 lines 4-5: b_g = X_g' (Y - X_{G_{j-1}} w) / n, in
# whitened coordinates ("whitened": ||Z_g' r / n||^2) or standardized ones
# ("l2": ||Xs_g' r / n||^2, "linf": max_j (Xs_gj' r / n)^2).
ref_omp_scores <- function(cand, resid, wh, xs, cols, criterion) {
  n <- length(resid)
  vapply(cand, function(h) {
    bw <- crossprod(wh[[h]]$z, resid) / n
    bs <- crossprod(xs[, cols[[h]], drop = FALSE], resid) / n
    switch(criterion, whitened = sum(bw^2), l2 = sum(bs^2), linf = max(bs^2))
  }, numeric(1))
}

# beta_g = diag(1/sd_g) T_g w_g for the groups of the prefix, 0 elsewhere.
ref_to_original <- function(w, prefix, wh, cols, sdv, p) {
  beta <- numeric(p)
  at <- 0L
  for (g in prefix) {
    r <- ncol(wh[[g]]$t)
    j <- cols[[g]]
    beta[j] <- drop(wh[[g]]$t %*% w[at + seq_len(r)]) / sdv[j]
    at <- at + r
  }
  beta
}

ref_fgseq <- function(x, y, group = NULL, cost = NULL,
                      method = c("omp", "fr", "doubling"), lambda = 0,
                      criterion = c("whitened", "l2", "linf"),
                      cost_sensitive = TRUE, c_min = NULL, needs = NULL) {
  method <- match.arg(method)
  criterion <- match.arg(criterion)
  x <- as.matrix(x)
  n <- nrow(x)
  p <- ncol(x)
  if (is.null(group)) {
    group <- if (is.null(colnames(x))) paste0("V", seq_len(p)) else colnames(x)
  }
  group <- as.character(group)
  labels <- unique(group)
  meas <- ref_measurements(labels, cost, needs)
  cost <- meas$cost

  st <- ref_standardize(x)
  yc <- y - mean(y)
  # whitened blocks of the non-constant columns of each group
  cols <- lapply(setNames(labels, labels), function(g) which(group == g & !st$constant))
  wh <- lapply(cols, function(j) if (length(j)) ref_whiten(st$xs[, j, drop = FALSE]))
  pool <- labels[lengths(cols) > 0L]          # all-constant groups left out
  if (is.null(c_min)) c_min <- min(cost[pool])
  fit_of <- function(set) ref_fit_set(lapply(wh[set], `[[`, "z"), yc, lambda)

  fit0 <- fit_of(character(0))
  gain_of <- function(cand, cur, selected) {
    if (method == "omp") return(ref_omp_scores(cand, cur$resid, wh, st$xs, cols, criterion))
    # CS-G-FR / Doubling: gain F(G + g) - F(G) = R(G) - R(G + g), refitted
    vapply(cand, function(h) cur$risk - fit_of(c(selected, h))$risk, numeric(1))
  }
  path <- ref_greedy(pool, meas, cost, c_min, method, cost_sensitive, fit_of, gain_of, 1e-12 * fit0$risk)
  selected <- path$selected
  fits <- path$fits
  scores <- path$scores
  paid <- path$paid
  all_scores <- path$candidates

  K <- length(selected)
  beta <- vapply(0:K, function(k) {
    ref_to_original(fits[[k + 1L]]$w, selected[seq_len(k)], wh, cols, st$sd, p)
  }, numeric(p))
  beta <- matrix(beta, p, K + 1L, dimnames = list(colnames(x), paste0("step", 0:K)))
  risk0 <- fits[[1]]$risk                     # R(empty) = ||yc||^2 / (2n)
  objective <- risk0 - vapply(fits, `[[`, numeric(1), "risk")
  list(sequence = selected, r2 = objective / risk0, objective = objective,
       score = unname(scores), beta = beta,
       a0 = mean(y) - drop(st$mu %*% beta),
       cost = unname(cumsum(c(0, paid))), candidates = all_scores)
}

# --- Timeliness by another route ---------------------------------------------------

# (1/B) * integral_0^B f(c) dc, f through the points (C_k, r2_k) (linear, or
# constant from the left for "step"), f = r2_K beyond C_K. Computed with the
# midpoint rule on every piece between breakpoints, which is exact for a
# function that is linear (or constant) on each piece.
ref_timeliness <- function(cost, r2, B, interpolation = c("linear", "step")) {
  interpolation <- match.arg(interpolation)
  f <- stats::approxfun(cost, r2, method = if (interpolation == "step") "constant" else "linear",
                        rule = 2, f = 0, ties = "ordered")
  knots <- sort(unique(c(0, cost[cost < B], B)))
  a <- head(knots, -1)
  b <- knots[-1]
  unname(sum((b - a) * f((a + b) / 2)) / B)
}

# --- Data generators ------------------------------------------------------------

# Correlated groups: corr = rho within a group, rho/2 across groups, unit
# variance; y linear in x plus noise. Group labels are NOT in alphabetical
# order so that the "first in group order" rule is exercised. Distinct random
# costs avoid exact score ties.
sim_groups <- function(n = 120, sizes = c(2, 3, 1, 2), rho = 0.5, seed = 1,
                       cost = NULL) {
  set.seed(seed)
  p <- sum(sizes)
  gid <- rep(seq_along(sizes), sizes)
  sigma <- ifelse(outer(gid, gid, "=="), rho, rho / 2)
  diag(sigma) <- 1
  x <- matrix(rnorm(n * p), n, p) %*% chol(sigma)
  x <- sweep(x, 2, runif(p, -2, 2) , "+") %*% diag(runif(p, 0.5, 3), p)
  colnames(x) <- paste0("x", seq_len(p))
  labels <- rev(letters[seq_along(sizes)])
  y <- drop(x %*% rnorm(p)) + rnorm(n, sd = 2)
  rc <- round(runif(length(sizes), 1, 10), 3)
  cost <- setNames(if (is.null(cost)) rc else cost, labels)
  list(x = x, y = y, group = labels[gid], cost = cost)
}

# A rank-deficient group: in the second group (3 columns) the third column is
# the sum of the first two.
sim_rank_deficient <- function(n = 100, seed = 2) {
  d <- sim_groups(n, sizes = c(2, 3, 2, 1), rho = 0.3, seed = seed)
  j <- which(d$group == unique(d$group)[2])
  d$x[, j[3]] <- d$x[, j[1]] + d$x[, j[2]]
  d
}

# Duplicated columns across groups: the first column of group 1 reappears in
# group 3, and a column of group 2 reappears (rescaled, shifted) in group 4.
# Every group keeps a column of its own, so no group is entirely spanned by
# the others and greedy scores stay away from exact zero.
sim_duplicated <- function(n = 100, seed = 3) {
  d <- sim_groups(n, sizes = c(2, 2, 2, 2), rho = 0.4, seed = seed)
  g <- unique(d$group)
  col <- function(k, i) which(d$group == g[k])[i]
  d$x[, col(3, 1)] <- d$x[, col(1, 1)]
  d$x[, col(4, 2)] <- 3 * d$x[, col(2, 2)] - 1
  d
}

# The heart data as in the spec: one group per model term.
heart_design <- function() {
  mm <- stats::model.matrix(diagnosis ~ ., heart)
  terms <- attr(stats::terms(diagnosis ~ ., data = heart), "term.labels")
  assign <- attr(mm, "assign")
  list(x = mm[, -1], y = as.numeric(heart$diagnosis),
       group = terms[assign[-1]], cost = heart_cost)
}

# Fitted values of a fit's coefficient column k (original scale).
fitted_at <- function(beta, a0, x, k) drop(x %*% beta[, k] + a0[k])

# --- Comparison helpers -------------------------------------------------------------

# max |a - b| <= tol * max(1, max |b|)
expect_close <- function(a, b, tol = 1e-8, label = NULL) {
  a <- unname(as.numeric(a))
  b <- unname(as.numeric(b))
  expect_identical(length(a), length(b))
  err <- max(abs(a - b), 0)
  expect_true(err <= tol * max(1, abs(b)),
              label = paste0(label, ": max abs difference ", signif(err, 3), " > ", tol))
}

# fgseq() against ref_fgseq(): same sequence, same path numbers; coefficients
# too when the fit is unique (no collinearity between groups, or lambda > 0).
expect_same_path <- function(fit, ref, tol = 1e-8, beta = TRUE, label = "") {
  expect_identical(fit$sequence, ref$sequence, label = paste(label, "sequence"))
  if (!identical(fit$sequence, ref$sequence)) return(invisible())
  expect_close(fit$path$r2, ref$r2, tol, paste(label, "r2"))
  expect_close(fit$path$objective, ref$objective, tol, paste(label, "objective"))
  expect_close(fit$path$cost, ref$cost, tol, paste(label, "cost"))
  expect_true(is.na(fit$path$score[1]), label = paste(label, "score at step 0 is NA"))
  expect_equal(fit$path$score[-1], ref$score[-1], tolerance = 1e-6,
               label = paste(label, "score"))
  if (beta) {
    expect_close(fit$beta, ref$beta, 1e-7, paste(label, "beta"))
    expect_close(fit$a0, ref$a0, 1e-7, paste(label, "a0"))
  }
}

# All the settings compared at lambda = 0.
settings <- expand.grid(method = c("omp", "fr", "doubling"),
                        criterion = c("whitened", "l2", "linf"),
                        cost_sensitive = c(TRUE, FALSE), stringsAsFactors = FALSE)

# A tall x whose sweep for NA and Inf a tiny max_time cuts short: 2^17 rows and 10 columns, and the
# sweep polls the clock after 8 columns (2^20 values), so the Inf in the last row of column 'x10' is
# never reached. With y, weights w and offset off (one per row).
unread_inf_problem <- function(seed = 9) {
  set.seed(seed)
  n <- 2^17
  x <- matrix(rnorm(n * 10), n, 10, dimnames = list(NULL, paste0("x", 1:10)))
  x[n, 10] <- Inf
  list(x = x, y = x[, 1] + rnorm(n), w = runif(n, 0.5, 2), off = rnorm(n, sd = 0.1))
}

# evaluate `code` with options(na.action = value), restored after
with_na_option <- function(value, code) {
  old <- options(na.action = value)
  on.exit(options(old))
  code
}
