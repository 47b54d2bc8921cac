# The anytime_fit contract (R/anytime_fit.R): every constructor's object holds the fields the anytime
# methods rely on, and a constructor that would break it stops.

test_that("fits of every verb hold the contract's fields, with a path rising from cost 0", {
  set.seed(5)
  x <- matrix(rnorm(80 * 4), 80, 4, dimnames = list(NULL, paste0("v", 1:4)))
  y <- drop(x %*% c(1, 0.5, 0, -1)) + rnorm(80)
  cost <- c(v1 = 1, v2 = 2, v3 = 3, v4 = 4)
  fits <- list(fgseq = fgseq(x, y, cost = cost), stats = fgseq(fgseq_stats(x, y), cost = cost),
               sparse = sparse_sequence(x, y, cost = cost, n_penalty = 20),
               miser = miser(x, y, cost = cost, max_steps = 5, depth = 2),
               formula = fgseq(diagnosis ~ age + sex + cp, data = heart, cost = heart_cost, family = "binomial"))
  for (name in names(fits)) {
    f <- fits[[name]]
    expect_true(all(fgseq:::anytime_fields %in% names(f)), label = name)
    expect_s3_class(f, "anytime_fit")
    expect_identical(f$path$step, seq_len(nrow(f$path)) - 1L, label = name)
    expect_identical(f$path$cost, cumsum(f$path$group_cost), label = name)
    expect_true(is.numeric(f$cost) && setequal(names(f$cost), unique(f$group)), label = name)
  }
  # a sequence chosen outside the greedy selection keeps its method's name and score
  expect_identical(fits$sparse$method, "sparse")
  expect_identical(fits$sparse$path$score[-1L], unname(fits$sparse$group_lasso$entry_penalty[fits$sparse$sequence]))
})

test_that("a constructor that breaks the contract stops with an internal error", {
  expect_error(fgseq:::new_anytime_fit(list(path = data.frame()), "fgseq"), "lacks field",
               class = "fgseq_error_internal")
  fit <- fgseq(mtcars[, -1], mtcars$mpg)
  fields <- unclass(fit)
  fields$path$cost <- rev(fields$path$cost)
  expect_error(fgseq:::new_anytime_fit(fields, "fgseq"), "cost does not rise from the cost of step 0",
               class = "fgseq_error_internal")
  # a step 0 that pays a formula's offset starts the path at its cost, not at 0
  fields <- unclass(fit)
  fields$offset_needs <- "wt"
  expect_error(fgseq:::new_anytime_fit(fields, "fgseq"), "cost does not rise from the cost of step 0",
               class = "fgseq_error_internal")
  fields$path$group_cost[1L] <- fields$measurement_cost[["wt"]]
  fields$path$cost <- cumsum(fields$path$group_cost)
  expect_s3_class(fgseq:::new_anytime_fit(fields, "fgseq"), "fgseq")
  fields <- unclass(fit)
  fields$family <- "gamma"
  expect_error(fgseq:::new_anytime_fit(fields, "fgseq"), "unknown family", class = "fgseq_error_internal")
})
