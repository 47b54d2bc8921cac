# The methods on the training data (fitted(), residuals(), deviance(), logLik(), augment(), predict()
# without new data) read the training x as the fit keeps it: not checked again as new data, and only the
# columns the requested step's model uses.

# A fit whose sweep over x for NA and Inf max_time cut short: the null model, with x kept unchecked (an
# Inf in the last row and an NA in the first, neither ever read). 2^17 rows and 10 columns: the sweep
# polls the clock after 8 columns (see test-max-time.R).
unchecked_x_data <- function() {
  set.seed(9)
  n <- 2^17
  x <- matrix(rnorm(n * 10), n, 10, dimnames = list(NULL, paste0("x", 1:10)))
  x[n, 10] <- Inf
  x[1, 9] <- NA
  y <- x[, 1] + rnorm(n)
  list(x = x, y = y, w = runif(n, 0.5, 2), off = rnorm(n, sd = 0.1))
}

test_that("the gaussian null model of a sweep cut short has lm()'s fitted values, residuals and likelihood", {
  d <- unchecked_x_data()
  expect_warning(fit <- fgseq(d$x, d$y, weights = d$w, offset = d$off, max_time = 1e-9),
                 class = "fgseq_warning_partial")
  expect_length(fit$sequence, 0L)
  expect_true(anyNA(fit$x) && any(is.infinite(fit$x)))  # kept unchecked
  ref <- stats::lm(d$y ~ 1, weights = d$w, offset = d$off)
  expect_close(fitted(fit), fitted(ref), 1e-10, "fitted")
  expect_close(residuals(fit, type = "response"), residuals(ref), 1e-10, "response residuals")
  expect_close(residuals(fit), stats::residuals(ref, type = "deviance"), 1e-10, "deviance residuals")
  expect_close(predict(fit)[, 1], fitted(ref), 1e-10, "predict() without newx")
  expect_close(deviance(fit), deviance(ref), 1e-10, "deviance")
  expect_close(logLik(fit), logLik(ref), 1e-10, "logLik")
  expect_identical(attr(logLik(fit), "df"), attr(logLik(ref), "df"))
  aug <- augment(fit)
  expect_close(aug$.fitted, fitted(ref), 1e-10, "augment .fitted")
  # deviance residuals by default, as broom's augment() of glm fits
  expect_close(aug$.resid, stats::residuals(ref, type = "deviance"), 1e-10, "augment .resid")
  expect_close(augment(fit, type.residuals = "response")$.resid, residuals(ref), 1e-10, "augment response .resid")
})

test_that("the binomial null model of a sweep cut short has glm()'s fitted values, residuals and likelihood", {
  d <- unchecked_x_data()
  yb <- as.numeric(d$y > 0)
  expect_warning(fit <- fgseq(d$x, yb, weights = d$w, offset = d$off, family = "binomial", max_time = 1e-9),
                 class = "fgseq_warning_partial")
  expect_length(fit$sequence, 0L)
  ref <- suppressWarnings(stats::glm(yb ~ 1, family = "binomial", weights = d$w, offset = d$off,
                                     control = stats::glm.control(epsilon = 1e-14, maxit = 100)))
  expect_close(fitted(fit), fitted(ref), 1e-8, "fitted")
  expect_close(residuals(fit, type = "response"), stats::residuals(ref, type = "response"), 1e-8, "response")
  expect_close(residuals(fit), stats::residuals(ref, type = "deviance"), 1e-7, "deviance residuals")
  expect_close(predict(fit, type = "link")[, 1], stats::predict(ref), 1e-8, "predict() link without newx")
  expect_close(predict(fit, type = "response")[, 1], fitted(ref), 1e-8, "predict() response without newx")
  expect_close(deviance(fit), deviance(ref), 1e-8, "deviance")
  expect_close(logLik(fit), logLik(ref), 1e-8, "logLik")
})

test_that("predictions on the training data at a step read only the columns of that step's model", {
  # x as the fit keeps it, with NA in a column the first step does not use: step 1 is lm() on the first
  # group alone; the last step, which uses that column, predicts NA on its row
  set.seed(3)
  n <- 200
  x <- matrix(rnorm(n * 3), n, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- 2 * x[, "a"] + 0.5 * x[, "b"] + 0.1 * x[, "c"] + rnorm(n)
  w <- runif(n, 0.5, 2)
  off <- rnorm(n, sd = 0.1)
  fit <- fgseq(x, y, weights = w, offset = off, lambda = 1e-12)
  first <- fit$sequence[1]
  other <- setdiff(colnames(x), first)[1]
  fit$x[5, other] <- NA
  ref <- stats::lm(y ~ x[, first], weights = w, offset = off)
  expect_close(fitted(fit, step = 1), fitted(ref), 1e-8, "fitted at step 1")
  expect_close(residuals(fit, step = 1, type = "response"), residuals(ref), 1e-8, "residuals at step 1")
  expect_close(predict(fit, step = 1)[, 1], fitted(ref), 1e-8, "predict() at step 1")
  expect_close(deviance(fit, step = 1), deviance(ref), 1e-8, "deviance at step 1")
  expect_identical(unname(which(is.na(fitted(fit)))), 5L)
})

test_that("an ordinary formula fit with na.exclude keeps lm()'s and glm()'s fitted values and residuals", {
  set.seed(11)
  n <- 300
  d <- data.frame(a = rnorm(n), b = rnorm(n), f = factor(sample(c("u", "v", "w"), n, TRUE)),
                  w = runif(n, 0.5, 2), off = rnorm(n, sd = 0.2))
  d$y <- d$a - 0.5 * d$b + (d$f == "v") + d$off + rnorm(n)
  d$yb <- as.numeric(d$y > 0.3)
  d$a[c(4, 9)] <- NA
  d$f[17] <- NA
  fit <- fgseq(y ~ a + b + f + offset(off), data = d, weights = w, lambda = 1e-12, na.action = na.exclude)
  ref <- stats::lm(y ~ a + b + f + offset(off), data = d, weights = w, na.action = na.exclude)
  expect_identical(unname(which(is.na(fitted(fit)))), c(4L, 9L, 17L))
  expect_close(fitted(fit)[-c(4, 9, 17)], fitted(ref)[-c(4, 9, 17)], 1e-8, "gaussian fitted")
  expect_close(residuals(fit, type = "response")[-c(4, 9, 17)], residuals(ref)[-c(4, 9, 17)], 1e-8,
               "gaussian residuals")
  expect_identical(names(fitted(fit)), names(fitted(ref)))
  last <- predict(fit, step = length(fit$sequence))
  expect_close(last[-c(4, 9, 17), 1], fitted(ref)[-c(4, 9, 17)], 1e-8, "gaussian predict() at the last step")
  expect_identical(rownames(last), names(fitted(ref)))
  expect_close(deviance(fit), deviance(ref), 1e-8, "gaussian deviance")
  bin <- fgseq(yb ~ a + b + f + offset(off), data = d, weights = w, family = "binomial", lambda = 1e-12,
               na.action = na.exclude)
  # non-integer weights: glm() warns of non-integer successes
  refb <- suppressWarnings(stats::glm(yb ~ a + b + f + offset(off), data = d, weights = w, family = "binomial",
                                      na.action = na.exclude,
                                      control = stats::glm.control(epsilon = 1e-14, maxit = 100)))
  expect_identical(unname(which(is.na(residuals(bin)))), c(4L, 9L, 17L))
  expect_close(fitted(bin)[-c(4, 9, 17)], fitted(refb)[-c(4, 9, 17)], 1e-7, "binomial fitted")
  expect_close(residuals(bin)[-c(4, 9, 17)], stats::residuals(refb, type = "deviance")[-c(4, 9, 17)], 1e-6,
               "binomial deviance residuals")
  expect_close(residuals(bin, type = "pearson")[-c(4, 9, 17)],
               stats::residuals(refb, type = "pearson")[-c(4, 9, 17)], 1e-6, "binomial pearson residuals")
  expect_close(deviance(bin), deviance(refb), 1e-7, "binomial deviance")
  expect_close(logLik(bin), logLik(refb), 1e-7, "binomial logLik")
})
