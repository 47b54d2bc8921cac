# max_time counts the sweep of x for NA and Inf and the binning (or sorting) of x: when it is spent
# there the fit is the starting score alone, x unread beyond that point, never a fit on unchecked data.

test_that("max_time spent in the sweep over x gives the starting score of lm()/glm() on the intercept", {
  # the Inf in column x10 is never reached (unread_inf_problem()); with time, it is an error
  d <- unread_inf_problem()
  x <- d$x
  y <- d$y
  w <- d$w
  off <- d$off
  expect_error(miser(x, y, cost = 1:10), "`x` contains NA, NaN or Inf \\(first in column 'x10'\\)",
               class = "fgseq_error_input")
  ref <- stats::glm(y ~ 1, weights = w, offset = off)  # gaussian: deviance residuals sqrt(w) (y - mu)
  yb <- as.numeric(y > 0)
  refb <- suppressWarnings(stats::glm(yb ~ 1, family = "binomial", weights = w, offset = off,  # non-integer counts
                                      control = stats::glm.control(epsilon = 1e-14, maxit = 100)))
  for (split in c("histogram", "exact")) {
    expect_warning(fit <- miser(x, y, cost = 1:10, weights = w, offset = off, split = split, max_time = 1e-9),
                   "before iteration 1 \\(of at most 100\\)", class = "fgseq_warning_partial")
    expect_true(fit$partial)
    expect_identical(fit$n_steps, 0L)
    expect_identical(nrow(fit$trees), 0L)
    expect_close(fitted(fit), fitted(ref), 1e-10, paste("gaussian fitted,", split))
    expect_close(residuals(fit), residuals(ref), 1e-10, paste("gaussian residuals,", split))
    expect_warning(bin <- miser(x, yb, cost = 1:10, family = "binomial", weights = w, offset = off, split = split,
                                max_time = 1e-9), class = "fgseq_warning_partial")
    expect_identical(bin$n_steps, 0L)
    expect_close(fitted(bin), fitted(refb), 1e-8, paste("binomial fitted,", split))
    expect_close(deviance(bin), deviance(refb), 1e-8, paste("binomial deviance,", split))
  }
})

test_that("max_time spent before the binning of a sparse x gives the starting score and its loss", {
  # a sparse x is checked whole (no clock); the core then polls before it bins x and stops there, with
  # the starting loss (half the weighted mean squared error about the weighted mean) summed by row blocks
  set.seed(3)
  n <- 500
  x <- Matrix::rsparsematrix(n, 6, density = 0.3)
  colnames(x) <- paste0("x", 1:6)
  y <- as.numeric(x[, 1] + rnorm(n))
  w <- runif(n, 0.5, 2)
  expect_warning(fit <- miser(x, y, cost = 1:6, weights = w, max_time = 1e-9), class = "fgseq_warning_partial")
  expect_identical(fit$n_steps, 0L)
  expect_close(fitted(fit), rep(weighted.mean(y, w), n), 1e-12, "sparse: weighted mean")
  expect_close(predict(fit, x[1:3, ]), rep(weighted.mean(y, w), 3), 1e-12, "sparse: predict")
  expect_close(fit$path$loss, 0.5 * sum(w * (y - weighted.mean(y, w))^2) / sum(w), 1e-12, "sparse: starting loss")
})
