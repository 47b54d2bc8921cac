# The metric layer (R/metrics.R) against hand computations and glm().

test_that("NDCG@k equals a hand computation on a small ranking", {
  rel <- c(3, 2, 0, 1, 0, 1, 0, 0, 0)
  score <- c(0.1, 0.9, 0.3, 0.5, 0.2, 0.2, 5, 1, 3)
  query <- c("a", "a", "a", "a", "b", "b", "c", "c", "c")
  # query a, ranked by score: rel 2, 1, 0, (3); DCG@3 = 3/1 + 1/log2(3) + 0/2
  # ideal: rel 3, 2, 1; IDCG@3 = 7/1 + 3/log2(3) + 1/2
  ndcg_a <- (3 + 1 / log2(3)) / (7 + 3 / log2(3) + 0.5)
  # query b: tied scores keep the original order (rel 0, then 1); k = 3 > 2 documents
  ndcg_b <- (0 + 1 / log2(3)) / 1
  # query c: no relevant document, left out of the average
  expect_equal(fgseq:::ndcg_value(rel, score, query, 3), (ndcg_a + ndcg_b) / 2)
  # k = 1: only the top document counts
  expect_equal(fgseq:::ndcg_value(rel, score, query, 1), ((2^2 - 1) / (2^3 - 1) + 0) / 2)
  # a perfect ranking scores 1
  expect_equal(fgseq:::ndcg_value(rel[1:4], rel[1:4], query[1:4], 4), 1)
})

test_that("accuracy, AUC and log-loss equal hand computations", {
  y <- c(0, 1, 1, 0, 1)
  p <- c(0.2, 0.6, 0.4, 0.7, 0.5)
  # classes 0, 1, 0, 1, 0 (0.5 is not above 0.5): 2 of 5 right
  expect_equal(fgseq:::accuracy_value(y, p), 2 / 5)
  # AUC: pairs (positive, negative) with the positive scored higher, ties one half
  y2 <- c(0, 0, 1, 1, 1)
  p2 <- c(0.1, 0.4, 0.35, 0.8, 0.4)
  expect_equal(fgseq:::auc_value(y2, p2), (1 + 0 + 1 + 1 + 1 + 0.5) / 6)
  expect_equal(fgseq:::auc_value(y2, rep(0.3, 5)), 0.5)
  expect_equal(fgseq:::logloss_value(y, p),
               -(log(0.8) + log(0.6) + log(0.4) + log(0.3) + log(0.5)) / 5)
  # predictions outside [0, 1] (a linear probability model) are clipped
  expect_equal(fgseq:::logloss_value(c(1, 0), c(1.2, -0.1)), -log(1 - 1e-15))
  # class probabilities: the class of largest probability, the first on ties
  pm <- rbind(c(0.2, 0.5, 0.3), c(0.4, 0.4, 0.2), c(0.1, 0.1, 0.8))
  yf <- factor(c("b", "b", "c"), levels = c("a", "b", "c"))
  expect_equal(fgseq:::accuracy_value(yf, pm), 2 / 3)
  # multi-class Brier score
  expect_equal(fgseq:::mse_value(yf, pm),
               mean(c(0.2^2 + 0.5^2 + 0.3^2, 0.4^2 + 0.6^2 + 0.2^2, 0.1^2 + 0.1^2 + 0.2^2)))
})

test_that("deviance r2 equals 1 - deviance / null deviance of glm()", {
  set.seed(21)
  x <- matrix(rnorm(200 * 2), 200, 2)
  yb <- rbinom(200, 1, plogis(x %*% c(1, -1)))
  gb <- glm(yb ~ x, family = binomial)
  preds <- list(rep(mean(yb), 200), unname(fitted(gb)))
  expect_equal(fgseq:::deviance_r2(yb, preds, "binomial"), c(0, 1 - gb$deviance / gb$null.deviance))
  yp <- rpois(200, exp(0.5 + x %*% c(0.3, 0.2)))
  gp <- glm(yp ~ x, family = poisson)
  preds <- list(rep(mean(yp), 200), unname(fitted(gp)))
  expect_equal(fgseq:::deviance_r2(yp, preds, "poisson"), c(0, 1 - gp$deviance / gp$null.deviance))
  # multinomial: -2 sum log p of the observed class
  yf <- factor(c("a", "b", "b"))
  p0 <- matrix(c(1 / 3, 2 / 3), 3, 2, byrow = TRUE)
  p1 <- rbind(c(0.9, 0.1), c(0.2, 0.8), c(0.4, 0.6))
  d0 <- -2 * (log(1 / 3) + 2 * log(2 / 3))
  d1 <- -2 * (log(0.9) + log(0.8) + log(0.6))
  expect_equal(fgseq:::deviance_r2(yf, list(p0, p1), "multinomial"), c(0, 1 - d1 / d0))
})

test_that("deviance r2: unsupported family and multinomial without class probabilities", {
  expect_error(fgseq:::deviance_r2(1:3, list(1:3), "gamma"),
               "metric \"r2\" is not available for family \"gamma\"", class = "fgseq_error_input")
  expect_error(fgseq:::deviance_r2(factor(c("a", "b")), list(c(0.5, 0.5)), "multinomial"),
               "metric \"r2\" of a multinomial fit needs one predicted probability per level of `newy`",
               class = "fgseq_error_input")
})

test_that("accuracy with class probabilities needs a factor with one level per column", {
  expect_error(fgseq:::accuracy_value(c(0, 1), matrix(0.5, 2, 3)),
               "the fit predicts 3 class probabilities; `newy` must be a factor with as many levels",
               class = "fgseq_error_input")
})

test_that("check_newy: counts for poisson, factors for multinomial, known classes", {
  expect_equal(fgseq:::check_newy(c(0, 2, 5), 3, "r2", "poisson"), c(0, 2, 5))
  expect_error(fgseq:::check_newy(c(0, -2, 5), 3, "r2", "poisson"),
               "`newy` must hold non-negative counts for a poisson fit", class = "fgseq_error_input")
  expect_error(fgseq:::check_newy(c(1, 2, 3), 3, "r2", "multinomial"),
               "`newy` must be a factor of the classes for a multinomial fit", class = "fgseq_error_input")
  yf <- factor(c("b", "a", "b"))
  expect_identical(levels(fgseq:::check_newy(yf, 3, "r2", "multinomial", classes = c("b", "a"))), c("b", "a"))
  # a two-level factor is read against the fit's classes: the second class is 1
  expect_equal(fgseq:::check_newy(yf, 3, "auc", "binomial", classes = c("b", "a")), c(0, 1, 0))
  expect_error(fgseq:::check_newy(factor(c("yes", "no", "yes")), 3, "accuracy", "binomial",
                                  classes = c("FALSE", "TRUE")),
               "`newy` has classes the fit was not trained on: yes, no; the fit's classes are FALSE, TRUE",
               class = "fgseq_error_input")
})

test_that("the step predictions are matrices of class probabilities for multi-class fits", {
  arr <- array(1:12 / 12, c(2, 3, 1), dimnames = list(NULL, c("a", "b", "c"), "step1"))
  expect_identical(dim(fgseq:::as_step_prediction(arr)), c(2L, 3L))
  expect_identical(fgseq:::as_step_prediction(matrix(1:2, 2, 1)), c(1, 2))
})
