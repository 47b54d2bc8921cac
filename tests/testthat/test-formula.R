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

test_that("na.action: na.fail stops, na.omit and na.exclude drop the rows as glm() does", {
  d <- formula_data()
  d$a[c(3, 10)] <- NA
  with_na_option("na.fail", expect_error(fgseq(num ~ a + b, data = d), class = "fgseq_error_na"))
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
  with_na_option("na.fail", expect_error(miser(num ~ a + b, data = d, cost = c(a = 1, b = 2), max_steps = 5),
                                         class = "fgseq_error_na"))
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

test_that("a formula without intercept (- 1, + 0) is refused, not fitted with one as lm() would not", {
  ref <- stats::lm(mpg ~ wt - 1, data = mtcars)
  expect_false("(Intercept)" %in% names(coef(ref)))  # lm() honours it: one slope, 5.29
  expect_equal(unname(coef(ref)), sum(mtcars$wt * mtcars$mpg) / sum(mtcars$wt^2))
  for (f in list(mpg ~ wt - 1, mpg ~ wt + 0, mpg ~ 0 + wt + hp)) {
    expect_error(fgseq(f, data = mtcars, lambda = 0), "- 1", fixed = TRUE, class = "fgseq_error_formula")
    expect_error(miser(f, data = mtcars, cost = c(wt = 1, hp = 1)), "intercept", class = "fgseq_error_formula")
    expect_error(cv_fgseq(f, data = mtcars, nfolds = 3, progress = FALSE), "intercept", class = "fgseq_error_formula")
  }
  expect_error(fgseq(vs ~ wt - 1, data = mtcars, family = "binomial"), "intercept", class = "fgseq_error_formula")
})

test_that("predict(newdata) with a variable of another type names it and both types, as glm() does", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
  ref <- stats::glm(diagnosis ~ ., data = heart, family = binomial)
  cases <- list(age = function(d) { d$age <- as.character(d$age); d },
                sex = function(d) { d$sex <- d$sex == 1; d },
                cp = function(d) { d$cp <- as.integer(d$cp); d })
  for (v in names(cases)) {
    nd <- cases[[v]](heart[1:3, ])
    expect_error(suppressWarnings(stats::predict(ref, nd)))  # glm refuses each of them too
    expect_error(predict(fit, newdata = nd, budget = 500), paste0("'", v, "'"), class = "fgseq_error_input")
  }
  # a character vector for a factor is read by its levels, as model.frame() does
  nd <- heart[1:3, ]
  nd$cp <- as.character(nd$cp)
  expect_equal(predict(fit, newdata = nd, budget = 500), predict(fit, newdata = heart[1:3, ], budget = 500))
})

test_that("a variable in neither data nor the environment is an fgseq error keeping R's as its parent", {
  d <- heart[1:100, ]
  ref <- tryCatch(stats::glm(diagnosis ~ age + no_such_variable, data = d, family = binomial), error = identity)
  e <- tryCatch(fgseq(diagnosis ~ age + no_such_variable, data = d, cost = heart_cost), error = identity)
  expect_s3_class(e, "fgseq_error_formula")
  expect_match(conditionMessage(e), "no_such_variable", fixed = TRUE)
  expect_identical(conditionMessage(e$parent), conditionMessage(ref))
  e <- tryCatch(fgseq(diagnosis ~ age, data = d, cost = heart_cost, weights = no_such_weights), error = identity)
  expect_s3_class(e, "fgseq_error_formula")
  expect_match(conditionMessage(e), "`weights`", fixed = TRUE)
  expect_false(is.null(e$parent))
})

test_that("a level of newdata the fit was not trained with is an fgseq error naming the variable", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  nd <- heart[1:3, ]
  nd$cp <- factor(replace(as.character(nd$cp), 2L, "unseen"))
  ref <- tryCatch(stats::predict(stats::glm(diagnosis ~ ., data = heart, family = binomial), nd), error = identity)
  expect_s3_class(ref, "error")   # glm refuses it too, in base R's words
  expect_false(inherits(ref, "fgseq_error"))
  expect_error(predict(fit, newdata = nd, budget = 500), "'cp'.*\"unseen\"", class = "fgseq_error_input")
  # as text too
  nd$cp <- as.character(nd$cp)
  expect_error(predict(fit, newdata = nd, budget = 500), "'cp'", class = "fgseq_error_input")
  # set to NA, the row is predicted by the longest prefix it has, as the message says
  nd$cp[2L] <- NA
  p <- predict(fit, newdata = nd, budget = 500, missing = "prefix")
  expect_equal(p[c(1L, 3L), ], predict(fit, newdata = heart[c(1L, 3L), ], budget = 500)[, 1L], ignore_attr = TRUE)
})

test_that("under missing = \"prefix\", a variable absent from newdata is a missing value", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  j <- match("thalach", fit$sequence)
  nd <- heart[1:4, ]
  nd$thalach <- NULL
  full <- heart[1:4, ]
  full$thalach <- NA_real_
  budget <- fit$path$cost[j]  # the budget of the step before thalach
  got <- predict(fit, newdata = nd, budget = c(budget, 1e6), missing = "prefix", type = "response")
  expect_equal(got, predict(fit, newdata = full, budget = c(budget, 1e6), missing = "prefix", type = "response"))
  # the prediction at the step before thalach, the plain sum of that step's model
  expect_equal(unname(got[, 1]), unname(predict(fit, newdata = heart[1:4, ], step = j - 1L, type = "response")[, 1]))
  expect_equal(unname(attr(got, "step")[, 2]), rep(j - 1L, 4))
  # an absent factor variable too
  nd$thal <- NULL
  expect_equal(dim(predict(fit, newdata = nd, budget = 5, missing = "prefix")), c(4L, 1L))
  # without missing = "prefix", the variable is required and the error says how to predict without it
  expect_error(predict(fit, newdata = nd, budget = 5), "thalach", class = "fgseq_error_input")
})

test_that("predict() on zero rows of newdata is a clear error", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
  expect_error(predict(fit, newdata = heart[0, ]), "no rows", class = "fgseq_error_input")
})

test_that("the variables of an offset() are measurements paid at step 0", {
  set.seed(9)
  d <- data.frame(a = rnorm(120), b = rnorm(120), t = runif(120, 1, 3))
  d$y <- rpois(120, d$t * exp(0.5 * d$a - 0.3 * d$b))
  cost <- c(a = 1, b = 2, t = 5)
  fit <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = cost, family = "poisson", lambda = 1e-8)
  # every step, the intercept-only one included, needs t: its cost is paid at step 0
  expect_equal(fit$path$cost, 5 + c(0, cumsum(cost[fit$sequence])), ignore_attr = TRUE)
  expect_equal(fit$path$group_cost[1], 5)
  expect_identical(fit$offset_needs, "t")
  # the methods read the costs as they are: the summary and the JSON predictor
  expect_equal(summary(fit)$total_cost, max(fit$path$cost))
  file <- tempfile(fileext = ".json")
  write_predictor(fit, file)
  steps <- jsonlite::fromJSON(file, simplifyVector = FALSE)$steps
  expect_equal(vapply(steps, function(s) s$cost, numeric(1)), fit$path$cost)
  # the fit itself is that of glm() (the offset changes costs only)
  ref <- stats::glm(y ~ a + b + offset(log(t)), data = d, family = poisson)
  expect_equal(unname(coef(fit)[c("(Intercept)", "a", "b"), 3]), unname(coef(ref)), tolerance = 1e-6)
  # a budget below step 0's cost cannot be met; at step 0's cost the intercept and the offset predict
  expect_error(predict(fit, newdata = d[1:2, ], budget = 4), "offset", class = "fgseq_error_input")
  p0 <- predict(fit, newdata = d[1:2, ], budget = 5)
  expect_equal(unname(p0[, 1]), unname(fit$a0[1] + log(d$t[1:2])))
  meas <- predict(fit, budget = 1e6, type = "measurements")[[1]]
  expect_equal(sum(meas$cost), fit$path$cost[3])
  expect_identical(meas$measurement[meas$step == 0], "t")
  # a term that reads t as well pays nothing more for it
  both <- fgseq(y ~ a + t + offset(log(t)), data = d, cost = cost, family = "poisson", lambda = 1e-8)
  expect_equal(both$path$group_cost[both$path$group %in% "t"], 0)
  expect_equal(both$cost[["t"]], 5)
  # max_cost counts the step-0 cost
  capped <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = cost, family = "poisson", max_cost = 6.5)
  expect_lte(max(capped$path$cost), 6.5)
  expect_equal(nrow(capped$path), 2L)
  # a Greedy Miser fit alike
  m <- miser(y ~ a + b + offset(log(t)), data = d, cost = cost, max_steps = 5, depth = 2)
  expect_equal(m$path$cost[1], 5)
  expect_identical(validate_fit(m), m)
  # and a group lasso sequence
  s <- sparse_sequence(y ~ a + b + offset(log(t)), data = d, cost = cost, family = "poisson")
  expect_equal(s$path$cost, 5 + c(0, cumsum(cost[s$sequence])), ignore_attr = TRUE)
  # the offset's variables need no cost: without one they are free
  free <- fgseq(y ~ a + b + offset(log(t)), data = d, cost = cost[c("a", "b")], family = "poisson")
  expect_equal(free$path$cost[1], 0)
})

# Calls to fgseq's internal function `fun` while `expr` runs, counted by a tracer; `when` (an expression
# in the traced function's frame) restricts the count.
count_calls <- function(fun, expr, when = TRUE) {
  calls <- new.env()
  calls$n <- 0L
  count <- function() calls$n <- calls$n + 1L
  tracer <- bquote(if (.(substitute(when))) .(count)())
  suppressMessages(trace(fun, tracer = tracer, where = asNamespace("fgseq"), print = FALSE))
  on.exit(suppressMessages(untrace(fun, where = asNamespace("fgseq"))))
  force(expr)
  calls$n
}

test_that("a formula method checks cost and max_cost once, and the fit's constructor charges the offset", {
  set.seed(9)
  d <- data.frame(a = rnorm(120), b = rnorm(120), t = runif(120, 1, 3))
  d$y <- rpois(120, d$t * exp(0.5 * d$a - 0.3 * d$b))
  cost <- c(a = 1, b = 2, t = 5)
  f <- y ~ a + b + t + offset(log(t))
  verbs <- list(
    fgseq = function() fgseq(f, data = d, cost = cost, family = "poisson", max_cost = 20),
    miser = function() miser(f, data = d, cost = cost, max_steps = 4, depth = 2),
    sparse = function() sparse_sequence(f, data = d, cost = cost, family = "poisson"),
    chunks = function() fgseq(f, data = fgseq_chunks(list(d[1:60, ], d[61:120, ])), cost = cost, family = "poisson",
                              max_cost = 20),
    cv = function() cv_fgseq(f, data = d, cost = cost, family = "poisson", lambda = c(1, 0.01), nfolds = 3, seed = 1,
                             progress = FALSE, max_cost = 20)
  )
  for (v in names(verbs)) {
    expect_identical(count_calls("check_measurement_cost", verbs[[v]]()), 1L, label = paste("cost checks of", v))
  }
  for (v in c("fgseq", "chunks")) {
    expect_identical(count_calls("check_number", verbs[[v]](), identical(name, "max_cost")), 1L,
                     label = paste("max_cost checks of", v))
  }
  # charged by the constructor: step 0 costs t, the term t pays nothing more, and the fit is the one the
  # core makes when t is free (the same sequence and coefficients, its costs 5 higher)
  fit <- verbs$fgseq()
  free <- fgseq(f, data = d, cost = replace(cost, "t", 0), family = "poisson", max_cost = 15)
  expect_identical(fit$sequence, free$sequence)
  expect_identical(fit$beta, free$beta)
  expect_equal(fit$path$cost, free$path$cost + 5)
  expect_equal(fit$path$group_cost[fit$path$group %in% "t"], 0)
  expect_identical(fit$offset_needs, "t")
  expect_equal(fit$cost[["t"]], 5)
  # max_cost is the fit's budget, the offset's cost included: one that does not exceed it cannot be met
  expect_error(fgseq(f, data = d, cost = cost, family = "poisson", max_cost = 5),
               "`max_cost` \\(5\\) does not exceed the cost of the offset's measurements \\(t: 5\\)", class = "fgseq_error_input")
  expect_error(fgseq(f, data = fgseq_chunks(list(d[1:60, ], d[61:120, ])), cost = cost, family = "poisson", max_cost = 4),
               "`max_cost` \\(4\\) does not exceed the cost of the offset's measurements", class = "fgseq_error_input")
})

test_that("the validator checks the core's record of what was paid without replaying it", {
  set.seed(9)
  d <- data.frame(a = rnorm(120), b = rnorm(120), t = runif(120, 1, 3))
  d$y <- rpois(120, d$t * exp(0.5 * d$a - 0.3 * d$b))
  # a and b share the measurement "lab" (cost 3): whichever comes second pays only its own
  fit <- fgseq(y ~ a + b + t + offset(log(t)), data = d, family = "poisson",
               needs = list(a = c("lab", "a"), b = c("lab", "b")), cost = c(lab = 3, a = 1, b = 2, t = 5))
  expect_identical(count_calls("marginal_costs", predict(fit, newdata = d[1:3, ])), 0L)
  # the path agrees with a replay in plain R of the purchases
  paid <- "t"
  replay <- vapply(fit$sequence, function(g) {
    new <- setdiff(fit$needs[[g]], paid)
    paid <<- c(paid, new)
    sum(fit$measurement_cost[new])
  }, numeric(1))
  expect_equal(fit$path$group_cost, c(5, unname(replay)))
  # a record that charges the shared measurement twice, or a group more than its measurements, is refused
  twice <- fit
  k <- which(twice$path$group %in% c("a", "b"))[2L]
  twice$path$group_cost[k] <- twice$path$group_cost[k] + 3
  twice$path$cost <- cumsum(twice$path$group_cost)
  expect_error(predict(twice, newdata = d[1:3, ]), "path$group_cost", fixed = TRUE, class = "fgseq_error_invalid_object")
  over <- fit
  over$path$group_cost[2:3] <- over$path$group_cost[2:3] + c(10, -10)
  expect_error(predict(over, newdata = d[1:3, ]), "path$group_cost", fixed = TRUE, class = "fgseq_error_invalid_object")
  # a Greedy Miser fit's record alike
  m <- miser(y ~ a + b + t + offset(log(t)), data = d, needs = list(a = c("lab", "a"), b = c("lab", "b")),
             cost = c(lab = 3, a = 1, b = 2, t = 5), max_steps = 6, depth = 2)
  expect_equal(m$path$cost[1L], 5)
  bad <- m
  bad$paid_groups$group_cost[1L] <- bad$paid_groups$group_cost[1L] + 3
  expect_error(predict(bad, newdata = d[1:3, ]), "paid_groups", fixed = TRUE, class = "fgseq_error_invalid_object")
})

test_that("a missing na.action is taken from options(na.action) and the data, as glm() takes it", {
  h <- heart
  h$chol[c(3, 10)] <- NA
  cost <- heart_cost[c("age", "chol")]
  with_na_option("na.omit", {
    fit <- fgseq(diagnosis ~ age + chol, data = h, cost = cost, family = "binomial", lambda = 0)
    ref <- stats::glm(diagnosis ~ age + chol, data = h, family = binomial)
    expect_equal(stats::nobs(fit), stats::nobs(ref))
    expect_identical(fit$na.action, ref$na.action)
    expect_equal(unname(as.matrix(coef(fit))[, 3]), unname(coef(ref)), tolerance = 1e-6)
    m <- miser(diagnosis ~ age + chol, data = h, cost = cost, family = "binomial", max_steps = 2, depth = 1)
    expect_equal(stats::nobs(m), stats::nobs(ref))
  })
  with_na_option("na.exclude", {
    fit <- fgseq(diagnosis ~ age + chol, data = h, cost = cost, family = "binomial", lambda = 0)
    ref <- stats::glm(diagnosis ~ age + chol, data = h, family = binomial)
    expect_identical(class(fit$na.action), "exclude")
    expect_equal(unname(fitted(fit)), unname(fitted(ref)), tolerance = 1e-6)
    expect_true(all(is.na(fitted(fit)[c(3, 10)])))
  })
  with_na_option("na.fail", {
    expect_error(stats::glm(diagnosis ~ age + chol, data = h, family = binomial))
    expect_error(fgseq(diagnosis ~ age + chol, data = h, cost = cost), "has NA in chol", class = "fgseq_error_na")
    # the data's own "na.action" attribute comes before the option, as in model.frame()
    tagged <- structure(h, na.action = "na.omit")
    ref <- stats::glm(diagnosis ~ age + chol, data = tagged, family = binomial)
    expect_equal(stats::nobs(fgseq(diagnosis ~ age + chol, data = tagged, cost = cost)), stats::nobs(ref))
    # an argument given wins
    expect_equal(stats::nobs(fgseq(diagnosis ~ age + chol, data = h, cost = cost, na.action = na.omit)), 301)
  })
  with_na_option("na.pass", {
    expect_error(fgseq(diagnosis ~ age + chol, data = h, cost = cost), "options(na.action)", fixed = TRUE,
                 class = "fgseq_error_na")
  })
})
