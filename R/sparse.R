#' The Sparse baseline: a sequence from the cost-weighted group lasso path
#'
#' The paper's baseline (Hu et al. 2016, section 5.2, "Sparse"): the group lasso whose penalty on each
#' group is scaled by the group's cost,
#' \deqn{\min_w \frac{1}{2n}\|y - Xw\|^2 + \lambda \sum_g m_g \|w_g\|_2, \quad m_g \propto c(g),}{min_w 1/(2n) ||y - X w||^2 + lambda sum_g m_g ||w_g||, m_g proportional to c(g),}
#' is solved along a path of decreasing `lambda` by [grpreg::grpreg()] (`penalty = "grLasso"`), and
#' turned into a sequence: groups in the order in which they first become non-zero along the path.
#' Each prefix of that sequence is then refitted by the same ridge solve as [fgseq()] (same
#' standardization, group whitening and ridge constant `lambda`), so its curve, predictions and
#' timeliness are comparable with those of [fgseq()] fits.
#'
#' @section Path and order:
#' The columns are standardized as in [fgseq()] before [grpreg::grpreg()] sees them (grpreg then
#' orthonormalizes each group, which is the group whitening of [fgseq()]); the group multipliers are
#' `m_g = c(g) / mean(c)` (the paper's `c(G_j)`, rescaled to mean 1 so that grpreg's `lambda` keeps its
#' usual scale; the scale does not change the order), instead of grpreg's default `sqrt(group size)`.
#' A group enters at the first `lambda` of the path where one of its coefficients is non-zero; a group
#' that later leaves the path keeps its first entry. Ties (groups entering at the same `lambda` of the
#' grid): the cheaper group first, then the order of `unique(group)`. Groups that never enter (the path
#' stopped early, for example through `gmax` or `dfmax` passed in `...`, or a group whose gradient stays
#' below the smallest `lambda`) are appended after the others, by decreasing
#' `||Z_g' r|| / (n c(g))`, the group lasso's own entry criterion at the end of the path (`Z_g` the
#' whitened group, `r` the residual of the last fit of the path), that is in the order in which they
#' would enter next; ties again by cost, then group order. Every non-constant group is in the sequence,
#' so its total cost is that of [fgseq()] fits on the same data. With `needs` (measurements shared by
#' groups, see [fgseq()]), `c(g)` is the stand-alone cost of the group (the total cost of its
#' measurements) and the path's costs count each measurement once (marginal costs).
#'
#' @inheritParams fgseq
#' @param x Numeric matrix, `n x p`, as for [fgseq()]; or, for the formula method, a model formula such
#'   as `diagnosis ~ .` (one group per term, as for [fgseq()]).
#' @param y Numeric vector of length `n` (logical is read as 0/1).
#' @param lambda Non-negative ridge constant of the prefix refits, as in [fgseq()] (not grpreg's
#'   `lambda`).
#' @param nlambda Whole number `>= 2`: the number of `lambda` values of grpreg's path (a finer path
#'   resolves the entry order better).
#' @param ... Further arguments to [grpreg::grpreg()], such as `lambda.min`, `eps`, `max.iter`, `gmax`
#'   or `dfmax` (not `penalty`, `family` or `group.multiplier`, which are set here).
#' @return An object of class `"fgseq"` (see [fgseq()]) with `method = "sparse"`, so that print,
#'   [predict()][predict.fgseq], [coef()][coef.fgseq], [plot()][plot.fgseq], [timeliness()],
#'   [stop_cost()] and [compare_sequences()] work as for [fgseq()] fits. In its `path`, `score` is the
#'   grpreg `lambda` at which the group entered (NA for groups that never entered). It also holds
#'   `label` (`"Sparse"`) and `grpreg`, a list with `lambda` (grpreg's path,
#'   decreasing), `entry_lambda` (named by group, NA when never entered) and `multiplier` (named by
#'   group).
#' @section Errors: Stops when the grpreg package is not installed (install it with
#'   `install.packages("grpreg")`), when `nlambda` is not a whole number `>= 2`, and as [fgseq()] for
#'   `x`, `y`, `group`, `cost` and `lambda`. Warns as [fgseq()] about constant columns and groups.
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
#' if (requireNamespace("grpreg", quietly = TRUE)) {
#'   sp <- sparse_sequence(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost)
#'   sp
#'   omp <- fgseq(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost)
#'   compare_sequences(list(omp, sp), newdata = heart[201:303, ])
#'
#'   # matrix interface
#'   x <- as.matrix(mtcars[, -1])
#'   sparse_sequence(x, mtcars$mpg, cost = seq_len(ncol(x)))
#' }
#' @export
sparse_sequence <- function(x, ...) UseMethod("sparse_sequence")

#' @rdname sparse_sequence
#' @export
sparse_sequence.default <- function(x, y, group = NULL, cost = NULL, lambda = 1e-6, nlambda = 200, needs = NULL,
                                    ...) {
  call <- match.call()
  call[[1L]] <- quote(sparse_sequence)
  x <- check_x(x)
  y <- check_y(y, nrow(x))
  group <- check_group(group, x)
  labels <- unique(group)
  meas <- group_measurements(cost, needs, labels)
  cost <- meas$cost  # the group lasso weighs each group by its stand-alone cost
  lambda <- check_lambda(lambda)
  nlambda <- check_nlambda(nlambda)
  check_grpreg()
  check_dots(..., forwarded = grpreg_arguments())

  wh <- whiten_groups_r(x, group, labels)
  entry <- grlasso_entry(wh, y, cost, nlambda, ...)
  sequence <- sparse_order(entry, cost)
  fit <- fit_sequence(x, y, group = group, cost = meas$measurement_cost, needs = needs, lambda = lambda,
                      order = sequence, label = "Sparse", call = call)
  fit$method <- "sparse"
  fit$criterion <- NA_character_
  fit$path$score <- c(NA_real_, unname(entry$lambda[sequence]))
  fit$grpreg <- list(lambda = entry$path, entry_lambda = entry$lambda, multiplier = entry$multiplier)
  fit
}

#' @rdname sparse_sequence
#' @param data Data frame holding the variables of the formula (formula method); `predict()`,
#'   [anytime_curve()] and [compare_sequences()] then accept `newdata`. A two-level factor response is
#'   read as 0/1 (the second level is 1).
#' @param subset,na.action Formula method, as for [fgseq()]: `subset` (evaluated in `data`) selects the
#'   rows to fit; `na.action` is missing or [stats::na.fail()] (stop on NA), [stats::na.omit()] or
#'   [stats::na.exclude()].
#' @export
sparse_sequence.formula <- function(x, data, subset, na.action, cost = NULL, needs = NULL, ...) {
  check_grpreg()
  check_dots(..., forwarded = c(formula_forwarded(sparse_sequence.default), grpreg_arguments()))
  d <- model_design(match.call(), parent.frame(), allowed = character(0))
  meas <- formula_measurements(cost, needs, d$variables, d$data_names)
  if (is.factor(d$y)) {
    if (nlevels(d$y) != 2L) abort("the response must be numeric, logical or a two-level factor.")
    d$y <- as.numeric(d$y == levels(d$y)[2L])
  }
  fit <- sparse_sequence.default(d$x, d$y, group = d$group, cost = meas$measurement_cost, needs = meas$needs, ...)
  with_formula(fit, d, match.call(), "sparse_sequence")
}

# Standardization and group whitening in plain R, as fgseq() defines them (the C++ core does the same
# inside the Gram matrix), for grpreg's input and its end-of-path entry criterion: columns centred and
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
  list(xs = xs, cols = cols, z = z,
       rank = vapply(t, function(m) if (is.null(m)) 0L else ncol(m), integer(1)))
}

# An "fgseq" object for a given sequence of group labels (a prefix of the groups is allowed): the
# path fgseq() computes for that order (the core evaluates the order instead of selecting one).
fixed_sequence_fit <- function(x, y, group = NULL, cost = NULL, sequence, lambda = 1e-6) {
  fit <- fit_sequence(x, y, group = group, cost = cost, lambda = lambda, order = sequence,
                      max_steps = length(sequence), label = "Given order", call = match.call())
  fit$method <- "fixed"
  fit$criterion <- NA_character_
  fit
}

# The arguments of grpreg::grpreg() a user may pass through `...` (the others are set here).
grpreg_arguments <- function() {
  setdiff(names(formals(grpreg::grpreg)), c("X", "y", "group", "penalty", "family", "nlambda", "group.multiplier", "..."))
}

# Run grpreg's cost-weighted group lasso on the standardized non-constant columns and find where each
# group first becomes non-zero. Returns the entry lambda per group (NA: never), the entry index, the
# end-of-path criterion ||Z_g' r|| / (n c(g)), the path and the multipliers.
grlasso_entry <- function(wh, y, cost, nlambda, ...) {
  live <- names(wh$rank)[wh$rank > 0L]
  n <- length(y)
  cols <- unlist(wh$cols[live], use.names = FALSE)
  gidx <- rep(seq_along(live), lengths(wh$cols[live]))
  m <- stats::setNames(unname(cost[live]) / mean(cost[live]), live)
  gfit <- grpreg::grpreg(wh$xs[, cols, drop = FALSE], y, group = gidx, penalty = "grLasso",
                         family = "gaussian", nlambda = nlambda, group.multiplier = unname(m), ...)
  b <- gfit$beta[-1L, , drop = FALSE]
  L <- ncol(b)
  nonzero <- rowsum((b != 0) * 1, gidx, reorder = TRUE) > 0
  first <- apply(nonzero, 1L, function(v) if (any(v)) which(v)[1L] else NA_integer_)
  resid <- y - gfit$beta[1L, L] - drop(wh$xs[, cols, drop = FALSE] %*% b[, L])
  kkt <- vapply(live, function(g) sqrt(sum(crossprod(wh$z[[g]], resid)^2)) / n, numeric(1)) / cost[live]
  list(live = live, first = stats::setNames(first, live),
       lambda = stats::setNames(gfit$lambda[first], live), kkt = kkt, path = gfit$lambda, multiplier = m)
}

# The Sparse order: entered groups by first entry, then cost, then group order; the others appended by
# decreasing end-of-path criterion, then cost, then group order.
sparse_order <- function(entry, cost) {
  live <- entry$live
  pos <- seq_along(live)
  c_live <- unname(cost[live])
  entered <- !is.na(entry$first)
  in_order <- pos[entered][order(entry$first[entered], c_live[entered], pos[entered])]
  out_order <- pos[!entered][order(-entry$kkt[!entered], c_live[!entered], pos[!entered])]
  live[c(in_order, out_order)]
}
