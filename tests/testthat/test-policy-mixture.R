# fgseq_mixture() and fgseq_policy(working_model = ): the mixture working model of per-row acquisition,
# held against the plain-R reference of helper-mixture-reference.R.

md <- mixture_data(1400, 11)
train <- 1:600
cal <- 601:1000
test <- 1001:1400
mfit <- fgseq(md$x[train, ], md$y[train], md$group, md$cost, family = "binomial", lambda = 1e-3)
set.seed(5)
mix2 <- fgseq_mixture(mfit, md$x[train, ], components = 2, draws = 16)

test_that("fgseq_mixture() recovers the regimes of well separated data", {
  set.seed(3)
  n <- 2000
  z <- sample(2L, n, replace = TRUE, prob = c(0.3, 0.7))
  mus <- rbind(c(-3, 0), c(3, 1))
  xx <- mus[z, ] + matrix(stats::rnorm(2 * n), n) %*% chol(matrix(c(1, 0.5, 0.5, 1), 2))
  xx <- cbind(xx, stats::rnorm(n))
  colnames(xx) <- c("u", "v", "w")
  yy <- as.numeric(xx[, 1] + xx[, 3] > 0)
  f <- fgseq(xx, yy, c("U", "V", "W"), c(U = 1, V = 1, W = 1), family = "binomial", lambda = 1e-3)
  m <- fgseq_mixture(f, xx, components = 2, draws = 4)
  o <- order(m$mean[, "u"])
  expect_equal(m$proportion[o], c(0.3, 0.7), tolerance = 0.04)
  expect_equal(unname(m$mean[o, c("u", "v")]), mus, tolerance = 0.1)
  # the reported log-likelihood is that of the rows under the returned mixture
  dens <- sapply(seq_len(2), function(k) m$proportion[k] * exp(apply(xx[, m$columns], 1, ref_log_normal,
                                                                    mu = m$mean[k, ], S = m$cov[[k]])))
  expect_equal(m$loglik, sum(log(rowSums(dens))), tolerance = 1e-10)
  # one component: the mean and the covariance of the rows (a ridge of 1e-6 of the mean variance)
  m1 <- fgseq_mixture(f, xx, components = 1)
  expect_equal(unname(m1$mean[1, ]), unname(colMeans(xx[, m1$columns])), tolerance = 1e-12)
  expect_equal(unname(m1$cov[[1]]), unname(stats::cov(xx[, m1$columns]) * (n - 1) / n), tolerance = 1e-5)
  # by default the number of components of least BIC among 1:9
  b <- fgseq_mixture(f, xx, draws = 4)
  expect_identical(b$components, 2L)
  expect_identical(b$selection$components[b$selection$chosen], 2L)
  expect_equal(b$selection$bic, -2 * b$selection$loglik + (b$selection$components * (3 + 6) + b$selection$components - 1) * log(n))
  # the draws: antithetic pairs
  expect_equal(dim(m$draws), c(4L, 1L))
  expect_equal(m$draws[3:4, ], -m$draws[1:2, ])
})

test_that("a mixture node's risk, response and expected reductions equal the plain-R reference", {
  pol <- fgseq_policy(mfit, tau = 0, working_model = mix2)
  Z <- mix2$draws
  sets <- list(character(0), "hint", "B", c("hint", "A"), c("B", "N"))
  for (i in c(1001, 1002, 1077)) {
    for (O in sets) {
      row <- md$x[i, ]
      row[!mfit$group %in% O] <- NA
      ng <- next_group(pol, row)
      ref <- ref_mixture_point(mfit, mix2, md$x[i, ], O)
      expect_equal(ng$risk, ref$risk, tolerance = 1e-9)
      prefix <- setequal(O, mfit$sequence[seq_along(O)])
      if (!prefix) {
        expect_equal(ng$response, ref$response, tolerance = 1e-9)
        expect_equal(ng$link, ref$mean, tolerance = 1e-9)
      }
      expect_equal(ng$sd, sqrt(sum(ref$w * (ref$v + ref$m^2)) - ref$mean^2), tolerance = 1e-8)
      for (k in seq_len(nrow(ng$candidates))) {
        g <- ng$candidates$group[k]
        e <- ref_mixture_expected(mfit, mix2, md$x[i, ], O, g, Z)
        expect_equal(ng$candidates$reduction[k], max(0, ref$risk - e), tolerance = 1e-9, info = paste(i, g))
      }
    }
  }
})

test_that("the mixture policy buys the groups of the plain-R greedy rule, row by row", {
  for (tau in c(0, 2e-3)) {
    pol <- fgseq_policy(mfit, tau = tau, working_model = mix2)
    rows <- test[1:25]
    pr <- predict(pol, md$x[rows, ], type = "link")
    for (j in seq_along(rows)) {
      ref <- ref_mixture_policy_row(mfit, mix2, md$x[rows[j], ], tau, mix2$draws)
      expect_identical(attr(pr, "groups")[[j]], ref$groups, info = paste(tau, rows[j]))
      expect_equal(attr(pr, "cost")[j], ref$cost)
      expect_equal(unname(pr[j]), ref$link, tolerance = 1e-9)
    }
  }
  # with a budget that leaves out the dearest group
  pol <- fgseq_policy(mfit, tau = 0, working_model = mix2, budget = 9)
  pr <- predict(pol, md$x[test[1:10], ], type = "response")
  for (j in 1:10) {
    ref <- ref_mixture_policy_row(mfit, mix2, md$x[test[j], ], 0, mix2$draws, budget = 9)
    expect_identical(attr(pr, "groups")[[j]], ref$groups)
    expect_equal(unname(pr[j]), ref$response, tolerance = 1e-9)
  }
})

test_that("one component is the single Gaussian; two equal components give its risk, and its reductions within the draws' error", {
  mix1 <- fgseq_mixture(mfit, md$x[train, ], components = 1, draws = 4000)
  p1 <- fgseq_policy(mfit, tau = 0, working_model = mix1)
  expect_null(p1$cm$mixture)  # one component: the closed form on its moments
  p0 <- fgseq_policy(mfit, tau = 0)
  twin <- mix1
  twin$components <- 2L
  twin$proportion <- c(0.5, 0.5)
  twin$mean <- rbind(mix1$mean, mix1$mean)
  twin$cov <- rep(mix1$cov, 2L)
  p2 <- fgseq_policy(mfit, tau = 0, working_model = twin)
  expect_length(p2$cm$mixture$components, 2L)
  for (O in list(character(0), "hint", c("hint", "B"))) {
    row <- md$x[1003, ]
    row[!mfit$group %in% O] <- NA
    a <- next_group(p1, row)
    b <- next_group(p0, row)
    expect_equal(a$risk, b$risk, tolerance = 1e-4)  # the fit's moments, and the rows' with a ridge of 1e-6
    expect_equal(a$candidates$reduction, b$candidates$reduction, tolerance = 1e-3)
    d <- next_group(p2, row)
    expect_equal(d$risk, a$risk, tolerance = 1e-12)
    expect_equal(d$sd, a$sd, tolerance = 1e-10)
    # the error of an average of 4000 antithetic draws of a risk in [0, 1/2] is below 0.5 / sqrt(2000)
    expect_true(all(abs(d$candidates$reduction - a$candidates$reduction) < 0.012), info = paste(O, collapse = ","))
    expect_identical(d$candidates$group, a$candidates$group)
  }
})

test_that("calibration under a mixture: the guarantee's table is the policy's own run on the rows", {
  pol <- fgseq_policy(mfit, md$x[cal, ], md$y[cal], epsilon = 0.05, delta = 0.1, working_model = mix2)
  full <- predict(mfit, md$x[cal, ], type = "link")[, length(mfit$sequence) + 1L] > 0
  pr <- predict(pol, md$x[cal, ], type = "class")
  expect_equal(mean((as.character(pr) == "1") != full), pol$disagreement)
  expect_equal(attr(pr, "cost"), pol$cost)
  expect_equal(mean(attr(pr, "cost")), pol$calibration$mean_cost[pol$chosen])
  # the fixed-sequence test of the reference on the recorded losses picks the same threshold
  grid <- pol$calibration$threshold[seq_len(min(nrow(pol$calibration), pol$chosen + 2L))]
  losses <- sapply(grid, function(t) {
    p <- fgseq_policy(mfit, tau = t, working_model = mix2)
    (as.character(predict(p, md$x[cal, ], type = "class")) == "1") != full
  })
  expect_identical(ref_ltt(losses, 0.05, 0.1), pol$chosen)
  # and the mixture pays less than the single Gaussian here, where the informative group follows the hint
  p0 <- fgseq_policy(mfit, md$x[cal, ], md$y[cal], epsilon = 0.05, delta = 0.1)
  expect_lt(mean(pol$cost), mean(p0$cost))
  expect_output(print(pol), "mixture of 2 Gaussians")
  expect_output(print(mix2), "2 components of 6 columns")
})

test_that("rule = \"best\" and the sequence rule take a mixture; the cascade does not carry it", {
  b <- fgseq_policy(mfit, md$x[cal, ], md$y[cal], epsilon = 0.05, delta = 0.1, rule = "best", working_model = mix2)
  expect_identical(is.null(b$cm$mixture), b$rule == "cascade")
  s <- fgseq_policy(mfit, tau = 0, rule = "sequence", working_model = mix2)
  pr <- predict(s, md$x[test[1:5], ])
  expect_identical(attr(pr, "groups")[[1]], mfit$sequence)
  expect_equal(as.numeric(pr), unname(predict(mfit, md$x[test[1:5], ], type = "response")[, length(mfit$sequence) + 1L]),
               tolerance = 1e-12)
})

test_that("fgseq_mixture() and working_model refuse bad input with classed errors", {
  x <- md$x[train, ]
  expect_error(fgseq_mixture(mfit, x, components = 1.5), "components", class = "fgseq_error_input")
  expect_error(fgseq_mixture(mfit, x, components = c(1, NA)), "components", class = "fgseq_error_input")
  expect_error(fgseq_mixture(mfit, x, components = 0), "components", class = "fgseq_error_input")
  expect_error(fgseq_mixture(mfit, x, draws = 3), "`draws` must be even", class = "fgseq_error_input")
  expect_error(fgseq_mixture(mfit, x, iterations = 0), "iterations", class = "fgseq_error_input")
  expect_error(fgseq_mixture(mfit, x[1:5, ], components = 3), "needs at least 6 rows", class = "fgseq_error_input")
  xn <- x
  xn[2, "a1"] <- NA
  expect_error(fgseq_mixture(mfit, xn), "NA", class = "fgseq_error_na")
  lean <- fgseq(md$x[train, ], md$y[train], md$group, md$cost, family = "binomial", lambda = 1e-3, keep_data = FALSE)
  expect_error(fgseq_mixture(lean), "does not keep its training x", class = "fgseq_error_input")
  set.seed(5)
  expect_equal(fgseq_mixture(mfit, components = 2, draws = 16), mix2)  # the fit's own training x
  expect_error(fgseq_mixture(mfit, x, bogus = 1), class = "fgseq_error_unknown_argument")
  expect_error(fgseq_mixture(list(), x), class = "fgseq_error_input")
  expect_error(fgseq_policy(mfit, tau = 0, working_model = list()), "fgseq_mixture", class = "fgseq_error_input")
  expect_error(fgseq_policy(mfit, margin = 0.2, rule = "cascade", working_model = mix2), "cascade",
               class = "fgseq_error_input")
  bad <- mix2
  bad$cov[[1]][1, 1] <- NA
  bad$mean <- bad$mean[, -1, drop = FALSE]
  expect_error(fgseq_policy(mfit, tau = 0, working_model = bad), "damaged", class = "fgseq_error_invalid_object")
  other <- mix2
  other$columns[1] <- "elsewhere"
  expect_error(fgseq_policy(mfit, tau = 0, working_model = other), "other columns", class = "fgseq_error_input")
  gfit <- fgseq(md$x[train, ], md$x[train, "hint"] + stats::rnorm(600), md$group, md$cost)
  gmix <- fgseq_mixture(gfit, md$x[train, ], components = 2, draws = 4)
  expect_error(fgseq_policy(gfit, tau = 0, tol = 0.5, working_model = gmix), "binomial", class = "fgseq_error_family")
  pol <- fgseq_policy(mfit, tau = 0, working_model = mix2)
  pol$cm$mixture$components[[1]]$J <- pol$cm$mixture$components[[1]]$J[-1, ]
  expect_error(predict(pol, md$x[test[1:2], ]), "damaged", class = "fgseq_error_invalid_object")
})
