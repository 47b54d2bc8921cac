# The one-pass statistics centre rows chunk by chunk, so large column means do not cost accuracy
# (the textbook X'X - n m m' would lose every digit here: means of 1e8 against unit spread).

test_that("columns with huge means give the least-squares fit of lm()", {
  set.seed(5)
  n <- 3000
  z <- matrix(rnorm(n * 6), n, 6, dimnames = list(NULL, paste0("v", 1:6)))
  x <- sweep(z, 2, c(1e8, -3e7, 5e6, 1e8, 0, 2e8), "+")
  y <- drop(z %*% c(1, 0.5, -1, 0, 2, 0.3)) + rnorm(n) + 1e6
  fit <- fgseq(x, y, group = c(1, 1, 2, 2, 3, 3), lambda = 0)
  ref <- lm(y ~ z)   # the same model on the centred-by-hand columns: well conditioned
  K <- length(fit$sequence)
  expect_equal(fit$path$r2[K + 1], summary(ref)$r.squared, tolerance = 1e-8)
  expect_equal(unname(fit$beta[, K + 1]), unname(coef(ref)[-1]), tolerance = 1e-6)
  expect_equal(unname(drop(predict(fit, x, step = K))), unname(fitted(ref)), tolerance = 1e-10)
})

test_that("chunked statistics agree with the unchunked ones when n spans many chunks", {
  # p = 2 gives chunks of 2^18 rows: n beyond that crosses a chunk boundary
  set.seed(6)
  n <- 300000
  x <- cbind(a = rnorm(n, 50), b = rnorm(n, -20))
  y <- 3 * x[, 1] - x[, 2] + rnorm(n)
  fit <- fgseq(x, y, lambda = 0)
  ref <- lm.fit(cbind(1, x), y)
  expect_equal(unname(fit$beta[, 3]), unname(ref$coefficients[-1]), tolerance = 1e-9)
  expect_equal(unname(fit$a0[3]), unname(ref$coefficients[1]), tolerance = 1e-9)
})

test_that("the cross-product through R's BLAS (dsyrk) equals Eigen's, weighted or not", {
  set.seed(7)
  x <- matrix(rnorm(500 * 12), 500, 12) + 3
  y <- drop(x[, 1:4] %*% c(1, -1, 2, 0.5)) + rnorm(500)
  w <- runif(500)
  fits <- lapply(c("eigen", "blas"), function(g) {
    withr_opt <- options(fgseq.linear_algebra = g)
    on.exit(options(withr_opt))
    list(plain = fgseq(x, y, group = rep(1:4, 3), method = "fr"),
         weighted = fgseq(x, y, group = rep(1:4, 3), weights = w))
  })
  for (k in c("plain", "weighted")) {
    expect_identical(fits[[1]][[k]]$sequence, fits[[2]][[k]]$sequence)
    expect_equal(fits[[1]][[k]]$beta, fits[[2]][[k]]$beta, tolerance = 1e-12)
    expect_equal(fits[[1]][[k]]$path$r2, fits[[2]][[k]]$path$r2, tolerance = 1e-12)
  }
  old <- options(fgseq.linear_algebra = "fast")
  on.exit(options(old))
  expect_error(fgseq(x, y), "option `fgseq.linear_algebra` must be \"auto\", \"blas\" or \"eigen\"",
               class = "fgseq_error_input")
  # the option's former name is still read when the new one is not set
  options(fgseq.linear_algebra = NULL, fgseq.gram = "fast")
  expect_error(fgseq(x, y), "option `fgseq.linear_algebra` must be", class = "fgseq_error_input")
  options(fgseq.gram = "blas")
  expect_identical(fgseq:::linear_algebra(), "blas")
  options(fgseq.linear_algebra = "eigen")
  expect_identical(fgseq:::linear_algebra(), "eigen")
  options(fgseq.gram = NULL, fgseq.linear_algebra = NULL)
})

# Statistics travel between machines as files: a damaged or edited object is refused, naming the
# field, before any of it reaches the core (which checks the sizes again: a throw, never a bad access).
tampered_stats <- function() {
  set.seed(11)
  x <- matrix(rnorm(60 * 5), 60, 5, dimnames = list(NULL, paste0("v", 1:5)))
  fgseq_stats(x, x[, 1] - x[, 3] + rnorm(60))
}

test_that("statistics with a short xx are refused (field xx)", {
  s <- tampered_stats()
  s$xx <- s$xx[1:3, 1:3]
  expect_error(fgseq(s), "`x` is not valid \"fgseq_stats\" statistics: its field `xx` is not a 5 x 5 matrix",
               class = "fgseq_error_invalid_object")
  expect_error(fgseq(s), class = "fgseq_error_invalid_object")
  expect_error(s + tampered_stats(), "`e1` is not valid .*field `xx`", class = "fgseq_error_invalid_object")
})

test_that("statistics with a short xy are refused (field xy)", {
  s <- tampered_stats()
  s$xy <- s$xy[1:2, , drop = FALSE]
  expect_error(fgseq(s), "field `xy` does not have 5 values", class = "fgseq_error_invalid_object")
  expect_error(tampered_stats() + s, "`e2` is not valid .*field `xy`", class = "fgseq_error_invalid_object")
})

test_that("statistics with a short mean, names or group are refused", {
  s <- tampered_stats()
  s$mean <- s$mean[1:4]
  expect_error(fgseq(s), "field `xx` is not a 4 x 4 matrix", class = "fgseq_error_invalid_object")
  s <- tampered_stats()
  s$names <- s$names[1:4]
  expect_error(fgseq(s), "field `names` is not 5 column names", class = "fgseq_error_invalid_object")
  s <- tampered_stats()
  s$group <- s$group[-1]
  expect_error(fgseq(s), "field `group` is not 5 group labels", class = "fgseq_error_invalid_object")
})

test_that("statistics with NaN, a fractional n or a missing field are refused", {
  s <- tampered_stats()
  s$xx[2, 3] <- NaN
  expect_error(fgseq(s), "field `xx` holds NA, NaN or Inf", class = "fgseq_error_invalid_object")
  s <- tampered_stats()
  s$n <- 0.5
  expect_error(fgseq(s), "field `n` is not a whole number >= 1", class = "fgseq_error_invalid_object")
  s <- tampered_stats()
  s$yy <- NULL
  expect_error(fgseq(s), "field `yy` is missing", class = "fgseq_error_invalid_object")
  s <- tampered_stats()
  s$weight_sum <- -1
  expect_error(s + tampered_stats(), "field `weight_sum` is not a single positive number",
               class = "fgseq_error_invalid_object")
})

test_that("the core checks the sizes of moments itself", {
  m <- unclass(tampered_stats())[c("n", "weight_sum", "mean", "y_mean", "xx", "xy", "yy")]
  m$xx <- m$xx[1:3, 1:3]
  labels <- paste0("v", 1:5)
  meas <- fgseq:::measurement_index(fgseq:::group_measurements(NULL, NULL, labels), labels)
  expect_error(fgseq:::.fit_moments(m, 0:4, 5L, meas, fgseq:::fit_control("omp", "whitened", "exact",
    TRUE, 0, Inf, Inf, NULL, Inf), NULL), "standardize: the moments' sizes do not fit together")
  m2 <- unclass(tampered_stats())[names(m)]
  expect_error(fgseq:::.merge_moments(m, m2), "merge_moments: the moments' sizes do not fit together")
})

test_that("untouched statistics read back from a file give the fit of the rows", {
  set.seed(12)
  x <- matrix(rnorm(80 * 4), 80, 4, dimnames = list(NULL, paste0("v", 1:4)))
  y <- drop(x %*% c(1, -2, 0, 0.5)) + rnorm(80)
  f <- tempfile(fileext = ".rds")
  saveRDS(fgseq_stats(x, y), f)
  fit <- fgseq(readRDS(f), lambda = 0)
  expect_equal(unname(fit$beta[, 5]), unname(coef(lm(y ~ x))[-1]), tolerance = 1e-9)
})

test_that("the core checks that y, weights and offset have one row per row of x", {
  set.seed(13)
  x <- matrix(rnorm(60 * 5), 60, 5)
  labels <- paste0("V", 1:5)
  meas <- fgseq:::measurement_index(fgseq:::group_measurements(NULL, NULL, labels), labels)
  ctl <- c(fgseq:::fit_control("omp", "whitened", "exact", TRUE, 0, Inf, Inf, NULL, Inf), list(engine = "gram"))
  expect_error(fgseq:::.fit_path(x, matrix(rnorm(10)), numeric(0), matrix(0, 0, 0), 0:4, 5L, meas, "gaussian",
                                 ctl, NULL), "fit_path: y, weights and offset need one row per row of x")
  expect_error(fgseq:::.fit_path(x, matrix(rnorm(60)), rep(1, 7), matrix(0, 0, 0), 0:4, 5L, meas, "gaussian",
                                 ctl, NULL), "fit_path: y, weights and offset need one row per row of x")
})
