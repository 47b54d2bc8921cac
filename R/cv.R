#' Cross-validated anytime curves, the ridge constant and the budget
#'
#' The workflow of `cv.glmnet()` (package glmnet) for anytime fits. For each ridge constant `lambda` of
#' a grid and each fold, fits [fgseq()] on the other folds and computes the held-out anytime curve of `metric`
#' ([anytime_curve()]); scores every `lambda` by its cross-validated timeliness (Hu et al. 2016,
#' section 5.2), picks `lambda.min` (the best) and `lambda.1se` (the largest `lambda` within one
#' standard error of the best), and fits on all the data at every `lambda`. Then it answers the next
#' question of an anytime predictor: the cross-validated metric at every budget of a fit, with
#' `budget.min` (the best budget) and `budget.1se` (the cheapest budget within one standard error of
#' the best: the cheapest set of groups as good as all of them).
#'
#' @section Folds:
#' `foldid` (one fold label per row) fixes the folds; otherwise `nfolds` folds of (nearly) equal size
#' are drawn at random. The draw uses `seed` when given, and leaves the random-number state of the
#' session untouched (`.Random.seed` is saved and restored); with `seed = NULL` it uses, and advances,
#' the session's random-number stream. For `metric = "ndcg"` whole queries are assigned to folds (a
#' query is never split), so `nfolds` is at most the number of queries; for `"accuracy"`, `"logloss"`
#' and `"auc"` with a 0/1 response the folds are drawn within each class (stratified), so that every
#' fold holds both classes when each class has at least `nfolds` rows. The fits of the folds are mapped
#' with [future.apply::future_lapply()] when the future.apply package is installed (in parallel under a
#' parallel [future::plan()]), with [lapply()] otherwise; the results are the same.
#'
#' @section Averaging, timeliness and the choice of lambda:
#' The held-out curves of the folds have different sequences, hence different costs. The mean curve at
#' each `lambda` is taken on a common grid, the union of the cumulative costs of all folds' curves,
#' each fold's curve read as a step function there (the value of its longest prefix within the cost,
#' what an interrupted predictor delivers): `mean` is the average over folds and `se` its standard error
#' `sd / sqrt(nfolds)`. The CV timeliness of a `lambda` is the mean over folds of each held-out curve's
#' timeliness up to ONE stopping cost `B` shared by all `lambda`s, so that they are comparable: by
#' default the alpha-stopping cost of the fit on all data at the smallest `lambda` of the grid (of the
#' whole default grid, also when its descent stops before it), which
#' plays the reference's part as in [compare_sequences()]. `cvm` is that mean timeliness with
#' `interpolation`, `cvsd` its standard error. For the metrics where larger is better (`"r2"`,
#' `"accuracy"`, `"auc"`, `"ndcg"`) `lambda.min` has the largest `cvm` and `lambda.1se` is the largest
#' `lambda` with `cvm >= cvm[min] - cvsd[min]`; for the losses `"mse"` and `"logloss"` the smallest
#' `cvm`, and `cvm <= cvm[min] + cvsd[min]`. Ties go to the first in the grid.
#'
#' @section Budgets:
#' For the fit on all data at a `lambda`, with cumulative costs `C_0 = 0 < C_1 <= ... <= C_K`, the
#' cross-validated metric at budget `C_k` is the mean over folds of each fold's held-out metric at that
#' budget (its own sequence's longest prefix within `C_k`): the metric the whole procedure delivers when
#' stopped at `C_k`. `budget.min` is the budget of the best mean (the first such `C_k`), `budget.1se`
#' the smallest `C_k` whose mean is within one standard error of the best. The object holds the budget
#' table of every `lambda`; its `budget.min` and `budget.1se` are those of the fit at `lambda.1se`,
#' and `predict()` and `coef()` accept `budget = "budget.min"` or `"budget.1se"` for the fit chosen by
#' `s`.
#'
#' @inheritParams fgseq
#' @inheritParams anytime_curve
#' @param x Numeric matrix, `n x p`, as for [fgseq()]; or, for the formula method, a model formula such
#'   as `diagnosis ~ .` (one group per term).
#' @param lambda `NULL` (the default grid), or a numeric vector of non-negative ridge constants (see
#'   [fgseq()]) to cross-validate, kept in the order given.
#' @param nlambda Whole number `>= 2`: the length of the default grid, `nlambda` values log-spaced from
#'   10 down to `1e-6` (ridge constants on the scale of the whitened groups, where every group has unit
#'   covariance, so the range suits any data). The grid is descended from 10, and the descent stops (as
#'   glmnet's path stops when the deviance explained no longer changes) at the first `lambda` whose fit
#'   on all rows has the sequence of the fit at the `lambda` before it and an objective within 1% of it
#'   at every step: smaller ridge constants then change the fits by less than that, and the folds of
#'   that `lambda` and the smaller ones are not fitted (on `credit_data` of the modeldata package 9 of the
#'   15 values are cross-validated). Ignored when `lambda` is given: every value given is cross-validated.
#' @param nfolds Whole number between 2 and the number of rows (of queries for `"ndcg"`); ignored when
#'   `foldid` is given.
#' @param foldid `NULL`, or one fold label per row of `x` (at least two distinct labels).
#' @param metric The held-out metric, as in [anytime_curve()].
#' @param alpha Number in `(0, 1]` for the alpha-stopping cost of the reference fit.
#' @param seed `NULL` or a number: the seed of the fold draw (the session's random-number state is left
#'   as it was).
#' @param query For `metric = "ndcg"`: one query id per row of `x`.
#' @param interpolation `"linear"` (the paper's) or `"step"`: the timeliness that gives `cvm`. Both are
#'   reported in `timeliness`.
#' @param stop_cost `NULL` (see above) or a positive number in cost units: the stopping cost `B`.
#' @param progress Logical: show a progress bar (through the cli package), advanced once per `lambda`.
#'   By default only in an interactive session: quiet in batch runs (`Rscript`, `R CMD BATCH`) unless
#'   `progress = TRUE`.
#' @param keep_data Logical: whether the fits on all data (`fgseq.fit`) keep the training data (`TRUE`,
#'   the default: each holds `x`, `y` and the model frame, see the section Training data kept of
#'   [fgseq()]) or are lean (`FALSE`); the folds use the data either way.
#' @param weights `NULL` or a numeric vector of `n` non-negative observation weights, as for [fgseq()]:
#'   each fold is fitted with the weights of its training rows and its held-out metric is weighted by
#'   those of its test rows (see `weights` of [anytime_curve()]; not with `metric = "ndcg"`). For the
#'   formula method evaluated in `data`, then in the formula's environment.
#' @param offset `NULL`, a numeric vector of `n` values or an `n x P` matrix added to the linear
#'   predictor, as for [fgseq()]: each fold is fitted with the offsets of its training rows and predicts
#'   its test rows with theirs. For the formula method evaluated in `data` and added to the formula's
#'   `offset()` terms.
#' @param ... Further arguments to [fgseq()] (`method`, `criterion`, `cost_sensitive`, `family`, ...).
#'   A warning that several fits give (the same class and message) is given once per call: a warning
#'   about constant columns (class `fgseq_warning_constant`) by the first fit on all rows, not again by
#'   the fits on all rows at the other `lambda`s (the same data), nor for the constant columns of a
#'   training fold; with `max_time`, one warning (class `fgseq_warning_partial`) says how many of the
#'   fits it stopped.
#' @return An object of class `"cv_fgseq"`, a list with the components of `cv.glmnet` objects:
#' * `lambda`: the ridge constants cross-validated (length `L`): the `lambda` given, or the default grid
#'   down to where its descent stopped (see `nlambda`); `cvm`, `cvsd`: numeric vectors of length `L`, the mean CV
#'   timeliness and its standard error; `cvup = cvm + cvsd`, `cvlo = cvm - cvsd`;
#' * `name`: what `cvm` measures (for example `"timeliness of held-out r2"`);
#' * `fgseq.fit`: list of the `L` [fgseq()] fits on all data, one per `lambda`;
#' * `lambda.min`, `lambda.1se` and `index`, a 2 x 1 matrix (rows `min` and `1se`) of their positions
#'   in `lambda`;
#' * `budget`: data frame with one row per `lambda` and step of its fit, columns `lambda`, `step`,
#'   `group`, `cost` (the budget `C_k`, cost units), `cvm`, `cvsd` (mean and standard error over folds of
#'   the held-out metric at that budget); `budget.min`, `budget.1se`: the budgets of the fit at
#'   `lambda.1se` (cost units);
#' * `timeliness`: data frame with one row per `lambda` and columns `lambda`, `linear`, `linear_se`,
#'   `step`, `step_se` (both interpolations);
#' * `curve`: data frame (long format) with columns `lambda`, `cost` (the common cost grid of that
#'   `lambda`, cost units), `mean` and `se` of the held-out metric;
#' * `stop_cost` (cost units), `alpha`, `metric`, `k`, `interpolation`, `foldid` (integer fold of each
#'   row, `1..nfolds`), `nfolds` and `call`.
#'
#' `print()` shows the table of `cvm` and the two choices; `plot()` draws `cvm` against `lambda` with
#' its standard-error bars (`what = "lambda"`) or the metric against the budget of the fit chosen by `s`
#' (`what = "budget"`); [predict()][predict.cv_fgseq] and [coef()][coef.cv_fgseq] use the fit chosen
#' by `s`.
#' @section Warnings: As `cv.glmnet()` does, a fold smaller than a held-out metric needs (10 rows for `"auc"`, 3
#'   otherwise) warns (class `fgseq_warning_cv_folds`); a `lambda.min` or `lambda.1se` at the largest
#'   `lambda` of a grid of 3 or more warns (class `fgseq_warning_cv_edge`): the best may lie beyond the grid, or
#'   the metric ignores shrinkage (`"auc"`).
#' @section Errors: An error in a fold's fit names the fold and its `lambda` and suggests other folds. Stops when `lambda` holds negative, NA or infinite values; when `nlambda` is above 10000 or not a
#'   whole number `>= 2`; when `nfolds` is not a whole number between 2 and the number of rows
#'   (queries); when `foldid` has the wrong length, NA or a single fold; when `alpha` is not in `(0, 1]`;
#'   when `seed` is not a single number that set.seed() takes (whose whole part is an integer of R: the
#'   error keeps set.seed()'s as its `parent`); when `stop_cost` is not a positive number; when `weights` come
#'   with `metric = "ndcg"`; as [anytime_curve()]
#'   for `metric`, `query` and `k` (with `query` checked on all rows); and as [fgseq()] for `x`, `y`,
#'   `group`, `cost`, `weights`, `offset`, the arguments in `...` and the fits of the folds.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Friedman, J., Hastie, T. and Tibshirani, R. (2010). Regularization paths for generalized linear
#'   models via coordinate descent. *Journal of Statistical Software* 33(1), 1-22.
#'   \doi{10.18637/jss.v033.i01}
#' @seealso [fgseq()], [anytime_curve()], [timeliness()].
#' @examples
#' cv <- cv_fgseq(diagnosis ~ ., data = heart, cost = heart_cost, lambda = c(1, 0.1, 1e-6),
#'                nfolds = 5, seed = 1, progress = FALSE)
#' cv
#' plot(cv)
#' plot(cv, what = "budget", log = "x")
#' predict(cv, newdata = heart[1:3, ], budget = "budget.1se")
#' coef(cv, s = "lambda.min", budget = 20)
#' @export
cv_fgseq <- function(x, ...) UseMethod("cv_fgseq")

#' @rdname cv_fgseq
#' @section Data in chunks: `cv_fgseq()` does not cross-validate data in chunks ([fgseq_chunks()],
#'   [dbi_chunks()]) and stops with an error of class `fgseq_error_cv_chunks`: a fold's held-out curve needs
#'   the predictions of its rows at every step of its fit, so every fold and `lambda` (`nfolds + 1`
#'   fits per `lambda`, each one pass over the chunks per Newton step for a GLM) would read all the
#'   chunks many times. Fit on the chunks with [fgseq()] and choose the budget on held-out rows read
#'   into memory ([anytime_curve()] with `newdata`), or cross-validate on a sample of the rows in memory.
#' @export
cv_fgseq.fgseq_chunks <- function(x, ...) abort_cv_chunks("x")

#' @rdname cv_fgseq
#' @export
cv_fgseq.default <- function(x, y, group = NULL, cost = NULL, lambda = NULL, nlambda = 15, nfolds = 10,
                             foldid = NULL, metric = "r2", alpha = 0.97, seed = NULL, query = NULL, k = 5,
                             interpolation = c("linear", "step"), stop_cost = NULL, progress = interactive(),
                             weights = NULL, offset = NULL, keep_data = TRUE, ...) {
  check_glmnet_names(...)
  check_dots(..., forwarded = cv_forwarded())
  keep_data <- check_flag(keep_data, "keep_data")
  call <- match.call()
  call[[1L]] <- quote(cv_fgseq)
  if (methods::is(x, "sparseMatrix")) check_x(x)  # its error: cross-validation takes a dense x
  fit_args <- list(...)   # held in a list: a closure over `...` would make future pass them to it
  family <- if (is.null(fit_args$family)) default_family else check_family(fit_args$family, "fgseq")
  # every input checked once: the fits on all rows take these inputs as they are, and each fold's fit
  # the checked x, group and measurements (its rows' response, weights and offset are its own data)
  inputs <- fit_inputs(x, y, group, cost, fit_args$needs, family, weights, offset)
  x <- inputs$x
  n <- inputs$n
  if (is_default_family(family)) y <- inputs$response$y[, 1L]
  weights <- if (length(inputs$weights)) inputs$weights
  offset <- inputs$offset
  fit_args$needs <- NULL  # in inputs$meas
  on_grid <- is.null(lambda)  # the default grid, whose descent may stop early (see on_plateau())
  lambda <- if (is.null(lambda)) 10^seq(1, -6, length.out = check_nlambda(nlambda)) else check_lambda_grid(lambda)
  metric <- check_metric(metric)
  alpha <- check_alpha(alpha)
  seed <- check_seed(seed)
  interpolation <- check_interpolation(interpolation)
  progress <- check_flag(progress, "progress")
  if (metric == "ndcg") {
    query <- check_query(query, n)
    k <- check_k(k)
  }
  if (!is.null(stop_cost)) stop_cost <- check_number(stop_cost, "stop_cost", lower = 0, lower_open = TRUE)
  if (is.null(foldid)) {
    foldid <- draw_folds(n, nfolds, seed, if (metric == "ndcg") query,
                         if (metric %in% c("accuracy", "logloss", "auc")) y)
  } else {
    foldid <- check_foldid(foldid, n)
  }
  nfolds <- max(foldid)
  warn_small_folds(foldid, metric)

  if (!is.null(weights) && metric == "ndcg") {
    abort("`weights` cannot be used with metric = \"ndcg\" (a ranking metric of whole queries).", class = "input")
  }
  L <- length(lambda)
  fits <- vector("list", L)
  ref <- which.min(lambda)
  once <- warning_once()  # a warning that the fits repeat is given once
  fit_all <- function(l) once(quiet_partial(do.call(fgseq.default, c(list(inputs, lambda = lambda[l]), fit_args))))
  fits[[ref]] <- fit_all(ref)
  # the cost of step 0 (the measurements of a formula's offset), which every fit and budget pays: the
  # curves are scored beyond it
  base <- fits[[ref]]$path$cost[1L]
  if (!is.null(stop_cost) && base > 0 && stop_cost <= base) {
    abort("`stop_cost` (", format(stop_cost), ") does not exceed the cost of the offset's measurements (",
          format(base), "), paid at step 0: give a larger `stop_cost`.")
  }
  B <- if (is.null(stop_cost)) stop_cost(fits[[ref]], alpha = alpha) else stop_cost
  if (!(B > base)) {
    # the fit on all rows took no group: the timeliness of every curve would be over a stopping cost of 0
    why <- if (isTRUE(fits[[ref]]$partial)) {
      "`max_time` stopped it before its first group: give a larger `max_time`"
    } else {
      "no group was taken before the fit stopped (`max_cost`, `max_steps`): give a larger `max_cost` or `max_steps`"
    }
    abort("the fit on all rows at the smallest `lambda` (", format(lambda[ref]), ") has an alpha-stopping cost of ",
          "0 (its sequence is empty), so there is no stopping cost to cross-validate the timeliness up to; ", why,
          ", or give `stop_cost` (a positive cost).")
  }
  if (progress) bar <- cli::cli_progress_bar("Cross-validating fgseq", total = L, clear = TRUE)
  fold_curve <- fold_curve_of(x, y, inputs$group, inputs$meas, weights, offset, foldid, lambda, fit_args, metric,
                              query, k)
  curves <- vector("list", L)
  for (l in seq_len(L)) {
    if (is.null(fits[[l]])) {
      # the same data as the first fit on all rows: once() gives its warnings (constant columns) once
      fits[[l]] <- fit_all(l)
    }
    if (on_grid && l > 1L && on_plateau(fits[[l - 1L]], fits[[l]])) {
      L <- l - 1L
      break
    }
    curves[[l]] <- once(map_parallel(seq_len(nfolds), fold_curve, l = l))
    if (progress) cli::cli_progress_update(id = bar)
  }
  if (progress) cli::cli_progress_done(id = bar)
  lambda <- lambda[seq_len(L)]
  fits <- fits[seq_len(L)]
  curves <- curves[seq_len(L)]
  # max_time applies to every fit: one warning for all those it stopped
  partial_folds <- vapply(curves, function(cs) sum(vapply(cs, function(cv) isTRUE(attr(cv, "partial")), logical(1))),
                          numeric(1))
  warn_partial_fits(sum(vapply(fits, function(f) isTRUE(f$partial), logical(1))) + sum(partial_folds),
                    L * (nfolds + 1L), fit_args$max_time)

  fold_t <- function(how) t(vapply(curves, function(cs) {
    vapply(cs, function(cv) curve_timeliness(cv$cost - base, cv$value, B - base, how), numeric(1))
  }, numeric(nfolds)))
  t_lin <- matrix(fold_t("linear"), L)
  t_step <- matrix(fold_t("step"), L)
  se <- function(m) apply(m, 1L, stats::sd) / sqrt(nfolds)
  tab <- data.frame(lambda = lambda, linear = rowMeans(t_lin), linear_se = se(t_lin),
                    step = rowMeans(t_step), step_se = se(t_step))
  cvm <- tab[[interpolation]]
  cvsd <- tab[[paste0(interpolation, "_se")]]
  higher <- metric_higher_better(metric)
  choice <- one_se_choice(cvm, cvsd, higher, among = order(-lambda))
  budget <- do.call(rbind, lapply(seq_len(L), function(l) budget_table(fits[[l]], curves[[l]], lambda[l])))
  curve <- do.call(rbind, lapply(seq_len(L), function(l) mean_curve(curves[[l]], lambda[l])))
  out <- structure(list(lambda = lambda, cvm = cvm, cvsd = cvsd, cvup = cvm + cvsd, cvlo = cvm - cvsd,
                        name = paste(interpolation, "timeliness of held-out", metric_label(metric, k)),
                        fgseq.fit = fits, lambda.min = lambda[choice[["min"]]],
                        lambda.1se = lambda[choice[["1se"]]],
                        index = matrix(choice, 2L, dimnames = list(c("min", "1se"), "Lambda")),
                        budget = budget, timeliness = tab, curve = curve, stop_cost = B, alpha = alpha,
                        metric = metric, k = k, interpolation = interpolation, foldid = foldid,
                        nfolds = nfolds, call = call),
                   class = "cv_fgseq")
  warn_grid_edge(lambda, choice, metric)
  chosen <- budget_choice(out, "lambda.1se")
  out$budget.min <- chosen[["min"]]
  out$budget.1se <- chosen[["1se"]]
  if (!keep_data) out$fgseq.fit <- lapply(out$fgseq.fit, lean_fit)  # after the folds, which use the data
  out
}

# The function(l, f) that fits fold f at lambda[l] on the other folds (with their weights and offsets)
# and returns its held-out curve, scored on the fold's own rows with theirs (the held-out metric weighted
# as the fit's loss is). Built here so that its environment holds only what the folds need (x once, the
# checked group and measurements): it is what a parallel plan ships to each worker.
fold_curve_of <- function(x, y, group, meas, weights, offset, foldid, lambda, fit_args, metric, query, k) {
  force(x)
  force(y)
  force(group)
  force(meas)
  force(weights)
  force(offset)
  force(foldid)
  force(lambda)
  force(fit_args)
  force(metric)
  force(query)
  force(k)
  function(l, f) {
    test <- foldid == f
    fit <- in_fold(f, lambda[l], sum(!test), {
      quiet_fold(do.call(fgseq, c(list(x[!test, , drop = FALSE], take_rows(y, !test), group, meas,
                                       lambda = lambda[l], weights = weights[!test],
                                       offset = if (!is.null(offset)) take_rows(offset, !test)),
                                  fit_args)))
    })
    # the held-out metric: an error here is one of the fold's own rows, not of its training rows
    curve <- in_fold(f, lambda[l], sum(test), held_out = TRUE, {
      anytime_curve(fit, x[test, , drop = FALSE], take_rows(y, test), metric = metric,
                    query = if (metric == "ndcg") query[test], k = k,
                    newoffset = if (!is.null(offset)) take_rows(offset, test), weights = weights[test])
    })
    attr(curve, "partial") <- isTRUE(fit$partial)
    curve
  }
}

# cv_fgseq() on data in chunks: not supported, and why (see the section Data in chunks of ?cv_fgseq).
abort_cv_chunks <- function(arg) {
  abort("cv_fgseq() does not cross-validate data in chunks (`", arg, "` is \"fgseq_chunks\"): each fold's held-out ",
        "curve needs its rows' predictions at every step, so the nfolds + 1 fits of every lambda would each read ",
        "all the chunks once per Newton step. Fit on the chunks with fgseq() and choose the budget on held-out rows ",
        "in memory (anytime_curve(fit, newdata = )), or cross-validate a sample of the rows in memory.",
        class = "cv_chunks")
}

# A function once(expr) that evaluates `expr` giving each warning (its classes and message) the first
# time only, over all its calls: the fits of a cross-validation repeat the same warnings (a Newton solve
# that did not converge at a lambda, in every fold), and cv_fgseq() gives each once.
warning_once <- function() {
  seen <- character(0)
  function(expr) {
    withCallingHandlers(expr, warning = function(w) {
      key <- paste(c(class(w), conditionMessage(w)), collapse = "\r")
      if (key %in% seen) invokeRestart("muffleWarning")
      seen <<- c(seen, key)
    })
  }
}

# Whether the descent of the default grid stops before the fit on all rows `b` (at a smaller lambda than
# `a`, the fit before it): both complete, with the same sequence, and an objective that differs by at
# most 1% (relative to the largest of `a`) at every step. Below such a lambda the ridge no longer changes
# the fits by more than that, so smaller ones would give the same curves up to noise (as glmnet's path
# stops when the deviance explained stops changing).
on_plateau <- function(a, b, tol = 1e-2) {
  if (isTRUE(a$partial) || isTRUE(b$partial) || !identical(a$sequence, b$sequence)) return(FALSE)
  oa <- a$path$objective
  ob <- b$path$objective
  length(oa) == length(ob) && max(abs(oa - ob)) <= tol * max(abs(oa), .Machine$double.xmin)
}

# The arguments cv_fgseq() passes through `...` to fgseq(): fgseq()'s own, except those cv_fgseq() sets
# (the data, the ridge constant) or splits between the folds (the observation weights and offsets).
cv_forwarded <- function() {
  setdiff(names(formals(fgseq.default)), c("x", "y", "group", "cost", "lambda", "weights", "offset", "keep_data", "..."))
}

# The best position of `cvm` ("min") and, among the positions `among` (an order of preference: the
# most regularized first), the first within one standard error of the best ("1se").
one_se_choice <- function(cvm, cvsd, higher, among) {
  best <- if (higher) which.max(cvm) else which.min(cvm)
  ok <- if (higher) cvm >= cvm[best] - cvsd[best] else cvm <= cvm[best] + cvsd[best]
  c(min = best, `1se` = among[ok[among]][1L])
}

# The held-out metric of the folds at every budget of a fit on all data: each fold's curve read as a
# step function at the fit's cumulative costs.
budget_table <- function(fit, curves, lambda) {
  C <- fit$path$cost
  vals <- vapply(curves, function(cv) cv$value[findInterval(C, cv$cost)], numeric(length(C)))
  vals <- matrix(vals, nrow = length(C))
  data.frame(lambda = lambda, step = fit$path$step, group = fit$path$group, cost = C, cvm = rowMeans(vals),
             cvsd = apply(vals, 1L, stats::sd) / sqrt(ncol(vals)), stringsAsFactors = FALSE)
}

# budget.min and budget.1se of the fit chosen by `s`: the best budget, and the cheapest within one
# standard error of the best.
budget_choice <- function(object, s) {
  i <- resolve_s(object, s)
  tab <- object$budget[object$budget$lambda == object$lambda[i], , drop = FALSE]
  pick <- one_se_choice(tab$cvm, tab$cvsd, metric_higher_better(object$metric), among = order(tab$cost))
  stats::setNames(tab$cost[pick], c("min", "1se"))
}

# The position in the grid named by `s`: "lambda.1se", "lambda.min", or a value of the grid.
resolve_s <- function(object, s) {
  if (is.character(s) && length(s) == 1L && s %in% c("lambda.1se", "lambda.min")) {
    return(object$index[if (s == "lambda.min") "min" else "1se", 1L])
  }
  if (is.numeric(s) && length(s) == 1L && !is.na(s)) {
    i <- which(abs(object$lambda - s) <= 1e-8 * pmax(abs(s), 1e-300))
    if (length(i)) return(i[1L])
  }
  abort("`s` must be \"lambda.1se\", \"lambda.min\" or one of the cross-validated `lambda` values (",
        paste(format(object$lambda, digits = 3), collapse = ", "), "); the fits exist only on that grid.")
}

# A budget of predict()/coef(): a number (or NULL) passes through; "budget.min" and "budget.1se" name
# the choices of the fit chosen by `s`.
resolve_budget <- function(object, budget, s) {
  if (!is.character(budget)) return(budget)
  if (length(budget) != 1L || !budget %in% c("budget.min", "budget.1se")) {
    abort("`budget` must be NULL, non-negative numbers (cost units), \"budget.min\" or \"budget.1se\".")
  }
  budget_choice(object, s)[[if (budget == "budget.min") "min" else "1se"]]
}

#' Predictions and coefficients of a cross-validated fit
#'
#' The fit on all data at the `lambda` chosen by `s` (see [cv_fgseq()]), at budgets or steps, as
#' [predict.fgseq()] and [coef.fgseq()] give them.
#'
#' @param object A `"cv_fgseq"` object.
#' @param newx,newdata,type,newoffset As for [predict.fgseq()].
#' @param s Which fit: `"lambda.1se"` (the default, as in `glmnet`), `"lambda.min"`, or a value of the
#'   cross-validated `lambda` grid (fits exist only there). `s`, `budget` and `step` come after `...`
#'   and are matched by their full names only.
#' @param budget `"budget.1se"` (the default, unless `step` is given: the one model chosen, as
#'   `coef(cv.glmnet)` gives the one column at `s = "lambda.1se"`), `NULL` (every step), numbers (cost
#'   units), `"budget.1se"` (the cheapest budget whose
#'   cross-validated metric is within one standard error of the best) or `"budget.min"` (the best).
#' @param step `NULL` or whole numbers in `0..K`, as for [predict.fgseq()].
#' @param ... Not used: an argument given here is an error.
#' @return As [predict.fgseq()] and [coef.fgseq()].
#' @section Errors: Stops on an object that is not as [cv_fgseq()] made it (class `fgseq_error_invalid_object`,
#'   naming the field); when `s` is not `"lambda.1se"`, `"lambda.min"` or a value of the grid; when
#'   `budget` is a character string other than `"budget.min"` and `"budget.1se"`; and as
#'   [predict.fgseq()] and [coef.fgseq()].
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' cv <- cv_fgseq(diagnosis ~ ., data = heart, cost = heart_cost, lambda = c(1, 1e-6), nfolds = 3,
#'                seed = 1, progress = FALSE)
#' predict(cv, newdata = heart[1:3, ], budget = "budget.1se")
#' coef(cv, s = "lambda.min", budget = c(5, 20))
#' @export
predict.cv_fgseq <- function(object, newx, ..., s = "lambda.1se", budget = "budget.1se", step = NULL,
                             type = c("link", "response", "class", "coefficients", "nonzero"), newdata = NULL,
                             newoffset = NULL) {
  validate_cv(object)
  check_dots(...)
  types <- c("link", "response", "class", "coefficients", "nonzero")
  type <- check_choice(match_type(type, types), types, "type")
  if (missing(budget) && !is.null(step)) budget <- NULL  # the steps given, not the chosen budget
  fit <- object$fgseq.fit[[resolve_s(object, s)]]
  budget <- resolve_budget(object, budget, s)
  if (missing(newx)) {
    return(stats::predict(fit, budget = budget, step = step, type = type, newdata = newdata, newoffset = newoffset))
  }
  stats::predict(fit, newx, budget = budget, step = step, type = type, newdata = newdata, newoffset = newoffset)
}

#' @rdname predict.cv_fgseq
#' @export
coef.cv_fgseq <- function(object, ..., s = "lambda.1se", budget = "budget.1se", step = NULL) {
  validate_cv(object)
  check_dots(...)
  if (missing(budget) && !is.null(step)) budget <- NULL  # the steps given, not the chosen budget
  fit <- object$fgseq.fit[[resolve_s(object, s)]]
  stats::coef(fit, budget = resolve_budget(object, budget, s), step = step)
}

# Rows of a response (a vector, a factor, or a matrix for multi-column responses).
take_rows <- function(y, i) if (is.matrix(y)) y[i, , drop = FALSE] else y[i]

# Evaluate `expr` (a fold's fit) with its warnings about constant columns muffled, and those of
# max_time held back (cv_fgseq() counts the partial fits and warns once).
quiet_fold <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (inherits(w, c("fgseq_warning_constant", "fgseq_warning_constant_group", "fgseq_warning_partial"))) {
      invokeRestart("muffleWarning")
    }
  })
}

# Evaluate `expr`, the work of fold `f` at `lambda` on `n_rows` rows: its fit on the other folds' rows, or
# (`held_out`) its metric on its own rows; an error is raised again with the fold, the lambda, which rows
# failed and what to change before its message, keeping its fgseq class.
in_fold <- function(f, lambda, n_rows, expr, held_out = FALSE) {
  tryCatch(expr, error = function(e) {
    kind <- grep("^fgseq_error_", class(e), value = TRUE)
    what <- if (held_out) {
      c("scored on its own ", " held-out rows", " The held-out rows of a fold must allow its metric (for example ",
        "some rows of positive weight): ")
    } else {
      c("fitted on the other folds' ", " rows", " The training rows of a fold must allow the fit: ", "")
    }
    abort("cross-validation fold ", f, " (lambda = ", format(lambda, digits = 3), ", ", what[1L], n_rows, what[2L],
          ") failed: ", conditionMessage(e), what[3L], what[4L], "give fewer folds (`nfolds`) or other folds ",
          "(`foldid`, `seed`).", class = if (length(kind)) sub("^fgseq_error_", "", kind[1L]) else "input",
          parent = if (!inherits(e, "fgseq_error")) e)
  })
}

# Held-out metrics of tiny folds are noise (as cv.glmnet() warns): a rank metric (auc) needs at least 10
# rows in each fold; any other metric at least 3 (r2 of one row compares a single residual).
warn_small_folds <- function(foldid, metric) {
  smallest <- min(tabulate(foldid))
  need <- if (metric == "auc") 10L else 3L
  if (smallest < need) {
    warn("the smallest fold holds ", smallest, " row", if (smallest != 1L) "s", ", fewer than the ", need,
         " a held-out ", metric, " needs to mean anything: each fold's metric is then mostly noise and the ",
         "choice of lambda with it. Give fewer folds (`nfolds`).", class = "cv_folds")
  }
  invisible()
}

# A choice at the largest lambda of the grid (the most shrunk fits) may lie beyond it, or be where a
# metric blind to shrinkage (auc ranks rows, whatever the scale of their scores) stays flat: warn, as
# the choice is then an artefact of the grid.
warn_grid_edge <- function(lambda, choice, metric) {
  edge <- which.max(lambda)
  if (length(lambda) < 3L || !any(choice == edge)) return(invisible())
  warn("`lambda.", names(choice)[choice == edge][1L], "` is the largest lambda of the grid (",
       format(lambda[edge], digits = 3), "), its most shrunk fit: the best may lie beyond the grid, or the ",
       "metric does not change with shrinkage", if (metric == "auc") " (auc ranks the rows and ignores how far their probabilities are shrunk towards the mean; metric = \"logloss\" does not)",
       ". Give a grid of larger `lambda`, or another `metric`.", class = "cv_edge")
  invisible()
}

# Evaluate `expr` after set.seed(seed), then put the session's random-number state back as it was
# (also when there was none yet). With seed = NULL, just evaluate `expr`.
with_seed <- function(seed, expr) {
  if (is.null(seed)) return(expr)
  env <- globalenv()
  had <- exists(".Random.seed", envir = env, inherits = FALSE)
  old <- if (had) get(".Random.seed", envir = env, inherits = FALSE)
  on.exit(if (had) assign(".Random.seed", old, envir = env) else
    if (exists(".Random.seed", envir = env, inherits = FALSE)) rm(".Random.seed", envir = env))
  set.seed(seed)
  expr
}

# Fold labels 1..nfolds of the rows, balanced; whole queries when `query` is given, within each class
# when `strata` (a 0/1 response) is given.
draw_folds <- function(n, nfolds, seed, query = NULL, strata = NULL) {
  if (!is.null(query)) {
    ids <- unique(query)
    nfolds <- check_nfolds(nfolds, length(ids), "queries")
    fold_of <- with_seed(seed, sample(rep_len(seq_len(nfolds), length(ids))))
    return(fold_of[match(query, ids)])
  }
  nfolds <- check_nfolds(nfolds, n, "rows")
  binary <- !is.null(strata) && is.numeric(strata) && all(strata == 0 | strata == 1)
  with_seed(seed, {
    if (binary) {
      foldid <- integer(n)
      offset <- 0L
      for (cls in c(0, 1)) {
        i <- which(strata == cls)
        foldid[i] <- (sample(rep_len(seq_len(nfolds), length(i))) + offset - 1L) %% nfolds + 1L
        offset <- offset + length(i)
      }
      foldid
    } else {
      sample(rep_len(seq_len(nfolds), n))
    }
  })
}

# Mean and standard error over folds of held-out curves, on the union of their costs, each curve read
# as a step function (value of the longest prefix within the cost).
mean_curve <- function(curves, lambda) {
  grid <- sort(unique(unlist(lapply(curves, `[[`, "cost"))))
  vals <- vapply(curves, function(cv) cv$value[findInterval(grid, cv$cost)], numeric(length(grid)))
  vals <- matrix(vals, nrow = length(grid))
  data.frame(lambda = lambda, cost = grid, mean = rowMeans(vals),
             se = apply(vals, 1L, stats::sd) / sqrt(ncol(vals)))
}

#' @rdname cv_fgseq
#' @param digits Number of significant digits.
#' @export
print.cv_fgseq <- function(x, digits = 4, ...) {
  validate_cv(x, "x")
  check_dots(...)
  cat(x$nfolds, "-fold cross-validation; cvm: ", x$name, " up to the stopping cost ",
      format(x$stop_cost, digits = digits), "\n\n", sep = "")
  tab <- data.frame(lambda = x$lambda, cvm = x$cvm, cvsd = x$cvsd)
  print(format(tab, digits = digits), row.names = FALSE)
  cat("\nlambda.min = ", format(x$lambda.min, digits = digits), ", lambda.1se = ",
      format(x$lambda.1se, digits = digits), "\n", sep = "")
  cat("Fit at lambda.1se: budget.min = ", format(x$budget.min, digits = digits), ", budget.1se = ",
      format(x$budget.1se, digits = digits), " (cost units)\n", sep = "")
  invisible(x)
}

#' Plot a cross-validated fit
#'
#' `what = "lambda"` draws the cross-validated criterion `cvm` against `lambda` (log axis) with bars of
#' one standard error and dotted lines at `lambda.min` and `lambda.1se`, as `plot()` does for
#' `cv.glmnet` objects. `what = "budget"` draws, for the fit chosen by `s`, the cross-validated metric
#' at each budget of its sequence (a step curve) with bars of one standard error and dotted lines at
#' `budget.min` and `budget.1se`.
#'
#' @param x A `"cv_fgseq"` object.
#' @param what `"lambda"` or `"budget"`.
#' @param s The fit of `what = "budget"`, as for [predict.cv_fgseq()].
#' @param log `""` or `"x"`: a log cost axis for `what = "budget"` (budget 0 is drawn at the left
#'   edge, half the first positive budget); the `lambda` axis is always logarithmic (a `lambda` of 0 is
#'   drawn at the left edge, a tenth of the smallest positive `lambda`).
#' @param cost_unit `NULL` or a character string naming the unit of costs, added to the budget axis
#'   label (default: the fit's `cost_unit`).
#' @param xlab,ylab,main Axis labels and title (`NULL`: chosen from `what`). `main` is matched by its
#'   full name only (it follows `...`, so that the graphical parameter `mai` is not taken for it).
#' @param ... Further graphical parameters for [graphics::plot()] (`col`, `pch`, `xlim`, `ylim`, ...).
#' @return The points drawn, invisibly: a data frame with columns `lambda`, `cvm`, `cvsd` (`what =
#'   "lambda"`) or the rows of `x$budget` of the chosen fit (`what = "budget"`).
#' @section Errors: Stops when `what` is not one of the two above, when `log` is not `""` or `"x"`, and
#'   as [predict.cv_fgseq()] for `s`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @examples
#' cv <- cv_fgseq(diagnosis ~ ., data = heart, cost = heart_cost, lambda = c(10, 1, 0.1, 1e-6),
#'                nfolds = 3, seed = 1, progress = FALSE)
#' plot(cv)
#' plot(cv, what = "budget", log = "x")
#' @export
plot.cv_fgseq <- function(x, what = c("lambda", "budget"), s = "lambda.1se", log = "", cost_unit = NULL,
                          xlab = NULL, ylab = NULL, ..., main = NULL) {
  validate_cv(x, "x")
  check_dots(..., graphics = TRUE)
  what <- check_choice(what, c("lambda", "budget"), "what")
  log <- check_choice(log, c("", "x"), "log")
  if (what == "lambda") {
    at <- zero_at_left(x$lambda, 0.1)
    pts <- data.frame(lambda = x$lambda, cvm = x$cvm, cvsd = x$cvsd)
    graphics::plot(at, x$cvm, log = "x", ylim = range(x$cvlo, x$cvup), pch = 20, col = "red",
                   xlab = if (is.null(xlab)) "lambda (ridge constant)" else xlab,
                   ylab = if (is.null(ylab)) paste("CV", x$name) else ylab,
                   main = if (is.null(main)) paste0(x$nfolds, "-fold cross-validation") else main, ...)
    error_bars(at, x$cvlo, x$cvup)
    graphics::abline(v = at[x$index[, 1L]], lty = 3)
    graphics::axis(3, at = at[x$index[, 1L]], labels = c("min", "1se"), tick = FALSE, line = -0.5)
    return(invisible(pts))
  }
  i <- resolve_s(x, s)
  fit <- x$fgseq.fit[[i]]
  tab <- x$budget[x$budget$lambda == x$lambda[i], , drop = FALSE]
  chosen <- budget_choice(x, s)
  if (is.null(cost_unit)) cost_unit <- fit$cost_unit
  at <- cost_at(tab$cost, log == "x", left = list(...)$xlim[1L])
  lo <- tab$cvm - tab$cvsd
  hi <- tab$cvm + tab$cvsd
  graphics::plot(at, tab$cvm, type = "s", log = log, ylim = range(lo, hi), xaxt = if (log == "x") "n" else "s",
                 xlab = if (is.null(xlab)) cost_axis_label("budget", cost_unit) else xlab,
                 ylab = if (is.null(ylab)) paste("CV", metric_label(x$metric, x$k)) else ylab,
                 main = if (is.null(main)) paste0("Fit at lambda = ", format(x$lambda[i], digits = 3)) else main,
                 ...)
  if (log == "x") log_cost_axis(min(at))
  graphics::points(at, tab$cvm, pch = 20)
  error_bars(at, lo, hi)
  graphics::abline(v = at[match(chosen, tab$cost)], lty = 3)
  graphics::axis(3, at = at[match(chosen, tab$cost)], labels = c("min", "1se"), tick = FALSE, line = -0.5)
  invisible(tab)
}

# Vertical bars from lo to hi at x, with short caps.
error_bars <- function(x, lo, hi) {
  ok <- hi > lo
  if (any(ok)) {
    graphics::arrows(x[ok], lo[ok], x[ok], hi[ok], angle = 90, code = 3, length = 0.03, col = "grey50")
  }
}

check_lambda_grid <- function(lambda) {
  if (!is.numeric(lambda) || !length(lambda) || !all(is.finite(lambda)) || any(lambda < 0)) {
    abort("`lambda` must be a vector of non-negative, finite ridge constants.")
  }
  as.double(lambda)
}

# nlambda: a whole number >= 2; every lambda of the grid costs nfolds + 1 fits, so more than 10000 is
# refused before the grid is made.
check_nlambda <- function(nlambda) {
  nlambda <- check_whole(nlambda, "nlambda", 2, what = "the number of lambda values")
  if (nlambda > 10000L) {
    abort("`nlambda` (", nlambda, ") asks for ", nlambda, " lambda values, each fitted nfolds + 1 times: give at most ",
          "10000 (15 is the default; `lambda` takes a grid of your own).")
  }
  nlambda
}

check_nfolds <- function(nfolds, n, unit = "rows") {
  if (!is.numeric(nfolds) || length(nfolds) != 1L || is.na(nfolds) || nfolds != round(nfolds) ||
      nfolds < 2 || nfolds > n) {
    abort("`nfolds` must be a whole number between 2 and ", n, " (the number of ", unit, ").")
  }
  as.integer(nfolds)
}

# foldid: one fold label per row, at least two folds; returned as 1..F.
check_foldid <- function(foldid, n) {
  if (!is.atomic(foldid) || !is.null(dim(foldid)) || length(foldid) != n || anyNA(foldid) ||
      length(unique(foldid)) < 2L) {
    abort("`foldid` must give one fold label per row of `x` (", n, "), without NA, with at least 2 folds.")
  }
  match(foldid, sort(unique(foldid)))
}

# seed: NULL or a number set.seed() takes (a single finite number whose whole part is an integer of R);
# tried on a copy of the session's random-number state, which is left as it was.
check_seed <- function(seed) {
  if (is.null(seed)) return(seed)
  if (!is.numeric(seed) || length(seed) != 1L || !is.finite(seed)) {
    abort("`seed` must be NULL or a single finite number.")
  }
  tryCatch(suppressWarnings(with_seed(seed, NULL)), error = function(e) {
    abort("`seed` (", format(seed), ") is not a seed set.seed() takes: give a whole number between -",
          .Machine$integer.max, " and ", .Machine$integer.max, " (set.seed(): ", conditionMessage(e), ").",
          parent = e)
  })
  seed
}
