# The sample-space engine (no p x p matrix) against the Gram engine, the plain-R reference and lm();
# sparse x (Matrix::dgCMatrix) against the same dense x, in both engines, the GLM families and predict.

wide_design <- function(n = 40, groups = 30, size = 3, seed = 1) {
  set.seed(seed)
  p <- groups * size
  x <- matrix(rnorm(n * p), n)
  for (j in seq(2, p, by = size)) x[, j] <- 0.6 * x[, j - 1] + 0.8 * x[, j]  # within-group correlation
  group <- rep(sprintf("g%02d", seq_len(groups)), each = size)
  cost <- stats::setNames(rep(c(1, 4, 2, 9, 3), length.out = groups), unique(group))
  y <- x[, 1] - 2 * x[, 3 * size + 2] + x[, 10 * size + 1] + rnorm(n, sd = 0.5)
  list(x = x, y = y, group = group, cost = cost)
}

same_fit <- function(a, b, tol = 1e-8) {
  expect_identical(a$sequence, b$sequence)
  expect_close(a$path$r2, b$path$r2, tol)
  expect_close(a$path$objective, b$path$objective, tol)
  # coefficients compared through the fitted values (beta of nearly collinear prefixes is ill-conditioned)
  expect_close(a$x %*% a$beta + rep(a$a0, each = nrow(a$x)), b$x %*% b$beta + rep(b$a0, each = nrow(b$x)), tol)
}

withr_options <- function(opts, code) {
  old <- options(opts)
  on.exit(options(old))
  code
}

with_x <- function(fit, x) {
  fit$x <- as.matrix(x)
  fit
}

test_that("the sample-space engine gives the Gram engine's sequence and path (tall and wide data)", {
  tall <- sim_groups(n = 120, sizes = c(2, 3, 1, 2, 2), rho = 0.5, seed = 11)
  wide <- wide_design()
  for (d in list(tall, wide)) {
    for (m in c("omp", "fr", "doubling")) {
      for (lambda in c(1e-3, 0.5)) {
        a <- fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = lambda, engine = "gram")
        b <- fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = lambda, engine = "sample")
        expect_identical(c(a$engine, b$engine), c("gram", "sample"))
        same_fit(with_x(a, d$x), with_x(b, d$x), 1e-8)
      }
    }
    for (cr in c("l2", "linf")) {
      a <- fgseq(d$x, d$y, d$group, d$cost, criterion = cr, lambda = 0.1, engine = "gram")
      b <- fgseq(d$x, d$y, d$group, d$cost, criterion = cr, lambda = 0.1, engine = "sample")
      same_fit(with_x(a, d$x), with_x(b, d$x), 1e-8)
    }
  }
})

test_that("the sample-space engine matches the plain-R reference at lambda = 0 and lm() on every prefix", {
  for (d in list(sim_rank_deficient(n = 100, seed = 2), sim_duplicated(n = 100, seed = 3), heart_design())) {
    for (m in c("omp", "fr", "doubling")) {
      r <- ref_fgseq(d$x, d$y, d$group, d$cost, method = m)
      f <- fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = 0, engine = "sample")
      expect_identical(f$sequence, r$sequence)
      expect_close(f$path$r2, r$r2, 1e-8)
      k <- length(f$sequence)
      expect_close(fitted_at(f$beta, f$a0, d$x, k + 1), fitted(lm(d$y ~ d$x)), 1e-7)
    }
  }
})

test_that("the sample-space engine handles weights, offsets, several responses and constant columns", {
  d <- wide_design(n = 50, groups = 20, seed = 4)
  w <- rep(1:3, length.out = 50)
  off <- seq(-1, 1, length.out = 50)
  a <- fgseq(d$x, d$y, d$group, d$cost, method = "fr", weights = w, offset = off, engine = "gram", lambda = 0.01)
  b <- fgseq(d$x, d$y, d$group, d$cost, method = "fr", weights = w, offset = off, engine = "sample", lambda = 0.01)
  same_fit(with_x(a, d$x), with_x(b, d$x), 1e-8)
  expect_close(a$path$score[-1], b$path$score[-1], 1e-8)
  for (m in c("omp", "fr")) {  # the unscreened passes (as for sparse x) centre the weighted gradients too
    g <- fgseq(d$x + 3, d$y, d$group, d$cost, method = m, weights = w, engine = "gram", lambda = 0.01)
    s <- withr_options(list(fgseq.screen = FALSE),
                       fgseq(d$x + 3, d$y, d$group, d$cost, method = m, weights = w, engine = "sample", lambda = 0.01))
    expect_identical(g$sequence, s$sequence)
    expect_close(g$path$score[-1], s$path$score[-1], 1e-8)
  }
  # integer weights are replicated rows
  rows <- rep(seq_len(50), w)
  c1 <- fgseq(d$x[rows, ], d$y[rows] - off[rows], d$group, d$cost, method = "fr", engine = "sample", lambda = 0.01)
  expect_identical(b$sequence, c1$sequence)
  expect_close(b$beta, c1$beta, 1e-8)

  Y <- cbind(d$y, d$x[, 5] + rnorm(50))
  a <- fgseq(d$x, Y, d$group, d$cost, family = "mgaussian", engine = "gram", lambda = 0.1)
  b <- fgseq(d$x, Y, d$group, d$cost, family = "mgaussian", engine = "sample", lambda = 0.1)
  expect_identical(a$sequence, b$sequence)
  expect_close(a$beta[[2]], b$beta[[2]], 1e-8)

  x <- d$x
  x[, 4] <- 7
  x[, 7:9] <- 1  # group g03 all constant
  warned <- function(code) {
    msgs <- character()
    value <- withCallingHandlers(code, warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    list(value = value, msgs = msgs)
  }
  a <- warned(fgseq(x, d$y, d$group, d$cost, engine = "gram", lambda = 0.1))
  b <- warned(fgseq(x, d$y, d$group, d$cost, engine = "sample", lambda = 0.1))
  expect_identical(a$msgs, b$msgs)
  expect_match(b$msgs, "constant", all = TRUE)
  expect_length(b$msgs, 2L)
  a <- a$value
  b <- b$value
  expect_identical(a$sequence, b$sequence)
  expect_false("g03" %in% b$sequence)
  expect_equal(unname(b$beta[4, ]), rep(0, ncol(b$beta)))
})

test_that("engine = 'auto' follows the documented rule", {
  set.seed(2)
  wide <- matrix(rnorm(20 * 2001), 20)
  y <- rnorm(20)
  expect_identical(fgseq(wide, y, max_steps = 2)$engine, "sample")
  expect_identical(fgseq(wide[, 1:2000], y, max_steps = 2)$engine, "gram")  # p <= 2000
  tall <- matrix(rnorm(300 * 5), 300)
  expect_identical(fgseq(tall, rnorm(300))$engine, "gram")
  expect_identical(fgseq(tall, rnorm(300) > 0, family = "binomial")$engine, "gram")
  skip_if_not_installed("Matrix")
  sp <- Matrix::rsparsematrix(3000, 2500, density = 0.01)
  expect_identical(fgseq(sp, rnorm(3000), max_steps = 2)$engine, "sample")  # sparse, p > 2000
})

test_that("a sparse x gives the dense fit in both engines, for GLMs, and predicts on sparse newx", {
  skip_if_not_installed("Matrix")
  d <- wide_design(n = 60, groups = 25, seed = 7)
  x <- d$x
  x[abs(x) < 0.8] <- 0  # about 40% stored
  xs <- Matrix::Matrix(x, sparse = TRUE)
  expect_s4_class(xs, "dgCMatrix")
  for (eng in c("gram", "sample")) {
    for (m in c("omp", "fr")) {
      a <- fgseq(x, d$y, d$group, d$cost, method = m, engine = eng, lambda = 0.05)
      b <- fgseq(xs, d$y, d$group, d$cost, method = m, engine = eng, lambda = 0.05)
      same_fit(with_x(a, x), with_x(b, x), 1e-9)
      expect_close(predict(b, xs, step = 0:3), predict(a, x, step = 0:3), 1e-9)
    }
  }
  # a triplet-form sparse matrix is converted, not densified by the caller
  xt <- methods::as(xs, "TsparseMatrix")
  expect_identical(fgseq(xt, d$y, d$group, d$cost)$sequence, fgseq(x, d$y, d$group, d$cost)$sequence)
  # logistic and Poisson fits read the sparse x in place too
  yb <- as.numeric(d$y > 0)
  a <- fgseq(x, yb, d$group, d$cost, family = "binomial", max_steps = 5, lambda = 0.01)
  b <- fgseq(xs, yb, d$group, d$cost, family = "binomial", max_steps = 5, lambda = 0.01)
  expect_identical(a$sequence, b$sequence)
  # equal up to the Newton solver's tolerance: its gradient criterion (1e-11) leaves about 1e-9 in the
  # coefficients at a curvature near lambda, and the last step of the two fits may stop one iterate apart
  expect_close(predict(b, xs, type = "response"), predict(a, x, type = "response"), 1e-7)
  yc <- rpois(60, exp(0.3 * x[, 1]))
  a <- fgseq(x, yc, d$group, d$cost, family = "poisson", max_steps = 4, lambda = 0.01)
  b <- fgseq(xs, yc, d$group, d$cost, family = "poisson", max_steps = 4, lambda = 0.01)
  expect_close(a$beta, b$beta, 1e-9)
  # glmnet-style check: the last step equals the dense least-squares fit
  f <- fgseq(xs[, 1:9], d$y, d$group[1:9], d$cost[1:3], lambda = 0)
  expect_close(fitted_at(f$beta, f$a0, x[, 1:9], 4), fitted(lm(d$y ~ x[, 1:9])), 1e-8)
})

test_that("screening with the 16-bit copy gives the unscreened sequence, scores and path", {
  # without the copy every score is exact; with it, ranges decide and only near-best groups are rescored
  unscreened <- function(...) withr_options(list(fgseq.screen = FALSE), fgseq(..., engine = "sample"))
  screened <- function(...) withr_options(list(fgseq.screen = TRUE), fgseq(..., engine = "sample"))
  d <- wide_design(n = 60, groups = 40, size = 3, seed = 3)
  x <- cbind(d$x, d$x[, 1:3], 1e3 * d$x[, 4:6])  # a duplicated group (exact ties) and a rescaled one
  group <- c(d$group, rep(c("dup", "big"), each = 3))
  cost <- c(d$cost, dup = 1, big = 4)
  w <- runif(60, 0.5, 2)
  Y <- cbind(d$y, x[, 5] + rnorm(60))
  for (lambda in c(0, 0.1)) {
    for (m in c("omp", "fr", "doubling")) {
      a <- unscreened(x, d$y, group, cost, method = m, lambda = lambda, weights = w)
      b <- screened(x, d$y, group, cost, method = m, lambda = lambda, weights = w)
      same_fit(with_x(a, x), with_x(b, x), 1e-9)
      expect_close(a$path$score[-1], b$path$score[-1], 1e-9)
      a <- unscreened(x, Y, group, cost, method = m, lambda = lambda, family = "mgaussian")
      b <- screened(x, Y, group, cost, method = m, lambda = lambda, family = "mgaussian")
      expect_identical(a$sequence, b$sequence)
      expect_close(a$path$objective, b$path$objective, 1e-9)
      expect_close(a$path$score[-1], b$path$score[-1], 1e-9)
    }
    for (cr in c("l2", "linf")) {
      a <- unscreened(x, d$y, group, cost, criterion = cr, lambda = lambda, cost_sensitive = FALSE)
      b <- screened(x, d$y, group, cost, criterion = cr, lambda = lambda, cost_sensitive = FALSE)
      same_fit(with_x(a, x), with_x(b, x), 1e-9)
    }
  }
  # the duplicated group ties with the first one; the first in the given order wins, as in the Gram engine
  yt <- x[, 2] + rnorm(60, sd = 0.1)
  tie <- fgseq(x, yt, group, cost, max_steps = 2, engine = "gram")
  expect_identical(tie$sequence[1], "g01")
  expect_identical(screened(x, yt, group, cost, max_steps = 2)$sequence, tie$sequence)
  expect_error(withr_options(list(fgseq.screen = NA), fgseq(d$x, d$y)), "option `fgseq.screen` must be TRUE or FALSE")
})

test_that("results do not depend on the number of threads", {
  d <- wide_design(n = 3000, groups = 12, size = 4, seed = 9)
  w <- c(rep(0, 1500), runif(1500))  # first half zero weight: the row ranges fall back to one pass
  for (eng in c("gram", "sample")) {
    a <- withr_options(list(fgseq.threads = 1), fgseq(d$x, d$y, d$group, d$cost, method = "fr", engine = eng))
    b <- withr_options(list(fgseq.threads = 2), fgseq(d$x, d$y, d$group, d$cost, method = "fr", engine = eng))
    expect_identical(a$sequence, b$sequence)
    expect_close(a$beta, b$beta, 1e-10)
    a <- withr_options(list(fgseq.threads = 1), fgseq(d$x, d$y, d$group, d$cost, weights = w, engine = eng))
    b <- withr_options(list(fgseq.threads = 2), fgseq(d$x, d$y, d$group, d$cost, weights = w, engine = eng))
    expect_close(a$beta, b$beta, 1e-10)
  }
})

test_that("bad sparse input and bad options stop with clear messages", {
  skip_if_not_installed("Matrix")
  d <- wide_design(n = 30, groups = 12)
  xs <- Matrix::Matrix(d$x, sparse = TRUE)
  bad <- xs
  bad@x[7] <- NA
  expect_error(fgseq(bad, d$y, d$group, d$cost), "`x` \\(a sparse matrix\\) stores NA, NaN or Inf \\(first in column 1\\)")
  fit <- fgseq(xs, d$y, d$group, d$cost)
  expect_error(predict(fit, bad), "`newx` contains NA, NaN or Inf")
  expect_error(predict(fit, xs[, 1:5]), "`newx` must have 36 columns")
  expect_error(miser_path(xs, d$y, cost = rep(1, 36), newx = d$x, newy = d$y),
               "`x` is a sparse matrix; this function needs a dense numeric matrix")
  expect_error(miser(xs, d$y, cost = rep(1, 36), split = "exact"), "split = \"exact\" needs a dense one",
               class = "fgseq_error_sparse_exact")
  expect_error(fgseq(d$x, d$y, engine = "fast"), "`engine` must be one of", class = "fgseq_error_input")
  expect_error(withr_options(list(fgseq.threads = 0), fgseq(d$x, d$y)), "option `fgseq.threads` must be a whole number >= 1")
})

test_that("a group wider than n is whitened from its rows: its rank and explained variance as lm()", {
  # 300 columns of rank 8 on 20 rows (and two narrow groups): the sample-space engine whitens the wide
  # group from the 20 x 20 matrix of its rows, the Gram engine from its 300 x 300 block
  set.seed(31)
  n <- 20
  B <- matrix(rnorm(n * 8), n, 8)
  narrow <- matrix(rnorm(n * 2), n, 2)
  x <- cbind(B %*% matrix(rnorm(8 * 300), 8, 300), narrow)
  colnames(x) <- paste0("v", seq_len(ncol(x)))
  group <- c(rep("wide", 300), "a", "b")
  y <- drop(B %*% rnorm(8)) + 0.5 * narrow[, 1] + rnorm(n, sd = 0.3)
  for (engine in c("sample", "gram")) {
    fit <- fgseq(x, y, group = group, engine = engine, lambda = 0, method = "fr")
    expect_equal(unname(fit$rank["wide"]), 8L)
    for (k in seq_along(fit$sequence)) {
      used <- group %in% fit$sequence[seq_len(k)]
      expect_equal(fit$path$r2[k + 1], summary(lm(y ~ x[, used]))$r.squared, tolerance = 1e-8,
                   label = paste(engine, "r2 at step", k))
    }
  }
  # full rank: 300 random columns on 20 rows span the 19 centred directions, and explain y exactly
  xr <- matrix(rnorm(n * 300), n, 300)
  fit <- fgseq(xr, y, group = rep("wide", 300), engine = "sample", lambda = 0)
  expect_equal(unname(fit$rank), 19L)
  expect_equal(fit$path$r2[2], 1, tolerance = 1e-8)
})
