#' The anytime curve of a fitted sequence: a metric against cumulative cost
#'
#' The performance of the model after each step `k = 0..K` of the sequence against the cumulative cost
#' `C_k` of its groups: the curve behind the paper's figures and its timeliness (Hu et al. 2016,
#' section 5.2). Without test data it is the training `r2` of the path (`F / R(empty)`); with test data
#' (`newx` and `newy`, or `newdata` for formula fits) every step predicts the test rows and `metric` is
#' computed from those predictions.
#'
#' @section Metrics:
#' Predictions are on the response scale: `predict(object, newx, step = k)` for Gaussian fits (a linear
#' probability model for 0/1 responses), `predict(..., type = "response")` (probabilities, means) for
#' other families.
#' * `"r2"`: `1 - SSE_k / SSE_0`, `SSE_0` the squared error of the step-0 (intercept-only) model, as in
#'   the paper (for mgaussian fits, summed over the response columns); for binomial, Poisson and
#'   multinomial fits the fraction of deviance explained, `1 - dev_k / dev_0`.
#' * `"mse"`: mean squared error (over all entries for mgaussian fits; for class probabilities, the
#'   multi-class Brier score). A loss: smaller is better, also for its timeliness.
#' * `"accuracy"`: fraction of correct classes. For a 0/1, logical or two-level factor response
#'   (its second level is class 1) a prediction above 0.5 is class 1; for a factor of more levels the
#'   fit must predict one probability per class (an `n x L` matrix) and the class of largest
#'   probability is taken (the first on ties).
#' * `"ndcg"`: NDCG@`k` within each query given by `query`, averaged over queries (as on Yahoo! LTR in
#'   the paper). Documents are ranked by decreasing prediction, ties broken by their original order
#'   (so the intercept-only model of step 0 keeps the given order); gains `2^rel - 1`, discounts
#'   `1 / log2(rank + 1)`, normalized by the DCG@`k` of the ideal order (`k` larger than a query's size
#'   means its whole list). Queries whose documents all have grade 0 are left out of the average.
#' * `"logloss"`: mean negative log-likelihood of a 0/1 response, the predictions clipped to
#'   `[1e-15, 1 - 1e-15]` (a Gaussian fit's predictions can leave `[0, 1]`). A loss.
#' * `"auc"`: area under the ROC curve by the rank (Mann-Whitney) formula, ties counting one half; the
#'   step-0 model scores 0.5.
#'
#' @inheritParams fgseq-arguments
#' @param object An anytime fit (class `"anytime_fit"`): a fitted sequence of class `"fgseq"`
#'   ([fgseq()], [sparse_sequence()]) or a Greedy Miser fit of class `"miser"` ([miser()], whose steps
#'   are boosting iterations); or an `"fgseq_oracle"` ([oracle()]).
#' @param metric One of `"r2"`, `"mse"`, `"accuracy"`, `"ndcg"`, `"logloss"`, `"auc"`. Without test
#'   data only `"r2"` (the training curve).
#' @param query For `metric = "ndcg"`: a vector of query ids, one per row of `newx` (every query with at
#'   least two documents).
#' @param k Whole number `>= 1`: the depth of NDCG@`k`.
#' @param newy Response for `newx`, one value per row: numeric for `"r2"` and `"mse"` (a numeric matrix,
#'   one column per response, for mgaussian fits; a factor for multinomial fits); 0/1, logical or a
#'   factor for `"accuracy"`; 0/1, logical or a two-level factor for `"logloss"` and `"auc"`;
#'   non-negative relevance grades for `"ndcg"`.
#' @param newoffset For a fit with an offset and test data in `newx`: the offset of the new rows, as for
#'   [predict.fgseq()] (a formula fit takes it from `newdata`).
#' @param weights `NULL` or a numeric vector of non-negative weights, one per test row: the metric is
#'   then weighted (weighted sums of squares or deviances for `"r2"`, weighted means for `"mse"`,
#'   `"accuracy"` and `"logloss"`, each pair of classes weighted by the product of its weights for
#'   `"auc"`; not for `"ndcg"`). Only with test data.
#' @param ... Not used (an unknown argument is an error).
#' @return A data frame with one row per step `k = 0..K` and columns `step`, `group` (the group added
#'   at that step, NA at step 0), `cost` (cumulative cost `C_k`, in the cost units of the fit) and
#'   `value` (the metric of the model after step `k`). Attributes `metric` and `data` (`"training"` or
#'   `"test"`).
#' @section Errors: Stops when `metric` is unknown; when a metric other than `"r2"` is asked without test
#'   data; when `newy` is missing, has the wrong length, holds NA, NaN or Inf or has the wrong type for
#'   the metric (for example non-binary values for `"auc"`, negative grades for `"ndcg"`); when
#'   `"accuracy"` is asked for a factor of more than two levels of a fit that predicts one number per
#'   row; when `"auc"` sees a single class; when `"ndcg"` has no `query`, a `query` of the wrong length
#'   or with NA, a query of a single document, no document of positive grade, or a `k` that is not a
#'   whole number `>= 1`; when `weights` are not non-negative numbers, one per test row, or come with
#'   `"ndcg"`; and as [predict.fgseq()] for `newx`/`newdata`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Jarvelin, K. and Kekalainen, J. (2002). Cumulated gain-based evaluation of IR techniques. *ACM
#'   Transactions on Information Systems* 20(4), 422-446. \doi{10.1145/582415.582418}
#' @seealso [timeliness()], [plot.fgseq()], [compare_sequences()], [oracle()].
#' @examples
#' train <- heart[1:200, ]
#' test <- heart[201:303, ]
#' fit <- fgseq(diagnosis ~ ., data = train, cost = heart_cost)
#' anytime_curve(fit)                                         # training r2
#' anytime_curve(fit, newdata = test, metric = "accuracy")    # test accuracy at each step
#' anytime_curve(fit, newdata = test, metric = "auc")
#'
#' # ranking: NDCG@5 within queries
#' set.seed(1)
#' x <- matrix(rnorm(300 * 4), 300, 4)
#' rel <- pmin(pmax(round(x[, 1] + 0.5 * x[, 2] + rnorm(300, sd = 0.5)), 0), 4)
#' rank_fit <- fgseq(x[1:200, ], rel[1:200], cost = c(1, 2, 4, 8))
#' anytime_curve(rank_fit, x[201:300, ], rel[201:300], metric = "ndcg",
#'               query = rep(1:10, each = 10), k = 5)
#' @export
anytime_curve <- function(object, ...) UseMethod("anytime_curve")

#' @rdname anytime_curve
#' @export
anytime_curve.anytime_fit <- function(object, newx = NULL, newy = NULL, newdata = NULL, metric = "r2", query = NULL,
                                      k = 5, newoffset = NULL, weights = NULL, ...) {
  validate_fit(object)
  check_dots(...)
  metric <- check_metric(metric)
  path <- object$path
  if (is.null(newx) && is.null(newdata)) {
    if (!is.null(newy)) abort("give `newx` (or `newdata`) with `newy`.")
    if (!is.null(weights)) abort("`weights` weigh test rows: give them with `newx` and `newy` (or `newdata`).")
    if (metric != "r2") {
      abort("metric \"", metric, "\" needs test data: give `newx` and `newy` (or `newdata`); without them ",
            "the curve is the training r2 of the path.")
    }
    value <- path$r2
    data <- "training"
  } else {
    if (metric == "ndcg") k <- check_k(k)
    d <- new_design(object, newx, newdata)
    x <- d$x
    y <- curve_response(object, newy, newdata, nrow(x), metric)
    if (metric == "ndcg") {
      query <- check_query(query, nrow(x))
      check_ndcg_relevance(y, query)
    }
    if (metric == "auc") check_two_classes(y, metric)
    if (!is.null(weights)) {
      if (metric == "ndcg") abort("`weights` cannot be used with metric = \"ndcg\".", class = "input")
      weights <- check_weights(weights, nrow(x))
    }
    value <- metric_values(metric, y, step_predictions(object, x, if (is.null(d$offset)) newoffset else d$offset),
                           object$family, query, k, weights)
    data <- "test"
  }
  new_curve(path$step, path$group, path$cost, value, metric, data, k)
}

new_curve <- function(step, group, cost, value, metric, data, k = 5) {
  structure(data.frame(step = step, group = group, cost = cost, value = unname(value),
                       stringsAsFactors = FALSE),
            metric = metric, data = data, k = k)
}

# Draw an anytime curve (a data frame from anytime_curve()) as plot.fgseq() does; returns the curve
# with its value column named after the metric, invisibly. `default_main` is the title unless `...`
# holds `main`. With add = TRUE the curve goes on the current axes, which base graphics cannot rescale:
# a curve reaching outside them is clipped, and a warning says so.
draw_curve <- function(curve, add = FALSE, log = "", cost_unit = NULL, labels = FALSE, xlab = NULL, ylab = NULL,
                       plot_type = "s", default_main = NULL, ...) {
  log <- check_choice(log, c("", "x"), "log")
  labels <- check_flag(labels, "labels")
  metric <- attr(curve, "metric")
  if (is.null(ylab)) ylab <- paste(attr(curve, "data"), metric_label(metric, attr(curve, "k")))
  if (is.null(xlab)) xlab <- cost_axis_label("cumulative cost", cost_unit)
  dots <- list(...)
  if (!add) {
    xlim <- if (is.null(dots$xlim)) range(cost_at(curve$cost, log == "x")) else dots$xlim
    ylim <- if (!is.null(dots$ylim)) dots$ylim else if (metric == "r2") range(0, curve$value) else
      range(curve$value)
    main <- if (is.null(dots$main)) default_main else dots$main
    graphics::plot(NA, xlim = xlim, ylim = ylim, log = log, xlab = xlab, ylab = ylab, main = "",
                   xaxt = if (log == "x") "n" else "s")
    if (log == "x") log_cost_axis(plot_left())
    # the number of groups at each step on the top axis, as plot.glmnet() draws its degrees of freedom
    group_axis(cost_at(curve$cost, log == "x", left = plot_left()), group_counts(curve$group))
    graphics::title(main = main, line = 2.5)
  }
  # on a log axis cost 0 sits at the left end of the x range, as plot_left() recovers it
  at <- cost_at(curve$cost, graphics::par("xlog"), left = plot_left())
  if (add) check_within_axes(at, curve$value)
  args <- dots
  args[c("xlim", "ylim", "main")] <- NULL
  do.call(graphics::lines, c(list(at, curve$value, type = plot_type), args))
  K <- nrow(curve)
  if (labels && K > 1L) label_steps(at[-1L], pmax(curve$value[-1L], curve$value[-K]), curve$group[-1L])
  out <- data.frame(step = curve$step, group = curve$group, cost = curve$cost, value = curve$value,
                    stringsAsFactors = FALSE)
  names(out)[4L] <- metric
  invisible(out)
}

# Positions of cumulative costs on the x axis: the costs themselves, or on a log axis with cost 0 (step
# 0) moved to `left` (by default half the first positive cost), where the plot begins.
cost_at <- function(cost, log_axis, left = NULL) {
  if (!log_axis) return(cost)
  zero_at_left(cost, 0.5, left)
}

# `v` with its zeros replaced by `left`, or by `frac` times its smallest positive value (1 if none):
# where a log axis can show them.
zero_at_left <- function(v, frac, left = NULL) {
  if (is.null(left)) {
    pos <- v[v > 0]
    left <- if (length(pos)) frac * min(pos) else 1
  }
  v[v <= 0] <- left
  v
}

# The x axis of a log cost plot: the usual ticks above the first positive cost, and "0" at `left`, where
# cost 0 (step 0) is drawn.
log_cost_axis <- function(left) {
  ticks <- graphics::axTicks(1L)
  graphics::axis(1L, at = ticks[ticks > left * 1.5])
  graphics::axis(1L, at = left, labels = "0")
}

# The left end of the current plot's x range as given to plot() (the 4% that R adds on each side taken
# off again, for the default xaxs = "r"), in data units: where an earlier log plot drew cost 0.
plot_left <- function() {
  usr <- graphics::par("usr")[1:2]
  u <- if (graphics::par("xaxs") == "r") usr[1L] + diff(usr) * 0.04 / 1.08 else usr[1L]
  if (graphics::par("xlog")) 10^u else u
}

# An axis label with the cost unit in brackets, when one is known.
cost_axis_label <- function(label, cost_unit = NULL) {
  if (is.null(check_cost_unit(cost_unit))) return(label)
  paste0(label, " (", cost_unit, ")")
}

# Warn when points (in the axis units of the current plot) fall outside its axes: add = TRUE does not
# rescale them.
check_within_axes <- function(x, y) {
  usr <- graphics::par("usr")
  xr <- if (graphics::par("xlog")) 10^usr[1:2] else usr[1:2]
  yr <- if (graphics::par("ylog")) 10^usr[3:4] else usr[3:4]
  tol <- 1e-9 * c(diff(xr), diff(yr))
  if (any(x < xr[1L] - tol[1L] | x > xr[2L] + tol[1L] | y < yr[1L] - tol[2L] | y > yr[2L] + tol[2L])) {
    warn("`add = TRUE` draws on the current axes and does not rescale them: part of this curve lies ",
         "outside them and is clipped. Give `xlim` and `ylim` that hold every curve to the first plot().",
         class = "plot_range")
  }
  invisible(NULL)
}

# The top axis of a cost plot: the number of groups computed at each step, at the step's position `at`
# (as plot.glmnet() shows the degrees of freedom; axis() leaves out labels that would overlap).
group_axis <- function(at, n_groups) {
  first <- !duplicated(n_groups)
  graphics::axis(3L, at = at[first], labels = n_groups[first], tick = FALSE, line = -0.5, cex.axis = 0.8)
  graphics::mtext("groups", side = 3L, line = 1.1, adj = 1, cex = 0.7)
}

# The number of groups paid by each step, from a path's `group` column (NA at a step that pays none;
# a boosted step may pay several, listed as "a, b").
group_counts <- function(group) {
  cumsum(vapply(group, function(g) if (is.na(g) || !nzchar(g)) 0L else length(strsplit(g, ", ", fixed = TRUE)[[1L]]),
                integer(1), USE.NAMES = FALSE))
}

# Group labels written upwards from the points (x, y) of the steps that added them; a label that would
# overlap the one before it (steps closer than a line of text) is moved right just enough, a label moved
# beyond the right border is left out, and a label that would cross the top border starts low enough to
# end below it. Returns the labels drawn and where, invisibly.
label_steps <- function(x, y, groups, cex = 0.7) {
  xlog <- graphics::par("xlog")
  usr <- graphics::par("usr")
  pin <- graphics::par("pin")
  u <- if (xlog) log10(x) else x
  width <- graphics::par("cin")[2L] * cex * diff(usr[1:2]) / pin[1L]
  for (i in seq_along(u)[-1L]) u[i] <- max(u[i], u[i - 1L] + width)
  keep <- !is.na(groups) & u <= usr[2L] - width / 2
  # written upwards, a label's length is its height: it starts 0.15 of it above the point (adj = -0.15)
  len <- graphics::strwidth(groups, units = "inches", cex = cex) * diff(usr[3:4]) / pin[2L]
  y <- pmax(pmin(y, usr[4L] - 1.2 * len), usr[3L])
  at <- if (xlog) 10^u else u
  if (any(keep)) {
    graphics::text(at[keep], y[keep], labels = groups[keep], srt = 90, adj = c(-0.15, 0.5), cex = cex, xpd = NA)
  }
  invisible(data.frame(x = at[keep], y = y[keep], label = groups[keep], stringsAsFactors = FALSE))
}
