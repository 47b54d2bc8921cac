# summary() of a Greedy Miser fit against values recomputed from the stored trees and predictions.

sd_ <- sim_miser(70, 6, seed = 3)
sgrp <- c("a", "a", "b", "c", "c", "d")
sgcost <- c(a = 2, b = 7, c = 3, d = 1)
scost <- c(x1 = 1, x2 = 4, x3 = 2, x4 = 6, x5 = 3, x6 = 5)

# The columns in order of first use, found by walking every tree from its root by its child pointers
# (breadth first, left child before right), trees in order.
walk_first_use <- function(fit) {
  seen <- integer(0)
  where <- list()
  for (t in sort(unique(fit$trees$tree))) {
    tr <- fit$trees[fit$trees$tree == t, ]
    queue <- 1L
    while (length(queue)) {
      v <- queue[1L]
      queue <- queue[-1L]
      j <- tr$column[tr$node == v]
      if (is.na(j)) next
      if (!j %in% seen) {
        seen <- c(seen, j)
        where[[length(where) + 1L]] <- c(step = tr$step[1L], tree = t)
      }
      queue <- c(queue, tr$left[tr$node == v], tr$right[tr$node == v])
    }
  }
  list(column = seen, step = vapply(where, `[[`, numeric(1), "step"),
       tree = vapply(where, `[[`, numeric(1), "tree"))
}

test_that("the feature sequence is the order of first use recomputed by walking the trees", {
  for (family in c("gaussian", "binomial", "multinomial")) {
    y <- switch(family, gaussian = sd_$y, binomial = sd_$y01, multinomial = sd_$yk)
    for (g in list(NULL, sgrp)) {
      cst <- if (is.null(g)) scost else sgcost
      fit <- miser(sd_$x, y, cost = cst, group = g, cost_penalty = 0.003, max_steps = 15, depth = 3, family = family)
      s <- summary(fit)
      expect_s3_class(s, "summary.miser")
      ref <- walk_first_use(fit)
      expect_gt(length(ref$column), 1L)
      expect_identical(s$features$column, ref$column)
      expect_identical(s$features$feature, colnames(sd_$x)[ref$column])
      expect_equal(s$features$step, ref$step)
      expect_equal(s$features$tree, ref$tree)
      col_group <- if (is.null(g)) colnames(sd_$x) else g
      expect_identical(s$features$group, col_group[ref$column])
      # a first use is charged its group's cost unless an earlier feature's first use paid for the group
      charged <- numeric(length(ref$column))
      paid <- character(0)
      for (i in seq_along(ref$column)) {
        gi <- col_group[ref$column[i]]
        if (!gi %in% paid) {
          charged[i] <- cst[[gi]]
          paid <- c(paid, gi)
        }
      }
      expect_equal(s$features$charged, charged)
      expect_equal(s$features$cost, cumsum(charged))
      expect_identical(unique(s$features$group), fit$sequence)   # groups in the order the fit paid them
      expect_equal(s$features$splits,
                   vapply(ref$column, function(j) sum(fit$trees$column == j, na.rm = TRUE), numeric(1)))
      expect_setequal(s$unused, setdiff(colnames(sd_$x), colnames(sd_$x)[ref$column]))
      expect_identical(s$n_features, length(ref$column))
      expect_identical(s$n_groups, length(unique(col_group[ref$column])))
    }
  }
})

test_that("per step: distinct features and groups, cost and the training objective recounted", {
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "gaussian") sd_$y else sd_$y01
    fit <- miser(sd_$x, y, cost = sgcost, group = sgrp, cost_penalty = 0.003, max_steps = 12, depth = 2,
                 family = family)
    s <- summary(fit)
    expect_identical(nrow(s$steps), 13L)
    for (t in 0:12) {
      cols <- unique(fit$trees$column[fit$trees$step <= t & !is.na(fit$trees$column)])
      expect_identical(s$steps$features[t + 1], length(cols))
      expect_identical(s$steps$groups[t + 1], length(unique(sgrp[cols])))
      expect_equal(s$steps$cost[t + 1], sum(sgcost[unique(sgrp[cols])]))
      new <- setdiff(cols, unique(fit$trees$column[fit$trees$step < t & !is.na(fit$trees$column)]))
      if (length(new)) {
        expect_setequal(strsplit(s$steps$new_features[t + 1], ", ")[[1]], colnames(sd_$x)[new])
      } else {
        expect_true(is.na(s$steps$new_features[t + 1]))
      }
    }
    # the training loss from the fit's own predictions
    H <- predict(fit, sd_$x)
    loss <- if (family == "gaussian") colMeans(0.5 * (y - H)^2) else colMeans(log1p(exp(H)) - y * H)
    expect_equal(s$steps$loss, unname(loss), tolerance = 1e-10)
    expect_equal(s$steps$objective, unname(loss[1] - loss), tolerance = 1e-10)
    expect_equal(s$steps$r2, unname(1 - loss / loss[1]), tolerance = 1e-10)
    expect_equal(s$total_cost, s$steps$cost[13])
    expect_equal(s$r2, s$steps$r2[13])
  }
  # gaussian r2 is 1 - SSE_t / SSE_0 of the predictions
  fit <- miser(sd_$x, sd_$y, cost = scost, cost_penalty = 0, max_steps = 10, depth = 2)
  H <- predict(fit, sd_$x)
  expect_equal(summary(fit)$steps$r2, unname(1 - colSums((sd_$y - H)^2) / sum((sd_$y - mean(sd_$y))^2)),
               tolerance = 1e-10)
})

test_that("multinomial: trees per step are one per class; the formula interface names dummy columns", {
  fit <- miser(sd_$x, sd_$yk, cost = scost, cost_penalty = 0.003, max_steps = 6, depth = 2, family = "multinomial")
  s <- summary(fit)
  expect_identical(s$steps$trees, 3L * (0:6))
  expect_true(all(s$features$tree >= 3L * (s$features$step - 1L) + 1L & s$features$tree <= 3L * s$features$step))
  hf <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 20, depth = 2)
  hs <- summary(hf)
  expect_true(all(hs$features$feature %in% colnames(model.matrix(diagnosis ~ ., heart))[-1]))
  expect_true(all(hs$features$group %in% names(heart_cost)))
  expect_equal(sum(hs$features$charged), sum(heart_cost[hf$sequence]))
})

test_that("print shows the new-feature steps and the feature sequence; a fit without splits", {
  fit <- miser(sd_$x, sd_$y, cost = scost, cost_penalty = 0.003, max_steps = 8, depth = 2)
  s <- summary(fit)
  out <- capture.output(res <- print(s))
  expect_identical(res, s)
  expect_true(any(grepl("Features in order of first use", out)))
  expect_true(any(grepl("(constant only)", out, fixed = TRUE)))
  expect_true(any(grepl(s$features$feature[1], out, fixed = TRUE)))
  flat <- miser(sd_$x, sd_$y, cost = scost, cost_penalty = 1e6, max_steps = 3, depth = 2)
  fs <- summary(flat)
  expect_identical(nrow(fs$features), 0L)
  expect_identical(fs$total_cost, 0)
  expect_setequal(fs$unused, colnames(sd_$x))
  expect_output(print(fs), "none: every tree is a single leaf")
})

test_that("coef() of a miser fit stops and points to summary()", {
  fit <- miser(sd_$x, sd_$y, cost = scost, max_steps = 3, depth = 1)
  expect_error(coef(fit), "a Greedy Miser fit has no coefficients: its model is a sum of trees\\. Use summary\\(\\)")
})
