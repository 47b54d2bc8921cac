# Generalized linear models (appendix B): the last step against glm(), a direct ridge Newton solve and
# nnet::multinom; the greedy path against the plain-R reference ref_glm_fgseq(); weights, offsets,
# predict() and budgets; separable data.

glm_tight <- stats::glm.control(epsilon = 1e-14, maxit = 100)

softmax <- function(eta) {
  e <- exp(eta - apply(eta, 1, max))
  e / rowSums(e)
}

# The penalized risk solved directly on the original scale by Newton's method: theta = (a0, beta),
# penalty lambda/2 * sum_g beta_g' D_g Sigma_gg D_g beta_g (D_g the weighted sds, Sigma_gg the weighted
# correlation block), which is lambda/2 ||w||^2 for the whitened coefficients w of full-rank groups.
ridge_newton <- function(x, y, group, family, lambda, w = rep(1, nrow(x))) {
  W <- sum(w)
  m <- colSums(w * x) / W
  s <- sqrt(colSums(w * sweep(x, 2, m)^2) / W)
  xs <- sweep(sweep(x, 2, m), 2, s, "/")
  pen <- matrix(0, ncol(x) + 1, ncol(x) + 1)
  for (g in unique(group)) {
    j <- which(group == g)
    pen[j + 1, j + 1] <- outer(s[j], s[j]) * crossprod(xs[, j, drop = FALSE], w * xs[, j, drop = FALSE]) / W
  }
  inv <- if (family == "binomial") stats::plogis else exp
  x1 <- cbind(1, x)
  risk <- function(th) {
    eta <- drop(x1 %*% th)
    phi <- if (family == "binomial") log1p(exp(eta)) else exp(eta)
    sum(w * (phi - y * eta)) / W + lambda / 2 * sum(th * (pen %*% th))
  }
  ybar <- sum(w * y) / W
  th <- c(if (family == "binomial") stats::qlogis(ybar) else log(ybar), rep(0, ncol(x)))
  for (it in 1:100) {
    mu <- inv(drop(x1 %*% th))
    v <- if (family == "binomial") mu * (1 - mu) else mu
    g <- crossprod(x1, w * (mu - y)) / W + lambda * pen %*% th
    step <- -drop(solve(crossprod(x1, w * v * x1) / W + lambda * pen, g))
    t <- 1
    while (risk(th + t * step) > risk(th) && t > 1e-8) t <- t / 2
    th <- th + t * step
    if (max(abs(step)) < 1e-13) break
  }
  th
}

test_that("binomial and Poisson at lambda = 0: the last step is glm()", {
  for (fam in c("binomial", "poisson")) {
    d <- sim_glm(fam, seed = 3)
    fit <- fgseq(d$x, d$y, d$group, d$cost, family = fam, lambda = 0)
    K <- length(fit$sequence)
    expect_identical(K, length(unique(d$group)))
    ref <- stats::glm(d$y ~ d$x, family = fam, control = glm_tight)
    expect_close(coef(fit)[, K + 1], coef(ref), 1e-6, paste(fam, "coefficients"))
    expect_close(predict(fit, d$x, type = "response")[, K + 1], fitted(ref), 1e-6, paste(fam, "fitted"))
    expect_close(fit$path$r2[K + 1], 1 - ref$deviance / ref$null.deviance, 1e-8, paste(fam, "r2"))
    # step 0 is the intercept-only glm
    expect_close(fit$a0[1], coef(stats::glm(d$y ~ 1, family = fam)), 1e-8, paste(fam, "step 0"))
  }
})

test_that("lambda > 0: the last step is the direct ridge Newton solve (whitened penalty mapped back)", {
  for (fam in c("binomial", "poisson")) {
    d <- sim_glm(fam, seed = 4)
    set.seed(40)
    w <- runif(nrow(d$x), 0.2, 2)
    for (weights in list(NULL, w)) {
      fit <- fgseq(d$x, d$y, d$group, d$cost, family = fam, lambda = 0.07, weights = weights)
      K <- length(fit$sequence)
      th <- ridge_newton(d$x, d$y, d$group, fam, 0.07, if (is.null(weights)) rep(1, nrow(d$x)) else weights)
      expect_close(coef(fit)[, K + 1], th, 1e-6, paste(fam, if (is.null(weights)) "unweighted" else "weighted"))
    }
  }
})

test_that("multinomial at lambda = 0 agrees with nnet::multinom", {
  skip_if_not_installed("nnet")
  d <- sim_glm("multinomial", n = 90, seed = 5)
  fit <- fgseq(d$x, d$y, d$group, d$cost, family = "multinomial", lambda = 0)
  K <- length(fit$sequence)
  mm <- nnet::multinom(d$y ~ d$x, trace = FALSE, maxit = 10000, reltol = 1e-14, abstol = 1e-14)
  prob <- predict(fit, d$x, type = "response")
  expect_identical(dim(prob), c(nrow(d$x), 3L, K + 1L))
  expect_close(prob[, , K + 1], fitted(mm), 1e-4, "probabilities")
  null_dev <- -2 * sum(table(d$y) * log(table(d$y) / nrow(d$x)))
  expect_close(fit$path$r2[K + 1], 1 - mm$deviance / null_dev, 1e-5, "r2")
  expect_identical(predict(fit, d$x, type = "class")[, K + 1], as.character(predict(mm, type = "class")))
})

test_that("mgaussian with one response column is the gaussian fit", {
  d <- sim_groups(n = 60, sizes = c(2, 1, 3), seed = 6)
  for (method in c("omp", "fr")) {
    g <- fgseq(d$x, d$y, d$group, d$cost, method = method, lambda = 0.03)
    m <- fgseq(d$x, cbind(resp = d$y), d$group, d$cost, method = method, lambda = 0.03, family = "mgaussian")
    expect_identical(m$sequence, g$sequence)
    expect_equal(m$path, g$path, tolerance = 1e-14)
    expect_equal(unname(as.matrix(m$beta[[1]])), unname(as.matrix(g$beta)), tolerance = 1e-14)
    expect_equal(unname(m$a0[1, ]), unname(g$a0), tolerance = 1e-14)
    expect_identical(names(m$beta), "resp")
  }
})

# The settings compared with the reference, for each family.
glm_settings <- rbind(
  data.frame(method = "omp", criterion = c("whitened", "l2", "linf"), fr_gain = "exact"),
  data.frame(method = c("fr", "doubling", "fr"), criterion = "whitened", fr_gain = c("exact", "exact", "quadratic")))

test_that("sequences, r2 and coefficients equal the plain-R reference of Algorithm 2", {
  for (fam in c("binomial", "poisson", "multinomial")) {
    d <- sim_glm(fam, seed = 7)
    for (lambda in c(0, 0.05)) for (i in seq_len(nrow(glm_settings))) {
      s <- glm_settings[i, ]
      label <- paste(fam, s$method, s$criterion, s$fr_gain, "lambda", lambda)
      fit <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = s$method, criterion = s$criterion,
                   fr_gain = s$fr_gain, lambda = lambda)
      ref <- ref_glm_fgseq(d$x, d$y, d$group, d$cost, family = fam, method = s$method, criterion = s$criterion,
                           fr_gain = s$fr_gain, lambda = lambda)
      expect_identical(fit$sequence, ref$sequence, label = label)
      if (!identical(fit$sequence, ref$sequence)) next
      expect_close(fit$path$r2, ref$r2, 1e-6, paste(label, "r2"))
      expect_close(fit$path$objective, ref$objective, 1e-6, paste(label, "objective"))
      expect_equal(fit$path$score[-1], ref$score[-1], tolerance = 1e-6, label = paste(label, "score"))
      if (fam != "multinomial") {
        expect_close(fit$beta, ref$beta, 1e-6, paste(label, "beta"))
        expect_close(fit$a0, ref$a0, 1e-6, paste(label, "a0"))
      } else {
        # the symmetric parametrization is unique up to adding the same to every class (intercepts; and
        # coefficients at lambda = 0): compare class-centred values and the probabilities
        centre <- function(b) lapply(b, function(m) as.matrix(m - Reduce(`+`, b) / length(b)))
        expect_close(unlist(centre(fit$beta)), unlist(centre(ref$beta)), 1e-6, paste(label, "beta"))
        expect_close(sweep(fit$a0, 2, colMeans(fit$a0)), sweep(ref$a0, 2, colMeans(ref$a0)), 1e-6, paste(label, "a0"))
        K <- length(fit$sequence)
        expect_close(predict(fit, d$x, type = "response")[, , K + 1], ref$mu[[K + 1]], 1e-8, paste(label, "mu"))
      }
    }
  }
})

test_that("FR and Doubling quadratic gains of every step equal the one-candidate-at-a-time Schur complements", {
  # at the package's own fit of every step, all candidates' gains computed one at a time in R
  # (ref_glm_schur_gains()): the chosen group has the largest gain per cost and its score is that
  # gain per cost to 1e-10
  for (fam in c("binomial", "poisson", "multinomial")) {
    d <- sim_glm(fam, seed = 7)
    set.seed(70)
    w <- runif(nrow(d$x), 0.5, 2)
    for (lambda in c(0, 0.05)) for (method in c("fr", "doubling")) {
      label <- paste(fam, method, "lambda", lambda)
      fit <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, fr_gain = "quadratic",
                   lambda = lambda, weights = w)
      K <- length(fit$sequence)
      expect_identical(K, length(unique(d$group)), label = label)
      cost <- d$cost[unique(d$group)]
      mu_all <- predict(fit, d$x, type = "response")
      for (k in seq_len(K)) {
        mu <- if (fam == "multinomial") mu_all[, , k] else cbind(mu_all[, k])
        set <- fit$sequence[seq_len(k - 1)]
        gain <- ref_glm_schur_gains(d$x, d$y, d$group, fam, mu, set, lambda, weights = w)
        if (method == "doubling") {  # Doubling's candidates (paper Algorithm 2)
          limit <- if (k == 1) min(cost) else sum(cost[set])
          ok <- names(gain)[cost[names(gain)] <= limit]
          if (!length(ok)) ok <- names(gain)[cost[names(gain)] <= min(cost[names(gain)])]
          gain <- gain[ok]
        }
        per_cost <- gain / cost[names(gain)]
        expect_identical(fit$sequence[k], names(which.max(per_cost)), label = paste(label, "step", k))
        expect_equal(fit$path$score[k + 1], max(per_cost), tolerance = 1e-10, label = paste(label, "score", k))
      }
    }
  }
})

test_that("GLM forward regression scores by the quadratic gain unless the exact gain is asked by name", {
  for (fam in c("binomial", "poisson", "multinomial")) {
    d <- sim_glm(fam, n = 80, seed = 3)
    for (method in c("fr", "doubling")) {
      by_default <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, lambda = 0.02)
      expect_identical(by_default$fr_gain, "quadratic")
      ref <- ref_glm_fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, lambda = 0.02,
                           fr_gain = "quadratic")
      expect_identical(by_default$sequence, ref$sequence)
      expect_equal(by_default$path$score[-1], ref$score[-1], tolerance = 1e-6)
      exact <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, lambda = 0.02, fr_gain = "exact")
      ref <- ref_glm_fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, lambda = 0.02,
                           fr_gain = "exact")
      expect_identical(exact$fr_gain, "exact")
      expect_equal(exact$path$score[-1], ref$score[-1], tolerance = 1e-6)
    }
  }
  expect_error(fgseq(matrix(rnorm(40), 20), rbinom(20, 1, 0.5), family = "binomial", method = "fr", fr_gain = "newton"),
               "`fr_gain` must be one of \"quadratic\", \"exact\"")
})

test_that("weights, offsets and cost-blind scores follow the reference too", {
  for (fam in c("binomial", "poisson", "multinomial")) {
    d <- sim_glm(fam, n = 60, seed = 8)
    set.seed(80)
    w <- runif(60, 0.1, 3)
    off <- rnorm(60, sd = 0.3)
    for (method in c("omp", "fr")) {
      label <- paste(fam, method)
      fit <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, lambda = 0.02, weights = w,
                   offset = off, cost_sensitive = FALSE)
      ref <- ref_glm_fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, lambda = 0.02, weights = w,
                           offset = off, cost_sensitive = FALSE)
      expect_identical(fit$sequence, ref$sequence, label = label)
      expect_close(fit$path$r2, ref$r2, 1e-6, paste(label, "r2"))
      expect_equal(fit$path$score[-1], ref$score[-1], tolerance = 1e-6, label = paste(label, "score"))
    }
  }
})

test_that("FR quadratic gain of the first step is one Newton step from the null model", {
  # binomial, no weights: at the null fit mu = mean(y) and the Hessian over [1, Z_h] is
  # v diag(1, I) + lambda (0, I) with v = ybar (1 - ybar), so the gain is ||Z_h'(y - ybar)/n||^2 / (2 (v + lambda))
  d <- sim_glm("binomial", seed = 9)
  lambda <- 0.1
  fit <- fgseq(d$x, d$y, d$group, d$cost, family = "binomial", method = "fr", fr_gain = "quadratic", lambda = lambda)
  n <- nrow(d$x)
  xs <- scale(d$x) * sqrt(n / (n - 1))
  labels <- unique(d$group)
  zh <- lapply(labels, function(g) {
    e <- eigen(crossprod(xs[, d$group == g, drop = FALSE]) / n, symmetric = TRUE)
    xs[, d$group == g, drop = FALSE] %*% e$vectors %*% diag(1 / sqrt(e$values), length(e$values))
  })
  ybar <- mean(d$y)
  gain <- vapply(zh, function(z) sum((crossprod(z, d$y - ybar) / n)^2) / (2 * (ybar * (1 - ybar) + lambda)), 1)
  per_cost <- gain / d$cost[labels]
  expect_identical(fit$sequence[1], labels[which.max(per_cost)])
  expect_close(fit$path$score[2], max(per_cost), 1e-10)

  # Poisson with weights: one explicit Newton step over [1, Z_h] from the null fit, and the decrease
  # -(g' delta + delta' H delta / 2) of the quadratic model
  d <- sim_glm("poisson", seed = 10)
  set.seed(100)
  w <- runif(nrow(d$x), 0.5, 2)
  fit <- fgseq(d$x, d$y, d$group, d$cost, family = "poisson", method = "fr", fr_gain = "quadratic",
               lambda = lambda, weights = w, cost_sensitive = FALSE)
  W <- sum(w)
  mu <- sum(w * d$y) / W
  m <- colSums(w * d$x) / W
  xs <- sweep(sweep(d$x, 2, m), 2, sqrt(colSums(w * sweep(d$x, 2, m)^2) / W), "/")
  gain <- vapply(labels, function(g) {
    e <- eigen(crossprod(xs[, d$group == g, drop = FALSE], w * xs[, d$group == g, drop = FALSE]) / W)
    z1 <- cbind(1, xs[, d$group == g, drop = FALSE] %*% e$vectors %*% diag(1 / sqrt(e$values), length(e$values)))
    grad <- crossprod(z1, w * (mu - d$y)) / W
    grad[1] <- 0
    h <- crossprod(z1, w * mu * z1) / W + diag(c(0, rep(lambda, ncol(z1) - 1)))
    delta <- -solve(h, grad)
    -(sum(grad * delta) + drop(crossprod(delta, h %*% delta)) / 2)
  }, 1)
  expect_identical(fit$sequence[1], labels[which.max(gain)])
  expect_close(fit$path$score[2], max(gain), 1e-10)
})

test_that("integer weights equal replicated rows (binomial, Poisson)", {
  for (fam in c("binomial", "poisson")) {
    d <- sim_glm(fam, n = 50, seed = 11)
    set.seed(110)
    w <- sample(0:3, 50, replace = TRUE)
    rows <- rep(seq_len(50), w)
    for (method in c("omp", "fr")) for (lambda in c(0, 0.05)) {
      label <- paste(fam, method, lambda)
      a <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = method, lambda = lambda, weights = w)
      b <- fgseq(d$x[rows, ], d$y[rows], d$group, d$cost, family = fam, method = method, lambda = lambda)
      expect_identical(a$sequence, b$sequence, label = label)
      expect_close(a$beta, b$beta, 1e-7, paste(label, "beta"))
      expect_close(a$a0, b$a0, 1e-7, paste(label, "a0"))
      expect_close(a$path$r2, b$path$r2, 1e-9, paste(label, "r2"))
      expect_close(a$path$objective, b$path$objective, 1e-9, paste(label, "objective"))
    }
  }
})

test_that("an offset at lambda = 0 is glm(offset = )", {
  for (fam in c("binomial", "poisson")) {
    d <- sim_glm(fam, seed = 12)
    set.seed(120)
    off <- rnorm(nrow(d$x), sd = 0.5)
    fit <- fgseq(d$x, d$y, d$group, d$cost, family = fam, lambda = 0, offset = off)
    K <- length(fit$sequence)
    ref <- stats::glm(d$y ~ d$x, family = fam, offset = off, control = glm_tight)
    expect_close(coef(fit)[, K + 1], coef(ref), 1e-6, paste(fam, "coefficients"))
    expect_close(predict(fit, d$x, type = "response", newoffset = off)[, K + 1], fitted(ref), 1e-6,
                 paste(fam, "fitted"))
    expect_close(fit$path$r2[K + 1], 1 - ref$deviance / ref$null.deviance, 1e-8, paste(fam, "r2"))
    null <- stats::glm(d$y ~ 1, family = fam, offset = off, control = glm_tight)
    expect_close(fit$a0[1], coef(null), 1e-8, paste(fam, "step 0"))
  }
})

test_that("predict(type = link, response, class) agree with each other and with coef()", {
  newx <- sim_glm("binomial", n = 15, seed = 14)$x
  x1 <- cbind(1, newx)
  d <- sim_glm("binomial", seed = 13)
  yf <- factor(ifelse(d$y == 1, "yes", "no"))
  fit <- fgseq(d$x, yf, d$group, d$cost, family = "binomial", lambda = 0.01)
  link <- predict(fit, newx, type = "link")
  expect_close(link, x1 %*% coef(fit), 1e-12)
  expect_close(predict(fit, newx, type = "response"), stats::plogis(link), 1e-14)
  cls <- predict(fit, newx, type = "class")
  expect_identical(dim(cls), dim(link))
  expect_identical(c(cls), ifelse(c(link) > 0, "yes", "no"))

  d <- sim_glm("poisson", seed = 13)
  fit <- fgseq(d$x, d$y, d$group, d$cost, family = "poisson", lambda = 0.01)
  link <- predict(fit, newx, type = "link", step = 0:2)
  expect_close(link, x1 %*% coef(fit, step = 0:2), 1e-12)
  expect_close(predict(fit, newx, type = "response", step = 0:2), exp(link), 1e-12)

  d <- sim_glm("multinomial", seed = 13)
  fit <- fgseq(d$x, d$y, d$group, d$cost, family = "multinomial", lambda = 0.01)
  K <- length(fit$sequence)
  cf <- coef(fit)
  expect_identical(names(cf), c("u", "v", "w"))
  link <- predict(fit, newx, type = "link")
  prob <- predict(fit, newx, type = "response")
  cls <- predict(fit, newx, type = "class")
  expect_identical(dim(link), c(15L, 3L, K + 1L))
  expect_identical(dimnames(link)[[2]], c("u", "v", "w"))
  expect_identical(dim(cls), c(15L, K + 1L))
  for (k in 0:K) {
    eta <- vapply(cf, function(b) drop(x1 %*% b[, k + 1]), numeric(15))
    expect_close(link[, , k + 1], eta, 1e-12)
    expect_close(prob[, , k + 1], softmax(eta), 1e-12)
    expect_identical(unname(cls[, k + 1]), c("u", "v", "w")[max.col(eta, ties.method = "first")])
  }
})

test_that("budgets behave as for Gaussian fits (binomial, Poisson, multinomial)", {
  newx <- sim_glm("binomial", n = 10, seed = 16)$x
  for (fam in c("binomial", "poisson", "multinomial")) {
    d <- sim_glm(fam, seed = 15)
    fit <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = "fr", lambda = 0.01)
    cum <- fit$path$cost
    budgets <- c(0, cum[2] / 2, cum[2], (cum[3] + cum[4]) / 2, cum[length(cum)], Inf)
    steps <- vapply(budgets, function(B) max(which(cum <= B)) - 1L, 1L)
    expect_equal(unname(predict(fit, newx, budget = budgets, type = "response")),
                 unname(predict(fit, newx, step = steps, type = "response")), tolerance = 1e-14)
    cb <- coef(fit, budget = budgets)
    cs <- coef(fit, step = steps)
    if (!is.list(cb)) {
      cb <- list(cb)
      cs <- list(cs)
    }
    for (i in seq_along(cb)) expect_equal(unname(cb[[i]]), unname(cs[[i]]), tolerance = 1e-14)
    # below the first group's cost: the intercept-only model, which predicts the mean response
    p0 <- predict(fit, newx, budget = cum[2] / 2, type = "response")
    if (fam == "multinomial") {
      expect_close(p0[1, , 1], table(d$y) / length(d$y), 1e-8, fam)
    } else {
      expect_close(p0, rep(mean(d$y), 10), 1e-8, fam)
    }
    # max_cost and max_steps cut the unconstrained path
    cut <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = "fr", lambda = 0.01, max_cost = cum[3] + 1e-9)
    expect_identical(cut$sequence, fit$sequence[1:2])
    expect_close(cut$path$r2, fit$path$r2[1:3], 1e-12, fam)
    one <- fgseq(d$x, d$y, d$group, d$cost, family = fam, method = "fr", lambda = 0.01, max_steps = 1)
    expect_identical(one$sequence, fit$sequence[1])
  }
})

test_that("separable binomial data: a warning and finite coefficients at lambda = 0, no warning at lambda > 0", {
  set.seed(17)
  x <- matrix(rnorm(80), 40, 2, dimnames = list(NULL, c("a", "b")))
  y <- as.numeric(x[, "a"] + 0.3 * x[, "b"] > 0)
  # as glm(): the Newton iteration converges (by glm()'s criterion) and warns of fitted probabilities
  # numerically 0 or 1 (issue 15 changed the warning from non-convergence to this)
  expect_warning(fit <- fgseq(x, y, family = "binomial", lambda = 0), class = "fgseq_warning_boundary")
  expect_true(fit$converged)
  expect_true(all(is.finite(fit$beta)))
  expect_true(all(is.finite(fit$a0)))
  expect_true(all(is.finite(predict(fit, x, type = "response"))))
  expect_no_warning(fit <- fgseq(x, y, family = "binomial", lambda = 0.01))
  expect_true(all(is.finite(fit$beta)))
})

test_that("nearly separable binomial data at lambda = 0: converged at a vanishing gradient, glm()'s fit", {
  # y is the sign of a + 0.3 b except on 3 rows near the boundary: a finite optimum, large coefficients
  set.seed(19)
  x <- matrix(rnorm(400), 200, 2, dimnames = list(NULL, c("a", "b")))
  m <- x[, "a"] + 0.3 * x[, "b"]
  y <- as.numeric(m > 0)
  flip <- order(abs(m))[c(2, 5, 9)]
  y[flip] <- 1 - y[flip]
  # both warn of fitted probabilities numerically 0 or 1 (the rows far from the boundary)
  expect_warning(fit <- fgseq(x, y, family = "binomial", lambda = 0), class = "fgseq_warning_boundary")
  expect_true(fit$converged)
  expect_warning(ref <- glm(y ~ x, family = binomial, control = glm.control(epsilon = 1e-15, maxit = 200)),
                 "numerically 0 or 1")
  expect_true(ref$converged)
  expect_gt(max(abs(coef(ref))), 10)
  K <- length(fit$sequence)
  expect_close(c(fit$a0[K + 1], fit$beta[c("a", "b"), K + 1]), coef(ref), 1e-7, "coefficients")
  expect_equal(deviance(fit, step = K), deviance(ref), tolerance = 1e-10)
  # the gradient of the mean negative log-likelihood at the coefficients returned, in plain R
  mu <- drop(predict(fit, x, step = K, type = "response"))
  expect_lt(max(abs(crossprod(cbind(1, x), mu - y) / 200)), 1e-10)
})

test_that("multinomial at lambda = 0 on mlbench::Vehicle: converged, no warning, probabilities as nnet::multinom", {
  skip_if_not_installed("mlbench")
  skip_if_not_installed("nnet")
  data(Vehicle, package = "mlbench", envir = environment())
  x <- as.matrix(Vehicle[, 1:18])
  expect_no_warning(fit <- fgseq(x, Vehicle$Class, family = "multinomial", lambda = 0))
  expect_true(fit$converged)
  ref <- nnet::multinom(Class ~ ., data = Vehicle, trace = FALSE, maxit = 5000, reltol = 1e-14, abstol = 1e-14)
  expect_equal(unname(fitted(fit)), unname(fitted(ref)), tolerance = 1e-6)
})
