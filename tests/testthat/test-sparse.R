# sparse_sequence(): the order of first entry on the cost-weighted group lasso path, checked against an
# independent plain-R group lasso (helper-grlasso-reference.R), the optimality (KKT) conditions along
# the path, and grpreg with multipliers it handles correctly; each prefix refitted as fgseq() does.

sd1 <- sim_groups(n = 150, sizes = c(2, 3, 1, 2, 2), rho = 0.4, seed = 91)

heart_design <- function() {
  mm <- model.matrix(diagnosis ~ ., heart)
  grp <- attr(terms(diagnosis ~ ., data = heart), "term.labels")[attr(mm, "assign")[-1]]
  list(x = mm[, -1], y = as.numeric(heart$diagnosis), group = grp, cost = heart_cost)
}

# Boston with the classic group structure (Yuan and Lin 2006): a cubic polynomial of each continuous
# variable is a group of 3 columns; chas (0/1) a group of 1. Costs drawn once.
boston_design <- function() {
  b <- MASS::Boston
  vars <- setdiff(names(b), c("medv", "chas"))
  x <- do.call(cbind, lapply(vars, function(v) {
    p <- poly(b[[v]], 3)
    colnames(p) <- paste0(v, 1:3)
    p
  }))
  x <- cbind(x, chas = b$chas)
  grp <- c(rep(vars, each = 3), "chas")
  set.seed(5)
  cost <- setNames(round(runif(length(vars) + 1, 1, 20), 2), c(vars, "chas"))
  list(x = x, y = b$medv, group = grp, cost = cost)
}

expect_entry_as_reference <- function(d, family = "gaussian") {
  sp <- suppressWarnings(sparse_sequence(d$x, d$y, d$group, d$cost, family = family))
  ref <- ref_gl_entry(d$x, d$y, d$group, d$cost, family, nlambda = 50)
  expect_identical(sp$sequence, names(sort(ref, decreasing = TRUE)))
  expect_equal(sp$group_lasso$entry_lambda[names(ref)], ref, tolerance = 1e-7)
  expect_equal(sp$path$score[-1], unname(ref[sp$sequence]), tolerance = 1e-7)
  sp
}

test_that("the entry order is that of an independent group lasso: Boston with cubic groups", {
  skip_if_not_installed("MASS")
  sp <- expect_entry_as_reference(boston_design())
  expect_length(sp$sequence, 13)
})

test_that("the entry order is that of an independent group lasso: heart, gaussian and binomial", {
  d <- heart_design()
  expect_entry_as_reference(d)
  expect_entry_as_reference(d, "binomial")
})

test_that("the entry order is that of an independent group lasso: poisson", {
  set.seed(3)
  d <- sd1
  d$y <- rpois(nrow(d$x), exp(0.3 * drop(scale(d$x[, 1])) - 0.2 * drop(scale(d$x[, 4]))))
  expect_entry_as_reference(d, "poisson")
})

test_that("the path satisfies the group lasso's optimality conditions at every lambda", {
  set.seed(3)
  ypois <- rpois(nrow(sd1$x), exp(0.3 * drop(scale(sd1$x[, 1])) - 0.2 * drop(scale(sd1$x[, 4]))))
  d <- heart_design()
  cases <- list(list(d = sd1, family = "gaussian"), list(d = d, family = "gaussian"),
                list(d = d, family = "binomial"), list(d = modifyList(sd1, list(y = ypois)), family = "poisson"))
  for (cs in cases) {
    sp <- suppressWarnings(sparse_sequence(cs$d$x, cs$d$y, cs$d$group, cs$d$cost, family = cs$family,
                                           nlambda = 30))
    gl <- sp$group_lasso
    for (k in seq_along(gl$lambda)) {
      kkt <- ref_gl_kkt(cs$d$x, cs$d$y, cs$d$group, cs$d$cost, gl$beta[, k], gl$a0[k], gl$lambda[k], cs$family)
      expect_lt(kkt[["worst"]], 1e-8)
      expect_lt(abs(kkt[["intercept"]]), 1e-8)
    }
    # at its entry lambda a group is still 0 and its condition holds with equality
    g <- sp$sequence[2]
    lam <- gl$entry_lambda[[g]]
    z <- ref_gl_groups(cs$d$x, cs$d$group)
    m <- cs$d$cost[names(z)] / mean(cs$d$cost[names(z)])
    fam <- ref_gl_family(cs$family)
    b0 <- lapply(z, function(zg) numeric(ncol(zg)))
    sol <- ref_gl_solve(z, cs$d$y, m, lam * (1 + 1e-9), fam, b0, fam$a0(cs$d$y))
    expect_true(all(sol$b[[g]] == 0))
    grad <- sqrt(sum(crossprod(z[[g]], cs$d$y - fam$mu(sol$eta))^2)) / length(cs$d$y)
    expect_equal(grad, lam * m[[g]], tolerance = 1e-7)
  }
})

test_that("grpreg agrees once every multiplier is at least sqrt(group size)", {
  skip_if_not_installed("grpreg")
  # grpreg 3.6.0 screens against lambda * sqrt(K_g) whatever the multipliers: scaled multipliers
  # s * m_g >= sqrt(K_g) give the same path with lambda / s
  d <- heart_design()
  sp <- sparse_sequence(d$x, d$y, d$group, d$cost)
  wh <- fgseq:::whiten_groups_r(d$x, d$group, unique(d$group))
  live <- names(sp$group_lasso$multiplier)
  m <- sp$group_lasso$multiplier
  K <- wh$rank[live]
  s <- max(sqrt(K) / m)
  cols <- unlist(wh$cols[live])
  g <- grpreg::grpreg(wh$xs[, cols], d$y, group = rep(seq_along(live), lengths(wh$cols[live])),
                      penalty = "grLasso", group.multiplier = unname(m * s),
                      lambda = sp$group_lasso$lambda / s)
  expect_equal(unname(g$beta[-1, ]), unname(sp$group_lasso$beta[cols, ] * wh$scale[cols]), tolerance = 1e-3)
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

test_that("sparse_sequence() checks nlambda, lambda_min_ratio, family and unknown arguments", {
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, nlambda = 1),
               "`nlambda` must be a single whole number >= 2")
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, lambda_min_ratio = 1),
               "`lambda_min_ratio` must be a single number in \\(0, 1\\)")
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, family = "multinomial"),
               "`family` must be one of \"gaussian\", \"binomial\", \"poisson\"")
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, gmax = 2), class = "fgseq_error_unknown_argument")
})

test_that("a given sequence must name distinct, non-constant groups", {
  expect_error(fgseq:::fixed_sequence_fit(sd1$x, sd1$y, sd1$group, sd1$cost, c("a", "a")),
               "`sequence` must name distinct groups of `group`")
})

test_that("the formula method makes one group per term and predicts from new data frames", {
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
