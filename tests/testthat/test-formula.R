# The formula interface (R/formula.R): subset, weights, offset and na.action evaluated as glm() does,
# predictions on new data with their offset, and the errors of each new argument.

formula_data <- function(n = 160, seed = 4) {
  set.seed(seed)
  d <- data.frame(a = rnorm(n), b = rnorm(n), f = factor(sample(c("u", "v", "w"), n, TRUE)),
                  e = runif(n, 1, 3), w = runif(n, 0.5, 2), k = sample(1:3, n, TRUE))
  d$count <- rpois(n, d$e * exp(0.4 * d$a - 0.3 * d$b + 0.2 * (d$f == "v")))
  d$yes <- rbinom(n, 1, plogis(0.8 * d$a - 0.5 * d$b))
  d$num <- d$a - 2 * d$b + rnorm(n)
  d
}

last_coef <- function(fit) {
  cf <- coef(fit)
  cf[, ncol(cf)]
}

test_that("offset() terms, the offset argument, subset and weights equal glm() on the full model", {
  d <- formula_data()
  fit <- fgseq(count ~ a + b + f + offset(log(e)), data = d, family = "poisson", lambda = 1e-12)
  ref <- glm(count ~ a + b + f + offset(log(e)), data = d, family = poisson)
  expect_equal(unname(last_coef(fit)), unname(coef(ref)), tolerance = 1e-7)

  fit <- fgseq(count ~ a + b + f, data = d, family = "poisson", lambda = 1e-12, subset = a > -1,
               weights = w, offset = log(e))
  ref <- glm(count ~ a + b + f, data = d, family = poisson, subset = a > -1, weights = w, offset = log(e))
  expect_equal(unname(last_coef(fit)), unname(coef(ref)), tolerance = 1e-7)
  expect_identical(fit$nobs, sum(d$a > -1))
  # predictions on new data take the offset from newdata, as predict.glm() does
  new <- formula_data(20, seed = 9)
  expect_equal(unname(predict(fit, newdata = new)[, ncol(coef(fit))]), unname(predict(ref, new)), tolerance = 1e-7)

  fit <- fgseq(yes ~ a + b, data = d, family = "binomial", lambda = 1e-12, subset = 1:100, weights = k)
  ref <- glm(yes ~ a + b, data = d, family = binomial, subset = 1:100, weights = k)
  expect_equal(unname(last_coef(fit)), unname(coef(ref)), tolerance = 1e-7)

  fit <- fgseq(num ~ a + b + f, data = d, lambda = 1e-12, subset = -(1:30), weights = w)
  ref <- lm(num ~ a + b + f, data = d, subset = -(1:30), weights = w)
  expect_equal(unname(last_coef(fit)), unname(coef(ref)), tolerance = 1e-7)
})

test_that("the offset of a matrix fit is given to predict() as newoffset (as glmnet)", {
  d <- formula_data()
  x <- as.matrix(d[, c("a", "b")])
  fit <- fgseq(x, d$count, family = "poisson", offset = log(d$e), lambda = 1e-12)
  ref <- glm(count ~ a + b, data = d, family = poisson, offset = log(e))
  expect_equal(unname(predict(fit, x[1:5, ], newoffset = log(d$e[1:5]), step = 2)[, 1]),
               unname(predict(ref, d[1:5, ])), tolerance = 1e-7)
  expect_error(predict(fit, x[1:5, ]), class = "fgseq_error")
})

test_that("na.action: the default stops, na.omit and na.exclude drop the rows as glm() does", {
  d <- formula_data()
  d$a[c(3, 10)] <- NA
  expect_error(fgseq(num ~ a + b, data = d), class = "fgseq_error_na")
  expect_error(fgseq(num ~ a + b, data = d, na.action = na.fail), class = "fgseq_error_na")
  expect_error(fgseq(num ~ a + b, data = d, na.action = "na.pass"), class = "fgseq_error_na")
  expect_error(fgseq(num ~ a + b, data = d, na.action = function(x) x), class = "fgseq_error_na")
  omit <- fgseq(num ~ a + b, data = d, na.action = na.omit, lambda = 1e-12)
  excl <- fgseq(num ~ a + b, data = d, na.action = "na.exclude", lambda = 1e-12)
  ref <- lm(num ~ a + b, data = d, na.action = na.exclude)
  expect_equal(unname(last_coef(omit)), unname(coef(ref)), tolerance = 1e-8)
  expect_identical(omit$nobs, nrow(d) - 2L)
  expect_identical(nrow(predict(omit)), nrow(d) - 2L)
  p <- predict(excl)
  expect_identical(nrow(p), nrow(d))
  expect_equal(unname(p[, ncol(p)]), unname(predict(ref)), tolerance = 1e-8)
  expect_true(all(is.na(p[c(3, 10), ])))
  # new data with NA: NA predictions for a fit that dropped such rows, an error otherwise
  pn <- predict(excl, newdata = d[1:5, ])
  expect_true(all(is.na(pn[3, ])) && !anyNA(pn[-3, ]))
  full <- fgseq(num ~ a + b, data = d[-c(3, 10), ])
  expect_error(predict(full, newdata = d[1:5, ]), class = "fgseq_error_na")
  # miser and sparse_sequence honour na.action and subset too
  m <- miser(num ~ a + b, data = d, cost = c(a = 1, b = 2), na.action = na.omit, max_steps = 5, subset = -(1:20))
  expect_identical(m$nobs, nrow(d) - 20L)  # rows 3 and 10 are among the 20 left out
  expect_error(miser(num ~ a + b, data = d, cost = c(a = 1, b = 2), max_steps = 5), class = "fgseq_error_na")
  s <- sparse_sequence(num ~ a + b, data = d, na.action = na.omit, subset = 1:100)
  expect_identical(s$nobs, 98L)
})

test_that("subset, weights and offset: bad values get clear errors", {
  d <- formula_data()
  expect_error(fgseq(num ~ a + b, data = d, subset = c(TRUE, FALSE)), class = "fgseq_error_subset")
  expect_error(fgseq(num ~ a + b, data = d, subset = c(1, NA)), class = "fgseq_error_subset")
  expect_error(fgseq(num ~ a + b, data = d, subset = 0:10), class = "fgseq_error_subset")
  expect_error(fgseq(num ~ a + b, data = d, subset = 1000), class = "fgseq_error_subset")
  expect_error(fgseq(num ~ a + b, data = d, subset = c(-1, 2)), class = "fgseq_error_subset")
  expect_error(fgseq(num ~ a + b, data = d, subset = "a"), class = "fgseq_error_subset")
  expect_error(fgseq(num ~ a + b, data = d, subset = 1), class = "fgseq_error_subset")
  expect_error(fgseq(num ~ a + b, data = d, weights = w[1:3]), class = "fgseq_error_input")
  expect_error(fgseq(num ~ a + b, data = d, weights = -w), class = "fgseq_error_input")
  expect_error(fgseq(num ~ a + b, data = d, offset = f), class = "fgseq_error_input")
  expect_error(fgseq(num ~ a + b), class = "fgseq_error_formula")
  expect_error(fgseq(num ~ a + b, data = as.list(d)), class = "fgseq_error_formula")
  expect_error(fgseq(~ a + b, data = d), class = "fgseq_error_formula")
})

test_that("unknown arguments are errors that name them and suggest the nearest valid one", {
  d <- formula_data()
  x <- as.matrix(d[, c("a", "b")])
  expect_error(fgseq(x, d$num, lamda = 1), class = "fgseq_error_unknown_argument")
  expect_error(fgseq(x, d$num, lamda = 1), "`lamda` (did you mean `lambda`?)", fixed = TRUE,
               class = "fgseq_error_unknown_argument")
  expect_error(fgseq(num ~ a, data = d, famly = "poisson"), "`famly` (did you mean `family`?)", fixed = TRUE,
               class = "fgseq_error_unknown_argument")
  expect_error(fgseq(x, d$num, standardize = FALSE), class = "fgseq_error_unknown_argument")
  fit <- fgseq(num ~ a + b, data = d)
  # a stray `s =` is not read as `step` (no partial matching)
  expect_error(predict(fit, newdata = d, s = 1), "`s` (did you mean `step`?)", fixed = TRUE,
               class = "fgseq_error_unknown_argument")
  expect_error(coef(fit, s = 1), class = "fgseq_error_unknown_argument")
  expect_error(coef(fit, 1), class = "fgseq_error_unknown_argument")
  st <- fgseq_stats(x, d$num)
  expect_error(fgseq(st, group = c(1, 2)), class = "fgseq_error_unknown_argument")
  expect_error(summary(fit, alfa = 0.9), class = "fgseq_error_unknown_argument")
  expect_error(anytime_curve(fit, metirc = "r2"), class = "fgseq_error_unknown_argument")
  expect_error(timeliness(fit, stopcost = 1), class = "fgseq_error_unknown_argument")
  expect_error(stop_cost(fit, alhpa = 0.9), class = "fgseq_error_unknown_argument")
  expect_error(miser(num ~ a + b, data = d, cost = c(a = 1, b = 2), ntrees = 5), class = "fgseq_error_unknown_argument")
  expect_error(miser(num ~ a + b, data = d, cost = c(a = 1, b = 2), wieghts = w), "`wieghts` (did you mean `weights`?)",
               fixed = TRUE, class = "fgseq_error_unknown_argument")
  expect_error(cv_fgseq(x, d$num, nfols = 3), class = "fgseq_error_unknown_argument")
  expect_error(sparse_sequence(num ~ a + b, data = d, nlambd = 10), class = "fgseq_error_unknown_argument")
  expect_error(sparse_sequence(x, d$num, lamda.min = 0.1), class = "fgseq_error_unknown_argument")
})

test_that("warnings are classed conditions", {
  d <- formula_data()
  x <- cbind(as.matrix(d[, c("a", "b")]), k = 1)
  expect_warning(fgseq(x, d$num), class = "fgseq_warning_constant_group")
  x <- cbind(as.matrix(d[, c("a", "b")]), k = 1)
  expect_warning(fgseq(x, d$num, group = c("g1", "g2", "g2")), class = "fgseq_warning_constant")
  # an error in a chunk keeps its class and names the chunk
  chunks <- list(list(x = x[1:80, 1:2], y = d$num[1:80]), list(x = x[81:160, 1:2], y = c(NA, d$num[82:160])))
  expect_error(fgseq_stats(chunks), class = "fgseq_error_input")
  expect_error(fgseq_stats(chunks), "chunk 2: ", fixed = TRUE, class = "fgseq_error_input")
})
