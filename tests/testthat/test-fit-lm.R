# The fitted models on the path against lm() (lambda = 0) and against a
# direct ridge solve (lambda > 0), on the original scale of x.

# Ridge on whitened coordinates, mapped back, for the columns `cols`
# (groups of full rank): with b_g = T_g w_g, ||w_g||^2 = b_g' Sigma_gg b_g, so
# the spec's ridge is the generalized ridge
#   b = (Xs'Xs/n + lambda * blockdiag(Sigma_gg))^-1 Xs'yc/n
# on standardized columns, then beta = b / sd, a0 = mean(y) - colMeans(x)'beta.
direct_ridge <- function(x, y, group, lambda) {
  n <- nrow(x)
  mu <- colMeans(x)
  sdv <- sqrt(colMeans(sweep(x, 2, mu)^2))
  xs <- sweep(sweep(x, 2, mu), 2, sdv, "/")
  sig <- crossprod(xs) / n
  pen <- sig * outer(group, group, "==")
  b <- solve(sig + lambda * pen, crossprod(xs, y - mean(y)) / n)
  beta <- drop(b) / sdv
  list(beta = beta, a0 = mean(y) - sum(mu * beta))
}

lm_designs <- function() {
  list(correlated = sim_groups(n = 150, sizes = c(3, 2, 2, 1), rho = 0.6, seed = 12),
       rank_deficient = sim_rank_deficient(n = 90, seed = 13),
       duplicated = sim_duplicated(n = 90, seed = 14),
       heart = heart_design())
}
full_rank <- c(correlated = TRUE, rank_deficient = FALSE, duplicated = FALSE, heart = TRUE)

test_that("the last model at lambda = 0 is lm() (fitted values; coefficients at full rank)", {
  for (nm in names(lm_designs())) {
    d <- lm_designs()[[nm]]
    for (m in c("omp", "fr", "doubling")) {
      fit <- fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = 0)
      K <- length(fit$sequence)
      expect_identical(K, length(unique(d$group)))
      l <- lm(d$y ~ d$x)
      expect_close(fitted_at(fit$beta, fit$a0, d$x, K + 1), fitted(l), 1e-7, paste(nm, m, "fitted"))
      expect_close(predict(fit, d$x, step = K), fitted(l), 1e-7, paste(nm, m, "predict"))
      expect_close(fit$path$r2[K + 1], summary(l)$r.squared, 1e-8, paste(nm, m, "r2"))
      if (full_rank[[nm]]) {
        expect_close(coef(fit, step = K), coef(l), 1e-7, paste(nm, m, "coef"))
      }
    }
  }
})

test_that("every prefix at lambda = 0 is the lm() fit on its groups", {
  for (nm in c("correlated", "rank_deficient", "heart")) {
    d <- lm_designs()[[nm]]
    fit <- fgseq(d$x, d$y, d$group, d$cost, method = "omp", lambda = 0)
    for (k in seq_along(fit$sequence)) {
      l <- lm(d$y ~ d$x[, d$group %in% fit$sequence[seq_len(k)]])
      expect_close(fit$path$r2[k + 1], summary(l)$r.squared, 1e-8, paste(nm, k, "r2"))
      expect_close(fitted_at(fit$beta, fit$a0, d$x, k + 1), fitted(l), 1e-7, paste(nm, k))
      # columns of groups not yet selected have coefficient 0
      expect_true(all(fit$beta[!d$group %in% fit$sequence[seq_len(k)], k + 1] == 0))
    }
    # objective F = R(empty) * r2 with R(empty) = sum((y - mean(y))^2) / (2n)
    r0 <- sum((d$y - mean(d$y))^2) / (2 * length(d$y))
    expect_close(fit$path$objective, r0 * fit$path$r2, 1e-10)
  }
})

test_that("the reference's last model is lm() too", {
  d <- lm_designs()$heart
  r <- ref_fgseq(d$x, d$y, d$group, d$cost, method = "fr")
  K <- length(r$sequence)
  l <- lm(d$y ~ d$x)
  expect_close(r$beta[, K + 1], coef(l)[-1], 1e-9)
  expect_close(r$a0[K + 1], coef(l)[1], 1e-9)
})

test_that("at lambda > 0 every prefix equals the direct whitened-ridge solve", {
  for (nm in c("correlated", "heart")) {
    d <- lm_designs()[[nm]]
    for (lambda in c(0.01, 0.5)) {
      fit <- fgseq(d$x, d$y, d$group, d$cost, method = "omp", lambda = lambda)
      for (k in seq_along(fit$sequence)) {
        cols <- d$group %in% fit$sequence[seq_len(k)]
        dr <- direct_ridge(d$x[, cols, drop = FALSE], d$y, d$group[cols], lambda)
        expect_close(fit$beta[cols, k + 1], dr$beta, 1e-7, paste(nm, lambda, k, "beta"))
        expect_close(fit$a0[k + 1], dr$a0, 1e-7, paste(nm, lambda, k, "a0"))
        expect_true(all(fit$beta[!cols, k + 1] == 0))
      }
    }
  }
})

test_that("a rank-deficient group at lambda > 0 matches the ridge on its whitened basis", {
  # the dependent direction is dropped by whitening, so compare with a ridge
  # on the group's two independent columns: same span, and whitening makes
  # the ridge independent of the basis chosen for the span
  d <- sim_rank_deficient(n = 90, seed = 13)
  lambda <- 0.2
  fit <- fgseq(d$x, d$y, d$group, d$cost, method = "fr", lambda = lambda)
  K <- length(fit$sequence)
  drop_col <- which(d$group == unique(d$group)[2])[3]
  keep <- setdiff(seq_len(ncol(d$x)), drop_col)
  dr <- direct_ridge(d$x[, keep], d$y, d$group[keep], lambda)
  expect_close(fitted_at(fit$beta, fit$a0, d$x, K + 1),
               drop(d$x[, keep] %*% dr$beta + dr$a0), 1e-7)
})

test_that("the formula interface gives one group per term and the same fit", {
  h <- heart
  h$diagnosis <- as.numeric(h$diagnosis)
  d <- heart_design()
  fit_f <- fgseq(diagnosis ~ ., data = h, cost = heart_cost, lambda = 0)
  fit_x <- fgseq(d$x, d$y, d$group, d$cost, lambda = 0)
  expect_identical(fit_f$sequence, fit_x$sequence)
  expect_close(fit_f$path$r2, fit_x$path$r2, 1e-10)
  expect_close(fit_f$beta, fit_x$beta, 1e-9)
  expect_identical(unname(fit_f$group), d$group)
})

test_that("beta is sparse: each step stores the columns of its prefix's groups, dense values those of lm()", {
  d <- sim_groups(90, sizes = c(2, 3, 1, 2), seed = 41)
  d$x[, 4] <- 2  # a constant column: never stored
  for (m in c("omp", "fr")) {
    fit <- suppressWarnings(fgseq(d$x, d$y, d$group, d$cost, method = m, lambda = 0))
    expect_s4_class(fit$beta, "dgCMatrix")
    expect_identical(dimnames(fit$beta), list(colnames(d$x), paste0("step", 0:length(fit$sequence))))
    for (k in 0:length(fit$sequence)) {
      stored <- fit$beta@i[fit$beta@p[k + 1L] + seq_len(diff(fit$beta@p)[k + 1L])] + 1L
      in_prefix <- which(d$group %in% fit$sequence[seq_len(k)])
      expect_identical(stored, setdiff(in_prefix, 4L), label = paste(m, "step", k))
      # the dense coefficients of step k are lm() on the columns of the prefix (fitted values)
      fitted_k <- if (k == 0) rep(mean(d$y), nrow(d$x)) else fitted(lm(d$y ~ d$x[, stored]))
      expect_close(fitted_at(as.matrix(fit$beta), fit$a0, d$x, k + 1), fitted_k, 1e-7, paste(m, "step", k))
    }
  }
})

test_that("a fit whose beta is a dense matrix (as fits saved before it was sparse) predicts the same", {
  d <- sim_groups(60, seed = 43)
  fit <- fgseq(d$x, d$y, d$group, d$cost)
  old <- fit
  old$beta <- as.matrix(fit$beta)
  expect_identical(predict(old, d$x), predict(fit, d$x))
  expect_identical(coef(old, step = 2), coef(fit, step = 2))
  expect_identical(plot(old, what = "coef"), plot(fit, what = "coef"))
  old$beta["x1", 1] <- 0.5  # a coefficient before its group is in the sequence
  expect_error(predict(old, d$x), "before its group is in the sequence", class = "fgseq_error_invalid_object")
})

test_that("a tampered sparse beta is refused: values past its last column, a coefficient before its group", {
  d <- sim_groups(60, seed = 47)
  fit <- fgseq(d$x, d$y, d$group, d$cost)
  extra <- fit
  extra$beta@i <- c(extra$beta@i, 0L, 1L)
  extra$beta@x <- c(extra$beta@x, 1, 2)
  expect_error(predict(extra, d$x), "`beta`.* is not a 8 x", class = "fgseq_error_invalid_object")
  early <- fit
  early$beta["x1", 1] <- 0.5
  expect_error(predict(early, d$x), "before its group is in the sequence", class = "fgseq_error_invalid_object")
})
