# The plain-R version of the group lasso solver of sparse_sequence() (the core's sparse/grouplasso.hpp does the
# same in C++): the reference the C++ path is checked against, step for step the same algorithm.
#
# min_{a, b} 1/W sum_i w_i loss(y_i, o_i + a + sum_g Z_g b_g) + lambda sum_g m_g ||b_g||, with
# Z_g' diag(w) Z_g / W = I. Block coordinate descent: the update of a group is the proximal step
# b_g <- S(b_g + q_g / v, lambda m_g / v), S(u, t) = u (1 - t/||u||)_+, with q = Z' diag(w) (y - mu) / W
# the score and v a bound on the curvature of the loss along the group. Gaussian: v = 1 and the step is
# the exact block minimizer, done on the Gram matrix (q kept up to date). Binomial: v = 1/4. Poisson: v
# starts at max(mu) and doubles until the step decreases the loss as its quadratic bound promises. The
# intercept is an unpenalized block (for gaussian the weighted mean of y - o, the columns being centred).

glasso_family <- function(family) {
  switch(family,
    gaussian = list(mean = function(eta) eta, v = 1),
    binomial = list(mean = stats::plogis, v = 0.25,
                    loss = function(y, eta, wt) sum(wt * (pmax(eta, 0) + log1p(exp(-abs(eta))) - y * eta))),
    poisson = list(mean = exp, v = NA_real_, loss = function(y, eta, wt) sum(wt * (exp(eta) - y * eta))))
}

# The problem: the whitened groups side by side (`zall`, n x r), the columns of each group (`cols`), the
# multipliers, the weights scaled to sum 1 (`wt`), the offset, the family, the Gram matrix and the score
# at the null fit (gaussian) and the tolerance on coefficient changes.
glasso_problem <- function(z, y, m, family, weights = NULL, offset = NULL, tol = 1e-10, max_iter = 10000L) {
  zall <- do.call(cbind, z)
  n <- length(y)
  col <- rep(seq_along(z), vapply(z, ncol, integer(1)))
  wt <- if (is.null(weights)) rep(1 / n, n) else weights / sum(weights)
  o <- if (is.null(offset)) numeric(n) else offset
  gaussian <- family == "gaussian"
  r <- y - o
  rbar <- sum(wt * r)
  list(zall = zall, col = col, cols = split(seq_along(col), col), y = y, n = n, m = m, wt = wt, offset = o,
       fam = glasso_family(family), family = family, gaussian = gaussian,
       gram = if (gaussian) crossprod(zall, zall * wt), zy = if (gaussian) drop(crossprod(zall, wt * (r - rbar))),
       tol = tol * (if (gaussian) sqrt(sum(wt * (r - rbar)^2) * n / (n - 1)) else 1), max_iter = max_iter)
}

# The intercept-only solution: every group at 0 (binomial with an offset: Newton's method on the
# intercept). `q` is the score (gaussian: kept up to date), `eta` the linear predictor (other families).
glasso_null <- function(prob) {
  y <- prob$y
  wt <- prob$wt
  o <- prob$offset
  a0 <- switch(prob$family,
    gaussian = sum(wt * (y - o)),
    poisson = log(sum(wt * y) / sum(wt * exp(o))),
    binomial = {
      a <- stats::qlogis(sum(wt * y))
      for (it in 1:100) {
        mu <- stats::plogis(o + a)
        step <- sum(wt * (y - mu)) / sum(wt * mu * (1 - mu))
        a <- a + step
        if (abs(step) <= 1e-13 * (1 + abs(a))) break
      }
      a
    })
  list(b = numeric(ncol(prob$zall)), a0 = a0, eta = o + a0, q = prob$zy)
}

# The score Z' diag(w) (y - mu) / W at a state.
glasso_score <- function(prob, st) {
  if (prob$gaussian) st$q else drop(crossprod(prob$zall, prob$wt * (prob$y - prob$fam$mean(st$eta))))
}

# ||q_g|| for every group: the group lasso's KKT quantity.
glasso_gradnorm <- function(prob, st) {
  sqrt(as.vector(rowsum(glasso_score(prob, st)^2, prob$col, reorder = TRUE)))
}

# The exact gaussian block step on columns j with penalty pen (v = 1), on the Gram matrix.
glasso_block_gaussian <- function(prob, st, j, pen) {
  b <- st$b[j]
  u <- b + st$q[j]
  nu <- sqrt(sum(u^2))
  bn <- if (nu > pen) u * (1 - pen / nu) else 0 * u
  d <- bn - b
  if (!any(d != 0)) return(list(st = st, change = 0))
  st$b[j] <- bn
  st$q <- st$q - drop(prob$gram[, j, drop = FALSE] %*% d)
  list(st = st, change = max(abs(d)))
}

# One proximal block step of a GLM on columns `j` (the intercept when j is NULL) with penalty `pen`.
# Returns the state and the largest coefficient change.
glasso_block <- function(prob, st, j, pen) {
  if (prob$gaussian) return(glasso_block_gaussian(prob, st, j, pen))
  fam <- prob$fam
  zj <- if (is.null(j)) NULL else prob$zall[, j, drop = FALSE]
  r <- prob$wt * (prob$y - fam$mean(st$eta))
  grad <- if (is.null(j)) -sum(r) else -drop(crossprod(zj, r))
  b <- if (is.null(j)) st$a0 else st$b[j]
  v <- if (is.na(fam$v)) max(fam$mean(st$eta)) else fam$v
  old <- if (is.na(fam$v)) fam$loss(prob$y, st$eta, prob$wt)
  repeat {
    u <- b - grad / v
    nu <- sqrt(sum(u^2))
    bn <- if (pen > 0) (if (nu > pen / v) u * (1 - pen / (v * nu)) else 0 * u) else u
    d <- bn - b
    if (!any(d != 0)) return(list(st = st, change = 0))
    eta <- st$eta + if (is.null(j)) d else drop(zj %*% d)
    if (!is.na(fam$v)) break
    bound <- old + sum(grad * d) + v / 2 * sum(d^2)
    if (fam$loss(prob$y, eta, prob$wt) <= bound + 1e-13 * abs(old)) break
    v <- 2 * v
  }
  if (is.null(j)) st$a0 <- bn else st$b[j] <- bn
  st$eta <- eta
  list(st = st, change = max(abs(d)))
}

# The solution at `lambda`, warm-started from `st`; group `exclude` (an index, or 0) is held at 0.
# Cycles over the groups that are non-zero until the coefficients settle, then adds every group that
# violates its KKT condition ||q_g|| <= lambda m_g, until none does.
glasso_solve <- function(prob, lambda, st, exclude = 0L) {
  active <- vapply(prob$cols, function(j) any(st$b[j] != 0), logical(1))
  stable <- 0L
  last_support <- NULL
  for (iter in seq_len(prob$max_iter)) {
    repeat {
      change <- 0
      if (!prob$gaussian) {
        s <- glasso_block(prob, st, NULL, 0)
        st <- s$st
        change <- s$change
      }
      for (g in which(active)) {
        s <- glasso_block(prob, st, prob$cols[[g]], lambda * prob$m[g])
        st <- s$st
        change <- max(change, s$change)
      }
      if (change <= prob$tol && glasso_stationary(prob, st, lambda, active)) break
      # gaussian: once the non-zero groups have stayed the same for 10 passes and the coefficients still
      # move, finish by Newton's method on them (once per such set)
      if (prob$gaussian) {
        support <- vapply(prob$cols, function(j) any(st$b[j] != 0), logical(1))
        if (!identical(support, last_support)) {
          last_support <- support
          stable <- 0L
        }
        stable <- stable + 1L
        if (stable == 10L && change > 1e3 * prob$tol) {
          polished <- glasso_newton(prob, st, lambda)
          if (!is.null(polished) && glasso_stationary(prob, polished, lambda, active)) {
            st <- polished
            break
          }
        }
      }
    }
    violate <- !active & glasso_gradnorm(prob, st) > lambda * prob$m * (1 + 1e-12)
    if (exclude > 0L) violate[exclude] <- FALSE
    if (!any(violate)) return(st)
    active <- active | violate
  }
  stop("the group lasso did not converge in ", prob$max_iter, " passes at lambda = ", format(lambda), ".")
}

# Whether the groups among `active` meet their optimality conditions to a relative precision of 1e-9:
# q_g = lambda m_g b_g / ||b_g|| for a non-zero group, ||q_g|| <= lambda m_g for a zero one.
glasso_stationary <- function(prob, st, lambda, active) {
  q <- glasso_score(prob, st)
  for (g in which(active)) {
    j <- prob$cols[[g]]
    nb <- sqrt(sum(st$b[j]^2))
    pen <- lambda * prob$m[g]
    off <- if (nb == 0) max(0, sqrt(sum(q[j]^2)) - pen) else sqrt(sum((q[j] - pen * st$b[j] / nb)^2))
    if (off > 1e-9 * pen) return(FALSE)
  }
  TRUE
}

# Newton's method on the non-zero groups of a gaussian state, where the objective
# 1/2 b'Gb - b'zy + lambda sum_g m_g ||b_g|| is smooth, with a backtracking line search. NULL when a
# step fails (a group heading to 0, which block coordinate descent then settles).
glasso_newton <- function(prob, st, lambda) {
  nz <- which(vapply(prob$cols, function(j) any(st$b[j] != 0), logical(1)))
  if (!length(nz)) return(NULL)
  A <- unlist(prob$cols[nz], use.names = FALSE)
  gA <- prob$col[A]
  pen <- lambda * prob$m[nz]
  G <- prob$gram[A, A, drop = FALSE]
  objective <- function(b) {
    norms <- sqrt(as.vector(rowsum(b^2, gA, reorder = FALSE)))
    sum(b * (G %*% b)) / 2 - sum(prob$zy[A] * b) + sum(pen * norms)
  }
  b <- st$b[A]
  for (it in 1:30) {
    norms <- sqrt(as.vector(rowsum(b^2, gA, reorder = FALSE)))
    if (any(norms == 0)) return(NULL)
    u <- b / norms[match(gA, nz)]
    grad <- drop(G %*% b) - prob$zy[A] + pen[match(gA, nz)] * u
    if (sqrt(sum(grad^2)) <= 1e-11 * min(pen)) break
    H <- G
    for (i in seq_along(nz)) {
      j <- which(gA == nz[i])
      H[j, j] <- H[j, j] + pen[i] / norms[i] * (diag(length(j)) - tcrossprod(u[j]))
    }
    step <- tryCatch(solve(H, grad), error = function(e) NULL)
    if (is.null(step)) return(NULL)
    f0 <- objective(b)
    t <- 1
    repeat {
      bn <- b - t * step
      if (objective(bn) <= f0 - 1e-4 * t * sum(grad * step)) break
      t <- t / 2
      if (t < 1e-8) return(NULL)
    }
    b <- bn
  }
  st$q <- st$q - drop(prob$gram[, A, drop = FALSE] %*% (b - st$b[A]))
  st$b[A] <- b
  st
}

# The lambda at which group g enters, between `lo` (where it is non-zero) and `hi` (where it is 0,
# solution `st_hi`): the root of ||q_g(lambda)|| - lambda m_g at the solution that holds g at 0, by
# Brent's method (uniroot) to a tolerance of 1e-10 hi.
glasso_entry <- function(prob, g, lo, hi, st_hi) {
  warm <- st_hi
  h <- function(lambda) {
    warm <<- glasso_solve(prob, lambda, warm, exclude = g)
    glasso_gradnorm(prob, warm)[g] - lambda * prob$m[g]
  }
  h_hi <- glasso_gradnorm(prob, st_hi)[g] - hi * prob$m[g]
  if (h_hi >= 0) return(hi)
  h_lo <- h(lo)
  if (h_lo <= 0) return(lo)
  warm <- st_hi
  stats::uniroot(h, c(lo, hi), f.lower = h_lo, f.upper = h_hi, tol = 1e-10 * hi)$root
}

# The path on a decreasing grid from lambda_max to lambda_min_ratio * lambda_max, warm-started; each
# group's first entry refined between the two grid values that bracket it. Returns what the core's
# .group_lasso_path() returns: the grid (`penalty`), the whitened coefficients (r x nlambda), the intercepts, the
# entry lambda of each group (NA: never within the grid) and the end-of-path KKT ratio.
glasso_path <- function(prob, nlambda, lambda_min_ratio) {
  G <- length(prob$cols)
  st <- glasso_null(prob)
  lmax <- max(glasso_gradnorm(prob, st) / prob$m)
  grid <- lmax * exp(seq(0, log(lambda_min_ratio), length.out = nlambda))
  b <- matrix(0, ncol(prob$zall), nlambda)
  a0 <- numeric(nlambda)
  entry <- rep(NA_real_, G)
  for (k in seq_len(nlambda)) {
    prev <- st
    st <- glasso_solve(prob, grid[k], st)
    b[, k] <- st$b
    a0[k] <- st$a0
    new <- which(is.na(entry) & vapply(prob$cols, function(j) any(st$b[j] != 0), logical(1)))
    for (g in new) entry[g] <- if (k == 1L) grid[1L] else glasso_entry(prob, g, grid[k], grid[k - 1L], prev)
  }
  list(penalty = grid, beta = b, a0 = a0, entry = entry, kkt = glasso_gradnorm(prob, st) / (prob$m * lmax))
}

# Both solvers on the whitened groups of a design as sparse_sequence() makes them: list(cpp, r).
glasso_both <- function(x, y, group, cost, family = "gaussian", weights = NULL, offset = NULL, n_penalty = 100,
                        penalty_min_ratio = 1e-4) {
  wh <- fgseq:::whiten_groups_r(x, group, unique(group), weights)
  live <- names(wh$rank)[wh$rank > 0L]
  m <- unname(cost[live]) / mean(cost[live])
  z <- unname(wh$z[live])
  prob <- glasso_problem(z, y, m, family, weights, offset)
  cpp <- fgseq:::.group_lasso_path(do.call(cbind, z), unname(wh$rank[live]), as.double(y),
                                   if (is.null(weights)) numeric(0) else weights,
                                   if (is.null(offset)) numeric(0) else offset, m, family, n_penalty, penalty_min_ratio)
  list(cpp = cpp, r = glasso_path(prob, n_penalty, penalty_min_ratio))
}
