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
  expect_equal(cv$lambda_best, vlam[best])
  expect_equal(cv$fit$path, fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam[best])$path)
  expect_identical(cv$foldid, vfold)
})

test_that("the step interpolation and a loss metric pick their own best lambda", {
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = c(0.5, 1e-6, 5), foldid = vfold, metric = "mse",
                 interpolation = "step", progress = FALSE)
  expect_equal(cv$lambda_best, c(0.5, 1e-6, 5)[which.min(cv$timeliness$step)])
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

test_that("print, plot and the progress bar", {
  cv <- cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = vlam, foldid = vfold, progress = TRUE)
  out <- capture.output(print(cv))
  expect_match(out[1], "3-fold cross-validated timeliness of held-out r2 up to the stopping cost")
  expect_true(any(grepl("Best lambda \\(linear timeliness\\)", out)))
  pdf(NULL)
  on.exit(dev.off())
  drawn <- plot(cv)
  expect_equal(drawn$mean, cv$curve$mean[cv$curve$lambda == cv$lambda_best])
  expect_error(plot(cv, which_lambda = 3), "`which_lambda` must be one of the cross-validated `lambda` values")
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

test_that("a lambda grid with negative values", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, lambda = c(0.1, -1)),
               "`lambda` must be a vector of non-negative, finite ridge constants")
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

test_that("a bad progress flag", {
  expect_error(cv_fgseq(vd$x, vd$y, vd$group, vd$cost, progress = NA), "`progress` must be TRUE or FALSE")
})
