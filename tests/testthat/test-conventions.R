# The conventions of glm(), glmnet and broom, each checked against what it must equal: the fit's own
# coefficients, the cross-validation choice, glm()'s lookup of a formula's variables, broom's defaults.

cv_heart <- function(...) {
  cv_fgseq(diagnosis ~ ., data = heart, cost = heart_cost, lambda = c(1e3, 10, 1, 0.01, 1e-6), nfolds = 3, seed = 1,
           progress = FALSE, ...)
}

test_that("predict(type = \"coefficients\" / \"nonzero\") are coef() and its nonzero columns", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  expect_identical(predict(fit, type = "coefficients"), coef(fit))
  expect_identical(predict(fit, type = "coefficients", budget = c(5, 120)), coef(fit, budget = c(5, 120)))
  nz <- predict(fit, type = "nonzero", step = c(0, 2, 5))
  cf <- coef(fit, step = c(0, 2, 5))
  expect_named(nz, colnames(cf))
  for (j in seq_along(nz)) {
    expect_identical(unname(nz[[j]]), unname(which(cf[-1, j] != 0)))
    expect_identical(names(nz[[j]]), rownames(cf)[-1][cf[-1, j] != 0])
  }
  expect_length(nz[[1]], 0)
  # the columns of the groups of the prefix, as the path says
  prefix <- fit$sequence[1:2]
  expect_setequal(names(nz[[2]]), names(fit$group)[fit$group %in% prefix])
  m <- fgseq(Species ~ ., data = iris, family = "multinomial")
  expect_identical(predict(m, type = "coef", step = 1), coef(m, step = 1))
  trees <- miser(diagnosis ~ ., data = heart, cost = heart_cost, max_steps = 5)
  expect_error(predict(trees, type = "coefficients"), class = "fgseq_error_input")
})

test_that("type is partially matched as predict.glm() matches it", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  new <- heart[1:4, ]
  expect_identical(predict(fit, newdata = new, type = "resp"), predict(fit, newdata = new, type = "response"))
  expect_identical(predict(fit, newdata = new, type = "l"), predict(fit, newdata = new, type = "link"))
  expect_identical(residuals(fit, type = "pear"), residuals(fit, type = "pearson"))
  # as match.arg(): an ambiguous prefix ("c": class, coefficients) and a non-prefix are errors
  expect_error(predict(fit, newdata = new, type = "c"), class = "fgseq_error_input")
  expect_error(predict(fit, newdata = new, type = "probability"), class = "fgseq_error_input")
  # several values other than the default are an error, as predict.glm() (match.arg()) stops on them
  ref <- stats::glm(diagnosis ~ ., data = heart, family = binomial)
  expect_error(stats::predict(ref, new, type = c("link", "response")))
  expect_error(predict(fit, newdata = new, type = c("link", "response")), "`type` must be one of",
               class = "fgseq_error_input")
  expect_error(predict(fit, newdata = new, type = c("response", "link")), class = "fgseq_error_input")
  expect_error(residuals(fit, type = c("pearson", "deviance")), class = "fgseq_error_input")
  # the default vector is its first element
  expect_identical(predict(fit, newdata = new), predict(fit, newdata = new, type = "link"))
})

test_that("coef(cv) and predict(cv) give the one model chosen, as coef(cv.glmnet) at lambda.1se", {
  cv <- cv_heart()
  chosen <- cv$fgseq.fit[[cv$index["1se", 1]]]
  expect_identical(coef(cv), coef(chosen, budget = cv$budget.1se))
  expect_identical(ncol(coef(cv)), 1L)
  new <- heart[1:5, ]
  expect_identical(predict(cv, newdata = new), predict(chosen, newdata = new, budget = cv$budget.1se))
  best <- cv$fgseq.fit[[cv$index["min", 1]]]
  expect_identical(coef(cv, s = "lambda.min"),
                   coef(best, budget = fgseq:::budget_choice(cv, "lambda.min")[["1se"]]))
  # every step when asked (budget = NULL), the steps given with `step`
  expect_identical(coef(cv, budget = NULL), coef(chosen))
  expect_identical(coef(cv, step = 1:2), coef(chosen, step = 1:2))
  expect_identical(predict(cv, type = "coefficients"), coef(cv))
})

test_that("tidy() and glance() of cv_fgseq fits are its curve and its choices", {
  cv <- cv_heart()
  td <- tidy(cv)
  expect_identical(td$lambda, cv$lambda)
  expect_identical(td$estimate, cv$cvm)
  expect_identical(td$std.error, cv$cvsd)
  expect_identical(td$conf.low, cv$cvlo)
  expect_identical(td$conf.high, cv$cvup)
  expect_identical(td$n_groups, vapply(cv$fgseq.fit, function(f) length(f$sequence), integer(1)))
  gl <- glance(cv)
  expect_identical(nrow(gl), 1L)
  expect_identical(gl$lambda.min, cv$lambda.min)
  expect_identical(gl$lambda.1se, cv$lambda.1se)
  expect_identical(gl$budget.1se, cv$budget.1se)
  expect_identical(gl$budget.min, cv$budget.min)
  expect_identical(gl$nobs, nrow(heart))
})

test_that("tidy(), glance() and logLik() of Miser fits equal the path and glm()'s likelihood of its means", {
  trees <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 15, depth = 2)
  expect_s3_class(tidy(trees), "tbl_df")
  expect_identical(as.data.frame(tidy(trees)), `rownames<-`(trees$path, NULL))
  expect_identical(as.data.frame(tidy(trees, what = "trees")), `rownames<-`(trees$trees, NULL))
  mu <- fitted(trees)
  y <- as.numeric(heart$diagnosis)
  ll <- logLik(trees)
  expect_equal(as.numeric(ll), sum(dbinom(y, 1, mu, log = TRUE)), tolerance = 1e-12)
  leaves <- sum(is.na(trees$trees$feature))
  expect_identical(attr(ll, "df"), 1 + leaves)
  expect_equal(as.numeric(logLik(trees, step = 3)), sum(dbinom(y, 1, fitted(trees, step = 3), log = TRUE)),
               tolerance = 1e-12)
  gl <- glance(trees)
  expect_equal(gl$logLik, as.numeric(ll))
  expect_equal(gl$AIC, -2 * as.numeric(ll) + 2 * (1 + leaves))
  expect_equal(gl$deviance, -2 * sum(dbinom(y, 1, mu, log = TRUE)), tolerance = 1e-10)
  expect_identical(gl$total_cost, trees$path$cost[nrow(trees$path)])
  # gaussian: the maximum-likelihood variance, one more degree of freedom, as logLik.glm
  g <- miser(age ~ sex + cp + chol + thalach, data = heart, cost = heart_cost, max_steps = 10, depth = 2)
  r <- heart$age - fitted(g)
  n <- nrow(heart)
  expect_equal(as.numeric(logLik(g)), -n / 2 * (log(2 * pi * sum(r^2) / n) + 1), tolerance = 1e-12)
  expect_error(tidy(trees, what = "splits"), class = "fgseq_error_input")
  # augment(): the link by default, as for fgseq fits; deviance residuals on the training rows, as glm's
  au <- augment(trees)
  expect_equal(au$.fitted, unname(predict(trees, type = "link")[, nrow(trees$path)]))
  expect_equal(augment(trees, type.predict = "response")$.fitted, unname(mu))
  expect_equal(au$.resid, unname(sign(y - mu) * sqrt(-2 * dbinom(y, 1, mu, log = TRUE))))
  expect_equal(augment(trees, type.residuals = "response")$.resid, unname(y - mu))
  expect_equal(augment(trees, newdata = heart[1:4, ], step = 3)$.fitted,
               unname(predict(trees, newdata = heart[1:4, ], step = 3)[, 1]))
})

test_that("augment() defaults to the link, as broom's augment() of glm fits", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  au <- augment(fit)
  K <- length(fit$sequence)
  expect_equal(au$.fitted, unname(predict(fit, type = "link")[, K + 1]))
  expect_equal(augment(fit, type.predict = "response")$.fitted, unname(fitted(fit)))
})

test_that("a formula without data reads its variables from its environment, as glm()", {
  age <- heart$age
  chol <- heart$chol
  sex <- heart$sex
  cp <- heart$cp
  y <- heart$diagnosis
  a <- fgseq(y ~ age + chol + sex + cp, family = "binomial")
  b <- fgseq(y ~ age + chol + sex + cp, data = data.frame(y, age, chol, sex, cp), family = "binomial")
  expect_identical(a$sequence, b$sequence)
  expect_identical(a$beta, b$beta)
  expect_identical(predict(a, newdata = heart[1:3, c("age", "chol", "sex", "cp")]),
                   predict(b, newdata = heart[1:3, c("age", "chol", "sex", "cp")]))
  # a variable of another length (a constant) stays in the environment, as for glm()
  d <- 2
  p <- fgseq(y ~ poly(age, d) + sex, family = "binomial")
  q <- fgseq(y ~ poly(age, 2) + sex, data = data.frame(y, age, sex), family = "binomial")
  expect_identical(sub("d)", "2)", p$sequence, fixed = TRUE), q$sequence)
  expect_identical(unname(as.matrix(p$beta)), unname(as.matrix(q$beta)))
  expect_error(fgseq(y ~ .), class = "fgseq_error_formula")
  expect_error(fgseq(y ~ age + no_such_variable), class = "fgseq_error_formula")
})

test_that("type.measure points to metric; the cv progress bar is quiet in batch runs", {
  expect_error(cv_heart(type.measure = "auc"), "`metric`", class = "fgseq_error_unknown_argument")
  x <- model.matrix(diagnosis ~ ., heart)[, -1]
  expect_error(cv_fgseq(x, heart$diagnosis, type.measure = "mse"), class = "fgseq_error_unknown_argument")
  expect_identical(formals(fgseq:::cv_fgseq.default)$progress, quote(interactive()))
  out <- capture.output(cv <- cv_fgseq(x, as.numeric(heart$diagnosis), lambda = c(1, 1e-6), nfolds = 3, seed = 1),
                        type = "message")
  expect_identical(out, character(0))
})

test_that("coefficient paths have as many distinct colours as columns", {
  cols <- fgseq:::path_colours(18)
  expect_identical(anyDuplicated(cols), 0L)
  expect_length(cols, 18)
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
  pdf(NULL)
  on.exit(dev.off())
  drawn <- plot(fit, what = "coef", labels = TRUE)
  expect_identical(drawn, as.matrix(fit$beta))
})
