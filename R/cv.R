#' Cross-validated anytime curves and the ridge constant of best timeliness
#'
#' For each ridge constant `lambda` of a grid and each fold, fits [fgseq()] on the other folds and
#' computes the held-out anytime curve of `metric` ([anytime_curve()]); then averages the curves, scores
#' every `lambda` by its cross-validated timeliness (Hu et al. 2016, section 5.2) and refits on all the
#' data at the best `lambda`.
#'
#' @section Folds:
#' `foldid` (one fold label per row) fixes the folds; otherwise `nfolds` folds of (nearly) equal size
#' are drawn at random. The draw uses `seed` when given, and leaves the random-number state of the
#' session untouched (`.Random.seed` is saved and restored); with `seed = NULL` it uses, and advances,
#' the session's random-number stream. For `metric = "ndcg"` whole queries are assigned to folds (a
#' query is never split), so `nfolds` is at most the number of queries; for `"accuracy"`, `"logloss"`
#' and `"auc"` with a 0/1 response the folds are drawn within each class (stratified), so that every
#' fold holds both classes when each class has at least `nfolds` rows.
#'
#' @section Averaging and timeliness:
#' The held-out curves of the folds have different sequences, hence different costs. The mean curve at
#' each `lambda` is taken on a common grid, the union of the cumulative costs of all folds' curves,
#' each fold's curve read as a step function there (the value of its longest prefix within the cost,
#' what an interrupted predictor delivers): `mean` is the average over folds and `se` its standard error
#' `sd / sqrt(nfolds)`. The CV timeliness of a `lambda` is the mean over folds of each held-out curve's
#' timeliness up to ONE stopping cost `B` shared by all `lambda`s, so that they are comparable: by
#' default the alpha-stopping cost of the fit on all data at the first `lambda` of the grid, which plays
#' the reference's part as in [compare_sequences()] (the default grid starts at [fgseq()]'s default
#' `lambda`). The best `lambda` has the largest mean timeliness with `interpolation` (smallest for the
#' losses `"mse"` and `"logloss"`); ties go to the first in the grid.
#'
#' @inheritParams fgseq
#' @inheritParams anytime_curve
#' @param lambda Numeric vector of non-negative ridge constants (see [fgseq()]) to cross-validate.
#' @param nfolds Whole number between 2 and the number of rows (of queries for `"ndcg"`); ignored when
#'   `foldid` is given.
#' @param foldid `NULL`, or one fold label per row of `x` (at least two distinct labels).
#' @param metric The held-out metric, as in [anytime_curve()].
#' @param alpha Number in `(0, 1]` for the alpha-stopping cost of the reference fit.
#' @param seed `NULL` or a number: the seed of the fold draw (the session's random-number state is left
#'   as it was).
#' @param query For `metric = "ndcg"`: one query id per row of `x`.
#' @param interpolation `"linear"` (the paper's) or `"step"`: the timeliness that picks the best
#'   `lambda`. Both are reported.
#' @param stop_cost `NULL` (see above) or a positive number in cost units: the stopping cost `B`.
#' @param progress Logical: show a progress bar (through the cli package) while the folds are fitted.
#' @param ... Further arguments to [fgseq()] (`method`, `criterion`, `cost_sensitive`, ...). Warnings
#'   about constant columns of a training fold are not repeated for every fold.
#' @return An object of class `"cv_fgseq"`, a list with
#' * `timeliness`: data frame with one row per `lambda` and columns `lambda`, `linear`, `linear_se`,
#'   `step`, `step_se` (mean CV timeliness over folds and its standard error);
#' * `curve`: data frame (long format) with columns `lambda`, `cost` (the common cost grid of that
#'   `lambda`, cost units), `mean` and `se` of the held-out metric;
#' * `lambda`, `lambda_best`, `fit` (the [fgseq()] fit on all data at `lambda_best`), `stop_cost`
#'   (cost units), `alpha`, `metric`, `k`, `interpolation`, `foldid` (integer fold of each row, `1..nfolds`)
#'   and `nfolds`.
#'
#' `print()` shows the timeliness table and the best `lambda`; `plot()` draws the mean CV curve of a
#' `lambda` (default the best) with a band of one standard error and the stopping cost.
#' @section Errors: Stops when `lambda` holds negative, NA or infinite values; when `nfolds` is not a
#'   whole number between 2 and the number of rows (queries); when `foldid` has the wrong length, NA or a
#'   single fold; when `alpha` is not in `(0, 1]`; when `seed` is not a single number; when `stop_cost`
#'   is not a positive number; as [anytime_curve()] for `metric`, `query` and `k` (with `query` checked
#'   on all rows); and as [fgseq()] for `x`, `y`, `group`, `cost` and the fits of the folds.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#' @seealso [fgseq()], [anytime_curve()], [timeliness()].
#' @examples
#' mm <- model.matrix(diagnosis ~ ., heart)
#' terms <- attr(terms(diagnosis ~ ., data = heart), "term.labels")
#' grp <- terms[attr(mm, "assign")[-1]]
#' cv <- cv_fgseq(mm[, -1], heart$diagnosis, group = grp, cost = heart_cost,
#'                lambda = c(1e-6, 0.1, 1), nfolds = 5, seed = 1)
#' cv
#' plot(cv)
#' predict(cv$fit, mm[1:3, -1], budget = 20)
#' @export
cv_fgseq <- function(x, y, group = NULL, cost = NULL, lambda = 10^seq(-6, 0), nfolds = 10, foldid = NULL,
                     metric = "r2", alpha = 0.97, seed = NULL, query = NULL, k = 5,
                     interpolation = c("linear", "step"), stop_cost = NULL, progress = TRUE, ...) {
  check_dots(..., forwarded = setdiff(names(formals(fgseq.default)), c("x", "y", "group", "cost", "lambda")))
  x <- check_x(x)
  n <- nrow(x)
  family <- list(...)$family
  if (is.null(family) || identical(family, "gaussian")) y <- check_y(y, n)
  group <- check_group(group, x)
  cost <- group_measurements(cost, list(...)$needs, unique(group))$measurement_cost
  lambda <- check_lambda_grid(lambda)
  metric <- check_metric(metric)
  alpha <- check_alpha(alpha)
  seed <- check_seed(seed)
  interpolation <- match.arg(interpolation)
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

  reference <- fgseq(x, y, group, cost, lambda = lambda[1L], ...)
  B <- if (is.null(stop_cost)) stop_cost(reference, alpha = alpha) else stop_cost
  L <- length(lambda)
  t_lin <- t_step <- matrix(NA_real_, L, nfolds)
  curves <- vector("list", L)
  if (progress) {
    bar <- cli::cli_progress_bar("Cross-validating fgseq", total = L * nfolds, clear = TRUE)
  }
  for (l in seq_len(L)) {
    curves[[l]] <- vector("list", nfolds)
    for (f in seq_len(nfolds)) {
      test <- foldid == f
      fit <- quiet_constant(fgseq(x[!test, , drop = FALSE], take_rows(y, !test), group, cost,
                                  lambda = lambda[l], ...))
      cv <- anytime_curve(fit, x[test, , drop = FALSE], take_rows(y, test), metric = metric,
                          query = if (metric == "ndcg") query[test], k = k)
      curves[[l]][[f]] <- cv
      t_lin[l, f] <- curve_timeliness(cv$cost, cv$value, B, "linear")
      t_step[l, f] <- curve_timeliness(cv$cost, cv$value, B, "step")
      if (progress) cli::cli_progress_update(id = bar)
    }
  }
  if (progress) cli::cli_progress_done(id = bar)

  se <- function(m) apply(m, 1L, stats::sd) / sqrt(nfolds)
  tab <- data.frame(lambda = lambda, linear = rowMeans(t_lin), linear_se = se(t_lin),
                    step = rowMeans(t_step), step_se = se(t_step))
  score <- tab[[interpolation]]
  best <- if (metric_higher_better(metric)) which.max(score) else which.min(score)
  fit <- if (best == 1L) reference else fgseq(x, y, group, cost, lambda = lambda[best], ...)
  curve <- do.call(rbind, lapply(seq_len(L), function(l) mean_curve(curves[[l]], lambda[l])))
  structure(list(timeliness = tab, curve = curve, lambda = lambda, lambda_best = lambda[best], fit = fit,
                 stop_cost = B, alpha = alpha, metric = metric, k = k, interpolation = interpolation,
                 foldid = foldid, nfolds = nfolds),
            class = "cv_fgseq")
}

# Rows of a response (a vector, a factor, or a matrix for multi-column responses).
take_rows <- function(y, i) if (is.matrix(y)) y[i, , drop = FALSE] else y[i]

# Evaluate `expr` with the fold-level warnings about constant columns muffled.
quiet_constant <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (inherits(w, c("fgseq_warning_constant", "fgseq_warning_constant_group"))) invokeRestart("muffleWarning")
  })
}

# Evaluate `expr` after set.seed(seed), then put the session's random-number state back as it was
# (also when there was none yet). With seed = NULL, just evaluate `expr`.
with_seed <- function(seed, expr) {
  if (is.null(seed)) return(expr)
  env <- globalenv()
  had <- exists(".Random.seed", envir = env, inherits = FALSE)
  old <- if (had) get(".Random.seed", envir = env, inherits = FALSE)
  on.exit(if (had) assign(".Random.seed", old, envir = env) else rm(".Random.seed", envir = env))
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
  check_dots(...)
  cat(x$nfolds, "-fold cross-validated timeliness of held-out ", metric_label(x$metric, x$k),
      " up to the stopping cost ", format(x$stop_cost, digits = digits), "\n\n", sep = "")
  print(format(x$timeliness, digits = digits), row.names = FALSE)
  cat("\nBest lambda (", x$interpolation, " timeliness): ", format(x$lambda_best, digits = digits),
      "; `$fit` holds the fit on all data at it.\n", sep = "")
  invisible(x)
}

#' @rdname cv_fgseq
#' @param which_lambda The `lambda` whose mean curve to draw (default: the best).
#' @param col Colour of the mean curve (its band is a lighter grey).
#' @param xlab,ylab,main Axis labels and title.
#' @export
plot.cv_fgseq <- function(x, which_lambda = x$lambda_best, col = 1, xlab = "cumulative cost", ylab = NULL,
                          main = NULL, ...) {
  cv <- x$curve[x$curve$lambda == which_lambda, , drop = FALSE]
  if (!nrow(cv)) abort("`which_lambda` must be one of the cross-validated `lambda` values.")
  if (is.null(ylab)) ylab <- paste("CV", metric_label(x$metric, x$k))
  if (is.null(main)) main <- paste0("lambda = ", format(which_lambda, digits = 3))
  lo <- cv$mean - cv$se
  hi <- cv$mean + cv$se
  graphics::plot(NA, xlim = range(cv$cost), ylim = range(lo, hi, if (x$metric == "r2") 0), xlab = xlab,
                 ylab = ylab, main = main, ...)
  graphics::lines(cv$cost, lo, type = "s", col = "grey60", lty = 2)
  graphics::lines(cv$cost, hi, type = "s", col = "grey60", lty = 2)
  graphics::lines(cv$cost, cv$mean, type = "s", col = col)
  graphics::abline(v = x$stop_cost, lty = 3, col = "grey40")
  invisible(cv)
}
