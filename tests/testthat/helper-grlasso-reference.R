# Plain-R reference of the cost-weighted group lasso (Yuan and Lin 2006; the paper's Sparse baseline,
# Hu et al. 2016, section 5.2), written independently of R/sparse.R:
#   min_{a, b} 1/n sum_i loss(y_i, a + z_i' b) + lambda sum_g m_g ||b_g||,  m_g = c(g) / mean(c),
# on groups orthonormalized by their SVD (Z_g = sqrt(n) U_g, so Z_g' Z_g / n = I; a rotation of the
# package's eigen-whitening, which leaves the group lasso unchanged). Full cycles of block coordinate
# descent over every group (no active set, no screening), and the first entry of each group found by
# bisection on "is the group non-zero at lambda" between the two values of a fine grid around it.

ref_gl_groups <- function(x, group) {
  n <- nrow(x)
  st <- ref_standardize(x)
  labels <- unique(group)
  z <- lapply(labels, function(g) {
    j <- which(group == g & !st$constant)
    if (!length(j)) return(NULL)
    s <- svd(st$xs[, j, drop = FALSE])
    keep <- s$d > 1e-6 * max(s$d)
    sqrt(n) * s$u[, keep, drop = FALSE]
  })
  names(z) <- labels
  z[!vapply(z, is.null, logical(1))]
}

ref_gl_family <- function(family) {
  switch(family,
    gaussian = list(mu = identity, loss = function(y, eta) sum((y - eta)^2) / 2, v = 1, a0 = mean),
    binomial = list(mu = plogis, loss = function(y, eta) -sum(dbinom(y, 1, plogis(eta), log = TRUE)),
                    v = 0.25, a0 = function(y) qlogis(mean(y))),
    poisson = list(mu = exp, loss = function(y, eta) -sum(dpois(y, exp(eta), log = TRUE)), v = NA,
                   a0 = function(y) log(mean(y))))
}

# Full-cycle BCD at one lambda from a warm start `b` (list of group coefficients) and `a0`.
ref_gl_solve <- function(z, y, m, lambda, fam, b, a0, tol = 1e-12, max_sweeps = 1e5) {
  n <- length(y)
  eta_of <- function(b, a0) a0 + Reduce(`+`, Map(function(zg, bg) drop(zg %*% bg), z, b))
  step <- function(grad, cur, pen, apply_step) {
    # proximal step with curvature v; for poisson v doubles until the quadratic bound holds
    v <- if (is.na(fam$v)) max(fam$mu(eta)) else fam$v
    repeat {
      u <- cur - grad / v
      new <- if (pen > 0) max(0, 1 - pen / (v * sqrt(sum(u^2)))) * u else u
      e2 <- apply_step(new - cur)
      if (!is.na(fam$v) || fam$loss(y, e2) / n <= fam$loss(y, eta) / n + sum(grad * (new - cur)) +
          v / 2 * sum((new - cur)^2) + 1e-13 * abs(fam$loss(y, eta) / n)) break
      v <- 2 * v
    }
    list(new = new, eta = e2)
  }
  eta <- eta_of(b, a0)
  for (sweep in seq_len(max_sweeps)) {
    change <- 0
    if (!identical(fam$v, 1)) {
      s <- step(-sum(y - fam$mu(eta)) / n, a0, 0, function(d) eta + d)
      change <- abs(s$new - a0)
      a0 <- s$new
      eta <- s$eta
    }
    for (g in seq_along(z)) {
      grad <- -drop(crossprod(z[[g]], y - fam$mu(eta))) / n
      s <- step(grad, b[[g]], lambda * m[g], function(d) eta + drop(z[[g]] %*% d))
      change <- max(change, abs(s$new - b[[g]]))
      b[[g]] <- s$new
      eta <- s$eta
    }
    if (change < tol) break
  }
  list(b = b, a0 = a0, eta = eta)
}

# Entry lambda of every group: a fine grid from lambda_max down, then bisection (50 halvings) of the
# bracketing interval on the group being non-zero. Returns the entry lambdas named by group.
ref_gl_entry <- function(x, y, group, cost, family = "gaussian", nlambda = 200, ratio = 1e-4) {
  z <- ref_gl_groups(x, group)
  fam <- ref_gl_family(family)
  labels <- names(z)
  m <- unname(cost[labels] / mean(cost[labels]))
  n <- length(y)
  b0 <- lapply(z, function(zg) numeric(ncol(zg)))
  a00 <- fam$a0(y)
  lmax <- max(vapply(seq_along(z), function(g)
    sqrt(sum(crossprod(z[[g]], y - fam$mu(rep(a00, n)))^2)) / n / m[g], numeric(1)))
  grid <- lmax * exp(seq(0, log(ratio), length.out = nlambda))
  tol <- 1e-12 * (if (family == "gaussian") sd(y) else 1)
  cur <- list(b = b0, a0 = a00)
  entry <- setNames(rep(NA_real_, length(z)), labels)
  for (k in seq_along(grid)) {
    prev <- cur
    cur <- ref_gl_solve(z, y, m, grid[k], fam, cur$b, cur$a0, tol)
    nz <- vapply(cur$b, function(bg) any(bg != 0), logical(1))
    for (g in which(nz & is.na(entry))) {
      if (k == 1) {
        entry[g] <- grid[1]
        next
      }
      lo <- grid[k]
      hi <- grid[k - 1]
      for (it in 1:50) {
        mid <- sqrt(lo * hi)
        s <- ref_gl_solve(z, y, m, mid, fam, prev$b, prev$a0, tol)
        if (any(s$b[[g]] != 0)) lo <- mid else hi <- mid
      }
      entry[g] <- sqrt(lo * hi)
    }
  }
  entry
}

# KKT conditions of the group lasso at a solution given on the original scale of x (coefficients
# `beta`, intercept `a0`), in the reference's own whitening: for a zero group
# ||Z_g' (y - mu)|| / n <= lambda m_g, for a non-zero group Z_g' (y - mu) / n = lambda m_g b_g / ||b_g||
# with b_g its whitened coefficients. Returns the largest violation relative to lambda m_g, and the
# intercept's score sum(y - mu) / n (0 at an optimum). `offset`: added to the linear predictor.
ref_gl_kkt <- function(x, y, group, cost, beta, a0, lambda, family = "gaussian", offset = 0) {
  z <- ref_gl_groups(x, group)
  fam <- ref_gl_family(family)
  labels <- names(z)
  m <- cost[labels] / mean(cost[labels])
  n <- length(y)
  eta <- offset + a0 + drop(x %*% beta)
  r <- y - fam$mu(eta)
  st <- ref_standardize(x)
  worst <- 0
  for (g in labels) {
    j <- which(group == g & !st$constant)
    grad <- drop(crossprod(z[[g]], r)) / n
    fitted_g <- drop(sweep(x[, j, drop = FALSE], 2, colMeans(x[, j, drop = FALSE])) %*% beta[j])
    bg <- drop(crossprod(z[[g]], fitted_g)) / n        # the group's whitened coefficients
    pen <- lambda * m[[g]]
    v <- if (sqrt(sum(bg^2)) == 0) max(0, sqrt(sum(grad^2)) - pen) / pen else
      sqrt(sum((grad - pen * bg / sqrt(sum(bg^2)))^2)) / pen
    worst <- max(worst, v)
  }
  c(worst = worst, intercept = sum(r) / n)
}
