# Test-time metrics of an anytime curve. Every metric is computed from the response-scale predictions
# of each step k = 0..K of a fit (a list of K + 1 elements: a numeric vector of length n, or an
# n x L matrix of class probabilities), so that the same code serves Gaussian fits (predictions are the
# fitted values) and GLM fits (predict(type = "response"): probabilities or means).

# TRUE when a larger value of the metric is better ("mse" and "logloss" are losses).
metric_higher_better <- function(metric) !(metric %in% c("mse", "logloss"))

# A readable name of a metric, for axis labels and printed tables.
metric_label <- function(metric, k = 5) {
  switch(metric, r2 = "r2", mse = "mean squared error", accuracy = "accuracy",
         ndcg = paste0("NDCG@", k), logloss = "log-loss", auc = "AUC")
}

# Response-scale predictions of every step of `object` (any anytime fit: one row of its path per step)
# on the design matrix `x`: a list of K + 1 elements, element k + 1 the prediction of the model after
# step k. One predict() call for all steps (a boosted fit then adds each tree once). `newoffset`:
# the offset of the rows of x, for fits with an offset.
step_predictions <- function(object, x, newoffset = NULL) {
  K <- nrow(object$path) - 1L
  args <- list(object, x, step = 0:K, type = if (family_def(object$family)$linear) "link" else "response")
  if (!is.null(newoffset)) args$newoffset <- newoffset
  p <- do.call(predict, args)
  lapply(seq_len(K + 1L), function(j) {
    as_step_prediction(if (length(dim(p)) == 3L) p[, , j, drop = FALSE] else p[, j, drop = FALSE])
  })
}

# One step's prediction as a numeric vector, or as an n x L matrix of class probabilities.
as_step_prediction <- function(p) {
  d <- dim(p)
  if (length(d) == 3L) p <- matrix(p, d[1L], d[2L], dimnames = dimnames(p)[1:2])
  if (is.matrix(p) && ncol(p) == 1L) return(as.double(p[, 1L]))
  if (is.null(dim(p))) return(as.double(p))
  p
}

# The metric at every step: a numeric vector of length K + 1. `weights`: NULL or one non-negative
# weight per row (every metric but "ndcg" is then weighted: sums of squares and deviances weighted,
# means weighted, AUC over pairs weighted by the product of their weights).
metric_values <- function(metric, y, preds, family = NULL, query = NULL, k = 5, weights = NULL) {
  one <- function(f) vapply(preds, f, numeric(1))
  if (is.matrix(y) && !identical(dim(y), dim(as.matrix(preds[[1L]])))) {
    abort("`newy` must have one column per response of the fit (", NCOL(preds[[1L]]), "); it has ",
          ncol(y), ".")
  }
  switch(metric,
    r2 = if (family_def(family)$linear) {
      sse <- one(function(p) sum(row_weighted((y - p)^2, weights)))
      1 - sse / sse[1L]
    } else {
      deviance_r2(y, preds, family, weights)
    },
    mse = one(function(p) mse_value(y, p, weights)),
    accuracy = one(function(p) accuracy_value(y, p, weights)),
    ndcg = one(function(p) ndcg_value(y, p, query, k)),
    logloss = one(function(p) logloss_value(y, p, weights)),
    auc = one(function(p) auc_value(y, p, weights)))
}

# Row values (a vector, or a matrix with one row per observation) times the rows' weights (NULL: as
# they are).
row_weighted <- function(v, weights) if (is.null(weights)) v else v * weights

# The mean of the rows' values (summed over the columns of a matrix, divided by its number of
# columns), weighted by `weights` when given.
weighted_mean <- function(v, weights) {
  if (is.null(weights)) return(mean(v))
  sum(row_weighted(v, weights)) / (sum(weights) * NCOL(v))
}

# Mean squared error (over all entries for a multi-column response); for class probabilities (an
# n x L matrix) and a factor response, the multi-class Brier score.
mse_value <- function(y, p, weights = NULL) {
  if (is.matrix(y)) return(weighted_mean((y - p)^2, weights))
  if (is.matrix(p)) return(weighted_mean(rowSums((stats::model.matrix(~ y + 0) - p)^2), weights))
  weighted_mean((y - p)^2, weights)
}

# Accuracy: a prediction above 0.5 is class 1 (0/1 response); for class probabilities (n x L matrix)
# the class of largest probability, the first one on ties, against the factor levels in order.
accuracy_value <- function(y, p, weights = NULL) {
  if (is.matrix(p)) {
    if (!is.factor(y) || nlevels(y) != ncol(p)) {
      abort("metric \"accuracy\": the fit predicts ", ncol(p), " class probabilities; `newy` must be a ",
            "factor with as many levels.")
    }
    return(weighted_mean(max.col(p, ties.method = "first") == as.integer(y), weights))
  }
  if (is.factor(y)) {
    abort("metric \"accuracy\" with a factor of ", nlevels(y), " levels needs a fit that predicts one ",
          "probability per class; this fit predicts a single number per row.")
  }
  weighted_mean(as.numeric(p > 0.5) == y, weights)
}

# Log-loss (mean negative log-likelihood of a 0/1 response), probabilities clipped to [eps, 1 - eps].
logloss_value <- function(y, p, weights = NULL, eps = 1e-15) {
  p <- pmin(pmax(p, eps), 1 - eps)
  -weighted_mean(y * log(p) + (1 - y) * log(1 - p), weights)
}

# Area under the ROC curve by the rank (Mann-Whitney) formula, ties counted one half.
auc_value <- function(y, p, weights = NULL) {
  if (!is.null(weights)) {
    # weighted pairs: each (class 1, class 0) pair counts the product of its weights
    u <- sort(unique(p))
    at <- match(p, u)
    pos <- y == 1
    w0 <- vapply(split(weights[!pos], factor(at[!pos], levels = seq_along(u))), sum, numeric(1))
    below <- cumsum(w0) - w0
    return(sum(weights[pos] * (below[at[pos]] + w0[at[pos]] / 2)) / (sum(weights[pos]) * sum(weights[!pos])))
  }
  r <- rank(p, ties.method = "average")
  n1 <- sum(y == 1)
  n0 <- length(y) - n1
  (sum(r[y == 1]) - n1 * (n1 + 1) / 2) / (n1 * n0)
}

# NDCG@k averaged over queries. Within a query, documents are ranked by decreasing prediction, ties
# broken by their original order; DCG@k = sum_{i <= k} (2^rel_i - 1) / log2(i + 1), divided by the DCG@k
# of the ideal ranking. Queries whose documents all have relevance 0 have no ideal DCG and are left
# out of the average.
ndcg_value <- function(rel, score, query, k) {
  per <- vapply(split(seq_along(rel), query), function(i) ndcg_query(rel[i], score[i], k), numeric(1))
  mean(per[!is.na(per)])
}

ndcg_query <- function(rel, score, k) {
  m <- min(k, length(rel))
  discount <- 1 / log2(seq_len(m) + 1)
  ideal <- sum((2^sort(rel, decreasing = TRUE)[seq_len(m)] - 1) * discount)
  if (ideal <= 0) return(NA_real_)
  ranked <- order(-score, seq_along(score))
  sum((2^rel[ranked[seq_len(m)]] - 1) * discount) / ideal
}

# Fraction of deviance explained, 1 - dev_k / dev_0, for the GLM families (dev_0: the step-0 model), by
# the family's `test_deviance`: binomial dev = -2 sum(y log p + (1 - y) log(1 - p)); Poisson
# dev = 2 sum(y log(y / mu) - (y - mu)); multinomial (n x L probabilities, y a factor)
# dev = -2 sum log p_{i, y_i}. Predictions are clipped away from 0 (and 1) by 1e-15. Rows weighted by
# `weights` when given.
deviance_r2 <- function(y, preds, family, weights = NULL) {
  dev <- fgseq_families[[family]]$test_deviance
  if (is.null(dev)) {
    abort("metric \"r2\" is not available for family \"", family, "\"; use \"mse\" or another metric.")
  }
  d <- vapply(preds, function(p) dev(y, p, if (is.null(weights)) 1 else weights), numeric(1))
  1 - d / d[1L]
}

# The test response for a curve with `metric`, from newy or from newdata, checked and cleaned.
curve_response <- function(object, newy, newdata, n, metric) {
  if (!is.null(newdata)) newy <- response_from_newdata(object, newdata)
  if (is.null(newy)) abort("give `newy` with `newx` (or `newdata` holding the response).")
  check_newy(newy, n, metric, object$family, object$classes)
}

# The metrics of anytime_curve(); "mse" and "logloss" are losses (smaller is better).
metric_names <- c("r2", "mse", "accuracy", "ndcg", "logloss", "auc")

check_metric <- function(metric) {
  if (!is.character(metric) || length(metric) != 1L || is.na(metric) || !(metric %in% metric_names)) {
    abort("`metric` must be one of ", paste0("\"", metric_names, "\"", collapse = ", "), ".")
  }
  metric
}

# What a response must look like for a metric (and the fit's family):
# "numeric" (r2, mse of a Gaussian fit), "matrix" (r2, mse of a mgaussian fit), "binary" (0/1), "class" (0/1 or a factor), "grade"
# (relevance grades for NDCG), "count" (Poisson deviance), "factor" (multinomial deviance).
newy_kind <- function(metric, family = NULL) {
  switch(metric,
    r2 = family_def(family)$newy[["r2"]],
    mse = family_def(family)$newy[["mse"]],
    accuracy = "class", ndcg = "grade", logloss = "binary", auc = "binary")
}

# newy for a test curve: cleaned to what the metric computes with (a double vector, or a factor for
# class responses with more than two levels).
check_newy <- function(newy, n, metric, family = NULL, classes = NULL) {
  kind <- newy_kind(metric, family)
  if (kind == "matrix") {
    if (is.data.frame(newy)) newy <- as.matrix(newy)
    if (!is.matrix(newy) || !is.numeric(newy) || nrow(newy) != n) {
      abort("`newy` must be a numeric matrix with one row per row of `newx` (", n, ") for a mgaussian fit.")
    }
    if (!all(is.finite(newy))) abort("`newy` contains NA, NaN or Inf.")
    storage.mode(newy) <- "double"
    return(newy)
  }
  if (is.matrix(newy) && ncol(newy) == 1L) newy <- newy[, 1L]
  if (kind == "numeric") {
    if (is.factor(newy) && nlevels(newy) == 2L) newy <- as.numeric(newy == levels(newy)[2L])
    if (is.logical(newy)) newy <- as.numeric(newy)
    if (!is.numeric(newy) || !is.null(dim(newy)) || length(newy) != n) {
      abort("`newy` must be a numeric vector with one value per row of `newx` (", n, ").")
    }
    if (!all(is.finite(newy))) abort("`newy` contains NA, NaN or Inf.")
    return(as.double(newy))
  }
  if (!is.atomic(newy) || !is.null(dim(newy)) || length(newy) != n) {
    abort("`newy` must have one value per row of `newx` (", n, "); it has ", NROW(newy), ".")
  }
  if (anyNA(newy) || (is.numeric(newy) && !all(is.finite(newy)))) abort("`newy` contains NA, NaN or Inf.")
  if (is.factor(newy) && !is.null(classes)) newy <- check_classes(newy, classes)
  if (kind %in% c("binary", "class")) {
    if (is.factor(newy) && nlevels(newy) == 2L) return(as.numeric(newy == levels(newy)[2L]))
    if (is.logical(newy)) return(as.numeric(newy))
    if (is.numeric(newy) && all(newy == 0 | newy == 1)) return(as.double(newy))
    if (kind == "class" && is.factor(newy)) return(newy)
    abort("`newy` must be 0/1, logical or a ", if (kind == "binary") "two-level " else "", "factor for ",
          "metric \"", metric, "\".")
  }
  if (kind == "grade") {
    if (is.logical(newy)) newy <- as.numeric(newy)
    if (!is.numeric(newy) || any(newy < 0)) {
      abort("`newy` must hold non-negative relevance grades for metric \"ndcg\".")
    }
    return(as.double(newy))
  }
  if (kind == "count") {
    if (!is.numeric(newy) || any(newy < 0)) abort("`newy` must hold non-negative counts for a poisson fit.")
    return(as.double(newy))
  }
  # factor: multinomial
  if (!is.factor(newy)) abort("`newy` must be a factor of the classes for a multinomial fit.")
  newy
}

# A factor response of a classification fit, relevelled to the fit's classes (in the fit's order).
check_classes <- function(newy, classes) {
  unknown <- setdiff(unique(as.character(newy)), classes)
  if (length(unknown)) {
    abort("`newy` has classes the fit was not trained on: ", paste(unknown, collapse = ", "),
          "; the fit's classes are ", paste(classes, collapse = ", "), ".")
  }
  factor(as.character(newy), levels = classes)
}

# query ids for NDCG: one per row, no NA, every query with at least two documents.
check_query <- function(query, n) {
  if (is.null(query)) abort("metric \"ndcg\" needs `query`, one query id per row of `newx`.")
  if (!is.atomic(query) || !is.null(dim(query)) || length(query) != n || anyNA(query)) {
    abort("`query` must have one id per row of `newx` (", n, "), without NA.")
  }
  sizes <- table(query)
  single <- names(sizes)[sizes < 2L]
  if (length(single)) {
    abort("`query` has ", length(single), " quer", if (length(single) == 1L) "y" else "ies",
          " with a single document (", paste(utils::head(single, 5L), collapse = ", "),
          if (length(single) > 5L) ", ..." else "", "); NDCG needs at least 2 documents per query: ",
          "drop those rows.")
  }
  query
}

# At least one query must have a document of positive relevance, or NDCG is undefined.
check_ndcg_relevance <- function(rel, query) {
  if (!any(tapply(rel, query, max) > 0)) {
    abort("metric \"ndcg\" needs a query with a document of positive relevance in `newy`; all grades are 0.")
  }
  invisible(rel)
}

check_two_classes <- function(y, metric) {
  if (length(unique(y)) < 2L) abort("metric \"", metric, "\" needs both classes in `newy`; it has only one.")
  invisible(y)
}

# The depth of NDCG@k.
check_k <- function(k) check_whole(k, "k", 1, what = "the depth of NDCG@k")
