# The working model of x behind prediction from any observed set of groups (predict(missing =
# "condition")) and the per-row acquisition policy (fgseq_policy()): the weighted mean `mu` and
# population covariance `Sigma` of the columns a fit's sequence uses, on the original scale of x, and
# the conditional distribution of a step's linear predictors given the columns observed.
#
# Under x ~ N(mu, Sigma), the linear predictor eta = a0 + x' beta of a step given the observed columns O
# (the others M) is normal with
#   E[eta | x_O]   = a0 + mu' beta + (beta_O + Sigma_OO^- Sigma_OM beta_M)' (x_O - mu_O)
#   Var[eta | x_O] = beta_M' (Sigma_MM - Sigma_MO Sigma_OO^- Sigma_OM) beta_M.
# Both come from the sweep operator (Goodnight 1979) on the joint covariance of (x_S, eta): sweeping the
# pivots of O leaves Sigma_OO^- Sigma_O,eta (the conditional coefficients) in the rows of O and the
# conditional covariance of eta in its own block. A group observed later is one more sweep of its
# pivots, so rows on the same path share every update (rank d_g each).

# The most columns whose moments a fit stores (option fgseq.moment_columns): q x q doubles.
moment_column_limit <- function() {
  limit <- getOption("fgseq.moment_columns", 5000)
  if (!is.numeric(limit) || length(limit) != 1L || is.na(limit) || limit < 0) {
    abort("option `fgseq.moment_columns` must be a number >= 0 (the most columns whose moments a fit stores).")
  }
  limit
}

# The moments of the columns of the groups of `sequence`, from an in-memory x (dense or sparse) with
# observation weights (NULL: 1 each), read in blocks of rows (no copy of x beyond a block): list(columns
# (names), mean (named), cov (q x q, divided by the sum of the weights)), or NULL when the sequence uses
# more columns than moment_column_limit() or the moments are not finite.
sequence_moments <- function(x, weights, group, sequence) {
  cols <- which(group %in% sequence)
  if (!length(cols) || length(cols) > moment_column_limit()) return(NULL)
  n <- nrow(x)
  w <- if (length(weights)) as.double(weights) else rep(1, n)
  sw <- sum(w)
  block <- max(1L, min(n, floor(2^22 / length(cols))))
  starts <- seq(1L, n, by = block)
  rows_of <- function(s) s:min(n, s + block - 1L)
  mu <- numeric(length(cols))
  for (s in starts) {
    r <- rows_of(s)
    mu <- mu + as.numeric(Matrix::crossprod(x[r, cols, drop = FALSE], w[r]))
  }
  mu <- mu / sw
  cov <- matrix(0, length(cols), length(cols))
  for (s in starts) {
    r <- rows_of(s)
    xc <- as.matrix(x[r, cols, drop = FALSE]) - rep(mu, each = length(r))
    cov <- cov + crossprod(xc * sqrt(w[r]))
  }
  cov <- cov / sw
  cov <- (cov + t(cov)) / 2
  if (!all(is.finite(cov)) || !all(is.finite(mu))) return(NULL)
  names_x <- x_names(x)[cols]
  dimnames(cov) <- list(names_x, names_x)
  list(columns = names_x, mean = stats::setNames(mu, names_x), cov = cov)
}

# The same from sufficient statistics (fgseq_stats(): the centred cross-product of every column).
stats_moments <- function(st, sequence) {
  cols <- which(st$group %in% sequence)
  if (!length(cols) || length(cols) > moment_column_limit()) return(NULL)
  cov <- as.matrix(st$xx)[cols, cols, drop = FALSE] / st$weight_sum
  names_x <- st$names[cols]
  dimnames(cov) <- list(names_x, names_x)
  list(columns = names_x, mean = stats::setNames(as.double(st$mean)[cols], names_x), cov = cov)
}

# The moments of a fit: those it stores (lean fits, fits from chunks or statistics), or those of the
# training x it keeps, formed on first use (a fit from x in memory pays no pass for them unless it is
# conditioned, or made lean); NULL (required = FALSE) or an error saying why it has none.
fit_moments <- function(object, what = "conditioning on the observed groups", required = TRUE) {
  if (!is.null(object$moments)) return(object$moments)
  if (!is.null(object[["x"]]) && length(object$sequence)) {
    mom <- sequence_moments(object[["x"]], object[["weights"]], unname(object$group), object$sequence)
    if (!is.null(mom) || !required) return(mom)
  }
  if (!required) return(NULL)
  q <- sum(object$group %in% object$sequence)
  why <- if (q > moment_column_limit()) {
    paste0("its sequence uses ", q, " columns, more than the ", moment_column_limit(), " whose moments a fit ",
           "stores (option `fgseq.moment_columns`; ", q, " columns take ", format(8 * q^2 / 2^20, digits = 3),
           " MB): set the option higher and refit")
  } else {
    paste0("it stores no moments of x (fits from chunks of a GLM family, and fits read from files made by ",
           "older versions, do not): refit with x in memory, or from fgseq_stats()")
  }
  abort(what, " needs the mean and covariance of the columns of the fit's groups, and this fit has none: ", why,
        ".", class = "no_moments")
}

# The conditional model of step `step` of a sequence: the joint covariance `J` of (x_S, eta) over the
# columns S of the step's groups (in column order) and the P linear predictors (`mom`: the fit's
# moments, fit_moments()), the unconditional mean
# `base` of eta (P), the column means `mu`, the original variances `diag0` (the rank tolerance of the
# sweep), and the group of each column.
conditional_model <- function(object, step, mom = fit_moments(object), mixture = NULL) {
  groups <- object$sequence[seq_len(step)]
  names_x <- names(object$group)
  if (!is.null(mixture) && length(mixture$proportion) == 1L) {  # one Gaussian: its moments, the closed form
    validate_mixture(mixture, names_x[object$group %in% groups])
    mom <- list(columns = mixture$columns, mean = mixture$mean[1L, ], cov = mixture$cov[[1L]])
    mixture <- NULL
  }
  cols <- which(object$group %in% groups)
  idx <- match(names_x[cols], mom$columns)
  beta <- if (is.list(object$beta)) object$beta else list(object$beta)
  B <- matrix(0, length(cols), length(beta))
  for (k in seq_along(beta)) B[, k] <- as.numeric(beta[[k]][cols, step + 1L])
  a0 <- if (is.matrix(object$a0)) object$a0[, step + 1L] else object$a0[step + 1L]
  mu <- unname(mom$mean[idx])
  Sigma <- unname(mom$cov[idx, idx, drop = FALSE])
  P <- ncol(B)
  out <- list(step = step, groups = groups, columns = cols, col_group = unname(object$group[cols]), mu = mu,
              J = joint_covariance(Sigma, B), base = as.numeric(a0) + colSums(mu * B), diag0 = diag(Sigma),
              q = length(cols), P = P, eta = length(cols) + seq_len(P))
  if (!is.null(mixture)) out$mixture <- mixture_model(mixture, names_x[cols], out$col_group, B, a0)
  out
}

# The joint covariance of (x_S, eta) for columns of covariance Sigma and eta = a0 + x_S' B.
joint_covariance <- function(Sigma, B) {
  SB <- Sigma %*% B
  rbind(cbind(Sigma, SB), cbind(t(SB), crossprod(B, SB)))
}

# The relative tolerance below which a pivot of the sweep is skipped (a column that the columns swept
# before determine, within rounding): the rank rule of the fit's whitening.
sweep_tolerance <- 1e-9

# Sweeps the pivots `k` (indices into A) of A in turn (Goodnight's sweep: after pivot k, A[k, j] =
# A[k, j] / d, A[i, k] = A[i, k] / d, A[k, k] = -1 / d, A[i, j] = A[i, j] - A[i, k] A[k, j] / d, with d
# = A[k, k] before). A pivot whose remaining variance is at most sweep_tolerance times its original
# variance `diag0` (or whose variance is 0) is skipped. Returns list(A, swept = the pivots swept).
# The reference of sweep_block(), which gives the same matrix up to rounding.
sweep_pivots <- function(A, k, diag0) {
  swept <- integer(0)
  for (i in seq_along(k)) {
    j <- k[i]
    d <- A[j, j]
    if (!(diag0[i] > 0) || !(d > sweep_tolerance * diag0[i])) next
    a <- A[, j]
    b <- A[j, ]
    A <- A - outer(a, b) / d
    A[j, ] <- b / d
    A[, j] <- a / d
    A[j, j] <- -1 / d
    swept <- c(swept, j)
  }
  list(A = A, swept = swept)
}

# The sweep of the pivots `k` of A at once (the block form of sweep_pivots(), with the pivots it would
# skip left out): with S = A[k, k], A[k, k] = -S^-1, A[k, j] = S^-1 A[k, j], A[i, k] = A[i, k] S^-1 and
# A[i, j] = A[i, j] - A[i, k] S^-1 A[k, j], a symmetric rank-|k| update (the core's adaptive/node.hpp:
# the pivots are those whose Cholesky factor of the block is above the tolerance, or, for a group with
# collinear columns, those sweep_pivots() takes one by one; the update through R's BLAS when it is an
# optimized one, as the fit's cross-product: linear_algebra()).
sweep_block <- function(A, k, diag0) {
  s <- .sweep_block(A, as.integer(k), as.double(diag0), linear_algebra())
  list(A = s$A, swept = k[k %in% s$swept])
}

# The state of a conditional model after observing the groups `groups` (in that order, from the empty
# set or from `state`): the swept matrix, the swept pivots and the observed groups; under a mixture
# working model (cm$mixture) instead each component's (`mix`: A, swept and the log-determinant of the
# covariance of its swept pivots, the normalising constant of its density of x_O).
observe_groups <- function(cm, groups, state = NULL) {
  mixture <- cm$mixture$components
  if (is.null(state)) {
    state <- list(A = cm$J, swept = integer(0), groups = character(0))
    if (!is.null(mixture)) state$mix <- lapply(mixture, function(c) list(A = c$J, swept = integer(0), logdet = 0))
  }
  for (g in groups) {
    k <- which(cm$col_group == g)
    if (is.null(mixture)) {
      s <- sweep_block(state$A, k, cm$diag0[k])
      state$A <- s$A
      state$swept <- c(state$swept, s$swept)
    } else {
      state$mix <- Map(function(st, c) {
        s <- sweep_block(st$A, k, c$diag0[k])
        new <- s$swept  # A[new, new] is now -Sigma_new^-1, Sigma_new their covariance given the pivots before
        ld <- if (length(new)) -as.numeric(determinant(-s$A[new, new, drop = FALSE])$modulus) else 0
        list(A = s$A, swept = c(st$swept, new), logdet = st$logdet + ld)
      }, state$mix, mixture)
    }
    state$groups <- c(state$groups, g)
  }
  state
}

# The conditional means (n x P) of eta for the rows of x (n x p, all columns of the fit, the observed
# ones complete) in `state`, and its covariance (P x P).
conditional_moments <- function(cm, state, x) {
  mean <- matrix(cm$base, nrow(x), cm$P, byrow = TRUE)
  if (length(state$swept)) {
    coef <- state$A[state$swept, cm$eta, drop = FALSE]
    xo <- as.matrix(x[, cm$columns[state$swept], drop = FALSE]) - rep(cm$mu[state$swept], each = nrow(x))
    mean <- mean + xo %*% coef
  }
  V <- state$A[cm$eta, cm$eta, drop = FALSE]
  V[V < 0 & row(V) == col(V)] <- 0  # rounding below 0 when the observed columns determine eta
  list(mean = mean, var = V)
}

# The conditional coefficients of the observed columns (named), as the linear predictor of each
# response given x_O (the rows of the unswept columns are 0).
conditional_coefficients <- function(cm, state, names_x) {
  coef <- matrix(0, cm$q, cm$P, dimnames = list(names_x[cm$columns], NULL))
  if (length(state$swept)) coef[state$swept, ] <- state$A[state$swept, cm$eta, drop = FALSE]
  coef[cm$col_group %in% state$groups, , drop = FALSE]
}

# The link whose inverse is the response of a conditional linear predictor with mean m (n x P) and
# covariance V (P x P), so that the family's inverse link gives E[response | x_O]: the gaussian families
# m itself; binomial the probit approximation E[plogis(eta)] ~ plogis(m / sqrt(1 + pi v / 8)) (MacKay
# 1992); poisson m + v / 2 (E[exp(eta)] = exp(m + v / 2), exact); multinomial the same approximation
# class by class, m_c / sqrt(1 + pi v_cc / 8), through the softmax.
response_link <- function(family, m, V) {
  v <- diag(V)
  switch(family_def(family)$name,
         binomial = m / sqrt(1 + pi * v / 8),
         poisson = m + rep(v / 2, each = nrow(m)),
         multinomial = m / rep(sqrt(1 + pi * v / 8), each = nrow(m)),
         m)
}

# Which groups of `groups` each row of x holds: a logical n x length(groups) matrix (TRUE: every column
# of the group is present). A group present in part is an error naming the row and the group.
observed_groups <- function(object, x, groups, arg = "newx") {
  out <- matrix(FALSE, nrow(x), length(groups), dimnames = list(NULL, groups))
  for (j in seq_along(groups)) {
    cols <- which(object$group == groups[j])
    present <- !is.na(as.matrix(x[, cols, drop = FALSE]))
    n_present <- rowSums(present)
    part <- which(n_present > 0 & n_present < length(cols))
    if (length(part)) {
      abort("`", arg, "` row ", part[1L], " holds some columns of the group '", groups[j], "' and lacks others (",
            paste(names(object$group)[cols][!present[part[1L], ]], collapse = ", "), "): a group is measured whole; ",
            "give all its columns, or none (NA).", class = "partial_group")
    }
    out[, j] <- n_present == length(cols)
  }
  out
}

# The link (n x (m P)) of the rows of x at the requested steps (one per column of `steps`, or one per
# row with per_row), each row predicted by the step's model given the groups it holds: rows holding a
# prefix of the step's groups by that prefix's own model (as missing = "prefix"), unless
# `condition_prefixes`; the others by the conditional mean. Returns list(mean_link = the conditional
# means, link = the links whose inverse is the conditional mean response (response_link()), step = steps
# used (the prefix step, or the requested step when conditioned), cost = what the groups each prediction
# reads cost (the prefix's path cost, or the measurements of the groups conditioned on), conditioned =
# logical matrix).
condition_link <- function(object, x, steps, per_row, condition_prefixes = FALSE, arg = "newx") {
  n <- nrow(x)
  requested <- if (per_row) matrix(as.integer(steps), ncol = 1L) else matrix(as.integer(steps), n, length(steps), byrow = TRUE)
  K <- length(object$sequence)
  have <- observed_groups(object, x, object$sequence, arg)
  # the first group each row lacks (K + 1: none)
  first_missing <- apply(cbind(!have, TRUE), 1L, function(r) which(r)[1L])
  P <- length(object$responses)
  link <- matrix(NA_real_, n, ncol(requested) * P)
  mean_link <- link
  used <- requested
  conditioned <- matrix(FALSE, n, ncol(requested))
  cost <- matrix(NA_real_, n, ncol(requested))
  # the prefix rows: the prefix prediction at min(step, first missing - 1)
  pre <- linear_prefix(object, x, steps, per_row,
                       if (is.matrix(object$a0)) object$a0 else matrix(object$a0, nrow = 1L),
                       if (is.list(object$beta)) object$beta else list(object$beta))
  key <- apply(have, 1L, function(r) paste(as.integer(r), collapse = ""))
  mom <- NULL
  for (b in seq_len(ncol(requested))) {
    for (s in unique(requested[, b])) {
      rows <- which(requested[, b] == s)
      if (s == 0L) {
        need <- rep(FALSE, length(rows))
      } else {
        held <- have[rows, seq_len(s), drop = FALSE]
        prefix <- rowSums(held) == pmin(first_missing[rows] - 1L, s)
        need <- if (condition_prefixes) rowSums(held) < s else !prefix
      }
      cols <- (b - 1L) * P + seq_len(P)
      keep <- rows[!need]
      link[keep, cols] <- pre$link[keep, cols]
      mean_link[keep, cols] <- pre$link[keep, cols]
      used[keep, b] <- pre$step[keep, b]
      cost[keep, b] <- object$path$cost[pre$step[keep, b] + 1L]
      todo <- rows[need]
      if (!length(todo)) next
      if (is.null(mom)) mom <- fit_moments(object)  # once per call: formed from the kept x, if need be
      cm <- conditional_model(object, s, mom)
      for (k in unique(key[todo])) {
        r <- todo[key[todo] == k]
        held <- object$sequence[seq_len(s)][have[r[1L], seq_len(s)]]
        state <- observe_groups(cm, held)
        paid <- unique(c(as.character(object$offset_needs), unlist(object$needs[held], use.names = FALSE)))
        cost[r, b] <- sum(object$measurement_cost[paid])
        mom <- conditional_moments(cm, state, x[r, , drop = FALSE])
        mean_link[r, cols] <- mom$mean
        link[r, cols] <- response_link(object$family, mom$mean, mom$var)
        conditioned[r, b] <- TRUE
      }
    }
  }
  list(mean_link = mean_link, link = link, step = used, cost = cost, conditioned = conditioned, n_infinite = pre$n_infinite)
}
