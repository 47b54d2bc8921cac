# Training is anytime too: max_time stops the selection and keeps the sequence learned so far.

test_that("max_time returns a prefix of the full sequence, marked partial", {
  set.seed(3)
  n <- 400
  x <- matrix(rnorm(n * 60), n, 60)
  y <- drop(x %*% rnorm(60)) + rnorm(n)
  group <- rep(1:30, each = 2)
  full <- fgseq(x, y, group = group, method = "fr")
  expect_false(full$partial)
  short <- fgseq(x, y, group = group, method = "fr", max_time = 1e-9)
  expect_true(short$partial)
  K <- length(short$sequence)
  expect_lt(K, length(full$sequence))
  expect_identical(short$sequence, full$sequence[seq_len(K)])
  expect_equal(short$path$r2, full$path$r2[seq_len(K + 1)])
  expect_match(paste(capture.output(print(short)), collapse = "\n"), "Partial: `max_time` was spent")
  glm_short <- fgseq(x, y > 0, group = group, family = "binomial", max_time = 1e-9)
  expect_true(glm_short$partial)
  expect_error(fgseq(x, y, max_time = 0), "`max_time` must be a single number > 0", class = "fgseq_error_input")
})

test_that("a progress bar does not change the fit", {
  set.seed(4)
  x <- matrix(rnorm(200 * 8), 200, 8)
  y <- x[, 1] - x[, 5] + rnorm(200)
  expect_equal(fgseq(x, y, progress = TRUE)$beta, fgseq(x, y)$beta)
  expect_error(fgseq(x, y, progress = "yes"), "`progress` must be TRUE or FALSE", class = "fgseq_error_input")
})

test_that("max_time spent in the Gram engine's pass over x is an error that says so", {
  # n spans many chunks of rows, so the pass checks the time between them
  set.seed(5)
  x <- matrix(rnorm(300000 * 4), 300000, 4)
  y <- x[, 1] + rnorm(300000)
  expect_error(fgseq(x, y, max_time = 1e-9, engine = "gram"),
               "max_time was spent in the pass over the data that every fit makes before its first step")
})

test_that("max_time bounds a binomial exact-FR fit whose every step refits each candidate", {
  # 200 one-column groups on 20,000 rows: every step runs a Newton solve per candidate, so the whole
  # path would take minutes; the clock is polled at every Newton iteration (and while the model makes
  # the candidates' columns), so max_time = 1 stops it within a small fraction of a second
  set.seed(6)
  n <- 20000
  p <- 200
  x <- matrix(rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  y <- as.numeric(drop(x[, 1:20] %*% rep(0.2, 20)) + rlogis(n) > 0)
  elapsed <- system.time(fit <- fgseq(x, y, family = "binomial", method = "fr", fr_gain = "exact",
                                      lambda = 0, max_time = 1))[["elapsed"]]
  expect_lt(elapsed, 5)  # a generous bound: the steps of the full path take minutes
  expect_true(fit$partial)
  K <- length(fit$sequence)
  expect_lt(K, p)
  # a valid fit: its last completed step is glm() on the groups selected so far, step 0 the null model
  expect_close(fit$a0[1], qlogis(mean(y)), 1e-8, "step 0")
  if (K > 0) {
    cols <- match(fit$sequence, colnames(x))  # one column per group, named as its column
    ref <- stats::glm(y ~ x[, cols, drop = FALSE], family = "binomial",
                      control = stats::glm.control(epsilon = 1e-14, maxit = 100))
    expect_close(unname(coef(fit)[c(1, 1 + cols), K + 1]), unname(coef(ref)), 1e-6, "last step")
  }
})
