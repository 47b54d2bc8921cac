# Bad input to miser(), predict.miser() and miser_path(): one test each, matching the messages.

vd <- sim_miser(40, 5)
vd$x <- vd$x[, 1:3]
vcost <- c(1, 2, 3)

test_that("cost missing: 1 per group, as fgseq() takes it", {
  expect_equal(miser(vd$x, vd$y, max_steps = 2)$cost, fgseq(vd$x, vd$y)$cost)
  expect_equal(miser(vd$x, vd$y, cost = NULL, max_steps = 2)$cost, c(x1 = 1, x2 = 1, x3 = 1))
  expect_error(miser(vd$x, vd$y, cost = c(1, 2)), "one value per group", class = "fgseq_error_input")
})

test_that("cost negative", {
  expect_error(miser(vd$x, vd$y, cost = c(1, -2, 3)), "`cost` must be non-negative; group\\(s\\) x2 have cost < 0",
               class = "fgseq_error_input")
})

test_that("cost of the wrong length", {
  expect_error(miser(vd$x, vd$y, cost = c(1, 2)), "`cost` must have one value per group \\(3 groups\\)",
               class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$y, cost = c(1, 2), group = c("a", "b", "b")), NA)
})

test_that("depth < 1", {
  expect_error(miser(vd$x, vd$y, cost = vcost, depth = 0),
               "`depth` must be a single whole number between 1 and 30 \\(splits from the root to a leaf\\)",
               class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$y, cost = vcost, depth = 2.5), "`depth` must be a single whole number",
               class = "fgseq_error_input")
})

test_that("eta outside (0, 1]", {
  expect_error(miser(vd$x, vd$y, cost = vcost, eta = 0), "`eta` must be a single number in \\(0, 1\\]",
               class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$y, cost = vcost, eta = 1.5), "`eta` must be a single number in \\(0, 1\\]",
               class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$y, cost = vcost, eta = 1, max_steps = 1), NA)
})

test_that("max_steps < 1", {
  expect_error(miser(vd$x, vd$y, cost = vcost, max_steps = 0),
               "`max_steps` must be a single whole number >= 1 \\(boosting iterations\\)",
               class = "fgseq_error_input")
})

test_that("cost_penalty < 0", {
  expect_error(miser(vd$x, vd$y, cost = vcost, cost_penalty = -0.1), "`cost_penalty` must be a single finite number >= 0",
               class = "fgseq_error_input")
})

test_that("y type not matching family", {
  expect_error(miser(vd$x, vd$yk, cost = vcost), "`y` must be a numeric vector \\(or logical, read as 0/1\\) for the Gaussian",
               class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$y, cost = vcost, family = "binomial"),
               "`y` must be 0/1, logical or a two-level factor for family = \"binomial\"",
               class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$yk, cost = vcost, family = "binomial"),
               "`y` must have exactly two classes for family = \"binomial\"; it has 3", class = "fgseq_error_input")
  expect_error(miser(vd$x, factor(rep("a", 40)), cost = vcost, family = "multinomial"), "`y` has a single class",
               class = "fgseq_error_input")
})

test_that("NA in x is an error", {
  x <- vd$x
  x[5, 2] <- NA
  expect_error(miser(x, vd$y, cost = vcost), "`x` contains NA, NaN or Inf \\(first in column 'x2'\\)",
               class = "fgseq_error_input")
})

test_that("unknown family, paid rule or argument", {
  expect_error(miser(vd$x, vd$y, cost = vcost, family = "poisson"),
               "`family` must be one of \"gaussian\", \"binomial\", \"multinomial\"", class = "fgseq_error_family")
  expect_error(miser(vd$x, vd$y, cost = vcost, paid = "never"), "`paid` must be one of \"after_tree\", \"within_tree\"",
               class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$y, cost = vcost, ntrees = 5), class = "fgseq_error_unknown_argument")
})

test_that("predict: class of a gaussian fit, budget with step, a bad newx", {
  fit <- miser(vd$x, vd$y, cost = vcost, max_steps = 3)
  expect_error(predict(fit, vd$x, type = "class"), "`type = \"class\"` needs a binomial or multinomial fit",
               class = "fgseq_error_input")
  expect_error(predict(fit, vd$x, budget = 1, step = 1), "give either `budget` or `step`, not both",
               class = "fgseq_error_input")
  expect_error(predict(fit, vd$x, step = 4), "`step` must be whole numbers between 0 and 3",
               class = "fgseq_error_input")
  expect_error(predict(fit, vd$x[, 1:2]), "`newx` must have 3 columns", class = "fgseq_error_input")
  x <- vd$x
  x[1, 1] <- NaN
  expect_error(predict(fit, x), "`newx` contains NA, NaN or Inf", class = "fgseq_error_na")
})

test_that("miser_path: no validation data, bad lambda grid", {
  expect_error(miser_path(vd$x, vd$y, cost = vcost), "miser_path\\(\\) needs validation data: give `newx` and `newy`",
               class = "fgseq_error_input")
  expect_error(miser_path(vd$x, vd$y, cost = vcost, newx = vd$x), "give `newy` with `newx`",
               class = "fgseq_error_input")
  expect_error(miser_path(vd$x, vd$y, cost = vcost, cost_penalty = c(0, -1), newx = vd$x, newy = vd$y),
               "`cost_penalty` must be a vector of distinct, non-negative, finite cost trade-off constants",
               class = "fgseq_error_input")
  expect_error(miser_path(diagnosis ~ ., data = heart, cost = heart_cost), "needs validation data: give `newdata`",
               class = "fgseq_error_input")
})

# A fit read from a file is checked before its trees reach the core (which checks them again).
tamper_fit <- function() miser(vd$x, vd$y, cost = vcost, max_steps = 5, depth = 2, min_node_size = 2)

test_that("predict() checks the forest once, at its entry", {
  fit <- tamper_fit()
  calls <- 0L
  suppressMessages(trace("check_forest", function() calls <<- calls + 1L, print = FALSE, where = asNamespace("fgseq")))
  on.exit(suppressMessages(untrace("check_forest", where = asNamespace("fgseq"))))
  p <- predict(fit, vd$x, type = "link")
  expect_identical(calls, 1L)
  # and the prediction (gaussian: the link) is the trees' own: init plus eta times the leaves each
  # row reaches, left where x <= threshold
  tr <- fit$trees
  leaf_value <- function(t, row) {
    nodes <- tr[tr$tree == t, ]
    k <- 1L
    while (!is.na(nodes$column[k])) k <- if (row[nodes$column[k]] <= nodes$threshold[k]) nodes$left[k] else nodes$right[k]
    nodes$value[k]
  }
  eta <- vapply(1:5, function(i) fit$init + fit$eta * sum(vapply(unique(tr$tree), leaf_value, 1, row = vd$x[i, ])), 1)
  expect_equal(unname(p[1:5, ncol(p)]), eta, tolerance = 1e-12)
})

test_that("an edited child index is refused, not followed", {
  fit <- tamper_fit()
  k <- which(!is.na(fit$trees$left))[1]
  fit$trees$left[k] <- 1e6
  expect_error(predict(fit, vd$x), "`trees\\$left` or `trees\\$right` is not a later node of the same tree",
               class = "fgseq_error_invalid_object")
  expect_error(predict(fit, vd$x), class = "fgseq_error_invalid_object")
  fit$trees$left[k] <- fit$trees$node[k]   # a loop back to itself
  expect_error(predict(fit, vd$x), "is not a later node of the same tree", class = "fgseq_error_invalid_object")
})

test_that("an edited feature index is refused", {
  fit <- tamper_fit()
  fit$trees$column[which(!is.na(fit$trees$column))[1]] <- 99L
  expect_error(predict(fit, vd$x), "`trees\\$column` is not a column of x", class = "fgseq_error_invalid_object")
})

test_that("edited tree numbers (tree starts) are refused", {
  fit <- tamper_fit()
  fit$trees <- fit$trees[fit$trees$tree != 2, ]
  expect_error(predict(fit, vd$x), "`trees\\$tree` does not number the 5 trees of the path in order",
               class = "fgseq_error_invalid_object")
  fit <- tamper_fit()
  fit$trees$node[2] <- 7L
  expect_error(predict(fit, vd$x), "`trees\\$node` does not number each tree's nodes",
               class = "fgseq_error_invalid_object")
})

test_that("a non-finite leaf value or init is refused", {
  fit <- tamper_fit()
  fit$trees$value[which(is.na(fit$trees$column))[1]] <- NaN
  expect_error(predict(fit, vd$x), "`trees\\$value` is not finite at a leaf", class = "fgseq_error_invalid_object")
  fit <- tamper_fit()
  fit$init[] <- Inf
  expect_error(predict(fit, vd$x), "`init` is not finite numbers", class = "fgseq_error_invalid_object")
})

test_that("the core checks the forest itself", {
  fit <- tamper_fit()
  tr <- fit$trees
  start <- c(0, cumsum(tabulate(tr$tree)))
  left <- ifelse(is.na(tr$left), -1L, tr$left - 1L)
  left[which(left >= 0)[1]] <- 500L
  expect_error(fgseq:::.miser_predict(vd$x, start, ifelse(is.na(tr$column), -1L, tr$column - 1L),
                                      ifelse(is.na(tr$threshold), NaN, tr$threshold), left,
                                      ifelse(is.na(tr$right), -1L, tr$right - 1L), tr$value, fit$init, fit$eta, 5L),
               "miser forest: a split's child is not a later node of its tree")
  expect_error(fgseq:::.miser_predict(vd$x, start[-2], ifelse(is.na(tr$column), -1L, tr$column - 1L),
                                      ifelse(is.na(tr$threshold), NaN, tr$threshold), left,
                                      ifelse(is.na(tr$right), -1L, tr$right - 1L), tr$value, fit$init, fit$eta, 1L),
               "miser forest")
})

test_that("max_steps beyond R's integers", {
  expect_error(miser(vd$x, vd$y, cost = vcost, max_steps = 1e10),
               "`max_steps` \\(1e\\+10\\) is larger than 2147483647, the largest whole number R holds as an integer",
               class = "fgseq_error_input")
})

test_that("the old names n_trees and lambda still work, with a deprecation warning; both names is an error", {
  new <- miser(vd$x, vd$y, cost = vcost, cost_penalty = 0.05, max_steps = 4)
  expect_warning(old <- miser(vd$x, vd$y, cost = vcost, lambda = 0.05, max_steps = 4),
                 "`lambda` is deprecated: use `cost_penalty`", class = "fgseq_warning_deprecated")
  expect_identical(old$trees, new$trees)
  expect_warning(old <- miser(vd$x, vd$y, cost = vcost, cost_penalty = 0.05, n_trees = 4),
                 "`n_trees` is deprecated: use `max_steps`", class = "fgseq_warning_deprecated")
  expect_identical(old$path, new$path)
  expect_warning(old <- miser(diagnosis ~ age + sex + cp, data = heart, cost = heart_cost, n_trees = 3),
                 class = "fgseq_warning_deprecated")
  expect_identical(old$path, miser(diagnosis ~ age + sex + cp, data = heart, cost = heart_cost, max_steps = 3)$path)
  expect_error(miser(vd$x, vd$y, cost = vcost, n_trees = 4, max_steps = 4), "give `max_steps` only", class = "fgseq_error_input")
  expect_warning(mp <- miser_path(vd$x, vd$y, cost = vcost, lambda = c(0, 0.1), max_steps = 3, newx = vd$x, newy = vd$y),
                 class = "fgseq_warning_deprecated")
  expect_identical(mp$cost_penalty, c(0, 0.1))
})

test_that("a fit's n_steps counts the boosting steps grown; $n_trees, its former name, reads it with a warning", {
  fit <- miser(vd$x, vd$y, cost = vcost, cost_penalty = 0.05, max_steps = 4)
  expect_identical(fit$n_steps, nrow(fit$path) - 1L)
  expect_identical(fit$n_steps, 4L)
  expect_warning(n <- fit$n_trees, "`$n_trees` is deprecated: use `$n_steps`", fixed = TRUE,
                 class = "fgseq_warning_deprecated")
  expect_identical(n, 4L)
  s <- summary(fit)
  expect_identical(s$n_steps, 4L)
  expect_warning(expect_identical(s$n_trees, 4L), class = "fgseq_warning_deprecated")
  expect_output(print(fit), ": 4 steps of depth-")
  # the scaled cost penalty lambda' = cost_penalty s0 / mean(cost) of equation (5), s0 half the weighted
  # sum of squares of the first negative gradient (for the Gaussian family, y less its mean)
  s0 <- 0.5 * sum((vd$y - mean(vd$y))^2)
  expect_equal(fit$cost_penalty_scaled, 0.05 * s0 / mean(fit$cost), tolerance = 1e-12)
  expect_warning(l <- fit$lambda_scaled, "`$lambda_scaled` is deprecated: use `$cost_penalty_scaled`", fixed = TRUE,
                 class = "fgseq_warning_deprecated")
  expect_identical(l, fit$cost_penalty_scaled)
})

test_that("group comes before cost; old positional (x, y, cost, group) calls are errors, never a silent swap", {
  grp <- rep(c("a", "b", "c"), length.out = ncol(vd$x))
  named <- miser(vd$x, vd$y, group = grp, cost = c(a = 1, b = 2, c = 3), max_steps = 3)
  # new order by position: character labels cannot be costs
  expect_identical(miser(vd$x, vd$y, grp, c(a = 1, b = 2, c = 3), max_steps = 3)$path, named$path)
  # old order by position: numeric group labels given by position with the costs
  expect_error(miser(vd$x, vd$y, c(1, 2, 3), rep(1:3, length.out = ncol(vd$x)), max_steps = 3),
               "takes `group` before `cost`", class = "fgseq_error_argument_order")
  # old order with the costs alone by position: numbers third without `cost`
  expect_error(miser(vd$x, vd$y, vcost, max_steps = 3), "a numeric third argument is given by position",
               class = "fgseq_error_argument_order")
  expect_error(miser_path(vd$x, vd$y, vcost, newx = vd$x, newy = vd$y), class = "fgseq_error_argument_order")
})

test_that("a Gaussian y beyond the squares of double precision is refused, not fitted with NaN r2", {
  expect_error(miser(vd$x, vd$y * 1e300, cost = vcost, max_steps = 3), "`y`", class = "fgseq_error_input")
  expect_error(miser(vd$x, vd$y * 1e-300, cost = vcost, max_steps = 3), "`y`", class = "fgseq_error_input")
  # an ordinary large scale keeps a finite path
  expect_true(all(is.finite(miser(vd$x, vd$y * 1e50, cost = vcost, max_steps = 3)$path$r2)))
})

test_that("max_steps beyond what the machine can hold is refused before the fit", {
  expect_error(miser(vd$x, vd$y, cost = vcost, max_steps = 2e9), "max_steps", class = "fgseq_error_input")
  expect_error(suppressWarnings(miser(vd$x, vd$y, cost = vcost, n_trees = 2e9)), "max_steps", class = "fgseq_error_input")
})
