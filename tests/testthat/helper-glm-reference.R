# Plain-R reference of feature group sequencing for generalized linear models
# (Hu, Grubb, Bagnell and Hebert 2014, appendix B, Algorithm 2), in SAMPLE
# space. Slow on purpose: every prefix and every FR candidate set is refitted
# from scratch by a penalized Newton solver written here; no Gram identity is
# used. The tests compare fgseq(family = ...) against it.
#
# Risk of a set S (whitened columns Z_S, weights w, W = sum(w)):
#   R(S) = min_{a, B} (1/W) sum_i w_i [Phi(eta_i) - y_i' eta_i] + lambda/2 ||B||_F^2,
#   eta_i = offset_i + a + z_{i,S} B   (intercepts a unpenalized).

# --- Families: Phi, its gradient (the mean) and Hessian weights ----------------

ref_glm_family <- function(family) {
  switch(family,
    binomial = list(
      mean = function(eta) stats::plogis(eta),
      phi = function(eta) rowSums(pmax(eta, 0) + log1p(exp(-abs(eta)))),
      # d mu_c / d eta_d for rows, as a vector
      dmu = function(mu, c, d) mu[, 1] * (1 - mu[, 1]),
      dev = function(y, mu) -2 * (y * log(mu) + (1 - y) * log(1 - mu))),
    poisson = list(
      mean = function(eta) exp(eta),
      phi = function(eta) rowSums(exp(eta)),
      dmu = function(mu, c, d) mu[, 1],
      dev = function(y, mu) 2 * (ifelse(y > 0, y * log(y / mu), 0) - (y - mu))),
    multinomial = list(            # symmetric parametrization, one column per class
      mean = function(eta) {
        e <- exp(eta - apply(eta, 1, max))
        e / rowSums(e)
      },
      phi = function(eta) {
        m <- apply(eta, 1, max)
        m + log(rowSums(exp(eta - m)))
      },
      dmu = function(mu, c, d) mu[, c] * ((c == d) - mu[, d]),
      dev = function(y, mu) -2 * rowSums(ifelse(y > 0, y * log(mu), 0))))
}

# y as the n x P matrix of the risk: 0/1 (binomial, second level = 1), counts,
# or class indicators (multinomial, in level order).
ref_glm_response <- function(y, family) {
  if (family == "multinomial") {
    y <- as.factor(y)
    return(outer(as.integer(y), seq_along(levels(y)), "==") + 0)
  }
  if (is.factor(y)) y <- as.numeric(y == levels(y)[2])
  matrix(as.numeric(y))
}

# --- Penalized Newton on theta = (intercepts; coefficients), (m + 1) x P ------

# Returns theta, eta, mu and the risk. Steps use a pseudo-inverse of the
# Hessian (the multinomial risk is flat along "add the same to every class"),
# with backtracking; it stops when the Newton decrement is at rounding level.
ref_glm_newton <- function(z, y, w, off, fam, lambda) {
  n <- nrow(y)
  P <- ncol(y)
  W <- sum(w)
  z1 <- cbind(1, z)
  m1 <- ncol(z1)
  pen <- rep(c(0, rep(1, m1 - 1)), P)                   # ridge mask, vec(theta) order
  theta <- matrix(0, m1, P)
  ybar <- colSums(w * y) / W                            # start: link of the mean response
  theta[1, ] <- switch(fam$name, binomial = stats::qlogis(ybar), poisson = log(ybar), log(ybar))
  risk_of <- function(theta) {
    eta <- off + z1 %*% theta
    sum(w * (fam$phi(eta) - rowSums(y * eta))) / W + lambda / 2 * sum(theta[-1, ]^2)
  }
  risk <- risk_of(theta)
  for (it in 1:200) {
    mu <- fam$mean(off + z1 %*% theta)
    g <- c(crossprod(z1, w * (mu - y)) / W) + lambda * pen * c(theta)
    h <- matrix(0, m1 * P, m1 * P)
    for (c in 1:P) for (d in 1:P) {
      h[(c - 1) * m1 + 1:m1, (d - 1) * m1 + 1:m1] <- crossprod(z1, w * fam$dmu(mu, c, d) * z1) / W
    }
    h <- h + diag(lambda * pen, m1 * P)
    e <- eigen(h, symmetric = TRUE)
    keep <- e$values > 1e-12 * max(e$values)
    step <- -drop(e$vectors[, keep, drop = FALSE] %*% (crossprod(e$vectors[, keep, drop = FALSE], g) / e$values[keep]))
    dec <- -sum(g * step)
    if (dec < 1e-26) break
    t <- 1
    repeat {                                            # backtracking (Armijo)
      new <- theta + t * matrix(step, m1, P)
      new_risk <- risk_of(new)
      if (new_risk <= risk - 1e-4 * t * dec || t < 1e-10) break
      t <- t / 2
    }
    if (new_risk > risk) break
    theta <- new
    risk <- new_risk
  }
  eta <- off + z1 %*% theta
  list(theta = theta, eta = eta, mu = fam$mean(eta), risk = risk)
}

# --- The sequence ------------------------------------------------------------------

ref_glm_fgseq <- function(x, y, group = NULL, cost = NULL, family = c("binomial", "poisson", "multinomial"),
                          method = c("omp", "fr", "doubling"), lambda = 0,
                          criterion = c("whitened", "l2", "linf"), cost_sensitive = TRUE,
                          weights = NULL, offset = NULL, fr_gain = c("quadratic", "exact"), c_min = NULL,
                          needs = NULL) {
  family <- match.arg(family)
  method <- match.arg(method)
  criterion <- match.arg(criterion)
  fr_gain <- match.arg(fr_gain)
  fam <- ref_glm_family(family)
  fam$name <- family
  x <- as.matrix(x)
  n <- nrow(x)
  p <- ncol(x)
  if (is.null(group)) group <- if (is.null(colnames(x))) paste0("V", seq_len(p)) else colnames(x)
  group <- as.character(group)
  labels <- unique(group)
  meas <- ref_measurements(labels, cost, needs)          # helper-reference.R
  cost <- meas$cost
  yy <- ref_glm_response(y, family)
  P <- ncol(yy)
  w <- if (is.null(weights)) rep(1, n) else as.numeric(weights)
  W <- sum(w)
  off <- if (is.null(offset)) matrix(0, n, P) else matrix(offset, n, P)

  # weighted standardization (population sd, divisor W) and group whitening
  # from the weighted correlation blocks: Z_g' diag(w) Z_g / W = I
  mu_x <- colSums(w * x) / W
  xc <- sweep(x, 2, mu_x)
  sdv <- sqrt(colSums(w * xc^2) / W)
  xs <- sweep(xc, 2, sdv, "/")
  cols <- lapply(stats::setNames(labels, labels), function(g) which(group == g))
  wh <- lapply(cols, function(j) {
    e <- eigen(crossprod(xs[, j, drop = FALSE], w * xs[, j, drop = FALSE]) / W, symmetric = TRUE)
    keep <- e$values > 1e-9 * max(e$values)
    t <- e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(e$values[keep]), sum(keep))
    list(t = t, z = xs[, j, drop = FALSE] %*% t)
  })
  if (is.null(c_min)) c_min <- min(cost)
  z_of <- function(set) do.call(cbind, c(list(matrix(0, n, 0)), lapply(wh[set], `[[`, "z")))
  fit_of <- function(set) ref_glm_newton(z_of(set), yy, w, off, fam, lambda)

  # Algorithm 2's selection step: the gradient of R with respect to the
  # coefficients of h at the current fit is -Z_h' (w * (y - mu)) / W
  grad <- function(fit, m) crossprod(m, w * (yy - fit$mu)) / W
  # one Newton step from the current fit with h's coefficients added at 0:
  # the decrease of the quadratic model, g' pinv(H) g / 2, g zero but on h
  quad_gain <- function(fit, set, h) {
    z1 <- cbind(1, z_of(set), wh[[h]]$z)
    m1 <- ncol(z1)
    rh <- ncol(wh[[h]]$z)
    on_h <- rep(c(rep(FALSE, m1 - rh), rep(TRUE, rh)), P)
    g <- ifelse(on_h, -c(crossprod(z1, w * (yy - fit$mu)) / W), 0)
    hs <- matrix(0, m1 * P, m1 * P)
    for (c in 1:P) for (d in 1:P) {
      hs[(c - 1) * m1 + 1:m1, (d - 1) * m1 + 1:m1] <- crossprod(z1, w * fam$dmu(fit$mu, c, d) * z1) / W
    }
    hs <- hs + diag(lambda * rep(c(0, rep(1, m1 - 1)), P), m1 * P)
    e <- eigen(hs, symmetric = TRUE)
    keep <- e$values > 1e-9 * max(e$values)
    sum(crossprod(e$vectors[, keep, drop = FALSE], g)^2 / e$values[keep]) / 2
  }

  gain_of <- function(cand, cur, selected) {
    gain <- vapply(cand, function(h) {
      if (method == "omp") {
        bs <- grad(cur, xs[, cols[[h]], drop = FALSE])  # standardized coordinates, cols x P
        switch(criterion, whitened = sum(grad(cur, wh[[h]]$z)^2), l2 = sum(bs^2), linf = max(rowSums(bs^2)))
      } else if (fr_gain == "exact") {
        cur$risk - fit_of(c(selected, h))$risk          # R(S) - R(S + h)
      } else {
        quad_gain(cur, selected, h)
      }
    }, numeric(1))
    gain[gain <= 1e-14] <- 0                            # rounding-level scores count as 0
    gain
  }
  path <- ref_greedy(labels, meas, cost, c_min, method, cost_sensitive, fit_of, gain_of, 0)  # helper-reference.R
  selected <- path$selected
  fits <- path$fits
  scores <- path$scores
  paid <- path$paid

  # coefficients on the original scale: beta = diag(1/sd) T w, a0 = a - mean' beta
  K <- length(selected)
  beta <- lapply(seq_len(P), function(c) {
    b <- matrix(0, p, K + 1, dimnames = list(colnames(x), paste0("step", 0:K)))
    for (k in seq_len(K)) {
      th <- fits[[k + 1]]$theta[-1, c]
      at <- 0
      for (g in selected[seq_len(k)]) {
        r <- ncol(wh[[g]]$t)
        b[cols[[g]], k + 1] <- drop(wh[[g]]$t %*% th[at + seq_len(r)]) / sdv[cols[[g]]]
        at <- at + r
      }
    }
    b
  })
  a0 <- t(vapply(seq_len(P), function(c) {
    vapply(0:K, function(k) fits[[k + 1]]$theta[1, c] - sum(mu_x * beta[[c]][, k + 1]), numeric(1))
  }, numeric(K + 1)))
  dim(a0) <- c(P, K + 1)
  risk <- vapply(fits, `[[`, numeric(1), "risk")
  dev <- vapply(fits, function(f) sum(w * fam$dev(yy, f$mu)), numeric(1))
  if (P == 1) {
    beta <- beta[[1]]
    a0 <- drop(a0)
  }
  list(sequence = selected, objective = risk[1] - risk, r2 = 1 - dev / dev[1], score = unname(scores),
       beta = beta, a0 = a0, mu = lapply(fits, `[[`, "mu"), cost = unname(cumsum(c(0, paid))))
}

# --- Data -----------------------------------------------------------------------------

# Correlated groups (from sim_groups()) with a GLM response: binomial 0/1,
# Poisson counts or a 3-class factor. Moderate effects keep the data far from
# separable.
sim_glm <- function(family, n = 70, sizes = c(2, 1, 2, 1), seed = 1) {
  d <- sim_groups(n = n, sizes = sizes, rho = 0.4, seed = seed)
  xs <- scale(d$x)
  set.seed(seed + 100)
  b <- rnorm(ncol(xs), sd = 0.6)
  eta <- drop(xs %*% b)
  d$y <- switch(family,
    binomial = stats::rbinom(n, 1, stats::plogis(eta)),
    poisson = stats::rpois(n, exp(0.5 + 0.6 * eta)),
    multinomial = {
      e <- exp(cbind(0, eta, drop(xs %*% rnorm(ncol(xs), sd = 0.6))))
      factor(apply(e / rowSums(e), 1, function(pr) sample(c("u", "v", "w"), 1, prob = pr)))
    })
  d
}

# --- The quadratic FR gains as the package formed them one candidate at a time ---------------------

# At the fitted means `mu` (n x P) of the groups `set` (labels, selection order): for every group `h`
# not in `set`, one Newton step after adding h, through the Schur complement M of the Hessian of
# [1, Z_S] in that of [1, Z_S, Z_h] (a ridge of 1e-12 times its largest diagonal entry on the Hessian
# of [1, Z_S]); eigenvalues of M at or below 1e-9 (largest |eigenvalue| + lambda) or 1e-9 (largest
# diagonal entry of Z_h' V Z_h + lambda) are dropped. Returns the gains, named by group.
ref_glm_schur_gains <- function(x, y, group, family, mu, set, lambda, weights = NULL) {
  fam <- ref_glm_family(family)
  yy <- ref_glm_response(y, family)
  P <- ncol(yy)
  n <- nrow(x)
  w <- if (is.null(weights)) rep(1, n) else weights
  W <- sum(w)
  m <- colSums(w * x) / W
  xs <- sweep(sweep(x, 2, m), 2, sqrt(colSums(w * sweep(x, 2, m)^2) / W), "/")
  labels <- unique(group)
  z <- lapply(stats::setNames(labels, labels), function(g) {
    j <- which(group == g)
    e <- eigen(crossprod(xs[, j, drop = FALSE], w * xs[, j, drop = FALSE]) / W, symmetric = TRUE)
    keep <- e$values > 1e-9 * max(e$values)
    xs[, j, drop = FALSE] %*% e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(e$values[keep]), sum(keep))
  })
  cross <- function(a, b) {
    out <- matrix(0, ncol(a) * P, ncol(b) * P)
    for (c in 1:P) for (d in 1:P) {
      out[(c - 1) * ncol(a) + seq_len(ncol(a)), (d - 1) * ncol(b) + seq_len(ncol(b))] <-
        crossprod(a, w * fam$dmu(mu, c, d) * b) / W
    }
    out
  }
  z1 <- do.call(cbind, c(list(matrix(1, n, 1)), z[set]))
  m1 <- ncol(z1)
  hs <- cross(z1, z1) + diag(lambda * rep(c(0, rep(1, m1 - 1)), P), m1 * P)
  hs <- hs + diag(1e-12 * max(diag(hs)), m1 * P)
  vapply(setdiff(labels, set), function(h) {
    zh <- z[[h]]
    r <- ncol(zh)
    b <- cross(zh, z1)
    mh <- cross(zh, zh) + diag(lambda, r * P)
    scale <- max(diag(mh))
    mh <- mh - b %*% solve(hs, t(b))
    mh <- (mh + t(mh)) / 2
    g <- -c(crossprod(zh, w * (yy - mu)) / W)
    e <- eigen(mh, symmetric = TRUE)
    keep <- e$values > 1e-9 * (max(abs(e$values)) + lambda) & e$values > 1e-9 * (scale + lambda)
    sum(crossprod(e$vectors[, keep, drop = FALSE], g)^2 / e$values[keep]) / 2
  }, numeric(1))
}

# --- A penalized multinomial fit of given columns, on its own ---------------------------------------

# The fit of the multinomial model over the groups `groups` of x (labels, in order) as fgseq() defines
# it, computed in plain R from scratch: the columns standardized by their weighted means and
# population standard deviations (divisor W = sum(w)) and whitened group by group (Z_g' diag(w) Z_g / W
# = I), then the penalized risk (1/W) sum_i w_i [log sum_c exp(eta_ic) - y_i' eta_i] + lambda/2 ||B||^2
# (eta = offset + 1 a' + Z B, intercepts a unpenalized) minimized by Newton's method on the full
# (m + 1) K Hessian, formed class pair by class pair (a pseudo-inverse: the risk is flat along adding the
# same to every class's intercept), with backtracking, until the largest gradient entry is at most
# grad_tol (the core's tolerance) or no step decreases the risk. Returns beta (p x K, original scale,
# zero outside `groups`), a0 (K), the probabilities mu (n x K), the largest gradient entry and the risk.
ref_multinom_fit <- function(x, y, group, groups, lambda, weights = NULL, offset = NULL, grad_tol = 1e-11) {
  y <- as.factor(y)
  K <- nlevels(y)
  Y <- outer(as.integer(y), seq_len(K), "==") + 0
  n <- nrow(x)
  w <- if (is.null(weights)) rep(1, n) else weights
  W <- sum(w)
  off <- if (is.null(offset)) matrix(0, n, K) else matrix(offset, n, K)
  m <- colSums(w * x) / W
  s <- sqrt(colSums(w * sweep(x, 2, m)^2) / W)
  maps <- lapply(groups, function(g) {
    j <- which(group == g)
    xs <- sweep(sweep(x[, j, drop = FALSE], 2, m[j]), 2, s[j], "/")
    e <- eigen(crossprod(xs, w * xs) / W, symmetric = TRUE)
    keep <- e$values > 1e-9 * max(e$values)
    t <- e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(e$values[keep]), sum(keep))
    list(j = j, t = t, z = xs %*% t)
  })
  z1 <- do.call(cbind, c(list(rep(1, n)), lapply(maps, `[[`, "z")))
  m1 <- ncol(z1)
  pen <- rep(c(0, rep(1, m1 - 1)), K)
  softmax <- function(eta) {
    e <- exp(eta - apply(eta, 1, max))
    e / rowSums(e)
  }
  risk_of <- function(th) {
    eta <- off + z1 %*% th
    mx <- apply(eta, 1, max)
    sum(w * (mx + log(rowSums(exp(eta - mx))) - rowSums(Y * eta))) / W + lambda / 2 * sum(th[-1, ]^2)
  }
  th <- matrix(0, m1, K)
  th[1, ] <- log(colSums(w * Y) / W)
  risk <- risk_of(th)
  for (it in 1:500) {
    mu <- softmax(off + z1 %*% th)
    g <- c(crossprod(z1, w * (mu - Y)) / W) + lambda * pen * c(th)
    if (max(abs(g)) <= grad_tol) break
    h <- matrix(0, m1 * K, m1 * K)
    for (a in 1:K) for (b in 1:K) {
      h[(a - 1) * m1 + 1:m1, (b - 1) * m1 + 1:m1] <- crossprod(z1, w * mu[, a] * ((a == b) - mu[, b]) * z1) / W
    }
    h <- h + diag(lambda * pen, m1 * K)
    e <- eigen(h, symmetric = TRUE)
    keep <- e$values > 1e-13 * max(e$values)
    step <- -drop(e$vectors[, keep, drop = FALSE] %*% (crossprod(e$vectors[, keep, drop = FALSE], g) / e$values[keep]))
    t <- 1
    repeat {
      new <- th + t * matrix(step, m1, K)
      new_risk <- risk_of(new)
      if (new_risk <= risk + 1e-4 * t * sum(g * step) || t < 1e-12) break
      t <- t / 2
    }
    if (!(new_risk < risk)) break
    th <- new
    risk <- new_risk
  }
  mu <- softmax(off + z1 %*% th)
  g <- c(crossprod(z1, w * (mu - Y)) / W) + lambda * pen * c(th)
  beta <- matrix(0, ncol(x), K)
  at <- 1
  for (mp in maps) {
    r <- ncol(mp$t)
    beta[mp$j, ] <- (mp$t %*% th[at + seq_len(r), , drop = FALSE]) / s[mp$j]
    at <- at + r
  }
  list(beta = beta, a0 = th[1, ] - drop(crossprod(m, beta)), mu = mu, gradient = max(abs(g)), risk = risk)
}
