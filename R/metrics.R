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

# The metric at every step: a numeric vector of length K + 1.
metric_values <- function(metric, y, preds, family = NULL, query = NULL, k = 5) {
  one <- function(f) vapply(preds, f, numeric(1))
  if (is.matrix(y) && !identical(dim(y), dim(as.matrix(preds[[1L]])))) {
    abort("`newy` must have one column per response of the fit (", NCOL(preds[[1L]]), "); it has ",
          ncol(y), ".")
  }
  switch(metric,
    r2 = if (family_def(family)$linear) {
      sse <- one(function(p) sum((y - p)^2))
      1 - sse / sse[1L]
    } else {
      deviance_r2(y, preds, family)
    },
    mse = one(function(p) mse_value(y, p)),
    accuracy = one(function(p) accuracy_value(y, p)),
    ndcg = one(function(p) ndcg_value(y, p, query, k)),
    logloss = one(function(p) logloss_value(y, p)),
    auc = one(function(p) auc_value(y, p)))
}

# Mean squared error (over all entries for a multi-column response); for class probabilities (an
# n x L matrix) and a factor response, the multi-class Brier score.
mse_value <- function(y, p) {
  if (is.matrix(y)) return(mean((y - p)^2))
  if (is.matrix(p)) return(mean(rowSums((stats::model.matrix(~ y + 0) - p)^2)))
  mean((y - p)^2)
}

# Accuracy: a prediction above 0.5 is class 1 (0/1 response); for class probabilities (n x L matrix)
# the class of largest probability, the first one on ties, against the factor levels in order.
accuracy_value <- function(y, p) {
  if (is.matrix(p)) {
    if (!is.factor(y) || nlevels(y) != ncol(p)) {
      abort("metric \"accuracy\": the fit predicts ", ncol(p), " class probabilities; `newy` must be a ",
            "factor with as many levels.")
    }
    return(mean(max.col(p, ties.method = "first") == as.integer(y)))
  }
  if (is.factor(y)) {
    abort("metric \"accuracy\" with a factor of ", nlevels(y), " levels needs a fit that predicts one ",
          "probability per class; this fit predicts a single number per row.")
  }
  mean(as.numeric(p > 0.5) == y)
}

# Log-loss (mean negative log-likelihood of a 0/1 response), probabilities clipped to [eps, 1 - eps].
logloss_value <- function(y, p, eps = 1e-15) {
  p <- pmin(pmax(p, eps), 1 - eps)
  -mean(y * log(p) + (1 - y) * log(1 - p))
}

# Area under the ROC curve by the rank (Mann-Whitney) formula, ties counted one half.
auc_value <- function(y, p) {
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
# dev = -2 sum log p_{i, y_i}. Predictions are clipped away from 0 (and 1) by 1e-15.
deviance_r2 <- function(y, preds, family) {
  dev <- fgseq_families[[family]]$test_deviance
  if (is.null(dev)) {
    abort("metric \"r2\" is not available for family \"", family, "\"; use \"mse\" or another metric.")
  }
  d <- vapply(preds, function(p) dev(y, p), numeric(1))
  1 - d / d[1L]
}

# The response of a formula fit, taken from newdata as it is (no conversion: the metric checks it).
# (new_design() has already checked that the fit has terms and that newdata is a data frame.)
response_from_newdata <- function(object, newdata) {
  tt <- object$terms
  expr <- attr(tt, "variables")[[attr(tt, "response") + 1L]]
  missing <- setdiff(all.vars(expr), names(newdata))
  if (length(missing)) abort("`newdata` lacks the response ", paste(missing, collapse = ", "), ".")
  eval(expr, newdata, environment(tt))
}

# The test response for a curve with `metric`, from newy or from newdata, checked and cleaned.
curve_response <- function(object, newy, newdata, n, metric) {
  if (!is.null(newdata)) newy <- response_from_newdata(object, newdata)
  if (is.null(newy)) abort("give `newy` with `newx` (or `newdata` holding the response).")
  check_newy(newy, n, metric, object$family, object$classes)
}
