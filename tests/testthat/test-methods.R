# print, summary, plot and the formula interface, checked against values computed another way.

hfit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, method = "fr")

test_that("print shows every step with its group, costs and r2", {
  out <- capture.output(print(hfit))
  expect_match(out[1], "CS-G-FR sequence: 13 of 13 groups, 303 observations")
  rows <- out[grepl("^ *[0-9]+ ", out)]
  expect_length(rows, 14)
  for (k in seq_along(hfit$sequence)) {
    fields <- strsplit(trimws(rows[k + 1]), " +")[[1]]
    expect_equal(fields[2], hfit$sequence[k])
    expect_equal(as.numeric(fields[3]), unname(heart_cost[hfit$sequence[k]]), tolerance = 1e-3)
    expect_equal(as.numeric(fields[4]), sum(heart_cost[hfit$sequence[1:k]]), tolerance = 1e-3)
  }
  expect_equal(as.numeric(strsplit(trimws(rows[14]), " +")[[1]][5]),
               summary(lm(diagnosis ~ ., data = heart))$r.squared, tolerance = 1e-3)
})

test_that("summary reports stopping costs and timeliness that agree with stop_cost() and timeliness()", {
  s <- summary(hfit, alpha = c(0.5, 0.97))
  r2 <- hfit$path$r2
  expect_equal(s$stopping$stop_cost[1], hfit$path$cost[which(r2 >= 0.5 * r2[14])[1]])
  expect_equal(s$stopping$timeliness[2], timeliness(hfit, stop_cost = stop_cost(hfit, 0.97)))
  expect_equal(s$total_cost, sum(heart_cost))
  expect_match(paste(capture.output(print(s)), collapse = "\n"), "Training timeliness up to the alpha-stopping cost")
})

test_that("plot returns the training curve, or the test curve computed from predictions", {
  pdf(NULL)
  on.exit(dev.off())
  tr <- plot(hfit)
  expect_equal(tr$r2, hfit$path$r2)
  expect_equal(tr$cost, cumsum(c(0, heart_cost[hfit$sequence])), ignore_attr = TRUE)
  test <- heart[seq(2, 303, by = 3), ]
  te <- plot(hfit, newdata = test, add = TRUE, col = 2)
  y <- as.numeric(test$diagnosis)
  x <- model.matrix(diagnosis ~ ., test)[, -1]
  pred <- sweep(x %*% as.matrix(hfit$beta), 2, hfit$a0, "+")
  sse <- colSums((y - pred)^2)
  expect_equal(te$r2, unname(1 - sse / sse[1]))
  expect_equal(plot(hfit, newx = x, newy = y)$r2, te$r2)
})

test_that("the formula interface makes one group per term and predicts from new data frames", {
  expect_setequal(hfit$sequence, names(heart_cost))
  expect_equal(unname(hfit$group[c("cpaa", "cpnp", "cpa")]), rep("cp", 3))
  # predictions on a data frame holding only some factor levels use the training levels
  nd <- heart[heart$cp == "a", ][1:4, ]
  x <- model.matrix(diagnosis ~ ., heart)[, -1][rownames(nd), ]
  expect_equal(unname(predict(hfit, newdata = nd, budget = c(3, 120))),
               unname(predict(hfit, x, budget = c(3, 120))))
  # same sequence as the matrix interface with the terms as groups
  mm <- model.matrix(diagnosis ~ ., heart)
  labels <- attr(terms(diagnosis ~ ., data = heart), "term.labels")
  mfit <- fgseq(mm[, -1], heart$diagnosis, group = labels[attr(mm, "assign")[-1]], cost = heart_cost,
                method = "fr")
  expect_identical(mfit$sequence, hfit$sequence)
  expect_equal(mfit$beta, hfit$beta)
})

test_that("max_steps and max_cost truncate the path to a prefix of the full sequence", {
  full <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
  short <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, max_cost = 100)
  k <- max(which(full$path$cost <= 100)) - 1
  expect_identical(short$sequence, full$sequence[seq_len(k)])
  expect_equal(short$path$r2, full$path$r2[1:(k + 1)])
  expect_identical(fgseq(diagnosis ~ ., data = heart, cost = heart_cost, max_steps = 2)$sequence,
                   full$sequence[1:2])
})

test_that("plot(log = \"x\") starts step 0 at half the first positive cost; cost_unit labels the axis", {
  pdf(NULL)
  on.exit(dev.off())
  tr <- plot(hfit, log = "x", cost_unit = "CAD", labels = TRUE, ylim = c(0, 1))
  expect_equal(tr$r2, hfit$path$r2)
  expect_true(par("xlog"))
  first <- min(hfit$path$cost[hfit$path$cost > 0])
  # the axis spans [first / 2, total cost], extended by R's usual 4% on the log scale
  span <- log10(c(first / 2, sum(heart_cost)))
  expect_equal(par("usr")[1:2], span + c(-1, 1) * 0.04 * diff(span))
  expect_identical(fgseq:::cost_axis_label("cumulative cost", "CAD"), "cumulative cost (CAD)")
  expect_identical(fgseq:::cost_axis_label("cumulative cost", NULL), "cumulative cost")
  # a curve added to a log axis starts at its left edge
  te <- plot(hfit, newdata = heart[1:100, ], add = TRUE, col = 2)
  expect_equal(te$cost, hfit$path$cost)
})

test_that("add = TRUE says when the curve leaves the axes it cannot rescale", {
  pdf(NULL)
  on.exit(dev.off())
  small <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, max_cost = 10)
  plot(small)
  expect_warning(plot(hfit, add = TRUE), class = "fgseq_warning_plot_range")
  plot(hfit)
  expect_no_warning(plot(small, add = TRUE))
})

test_that("plot(what = \"coef\") draws the coefficient paths that coef() gives", {
  pdf(NULL)
  on.exit(dev.off())
  drawn <- plot(hfit, what = "coef", log = "x", labels = TRUE)
  expect_equal(drawn, coef(hfit)[-1, ], ignore_attr = TRUE)
  expect_equal(rownames(drawn), rownames(coef(hfit))[-1])
  multi <- fgseq(cyl ~ mpg + wt + hp, data = transform(mtcars, cyl = factor(cyl)), family = "multinomial",
                 lambda = 0.1)
  drawn <- plot(multi, what = "coef")
  expect_equal(lapply(drawn, unname), lapply(coef(multi), function(m) unname(m[-1, ])))
})

test_that("plot arguments: what, log, labels, cost_unit, and coef paths of a fit without coefficients", {
  pdf(NULL)
  on.exit(dev.off())
  expect_error(plot(hfit, what = "objective"), "`what` must be one of \"curve\", \"coef\"",
               class = "fgseq_error_input")
  expect_error(plot(hfit, log = "xy"), "`log` must be one of \"\", \"x\"", class = "fgseq_error_input")
  expect_error(plot(hfit, labels = "yes"), "`labels` must be TRUE or FALSE", class = "fgseq_error_input")
  expect_error(plot(hfit, cost_unit = 1), "`cost_unit` must be NULL or a single character string",
               class = "fgseq_error_input")
  expect_error(plot(hfit, what = "coef", add = TRUE), "`add = TRUE` works with `what = \"curve\"` only",
               class = "fgseq_error_input")
  trees <- miser(diagnosis ~ ., data = heart, cost = heart_cost, max_steps = 5, depth = 2)
  expect_error(plot(trees, what = "coef"), "`what = \"coef\"` needs a fit with coefficients",
               class = "fgseq_error_input")
})

test_that("cost_unit is kept with fgseq, Sparse and Miser fits, and checked", {
  f <- fgseq(diagnosis ~ age + sex, data = heart, cost = heart_cost[c("age", "sex")], cost_unit = "CAD")
  expect_identical(f$cost_unit, "CAD")
  expect_null(hfit$cost_unit)
  s <- sparse_sequence(diagnosis ~ age + sex, data = heart, cost = heart_cost[c("age", "sex")], cost_unit = "CAD")
  expect_identical(s$cost_unit, "CAD")
  m <- miser(diagnosis ~ age + sex, data = heart, cost = heart_cost[c("age", "sex")], max_steps = 3, cost_unit = "CAD")
  expect_identical(m$cost_unit, "CAD")
  expect_error(fgseq(diagnosis ~ age, data = heart, cost_unit = c("a", "b")),
               "`cost_unit` must be NULL or a single character string", class = "fgseq_error_input")
})

# A fit stopped by max_cost before its first group is an empty sequence: a valid object for every
# method, predicting with the intercept only (the mean of y, as lm(y ~ 1)).
empty_fit_data <- function() {
  set.seed(31)
  x <- matrix(rnorm(50 * 4), 50, 4, dimnames = list(NULL, c("a", "b", "c", "d")))
  list(x = x, y = drop(x %*% c(1, -1, 0.5, 0)) + rnorm(50), group = c("g1", "g1", "g2", "g3"),
       cost = c(g1 = 2, g2 = 3, g3 = 4))
}

test_that("an empty fit: predict and coef give the intercept-only model of lm()", {
  d <- empty_fit_data()
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, max_cost = 1)
  expect_length(fit$sequence, 0L)
  ref <- unname(coef(lm(d$y ~ 1)))
  expect_equal(unname(predict(fit, d$x, budget = c(0, 10))), matrix(ref, 50, 2), tolerance = 1e-12)
  expect_equal(unname(coef(fit, budget = 10)[, 1]), c(ref, 0, 0, 0, 0), tolerance = 1e-12)
})

test_that("an empty fit: timeliness and summary are 0, and the summary says the sequence is empty", {
  d <- empty_fit_data()
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, max_cost = 1)
  expect_identical(stop_cost(fit), 0)
  expect_identical(timeliness(fit), 0)
  s <- summary(fit)
  expect_equal(s$stopping$timeliness, rep(0, 4))
  expect_equal(s$n_groups, 0L)
  expect_output(print(s), "The sequence is empty")
  # on test data too: r2_k = 1 - SSE_k / SSE_0 is 0 at step 0, the only step
  expect_identical(timeliness(fit, newx = d$x[1:20, ], newy = d$y[1:20]), 0)
  # a loss curve: the intercept-only model's test mse
  expect_equal(timeliness(fit, newx = d$x[1:20, ], newy = d$y[1:20], metric = "mse"),
               mean((d$y[1:20] - mean(d$y))^2), tolerance = 1e-12)
})

test_that("an empty fit: plot draws the single point, compare_sequences() takes it after a full fit", {
  d <- empty_fit_data()
  empty <- fgseq(d$x, d$y, group = d$group, cost = d$cost, max_cost = 1)
  full <- fgseq(d$x, d$y, group = d$group, cost = d$cost)
  pdf(NULL)
  on.exit(dev.off())
  drawn <- plot(empty)
  expect_equal(drawn$cost, 0)
  expect_equal(drawn$r2, 0)
  cmp <- compare_sequences(list(full = full, empty = empty))
  expect_equal(cmp$table$linear[2], 0)
  expect_equal(cmp$table$total_cost[2], 0)
  expect_error(compare_sequences(list(empty = empty, full = full)),
               "the first of `fits` \\(empty\\) has an empty sequence", class = "fgseq_error_input")
  expect_equal(compare_sequences(list(empty = empty, full = full), stop_cost = 5)$table$linear[1], 0)
})
