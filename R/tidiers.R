# Tidiers of the generics package (the broom verbs): tidy(), glance() and augment() of fgseq fits.

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @importFrom generics augment
#' @export
generics::augment

#' Tidy, glance and augment a fitted sequence
#'
#' The broom verbs (through the generics package) for [fgseq()] fits. `tidy()` gives the coefficients
#' of every step in long format (`what = "coefficients"`) or the path, one row per step
#' (`what = "steps"`); `glance()` one row describing the fit; `augment()` the data with the fitted
#' values (and residuals, on the training data) of one step.
#'
#' @param x A fit of [fgseq()] or [sparse_sequence()]; for `augment()` also of [miser()] (whose
#'   `tidy()` and `glance()` are [tidy.miser()] and [glance.miser()]).
#' @param what For `tidy()`: `"coefficients"` (one row per step and coefficient) or `"steps"` (one row
#'   per step: the path).
#' @param budget,step The steps to report (as for [coef.fgseq()]; by default every step for `tidy()`,
#'   the last step for `augment()`, which takes a single one).
#' @param data For `augment()`: the training data to add columns to; by default the model frame of a
#'   formula fit, or the training `x` as a data frame.
#' @param newdata For `augment()`: new rows (a data frame for formula fits); their fitted values only.
#' @param newx For `augment()` of a matrix fit: a matrix of new rows.
#' @param type.predict For `augment()`: `"link"` (the default, as broom's `augment()` of [stats::glm()]
#'   fits: the linear predictor) or `"response"` (means, probabilities).
#' @param type.residuals For `augment()` on the training data: the type of `.resid`, as
#'   [residuals()][fitted.fgseq] and broom's `augment()` of [stats::glm()] fits define it:
#'   `"deviance"` (the default, as broom's), `"pearson"`, `"working"` or `"response"` (`y - mu`).
#' @param ... Not used: an unknown argument is an error.
#' @return Tibbles (of the tibble package, when it is installed, as broom's tidiers return them;
#'   otherwise data frames). `tidy(what = "coefficients")`: columns `step`, `cost` (cumulative cost, cost
#'   units), `term` (`"(Intercept)"` or a column of `x`), `group` (NA for the intercept), `estimate`
#'   (the coefficient on the original scale of `x`, as in [coef.fgseq()]) and, for multinomial and
#'   mgaussian fits, `response` (the class or response column); coefficients of groups not yet in the
#'   prefix (structural zeros) are left out. `tidy(what = "steps")`: the fit's `path` (`step`, `group`,
#'   `group_cost`, `cost`, `objective`, `r2`, `score`). `glance()`: one row with `method`, `family`,
#'   `lambda`, `nobs`, `n_groups` (groups in the sequence), `total_cost`, `r2` (final training `r2`),
#'   `deviance`, `logLik`, `AIC` and `BIC` of the last step (NA where not defined or without training
#'   data). `augment()`: `data` (or `newdata`) with `.fitted` (in `type.predict`) and, on the training
#'   data of a single-response fit, `.resid` (in `type.residuals`; with `na.action = na.exclude` both
#'   are NA at the rows left out); for multinomial and mgaussian fits one `.fitted_<response>` column
#'   per class or response, and no `.resid`.
#' @section Errors: Stops when `what`, `type.predict` or `type.residuals` is unknown, when
#'   `type.residuals` is not defined for the family (as [residuals()][fitted.fgseq]), as [coef.fgseq()]
#'   for `budget` and `step`, and as [predict.fgseq()] for `newdata`/`newx`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
#' head(tidy(fit))
#' tidy(fit, what = "steps")
#' glance(fit)
#' head(augment(fit, budget = 20))
#' @name tidy.fgseq
#' @method tidy fgseq
#' @export
tidy.fgseq <- function(x, what = c("coefficients", "steps"), ..., budget = NULL, step = NULL) {
  validate_fit(x, "x")
  check_dots(...)
  what <- check_choice(what, c("coefficients", "steps"), "what")
  steps <- resolve_steps(x, budget, step)
  if (what == "steps") return(tidy_table(x$path[steps + 1L, , drop = FALSE]))
  cf <- coef(x, step = steps)
  one <- function(m, response) {
    rows <- lapply(seq_along(steps), function(j) {
      k <- steps[[j]]
      prefix <- x$path$group[seq_len(k + 1L)][-1L]
      keep <- c(TRUE, x$group %in% prefix)
      term <- rownames(m)[keep]
      data.frame(step = k, cost = x$path$cost[k + 1L], term = term,
                 group = c(NA_character_, unname(x$group))[keep], estimate = unname(m[keep, j]),
                 response = response, stringsAsFactors = FALSE)
    })
    do.call(rbind, rows)
  }
  out <- if (is.list(cf)) {
    do.call(rbind, lapply(names(cf), function(r) one(cf[[r]], r)))
  } else {
    one(cf, NA_character_)
  }
  if (!is.list(cf)) out$response <- NULL
  tidy_table(out)
}

#' @rdname tidy.fgseq
#' @method glance fgseq
#' @export
glance.fgseq <- function(x, ...) {
  validate_fit(x, "x")
  check_dots(...)
  K <- nrow(x$path) - 1L
  has_data <- !is.null(x[["x"]])
  fam <- family_def(x$family)
  family <- fam$name
  ll <- if (has_data && !is.null(fam$loglik)) stats::logLik(x) else NULL
  tidy_table(data.frame(method = method_label(x), family = family, lambda = x$lambda, nobs = stats::nobs(x),
                        n_groups = K, total_cost = x$path$cost[K + 1L], r2 = x$path$r2[K + 1L],
                        deviance = if (has_data) stats::deviance(x) else NA_real_,
                        logLik = if (is.null(ll)) NA_real_ else as.numeric(ll),
                        AIC = if (is.null(ll)) NA_real_ else stats::AIC(ll),
                        BIC = if (is.null(ll)) NA_real_ else stats::BIC(ll), stringsAsFactors = FALSE))
}

#' @rdname tidy.fgseq
#' @method augment fgseq
#' @export
augment.fgseq <- function(x, data = NULL, newdata = NULL, newx = NULL, type.predict = c("link", "response"),
                          type.residuals = c("deviance", "pearson", "working", "response"), ...,
                          budget = NULL, step = NULL) {
  validate_fit(x, "x")
  check_dots(...)
  type.predict <- check_choice(match_type(type.predict, c("link", "response")), c("link", "response"), "type.predict")
  residual_types <- c("deviance", "pearson", "working", "response")
  type.residuals <- check_choice(match_type(type.residuals, residual_types), residual_types, "type.residuals")
  k <- one_step(x, budget, step)
  if (!is.null(newdata) || !is.null(newx)) {
    fitted <- if (is.null(newdata)) predict(x, newx, step = k, type = type.predict) else
      predict(x, newdata = newdata, step = k, type = type.predict)
    out <- if (!is.null(newdata)) newdata else as.data.frame(as.matrix(newx))
    return(tidy_table(add_fitted(out, fitted, NULL)))
  }
  design <- training_design(x)
  if (is.null(data)) {
    # the model frame (or x) holds the fitted rows only: no padding
    data <- if (!is.null(x$model)) x$model else as.data.frame(as.matrix(design$x))
    design$rows <- NULL
  }
  fitted <- training_prediction(x, k, type.predict)
  resid <- NULL
  if (length(dim(fitted)) == 2L) resid <- pad_rows(residual_values(training_fit(x, step = k), type.residuals), design)
  fitted <- pad_rows(fitted, design)
  if (NROW(fitted) != nrow(data)) {
    abort("`data` must have one row per training row (", NROW(fitted), "); it has ", nrow(data), ".")
  }
  tidy_table(add_fitted(data, fitted, resid))
}

# Add .fitted (and .resid) columns: one .fitted per class or response column for multi-column fits.
add_fitted <- function(out, fitted, resid) {
  if (length(dim(fitted)) == 3L) {
    for (r in dimnames(fitted)[[2L]]) out[[paste0(".fitted_", r)]] <- unname(fitted[, r, 1L])
  } else {
    out$.fitted <- unname(fitted[, 1L])
  }
  if (!is.null(resid)) out$.resid <- unname(resid)
  out
}

# A tidier's table, without row names: a tibble when the tibble package is installed (as broom's tidiers
# return them), else the data frame. A model frame loses its terms.
tidy_table <- function(df) {
  df <- as.data.frame(df, stringsAsFactors = FALSE)
  attr(df, "terms") <- NULL
  rownames(df) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(df) else df
}

#' Tidy a comparison, a Greedy Miser path or an oracle
#'
#' The broom verbs (through the generics package) for the results one plots: [compare_sequences()],
#' [miser_path()] and [oracle()]. `tidy()` gives their curves in long format, one row per fit (or
#' `cost_penalty`) and step, ready for `ggplot2::ggplot(aes(cost, value, colour = method))`.
#'
#' @param x An `"fgseq_comparison"` ([compare_sequences()]), a `"miser_path"` ([miser_path()]) or an
#'   `"fgseq_oracle"` ([oracle()]).
#' @param what For a comparison: `"curves"` (the default: one row per fit and step) or `"timeliness"`
#'   (one row per fit, `x$table`). For a Miser path: `"frontier"` (the default: one row per
#'   `cost_penalty`, `x$frontier`) or `"traces"` (one row per `cost_penalty` and boosting iteration).
#' @param ... Not used: an unknown argument is an error.
#' @return Tibbles (data frames without the tibble package). For a comparison, `what = "curves"`:
#'   `method` (the label of the fit), `step`, `group` (the group(s) added at the step, NA at step 0),
#'   `cost` (cumulative cost, cost units), `value` (the metric) and `metric`; `what = "timeliness"`:
#'   `method`, `linear`, `step`, `value_at_stop`, `final`, `total_cost` (as `x$table`). `glance()` of a
#'   comparison: one row with `stop_cost`, `alpha`, `reference`, `metric`, `data` and `n_fits`. For a
#'   Miser path, `what = "frontier"`: `cost_penalty`, `step`, `cost`, `value`, `final_cost`,
#'   `efficient`; `what = "traces"`: `cost_penalty`, `step`, `group`, `cost`, `value`. For an oracle:
#'   its path, `step`, `group`, `group_cost`, `cost`, `source_step` and `value` (named by `x$metric`
#'   in print()).
#' @section Errors: Stops when `what` is unknown or an argument is unknown (class
#'   `fgseq_error_unknown_argument`).
#' @seealso [tidy.fgseq()], [tidy.cv_fgseq()].
#' @examples
#' train <- heart[c(TRUE, FALSE), ]
#' test <- heart[c(FALSE, TRUE), ]
#' omp <- fgseq(diagnosis ~ ., data = train, cost = heart_cost)
#' fr <- fgseq(diagnosis ~ ., data = train, cost = heart_cost, method = "fr")
#' cmp <- compare_sequences(list(omp, fr, oracle(fr)), newdata = test)
#' head(tidy(cmp))
#' tidy(cmp, what = "timeliness")
#' glance(cmp)
#' tidy(oracle(omp))
#' @name tidy.fgseq_comparison
#' @method tidy fgseq_comparison
#' @export
tidy.fgseq_comparison <- function(x, what = c("curves", "timeliness"), ...) {
  check_dots(...)
  what <- check_choice(what, c("curves", "timeliness"), "what")
  if (what == "timeliness") return(tidy_table(x$table))
  tidy_table(long_curves(x$curves, "method", names(x$curves), x$metric))
}

#' @rdname tidy.fgseq_comparison
#' @method glance fgseq_comparison
#' @export
glance.fgseq_comparison <- function(x, ...) {
  check_dots(...)
  tidy_table(data.frame(stop_cost = x$stop_cost, alpha = x$alpha, reference = x$reference, metric = x$metric,
                        data = x$data, n_fits = length(x$curves), stringsAsFactors = FALSE))
}

#' @rdname tidy.fgseq_comparison
#' @method tidy miser_path
#' @export
tidy.miser_path <- function(x, what = c("frontier", "traces"), ...) {
  check_dots(...)
  what <- check_choice(what, c("frontier", "traces"), "what")
  if (what == "frontier") return(tidy_table(x$frontier))
  out <- long_curves(x$traces, "cost_penalty", x$cost_penalty, NULL)
  tidy_table(out)
}

#' @rdname tidy.fgseq_comparison
#' @method tidy fgseq_oracle
#' @export
tidy.fgseq_oracle <- function(x, ...) {
  check_dots(...)
  tidy_table(x$path)
}

# Curves (anytime_curve() data frames) stacked, each row labelled by its curve's `id` in column `key`;
# with `metric`, a column naming it.
long_curves <- function(curves, key, id, metric) {
  out <- do.call(rbind, lapply(seq_along(curves), function(i) {
    cv <- curves[[i]]
    d <- data.frame(id = rep(id[i], nrow(cv)), step = cv$step, group = cv$group, cost = cv$cost,
                    value = cv$value, stringsAsFactors = FALSE)
    names(d)[1L] <- key
    d
  }))
  if (!is.null(metric)) out$metric <- metric
  out
}
