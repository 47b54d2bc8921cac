#' A Gaussian mixture working model for an acquisition policy
#'
#' [fgseq_policy()] predicts what an unmeasured group would say from a working model of `x`; by
#' default one Gaussian, the training mean and covariance the fit stores. Where the informative group
#' depends on the row (a class, a subtype, a regime that the cheap groups hint at), one Gaussian
#' averages the regimes and cannot tell a row that needs the expensive group from one that does not.
#' `fgseq_mixture()` fits a mixture of `components` Gaussians to rows of the model's columns (those of
#' the groups in the fit's sequence), for `fgseq_policy(working_model = )`: given a row's observed
#' groups, each component's posterior weight follows from the density of what was observed, and the
#' decision risk and its expected value after each group are those of the mixture (see the section
#' Working model and risk of [fgseq_policy()]).
#'
#' @section The fit:
#' Expectation-maximisation from a k-means start (`stats::kmeans()` on the standardized columns, 10
#' starts; the random number generator is used, so `set.seed()` makes the fit reproducible). Each
#' component's covariance is the maximum a posteriori estimate under an inverse-Wishart prior centred at
#' the pooled covariance of the rows with `q + 2` pseudo-rows (`q` the number of columns),
#' `(S_k + (q + 2) Sigma) / (n_k + q + 2)` with `S_k` the component's weighted scatter and `n_k` its weight:
#' a full covariance per component from a few hundred rows needs the pull towards the pooled one, and
#' with one component the working model is the pooled Gaussian itself. A ridge of `1e-8` times each
#' column's variance plus `1e-6` times their mean keeps the pooled covariance positive definite (a
#' column that is constant on the rows). The iterations stop when the log-likelihood changes by at
#' most `1e-8` of its value, or after `iterations`. Rows are weighted equally.
#'
#' With several values of `components` (the default `1:9`, as mclust's), each is fitted and the one of
#' least BIC is kept (Schwarz 1978): `-2 loglik + p log(n)` with `p = K (q + q (q + 1) / 2) + K - 1`
#' free parameters (the prior's pull not counted). With one component kept, [fgseq_policy()] uses
#' the single Gaussian's closed-form risk on its mean and covariance, without draws.
#'
#' Fit the mixture on rows other than the calibration rows of the policy (the training rows serve):
#' the guarantee of [fgseq_policy()] holds for any working model, but only if it was not chosen on the
#' calibration rows.
#'
#' @section The draws:
#' The expected risk after a group is an average over `draws` fixed standard normal vectors (`draws /
#' 2` drawn by `stats::rnorm()` and their negatives, antithetic pairs), the same for every row, node
#' and group, stored in the result: the policy's choices are a deterministic function of the row's
#' values. More draws make the expected risk closer to its integral (the error of the average falls as
#' `1 / sqrt(draws)`) and the policy slower in proportion. A node's rows share what does not depend on
#' their values; each row then pays about `K^2 (d^2 + d * draws)` operations per candidate group of
#' `d` columns (`K` components), so that a mixture policy is much slower than the single Gaussian's
#' closed form: about 100 times on the synthetic set of `bench/bench-adaptive.R` (7 components, 64
#' draws, groups of 3 columns).
#'
#' @param fit An `"fgseq"` fit ([fgseq()]) with at least one step.
#' @param x The rows to fit the mixture on: a numeric matrix (or sparse matrix) with the training
#'   columns, complete in the columns of the groups of the fit's sequence (matrix fits); `NULL` with
#'   `data` `NULL`: the training x when the fit keeps it.
#' @param data For formula fits, the rows as a data frame (used instead of `x`).
#' @param components The number of Gaussian components: a whole number `>= 1`, or several, each fitted
#'   and the one of least BIC kept (see the section The fit); at most half the rows.
#' @param draws The number of standard normal draws of the expected risk (an even whole number `>= 2`).
#' @param iterations The most iterations of expectation-maximisation (a whole number `>= 1`).
#' @param ... Not used: an unknown argument is an error.
#' @return An object of class `"fgseq_mixture"`: a list with `columns` (the names of the `q` model
#'   columns), `components` (K), `proportion` (K mixing proportions), `mean` (K x q), `cov` (a list of K
#'   q x q covariances), `loglik` (the log-likelihood of the rows at the fit), `iterations`, `converged`,
#'   `n` (rows), `prior_rows` (`q + 2`), `selection` (a data frame: `components`, `loglik`, `bic` and
#'   `chosen`, one row per number of components fitted) and `draws` (`draws` x the largest group's
#'   number of columns).
#'   Components that end with no weight are dropped.
#' @section Errors: Stops (class `fgseq_error_input`, naming the argument) when `components`, `draws`
#'   or `iterations` is not a whole number in its range, `draws` is odd, or there are fewer than two
#'   rows per component; when `fit` is not an `"fgseq"` fit or has no step; when the rows lack a value
#'   in the model's columns (class `fgseq_error_na`) or have other columns than the fit; when `x` and
#'   `data` are both `NULL` and the fit does not keep its training x; when an argument is unknown (class
#'   `fgseq_error_unknown_argument`).
#' @references Schwarz, G. (1978). Estimating the dimension of a model. *Annals of Statistics* 6,
#'   461-464.
#'
#'   Dempster, A. P., Laird, N. M. and Rubin, D. B. (1977). Maximum likelihood from incomplete
#'   data via the EM algorithm. *Journal of the Royal Statistical Society B* 39, 1-38.
#'
#'   Fraley, C. and Raftery, A. E. (2007). Bayesian regularization for normal mixture estimation and
#'   model-based clustering. *Journal of Classification* 24, 155-181 (the conjugate prior of the
#'   covariances).
#' @seealso [fgseq_policy()], `vignette("adaptive")`.
#' @examples
#' set.seed(1)
#' train <- sample(nrow(heart), 150)
#' fit <- fgseq(diagnosis ~ ., data = heart[train, ], cost = heart_cost, family = "binomial",
#'              lambda = 1e-3)
#' mix <- fgseq_mixture(fit, data = heart[train, ], components = 2, draws = 16)
#' mix
#' policy <- fgseq_policy(fit, data = heart[-train, ], epsilon = 0.1, working_model = mix)
#' policy
#' @export
fgseq_mixture <- function(fit, x = NULL, data = NULL, components = 1:9, draws = 64, iterations = 200, ...) {
  check_dots(...)
  validate_fit(fit, "fit")
  if (!inherits(fit, "fgseq")) abort("`fit` must be an \"fgseq\" fit (fgseq()).")
  if (!length(fit$sequence)) abort("`fit` has no step: a working model is of the columns of the groups in its sequence.")
  if (!is.numeric(components) || !length(components) || anyNA(components) || any(components < 1) ||
      any(components != round(components))) {
    abort("`components` must be whole numbers >= 1 (one, or several to choose among by BIC).")
  }
  components <- sort(unique(as.integer(components)))
  draws <- check_number(draws, "draws", lower = 2, whole = TRUE)
  if (draws %% 2 != 0) abort("`draws` must be even (draws / 2 normal vectors and their negatives); it is ", draws, ".")
  iterations <- check_number(iterations, "iterations", lower = 1, whole = TRUE)
  if (is.null(x) && is.null(data)) {
    if (is.null(fit[["x"]])) {
      abort("give the rows to fit the mixture on as `x` (or `data` for a formula fit): this fit does not keep its training x.")
    }
    X <- as.matrix(fit[["x"]])
  } else {
    X <- policy_rows(fit, x, NULL, data, "x")$x
  }
  cols <- which(fit$group %in% fit$sequence)
  X <- X[, cols, drop = FALSE]
  colnames(X) <- names(fit$group)[cols]
  if (anyNA(X)) abort("the rows hold NA in the model's columns; the mixture is fitted on complete rows.", class = "na")
  if (nrow(X) < 2 * max(components)) {
    abort("`components` = ", max(components), " needs at least ", 2 * max(components),
          " rows (two per component); there are ", nrow(X), ".")
  }
  fits <- lapply(components, function(K) mixture_em(X, K, as.integer(iterations)))
  q <- ncol(X)
  bic <- vapply(fits, function(f) {
    K <- length(f$proportion)
    -2 * f$loglik + (K * (q + q * (q + 1) / 2) + K - 1) * log(nrow(X))
  }, numeric(1))
  em <- fits[[which.min(bic)]]
  selection <- data.frame(components = components, loglik = vapply(fits, `[[`, numeric(1), "loglik"), bic = bic,
                          chosen = seq_along(fits) == which.min(bic))
  sizes <- table(factor(fit$group[cols], levels = fit$sequence))
  half <- matrix(stats::rnorm(draws / 2 * max(sizes)), draws / 2)
  structure(c(list(columns = colnames(X), components = length(em$proportion)), em,
              list(n = nrow(X), prior_rows = ncol(X) + 2L, selection = selection, draws = rbind(half, -half))),
            class = "fgseq_mixture")
}

# log N(x; mu, S) for the rows of X.
mixture_log_density <- function(X, mu, S) {
  U <- chol(S)
  Z <- backsolve(U, t(X) - mu, transpose = TRUE)
  -0.5 * colSums(Z^2) - sum(log(diag(U))) - 0.5 * ncol(X) * log(2 * pi)
}

# Expectation-maximisation of a K-component Gaussian mixture of the rows of X (n x q) from a k-means
# start, each covariance the MAP estimate under the inverse-Wishart prior centred at the pooled
# covariance with q + 2 pseudo-rows (see ?fgseq_mixture). Returns list(proportion, mean (K x q), cov
# (list), loglik, iterations, converged), components of no weight dropped.
mixture_em <- function(X, K, iterations) {
  n <- nrow(X)
  q <- ncol(X)
  mu0 <- colMeans(X)
  D0 <- sweep(X, 2, mu0)
  v <- colMeans(D0^2)
  pooled <- crossprod(D0) / n + diag(1e-8 * v + 1e-6 * max(mean(v), 1e-12), q)
  dimnames(pooled) <- list(colnames(X), colnames(X))
  if (K == 1L) {
    ll <- sum(mixture_log_density(X, mu0, pooled))
    return(list(proportion = 1, mean = matrix(mu0, 1L, dimnames = list(NULL, colnames(X))), cov = list(pooled),
                loglik = ll, iterations = 0L, converged = TRUE))
  }
  n0 <- q + 2
  start <- stats::kmeans(sweep(D0, 2, pmax(sqrt(v), 1e-12), "/"), K, nstart = 10L, iter.max = 50L)$cluster
  R <- outer(start, seq_len(K), "==") + 0
  old <- -Inf
  converged <- FALSE
  for (it in seq_len(iterations)) {
    nk <- colSums(R)
    proportion <- nk / n
    mu <- crossprod(R, X) / pmax(nk, 1e-300)
    mu[nk == 0, ] <- rep(mu0, each = sum(nk == 0))
    S <- lapply(seq_len(K), function(k) {
      D <- sweep(X, 2, mu[k, ])
      (crossprod(D * sqrt(R[, k])) + n0 * pooled) / (nk[k] + n0)
    })
    L <- vapply(seq_len(K), function(k) log(proportion[k]) + mixture_log_density(X, mu[k, ], S[[k]]), numeric(n))
    L <- matrix(L, n)
    top <- apply(L, 1L, max)
    ll <- sum(top + log(rowSums(exp(L - top))))
    R <- exp(L - top)
    R <- R / rowSums(R)
    if (ll - old <= 1e-8 * abs(ll)) {
      converged <- TRUE
      break
    }
    old <- ll
  }
  keep <- proportion > 0
  mu <- mu[keep, , drop = FALSE]
  colnames(mu) <- colnames(X)
  list(proportion = proportion[keep], mean = mu, cov = lapply(S[keep], function(s) { dimnames(s) <- dimnames(pooled); s }),
       loglik = ll, iterations = it, converged = converged)
}

#' @export
print.fgseq_mixture <- function(x, ...) {
  check_dots(...)
  cat("Gaussian mixture working model: ", x$components, " component", if (x$components > 1L) "s", " of ",
      length(x$columns), " columns, fitted on ", x$n, " rows", sep = "")
  cat(if (x$components > 1L) paste0(" (EM, ", x$iterations, " iterations, ", if (x$converged) "converged" else "not converged", ")"),
      "\n", sep = "")
  cat("Proportions: ", paste(format(x$proportion, digits = 3), collapse = " "), "\n", sep = "")
  cat("Log-likelihood ", format(x$loglik, digits = 6), "; ", nrow(x$draws), " draws of the expected risk\n", sep = "")
  invisible(x)
}

# An "fgseq_mixture" as fgseq_mixture() made it, for the columns `names_x` of a policy.
validate_mixture <- function(mixture, names_x, arg = "working_model") {
  if (!inherits(mixture, "fgseq_mixture")) {
    abort("`", arg, "` must be NULL (the fit's own moments, one Gaussian) or an \"fgseq_mixture\" (fgseq_mixture()).")
  }
  K <- length(mixture$proportion)
  q <- length(mixture$columns)
  ok <- K >= 1L && is.matrix(mixture$mean) && all(dim(mixture$mean) == c(K, q)) && is.list(mixture$cov) &&
    length(mixture$cov) == K && all(vapply(mixture$cov, function(s) is.matrix(s) && all(dim(s) == q), logical(1))) &&
    all(is.finite(mixture$proportion)) && all(mixture$proportion > 0) && is.matrix(mixture$draws) &&
    all(is.finite(mixture$draws)) && all(is.finite(mixture$mean))
  if (!ok) {
    abort("`", arg, "` is not an \"fgseq_mixture\" as fgseq_mixture() made it (edited or damaged); fit it again.",
          class = "invalid_object")
  }
  missing <- setdiff(names_x, mixture$columns)
  if (length(missing)) {
    abort("`", arg, "` was fitted to other columns than the policy's model (", paste(utils::head(missing, 3L), collapse = ", "),
          if (length(missing) > 3L) ", ...", " missing): fit it with fgseq_mixture() on this fit.")
  }
  invisible(mixture)
}

# The components of a mixture working model for the conditional model of a step (columns `names_x`,
# of the groups `col_group`; coefficients B, q x P, intercepts a0): per component the joint
# covariance J of (x_S, eta), the means, the unconditional mean of eta, the variances and the log of the
# proportion; and the draws (their first columns, as many as the largest group has).
mixture_model <- function(mixture, names_x, col_group, B, a0) {
  validate_mixture(mixture, names_x)
  idx <- match(names_x, mixture$columns)
  components <- lapply(seq_along(mixture$proportion), function(k) {
    S <- unname(mixture$cov[[k]][idx, idx, drop = FALSE])
    mu <- unname(mixture$mean[k, idx])
    list(J = joint_covariance(S, B), mu = mu, base = as.numeric(a0) + colSums(mu * B), diag0 = diag(S),
         log_prior = log(mixture$proportion[k]))
  })
  d <- max(table(col_group))
  if (ncol(mixture$draws) < d) abort("`working_model` holds draws of ", ncol(mixture$draws), " columns; a group of the model has ", d, ": fit it again.",
                                     class = "invalid_object")
  list(components = components, draws = unname(mixture$draws[, seq_len(d), drop = FALSE]))
}
