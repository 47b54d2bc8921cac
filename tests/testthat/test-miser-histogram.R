# The histogram split search of miser() against the exact search and against the plain-R reference
# with binned candidates (helper-miser-reference.R); the anytime training controls.

mcost_hist <- c(x1 = 1, x2 = 2, x3 = 5, x4 = 3, x5 = 4)

test_that("with max_bin >= the distinct values of every column, histogram trees are the exact trees", {
  d <- sim_miser(150, 6, seed = 11)
  x <- d$x
  x[, 2] <- round(x[, 2], 1)  # ties: few distinct values
  x[, 4] <- round(x[, 4])
  grp <- c("a", "a", "b", "c", "c", "d")
  gcost <- c(a = 1, b = 5, c = 3, d = 2)
  for (family in c("gaussian", "binomial", "multinomial")) {
    y <- switch(family, gaussian = d$y, binomial = d$y01, multinomial = d$yk)
    for (paid in c("after_tree", "within_tree")) {
      args <- list(x, y, cost = gcost, group = grp, cost_penalty = 0.02, max_steps = 15, depth = 3, eta = 0.3,
                   family = family, paid = paid, min_node_size = 3)
      exact <- do.call(miser, c(args, split = "exact"))
      hist <- do.call(miser, c(args, split = "histogram", max_bin = 150))
      expect_identical(hist$trees[, c("tree", "node", "column", "left", "right")],
                       exact$trees[, c("tree", "node", "column", "left", "right")])
      expect_equal(hist$trees$threshold, exact$trees$threshold, tolerance = 1e-14)
      expect_equal(hist$trees$value, exact$trees$value, tolerance = 1e-10)
      expect_equal(hist$path, exact$path, tolerance = 1e-10)
    }
  }
  # a column with fewer distinct values than max_bin is cut at the midpoints of its values
  st <- miser(x[, 4, drop = FALSE], d$y, cost = 1, cost_penalty = 0, max_steps = 20, depth = 1, max_bin = 10)
  u <- sort(unique(x[, 4]))
  expect_true(all(st$trees$threshold[!is.na(st$trees$threshold)] %in% ((u[-1] + u[-length(u)]) / 2)))
})

test_that("with fewer bins than values the trees are the plain-R reference's on binned candidates", {
  d <- sim_miser(120, 5, seed = 12)
  x <- d$x
  x[1:30, 3] <- 0.25  # a heavy value gets a bin of its own
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "gaussian") d$y else d$y01
    fit <- miser(x, y, cost = mcost_hist, cost_penalty = 0.02, max_steps = 6, depth = 3, eta = 0.3, family = family,
                 min_node_size = 2, max_bin = 7)
    ref <- ref_miser(x, y, family, n_trees = 6, depth = 3, eta = 0.3, min_node = 2,
                     lambda_scaled = fit$cost_penalty_scaled, cost = unname(mcost_hist), max_bin = 7)
    expect_equal(fit_trees(fit), ref$trees, tolerance = 1e-10, ignore_attr = TRUE)
    expect_equal(fit$path$loss, ref$loss, tolerance = 1e-10)
  }
  bins <- ref_bins(x[, 3], 7)
  expect_identical(length(bins$hi), 7L)
})

test_that("threads do not change the trees", {
  d <- sim_miser(400, 6, seed = 13)
  op <- options(fgseq.threads = 1)
  on.exit(options(op))
  one <- miser(d$x, d$y, cost = 1:6, max_steps = 10, max_bin = 31)
  options(fgseq.threads = 2)
  two <- miser(d$x, d$y, cost = 1:6, max_steps = 10, max_bin = 31)
  expect_identical(one$trees, two$trees)
})

test_that("on rows enough to split nodes in blocks, threads do not change the trees and leaves are means", {
  # 40,000 rows: the rows of a node are split over several blocks, whose sums add in order
  d <- sim_miser(40000, 5, seed = 15)
  w <- rep(c(1, 2.5), 20000)
  op <- options(fgseq.threads = 1)
  on.exit(options(op))
  one <- miser(d$x, d$y, cost = 1:5, max_steps = 3, depth = 3, weights = w)
  options(fgseq.threads = 3)
  three <- miser(d$x, d$y, cost = 1:5, max_steps = 3, depth = 3, weights = w)
  expect_identical(one$trees, three$trees)
  # the first tree's leaves: the weighted mean of y - H_0 over the rows that reach them
  tr <- three$trees[three$trees$tree == 1, ]
  node <- rep(1L, nrow(d$x))
  repeat {
    inner <- !is.na(tr$column[node])
    if (!any(inner)) break
    k <- node[inner]
    left <- d$x[cbind(which(inner), tr$column[k])] <= tr$threshold[k]
    node[inner] <- ifelse(left, tr$left[k], tr$right[k])
  }
  r <- d$y - three$init[[1]]
  expect_equal(tr$value[sort(unique(node))], as.vector(tapply(w * r, node, sum) / tapply(w, node, sum)),
               tolerance = 1e-12)
})

test_that("max_time returns the first trees of the full fit, marked partial; progress changes nothing", {
  d <- sim_miser(300, 5, seed = 14)
  full <- miser(d$x, d$y, cost = 1:5, max_steps = 30, depth = 2)
  expect_false(full$partial)
  expect_warning(short <- miser(d$x, d$y, cost = 1:5, max_steps = 30, depth = 2, max_time = 1e-9),
                 "before iteration 1 \\(of at most 30\\) was complete", class = "fgseq_warning_partial")
  expect_true(short$partial)
  K <- short$n_steps
  expect_lt(K, 30)
  expect_identical(short$trees, full$trees[full$trees$tree <= K, ])
  expect_equal(short$path, full$path[seq_len(K + 1L), ])
  expect_match(paste(capture.output(print(short)), collapse = "\n"), "Partial: `max_time` was spent")
  expect_identical(miser(d$x, d$y, cost = 1:5, max_steps = 5, progress = TRUE)$trees,
                   miser(d$x, d$y, cost = 1:5, max_steps = 5)$trees)
})

test_that("bad split, max_bin, max_time and progress are errors naming the argument", {
  d <- sim_miser(40, 5, seed = 15)
  expect_error(miser(d$x, d$y, cost = 1:5, split = "sorted"), "`split` must be one of", class = "fgseq_error_input")
  expect_error(miser(d$x, d$y, cost = 1:5, max_bin = 1), "`max_bin` must be a single whole number between 2",
               class = "fgseq_error_input")
  expect_error(miser(d$x, d$y, cost = 1:5, max_bin = 2.5), "`max_bin` must be a single whole number", class = "fgseq_error_input")
  expect_error(miser(d$x, d$y, cost = 1:5, max_time = 0), "`max_time` must be a single number > 0", class = "fgseq_error_input")
  expect_error(miser(d$x, d$y, cost = 1:5, progress = "yes"), "`progress` must be TRUE or FALSE", class = "fgseq_error_input")
})
