#' The Sparse baseline: a sequence from the cost-weighted group lasso path
#'
#' The paper's baseline (Hu et al. 2016, section 5.2, "Sparse"): the group lasso whose penalty on each
#' group is scaled by the group's cost, on the whitened groups `Z_g` of [fgseq()],
#' \deqn{\min_{a, b} \frac{1}{\sum_i w_i}\sum_i w_i\,\ell(y_i, o_i + a + z_i' b) + \gamma \sum_g m_g \|b_g\|_2, \quad
#'   m_g = c(g) / \mathrm{mean}(c),}{min_(a,b) 1/sum(w) sum_i w_i loss(y_i, o_i + a + z_i' b) + penalty sum_g m_g ||b_g||, m_g = c(g) / mean(c),}
#' with `loss` half the squared error (gaussian, so without weights and offset the fit term is
#' `1/(2n) ||y - Zb||^2`) or the negative log-likelihood (binomial, poisson), observation weights `w`
#' (1 each by default) and offset `o` (0 by default), is solved along a path of decreasing penalties `gamma`
#' (glmnet's and grpreg's `lambda`; in fgseq `lambda` is always the ridge constant), and turned into a
#' sequence: groups in the order in which they first become non-zero along the path. Each prefix of that
#' sequence is then refitted by the same ridge solve as [fgseq()] (same standardization, group whitening,
#' family and ridge constant `lambda`), so its curve, predictions and timeliness are comparable with
#' those of [fgseq()] fits.
#'
#' @section Path and order:
#' The columns are standardized and each group whitened as in [fgseq()] (`Z_g' Z_g / n = I`; with
#' `weights`, weighted means and scales and `Z_g' diag(w) Z_g / sum(w) = I`). The path is computed by
#' the package's compiled core, by block coordinate descent: with whitened groups the update of a group is the exact
#' block minimizer for the gaussian family (a proximal step of the quadratic bound of the
#' log-likelihood for the others), iterated over the non-zero groups until every one of them meets its
#' optimality condition to a relative precision of `1e-9` (for the gaussian family, once the non-zero
#' groups stay the same, Newton's method on them finishes the solve), then over every group that
#' violates its condition `||Z_g' (y - mu)|| / n <= gamma m_g`, until none does (with weights,
#' `Z_g' diag(w) (y - mu) / sum(w)` in place of `Z_g' (y - mu) / n` throughout). The grid has `n_penalty` values,
#' log-spaced from `gamma_max = max_g ||Z_g' (y - mu_0)|| / (n m_g)` (where the first group enters;
#' `mu_0` the intercept-only fit) down to `penalty_min_ratio * gamma_max`, each solution warm-started
#' from the previous one. The grid only brackets the entries: the `gamma` at which a group first
#' becomes non-zero is then located between the two grid values around it as the root of
#' `||Z_g' (y - mu_{-g}(gamma))|| / n - gamma m_g` (`mu_{-g}` the solution with that group held at 0,
#' which is the path's own solution until the group enters), by Brent's method to a relative precision of
#' `1e-10`. The sequence orders the groups by decreasing entry `gamma` (a group that later leaves the
#' path keeps its first entry); exact ties go to the cheaper group, then to the order of `unique(group)`.
#' The order depends on the multipliers only through their ratios: scaling every `m_g` by a constant
#' scales the whole path's `gamma` by its inverse. Groups that have not entered at the end of the grid
#' are appended after the others by decreasing `||Z_g' (y - mu)|| / (n m_g)` at the last solution (the
#' order in which they would enter next); ties again by cost, then group order. Groups of cost 0 have
#' `m_g = 0`: unpenalized, in the model at every `gamma`, they come first, in the order of
#' `unique(group)`. Every non-constant group
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
#'   lasso's penalty `gamma`, which runs along the path).
#' @param family `"gaussian"`, `"binomial"` or `"poisson"`: the loss of the group lasso and of the
#'   prefix refits.
#' @param n_penalty Whole number `>= 2`: the number of penalties `gamma` of the path's grid (glmnet's
#'   and grpreg's `nlambda`: their `lambda` is the group lasso's penalty, here `lambda` is the ridge
#'   constant throughout the package).
#' @param penalty_min_ratio Number in `(0, 1)`: the smallest `gamma` of the grid as a fraction of
#'   `gamma_max` (glmnet's `lambda.min.ratio`).
#' @param nlambda,lambda_min_ratio Deprecated names of `n_penalty` and `penalty_min_ratio`: still
#'   accepted, with a warning of class `"fgseq_warning_deprecated"`.
#' @param weights `NULL` or a numeric vector of `n` non-negative observation weights, as for [fgseq()]:
#'   they weigh the group lasso's loss (and its standardization and whitening) and the prefix refits.
#'   For the formula method evaluated in `data`, then in the formula's environment.
#' @param offset `NULL` or a numeric vector of `n` values added to the linear predictor of the group
#'   lasso and of the prefix refits, as for [fgseq()] (predictions on `newx` then need `newoffset`). For
#'   the formula method evaluated in `data` and added to the formula's `offset()` terms.
#' @param ... Not used: an argument given here is an error.
#' @return An object of class `"fgseq"` (see [fgseq()]) with `method = "sparse"`, so that print,
#'   [predict()][predict.fgseq], [coef()][coef.fgseq], [plot()][plot.fgseq], [timeliness()],
#'   [stop_cost()] and [compare_sequences()] work as for [fgseq()] fits. In its `path`, `score` is the
#'   group lasso penalty `gamma` at which the group entered (NA for groups that never entered within the
#'   grid). It also holds `label` (`"Sparse"`) and `group_lasso`, a list with `penalty` (the grid of
#'   `gamma`, decreasing, length `n_penalty`), `beta` (`p x n_penalty`, the group lasso's coefficients
#'   along the grid on the original scale of `x`), `a0` (its `n_penalty` intercepts), `entry_penalty`
#'   (named by group, NA when never entered) and `multiplier` (`m_g`, named by group).
#' @section Errors: Stops when `n_penalty` is not a whole number `>= 2` or asks for a `p x n_penalty`
#'   coefficient path larger than the machine's memory, when `penalty_min_ratio` is not in
#'   `(0, 1)`, when `family` is not one of the three above, when an unknown argument is given, and as
#'   [fgseq()] for `x`, `y`, `group`, `cost`, `lambda`, `weights` and `offset`. Warns as [fgseq()] about constant columns and
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
                                    family = "gaussian", n_penalty = 100, penalty_min_ratio = 1e-4,
                                    needs = NULL, cost_unit = NULL, weights = NULL, offset = NULL, ...,
                                    nlambda, lambda_min_ratio) {
  check_dots(...)
  if (!missing(nlambda)) n_penalty <- renamed_argument(nlambda, "nlambda", "n_penalty", missing(n_penalty))
  if (!missing(lambda_min_ratio)) {
    penalty_min_ratio <- renamed_argument(lambda_min_ratio, "lambda_min_ratio", "penalty_min_ratio",
                                          missing(penalty_min_ratio))
  }
  call <- match.call()
  call[[1L]] <- quote(sparse_sequence)
  family <- check_family(family, "sparse")
  # each input checked once (x swept once for NA, NaN and Inf), for the group lasso and for
  # fit_sequence(), which takes them as they are
  inputs <- fit_inputs(x, y, group, cost, needs, family, weights, offset, scan = check_x_scan(x))
  x <- inputs$x
  response <- inputs$response
  w <- if (length(inputs$weights)) inputs$weights
  o <- if (!is.null(inputs$offset)) inputs$offset[, 1L]
  group <- inputs$group
  labels <- inputs$labels
  cost <- charged_costs(inputs$meas)  # the group lasso weighs each group by its stand-alone cost, as charged
  lambda <- check_number(lambda, "lambda", lower = 0)
  n_penalty <- check_whole(n_penalty, "n_penalty", 2, what = "the number of group lasso penalties")
  # the path keeps a p x n_penalty coefficient table (twice: the core's and R's)
  memory <- machine_memory()
  if (!is.na(memory) && 16 * as.double(ncol(x)) * n_penalty > memory) {
    abort("`n_penalty` (", n_penalty, ") asks for a ", ncol(x), " x ", n_penalty, " coefficient path, more than the ",
          "machine's memory (", format(memory / 2^30, digits = 3), " GB) holds: give fewer penalties (100 is usual).")
  }
  penalty_min_ratio <- check_number(penalty_min_ratio, "penalty_min_ratio", 0, 1, lower_open = TRUE, upper_open = TRUE,
                                    what = "the end of the group lasso path as a fraction of its largest penalty")

  wh <- whiten_groups_r(x, group, labels, w)
  entry <- grlasso_entry(wh, response$y[, 1L], cost, family, n_penalty, penalty_min_ratio, w, o)
  sequence <- sparse_order(entry, cost)
  group_lasso <- list(penalty = entry$penalty, beta = entry$beta, a0 = entry$a0, entry_penalty = entry$entry,
                      multiplier = entry$multiplier)
  fit_sequence(inputs = inputs, lambda = lambda, family = family, order = sequence, cost_unit = cost_unit, call = call,
               baseline = list(label = "Sparse", method = "sparse", score = unname(entry$entry[sequence]),
                               fields = list(group_lasso = group_lasso)))
}

# Standardization and group whitening of x by the core, as fgseq() does them (one pass for the centred
# moments of x, .moments(); the constant-column rule and T_g = U_r diag(d_r^-1/2) of each group,
# keeping d_i > 1e-9 max(d), .moments_whitening()), and the whitened columns z the group lasso reads:
# columns centred by their (weighted) mean and scaled by their (weighted) population sd (constant
# columns 0), z_g = Xs_g T_g over the group's non-constant columns. `weights`: NULL (1 each) or
# non-negative weights.
whiten_groups_r <- function(x, group, labels, weights = NULL) {
  x <- as.matrix(x)
  moments <- .moments(x, matrix(0, nrow(x), 0L), if (is.null(weights)) numeric(0) else as.double(weights), "eigen")
  wh <- .moments_whitening(moments, match(group, labels) - 1L, length(labels), 1e-9)
  constant <- wh$constant
  xs <- sweep(sweep(x, 2L, wh$mean), 2L, wh$scale, "/")
  xs[, constant] <- 0
  cols <- stats::setNames(lapply(labels, function(g) which(group == g & !constant)), labels)
  t <- stats::setNames(lapply(seq_along(labels), function(k) {
    if (wh$rank[k] == 0L) return(NULL)
    wh$T[[k]][!constant[group == labels[k]], , drop = FALSE]  # the rows of constant columns are 0
  }), labels)
  z <- lapply(labels, function(g) if (is.null(t[[g]])) NULL else xs[, cols[[g]], drop = FALSE] %*% t[[g]])
  names(z) <- labels
  list(xs = xs, cols = cols, z = z, t = t, mean = wh$mean, scale = stats::setNames(wh$scale, colnames(x)),
       rank = stats::setNames(wh$rank, labels))
}

# An "fgseq" object for a given sequence of group labels (a prefix of the groups is allowed): the
# path fgseq() computes for that order (the core evaluates the order instead of selecting one).
fixed_sequence_fit <- function(x, y, group = NULL, cost = NULL, sequence, lambda = 1e-6) {
  fit_sequence(x, y, group = group, cost = cost, lambda = lambda, order = sequence, max_steps = length(sequence),
               baseline = list(label = "Given order", method = "fixed"), call = match.call())
}

# The cost-weighted group lasso path of the non-constant groups (whitened by whiten_groups_r()), with
# m_g = c(g) / mean(c), and its entry penalties, named by group, by the core's solver (sparse/grouplasso.hpp);
# the path's coefficients are mapped to the original scale of x (p x n_penalty, 0 for constant columns).
grlasso_entry <- function(wh, y, cost, family, n_penalty, penalty_min_ratio, weights = NULL, offset = NULL) {
  live <- names(wh$rank)[wh$rank > 0L]
  m <- stats::setNames(unname(cost[live]) / mean(cost[live]), live)
  rank <- unname(wh$rank[live])
  path <- .group_lasso_path(do.call(cbind, unname(wh$z[live])), rank, as.double(y),
                            if (is.null(weights)) numeric(0) else weights,
                            if (is.null(offset)) numeric(0) else as.double(offset), unname(m), family,
                            n_penalty, penalty_min_ratio)
  rows <- split(seq_len(sum(rank)), rep(seq_along(live), rank))
  beta <- matrix(0, length(wh$scale), n_penalty, dimnames = list(names(wh$scale), NULL))
  for (i in seq_along(live)) {
    g <- live[i]
    beta[wh$cols[[g]], ] <- wh$t[[g]] %*% path$beta[rows[[i]], , drop = FALSE] / wh$scale[wh$cols[[g]]]
  }
  a0 <- path$a0 - drop(crossprod(wh$mean, beta))
  list(live = live, entry = stats::setNames(path$entry, live), kkt = stats::setNames(path$kkt, live),
       penalty = path$penalty, beta = beta, a0 = a0, multiplier = m)
}

# The Sparse order: groups of cost 0 first (their multiplier is 0: unpenalized, in the model at every
# penalty), in group order; then entered groups by decreasing entry penalty, then cost, then group order;
# the others appended by decreasing end-of-path KKT ratio, then cost, then group order.
sparse_order <- function(entry, cost) {
  live <- entry$live
  pos <- seq_along(live)
  c_live <- unname(cost[live])
  free <- c_live == 0
  entered <- !is.na(entry$entry) & !free
  out <- is.na(entry$entry) & !free
  in_order <- pos[entered][order(-entry$entry[entered], c_live[entered], pos[entered])]
  out_order <- pos[out][order(-entry$kkt[out], c_live[out], pos[out])]
  live[c(pos[free], in_order, out_order)]
}
