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
  expect_equal(sp$group_lasso$entry_penalty[names(ref)], ref, tolerance = 1e-7)
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
                                           n_penalty = 30))
    gl <- sp$group_lasso
    for (k in seq_along(gl$penalty)) {
      kkt <- ref_gl_kkt(cs$d$x, cs$d$y, cs$d$group, cs$d$cost, gl$beta[, k], gl$a0[k], gl$penalty[k], cs$family)
      expect_lt(kkt[["worst"]], 1e-8)
      expect_lt(abs(kkt[["intercept"]]), 1e-8)
    }
    # at its entry lambda a group is still 0 and its condition holds with equality
    g <- sp$sequence[2]
    lam <- gl$entry_penalty[[g]]
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

# The core's solver (sparse/grouplasso.hpp) and the plain-R one (helper-glasso-r.R) on the same whitened groups:
# the same grid, entry lambdas to the solver's tolerance, coefficients and intercepts along the path.
expect_same_path <- function(both) {
  expect_equal(both$cpp$penalty, both$r$penalty, tolerance = 1e-12)
  expect_identical(is.na(both$cpp$entry), is.na(both$r$entry))
  expect_equal(both$cpp$entry, both$r$entry, tolerance = 1e-9)
  scale <- max(abs(both$r$beta), 1)
  expect_lt(max(abs(both$cpp$beta - both$r$beta)) / scale, 1e-7)
  expect_equal(both$cpp$a0, both$r$a0, tolerance = 1e-8)
  expect_equal(both$cpp$kkt, both$r$kkt, tolerance = 1e-7)
}

test_that("the core's group lasso path is the plain-R solver's: heart (gaussian, binomial, poisson)", {
  d <- heart_design()
  expect_same_path(glasso_both(d$x, d$y, d$group, d$cost, n_penalty = 40))
  expect_same_path(glasso_both(d$x, d$y, d$group, d$cost, "binomial", n_penalty = 40))
  # poisson: the number of major vessels coloured (ca, 0 to 3) from the other variables
  x <- d$x[, !grepl("^ca$", colnames(d$x))]
  grp <- d$group[d$group != "ca"]
  expect_same_path(glasso_both(x, heart$ca, grp, d$cost, "poisson", n_penalty = 40))
})

# (the plain-R solver takes minutes for the GLM families on Boston: gaussian only there)
test_that("the core's group lasso path is the plain-R solver's: Boston with cubic groups", {
  skip_if_not_installed("MASS")
  d <- boston_design()
  expect_same_path(glasso_both(d$x, d$y, d$group, d$cost, n_penalty = 40))
})

test_that("the core's group lasso path is the plain-R solver's with weights and an offset", {
  d <- heart_design()
  set.seed(11)
  w <- runif(nrow(d$x), 0.2, 3)
  o <- rnorm(nrow(d$x), sd = 0.3)
  expect_same_path(glasso_both(d$x, d$y, d$group, d$cost, weights = w, offset = o, n_penalty = 30))
  expect_same_path(glasso_both(d$x, d$y, d$group, d$cost, "binomial", weights = w, offset = o, n_penalty = 30))
  x <- d$x[, colnames(d$x) != "ca"]
  expect_same_path(glasso_both(x, heart$ca, d$group[d$group != "ca"], d$cost, "poisson", weights = w,
                               offset = o, n_penalty = 30))
})

test_that("whole-number weights give the path and the fit of repeated rows", {
  d <- heart_design()
  set.seed(12)
  w <- sample(0:3, nrow(d$x), replace = TRUE)
  rows <- rep(seq_len(nrow(d$x)), w)
  for (family in c("gaussian", "binomial")) {
    sw <- suppressWarnings(sparse_sequence(d$x, d$y, d$group, d$cost, family = family, weights = w, n_penalty = 30))
    sr <- suppressWarnings(sparse_sequence(d$x[rows, ], d$y[rows], d$group, d$cost, family = family, n_penalty = 30))
    expect_identical(sw$sequence, sr$sequence)
    expect_equal(sw$group_lasso$entry_penalty, sr$group_lasso$entry_penalty, tolerance = 1e-8)
    expect_equal(sw$group_lasso$beta, sr$group_lasso$beta, tolerance = 1e-6)
    expect_equal(sw$group_lasso$a0, sr$group_lasso$a0, tolerance = 1e-6)
    expect_equal(sw$path$r2, sr$path$r2, tolerance = 1e-8)
  }
})

test_that("a gaussian offset is the path of y - offset", {
  set.seed(13)
  o <- rnorm(nrow(sd1$x))
  so <- sparse_sequence(sd1$x, sd1$y + o, sd1$group, sd1$cost, offset = o)
  sy <- sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost)
  expect_identical(so$sequence, sy$sequence)
  expect_equal(so$group_lasso$entry_penalty, sy$group_lasso$entry_penalty, tolerance = 1e-9)
  expect_equal(so$group_lasso$beta, sy$group_lasso$beta, tolerance = 1e-7)
  expect_equal(so$group_lasso$a0, sy$group_lasso$a0, tolerance = 1e-7)
})

test_that("with weights and an offset the path's end is the weighted least squares fit, the refit glm()'s", {
  set.seed(14)
  n <- nrow(sd1$x)
  w <- runif(n, 0.5, 2)
  o <- rnorm(n, sd = 0.2)
  # gaussian: at the end of a path down to 1e-6 lambda_max the penalty shifts the coefficients by
  # about 1e-6 of their size
  sp <- sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, weights = w, offset = o, n_penalty = 20,
                        penalty_min_ratio = 1e-6)
  ref <- lm(sd1$y ~ sd1$x, weights = w, offset = o)
  gl <- sp$group_lasso
  expect_equal(unname(gl$beta[, 20]), unname(coef(ref)[-1]), tolerance = 1e-4)
  expect_equal(gl$a0[20], unname(coef(ref)[1]), tolerance = 1e-4)
  # poisson: the refit of the whole sequence is glm()'s fit
  y <- rpois(n, exp(o + 0.3 * drop(scale(sd1$x[, 1])) - 0.2 * drop(scale(sd1$x[, 4]))))
  sp <- sparse_sequence(sd1$x, y, sd1$group, sd1$cost, family = "poisson", weights = w, offset = o,
                        lambda = 0, n_penalty = 20)
  ref <- glm(y ~ sd1$x, family = poisson(), weights = w, offset = o)
  expect_equal(unname(coef(sp, step = length(sp$sequence))[, 1]), unname(coef(ref)), tolerance = 1e-7)
  # unit weights, an offset: the optimality conditions along the path, by the independent reference
  sp1 <- sparse_sequence(sd1$x, y, sd1$group, sd1$cost, family = "poisson", offset = o, n_penalty = 20)
  for (k in seq_along(sp1$group_lasso$penalty)) {
    kkt <- ref_gl_kkt(sd1$x, y, sd1$group, sd1$cost, sp1$group_lasso$beta[, k], sp1$group_lasso$a0[k],
                      sp1$group_lasso$penalty[k], "poisson", offset = o)
    expect_lt(kkt[["worst"]], 1e-8)
    expect_lt(abs(kkt[["intercept"]]), 1e-8)
  }
})

test_that("the formula method evaluates weights, offset, offset() terms and subset in data", {
  h <- heart
  h$w <- rep(c(1, 2, 0.5), length.out = nrow(h))
  h$e <- exp(rnorm(nrow(h), sd = 0.2))
  h$o <- log(h$e) / 2
  sf <- sparse_sequence(ca ~ age + sex + cp + thalach + offset(log(e)), data = h, cost = c(heart_cost, e = 0, o = 0),
                        family = "poisson", weights = w, offset = o, subset = age > 40, lambda = 0)
  keep <- h$age > 40
  mm <- model.matrix(ca ~ age + sex + cp + thalach, h[keep, ])
  grp <- c("age", "sex", "cp", "cp", "cp", "thalach")
  sm <- sparse_sequence(mm[, -1], h$ca[keep], grp, heart_cost[unique(grp)], family = "poisson", weights = h$w[keep],
                        offset = log(h$e[keep]) + h$o[keep], lambda = 0)
  expect_identical(sf$sequence, sm$sequence)
  expect_equal(sf$group_lasso$entry_penalty, sm$group_lasso$entry_penalty)
  expect_equal(nobs(sf), sum(keep))
  ref <- glm(ca ~ age + sex + cp + thalach + offset(log(e)), data = h, family = poisson(), weights = w,
             offset = o, subset = age > 40)
  expect_equal(unname(coef(sf, step = 4)[, 1]), unname(coef(ref)), tolerance = 1e-7)
  # new data: the offset() term and `offset` evaluated in newdata, as predict.glm() does
  expect_equal(unname(predict(sf, newdata = h[1:20, ], step = 4)[, 1]),
               unname(predict(ref, newdata = h[1:20, ])), tolerance = 1e-7)
  expect_error(sparse_sequence(ca ~ age, data = h, weights = -w, family = "poisson"), "`weights` must be non-negative")
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
                      lambda = sp$group_lasso$penalty / s)
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

test_that("sparse_sequence() checks n_penalty, penalty_min_ratio, family and unknown arguments", {
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, n_penalty = 1),
               "`n_penalty` must be a single whole number >= 2")
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, penalty_min_ratio = 1),
               "`penalty_min_ratio` must be a single number in \\(0, 1\\)")
  # the former names still work, with a deprecation warning; both names at once is an error
  expect_warning(
    expect_warning(old <- sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, nlambda = 20, lambda_min_ratio = 1e-3),
                   "`nlambda` is deprecated: use `n_penalty`", class = "fgseq_warning_deprecated"),
    "`lambda_min_ratio` is deprecated: use `penalty_min_ratio`", class = "fgseq_warning_deprecated")
  new <- sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, n_penalty = 20, penalty_min_ratio = 1e-3)
  expect_identical(old$group_lasso, new$group_lasso)
  expect_length(new$group_lasso$penalty, 20)
  expect_equal(min(new$group_lasso$penalty) / max(new$group_lasso$penalty), 1e-3)
  expect_error(sparse_sequence(sd1$x, sd1$y, sd1$group, sd1$cost, nlambda = 20, n_penalty = 20),
               "give `n_penalty` only", class = "fgseq_error_input")
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
  with_na_option("na.fail", expect_error(sparse_sequence(diagnosis ~ age + sex, data = h), "`data` has NA in age"))
  expect_error(sparse_sequence(~ age + sex, data = heart), "`x` \\(the formula\\) must have a response")
  expect_error(sparse_sequence(diagnosis ~ 1, data = heart), "must have at least one term on its right-hand side")
  expect_error(sparse_sequence(cp ~ age, data = heart), "the response must be numeric, logical or a two-level factor")
})

test_that("an n_penalty whose coefficient path exceeds the machine's memory is refused before the path", {
  x <- as.matrix(mtcars[, -1])
  expect_error(sparse_sequence(x, mtcars$mpg, n_penalty = 2e9), "coefficient path", class = "fgseq_error_input")
})

test_that("sparse_sequence() sweeps x for NA, NaN and Inf once, and still refuses them", {
  set.seed(81)
  x <- matrix(stats::rnorm(60 * 6), 60, 6)
  y <- x[, 1] - x[, 4] + stats::rnorm(60)
  sweeps <- new.env()
  sweeps$n <- 0L
  count <- function() sweeps$n <- sweeps$n + 1L
  suppressMessages(trace(".scan_columns", tracer = bquote(.(count)()), where = asNamespace("fgseq"), print = FALSE))
  on.exit(suppressMessages(untrace(".scan_columns", where = asNamespace("fgseq"))), add = TRUE)
  fit <- sparse_sequence(x, y, group = rep(1:3, each = 2))
  expect_identical(sweeps$n, 1L)
  # the path is the fit of its own order
  ref <- lm(y ~ x)
  expect_equal(unname(fit$beta[, ncol(fit$beta)]), unname(coef(ref)[-1]), tolerance = 1e-4)
  x[5, 3] <- NA
  expect_error(sparse_sequence(x, y, group = rep(1:3, each = 2)), "NA", class = "fgseq_error_input")
})

test_that("sparse_sequence() checks each input once and fits as the group lasso and fgseq() on that order do", {
  counts <- c(check_response = 0L, group_measurements = 0L, check_x_scan = 0L, check_weights = 0L)
  ns <- asNamespace("fgseq")
  for (f in names(counts)) {
    local({
      g <- f
      suppressMessages(trace(g, function() counts[[g]] <<- counts[[g]] + 1L, print = FALSE, where = ns))
    })
  }
  on.exit(for (f in names(counts)) suppressMessages(untrace(f, where = ns)))
  w <- seq(0.5, 1.5, length.out = nrow(sd1$x))
  fit <- sparse_sequence(sd1$x, sd1$y, group = sd1$group, cost = sd1$cost, weights = w)
  expect_identical(counts, c(check_response = 1L, group_measurements = 1L, check_x_scan = 1L, check_weights = 1L))
  # the path is fgseq()'s on the entry order, with the same weights, its inputs checked anew
  wref <- fgseq:::fit_sequence(sd1$x, sd1$y, group = sd1$group, cost = sd1$cost, weights = w, order = fit$sequence)
  expect_equal(fit$beta, wref$beta, tolerance = 1e-12)
  expect_equal(fit$path$objective, wref$path$objective, tolerance = 1e-12)
})
