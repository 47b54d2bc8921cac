# predictor_sql(): the SQL of a sequence's prediction, evaluated by SQLite, against predict().

sql_data <- function(n, seed) {
  set.seed(seed)
  d <- data.frame(a = rnorm(n), b = rnorm(n), c = exp(rnorm(n)),
                  f = factor(sample(c("lo", "mid", "hi"), n, TRUE), levels = c("lo", "mid", "hi")),
                  g = factor(sample(c("no", "it's"), n, TRUE), levels = c("no", "it's")),
                  l = sample(c(TRUE, FALSE), n, TRUE))
  eta <- 0.5 * d$a - d$b + 0.8 * log(d$c) + c(lo = 0, mid = 0.7, hi = -0.9)[as.character(d$f)] +
    0.6 * d$l + 0.5 * d$a * (d$f == "hi") + 0.4 * (d$f == "mid") * (d$g == "it's")
  d$y <- eta + rnorm(n, sd = 0.3)
  d$yb <- rbinom(n, 1, plogis(eta))
  d$yp <- rpois(n, exp(0.4 * eta))
  d$ym <- factor(c("r", "s", "t")[1L + (eta > -0.3) + (eta > 0.6)])
  d
}

sql_formula <- ~ a + I(b^2) + f + log(c) + l + a:f + f:g
sql_cost <- c(a = 1, b = 2, f = 3, c = 4, l = 5, g = 7)  # by variable; a:f and f:g need a, f and g

# New rows, some of whose later groups were not computed (NULL in the table, NA in the data frame).
with_missing <- function(d) {
  d$f[c(3, 9)] <- NA
  d$c[c(4, 10, 11)] <- NA
  d$b[c(5, 12)] <- NA
  d$l[c(6, 13)] <- NA
  d$g[c(7, 14)] <- NA
  d$a[15] <- NA
  d
}

sqlite_with <- function(d) {
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  DBI::dbWriteTable(con, "rows", d)
  con
}

run_sql <- function(con, expr, table = "rows") {
  sel <- paste(sprintf("%s AS \"e%d\"", expr, seq_along(expr)), collapse = ", ")
  as.matrix(DBI::dbGetQuery(con, paste("SELECT", sel, "FROM", table, "ORDER BY rowid")))
}

fit_of <- function(response, family, data, ...) {
  fgseq(stats::update(sql_formula, stats::as.formula(paste(response, "~ ."))), data = data, cost = sql_cost,
        family = family, ...)
}

test_that("the SQL link equals predict(missing = \"prefix\") at three budgets, factors, interactions, NULLs", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("dbplyr")
  d <- sql_data(300, 1)
  fit <- fit_of("y", "gaussian", d)
  expect_gte(length(fit$sequence), 6L)
  new <- with_missing(sql_data(40, 2))
  con <- sqlite_with(new)
  on.exit(DBI::dbDisconnect(con))
  costs <- fit$path$cost
  budgets <- c(costs[3], (costs[4] + costs[5]) / 2, 1e3)
  expr <- predictor_sql(fit, budget = budgets, con = con)
  expect_s3_class(expr, "sql")
  expect_named(expr, paste0("budget=", format(budgets, trim = TRUE)))
  want <- predict(fit, newdata = new, budget = budgets, missing = "prefix")
  expect_true(any(attr(want, "step")[, 3] < length(fit$sequence)))  # rows stopped by a NULL
  got <- run_sql(con, expr)
  expect_equal(unname(got), unname(unclass(want)[, 1:3]), tolerance = 1e-10, ignore_attr = TRUE)
  # the same link from the coefficients by hand, on the complete rows
  full <- stats::complete.cases(new)
  mm <- stats::model.matrix(sql_formula, new[full, ])
  beta <- coef(fit, budget = budgets[2])
  expect_equal(unname(got[full, 2]), unname(drop(mm[, rownames(beta)] %*% beta)), tolerance = 1e-10)
  # log(c) as dbplyr translates it for PostgreSQL, its variable quoted as standard SQL
  pg_log <- dbplyr::translate_sql(log(!!dbplyr::sql(as.character(DBI::dbQuoteIdentifier(DBI::ANSI(), "c")))),
                                  con = dbplyr::simulate_postgres())
  expect_true(grepl(pg_log, predictor_sql(fit, budget = 1e3, con = "postgres"), fixed = TRUE))
})

test_that("a per-row budget column is scored as predict(per_row = TRUE, missing = \"prefix\")", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("dbplyr")
  fit <- fit_of("y", "gaussian", sql_data(300, 3))
  new <- with_missing(sql_data(40, 4))
  new$spend <- rep(c(0, 1, 3.5, 8, 13, 40, 1e4, fit$path$cost[4]), 5)
  con <- sqlite_with(new)
  on.exit(DBI::dbDisconnect(con))
  want <- predict(fit, newdata = new, budget = new$spend, per_row = TRUE, missing = "prefix")
  got <- run_sql(con, predictor_sql(fit, budget = "spend", con = con))
  expect_equal(unname(got[, 1]), unname(as.vector(want)), tolerance = 1e-10)
  twice <- run_sql(con, predictor_sql(fit, budget = dbplyr::sql("2 * \"spend\""), con = con))
  want2 <- predict(fit, newdata = new, budget = 2 * new$spend, per_row = TRUE, missing = "prefix")
  expect_equal(unname(twice[, 1]), unname(as.vector(want2)), tolerance = 1e-10)
  # a NULL or negative budget scores NULL
  DBI::dbExecute(con, "UPDATE rows SET spend = NULL WHERE rowid = 1")
  DBI::dbExecute(con, "UPDATE rows SET spend = -1 WHERE rowid = 2")
  got <- run_sql(con, predictor_sql(fit, budget = "spend", con = con))
  expect_true(all(is.na(got[1:2, 1])))
})

test_that("the SQL response equals predict(type = \"response\") for binomial, poisson and multinomial fits", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("dbplyr")
  d <- sql_data(400, 5)
  new <- with_missing(sql_data(40, 6))
  con <- sqlite_with(new)
  on.exit(DBI::dbDisconnect(con))
  for (case in list(c("yb", "binomial"), c("yp", "poisson"), c("ym", "multinomial"))) {
    fit <- fit_of(case[1], case[2], d, lambda = 1e-3)
    costs <- fit$path$cost
    budgets <- c(costs[2], costs[4], 1e3)
    for (type in c("link", "response")) {
      want <- predict(fit, newdata = new, budget = budgets, missing = "prefix", type = type)
      got <- run_sql(con, predictor_sql(fit, budget = budgets, con = con, type = type))
      if (case[2] == "multinomial") {
        want <- matrix(unclass(want), 40)  # rows x (classes of budget 1, of budget 2, ...)
      }
      expect_equal(unname(got), unname(matrix(unclass(want), 40)), tolerance = 1e-10, info = paste(case, type))
    }
  }
  fit <- fit_of("ym", "multinomial", d, lambda = 1e-3)
  expect_named(predictor_sql(fit, budget = 5, con = con), paste0("budget=5:", c("r", "s", "t")))
})

test_that("EXP never sees an argument beyond 700: extreme rows score as predict() does", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("dbplyr")
  d <- sql_data(400, 5)
  new <- sql_data(6, 7)
  new$a <- c(-1e4, -800, -1, 1, 800, 1e4)  # linear predictors far beyond +-709 (where EXP overflows)
  con <- sqlite_with(new)
  on.exit(DBI::dbDisconnect(con))
  for (case in list(c("yb", "binomial"), c("ym", "multinomial"), c("yp", "poisson"))) {
    fit <- fit_of(case[1], case[2], d, lambda = 1e-3)
    expr <- predictor_sql(fit, budget = 1e3, con = con, type = "response")
    # every EXP( is followed by the CASE that holds its argument
    expect_identical(lengths(regmatches(expr, gregexpr("EXP(", expr, fixed = TRUE))),
                     lengths(regmatches(expr, gregexpr("EXP(CASE WHEN ", expr, fixed = TRUE))))
    got <- unname(run_sql(con, expr))
    link <- predict(fit, newdata = new, budget = 1e3, type = "link")
    want <- unname(matrix(unclass(predict(fit, newdata = new, budget = 1e3, type = "response")), 6))
    if (case[2] == "poisson") {
      # the mean, with the exponent held at +-700
      expect_equal(got, exp(pmin(pmax(unname(link), -700), 700)), tolerance = 1e-10)
      expect_true(any(abs(link) > 709))
    } else {
      expect_equal(got, want, tolerance = 1e-10)
      expect_true(all(is.finite(got)))
    }
  }
})

test_that("a matrix fit reads its columns by quoted name, in every dialect's quoting", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("dbplyr")
  set.seed(7)
  x <- matrix(rnorm(200 * 4), 200, dimnames = list(NULL, c("x 1", "it's", "select", "x\"4")))
  y <- drop(x %*% c(1, -2, 0.5, 1)) + rnorm(200)
  fit <- fgseq(x, y, cost = c(1, 2, 3, 4))
  newx <- matrix(rnorm(20 * 4), 20, dimnames = list(NULL, colnames(x)))
  newx[3, 3] <- NA
  newx[4, 1] <- NA
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "rows", as.data.frame(newx, check.names = FALSE))
  got <- run_sql(con, predictor_sql(fit, budget = c(2, 100), con = con))
  want <- predict(fit, newx, budget = c(2, 100), missing = "prefix")
  expect_equal(unname(got), unname(unclass(want)[, 1:2]), tolerance = 1e-10, ignore_attr = TRUE)
  # two response columns (mgaussian): one expression per budget and column
  mg <- fgseq(x, cbind(u = y, v = x[, 2] - y + rnorm(200)), cost = c(1, 2, 3, 4), family = "mgaussian")
  got <- run_sql(con, predictor_sql(mg, budget = c(2, 100), con = con))
  want <- predict(mg, newx, budget = c(2, 100), missing = "prefix")
  expect_equal(unname(got), unname(matrix(unclass(want), 20)), tolerance = 1e-10)
  pg <- predictor_sql(fit, budget = 100, con = "postgres")
  expect_true(grepl(as.character(DBI::dbQuoteIdentifier(DBI::ANSI(), "x\"4")), pg, fixed = TRUE))
  expect_identical(predictor_sql(fit, budget = 100, con = dbplyr::simulate_postgres()), pg)
  expect_true(grepl(as.character(DBI::dbQuoteIdentifier(con, "x\"4")), predictor_sql(fit, budget = 100, con = con),
                    fixed = TRUE))
})

test_that("bad input to predictor_sql() is a classed error naming the argument", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("dbplyr")
  d <- sql_data(200, 8)
  fit <- fit_of("y", "gaussian", d)
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  expect_error(predictor_sql(fit, budget = -1, con = con), "`budget`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = NA_real_, con = con), "`budget`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = numeric(0), con = con), "`budget`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = list(1), con = con), "`budget`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = c("a", "b"), con = con), "`budget`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, con = con), "`budget`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = 1, con = "nosuchdialect"), "`con`", class = "fgseq_error_sql_dialect")
  fake <- methods::setClass("FgseqFakeConnection", contains = "DBIConnection", where = globalenv())
  on.exit(methods::removeClass("FgseqFakeConnection", where = globalenv()), add = TRUE)
  expect_error(predictor_sql(fit, budget = 1, con = fake()), "`con`", class = "fgseq_error_sql_dialect")
  expect_error(predictor_sql(fit, budget = 1, con = list()), "`con`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = 1), "`con`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = 1, con = con, type = "class"), "`type`", class = "fgseq_error_input")
  expect_error(predictor_sql(fit, budget = 1, con = con, step = 2), "step", class = "fgseq_error_unknown_argument")
  expect_error(predictor_sql(list(), budget = 1, con = con), "`fit`", class = "fgseq_error_input")
  # models without a SQL form here
  set.seed(9)
  x <- matrix(rnorm(100 * 3), 100)
  m <- miser(x, x[, 1] + rnorm(100), cost = c(1, 2, 3), max_steps = 3)
  expect_error(predictor_sql(m, budget = 1, con = con), "`fit`", class = "fgseq_error_sql")
  off <- fgseq(x, rpois(100, 2), family = "poisson", offset = rep(0.1, 100))
  expect_error(predictor_sql(off, budget = 1, con = con), "`fit`", class = "fgseq_error_sql")
  fac <- fgseq(y ~ a + factor(l), data = d)
  expect_error(predictor_sql(fac, budget = 1, con = con), "factor\\(l\\)", class = "fgseq_error_sql")
  broken <- fit
  broken$beta <- NULL
  expect_error(predictor_sql(broken, budget = 1, con = con), class = "fgseq_error_invalid_object")
})
