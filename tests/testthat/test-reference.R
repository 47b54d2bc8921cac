# fgseq() against the plain-R reference of helper-reference.R; and the
# reference itself against lm() and the paper's formulas, so that a bug shared
# by both implementations cannot hide.

designs <- function() {
  list(
    correlated = sim_groups(n = 120, sizes = c(2, 3, 1, 2, 2), rho = 0.5, seed = 11),
    rank_deficient = sim_rank_deficient(n = 100, seed = 2),
    duplicated = sim_duplicated(n = 100, seed = 3),
    heart = heart_design()
  )
}

# ---- the reference is right -----------------------------------------------

test_that("reference: every prefix is the lm() fit on the prefix's columns", {
  for (d in designs()) {
    for (m in c("omp", "fr", "doubling")) {
      r <- ref_fgseq(d$x, d$y, d$group, d$cost, method = m)
      for (k in seq_along(r$sequence)) {
        cols <- d$group %in% r$sequence[seq_len(k)]
        f <- lm(d$y ~ d$x[, cols])
        expect_close(r$r2[k + 1], summary(f)$r.squared, 1e-10)
        expect_close(fitted_at(r$beta, r$a0, d$x, k + 1), fitted(f), 1e-9)
      }
      expect_close(fitted_at(r$beta, r$a0, d$x, 1), rep(mean(d$y), length(d$y)), 1e-12)
    }
  }
})

test_that("reference: whitening gives Z'Z/n = I and drops the dependent direction", {
  d <- sim_rank_deficient()
  st <- ref_standardize(d$x)
  g2 <- d$group == unique(d$group)[2]
  w <- ref_whiten(st$xs[, g2])
  expect_identical(ncol(w$z), 2L)                       # 3 columns, rank 2
  expect_close(crossprod(w$z) / nrow(d$x), diag(2), 1e-10)
  expect_close(qr(cbind(w$z, st$xs[, g2]))$rank, 2)     # same span as the group
})

test_that("reference: OMP scores are the paper's b'(X_g'X_g)^-1 b, FR gains are R^2 gains", {
  d <- sim_groups(n = 150, sizes = c(3, 2, 2), rho = 0.6, seed = 5)
  n <- nrow(d$x)
  first <- ref_fgseq(d$x, d$y, d$group, d$cost, method = "omp", cost_sensitive = FALSE)
  # step 1: residual = centred y; b_g = Xs_g' yc / n on standardized columns
  xs <- scale(d$x) * sqrt(n / (n - 1))
  yc <- d$y - mean(d$y)
  paper <- sapply(unique(d$group), function(g) {
    b <- crossprod(xs[, d$group == g], yc) / n
    drop(t(b) %*% solve(crossprod(xs[, d$group == g]) / n, b))
  })
  expect_close(first$candidates[[1]], paper, 1e-10)
  # no-whiten and single criteria at step 1
  l2 <- ref_fgseq(d$x, d$y, d$group, d$cost, criterion = "l2", cost_sensitive = FALSE)
  linf <- ref_fgseq(d$x, d$y, d$group, d$cost, criterion = "linf", cost_sensitive = FALSE)
  bsq <- lapply(unique(d$group), function(g) (crossprod(xs[, d$group == g], yc) / n)^2)
  expect_close(l2$candidates[[1]], sapply(bsq, sum), 1e-10)
  expect_close(linf$candidates[[1]], sapply(bsq, max), 1e-10)
  # FR gain per cost = (R^2 increase) * R(empty) / c(g) at step 2
  fr <- ref_fgseq(d$x, d$y, d$group, d$cost, method = "fr")
  r0 <- sum(yc^2) / (2 * n)
  g1 <- fr$sequence[1]
  rest <- setdiff(unique(d$group), g1)
  r2_1 <- summary(lm(d$y ~ d$x[, d$group == g1]))$r.squared
  gain <- sapply(rest, function(h) {
    summary(lm(d$y ~ d$x[, d$group %in% c(g1, h)]))$r.squared - r2_1
  }) * r0 / d$cost[rest]
  expect_close(fr$candidates[[2]], gain, 1e-10)
})

test_that("reference: lambda > 0 equals a ridge with penalty b' Sigma_gg b per group", {
  # ||w_g||^2 = b_g' Sigma_gg b_g when b_g = T_g w_g and the group has full rank
  d <- sim_groups(n = 80, sizes = c(2, 3, 2), rho = 0.5, seed = 8)
  lambda <- 0.3
  r <- ref_fgseq(d$x, d$y, d$group, d$cost, lambda = lambda)
  n <- nrow(d$x)
  xs <- scale(d$x) * sqrt(n / (n - 1))
  sdv <- apply(d$x, 2, sd) * sqrt((n - 1) / n)
  sig <- crossprod(xs) / n
  same <- outer(d$group, d$group, "==")
  b <- solve(sig + lambda * sig * same, crossprod(xs, d$y - mean(d$y)) / n)
  K <- length(r$sequence)
  expect_close(r$beta[, K + 1], b / sdv, 1e-10)
  expect_close(r$a0[K + 1], mean(d$y) - sum(colMeans(d$x) * b / sdv), 1e-10)
})

test_that("reference: doubling candidates and fallback follow Algorithm 2", {
  # costs 1, 5, 2, 30: step 1 only cost 1 (c_min); step 2 nothing <= 1 so the
  # cheapest remaining (2); step 3 nothing <= 3 -> 5; step 4 -> 30.
  d <- sim_groups(n = 80, sizes = c(1, 2, 1, 2), seed = 4, cost = c(1, 5, 2, 30))
  r <- ref_fgseq(d$x, d$y, d$group, d$cost, method = "doubling")
  expect_identical(unname(d$cost[r$sequence]), c(1, 2, 5, 30))
  expect_identical(lengths(r$candidates), rep(1L, 4))
  # c_min = 5 opens the first step to costs 1, 5 and 2
  r5 <- ref_fgseq(d$x, d$y, d$group, d$cost, method = "doubling", c_min = 5)
  expect_identical(length(r5$candidates[[1]]), 3L)
})

# ---- fgseq() equals the reference ------------------------------------------

test_that("fgseq() selects the reference sequence at lambda = 0 (all methods and criteria)", {
  for (nm in names(designs())) {
    d <- designs()[[nm]]
    for (i in seq_len(nrow(settings))) {
      s <- settings[i, ]
      # duplicated columns across groups give exact linf ties when cost-blind;
      # those belong to the tie test below
      if (nm == "duplicated" && s$criterion == "linf" && !s$cost_sensitive) next
      args <- list(method = s$method, lambda = 0, criterion = s$criterion,
                   cost_sensitive = s$cost_sensitive)
      fit <- do.call(fgseq, c(list(d$x, d$y, group = d$group, cost = d$cost), args))
      ref <- do.call(ref_fgseq, c(list(d$x, d$y, group = d$group, cost = d$cost), args))
      expect_s3_class(fit, "fgseq")
      expect_same_path(fit, ref, beta = nm != "duplicated",
                       label = paste(nm, s$method, s$criterion, s$cost_sensitive))
    }
  }
})

test_that("fgseq() equals the reference at lambda > 0", {
  for (nm in c("correlated", "rank_deficient", "duplicated", "heart")) {
    d <- designs()[[nm]]
    for (m in c("omp", "fr", "doubling")) {
      for (cr in c("whitened", "l2")) {
        fit <- fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = 0.05, criterion = cr)
        ref <- ref_fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = 0.05, criterion = cr)
        expect_same_path(fit, ref, label = paste(nm, m, cr, "lambda 0.05"))
      }
    }
  }
})

test_that("fgseq() default group (one per column) and default cost (all 1) match the reference", {
  d <- sim_groups(n = 90, sizes = c(1, 1, 1, 1, 1), rho = 0.4, seed = 21)
  fit <- fgseq(d$x, d$y, lambda = 0)
  ref <- ref_fgseq(d$x, d$y)
  expect_same_path(fit, ref, label = "defaults")
  expect_identical(fit$sequence[order(match(fit$sequence, colnames(d$x)))], colnames(d$x))
})

test_that("doubling: c_min and the fallback rule match the reference", {
  d <- sim_groups(n = 80, sizes = c(1, 2, 1, 2), seed = 4, cost = c(1, 5, 2, 30))
  for (cm in list(NULL, 5, 100)) {
    fit <- fgseq(d$x, d$y, d$group, d$cost, method = "doubling", lambda = 0, c_min = cm)
    ref <- ref_fgseq(d$x, d$y, d$group, d$cost, method = "doubling", c_min = cm)
    expect_same_path(fit, ref, label = paste("c_min", format(cm)))
  }
  # several candidates per step: costs spread but doubling-capable
  d <- sim_groups(n = 120, sizes = c(1, 2, 1, 2, 1, 1), seed = 6,
                  cost = c(1.1, 0.9, 2.3, 4.7, 1.7, 3.9))
  for (cs in c(TRUE, FALSE)) {
    fit <- fgseq(d$x, d$y, d$group, d$cost, method = "doubling", lambda = 0, cost_sensitive = cs)
    ref <- ref_fgseq(d$x, d$y, d$group, d$cost, method = "doubling", cost_sensitive = cs)
    expect_same_path(fit, ref, label = paste("doubling spread", cs))
  }
})

test_that("ties go to the group that comes first in the group order", {
  set.seed(31)
  n <- 100
  x1 <- rnorm(n)
  y <- 3 * x1 + rnorm(n)
  x <- cbind(z = x1, b = rnorm(n), a = 2 * x1 + 7, c = rnorm(n))
  # "z" and "a" hold the same column (rescaled and shifted): equal scores at
  # step 1; "z" comes first in the group order although "a" sorts first.
  group <- c("z", "b", "a", "c")
  cost <- c(z = 2, b = 1, a = 2, c = 3)
  for (m in c("omp", "fr", "doubling")) {
    for (cr in c("whitened", "l2", "linf")) {
      ref <- ref_fgseq(x, y, group, cost, method = m, criterion = cr, c_min = 2)
      s1 <- ref$candidates[[1]]
      # premise: z and a tie (to rounding) and are the best
      expect_close(s1[["a"]], s1[["z"]], 1e-12)
      expect_true(s1[["z"]] > max(s1[setdiff(names(s1), c("z", "a"))]))
      expect_identical(ref$sequence[1], "z")
      fit <- fgseq(x, y, group, cost, method = m, lambda = 0, criterion = cr, c_min = 2)
      expect_same_path(fit, ref, beta = FALSE, label = paste("tie", m, cr))
      # with "a" before "z" in the group order, "a" wins
      o <- c(3, 2, 1, 4)
      fit_o <- fgseq(x[, o], y, group[o], cost, method = m, lambda = 0, criterion = cr,
                     c_min = 2)
      expect_identical(fit_o$sequence[1], "a")
      expect_identical(ref_fgseq(x[, o], y, group[o], cost, method = m, criterion = cr,
                                 c_min = 2)$sequence[1], "a")
    }
  }
  # exact ties under the cost-blind linf criterion on duplicated columns
  d <- sim_duplicated(n = 100, seed = 3)
  for (m in c("omp", "fr", "doubling")) {
    fit <- fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = 0, criterion = "linf",
                 cost_sensitive = FALSE)
    ref <- ref_fgseq(d$x, d$y, d$group, d$cost, method = m, criterion = "linf",
                     cost_sensitive = FALSE)
    expect_same_path(fit, ref, beta = FALSE, label = paste("linf ties", m))
  }
})

test_that("constant columns stay at 0 and an all-constant group is left out", {
  d <- sim_groups(n = 80, sizes = c(2, 2, 1, 2), seed = 71)
  d$x[, 2] <- 5                        # a constant column inside group "d"
  d$x[, 5] <- -1                       # group "b" (one column) is all constant
  msgs <- character(0)
  fit <- withCallingHandlers(
    fgseq(d$x, d$y, d$group, d$cost, lambda = 0),
    warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_true(any(grepl("constant", msgs)))
  ref <- ref_fgseq(d$x, d$y, d$group, d$cost)
  expect_false("b" %in% ref$sequence)
  expect_same_path(fit, ref, label = "constant columns")
  expect_true(all(fit$beta[c(2, 5), ] == 0))
  K <- length(fit$sequence)
  expect_close(fitted_at(fit$beta, fit$a0, d$x, K + 1), fitted(lm(d$y ~ d$x)), 1e-7)
})
