# Columns and responses near the limits of double precision: each fit equals lm() on the same data in
# ordinary units (the data rescaled), with the coefficients in the original units.

ext <- function() {
  set.seed(51)
  x <- matrix(rnorm(60 * 4), 60, 4, dimnames = list(NULL, c("a", "b", "c", "d")))
  list(x = x, y = drop(x %*% c(1, -1, 0.5, 0.2)) + rnorm(60), group = c("g1", "g1", "g2", "g3"))
}

# The final model of a fit (lambda = 0, every group) against lm() on the rescaled data.
expect_lm <- function(fit, x, y, fx = 1, fy = 1) {
  K <- length(fit$sequence)
  ref <- lm(y ~ x)
  expect_equal(K, 3L)
  expect_equal(fit$path$r2[K + 1], summary(ref)$r.squared, tolerance = 1e-9)
  expect_equal(unname(fit$beta[, K + 1]) * fx / fy, unname(coef(ref)[-1]), tolerance = 1e-8)
  expect_equal(unname(fit$a0[K + 1]) / fy, unname(coef(ref)[1]), tolerance = 1e-8)
}

test_that("a column of magnitude 1e154 and more is fitted (its square would overflow)", {
  d <- ext()
  x <- d$x
  x[, "c"] <- x[, "c"] * 1e300
  for (engine in c("gram", "sample")) {
    fit <- fgseq(x, d$y, group = d$group, lambda = 0, engine = engine)
    expect_true("g2" %in% fit$sequence)
    expect_equal(unname(fit$rank[["g2"]]), 1L)
    expect_lm(fit, d$x, d$y, fx = c(1, 1, 1e300, 1))
  }
})

test_that("x * 1e154 gives the fit of x (not an empty fit)", {
  d <- ext()
  expect_lm(fgseq(d$x * 1e154, d$y, group = d$group, lambda = 0), d$x, d$y, fx = 1e154)
  expect_lm(fgseq(d$x * 1e154, d$y, group = d$group, lambda = 0, engine = "sample"), d$x, d$y, fx = 1e154)
})

test_that("y beyond 2^400 (rescaled for the core): the fit of lm(), while its loss is finite", {
  d <- ext()
  expect_lm(fgseq(d$x, d$y * 1e150, group = d$group, lambda = 0), d$x, d$y, fy = 1e150)
  expect_lm(fgseq(d$x, d$y * 1e150, group = d$group, lambda = 0, method = "fr"), d$x, d$y, fy = 1e150)
  expect_true(all(is.finite(fgseq(d$x, d$y * 1e150, group = d$group, lambda = 0)$path$objective)))
})

test_that("a y whose squared loss overflows is refused at fit time, with the advice to rescale it", {
  d <- ext()
  # the loss in y's units is beyond the largest double: the objective of such a fit could not be stored
  expect_identical(sum((d$y * 1e200 - mean(d$y * 1e200))^2), Inf)
  for (s in c(1e200, 1e300)) {
    expect_error(fgseq(d$x, d$y * s, group = d$group, lambda = 0), "Rescale `y`", class = "fgseq_error_input")
    expect_error(fgseq(d$x, d$y * s, group = d$group, lambda = 0, method = "fr"), "Rescale `y`",
                 class = "fgseq_error_input")
    expect_error(fgseq(d$x, d$y * s, group = d$group, lambda = 0, engine = "sample"), "Rescale `y`",
                 class = "fgseq_error_input")
    expect_error(fgseq(d$x, cbind(u = d$y, v = -d$y) * s, group = d$group, family = "mgaussian"), "Rescale `y`",
                 class = "fgseq_error_input")
  }
  # rescaled as the message says, the fit is lm()'s
  expect_lm(fgseq(d$x, d$y * 1e200 / 1e190, group = d$group, lambda = 0), d$x, d$y, fy = 1e10)
})

test_that("y * 1e-20 is not constant: the fit of lm()", {
  d <- ext()
  expect_lm(fgseq(d$x, d$y * 1e-20, group = d$group, lambda = 0), d$x, d$y, fy = 1e-20)
})

test_that("x * 1e-160 keeps every digit (no subnormal squares)", {
  d <- ext()
  expect_lm(fgseq(d$x * 1e-160, d$y, group = d$group, lambda = 0), d$x, d$y, fx = 1e-160)
  expect_lm(fgseq(Matrix::Matrix(d$x * 1e-160, sparse = TRUE), d$y, group = d$group, lambda = 0),
            d$x, d$y, fx = 1e-160)
})

test_that("a binomial fit with a column of magnitude 1e200 equals glm() on the rescaled column", {
  d <- ext()
  yb <- as.numeric(d$y > 0)
  x <- d$x
  x[, "a"] <- x[, "a"] * 1e200
  fit <- fgseq(x, yb, group = d$group, family = "binomial", lambda = 0)
  K <- length(fit$sequence)
  ref <- suppressWarnings(glm(yb ~ d$x, family = binomial()))
  expect_equal(unname(fit$beta[, K + 1]) * c(1e200, 1, 1, 1), unname(coef(ref)[-1]), tolerance = 1e-6)
})

test_that("statistics that would overflow are refused with a clear error", {
  d <- ext()
  expect_error(fgseq_stats(d$x * 1e160, d$y), "the cross-products of `x` and `y` overflow")
})

test_that("a tall x (many blocks of rows) with columns of extreme scale equals the fit on ordinary units", {
  # the Gram engine's pass over x finds the extreme columns, and the fit runs again on x rescaled
  set.seed(52)
  n <- 6000
  x <- matrix(rnorm(n * 200), n, 200)
  y <- drop(x[, 1:20] %*% rnorm(20)) + rnorm(n)
  g <- rep(1:20, each = 10)
  f <- rep(1, 200)
  f[c(5, 150)] <- c(1e300, 1e-200)
  ref <- fgseq(x, y, group = g, lambda = 0, max_steps = 6)
  fit <- fgseq(x * rep(f, each = n), y, group = g, lambda = 0, max_steps = 6)
  expect_identical(fit$sequence, ref$sequence)
  expect_equal(fit$path$r2, ref$path$r2, tolerance = 1e-10)
  expect_equal(unname(as.matrix(fit$beta * f)), unname(as.matrix(ref$beta)), tolerance = 1e-10)
  expect_equal(unname(fit$a0), unname(ref$a0), tolerance = 1e-10)
})
