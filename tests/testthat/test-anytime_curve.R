# anytime_curve(), and plot() / timeliness() with a metric, against plain-R loops over the steps.

ad <- sim_groups(n = 120, sizes = c(2, 1, 3, 2), rho = 0.4, seed = 71)
at <- sim_groups(n = 80, sizes = c(2, 1, 3, 2), rho = 0.4, seed = 72)
afit <- fgseq(ad$x, ad$y, ad$group, ad$cost, method = "fr", lambda = 0.01)
aK <- length(afit$sequence)
# test predictions of every step by the coefficients, one column per step
apred <- sapply(seq_len(aK + 1), function(k) fitted_at(afit$beta, afit$a0, at$x, k))
# a 0/1 response for the classification metrics
ay01 <- as.numeric(at$y > median(at$y))

test_that("without test data the curve is the training r2 of the path", {
  cv <- anytime_curve(afit)
  expect_identical(names(cv), c("step", "group", "cost", "value"))
  expect_equal(cv$value, afit$path$r2)
  expect_equal(cv$cost, unname(cumsum(c(0, ad$cost[afit$sequence]))))
  expect_identical(cv$group, c(NA, afit$sequence))
  expect_identical(attr(cv, "data"), "training")
  expect_identical(attr(cv, "metric"), "r2")
})

test_that("test r2, mse, accuracy, log-loss and AUC equal a loop over the steps", {
  sse <- colSums((at$y - apred)^2)
  expect_equal(anytime_curve(afit, at$x, at$y)$value, 1 - sse / sse[1])
  expect_equal(anytime_curve(afit, at$x, at$y, metric = "mse")$value, colMeans((at$y - apred)^2))
  acc <- colMeans((apred > 0.5) == ay01)
  expect_equal(anytime_curve(afit, at$x, ay01, metric = "accuracy")$value, acc)
  # logical and two-level factor responses are read as 0/1 (second level = 1)
  expect_equal(anytime_curve(afit, at$x, ay01 == 1, metric = "accuracy")$value, acc)
  expect_equal(anytime_curve(afit, at$x, factor(ifelse(ay01 == 1, "hi", "lo"), levels = c("lo", "hi")),
                             metric = "accuracy")$value, acc)
  clip <- pmin(pmax(apred, 1e-15), 1 - 1e-15)
  expect_equal(anytime_curve(afit, at$x, ay01, metric = "logloss")$value,
               -colMeans(ay01 * log(clip) + (1 - ay01) * log(1 - clip)))
  # AUC as the fraction of (positive, negative) pairs ranked right, ties one half
  pos <- which(ay01 == 1)
  neg <- which(ay01 == 0)
  auc <- apply(apred, 2, function(s) mean(outer(s[pos], s[neg], ">") + 0.5 * outer(s[pos], s[neg], "==")))
  expect_equal(anytime_curve(afit, at$x, ay01, metric = "auc")$value, auc)
  expect_identical(attr(anytime_curve(afit, at$x, ay01, metric = "auc"), "data"), "test")
})

test_that("NDCG@k of a fit equals a plain-R loop over queries and steps", {
  q <- rep(1:16, each = 5)
  rel <- pmin(pmax(round(at$y / sd(at$y) + 1), 0), 4)
  ndcg_loop <- function(s, k) {
    per <- c()
    for (id in unique(q)) {
      i <- which(q == id)
      r <- rel[i]
      ranked <- r[sort.list(s[i], decreasing = TRUE, method = "radix")]
      m <- min(k, length(i))
      ideal <- sum((2^sort(r, decreasing = TRUE)[1:m] - 1) / log2(2:(m + 1)))
      if (ideal > 0) per <- c(per, sum((2^ranked[1:m] - 1) / log2(2:(m + 1))) / ideal)
    }
    mean(per)
  }
  for (k in c(1, 3, 5)) {
    expect_equal(anytime_curve(afit, at$x, rel, metric = "ndcg", query = q, k = k)$value,
                 apply(apred, 2, ndcg_loop, k = k))
  }
})

test_that("formula fits take the response from newdata, as a factor or logical", {
  tr <- heart[seq(1, 303, by = 2), ]
  te <- heart[seq(2, 303, by = 2), ]
  hf <- fgseq(diagnosis ~ ., data = tr, cost = heart_cost)
  x <- model.matrix(diagnosis ~ ., te)[, -1]
  y <- as.numeric(te$diagnosis)
  for (m in c("r2", "accuracy", "auc", "logloss", "mse")) {
    expect_equal(anytime_curve(hf, newdata = te, metric = m)$value, anytime_curve(hf, x, y, metric = m)$value)
  }
  te$diagnosis <- factor(te$diagnosis)
  expect_equal(anytime_curve(hf, newdata = te, metric = "accuracy")$value,
               anytime_curve(hf, x, y, metric = "accuracy")$value)
})

test_that("timeliness() and plot() accept a metric; the stopping cost stays the training r2's", {
  C <- unname(cumsum(c(0, ad$cost[afit$sequence])))
  B <- stop_cost(afit, alpha = 0.97)
  acc <- colMeans((apred > 0.5) == ay01)
  for (interp in c("linear", "step")) {
    expect_equal(timeliness(afit, newx = at$x, newy = ay01, metric = "accuracy", interpolation = interp),
                 ref_timeliness(C, acc, B, interp))
  }
  mse <- colMeans((at$y - apred)^2)
  expect_equal(timeliness(afit, stop_cost = C[3], newx = at$x, newy = at$y, metric = "mse"),
               ref_timeliness(C, mse, C[3]))
  pdf(NULL)
  on.exit(dev.off())
  out <- plot(afit, newx = at$x, newy = ay01, metric = "accuracy")
  expect_identical(names(out), c("step", "group", "cost", "accuracy"))
  expect_equal(out$accuracy, acc)
  expect_equal(plot(afit)$r2, afit$path$r2)
  # graphical parameters, a title among them, pass through
  expect_equal(plot(afit, main = "training", col = 2, lty = 2, ylim = c(0, 1))$r2, afit$path$r2)
  expect_equal(plot(oracle(afit), main = "oracle", xlim = c(0, 10))$r2, oracle(afit)$path$value)
})

test_that("binomial fits are scored from their probabilities", {
  bfit <- tryCatch(fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial"),
                   error = function(e) NULL)
  skip_if(is.null(bfit), "binomial fits are not available")
  x <- model.matrix(diagnosis ~ ., heart)[, -1]
  K <- length(bfit$sequence)
  prob <- sapply(0:K, function(k) plogis(drop(x %*% coef(bfit, step = k)[-1, 1] + coef(bfit, step = k)[1, 1])))
  y <- as.numeric(heart$diagnosis)
  expect_equal(anytime_curve(bfit, newdata = heart, metric = "accuracy")$value, colMeans((prob > 0.5) == y))
  dev <- -2 * colSums(y * log(prob) + (1 - y) * log(1 - prob))
  expect_equal(anytime_curve(bfit, newdata = heart, metric = "r2")$value, 1 - dev / dev[1])
  # all groups in, at a tiny ridge: the fraction of deviance explained by glm()
  g <- glm(diagnosis ~ ., data = heart, family = binomial)
  expect_equal(anytime_curve(bfit, newdata = heart)$value[K + 1], 1 - g$deviance / g$null.deviance,
               tolerance = 1e-4)
})

# ---- errors: one test per message -------------------------------------------------------------------

test_that("an unknown metric", {
  expect_error(anytime_curve(afit, at$x, at$y, metric = "f1"), "`metric` must be one of \"r2\", \"mse\"",
               class = "fgseq_error_input")
})

test_that("a test metric without test data", {
  expect_error(anytime_curve(afit, metric = "accuracy"), "metric \"accuracy\" needs test data",
               class = "fgseq_error_input")
})

test_that("newy without newx", {
  expect_error(anytime_curve(afit, newy = at$y), "give `newx` \\(or `newdata`\\) with `newy`",
               class = "fgseq_error_input")
})

test_that("newy of the wrong length for a class metric", {
  expect_error(anytime_curve(afit, at$x, ay01[-1], metric = "accuracy"),
               "`newy` must have one value per row of `newx` \\(80\\); it has 79", class = "fgseq_error_input")
})

test_that("newy of the wrong type for accuracy", {
  expect_error(anytime_curve(afit, at$x, at$y, metric = "accuracy"),
               "`newy` must be 0/1, logical or a factor for metric \"accuracy\"", class = "fgseq_error_input")
})

test_that("newy of the wrong type for AUC and log-loss", {
  expect_error(anytime_curve(afit, at$x, factor(rep(c("a", "b", "c"), length.out = 80)), metric = "auc"),
               "`newy` must be 0/1, logical or a two-level factor for metric \"auc\"", class = "fgseq_error_input")
})

test_that("NA in a class response", {
  y <- ay01
  y[4] <- NA
  expect_error(anytime_curve(afit, at$x, y, metric = "logloss"), "`newy` contains NA, NaN or Inf",
               class = "fgseq_error_input")
})

test_that("a factor of more than two classes for a fit that predicts one number", {
  expect_error(anytime_curve(afit, at$x, factor(rep(c("a", "b", "c"), length.out = 80)), metric = "accuracy"),
               "metric \"accuracy\" with a factor of 3 levels needs a fit that predicts one probability per class",
               class = "fgseq_error_input")
})

test_that("AUC with a single class", {
  expect_error(anytime_curve(afit, at$x, rep(1, 80), metric = "auc"),
               "metric \"auc\" needs both classes in `newy`; it has only one", class = "fgseq_error_input")
})

test_that("NDCG with negative grades", {
  expect_error(anytime_curve(afit, at$x, at$y, metric = "ndcg", query = rep(1:16, each = 5)),
               "`newy` must hold non-negative relevance grades for metric \"ndcg\"", class = "fgseq_error_input")
})

test_that("NDCG without query ids", {
  expect_error(anytime_curve(afit, at$x, ay01, metric = "ndcg"),
               "metric \"ndcg\" needs `query`, one query id per row of `newx`", class = "fgseq_error_input")
})

test_that("NDCG with query ids of the wrong length", {
  expect_error(anytime_curve(afit, at$x, ay01, metric = "ndcg", query = rep(1:10, each = 5)),
               "`query` must have one id per row of `newx` \\(80\\), without NA", class = "fgseq_error_input")
})

test_that("NDCG with a query of one document", {
  expect_error(anytime_curve(afit, at$x, ay01, metric = "ndcg", query = c(rep(1:13, each = 6), 14, 15)),
               "`query` has 2 queries with a single document \\(14, 15\\); NDCG needs at least 2 documents",
               class = "fgseq_error_input")
})

test_that("NDCG with no relevant document", {
  expect_error(anytime_curve(afit, at$x, rep(0, 80), metric = "ndcg", query = rep(1:16, each = 5)),
               "metric \"ndcg\" needs a query with a document of positive relevance", class = "fgseq_error_input")
})

test_that("NDCG with a bad k", {
  expect_error(anytime_curve(afit, at$x, ay01, metric = "ndcg", query = rep(1:16, each = 5), k = 0),
               "`k` must be a single whole number >= 1", class = "fgseq_error_input")
})

test_that("newdata without the response", {
  hf <- fgseq(diagnosis ~ age + sex, data = heart, cost = heart_cost[c("age", "sex")])
  expect_error(anytime_curve(hf, newdata = heart[, c("age", "sex")]), "`newdata` lacks the response diagnosis",
               class = "fgseq_error_input")
})

test_that("mgaussian fits: r2 and mse over all response columns", {
  set.seed(131)
  x <- matrix(rnorm(120 * 4), 120, 4)
  Y <- cbind(a = x[, 1] + rnorm(120), b = x[, 2] - x[, 3] + rnorm(120))
  mfit <- tryCatch(fgseq(x[1:80, ], Y[1:80, ], family = "mgaussian"), error = function(e) NULL)
  skip_if(is.null(mfit), "mgaussian fits are not available")
  K <- length(mfit$sequence)
  sse <- vapply(0:K, function(k) {
    cf <- coef(mfit, step = k)
    pred <- sapply(cf, function(b) b[1, 1] + x[81:120, ] %*% b[-1, 1])
    sum((Y[81:120, ] - pred)^2)
  }, numeric(1))
  expect_equal(anytime_curve(mfit, x[81:120, ], Y[81:120, ])$value, 1 - sse / sse[1])
  expect_equal(anytime_curve(mfit, x[81:120, ], Y[81:120, ], metric = "mse")$value, sse / (40 * 2))
  expect_error(anytime_curve(mfit, x[81:120, ], Y[81:119, ]),
               "`newy` must be a numeric matrix with one row per row of `newx` \\(40\\) for a mgaussian fit",
               class = "fgseq_error_input")
  expect_error(anytime_curve(mfit, x[81:120, ], cbind(Y[81:120, ], 1)),
               "`newy` must have one column per response of the fit \\(2\\); it has 3", class = "fgseq_error_input")
})

test_that("NA, NaN or Inf in newx is refused (the last value of a column included); a logical newx is read as 0/1", {
  for (v in c(NA, NaN, Inf)) {
    x <- at$x
    x[nrow(x), ncol(x)] <- v
    expect_error(anytime_curve(afit, x, at$y), "`newx` contains NA, NaN or Inf", class = "fgseq_error_na")
  }
  xl <- at$x > 0
  want <- sapply(seq_len(aK + 1), function(k) mean((at$y - fitted_at(afit$beta, afit$a0, xl + 0, k))^2))
  expect_close(anytime_curve(afit, xl, at$y, metric = "mse")$value, want, 1e-12)
})
