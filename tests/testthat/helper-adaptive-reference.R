# Plain-R reference of the per-row adaptive acquisition policy, written from
# the specification alone (moments, conditional predictor, risks, expected
# risk reductions, marginal costs, greedy policy, cascade, Learn-then-Test).
# Slow on purpose: every conditional mean and variance is recomputed from
# scratch with a pseudo-inverse at every step, the binomial expected risk is
# an adaptive stats::integrate() (not Gauss-Hermite), nothing is cached.
# The tests compare the package's adaptive policy against it.

# --- Small pieces ---------------------------------------------------------------

# Moore-Penrose pseudo-inverse of a symmetric PSD matrix (Sigma_OO): MASS::ginv
# when MASS is installed, else eigen() keeping eigenvalues > 1e-9 * max.
ref_adaptive_pinv <- function(a) {
  if (length(a) == 0L) return(matrix(0, 0, 0))
  if (requireNamespace("MASS", quietly = TRUE)) return(MASS::ginv(a))
  e <- eigen(a, symmetric = TRUE)
  keep <- e$values > 1e-9 * max(e$values, 0)
  u <- e$vectors[, keep, drop = FALSE]
  u %*% (t(u) / e$values[keep])
}

# The family name of a fit ("binomial" or "gaussian"), whether fit$family is
# a string or a family object.
ref_adaptive_family <- function(fit) {
  f <- fit$family
  if (is.list(f)) f <- f$family
  as.character(f)[1L]
}

# Column names of x, in the order of x (rows of fit$beta).
ref_adaptive_columns <- function(fit) {
  nm <- rownames(fit$beta)
  if (is.null(nm)) nm <- names(fit$group)
  nm
}

# The group label of each column, named by the columns.
ref_adaptive_groups <- function(fit) {
  g <- fit$group
  if (is.null(names(g))) names(g) <- ref_adaptive_columns(fit)
  g
}

# A row as a numeric vector named by the columns of x.
ref_adaptive_row <- function(fit, x_row) {
  cols <- ref_adaptive_columns(fit)
  if (is.matrix(x_row) || inherits(x_row, "Matrix")) {
    nm <- colnames(x_row)
    x_row <- as.numeric(as.matrix(x_row))
    names(x_row) <- nm
  }
  if (is.null(names(x_row))) names(x_row) <- cols
  x_row[cols]
}

# Spec "Marginal cost": mc(g) = sum of measurement_cost over needs[[g]] minus
# the measurements already paid by the groups in `observed`.
ref_adaptive_needs <- function(fit, g) if (is.null(fit$needs[[g]])) g else fit$needs[[g]]
ref_adaptive_mc <- function(fit, g, observed) {
  paid <- unique(unlist(lapply(observed, function(h) ref_adaptive_needs(fit, h))))
  sum(fit$measurement_cost[setdiff(ref_adaptive_needs(fit, g), paid)])
}

# Spec "The prediction of the row": the fit's own prefix model j,
# fit$a0[j+1] + x %*% fit$beta[, j+1], using only the columns of the first j
# groups (the others have coefficient 0 and may be NA in the row).
ref_adaptive_prefix_link <- function(fit, x, j) {
  cols <- ref_adaptive_columns(fit)
  b <- as.numeric(as.matrix(fit$beta[, j + 1L]))
  use <- ref_adaptive_groups(fit)[cols] %in% fit$sequence[seq_len(j)]
  unname(fit$a0[j + 1L] + sum(x[use] * b[use]))
}

# --- Moments and the conditional predictor ---------------------------------------

# Spec "Moments": weighted column means mu = sum(w x) / sum(w) and weighted
# POPULATION covariance Sigma = crossprod(sqrt(w) * (X - mu)) / sum(w), over
# all columns of x (default w = 1).
ref_moments <- function(x, w = NULL) {
  x <- as.matrix(x)
  if (is.null(w)) w <- rep(1, nrow(x))
  sw <- sum(w)
  mu <- colSums(w * x) / sw
  xc <- sweep(x, 2, mu)
  cv <- crossprod(sqrt(w) * xc) / sw
  names(mu) <- colnames(x)
  dimnames(cv) <- list(colnames(x), colnames(x))
  list(mean = mu, cov = cv)
}

# Spec "Conditional predictor of a set O": with S the columns of the groups
# fit$sequence[1:step], Oc the columns of S in the observed groups, M = S \ Oc,
#   c_O  = beta_O + Sigma_OO^+ Sigma_OM beta_M
#   mean = a0 + sum(mu_S beta_S) + c_O' (x_O - mu_O)
#   var  = beta_M' (Sigma_MM - Sigma_MO Sigma_OO^+ Sigma_OM) beta_M
# (O empty: var = beta' Sigma beta; M empty: var = 0). Observed groups outside
# the first `step` groups are ignored. A rounding-negative var is set to 0.
ref_conditional <- function(fit, x_row, observed, mu, Sigma,
                            step = length(fit$sequence)) {
  cols <- ref_adaptive_columns(fit)
  x <- ref_adaptive_row(fit, x_row)
  prefix <- fit$sequence[seq_len(step)]
  grp <- ref_adaptive_groups(fit)
  in_s <- grp[cols] %in% prefix
  S <- cols[in_s]
  Oc <- S[grp[S] %in% observed]
  M <- setdiff(S, Oc)
  beta <- setNames(as.numeric(as.matrix(fit$beta[, step + 1L])), cols)
  a0 <- fit$a0[step + 1L]
  if (is.null(names(mu))) names(mu) <- cols
  if (is.null(dimnames(Sigma))) dimnames(Sigma) <- list(cols, cols)
  mu <- mu[cols]
  base <- unname(a0 + sum(mu[S] * beta[S]))
  if (length(Oc) == 0L) {
    v <- if (length(M)) drop(t(beta[M]) %*% Sigma[M, M, drop = FALSE] %*% beta[M]) else 0
    return(list(mean = base, var = max(v, 0), coef = setNames(numeric(0), character(0))))
  }
  if (length(M) == 0L) {
    coef <- beta[Oc]
    v <- 0
  } else {
    soo_inv <- ref_adaptive_pinv(Sigma[Oc, Oc, drop = FALSE])
    som <- Sigma[Oc, M, drop = FALSE]
    coef <- beta[Oc] + drop(soo_inv %*% som %*% beta[M])
    schur <- Sigma[M, M, drop = FALSE] - t(som) %*% soo_inv %*% som
    v <- drop(t(beta[M]) %*% schur %*% beta[M])
  }
  names(coef) <- Oc
  m <- base + sum(coef * (x[Oc] - mu[Oc]))
  list(mean = unname(m), var = max(unname(v), 0), coef = coef)
}

# --- Risks ---------------------------------------------------------------------------

# Spec "Risk of a set": binomial r = pnorm(-|m| / sqrt(V)); gaussian
# r = 2 pnorm(-tol / sqrt(V)); both 0 when V = 0.
ref_risk <- function(family, m, V, tol = NULL) {
  if (V <= 0) return(0)
  switch(family,
    binomial = stats::pnorm(-abs(m) / sqrt(V)),
    gaussian = {
      if (is.null(tol)) stop("gaussian risk needs tol")
      2 * stats::pnorm(-tol / sqrt(V))
    },
    stop("unknown family ", family))
}

# Spec "Expected risk after also observing g": gaussian 2 pnorm(-tol/sqrt(V'))
# (0 when V' = 0); binomial E[pnorm(-|m'| / sqrt(V'))], m' ~ N(m, V - V'),
# by stats::integrate() over z = (m' - m) / sqrt(V - V') on [-12, 12] (the
# mass outside is < 1e-32), split at the kink m' = 0 and at widths
# sqrt(V'/(V - V')) * 4^k around it so that a narrow peak is not missed.
ref_expected_risk <- function(family, m, V, V_new, tol = NULL) {
  if (family == "gaussian") return(ref_risk("gaussian", m, V_new, tol))
  if (family != "binomial") stop("unknown family ", family)
  if (V_new <= 0) return(0)
  d <- V - V_new
  if (d <= 0) return(stats::pnorm(-abs(m) / sqrt(V_new)))
  sd_d <- sqrt(d)
  s_new <- sqrt(V_new)
  f <- function(z) stats::dnorm(z) * stats::pnorm(-abs(m + sd_d * z) / s_new)
  z0 <- -m / sd_d
  h <- s_new / sd_d
  br <- c(-12, 12, z0, z0 + outer(c(-1, 1), h * 4^(0:6)))
  br <- sort(unique(br[br >= -12 & br <= 12]))
  total <- 0
  for (i in seq_len(length(br) - 1L)) {
    total <- total + stats::integrate(f, br[i], br[i + 1L], rel.tol = 1e-11,
                                      abs.tol = 1e-16, subdivisions = 1000L)$value
  }
  total
}

# Probit approximation of E[plogis(eta)], eta ~ N(m, V): plogis(m / sqrt(1 + pi V / 8)).
ref_probit_prob <- function(m, V) stats::plogis(m / sqrt(1 + pi * V / 8))

# --- The prediction of a row once it stops ---------------------------------------------

# Spec "The prediction of the row after the policy stops": O a prefix of
# fit$sequence of length j (as a set) -> the fit's prefix model j (response
# plogis(link) for binomial); else the conditional mean m of O under model
# `step` (response plogis(m / sqrt(1 + pi V / 8)) for binomial). Decision:
# binomial 2L if response > 0.5 else 1L (class index); gaussian the link.
ref_adaptive_predict <- function(fit, x_row, observed, mu, Sigma, step, family) {
  x <- ref_adaptive_row(fit, x_row)
  j <- length(observed)
  if (setequal(observed, fit$sequence[seq_len(j)])) {
    link <- ref_adaptive_prefix_link(fit, x, j)
    response <- if (family == "binomial") stats::plogis(link) else link
  } else {
    cond <- ref_conditional(fit, x, observed, mu, Sigma, step)
    link <- cond$mean
    response <- if (family == "binomial") ref_probit_prob(cond$mean, cond$var) else link
  }
  decision <- if (family == "binomial") if (response > 0.5) 2L else 1L else link
  list(link = link, response = response, decision = decision)
}

# --- The greedy adaptive policy ----------------------------------------------------------

# Spec "Greedy adaptive policy for one row": from O = {} and spent = 0, the
# candidates are the groups of fit$sequence[1:step] not in O (order =
# "sequence": only the next one) with spent + mc(g) <= budget; score(g) =
# red(g) / mc(g) with red(g) = r(O) - E r(O + g) (mc = 0: Inf if red > 0,
# else 0; red(g) clamped at 0, as the risk's expectation never exceeds it);
# the best (ties within a relative 1e-10: earliest in fit$sequence) is bought
# unless its score < tau (so tau = 0 never stops before the budget); with stopping = "lookahead" unless
# max(score, r(O) / rest) < tau, rest the marginal cost of every group of the pool not in O (counted
# only when spent + rest <= budget; rest = 0: Inf if r > 0, else 0); with stopping = "risk" the row stops
# instead when its current risk r(O) < tau, and with stopping = "margin" (binomial) when the prediction
# at O is at least tau from 0.5: |response - 0.5| >= tau. Everything is recomputed at every step.
# Returns the groups bought in order, the cost spent and the prediction.
ref_policy_row <- function(fit, x_row, mu, Sigma, tau, tol = NULL, budget = Inf,
                           order = c("adaptive", "sequence"), stopping = c("reduction", "lookahead", "risk", "margin"),
                           step = length(fit$sequence)) {
  order <- match.arg(order)
  stopping <- match.arg(stopping)
  family <- ref_adaptive_family(fit)
  x <- ref_adaptive_row(fit, x_row)
  pool <- fit$sequence[seq_len(step)]
  O <- character(0)
  spent <- 0
  repeat {
    cand <- setdiff(pool, O)                     # keeps sequence order
    if (order == "sequence") cand <- head(cand, 1L)
    mc <- vapply(cand, function(g) ref_adaptive_mc(fit, g, O), numeric(1))
    fits <- (spent + mc) * (1 - 1e-12) <= budget
    cand <- cand[fits]
    mc <- mc[fits]
    if (length(cand) == 0L) break
    cur <- ref_conditional(fit, x, O, mu, Sigma, step)
    r <- ref_risk(family, cur$mean, cur$var, tol)
    red <- vapply(cand, function(g) {
      v_new <- ref_conditional(fit, x, c(O, g), mu, Sigma, step)$var
      max(0, r - ref_expected_risk(family, cur$mean, cur$var, v_new, tol))
    }, numeric(1))
    score <- ifelse(mc == 0, ifelse(red > 0, Inf, 0), red / mc)
    top <- max(score)
    tied <- if (is.infinite(top)) score == top else score >= top - 1e-10 * max(abs(top), 1e-300)
    best <- cand[which(tied)[1L]]
    if (stopping == "margin") {
      now <- ref_adaptive_predict(fit, x, O, mu, Sigma, step, family)
      if (abs(now$response - 0.5) >= tau) break
    } else {
      stat <- if (stopping == "risk") r else score[[best]]
      if (stopping == "lookahead") {
        left <- setdiff(pool, O)
        rest <- sum(fit$measurement_cost[setdiff(unique(unlist(lapply(left, function(g) ref_adaptive_needs(fit, g)))),
                                                 unique(unlist(lapply(O, function(g) ref_adaptive_needs(fit, g)))))])
        if ((spent + rest) * (1 - 1e-12) <= budget) stat <- max(stat, if (rest > 0) r / rest else if (r > 0) Inf else 0)
      }
      if (stat < tau) break
    }
    O <- c(O, best)
    spent <- spent + mc[[best]]
  }
  pred <- ref_adaptive_predict(fit, x, O, mu, Sigma, step, family)
  c(list(groups = O, cost = spent), pred)
}

# --- The cascade baseline -------------------------------------------------------------------

# Spec "Cascade baseline" (binomial): walk fit$sequence; at step j (prefix
# model j, p_j = plogis(link_j)) stop when |p_j - 0.5| >= margin, or j = K,
# or the next group's marginal cost does not fit in the budget; else buy it.
ref_cascade_row <- function(fit, x_row, margin, budget = Inf) {
  x <- ref_adaptive_row(fit, x_row)
  K <- length(fit$sequence)
  O <- character(0)
  spent <- 0
  j <- 0L
  repeat {
    p <- stats::plogis(ref_adaptive_prefix_link(fit, x, j))
    if (abs(p - 0.5) >= margin || j == K) break
    g <- fit$sequence[j + 1L]
    mc <- ref_adaptive_mc(fit, g, O)
    if ((spent + mc) * (1 - 1e-12) > budget) break
    O <- c(O, g)
    spent <- spent + mc
    j <- j + 1L
  }
  link <- ref_adaptive_prefix_link(fit, x, j)
  response <- stats::plogis(link)
  list(groups = O, cost = spent, link = link, response = response,
       decision = if (response > 0.5) 2L else 1L)
}

# --- Learn-then-Test ---------------------------------------------------------------------

# Spec "Learn-then-Test calibration", fixed-sequence testing: column j of the
# 0/1 loss matrix is threshold j (strictest first); p_j = pbinom(k_j, n,
# epsilon) with k_j = sum of column j; walk while p_j <= delta. Returns the
# index of the last threshold passed, 0 if the first one fails.
ref_ltt <- function(losses, epsilon, delta) {
  losses <- as.matrix(losses)
  n <- nrow(losses)
  chosen <- 0L
  for (j in seq_len(ncol(losses))) {
    if (stats::pbinom(sum(losses[, j]), n, epsilon) > delta) break
    chosen <- j
  }
  chosen
}
