# The conventions of glm(), glmnet and broom that a user of those packages reaches for: `type` of
# predict() partially matched (as predict.glm() matches it), predict(type = "coefficients" / "nonzero")
# (as predict.glmnet()), glmnet's argument names pointing to ours, a formula without `data` read from
# its environment (as glm()), distinct colours for many coefficient paths, and the broom verbs for
# cross-validated and Greedy Miser fits with the Miser's logLik().

# ---- predict(): type ---------------------------------------------------------------------------

# The prediction types of predict() for fgseq and miser fits; the first is the default.
prediction_types <- c("link", "response", "class", "groups", "measurements", "coefficients", "nonzero")

# `type` completed by partial matching against `choices`, as match.arg() completes it for
# predict.glm() ("resp" is "response"); a method's default vector (the whole of `choices`) is its first
# element. A value that matches no choice, or several, and a vector of several values other than the
# default (which predict.glm() refuses too), are returned as they are, for check_choice() to report.
match_type <- function(type, choices) {
  if (identical(type, choices)) return(choices[1L])
  if (is.character(type) && length(type) == 1L && !is.na(type) && nzchar(type)) {
    hit <- pmatch(type, choices)
    if (!is.na(hit)) return(choices[hit])
  }
  type
}

# predict(type = "coefficients") and predict(type = "nonzero") of an fgseq fit, as predict.glmnet()
# gives them: coef() at the budgets or steps; or, for each requested step, the indices of the columns
# of x with a nonzero coefficient (glmnet's nonzeroCoef(), named by column). A Greedy Miser fit has no
# coefficients.
coefficient_prediction <- function(object, budget, step, type) {
  if (is.null(object$beta)) {
    abort("`type = \"", type, "\"` needs a fit with coefficients (an fgseq fit); this is a ", class(object)[1L],
          " fit.")
  }
  cf <- coef(object, budget = budget, step = step)
  if (type == "coefficients") return(cf)
  mats <- if (is.list(cf)) cf else list(cf)
  cols <- colnames(mats[[1L]])
  out <- lapply(seq_along(cols), function(j) {
    nz <- Reduce(`|`, lapply(mats, function(m) m[-1L, j] != 0))  # multi-column fits: nonzero in any
    which(nz)
  })
  stats::setNames(out, cols)
}

# ---- glmnet's argument names ----------------------------------------------------------------------

# Stops, naming ours, when `...` holds an argument under glmnet's name (a name check_dots() would only
# call unknown): cv.glmnet()'s `type.measure` is cv_fgseq()'s `metric`.
check_glmnet_names <- function(...) {
  given <- ...names()
  if ("type.measure" %in% given) {
    abort("`type.measure` is cv.glmnet()'s name for what cv_fgseq() calls `metric`: give metric = one of ",
          paste0("\"", metric_names, "\"", collapse = ", "), ".", class = "unknown_argument")
  }
}

# ---- a formula without data ---------------------------------------------------------------------

# The data of a formula given without `data`, as glm() reads it: the formula's variables from its
# environment `env`, as a data frame (a matrix variable stays one column, as model.frame() keeps it).
# Variables whose length is not the response's (a constant such as the degree of poly(x, d)) stay in
# the environment, where model.frame() finds them. A `.` needs data (glm() refuses it too).
formula_env_data <- function(formula, env, form) {
  vars <- all.vars(formula)
  if ("." %in% vars) {
    abort("`", form, "` (the formula) uses `.`, which stands for the columns of `data`: give `data`, or name ",
          "the variables.", class = "formula")
  }
  values <- lapply(stats::setNames(vars, vars), get0, envir = env, inherits = TRUE)
  absent <- vars[vapply(values, is.null, logical(1))]
  if (length(absent)) {
    abort("`data` must be given with the formula interface when the formula's variables are not defined where ",
          "it is written (glm() reads them there too): ", paste(absent, collapse = ", "), " not found.",
          class = "formula")
  }
  lhs <- all.vars(formula[[2L]])
  n <- NROW(values[[if (length(lhs)) lhs[1L] else 1L]])
  values <- values[vapply(values, function(v) is.atomic(v) && NROW(v) == n, logical(1))]
  structure(values, class = "data.frame", row.names = .set_row_names(n))
}

# ---- colours of many lines ----------------------------------------------------------------------

# `n` distinct colours for the coefficient paths (matplot() would repeat its 6 colours): a qualitative
# HCL palette (equal chroma and luminance), as many hues as lines.
path_colours <- function(n) grDevices::hcl.colors(max(n, 1L), "Dark 3")[seq_len(n)]

# The label of each path at its right end (glmnet's plot(label = TRUE)): the column names of `beta`
# written beside the last coefficient, in each path's colour. As many as fit in the plot's height, one
# line of text apart: the paths of largest last |coefficient| first; the labels are then spread
# vertically so that none overlaps another or leaves the plot. Returns the labels and their positions,
# invisibly.
label_paths <- function(at, beta, col, cex = 0.7) {
  last <- beta[, ncol(beta)]
  cand <- which(last != 0)
  if (!length(cand)) return(invisible(data.frame(term = character(0), x = numeric(0), y = numeric(0))))
  usr <- graphics::par("usr")
  line <- 1.25 * graphics::strheight("M", units = "inches", cex = cex) * diff(usr[3:4]) / graphics::par("pin")[2L]
  room <- max(1L, floor(diff(usr[3:4]) / line))
  keep <- cand[order(-abs(last[cand]), cand)][seq_len(min(length(cand), room))]
  y <- spread_labels(unname(last[keep]), line, usr[3:4])
  x <- at[length(at)]
  graphics::text(rep(x, length(keep)), y, rownames(beta)[keep], pos = 4, cex = cex,
                 col = rep_len(col, nrow(beta))[keep], xpd = NA)
  invisible(data.frame(term = rownames(beta)[keep], x = x, y = y, stringsAsFactors = FALSE))
}

# Positions for labels wanted at heights `y`: at least `gap` apart and within `lim` (half a gap from
# each end), each as near its wanted height as that allows (`length(y) * gap` must fit in `lim`).
spread_labels <- function(y, gap, lim) {
  o <- order(y)
  v <- y[o]
  n <- length(v)
  lo <- lim[1L] + gap / 2
  hi <- lim[2L] - gap / 2
  v[1L] <- max(v[1L], lo)
  for (i in seq_len(n)[-1L]) v[i] <- max(v[i], v[i - 1L] + gap)
  v[n] <- min(v[n], hi)
  for (i in rev(seq_len(n - 1L))) v[i] <- min(v[i], v[i + 1L] - gap)
  out <- numeric(n)
  out[o] <- v
  out
}

# The x range of a plot that leaves room right of `range` for labels written there (pos = 4, `cex`):
# the range widened so that the longest label ends within the plot (at most 40% of its width).
room_for_labels <- function(range, labels, log_axis, cex = 0.7) {
  if (!length(labels)) return(range)
  w <- max(graphics::strwidth(labels, units = "inches", cex = cex)) +
    graphics::strwidth("M", units = "inches", cex = cex)
  f <- min(w / graphics::par("pin")[1L], 0.4)
  u <- if (log_axis) log10(range) else range
  wide <- diff(u) / (1.04 - 1.08 * f)
  u[2L] <- u[1L] + wide
  if (log_axis) 10^u else u
}

# ---- broom verbs for cv_fgseq and miser fits --------------------------------------------------

#' Tidy and glance at a cross-validated fit or a Greedy Miser fit
#'
#' The broom verbs (through the generics package) for [cv_fgseq()] and [miser()] fits, as broom gives
#' them for `cv.glmnet` and for models without coefficients. For a `cv_fgseq` object, `tidy()` gives one
#' row per `lambda` of the grid with its cross-validated timeliness, and `glance()` one row with the
#' choices; for a `miser` fit, `tidy()` gives its path (one row per boosting iteration) or its trees (one
#' row per node), and `glance()` one row describing the fit. [augment()][tidy.fgseq] of a Miser fit is
#' documented with that of fgseq fits.
#'
#' @param x A [cv_fgseq()] or [miser()] fit.
#' @param what For `tidy()` of a Miser fit: `"steps"` (the path) or `"trees"` (the nodes of the trees,
#'   as `x$trees`).
#' @param ... Not used: an unknown argument is an error.
#' @return Tibbles (of the tibble package, when installed; data frames otherwise). `tidy()` of a
#'   `cv_fgseq` object: columns `lambda`, `estimate` (the mean
#'   cross-validated timeliness, `cvm`), `std.error` (`cvsd`), `conf.low` (`cvlo`), `conf.high`
#'   (`cvup`) and `n_groups` (the groups in the sequence of the fit on all data at that `lambda`), as
#'   broom's `tidy()` of `cv.glmnet` objects. `glance()` of a `cv_fgseq` object: one row with
#'   `lambda.min`, `lambda.1se`, `budget.min`, `budget.1se` (cost units), `stop_cost`, `metric` and
#'   `nobs`. `tidy()` of a Miser fit: `x$path` (`what = "steps"`) or `x$trees` (`what = "trees"`).
#'   `glance()` of a Miser fit: one row with `family`, `cost_penalty`, `nobs`, `n_steps` (boosting
#'   iterations), `n_groups` (groups used), `total_cost`, `r2` (final training `r2`), `deviance`,
#'   `logLik`, `AIC` and `BIC` of the last step (NA where not defined or without training data).
#'   `augment()` of a `cv_fgseq` object: as [augment()][tidy.fgseq] of the chosen fit.
#' @section Errors: Stops when `what` is unknown or an argument is unknown; `augment()` also as
#'   [predict.cv_fgseq()] for `s` and `budget`, and as [augment()][tidy.fgseq].
#' @seealso [tidy.fgseq()] for fgseq fits; [logLik.miser()].
#' @examples
#' cv <- cv_fgseq(diagnosis ~ ., data = heart, cost = heart_cost, lambda = c(1, 1e-6), nfolds = 3,
#'                seed = 1, progress = FALSE)
#' tidy(cv)
#' glance(cv)
#' trees <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 20)
#' tidy(trees)
#' glance(trees)
#' @name tidy.cv_fgseq
#' @method tidy cv_fgseq
#' @export
tidy.cv_fgseq <- function(x, ...) {
  check_dots(...)
  tidy_table(data.frame(lambda = x$lambda, estimate = x$cvm, std.error = x$cvsd, conf.low = x$cvlo,
                        conf.high = x$cvup, n_groups = vapply(x$fgseq.fit, function(f) length(f$sequence), integer(1))))
}

#' @rdname tidy.cv_fgseq
#' @method glance cv_fgseq
#' @export
glance.cv_fgseq <- function(x, ...) {
  check_dots(...)
  tidy_table(data.frame(lambda.min = x$lambda.min, lambda.1se = x$lambda.1se, budget.min = x$budget.min,
                        budget.1se = x$budget.1se, stop_cost = x$stop_cost, metric = x$metric,
                        nobs = stats::nobs(x$fgseq.fit[[1L]]), stringsAsFactors = FALSE))
}

#' @rdname tidy.cv_fgseq
#' @param data,newdata,newx,type.predict,type.residuals For `augment()` of a `cv_fgseq` object: as for
#'   [augment()][tidy.fgseq] of the fit chosen by `s` at the budget `budget` (or `step`).
#' @param s,budget,step For `augment()` of a `cv_fgseq` object: the fit and its step, as for
#'   [predict.cv_fgseq()] (by default `lambda.1se` at `budget.1se`).
#' @method augment cv_fgseq
#' @export
augment.cv_fgseq <- function(x, data = NULL, newdata = NULL, newx = NULL, type.predict = c("link", "response"),
                             type.residuals = c("deviance", "pearson", "working", "response"), ...,
                             s = "lambda.1se", budget = "budget.1se", step = NULL) {
  validate_cv(x, "x")
  check_dots(...)
  if (missing(budget) && !is.null(step)) budget <- NULL  # the step given, not the chosen budget
  fit <- x$fgseq.fit[[resolve_s(x, s)]]
  augment.fgseq(fit, data = data, newdata = newdata, newx = newx, type.predict = type.predict,
                type.residuals = type.residuals, budget = resolve_budget(x, budget, s), step = step)
}

#' @rdname tidy.cv_fgseq
#' @method tidy miser
#' @export
tidy.miser <- function(x, what = c("steps", "trees"), ...) {
  check_dots(...)
  what <- check_choice(what, c("steps", "trees"), "what")
  tidy_table(if (what == "steps") x$path else x$trees)
}

#' @rdname tidy.cv_fgseq
#' @method glance miser
#' @export
glance.miser <- function(x, ...) {
  check_dots(...)
  K <- nrow(x$path) - 1L
  has_data <- !is.null(x[["x"]])
  fam <- family_def(x$family)
  ll <- if (has_data && !is.null(fam$loglik)) stats::logLik(x) else NULL
  used <- x$path$group[!is.na(x$path$group)]
  tidy_table(data.frame(family = fam$name, cost_penalty = x$cost_penalty, nobs = stats::nobs(x), n_steps = K,
                        n_groups = length(unlist(strsplit(used, ", ", fixed = TRUE))), total_cost = x$path$cost[K + 1L],
                        r2 = x$path$r2[K + 1L], deviance = if (has_data) stats::deviance(x) else NA_real_,
                        logLik = if (is.null(ll)) NA_real_ else as.numeric(ll),
                        AIC = if (is.null(ll)) NA_real_ else stats::AIC(ll),
                        BIC = if (is.null(ll)) NA_real_ else stats::BIC(ll), stringsAsFactors = FALSE))
}

#' @rdname tidy.fgseq
#' @method augment miser
#' @export
augment.miser <- function(x, data = NULL, newdata = NULL, newx = NULL, type.predict = c("link", "response"),
                          type.residuals = c("deviance", "pearson", "working", "response"), ...,
                          budget = NULL, step = NULL) {
  augment.fgseq(x, data = data, newdata = newdata, newx = newx, type.predict = type.predict,
                type.residuals = type.residuals, ..., budget = budget, step = step)
}

#' Log-likelihood of a Greedy Miser fit
#'
#' The log-likelihood of the model after a number of boosting iterations of a [miser()] fit on its
#' training data, as [stats::logLik()] gives it for [stats::glm()] fits with the same fitted means: for
#' the gaussian family with the maximum-likelihood variance (`RSS / n`, one more degree of freedom);
#' binomial and Poisson exactly (the sum of the weighted log densities). Its degrees of freedom are the
#' number of leaf values the trees of those iterations fitted plus the initial score (plus the variance
#' for gaussian fits): an upper bound on the effective degrees of freedom of shrunken trees, so that
#' [AIC()] and [BIC()] are conservative.
#'
#' @param object A [miser()] fit that keeps its training data.
#' @param budget,step The model (a single budget or step; by default the last step), as for
#'   [fitted()][fitted.fgseq].
#' @param ... Not used: an unknown argument is an error.
#' @return An object of class `"logLik"` with attributes `df` and `nobs` (rows of positive weight).
#' @section Errors: Stops (class `fgseq_error_no_data`) for a fit without training data (`keep_data =
#'   FALSE`), for the mgaussian family (no log-likelihood is defined by the package for it: use
#'   [deviance()]), and as [coef.fgseq()] for `budget` and `step`.
#' @references Xu, Z., Weinberger, K. Q. and Chapelle, O. (2012). The greedy miser: learning under
#'   test-time budgets. *ICML*. \url{https://arxiv.org/abs/1206.6451}
#' @examples
#' trees <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 20)
#' logLik(trees)
#' AIC(trees)
#' @export
logLik.miser <- function(object, ..., budget = NULL, step = NULL) {
  check_dots(...)
  f <- training_fit(object, budget, step)
  if (is.null(f$family$loglik)) {
    abort("logLik() is not defined for a ", f$family$name, " fit; use deviance().")
  }
  leaves <- sum(is.na(object$trees$feature) & object$trees$step <= f$step)
  ll <- f$family$loglik(f$y, f$mu, f$w, coefs = 1 + leaves)
  structure(ll$value, df = ll$df, nobs = sum(f$w != 0), class = "logLik")
}
