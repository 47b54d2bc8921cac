# The per-row acquisition policy (fgseq_policy()), against the plain-R reference of
# helper-adaptive-reference.R (conditional moments by solve(), the expected risk by integrate(), the
# greedy loop recomputed from scratch at every step, Learn-then-Test as written in the paper) and
# against predict() of the fit it comes from.

# A binomial problem whose informative group depends on the row: a cheap group `z` tells which of the
# groups `a`, `b`, `c` carries the signal; `d` shares a measurement with `a`.
policy_data <- function(n = 400, seed = 11) {
  set.seed(seed)
  z <- sample(1:3, n, replace = TRUE)
  x <- matrix(rnorm(n * 7), n)
  x[, 1] <- z + rnorm(n, sd = 0.3)
  signal <- ifelse(z == 1, x[, 2] + x[, 3], ifelse(z == 2, 1.5 * x[, 4], 1.5 * x[, 5])) + 0.5 * x[, 6]
  colnames(x) <- c("z", "a1", "a2", "b", "c", "d1", "d2")
  group <- c("z", "a", "a", "b", "c", "d", "d")
  y <- rbinom(n, 1, plogis(2 * signal))
  needs <- list(a = c("draw", "a"), d = c("draw", "d"))
  cost <- c(z = 1, a = 4, b = 6, c = 8, d = 3, draw = 2)
  list(x = x, y = y, group = group, needs = needs, cost = cost)
}

# The training moments of a fit that keeps its x, computed here (helper-adaptive-reference.R).
ref_mom <- function(fit) ref_moments(as.matrix(fit$x), fit$weights)

policy_fit <- function(d, rows = 1:200, family = "binomial", y = d$y) {
  fgseq(d$x[rows, ], y[rows], group = d$group, cost = d$cost, needs = d$needs, family = family, lambda = 1e-3)
}

test_that("the expected risk after a group equals a numerical integration, binomial and gaussian", {
  expected <- function(m, V, Vn, gaussian = FALSE, tol = 0) {
    n <- max(length(m), length(V), length(Vn))
    fgseq:::.expected_decision_risks(rep_len(m, n), rep_len(V, n), rep_len(Vn, n), gaussian, tol)
  }
  cases <- expand.grid(m = c(-3, -0.7, 0, 0.05, 0.4, 2.5), V = c(0.3, 2), share = c(0.999, 0.7, 0.2, 1e-4))
  cases$Vn <- cases$V * (1 - cases$share)
  got <- expected(cases$m, cases$V, cases$Vn)
  ref <- mapply(function(m, V, Vn) ref_expected_risk("binomial", m, V, Vn), cases$m, cases$V, cases$Vn)
  expect_equal(got, ref, tolerance = 1e-7)
  expect_true(all(got <= pnorm(-abs(cases$m) / sqrt(cases$V)) + 1e-9))
  # and a Monte Carlo of the definition: the chance that sign(m') and sign(eta) differ
  set.seed(3)
  m <- 0.3; V <- 2; Vn <- 0.5
  mp <- m + sqrt(V - Vn) * rnorm(4e5)
  eta <- mp + sqrt(Vn) * rnorm(4e5)
  expect_equal(expected(m, V, Vn), mean(sign(mp) != sign(eta)), tolerance = 0.01)
  expect_equal(expected(0, 2, c(1, 0.1), gaussian = TRUE, tol = 0.5),
               c(ref_expected_risk("gaussian", 0, 2, 1, tol = 0.5), ref_expected_risk("gaussian", 0, 2, 0.1, tol = 0.5)))
})

test_that("the core's bivariate normal probability equals a plain-R reference and integrate()", {
  grid <- expand.grid(h = c(-2.2, -0.5, 0, 0.3, 1.7, 4), k = c(-1.1, 0, 0.8, 3),
                      r = c(0, 0.05, 0.29, 0.31, 0.6, 0.74, 0.76, 0.9, 0.924, 0.926, 0.97, 0.9999, 1))
  got <- fgseq:::.bvn_upper(grid$h, grid$k, grid$r)
  expect_equal(got, ref_bvn_upper(grid$h, grid$k, grid$r), tolerance = 1e-13)
  # P(Z1 > h, Z2 > k) = integral over z > h of dnorm(z) P(Z2 > k | Z1 = z)
  some <- grid[grid$r > 0 & grid$r < 1, ][c(3, 40, 77, 115, 150, 190, 230), ]
  by_integral <- mapply(function(h, k, r) {
    integrate(function(z) dnorm(z) * pnorm((k - r * z) / sqrt(1 - r^2), lower.tail = FALSE), h, Inf,
              rel.tol = 1e-12, abs.tol = 1e-15)$value
  }, some$h, some$k, some$r)
  expect_equal(fgseq:::.bvn_upper(some$h, some$k, some$r), by_integral, tolerance = 1e-9)
  expect_identical(lengths(fgseq:::.bvn_rules()), c(2L, 2L, 2L))
  expect_identical(vapply(fgseq:::.bvn_rules(), function(r) length(r$x), 1L), c(3L, 6L, 10L))
})

test_that("the multinomial risk is the two leading classes' contrast, close to a Monte Carlo of the arg max", {
  set.seed(4)
  m <- c(1, 0.6, -1)
  A <- matrix(rnorm(9), 3)
  V <- crossprod(A) / 3
  # the core's node with nothing observed: eta ~ N(m, V), the risk of its decision (class 1)
  node <- list(swept = integer(0), swept_cols = integer(0), swept_mu = numeric(0), prefix = FALSE,
               candidates = list(), candidate_diag0 = list(), marginal_cost = numeric(0), spent = 0, rest_cost = 0,
               budget = Inf)
  settings <- list(family = "multinomial", rule = "adaptive", stopping = "reduction", tol = 0, threshold = NA_real_,
                   eta0 = 1L, P = 3L, base = m)
  ev <- fgseq:::.policy_node(V, matrix(0, 1, 0), 1L, node, settings, FALSE)
  expect_equal(ev$sd^2, V[1, 1] + V[2, 2] - 2 * V[1, 2])
  draws <- matrix(rnorm(3e5), ncol = 3) %*% chol(V) + rep(m, each = 1e5)
  changed <- mean(max.col(draws) != 1L)
  swapped <- mean(draws[, 2] > draws[, 1])
  expect_equal(ev$risk, swapped, tolerance = 0.01)
  expect_lte(ev$risk, changed + 0.01)
})

test_that("the adaptive policy chooses the reference's groups on 200 rows, and predicts as it does", {
  d <- policy_data()
  fit <- policy_fit(d)
  for (tau in c(2e-3, 0)) {
    rows <- if (tau > 0) 201:400 else 201:220  # tau = 0 buys every group: 20 rows suffice
    pol <- fgseq_policy(fit, tau = tau)
    got <- predict(pol, d$x[rows, ])
    mu <- ref_mom(fit)$mean
    Sigma <- ref_mom(fit)$cov
    for (i in seq_along(rows)) {
      ref <- ref_policy_row(fit, d$x[rows[i], ], mu, Sigma, tau = tau)
      expect_identical(attr(got, "groups")[[i]], ref$groups)
      expect_equal(attr(got, "cost")[i], ref$cost, tolerance = 1e-12)
      expect_equal(unname(got[i]), ref$response, tolerance = 1e-10)
    }
  }
  # stopping on the risk of the row rather than on the best reduction per cost
  rows <- 201:400
  got <- predict(fgseq_policy(fit, tau = 0.05, stopping = "risk"), d$x[rows, ])
  for (i in seq_along(rows)) {
    ref <- ref_policy_row(fit, d$x[rows[i], ], ref_mom(fit)$mean, ref_mom(fit)$cov, tau = 0.05, stopping = "risk")
    expect_identical(attr(got, "groups")[[i]], ref$groups)
    expect_equal(unname(got[i]), ref$response, tolerance = 1e-10)
  }
  expect_gt(length(unique(lengths(attr(got, "groups")))), 1L)  # rows stop at different depths
  # stopping on the lookahead (the best score or the risk per cost of every group left), with and
  # without a budget that leaves out the plan of buying them all (the whole model costs 24)
  for (budget in c(Inf, 20)) {
    got <- predict(fgseq_policy(fit, tau = 2e-3, stopping = "lookahead", budget = budget), d$x[rows, ])
    for (i in seq_along(rows)) {
      ref <- ref_policy_row(fit, d$x[rows[i], ], ref_mom(fit)$mean, ref_mom(fit)$cov, tau = 2e-3,
                            stopping = "lookahead", budget = budget)
      expect_identical(attr(got, "groups")[[i]], ref$groups)
      expect_equal(attr(got, "cost")[i], ref$cost, tolerance = 1e-12)
      expect_equal(unname(got[i]), ref$response, tolerance = 1e-10)
    }
  }
  # the lookahead goes on where the reduction alone stops: more cost on some rows, never less
  short <- predict(fgseq_policy(fit, tau = 2e-3), d$x[rows, ])
  long <- predict(fgseq_policy(fit, tau = 2e-3, stopping = "lookahead"), d$x[rows, ])
  expect_true(all(attr(long, "cost") >= attr(short, "cost")))
  expect_gt(sum(attr(long, "cost") > attr(short, "cost")), 10L)
  # stopping on the margin of the prediction, the groups still chosen by the adaptive rule
  got <- predict(fgseq_policy(fit, margin = 0.3, stopping = "margin"), d$x[rows, ])
  for (i in seq_along(rows)) {
    ref <- ref_policy_row(fit, d$x[rows[i], ], ref_mom(fit)$mean, ref_mom(fit)$cov, tau = 0.3, stopping = "margin")
    expect_identical(attr(got, "groups")[[i]], ref$groups)
    expect_equal(unname(got[i]), ref$response, tolerance = 1e-10)
  }
  expect_gt(length(unique(lengths(attr(got, "groups")))), 1L)
  # with a budget, and the fit's own order
  pol <- fgseq_policy(fit, tau = 1e-3, budget = 9, rule = "sequence")
  got <- predict(pol, d$x[201:240, ])
  for (i in 1:40) {
    ref <- ref_policy_row(fit, d$x[200 + i, ], ref_mom(fit)$mean, ref_mom(fit)$cov, tau = 1e-3, budget = 9,
                          order = "sequence")
    expect_identical(attr(got, "groups")[[i]], ref$groups)
  }
})

test_that("a gaussian policy buys in one order for every row, as the reference does", {
  d <- policy_data()
  yy <- drop(d$x %*% c(0.2, 1, 1, 0.5, 0.3, 0.8, 0)) + rnorm(nrow(d$x))
  fit <- policy_fit(d, family = "gaussian", y = yy)
  pol <- fgseq_policy(fit, tau = 1e-3, tol = 0.5)
  got <- predict(pol, d$x[201:230, ])
  ref <- ref_policy_row(fit, d$x[201, ], ref_mom(fit)$mean, ref_mom(fit)$cov, tau = 1e-3, tol = 0.5)
  expect_true(all(vapply(attr(got, "groups"), identical, logical(1), ref$groups)))
  for (i in 1:30) {
    r <- ref_policy_row(fit, d$x[200 + i, ], ref_mom(fit)$mean, ref_mom(fit)$cov, tau = 1e-3, tol = 0.5)
    expect_equal(unname(got[i]), r$response, tolerance = 1e-10)
  }
})

test_that("the fit's own order with tau = 0 is predict() at every budget", {
  d <- policy_data()
  fit <- policy_fit(d)
  pol <- fgseq_policy(fit, rule = "sequence", tau = 0)
  newx <- d$x[201:260, ]
  for (b in c(fit$path$cost, 2.5, 11)) {
    got <- predict(pol, newx, budget = b)
    want <- predict(fit, newx, budget = b, type = "response")
    expect_equal(as.numeric(got), unname(want[, 1L]), tolerance = 1e-12)
    k <- fgseq:::resolve_steps(fit, b)
    expect_equal(attr(got, "cost"), rep(fit$path$cost[k + 1L], nrow(newx)), tolerance = 1e-12)
    expect_true(all(vapply(attr(got, "groups"), identical, logical(1), fit$sequence[seq_len(k)])))
  }
})

test_that("the cascade stops where the reference's margin rule stops", {
  d <- policy_data()
  fit <- policy_fit(d)
  pol <- fgseq_policy(fit, rule = "cascade", margin = 0.3)
  got <- predict(pol, d$x[201:300, ])
  for (i in 1:100) {
    ref <- ref_cascade_row(fit, d$x[200 + i, ], margin = 0.3)
    expect_identical(attr(got, "groups")[[i]], ref$groups)
    expect_equal(unname(got[i]), ref$response, tolerance = 1e-12)
  }
})

test_that("Learn-then-Test picks the threshold the reference's fixed-sequence test picks", {
  d <- policy_data(n = 600)
  fit <- policy_fit(d)
  cal <- 201:600
  for (rule in c("adaptive", "risk", "lookahead", "margin", "cascade")) {
    stopping <- switch(rule, risk = "risk", lookahead = "lookahead", margin = "margin", adaptive = "reduction")
    rule <- sub("risk|lookahead|margin", "adaptive", rule)
    pol <- fgseq_policy(fit, d$x[cal, ], d$y[cal], epsilon = 0.05, delta = 0.1, rule = rule, stopping = stopping)
    grid <- pol$calibration$threshold
    full <- predict(fit, d$x[cal, ], type = "class")[, length(fit$sequence) + 1L]
    keep <- unique(round(seq(1, length(grid), length.out = 12)))
    keep <- sort(unique(c(keep, pol$chosen + (-2:2))))
    keep <- keep[keep >= 1 & keep <= length(grid)]
    losses <- vapply(grid[keep], function(t) {
      on_margin <- rule == "cascade" || identical(stopping, "margin")
      if (on_margin && t > 0.5) return(numeric(length(cal)))  # above every margin: the whole path
      fixed <- if (rule == "cascade") fgseq_policy(fit, rule = rule, margin = t) else if (on_margin)
        fgseq_policy(fit, rule = rule, margin = t, stopping = stopping) else fgseq_policy(fit, rule = rule, tau = t, stopping = stopping)
      as.numeric(predict(fixed, d$x[cal, ], type = "class") != full)
    }, numeric(length(cal)))
    expect_equal(colMeans(losses), pol$calibration$disagreement[keep], tolerance = 1e-12)
    # the reference's walk over the grid's losses (each threshold's count of disagreeing rows)
    counts <- round(pol$calibration$disagreement * length(cal))
    all_losses <- vapply(counts, function(k) rep(c(1, 0), c(k, length(cal) - k)), numeric(length(cal)))
    expect_equal(ref_ltt(all_losses, 0.05, 0.1), pol$chosen)
    expect_lte(pol$disagreement, max(pol$calibration$disagreement[pol$calibration$passed]))
  }
})

test_that("rule = \"best\" keeps the cheapest of the policies each calibrated alone at delta / K", {
  d <- policy_data(n = 600)
  fit <- policy_fit(d)
  cal <- 201:600
  best <- fgseq_policy(fit, d$x[cal, ], d$y[cal], epsilon = 0.05, delta = 0.1, rule = "best")
  tried <- best$selection
  expect_identical(paste(tried$rule, tried$stopping),
                   c("adaptive reduction", "adaptive lookahead", "adaptive margin", "sequence reduction",
                     "sequence lookahead", "cascade margin"))
  expect_equal(best$delta_each, 0.1 / 6)
  # each policy calibrated on its own at delta / 6: the same threshold, rate and mean cost
  alone <- lapply(seq_len(nrow(tried)), function(k) {
    args <- list(fit, d$x[cal, ], d$y[cal], epsilon = 0.05, delta = 0.1 / 6, rule = tried$rule[k])
    if (tried$rule[k] != "cascade") args$stopping <- tried$stopping[k]
    do.call(fgseq_policy, args)
  })
  expect_equal(tried$threshold, vapply(alone, fgseq:::policy_threshold, 1), tolerance = 1e-12)
  expect_equal(tried$disagreement, vapply(alone, function(p) p$disagreement, 1), tolerance = 1e-12)
  expect_equal(tried$mean_cost, vapply(alone, function(p) mean(p$cost), 1), tolerance = 1e-12)
  expect_true(all(tried$passed))
  k <- which.min(tried$mean_cost)
  expect_identical(which(tried$chosen), k)
  expect_identical(c(best$rule, best$stopping), c(alone[[k]]$rule, alone[[k]]$stopping))
  # the guarantee is stated at delta; the policy kept predicts as the one calibrated alone
  expect_identical(best$delta, 0.1)
  expect_equal(best$calibration, alone[[k]]$calibration)
  new <- d$x[1:200, ]
  expect_identical(predict(best, new), predict(alone[[k]], new))
  expect_output(print(best), "Chosen by rule = \"best\" among 6 policies")
  expect_output(print(summary(best)), "Policies tried")
  # and it costs no more on the calibration rows than any policy that passed at delta / 6
  expect_lte(mean(best$cost), min(tried$mean_cost) + 1e-12)
  # a gaussian fit tries the two orders with the two stoppings that need no margin
  yy <- drop(d$x %*% rep(1, 7)) + rnorm(nrow(d$x))
  gfit <- policy_fit(d, family = "gaussian", y = yy)
  gbest <- fgseq_policy(gfit, d$x[cal, ], yy[cal], epsilon = 0.1, delta = 0.1, tol = 1, rule = "best")
  expect_identical(paste(gbest$selection$rule, gbest$selection$stopping),
                   c("adaptive reduction", "adaptive lookahead", "sequence reduction", "sequence lookahead"))
  # bad input: what "best" chooses cannot be given, and it needs rows for K tests at delta / K
  expect_error(fgseq_policy(fit, d$x[cal, ], rule = "best", stopping = "risk"), "`stopping` is chosen by")
  expect_error(fgseq_policy(fit, d$x[cal, ], rule = "best", tau = 0.1), "leave `tau` and `margin` out")
  expect_error(fgseq_policy(fit, rule = "best"), "`rule = \"best\"` chooses on calibration rows")
  expect_error(fgseq_policy(fit, d$x[cal, ], rule = "best", delta = 2), "`delta`", class = "fgseq_error_input")
  expect_error(fgseq_policy(fit, d$x[cal[1:50], ], epsilon = 0.05, delta = 0.1, rule = "best"),
               "at least 80 when `rule = \"best\"` tests 6 policies", class = "fgseq_error_calibration")
  expect_error(fgseq_policy(fit, d$x[cal, ], budget = 1, epsilon = 0.05, delta = 0.05, rule = "best"),
               "no policy meets the guarantee", class = "fgseq_error_calibration")
})

test_that("next_group() follows the policy's path one group at a time", {
  d <- policy_data()
  fit <- policy_fit(d)
  pol <- fgseq_policy(fit, tau = 1e-3)
  got <- predict(pol, d$x[201:220, ])
  for (i in 1:20) {
    bought <- attr(got, "groups")[[i]]
    for (j in 0:length(bought)) {
      row <- d$x[200 + i, ]
      row[!(d$group %in% bought[seq_len(j)])] <- NA
      nxt <- next_group(pol, row)
      if (j < length(bought)) {
        expect_identical(nxt$group, bought[j + 1L])
        expect_false(nxt$done)
      } else {
        expect_true(nxt$done)
        expect_equal(nxt$response, unname(got[i]), tolerance = 1e-12)
        expect_equal(nxt$cost, attr(got, "cost")[i], tolerance = 1e-12)
      }
    }
  }
})

test_that("a formula fit's policy calibrates on `data` and reads rows as data frames", {
  set.seed(1)
  train <- sample(nrow(heart), 150)
  fit <- fgseq(diagnosis ~ ., data = heart[train, ], cost = heart_cost, family = "binomial", lambda = 1e-3)
  pol <- fgseq_policy(fit, data = heart[-train, ], epsilon = 0.1, delta = 0.1)
  expect_s3_class(pol, "fgseq_policy")
  expect_lte(pol$disagreement, 0.1 + 1e-12)
  expect_equal(length(pol$cost), nrow(heart) - 150)
  got <- predict(pol, newdata = heart[train[1:10], ])
  x <- fgseq:::new_design(fit, newdata = heart[train[1:10], ])$x
  for (i in 1:10) {
    ref <- ref_policy_row(fit, x[i, ], ref_mom(fit)$mean, ref_mom(fit)$cov, tau = pol$tau)
    expect_identical(attr(got, "groups")[[i]], ref$groups)
  }
  nxt <- next_group(pol, heart[1, c("age", "sex", "cp")])
  expect_setequal(nxt$observed, intersect(c("age", "sex", "cp"), fit$sequence))
  expect_output(print(summary(pol)), "Groups bought")
})

test_that("fgseq_policy() refuses bad input with classed errors naming the argument", {
  d <- policy_data()
  fit <- policy_fit(d)
  cal <- d$x[201:400, ]
  expect_error(fgseq_policy(fit, cal, epsilon = 0), class = "fgseq_error_input")
  expect_error(fgseq_policy(fit, cal, epsilon = 1), "`epsilon`")
  expect_error(fgseq_policy(fit, cal, delta = -0.1), "`delta`")
  expect_error(fgseq_policy(fit, cal[1:20, ], epsilon = 0.05, delta = 0.1), class = "fgseq_error_calibration")
  expect_error(fgseq_policy(fit, cal[1:20, ], epsilon = 0.05, delta = 0.1), "at least 45")
  expect_error(fgseq_policy(fit, cal, budget = 1, epsilon = 0.01, delta = 0.05), class = "fgseq_error_calibration")
  expect_error(fgseq_policy(fit, cal, tau = -1), "`tau`")
  expect_error(fgseq_policy(fit, cal, rule = "cascade", margin = 0.7), "`margin`")
  expect_error(fgseq_policy(fit, cal, tol = 1), "`tol`")
  expect_error(fgseq_policy(fit, cal, rule = "greedy"), "`rule`")
  expect_error(fgseq_policy(fit, cal, stopping = "price"), "`stopping`")
  expect_error(fgseq_policy(fit, cal, stopping = "margin", tau = 0.1), "takes `margin`")
  expect_error(fgseq_policy(fit, cal, stopping = "risk", margin = 0.1), "`margin` is for")
  expect_error(fgseq_policy(fit, cal, rule = "cascade", stopping = "risk"), "`stopping` is for the rules")
  expect_error(fgseq_policy(fit, cal, epsilom = 0.1), class = "fgseq_error_unknown_argument")
  expect_error(fgseq_policy(fit), "calibration rows")
  expect_error(fgseq_policy(fit, cal[, 1:5]), "columns")
  bad <- cal
  bad[3, 2] <- NA
  expect_error(fgseq_policy(fit, bad), class = "fgseq_error_na")
  yy <- drop(d$x %*% rep(1, 7))
  gfit <- policy_fit(d, family = "gaussian", y = yy)
  expect_error(fgseq_policy(gfit, cal), "`tol` is needed")
  expect_error(fgseq_policy(gfit, cal, tol = 1, rule = "cascade"), class = "fgseq_error_family")
  expect_error(fgseq_policy(gfit, cal, tol = 1, stopping = "margin"), "`stopping = \"margin\"` stops on the margin")
  offset_fit <- fgseq(d$x, d$y, group = d$group, family = "binomial", offset = rnorm(nrow(d$x)))
  expect_error(fgseq_policy(offset_fit, tau = 0), "offset")
  pois <- fgseq(d$x, rpois(nrow(d$x), 2), group = d$group, family = "poisson")
  expect_error(fgseq_policy(pois, cal), "takes fits of the families gaussian, binomial, multinomial; this fit's family is poisson",
               class = "fgseq_error_family")
  pol <- fgseq_policy(fit, tau = 1e-3)
  row <- d$x[1, ]
  row[2] <- NA  # one column of group a
  expect_error(next_group(pol, row), class = "fgseq_error_partial_group")
  expect_error(predict(pol, cal, budget = -1), "`budget`")
  expect_error(predict(pol, cal, type = "prob"), "`type`")
  edited <- pol
  edited$cm$J <- edited$cm$J[-1, ]
  expect_error(predict(edited, cal), class = "fgseq_error_invalid_object")
  # values far outside the training range: the conditional mean is linear in them, as documented
  far <- d$x[1, ] * 1e6
  far[!(d$group %in% c("z", "b"))] <- NA
  got <- next_group(pol, far)
  ref <- ref_conditional(fit, far, c("z", "b"), ref_mom(fit)$mean, ref_mom(fit)$cov)
  expect_equal(got$link, ref$mean, tolerance = 1e-8)
})

test_that("plot() of a policy draws the calibration grid's disagreement against its mean cost", {
  d <- policy_data()
  fit <- policy_fit(d)
  pol <- fgseq_policy(fit, d$x[201:400, ], epsilon = 0.1, delta = 0.1)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  plot(pol)
  usr <- graphics::par("usr")
  cost <- range(pol$calibration$mean_cost)
  rate <- range(pol$calibration$disagreement)
  expect_equal(usr, c(cost + c(-1, 1) * 0.04 * diff(cost), rate + c(-1, 1) * 0.04 * diff(rate)))
  # a log cost axis: a mean cost of 0 at half the smallest positive one
  d <- drawn(function() plot(pol, log = "x", cost_unit = "CAD"))
  expect_true(d$xlog)
  pos <- pol$calibration$mean_cost[pol$calibration$mean_cost > 0]
  lx <- log10(c(if (any(pol$calibration$mean_cost == 0)) min(pos) / 2 else min(pos), max(pos)))
  expect_equal(d$usr[1:2], lx + c(-1, 1) * 0.04 * diff(lx))
  expect_true("mean cost per calibration row (CAD)" %in% drawn_strings(d))
  expect_error(plot(pol, xlog = TRUE), "log", class = "fgseq_error_unknown_argument")
  uncalibrated <- fgseq_policy(fit, tau = 1e-3)
  expect_error(plot(uncalibrated), "not calibrated")
  expect_null(uncalibrated$calibration)
})
