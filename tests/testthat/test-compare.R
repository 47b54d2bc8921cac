# compare_sequences(): one stopping cost from the first fit, timeliness of every curve up to it.

cd <- sim_groups(n = 120, sizes = c(2, 1, 3, 2), rho = 0.4, seed = 101)
ct <- sim_groups(n = 80, sizes = c(2, 1, 3, 2), rho = 0.4, seed = 102)
c_omp <- fgseq(cd$x, cd$y, cd$group, cd$cost, lambda = 0.01)
c_fr <- fgseq(cd$x, cd$y, cd$group, cd$cost, method = "fr", lambda = 0.01)
c_blind <- fgseq(cd$x, cd$y, cd$group, cd$cost, cost_sensitive = FALSE, lambda = 0.01)

# the test r2 curve of a fit from its coefficients
test_r2 <- function(fit) {
  K <- length(fit$sequence)
  pred <- sapply(seq_len(K + 1), function(k) fitted_at(fit$beta, fit$a0, ct$x, k))
  sse <- colSums((ct$y - pred)^2)
  list(cost = unname(cumsum(c(0, cd$cost[fit$sequence]))), r2 = 1 - sse / sse[1])
}

test_that("one stopping cost from the first fit; timeliness of each curve up to it", {
  r2 <- c_omp$path$r2
  B <- c_omp$path$cost[which(r2 >= 0.97 * r2[length(r2)])[1]]
  cmp <- compare_sequences(list(omp = c_omp, fr = c_fr, c_blind), newx = ct$x, newy = ct$y)
  expect_s3_class(cmp, "fgseq_comparison")
  expect_equal(cmp$stop_cost, B)
  expect_identical(cmp$table$method, c("omp", "fr", "G-OMP"))
  fits <- list(c_omp, c_fr, c_blind)
  for (i in 1:3) {
    cv <- test_r2(fits[[i]])
    expect_equal(cmp$table$linear[i], ref_timeliness(cv$cost, cv$r2, B, "linear"))
    expect_equal(cmp$table$step[i], ref_timeliness(cv$cost, cv$r2, B, "step"))
    expect_equal(cmp$table$value_at_stop[i], cv$r2[max(which(cv$cost <= B))])
    expect_equal(cmp$table$final[i], cv$r2[length(cv$r2)])
  }
  # the same as timeliness() with the reference's stopping cost
  expect_equal(cmp$table$linear[2], timeliness(c_fr, stop_cost = stop_cost(c_omp), newx = ct$x, newy = ct$y))
})

test_that("the training comparison, another alpha, a given stop cost, an Oracle and a metric", {
  cmp <- compare_sequences(list(c_fr, oracle(c_fr), c_fr), alpha = 0.8)
  expect_identical(cmp$table$method, c("CS-G-FR", "Oracle (CS-G-FR)", "CS-G-FR #1"))
  expect_equal(cmp$stop_cost, stop_cost(c_fr, alpha = 0.8))
  expect_gte(cmp$table$linear[2], cmp$table$linear[1])
  expect_identical(cmp$data, "training")
  B <- c_omp$path$cost[3] + 0.5
  cmp2 <- compare_sequences(list(c_omp, c_fr), stop_cost = B)
  expect_equal(cmp2$stop_cost, B)
  expect_true(is.na(cmp2$alpha))
  expect_equal(cmp2$table$linear, c(timeliness(c_omp, stop_cost = B), timeliness(c_fr, stop_cost = B)))
  y01 <- as.numeric(ct$y > 0)
  cmp3 <- compare_sequences(list(c_omp, c_fr), newx = ct$x, newy = y01, metric = "accuracy")
  expect_equal(cmp3$table$step[2], timeliness(c_fr, stop_cost = stop_cost(c_omp), newx = ct$x, newy = y01,
                                              metric = "accuracy", interpolation = "step"))
})

test_that("print and plot", {
  cmp <- compare_sequences(list(omp = c_omp, fr = c_fr), newx = ct$x, newy = ct$y)
  out <- capture.output(print(cmp))
  expect_match(out[1], "Timeliness of 2 sequences, test r2, up to the stopping cost")
  expect_match(out[1], "alpha = 0.97 of the training r2 of omp")
  expect_true(any(grepl("^ +fr ", out)))
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(cmp), cmp)
  expect_identical(plot(cmp, legend = NULL, plot_type = "l", col = c("red", "blue")), cmp)
})

# ---- errors: one test per message -------------------------------------------------------------------

test_that("fits must be a list of fitted sequences", {
  expect_error(compare_sequences(c_omp), "`fits` must be a non-empty list of fitted sequences",
               class = "fgseq_error_input")
})

test_that("fits trained on different data", {
  other <- fgseq(cd$x[1:100, ], cd$y[1:100], cd$group, cd$cost)
  expect_error(compare_sequences(list(c_omp, other)),
               "all `fits` must be trained on the same data \\(same rows and response\\): fit 2 \\(CS-G-OMP #1\\) differs from fit 1 \\(CS-G-OMP\\): it has 100 observations, the first has 120",
               class = "fgseq_error_input")
  shifted <- fgseq(cd$x, cd$y + 1, cd$group, cd$cost)
  expect_error(compare_sequences(list(a = c_omp, b = c_fr, c = shifted)),
               "fit 3 \\(c\\) differs from fit 1 \\(a\\): its response has another mean or variance",
               class = "fgseq_error_input")
  expect_error(compare_sequences(list(c_omp, oracle(fgseq(cd$x, 2 * cd$y, cd$group, cd$cost)))),
               "its response has another mean or variance than the first's", class = "fgseq_error_input")
})

test_that("alpha outside (0, 1]", {
  expect_error(compare_sequences(list(c_omp, c_fr), alpha = 0), "`alpha` must be a single number in \\(0, 1\\]",
               class = "fgseq_error_input")
  expect_error(compare_sequences(list(c_omp, c_fr), alpha = 1.5), "`alpha` must be a single number in \\(0, 1\\]",
               class = "fgseq_error_input")
})

test_that("a stopping cost below the first group of every sequence", {
  first <- min(c_omp$path$cost[2], c_fr$path$cost[2])
  expect_error(compare_sequences(list(c_omp, c_fr), stop_cost = first / 2),
               "`stop_cost` \\(.*\\) is below the cost of the first group of every sequence",
               class = "fgseq_error_input")
  # timeliness() itself accepts it: the curve's first segment
  expect_equal(timeliness(c_omp, stop_cost = first / 2),
               ref_timeliness(c_omp$path$cost, c_omp$path$r2, first / 2))
})
