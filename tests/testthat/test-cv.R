# cv_fgseq(): held-out curves per lambda and fold, their mean on a common cost grid, CV timeliness.

vd <- sim_groups(n = 60, sizes = c(2, 1, 2, 1), rho = 0.4, seed = 111)
vfold <- rep(1:3, length.out = 60)
vlam <- c(1e-6, 0.5)

test_that("CV numbers equal a plain-R loop over lambdas and folds", {
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam, foldid = vfold, progress = FALSE)
  expect_s3_class(cv, "cv_fgseq")
  ref <- fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam[1])
  r2 <- ref$path$r2
  B <- ref$path$cost[which(r2 >= 0.97 * r2[length(r2)])[1]]
  expect_equal(cv$stop_cost, B)
  for (l in seq_along(vlam)) {
    lin <- stp <- numeric(3)
    curves <- list()
    for (f in 1:3) {
      tr <- vfold != f
      fit <- fgseq(vd$x[tr, ], vd$y[tr], vd$group, vd$cost, lambda = vlam[l])
      K <- length(fit$sequence)
      pred <- sapply(seq_len(K + 1), function(k) fitted_at(fit$beta, fit$a0, vd$x[!tr, ], k))
      sse <- colSums((vd$y[!tr] - pred)^2)
      C <- unname(cumsum(c(0, vd$cost[fit$sequence])))
      curves[[f]] <- list(cost = C, r2 = 1 - sse / sse[1])
      lin[f] <- ref_timeliness(C, 1 - sse / sse[1], B, "linear")
      stp[f] <- ref_timeliness(C, 1 - sse / sse[1], B, "step")
    }
    expect_equal(cv$timeliness$linear[l], mean(lin))
    expect_equal(cv$timeliness$linear_se[l], sd(lin) / sqrt(3))
    expect_equal(cv$timeliness$step[l], mean(stp))
    expect_equal(cv$timeliness$step_se[l], sd(stp) / sqrt(3))
    # the mean curve on the union of the costs, each fold a step function
    grid <- sort(unique(unlist(lapply(curves, `[[`, "cost"))))
    vals <- sapply(curves, function(cc) approx(cc$cost, cc$r2, xout = grid, method = "constant", rule = 2)$y)
    got <- cv$curve[cv$curve$lambda == vlam[l], ]
    expect_equal(got$cost, grid)
    expect_equal(got$mean, rowMeans(vals))
    expect_equal(got$se, apply(vals, 1, sd) / sqrt(3))
  }
  best <- which.max(cv$timeliness$linear)
  expect_equal(cv$lambda.min, vlam[best])
  expect_equal(cv$cvm, cv$timeliness$linear)
  expect_equal(cv$cvsd, cv$timeliness$linear_se)
  for (l in seq_along(vlam)) {
    expect_equal(cv$fgseq.fit[[l]]$path, fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam[l])$path)
  }
  expect_identical(cv$foldid, vfold)
})

test_that("the step interpolation and a loss metric pick their own best lambda", {
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = c(0.5, 1e-6, 5), foldid = vfold, metric = "mse",
                 interpolation = "step", progress = FALSE)
  expect_equal(cv$lambda.min, c(0.5, 1e-6, 5)[which.min(cv$timeliness$step)])
  expect_equal(cv$cvm, cv$timeliness$step)
  expect_identical(cv$metric, "mse")
})

test_that("folds from a seed are reproducible and leave the session's random numbers alone", {
  set.seed(2024)
  before <- .Random.seed
  a <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam, nfolds = 4, seed = 7, progress = FALSE)
  expect_identical(.Random.seed, before)
  b <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam, nfolds = 4, seed = 7, progress = FALSE)
  expect_identical(.Random.seed, before)
  expect_identical(a$foldid, b$foldid)
  expect_identical(a$timeliness, b$timeliness)
  expect_identical(a$curve, b$curve)
  expect_equal(as.vector(table(a$foldid)), rep(15, 4))
  # the folds are those of set.seed(7) and a balanced shuffle
  set.seed(7)
  expect_identical(a$foldid, sample(rep_len(1:4, 60)))
  # without a seed the session's stream is used (and advances)
  set.seed(2024)
  c1 <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam, nfolds = 4, progress = FALSE)
  set.seed(2024)
  expect_identical(c1$foldid, sample(rep_len(1:4, 60)))
})

test_that("NDCG folds keep queries whole; class metrics stratify the folds", {
  q <- rep(1:12, each = 5)
  rel <- pmin(pmax(round(vd$y / sd(vd$y) + 1), 0), 3)
  cv <- cv_fgseq(vd$x, rel, vd$group, vd$cost, lambda = vlam, nfolds = 3, metric = "ndcg", query = q,
                 seed = 1, progress = FALSE)
  expect_true(all(tapply(cv$foldid, q, function(f) length(unique(f))) == 1))
  expect_identical(cv$metric, "ndcg")
  y01 <- as.numeric(vd$y > quantile(vd$y, 0.8))
  cv2 <- cv_fgseq(vd$x, y01, vd$group, vd$cost, lambda = vlam, nfolds = 4, metric = "auc", seed = 3,
                  progress = FALSE)
  expect_true(all(table(cv2$foldid, y01) >= 3))
})

test_that("lambda.1se obeys its definition on the stored cvm and cvsd", {
  lam <- c(3, 1, 0.3, 0.1, 1e-6)
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = lam, foldid = vfold, progress = FALSE)
  best <- which.max(cv$cvm)
  within <- cv$cvm >= cv$cvm[best] - cv$cvsd[best]
  expect_equal(cv$lambda.1se, max(lam[within]))
  expect_equal(cv$lambda.min, lam[best])
  expect_equal(unname(cv$index[, 1]), c(best, which(lam == cv$lambda.1se)))
  expect_equal(cv$cvup, cv$cvm + cv$cvsd)
  expect_equal(cv$cvlo, cv$cvm - cv$cvsd)
  # a loss: the smallest cvm, and within one SE above it
  cm <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = lam, foldid = vfold, metric = "mse", progress = FALSE)
  best <- which.min(cm$cvm)
  expect_equal(cm$lambda.1se, max(lam[cm$cvm <= cm$cvm[best] + cm$cvsd[best]]))
})

test_that("the CV metric at every budget of a fit, budget.min and budget.1se, equal a plain-R loop", {
  lam <- c(1, 1e-6)
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = lam, foldid = vfold, progress = FALSE)
  for (l in seq_along(lam)) {
    full <- fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = lam[l])
    C <- full$path$cost
    vals <- sapply(1:3, function(f) {
      tr <- vfold != f
      fit <- fgseq(vd$x[tr, ], vd$y[tr], vd$group, vd$cost, lambda = lam[l])
      pred <- sapply(seq_len(length(fit$sequence) + 1), function(k) fitted_at(fit$beta, fit$a0, vd$x[!tr, ], k))
      sse <- colSums((vd$y[!tr] - pred)^2)
      Cf <- unname(cumsum(c(0, vd$cost[fit$sequence])))
      approx(Cf, 1 - sse / sse[1], xout = C, method = "constant", rule = 2)$y
    })
    got <- cv$budget[cv$budget$lambda == lam[l], ]
    expect_equal(got$cost, C)
    expect_equal(got$cvm, rowMeans(vals))
    expect_equal(got$cvsd, apply(vals, 1, sd) / sqrt(3))
    best <- which.max(got$cvm)
    chosen <- fgseq:::budget_choice(cv, lam[l])
    expect_equal(chosen[["min"]], C[best])
    expect_equal(chosen[["1se"]], min(C[got$cvm >= got$cvm[best] - got$cvsd[best]]))
  }
  at_1se <- fgseq:::budget_choice(cv, cv$lambda.1se)
  expect_equal(c(cv$budget.min, cv$budget.1se), unname(at_1se))
})

test_that("predict() and coef() use the fit chosen by s, at budgets named or given", {
  lam <- c(1, 0.1, 1e-6)
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = lam, foldid = vfold, progress = FALSE)
  direct <- function(s) fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = s)
  expect_equal(predict(cv, vd$x[1:5, ], budget = 4), predict(direct(cv$lambda.1se), vd$x[1:5, ], budget = 4))
  expect_equal(predict(cv, vd$x[1:5, ], s = "lambda.min", step = 2),
               predict(direct(cv$lambda.min), vd$x[1:5, ], step = 2))
  expect_equal(coef(cv, s = 0.1, budget = NULL), coef(direct(0.1)))   # every step when asked
  expect_equal(coef(cv, budget = "budget.1se"), coef(direct(cv$lambda.1se), budget = cv$budget.1se))
  b <- fgseq:::budget_choice(cv, "lambda.min")
  expect_equal(predict(cv, vd$x[1:5, ], s = "lambda.min", budget = "budget.min"),
               predict(direct(cv$lambda.min), vd$x[1:5, ], budget = b[["min"]]))
})

test_that("the formula method equals the matrix method and predicts from new data frames", {
  h <- heart[1:150, ]
  cf <- suppressWarnings(cv_fgseq(diagnosis ~ age + sex + cp + chol, data = h, cost = heart_cost[c("age", "sex", "cp", "chol")],
                                  lambda = c(1, 1e-6), nfolds = 3, seed = 1, progress = FALSE))
  mm <- model.matrix(diagnosis ~ age + sex + cp + chol, h)
  grp <- c("age", "sex", "cp", "cp", "cp", "chol")
  cm <- suppressWarnings(cv_fgseq(mm[, -1], h$diagnosis, group = grp, cost = heart_cost[c("age", "sex", "cp", "chol")],
                                  lambda = c(1, 1e-6), nfolds = 3, seed = 1, progress = FALSE))
  expect_equal(cf$cvm, cm$cvm)
  expect_equal(cf$budget, cm$budget)
  # arguments of fgseq() reach the fits; subset selects the rows
  cu <- cv_fgseq(diagnosis ~ age + sex, data = heart, cost = heart_cost[c("age", "sex")], subset = 1:150,
                 lambda = c(1, 1e-6), nfolds = 3, seed = 1, progress = FALSE, cost_unit = "CAD", method = "fr")
  expect_identical(cu$fgseq.fit[[1]]$cost_unit, "CAD")
  expect_identical(cu$fgseq.fit[[1]]$method, "fr")
  expect_identical(cu$fgseq.fit[[2]]$nobs, 150L)
  # weights and offset are evaluated in data (an unknown-argument error before they were supported)
  cw <- cv_fgseq(diagnosis ~ age + sex, data = heart, cost = heart_cost[c("age", "sex")], weights = age / 50,
                 lambda = c(1, 1e-6), nfolds = 3, seed = 1, progress = FALSE)
  cwm <- cv_fgseq(as.matrix(heart[c("age", "sex")]), heart$diagnosis, cost = heart_cost[c("age", "sex")],
                  weights = heart$age / 50, lambda = c(1, 1e-6), nfolds = 3, seed = 1, progress = FALSE)
  expect_equal(cw$cvm, cwm$cvm)
  expect_error(cv_fgseq(diagnosis ~ age, data = heart, wieghts = age), class = "fgseq_error_unknown_argument")
  xnew <- model.matrix(diagnosis ~ age + sex + cp + chol, heart[151:155, ])[, -1]
  expect_equal(predict(cf, newdata = heart[151:155, ], budget = 3), predict(cm, xnew, budget = 3))
})

test_that("the default grid: nlambda values from 10 down to 1e-6, descended until the fits stop changing", {
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, nlambda = 4, foldid = vfold, progress = FALSE)
  expect_equal(cv$lambda, 10^seq(1, -6, length.out = 4)[seq_along(cv$lambda)])
  # where the descent stops, from fits of fgseq() on all rows: the first lambda whose fit has the
  # sequence of the one before and an objective within 1% of it at every step
  d <- sim_groups(n = 200, sizes = c(2, 1, 2, 1, 3), rho = 0.3, seed = 7)
  fold <- rep(1:4, length.out = 200)
  grid <- 10^seq(1, -6, length.out = 15)
  full <- lapply(grid, function(l) fgseq(d$x, d$y, d$group, d$cost, lambda = l))
  flat <- vapply(2:15, function(l) {
    a <- full[[l - 1]]
    b <- full[[l]]
    identical(a$sequence, b$sequence) &&
      max(abs(a$path$objective - b$path$objective)) <= 0.01 * max(abs(a$path$objective))
  }, logical(1))
  kept <- which(flat)[1]  # grid[kept + 1] is where the descent stops
  expect_true(kept < 14 && kept > 2)
  cv <- cv_fgseq(d$x, d$y, d$group, d$cost, foldid = fold, progress = FALSE)
  expect_equal(cv$lambda, grid[seq_len(kept)])
  # the stopping cost is the smallest lambda's of the whole grid, and every number at the lambdas kept
  # is that of the same cross-validation over them alone
  expect_equal(cv$stop_cost, stop_cost(full[[15]], alpha = 0.97))
  given <- cv_fgseq(d$x, d$y, d$group, d$cost, lambda = grid[seq_len(kept)], foldid = fold, stop_cost = cv$stop_cost,
                    progress = FALSE)
  expect_equal(cv$cvm, given$cvm)
  expect_equal(cv$cvsd, given$cvsd)
  expect_equal(cv$budget, given$budget)
  expect_equal(cv$curve, given$curve)
  for (l in seq_len(kept)) expect_equal(cv$fgseq.fit[[l]]$beta, full[[l]]$beta)
})

test_that("a constant column warns once per call, not once per lambda", {
  train <- heart[1:200, ]  # no patient with restecg "abnormal": a constant dummy column
  ws <- list()
  cv <- withCallingHandlers(cv_fgseq(diagnosis ~ ., data = train, cost = heart_cost, lambda = c(1, 0.1, 1e-3),
                                     nfolds = 5, seed = 1, progress = FALSE),
                            warning = function(w) {
                              ws[[length(ws) + 1L]] <<- w
                              invokeRestart("muffleWarning")
                            })
  expect_length(ws, 1L)
  expect_s3_class(ws[[1L]], "fgseq_warning_constant")
  expect_match(conditionMessage(ws[[1L]]), "restecgabnormal")
  # fgseq() on the same rows warns as each fit on all rows would
  expect_warning(fgseq(diagnosis ~ ., data = train, cost = heart_cost, lambda = 0.1), class = "fgseq_warning_constant")
})

test_that("a warning that every fold's fit gives is given once", {
  # separable classes: every fit at lambda = 0 warns of fitted probabilities 0 or 1, as glm() does
  set.seed(3)
  x <- matrix(rnorm(120 * 3), 120)
  y <- as.integer(x[, 1] > 0)
  expect_warning(fgseq(x, y, family = "binomial", lambda = 0), class = "fgseq_warning_boundary")
  ws <- list()
  withCallingHandlers(cv_fgseq(x, y, family = "binomial", lambda = c(1, 0), nfolds = 4, seed = 1, metric = "accuracy",
                               progress = FALSE),
                      warning = function(w) {
                        ws[[length(ws) + 1L]] <<- w
                        invokeRestart("muffleWarning")
                      })
  classes <- vapply(ws, function(w) class(w)[1L], "")
  expect_identical(sum(classes == "fgseq_warning_boundary"), 1L)
  keys <- vapply(ws, function(w) paste(class(w)[1L], conditionMessage(w)), "")
  expect_false(anyDuplicated(keys) > 0)
})

test_that("data in chunks is refused with a classed error that says why and what to do", {
  d <- sim_groups(n = 60, sizes = c(2, 1), seed = 2)
  chunks <- fgseq_chunks(list(list(x = d$x[1:30, ], y = d$y[1:30]), list(x = d$x[31:60, ], y = d$y[31:60])))
  expect_error(cv_fgseq(chunks, group = d$group), "does not cross-validate data in chunks", class = "fgseq_error_cv_chunks")
  frames <- fgseq_chunks(list(heart[1:150, ], heart[151:303, ]))
  expect_error(cv_fgseq(diagnosis ~ age + sex, data = frames), "`data` is \"fgseq_chunks\"",
               class = "fgseq_error_cv_chunks")
})

test_that("print, plot and the progress bar", {
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam, foldid = vfold, progress = TRUE)
  out <- capture.output(print(cv))
  expect_match(out[1], "3-fold cross-validation; cvm: linear timeliness of held-out r2 up to the stopping cost")
  expect_true(any(grepl("lambda.min = .*, lambda.1se = ", out)))
  pdf(NULL)
  on.exit(dev.off())
  drawn <- plot(cv)
  expect_equal(drawn$cvm, cv$cvm)
  drawn <- plot(cv, what = "budget", s = "lambda.min", log = "x", cost_unit = "units")
  expect_equal(drawn$cvm, cv$budget$cvm[cv$budget$lambda == cv$lambda.min])
})

test_that("s, budget and plot arguments that name nothing", {
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam, foldid = vfold, progress = FALSE)
  msg <- "`s` must be \"lambda.1se\", \"lambda.min\" or one of the cross-validated `lambda` values"
  expect_error(predict(cv, vd$x, s = "lambda.best"), msg)
  expect_error(coef(cv, s = 0.123), msg)
  expect_error(coef(cv, s = c(0.5, 1e-6)), msg)
  expect_error(predict(cv, vd$x, budget = "cheapest"),
               "`budget` must be NULL, non-negative numbers \\(cost units\\), \"budget.min\" or \"budget.1se\"")
  expect_error(predict(cv, vd$x, sss = 1), class = "fgseq_error_unknown_argument")
  expect_error(predict(cv, vd$x, s = "lambda.min", budge = 3), "unknown argument\\(s\\): `budge` \\(did you mean `budget`\\?\\)")
  pdf(NULL)
  on.exit(dev.off())
  expect_error(plot(cv, what = "coef"), "`what` must be one of \"lambda\", \"budget\"")
  expect_error(plot(cv, what = "budget", log = "y"), "`log` must be one of \"\", \"x\"")
})

# ---- errors: one test per message -------------------------------------------------------------------

test_that("nfolds below 2 or above the number of rows or queries", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, nfolds = 1),
               "`nfolds` must be a whole number between 2 and 60 \\(the number of rows\\)")
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, nfolds = 61),
               "`nfolds` must be a whole number between 2 and 60 \\(the number of rows\\)")
  expect_error(cv_fgseq(vd$x, abs(vd$y), vd$group, vd$cost, nfolds = 13, metric = "ndcg",
                        query = rep(1:12, each = 5)),
               "`nfolds` must be a whole number between 2 and 12 \\(the number of queries\\)")
})

test_that("a lambda grid with negative values, a bad nlambda", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = c(0.1, -1)),
               "`lambda` must be a vector of non-negative, finite ridge constants")
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, nlambda = 1), "`nlambda` must be a single whole number >= 2")
})

test_that("bad fold ids", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, foldid = rep(1, 60)),
               "`foldid` must give one fold label per row of `x` \\(60\\), without NA, with at least 2 folds")
})

test_that("alpha outside (0, 1]", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, alpha = -0.1), "`alpha` must be a single number in \\(0, 1\\]")
})

test_that("a bad seed", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, seed = "a"), "`seed` must be NULL or a single finite number")
})

test_that("a seed set.seed() refuses is an fgseq error keeping set.seed()'s as its parent", {
  for (seed in c(1e10, 2^31, -2^31)) {
    ref <- tryCatch(suppressWarnings(set.seed(seed)), error = identity)
    expect_s3_class(ref, "error")  # base R refuses it
    e <- tryCatch(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, seed = seed, progress = FALSE), error = identity)
    expect_s3_class(e, "fgseq_error_input")
    expect_match(conditionMessage(e), "`seed`", fixed = TRUE)
    expect_identical(conditionMessage(e$parent), conditionMessage(ref))
  }
  # the check leaves the session's random-number state as it was
  set.seed(5)
  before <- .Random.seed
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, seed = 1e10, progress = FALSE), class = "fgseq_error_input")
  expect_identical(.Random.seed, before)
})

test_that("a bad progress flag", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, progress = NA), "`progress` must be TRUE or FALSE")
})

# cv_fgseq() with weights and an offset against a plain-R fold loop: the fit on all rows at the last
# lambda, the stopping cost from its training curve, and at each lambda the mean and standard error over
# the folds of the held-out timeliness, each fold fitted by fgseq() on its training rows (their weights
# and offsets) and its held-out deviance at every step computed by hand by deviance_by_hand(fit, test).
expect_cv_by_hand <- function(x, y, cost, lam, fold, family, weights, offset, deviance_by_hand) {
  rows <- function(v, keep) if (is.null(v)) NULL else if (is.matrix(v)) v[keep, , drop = FALSE] else v[keep]
  cv <- cv_fgseq(x, y, cost = cost, lambda = lam, foldid = fold, family = family, weights = weights,
                 offset = offset, progress = FALSE)
  ref <- fgseq(x, y, cost = cost, lambda = lam[2], family = family, weights = weights, offset = offset)
  expect_equal(coef(cv$fgseq.fit[[2]]), coef(ref))
  r2 <- ref$path$r2
  B <- ref$path$cost[which(r2 >= 0.97 * r2[length(r2)])[1]]
  expect_equal(cv$stop_cost, B)
  for (l in seq_along(lam)) {
    lin <- numeric(3)
    for (f in 1:3) {
      tr <- fold != f
      fit <- fgseq(x[tr, ], y[tr], cost = cost, lambda = lam[l], family = family, weights = rows(weights, tr),
                   offset = rows(offset, tr))
      dev <- deviance_by_hand(fit, !tr)
      C <- unname(cumsum(c(0, cost[fit$sequence])))
      lin[f] <- ref_timeliness(C, 1 - dev / dev[1], B, "linear")
    }
    expect_equal(cv$timeliness$linear[l], mean(lin))
    expect_equal(cv$timeliness$linear_se[l], sd(lin) / sqrt(3))
  }
}

test_that("weights and offsets reach each fold's fit and weigh and shift its held-out predictions", {
  set.seed(21)
  n <- 90
  x <- matrix(rnorm(n * 4), n, 4, dimnames = list(NULL, paste0("x", 1:4)))
  o <- rnorm(n, sd = 0.3)
  w <- runif(n, 0.3, 2)
  y <- rpois(n, exp(0.2 + o + 0.5 * x[, 1] - 0.3 * x[, 3]))
  fold <- rep(1:3, length.out = n)
  lam <- c(0.5, 1e-6)
  cost <- c(x1 = 1, x2 = 2, x3 = 3, x4 = 4)
  expect_cv_by_hand(x, y, cost, lam, fold, "poisson", w, o, function(fit, test) {
    # held-out means by hand: exp(offset + a0 + x beta) at every step
    K <- length(fit$sequence)
    mu <- sapply(seq_len(K + 1), function(k) exp(o[test] + fitted_at(fit$beta, fit$a0, x[test, ], k)))
    yt <- y[test]
    apply(mu, 2, function(m) 2 * sum(w[test] * (ifelse(yt > 0, yt * log(yt / m), 0) - (yt - m))))
  })
  expect_error(cv_fgseq(x, y, cost = cost, lambda = lam, foldid = fold, family = "poisson", weights = -w),
               "`weights` must be non-negative")
  expect_error(cv_fgseq(x, y, cost = cost, lambda = lam, foldid = fold, metric = "ndcg", query = fold, weights = w),
               "`weights` cannot be used with metric = \"ndcg\"")
})

test_that("a multinomial offset matrix (n x K) reaches each fold's fit and shifts its held-out probabilities", {
  set.seed(23)
  n <- 120
  x <- matrix(rnorm(n * 4), n, 4, dimnames = list(NULL, paste0("x", 1:4)))
  o <- matrix(rnorm(n * 3, sd = 0.5), n, 3)
  eta <- o + cbind(0, 0.8 * x[, 1], -0.6 * x[, 2] + 0.4 * x[, 3])
  prob <- exp(eta) / rowSums(exp(eta))
  y <- factor(apply(prob, 1, function(p) sample(c("a", "b", "c"), 1, prob = p)))
  fold <- rep(1:3, length.out = n)
  lam <- c(0.5, 1e-4)
  cost <- c(x1 = 1, x2 = 2, x3 = 3, x4 = 4)
  expect_cv_by_hand(x, y, cost, lam, fold, "multinomial", NULL, o, function(fit, test) {
    # held-out class probabilities by hand: the softmax of offset + a0 + x beta, class by class
    K <- length(fit$sequence)
    Y <- outer(as.integer(y[test]), 1:3, "==")
    sapply(seq_len(K + 1), function(k) {
      eta <- o[test, ] + sapply(1:3, function(cl) x[test, ] %*% fit$beta[[cl]][, k] + fit$a0[cl, k])
      p <- exp(eta) / rowSums(exp(eta))
      -2 * sum(log(p[Y]))
    })
  })
  expect_error(cv_fgseq(x, y, cost = cost, lambda = lam, foldid = fold, family = "multinomial", offset = o[, 1:2]),
               "`offset` must be a vector of length 120 or an 120 x 3 matrix", class = "fgseq_error_input")
})

test_that("weighted held-out metrics are those of repeated rows", {
  set.seed(22)
  x <- matrix(rnorm(200 * 3), 200, 3)
  y <- as.numeric(x[, 1] + rnorm(200) > 0)
  fit <- fgseq(x[1:120, ], y[1:120], family = "binomial")
  w <- sample(0:3, 80, replace = TRUE)
  rows <- rep(121:200, w)
  for (metric in c("r2", "mse", "accuracy", "logloss", "auc")) {
    expect_equal(anytime_curve(fit, x[121:200, ], y[121:200], metric = metric, weights = w)$value,
                 anytime_curve(fit, x[rows, ], y[rows], metric = metric)$value, tolerance = 1e-12)
  }
  expect_error(anytime_curve(fit, weights = w), "`weights` weigh test rows")
})

test_that("tiny folds warn: auc needs 10 rows per fold, other metrics 3", {
  set.seed(6)
  x <- matrix(rnorm(40 * 3), 40)
  y <- x[, 1] + rnorm(40)
  expect_warning(cv_fgseq(x, y, lambda = c(0.1, 0.01), nfolds = 40, progress = FALSE), "fewer than the 3",
                 class = "fgseq_warning_cv_folds")
  yb <- as.numeric(y > 0)
  expect_warning(cv_fgseq(x, yb, family = "binomial", metric = "auc", lambda = c(0.1, 0.01), nfolds = 5, seed = 1,
                          progress = FALSE), "auc", class = "fgseq_warning_cv_folds")
})

test_that("a choice at the most shrunk end of the grid warns (auc is blind to shrinkage)", {
  set.seed(7)
  x <- matrix(rnorm(200 * 3), 200)
  yb <- rbinom(200, 1, stats::plogis(2 * x[, 1]))
  lambda <- c(100, 10, 1, 0.1)
  cv <- suppressWarnings(cv_fgseq(x, yb, family = "binomial", metric = "auc", lambda = lambda, nfolds = 4,
                                  seed = 1, progress = FALSE))
  # auc ranks the rows: the most shrunk fit ranks them as the least shrunk, so 1se is the edge of the grid
  expect_equal(cv$lambda.1se, 100)
  p <- predict(cv, x, type = "response", budget = 1e6)
  expect_lt(diff(range(p)), diff(range(predict(cv, x, s = 0.1, type = "response", budget = 1e6))))
  expect_warning(cv_fgseq(x, yb, family = "binomial", metric = "auc", lambda = lambda, nfolds = 4, seed = 1,
                          progress = FALSE), "largest lambda", class = "fgseq_warning_cv_edge")
})

test_that("an error inside a fold names the fold and what to change", {
  set.seed(8)
  x <- matrix(rnorm(30 * 2), 30)
  y <- c(1, 1, rep(0, 28))
  foldid <- c(1, 1, rep(1:3, length.out = 28))
  # the fit on all rows has both classes; fold 1's training rows have only one
  expect_error(cv_fgseq(x, y, family = "binomial", foldid = foldid, lambda = c(1, 0.1), progress = FALSE),
               "fold 1", class = "fgseq_error_input")
})

test_that("an absurd nlambda is refused before the grid is allocated", {
  x <- as.matrix(mtcars[, -1])
  expect_error(cv_fgseq(x, mtcars$mpg, nlambda = 1e9, progress = FALSE), "nlambda", class = "fgseq_error_input")
})

test_that("cross-validation of a formula with a priced offset charges it at step 0, as fgseq() does", {
  set.seed(12)
  d <- data.frame(a = rnorm(150), b = rnorm(150), c = rnorm(150), t = runif(150, 1, 3))
  d$y <- rpois(150, d$t * exp(0.5 * d$a - 0.3 * d$b))
  f <- y ~ a + b + c + offset(log(t))
  free <- cv_fgseq(f, data = d, cost = c(a = 1, b = 2, c = 1, t = 0), family = "poisson", lambda = c(1, 0.01),
                   nfolds = 3, seed = 1, progress = FALSE)
  priced <- cv_fgseq(f, data = d, cost = c(a = 1, b = 2, c = 1, t = 4), family = "poisson", lambda = c(1, 0.01),
                     nfolds = 3, seed = 1, progress = FALSE)
  direct <- fgseq(f, data = d, cost = c(a = 1, b = 2, c = 1, t = 4), family = "poisson", lambda = 0.01)
  expect_equal(priced$fgseq.fit[[2]]$path$cost, direct$path$cost)
  expect_equal(priced$fgseq.fit[[2]]$path$cost, free$fgseq.fit[[2]]$path$cost + 4)
  expect_equal(priced$budget$cost, free$budget$cost + 4)
  expect_equal(priced$budget.1se, free$budget.1se + 4)
  expect_equal(priced$stop_cost, free$stop_cost + 4)
  expect_equal(priced$cvm, free$cvm)
  # the same model, at a budget 4 higher
  expect_equal(unname(predict(priced, newdata = d[1:3, ], budget = "budget.1se")),
               unname(predict(free, newdata = d[1:3, ], budget = "budget.1se")))
})

test_that("cross-validation checks its inputs once: the fits on all rows share them", {
  calls <- new.env()
  count <- function(what) calls[[what]] <- (if (is.null(calls[[what]])) 0L else calls[[what]]) + 1L
  ns <- asNamespace("fgseq")
  for (fun in c("fit_inputs", "check_cost", ".scan_columns")) {
    suppressMessages(trace(fun, tracer = bquote(.(count)(.(fun))), where = ns, print = FALSE))
  }
  on.exit(for (fun in c("fit_inputs", "check_cost", ".scan_columns")) suppressMessages(untrace(fun, where = ns)))
  x <- model.matrix(diagnosis ~ . - 1, heart)[, 1:10]
  lam <- c(1, 0.1, 0.01)
  cv <- suppressWarnings(cv_fgseq(x, heart$diagnosis, cost = seq_len(ncol(x)), family = "binomial", lambda = lam,
                                  nfolds = 3, seed = 2, metric = "accuracy", progress = FALSE))
  # one check of the costs; the inputs made once for the 3 fits on all rows, and once for each of the 9
  # fold fits (their rows' response and weights are their own); x swept once, and once per fold fit
  expect_identical(calls$check_cost, 1L)
  expect_identical(calls$fit_inputs, 1L + 9L)
  expect_identical(calls$.scan_columns, 1L + 9L)
  # each fit on all rows is fgseq()'s on the same data, to the bit
  for (l in seq_along(lam)) {
    ref <- fgseq(x, heart$diagnosis, cost = seq_len(ncol(x)), family = "binomial", lambda = lam[l])
    expect_identical(cv$fgseq.fit[[l]]$sequence, ref$sequence)
    expect_identical(cv$fgseq.fit[[l]]$beta, ref$beta)
    expect_identical(cv$fgseq.fit[[l]]$a0, ref$a0)
  }
})

test_that("the folds on two parallel workers give the sequential cross-validation, each shipped one copy of x", {
  x <- model.matrix(diagnosis ~ . - 1, heart)[, 1:10]
  run <- function() suppressWarnings(cv_fgseq(x, heart$diagnosis, cost = seq_len(ncol(x)), family = "binomial",
                                              lambda = c(1, 0.01), nfolds = 3, seed = 2, metric = "accuracy",
                                              progress = FALSE))
  one <- run()
  oplan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(oplan), add = TRUE)
  two <- run()
  expect_identical(two$cvm, one$cvm)
  expect_identical(two$budget, one$budget)
  # what a worker receives: the fold function and its environment, about one copy of x and y (not the
  # fits on all rows, nor the checked inputs beside x)
  set.seed(4)
  big <- matrix(rnorm(5000 * 20), 5000, 20, dimnames = list(NULL, paste0("v", 1:20)))
  yb <- rnorm(5000)
  fb <- fgseq:::fold_curve_of(big, yb, fgseq:::check_group(NULL, big), fgseq:::group_measurements(NULL, NULL, colnames(big)),
                              NULL, NULL, rep(1:3, length.out = 5000), c(1, 0.01), list(), "r2", NULL, 5)
  expect_lt(length(serialize(fb, NULL)), 1.2 * length(serialize(list(big, yb), NULL)))
  f <- fgseq:::fold_curve_of(x, heart$diagnosis, fgseq:::check_group(NULL, x),
                             fgseq:::group_measurements(NULL, NULL, colnames(x)), NULL, NULL, one$foldid, one$lambda,
                             list(family = "binomial"), "accuracy", NULL, 5)
  expect_equal(f(1L, 1L)$value, suppressWarnings(
    anytime_curve(fgseq(x[one$foldid != 1, ], heart$diagnosis[one$foldid != 1], cost = NULL, family = "binomial",
                        lambda = 1), x[one$foldid == 1, ], heart$diagnosis[one$foldid == 1], metric = "accuracy"))$value)
})

test_that("a max_time that leaves the fit on all rows empty names max_time, not stop_cost", {
  e <- tryCatch(suppressWarnings(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = c(1, 1e-6), nfolds = 3,
                                          max_time = 1e-9, progress = FALSE)), error = identity)
  expect_s3_class(e, "fgseq_error_input")
  expect_match(conditionMessage(e), "`max_time`", fixed = TRUE)
  expect_false(grepl("`stop_cost` must", conditionMessage(e), fixed = TRUE))
  # the fit on all rows is indeed empty and partial there
  f <- suppressWarnings(fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = 1e-6, max_time = 1e-9))
  expect_true(f$partial)
  expect_identical(stop_cost(f), 0)
})

test_that("a fold whose held-out rows all have weight 0 is reported as its held-out rows, not its training rows", {
  w <- rep(1, nrow(vd$x))
  foldid <- rep(1:3, length.out = nrow(vd$x))
  w[foldid == 2] <- 0
  # the training rows of fold 2 fit (they are the rows of positive weight)
  expect_s3_class(fgseq(vd$x[foldid != 2, ], vd$y[foldid != 2], vd$group, vd$cost, weights = w[foldid != 2]), "fgseq")
  e <- tryCatch(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, weights = w, foldid = foldid, lambda = c(1, 1e-6),
                         progress = FALSE), error = identity)
  expect_s3_class(e, "fgseq_error_input")
  expect_match(conditionMessage(e), "fold 2 .*held-out rows")
  expect_false(grepl("fitted on the other folds", conditionMessage(e), fixed = TRUE))
  expect_false(grepl("training rows of a fold", conditionMessage(e), fixed = TRUE))
})
