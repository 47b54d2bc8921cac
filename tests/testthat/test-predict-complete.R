# predict() of complete rows goes through the core's one-pass prefix kernel (greedy/predict.hpp), as
# missing = "prefix" does. Each prediction is checked against a plain-R matrix product of the fit's
# coefficients on the original scale of x (fit$beta, fit$a0) with the new rows, plus the offset, through
# the family's inverse link written out here; and the NA, NaN and Inf of newx are still refused.

# The link of a fit at `steps` (0-based) on the rows of x (a matrix): n x m, or a list of one n x m
# matrix per response column (multinomial, mgaussian); `offset` NULL, a vector or an n x P matrix.
ref_link <- function(fit, x, steps, offset = NULL) {
  beta <- if (is.list(fit$beta)) fit$beta else list(fit$beta)
  a0 <- if (is.matrix(fit$a0)) fit$a0 else matrix(fit$a0, nrow = 1L)
  x <- as.matrix(x)
  out <- lapply(seq_along(beta), function(c) {
    eta <- x %*% as.matrix(beta[[c]][, steps + 1L, drop = FALSE]) + rep(a0[c, steps + 1L], each = nrow(x))
    if (!is.null(offset)) eta <- eta + (if (is.matrix(offset)) offset[, c] else offset)
    unname(eta)
  })
  if (length(out) == 1L) out[[1L]] else out
}

test_that("complete rows: dense gaussian and binomial fits equal the matrix product of their coefficients", {
  d <- sim_groups(80, sizes = c(2, 3, 1, 2, 2), seed = 31)
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, method = "fr")
  newx <- d$x[1:25, ] + 0.5
  steps <- c(0L, 2L, length(fit$sequence), 1L)
  p <- predict(fit, newx, step = steps)
  expect_identical(dim(p), c(25L, 4L))
  expect_identical(dimnames(p), list(NULL, paste0("step", steps)))
  expect_close(p, ref_link(fit, newx, steps), 1e-12)
  expect_null(attr(p, "step"))
  # every step by default, and the training rows without newx
  expect_close(predict(fit, newx), ref_link(fit, newx, fit$path$step), 1e-12)
  expect_close(predict(fit), ref_link(fit, d$x, fit$path$step), 1e-12)

  b <- sim_glm("binomial", n = 90, sizes = c(2, 3, 1, 2), seed = 32)
  logit <- fgseq(b$x, b$y, group = b$group, cost = b$cost, family = "binomial")
  budgets <- c(0, 2, 5, 1e3)
  k <- vapply(budgets, function(B) max(which(logit$path$cost <= B)) - 1L, integer(1))
  eta <- ref_link(logit, b$x, k)
  expect_close(predict(logit, b$x, budget = budgets), eta, 1e-12)
  expect_close(predict(logit, b$x, budget = budgets, type = "response"), 1 / (1 + exp(-eta)), 1e-12)
  cls <- predict(logit, b$x, budget = budgets, type = "class")
  expect_identical(unname(cls), matrix(logit$classes[(eta > 0) + 1L], nrow(eta)))
  # one budget per row: each row at its own step
  own <- rep_len(budgets, nrow(b$x))
  r <- predict(logit, b$x, budget = own, per_row = TRUE, type = "response")
  kr <- rep_len(k, nrow(b$x))
  expect_close(r, 1 / (1 + exp(-eta[cbind(seq_along(kr), match(kr, k))])), 1e-12)
  expect_identical(unname(attr(r, "step")), kr)
})

test_that("complete rows: a sparse newx equals the matrix product of the coefficients", {
  skip_if_not_installed("Matrix")
  d <- sim_groups(70, sizes = c(2, 3, 1, 2), seed = 33)
  x <- d$x
  x[abs(x) < 0.6] <- 0
  xs <- Matrix::Matrix(x, sparse = TRUE)
  fit <- fgseq(xs, d$y, group = d$group, cost = d$cost)
  steps <- fit$path$step
  expect_close(predict(fit, xs), ref_link(fit, x, steps), 1e-12)
  expect_close(predict(fit, xs[5:9, ], step = 2), ref_link(fit, x[5:9, ], 2L), 1e-12)
  # a dense newx predicts the same as its sparse form
  expect_close(predict(fit, x), ref_link(fit, x, steps), 1e-12)
})

test_that("complete rows: a formula fit with an offset() term equals the model matrix times its coefficients", {
  h <- heart[1:200, ]
  h$exposure <- seq(0.5, 2, length.out = nrow(h))
  fit <- fgseq(diagnosis ~ age + sex + cp + thalach + offset(log(exposure)), data = h,
               cost = c(heart_cost[c("age", "sex", "cp", "thalach")], exposure = 1), family = "binomial")
  new <- heart[201:240, ]
  new$exposure <- seq(1, 3, length.out = nrow(new))
  mm <- stats::model.matrix(~ age + sex + cp + thalach, new)[, names(fit$group)]
  steps <- fit$path$step
  eta <- ref_link(fit, mm, steps, offset = log(new$exposure))
  p <- predict(fit, newdata = new, type = "response")
  expect_close(p, 1 / (1 + exp(-eta)), 1e-12)
  expect_identical(rownames(p), rownames(new))
  expect_close(predict(fit, newdata = new, step = 1), eta[, 2], 1e-12)
})

test_that("complete rows: a poisson fit with newoffset equals the matrix product plus the offset", {
  d <- sim_glm("poisson", n = 80, sizes = c(2, 1, 2, 1), seed = 34)
  off <- log(seq(1, 3, length.out = 80))
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, family = "poisson", offset = off)
  steps <- fit$path$step
  eta <- ref_link(fit, d$x, steps, offset = off)
  expect_close(predict(fit, d$x, newoffset = off), eta, 1e-12)
  expect_close(predict(fit, d$x, newoffset = off, type = "response"), exp(eta), 1e-12)
  expect_close(predict(fit, type = "response"), exp(eta), 1e-12)  # the training rows and offset
})

test_that("complete rows: a multinomial fit equals the matrix products of its classes' coefficients", {
  d <- sim_glm("multinomial", n = 90, sizes = c(2, 3, 1, 2), seed = 35)
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, family = "multinomial")
  newx <- d$x[1:30, ]
  steps <- c(length(fit$sequence), 0L, 1L)
  eta <- ref_link(fit, newx, steps)  # one n x m matrix per class
  p <- predict(fit, newx, step = steps)
  expect_identical(dim(p), c(30L, 3L, 3L))
  expect_identical(dimnames(p), list(NULL, fit$classes, paste0("step", steps)))
  for (c in 1:3) expect_close(p[, c, ], eta[[c]], 1e-12)
  mu <- predict(fit, newx, step = steps, type = "response")
  cls <- predict(fit, newx, step = steps, type = "class")
  for (b in seq_along(steps)) {
    e <- exp(vapply(eta, function(m) m[, b], numeric(30)))
    expect_close(mu[, , b], e / rowSums(e), 1e-12)
    expect_identical(unname(cls[, b]), fit$classes[max.col(e, ties.method = "first")])
  }
})

test_that("complete rows: NA, NaN and Inf of newx are refused wherever they are, read or not", {
  d <- sim_groups(60, sizes = c(2, 3, 1, 2), seed = 36)
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, max_steps = 2)
  read <- which(d$group == fit$sequence[1])[1]
  unread <- which(!d$group %in% fit$sequence)[1]
  expect_false(is.na(unread))
  for (value in c(NA, NaN, Inf, -Inf)) {
    for (j in c(read, unread)) {
      x <- d$x[1:10, ]
      x[4, j] <- value
      expect_error(predict(fit, x, step = 1), "`newx` contains NA, NaN or Inf", class = "fgseq_error_na")
      expect_error(predict(fit, x, step = 1, per_row = FALSE), class = "fgseq_error_na")
      expect_error(predict(fit, x, budget = rep(1e3, 10), per_row = TRUE), class = "fgseq_error_na")
    }
  }
  # a value at step 0 (the intercept) is refused too, and sparse stored NA as well
  x <- d$x[1:10, ]
  x[2, read] <- NA
  expect_error(predict(fit, x, step = 0), class = "fgseq_error_na")
  skip_if_not_installed("Matrix")
  xs <- Matrix::Matrix(d$x[1:10, ], sparse = TRUE)
  xs[3, unread] <- NA
  expect_error(predict(fit, xs), "`newx` contains NA, NaN or Inf", class = "fgseq_error_na")
})

test_that("complete rows: Inf in newdata is refused like Inf in newx, in a read or an unread variable", {
  set.seed(38)
  d <- data.frame(a = rnorm(80), b = rnorm(80), z = rnorm(80))
  d$y <- 1 + 2 * d$a - d$b + rnorm(80, sd = 0.3)
  fit <- fgseq(y ~ a + b + z, data = d, cost = c(a = 1, b = 2, z = 50), lambda = 0, max_steps = 1)
  expect_identical(fit$sequence, "a")
  for (v in c("a", "z")) {
    for (value in c(Inf, -Inf)) {
      new <- d[1:5, ]
      new[[v]][3] <- value
      expect_error(predict(fit, newdata = new, step = 1), "`newdata` contains NA, NaN or Inf",
                   class = "fgseq_error_na")
    }
  }
  # the rows left are predicted as lm() of the first step's variable predicts them
  ref <- predict(lm(y ~ a, data = d), newdata = d[1:5, ])
  expect_equal(unname(predict(fit, newdata = d[1:5, ], step = 1)[, 1]), unname(ref), tolerance = 1e-10)
})

test_that("without new data, a training row lacking a value its step reads predicts NA at that step only", {
  d <- sim_groups(60, sizes = c(2, 3, 1, 2), seed = 37)
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost)
  j <- which(d$group == fit$sequence[2])[1]  # read from step 2 on
  fit$x[7, j] <- NA
  fit$x[9, j] <- NaN
  x <- fit$x
  x[c(7, 9), j] <- 0  # the reference reads these rows only at steps 0 and 1, where column j is not used
  steps <- fit$path$step
  want <- ref_link(fit, x, steps)
  want[c(7, 9), steps >= 2] <- NA
  all_steps <- predict(fit)
  expect_identical(unname(is.na(all_steps)), is.na(want))
  expect_close(all_steps[!is.na(want)], want[!is.na(want)], 1e-12)
  # the same as each step asked alone
  for (k in steps) expect_identical(unname(is.na(predict(fit, step = k)[, 1])), is.na(want[, k + 1L]))
})
