# Methods of a fitted model as for glm(): fitted(), residuals(), deviance(), logLik() (and so AIC()
# and BIC()), nobs(), family(), formula(), model.matrix(), update(), for "fgseq" fits and, where they
# make sense, "miser" fits (both of class "anytime_fit"). Each method that depends on the model takes
# `budget` or `step` (one of them, a single value) and defaults to the full model, the last step.

# The single step (0-based) a method describes: the last by default.
one_step <- function(object, budget = NULL, step = NULL) {
  if (is.null(budget) && is.null(step)) step <- nrow(object$path) - 1L
  steps <- resolve_steps(object, budget, step)
  if (length(steps) != 1L) abort("give a single `budget` or `step`: this method describes one model.")
  steps
}

# The training response, prior weights (1 when none) and fitted means of one step, on the fitted rows
# (without the rows na.action dropped).
training_fit <- function(object, budget = NULL, step = NULL) {
  k <- one_step(object, budget, step)
  mu <- training_means(object, k)
  y <- object[["y"]]
  if (is.null(y)) no_training_data(object)
  n <- NROW(y)
  w <- object[["weights"]]
  if (is.null(w)) w <- rep(1, n)
  list(y = y, mu = mu, w = w, step = k, family = family_def(object$family))
}

# The prediction of step k on the fitted rows (without the rows na.action dropped), as predict()
# without new data gives it, in `type`. The training x is not checked again as new data: it was checked
# when fitting, or left unread by the null model of a fit whose check max_time cut short; the
# prediction reads only the columns the step's model uses.
training_prediction <- function(object, k, type = "response") {
  req <- prediction_request(object, newdata = NULL, newoffset = NULL, budget = NULL, step = k, type = type,
                            missing = "error", per_row = FALSE)
  req$design$rows <- NULL
  predict_request(object, req)
}

# The fitted means of step k on the fitted rows: a vector, or an n x P matrix for multinomial and
# mgaussian fits.
training_means <- function(object, k) {
  p <- training_prediction(object, k)
  if (length(dim(p)) == 3L) return(matrix(p[, , 1L], dim(p)[1L], dim(p)[2L], dimnames = dimnames(p)[1:2]))
  stats::setNames(p[, 1L], rownames(p))
}

#' Fitted values, residuals, deviance and log-likelihood of a fit at a budget or step
#'
#' The methods of [stats::glm()] fits for the model after one step of a sequence (or a number of trees of
#' a [miser()] fit), on the training data: by default the full model (the last step). With
#' `na.action = na.exclude` fitted values and residuals are padded with NA at the rows left out, as
#' for [stats::glm()]. The training `x` is read as the fit keeps it (not checked again as new data), in
#' the columns of the described model only.
#'
#' @section Definitions:
#' With `mu` the fitted means (probabilities for binomial fits, class probabilities for multinomial),
#' `y` the response as the fit reads it (0/1 for binomial, class indicators for multinomial) and `w` the
#' prior `weights` (1 when none), the residuals are those of [stats::residuals.glm()]:
#' `"response"` `y - mu`; `"deviance"` `sign(y - mu) sqrt(d_i)`, `d_i` the family's deviance
#' contribution of row `i`; `"pearson"` `(y - mu) sqrt(w / V(mu))`; `"working"` `(y - mu) / mu'(eta)`.
#' `deviance()` is `sum(d_i)`: the (unpenalized) deviance of the family (the weighted residual sum of
#' squares for gaussian and mgaussian fits; `-2 sum w_i log p_{i, y_i}` for multinomial fits), which is
#' [stats::deviance()] of [stats::glm()] when `lambda` is negligible. `logLik()` is the family's
#' log-likelihood as `logLik()` of a [stats::glm()] fit computes it (gaussian: with the variance estimated by
#' `deviance / n`), with `df` the number of estimated coefficients of the step: the intercept and the
#' whitened rank of every group in the prefix (per class but one for multinomial fits), plus one for
#' the gaussian variance. This counts coefficients; with a large ridge `lambda` the effective degrees
#' of freedom are fewer. [stats::AIC()] and [stats::BIC()] follow from it.
#'
#' @param object A fit of [fgseq()] (or [sparse_sequence()]), or, for `fitted()`, `residuals()` and
#'   `deviance()`, a [miser()] fit.
#' @param type For `residuals()`: `"deviance"` (the default, as for [stats::glm()]), `"pearson"`,
#'   `"working"` or `"response"`. Multinomial and mgaussian fits have `"response"` residuals only.
#' @param budget,step The model to describe: one budget (cost units; the longest prefix within it) or
#'   one step (`0..K`). With neither, the full model (the last step).
#' @param ... Not used: an unknown argument is an error.
#' @return `fitted()`: numeric vector of the fitted means, one per training row (for multinomial and
#'   mgaussian fits an `n x P` matrix). `residuals()`: a vector (or `n x P` matrix) of the same shape.
#'   `deviance()`: a single number. `logLik()`: an object of class `"logLik"` with attributes `df` and
#'   `nobs` (the rows of positive weight).
#' @section Errors: Stops when both `budget` and `step` are given, when either selects more than one
#'   model or is out of range; when the fit holds no training data (fits from [fgseq_chunks()] or
#'   [fgseq_stats()]); when `type` is unknown or does not apply to the family; for `logLik()`, for
#'   mgaussian fits and [miser()] fits (no likelihood with a known number of parameters).
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   McCullagh, P. and Nelder, J. A. (1989). *Generalized Linear Models*, 2nd edition, section 2.4.
#'   Chapman and Hall.
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = binomial())
#' head(fitted(fit))
#' head(residuals(fit, type = "pearson", budget = 20))
#' deviance(fit, step = 2)
#' AIC(fit)
#' logLik(fit, budget = 20)
#' @name fitted.fgseq
#' @export
fitted.anytime_fit <- function(object, ..., budget = NULL, step = NULL) {
  validate_fit(object)
  check_dots(...)
  k <- one_step(object, budget, step)
  pad_rows(training_means(object, k), training_design(object))
}

#' @rdname fitted.fgseq
#' @export
residuals.anytime_fit <- function(object, type = c("deviance", "pearson", "working", "response"), ...,
                                  budget = NULL, step = NULL) {
  validate_fit(object)
  check_dots(...)
  type <- check_choice(match_type(type, c("deviance", "pearson", "working", "response")),
                       c("deviance", "pearson", "working", "response"), "type")
  pad_rows(residual_values(training_fit(object, budget, step), type), training_design(object))
}

# The residuals of `type` of a training_fit() (on the fitted rows), as residuals.glm() defines them.
residual_values <- function(f, type) {
  r <- f$y - f$mu
  fam <- f$family$stats
  if (type != "response") {
    if (is.null(fam)) {
      abort("`type = \"", type, "\"` residuals are not defined for a ", f$family$name, " fit; use type = \"response\".")
    }
    r <- switch(type,
      deviance = sign(r) * sqrt(pmax(fam$dev.resids(f$y, f$mu, f$w), 0)),
      pearson = r * sqrt(f$w) / sqrt(fam$variance(f$mu)),
      working = r / fam$mu.eta(fam$linkfun(f$mu)))
  }
  if (is.null(dim(r))) names(r) <- names(f$mu)
  r
}

#' @rdname fitted.fgseq
#' @export
deviance.anytime_fit <- function(object, ..., budget = NULL, step = NULL) {
  validate_fit(object)
  check_dots(...)
  f <- training_fit(object, budget, step)
  f$family$deviance(f$y, f$mu, f$w)
}

#' @rdname fitted.fgseq
#' @export
logLik.fgseq <- function(object, ..., budget = NULL, step = NULL) {
  validate_fit(object)
  check_dots(...)
  f <- training_fit(object, budget, step)
  if (is.null(f$family$loglik)) {
    abort("logLik() is not defined for a ", f$family$name, " fit (no joint covariance is estimated); use deviance().")
  }
  groups <- object$path$group[seq_len(f$step + 1L)][-1L]
  ll <- f$family$loglik(f$y, f$mu, f$w, coefs = 1 + sum(object$rank[groups]))
  structure(ll$value, df = ll$df, nobs = sum(f$w != 0), class = "logLik")
}

#' Number of observations, family, formula, design matrix and update of a fit
#'
#' `nobs()` is the number of training rows of positive weight (as for [stats::glm()]); `family()` the
#' family as a [stats::family()] object (`gaussian()`, `binomial()`, `poisson()`; for multinomial and
#' mgaussian fits a list of class `"family"` with elements `family` and `link`); `formula()` the model
#' formula of a formula fit; `model.matrix()` the design of the training rows with an `"(Intercept)"`
#' column first, restricted to the columns of the groups of one step's prefix (by default the last
#' step: every group of the sequence), so that `model.matrix(fit, step = k) %*% coef(fit, step = k)`
#' restricted to those rows of `coef()` is the linear predictor without offset; `update()` re-evaluates
#' the fit's call with arguments changed (and, for formula fits, the formula updated by
#' [stats::update.formula()]), as [stats::update()] does for [stats::glm()].
#'
#' @param object,formula.,x A fit of [fgseq()], [sparse_sequence()] or [miser()]; for `update()`,
#'   `formula.` is a formula such as `. ~ . - age`.
#' @param budget,step For `model.matrix()`: the step whose groups' columns to keep (one budget or step;
#'   by default the last step).
#' @param evaluate For `update()`: evaluate the new call (`TRUE`) or return it.
#' @param ... For `update()`: arguments of the fit to change (`lambda = 0.1`, `method = "fr"`, ...);
#'   otherwise not used (an unknown argument is an error).
#' @return `nobs()`: a whole number. `family()`: a `"family"` object. `formula()`: a formula.
#'   `model.matrix()`: an `n x (1 + q)` matrix (sparse if the training `x` was). `update()`: the new fit
#'   (or its call).
#' @section Errors: `formula()` stops for fits made from a matrix; `model.matrix()` for fits that hold
#'   no training data (from [fgseq_chunks()] or [fgseq_stats()]) and as [coef.fgseq()] for `budget` and
#'   `step`; `update()` as the verb it calls.
#' @references Chambers, J. M. and Hastie, T. J. (1992). *Statistical Models in S*, chapter 2.
#'   Wadsworth and Brooks/Cole.
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
#' nobs(fit)
#' family(fit)
#' formula(fit)
#' dim(model.matrix(fit, budget = 20))
#' fr <- update(fit, method = "fr")
#' fr$sequence
#' update(fit, . ~ . - thal, cost = heart_cost[names(heart_cost) != "thal"])$sequence
#' @name nobs.fgseq
#' @export
nobs.anytime_fit <- function(object, ...) {
  check_dots(...)
  w <- object[["weights"]]
  if (is.null(w)) object$nobs_positive %||% object$nobs else sum(w != 0)  # nobs_positive: lean fits (lean.R)
}

#' @rdname nobs.fgseq
#' @export
family.anytime_fit <- function(object, ...) {
  check_dots(...)
  fam <- family_def(object$family)
  if (is.null(fam$stats)) structure(list(family = fam$name, link = fam$link), class = "family") else fam$stats
}

#' @rdname nobs.fgseq
#' @export
formula.anytime_fit <- function(x, ...) {
  check_dots(...)
  if (is.null(x$terms)) {
    abort("this fit was made from a matrix, not a formula: it has no formula.", class = "no_data")
  }
  stats::formula(x$terms)
}

#' @rdname nobs.fgseq
#' @export
model.matrix.anytime_fit <- function(object, ..., budget = NULL, step = NULL) {
  validate_fit(object)
  check_dots(...)
  k <- one_step(object, budget, step)
  x <- training_design(object)$x
  groups <- unlist(step_groups(object)$groups[seq_len(k + 1L)])
  keep <- which(object$group %in% groups)
  cbind(`(Intercept)` = 1, x[, keep, drop = FALSE])
}

#' @rdname nobs.fgseq
#' @export
update.anytime_fit <- function(object, formula., ..., evaluate = TRUE) {
  call <- stats::getCall(object)
  if (is.null(call)) abort("this fit has no stored call to update.", class = "no_data")
  if (!missing(formula.)) {
    if (is.null(object$terms)) abort("`formula.` needs a fit made with a formula.", class = "formula")
    call$x <- stats::update(stats::formula(object$terms), formula.)
  }
  extras <- match.call(expand.dots = FALSE)$...
  for (name in names(extras)) call[[name]] <- extras[[name]]
  if (evaluate) eval(call, parent.frame()) else call
}
