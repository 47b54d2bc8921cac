# Plain-R reference of the acquisition policy under a Gaussian mixture working model
# (fgseq_mixture(), ?fgseq_policy, section Working model and risk), written from the formulas:
# every component's conditional mean and variance from scratch by ref_conditional() (a pseudo-inverse
# of Sigma_OO), the densities of x_O and x_g by solve() and determinant() of the covariance blocks,
# the draws of x_g one at a time. No sweep, no shared factor. Slow on purpose.

# The mean and covariance of component k over all columns of x (the columns outside the mixture
# never enter: their coefficients are 0).
ref_mixture_component <- function(fit, mix, k) {
  cols <- ref_adaptive_columns(fit)
  mu <- stats::setNames(numeric(length(cols)), cols)
  Sigma <- diag(length(cols))
  dimnames(Sigma) <- list(cols, cols)
  mu[mix$columns] <- mix$mean[k, ]
  Sigma[mix$columns, mix$columns] <- mix$cov[[k]]
  list(mu = mu, Sigma = Sigma)
}

# log N(v; mu, S) by solve() and determinant().
ref_log_normal <- function(v, mu, S) {
  d <- v - mu
  -0.5 * drop(crossprod(d, solve(S, d))) - 0.5 * as.numeric(determinant(S)$modulus) - 0.5 * length(v) * log(2 * pi)
}

# The working model of one row given its observed groups O: each component's posterior weight, the
# conditional mean m_k and variance v_k of eta, P1 = P(eta > 0 | x_O), the response
# sum_k w_k plogis(m_k / sqrt(1 + pi v_k / 8)), the mixture mean of eta, the risk (the probability
# that the full model decides otherwise than the response does).
ref_mixture_point <- function(fit, mix, x, O, step = length(fit$sequence)) {
  x <- ref_adaptive_row(fit, x)
  grp <- ref_adaptive_groups(fit)
  S <- names(grp)[grp %in% fit$sequence[seq_len(step)]]
  Oc <- S[grp[S] %in% O]
  K <- length(mix$proportion)
  parts <- lapply(seq_len(K), function(k) {
    comp <- ref_mixture_component(fit, mix, k)
    cond <- ref_conditional(fit, x, O, comp$mu, comp$Sigma, step)
    lw <- log(mix$proportion[k]) +
      if (length(Oc)) ref_log_normal(x[Oc], comp$mu[Oc], comp$Sigma[Oc, Oc, drop = FALSE]) else 0
    c(m = cond$mean, v = cond$var, lw = lw)
  })
  p <- do.call(rbind, parts)
  w <- exp(p[, "lw"] - max(p[, "lw"]))
  w <- w / sum(w)
  side <- function(sign) {  # P(eta > 0) (sign 1) or P(eta < 0) (sign -1) under each component
    ifelse(p[, "v"] > 0, stats::pnorm(sign * p[, "m"] / sqrt(pmax(p[, "v"], 1e-300))),
           as.numeric(sign * p[, "m"] > 0) + 0.5 * (p[, "m"] == 0))
  }
  P1 <- sum(w * side(1))
  t <- p[, "m"] / sqrt(1 + pi * p[, "v"] / 8)
  response <- sum(w * stats::plogis(t))
  list(w = unname(w), m = unname(p[, "m"]), v = unname(p[, "v"]), P1 = P1, response = response,
       mean = sum(w * p[, "m"]), risk = if (response > sum(w * stats::plogis(-t))) sum(w * side(-1)) else P1)
}

# The expected risk after also observing group g: for each component j (weight w_j above 1e-13), the
# draws x_g = E_j[x_g | x_O] + t(chol(C_j)) z_s (the rows z_s of Z, their first |g| entries), the risk
# of the row with x_g set to each, averaged with weights w_j / nrow(Z).
ref_mixture_expected <- function(fit, mix, x, O, g, Z, step = length(fit$sequence)) {
  x <- ref_adaptive_row(fit, x)
  grp <- ref_adaptive_groups(fit)
  S <- names(grp)[grp %in% fit$sequence[seq_len(step)]]
  Oc <- S[grp[S] %in% O]
  G <- names(grp)[grp == g]
  now <- ref_mixture_point(fit, mix, x, O, step)
  total <- 0
  for (j in seq_along(mix$proportion)) {
    if (!(now$w[j] > 1e-13)) next
    comp <- ref_mixture_component(fit, mix, j)
    Sg <- comp$Sigma[G, G, drop = FALSE]
    E <- comp$mu[G]
    if (length(Oc)) {
      B <- comp$Sigma[G, Oc, drop = FALSE] %*% solve(comp$Sigma[Oc, Oc, drop = FALSE])
      E <- E + drop(B %*% (x[Oc] - comp$mu[Oc]))
      Sg <- Sg - B %*% comp$Sigma[Oc, G, drop = FALSE]
    }
    Lj <- t(chol(Sg))
    risks <- vapply(seq_len(nrow(Z)), function(s) {
      xs <- x
      xs[G] <- E + drop(Lj %*% Z[s, seq_along(G)])
      ref_mixture_point(fit, mix, xs, c(O, g), step)$risk
    }, numeric(1))
    total <- total + now$w[j] * mean(risks)
  }
  total
}

# The greedy policy of one row under the mixture (stopping on the reduction; see ref_policy_row() for
# the rule): the groups bought, the cost and the prediction (the prefix model at a prefix of the
# sequence, else the mixture's mean of eta and response).
ref_mixture_policy_row <- function(fit, mix, x, tau, Z, budget = Inf, step = length(fit$sequence)) {
  x <- ref_adaptive_row(fit, x)
  pool <- fit$sequence[seq_len(step)]
  O <- character(0)
  spent <- 0
  repeat {
    cand <- setdiff(pool, O)
    mc <- vapply(cand, function(g) ref_adaptive_mc(fit, g, O), numeric(1))
    fits <- (spent + mc) * (1 - 1e-12) <= budget
    cand <- cand[fits]
    mc <- mc[fits]
    if (!length(cand)) break
    r <- ref_mixture_point(fit, mix, x, O, step)$risk
    red <- vapply(cand, function(g) max(0, r - ref_mixture_expected(fit, mix, x, O, g, Z, step)), numeric(1))
    score <- ifelse(mc == 0, ifelse(red > 0, Inf, 0), red / mc)
    top <- max(score)
    tied <- if (is.infinite(top)) score == top else score >= top - 1e-10 * max(abs(top), 1e-300)
    best <- cand[which(tied)[1L]]
    if (score[[best]] < tau) break
    O <- c(O, best)
    spent <- spent + mc[[best]]
  }
  j <- length(O)
  if (setequal(O, fit$sequence[seq_len(j)])) {
    link <- ref_adaptive_prefix_link(fit, x, j)
    response <- stats::plogis(link)
  } else {
    pt <- ref_mixture_point(fit, mix, x, O, step)
    link <- pt$mean
    response <- pt$response
  }
  list(groups = O, cost = spent, link = link, response = response)
}

# Two regimes that a cheap group hints at; in each, another group carries the signal.
mixture_data <- function(n, seed) {
  set.seed(seed)
  z <- sample(2L, n, replace = TRUE)
  hint <- (2 * z - 3) + stats::rnorm(n, sd = 0.7)
  a <- matrix(stats::rnorm(2 * n), n) * ifelse(z == 1L, 1, 0.2)
  b <- matrix(stats::rnorm(2 * n), n) * ifelse(z == 2L, 1, 0.2)
  eta <- 0.3 * hint + ifelse(z == 1L, drop(a %*% c(1.5, -1)), drop(b %*% c(-1, 1.2))) + stats::rnorm(n, sd = 0.3)
  x <- cbind(hint = hint, a1 = a[, 1], a2 = a[, 2], b1 = b[, 1], b2 = b[, 2], noise = stats::rnorm(n))
  list(x = x, y = as.numeric(eta > 0), z = z, group = c("hint", "A", "A", "B", "B", "N"),
       cost = c(hint = 1, A = 5, B = 7, N = 2))
}
