# The parsnip engine "fgseq" (R/parsnip.R): its predictions against fgseq()'s own at the same budget,
# multi_predict() against a loop, tune_grid() over budgets against a loop over the folds.

# Loading tune's dependencies (timeDate, through recipes) calls Sys.timezone(), which warns where TZ is
# unset and timedatectl cannot answer (a machine without systemd): load them with TZ set, then unset it.
local({
  if (is.na(Sys.getenv("TZ", unset = NA))) {
    Sys.setenv(TZ = "UTC")
    on.exit(Sys.unsetenv("TZ"))
  }
  for (p in c("parsnip", "tune", "dials", "workflows", "yardstick", "rsample")) loadNamespace(p)
})
library(parsnip)

heart_factor <- function() {
  d <- heart
  d$diagnosis <- factor(d$diagnosis)
  d
}

# training and test rows of a data frame (fixed split)
split_rows <- function(d, n_test = 40L) {
  set.seed(53)
  test <- sample(nrow(d), n_test)
  list(train = d[-test, , drop = FALSE], test = d[test, , drop = FALSE])
}

gauss_data <- function() heart[setdiff(names(heart), "diagnosis")]
gauss_cost <- heart_cost[setdiff(names(heart_cost), "trestbps")]
iris_cost <- c(Sepal.Length = 1, Sepal.Width = 2, Petal.Length = 4, Petal.Width = 3)

poisson_data <- function() {
  set.seed(7)
  x <- matrix(rnorm(240 * 4), 240, 4, dimnames = list(NULL, paste0("v", 1:4)))
  data.frame(x, count = rpois(240, exp(0.4 + 0.5 * x[, 1] - 0.3 * x[, 3])))
}

test_that("fit() with a formula predicts as predict(fgseq(), budget = ): gaussian, binomial, multinomial, poisson", {
  cases <- list(
    list(spec = linear_reg(), data = gauss_data(), form = trestbps ~ ., cost = gauss_cost,
         family = "gaussian", budgets = c(0, 3.5, 120, 400)),
    list(spec = logistic_reg(), data = heart_factor(), form = diagnosis ~ ., cost = heart_cost,
         family = "binomial", budgets = c(0.5, 20, 200, sum(heart_cost))),
    list(spec = multinom_reg(), data = iris, form = Species ~ ., cost = iris_cost,
         family = "multinomial", budgets = c(0, 3, 5, 10)),
    list(spec = poisson_reg(), data = poisson_data(), form = count ~ ., cost = c(v1 = 2, v2 = 1, v3 = 1, v4 = 3),
         family = "poisson", budgets = c(1, 2, 4, 7)))
  for (case in cases) {
    parts <- split_rows(case$data)
    ref <- fgseq(case$form, data = parts$train, cost = case$cost, family = case$family)
    for (b in case$budgets) {
      spec <- set_engine(case$spec, "fgseq", cost = case$cost, budget = b)
      fitted <- fit(spec, case$form, data = parts$train)
      expect_s3_class(fitted$fit, "fgseq")
      expect_identical(fitted$fit$sequence, ref$sequence)
      if (case$family %in% c("gaussian", "poisson")) {
        expect_equal(predict(fitted, parts$test)$.pred,
                     unname(predict(ref, newdata = parts$test, budget = b, type = "response")[, 1]), tolerance = 1e-12)
      } else {
        prob <- predict(ref, newdata = parts$test, budget = b, type = "response")
        if (length(dim(prob)) == 2L) prob <- cbind(1 - prob[, 1], prob[, 1])
        else prob <- prob[, , 1]
        got <- predict(fitted, parts$test, type = "prob")
        expect_named(got, paste0(".pred_", levels(parts$train[[all.vars(case$form)[1]]])))
        expect_equal(unname(as.matrix(got)), unname(prob), tolerance = 1e-12)
        expect_equal(as.character(predict(fitted, parts$test, type = "class")$.pred_class),
                     unname(predict(ref, newdata = parts$test, budget = b, type = "class")[, 1]))
      }
    }
  }
})

test_that("fit_xy() predicts as predict(fgseq(x, y), budget = ), with and without `group`", {
  # gaussian: mtcars, one group per column, then columns grouped
  x <- mtcars[, -1]
  y <- mtcars$mpg
  cost <- stats::setNames(seq_len(ncol(x)), rev(names(x)))   # named in another order than the columns
  parts <- split_rows(cbind(x, mpg = y), 8L)
  xtr <- parts$train[names(x)]
  xte <- parts$test[names(x)]
  ref <- fgseq(as.matrix(xtr), parts$train$mpg, cost = cost[names(x)])
  for (b in c(0, 4, 11, sum(cost))) {
    fitted <- fit_xy(set_engine(linear_reg(), "fgseq", cost = cost, budget = b), x = xtr, y = parts$train$mpg)
    expect_equal(predict(fitted, xte)$.pred, unname(predict(ref, as.matrix(xte), budget = b)[, 1]), tolerance = 1e-12)
  }
  group <- c(cyl = "engine", disp = "engine", hp = "engine", carb = "engine", drat = "drive", am = "drive",
             gear = "drive", wt = "body", qsec = "body", vs = "engine")
  gcost <- c(engine = 3, drive = 2, body = 1)
  gref <- fgseq(as.matrix(xtr), parts$train$mpg, group = unname(group[names(x)]), cost = gcost)
  for (b in c(1, 3, 6)) {
    fitted <- fit_xy(set_engine(linear_reg(), "fgseq", group = group, cost = gcost, budget = b),
                     x = xtr, y = parts$train$mpg)
    expect_identical(fitted$fit$sequence, gref$sequence)
    expect_equal(predict(fitted, xte)$.pred, unname(predict(gref, as.matrix(xte), budget = b)[, 1]), tolerance = 1e-12)
    # the same groups given unnamed, one label per column of x in order
    unnamed <- fit_xy(set_engine(linear_reg(), "fgseq", group = unname(group[names(x)]), cost = gcost, budget = b),
                      x = xtr, y = parts$train$mpg)
    expect_equal(predict(unnamed, xte)$.pred, predict(fitted, xte)$.pred, tolerance = 1e-12)
  }

  # binomial: the numeric columns of heart
  d <- heart_factor()
  num <- names(d)[vapply(d, is.numeric, logical(1))]
  parts <- split_rows(d)
  ref <- fgseq(as.matrix(parts$train[num]), parts$train$diagnosis, cost = heart_cost[num], family = "binomial")
  fitted <- fit_xy(set_engine(logistic_reg(), "fgseq", cost = heart_cost[num], budget = 90),
                   x = parts$train[num], y = parts$train$diagnosis)
  p <- predict(ref, as.matrix(parts$test[num]), budget = 90, type = "response")[, 1]
  expect_equal(predict(fitted, parts$test[num], type = "prob")$.pred_TRUE, unname(p), tolerance = 1e-12)
  expect_equal(predict(fitted, parts$test[num], type = "prob")$.pred_FALSE, unname(1 - p), tolerance = 1e-12)
  expect_equal(as.character(predict(fitted, parts$test[num])$.pred_class),
               unname(predict(ref, as.matrix(parts$test[num]), budget = 90, type = "class")[, 1]))

  # multinomial: iris
  parts <- split_rows(iris)
  xm <- as.matrix(parts$train[1:4])
  ref <- fgseq(xm, parts$train$Species, cost = iris_cost[colnames(xm)], family = "multinomial")
  fitted <- fit_xy(set_engine(multinom_reg(), "fgseq", cost = iris_cost, budget = 5),
                   x = parts$train[1:4], y = parts$train$Species)
  p <- predict(ref, as.matrix(parts$test[1:4]), budget = 5, type = "response")[, , 1]
  expect_equal(unname(as.matrix(predict(fitted, parts$test[1:4], type = "prob"))), unname(p), tolerance = 1e-12)
  expect_equal(as.character(predict(fitted, parts$test[1:4])$.pred_class), levels(iris$Species)[max.col(p)])
})

test_that("vector and list engine arguments are taken whole: `needs` with costs named by measurement", {
  d <- heart_factor()
  parts <- split_rows(d)
  needs <- list(chol = c("blood_draw", "chol_assay"), fbs = c("blood_draw", "glucose_assay"))
  mcost <- c(heart_cost[setdiff(names(heart_cost), c("chol", "fbs"))], blood_draw = 2.1, chol_assay = 5.17,
             glucose_assay = 3.1)
  ref <- fgseq(diagnosis ~ ., data = parts$train, cost = mcost, needs = needs, family = "binomial", lambda = 1e-3)
  spec <- set_engine(logistic_reg(), "fgseq", cost = mcost, needs = needs, lambda = 1e-3, budget = 12)
  fitted <- fit(spec, diagnosis ~ ., data = parts$train)
  expect_identical(fitted$fit$needs, ref$needs)
  expect_equal(predict(fitted, parts$test, type = "prob")$.pred_TRUE,
               unname(predict(ref, newdata = parts$test, budget = 12, type = "response")[, 1]), tolerance = 1e-12)
})

test_that("a workflow and predict(budget = ) give fgseq()'s predictions", {
  d <- heart_factor()
  parts <- split_rows(d)
  ref <- fgseq(diagnosis ~ ., data = parts$train, cost = heart_cost, family = "binomial", method = "fr")
  spec <- set_engine(logistic_reg(), "fgseq", cost = heart_cost, method = "fr", budget = 10)
  wf <- workflows::add_formula(workflows::add_model(workflows::workflow(), spec), diagnosis ~ .)
  wf_fit <- fit(wf, data = parts$train)
  expect_equal(predict(wf_fit, parts$test, type = "prob")$.pred_TRUE,
               unname(predict(ref, newdata = parts$test, budget = 10, type = "response")[, 1]), tolerance = 1e-12)
  # a budget given to predict() overrides the specification's
  model <- workflows::extract_fit_parsnip(wf_fit)
  expect_equal(predict(model, parts$test, type = "prob", budget = 150)$.pred_TRUE,
               unname(predict(ref, newdata = parts$test, budget = 150, type = "response")[, 1]), tolerance = 1e-12)
  # without any budget, predict() says so
  bare <- fit(set_engine(logistic_reg(), "fgseq", cost = heart_cost), diagnosis ~ ., data = parts$train)
  expect_error(predict(bare, parts$test), "`budget`", class = "fgseq_error_input")
})

test_that("multi_predict() equals a loop over predict(budget = )", {
  budgets <- c(0, 1, 2.5, 9.3, 120, 300)
  parts <- split_rows(gauss_data())
  reg <- fit(set_engine(linear_reg(), "fgseq", cost = gauss_cost), trestbps ~ ., data = parts$train)
  multi <- multi_predict(reg, parts$test, budget = budgets)
  expect_identical(nrow(multi), nrow(parts$test))
  for (i in c(1L, 17L, nrow(parts$test))) {
    expect_identical(multi$.pred[[i]]$budget, budgets)
    loop <- vapply(budgets, function(b) predict(reg, parts$test[i, ], budget = b)$.pred, numeric(1))
    expect_equal(multi$.pred[[i]]$.pred, loop, tolerance = 1e-12)
  }
  # without budgets: every cost of the path
  all_steps <- multi_predict(reg, parts$test[1:2, ])
  expect_identical(all_steps$.pred[[1]]$budget, reg$fit$path$cost)

  d <- heart_factor()
  parts <- split_rows(d)
  cls <- fit(set_engine(logistic_reg(), "fgseq", cost = heart_cost), diagnosis ~ ., data = parts$train)
  prob <- multi_predict(cls, parts$test, budget = budgets, type = "prob")
  class <- multi_predict(cls, parts$test, budget = budgets)
  for (b in seq_along(budgets)) {
    p <- predict(cls, parts$test, budget = budgets[b], type = "prob")
    expect_equal(vapply(prob$.pred, function(r) r$.pred_TRUE[b], numeric(1)), p$.pred_TRUE, tolerance = 1e-12)
    expect_equal(vapply(prob$.pred, function(r) r$.pred_FALSE[b], numeric(1)), p$.pred_FALSE, tolerance = 1e-12)
    expect_identical(do.call(c, lapply(class$.pred, function(r) r$.pred_class[b])),
                     predict(cls, parts$test, budget = budgets[b])$.pred_class)
  }

  parts <- split_rows(iris)
  mult <- fit(set_engine(multinom_reg(), "fgseq", cost = iris_cost), Species ~ ., data = parts$train)
  mb <- c(0, 2, 4, 6, 10)
  prob <- multi_predict(mult, parts$test, budget = mb, type = "prob")
  for (b in seq_along(mb)) {
    p <- predict(mult, parts$test, budget = mb[b], type = "prob")
    got <- do.call(rbind, lapply(prob$.pred, function(r) as.data.frame(r[b, -1L])))
    expect_equal(unname(as.matrix(got)), unname(as.matrix(p)), tolerance = 1e-12)
  }
})

test_that("tune_grid() over 10 budgets and 5 folds fits 5 times, with the metrics of a loop over the folds", {
  d <- gauss_data()
  set.seed(11)
  folds <- rsample::vfold_cv(d, v = 5)
  grid <- tibble::tibble(budget = c(0, 1, 2, 3, 8.27, 20, 90, 110.5, 250, sum(gauss_cost)))
  spec <- set_engine(linear_reg(), "fgseq", cost = gauss_cost, budget = tune::tune())
  # count the engine's fits: a tracer on the fit function parsnip calls (fgseq::fgseq_parsnip_fit)
  count <- new.env()
  count$fits <- 0L
  ns <- asNamespace("fgseq")
  suppressMessages(trace("fgseq_parsnip_fit", where = ns, print = FALSE,
                         tracer = bquote(assign("fits", .(count)$fits + 1L, envir = .(count)))))
  res <- tryCatch(
    tune::tune_grid(spec, trestbps ~ ., resamples = folds, grid = grid,
                    metrics = yardstick::metric_set(yardstick::rmse)),
    finally = suppressMessages(untrace("fgseq_parsnip_fit", where = ns)))
  expect_identical(count$fits, 5L)
  got <- tune::collect_metrics(res, summarize = FALSE)
  got <- got[order(got$id, got$budget), ]
  ref <- do.call(rbind, lapply(seq_along(folds$splits), function(i) {
    train <- rsample::analysis(folds$splits[[i]])
    test <- rsample::assessment(folds$splits[[i]])
    pred <- predict(fgseq(trestbps ~ ., data = train, cost = gauss_cost), newdata = test, budget = grid$budget)
    data.frame(id = folds$id[i], budget = grid$budget, rmse = sqrt(colMeans((test$trestbps - pred)^2)))
  }))
  ref <- ref[order(ref$id, ref$budget), ]
  expect_identical(got$budget, ref$budget)
  expect_identical(got$id, ref$id)
  expect_equal(got$.estimate, ref$rmse, tolerance = 1e-12)
})

test_that("budget() is a dials parameter with the range of a fit's path", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
  param <- budget(fit = fit)
  expect_s3_class(param, "quant_param")
  expect_equal(unlist(dials::range_get(param)), c(lower = 0, upper = sum(heart_cost)))
  spec_fit <- fit(set_engine(logistic_reg(), "fgseq", cost = heart_cost), diagnosis ~ ., data = heart_factor())
  expect_equal(unlist(dials::range_get(budget(fit = spec_fit))), c(lower = 0, upper = sum(heart_cost)))
  # finalized by the predictors: the number of columns, the cost of every group at cost 1
  final <- dials::finalize(budget(), x = mtcars[, -1])
  expect_equal(unlist(dials::range_get(final)), c(lower = 0, upper = 10))
  expect_identical(dials::grid_regular(budget(range = c(0, 30)), levels = 4)$budget, c(0, 10, 20, 30))
  # tune() on the engine argument finds budget() and marks it a submodel argument
  spec <- set_engine(linear_reg(), "fgseq", budget = tune::tune())
  info <- tune::tunable(spec)
  expect_identical(info$call_info[[which(info$name == "budget")]], list(pkg = "fgseq", fun = "budget"))
  args <- get_model_env()$linear_reg_args
  expect_true(args$has_submodel[args$engine == "fgseq" & args$parsnip == "budget"])
  expect_error(budget(range = c(0, NA)), "`range`", class = "fgseq_error_input")
  expect_error(budget(fit = lm(mpg ~ wt, mtcars)), "`fit`", class = "fgseq_error_input")
})

test_that("bad engine arguments and budgets are classed errors naming the argument", {
  d <- gauss_data()
  f <- trestbps ~ .
  engine <- function(...) set_engine(linear_reg(), "fgseq", ...)
  # cost unnamed (parsnip fixes no order of the terms), or naming no variable of some term
  expect_error(fit(engine(cost = unname(gauss_cost)), f, data = d), "`cost`", class = "fgseq_error_input")
  expect_error(fit(engine(cost = gauss_cost[-1]), f, data = d), "cost", class = "fgseq_error_input")
  # budget: one number, within the fit's costs
  expect_error(fit(engine(cost = gauss_cost, budget = c(1, 2)), f, data = d), "`budget`", class = "fgseq_error_input")
  expect_error(fit(engine(cost = gauss_cost, budget = "10"), f, data = d), "`budget`", class = "fgseq_error_input")
  expect_error(fit(engine(cost = gauss_cost, budget = sum(gauss_cost) + 1), f, data = d), "`budget`",
               class = "fgseq_error_input")
  fitted <- fit(engine(cost = gauss_cost, budget = 10), f, data = d)
  expect_error(predict(fitted, d[1:3, ], budget = -1), "`budget`", class = "fgseq_error_input")
  expect_error(predict(fitted, d[1:3, ], budget = sum(gauss_cost) * 1.01), "`budget`", class = "fgseq_error_input")
  expect_error(predict(fitted, d[1:3, ], budget = c(5, 10)), "`budget`", class = "fgseq_error_input")
  expect_error(multi_predict(fitted, d[1:3, ], budget = c(5, 1e4)), "`budget`", class = "fgseq_error_input")
  expect_error(multi_predict(fitted, d[1:3, ], budget = c(5, NA)), "`budget`", class = "fgseq_error_input")
  expect_error(multi_predict(fitted, d[1:3, ], type = "prob"), "`type`", class = "fgseq_error_input")
  expect_error(multi_predict(fitted, d[1:3, ], budgets = 3), class = "fgseq_error_unknown_argument")
  # group: one label per term, or named by every term
  x <- mtcars[, -1]
  expect_error(fit_xy(engine(group = c("a", "b")), x = x, y = mtcars$mpg), "`group`", class = "fgseq_error_input")
  expect_error(fit_xy(engine(group = c(cyl = "a", disp = "b")), x = x, y = mtcars$mpg), "`group`",
               class = "fgseq_error_input")
  expect_error(fit_xy(engine(group = c(rep("a", 9), NA)), x = x, y = mtcars$mpg), "`group`",
               class = "fgseq_error_input")
  # needs: a named list (unnamed, fgseq() refuses it, naming it)
  expect_error(fit(engine(needs = list("blood", "blood")), f, data = d), "`needs`", class = "fgseq_error_input")
  # method and unknown engine arguments, as fgseq() checks them
  expect_error(fit(engine(cost = gauss_cost, method = "lasso"), f, data = d), "`method`", class = "fgseq_error_input")
  expect_error(fit(engine(cost = gauss_cost, lamda = 1), f, data = d), class = "fgseq_error_unknown_argument")
})
