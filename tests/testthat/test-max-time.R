# Training is anytime too: max_time stops the selection and keeps the sequence learned so far.

test_that("max_time returns a prefix of the full sequence, marked partial", {
  set.seed(3)
  n <- 400
  x <- matrix(rnorm(n * 60), n, 60)
  y <- drop(x %*% rnorm(60)) + rnorm(n)
  group <- rep(1:30, each = 2)
  full <- fgseq(x, y, group = group, method = "fr")
  expect_false(full$partial)
  expect_warning(short <- fgseq(x, y, group = group, method = "fr", max_time = 1e-9),
                 "`max_time` \\(1e-09 s\\) was spent before step 1 \\(of at most 30\\) was complete",
                 class = "fgseq_warning_partial")
  expect_true(short$partial)
  K <- length(short$sequence)
  expect_lt(K, length(full$sequence))
  expect_identical(short$sequence, full$sequence[seq_len(K)])
  expect_equal(short$path$r2, full$path$r2[seq_len(K + 1)])
  expect_match(paste(capture.output(print(short)), collapse = "\n"), "Partial: `max_time` was spent")
  expect_warning(glm_short <- fgseq(x, y > 0, group = group, family = "binomial", max_time = 1e-9),
                 class = "fgseq_warning_partial")
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

test_that("max_time spent in the linear engines' pass over x gives the null model, marked partial", {
  # n spans many chunks of rows (the Gram engine's pass polls between them) and 4 groups (the
  # sample-space engine's between groups); x's 1.2 million values are swept for NA and extreme scales
  # without a poll (one per 2^20 values while columns remain), so the time runs out in the pass
  set.seed(5)
  n <- 300000
  x <- matrix(rnorm(n * 4), n, 4)
  y <- x[, 1] + rnorm(n)
  w <- rep(c(0.5, 2), length.out = n)
  null <- stats::lm(y ~ 1, weights = w, offset = rep(0.25, n))
  for (engine in c("gram", "sample")) {
    expect_warning(fit <- fgseq(x, y, weights = w, offset = rep(0.25, n), max_time = 1e-9, engine = engine),
                   "was spent before step 1", class = "fgseq_warning_partial")
    expect_true(fit$partial)
    expect_length(fit$sequence, 0L)
    expect_close(unname(coef(fit)[, 1]), c(unname(coef(null)), rep(0, 4)), 1e-10, engine)
    expect_equal(fit$path$r2, 0)
  }
})

test_that("max_time spent in the sweep over x for NA and extreme scales gives the null model, x unread", {
  # the Inf in column x10 is never reached; the fit is the null model of y, weights and offset (lm()
  # and glm() with the intercept alone), never a fit on unchecked data. With time, the Inf is an error.
  d <- unread_inf_problem()
  x <- d$x
  y <- d$y
  w <- d$w
  off <- d$off
  expect_error(fgseq(x, y), "`x` contains NA, NaN or Inf \\(first in column 'x10'\\)", class = "fgseq_error_input")
  expect_warning(fit <- fgseq(x, y, weights = w, offset = off, max_time = 1e-9), "was spent before step 1",
                 class = "fgseq_warning_partial")
  expect_true(fit$partial)
  expect_length(fit$sequence, 0L)
  expect_close(unname(coef(fit)[, 1]), c(unname(coef(stats::lm(y ~ 1, weights = w, offset = off))), rep(0, 10)),
               1e-10, "gaussian")
  yb <- as.numeric(y > 0)
  expect_warning(bin <- fgseq(x, yb, weights = w, offset = off, family = "binomial", max_time = 1e-9),
                 class = "fgseq_warning_partial")
  ref <- suppressWarnings(stats::glm(yb ~ 1, family = "binomial", weights = w, offset = off,
                                     control = stats::glm.control(epsilon = 1e-14, maxit = 100)))
  expect_close(unname(coef(bin)[, 1]), c(unname(coef(ref)), rep(0, 10)), 1e-8, "binomial")
  # multinomial: the null model's class probabilities are the weighted class frequencies
  yc <- cut(y, c(-Inf, -1, 0.5, Inf), labels = c("low", "mid", "high"))
  expect_warning(mult <- fgseq(x, yc, weights = w, family = "multinomial", max_time = 1e-9),
                 class = "fgseq_warning_partial")
  expect_length(mult$sequence, 0L)
  freq <- tapply(w, yc, sum) / sum(w)
  expect_close(predict(mult, x[1:3, ], type = "response")[1, , 1], freq, 1e-8, "multinomial")
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
  elapsed <- system.time(expect_warning(fit <- fgseq(x, y, family = "binomial", method = "fr", fr_gain = "exact",
                                                     lambda = 0, max_time = 1),
                                        class = "fgseq_warning_partial"))[["elapsed"]]
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

test_that("a fit stopped by max_time warns (class fgseq_warning_partial) with the step it stopped at", {
  set.seed(7)
  x <- matrix(rnorm(300 * 12), 300, 12)
  y <- drop(x %*% rnorm(12)) + rnorm(300)
  group <- rep(1:6, each = 2)
  expect_warning(fit <- fgseq(x, y, group = group, max_steps = 4, max_time = 1e-9),
                 "before step 1 \\(of at most 4\\) was complete: the fit holds the 0 steps before it",
                 class = "fgseq_warning_partial")
  expect_true(fit$partial)
  expect_length(fit$sequence, 0L)
  expect_no_warning(full <- fgseq(x, y, group = group, max_time = 60))
  expect_false(full$partial)
  # a verb that makes several fits warns once for all of them
  partial_warnings <- function(expr) {
    caught <- character(0)
    value <- withCallingHandlers(expr, fgseq_warning_partial = function(w) {
      caught <<- c(caught, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    list(value = value, caught = caught)
  }
  cv <- partial_warnings(cv_fgseq(x, y, group = group, lambda = c(0.1, 0.01), nfolds = 3, seed = 1,
                                  stop_cost = 3, max_time = 1e-9))
  expect_length(cv$caught, 1L)
  expect_match(cv$caught, "stopped 8 of the 8 fits")
  expect_true(all(vapply(cv$value$fgseq.fit, `[[`, logical(1), "partial")))
  mp <- partial_warnings(miser_path(x, y, cost = rep(1, 12), cost_penalty = c(0, 0.1), max_steps = 5,
                                    max_time = 1e-9, newx = x, newy = y))
  expect_length(mp$caught, 1L)
  expect_match(mp$caught, "stopped 2 of the 2 fits")
})

test_that("max_time counts from the call: the input checks of a large fit are within it", {
  # 100,000 rows: the checks of x and y in R (finiteness, extreme scales, the response) and the pass
  # over the groups are counted, and the path (50 groups, a Newton refit per candidate: minutes in
  # all) stops well within a generous bound (the overshoot itself is measured by
  # bench/bench-max-time.R, not here)
  set.seed(8)
  n <- 100000
  p <- 100
  x <- matrix(rnorm(n * p), n, p)
  y <- as.numeric(drop(x[, 1:4] %*% rep(0.3, 4)) + rlogis(n) > 0)
  elapsed <- system.time(expect_warning(
    fit <- fgseq(x, y, group = rep(1:50, each = 2), family = "binomial", method = "fr", max_time = 1),
    class = "fgseq_warning_partial"))[["elapsed"]]
  expect_lt(elapsed, 5)
  expect_true(fit$partial)
  expect_lt(length(fit$sequence), 50L)
})

test_that("max_time counts the pass over the chunks of a Gaussian fit, checked between chunks", {
  # four chunks from a function; reading chunk 1 takes 0.3 s, more than max_time: chunks 2 to 4 start
  # after the deadline and add their y alone (x not read: chunk 4's NA is not seen), and the fit is the
  # null model of all the rows (lm() on the intercept alone, weighted), marked partial
  set.seed(10)
  n <- 4000
  x <- matrix(rnorm(n * 6), n, 6)
  y <- drop(x %*% rnorm(6)) + rnorm(n)
  w <- runif(n, 0.5, 2)
  rows <- split(seq_len(n), rep(1:4, each = n / 4))
  chunk <- function(i) {
    if (i == 1) Sys.sleep(0.3)
    xi <- x[rows[[i]], ]
    if (i == 4) xi[1, 1] <- NA
    list(x = xi, y = y[rows[[i]]], weights = w[rows[[i]]])
  }
  chunks <- fgseq_chunks(chunk, n_chunks = 4)
  elapsed <- system.time(expect_warning(fit <- fgseq(chunks, group = rep(1:3, 2), max_time = 0.2),
                                        "was spent before step 1", class = "fgseq_warning_partial"))[["elapsed"]]
  expect_lt(elapsed, 5)
  expect_true(fit$partial)
  expect_length(fit$sequence, 0L)
  expect_identical(fit$nobs, as.integer(n))
  expect_close(unname(coef(fit)[, 1]), c(unname(coef(stats::lm(y ~ 1, weights = w))), rep(0, 6)), 1e-10, "null")
  # with time, every chunk is read: chunk 4's NA is an error, and without it the fit is the in-memory one
  expect_error(fgseq(chunks, group = rep(1:3, 2)), "chunk 4: `x` contains NA, NaN or Inf", class = "fgseq_error_input")
  whole <- fgseq_chunks(lapply(rows, function(r) list(x = x[r, ], y = y[r], weights = w[r])))
  expect_equal(coef(fgseq(whole, group = rep(1:3, 2), max_time = 60)), coef(fgseq(x, y, group = rep(1:3, 2), weights = w)),
               tolerance = 1e-10)
})
