# The Fashion-MNIST figures of vignette("miser") (inst/extdata/fashion-mnist-*.csv, written by
# bench/bench-fashion-mnist.R): the three files come from one run, and each summary row of the fits
# agrees with its curve, its timeliness recomputed here as the area under the step curve by a plain
# sum over the distinct costs (not curve_timeliness()).

fm_read <- function(what) {
  file <- system.file("extdata", paste0("fashion-mnist-", what, ".csv"), package = "fgseq")
  expect_true(nzchar(file), label = paste("installed file fashion-mnist", what))
  utils::read.csv(file)
}

test_that("the Fashion-MNIST files come from one run on all training images", {
  groups <- fm_read("groups")
  fits <- fm_read("fits")
  curves <- fm_read("curves")
  expect_equal(unique(c(groups$n_train, fits$n_train, curves$n_train)), 60000L)
  expect_equal(nrow(groups), 9L)
  expect_equal(sum(groups$columns), 517L)
  expect_setequal(setdiff(fits$method, curves$method), grep("^glmnet", fits$method, value = TRUE))
  expect_equal(sum(grepl("^glmnet", fits$method)), 1L)
  expect_true(all(fits$fit_s > 0))
})

test_that("each fits row agrees with its curve: final cost, final accuracy, step timeliness", {
  groups <- fm_read("groups")
  fits <- fm_read("fits")
  curves <- fm_read("curves")
  total <- sum(groups$cost_us)
  step_area <- function(cost, value, budget) {
    at <- sort(unique(cost))
    v <- value[findInterval(at, cost)]        # the last point at each distinct cost
    width <- pmin(c(at[-1L], budget), budget) - at
    sum(v * width) / budget
  }
  for (m in unique(curves$method)) {
    cv <- curves[curves$method == m, ]
    row <- fits[fits$method == m, ]
    expect_equal(cv$cost[1L], 0, label = m)
    expect_false(is.unsorted(cv$cost), label = m)
    expect_lte(max(cv$cost), total + 0.1)
    # absolute differences: the fits file rounds cost to 0.1, accuracy and timeliness to 1e-4
    expect_lte(abs(row$final_cost - max(cv$cost)), 0.06, label = m)
    expect_lte(abs(row$final_accuracy - cv$accuracy[nrow(cv)]), 1e-4, label = m)
    expect_lte(abs(row$timeliness - step_area(cv$cost, cv$accuracy, total)), 1e-3, label = m)
  }
  glmnet_row <- fits[grepl("^glmnet", fits$method), ]
  expect_true(is.na(glmnet_row$timeliness))
  expect_lte(abs(glmnet_row$final_cost - total), 0.1)
})
