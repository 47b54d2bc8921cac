#' Alpha-stopping cost of a fitted sequence
#'
#' The smallest cumulative cost at which the training curve reaches `alpha` times its final objective
#' (Hu et al. 2016, section 5.2). To compare methods, compute it once from a reference fit (the paper
#' uses CS-G-OMP) and pass it to [timeliness()] of every fit.
#'
#' @inheritParams fgseq-arguments
#' @param object An anytime fit: an `"fgseq"` fit ([fgseq()], [sparse_sequence()]) or a `"miser"` fit
#'   ([miser()]); for an `"fgseq_oracle"` see [oracle()].
#' @return A single number in cost units: the smallest `C_k` with `r2_k >= alpha * r2_K`.
#' @section Errors: Stops when `alpha` is not a single number in `(0, 1]`; on an object that is not as [fgseq()] or [miser()] made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field).
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' stop_cost(fit, alpha = 0.97)
#' @export
stop_cost <- function(object, alpha = 0.97, ...) UseMethod("stop_cost")

#' @rdname stop_cost
#' @export
stop_cost.anytime_fit <- function(object, alpha = 0.97, ...) {
  validate_fit(object)
  check_dots(...)
  alpha <- check_alpha(alpha)
  path <- object$path
  final <- path$r2[nrow(path)]
  path$cost[which(path$r2 >= alpha * final - 1e-12 * abs(final))[1L]]
}

#' Timeliness of a fitted sequence
#'
#' The normalized area under the anytime curve of `r2` against cumulative cost up to a stopping cost
#' `B` (Hu et al. 2016, section 5.2, after Karayev et al. 2012):
#' \deqn{\mathrm{timeliness} = \frac{1}{B}\int_0^B f(c)\,dc,}{timeliness = (1/B) integral_0^B f(c) dc,}
#' with `f` through the points `(C_k, r2_k)`, `C_0 = 0`, `r2_0 = 0`: their linear interpolation
#' (`interpolation = "linear"`, the paper's choice) or the step function `f(c) = r2_k` on
#' `[C_k, C_{k+1})` (`"step"`, what an interrupted predictor delivers); beyond `C_K`, `f = r2_K`.
#' When step 0 itself costs `C_0 > 0` (a formula's offset reads priced variables, see [fgseq()]),
#' nothing is predicted below it: `f = 0` on `[0, C_0)`.
#'
#' With `metric` other than `"r2"` the curve is that test metric of [anytime_curve()] (its value at
#' step 0 is the intercept-only model's, not 0); the stopping cost stays the one of the TRAINING `r2`.
#' For the losses `"mse"` and `"logloss"` a smaller timeliness is better.
#'
#' @inheritParams fgseq-arguments
#' @inheritParams anytime_curve
#' @param object An anytime fit: an `"fgseq"` fit ([fgseq()], [sparse_sequence()]) or a `"miser"` fit
#'   ([miser()]); for an `"fgseq_oracle"` see [oracle()].
#' @param stop_cost Positive number (cost units), the stopping cost `B`. `NULL` means the
#'   alpha-stopping cost of `object` itself, [stop_cost()]`(object, alpha)`. Any positive `B` is
#'   accepted, also one below the first group's cost (the curve is then integrated over its first
#'   segment only); [compare_sequences()] refuses a `B` below the first group of every sequence. An
#'   empty sequence (a fit stopped by `max_cost` or `max_time` before its first group) has stopping
#'   cost 0; with `stop_cost = NULL` its timeliness is the curve's value at cost 0 (the limit of the
#'   average as `B` goes to 0): 0 for `r2`. Given by its full name only (it follows `...`: a stray
#'   `s =` is an unknown argument, not the stopping cost).
#' @param interpolation `"linear"` or `"step"`.
#' @return A single number: the timeliness, in the units of the metric (for `r2`, at most the largest
#'   `r2` reached). On test data (`newx`/`newy` or `newdata`), `r2_k = 1 - SSE_k / SSE_0`.
#' @section Errors: Stops when `alpha` is not in `(0, 1]`, when `stop_cost` is not a positive number,
#'   as [anytime_curve()] for `metric`, `query` and `k`, and as [predict.fgseq()] for the test data.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Karayev, S., Baumgartner, T., Fritz, M. and Darrell, T. (2012). Timely object recognition.
#'   *Advances in Neural Information Processing Systems 25*.
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost)
#' B <- stop_cost(fit, alpha = 0.97)
#' timeliness(fit, stop_cost = B)
#' timeliness(fit, stop_cost = B, newdata = heart[201:303, ], interpolation = "step")
#' @export
timeliness <- function(object, ...) UseMethod("timeliness")

#' @rdname timeliness
#' @export
timeliness.anytime_fit <- function(object, alpha = 0.97, newx = NULL, newy = NULL, newdata = NULL,
                                   metric = "r2", query = NULL, k = 5, interpolation = c("linear", "step"), ...,
                                   stop_cost = NULL) {
  validate_fit(object)
  check_dots(...)
  interpolation <- check_interpolation(interpolation)
  own <- is.null(stop_cost)
  if (own) stop_cost <- stop_cost(object, alpha)
  curve <- anytime_curve(object, newx, newy, metric = metric, query = query, k = k, newdata = newdata)
  # an empty sequence (stopped by max_cost or max_time before its first group) has stopping cost 0:
  # its timeliness is the limit of the average as B -> 0, the curve's value at cost 0 (0 for r2)
  if (own && stop_cost == 0) return(curve$value[1L])
  cost <- curve$cost
  value <- curve$value
  if (cost[1L] > 0) {
    # step 0 costs something (a formula's offset, paid at step 0): below its cost nothing is predicted,
    # the curve is 0 there
    cost <- c(0, cost[1L], cost)
    value <- c(0, 0, value)
  }
  curve_timeliness(cost, value, stop_cost, interpolation)
}

#' Timeliness of any anytime curve
#'
#' The area under a curve of a performance measure against cumulative cost, from 0 to `stop_cost`,
#' divided by `stop_cost`; see [timeliness()] for the definition.
#'
#' @param cost Numeric vector of cumulative costs `C_0 = 0 <= C_1 <= ... <= C_K` (cost units).
#' @param value Numeric vector of the measure at each cost (same length; `value[1]` is the value at
#'   cost 0).
#' @param stop_cost Positive number (cost units): the upper end `B` of the integral.
#' @param interpolation `"linear"` or `"step"`.
#' @return A single number.
#' @section Errors: Stops when `cost` and `value` differ in length, `cost` does not start at 0 or
#'   decreases, or `stop_cost` is not a positive number.
#' @examples
#' curve_timeliness(c(0, 1, 3), c(0, 0.5, 0.8), stop_cost = 4)
#' curve_timeliness(c(0, 1, 3), c(0, 0.5, 0.8), stop_cost = 4, interpolation = "step")
#' @export
curve_timeliness <- function(cost, value, stop_cost, interpolation = c("linear", "step")) {
  interpolation <- check_interpolation(interpolation)
  if (!is.numeric(cost) || !is.numeric(value) || length(cost) != length(value) || !length(cost)) {
    abort("`cost` and `value` must be numeric vectors of the same length.")
  }
  if (anyNA(cost) || anyNA(value) || cost[1L] != 0 || any(diff(cost) < 0)) {
    abort("`cost` must start at 0 and be non-decreasing, without NA.")
  }
  B <- check_number(stop_cost, "stop_cost", lower = 0, lower_open = TRUE)
  K <- length(cost)
  # append the flat tail beyond the last point, then integrate piece by piece up to B
  c_end <- c(cost[-1L], max(B, cost[K]))
  v_end <- if (interpolation == "linear") c(value[-1L], value[K]) else value
  c_start <- cost
  area <- 0
  for (k in seq_len(K)) {
    lo <- c_start[k]
    hi <- min(c_end[k], B)
    if (hi <= lo) next
    if (interpolation == "step") {
      area <- area + value[k] * (hi - lo)
    } else {
      slope <- (v_end[k] - value[k]) / (c_end[k] - lo)
      v_hi <- value[k] + slope * (hi - lo)
      area <- area + 0.5 * (value[k] + v_hi) * (hi - lo)
    }
  }
  area / B
}

# alpha of the alpha-stopping cost: a fraction of the final objective, in (0, 1].
check_alpha <- function(alpha) check_number(alpha, "alpha", 0, 1, lower_open = TRUE)

# The interpolation of the curve between its points: "linear" (the paper's, the default) or "step".
check_interpolation <- function(interpolation) check_choice(interpolation, c("linear", "step"), "interpolation")
