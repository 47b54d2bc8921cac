# sparse_sequence(): the order of first entry on grpreg's cost-weighted group lasso path, each prefix
# refitted as fgseq() does.

sd1 <- sim_groups(n = 150, sizes = c(2, 3, 1, 2, 2), rho = 0.4, seed = 91)

# First non-zero lambda index of each group, straight from grpreg's beta matrix (raw x: grpreg
# standardizes it itself); ties by cost, then group order; never: NA.
grpreg_first <- function(d, ...) {
  labels <- unique(d$group)
  gidx <- match(d$group, labels)
  cost <- d$cost[labels]
  g <- grpreg::grpreg(d$x, d$y, group = gidx, penalty = "grLasso", nlambda = 200,
                      group.multiplier = unname(cost / mean(cost)), ...)
  first <- vapply(seq_along(labels), function(j) {
    nz <- colSums(abs(g$beta[1 + which(gidx == j), , drop = FALSE])) > 0
    if (any(nz)) which(nz)[1] else NA_integer_
  }, integer(1))
  list(labels = labels, cost = unname(cost), first = first, fit = g, gidx = gidx)
}

test_that("the sequence is the order of first entry on grpreg's path", {
  skip_if_not_installed("grpreg")
  sp <- sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, lambda = 0.01)
  ref <- grpreg_first(sd1)
  expect_false(anyNA(ref$first))
  expected <- ref$labels[order(ref$first, ref$cost, seq_along(ref$labels))]
  expect_identical(sp$sequence, expected)
  expect_equal(sp$path$score[-1], ref$fit$lambda[sort(ref$first)], tolerance = 1e-6)
  expect_s3_class(sp, "fgseq")
  expect_identical(sp$method, "sparse")
})

test_that("groups that never enter come last, by the group lasso's entry criterion at the path's end", {
  skip_if_not_installed("grpreg")
  sp <- sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, gmax = 2)
  ref <- grpreg_first(sd1, gmax = 2)
  entered <- which(!is.na(ref$first))
  expect_identical(sp$sequence[seq_along(entered)],
                   ref$labels[entered][order(ref$first[entered], ref$cost[entered], entered)])
  # the rest by decreasing ||P_g r|| / cost: P_g the projection on the group's centred columns and r
  # the residual of grpreg's last fit (||Z_g' r|| / n = sqrt(r' P_g r / n) for a whitened Z_g)
  L <- ncol(ref$fit$beta)
  r <- drop(sd1$y - cbind(1, sd1$x) %*% ref$fit$beta[, L])
  out <- which(is.na(ref$first))
  crit <- vapply(out, function(j) {
    xc <- scale(sd1$x[, ref$gidx == j, drop = FALSE], scale = FALSE)
    sqrt(sum(qr.fitted(qr(xc), r)^2) / nrow(xc)) / ref$cost[j]
  }, numeric(1))
  expect_identical(sp$sequence[-seq_along(entered)], ref$labels[out][order(-crit)])
  expect_true(all(is.na(sp$path$score[-seq_len(length(entered) + 1)])))
})

test_that("each prefix is refitted as fgseq() fits it", {
  for (d in list(sd1, sim_rank_deficient(), sim_duplicated())) {
    for (lam in c(0, 0.05)) {
      fit <- fgseq(d$x, d$y, d$group, d$cost, method = "fr", lambda = lam)
      given <- fgseq:::fixed_sequence_fit(d$x, d$y, d$group, d$cost, fit$sequence, lambda = lam)
      expect_identical(given$sequence, fit$sequence)
      expect_close(given$path$r2, fit$path$r2, 1e-8, "r2")
      expect_close(given$path$objective, fit$path$objective, 1e-8, "objective")
      # fitted values (unique even when coefficients are not, at lambda = 0 with collinear groups)
      expect_close(predict(given, d$x), predict(fit, d$x), 1e-7, "fitted")
    }
  }
})

test_that("the Sparse fit predicts, plots and scores like an fgseq fit", {
  skip_if_not_installed("grpreg")
  sp <- sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, lambda = 0)
  K <- length(sp$sequence)
  expect_identical(K, length(unique(sd1$group)))
  expect_equal(sp$path$r2[K + 1], summary(lm(sd1$y ~ sd1$x))$r.squared, tolerance = 1e-8)
  expect_equal(unname(predict(sp, sd1$x, step = K)[, 1]), unname(fitted(lm(sd1$y ~ sd1$x))), tolerance = 1e-7)
  expect_match(capture.output(print(sp))[1], "^Sparse sequence: 5 of 5 groups")
  C <- unname(cumsum(c(0, sd1$cost[sp$sequence])))
  expect_equal(timeliness(sp, stop_cost = C[3]), ref_timeliness(C, sp$path$r2, C[3]))
  pdf(NULL)
  on.exit(dev.off())
  expect_equal(plot(sp)$r2, sp$path$r2)
})

test_that("sparse_sequence() without grpreg says how to install it", {
  ns <- asNamespace("fgseq")
  old <- get("has_grpreg", envir = ns)
  unlockBinding("has_grpreg", ns)
  assign("has_grpreg", function() FALSE, envir = ns)
  on.exit({
    assign("has_grpreg", old, envir = ns)
    lockBinding("has_grpreg", ns)
  })
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost),
               "sparse_sequence\\(\\) needs the grpreg package; install it with install.packages\\(\"grpreg\"\\)")
})

test_that("sparse_sequence() checks nlambda", {
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, nlambda = 1),
               "`nlambda` must be a single whole number >= 2")
})

test_that("a given sequence must name distinct, non-constant groups", {
  expect_error(fgseq:::fixed_sequence_fit(sd1$x, sd1$y, sd1$group, sd1$cost, c("a", "a")),
               "`sequence` must name distinct groups of `group`")
})

test_that("the formula method makes one group per term and predicts from new data frames", {
  skip_if_not_installed("grpreg")
  tr <- heart[1:200, ]
  sf <- suppressWarnings(sparse_sequence(diagnosis ~ ., data = tr, cost = heart_cost))
  mm <- model.matrix(diagnosis ~ ., tr)
  grp <- attr(terms(diagnosis ~ ., data = tr), "term.labels")[attr(mm, "assign")[-1]]
  sm <- suppressWarnings(sparse_sequence(mm[, -1], tr$diagnosis, group = grp, cost = heart_cost))
  expect_identical(sf$sequence, sm$sequence)
  expect_equal(sf$path$r2, sm$path$r2)
  te <- heart[201:303, ]
  xt <- model.matrix(diagnosis ~ ., te)[, -1]
  expect_equal(predict(sf, newdata = te, budget = 20), predict(sm, xt, budget = 20))
  # a two-level factor response is read as 0/1
  tr$diagnosis <- factor(tr$diagnosis)
  expect_equal(suppressWarnings(sparse_sequence(diagnosis ~ ., data = tr, cost = heart_cost))$path$r2,
               sf$path$r2)
})

test_that("formula method: data, NA, response and terms", {
  expect_error(sparse_sequence(diagnosis ~ age), "`data` must be given with the formula interface")
  h <- heart[1:20, ]
  h$age[3] <- NA
  expect_error(sparse_sequence(diagnosis ~ age + sex, data = h), "`data` has NA in age")
  expect_error(sparse_sequence(~ age + sex, data = heart), "`x` \\(the formula\\) must have a response")
  expect_error(sparse_sequence(diagnosis ~ 1, data = heart), "must have at least one term on its right-hand side")
  expect_error(sparse_sequence(cp ~ age, data = heart), "the response must be numeric, logical or a two-level factor")
})
