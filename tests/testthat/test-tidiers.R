# The broom verbs as broom's conventions: tibbles, augment() as broom's augment() of glm fits (the link
# and deviance residuals by default), and tidiers for comparisons, Miser paths, oracles and cv fits.

t_train <- heart[c(TRUE, FALSE), ]
t_test <- heart[c(FALSE, TRUE), ]

test_that("augment() gives .fitted and .resid as broom's augment() of a glm fit: link and deviance by default", {
  f <- diagnosis ~ age + sex + chol
  fit <- fgseq(f, data = heart, cost = heart_cost[c("age", "sex", "chol")], family = "binomial", lambda = 0)
  ref <- stats::glm(f, data = heart, family = binomial)
  au <- augment(fit)
  expect_s3_class(au, "tbl_df")
  expect_identical(names(au), c(names(ref$model), ".fitted", ".resid"))
  # broom's augment.glm: .fitted = predict(type = "link"), .resid = residuals(type = "deviance")
  expect_equal(au$.fitted, unname(stats::predict(ref, type = "link")), tolerance = 1e-6)
  expect_equal(au$.resid, unname(stats::residuals(ref, type = "deviance")), tolerance = 1e-6)
  expect_equal(augment(fit, type.predict = "response")$.fitted, unname(stats::fitted(ref)), tolerance = 1e-6)
  expect_equal(augment(fit, type.residuals = "pearson")$.resid, unname(stats::residuals(ref, type = "pearson")),
               tolerance = 1e-6)
  expect_equal(augment(fit, type.residuals = "response")$.resid, unname(stats::residuals(ref, type = "response")),
               tolerance = 1e-6)
  # na.exclude: the data's rows with NA get NA, as residuals() of glm(na.action = na.exclude)
  h <- heart
  h$chol[c(4, 9)] <- NA
  ex <- fgseq(f, data = h, cost = heart_cost[c("age", "sex", "chol")], family = "binomial", lambda = 0,
              na.action = na.exclude)
  rex <- stats::glm(f, data = h, family = binomial, na.action = na.exclude)
  aex <- augment(ex, data = h)
  expect_identical(nrow(aex), nrow(h))
  expect_equal(aex$.resid, unname(stats::residuals(rex, type = "deviance")), tolerance = 1e-6)
  expect_true(all(is.na(aex$.fitted[c(4, 9)])))
  # new data: .fitted only
  an <- augment(fit, newdata = heart[1:5, ], type.predict = "response")
  expect_equal(an$.fitted, unname(stats::predict(ref, newdata = heart[1:5, ], type = "response")), tolerance = 1e-6)
  expect_false(".resid" %in% names(an))
  expect_error(augment(fit, type.residuals = "partial"), "type.residuals", class = "fgseq_error_input")
})

test_that("tidiers return tibbles", {
  fit <- fgseq(diagnosis ~ ., data = t_train, cost = heart_cost)
  trees <- miser(diagnosis ~ ., data = t_train, cost = heart_cost, max_steps = 3, depth = 2)
  for (tb in list(tidy(fit), tidy(fit, what = "steps"), glance(fit), augment(fit), tidy(trees), glance(trees),
                  augment(trees))) {
    expect_s3_class(tb, "tbl_df")
  }
})

test_that("tidy() of a comparison, a Miser path and an oracle: the curves in long format", {
  omp <- fgseq(diagnosis ~ ., data = t_train, cost = heart_cost)
  fr <- fgseq(diagnosis ~ ., data = t_train, cost = heart_cost, method = "fr")
  or <- oracle(fr)
  cmp <- compare_sequences(list(omp = omp, fr = fr, or), newdata = t_test)
  td <- tidy(cmp)
  expect_s3_class(td, "tbl_df")
  expect_identical(names(td), c("method", "step", "group", "cost", "value", "metric"))
  for (m in names(cmp$curves)) {
    one <- td[td$method == m, ]
    cv <- anytime_curve(list(omp = omp, fr = fr, or)[[match(m, names(cmp$curves))]], newdata = t_test)
    expect_equal(one$cost, cv$cost)
    expect_equal(one$value, cv$value)
    expect_equal(one$group, cv$group)
  }
  expect_identical(unique(td$metric), "r2")
  expect_identical(as.data.frame(tidy(cmp, what = "timeliness")), cmp$table)
  gl <- glance(cmp)
  expect_identical(nrow(gl), 1L)
  expect_identical(gl$stop_cost, stop_cost(omp))
  expect_identical(gl$n_fits, 3L)
  # an oracle: its path
  expect_identical(as.data.frame(tidy(or)), `rownames<-`(or$path, NULL))
  # a Miser path: the frontier, and the validation trace of every cost_penalty
  d <- sim_miser(120, 5)
  mp <- miser_path(d$x[1:80, ], d$y[1:80], cost = 1:5, cost_penalty = c(0, 0.1), max_steps = 4, depth = 2,
                   newx = d$x[81:120, ], newy = d$y[81:120])
  expect_identical(as.data.frame(tidy(mp)), mp$frontier)
  tr <- tidy(mp, what = "traces")
  expect_identical(names(tr), c("cost_penalty", "step", "group", "cost", "value"))
  for (i in 1:2) {
    one <- tr[tr$cost_penalty == mp$cost_penalty[i], ]
    ref <- anytime_curve(mp$fits[[i]], d$x[81:120, ], d$y[81:120], metric = mp$metric)
    expect_equal(one$value, ref$value)
    expect_equal(one$cost, ref$cost)
  }
  expect_error(tidy(mp, what = "curves"), "what", class = "fgseq_error_input")
  expect_error(tidy(cmp, k = 3), class = "fgseq_error_unknown_argument")
})

test_that("augment() of a cv fit is that of its chosen fit at the chosen budget", {
  cv <- cv_fgseq(diagnosis ~ age + sex + cp + chol, data = heart, cost = heart_cost[c("age", "sex", "cp", "chol")],
                 family = "binomial", lambda = c(1, 1e-4), nfolds = 3, seed = 1, progress = FALSE, metric = "accuracy")
  chosen <- cv$fgseq.fit[[match(cv$lambda.1se, cv$lambda)]]
  k <- max(which(chosen$path$cost <= cv$budget.1se)) - 1L
  au <- augment(cv)
  expect_s3_class(au, "tbl_df")
  expect_equal(au$.fitted, unname(predict(chosen, type = "link", step = k)[, 1]))
  expect_equal(au$.resid, unname(residuals(chosen, step = k)))
  mn <- augment(cv, s = "lambda.min", budget = "budget.min", newdata = heart[1:3, ], type.predict = "response")
  expect_equal(mn$.fitted, unname(predict(cv, newdata = heart[1:3, ], s = "lambda.min", budget = "budget.min",
                                          type = "response")[, 1]))
  expect_equal(augment(cv, step = 1)$.fitted, unname(predict(chosen, type = "link", step = 1)[, 1]))
})
