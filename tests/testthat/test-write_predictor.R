# write_predictor(): the JSON, scored by the independent plain-R scorer of helper-scorer.R, gives
# predict() on every step; a file that cannot be written leaves nothing behind.

expect_scores_match <- function(fit, data, newdata = NULL, tol = 1e-12) {
  path <- tempfile(fileext = ".json")
  on.exit(unlink(path))
  expect_identical(write_predictor(fit, path), path)
  pred <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  etas <- score_predictor(path, if (is.null(newdata)) data else newdata)
  link <- if (is.null(newdata)) predict(fit, data) else predict(fit, newdata = newdata)
  resp <- if (is.null(newdata)) predict(fit, data, type = "response") else predict(fit, newdata = newdata, type = "response")
  K <- nrow(fit$path) - 1L
  expect_identical(length(etas), K + 1L)
  for (k in 0:K) {
    want <- if (length(dim(link)) == 3L) link[, , k + 1L] else link[, k + 1L]
    expect_close(etas[[k + 1L]], want, tol, paste("link, step", k))
    want <- if (length(dim(resp)) == 3L) resp[, , k + 1L] else resp[, k + 1L]
    expect_close(scorer_response(pred$link, etas[[k + 1L]]), want, tol, paste("response, step", k))
  }
  expect_close(vapply(pred$steps, function(s) as.numeric(s$cost), numeric(1)), fit$path$cost, 0)
  invisible(pred)
}

test_that("gaussian: the scored JSON is predict() on every step, numbers read back exactly", {
  d <- sim_groups(80, sizes = c(2, 3, 1, 2))
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, method = "fr")
  pred <- expect_scores_match(fit, d$x)
  # 17 significant digits: every coefficient reads back as the same double
  last <- pred$steps[[length(pred$steps)]]
  expect_identical(vapply(last$coefficients, function(v) v[[1]], numeric(1)), fit$beta[, ncol(fit$beta)])
  expect_identical(vapply(pred$groups, `[[`, "", "label"), unique(d$group))
  expect_identical(unlist(pred$sequence), fit$sequence)
})

test_that("binomial formula fit with factors, an interaction and a transformed variable", {
  fit <- fgseq(diagnosis ~ age + cp + sex + thal + cp:thal + log(chol), data = heart[1:200, ], family = "binomial",
               cost = c(age = 1, cp = 1, sex = 1, thal = 102.9, chol = 7.27), lambda = 1e-3)
  pred <- expect_scores_match(fit, newdata = heart[201:303, ])
  expect_identical(pred$link, "logit")
  expect_identical(unlist(pred$classes), c("FALSE", "TRUE"))
  vars <- vapply(pred$formula$variables, `[[`, "", "name")
  expect_true(pred$formula$variables[[match("log(chol)", vars)]]$expression)
  expect_identical(unlist(pred$formula$variables[[match("cp", vars)]]$levels), levels(heart$cp))
})

test_that("multinomial and Greedy Miser fits", {
  d <- sim_glm("multinomial", n = 90, sizes = c(2, 1, 2, 1))
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, family = "multinomial", lambda = 1e-3)
  pred <- expect_scores_match(fit, d$x)
  expect_identical(pred$link, "softmax")
  m <- miser(diagnosis ~ ., data = heart[1:200, ], cost = heart_cost, family = "binomial", max_steps = 25, depth = 2)
  pred <- expect_scores_match(m, newdata = heart[201:303, ])
  expect_identical(pred$model, "trees")
  s <- sim_miser()
  mm <- miser(s$x, s$yk, cost = seq_len(ncol(s$x)), family = "multinomial", max_steps = 8, depth = 2)
  expect_scores_match(mm, s$x)
})

test_that("a prefix read from the JSON's new_columns is the step predict(missing = 'prefix') uses", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  path <- tempfile(fileext = ".json")
  on.exit(unlink(path))
  write_predictor(fit, path)
  pred <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  h <- heart[1:6, ]
  h$thal[1] <- NA
  h$age[2] <- NA
  x <- scorer_columns(pred, h)
  budget <- 250
  reached <- vapply(seq_len(nrow(x)), function(i) {
    k <- 0L
    for (s in pred$steps[-1L]) {
      cols <- unlist(s$new_columns)
      if (as.numeric(s$cost) > budget || anyNA(x[i, cols])) break
      k <- s$step
    }
    k
  }, integer(1))
  got <- predict(fit, newdata = h, budget = budget, missing = "prefix")
  expect_identical(unname(attr(got, "step")[, 1]), reached)
})

# --- bad input ---------------------------------------------------------------------------------------

test_that("write_predictor() to a path that cannot be written errors and leaves nothing behind", {
  fit <- fgseq(diagnosis ~ age + cp, data = heart, cost = heart_cost[c("age", "cp")])
  dir <- tempfile("predictor-dir")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  expect_error(write_predictor(fit, file.path(dir, "no-such-dir", "p.json")), class = "fgseq_error_write")
  target <- file.path(dir, "taken")
  dir.create(target)  # a directory where the file should go
  expect_error(write_predictor(fit, target), class = "fgseq_error_write")
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "taken")
  expect_error(write_predictor(fit, c("a.json", "b.json")), class = "fgseq_error_write")
  expect_error(write_predictor(fit), "`file` must be a single path", class = "fgseq_error_write")
  # the rename onto an existing directory fails after the temporary file was written: nothing is left
  expect_error(fgseq:::write_whole_file("{}", target), class = "fgseq_error_write")
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "taken")
})

test_that("write_predictor(): unknown arguments, non-fits and matrix-valued formula variables are errors", {
  fit <- fgseq(diagnosis ~ age + cp, data = heart, cost = heart_cost[c("age", "cp")])
  path <- tempfile(fileext = ".json")
  expect_error(write_predictor(fit, path, digits = 3), class = "fgseq_error_unknown_argument")
  expect_error(write_predictor(list(), path), "`fit` must be a fitted anytime predictor", class = "fgseq_error_input")
  pf <- fgseq(diagnosis ~ poly(age, 2) + cp, data = heart, cost = c(age = 1, cp = 1))
  expect_error(write_predictor(pf, path), class = "fgseq_error_formula")
  expect_false(file.exists(path))
})
