# Methods for objects of class "fgseq".

method_label <- function(object) {
  base <- switch(object$method,
    omp = switch(object$criterion, whitened = "G-OMP", l2 = "G-OMP (No-Whiten)", linf = "G-OMP (Single)"),
    fr = "G-FR",
    doubling = "Doubling")
  if (object$method == "doubling") return(if (object$cost_sensitive) base else paste(base, "(cost-blind)"))
  if (object$cost_sensitive) paste0("CS-", base) else base
}

#' Print a fitted sequence
#'
#' Prints the sequence step by step: the group added, its cost, the cumulative cost and the training
#' `r2` (fraction of explained variance, `F / R(empty)`).
#'
#' @inheritParams fgseq-arguments
#' @param digits Number of significant digits for costs and `r2`.
#' @return `x`, invisibly.
#' @section Errors: None beyond those of [print()].
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' print(fgseq(diagnosis ~ ., data = heart, cost = heart_cost, method = "fr"))
#' @export
print.fgseq <- function(x, digits = 4, ...) {
  cat(method_label(x), " sequence: ", length(x$sequence), " of ", length(x$cost), " groups, ", x$nobs,
      " observations, lambda = ", format(x$lambda, digits = digits), "\n\n", sep = "")
  tab <- x$path[, c("step", "group", "group_cost", "cost", "r2")]
  tab$group[1] <- "(intercept only)"
  tab$group_cost <- signif(tab$group_cost, digits)
  tab$cost <- signif(tab$cost, digits)
  tab$r2 <- round(tab$r2, digits)
  print(tab, row.names = FALSE, right = FALSE)
  left <- setdiff(names(x$cost), x$sequence)
  if (length(left)) cat("\nNot in the sequence:", paste(left, collapse = ", "), "\n")
  invisible(x)
}

#' Summarize a fitted sequence
#'
#' @inheritParams fgseq-arguments
#' @param alpha Numeric vector of fractions in `(0, 1]` at which to report the alpha-stopping cost and
#'   the training timeliness (linear interpolation) up to that cost.
#' @return An object of class `"summary.fgseq"`: a list with `method` (character label), `nobs`,
#'   `lambda`, `n_groups` (groups in the sequence), `total_cost` (cost units), `r2` (final training
#'   `r2`), `path` (the `path` data frame) and `stopping`, a data frame with columns `alpha`,
#'   `stop_cost` and `timeliness`, one row per `alpha`. Stopping cost and timeliness follow the paper's
#'   section 5.2 (see [stop_cost()] and [timeliness()]; linear interpolation, training curve).
#' @section Errors: Stops when an `alpha` is not in `(0, 1]`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' summary(fgseq(diagnosis ~ ., data = heart, cost = heart_cost))
#' @export
summary.fgseq <- function(object, alpha = c(0.9, 0.97, 0.99, 1), ...) {
  for (a in alpha) check_alpha(a)
  sc <- vapply(alpha, function(a) stop_cost(object, alpha = a), numeric(1))
  tl <- vapply(sc, function(b) timeliness(object, stop_cost = b), numeric(1))
  K <- length(object$sequence)
  structure(list(method = method_label(object), nobs = object$nobs, lambda = object$lambda,
                 n_groups = K, total_cost = object$path$cost[K + 1L], r2 = object$path$r2[K + 1L],
                 path = object$path, stopping = data.frame(alpha = alpha, stop_cost = sc, timeliness = tl)),
            class = "summary.fgseq")
}

#' @rdname summary.fgseq
#' @param x A `"summary.fgseq"` object.
#' @param digits Number of significant digits.
#' @export
print.summary.fgseq <- function(x, digits = 4, ...) {
  cat(x$method, " sequence of ", x$n_groups, " groups on ", x$nobs, " observations (lambda = ",
      format(x$lambda, digits = digits), ")\n", sep = "")
  cat("Total cost ", format(x$total_cost, digits = digits), ", final training r2 ",
      format(x$r2, digits = digits), "\n\n", sep = "")
  path <- x$path
  path$group[1] <- "(intercept only)"
  print(format(path, digits = digits), row.names = FALSE)
  cat("\nTraining timeliness up to the alpha-stopping cost:\n")
  print(format(x$stopping, digits = digits), row.names = FALSE)
  invisible(x)
}

#' Coefficients of a fitted sequence at budgets or steps
#'
#' @inheritParams fgseq-arguments
#' @return A `(p + 1) x m` matrix, one column per requested budget or step (`m = K + 1` by default):
#'   the intercept in row `"(Intercept)"`, then the coefficients of the columns of `x` on their original
#'   scale (0 for groups not yet computed).
#'   Column `k` is the paper's `w(G_k)` (Algorithm 1) mapped back through the group whitening and the
#'   standardization to the original scale of `x`.
#' @section Errors: Stops when both `budget` and `step` are given, when a budget is negative or NA, or
#'   when a step is not a whole number in `0..K`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' coef(fit, budget = c(5, 20, 120))
#' @export
coef.fgseq <- function(object, budget = NULL, step = NULL, ...) {
  steps <- resolve_steps(object, budget, step)
  out <- rbind(`(Intercept)` = object$a0[steps + 1L], object$beta[, steps + 1L, drop = FALSE])
  colnames(out) <- names(steps)
  out
}

#' Predict with a fitted sequence at budgets or steps
#'
#' Anytime prediction: at budget `B` the model uses the groups of the longest prefix of the sequence
#' whose cumulative cost is at most `B` (Hu et al. 2016, section 1, `G<B>`).
#'
#' @inheritParams fgseq-arguments
#' @param type `"link"` or `"response"`; the same for the Gaussian family.
#' @return A numeric matrix with one row per row of `newx` (or `newdata`) and one column per requested
#'   budget or step.
#' @section Errors: Stops when `newx` has the wrong number of columns or column names that do not match
#'   the training `x`, when `newdata` lacks a variable of the model's terms, and as [coef.fgseq()] for
#'   `budget` and `step`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' predict(fit, newdata = heart[1:5, ], budget = c(5, 20, 120))
#' @export
predict.fgseq <- function(object, newx, budget = NULL, step = NULL, type = c("link", "response"),
                          newdata = NULL, ...) {
  type <- match.arg(type)
  x <- new_design(object, if (missing(newx)) NULL else newx, newdata)
  cf <- coef(object, budget = budget, step = step)
  out <- x %*% cf[-1L, , drop = FALSE]
  out <- sweep(out, 2L, cf[1L, ], "+")
  dimnames(out) <- list(rownames(x), colnames(cf))
  out
}

# The design matrix of new observations: from newx, or rebuilt from newdata for formula fits.
new_design <- function(object, newx = NULL, newdata = NULL) {
  if (!is.null(newdata)) {
    if (is.null(object$terms)) {
      abort("`newdata` works with fits made by the formula interface; give `newx` (a matrix) instead.")
    }
    if (!is.data.frame(newdata)) abort("`newdata` must be a data frame.")
    tt <- stats::delete.response(object$terms)
    missing <- setdiff(all.vars(tt), names(newdata))
    if (length(missing)) {
      abort("`newdata` lacks the model variable(s) ", paste(missing, collapse = ", "), ".")
    }
    mf <- stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object$xlevels)
    if (anyNA(mf)) abort("`newdata` has NA in the model variables; remove or impute those rows first.")
    mm <- stats::model.matrix(tt, mf, contrasts.arg = object$contrasts)
    return(mm[, names(object$group), drop = FALSE])
  }
  if (is.null(newx)) abort("give `newx` (a numeric matrix) or, for formula fits, `newdata`.")
  newx <- check_newx(newx, object)
  if (!all(is.finite(newx))) abort("`newx` contains NA, NaN or Inf; remove or impute those values first.")
  newx
}

# The response for a test curve: from newy, or from newdata for formula fits.
new_response <- function(object, newy = NULL, newdata = NULL, n) {
  if (!is.null(newdata)) {
    if (is.null(object$terms)) abort("`newdata` works with fits made by the formula interface.")
    resp <- all.vars(object$terms)[attr(object$terms, "response")]
    y <- eval(attr(object$terms, "variables")[[attr(object$terms, "response") + 1L]], newdata,
              environment(object$terms))
    if (is.null(y)) abort("`newdata` lacks the response ", resp, ".")
    if (is.factor(y)) y <- as.numeric(y == levels(y)[2L])
    newy <- y
  }
  if (is.null(newy)) abort("give `newy` with `newx` (or `newdata` holding the response).")
  if (is.logical(newy)) newy <- as.numeric(newy)
  if (!is.numeric(newy) || length(newy) != n) {
    abort("`newy` must be a numeric vector with one value per row of `newx` (", n, ").")
  }
  if (!all(is.finite(newy))) abort("`newy` contains NA, NaN or Inf.")
  as.double(newy)
}

# The anytime curve (cumulative cost, r2) of a fit: on the training data, or on test data where
# r2_k = 1 - SSE_k / SSE_0, SSE_0 the squared error of the step-0 (intercept-only) model.
fgseq_curve <- function(object, newx = NULL, newy = NULL, newdata = NULL) {
  path <- object$path
  if (is.null(newx) && is.null(newdata)) return(data.frame(cost = path$cost, r2 = path$r2))
  x <- new_design(object, newx, newdata)
  y <- new_response(object, newy, newdata, nrow(x))
  pred <- predict(object, x)
  sse <- colSums((y - pred)^2)
  data.frame(cost = path$cost, r2 = 1 - sse / sse[1L])
}

#' Plot the anytime curve of a fitted sequence
#'
#' Draws `r2` (fraction of explained variance) against cumulative cost as a step curve: on the training
#' data, or on test data given by `newx`/`newy` (or `newdata`), where `r2_k = 1 - SSE_k / SSE_0` with
#' `SSE_0` the squared error of the intercept-only model.
#'
#' @inheritParams fgseq-arguments
#' @param add Logical: add the curve to an existing plot (to overlay fits).
#' @param xlab,ylab Axis labels.
#' @param type Line type passed to [graphics::lines()]; `"s"` (steps, the default) is what an interrupted
#'   predictor delivers, `"l"` joins the points as timeliness does by default.
#' @param ... Further graphical parameters (`col`, `lty`, `lwd`, `xlim`, `ylim`, `main`, ...).
#' @return The curve, a data frame with columns `cost` (cumulative cost, cost units) and `r2`, one row
#'   per step `0..K`, invisibly. This is the explained-variance-against-cost curve of the paper's
#'   section 5 (Figures 3-5).
#' @section Errors: Stops when `newx` is given without `newy` (or `newdata` without the response), and
#'   as [predict.fgseq()] for the test data.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' plot(fit)
#' plot(fgseq(diagnosis ~ ., data = heart, cost = heart_cost, method = "fr"), add = TRUE, col = 2)
#' @export
plot.fgseq <- function(x, newx = NULL, newy = NULL, newdata = NULL, add = FALSE, xlab = "cumulative cost",
                       ylab = if (is.null(newx) && is.null(newdata)) "training r2" else "test r2",
                       type = "s", ...) {
  curve <- fgseq_curve(x, newx, newy, newdata)
  if (!add) {
    dots <- list(...)
    xlim <- if (is.null(dots$xlim)) range(curve$cost) else dots$xlim
    ylim <- if (is.null(dots$ylim)) range(0, curve$r2) else dots$ylim
    main <- if (is.null(dots$main)) method_label(x) else dots$main
    graphics::plot(NA, xlim = xlim, ylim = ylim, xlab = xlab, ylab = ylab, main = main)
  }
  args <- list(...)
  args[c("xlim", "ylim", "main")] <- NULL
  do.call(graphics::lines, c(list(curve$cost, curve$r2, type = type), args))
  invisible(curve)
}
