# The validators (R/validate.R): every object the package makes passes; a fit, statistics or a
# cross-validation edited one field at a time is refused by every method where it enters, with an
# error of class fgseq_error_invalid_object that names the field.

set.seed(28)
vx <- matrix(rnorm(80 * 5), 80, 5, dimnames = list(NULL, paste0("v", 1:5)))
vy <- drop(vx %*% c(1, -1, 0.5, 0, 0.25)) + rnorm(80)
vfit <- fgseq(vx, vy, group = c("a", "a", "b", "c", "d"), cost = c(a = 1, b = 2, c = 3, d = 4), lambda = 0.01)
vbin <- fgseq(vx, vy > 0, family = "binomial", lambda = 0.01)
vmis <- miser(vx, vy, cost = rep(1, 5), max_steps = 6, depth = 2, min_node_size = 3)

# Every method where a fit enters, each as a function of the fit.
fit_methods <- list(
  predict = function(f) predict(f, vx[1:3, ], budget = 5),
  predict_prefix = function(f) predict(f, vx[1:3, ], budget = 5, missing = "prefix"),
  predict_training = function(f) predict(f),
  coef = function(f) coef(f),
  summary = function(f) summary(f),
  print = function(f) utils::capture.output(print(f)),
  plot = function(f) {
    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off())
    plot(f)
  },
  write_predictor = function(f) write_predictor(f, tempfile(fileext = ".json")),
  timeliness = function(f) timeliness(f),
  stop_cost = function(f) stop_cost(f),
  anytime_curve = function(f) anytime_curve(f),
  fitted = function(f) fitted(f),
  residuals = function(f) residuals(f),
  deviance = function(f) deviance(f)
)

# Each tampering: the field it breaks (the name the error must mention) and the edit.
tamper_fgseq <- list(
  beta = function(f) { f$beta <- f$beta[-1L, ]; f },                      # fewer rows than columns
  beta = function(f) { f$beta[2L, ncol(f$beta)] <- NaN; f },
  beta = function(f) { dimnames(f$beta) <- list(NULL, NULL); f },
  beta = function(f) { f$beta <- f$beta[, -1L]; f },
  a0 = function(f) { f$a0 <- f$a0[-1L]; f },
  a0 = function(f) { f$a0[1L] <- NA; f },
  a0 = function(f) { f$a0 <- as.integer(round(f$a0)); f },                # integer storage (RcppEigen maps doubles)
  beta = function(f) { b <- round(as.matrix(f$beta)); storage.mode(b) <- "integer"; f$beta <- b; f },
  beta = function(f) { f$beta <- Matrix::Matrix(as.matrix(f$beta), sparse = FALSE); f },  # a dense dgeMatrix
  sequence = function(f) { f$sequence[1L] <- "zz"; f },
  sequence = function(f) { f$sequence <- f$sequence[-1L]; f },
  path = function(f) { f$path <- f$path[-nrow(f$path), ]; f },
  path = function(f) { f$path$cost[2L] <- f$path$cost[2L] + 1; f },
  path = function(f) { f$path$group_cost[3L] <- f$path$group_cost[3L] * 2; f$path$cost <- cumsum(f$path$group_cost); f },
  path = function(f) { f$path$step <- f$path$step + 1L; f },
  path = function(f) { f$path$group <- rev(f$path$group); f },
  path = function(f) { f$path$r2[2L] <- NA; f },
  group = function(f) { f$group <- stats::setNames(rev(f$group), names(f$group)); f },  # permuted
  group = function(f) { f$group <- unname(f$group); f },
  group = function(f) { f$group[1L] <- NA; f },
  cost = function(f) { f$cost[1L] <- Inf; f },
  cost = function(f) { names(f$cost) <- rev(names(f$cost)); f },
  cost = function(f) { f$cost[1L] <- f$cost[1L] + 1; f },
  measurement_cost = function(f) { f$measurement_cost[] <- 1e308; f$cost[] <- 1e308; f$path$cost[] <- 0; f },
  measurement_cost = function(f) { f$measurement_cost[1L] <- -1; f },
  needs = function(f) { f$needs[[1L]] <- "unknown_test"; f },
  needs = function(f) { f$needs <- unname(f$needs); f },
  family = function(f) { f$family <- "gamma"; f },
  responses = function(f) { f$responses <- c("y", "z"); f },
  nobs = function(f) { f$nobs <- -1; f },
  null_risk = function(f) { f$null_risk <- "a"; f },
  lambda = function(f) { f$lambda <- NA_real_; f },
  has_offset = function(f) { f$has_offset <- "yes"; f },
  has_offset = function(f) { f$has_offset <- TRUE; f },
  partial = function(f) { f$partial <- NA; f },
  rank = function(f) { f$rank <- f$rank[-1L]; f },
  cost_unit = function(f) { f$cost_unit <- 3; f },
  label = function(f) { f$label <- c("a", "b"); f },
  x = function(f) { f$x <- f$x[, -1L]; f },
  y = function(f) { f$y <- f$y[-1L]; f },
  weights = function(f) { f$weights <- rep(-1, nrow(f$x)); f },
  offset = function(f) { f$offset <- rep(NaN, nrow(f$x)); f },
  classes = function(f) { f$classes <- "z"; f },
  method = function(f) { f$method <- "lasso"; f },
  criterion = function(f) { f$criterion <- "l3"; f },
  cost_sensitive = function(f) { f$cost_sensitive <- NA; f },
  y = function(f) { f$y[1L] <- NA; f },
  call = function(f) { f$call <- "fgseq(x, y)"; f },
  converged = function(f) { f$converged <- NULL; f$converged <- 1:2; f },
  `path$score` = function(f) { f$path$score <- as.character(f$path$score); f }
)

test_that("fits made by the package pass their validator", {
  h <- heart
  fits <- list(
    vfit, vbin, vmis,
    fgseq(diagnosis ~ ., data = h, cost = heart_cost, family = "binomial"),
    fgseq(diagnosis ~ ., data = h, cost = heart_cost, method = "fr", max_cost = 50),
    fgseq(vx, vy, needs = list(v1 = c("draw", "m1"), v2 = c("draw", "m2")),
          cost = c(draw = 2, m1 = 1, m2 = 0, v3 = 1, v4 = 3, v5 = 0.5)),
    fgseq(vx, factor(cut(vy, 3, labels = c("lo", "mid", "hi"))), family = "multinomial", lambda = 0.1),
    fgseq(vx, cbind(a = vy, b = -vy + rnorm(80)), family = "mgaussian"),
    fgseq(vx, rpois(80, exp(vx[, 1] / 2)), family = "poisson", offset = rnorm(80, sd = 0.1)),
    fgseq(fgseq_stats(vx, vy)),
    sparse_sequence(vx, vy, cost = 1:5),
    miser(diagnosis ~ ., data = h, cost = heart_cost, family = "binomial", max_steps = 5, depth = 2),
    miser(vx, factor(cut(vy, 3)), cost = 1:5, family = "multinomial", max_steps = 3, depth = 2)
  )
  for (f in fits) {
    expect_identical(validate_fit(f), f)
    expect_s3_class(summary(f), paste0("summary.", class(f)[1L]))
  }
  cv <- suppressWarnings(cv_fgseq(vx, vy, lambda = c(1, 0.1, 0.01), nfolds = 3, seed = 1, progress = FALSE))
  expect_identical(validate_cv(cv), cv)
  st <- fgseq_stats(vx, vy)
  expect_identical(validate_stats(st), st)
})

test_that("an fgseq fit edited one field at a time is refused by every method, naming the field", {
  for (i in seq_along(tamper_fgseq)) {
    field <- names(tamper_fgseq)[i]
    base <- if (field == "classes") vbin else vfit
    bad <- tamper_fgseq[[i]](base)
    for (m in names(fit_methods)) {
      expect_error(fit_methods[[m]](bad), field, fixed = TRUE, class = "fgseq_error_invalid_object",
                   label = paste0("tampered `", field, "` (edit ", i, ") in ", m, "()"))
    }
  }
})

test_that("a tampered fit never reaches the prefix kernel: fewer coefficient rows than columns", {
  # the kernel would read past the coefficient table; the validator stops first, and the core checks too
  bad <- vfit
  bad$beta <- bad$beta[1:3, ]
  expect_error(predict(bad, vx[1:2, ], missing = "prefix"), "beta", class = "fgseq_error_invalid_object")
  expect_error(.prefix_predict(vx[1:2, ], rep(1L, 5), matrix(0L, 1, 1), matrix(vfit$a0, 1), as.matrix(vfit$beta[1:3, ])),
               "one row per column")
})

test_that("a NaN coefficient is refused, not read as 0", {
  bad <- vfit
  bad$beta["v1", ncol(bad$beta)] <- NaN
  expect_error(predict(bad, vx[1:2, ]), "beta", class = "fgseq_error_invalid_object")
  # the fit itself predicts as the plain sum
  k <- ncol(vfit$beta)
  expect_equal(unname(predict(vfit, vx[1:2, ], step = k - 1L)[, 1]),
               unname(vfit$a0[k] + drop(vx[1:2, ] %*% vfit$beta[, k])))
})

tamper_miser <- list(
  `trees$step` = function(f) { f$trees$step[1L] <- nrow(f$path) + 5L; f },
  `trees$column` = function(f) { s <- which(!is.na(f$trees$column))[1L]; f$trees$column[s] <- 99L; f },
  `trees$value` = function(f) { l <- which(is.na(f$trees$column))[1L]; f$trees$value[l] <- NaN; f },
  init = function(f) { f$init[1L] <- NaN; f },
  eta = function(f) { f$eta <- Inf; f },
  eta = function(f) { f$eta <- 5; f },                                     # outside (0, 1]
  eta = function(f) { f$eta <- 0; f },
  init = function(f) { f$init <- as.integer(round(f$init)); f },           # integer storage
  `trees$tree` = function(f) { f$path <- f$path[-nrow(f$path), ]; f },
  sequence = function(f) { f$sequence[1L] <- "zz"; f },
  n_steps = function(f) { f$n_steps <- 1e6; f },
  path = function(f) { f$path$cost[2L] <- -1; f },
  path = function(f) { f$path$group_cost <- rev(f$path$group_cost); f$path$cost <- cumsum(f$path$group_cost); f },
  group = function(f) { f$group <- unname(f$group); f },
  measurement_cost = function(f) { f$measurement_cost[] <- 1e308; f$cost[] <- 1e308; f },
  cost = function(f) { f$cost[1L] <- NA; f },
  label = function(f) { f$label <- NULL; f },
  depth = function(f) { f$depth <- "4"; f },
  depth = function(f) { f$depth <- 2.5; f },
  `trees$threshold` = function(f) { f$trees$threshold <- as.character(f$trees$threshold); f },
  cost_penalty = function(f) { f$cost_penalty <- -1; f },
  `trees$feature` = function(f) { s <- which(!is.na(f$trees$column))[1L]; f$trees$feature[s] <- "v9"; f },
  paid_groups = function(f) { f$paid_groups$group_cost[1L] <- f$paid_groups$group_cost[1L] + 1; f },
  paid_groups = function(f) { f$paid_groups$step[1L] <- f$paid_groups$step[1L] + 1L; f },
  paid_groups = function(f) { f$paid_groups <- f$paid_groups[-1L, ]; f }
)

test_that("a miser fit edited one field at a time is refused by every method, naming the field", {
  methods <- fit_methods[setdiff(names(fit_methods), "coef")]
  for (i in seq_along(tamper_miser)) {
    field <- names(tamper_miser)[i]
    bad <- tamper_miser[[i]](vmis)
    for (m in names(methods)) {
      expect_error(methods[[m]](bad), field, fixed = TRUE, class = "fgseq_error_invalid_object",
                   label = paste0("tampered `", field, "` in ", m, "()"))
    }
  }
})

test_that("a cross-validation edited one field at a time is refused by its methods", {
  cv <- suppressWarnings(cv_fgseq(vx, vy, lambda = c(1, 0.1, 0.01), nfolds = 3, seed = 1, progress = FALSE))
  edits <- list(
    lambda = function(o) { o$lambda[1L] <- NA; o },
    fgseq.fit = function(o) { o$fgseq.fit <- o$fgseq.fit[-1L]; o },
    fgseq.fit = function(o) { o$fgseq.fit[[2L]]$beta[1L, 1L] <- NaN; o },
    fgseq.fit = function(o) { o$fgseq.fit[[1L]]$lambda <- 5; o },
    index = function(o) { o$index[2L] <- 9L; o },
    cvm = function(o) { o$cvm <- o$cvm[-1L]; o },
    budget = function(o) { o$budget <- NULL; o }
  )
  for (i in seq_along(edits)) {
    bad <- edits[[i]](cv)
    field <- names(edits)[i]
    expect_error(predict(bad, vx[1:2, ]), field, fixed = TRUE, class = "fgseq_error_invalid_object")
    expect_error(coef(bad), field, fixed = TRUE, class = "fgseq_error_invalid_object")
    expect_error(utils::capture.output(print(bad)), field, fixed = TRUE, class = "fgseq_error_invalid_object")
  }
})

test_that("statistics with an asymmetric or impossible cross-product are refused", {
  st <- fgseq_stats(vx, vy)
  a <- st
  a$xx[1L, 2L] <- a$xx[1L, 2L] + 1
  expect_error(fgseq(a), "xx", class = "fgseq_error_invalid_object")
  expect_error(st + a, "`e2`", class = "fgseq_error_invalid_object")
  b <- st
  b$xx[1L, 2L] <- b$xx[2L, 1L] <- 10 * sqrt(b$xx[1L, 1L] * b$xx[2L, 2L])
  expect_error(fgseq(b), "xx", class = "fgseq_error_invalid_object")
  c2 <- st
  c2$xy[1L] <- 10 * sqrt(c2$xx[1L, 1L] * c2$yy)
  expect_error(fgseq(c2), "xy", class = "fgseq_error_invalid_object")
  # the fit from the statistics is the fit from the data
  expect_equal(fgseq(st)$sequence, fgseq(vx, vy)$sequence)
})

test_that("write_predictor() on a fit that fails validation gives the validator's message", {
  bad <- vfit
  bad$measurement_cost[] <- 1e308
  bad$cost[] <- 1e308
  file <- tempfile(fileext = ".json")
  expect_error(write_predictor(bad, file), "measurement_cost", class = "fgseq_error_invalid_object")
  expect_false(file.exists(file))
})

test_that("a chunk description edited one field at a time is refused before any chunk is read", {
  pieces <- split(seq_len(80), rep(1:2, each = 40))
  ch <- fgseq_chunks(lapply(pieces, function(i) list(x = vx[i, ], y = vy[i])))
  expect_equal(fgseq(ch)$sequence, fgseq(vx, vy)$sequence)
  edits <- list(n = function(o) { o$n <- 5; o },
                items = function(o) { o$items <- list(); o },
                get = function(o) { o$get <- "readRDS"; o })
  for (i in seq_along(edits)) {
    expect_error(fgseq(edits[[i]](ch)), names(edits)[i], fixed = TRUE, class = "fgseq_error_invalid_object")
  }
})

test_that("edited fields of the wrong storage type or range are refused in R, not in the core", {
  # an integer a0 or beta would stop in the core's mapping ("Wrong R type for mapped matrix")
  b <- vfit
  b$a0 <- as.integer(round(b$a0))
  expect_error(predict(b, vx[1:2, ]), "stored as integer", class = "fgseq_error_invalid_object")
  # a dense Matrix beta of the right shape is named as what it is, not as a matrix of another shape
  d <- vfit
  d$beta <- Matrix::Matrix(as.matrix(vfit$beta), sparse = FALSE)
  e <- tryCatch(coef(d), error = identity)
  expect_s3_class(e, "fgseq_error_invalid_object")
  expect_match(conditionMessage(e), class(d$beta)[1L], fixed = TRUE)
  expect_false(grepl(paste0("not a ", nrow(vfit$beta), " x "), conditionMessage(e), fixed = TRUE))
  # converted as the message says, it is the fit again
  d$beta <- methods::as(methods::as(d$beta, "CsparseMatrix"), "generalMatrix")
  expect_equal(predict(d, vx[1:3, ]), predict(vfit, vx[1:3, ]), tolerance = 0)
  # a Miser eta outside (0, 1] (miser() refuses it) would predict with any shrinkage
  m <- vmis
  m$eta <- 1e6
  expect_error(predict(m, vx[1:2, ]), "`eta`", class = "fgseq_error_invalid_object")
  # statistics whose row count is beyond any count of rows (the core refuses it unclassed)
  st <- fgseq_stats(vx, vy)
  st$n <- 1e300
  expect_error(fgseq(st), "`n`", class = "fgseq_error_invalid_object")
})

test_that("statistics of more rows than an integer holds fit, with their row count as nobs", {
  st <- fgseq_stats(vx, vy)
  big <- st
  big$n <- 3e9
  a <- expect_silent(fgseq(big))
  expect_identical(a$nobs, 3e9)
  expect_identical(a$sequence, fgseq(st)$sequence)
})
