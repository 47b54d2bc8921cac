# What the plot methods draw, read back from the recorded display list and the device's state
# (helper-plots.R): log cost axes, cost units, labels inside the plot, layouts and step frontiers.

p_train <- heart[c(TRUE, FALSE), ]
p_test <- heart[c(FALSE, TRUE), ]
p_omp <- fgseq(diagnosis ~ ., data = p_train, cost = heart_cost, cost_unit = "CAD")
p_fr <- fgseq(diagnosis ~ ., data = p_train, cost = heart_cost, method = "fr", cost_unit = "CAD")

test_that("plot() of a comparison takes log = \"x\" and the fits' cost_unit", {
  cmp <- compare_sequences(list(p_omp, p_fr), newdata = p_test)
  expect_identical(cmp$cost_unit, "CAD")
  d <- drawn(function() plot(cmp, log = "x"))
  expect_identical(d$value, cmp)
  expect_true(d$xlog)
  expect_true("cumulative cost (CAD)" %in% drawn_strings(d))
  # cost 0 is drawn at half the smallest positive cost of the curves, where the axis begins
  costs <- unlist(lapply(cmp$curves, `[[`, "cost"))
  left <- min(costs[costs > 0]) / 2
  right <- max(cmp$stop_cost, cmp$curves[[1]]$cost)
  expect_equal(d$usr[1:2], log10(c(left, right)) + c(-1, 1) * 0.04 * diff(log10(c(left, right))))
  lines <- calls_named(d, "C_plotXY")[-1]   # the first is plot(NA)'s empty frame
  expect_equal(lines[[1]]$args[[1]]$x, replace(cmp$curves[[1]]$cost, cmp$curves[[1]]$cost == 0, left))
  # "0" labels the left end
  axes <- calls_named(d, "C_axis")
  expect_true(any(vapply(axes, function(a) identical(a$args[[2]], left) && identical(a$args[[3]], "0"),
                         logical(1))))
  # a linear axis by default, with a unit given by the call
  lin <- drawn(function() plot(cmp, cost_unit = "dollars"))
  expect_false(lin$xlog)
  expect_true("cumulative cost (dollars)" %in% drawn_strings(lin))
  expect_error(plot(cmp, log = "y"), "log", class = "fgseq_error_input")
  expect_error(plot(cmp, cost_unit = 3), "cost_unit", class = "fgseq_error_input")
})

test_that("xlog = TRUE, which plot() ignores, is an unknown argument pointing to log = \"x\"", {
  cmp <- compare_sequences(list(p_omp, p_fr), newdata = p_test)
  pdf(NULL)
  on.exit(dev.off())
  expect_error(plot(cmp, xlog = TRUE), "did you mean `log`", class = "fgseq_error_unknown_argument")
  expect_error(plot(p_omp, xlog = TRUE), "did you mean `log`", class = "fgseq_error_unknown_argument")
})

test_that("plot() of an oracle takes log = \"x\" and the fit's cost_unit", {
  or <- oracle(p_omp)
  d <- drawn(function() plot(or, log = "x"))
  expect_true(d$xlog)
  expect_true("cumulative cost (CAD)" %in% drawn_strings(d))
  pos <- or$path$cost[or$path$cost > 0]
  expect_equal(10^d$usr[1] * 1.0, (min(pos) / 2) / (max(or$path$cost) / (min(pos) / 2))^(0.04), tolerance = 1e-12)
})
