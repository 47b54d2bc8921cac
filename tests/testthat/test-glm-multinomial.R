# The multinomial path at scale: its Newton directions come from preconditioned conjugate gradients
# (inst/include/fgseq/glm/multinomial.hpp). Every prefix of its paths is checked against a
# plain-R penalized multinomial fit of the same columns (ref_multinom_fit(), Newton's method on the full
# Hessian), its last step at lambda = 0 against nnet::multinom(), and its behaviour on separable classes.

# n rows of p = sum(sizes) correlated columns in groups g1, g2, ... and a K-class factor response
sim_multinom <- function(n, K, sizes, seed) {
  set.seed(seed)
  p <- sum(sizes)
  x <- matrix(stats::rnorm(n * p), n) %*% chol(0.3^abs(outer(seq_len(p), seq_len(p), "-")))
  colnames(x) <- paste0("x", seq_len(p))
  group <- rep(paste0("g", seq_along(sizes)), sizes)
  B <- matrix(stats::rnorm(p * K, sd = 0.5), p, K)
  eta <- x %*% B
  pr <- exp(eta - apply(eta, 1, max))
  y <- factor(apply(pr / rowSums(pr), 1, function(q) sample(letters[seq_len(K)], 1, prob = q)), levels = letters[seq_len(K)])
  cost <- stats::setNames(seq(1, 3, length.out = length(sizes)), unique(group))
  list(x = x, y = y, group = group, cost = cost)
}

# code evaluated with the fit's threads set to `threads`
with_threads <- function(threads, code) {
  old <- options(fgseq.threads = threads)
  on.exit(options(old))
  code
}

# the class coefficients (p x K) and class-centred intercepts of step k of a multinomial fit
step_beta <- function(fit, k) sapply(fit$beta, function(b) b[, k + 1])
centred <- function(a) a - mean(a)

test_that("every prefix of the multinomial paths is the plain-R penalized fit of its groups (weights, offsets)", {
  d <- sim_multinom(n = 400, K = 4, sizes = c(3, 1, 4, 2, 3, 2), seed = 31)
  set.seed(32)
  w <- stats::runif(400, 0.3, 2)
  off <- matrix(stats::rnorm(400 * 4, sd = 0.3), 400, 4)
  for (method in c("omp", "fr", "doubling")) {
    fit <- fgseq(d$x, d$y, d$group, d$cost, family = "multinomial", method = method, fr_gain = "quadratic",
                 lambda = 0.01, weights = w, offset = off)
    expect_true(fit$converged, label = method)
    expect_identical(length(fit$sequence), 6L, label = method)
    for (k in seq_along(fit$sequence)) {
      ref <- ref_multinom_fit(d$x, d$y, d$group, fit$sequence[seq_len(k)], 0.01, w, off)
      label <- paste(method, "step", k)
      expect_true(ref$gradient <= 1e-8, label = paste(label, "reference at its optimum"))
      expect_close(step_beta(fit, k), ref$beta, 1e-6, paste(label, "beta"))
      expect_close(centred(fit$a0[, k + 1]), centred(ref$a0), 1e-6, paste(label, "a0"))
    }
  }
})

test_that("at lambda = 0 the last step is nnet::multinom()'s fit with a factor, weights and an offset", {
  skip_if_not_installed("nnet")
  set.seed(41)
  n <- 300
  d <- data.frame(a = stats::rnorm(n), b = stats::rnorm(n), f = factor(sample(c("p", "q", "r"), n, TRUE)),
                  c2 = stats::rnorm(n))
  eta <- cbind(0, d$a - 0.5 * d$b, 0.8 * (d$f == "q") + 0.4 * d$c2, -0.6 * d$a + 0.5 * (d$f == "r"))
  d$y <- factor(apply(exp(eta) / rowSums(exp(eta)), 1, function(q) sample(c("k1", "k2", "k3", "k4"), 1, prob = q)))
  w <- stats::runif(n, 0.5, 2)
  off <- matrix(stats::rnorm(n * 4, sd = 0.3), n, 4)
  fit <- fgseq(y ~ a + b + f + c2, data = d, family = "multinomial", lambda = 0, weights = w, offset = off)
  expect_true(fit$converged)
  mm <- nnet::multinom(y ~ a + b + f + c2 + offset(off), data = d, weights = w, trace = FALSE, maxit = 10000,
                       reltol = 1e-16, abstol = 1e-16)
  expect_identical(length(fit$sequence), 4L)
  expect_close(fitted(fit), fitted(mm), 1e-6, "probabilities")
})

test_that("multinomial paths on 1 and 2 threads agree, and their sequences are the plain-R reference's", {
  d <- sim_multinom(n = 6000, K = 4, sizes = rep(5, 8), seed = 51)
  for (method in c("omp", "fr", "doubling")) {
    one <- with_threads(1, fgseq(d$x, d$y, d$group, d$cost, family = "multinomial",
                                                         method = method, fr_gain = "quadratic", lambda = 1e-3))
    two <- with_threads(2, fgseq(d$x, d$y, d$group, d$cost, family = "multinomial",
                                                         method = method, fr_gain = "quadratic", lambda = 1e-3))
    expect_identical(one$sequence, two$sequence, label = method)
    expect_close(unlist(lapply(one$beta, as.matrix)), unlist(lapply(two$beta, as.matrix)), 1e-8, paste(method, "beta"))
    k <- length(one$sequence)
    ref <- ref_multinom_fit(d$x, d$y, d$group, one$sequence, 1e-3)
    expect_close(step_beta(one, k), ref$beta, 1e-6, paste(method, "last step"))
  }
  # the OMP sequence from the reference's gradients: at each step the largest whitened gradient per cost
  omp <- with_threads(2, fgseq(d$x, d$y, d$group, d$cost, family = "multinomial", lambda = 1e-3))
  ref <- ref_glm_fgseq(d$x, d$y, d$group, d$cost, family = "multinomial", lambda = 1e-3)
  expect_identical(omp$sequence, ref$sequence)
})

test_that("separable classes, where the Newton directions need the Hessian's preconditioner: every prefix is the plain-R fit", {
  # five well-separated clusters (the training classes are separable): at small lambda the Kronecker
  # preconditioner needs too many iterations and the solver switches to the Hessian on the class contrasts,
  # formed by Eigen's kernels (fgseq.linear_algebra = "eigen") or by R's BLAS and LAPACK ("blas"; CS-G-FR's quadratic
  # gains then factorize and solve with them too)
  set.seed(71)
  n <- 300
  cl <- sample(5, n, TRUE)
  x <- matrix(stats::rnorm(5 * 12, sd = 1.2), 5, 12)[cl, ] + matrix(stats::rnorm(n * 12), n, 12)
  colnames(x) <- paste0("x", 1:12)
  y <- factor(letters[cl])
  group <- rep(paste0("g", 1:4), each = 3)
  w <- stats::runif(n, 0.5, 2)
  for (gram in c("eigen", "blas")) for (method in c("omp", "fr")) {
    old <- options(fgseq.linear_algebra = gram)
    fit <- fgseq(x, y, group, family = "multinomial", method = method, fr_gain = "quadratic", lambda = 1e-3,
                 weights = w)
    options(old)
    label <- paste(gram, method)
    expect_true(fit$converged, label = label)
    expect_identical(length(fit$sequence), 4L, label = label)
    for (k in seq_along(fit$sequence)) {
      ref <- ref_multinom_fit(x, y, group, fit$sequence[seq_len(k)], 1e-3, w)
      label <- paste(gram, method, "step", k)
      expect_close(step_beta(fit, k), ref$beta, 1e-6 * max(1, abs(ref$beta)), paste(label, "beta"))
      expect_close(centred(fit$a0[, k + 1]), centred(ref$a0), 1e-6 * max(1, abs(ref$a0)), paste(label, "a0"))
    }
  }
})

test_that("iris (setosa separable): lambda > 0 converges to the plain-R fit, lambda = 0 stops with the boundary warning", {
  x <- as.matrix(iris[, 1:4])
  for (lambda in c(1e-4, 0.01)) {
    expect_no_warning(fit <- fgseq(x, iris$Species, family = "multinomial", lambda = lambda))
    expect_true(fit$converged)
    K <- length(fit$sequence)
    ref <- ref_multinom_fit(x, iris$Species, colnames(x), fit$sequence, lambda)
    expect_close(fitted(fit), ref$mu, 1e-6, paste("lambda", lambda))
    expect_close(step_beta(fit, K), ref$beta, 1e-6 * max(1, abs(ref$beta)), paste("lambda", lambda, "beta"))
  }
  expect_warning(fit0 <- fgseq(x, iris$Species, family = "multinomial", lambda = 0),
                 "probabilities numerically 0 or 1", class = "fgseq_warning_boundary")
  # it stops (within the Newton iteration limit) with the setosa rows classified
  expect_identical(predict(fit0, x, type = "class")[iris$Species == "setosa", 5], rep("setosa", 50))
})

test_that("a multinomial fit from chunks equals the in-memory fit (weights, offsets; OMP, FR, Doubling)", {
  d <- sim_multinom(n = 600, K = 4, sizes = c(3, 2, 4, 1, 2), seed = 61)
  set.seed(62)
  w <- stats::runif(600, 0.5, 2)
  off <- matrix(stats::rnorm(600 * 4, sd = 0.3), 600, 4)
  # chunk 2 holds no row of class "d" (a class may be absent from a chunk); its y is a character vector
  y <- d$y
  rows <- split(seq_len(600), rep(1:3, length.out = 600))
  rows[[2]] <- rows[[2]][y[rows[[2]]] != "d"]
  keep <- sort(unlist(rows))
  chunks <- fgseq_chunks(lapply(seq_along(rows), function(k) {
    i <- rows[[k]]
    list(x = d$x[i, ], y = if (k == 2) as.character(y[i]) else y[i], weights = w[i], offset = off[i, ])
  }))
  for (method in c("omp", "fr", "doubling")) {
    a <- fgseq(d$x[keep, ], y[keep], d$group, d$cost, family = "multinomial", method = method,
               fr_gain = "quadratic", lambda = 1e-3, weights = w[keep], offset = off[keep, ])
    b <- fgseq(chunks, group = d$group, cost = d$cost, family = "multinomial", method = method,
               fr_gain = "quadratic", lambda = 1e-3)
    expect_identical(b$sequence, a$sequence, label = method)
    expect_identical(b$classes, levels(y))
    expect_true(b$has_offset)
    expect_close(unlist(lapply(b$beta, as.matrix)), unlist(lapply(a$beta, as.matrix)), 1e-8, paste(method, "beta"))
    expect_close(sweep(b$a0, 2, colMeans(b$a0)), sweep(a$a0, 2, colMeans(a$a0)), 1e-8, paste(method, "a0"))
    expect_close(b$path$r2, a$path$r2, 1e-8, paste(method, "r2"))
  }
})

test_that("a multinomial fit from chunks whose time runs out in the moments pass is the null model", {
  d <- sim_multinom(n = 400, K = 3, sizes = c(2, 2), seed = 71)
  set.seed(72)
  w <- stats::runif(400, 0.5, 2)
  rows <- split(seq_len(400), rep(1:2, each = 200))
  chunk <- function(k) {
    if (k == 1) Sys.sleep(0.3)
    list(x = d$x[rows[[k]], ], y = d$y[rows[[k]]], weights = w[rows[[k]]])
  }
  expect_warning(fit <- fgseq(fgseq_chunks(chunk, n_chunks = 2), group = d$group, family = "multinomial",
                              max_time = 0.2), class = "fgseq_warning_partial")
  expect_length(fit$sequence, 0L)
  # the null model's probabilities are the weighted class frequencies
  freq <- tapply(w, d$y, sum) / sum(w)
  expect_close(predict(fit, d$x[1:2, ], type = "response")[1, , 1], freq, 1e-8, "null probabilities")
})

test_that("multinomial chunks that disagree on the classes stop with a classed error naming the chunk", {
  d <- sim_multinom(n = 300, K = 3, sizes = c(2, 2), seed = 81)
  rows <- split(seq_len(300), rep(1:3, each = 100))
  part <- function(k, y = d$y) list(x = d$x[rows[[k]], ], y = y[rows[[k]]])
  # a label that is not a level of the first chunk's y
  y2 <- as.character(d$y)
  y2[rows[[3]][1]] <- "zz"
  expect_error(fgseq(fgseq_chunks(list(part(1), part(2), part(3, y2))), group = d$group, family = "multinomial"),
               "chunk 3: `y` has level\\(s\\) 'zz' not among the first chunk's levels", class = "fgseq_error_chunk_classes")
  # a level of the first chunk's y with no row in any chunk
  y3 <- factor(as.character(d$y), levels = c(levels(d$y), "never"))
  expect_error(fgseq(fgseq_chunks(list(part(1, y3), part(2, y3), part(3, y3))), group = d$group, family = "multinomial"),
               "chunk 1: class\\(es\\) 'never' of its `y` levels have no row in any chunk", class = "fgseq_error_chunk_classes")
  # a multinomial offset needs one column per class
  bad <- part(1)
  bad$offset <- matrix(0, 100, 2)
  expect_error(fgseq(fgseq_chunks(list(bad, part(2))), group = d$group, family = "multinomial"),
               "100 x 3 matrix", class = "fgseq_error_input")
})

# Three classes of 240 rows cut by two parallel lines (u + v / 2 = -1 and 1), with the two rows nearest
# each line moved to the other side, so that each pair of neighbouring classes overlaps a little: a
# finite optimum at lambda = 0 with large coefficients (nearly separable on purpose), and a column of
# noise. Returns list(x, y).
nearly_separable_classes <- function(seed) {
  set.seed(seed)
  x <- cbind(u = stats::runif(240, -3, 3), v = stats::runif(240, -3, 3), noise = stats::rnorm(240))
  s <- x[, "u"] + 0.5 * x[, "v"]
  cls <- 1L + (s > -1) + (s > 1)
  for (b in c(-1, 1)) {
    near <- order(abs(s - b))[1:2]
    cls[near] <- ifelse(s[near] > b, cls[near] - 1L, cls[near] + 1L)
  }
  list(x = x, y = factor(letters[cls]))
}

# The risk's gradient (mean negative log-likelihood) in the original coefficients and intercepts at
# the fit's step k: X1' (mu - Y) / n, X1 = [1, x], computed in plain R.
multinom_gradient <- function(fit, x, y, k) {
  mu <- predict(fit, x, step = k, type = "response")[, , 1]
  Y <- outer(as.integer(y), seq_len(nlevels(y)), "==") + 0
  crossprod(cbind(1, x), mu - Y) / nrow(x)
}

test_that("nearly separable classes at lambda = 0: converged only at a vanishing gradient, the plain-R Newton fit's deviance", {
  d <- nearly_separable_classes(71)
  expect_no_warning(fit <- fgseq(d$x, d$y, family = "multinomial", lambda = 0))
  expect_true(fit$converged)
  K <- length(fit$sequence)
  # the reference: Newton's method on the full Hessian in plain R, to a gradient of 1e-12 (or as near as
  # its steps decrease the risk)
  ref <- ref_multinom_fit(d$x, d$y, colnames(d$x), fit$sequence, 0, grad_tol = 1e-12)
  expect_true(ref$gradient <= 1e-10)
  Y <- outer(as.integer(d$y), 1:3, "==") + 0
  ref_deviance <- -2 * sum(Y * log(ref$mu))
  expect_gt(max(abs(ref$beta)), 5)  # nearly separable: large coefficients
  expect_equal(deviance(fit, step = K), ref_deviance, tolerance = 1e-9)
  expect_close(fitted(fit), ref$mu, 1e-7, "probabilities")
  # converged = TRUE means a vanishing gradient at the coefficients returned
  expect_lt(max(abs(multinom_gradient(fit, d$x, d$y, K))), 1e-9)
  # lambda = 0 ends at a deviance no larger than that of a tiny ridge
  tiny <- fgseq(d$x, d$y, family = "multinomial", lambda = 1e-12)
  expect_lte(deviance(fit, step = K), deviance(tiny, step = K) * (1 + 1e-12))
  expect_equal(deviance(tiny, step = K), ref_deviance, tolerance = 1e-6)
})

test_that("two classes separable from each other at lambda = 0: the boundary warning, none at lambda > 0", {
  # classes a and b are split by the sign of u, except for rows at u = 0 where all of class c are and
  # the three classes mix (v is noise): a and b separate along u (no finite optimum at lambda = 0), no
  # class separates from the others, and no probability reaches 0 or 1 within 10 machine epsilons
  set.seed(73)
  n <- 240
  u <- c(-stats::runif(60, 0.2, 3), rep(0, 20), stats::runif(60, 0.2, 3), rep(0, 20), rep(0, 80))
  x <- cbind(u = u, v = stats::rnorm(n))
  y <- factor(rep(c("a", "b", "c"), each = 80))
  seen <- character(0)
  fit <- withCallingHandlers(fgseq(x, y, family = "multinomial", lambda = 0),
                             warning = function(w) {
                               seen <<- c(seen, class(w)[1])
                               invokeRestart("muffleWarning")
                             })
  expect_identical(seen, "fgseq_warning_boundary")
  expect_true(fit$converged)
  # the gradient vanishes as the probabilities of a against b approach 0 or 1 ...
  expect_lt(max(abs(multinom_gradient(fit, x, y, 2))), 1e-9)
  # ... with a and b told apart on every row off u = 0, and the rows at u = 0 mixed
  p <- predict(fit, x, step = 2, type = "response")[, , 1]
  expect_true(all(p[1:60, "b"] < 1e-8) && all(p[81:140, "a"] < 1e-8))
  expect_true(all(p[u == 0, ] > 0.05))
  expect_no_warning(fgseq(x, y, family = "multinomial", lambda = 1e-4))
})
