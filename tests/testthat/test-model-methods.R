# fitted(), residuals(), deviance(), logLik() (AIC, BIC), nobs(), family(), formula(), model.matrix(),
# update() and the tidiers: against glm() on the full model (negligible lambda, last step) and a hand
# computation at an earlier step.

methods_data <- function(n = 150, seed = 11) {
  set.seed(seed)
  d <- data.frame(a = rnorm(n), b = rnorm(n), f = factor(sample(c("u", "v", "w"), n, TRUE)),
                  e = runif(n, 1, 3), k = sample(1:3, n, TRUE))
  d$count <- rpois(n, d$e * exp(0.4 * d$a - 0.3 * d$b))
  d$yes <- rbinom(n, 1, plogis(0.8 * d$a - 0.5 * d$b + 0.3 * (d$f == "v")))
  d$num <- d$a - 2 * d$b + 0.5 * (d$f == "w") + rnorm(n)
  d
}

test_that("at the last step, fitted/residuals/deviance/logLik/AIC/BIC/nobs equal glm()'s", {
  d <- methods_data()
  cases <- list(
    list(fit = fgseq(num ~ a + b + f, data = d, lambda = 1e-12, weights = k),
         ref = glm(num ~ a + b + f, data = d, weights = k)),
    list(fit = fgseq(yes ~ a + b + f, data = d, family = binomial(), lambda = 1e-12, weights = k),
         ref = glm(yes ~ a + b + f, data = d, family = binomial, weights = k)),
    list(fit = fgseq(count ~ a + b + f + offset(log(e)), data = d, family = poisson, lambda = 1e-12),
         ref = glm(count ~ a + b + f + offset(log(e)), data = d, family = poisson)))
  for (case in cases) {
    fit <- case$fit
    ref <- case$ref
    label <- fit$family
    expect_equal(unname(fitted(fit)), unname(fitted(ref)), tolerance = 1e-7, label = label)
    for (type in c("deviance", "pearson", "working", "response")) {
      expect_equal(unname(residuals(fit, type = type)), unname(residuals(ref, type = type)), tolerance = 1e-6,
                   label = paste(label, type))
    }
    expect_equal(deviance(fit), deviance(ref), tolerance = 1e-8, label = label)
    expect_equal(as.numeric(logLik(fit)), as.numeric(logLik(ref)), tolerance = 1e-8, label = label)
    expect_identical(attr(logLik(fit), "df"), as.numeric(attr(logLik(ref), "df")))
    expect_equal(AIC(fit), AIC(ref), tolerance = 1e-8, label = label)
    expect_equal(BIC(fit), BIC(ref), tolerance = 1e-8, label = label)
    expect_identical(nobs(fit), nobs(ref))
    expect_identical(family(fit)$family, family(ref)$family)
    expect_identical(family(fit)$link, family(ref)$link)
    expect_equal(unname(model.matrix(fit)), unname(model.matrix(ref)[, colnames(model.matrix(fit))]))
    expect_equal(formula(fit), formula(ref), ignore_attr = TRUE)
  }
})

test_that("at an earlier step, the methods equal a hand computation from coef()", {
  d <- methods_data()
  fit <- fgseq(yes ~ a + b + f, data = d, family = "binomial", lambda = 0.01, weights = k)
  k <- 1
  cf <- coef(fit, step = k)
  mm <- model.matrix(~ a + b + f, d)
  x <- cbind(`(Intercept)` = 1, fit$x)
  eta <- unname(drop(x %*% cf))
  mu <- plogis(eta)
  y <- d$yes
  w <- d$k
  expect_equal(unname(fitted(fit, step = k)), mu, tolerance = 1e-12)
  expect_equal(unname(residuals(fit, type = "response", step = k)), y - mu, tolerance = 1e-12)
  dev_i <- -2 * w * (y * log(mu) + (1 - y) * log(1 - mu))
  expect_equal(unname(residuals(fit, step = k)), sign(y - mu) * sqrt(dev_i), tolerance = 1e-10)
  expect_equal(unname(residuals(fit, type = "pearson", step = k)), (y - mu) * sqrt(w / (mu * (1 - mu))),
               tolerance = 1e-10)
  expect_equal(unname(residuals(fit, type = "working", step = k)), (y - mu) / (mu * (1 - mu)), tolerance = 1e-10)
  expect_equal(deviance(fit, step = k), sum(dev_i), tolerance = 1e-12)
  # logLik with weights as numbers of trials, as glm() reads them, and df = intercept + the group's rank
  ll <- sum(dbinom(y * w, w, mu, log = TRUE))
  expect_equal(as.numeric(logLik(fit, step = k)), ll, tolerance = 1e-12)
  expect_identical(attr(logLik(fit, step = k), "df"), 1 + unname(fit$rank[fit$sequence[1]]))
  # a budget picks the same step
  expect_identical(deviance(fit, budget = fit$path$cost[k + 1]), deviance(fit, step = k))
  # gaussian: the variance estimated by RSS / n
  g <- fgseq(num ~ a + b + f, data = d, lambda = 0.01)
  r <- d$num - drop(cbind(1, g$x) %*% coef(g, step = 2))
  n <- nrow(d)
  expect_equal(as.numeric(logLik(g, step = 2)), sum(dnorm(r, 0, sqrt(sum(r^2) / n), log = TRUE)), tolerance = 1e-10)
  expect_equal(deviance(g, step = 2), sum(r^2), tolerance = 1e-10)
  # multinomial: -2 sum log p of the observed class
  m <- fgseq(f ~ a + b + num, data = d, family = "multinomial", lambda = 0.01)
  p <- fitted(m, step = 1)
  expect_equal(deviance(m, step = 1), -2 * sum(log(p[cbind(seq_len(n), as.integer(d$f))])), tolerance = 1e-10)
  expect_equal(as.numeric(logLik(m, step = 1)), -deviance(m, step = 1) / 2, tolerance = 1e-12)
  expect_equal(unname(residuals(m, type = "response", step = 1)), unname(outer(as.integer(d$f), 1:3, "==") - p))
  expect_error(residuals(m, type = "pearson"), class = "fgseq_error")
})

test_that("miser fits: fitted and residuals from the trees' predictions", {
  d <- methods_data()
  m <- miser(num ~ a + b + f, data = d, cost = c(a = 1, b = 2, f = 3), max_steps = 10, na.action = na.exclude)
  p <- predict(m, newdata = d, step = 7)[, 1]
  expect_equal(unname(fitted(m, step = 7)), unname(p))
  expect_equal(unname(residuals(m, step = 7)), unname(d$num - p))
  expect_equal(deviance(m, step = 7), sum((d$num - p)^2))
  expect_identical(nobs(m), nrow(d))
  expect_identical(family(m)$family, "gaussian")
})

test_that("na.exclude pads fitted values and residuals as glm() does", {
  d <- methods_data()
  d$a[c(2, 7)] <- NA
  fit <- fgseq(count ~ a + b, data = d, family = "poisson", lambda = 1e-12, na.action = na.exclude)
  ref <- glm(count ~ a + b, data = d, family = poisson, na.action = na.exclude)
  expect_equal(unname(fitted(fit)), unname(fitted(ref)), tolerance = 1e-7)
  expect_equal(unname(residuals(fit)), unname(residuals(ref)), tolerance = 1e-6)
  expect_true(all(is.na(residuals(fit)[c(2, 7)])))
  expect_identical(names(fitted(fit)), names(fitted(ref)))
  expect_equal(deviance(fit), deviance(ref), tolerance = 1e-8)
  expect_identical(nobs(fit), nobs(ref))
})

test_that("update() re-evaluates the stored call and equals the direct call", {
  d <- methods_data()
  fit <- fgseq(yes ~ a + b + f, data = d, family = "binomial", cost = c(a = 1, b = 2, f = 4))
  expect_identical(fit$call[[1]], as.name("fgseq"))
  up <- update(fit, method = "fr", lambda = 0.1)
  direct <- fgseq(yes ~ a + b + f, data = d, family = "binomial", cost = c(a = 1, b = 2, f = 4), method = "fr",
                  lambda = 0.1)
  expect_identical(up$sequence, direct$sequence)
  expect_identical(coef(up), coef(direct))
  up <- update(fit, . ~ . - f, cost = c(a = 1, b = 2))
  expect_identical(coef(up), coef(fgseq(yes ~ a + b, data = d, family = "binomial", cost = c(a = 1, b = 2))))
  x <- as.matrix(d[, c("a", "b")])
  mfit <- fgseq(x, d$num)
  expect_identical(coef(update(mfit, lambda = 1)), coef(fgseq(x, d$num, lambda = 1)))
  m <- miser(x, d$num, cost = c(1, 2), max_steps = 5)
  expect_identical(update(m, max_steps = 8)$path, miser(x, d$num, cost = c(1, 2), max_steps = 8)$path)
  expect_error(formula(mfit), class = "fgseq_error")
})

test_that("family objects with the canonical link are accepted; other links are clear errors", {
  d <- methods_data()
  a <- fgseq(yes ~ a + b, data = d, family = binomial())
  b <- fgseq(yes ~ a + b, data = d, family = "binomial")
  expect_identical(coef(a), coef(b))
  expect_identical(coef(fgseq(count ~ a + b, data = d, family = poisson)), coef(fgseq(count ~ a + b, data = d, family = "poisson")))
  expect_error(fgseq(yes ~ a + b, data = d, family = binomial(link = "probit")), class = "fgseq_error_family")
  expect_error(fgseq(count ~ a + b, data = d, family = poisson(link = "sqrt")), class = "fgseq_error_family")
  expect_error(fgseq(num ~ a + b, data = d, family = Gamma()), class = "fgseq_error_family")
  expect_error(fgseq(num ~ a + b, data = d, family = "gamma"), class = "fgseq_error_family")
  expect_error(miser(count ~ a + b, data = d, cost = c(a = 1, b = 1), family = poisson()), class = "fgseq_error_family")
})

test_that("methods reject unknown arguments and several steps", {
  d <- methods_data()
  fit <- fgseq(num ~ a + b, data = d)
  expect_error(fitted(fit, s = 1), class = "fgseq_error_unknown_argument")
  expect_error(residuals(fit, tpye = "pearson"), class = "fgseq_error_unknown_argument")
  expect_error(deviance(fit, step = 0:1), class = "fgseq_error")
  expect_error(logLik(fit, budget = 1, step = 1), class = "fgseq_error")
  expect_error(residuals(fit, type = "partial"), class = "fgseq_error")
  x <- as.matrix(d[, c("a", "b")])
  st <- fgseq(fgseq_stats(x, d$num))
  expect_error(fitted(st), class = "fgseq_error_no_data")
})

test_that("tidy() values equal coef(), glance() the methods, augment() the predictions", {
  d <- methods_data()
  fit <- fgseq(yes ~ a + b + f, data = d, family = "binomial", cost = c(a = 1, b = 2, f = 4), lambda = 0.01)
  td <- tidy(fit)
  cf <- coef(fit)
  K <- length(fit$sequence)
  expect_identical(sort(unique(td$step)), 0:K)
  for (k in 0:K) {
    rows <- td[td$step == k, ]
    expect_equal(rows$estimate, unname(cf[rows$term, k + 1]))
    # the left-out coefficients are the structural zeros
    expect_true(all(cf[setdiff(rownames(cf), rows$term), k + 1] == 0))
    expect_identical(unique(rows$cost), fit$path$cost[k + 1])
  }
  expect_identical(as.data.frame(tidy(fit, what = "steps")), fit$path)
  expect_identical(tidy(fit, step = 1)$estimate, unname(coef(fit, step = 1)[tidy(fit, step = 1)$term, 1]))
  g <- glance(fit)
  expect_identical(nrow(g), 1L)
  expect_equal(g$deviance, deviance(fit))
  expect_equal(g$AIC, AIC(fit))
  expect_equal(g$BIC, BIC(fit))
  au <- augment(fit, step = 2, type.predict = "response")
  expect_equal(au$.fitted, unname(fitted(fit, step = 2)))
  expect_equal(au$.resid, unname(residuals(fit, type = "deviance", step = 2)))
  expect_equal(augment(fit, step = 2, type.residuals = "response")$.resid,
               unname(residuals(fit, type = "response", step = 2)))
  au <- augment(fit, newdata = d[1:5, ], type.predict = "response")
  expect_equal(au$.fitted, unname(predict(fit, newdata = d[1:5, ], type = "response")[, K + 1]))
  m <- fgseq(f ~ a + b, data = d, family = "multinomial")
  tm <- tidy(m)
  cm <- coef(m)
  one <- tm[tm$response == "v" & tm$step == 2, ]
  expect_equal(one$estimate, unname(cm$v[one$term, 3]))
  expect_error(tidy(fit, what = "path"), class = "fgseq_error")
})
