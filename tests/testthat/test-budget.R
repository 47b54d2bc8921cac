# Budgeted prediction: budget B uses the longest prefix whose cumulative cost
# is <= B; coef() and predict() agree; max_cost and max_steps cut the
# unconstrained sequence.

budget_fit <- function(lambda = 0.01, ...) {
  d <- sim_groups(n = 100, sizes = c(2, 1, 3, 2, 1), rho = 0.4, seed = 51,
                  cost = c(2.5, 1, 4, 0.5, 3))
  newx <- sim_groups(n = 30, sizes = c(2, 1, 3, 2, 1), rho = 0.4, seed = 52)$x
  list(d = d, newx = newx, fit = fgseq(d$x, d$y, d$group, d$cost, lambda = lambda, ...))
}

# index (1-based column of beta) of the longest prefix with cumulative cost <= B,
# computed from the group costs of the sequence
prefix_col <- function(fit, B) {
  cum <- cumsum(c(0, fit$cost[fit$sequence]))
  max(which(cum <= B))
}

test_that("the path's costs are the cumulative group costs of the sequence", {
  b <- budget_fit()
  fit <- b$fit
  expect_identical(nrow(fit$path), length(fit$sequence) + 1L)
  expect_identical(fit$path$step, 0:length(fit$sequence))
  expect_identical(fit$path$group, c(NA, fit$sequence))
  expect_close(fit$path$group_cost, c(0, b$d$cost[fit$sequence]), 1e-15)
  expect_close(fit$path$cost, cumsum(c(0, b$d$cost[fit$sequence])), 1e-12)
  expect_close(fit$cost, b$d$cost[unique(b$d$group)], 0)
})

test_that("predict(budget = B) is the longest affordable prefix; below the first cost it is mean(y)", {
  b <- budget_fit()
  fit <- b$fit
  cum <- cumsum(c(0, b$d$cost[fit$sequence]))
  first <- cum[2]
  budgets <- c(0, first / 2, first, (cum[2] + cum[3]) / 2, cum[4], cum[4] - 1e-9,
               cum[length(cum)], cum[length(cum)] + 100, Inf)
  p <- predict(fit, b$newx, budget = budgets)
  expect_identical(dim(p), c(nrow(b$newx), length(budgets)))
  for (i in seq_along(budgets)) {
    k <- prefix_col(fit, budgets[i])
    expect_close(p[, i], fitted_at(fit$beta, fit$a0, b$newx, k), 1e-12, paste("budget", budgets[i]))
  }
  ybar <- rep(mean(b$d$y), nrow(b$newx))
  expect_close(p[, 1], ybar, 1e-10)
  expect_close(p[, 2], ybar, 1e-10)
  expect_close(predict(fit, b$newx, budget = first * 0.999), ybar, 1e-10)
})

test_that("coef() and predict() agree, by budget, by step and for all steps", {
  b <- budget_fit()
  fit <- b$fit
  K <- length(fit$sequence)
  X1 <- cbind(1, b$newx)
  cf <- coef(fit)
  expect_identical(dim(cf), c(ncol(b$newx) + 1L, K + 1L))
  expect_identical(rownames(cf)[1], "(Intercept)")
  expect_close(cf, rbind(fit$a0, fit$beta), 1e-14)
  expect_close(predict(fit, b$newx), X1 %*% cf, 1e-12)
  for (k in 0:K) {
    expect_close(predict(fit, b$newx, step = k), X1 %*% coef(fit, step = k), 1e-12)
    expect_close(coef(fit, step = k), c(fit$a0[k + 1], fit$beta[, k + 1]), 1e-14)
  }
  B <- c(0.7, 3.2, 8.1)
  expect_close(predict(fit, b$newx, budget = B), X1 %*% coef(fit, budget = B), 1e-12)
  expect_close(coef(fit, budget = B),
               rbind(fit$a0, fit$beta)[, sapply(B, prefix_col, fit = fit)], 1e-14)
})

test_that("budget columns are named by their budgets, distinct budgets by distinct names", {
  b <- budget_fit()
  fit <- b$fit
  cum <- cumsum(c(0, b$d$cost[fit$sequence]))
  # a budget 1e-9 short of a prefix's cost, and that cost, buy different prefixes
  budgets <- c(cum[3] - 1e-9, cum[3], 1, 1 + 1e-7, 1, 120)
  p <- predict(fit, b$newx, budget = budgets)
  expect_identical(colnames(p)[3:6], c("budget=1", "budget=1.0000001", "budget=1", "budget=120"))
  expect_identical(length(unique(colnames(p))), length(unique(budgets)))
  # each name reads back as its budget
  named <- as.numeric(sub("^budget=", "", colnames(p)))
  expect_true(all(abs(named - budgets) <= 1e-10 * budgets))
  for (i in seq_along(budgets)) {
    expect_close(p[, i], fitted_at(fit$beta, fit$a0, b$newx, prefix_col(fit, budgets[i])), 1e-12)
  }
  expect_false(isTRUE(all.equal(p[, 1], p[, 2])))
  # 0.1 + 0.2 and 0.3 differ in the 17th digit
  expect_identical(colnames(coef(fit, budget = c(0.3, 0.1 + 0.2))),
                   c("budget=0.29999999999999999", "budget=0.30000000000000004"))
  # budgets that print apart as format() prints them keep those names
  expect_identical(colnames(predict(fit, b$newx, budget = c(0.5, 1.25, 120))),
                   paste0("budget=", c("0.50", "1.25", "120.00")))
})

test_that("max_cost and max_steps stop at a prefix of the unconstrained sequence", {
  b <- budget_fit()
  full <- b$fit
  cum <- full$path$cost
  for (B in c(0.2, cum[3], (cum[3] + cum[4]) / 2, Inf)) {
    cut <- fgseq(b$d$x, b$d$y, b$d$group, b$d$cost, lambda = 0.01, max_cost = B)
    k <- prefix_col(full, B) - 1L
    expect_identical(cut$sequence, full$sequence[seq_len(k)])
    expect_close(cut$path$r2, full$path$r2[seq_len(k + 1)], 1e-10)
    expect_close(cut$beta, full$beta[, seq_len(k + 1)], 1e-10)
  }
  cut <- fgseq(b$d$x, b$d$y, b$d$group, b$d$cost, lambda = 0.01, max_steps = 2)
  expect_identical(cut$sequence, full$sequence[1:2])
  expect_identical(ncol(cut$beta), 3L)
})
