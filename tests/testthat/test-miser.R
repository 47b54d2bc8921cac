# The Greedy Miser against plain-R computations: brute-force splits, a brute-force boosting reference
# (helper-miser-reference.R), costs recounted from the stored trees, and the anytime machinery.

md <- sim_miser(60, 5)
mcost <- c(x1 = 1, x2 = 2, x3 = 5, x4 = 3, x5 = 4)

test_that("lambda = 0, depth 1: every tree is the best single split of the gradient, by brute force", {
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "gaussian") md$y else md$y01
    fit <- miser(md$x, y, cost = mcost, cost_penalty = 0, max_steps = 6, depth = 1, eta = 0.5, family = family,
                 min_node_size = 1, split = "exact", leaves = "gradient")
    H <- predict(fit, md$x, step = 0:5)  # the predictor before each tree
    for (t in 1:6) {
      r <- if (family == "gaussian") y - H[, t] else y - plogis(H[, t])
      # brute force: every column, every midpoint between consecutive distinct sorted values
      best <- list(sse = Inf)
      for (j in seq_len(ncol(md$x))) {
        u <- sort(unique(md$x[, j]))
        for (thr in (u[-1] + u[-length(u)]) / 2) {
          left <- md$x[, j] <= thr
          sse <- sum((r[left] - mean(r[left]))^2) + sum((r[!left] - mean(r[!left]))^2)
          if (sse < best$sse - 1e-12) best <- list(sse = sse, j = j, thr = thr, l = mean(r[left]), r = mean(r[!left]))
        }
      }
      tr <- fit$trees[fit$trees$tree == t, ]
      expect_identical(nrow(tr), 3L)
      expect_identical(tr$column[1], best$j)
      expect_equal(tr$threshold[1], best$thr, tolerance = 1e-12)
      expect_equal(tr$value[tr$left[1]], best$l, tolerance = 1e-10)
      expect_equal(tr$value[tr$right[1]], best$r, tolerance = 1e-10)
    }
  }
})

test_that("Newton trees, depth 1: every tree is the best split of the second-order gain, leaves G / H, by brute force", {
  for (family in c("binomial", "multinomial")) {
    y <- if (family == "binomial") md$y01 else md$yk
    fit <- miser(md$x, y, cost = mcost, cost_penalty = 0, max_steps = 4, depth = 1, eta = 0.5, family = family,
                 min_node_size = 1, split = "exact")
    expect_identical(fit$leaves, "newton")
    P <- if (family == "binomial") 1L else nlevels(y)
    Y <- if (family == "binomial") matrix(y) else outer(as.integer(y), seq_len(P), "==") + 0
    H <- matrix(fit$init, nrow(md$x), P, byrow = TRUE)
    for (t in 1:4) {
      prob <- if (P == 1L) matrix(plogis(H)) else exp(H) / rowSums(exp(H))
      for (k in seq_len(P)) {
        g <- Y[, k] - prob[, k]                                     # the negative gradient
        h <- prob[, k] * (1 - prob[, k]) * (if (P > 1L) P / (P - 1) else 1)  # the Hessian
        gain2 <- function(left) 0.5 * (sum(g[left])^2 / sum(h[left]) + sum(g[!left])^2 / sum(h[!left]) - sum(g)^2 / sum(h))
        best <- list(gain = -Inf)
        for (j in seq_len(ncol(md$x))) {
          u <- sort(unique(md$x[, j]))
          for (thr in (u[-1] + u[-length(u)]) / 2) {
            left <- md$x[, j] <= thr
            if (sum(h[left]) <= 1e-3 || sum(h[!left]) <= 1e-3) next
            gn <- gain2(left)
            if (is.infinite(best$gain) || gn > best$gain + 1e-10 * abs(best$gain)) {
              best <- list(gain = gn, j = j, thr = thr, l = sum(g[left]) / sum(h[left]), r = sum(g[!left]) / sum(h[!left]))
            }
          }
        }
        tr <- fit$trees[fit$trees$tree == (t - 1L) * P + k, ]
        expect_identical(tr$column[1], best$j)
        expect_equal(tr$threshold[1], best$thr, tolerance = 1e-12)
        expect_equal(tr$value[tr$left[1]], best$l, tolerance = 1e-10)
        expect_equal(tr$value[tr$right[1]], best$r, tolerance = 1e-10)
        step <- ifelse(md$x[, best$j] <= best$thr, best$l, best$r)
        H[, k] <- H[, k] + 0.5 * step
      }
    }
    expect_equal(unname(matrix(predict(fit, md$x, step = 4), nrow(md$x))), H, tolerance = 1e-10)
  }
})

test_that("lambda = 0 reproduces stage-wise regression computed in plain R (gaussian, binomial)", {
  newx <- sim_miser(30, 5, seed = 2)$x
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "gaussian") md$y else md$y01
    fit <- miser(md$x, y, cost = mcost, cost_penalty = 0, max_steps = 8, depth = 3, eta = 0.2, family = family,
                 min_node_size = 2, split = "exact")
    ref <- ref_miser(md$x, y, family, n_trees = 8, depth = 3, eta = 0.2, min_node = 2, newx = newx)
    expect_equal(fit_trees(fit), ref$trees, tolerance = 1e-10, ignore_attr = TRUE)
    expect_equal(unname(fit$init), ref$init, tolerance = 1e-12)
    expect_equal(unname(predict(fit, newx)), do.call(cbind, ref$Hnew), tolerance = 1e-10)
    expect_equal(fit$path$loss, ref$loss, tolerance = 1e-10)
    expect_equal(fit$path$r2, 1 - ref$loss / ref$loss[1], tolerance = 1e-10)
  }
  # and it does not depend on the costs
  a <- miser(md$x, md$y, cost = mcost, cost_penalty = 0, max_steps = 5)
  b <- miser(md$x, md$y, cost = rev(mcost), cost_penalty = 0, max_steps = 5)
  expect_identical(a$trees, b$trees)
})

test_that("the cost penalty of equation (5) matches the plain-R reference (both paid rules, groups)", {
  grp <- c("a", "a", "b", "c", "c")
  gcost <- c(a = 1, b = 5, c = 3)
  for (family in c("gaussian", "binomial", "multinomial")) {
    y <- switch(family, gaussian = md$y, binomial = md$y01, multinomial = md$yk)
    for (paid in c("after_tree", "within_tree")) {
      for (g in list(NULL, grp)) {
        cst <- if (is.null(g)) mcost else gcost
        leaves <- if (paid == "after_tree" && is.null(g)) "gradient" else "newton"  # the paper's trees, and Newton's
        fit <- miser(md$x, y, cost = cst, group = g, cost_penalty = 0.03, max_steps = 5, depth = 3, eta = 0.3,
                     family = family, paid = paid, min_node_size = 2, split = "exact", leaves = leaves)
        ref <- ref_miser(md$x, y, family, n_trees = 5, depth = 3, eta = 0.3, min_node = 2,
                         lambda_scaled = fit$cost_penalty_scaled, cost = unname(cst),
                         group = if (is.null(g)) seq_len(5) else g, paid = paid, newton = leaves == "newton")
        expect_equal(fit_trees(fit), ref$trees, tolerance = 1e-10, ignore_attr = TRUE)
        expect_equal(fit$path$loss, ref$loss, tolerance = 1e-10)
        paid_ref <- unlist(ref$paid_by)  # group labels (column numbers without `group`), in paying order
        if (is.null(g)) paid_ref <- names(mcost)[paid_ref]
        expect_identical(fit$sequence, as.character(paid_ref))
      }
    }
  }
})

test_that("lambda is scaled by the initial impurity and the mean cost (units of y and cost drop out)", {
  a <- miser(md$x, md$y, cost = mcost, cost_penalty = 0.05, max_steps = 6)
  b <- miser(md$x, 10 * md$y + 3, cost = 7 * mcost, cost_penalty = 0.05, max_steps = 6)
  expect_equal(a$cost_penalty_scaled, 0.05 * 0.5 * sum((md$y - mean(md$y))^2) / mean(mcost))
  expect_identical(a$trees[, c("tree", "column", "threshold", "left", "right")],
                   b$trees[, c("tree", "column", "threshold", "left", "right")])
  expect_equal(b$path$cost, 7 * a$path$cost)
  expect_equal(b$path$r2, a$path$r2, tolerance = 1e-10)
})

test_that("no group is paid twice; the cumulative cost is recounted from the stored trees", {
  grp <- c("a", "a", "b", "c", "c")
  gcost <- c(a = 1, b = 5, c = 3)
  for (g in list(NULL, grp)) {
    cst <- if (is.null(g)) mcost else gcost
    for (family in c("gaussian", "multinomial")) {
      y <- if (family == "gaussian") md$y else md$yk
      fit <- miser(md$x, y, cost = cst, group = g, cost_penalty = 0.002, max_steps = 12, depth = 2, family = family)
      labels <- names(cst)
      col_group <- if (is.null(g)) labels else g
      used_by_step <- lapply(0:12, function(t) {
        cols <- fit$trees$column[fit$trees$step <= t & !is.na(fit$trees$column)]
        unique(col_group[cols])
      })
      expect_equal(fit$path$cost, vapply(used_by_step, function(u) sum(cst[u]), numeric(1)))
      new <- lapply(fit$path$group, function(s) if (is.na(s)) character(0) else strsplit(s, ", ")[[1]])
      all_new <- unlist(new)
      expect_false(anyDuplicated(all_new) > 0)                      # never paid twice
      for (t in 1:12) {
        expect_setequal(new[[t + 1]], setdiff(used_by_step[[t + 1]], used_by_step[[t]]))
        expect_equal(fit$path$group_cost[t + 1], sum(cst[new[[t + 1]]]))
      }
      expect_setequal(fit$sequence, used_by_step[[13]])
      expect_identical(fit$path$cost[1], 0)
    }
  }
})

test_that("larger lambda never increases the cost at a fixed number of trees, on average over seeds", {
  lambdas <- c(0, 0.01, 0.1)
  heart_costs <- sapply(1:5, function(s) {
    set.seed(s)
    rows <- sample(nrow(heart), 220)
    vapply(lambdas, function(l) {
      suppressWarnings(miser(diagnosis ~ ., data = heart[rows, ], cost = heart_cost, family = "binomial",
                             cost_penalty = l, max_steps = 30))$path$cost[31]
    }, numeric(1))
  })
  sim_costs <- sapply(1:5, function(s) {
    set.seed(s)
    x <- matrix(rnorm(300 * 10), 300, 10)
    y <- x[, 1] + x[, 2] - x[, 3] + 0.5 * x[, 4] * x[, 5] + rnorm(300)
    vapply(lambdas, function(l) miser(x, y, cost = 1:10, cost_penalty = l, max_steps = 30)$path$cost[31], numeric(1))
  })
  for (m in list(rowMeans(heart_costs), rowMeans(sim_costs))) {
    expect_true(all(diff(m) <= 0))
    expect_lt(m[3], m[1])
  }
})

test_that("multinomial: one tree per class per iteration, probabilities sum to 1, types agree", {
  fit <- miser(md$x, md$yk, cost = mcost, max_steps = 7, depth = 2, family = "multinomial")
  expect_s3_class(fit, "miser")
  expect_s3_class(fit, "anytime_fit")
  expect_identical(max(fit$trees$tree), 21L)
  per_tree <- fit$trees[!duplicated(fit$trees$tree), ]
  expect_identical(per_tree$class, rep(levels(md$yk), 7))
  expect_identical(per_tree$step, rep(1:7, each = 3))
  expect_identical(fit$path$trees, 3L * (0:7))
  newx <- sim_miser(25, 5, seed = 3)$x
  link <- predict(fit, newx, step = c(0, 3, 7))
  prob <- predict(fit, newx, step = c(0, 3, 7), type = "response")
  cls <- predict(fit, newx, step = c(0, 3, 7), type = "class")
  expect_identical(dim(prob), c(25L, 3L, 3L))
  expect_identical(dimnames(prob)[[2]], levels(md$yk))
  expect_equal(apply(prob, c(1, 3), sum), matrix(1, 25, 3, dimnames = list(NULL, c("step0", "step3", "step7"))))
  for (k in 1:3) {
    e <- exp(link[, , k])
    expect_equal(prob[, , k], e / rowSums(e), ignore_attr = TRUE)
    expect_identical(unname(cls[, k]), levels(md$yk)[max.col(prob[, , k], ties.method = "first")])
  }
  expect_equal(unname(prob[1, , 1]), as.numeric(table(md$yk)) / 60)  # step 0: the class frequencies
  # the training r2 is the deviance explained, recomputed from the predicted probabilities
  ptrain <- predict(fit, md$x, step = 7, type = "response")[, , 1]
  dev <- -2 * sum(log(ptrain[cbind(1:60, as.integer(md$yk))]))
  dev0 <- -2 * sum(as.numeric(table(md$yk)) * log(as.numeric(table(md$yk)) / 60))
  expect_equal(fit$path$r2[8], 1 - dev / dev0, tolerance = 1e-10)
})

test_that("binomial predict types agree and a budget picks the last step within it", {
  fit <- miser(md$x, md$y01, cost = mcost, cost_penalty = 0.01, max_steps = 20, depth = 2, family = "binomial")
  newx <- sim_miser(20, 5, seed = 4)$x
  link <- predict(fit, newx)
  expect_identical(dim(link), c(20L, 21L))
  expect_equal(predict(fit, newx, type = "response"), plogis(link))
  expect_identical(predict(fit, newx, type = "class"),
                   matrix(c("0", "1")[(plogis(link) > 0.5) + 1], 20, dimnames = dimnames(link)))
  budgets <- c(0, 0.5, sort(unique(fit$path$cost)), max(fit$path$cost) + 1)
  pb <- predict(fit, newx, budget = budgets)
  for (b in seq_along(budgets)) {
    t <- max(which(fit$path$cost <= budgets[b])) - 1
    expect_equal(unname(pb[, b]), unname(predict(fit, newx, step = t)[, 1]))
  }
  # the trees of a budget's model use only groups paid within the budget
  B <- fit$path$cost[3]
  t <- max(which(fit$path$cost <= B)) - 1
  cols <- fit$trees$column[fit$trees$step <= t & !is.na(fit$trees$column)]
  expect_lte(sum(mcost[unique(cols)]), B)
})

test_that("the anytime machinery works on miser fits: curves, timeliness, stop_cost, comparison, plot", {
  x <- sim_miser(90, 5, seed = 5)
  tr <- 1:60
  fit <- miser(x$x[tr, ], x$y[tr], cost = mcost, cost_penalty = 0.01, max_steps = 25, depth = 2)
  cv <- anytime_curve(fit)
  expect_equal(cv$value, fit$path$r2)
  expect_equal(cv$cost, fit$path$cost)
  test <- anytime_curve(fit, x$x[-tr, ], x$y[-tr])
  pr <- predict(fit, x$x[-tr, ])
  sse <- colSums((x$y[-tr] - pr)^2)
  expect_equal(test$value, unname(1 - sse / sse[1]))
  mse <- anytime_curve(fit, x$x[-tr, ], x$y[-tr], metric = "mse")
  expect_equal(mse$value, unname(sse / 30))
  B <- stop_cost(fit, alpha = 0.9)
  expect_identical(B, fit$path$cost[which(fit$path$r2 >= 0.9 * fit$path$r2[26])[1]])
  expect_equal(timeliness(fit, stop_cost = B), curve_timeliness(fit$path$cost, fit$path$r2, B))
  expect_equal(timeliness(fit, stop_cost = B, newx = x$x[-tr, ], newy = x$y[-tr], interpolation = "step"),
               curve_timeliness(test$cost, test$value, B, "step"))

  # on one cost axis with linear sequences of the same data
  omp <- fgseq(x$x[tr, ], x$y[tr], cost = mcost)
  cmp <- compare_sequences(list(omp, fit), newx = x$x[-tr, ], newy = x$y[-tr])
  expect_identical(cmp$table$method, c("CS-G-OMP", "Greedy Miser (cost_penalty = 0.01)"))
  expect_equal(cmp$table$linear[2], curve_timeliness(test$cost, test$value, cmp$stop_cost))
  expect_equal(cmp$table$total_cost[2], max(fit$path$cost))
  other <- miser(x$x[tr, ], x$y[tr] + 1, cost = mcost, max_steps = 5)
  expect_error(compare_sequences(list(omp, other)), "its response has another mean or variance")

  # classification fits compare across families on the same response
  hb <- suppressWarnings(miser(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost, family = "binomial",
                               max_steps = 20))
  ho <- suppressWarnings(fgseq(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost))
  hc <- compare_sequences(list(ho, miser = hb), newdata = heart[201:303, ], metric = "auc")
  expect_identical(hc$table$method, c("CS-G-OMP", "miser"))
  expect_true(all(hc$table$final > 0.5))

  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  drawn <- plot(fit, newx = x$x[-tr, ], newy = x$y[-tr])
  expect_equal(drawn$r2, test$value)
  # the training curve of omp lies above the test curve's axes, which add = TRUE does not rescale
  expect_warning(plot(omp, add = TRUE), class = "fgseq_warning_plot_range")
  plot(cmp)
  expect_output(print(fit), "Greedy Miser \\(cost_penalty = 0.01\\), gaussian: 25 steps")
})

test_that("the formula interface pays one group per term and predicts from newdata", {
  fit <- suppressWarnings(miser(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost, family = "binomial",
                                cost_penalty = 0.03, max_steps = 15))
  expect_identical(names(fit$cost), names(heart_cost))
  expect_true(all(fit$sequence %in% names(heart_cost)))
  terms_used <- unique(fit$group[fit$trees$column[!is.na(fit$trees$column)]])
  expect_setequal(terms_used, fit$sequence)
  p1 <- predict(fit, newdata = heart[201:210, ], type = "response")
  mm <- model.matrix(~ ., heart[201:210, -1])[, -1]
  expect_identical(colnames(mm), names(fit$group))
  p2 <- predict(fit, mm, type = "response")
  expect_equal(unname(p1), unname(p2))
})

test_that("miser_path: each lambda's best validation iteration, recomputed from separate fits", {
  x <- sim_miser(120, 5, seed = 6)
  tr <- 1:80
  lam <- c(0, 0.01, 0.1)
  mp <- miser_path(x$x[tr, ], x$y[tr], cost = mcost, cost_penalty = lam, newx = x$x[-tr, ], newy = x$y[-tr],
                   max_steps = 20, depth = 2)
  expect_s3_class(mp, "miser_path")
  for (i in seq_along(lam)) {
    f <- miser(x$x[tr, ], x$y[tr], cost = mcost, cost_penalty = lam[i], max_steps = 20, depth = 2)
    pr <- predict(f, x$x[-tr, ])
    sse <- colSums((x$y[-tr] - pr)^2)
    r2 <- 1 - sse / sse[1]
    best <- unname(which(r2 == max(r2))[1])
    expect_identical(mp$frontier$step[i], best - 1L)
    expect_equal(mp$frontier$cost[i], f$path$cost[best])
    expect_equal(mp$frontier$value[i], unname(r2[best]))
    expect_equal(mp$frontier$final_cost[i], f$path$cost[21])
  }
  fr <- mp$frontier
  for (i in seq_len(nrow(fr))) {
    dominated <- any(fr$cost <= fr$cost[i] & fr$value >= fr$value[i] &
                       (fr$cost < fr$cost[i] | fr$value > fr$value[i]))
    expect_identical(fr$efficient[i], !dominated)
  }
  cls <- miser_path(x$x[tr, ], x$y01[tr], cost = mcost, cost_penalty = c(0, 0.05), newx = x$x[-tr, ],
                    newy = x$y01[-tr], family = "binomial", max_steps = 10, depth = 2)
  expect_identical(cls$metric, "accuracy")
  expect_output(print(mp), "best iteration on the validation r2")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(mp), mp)
  expect_identical(plot(mp, log = "x", cost_unit = "units", legend = "topleft"), mp)
  expect_true(par("xlog"))
  expect_error(plot(mp, traces = NA), "`traces` must be TRUE or FALSE")
  expect_error(plot(mp, log = "y"), "`log` must be one of \"\", \"x\"")
})
