# Prediction from any observed set of groups (predict(missing = "condition")) and the moments a fit
# stores, against lm() on the observed columns, the plain-R reference of helper-adaptive-reference.R
# (solve() on the blocks of Sigma) and Monte Carlo draws of the working model.

# Correlated columns in 5 groups of 2, and a response on all of them.
condition_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  p <- 10
  S <- matrix(0.4, p, p)
  diag(S) <- 1
  x <- matrix(rnorm(n * p), n) %*% chol(S) + rep(seq_len(p), each = n)
  colnames(x) <- paste0("v", seq_len(p))
  list(x = x, group = rep(paste0("g", 1:5), each = 2), y = drop(x %*% rnorm(p)) + rnorm(n), w = runif(n, 0.2, 2))
}

# newx with the groups outside `O` set to NA.
observe_only <- function(x, group, O) {
  x[, !(group %in% O)] <- NA
  x
}

test_that("fits give the weighted moments of the columns of their sequence, from x, lean, and from fgseq_stats()", {
  d <- condition_data()
  fit <- fgseq(d$x, d$y, group = d$group, weights = d$w, lambda = 0)
  expect_null(fit$moments)  # a fit keeping x forms them when conditioned
  mom <- fgseq:::fit_moments(fit)
  ref <- ref_moments(d$x, d$w)
  expect_equal(mom$mean, ref$mean, tolerance = 1e-12)
  expect_equal(mom$cov, ref$cov, tolerance = 1e-12)
  expect_equal(mom$cov, stats::cov.wt(d$x, d$w, method = "ML")$cov, tolerance = 1e-12, ignore_attr = TRUE)
  lean <- fgseq(d$x, d$y, group = d$group, weights = d$w, lambda = 0, keep_data = FALSE)
  expect_equal(lean$moments, mom)
  sparse <- fgseq(Matrix::Matrix(d$x, sparse = TRUE), d$y, group = d$group, weights = d$w, lambda = 0)
  expect_equal(fgseq:::fit_moments(sparse)$cov, ref$cov, tolerance = 1e-10)
  st <- fgseq_stats(d$x, d$y, group = d$group)
  from_stats <- fgseq(st, lambda = 0)
  expect_equal(from_stats$moments$cov, ref_moments(d$x)$cov, tolerance = 1e-10)
  expect_equal(from_stats$moments$mean, ref_moments(d$x)$mean, tolerance = 1e-12)
  # a sequence of two groups stores the moments of their four columns only
  short <- fgseq(d$x, d$y, group = d$group, max_steps = 2)
  expect_setequal(fgseq:::fit_moments(short)$columns, colnames(d$x)[d$group %in% short$sequence])
})

test_that("a GLM fit from chunks makes one more pass for the moments, equal to the fit in memory", {
  d <- condition_data()
  yb <- as.numeric(d$y > stats::median(d$y))
  chunks <- lapply(split(seq_len(nrow(d$x)), rep(1:3, length.out = nrow(d$x))),
                   function(r) list(x = d$x[r, ], y = yb[r], weights = d$w[r]))
  from_chunks <- fgseq(fgseq_chunks(chunks), group = d$group, family = "binomial", fr_gain = "quadratic")
  rows <- unlist(split(seq_len(nrow(d$x)), rep(1:3, length.out = nrow(d$x))))
  in_memory <- fgseq(d$x[rows, ], yb[rows], group = d$group, family = "binomial", weights = d$w[rows],
                     keep_data = FALSE)
  expect_identical(from_chunks$sequence, in_memory$sequence)
  expect_equal(from_chunks$moments, in_memory$moments, tolerance = 1e-10)
  edited <- in_memory
  edited$moments$cov[1, 1] <- NA
  expect_error(predict(edited, d$x[1:2, ]), class = "fgseq_error_invalid_object")
})

test_that("gaussian at lambda = 0: the conditioned predictor is lm() on the observed columns (dense, sparse, weights)", {
  d <- condition_data()
  sets <- list(c("g2", "g5"), "g3", c("g1", "g4", "g5"), c("g1", "g2", "g3", "g4"))
  for (sparse in c(FALSE, TRUE)) {
    xx <- if (sparse) Matrix::Matrix(d$x, sparse = TRUE) else d$x
    fit <- fgseq(xx, d$y, group = d$group, weights = d$w, lambda = 0)
    K <- length(fit$sequence)
    for (O in sets) {
      if (identical(sort(O), sort(fit$sequence[seq_along(O)]))) next  # a prefix: today's model
      cols <- d$group %in% O
      ref <- stats::lm(d$y ~ d$x[, cols], weights = d$w)
      newx <- observe_only(d$x[1:20, ], d$group, O)
      got <- predict(fit, newx, step = K, missing = "condition")
      expect_equal(unname(got[, 1L]), unname(drop(cbind(1, d$x[1:20, cols]) %*% stats::coef(ref))), tolerance = 1e-8)
      expect_true(all(attr(got, "conditioned")))
      expect_equal(unname(attr(got, "cost")[, 1L]), rep(sum(fit$cost[O]), 20))
      # the conditional coefficients themselves
      cm <- fgseq:::conditional_model(fit, K)
      st <- fgseq:::observe_groups(cm, fit$sequence[fit$sequence %in% O])
      coefs <- fgseq:::conditional_coefficients(cm, st, names(fit$group))
      expect_equal(unname(coefs[colnames(d$x)[cols], 1L]), unname(stats::coef(ref)[-1L]), tolerance = 1e-8)
    }
  }
})

test_that("rows holding a prefix keep the prefix model; condition_prefixes = TRUE conditions them too", {
  d <- condition_data()
  fit <- fgseq(d$x, d$y, group = d$group, lambda = 0)
  newx <- observe_only(d$x[1:10, ], d$group, fit$sequence[1:2])
  got <- predict(fit, newx, missing = "condition")
  expect_equal(unclass(got)[, 1:ncol(got)], unclass(predict(fit, newx, missing = "prefix"))[, 1:ncol(got)],
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_false(any(attr(got, "conditioned")))
  cond <- predict(fit, newx, step = length(fit$sequence), missing = "condition", condition_prefixes = TRUE)
  cols <- d$group %in% fit$sequence[1:2]
  ref <- stats::lm(d$y ~ d$x[, cols])
  expect_equal(unname(cond[, 1L]), unname(drop(cbind(1, d$x[1:10, cols]) %*% stats::coef(ref))), tolerance = 1e-8)
  # complete rows: the model itself
  expect_equal(unname(predict(fit, d$x[1:5, ], missing = "condition")), unname(predict(fit, d$x[1:5, ])),
               tolerance = 1e-12, ignore_attr = TRUE)
})

test_that("the conditional mean and variance equal the reference and a Monte Carlo of the working model", {
  d <- condition_data()
  fit <- fgseq(d$x, d$y, group = d$group, family = "gaussian", lambda = 1e-3, weights = d$w)
  K <- length(fit$sequence)
  mu <- fgseq:::fit_moments(fit)$mean
  Sigma <- fgseq:::fit_moments(fit)$cov
  cm <- fgseq:::conditional_model(fit, K)
  set.seed(5)
  draws <- matrix(rnorm(2e5 * length(mu)), ncol = length(mu)) %*% chol(Sigma) + rep(mu, each = 2e5)
  eta <- fit$a0[K + 1L] + drop(draws %*% as.numeric(fit$beta[, K + 1L]))
  for (O in list("g3", c("g1", "g5"), c("g2", "g3", "g4"))) {
    st <- fgseq:::observe_groups(cm, fit$sequence[fit$sequence %in% O])
    mom <- fgseq:::conditional_moments(cm, st, d$x[1:3, , drop = FALSE])
    for (i in 1:3) {
      ref <- ref_conditional(fit, d$x[i, ], O, mu, Sigma)
      expect_equal(mom$mean[i, 1L], ref$mean, tolerance = 1e-10)
      expect_equal(mom$var[1L, 1L], ref$var, tolerance = 1e-10)
    }
    # Monte Carlo: the residual variance of eta regressed on the observed columns
    cols <- d$group %in% O
    resid <- stats::lm.fit(cbind(1, draws[, cols]), eta)$residuals
    expect_equal(mom$var[1L, 1L], stats::var(resid), tolerance = 0.02)
  }
})

test_that("binomial probabilities of a conditioned row use the probit approximation, close to Monte Carlo", {
  set.seed(7)
  n <- 400
  x <- matrix(rnorm(n * 6), n)
  x[, 2] <- x[, 1] + rnorm(n, sd = 0.5)
  colnames(x) <- paste0("v", 1:6)
  group <- rep(c("a", "b", "c"), each = 2)
  y <- rbinom(n, 1, plogis(x %*% c(1, -1, 0.5, 0.5, 1, 0)))
  fit <- fgseq(x, y, group = group, family = "binomial", lambda = 1e-3)
  K <- length(fit$sequence)
  O <- fit$sequence[K]  # the last group alone: never a prefix
  newx <- observe_only(x[1:5, ], group, O)
  link <- predict(fit, newx, step = K, missing = "condition")
  prob <- predict(fit, newx, step = K, missing = "condition", type = "response")
  cm <- fgseq:::conditional_model(fit, K)
  V <- fgseq:::conditional_moments(cm, fgseq:::observe_groups(cm, O), x[1:5, ])$var[1L, 1L]
  expect_equal(unname(prob[, 1L]), stats::plogis(unname(link[, 1L]) / sqrt(1 + pi * V / 8)), tolerance = 1e-12)
  z <- rnorm(1e5)
  mc <- vapply(link[, 1L], function(m) mean(stats::plogis(m + sqrt(V) * z)), numeric(1))
  expect_equal(unname(prob[, 1L]), unname(mc), tolerance = 0.02)  # the approximation's own error
  expect_gt(max(abs(prob[, 1L] - stats::plogis(link[, 1L]))), 1e-3)  # not the plug-in
})

test_that("multinomial conditioned predictions: the conditional mean vector of the K linear predictors", {
  fit <- fgseq(Species ~ ., data = iris, family = "multinomial", lambda = 1e-2)
  K <- length(fit$sequence)
  newdata <- iris[c(1, 60, 120), ]
  last <- fit$sequence[K]
  newdata[, setdiff(names(iris)[1:4], last)] <- NA_real_
  got <- predict(fit, newdata = newdata, step = K, missing = "condition")
  mu <- fgseq:::fit_moments(fit)$mean
  Sigma <- fgseq:::fit_moments(fit)$cov
  x <- as.matrix(iris[c(1, 60, 120), 1:4])
  for (cl in levels(iris$Species)) {
    sub <- list(sequence = fit$sequence, beta = fit$beta[[cl]], a0 = fit$a0[cl, ], group = fit$group)
    for (i in 1:3) {
      ref <- ref_conditional(sub, x[i, ], last, mu, Sigma)
      expect_equal(unname(got[i, cl, 1L]), ref$mean, tolerance = 1e-10)
    }
  }
  prob <- predict(fit, newdata = newdata, step = K, missing = "condition", type = "response")
  expect_equal(unname(rowSums(prob[, , 1L])), rep(1, 3), tolerance = 1e-12)
})

test_that("missing = \"condition\" refuses what it cannot condition, naming the argument", {
  d <- condition_data()
  fit <- fgseq(d$x, d$y, group = d$group)
  newx <- d$x[1:3, ]
  newx[2, 1] <- NA  # one column of g1 only
  expect_error(predict(fit, newx, missing = "condition"), class = "fgseq_error_partial_group")
  expect_error(predict(fit, newx, missing = "condition"), "row 2 .* group 'g1'")
  old <- options(fgseq.moment_columns = 2)
  on.exit(options(old))
  wide <- fgseq(d$x, d$y, group = d$group)
  expect_null(fgseq:::fit_moments(wide, required = FALSE))
  expect_error(predict(wide, observe_only(d$x[1:2, ], d$group, "g3"), missing = "condition"),
               class = "fgseq_error_no_moments")
  expect_error(predict(wide, observe_only(d$x[1:2, ], d$group, "g3"), missing = "condition"),
               "fgseq.moment_columns")
  options(old)
  m <- miser(d$x, d$y, cost = rep(1, 10), max_steps = 3)
  expect_error(predict(m, d$x[1:2, ], missing = "condition"), class = "fgseq_error_input")
  expect_error(predict(fit, d$x[1:2, ], missing = "condtion"), class = "fgseq_error_input")
  expect_error(predict(fit, d$x[1:2, ], missing = "condition", condition_prefixes = NA), class = "fgseq_error_input")
})

test_that("the block sweep equals the sweep pivot by pivot, also for a group with collinear columns", {
  set.seed(9)
  x <- matrix(rnorm(200 * 6), 200)
  x[, 3] <- x[, 1] + x[, 2]  # collinear within the group
  A <- cbind(rbind(stats::cov(x), rnorm(6)), c(rnorm(6), 3))
  A[7, 1:6] <- A[1:6, 7]
  d0 <- diag(A)[1:6]
  for (k in list(1:3, 4:6, c(2, 5))) {
    one <- fgseq:::sweep_pivots(A, k, d0[k])
    block <- fgseq:::sweep_block(A, k, d0[k])
    expect_identical(block$swept, one$swept)
    expect_equal(block$A, one$A, tolerance = 1e-10)
  }
  expect_identical(fgseq:::sweep_block(A, 1:3, d0[1:3])$swept, 1:2)
})
