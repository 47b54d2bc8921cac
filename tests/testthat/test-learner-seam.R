# The learner seam (R/anytime_fit.R): a learner that answers fit_link(), column_steps(), paid_groups()
# and predictor_model() gets predict(), model.matrix() and write_predictor() unchanged. The learner
# here is a least-squares fit on the groups of a fixed order, step by step, its values checked against
# lm() on the same columns.

seam_learner <- function() {
  set.seed(29)
  n <- 60
  x <- matrix(rnorm(n * 4), n, 4, dimnames = list(NULL, paste0("v", 1:4)))
  y <- drop(x %*% c(1, -0.5, 2, 0.3)) + rnorm(n)
  group <- c(v1 = "a", v2 = "a", v3 = "b", v4 = "c")
  cost <- c(a = 1, b = 2, c = 4)
  sequence <- c("b", "a", "c")
  fits <- lapply(0:3, function(k) {
    cols <- names(group)[group %in% sequence[seq_len(k)]]
    stats::lm.fit(cbind(1, x[, cols, drop = FALSE]), y)$coefficients
  })
  beta <- matrix(0, 4, 4, dimnames = list(colnames(x), NULL))
  a0 <- numeric(4)
  for (k in 0:3) {
    a0[k + 1L] <- fits[[k + 1L]][1L]
    beta[names(fits[[k + 1L]])[-1L], k + 1L] <- fits[[k + 1L]][-1L]
  }
  rss <- vapply(0:3, function(k) sum((y - a0[k + 1L] - x %*% beta[, k + 1L])^2), numeric(1))
  path <- data.frame(step = 0:3, group = c(NA, sequence), group_cost = c(0, cost[sequence]),
                     cost = cumsum(c(0, cost[sequence])), objective = (rss[1L] - rss) / n, r2 = 1 - rss / rss[1L])
  fields <- list(path = path, sequence = sequence, group = group, cost = cost,
                 needs = stats::setNames(as.list(names(cost)), names(cost)), measurement_cost = cost,
                 family = "gaussian", classes = NULL, responses = "y", nobs = n, null_risk = rss[1L] / n,
                 call = quote(seam_learner()), beta = beta, a0 = a0, x = x, y = y)
  fgseq:::new_anytime_fit(fields, "seam_learner")
}

register_seam_methods <- function() {
  ns <- asNamespace("fgseq")
  registerS3method("fit_link", "seam_learner", function(object, x, steps, prefix, per_row) {
    if (prefix) return(fgseq:::linear_prefix(object, x, steps, per_row, matrix(object$a0, 1L), list(object$beta)))
    list(link = sweep(x %*% object$beta[, steps + 1L, drop = FALSE], 2L, object$a0[steps + 1L], "+"), step = NULL)
  }, envir = ns)
  registerS3method("column_steps", "seam_learner", function(object) {
    step <- match(object$group, object$sequence)
    step[is.na(step)] <- nrow(object$path)
    as.integer(step)
  }, envir = ns)
  registerS3method("paid_groups", "seam_learner", function(object) {
    data.frame(group = object$sequence, step = seq_along(object$sequence),
               group_cost = unname(object$cost[object$sequence]), stringsAsFactors = FALSE)
  }, envir = ns)
  registerS3method("predictor_model", "seam_learner", function(fit) {
    columns <- names(fit$group)
    col_step <- fgseq:::column_steps(fit)
    list(model = "linear", step = function(k) fgseq:::linear_step(fit, k, columns[col_step <= k]), parts = list())
  }, envir = ns)
}

test_that("a new learner answering the seam gets predict(), model.matrix() and write_predictor()", {
  register_seam_methods()
  fit <- seam_learner()
  newx <- fit$x[1:5, ]
  # budgets 2, 3 and 7 reach steps 1, 2 and 3: lm() on the columns of b, of b and a, of b, a and c
  want <- function(cols) {
    cf <- stats::lm.fit(cbind(1, fit$x[, cols]), fit$y)$coefficients
    drop(cbind(1, newx[, cols]) %*% cf)
  }
  p <- predict(fit, newx, budget = c(2, 3, 7))
  expect_equal(unname(p[, 1]), want("v3"), tolerance = 1e-10)
  expect_equal(unname(p[, 2]), want(c("v1", "v2", "v3")), tolerance = 1e-10)
  expect_equal(unname(p[, 3]), want(c("v1", "v2", "v3", "v4")), tolerance = 1e-10)
  # a row without group a is predicted by the prefix it has (step 1: b alone)
  holes <- newx
  holes[2, "v1"] <- NA
  q <- predict(fit, holes, budget = 7, missing = "prefix")
  expect_equal(unname(q[2, 1]), want("v3")[2], tolerance = 1e-10)
  expect_identical(unname(attr(q, "step")[, 1]), c(3L, 1L, 3L, 3L, 3L))
  # what a budget pays, from paid_groups(); the groups and measurements of each step
  g <- predict(fit, budget = 3, type = "groups")[[1]]
  expect_identical(g$group, c("b", "a"))
  expect_identical(g$cost, c(2, 3))
  sg <- fgseq:::step_groups(fit)
  expect_identical(sg$groups, list(character(0), "b", "a", "c"))
  expect_identical(sg$measurements, list(character(0), "b", "a", "c"))
  # the design matrix of step 2: the intercept and the columns of b and a, in the order of x
  expect_identical(colnames(model.matrix(fit, step = 2)), c("(Intercept)", "v1", "v2", "v3"))
  # the portable predictor holds the coefficients of lm() at each step
  file <- tempfile(fileext = ".json")
  write_predictor(fit, file)
  doc <- jsonlite::fromJSON(file, simplifyVector = FALSE)
  cf <- stats::lm.fit(cbind(1, fit$x[, c("v1", "v2", "v3")]), fit$y)$coefficients
  expect_equal(doc$steps[[3]]$coefficients$v1[[1]], unname(cf[2]), tolerance = 1e-12)
  expect_equal(doc$steps[[3]]$intercept[[1]], unname(cf[1]), tolerance = 1e-12)
  expect_identical(doc$model, "linear")
})
