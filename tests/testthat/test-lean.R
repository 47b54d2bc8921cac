# Lean fits (keep_data = FALSE): no training data kept, the same predictions, coefficients, path and
# exported predictor as the full fit; the methods that need the training data stop with a classed error.

test_that("a lean 200,000 x 20 formula fit saves to under 1% of x and predicts as the full fit", {
  set.seed(30)
  n <- 200000
  p <- 20
  x <- matrix(rnorm(n * p), n, dimnames = list(NULL, paste0("v", 1:p)))
  d <- as.data.frame(x)
  d$y <- drop(x[, 1:4] %*% c(1, -1, 0.5, 0.25)) + rnorm(n)
  # the formula as typed at the console (its environment the global one, which saveRDS() does not write)
  f <- stats::as.formula("y ~ .", env = globalenv())
  full <- fgseq(f, data = d, max_steps = 5)
  lean <- fgseq(f, data = d, max_steps = 5, keep_data = FALSE)
  size <- function(obj) {
    file <- tempfile(fileext = ".rds")
    on.exit(unlink(file))
    saveRDS(obj, file)
    file.size(file)
  }
  size_x <- size(x)
  expect_lt(size(lean), 0.01 * size_x)
  expect_gt(size(full), size_x)          # what the lean fit leaves out
  for (field in c("x", "y", "model", "weights", "offset")) expect_null(lean[[field]])
  expect_false(lean$keep_data)
  new <- d[1:50, ]
  expect_identical(predict(lean, newdata = new), predict(full, newdata = new))
  expect_identical(coef(lean), coef(full))
  expect_identical(lean$path, full$path)
  # the full fit's predictions on its training rows are the lean fit's on the same rows given as new data
  expect_equal(predict(lean, newdata = d[1:1000, ]), predict(full)[1:1000, ], tolerance = 1e-12)
})

test_that("lean fgseq(), miser() and cv_fgseq() fits print, summarize, export and score as the full fits", {
  full <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  lean <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", keep_data = FALSE)
  expect_identical(capture.output(print(lean)), capture.output(print(full)))
  expect_identical(capture.output(print(summary(lean))), capture.output(print(summary(full))))
  expect_identical(timeliness(lean, stop_cost = 100), timeliness(full, stop_cost = 100))
  expect_identical(timeliness(lean, stop_cost = 100, newdata = heart[1:100, ]),
                   timeliness(full, stop_cost = 100, newdata = heart[1:100, ]))
  f1 <- tempfile(fileext = ".json")
  f2 <- tempfile(fileext = ".json")
  write_predictor(full, f1)
  write_predictor(lean, f2)
  expect_identical(readLines(f2), readLines(f1))
  pdf(NULL)
  plot(lean)
  dev.off()

  m_full <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 20)
  m_lean <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 20,
                  keep_data = FALSE)
  expect_null(m_lean[["x"]])
  expect_null(m_lean[["model"]])
  expect_identical(predict(m_lean, newdata = heart[1:20, ]), predict(m_full, newdata = heart[1:20, ]))
  expect_identical(capture.output(print(m_lean)), capture.output(print(m_full)))

  cv_full <- cv_fgseq(diagnosis ~ ., data = heart, cost = heart_cost, lambda = c(1, 1e-6), nfolds = 3,
                      seed = 1, progress = FALSE)
  cv_lean <- cv_fgseq(diagnosis ~ ., data = heart, cost = heart_cost, lambda = c(1, 1e-6), nfolds = 3,
                      seed = 1, progress = FALSE, keep_data = FALSE)
  expect_identical(cv_lean$cvm, cv_full$cvm)
  expect_true(all(vapply(cv_lean$fgseq.fit, function(f) is.null(f[["x"]]) && is.null(f[["model"]]), logical(1))))
  expect_identical(predict(cv_lean, newdata = heart[1:5, ]), predict(cv_full, newdata = heart[1:5, ]))
})

test_that("methods that need the training data stop on a lean fit, saying how to get them", {
  lean <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", keep_data = FALSE)
  for (f in list(fitted, residuals, deviance, logLik, model.matrix, function(o) predict(o))) {
    expect_error(f(lean), class = "fgseq_error_no_data")
  }
  expect_error(fitted(lean), "keep_data = TRUE")
  m_lean <- miser(diagnosis ~ ., data = heart, cost = heart_cost, max_steps = 5, keep_data = FALSE)
  expect_error(residuals(m_lean), class = "fgseq_error_no_data")
  x <- model.matrix(diagnosis ~ ., heart)[, -1]
  w <- rep(c(0, 1, 2), length.out = nrow(x))
  expect_identical(nobs(fgseq(x, heart$diagnosis, weights = w, keep_data = FALSE)), sum(w != 0))
  expect_error(fgseq(x, heart$diagnosis, keep_data = NA), class = "fgseq_error_input")
})
