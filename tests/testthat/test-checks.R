# The kit of typed checkers (R/checks.R): one message per kind of number, and unknown arguments of the
# plot methods, which pass only graphical parameters on to base graphics.

test_that("check_number() states the bounds, openness, finiteness and wholeness it checks", {
  cn <- fgseq:::check_number
  expect_identical(cn(2L, "a", lower = 0), 2)
  expect_identical(fgseq:::check_whole(3, "n", 1), 3L)
  expect_error(cn(-1, "a", lower = 0), "^`a` must be a single finite number >= 0\\.$", class = "fgseq_error_input")
  expect_error(cn(0, "a", lower = 0, lower_open = TRUE, allow_inf = TRUE), "^`a` must be a single number > 0\\.$")
  expect_error(cn(1.5, "a", 0, 1, lower_open = TRUE), "^`a` must be a single number in \\(0, 1\\]\\.$")
  expect_error(cn(1, "a", 0, 1, TRUE, TRUE, what = "a ratio"), "^`a` must be a single number in \\(0, 1\\) \\(a ratio\\)\\.$")
  expect_error(cn(c(1, 2), "a"), "^`a` must be a single finite number\\.$")
  expect_error(cn(NA_real_, "a", lower = 0), "`a` must be a single finite number >= 0")
  expect_error(fgseq:::check_whole(2.5, "n", 1, 9), "^`n` must be a single whole number between 1 and 9\\.$")
  expect_error(fgseq:::check_whole(1e10, "n", 1, what = "rows"),
               "^`n` \\(1e\\+10\\) is larger than 2147483647, the largest whole number R holds as an integer \\(rows\\)\\.$")
  expect_error(fgseq:::check_whole(1e10, "n", 1, 10), "^`n` must be a single whole number between 1 and 10\\.$")
})

test_that("every plot method rejects an unknown argument and passes graphical parameters on", {
  set.seed(3)
  x <- matrix(rnorm(60 * 4), 60, 4, dimnames = list(NULL, paste0("v", 1:4)))
  y <- drop(x %*% c(1, 0.5, 0, -1)) + rnorm(60)
  fit <- fgseq(x, y, cost = c(1, 2, 3, 4))
  fr <- fgseq(x, y, cost = c(1, 2, 3, 4), method = "fr")
  pdf(NULL)
  on.exit(dev.off())
  objects <- list(fit = fit, oracle = oracle(fit), comparison = compare_sequences(list(fit, fr)),
                  cv = suppressMessages(cv_fgseq(x, y, cost = c(1, 2, 3, 4), lambda = c(1, 0.1), nfolds = 3,
                                                 progress = FALSE)),
                  miser_path = miser_path(x[1:40, ], y[1:40], cost = c(1, 2, 3, 4), cost_penalty = c(0, 0.1), max_steps = 5,
                                          depth = 2, newx = x[41:60, ], newy = y[41:60]))
  for (name in names(objects)) {
    expect_error(plot(objects[[name]], lwdd = 2), "`lwdd` (did you mean `lwd`?)", fixed = TRUE,
                 class = "fgseq_error_unknown_argument", label = name)
    expect_no_error(plot(objects[[name]], lwd = 2, cex = 0.8))
  }
})

test_that("predict() and coef() take budget and step only by their full names: s = is an unknown argument", {
  fit <- fgseq(mtcars[, -1], mtcars$mpg, cost = seq_len(10))
  m <- miser(as.matrix(mtcars[, -1]), mtcars$mpg, cost = seq_len(10), max_steps = 3, depth = 2)
  expect_error(predict(fit, as.matrix(mtcars[, -1]), s = 2), "`s` (did you mean `step`?)", fixed = TRUE,
               class = "fgseq_error_unknown_argument")
  expect_error(coef(fit, s = 2), class = "fgseq_error_unknown_argument")
  expect_error(predict(m, as.matrix(mtcars[, -1]), s = 2), class = "fgseq_error_unknown_argument")
  expect_error(predict(fit, as.matrix(mtcars[, -1]), b = 10), "`b` (did you mean `budget`?)", fixed = TRUE,
               class = "fgseq_error_unknown_argument")
})

test_that("timeliness() and compare_sequences() take stop_cost by its full name only: s = is an unknown argument", {
  fit <- fgseq(as.matrix(mtcars[, -1]), mtcars$mpg, cost = seq_len(10))
  fr <- fgseq(as.matrix(mtcars[, -1]), mtcars$mpg, cost = seq_len(10), method = "fr")
  expect_error(timeliness(fit, s = 5), "`s` (did you mean `stop_cost`?)", fixed = TRUE,
               class = "fgseq_error_unknown_argument")
  expect_error(timeliness(oracle(fit), s = 5), class = "fgseq_error_unknown_argument")
  expect_error(compare_sequences(list(fit, fr), s = 5), "`s` (did you mean `stop_cost`?)", fixed = TRUE,
               class = "fgseq_error_unknown_argument")
  # the full name still works, and means the upper end of the integral (plain-R reference)
  expect_equal(timeliness(fit, stop_cost = 10), ref_timeliness(fit$path$cost, fit$path$r2, 10, "linear"))
  expect_equal(compare_sequences(list(fit, fr), stop_cost = 10)$stop_cost, 10)
})

test_that("plot() of a fit takes the graphical parameter lab = as a graphical parameter, not as labels", {
  fit <- fgseq(as.matrix(mtcars[, -1]), mtcars$mpg, cost = seq_len(10))
  pdf(NULL)
  on.exit(dev.off())
  # lab = c(5, 5, 7) was taken as `labels` (an error: labels must be TRUE or FALSE)
  expect_no_error(plot(fit, lab = c(5, 5, 7)))
  expect_no_error(plot(fit, what = "coef", lab = c(5, 5, 7)))
  expect_error(plot(fit, labels = NA), "`labels` must be TRUE or FALSE", class = "fgseq_error_input")
})

test_that("the plot type of the curves is plot_type; type (the prediction type elsewhere) is its deprecated name", {
  fit <- fgseq(as.matrix(mtcars[, -1]), mtcars$mpg, cost = seq_len(10))
  fr <- fgseq(as.matrix(mtcars[, -1]), mtcars$mpg, cost = seq_len(10), method = "fr")
  cmp <- compare_sequences(list(fit, fr))
  pdf(NULL)
  on.exit(dev.off())
  for (obj in list(fit, oracle(fit), cmp)) {
    expect_no_warning(plot(obj, plot_type = "l"))
    expect_warning(plot(obj, type = "l"), "`type` is deprecated: use `plot_type`", class = "fgseq_warning_deprecated")
    expect_error(plot(obj, type = "l", plot_type = "s"), "give `plot_type` only", class = "fgseq_error_input")
  }
  expect_warning(plot(fit, what = "coef", type = "l"), class = "fgseq_warning_deprecated")
})

test_that("plot() of a comparison, a Miser path or a cross-validation takes mai = as a graphical parameter, not as main", {
  set.seed(5)
  x <- matrix(rnorm(60 * 4), 60, 4, dimnames = list(NULL, paste0("v", 1:4)))
  y <- drop(x %*% c(1, 0.5, 0, -1)) + rnorm(60)
  cmp <- compare_sequences(list(fgseq(x, y, cost = 1:4), fgseq(x, y, cost = 1:4, method = "fr")))
  mp <- miser_path(x[1:40, ], y[1:40], cost = 1:4, cost_penalty = c(0, 0.1), max_steps = 3, depth = 2,
                   newx = x[41:60, ], newy = y[41:60])
  cv <- cv_fgseq(x, y, cost = 1:4, lambda = c(1, 0.1), nfolds = 3, progress = FALSE)
  # the titles drawn, as graphics::title() receives them from plot.default()
  drawn <- new.env()
  drawn$main <- list()
  suppressMessages(trace(graphics::title, bquote(assign("main", c(get("main", .(drawn)), list(main)), .(drawn))),
                         print = FALSE, where = asNamespace("graphics")))
  on.exit(untrace(graphics::title, where = asNamespace("graphics")), add = TRUE)
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  expect_no_error(plot(cmp, mai = c(1, 1, 0.5, 0.5)))
  expect_no_error(plot(mp, mai = c(1, 1, 0.5, 0.5)))
  expect_no_error(plot(mp, main = "trade-off"))
  expect_no_error(plot(cv, mai = c(1, 1, 0.5, 0.5)))
  # before: mai = was taken for main, and the title was "1"
  expect_identical(unlist(drawn$main), c("Anytime curves", "Greedy Miser: cost/accuracy trade-off", "trade-off",
                                         "3-fold cross-validation"))
})

test_that("the test-data arguments come in one order in every signature that takes them", {
  order <- c("newx", "newy", "newdata", "metric", "query", "k")
  funs <- list(anytime_curve.anytime_fit = fgseq:::anytime_curve.anytime_fit,
               anytime_curve.fgseq_oracle = fgseq:::anytime_curve.fgseq_oracle, oracle = oracle,
               timeliness.anytime_fit = fgseq:::timeliness.anytime_fit,
               timeliness.fgseq_oracle = fgseq:::timeliness.fgseq_oracle, compare_sequences = compare_sequences,
               plot.anytime_fit = fgseq:::plot.anytime_fit, plot.fgseq_oracle = fgseq:::plot.fgseq_oracle,
               miser_path.default = fgseq:::miser_path.default, miser_path.formula = fgseq:::miser_path.formula)
  for (name in names(funs)) {
    args <- names(formals(funs[[name]]))
    present <- order[order %in% args]
    # in this order and next to each other
    expect_identical(args[args %in% order], present, label = name)
    expect_identical(diff(match(present, args)), rep(1L, length(present) - 1L), label = name)
  }
})
