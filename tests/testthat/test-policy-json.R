# write_predictor(<fgseq_policy>): the JSON carries the policy, and the plain-Python scorer of
# inst/python/fgseq_policy.py, reading only the file, buys the same groups at the same cost and gives the
# predictions of predict(policy, ...) and the answers of next_group().

policy_script <- function() {
  path <- system.file("python", "fgseq_policy.py", package = "fgseq")
  if (!nzchar(path)) path <- testthat::test_path("..", "..", "inst", "python", "fgseq_policy.py")
  path
}

# Rows as a JSON array of objects, numbers with 17 significant digits (jsonlite writes at most 15).
write_rows_json <- function(df, file) {
  cell <- function(v) {
    if (is.na(v)) return("null")
    if (is.factor(v) || is.character(v)) return(as.character(jsonlite::toJSON(as.character(v), auto_unbox = TRUE)))
    if (is.logical(v)) return(if (v) "true" else "false")
    sprintf("%.17g", v)
  }
  lines <- vapply(seq_len(nrow(df)), function(i) {
    paste0("{", paste0('"', names(df), '":', vapply(names(df), function(n) cell(df[[n]][i]), ""), collapse = ","), "}")
  }, "")
  writeLines(paste0("[", paste(lines, collapse = ",\n"), "]"), file)
}

# Rows of a numeric matrix as CSV, 17 significant digits.
write_rows_csv <- function(x, file) {
  body <- apply(x, 1L, function(r) paste(sprintf("%.17g", r), collapse = ","))
  writeLines(c(paste(colnames(x), collapse = ","), body), file)
}

# Runs the script; returns its parsed output, or its status and messages when it fails.
run_policy_script <- function(json, rows, args = character(0), csv = FALSE) {
  rf <- tempfile(fileext = if (csv) ".csv" else ".json")
  on.exit(unlink(rf))
  if (csv) write_rows_csv(rows, rf) else write_rows_json(rows, rf)
  out <- suppressWarnings(system2("python3", c(shQuote(policy_script()), shQuote(json), shQuote(rf), args),
                                  stdout = TRUE, stderr = TRUE))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0L) return(list(status = status, message = paste(out, collapse = "\n")))
  jsonlite::fromJSON(paste(out, collapse = "\n"), simplifyVector = FALSE)$rows
}

as_groups <- function(v) if (is.null(v)) character(0) else as.character(unlist(v))

# The scorer's answers `out` of `--next` on the rows equal next_group() of R, row by row: the group, done,
# the groups observed and their cost, the prediction, its sd and risk, and each candidate's marginal
# cost, reduction and score (to 1e-12).
expect_next_groups <- function(policy, rows, out) {
  for (i in seq_len(nrow(rows))) {
    want <- next_group(policy, rows[i, ])
    got <- out[[i]]
    expect_identical(if (is.null(got$group)) NA_character_ else got$group, want$group)
    expect_identical(got$done, want$done)
    expect_identical(as_groups(got$observed), as.character(want$observed))
    expect_equal(as.numeric(got$cost), want$cost, tolerance = 1e-12)
    expect_lte(abs(got$response[[1]] - want$response), 1e-12)
    expect_lte(abs(got$link[[1]] - want$link), 1e-12)
    expect_lte(abs(got$sd - want$sd), 1e-12)
    expect_lte(abs(got$risk - want$risk), 1e-12)
    cand <- want$candidates
    expect_identical(vapply(got$candidates, `[[`, "", "group"), cand$group)
    expect_identical(vapply(got$candidates, function(r) as.numeric(r$marginal_cost), 0), cand$marginal_cost)
    expect_lte(max(abs(vapply(got$candidates, function(r) as.numeric(r$reduction), 0) - cand$reduction), 0), 1e-12)
    score <- vapply(got$candidates, function(r) if (is.null(r$score)) NA_real_ else as.numeric(r$score), 0)
    expect_identical(is.na(score), is.na(cand$score))
    expect_equal(score, cand$score, tolerance = 1e-12)
  }
}

# The scorer's rows against predict(policy, ...): identical groups, costs and predictions within 1e-12
# (R sums a row's costs in the order of the first row to buy its set of groups).
expect_policy_scores <- function(policy, json, rows, newx = NULL, newdata = NULL, budget = NULL, csv = FALSE,
                                 args = character(0)) {
  out <- run_policy_script(json, rows, c(args, if (!is.null(budget)) c("--budget", format(budget, digits = 17))), csv)
  expect_false(!is.null(out$status), info = out$message)
  resp <- predict(policy, newx = newx, newdata = newdata, budget = budget)
  link <- predict(policy, newx = newx, newdata = newdata, budget = budget, type = "link")
  expect_identical(length(out), NROW(resp))
  expect_identical(lapply(out, function(r) as_groups(r$groups)),
                   unname(lapply(attr(resp, "groups"), function(g) as.character(g))))
  expect_equal(vapply(out, function(r) as.numeric(r$cost), 0), unname(attr(resp, "cost")), tolerance = 1e-12)
  by_row <- function(what) matrix(unlist(lapply(out, `[[`, what)), nrow = length(out), byrow = TRUE)
  expect_lte(max(abs(by_row("response") - unname(as.matrix(resp)))), 1e-12)
  expect_lte(max(abs(by_row("link") - unname(as.matrix(link)))), 1e-12)
  if (policy$family != "gaussian") {
    # the class of the response (type = "class" decides on the same links)
    prob <- as.matrix(resp)
    cls <- if (ncol(prob) == 1L) policy$fit$classes[(prob[, 1L] > 0.5) + 1L] else policy$fit$classes[max.col(prob, "first")]
    expect_identical(vapply(out, function(r) as.character(r$class), ""), cls)
  }
  invisible(list(out = out, groups = attr(resp, "groups")))
}

# The vignette's fit, policy and rows (vignette("adaptive")): a blood draw shared by chol and fbs.
vignette_heart <- function() {
  needs <- list(chol = c("blood_draw", "chol"), fbs = c("blood_draw", "fbs"))
  cost <- c(replace(heart_cost, c("chol", "fbs"), c(5.17, 3.10)), blood_draw = 2.10)
  set.seed(2016)
  rows <- sample(nrow(heart))
  fit <- fgseq(diagnosis ~ ., data = heart[rows[1:150], ], cost = cost, needs = needs, family = "binomial",
               lambda = 1e-3)
  list(fit = fit, calibration = heart[rows[151:230], ], test = heart[rows[231:303], ])
}

test_that("binomial formula fit on heart: the scorer buys the groups of predict(policy) and predicts the same", {
  skip_if(Sys.which("python3") == "")
  v <- vignette_heart()
  fit <- v$fit
  policy <- fgseq_policy(fit, data = v$calibration, epsilon = 0.1, delta = 0.1)
  json <- tempfile(fileext = ".json")
  on.exit(unlink(json))
  expect_identical(write_predictor(policy, json), json)
  doc <- jsonlite::fromJSON(json, simplifyVector = FALSE)
  # the fit's document, unchanged, plus the policy
  fit_json <- tempfile(fileext = ".json")
  on.exit(unlink(fit_json), add = TRUE)
  write_predictor(policy$fit, fit_json)
  expect_identical(doc[setdiff(names(doc), "policy")], jsonlite::fromJSON(fit_json, simplifyVector = FALSE))
  pol <- doc$policy
  expect_identical(pol$rule, "adaptive")
  expect_identical(as.numeric(pol$threshold), policy$tau)
  expect_identical(pol$budget, "Inf")
  expect_identical(unlist(pol$columns), names(fit$group)[policy$cm$columns])
  expect_identical(matrix(unlist(pol$J), nrow = length(pol$J), byrow = TRUE), unname(policy$cm$J))
  expect_identical(lapply(pol$bivariate_normal$rules, function(r) unlist(r$x)), lapply(fgseq:::.bvn_rules(), `[[`, "x"))
  expect_identical(pol$calibration$n, 80L)
  # new rows, as the data frame of the vignette gives them (raw variables, factors by level)
  rows <- v$test
  res <- expect_policy_scores(policy, json, rows, newdata = rows)
  expect_gt(length(unique(res$groups)), 2L)  # rows take different paths
  # under a budget
  expect_policy_scores(policy, json, rows[1:15, ], newdata = rows[1:15, ], budget = 40)
  # the model-matrix columns as input, computed by the independent scorer of helper-scorer.R
  cols <- as.data.frame(scorer_columns(doc, rows[1:8, ]), check.names = FALSE)
  expect_policy_scores(policy, json, cols, newdata = rows[1:8, ], args = c("--input", "columns"))
  # a cascade on the same fit
  cascade <- fgseq_policy(fit, data = v$calibration, epsilon = 0.1, delta = 0.1, rule = "cascade")
  write_predictor(cascade, json)
  expect_policy_scores(cascade, json, rows, newdata = rows)
  # stopping on the risk of the row
  risky <- fgseq_policy(fit, data = v$calibration, epsilon = 0.1, delta = 0.1, stopping = "risk")
  write_predictor(risky, json)
  expect_identical(jsonlite::fromJSON(json)$policy$stopping, "risk")
  res <- expect_policy_scores(risky, json, rows, newdata = rows)
  expect_gt(length(unique(res$groups)), 2L)
  # stopping on the lookahead, and under a budget that leaves out buying every group
  ahead <- fgseq_policy(fit, data = v$calibration, epsilon = 0.1, delta = 0.1, stopping = "lookahead")
  write_predictor(ahead, json)
  expect_identical(jsonlite::fromJSON(json)$policy$stopping, "lookahead")
  res <- expect_policy_scores(ahead, json, rows, newdata = rows)
  expect_gt(length(unique(res$groups)), 2L)
  expect_policy_scores(ahead, json, rows[1:15, ], newdata = rows[1:15, ], budget = 300)
  # stopping on the margin with the adaptive rule
  margined <- fgseq_policy(fit, data = v$calibration, epsilon = 0.1, delta = 0.1, stopping = "margin")
  write_predictor(margined, json)
  expect_policy_scores(margined, json, rows, newdata = rows)
})

test_that("the scorer's next_group() is next_group() for partially measured rows", {
  skip_if(Sys.which("python3") == "")
  v <- vignette_heart()
  policy <- fgseq_policy(v$fit, tau = 1e-4, budget = 250)
  json <- tempfile(fileext = ".json")
  on.exit(unlink(json))
  write_predictor(policy, json)
  rows <- v$test[1:8, ]
  vars <- setdiff(names(heart), "diagnosis")
  measured <- list(character(0), "cp", c("cp", "sex"), c("thal", "age"), vars, c("ca", "oldpeak", "slope"),
                   c("chol", "fbs"), "exang")
  for (i in seq_along(measured)) rows[i, setdiff(vars, measured[[i]])] <- NA
  out <- run_policy_script(json, rows, "--next")
  expect_false(!is.null(out$status), info = out$message)
  expect_next_groups(policy, rows, out)
})

test_that("multinomial (iris): the scorer follows the contrast of the two leading classes", {
  skip_if(Sys.which("python3") == "")
  set.seed(3)
  idx <- sample(nrow(iris))
  fit <- fgseq(Species ~ ., data = iris[idx[1:75], ], family = "multinomial", lambda = 1e-2,
               cost = c(Sepal.Length = 1, Sepal.Width = 2, Petal.Length = 4, Petal.Width = 3))
  rows <- iris[idx[76:150], ]
  policy <- fgseq_policy(fit, data = rows, epsilon = 0.1, delta = 0.2)
  json <- tempfile(fileext = ".json")
  on.exit(unlink(json))
  write_predictor(policy, json)
  expect_identical(jsonlite::fromJSON(json)$policy$family, "multinomial")
  res <- expect_policy_scores(policy, json, rows, newdata = rows)
  expect_gt(length(unique(lengths(res$groups))), 1L)
})

test_that("gaussian matrix fit with shared measurements (needs): costs paid once, free groups, budgets", {
  skip_if(Sys.which("python3") == "")
  d <- sim_groups(n = 200, sizes = c(2, 3, 1, 2, 2), rho = 0.5, seed = 11)
  needs <- list(a = c("draw", "ma"), c = c("draw", "mc"), e = c("ma", "mc"), b = c("record", "mb"))
  mcost <- c(draw = 2.1, ma = 5.17, mc = 3.1, record = 0, mb = 4, d = 6.5)
  fit <- fgseq(d$x[1:100, ], d$y[1:100], group = d$group, cost = mcost, needs = needs)
  policy <- fgseq_policy(fit, x = d$x[101:200, ], epsilon = 0.1, delta = 0.2, tol = 4)
  json <- tempfile(fileext = ".json")
  on.exit(unlink(json))
  write_predictor(policy, json)
  doc <- jsonlite::fromJSON(json, simplifyVector = FALSE)
  expect_identical(as.numeric(doc$policy$tol), 4)
  expect_identical(vapply(doc$measurements, function(m) as.numeric(m$cost), 0), unname(fit$measurement_cost))
  x <- d$x[101:200, ]
  expect_policy_scores(policy, json, x, newx = x, csv = TRUE)
  expect_policy_scores(policy, json, x, newx = x, budget = 7.2, csv = TRUE)
  # the whole sequence with a budget: e is free once a and c are paid
  seq_policy <- fgseq_policy(fit, rule = "sequence", tau = 0, tol = 4, budget = 24)
  write_predictor(seq_policy, json)
  res <- expect_policy_scores(seq_policy, json, x, newx = x, csv = TRUE)
  expect_true(all(lengths(res$groups) > 1L))
})

# --- a mixture working model (fgseq_mixture()) ---------------------------------------------------------

json_mixture_policy <- function() {
  md <- mixture_data(500, 11)  # helper-mixture-reference.R
  fit <- fgseq(md$x[1:300, ], md$y[1:300], md$group, md$cost, family = "binomial", lambda = 1e-3)
  set.seed(5)
  mix <- fgseq_mixture(fit, md$x[1:300, ], components = 2, draws = 8)
  list(fit = fit, mix = mix, x = md$x, y = md$y)
}

test_that("a mixture working model: the document carries it, and the scorer buys and predicts as predict(policy)", {
  skip_if(Sys.which("python3") == "")
  m <- json_mixture_policy()
  policy <- fgseq_policy(m$fit, m$x[301:450, ], m$y[301:450], epsilon = 0.1, delta = 0.1, working_model = m$mix)
  json <- tempfile(fileext = ".json")
  on.exit(unlink(json))
  write_predictor(policy, json)
  doc <- jsonlite::fromJSON(json, simplifyVector = FALSE)
  mx <- doc$policy$mixture
  want <- policy$cm$mixture
  as_matrix <- function(rows) matrix(unlist(rows), nrow = length(rows), byrow = TRUE)
  # every number reads back as the same double
  expect_length(want$components, 2L)
  expect_length(mx$components, 2L)
  for (k in seq_along(want$components)) {
    got <- mx$components[[k]]
    ck <- want$components[[k]]
    expect_identical(as_matrix(got$J), unname(ck$J))
    expect_identical(unlist(got$mu), ck$mu)
    expect_identical(unlist(got$base), ck$base)
    expect_identical(unlist(got$diag0), unname(ck$diag0))
    expect_identical(got$log_prior, ck$log_prior)
  }
  expect_identical(as_matrix(mx$draws), unname(want$draws))
  # the single Gaussian's members stay (not read under the mixture)
  expect_identical(as_matrix(doc$policy$J), unname(policy$cm$J))
  # a policy without a working model has no member `mixture`
  plain <- tempfile(fileext = ".json")
  on.exit(unlink(plain), add = TRUE)
  write_predictor(fgseq_policy(m$fit, tau = 1e-3), plain)
  expect_false("mixture" %in% names(jsonlite::fromJSON(plain, simplifyVector = FALSE)$policy))
  # new rows: the same groups, costs and predictions, with and without a budget
  rows <- m$x[451:500, ]
  res <- expect_policy_scores(policy, json, rows, newx = rows, csv = TRUE)
  expect_gt(length(unique(res$groups)), 2L)  # rows take different paths
  expect_true(any(vapply(res$groups, function(g) "B" %in% g && !"A" %in% g, TRUE)))
  expect_true(any(vapply(res$groups, function(g) "A" %in% g && !"B" %in% g, TRUE)))
  expect_policy_scores(policy, json, rows[1:20, ], newx = rows[1:20, ], budget = 9, csv = TRUE)
  # a fixed tau under a budget, and the sequence rule
  fixed <- fgseq_policy(m$fit, tau = 1e-3, budget = 12, working_model = m$mix)
  write_predictor(fixed, json)
  res <- expect_policy_scores(fixed, json, rows, newx = rows, csv = TRUE)
  expect_gt(length(unique(res$groups)), 2L)
  ordered <- fgseq_policy(m$fit, rule = "sequence", tau = 1e-3, working_model = m$mix)
  write_predictor(ordered, json)
  expect_policy_scores(ordered, json, rows[1:20, ], newx = rows[1:20, ], csv = TRUE)
})

test_that("a mixture working model: the scorer's next_group() is next_group() for partially measured rows", {
  skip_if(Sys.which("python3") == "")
  m <- json_mixture_policy()
  policy <- fgseq_policy(m$fit, tau = 1e-3, budget = 12, working_model = m$mix)
  json <- tempfile(fileext = ".json")
  on.exit(unlink(json))
  write_predictor(policy, json)
  measured <- list(character(0), "hint", "B", c("hint", "A"), c("B", "N"), c("hint", "A", "B", "N"), "A",
                   c("hint", "N"))
  rows <- m$x[451:458, ]
  for (i in seq_along(measured)) rows[i, !m$fit$group %in% measured[[i]]] <- NA
  out <- run_policy_script(json, rows, "--next", csv = TRUE)
  expect_false(!is.null(out$status), info = out$message)
  expect_next_groups(policy, rows, out)
  # the rows cover a node with candidates that reduce the risk, and a row that stops
  expect_true(any(vapply(out, function(r) length(r$candidates) > 0 && any(vapply(r$candidates, function(c) c$reduction > 0, TRUE)), TRUE)))
  expect_true(any(vapply(out, function(r) isTRUE(r$done), TRUE)))
})

# --- bad input ---------------------------------------------------------------------------------------

test_that("write_predictor(<policy>) and the scorer: unknown arguments, damaged policies, fits without a policy", {
  fit <- fgseq(diagnosis ~ age + sex + cp + thal, data = heart, family = "binomial",
               cost = heart_cost[c("age", "sex", "cp", "thal")])
  policy <- fgseq_policy(fit, tau = 1e-3)
  json <- tempfile(fileext = ".json")
  on.exit(unlink(json))
  expect_error(write_predictor(policy, json, digits = 3), class = "fgseq_error_unknown_argument")
  bad <- policy
  bad$cm$J <- bad$cm$J[-1, ]
  expect_error(write_predictor(bad, json), class = "fgseq_error_invalid_object")
  expect_false(file.exists(json))
  skip_if(Sys.which("python3") == "")
  write_predictor(policy, json)
  rows <- heart[1:3, ]
  out <- run_policy_script(json, rows, "--digits")
  expect_identical(out$status, 2L)
  expect_match(out$message, "unknown argument '--digits'")
  write_predictor(fit, json)
  out <- run_policy_script(json, rows)
  expect_identical(out$status, 1L)
  expect_match(out$message, "holds no `policy`")
  write_predictor(policy, json)
  rows$cp <- as.character(rows$cp)
  rows$cp[2] <- "unknown"
  out <- run_policy_script(json, rows)
  expect_identical(out$status, 1L)
  expect_match(out$message, "level 'unknown'")
})
