#' Compare the anytime curves of several sequences
#'
#' Scores several fitted sequences on the same data with one stopping cost, as the paper does (Hu et
#' al. 2016, section 5.2): the alpha-stopping cost `B` is computed once, from the TRAINING `r2` curve
#' of the first (reference) fit, `stop_cost(fits[[1]], alpha)` (the paper's reference is CS-G-OMP),
#' and every curve's timeliness is measured up to that `B`, with both interpolations.
#'
#' @inheritParams anytime_curve
#' @param fits A list of fitted sequences: objects of class `"fgseq"` ([fgseq()],
#'   [sparse_sequence()]), `"miser"` ([miser()]: one point per boosting iteration, on the same cost
#'   axis) or `"fgseq_oracle"` ([oracle()]), all trained on the same data (the same rows and response;
#'   fits of different families are compared when the response has the same mean). The first is
#'   the reference for the stopping cost. Names label the methods (unnamed ones are labelled by their
#'   method, e.g. `"CS-G-OMP"`; repeated labels get a suffix).
#' @param alpha Number in `(0, 1]`: the fraction of the reference's final training `r2` that defines
#'   the stopping cost.
#' @param stop_cost `NULL` (the alpha-stopping cost of the reference) or a positive number in cost
#'   units. It must reach at least the first group of one of the sequences. Given by its full name only
#'   (it follows `...`: a stray `s =` is an unknown argument, not the stopping cost).
#' @param ... Not used: an unknown argument is an error.
#' @return An object of class `"fgseq_comparison"`, a list with
#' * `table`: data frame with one row per fit and columns `method`, `linear` and `step` (timeliness up
#'   to `stop_cost` with linear and step interpolation), `value_at_stop` (the step curve's value at
#'   `stop_cost`: what a predictor interrupted there delivers), `final` (the value after the last
#'   step) and `total_cost` (cost units);
#' * `curves`: named list of the curves of [anytime_curve()], one per fit;
#' * `stop_cost` (cost units), `alpha` (NA when `stop_cost` was given), `reference` (the label of the
#'   first fit), `metric`, `k`, `data` (`"training"` or `"test"`) and `cost_unit` (that of the first fit
#'   with one, or `NULL`).
#'
#' `print()` shows the table; `plot()` overlays the curves (step curves by default) with a legend and
#' marks the stopping cost by a vertical line.
#' @section Errors: Stops when `fits` is not a non-empty list of fitted sequences; when the fits were
#'   not trained on the same data (their number of observations, training mean of `y` or `R(empty)`
#'   differ); when `alpha` is not in `(0, 1]`; when `stop_cost` is not a positive number or is below
#'   the first group's cost of every sequence (nothing would be compared but intercept-only models);
#'   and as [anytime_curve()] for the test data, `metric`, `query` and `k`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @seealso [timeliness()], [stop_cost()], [oracle()], [sparse_sequence()].
#' @examples
#' train <- heart[1:200, ]
#' test <- heart[201:303, ]
#' omp <- fgseq(diagnosis ~ ., data = train, cost = heart_cost)
#' fr <- fgseq(diagnosis ~ ., data = train, cost = heart_cost, method = "fr")
#' blind <- fgseq(diagnosis ~ ., data = train, cost = heart_cost, cost_sensitive = FALSE)
#' cmp <- compare_sequences(list(omp, fr, "G-OMP" = blind, oracle(fr)), newdata = test)
#' cmp
#' plot(cmp)
#' compare_sequences(list(omp, fr), newdata = test, metric = "accuracy")
#' @export
compare_sequences <- function(fits, newx = NULL, newy = NULL, newdata = NULL, metric = "r2", query = NULL, k = 5,
                              alpha = 0.97, ..., stop_cost = NULL) {
  check_dots(...)
  fits <- check_fits(fits, function(f) if (inherits(f, "fgseq_oracle")) f$label else method_label(f))
  alpha <- check_alpha(alpha)
  metric <- check_metric(metric)
  check_same_data(fits)
  if (is.null(stop_cost)) {
    B <- stop_cost(fits[[1L]], alpha = alpha)
    if (B == 0) {
      abort("the first of `fits` (", names(fits)[1L], ") has an empty sequence (stopped by `max_cost` or ",
            "`max_time` before its first group), so its stopping cost is 0: give `stop_cost`, or put a fit ",
            "with at least one group first.")
    }
  } else {
    B <- check_number(stop_cost, "stop_cost", lower = 0, lower_open = TRUE)
    alpha <- NA_real_
  }
  check_stop_cost_reach(B, fits)
  curves <- lapply(fits, anytime_curve, newx = newx, newy = newy, metric = metric, query = query, k = k,
                   newdata = newdata)
  table <- data.frame(
    method = names(fits),
    linear = vapply(curves, function(cv) curve_timeliness(cv$cost, cv$value, B, "linear"), numeric(1)),
    step = vapply(curves, function(cv) curve_timeliness(cv$cost, cv$value, B, "step"), numeric(1)),
    value_at_stop = vapply(curves, function(cv) cv$value[findInterval(B, cv$cost * (1 - 1e-12))],
                           numeric(1)),
    final = vapply(curves, function(cv) cv$value[nrow(cv)], numeric(1)),
    total_cost = vapply(curves, function(cv) cv$cost[nrow(cv)], numeric(1)),
    row.names = NULL, stringsAsFactors = FALSE)
  units <- unlist(lapply(fits, function(f) if (inherits(f, "fgseq_oracle")) f$fit$cost_unit else f$cost_unit))
  structure(list(table = table, curves = curves, stop_cost = B, alpha = alpha, reference = names(fits)[1L],
                 metric = metric, k = attr(curves[[1L]], "k"), data = attr(curves[[1L]], "data"),
                 cost_unit = if (length(units)) units[[1L]]),
            class = "fgseq_comparison")
}

#' @rdname compare_sequences
#' @param x An `"fgseq_comparison"` object.
#' @param digits Number of significant digits.
#' @export
print.fgseq_comparison <- function(x, digits = 4, ...) {
  check_dots(...)
  how <- if (is.na(x$alpha)) "given" else paste0("alpha = ", format(x$alpha), " of the training r2 of ",
                                                  x$reference)
  cat("Timeliness of ", nrow(x$table), " sequences, ", x$data, " ", metric_label(x$metric, x$k),
      ", up to the stopping cost ", format(x$stop_cost, digits = digits), " (", how, ")\n", sep = "")
  if (!metric_higher_better(x$metric)) cat("(a loss: smaller is better)\n")
  cat("\n")
  print(format(x$table, digits = digits), row.names = FALSE)
  invisible(x)
}

#' @rdname compare_sequences
#' @param col,lty Colours and line types, recycled over the fits.
#' @param plot_type The plot type of the curves, passed as `type` to [graphics::lines()]: `"s"` (steps)
#'   or `"l"` (linear).
#' @param type Deprecated name of `plot_type` (a warning of class `fgseq_warning_deprecated`).
#' @param legend Position of the legend (see [graphics::legend()]), or `NULL` for none.
#' @param xlim,ylim,xlab,ylab,main Plot limits and labels; `xlim = NULL` spans up to the stopping cost
#'   and the end of the reference curve; `xlab = NULL` is `"cumulative cost"` with `cost_unit` in
#'   brackets. `main` is matched by its full name only (it follows `...`, so that the graphical
#'   parameter `mai` is not taken for it).
#' @param log `""` or `"x"`: a log scale for the cost axis, as for [plot.fgseq()]: step 0 (cost 0) is
#'   drawn at the left edge, half the smallest positive cost of the curves (or `xlim[1]`), labelled `0`.
#' @param cost_unit `NULL` or a character string, the unit of costs added to the axis label (default:
#'   the `cost_unit` of the first fit that has one).
#' @return `plot()`: `x`, invisibly. It stops when `log` is not `""` or `"x"` and when `cost_unit` is not
#'   `NULL` or a single string (class `fgseq_error_input`); `xlog = TRUE` is an unknown argument (give
#'   `log = "x"`).
#' @export
plot.fgseq_comparison <- function(x, col = seq_along(x$curves), lty = 1, plot_type = "s",
                                  legend = "bottomright", xlim = NULL, ylim = NULL, xlab = NULL,
                                  ylab = NULL, log = "", cost_unit = x$cost_unit, ..., main = NULL, type) {
  check_dots(..., graphics = TRUE)
  if (!missing(type)) plot_type <- renamed_argument(type, "type", "plot_type", missing(plot_type))
  log <- check_choice(log, c("", "x"), "log")
  if (is.null(xlab)) xlab <- cost_axis_label("cumulative cost", cost_unit)
  curves <- x$curves
  m <- length(curves)
  col <- rep_len(col, m)
  lty <- rep_len(lty, m)
  # on a log axis cost 0 sits at `left`: xlim[1] when given, else half the smallest positive cost
  left <- if (log == "x") {
    if (!is.null(xlim)) xlim[1L] else min(zero_at_left(c(0, unlist(lapply(curves, `[[`, "cost"))), 0.5))
  }
  at <- function(cost) if (log == "x") zero_at_left(cost, 0.5, left) else cost
  if (is.null(xlim)) xlim <- at(c(0, max(x$stop_cost, curves[[1L]]$cost)))
  if (is.null(ylim)) {
    vals <- unlist(lapply(curves, `[[`, "value"))
    ylim <- if (x$metric == "r2") range(0, vals) else range(vals)
  }
  if (is.null(ylab)) ylab <- paste(x$data, metric_label(x$metric, x$k))
  if (is.null(main)) main <- "Anytime curves"
  graphics::plot(NA, xlim = xlim, ylim = ylim, log = log, xlab = xlab, ylab = ylab, main = main,
                 xaxt = if (log == "x") "n" else "s")
  if (log == "x") log_cost_axis(left)
  for (i in seq_len(m)) {
    graphics::lines(at(curves[[i]]$cost), curves[[i]]$value, type = plot_type, col = col[i], lty = lty[i], ...)
  }
  graphics::abline(v = x$stop_cost, lty = 3, col = "grey40")
  if (!is.null(legend)) {
    graphics::legend(legend, legend = c(names(curves), "stopping cost"), col = c(col, "grey40"),
                     lty = c(lty, 3), bty = "n", cex = 0.8)
  }
  invisible(x)
}

# fits for compare_sequences(): a non-empty list of anytime fits ("fgseq", "miser") or "fgseq_oracle"
# objects; named by method.
check_fits <- function(fits, label) {
  ok_one <- function(f) inherits(f, "anytime_fit") || inherits(f, "fgseq_oracle")
  if (!is.list(fits) || ok_one(fits) || !length(fits) || !all(vapply(fits, ok_one, logical(1)))) {
    abort("`fits` must be a non-empty list of fitted sequences (objects of class \"fgseq\", \"miser\" or ",
          "\"fgseq_oracle\"), as in list(omp = fit1, fr = fit2).")
  }
  nm <- names(fits)
  if (is.null(nm)) nm <- rep("", length(fits))
  nm[!nzchar(nm)] <- vapply(fits[!nzchar(nm)], label, character(1))
  names(fits) <- make.unique(nm, sep = " #")
  fits
}

# Curves are only comparable on the same data: same number of observations and the same response
# (fingerprint: nobs, the training mean of the response on the response scale, i.e. the step-0
# prediction, and, between fits of the same family, R(empty): the variance / 2 for Gaussian fits).
check_same_data <- function(fits) {
  src <- lapply(fits, function(f) if (inherits(f, "fgseq_oracle")) f$fit else f)
  same <- function(a, b) {
    is.null(a) || is.null(b) || (length(a) == length(b) && all(abs(a - b) <= 1e-8 * pmax(abs(a), abs(b), 1e-300)))
  }
  family <- function(f) family_def(f$family)$name
  ref <- src[[1L]]
  for (i in seq_along(src)[-1L]) {
    f <- src[[i]]
    why <- if (!identical(as.numeric(f$nobs), as.numeric(ref$nobs))) {
      paste0("it has ", f$nobs, " observations, the first has ", ref$nobs)
    } else if (!same(response_mean(f), response_mean(ref)) ||
               (family(f) == family(ref) && !same(f$null_risk, ref$null_risk))) {
      "its response has another mean or variance than the first's"
    }
    if (!is.null(why)) {
      abort("all `fits` must be trained on the same data (same rows and response): fit ", i, " (",
            names(fits)[i], ") differs from fit 1 (", names(fits)[1L], "): ", why, ".")
    }
  }
  invisible(fits)
}

# The training mean of the response of a fit, on the response scale (the step-0 prediction; class
# frequencies for multinomial fits); NULL when an offset makes it unknown.
response_mean <- function(f) {
  if (!is.null(f$y_mean)) return(unname(f$y_mean))
  if (isTRUE(f$has_offset)) return(NULL)
  a <- if (is.matrix(f$a0)) f$a0[, 1L] else f$a0[1L]
  as.double(family_def(f$family)$inverse(matrix(unname(a), 1L)))
}

# A stopping cost below the first group of every sequence leaves only intercept-only models to compare.
# (The first positive cumulative cost: the first steps of a boosted fit may use no feature.)
check_stop_cost_reach <- function(stop_cost, fits) {
  first <- vapply(fits, function(f) {
    paid <- f$path$cost[f$path$cost > 0]
    if (length(paid)) paid[1L] else Inf
  }, numeric(1))
  if (stop_cost < min(first) * (1 - 1e-12)) {
    abort("`stop_cost` (", format(stop_cost), ") is below the cost of the first group of every sequence ",
          "(the cheapest first group costs ", format(min(first)), "): no sequence has computed a group by ",
          "then. Give a larger `stop_cost`.")
  }
  stop_cost
}
