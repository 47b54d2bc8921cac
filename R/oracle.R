#' The Oracle curve of a sequence
#'
#' The paper's approximation of the best achievable anytime performance (Hu et al. 2016, section 5.2,
#' after Karayev et al. 2012): given the anytime curve of a sequence, its groups are reordered by
#' decreasing marginal gain per unit cost, the marginal gains being assumed to stay the same after the
#' reordering. The gain of the group added at step `k` is `value_k - value_{k-1}` on the curve (for the
#' losses `"mse"` and `"logloss"`, the decrease `value_{k-1} - value_k`), divided by its cost `c(g_k)`.
#'
#' The Oracle is a curve, not a model: it has no coefficients and [predict()] does not apply. It plots
#' ([plot()]), scores ([timeliness()], [stop_cost()]) and compares ([compare_sequences()]) like a fit.
#'
#' @section Order, ties and non-positive gains:
#' Groups are taken by decreasing gain per unit cost; gains per cost within a relative `1e-10` of each
#' other are tied and keep their order in the source sequence. Groups of zero or negative gain (a test
#' curve can go down) are kept, not dropped, so the Oracle ends at the same cumulative cost and final
#' value as its source: they come last, zero gains before negative ones, the most harmful group last.
#' Sorting the segments by decreasing slope makes the Oracle's linearly interpolated curve concave and
#' on or above the source curve at every cost (for a loss, on or below), so its linear timeliness is at
#' least the source's at every stopping cost.
#'
#' @section Data the curve is measured on:
#' `oracle()` measures the gains on the curve of `object` given by `newx`/`newy`/`newdata` and `metric`
#' (default: the training `r2` of the path). [anytime_curve()], [plot()] and [timeliness()] of an
#' Oracle return that curve when called without new data and with the Oracle's metric; with new data
#' (or another metric) they re-derive the Oracle from the source fit's curve on those data, reordering
#' by the gains measured there. [stop_cost()] of an Oracle is the alpha-stopping cost of the Oracle of
#' the source's training `r2` curve.
#'
#' @inheritParams anytime_curve
#' @param object For `oracle()`: a fitted sequence, an object of class `"fgseq"` (from [fgseq()] or
#'   [sparse_sequence()]). For the methods: an `"fgseq_oracle"` object.
#' @param ... Not used: an unknown argument is an error.
#' @return An object of class `"fgseq_oracle"`, a list with
#' * `sequence`: character vector of length `K`, the group labels in the Oracle's order;
#' * `path`: data frame with `K + 1` rows (steps `0..K`) and columns `step`, `group` (NA at step 0),
#'   `group_cost`, `cost` (cumulative cost, cost units), `gain` (the metric change the group brought on
#'   the source curve, NA at step 0), `source_step` (its step in the source sequence, 0 at step 0) and
#'   `value` (the metric of the Oracle after step `k`, assuming fixed gains);
#' * `fit`: the source `"fgseq"` object; `metric`, `k`, `data` (`"training"` or `"test"`), `label`
#'   (`"Oracle (<method of the source>)"`), and the source's `cost`, `nobs`, `null_risk`.
#' @section Errors: `oracle()` stops when `object` is not an `"fgseq"` fit, and as [anytime_curve()] for
#'   the data, `metric`, `query` and `k`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Karayev, S., Baumgartner, T., Fritz, M. and Darrell, T. (2012). Timely object recognition.
#'   *Advances in Neural Information Processing Systems 25*.
#' @seealso [compare_sequences()], [anytime_curve()].
#' @examples
#' fr <- fgseq(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost, method = "fr")
#' or <- oracle(fr)
#' or
#' B <- stop_cost(fr, alpha = 0.97)
#' c(fr = timeliness(fr, stop_cost = B), oracle = timeliness(or, stop_cost = B))
#' plot(or, col = 2)
#' plot(fr, add = TRUE)
#' # the Oracle of the test curve
#' timeliness(oracle(fr, newdata = heart[201:303, ]), stop_cost = B)
#' @export
oracle <- function(object, newx = NULL, newy = NULL, newdata = NULL, metric = "r2", query = NULL, k = 5,
                   ...) {
  check_dots(...)
  object <- check_oracle_source(object)
  curve <- anytime_curve(object, newx, newy, metric = metric, query = query, k = k, newdata = newdata)
  path <- oracle_path(curve, object)
  structure(list(sequence = path$group[-1L], path = path, fit = object, metric = attr(curve, "metric"),
                 k = attr(curve, "k"), data = attr(curve, "data"),
                 label = paste0("Oracle (", method_label(object), ")"), cost = object$cost,
                 nobs = object$nobs, null_risk = object$null_risk),
            class = "fgseq_oracle")
}

# Reorder the steps of a curve (from anytime_curve() of `fit`) by decreasing gain per unit cost (a step
# of zero cost with a gain first). With measurements shared by groups, the costs of the reordered steps
# are the marginal costs in the new order (the gains are kept, as the paper's Oracle assumes); without
# shared measurements (or without `fit`) each step keeps its cost.
oracle_path <- function(curve, fit = NULL) {
  K <- nrow(curve) - 1L
  metric <- attr(curve, "metric")
  change <- diff(curve$value)
  gain <- if (metric_higher_better(metric)) change else -change
  step_cost <- diff(curve$cost)
  ord <- order_by_ratio(ifelse(step_cost > 0, gain / step_cost, ifelse(gain > 0, Inf, 0)))
  groups <- curve$group[-1L][ord]
  shared <- !is.null(fit) && anyDuplicated(unlist(fit$needs, use.names = FALSE)) > 0
  paid <- if (!is.null(fit)) as.character(fit$offset_needs)  # a formula's offset, paid at step 0
  shared <- shared || length(paid) > 0L
  group_cost <- if (shared) marginal_costs(groups, fit$needs, fit$measurement_cost, paid) else step_cost[ord]
  start <- curve$cost[1L]  # step 0's cost (the offset's measurements), 0 without them
  data.frame(step = 0:K, group = c(NA_character_, groups),
             group_cost = c(start, group_cost), cost = cumsum(c(start, group_cost)),
             gain = c(NA_real_, change[ord]), source_step = c(0L, as.integer(ord)),
             value = curve$value[1L] + cumsum(c(0, change[ord])), stringsAsFactors = FALSE)
}

# Indices of `ratio` by decreasing value; values within a relative 1e-10 of the largest remaining one
# are tied and taken in their original order.
order_by_ratio <- function(ratio) {
  left <- seq_along(ratio)
  out <- integer(0)
  while (length(left)) {
    r <- ratio[left]
    m <- max(r)
    pick <- left[which(if (is.infinite(m)) r == m else r >= m - 1e-10 * abs(m))[1L]]
    out <- c(out, pick)
    left <- left[left != pick]
  }
  out
}

# The Oracle's path as an anytime curve.
oracle_as_curve <- function(object) {
  p <- object$path
  new_curve(p$step, p$group, p$cost, p$value, object$metric, object$data, object$k)
}

#' @rdname oracle
#' @export
anytime_curve.fgseq_oracle <- function(object, newx = NULL, newy = NULL, newdata = NULL, metric = object$metric,
                                       query = NULL, k = object$k, ...) {
  check_dots(...)
  metric <- check_metric(metric)
  if (is.null(newx) && is.null(newdata) && is.null(newy) && metric == object$metric &&
      (metric != "ndcg" || identical(as.integer(k), as.integer(object$k)))) {
    return(oracle_as_curve(object))
  }
  curve <- anytime_curve(object$fit, newx, newy, metric = metric, query = query, k = k, newdata = newdata)
  p <- oracle_path(curve, object$fit)
  new_curve(p$step, p$group, p$cost, p$value, attr(curve, "metric"), attr(curve, "data"), attr(curve, "k"))
}

#' @rdname oracle
#' @param alpha Number in `(0, 1]`, for the alpha-stopping cost.
#' @export
stop_cost.fgseq_oracle <- function(object, alpha = 0.97, ...) {
  check_dots(...)
  alpha <- check_alpha(alpha)
  path <- if (object$metric == "r2" && object$data == "training") object$path else
    oracle_path(anytime_curve(object$fit, metric = "r2"), object$fit)
  final <- path$value[nrow(path)]
  path$cost[which(path$value >= alpha * final - 1e-12 * abs(final))[1L]]
}

#' @rdname oracle
#' @param stop_cost,interpolation As for [timeliness()].
#' @export
timeliness.fgseq_oracle <- function(object, alpha = 0.97, newx = NULL, newy = NULL, newdata = NULL,
                                    metric = object$metric, query = NULL, k = object$k,
                                    interpolation = c("linear", "step"), ..., stop_cost = NULL) {
  check_dots(...)
  interpolation <- check_interpolation(interpolation)
  if (is.null(stop_cost)) stop_cost <- stop_cost.fgseq_oracle(object, alpha)
  curve <- anytime_curve(object, newx, newy, metric = metric, query = query, k = k, newdata = newdata)
  curve_timeliness(curve$cost, curve$value, stop_cost, interpolation)
}

#' @rdname oracle
#' @param x An `"fgseq_oracle"` object.
#' @param add,xlab,ylab,plot_type,type,labels As for [plot.fgseq()].
#' @param log `""` or `"x"`: a log scale for the cost axis, as for [plot.fgseq()].
#' @param cost_unit `NULL` or a character string, the unit of costs in the axis label (default: that of
#'   the reordered fit).
#' @export
plot.fgseq_oracle <- function(x, newx = NULL, newy = NULL, newdata = NULL, metric = x$metric, query = NULL,
                              k = x$k, add = FALSE, log = "", cost_unit = x$fit$cost_unit, xlab = NULL,
                              ylab = NULL, plot_type = "s", ..., labels = FALSE, type) {
  check_dots(..., graphics = TRUE)
  if (!missing(type)) plot_type <- renamed_argument(type, "type", "plot_type", missing(plot_type))
  curve <- anytime_curve(x, newx, newy, metric = metric, query = query, k = k, newdata = newdata)
  draw_curve(curve, add = add, log = log, cost_unit = cost_unit, labels = labels, xlab = xlab, ylab = ylab,
             plot_type = plot_type, default_main = x$label, ...)
}

#' @rdname oracle
#' @param digits Number of significant digits.
#' @export
print.fgseq_oracle <- function(x, digits = 4, ...) {
  check_dots(...)
  cat(x$label, ": ", length(x$sequence), " groups reordered by gain per unit cost on the ", x$data, " ",
      metric_label(x$metric, x$k), " curve (gains taken as fixed)\n\n", sep = "")
  tab <- x$path[, c("step", "group", "group_cost", "cost", "source_step", "value")]
  tab$group[1L] <- "(intercept only)"
  tab$group_cost <- signif(tab$group_cost, digits)
  tab$cost <- signif(tab$cost, digits)
  tab$value <- round(tab$value, digits)
  names(tab)[6L] <- x$metric
  print(tab, row.names = FALSE, right = FALSE)
  invisible(x)
}

check_oracle_source <- function(object) {
  if (!inherits(object, "fgseq")) {
    abort("`object` must be a fitted sequence (class \"fgseq\"), as returned by fgseq() or ",
          "sparse_sequence().")
  }
  object
}
