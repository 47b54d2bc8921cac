# miser() on a sparse x (a Matrix dgCMatrix): the histogram search bins the stored values and the
# zeros of each column without a dense copy, so its trees are those of the same x dense.

sparse_miser_data <- function(n = 600, p = 8, seed = 21) {
  set.seed(seed)
  x <- matrix(rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  x[sample(length(x), round(0.6 * length(x)))] <- 0  # mostly zeros
  x[, 3] <- round(2 * x[, 3])                         # few distinct values: ties
  x[, 4] <- abs(x[, 4])                               # zero is the smallest value
  x[, 5] <- -abs(x[, 5])                              # zero is the largest value
  x[, 6] <- 0                                         # no stored value at all
  y <- x[, 1] + x[, 2] * x[, 3] + 0.5 * x[, 4] - 0.5 * x[, 5] + rnorm(n, sd = 0.5)
  list(x = x, xs = Matrix::Matrix(x, sparse = TRUE), y = y, y01 = as.numeric(y > median(y)))
}

test_that("a sparse x gives the trees and predictions of the same x dense (gaussian, binomial, needs, weights)", {
  skip_if_not_installed("Matrix")
  d <- sparse_miser_data()
  expect_s4_class(d$xs, "dgCMatrix")
  needs <- list(x1 = c("draw", "m1"), x2 = c("draw", "m2"))
  mcost <- c(draw = 2, m1 = 1, m2 = 3, x3 = 1, x4 = 2, x5 = 4, x6 = 1, x7 = 2, x8 = 5)
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "gaussian") d$y else d$y01
    for (with_needs in c(FALSE, TRUE)) {
      args <- list(y = y, family = family, max_steps = 15, depth = 3, max_bin = 16, cost_penalty = 0.02)
      args <- c(args, if (with_needs) list(cost = mcost, needs = needs) else list(cost = seq_len(8)))
      dense <- do.call(miser, c(list(d$x), args))
      sparse <- do.call(miser, c(list(d$xs), args))
      expect_identical(sparse$trees, dense$trees)
      expect_identical(sparse$path, dense$path)
      expect_identical(predict(sparse, d$xs), predict(dense, d$x))
      expect_identical(predict(sparse, d$xs[1:50, ], type = "response"), predict(dense, d$x[1:50, ], type = "response"))
      expect_identical(fitted(sparse), fitted(dense))
    }
  }
  # weights: the zeros of a column bin with their own weights, as in the dense column
  w <- rep(c(0.5, 1, 3), length.out = nrow(d$x))
  dense <- miser(d$x, d$y, cost = 1:8, weights = w, max_steps = 10, max_bin = 8)
  sparse <- miser(d$xs, d$y, cost = 1:8, weights = w, max_steps = 10, max_bin = 8)
  expect_identical(sparse$trees, dense$trees)
})

test_that("split = \"exact\" on a sparse x is a classed error naming what to use", {
  skip_if_not_installed("Matrix")
  d <- sparse_miser_data(n = 60)
  expect_error(miser(d$xs, d$y, cost = 1:8, split = "exact"),
               "split = \"exact\" needs a dense one: use split = \"histogram\"", class = "fgseq_error_sparse_exact")
})
