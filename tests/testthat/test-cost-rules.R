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

test_that("one default for cost across learners: 1 per group, miser() included", {
  d <- sim_miser(60, 5)
  g <- miser(d$x, d$y, max_steps = 4, depth = 2)
  f <- fgseq(d$x, d$y)
  expect_equal(g$cost, f$cost)
  expect_equal(g$cost, stats::setNames(rep(1, ncol(d$x)), colnames(d$x)))
  expect_identical(g$trees, miser(d$x, d$y, cost = rep(1, ncol(d$x)), max_steps = 4, depth = 2)$trees)
  # the formula method and miser_path() alike
  mf <- miser(diagnosis ~ age + sex + chol, data = heart, max_steps = 3, depth = 2)
  expect_equal(mf$cost, fgseq(diagnosis ~ age + sex + chol, data = heart)$cost)
  mp <- miser_path(d$x, d$y, cost_penalty = c(0, 0.1), newx = d$x, newy = d$y, max_steps = 3, depth = 2)
  expect_equal(mp$fits[[2]]$cost, f$cost)
  # labels given by position are groups; numbers by position without `cost` may be the old order's costs
  grp <- rep(c("a", "b"), length.out = ncol(d$x))
  expect_identical(miser(d$x, d$y, grp, max_steps = 3, depth = 2)$trees,
                   miser(d$x, d$y, group = grp, cost = c(a = 1, b = 1), max_steps = 3, depth = 2)$trees)
  expect_error(miser(d$x, d$y, c(1, 2, 3, 4, 5), max_steps = 3), "numeric third argument",
               class = "fgseq_error_argument_order")
})

test_that("a cost of 0 is allowed in every interface: a free group, taken first when it has a gain", {
  set.seed(3)
  x <- matrix(rnorm(600), 100, dimnames = list(NULL, paste0("v", 1:6)))
  y <- drop(x %*% c(1, 0.5, 0, 0.3, 0, 0.2)) + rnorm(100)
  cost <- c(v1 = 0, v2 = 1, v3 = 2, v4 = 0, v5 = 3, v6 = 1)
  df <- data.frame(x, y = y)
  for (method in c("omp", "fr", "doubling")) {
    m <- fgseq(x, y, cost = cost, method = method, lambda = 0)
    f <- fgseq(y ~ ., data = df, cost = cost, method = method, lambda = 0)
    expect_identical(m$sequence, f$sequence)
    # the free groups first, each costing nothing; then the cumulative cost of the others
    expect_setequal(m$sequence[1:2], c("v1", "v4"))
    expect_equal(m$path$cost, unname(cumsum(c(0, cost[m$sequence]))))
    # the full step is least squares, as lm() fits it
    expect_equal(unname(as.matrix(coef(m))[c("(Intercept)", colnames(x)), 7]), unname(coef(stats::lm(y ~ x))),
                 tolerance = 1e-8)
  }
  # the free group of most gain first: the larger |coefficient|, v1
  expect_identical(fgseq(x, y, cost = cost)$sequence[1], "v1")
  s <- sparse_sequence(x, y, cost = cost)
  expect_setequal(s$sequence[1:2], c("v1", "v4"))
  g <- miser(x, y, cost = cost, max_steps = 5, depth = 2)
  expect_equal(g$cost, cost)
  # the path's cost counts only the groups of positive cost the trees used
  used <- unique(unlist(lapply(seq_len(5), function(k) predict(g, x[1, , drop = FALSE], step = k, type = "groups")[[1]]$group)))
  expect_equal(max(g$path$cost), sum(cost[used]))
  # negative costs stay errors
  expect_error(fgseq(x, y, cost = replace(cost, "v2", -1)), "non-negative", class = "fgseq_error_input")
  expect_error(miser(x, y, cost = replace(cost, "v2", -1)), "non-negative", class = "fgseq_error_input")
})
