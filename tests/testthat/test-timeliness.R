# Timeliness (paper section 5.2): (1/B) * integral_0^B f(c) dc over the curve
# (C_k, r2_k), C_0 = 0, r2_0 = 0; f linear or step; f = r2_K beyond C_K.

# A fit whose training curve is replaced by a hand-made one:
# C = 0, 1, 3, 6 and r2 = 0, 0.4, 0.7, 0.8.
hand_fit <- function() {
  d <- sim_groups(n = 60, sizes = c(1, 2, 1), seed = 61)
  # the groups evaluated in their order with costs 1, 2, 3 (a fit the package makes), then its r2 by hand
  labels <- unique(d$group)
  fit <- fit_sequence(d$x, d$y, d$group, cost = stats::setNames(c(1, 2, 3), labels), lambda = 0.01, order = labels)
  expect_equal(fit$path$cost, c(0, 1, 3, 6))
  fit$path$r2 <- c(0, 0.4, 0.7, 0.8)
  fit
}

test_that("reference timeliness matches the hand computation", {
  C <- c(0, 1, 3, 6)
  r2 <- c(0, 0.4, 0.7, 0.8)
  # B = 4.5 falls between steps; f(4.5) = 0.7 + (1.5 / 3) * 0.1 = 0.75
  expect_equal(ref_timeliness(C, r2, 4.5, "linear"),
               (0.5 * 1 * 0.4 + 2 * (0.4 + 0.7) / 2 + 1.5 * (0.7 + 0.75) / 2) / 4.5)
  expect_equal(ref_timeliness(C, r2, 4.5, "step"), (1 * 0 + 2 * 0.4 + 1.5 * 0.7) / 4.5)
  # B = 10 is beyond the last step: f = 0.8 on [6, 10]
  expect_equal(ref_timeliness(C, r2, 10, "linear"),
               (0.5 * 1 * 0.4 + 2 * (0.4 + 0.7) / 2 + 3 * (0.7 + 0.8) / 2 + 4 * 0.8) / 10)
  expect_equal(ref_timeliness(C, r2, 10, "step"), (1 * 0 + 2 * 0.4 + 3 * 0.7 + 4 * 0.8) / 10)
  # B = 0.5 inside the first segment; B = 3 exactly at a step
  expect_equal(ref_timeliness(C, r2, 0.5, "linear"), (0.5 * 0.5 * 0.2) / 0.5)
  expect_equal(ref_timeliness(C, r2, 0.5, "step"), 0)
  expect_equal(ref_timeliness(C, r2, 3, "linear"), (0.5 * 1 * 0.4 + 2 * (0.4 + 0.7) / 2) / 3)
  expect_equal(ref_timeliness(C, r2, 3, "step"), (2 * 0.4) / 3)
})

test_that("timeliness() on a hand-made curve equals the hand computation", {
  fit <- hand_fit()
  lin <- function(B) timeliness(fit, stop_cost = B, interpolation = "linear")
  stp <- function(B) timeliness(fit, stop_cost = B, interpolation = "step")
  expect_equal(lin(4.5), (0.5 * 1 * 0.4 + 2 * (0.4 + 0.7) / 2 + 1.5 * (0.7 + 0.75) / 2) / 4.5)
  expect_equal(stp(4.5), (1 * 0 + 2 * 0.4 + 1.5 * 0.7) / 4.5)
  expect_equal(lin(10), (0.5 * 1 * 0.4 + 2 * (0.4 + 0.7) / 2 + 3 * (0.7 + 0.8) / 2 + 4 * 0.8) / 10)
  expect_equal(stp(10), (1 * 0 + 2 * 0.4 + 3 * 0.7 + 4 * 0.8) / 10)
  expect_equal(lin(0.5), (0.5 * 0.5 * 0.2) / 0.5)
  expect_equal(stp(0.5), 0)
  expect_equal(lin(3), (0.5 * 1 * 0.4 + 2 * (0.4 + 0.7) / 2) / 3)
  expect_equal(stp(3), (2 * 0.4) / 3)
  # the default interpolation is linear
  expect_equal(timeliness(fit, stop_cost = 4.5), lin(4.5))
})

test_that("stop_cost() is the smallest C_k with r2_k >= alpha * r2_K", {
  fit <- hand_fit()
  # r2_K = 0.8: alpha 0.97 needs 0.776 -> C = 6; alpha 0.85 needs 0.68 -> C = 3;
  # alpha 0.5 needs 0.4 -> C = 1
  expect_equal(stop_cost(fit, alpha = 0.97), 6)
  expect_equal(stop_cost(fit, alpha = 0.85), 3)
  expect_equal(stop_cost(fit, alpha = 0.5), 1)
  expect_equal(stop_cost(fit), 6)
  # without stop_cost, timeliness uses stop_cost(fit, alpha)
  expect_equal(timeliness(fit, alpha = 0.85), (0.5 * 1 * 0.4 + 2 * (0.4 + 0.7) / 2) / 3)
})

test_that("timeliness() of real fits, on training and test data, matches the reference", {
  d <- sim_groups(n = 120, sizes = c(2, 1, 3, 2), rho = 0.4, seed = 62)
  te <- sim_groups(n = 80, sizes = c(2, 1, 3, 2), rho = 0.4, seed = 63)
  for (m in c("omp", "fr", "doubling")) {
    fit <- fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = 0.01)
    C <- unname(cumsum(c(0, d$cost[fit$sequence])))
    K <- length(fit$sequence)
    # training curve: stop cost by hand, timeliness by the reference
    r2 <- fit$path$r2
    B <- C[which(r2 >= 0.97 * r2[K + 1])[1]]
    expect_equal(stop_cost(fit, alpha = 0.97), B)
    for (interp in c("linear", "step")) {
      for (b in c(B, C[2] / 2, (C[2] + C[3]) / 2, C[K + 1] * 1.5)) {
        expect_equal(timeliness(fit, stop_cost = b, interpolation = interp),
                     ref_timeliness(C, r2, b, interp), tolerance = 1e-10)
      }
      # test curve: r2_k = 1 - SSE_k / SSE_0 from predictions at each step
      sse <- sapply(0:K, function(k) sum((te$y - fitted_at(fit$beta, fit$a0, te$x, k + 1))^2))
      r2_test <- 1 - sse / sse[1]
      expect_equal(timeliness(fit, stop_cost = B, newx = te$x, newy = te$y, interpolation = interp),
                   ref_timeliness(C, r2_test, B, interp), tolerance = 1e-10)
    }
  }
})

test_that("the timeliness of a fit whose step 0 costs something is 0 below that cost", {
  set.seed(14)
  d <- data.frame(a = rnorm(120), b = rnorm(120), t = runif(120, 1, 3))
  d$y <- rpois(120, d$t * exp(0.5 * d$a - 0.3 * d$b))
  fit <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2, t = 5), family = "poisson")
  C <- fit$path$cost
  r2 <- fit$path$r2
  B <- max(C)
  # by hand: 0 on [0, 5], then linear between the steps
  area <- sum(diff(C) * (head(r2, -1) + tail(r2, -1)) / 2)
  expect_equal(timeliness(fit, stop_cost = B), area / B)
  expect_s3_class(summary(fit), "summary.fgseq")
})
