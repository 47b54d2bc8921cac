# The rules for `cost`, the same in every interface and learner, checked against glm() on the same data:
# names of `cost` the fit does not use, the variables of an offset.

# the messages a call raises, the call's value in attribute "value"
messages_of <- function(expr) {
  msgs <- list()
  value <- withCallingHandlers(expr, message = function(m) {
    msgs[[length(msgs) + 1L]] <<- m
    invokeRestart("muffleMessage")
  })
  structure(msgs, value = value)
}

test_that("names of cost that the fit does not use are ignored with one message, in every interface", {
  ref <- stats::glm(diagnosis ~ age + sex, data = heart, family = binomial)
  sub <- heart[, c("age", "sex", "diagnosis")]
  x <- as.matrix(heart[c("age", "sex")])
  calls <- list(
    full = quote(fgseq(diagnosis ~ age + sex, data = heart, cost = heart_cost, family = "binomial", lambda = 0)),
    subset = quote(fgseq(diagnosis ~ age + sex, data = sub, cost = heart_cost, family = "binomial", lambda = 0)),
    matrix = quote(fgseq(x, heart$diagnosis, cost = heart_cost, family = "binomial", lambda = 0)),
    sparse = quote(sparse_sequence(diagnosis ~ age + sex, data = sub, cost = heart_cost, family = "binomial")),
    miser_formula = quote(miser(diagnosis ~ age + sex, data = sub, cost = heart_cost, family = "binomial",
                                max_steps = 3, depth = 1)),
    miser_matrix = quote(miser(x, heart$diagnosis, cost = heart_cost, family = "binomial", max_steps = 3, depth = 1)))
  unused <- setdiff(names(heart_cost), c("age", "sex"))
  fits <- list()
  for (nm in names(calls)) {
    got <- messages_of(eval(calls[[nm]]))
    expect_length(got, 1L)
    expect_s3_class(got[[1L]], "fgseq_message_unused_cost")
    for (u in unused) expect_match(conditionMessage(got[[1L]]), u, fixed = TRUE)
    fits[[nm]] <- attr(got, "value")
    expect_equal(fits[[nm]]$cost, heart_cost[c("age", "sex")][names(fits[[nm]]$cost)])
  }
  # the fits use the costs of the groups they have: the same sequence and glm()'s coefficients
  for (nm in c("full", "subset", "matrix")) {
    expect_identical(fits[[nm]]$sequence, fits$full$sequence)
    expect_equal(unname(as.matrix(coef(fits[[nm]]))[, 3]), unname(coef(ref)), tolerance = 1e-6)
  }
  expect_equal(fits$miser_formula$trees, fits$miser_matrix$trees)
  # a cost vector of the groups alone raises nothing; a group without a cost is an error in every interface
  expect_length(messages_of(fgseq(x, heart$diagnosis, cost = heart_cost[c("sex", "age")], family = "binomial")), 0L)
  expect_error(fgseq(diagnosis ~ age + sex, data = sub, cost = heart_cost["age"]), "sex", class = "fgseq_error_input")
  expect_error(suppressMessages(fgseq(x, heart$diagnosis, cost = heart_cost[c("age", "chol")])), "sex",
               class = "fgseq_error_input")
  # with `needs`, names that are no measurement follow the same rule
  needs <- list(age = c("age", "visit"), sex = c("sex", "visit"))
  got <- messages_of(fgseq(x, heart$diagnosis, cost = c(age = 1, sex = 1, visit = 3, chol = 7), needs = needs))
  expect_length(got, 1L)
  expect_s3_class(got[[1L]], "fgseq_message_unused_cost")
  expect_equal(attr(got, "value")$measurement_cost, c(age = 1, visit = 3, sex = 1))
})

test_that("the variables of an offset need no cost, as glm() users expect", {
  set.seed(9)
  d <- data.frame(a = rnorm(120), b = rnorm(120), t = runif(120, 1, 3))
  d$y <- rpois(120, d$t * exp(0.5 * d$a - 0.3 * d$b))
  ref <- stats::glm(y ~ a + b + offset(log(t)), data = d, family = poisson)
  fit <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2), family = "poisson", lambda = 0)
  expect_equal(unname(coef(fit)[c("(Intercept)", "a", "b"), 3]), unname(coef(ref)), tolerance = 1e-6)
  expect_equal(fit$path$cost, c(0, cumsum(c(a = 1, b = 2)[fit$sequence])), ignore_attr = TRUE)
  # cost = NULL: 1 per term, the offset free
  one <- fgseq(y ~ a + b + offset(log(t)), data = d, family = "poisson", lambda = 0)
  expect_equal(one$path$cost, 0:2)
  # unnamed: one cost per variable of the terms
  un <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = c(1, 2), family = "poisson", lambda = 0)
  expect_equal(un$path$cost, fit$path$cost)
  # the offset argument alike, and a cost given for the offset is paid at step 0
  arg <- fgseq(y ~ a + b, offset = log(t), data = d, cost = c(a = 1, b = 2), family = "poisson", lambda = 0)
  expect_equal(unname(coef(arg)[, 3]), unname(coef(ref)), tolerance = 1e-6)
  paid <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2, t = 5), family = "poisson", lambda = 0)
  expect_equal(paid$path$cost, 5 + fit$path$cost)
  m <- miser(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2), max_steps = 3, depth = 2)
  expect_equal(m$path$cost[1], 0)
  s <- sparse_sequence(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2), family = "poisson")
  expect_equal(s$path$cost[1], 0)
})

test_that("newdata without an offset's variable is an error naming it, with missing = \"prefix\" too", {
  set.seed(9)
  d <- data.frame(a = rnorm(120), b = rnorm(120), t = runif(120, 1, 3))
  d$y <- rpois(120, d$t * exp(0.5 * d$a - 0.3 * d$b))
  fit <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2), family = "poisson")
  for (missing in c("error", "prefix")) {
    e <- expect_error(predict(fit, newdata = d[1:3, c("a", "b")], missing = missing), class = "fgseq_error_input")
    expect_match(conditionMessage(e), "lacks t, the variable(s) of the fit's offset (offset(log(t)))", fixed = TRUE)
    expect_no_match(conditionMessage(e), "predict them with missing")
  }
  arg <- fgseq(y ~ a + b, offset = log(t), data = d, cost = c(a = 1, b = 2), family = "poisson")
  expect_error(predict(arg, newdata = d[1:3, c("a", "b")], missing = "prefix"), "offset = log(t)", fixed = TRUE,
               class = "fgseq_error_input")
  # an NA in the offset's variable under missing = "prefix" names the offset
  holes <- d[1:3, ]
  holes$t[2] <- NA
  expect_error(predict(fit, newdata = holes, missing = "prefix"), "offset(log(t))", fixed = TRUE, class = "fgseq_error_na")
  # the rows that have it are predicted as glm() predicts them
  ref <- stats::glm(y ~ a + b + offset(log(t)), data = d, family = poisson)
  exact <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = c(a = 1, b = 2), family = "poisson", lambda = 0)
  expect_equal(unname(predict(exact, newdata = d[1:3, ], type = "link", step = 2)[, 1]),
               unname(predict(ref, newdata = d[1:3, ], type = "link")), tolerance = 1e-6)
})
