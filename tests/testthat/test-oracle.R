# The Oracle (paper section 5.2): groups reordered by decreasing gain per unit cost on a curve.

# A fit whose training curve is replaced by a hand-made one: groups g1, g2, g3 in that order with
# costs 3, 1, 2 and r2 = 0, 0.3, 0.5, 0.9, i.e. gains 0.3, 0.2, 0.4 and gains per cost 0.1, 0.2, 0.2.
oracle_hand_fit <- function() {
  d <- sim_groups(n = 60, sizes = c(1, 2, 1), seed = 61)
  # the sequence g1, g2, g3 evaluated as given (costs 3, 1, 2), so that the fit is one the package makes
  group <- paste0("g", match(d$group, unique(d$group)))
  fit <- fit_sequence(d$x, d$y, group, cost = c(g1 = 3, g2 = 1, g3 = 2), lambda = 0.01, order = c("g1", "g2", "g3"))
  expect_equal(fit$path$cost, c(0, 3, 4, 6))
  fit$path$r2 <- c(0, 0.3, 0.5, 0.9)
  fit
}

test_that("the Oracle reorders a hand-made curve by gain per cost, ties in the source order", {
  or <- oracle(oracle_hand_fit())
  expect_s3_class(or, "fgseq_oracle")
  # g2 and g3 tie at 0.2 per unit cost: g2 (earlier in the source) first, then g3, then g1 (0.1)
  expect_identical(or$sequence, c("g2", "g3", "g1"))
  expect_equal(or$path$cost, c(0, 1, 3, 6))
  expect_equal(or$path$value, c(0, 0.2, 0.6, 0.9))
  expect_equal(or$path$source_step, c(0, 2, 3, 1))
  expect_equal(or$path$gain, c(NA, 0.2, 0.4, 0.3))
  # timeliness on the Oracle's curve by hand, and the curve the methods return
  expect_equal(timeliness(or, stop_cost = 4),
               (0.5 * 1 * 0.2 + 2 * (0.2 + 0.6) / 2 + 1 * (0.6 + 0.7) / 2) / 4)
  expect_equal(timeliness(or, stop_cost = 4, interpolation = "step"), (0 + 2 * 0.2 + 1 * 0.6) / 4)
  expect_equal(anytime_curve(or)$value, c(0, 0.2, 0.6, 0.9))
  # stop cost on the Oracle's training r2: 0.97 * 0.9 is first reached at cost 6, 0.6 at 3
  expect_equal(stop_cost(or, alpha = 0.97), 6)
  expect_equal(stop_cost(or, alpha = 0.6), 3)
  pdf(NULL)
  on.exit(dev.off())
  expect_equal(plot(or)$r2, c(0, 0.2, 0.6, 0.9))
  expect_match(paste(capture.output(print(or)), collapse = "\n"), "Oracle \\(CS-G-OMP\\): 3 groups reordered")
})

test_that("zero and negative gains go last, zeros before negatives", {
  curve <- fgseq:::new_curve(0:4, c(NA, "a", "b", "c", "d"), c(0, 1, 2, 4, 5),
                             c(0.1, 0.0, 0.3, 0.3, 0.5), "r2", "test")
  # gains per cost: a -0.1, b 0.3, c 0 / 2, d 0.2
  p <- fgseq:::oracle_path(curve)
  expect_identical(p$group, c(NA, "b", "d", "c", "a"))
  expect_equal(p$value, c(0.1, 0.4, 0.6, 0.6, 0.5))
  # for a loss a decrease is a gain
  loss <- fgseq:::new_curve(0:2, c(NA, "a", "b"), c(0, 2, 3), c(1, 0.8, 0.5), "mse", "test")
  expect_identical(fgseq:::oracle_path(loss)$group, c(NA, "b", "a"))
  expect_equal(fgseq:::oracle_path(loss)$value, c(1, 0.7, 0.5))
})

test_that("the Oracle of a test curve reorders that curve and is never below it", {
  d <- sim_groups(n = 120, sizes = c(2, 1, 3, 2, 1), rho = 0.4, seed = 81)
  te <- sim_groups(n = 90, sizes = c(2, 1, 3, 2, 1), rho = 0.4, seed = 82)
  fr <- fgseq(d$x, d$y, d$group, d$cost, method = "fr", lambda = 0.01)
  K <- length(fr$sequence)
  pred <- sapply(seq_len(K + 1), function(k) fitted_at(fr$beta, fr$a0, te$x, k))
  sse <- colSums((te$y - pred)^2)
  r2 <- 1 - sse / sse[1]
  gc <- unname(d$cost[fr$sequence])
  ord <- order(-diff(r2) / gc)
  or <- oracle(fr, te$x, te$y)
  expect_identical(or$sequence, fr$sequence[ord])
  expect_equal(or$path$value, cumsum(c(0, diff(r2)[ord])))
  expect_identical(or$data, "test")
  # methods given new data re-derive the Oracle from the source's curve on them
  expect_equal(anytime_curve(oracle(fr), te$x, te$y)$value, or$path$value)
  C <- cumsum(c(0, gc))
  for (B in c(C[2], C[3] + 0.5, C[K + 1])) {
    expect_gte(timeliness(or, stop_cost = B) + 1e-12, ref_timeliness(C, r2, B))
  }
  # the training-curve Oracle's stop cost equals the hand rule on its path
  tr <- oracle(fr)
  v <- tr$path$value
  expect_equal(stop_cost(or, 0.97), tr$path$cost[which(v >= 0.97 * v[K + 1])[1]])
})

test_that("oracle() needs a fitted sequence", {
  expect_error(oracle(list(path = 1)), "`object` must be a fitted sequence \\(class \"fgseq\"\\)")
})

test_that("the Oracle of a fit whose offset is priced starts from step 0's cost", {
  set.seed(13)
  d <- data.frame(a = rnorm(120), b = rnorm(120), t = runif(120, 1, 3))
  d$y <- rpois(120, d$t * exp(0.5 * d$a - 0.3 * d$b))
  fit <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2, t = 5), family = "poisson")
  or <- oracle(fit)
  expect_equal(or$path$cost[1], 5)
  expect_equal(max(or$path$cost), max(fit$path$cost))
  expect_equal(sort(diff(or$path$cost)), sort(diff(fit$path$cost)))
})
