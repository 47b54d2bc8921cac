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
  # formed by Eigen's kernels (fgseq.gram = "eigen") or by R's BLAS and LAPACK ("blas"; CS-G-FR's quadratic
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
    old <- options(fgseq.gram = gram)
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
