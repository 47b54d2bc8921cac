# Methods for objects of class "fgseq".

method_label <- function(object) {
  if (!is.null(object$label)) return(object$label)
  method <- selection_methods[[object$method]]
  base <- if (is.na(method$label)) selection_criteria[[object$criterion]] else method$label
  if (!method$cs_prefix) return(if (object$cost_sensitive) base else paste(base, "(cost-blind)"))
  if (object$cost_sensitive) paste0("CS-", base) else base
}

#' Print a fitted sequence
#'
#' Prints the sequence step by step: the group added, its cost, the cumulative cost and the training
#' `r2` (fraction of explained variance, `F / R(empty)`; for GLM families the fraction of the null
#' deviance explained).
#'
#' @inheritParams fgseq-arguments
#' @param digits Number of significant digits for costs and `r2`.
#' @return `x`, invisibly.
#' @section Errors: Stops on an object that is not as fgseq() made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field).
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' print(fgseq(diagnosis ~ ., data = heart, cost = heart_cost, method = "fr"))
#' @export
print.fgseq <- function(x, digits = 4, ...) {
  validate_fit(x, "x")
  check_dots(...)
  fam <- family_def(x$family)
  family <- if (fam$named) paste0(" (", fam$name, ")") else ""
  cat(method_label(x), " sequence", family, ": ", length(x$sequence), " of ", length(x$cost), " groups, ",
      x$nobs, " observations, lambda = ", format(x$lambda, digits = digits), "\n\n", sep = "")
  if (nzchar(family)) cat("r2: fraction of the null deviance explained\n\n")
  if (isTRUE(x$partial)) cat("Partial: `max_time` was spent before the selection ended.\n\n")
  print_path(x$path, "(intercept only)", digits)
  left <- setdiff(names(x$cost), x$sequence)
  if (length(left)) cat("\nNot in the sequence:", paste(left, collapse = ", "), "\n")
  invisible(x)
}

# The steps of an anytime path as a table: group added, its cost, cumulative cost, r2.
print_path <- function(path, first, digits) {
  tab <- path[, c("step", "group", "group_cost", "cost", "r2")]
  tab$group[is.na(tab$group)] <- ""
  tab$group[1L] <- first
  tab$group_cost <- signif(tab$group_cost, digits)
  tab$cost <- signif(tab$cost, digits)
  tab$r2 <- round(tab$r2, digits)
  print(tab, row.names = FALSE, right = FALSE)
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
#' @section Errors: Stops when an `alpha` is not in `(0, 1]`; on an object that is not as fgseq() made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field).
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' summary(fgseq(diagnosis ~ ., data = heart, cost = heart_cost))
#' @export
summary.fgseq <- function(object, alpha = c(0.9, 0.97, 0.99, 1), ...) {
  validate_fit(object)
  check_dots(...)
  for (a in alpha) check_alpha(a)
  sc <- vapply(alpha, function(a) stop_cost(object, alpha = a), numeric(1))
  tl <- vapply(alpha, function(a) timeliness(object, alpha = a), numeric(1))
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
  check_dots(...)
  cat(x$method, " sequence of ", x$n_groups, " groups on ", x$nobs, " observations (lambda = ",
      format(x$lambda, digits = digits), ")\n", sep = "")
  if (x$n_groups == 0L) {
    cat("The sequence is empty (stopped by `max_cost` or `max_time` before its first group): every budget ",
        "predicts with the intercept only.\n", sep = "")
  }
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
#' @return For single-response families (gaussian, binomial, poisson) a dense `(p + 1) x m` numeric matrix, one column
#'   per requested budget or step (`m = K + 1` by default): the intercept in row `"(Intercept)"`, then
#'   the coefficients of the columns of `x` on their original scale (0 for groups not yet computed).
#'   For `"multinomial"` and `"mgaussian"` fits, a list of such matrices, one per class or response
#'   column. Column `k` is the paper's `w(G_k)` (Algorithm 1; appendix B for GLMs) mapped back through
#'   the group whitening and the standardization to the original scale of `x`.
#' @section Errors: Stops on an object that is not as fgseq() made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field); when both `budget` and `step` are given, when `step` is empty, when a
#'   budget is negative or NA or below the cost of step 0, or
#'   when a step is not a whole number in `0..K`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' coef(fit, budget = c(5, 20, 120))
#' @export
coef.fgseq <- function(object, ..., budget = NULL, step = NULL) {
  validate_fit(object)
  check_dots(...)
  steps <- resolve_steps(object, budget, step)
  one <- function(beta, a0) {
    out <- rbind(`(Intercept)` = a0[steps + 1L], as.matrix(beta[, steps + 1L, drop = FALSE]))
    colnames(out) <- names(steps)
    out
  }
  if (is.list(object$beta)) {
    return(stats::setNames(lapply(seq_along(object$beta), function(c) one(object$beta[[c]], object$a0[c, ])),
                           names(object$beta)))
  }
  one(object$beta, object$a0)
}

# A sequence reads each column from the step of its group.
#' @export
column_steps.fgseq <- function(object) {
  step <- match(object$group, object$sequence)
  step[is.na(step)] <- nrow(object$path)
  as.integer(step)
}

# A sequence pays one group per step, at the path's group_cost (the core's PaidMeasurements).
#' @export
paid_groups.fgseq <- function(object) {
  data.frame(group = object$sequence, step = seq_along(object$sequence),
             group_cost = object$path$group_cost[-1L][seq_along(object$sequence)], stringsAsFactors = FALSE)
}

# The model after step k on the original scale of x, for the given columns: list(intercept = the P
# intercepts, coefficients = length(cols) x P matrix, one column per response). Shared by the portable
# predictor (linear_step()) and the SQL of predictor_sql().
step_coefficients <- function(fit, k, cols) {
  beta <- if (is.list(fit$beta)) fit$beta else list(fit$beta)
  a0 <- if (is.matrix(fit$a0)) fit$a0[, k + 1L] else fit$a0[k + 1L]
  at_k <- matrix(vapply(beta, function(b) as.matrix(b[cols, k + 1L, drop = FALSE])[, 1L], numeric(length(cols))),
                 length(cols), dimnames = list(cols, NULL))
  list(intercept = unname(a0), coefficients = at_k)
}

# Intercepts and coefficients (original scale of x) of the model after step k, for the given columns, as
# the portable predictor writes them.
linear_step <- function(fit, k, cols) {
  m <- step_coefficients(fit, k, cols)
  coefficients <- lapply(seq_along(cols), function(a) json_numbers(m$coefficients[a, ]))
  list(intercept = json_numbers(m$intercept), coefficients = stats::setNames(coefficients, cols))
}

# A sequence writes the intercepts and coefficients of each step.
#' @export
predictor_model.fgseq <- function(fit) {
  columns <- names(fit$group)
  col_step <- column_steps(fit)
  list(model = "linear", step = function(k) linear_step(fit, k, columns[col_step <= k]), parts = list())
}

# The design matrix of new observations: from newx, or rebuilt from newdata for formula fits
# (newdata_design()). Returns list(x, offset (from newdata; NULL for newx), rows (NULL, or the rows
# of the input that x holds, the others predicted NA), n (rows of the input)). Without allow_na, rows
# with NA in newdata are an error; with keep_na (missing = "prefix"), NA (values not computed) stay in x.
new_design <- function(object, newx = NULL, newdata = NULL, allow_na = FALSE, keep_na = FALSE) {
  if (!is.null(newdata)) {
    d <- newdata_design(object, newdata, allow_na, keep_na)
    return(d)
  }
  if (is.null(newx)) abort("give `newx` (a numeric matrix) or, for formula fits, `newdata`.")
  list(x = check_newx(newx, object, keep_na), offset = NULL, rows = NULL)
}

#' Plot the anytime curve or the coefficient paths of a fitted sequence
#'
#' `what = "curve"` draws a metric against cumulative cost as a step curve: the training `r2` (fraction
#' of explained variance) by default, or a test metric of [anytime_curve()] on test data given by
#' `newx`/`newy` (or `newdata`); test `r2_k = 1 - SSE_k / SSE_0` with `SSE_0` the squared error of the
#' intercept-only model. `what = "coef"` draws the coefficient paths: each column's coefficient (on the
#' original scale of `x`, as [coef.fgseq()] gives it) against the cumulative cost of the step, one line
#' per column, as `plot()` does for `glmnet` fits against the penalty; for multinomial and mgaussian
#' fits one panel per class or response column, all on one page: the call sets
#' `par(mfrow = grDevices::n2mfrow(panels))` (for 3 classes 3 panels in one column, for 4 a 2 x 2
#' grid) and restores `par()` after, so that a single `png()` holds every class. Both plots show on
#' the top axis the number of groups computed at each step (as `plot()` of `glmnet` fits shows the
#' degrees of freedom; labels that would overlap are left out), with the title above it.
#'
#' @section Axes and overlays:
#' The cheap end of a sequence is often where most of its steps are: `log = "x"` draws the cost axis
#' on a log scale, where step 0 (cost 0) starts at the left edge of the plot (half the first positive
#' cost). `cost_unit` (default: the fit's `cost_unit`, when it has one) is added to the axis label.
#' `add = TRUE` draws the curve on the current plot, on its axes (and its log scale, if it has one):
#' base graphics cannot rescale a plot already drawn, so a curve reaching beyond the axes is clipped
#' and a warning (class `fgseq_warning_plot_range`) says so; give `xlim` and `ylim` holding every curve
#' to the first call, or use [compare_sequences()] and its `plot()`, which scales to all curves.
#'
#' @inheritParams fgseq-arguments
#' @inheritParams anytime_curve
#' @param x An anytime fit: an `"fgseq"` fit ([fgseq()], [sparse_sequence()]) or a `"miser"` fit
#'   ([miser()], one point per boosting iteration; `what = "curve"` only).
#' @param what `"curve"` (the anytime curve of `metric`) or `"coef"` (the coefficient paths).
#' @param add Logical: add the curve to the current plot (to overlay fits; see above). `what = "curve"`
#'   only.
#' @param log `""` or `"x"`: a log scale for the cost axis.
#' @param cost_unit `NULL` or a character string, the unit of costs shown in the axis label (for
#'   example `"CAD"`).
#' @param xlab,ylab Axis labels; `NULL` chooses them (`ylab` names the data and the metric,
#'   `"training r2"`, `"test accuracy"`, ..., or `"coefficient"`).
#' @param plot_type The plot type of the curves, passed as `type` to [graphics::lines()] (not what is
#'   drawn, which is `what`): `"s"` (steps, the default) is what an interrupted predictor delivers,
#'   `"l"` joins the points as timeliness does by default.
#' @param labels Logical: write the label of each step's group at that step (upwards, starting low
#'   enough to end below the top border; a label that would overlap the one before it moves right, and
#'   one moved beyond the right border is left out) and, with `what = "coef"`, the column name of
#'   coefficient paths at their right end (as glmnet's `plot(label = TRUE)`): the x range is widened to
#'   hold them, as many are written as fit one line apart in the plot's height (those of largest last
#'   |coefficient| first), spread vertically so that none overlaps another. Given by its full name only (it follows `...`, so that the graphical
#'   parameter `lab` is not taken for it). The coefficient paths are drawn in as many distinct colours
#'   as there are columns (a qualitative HCL palette), unless `col` is given.
#' @param type Deprecated name of `plot_type` (a warning of class `fgseq_warning_deprecated`); `type`
#'   is the prediction type of [predict.fgseq()].
#' @param ... Further graphical parameters (`col`, `lty` for the line type, `lwd`, `xlim`, `ylim`,
#'   `main`, ...).
#' @return For `what = "curve"` the curve, invisibly: a data frame with one row per step `0..K` and
#'   columns `step`, `group`, `cost` (cumulative cost, cost units) and one named by the metric (`r2`,
#'   `mse`, `accuracy`, `ndcg`, `logloss` or `auc`). This is the explained-variance-against-cost curve
#'   of the paper's section 5 (Figures 3-5), or its accuracy and NDCG@5 counterparts. For
#'   `what = "coef"` the coefficients drawn, invisibly: `beta` as a dense `p x (K + 1)` numeric matrix
#'   (a list of them for multinomial and mgaussian fits).
#' @section Errors: Stops on an object that is not as [fgseq()] or [miser()] made it (class
#'   `fgseq_error_invalid_object`, naming the field); when `what` or `log` is not one of its values, when `cost_unit` is not a
#'   single string, when `labels` is not `TRUE` or `FALSE`, when `what = "coef"` is asked of a fit
#'   without coefficients (a `"miser"` fit) or with `add = TRUE`; as [anytime_curve()]: when `newx` is
#'   given without `newy` (or `newdata` without the response), when `metric` is unknown or needs test
#'   data, and as [predict.fgseq()] for the test data.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' plot(fit, log = "x", cost_unit = "CAD", labels = TRUE)
#' plot(fgseq(diagnosis ~ ., data = heart, cost = heart_cost, method = "fr"), add = TRUE, col = 2)
#' plot(fit, what = "coef", log = "x", labels = TRUE)
#' train <- fgseq(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost)
#' plot(train, newdata = heart[201:303, ], metric = "accuracy")
#' @rdname plot.fgseq
#' @aliases plot.fgseq
#' @export
plot.anytime_fit <- function(x, newx = NULL, newy = NULL, newdata = NULL, metric = "r2", query = NULL, k = 5,
                             what = c("curve", "coef"), add = FALSE, log = "", cost_unit = x$cost_unit, xlab = NULL,
                             ylab = NULL, plot_type = "s", ..., labels = FALSE, type) {
  validate_fit(x, "x")
  check_dots(..., graphics = TRUE)
  if (!missing(type)) plot_type <- renamed_argument(type, "type", "plot_type", missing(plot_type))
  what <- check_choice(what, c("curve", "coef"), "what")
  if (what == "coef") {
    if (is.null(x$beta)) abort("`what = \"coef\"` needs a fit with coefficients (an fgseq fit); this is a ",
                               class(x)[1L], " fit.")
    if (!identical(add, FALSE)) abort("`add = TRUE` works with `what = \"curve\"` only.")
    return(draw_coef(x, log = log, cost_unit = cost_unit, labels = labels, xlab = xlab, ylab = ylab,
                     plot_type = plot_type, ...))
  }
  curve <- anytime_curve(x, newx, newy, metric = metric, query = query, k = k, newdata = newdata)
  draw_curve(curve, add = add, log = log, cost_unit = cost_unit, labels = labels, xlab = xlab, ylab = ylab,
             plot_type = plot_type, default_main = method_label(x), ...)
}

# Coefficient paths against cumulative cost: one line per column of x; for a multi-column fit one panel
# per class or response column, all on one page (par(mfrow = n2mfrow(panels)) for the call). With
# labels, the x range leaves room for the names of the paths at their right end.
draw_coef <- function(fit, log = "", cost_unit = NULL, labels = FALSE, xlab = NULL, ylab = NULL, plot_type = "s",
                      ...) {
  log <- check_choice(log, c("", "x"), "log")
  labels <- check_flag(labels, "labels")
  dots <- list(...)
  at <- cost_at(fit$path$cost, log == "x", left = dots$xlim[1L])
  if (is.null(xlab)) xlab <- cost_axis_label("cumulative cost", cost_unit)
  if (is.null(ylab)) ylab <- "coefficient"
  # the paths drawn, dense (what plot() returns)
  betas <- lapply(if (is.list(fit$beta)) fit$beta else list(fit$beta), as.matrix)
  if (length(betas) > 1L) {
    op <- graphics::par(mfrow = grDevices::n2mfrow(length(betas)))
    on.exit(graphics::par(op), add = TRUE)
  }
  n_groups <- group_counts(fit$path$group)
  for (i in seq_along(betas)) {
    main <- if (!is.null(dots$main)) dots$main else
      paste0(method_label(fit), if (length(betas) > 1L) paste0(": ", names(betas)[i]))
    # one colour per path (conventions.R), none repeated; `col` overrides
    col <- if (!is.null(dots$col)) dots$col else path_colours(nrow(betas[[i]]))
    named <- rownames(betas[[i]])[betas[[i]][, ncol(betas[[i]])] != 0]
    xlim <- if (!is.null(dots$xlim)) dots$xlim else if (labels) room_for_labels(range(at), named, log == "x") else
      range(at)
    args <- c(list(at, t(betas[[i]]), type = plot_type, log = log, xlab = xlab, ylab = ylab, main = "",
                   xlim = xlim, lty = 1, col = col, xaxt = if (log == "x") "n" else "s"),
              dots[setdiff(names(dots), c("main", "lty", "col", "xlim"))])
    if (!is.null(dots$lty)) args$lty <- dots$lty
    do.call(graphics::matplot, args)
    if (log == "x") log_cost_axis(min(at))
    group_axis(at, n_groups)
    graphics::title(main = main, line = 2.5)
    graphics::abline(h = 0, col = "grey70", lty = 3)
    if (labels) {
      label_steps(at[-1L], rep(graphics::par("usr")[3L], length(at) - 1L), fit$path$group[-1L])
      label_paths(at, betas[[i]], col)   # the paths named at their right end, as glmnet's label = TRUE
    }
  }
  invisible(if (is.list(fit$beta)) betas else betas[[1L]])
}
