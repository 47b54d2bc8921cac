# Observation weights and offsets of the Greedy Miser, against values computed another way: repeated
# rows, the plain-R reference (helper-miser-reference.R) with weights and offsets, a fit on y - offset,
# and the matrix method for the formula method.

wd <- sim_miser(50, 5, seed = 3)
wcost <- c(x1 = 1, x2 = 2, x3 = 5, x4 = 3, x5 = 4)
wy <- list(gaussian = wd$y, binomial = wd$y01, multinomial = wd$yk)
# rounded columns: few distinct values, so that max_bin = 6 bins them coarsely (quantiles matter)
wx <- round(wd$x, 1)

test_that("whole-number weights equal repeating rows (trees, path, predictions; both split searches)", {
  set.seed(4)
  w <- sample(0:3, nrow(wx), replace = TRUE)
  rows <- rep(seq_len(nrow(wx)), w)
  for (family in names(wy)) {
    y <- wy[[family]]
    for (split in c("histogram", "exact")) {
      # four steps: at the fifth, a multinomial node of the histogram search has two columns whose
      # penalized gains are equal to within the rounding of their sums (a gain is a difference of
      # large terms), and the weighted and the repeated rows round them to different choices
      args <- list(cost = wcost, cost_penalty = 0.02, max_steps = 4, depth = 3, eta = 0.3, family = family,
                   min_node_size = 1, split = split, max_bin = 6)
      a <- do.call(miser, c(list(wx, y, weights = w), args))
      b <- do.call(miser, c(list(wx[rows, ], if (is.factor(y)) y[rows] else y[rows]), args))
      expect_identical(a$trees[, c("tree", "column", "threshold", "left", "right")],
                       b$trees[, c("tree", "column", "threshold", "left", "right")])
      expect_equal(a$trees$value, b$trees$value, tolerance = 1e-12)
      expect_equal(a$path, b$path, tolerance = 1e-12)
      expect_equal(a$cost_penalty_scaled, b$cost_penalty_scaled, tolerance = 1e-12)
      expect_equal(predict(a, wx, type = "response"), predict(b, wx, type = "response"), tolerance = 1e-12)
      expect_identical(a$nobs, sum(w > 0))
    }
  }
})

test_that("weights all equal to 2 give the fit without weights", {
  for (family in names(wy)) {
    for (split in c("histogram", "exact")) {
      args <- list(wx, wy[[family]], cost = wcost, cost_penalty = 0.02, max_steps = 5, depth = 3,
                   family = family, split = split, max_bin = 6)
      a <- do.call(miser, args)
      b <- do.call(miser, c(args, list(weights = rep(2, nrow(wx)))))
      expect_identical(a$trees[, c("tree", "column", "threshold", "left", "right")],
                       b$trees[, c("tree", "column", "threshold", "left", "right")])
      expect_equal(a$trees$value, b$trees$value, tolerance = 1e-12)
      expect_equal(a$path$loss, b$path$loss, tolerance = 1e-12)
      expect_equal(2 * a$cost_penalty_scaled, b$cost_penalty_scaled, tolerance = 1e-12)  # s0 is a weighted sum
    }
  }
})

test_that("a weighted fit equals the plain-R reference (weighted sums, bins, leaves, starting constants)", {
  set.seed(5)
  w <- runif(nrow(wx), 0.2, 3)
  newx <- sim_miser(20, 5, seed = 6)$x
  for (family in names(wy)) {
    y <- wy[[family]]
    for (max_bin in list(NULL, 6)) {
      fit <- miser(wx, y, cost = wcost, cost_penalty = 0.03, max_steps = 4, depth = 3, eta = 0.3,
                   family = family, min_node_size = 2, weights = w,
                   split = if (is.null(max_bin)) "exact" else "histogram", max_bin = if (is.null(max_bin)) 255 else max_bin)
      ref <- ref_miser(wx, y, family, n_trees = 4, depth = 3, eta = 0.3, min_node = 2, cost = unname(wcost),
                       lambda_scaled = fit$cost_penalty_scaled, newx = newx, max_bin = max_bin, weights = w)
      expect_equal(fit$cost_penalty_scaled, 0.03 * ref$s0 / mean(wcost), tolerance = 1e-12)
      expect_equal(fit_trees(fit), ref$trees, tolerance = 1e-10, ignore_attr = TRUE)
      expect_equal(unname(fit$init), ref$init, tolerance = 1e-12)
      expect_equal(fit$path$loss, ref$loss, tolerance = 1e-10)
      expect_equal(unname(matrix(predict(fit, newx), nrow(newx))), do.call(cbind, ref$Hnew), tolerance = 1e-10)
    }
  }
  # the starting constant is the weighted mean, log-odds, centred log class frequencies
  fit <- miser(wx, wd$y01, cost = wcost, family = "binomial", weights = w, max_steps = 1)
  p <- weighted.mean(wd$y01, w)
  expect_equal(unname(fit$init), log(p / (1 - p)), tolerance = 1e-12)
  expect_equal(unname(fit$y_mean), p, tolerance = 1e-12)
})

test_that("a gaussian offset equals fitting y - offset and adding the offset back", {
  set.seed(7)
  off <- rnorm(nrow(wx), sd = 2)
  newx <- sim_miser(15, 5, seed = 8)$x
  newoff <- rnorm(15)
  for (split in c("histogram", "exact")) {
    a <- miser(wx, wd$y, cost = wcost, cost_penalty = 0.02, max_steps = 6, depth = 2, offset = off, split = split)
    b <- miser(wx, wd$y - off, cost = wcost, cost_penalty = 0.02, max_steps = 6, depth = 2, split = split)
    expect_identical(a$trees[, c("tree", "column", "threshold")], b$trees[, c("tree", "column", "threshold")])
    expect_equal(a$trees$value, b$trees$value, tolerance = 1e-10)
    expect_equal(unname(a$init), mean(wd$y - off), tolerance = 1e-10)
    expect_equal(a$path$loss, b$path$loss, tolerance = 1e-10)
    expect_equal(predict(a, newx, step = 0:6, newoffset = newoff), predict(b, newx, step = 0:6) + newoff,
                 tolerance = 1e-10)
    expect_equal(unname(fitted(a)), unname(predict(b, wx, step = 6)[, 1] + off), tolerance = 1e-10)
    # rows predicted by their longest prefix, and one budget per row, add the offset too
    expect_equal(c(predict(a, newx, step = 0:6, newoffset = newoff, missing = "prefix")),
                 c(predict(b, newx, step = 0:6) + newoff), tolerance = 1e-10)
    expect_equal(c(predict(a, newx, step = rep(0:4, 3), per_row = TRUE, newoffset = newoff)),
                 c(predict(b, newx, step = rep(0:4, 3), per_row = TRUE) + newoff), tolerance = 1e-10)
  }
})

test_that("binomial and multinomial offsets are the starting scores of the plain-R reference", {
  set.seed(9)
  newx <- sim_miser(15, 5, seed = 10)$x
  w <- runif(nrow(wx), 0.5, 2)
  for (family in c("binomial", "multinomial")) {
    P <- if (family == "binomial") 1L else nlevels(wd$yk)
    off <- matrix(rnorm(nrow(wx) * P), ncol = P)
    newoff <- matrix(rnorm(15 * P), ncol = P)
    if (P == 1L) {
      off <- drop(off)
      newoff <- drop(newoff)
    }
    for (weights in list(NULL, w)) {
      fit <- miser(wx, wy[[family]], cost = wcost, cost_penalty = 0.02, max_steps = 2, depth = 2, eta = 0.5,
                   family = family, min_node_size = 2, split = "exact", offset = off, weights = weights)
      ref <- ref_miser(wx, wy[[family]], family, n_trees = 2, depth = 2, eta = 0.5, min_node = 2,
                       cost = unname(wcost), lambda_scaled = fit$cost_penalty_scaled, newx = newx, weights = weights,
                       offset = off, newoffset = newoff)
      expect_equal(unname(fit$init), ref$init, tolerance = 1e-10)
      expect_equal(fit$cost_penalty_scaled, 0.02 * ref$s0 / mean(wcost), tolerance = 1e-10)
      expect_equal(fit_trees(fit), ref$trees, tolerance = 1e-10, ignore_attr = TRUE)
      expect_equal(fit$path$loss, ref$loss, tolerance = 1e-10)
      expect_equal(unname(matrix(predict(fit, newx, newoffset = newoff), 15)), do.call(cbind, ref$Hnew),
                   tolerance = 1e-10)
    }
  }
  # the binomial starting constant is glm()'s intercept given the offset
  off <- rnorm(nrow(wx))
  fit <- miser(wx, wd$y01, cost = wcost, family = "binomial", offset = off, max_steps = 1)
  expect_equal(unname(fit$init), unname(coef(glm(wd$y01 ~ 1, family = binomial, offset = off))), tolerance = 1e-8)
})

test_that("the formula method equals the matrix method: weights, offset() terms, offset, subset, na.action", {
  set.seed(11)
  df <- data.frame(wx, y = wd$y, w = runif(nrow(wx), 0.5, 2), e = exp(rnorm(nrow(wx))), o = rnorm(nrow(wx)))
  df$x4[3] <- NA
  keep <- setdiff(seq_len(nrow(df)) [df$w > 0.6], 3)
  fc <- c(x1 = 1, x2 = 2, x3 = 5, x4 = 3)
  # the offset's variables are measurements paid at step 0 (here free)
  a <- miser(y ~ x1 + x2 + x3 + x4 + offset(log(e)), data = df, cost = c(fc, e = 0, o = 0), weights = w, offset = o,
             subset = w > 0.6, na.action = na.omit, max_steps = 5, depth = 2, cost_penalty = 0.02)
  x <- as.matrix(df[keep, c("x1", "x2", "x3", "x4")])
  off <- log(df$e[keep]) + df$o[keep]
  b <- miser(x, df$y[keep], cost = fc, weights = df$w[keep], offset = off, max_steps = 5, depth = 2,
             cost_penalty = 0.02)
  expect_identical(a$trees, b$trees)
  expect_equal(a$path, b$path)
  # at a cost, they are charged at step 0 and the trees do not change
  a2 <- miser(y ~ x1 + x2 + x3 + x4 + offset(log(e)), data = df, cost = c(fc, e = 1.5, o = 0.5), weights = w,
              offset = o, subset = w > 0.6, na.action = na.omit, max_steps = 5, depth = 2, cost_penalty = 0.02)
  expect_identical(a2$trees, b$trees)
  expect_equal(a2$path$cost, b$path$cost + 2)
  expect_setequal(a2$offset_needs, c("e", "o"))
  new <- df[1:6, ]
  new$x4[3] <- 0
  expect_equal(unname(predict(a, newdata = new, step = 5)),
               unname(predict(b, as.matrix(new[, c("x1", "x2", "x3", "x4")]), step = 5,
                              newoffset = log(new$e) + new$o)), tolerance = 1e-12)
  expect_equal(unname(fitted(a)), unname(fitted(b)), tolerance = 1e-12)
  expect_error(predict(a, newdata = new, newoffset = rep(0, 6)), "`newoffset` is for `newx`",
               class = "fgseq_error_input")
})

test_that("bad weights, offsets and a missing newoffset are classed errors naming the argument", {
  y <- wd$y
  n <- nrow(wx)
  expect_error(miser(wx, y, cost = wcost, weights = rep(1, n - 1)),
               "`weights` must have one value per row of `x`", class = "fgseq_error_input")
  expect_error(miser(wx, y, cost = wcost, weights = c(-1, rep(1, n - 1))), "`weights` must be non-negative",
               class = "fgseq_error_input")
  expect_error(miser(wx, y, cost = wcost, weights = c(NA, rep(1, n - 1))), "`weights` contains NA",
               class = "fgseq_error_input")
  expect_error(miser(wx, y, cost = wcost, weights = c(1, rep(0, n - 1))),
               "`weights` must be positive for at least 2 rows", class = "fgseq_error_input")
  expect_error(miser(wx, y, cost = wcost, offset = rep(0, n + 1)), "`offset` must have one value per row of `x`",
               class = "fgseq_error_input")
  expect_error(miser(wx, y, cost = wcost, offset = c(Inf, rep(0, n - 1))), "`offset` contains NA, NaN or Inf",
               class = "fgseq_error_input")
  expect_error(miser(wx, wd$yk, cost = wcost, family = "multinomial", offset = matrix(0, n, 2)),
               "`offset` must be a vector of length 50 or an 50 x 3 matrix", class = "fgseq_error_input")
  fit <- miser(wx, y, cost = wcost, offset = rep(0.5, n), max_steps = 3)
  expect_error(predict(fit, wx[1:5, ]), "`newoffset` is needed: the fit used an `offset`.", fixed = TRUE,
               class = "fgseq_error_input")
  expect_error(predict(fit, wx[1:5, ], newoffset = rep(0, 3)),
               "`newoffset` must have one value per row of `newx`: length is 3, expected 5.", fixed = TRUE,
               class = "fgseq_error_input")
  expect_error(predict(fit, newoffset = rep(0, 5)), "`newoffset` goes with `newx`", class = "fgseq_error_input")
  df <- data.frame(wx, y = y, w = c(-1, rep(1, n - 1)))
  expect_error(miser(y ~ ., data = df[, -7], cost = wcost, weights = df$w), "`weights` must be non-negative",
               class = "fgseq_error_input")
  expect_error(miser(y ~ x1, data = df, cost = wcost, weights = rep(1, 3)),
               "`weights` must be numeric with one value per row of `data`", class = "fgseq_error_input")
})
