# Lean fits (keep_data = FALSE in fgseq(), miser() and cv_fgseq()): a fit without its training data.
#
# A fit from data keeps, by default, what fitted(), residuals(), deviance(), logLik(), model.matrix(),
# augment() and predict() without new data read: `x` (the matrix given, or the formula's model matrix),
# `y`, `weights`, `offset` and, for formula fits, the model frame `model`. With keep_data = FALSE none of
# them is kept (as glm(model = FALSE, x = FALSE, y = FALSE) keeps less, and glmnet keeps no data): what
# remains is the path, the coefficients, the costs, the terms and factor levels, and the call, of a size
# that grows with the number of columns and steps, not with the rows. The methods that need the
# training data then stop with an error of class fgseq_error_no_data (no_training_data()).

# The fields that hold training data, each of a size proportional to the number of rows.
training_fields <- c("x", "y", "weights", "offset", "model")

# `fit` without its training data, marked `keep_data = FALSE`. The fit's `nobs` stays, and nobs() of
# a fit with weights (the rows of positive weight) is kept as `nobs_positive`.
lean_fit <- function(fit) {
  if (!is.null(fit[["weights"]])) fit$nobs_positive <- sum(fit[["weights"]] != 0)
  # the moments of x that conditioning needs (fit_moments()), from the training x before it goes
  if (inherits(fit, "fgseq") && is.null(fit$moments) && !is.null(fit[["x"]])) {
    fit["moments"] <- list(fit_moments(fit, required = FALSE))
  }
  fit[names(fit) %in% training_fields] <- NULL
  fit$keep_data <- FALSE
  fit
}

# Applies `keep_data` (checked) to a fit: the fit itself, or its lean version.
apply_keep_data <- function(fit, keep_data) {
  if (check_flag(keep_data, "keep_data")) fit else lean_fit(fit)
}

# Stops when `object` holds no training data: a lean fit (keep_data = FALSE), or a fit made from chunks
# or sufficient statistics, with what to do instead.
no_training_data <- function(object) {
  if (isFALSE(object$keep_data)) {
    abort("this fit was made with keep_data = FALSE and holds no training data: give the training ",
          "observations as new data (`newdata` or `newx`, with the response for a metric), or refit with ",
          "keep_data = TRUE (the default) for fitted(), residuals(), deviance(), logLik(), model.matrix() ",
          "and augment() without new data.", class = "no_data")
  }
  # a formula fit (from chunks of data frames) takes its new observations as `newdata`
  arg <- if (!is.null(object$terms)) "`newdata`, a data frame" else "`newx`"
  abort("this fit holds no training data (it was made from chunks or sufficient statistics): give new ",
        "observations instead, as ", arg, ".", class = "no_data")
}
