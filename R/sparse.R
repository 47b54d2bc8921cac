#' The Sparse baseline: a sequence from the cost-weighted group lasso path
#'
#' The paper's baseline (Hu et al. 2016, section 5.2, "Sparse"): the group lasso whose penalty on each
#' group is scaled by the group's cost, on the whitened groups `Z_g` of [fgseq()],
#' \deqn{\min_{a, b} \frac{1}{n}\sum_i \ell(y_i, a + z_i' b) + \lambda \sum_g m_g \|b_g\|_2, \quad
#'   m_g = c(g) / \mathrm{mean}(c),}{min_(a,b) 1/n sum_i loss(y_i, a + z_i' b) + lambda sum_g m_g ||b_g||, m_g = c(g) / mean(c),}
#' with `loss` half the squared error (gaussian, so the fit term is `1/(2n) ||y - Zb||^2`) or the negative
#' log-likelihood (binomial, poisson), is solved along a path of decreasing `lambda`, and turned into a
#' sequence: groups in the order in which they first become non-zero along the path. Each prefix of that
#' sequence is then refitted by the same ridge solve as [fgseq()] (same standardization, group whitening,
#' family and ridge constant `lambda`), so its curve, predictions and timeliness are comparable with
#' those of [fgseq()] fits.
#'
#' @section Path and order:
#' The columns are standardized and each group whitened as in [fgseq()] (`Z_g' Z_g / n = I`). The path
#' is computed by block coordinate descent: with whitened groups the update of a group is the exact
#' block minimizer for the gaussian family (a proximal step of the quadratic bound of the
#' log-likelihood for the others), iterated over the non-zero groups until every one of them meets its
#' optimality condition to a relative precision of `1e-9` (for the gaussian family, once the non-zero
#' groups stay the same, Newton's method on them finishes the solve), then over every group that
#' violates its condition `||Z_g' (y - mu)|| / n <= lambda m_g`, until none does. The grid has `nlambda` values,
#' log-spaced from `lambda_max = max_g ||Z_g' (y - mu_0)|| / (n m_g)` (where the first group enters;
#' `mu_0` the intercept-only fit) down to `lambda_min_ratio * lambda_max`, each solution warm-started
#' from the previous one. The grid only brackets the entries: the `lambda` at which a group first
#' becomes non-zero is then located between the two grid values around it as the root of
#' `||Z_g' (y - mu_{-g}(lambda))|| / n - lambda m_g` (`mu_{-g}` the solution with that group held at 0,
#' which is the path's own solution until the group enters), by Brent's method to a relative precision of
#' `1e-10`. The sequence orders the groups by decreasing entry `lambda` (a group that later leaves the
#' path keeps its first entry); exact ties go to the cheaper group, then to the order of `unique(group)`.
#' The order depends on the multipliers only through their ratios: scaling every `m_g` by a constant
#' scales the whole path's `lambda` by its inverse. Groups that have not entered at the end of the grid
#' are appended after the others by decreasing `||Z_g' (y - mu)|| / (n m_g)` at the last solution (the
#' order in which they would enter next); ties again by cost, then group order. Every non-constant group
#' is in the sequence, so its total cost is that of [fgseq()] fits on the same data. With `needs` (measurements shared by
#' groups, see [fgseq()]), `c(g)` is the stand-alone cost of the group (the total cost of its
#' measurements) and the path's costs count each measurement once (marginal costs).
#'
#' @inheritParams fgseq
#' @param x Numeric matrix, `n x p`, as for [fgseq()]; or, for the formula method, a model formula such
#'   as `diagnosis ~ .` (one group per term, as for [fgseq()]).
#' @param y Response of length `n`, as for [fgseq()] with the same `family`: numeric (gaussian), 0/1,
#'   logical or a two-level factor (binomial), non-negative counts (poisson).
#' @param lambda Non-negative ridge constant of the prefix refits, as in [fgseq()] (not the group
#'   lasso's `lambda`, which runs along the path).
#' @param family `"gaussian"`, `"binomial"` or `"poisson"`: the loss of the group lasso and of the
#'   prefix refits.
#' @param nlambda Whole number `>= 2`: the number of `lambda` values of the path's grid.
#' @param lambda_min_ratio Number in `(0, 1)`: the smallest `lambda` of the grid as a fraction of
#'   `lambda_max`.
#' @param ... Not used: an argument given here is an error.
#' @return An object of class `"fgseq"` (see [fgseq()]) with `method = "sparse"`, so that print,
#'   [predict()][predict.fgseq], [coef()][coef.fgseq], [plot()][plot.fgseq], [timeliness()],
#'   [stop_cost()] and [compare_sequences()] work as for [fgseq()] fits. In its `path`, `score` is the
#'   group lasso `lambda` at which the group entered (NA for groups that never entered within the grid).
#'   It also holds `label` (`"Sparse"`) and `group_lasso`, a list with `lambda` (the grid, decreasing,
#'   length `nlambda`), `beta` (`p x nlambda`, the group lasso's coefficients along the grid on the
#'   original scale of `x`), `a0` (its `nlambda` intercepts), `entry_lambda` (named by group, NA when
#'   never entered) and `multiplier` (`m_g`, named by group).
#' @section Errors: Stops when `nlambda` is not a whole number `>= 2`, when `lambda_min_ratio` is not in
#'   `(0, 1)`, when `family` is not one of the three above, when an unknown argument is given, and as
#'   [fgseq()] for `x`, `y`, `group`, `cost` and `lambda`. Warns as [fgseq()] about constant columns and
#'   groups.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Yuan, M. and Lin, Y. (2006). Model selection and estimation in regression with grouped variables.
#'   *Journal of the Royal Statistical Society B* 68(1), 49-67. \doi{10.1111/j.1467-9868.2005.00532.x}
#'
#'   Breheny, P. and Huang, J. (2015). Group descent algorithms for nonconvex penalized linear and
#'   logistic regression models with grouped predictors. *Statistics and Computing* 25, 173-187.
#'   \doi{10.1007/s11222-013-9424-2}
#' @seealso [fgseq()], [compare_sequences()], [oracle()].
#' @examples
#' sp <- sparse_sequence(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost)
#' sp
#' omp <- fgseq(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost)
#' compare_sequences(list(omp, sp), newdata = heart[201:303, ])
#'
#' # logistic group lasso; matrix interface
#' sparse_sequence(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
#' x <- as.matrix(mtcars[, -1])
#' sparse_sequence(x, mtcars$mpg, cost = seq_len(ncol(x)))
#' @export
sparse_sequence <- function(x, ...) UseMethod("sparse_sequence")

#' @rdname sparse_sequence
#' @export
sparse_sequence.default <- function(x, y, group = NULL, cost = NULL, lambda = 1e-6,
                                    family = "gaussian", nlambda = 100,
                                    lambda_min_ratio = 1e-4, needs = NULL, cost_unit = NULL, ...) {
  check_dots(...)
  call <- match.call()
  call[[1L]] <- quote(sparse_sequence)
  family <- check_family(family, "sparse")
  x <- check_x(x)
  response <- check_response(y, family, nrow(x))
  group <- check_group(group, x)
  labels <- unique(group)
  meas <- group_measurements(cost, needs, labels)
  cost <- meas$cost  # the group lasso weighs each group by its stand-alone cost
  lambda <- check_number(lambda, "lambda", lower = 0)
  nlambda <- check_whole(nlambda, "nlambda", 2, what = "the number of lambda values")
  lambda_min_ratio <- check_number(lambda_min_ratio, "lambda_min_ratio", 0, 1, lower_open = TRUE, upper_open = TRUE,
                                   what = "the end of the group lasso path as a fraction of lambda_max")

  wh <- whiten_groups_r(x, group, labels)
  entry <- grlasso_entry(wh, response$y[, 1L], cost, family, nlambda, lambda_min_ratio, wh$mean, wh$scale)
  sequence <- sparse_order(entry, cost)
  group_lasso <- list(lambda = entry$lambda, beta = entry$beta, a0 = entry$a0, entry_lambda = entry$entry,
                      multiplier = entry$multiplier)
  fit_sequence(x, y, group = group, cost = meas$measurement_cost, needs = needs, lambda = lambda,
               family = family, order = sequence, cost_unit = cost_unit, call = call,
               baseline = list(label = "Sparse", method = "sparse", score = unname(entry$entry[sequence]),
                               fields = list(group_lasso = group_lasso)))
}

#' @rdname sparse_sequence
#' @param data Data frame holding the variables of the formula (formula method); `predict()`,
#'   [anytime_curve()] and [compare_sequences()] then accept `newdata`. For the gaussian family a
#'   two-level factor response is read as 0/1 (the second level is 1).
#' @param subset,na.action Formula method, as for [fgseq()]: `subset` (evaluated in `data`) selects the
#'   rows to fit; `na.action` is missing or [stats::na.fail()] (stop on NA), [stats::na.omit()] or
#'   [stats::na.exclude()].
#' @export
sparse_sequence.formula <- function(x, data, subset, na.action, cost = NULL, needs = NULL, ...) {
  check_dots(..., forwarded = formula_forwarded(sparse_sequence.default))
  d <- model_design(match.call(), parent.frame(), allowed = character(0))
  meas <- formula_measurements(cost, needs, d$variables, d$data_names)
  family <- list(...)$family
  if (is.factor(d$y) && (is.null(family) || identical(family, default_family))) {
    if (nlevels(d$y) != 2L) abort("the response must be numeric, logical or a two-level factor.")
    d$y <- as.numeric(d$y == levels(d$y)[2L])
  }
  fit <- sparse_sequence.default(d$x, d$y, group = d$group, cost = meas$measurement_cost, needs = meas$needs, ...)
  with_formula(fit, d, match.call(), "sparse_sequence")
}

# Standardization and group whitening in plain R, as fgseq() defines them (the C++ core does the same
# inside the Gram matrix), for the group lasso: columns centred and
# scaled by their population sd (zero-variance columns are constant and get 0), each group whitened by
# T_g = U_r diag(d_r^-1/2) from the eigen-decomposition of Sigma_gg = Xs_g' Xs_g / n, keeping
# d_i > 1e-9 max(d).
whiten_groups_r <- function(x, group, labels) {
  n <- nrow(x)
  mu <- colMeans(x)
  xs <- sweep(x, 2L, mu)
  s <- sqrt(colSums(xs^2) / n)
  constant <- !(s > 1e-13 * pmax(abs(mu), 1e-300))
  scale <- ifelse(constant, 1, s)
  xs <- sweep(xs, 2L, scale, "/")
  xs[, constant] <- 0
  cols <- stats::setNames(lapply(labels, function(g) which(group == g & !constant)), labels)
  t <- lapply(cols, function(j) {
    if (!length(j)) return(NULL)
    e <- eigen(crossprod(xs[, j, drop = FALSE]) / n, symmetric = TRUE)
    keep <- e$values > 1e-9 * max(e$values)
    e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(e$values[keep]), sum(keep), sum(keep))
  })
  z <- lapply(labels, function(g) if (is.null(t[[g]])) NULL else xs[, cols[[g]], drop = FALSE] %*% t[[g]])
  names(z) <- labels
  list(xs = xs, cols = cols, z = z, t = t, mean = mu, scale = stats::setNames(scale, colnames(x)),
       rank = vapply(t, function(m) if (is.null(m)) 0L else ncol(m), integer(1)))
}

# An "fgseq" object for a given sequence of group labels (a prefix of the groups is allowed): the
# path fgseq() computes for that order (the core evaluates the order instead of selecting one).
fixed_sequence_fit <- function(x, y, group = NULL, cost = NULL, sequence, lambda = 1e-6) {
  fit_sequence(x, y, group = group, cost = cost, lambda = lambda, order = sequence, max_steps = length(sequence),
               baseline = list(label = "Given order", method = "fixed"), call = match.call())
}

# ---- The cost-weighted group lasso on whitened groups ----------------------------------------------
#
# min_{a, b} L(a + sum_g Z_g b_g) + lambda sum_g m_g ||b_g||, with L the mean negative log-likelihood of
# the family (gaussian: ||y - eta||^2 / (2n)) and Z_g' Z_g / n = I. Block coordinate descent: the update
# of a group is the proximal step b_g <- S(b_g + q_g / v, lambda m_g / v), S(u, t) = u (1 - t/||u||)_+,
# with q = Z' (y - mu) / n the score and v a bound on the curvature of L along the group. Gaussian: v = 1
# and the step is the exact block minimizer, done on the Gram matrix Z'Z/n (q is kept up to date, no
# pass over the rows). Binomial: v = 1/4. Poisson: v starts at max(mu) and doubles until the step
# decreases the objective as its quadratic bound promises. The intercept is an unpenalized block (for
# gaussian it is mean(y), the columns being centred).

glasso_family <- function(family) {
  switch(family,
    gaussian = list(mean = function(eta) eta, loss = function(y, eta) sum((y - eta)^2) / 2, v = 1,
                    null = function(y) mean(y)),
    binomial = list(mean = stats::plogis, v = 0.25, null = function(y) stats::qlogis(mean(y)),
                    loss = function(y, eta) sum(pmax(eta, 0) + log1p(exp(-abs(eta))) - y * eta)),
    poisson = list(mean = exp, v = NA_real_, null = function(y) log(mean(y)),
                   loss = function(y, eta) sum(exp(eta) - y * eta)))
}

# The problem: the whitened groups side by side (`zall`, n x r), the columns of each group (`cols`), the
# multipliers, the family, the Gram matrix and Z'y/n (gaussian) and the tolerance on coefficient changes.
glasso_problem <- function(z, y, m, family, tol = 1e-10, max_iter = 10000L) {
  zall <- do.call(cbind, z)
  col <- rep(seq_along(z), vapply(z, ncol, integer(1)))
  gaussian <- family_def(family)$linear
  list(zall = zall, col = col, cols = split(seq_along(col), col), y = y, n = length(y), m = m,
       fam = glasso_family(family), gaussian = gaussian,
       gram = if (gaussian) crossprod(zall) / length(y), zy = if (gaussian) drop(crossprod(zall, y - mean(y))) / length(y),
       tol = tol * (if (gaussian) stats::sd(y) else 1), max_iter = max_iter)
}

# The intercept-only solution: every group at 0. `q` is the score Z'(y - mu)/n (gaussian: kept up to
# date), `eta` the linear predictor (other families).
glasso_null <- function(prob) {
  a0 <- prob$fam$null(prob$y)
  list(b = numeric(ncol(prob$zall)), a0 = a0, eta = rep(a0, prob$n), q = prob$zy)
}

# The score Z'(y - mu)/n at a state.
glasso_score <- function(prob, st) {
  if (prob$gaussian) st$q else drop(crossprod(prob$zall, prob$y - prob$fam$mean(st$eta))) / prob$n
}

# ||Z_g' (y - mu)|| / n for every group: the group lasso's KKT quantity.
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
  r <- prob$y - fam$mean(st$eta)
  grad <- if (is.null(j)) -sum(r) / prob$n else -drop(crossprod(zj, r)) / prob$n
  b <- if (is.null(j)) st$a0 else st$b[j]
  v <- if (is.na(fam$v)) max(fam$mean(st$eta)) else fam$v
  old <- if (is.na(fam$v)) fam$loss(prob$y, st$eta) / prob$n
  repeat {
    u <- b - grad / v
    nu <- sqrt(sum(u^2))
    bn <- if (pen > 0) (if (nu > pen / v) u * (1 - pen / (v * nu)) else 0 * u) else u
    d <- bn - b
    if (!any(d != 0)) return(list(st = st, change = 0))
    eta <- st$eta + if (is.null(j)) d else drop(zj %*% d)
    if (!is.na(fam$v)) break
    bound <- old + sum(grad * d) + v / 2 * sum(d^2)
    if (fam$loss(prob$y, eta) / prob$n <= bound + 1e-13 * abs(old)) break
    v <- 2 * v
  }
  if (is.null(j)) st$a0 <- bn else st$b[j] <- bn
  st$eta <- eta
  list(st = st, change = max(abs(d)))
}

# The solution at `lambda`, warm-started from `st`; group `exclude` (an index, or 0) is held at 0.
# Cycles over the groups that are non-zero until the coefficients settle, then adds every group that
# violates its KKT condition ||Z_g' (y - mu)|| / n <= lambda m_g, until none does.
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
  abort("the group lasso did not converge in ", prob$max_iter, " passes at lambda = ", format(lambda), ".")
}

# Whether the groups among `active` meet their optimality conditions to a relative precision of 1e-9:
# Z_g' (y - mu) / n = lambda m_g b_g / ||b_g|| for a non-zero group, ||Z_g' (y - mu)|| / n <= lambda m_g
# for a zero one (coefficient changes can be small long before that when blocks are correlated).
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
# 1/2 b'Gb - b'Z'y/n + lambda sum_g m_g ||b_g|| is smooth: the gradient is -q + lambda m_g b_g/||b_g||,
# the Hessian G + lambda m_g (I - u_g u_g') / ||b_g|| (u_g = b_g / ||b_g||), with a backtracking line
# search. Block coordinate descent converges slowly when groups are strongly correlated; this finishes
# the solve in a few steps once it has found the non-zero groups. NULL when a step fails (a group
# heading to 0, which block coordinate descent then settles).
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
# solution `st_hi`): the root of h(lambda) = ||Z_g' (y - mu_{-g}(lambda))|| / n - lambda m_g, with
# mu_{-g} the solution that holds g at 0 (equal to the path's solution as long as g is out), found by
# Brent's method to a relative tolerance of 1e-10.
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

# The path on a decreasing grid from lambda_max (where the first group enters) to
# lambda_min_ratio * lambda_max, warm-started; each group's first entry refined between the two grid
# values that bracket it. Returns the grid, the coefficients along it (whitened, r x nlambda), the
# intercepts, the entry lambda of each group (NA: never within the grid) and the end-of-path KKT ratio.
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
  list(lambda = grid, b = b, a0 = a0, entry = entry,
       kkt = glasso_gradnorm(prob, st) / (prob$m * lmax))
}

# The cost-weighted group lasso path of the non-constant groups (whitened by whiten_groups_r()), with
# m_g = c(g) / mean(c), and its entry lambdas, named by group; the path's coefficients are mapped to the
# original scale of x (p x nlambda, 0 for constant columns).
grlasso_entry <- function(wh, y, cost, family, nlambda, lambda_min_ratio, x_mean, x_scale) {
  live <- names(wh$rank)[wh$rank > 0L]
  m <- stats::setNames(unname(cost[live]) / mean(cost[live]), live)
  prob <- glasso_problem(unname(wh$z[live]), y, unname(m), family)
  path <- glasso_path(prob, nlambda, lambda_min_ratio)
  beta <- matrix(0, length(x_scale), nlambda, dimnames = list(names(x_scale), NULL))
  for (i in seq_along(live)) {
    g <- live[i]
    beta[wh$cols[[g]], ] <- wh$t[[g]] %*% path$b[prob$cols[[i]], , drop = FALSE] / x_scale[wh$cols[[g]]]
  }
  a0 <- path$a0 - drop(crossprod(x_mean, beta))
  list(live = live, entry = stats::setNames(path$entry, live), kkt = stats::setNames(path$kkt, live),
       lambda = path$lambda, beta = beta, a0 = a0, multiplier = m)
}

# The Sparse order: entered groups by decreasing entry lambda, then cost, then group order; the others
# appended by decreasing end-of-path KKT ratio, then cost, then group order.
sparse_order <- function(entry, cost) {
  live <- entry$live
  pos <- seq_along(live)
  c_live <- unname(cost[live])
  entered <- !is.na(entry$entry)
  in_order <- pos[entered][order(-entry$entry[entered], c_live[entered], pos[entered])]
  out_order <- pos[!entered][order(-entry$kkt[!entered], c_live[!entered], pos[!entered])]
  live[c(in_order, out_order)]
}
