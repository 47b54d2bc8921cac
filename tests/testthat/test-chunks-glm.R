# Logistic and Poisson fits from chunks of rows (one map-reduce pass per Newton step) against the
# in-memory fit of the same rows, and the Gaussian route through fgseq_chunks().

glm_chunk_data <- function(seed = 3, n = 900) {
  set.seed(seed)
  x <- matrix(rnorm(n * 12), n, dimnames = list(NULL, paste0("v", 1:12)))
  x[, 2] <- x[, 1] + x[, 2]
  x[, 10:12] <- x[, 10:12] + 50  # large means
  list(x = x, group = rep(letters[1:4], each = 3), cost = c(a = 1, b = 2, c = 1, d = 3),
       idx = split(seq_len(n), rep(1:3, length.out = n)), w = runif(n, 0.5, 2), off = rnorm(n, sd = 0.2))
}

test_that("a logistic fit from chunks equals the in-memory fit (weights, offsets, criteria)", {
  d <- glm_chunk_data()
  y <- rbinom(nrow(d$x), 1, plogis(d$x[, 1] - d$x[, 5] + 0.5 * (d$x[, 11] - 50)))
  chunks <- lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i], weights = d$w[i], offset = d$off[i]))
  for (cr in c("whitened", "l2", "linf")) {
    a <- fgseq(d$x, y, d$group, d$cost, family = "binomial", weights = d$w, offset = d$off, lambda = 1e-3,
               criterion = cr)
    b <- fgseq(fgseq_chunks(chunks), group = d$group, cost = d$cost, family = "binomial", lambda = 1e-3,
               criterion = cr)
    expect_identical(b$sequence, a$sequence)
    expect_equal(b$beta, a$beta, tolerance = 1e-7)
    expect_equal(b$a0, a$a0, tolerance = 1e-7)
    expect_equal(b$path$r2, a$path$r2, tolerance = 1e-9)
    expect_equal(b$path$score, a$path$score, tolerance = 1e-7)
  }
  # the last step is glm() on all columns (lambda ~ 0)
  full <- fgseq(fgseq_chunks(lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i]))), group = d$group,
                family = "binomial", lambda = 1e-10)
  g <- glm(y ~ d$x, family = binomial())
  expect_equal(unname(full$beta[, ncol(full$beta)]), unname(coef(g)[-1]), tolerance = 1e-5)
  expect_equal(predict(full, d$x, type = "response")[, ncol(full$beta)], unname(fitted(g)), tolerance = 1e-6)
})

test_that("passes run in this session on two threads give glm()'s fit and the one-thread fit", {
  # chunks large enough that the products of a pass split over the threads (over 10^6 multiply-adds)
  set.seed(11)
  n <- 24000
  x <- matrix(rnorm(n * 48), n, dimnames = list(NULL, paste0("v", 1:48)))
  group <- rep(paste0("g", 1:12), each = 4)
  y <- rbinom(n, 1, plogis(x[, 1] - x[, 6] + 0.5 * x[, 30]))
  w <- runif(n, 0.5, 2)
  idx <- split(seq_len(n), rep(1:3, length.out = n))
  chunks <- fgseq_chunks(lapply(idx, function(i) list(x = x[i, ], y = y[i], weights = w[i])))
  fits <- lapply(c(1, 2), function(threads) {
    old <- options(fgseq.threads = threads)
    on.exit(options(old))
    list(omp = fgseq(chunks, group = group, family = "binomial", lambda = 1e-10),
         fr = fgseq(chunks, group = group, family = "binomial", method = "fr", lambda = 1e-3, max_steps = 4))
  })
  g <- glm(y ~ x, family = quasibinomial(), weights = w)
  omp <- fits[[2]]$omp
  expect_equal(unname(omp$beta[, ncol(omp$beta)]), unname(coef(g)[-1]), tolerance = 1e-6)
  expect_equal(unname(omp$a0[length(omp$a0)]), unname(coef(g)[1]), tolerance = 1e-6)
  for (m in c("omp", "fr")) {
    expect_identical(fits[[2]][[m]]$sequence, fits[[1]][[m]]$sequence)
    expect_equal(fits[[2]][[m]]$beta, fits[[1]][[m]]$beta, tolerance = 1e-9)
    expect_equal(fits[[2]][[m]]$path$score, fits[[1]][[m]]$path$score, tolerance = 1e-9)
  }
  expect_equal(fits[[2]]$omp$moments$cov, fits[[1]]$omp$moments$cov, tolerance = 1e-12)
})

test_that("a Poisson fit from chunk files on 2 multisession workers equals the in-memory fit", {
  skip_if_not_installed("future.apply")
  d <- glm_chunk_data(seed = 5)
  y <- rpois(nrow(d$x), exp(0.3 * d$x[, 1] + 0.2 * d$x[, 7]))
  dir <- tempfile("chunks")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  files <- file.path(dir, paste0("chunk", seq_along(d$idx), ".rds"))
  for (k in seq_along(d$idx)) saveRDS(list(x = d$x[d$idx[[k]], ], y = y[d$idx[[k]]]), files[k])
  oplan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(oplan), add = TRUE)
  b <- fgseq(fgseq_chunks(files), group = d$group, cost = d$cost, family = "poisson", lambda = 1e-3, max_steps = 3)
  a <- fgseq(d$x, y, d$group, d$cost, family = "poisson", lambda = 1e-3, max_steps = 3)
  expect_identical(b$sequence, a$sequence)
  expect_equal(b$beta, a$beta, tolerance = 1e-7)
  expect_identical(b$nobs, nrow(d$x))
  # the workers dropped the chunks they kept for the fit (each worker answers one future)
  keys <- future.apply::future_lapply(1:2, function(j) {
    Sys.sleep(0.2)
    fgseq:::chunk_cache$key
  }, future.chunk.size = 1L)
  expect_identical(keys, list(NULL, NULL))
  # a reader defined in the session that reads a variable of the session: the workers get the variable
  # at every pass (reader_globals())
  assign("fgseq_test_rows", lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i])), envir = globalenv())
  on.exit(rm("fgseq_test_rows", envir = globalenv()), add = TRUE)
  reader <- function(i) fgseq_test_rows[[i]]
  environment(reader) <- globalenv()
  f <- fgseq(fgseq_chunks(reader, n_chunks = 3), group = d$group, cost = d$cost, family = "poisson", lambda = 1e-3,
             max_steps = 3)
  expect_identical(f$sequence, a$sequence)
  expect_equal(f$beta, a$beta, tolerance = 1e-7)
  # the reader's globals may have any name, those of the arguments of the package's own functions included
  assign("run", lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i])), envir = globalenv())
  assign("job", 1, envir = globalenv())
  on.exit(rm("run", "job", envir = globalenv()), add = TRUE)
  reader2 <- function(i) run[[i * job]]
  environment(reader2) <- globalenv()
  f2 <- fgseq(fgseq_chunks(reader2, n_chunks = 3), group = d$group, cost = d$cost, family = "poisson",
              lambda = 1e-3, max_steps = 3)
  expect_identical(f2$sequence, a$sequence)
  expect_equal(f2$beta, a$beta, tolerance = 1e-7)
  # the names the package once gave its futures' own values included
  assign(".fgseq_job", 1, envir = globalenv())
  on.exit(rm(".fgseq_job", envir = globalenv()), add = TRUE)
  reader3 <- function(i) run[[i * .fgseq_job]]
  environment(reader3) <- globalenv()
  f3 <- fgseq(fgseq_chunks(reader3, n_chunks = 3), group = d$group, cost = d$cost, family = "poisson",
              lambda = 1e-3, max_steps = 3)
  expect_identical(f3$sequence, a$sequence)
  expect_equal(f3$beta, a$beta, tolerance = 1e-7)
})

test_that("CS-G-FR and Doubling with the quadratic gain from chunks equal the in-memory fits", {
  d <- glm_chunk_data(seed = 7)
  yb <- rbinom(nrow(d$x), 1, plogis(d$x[, 1] - d$x[, 5] + 0.5 * (d$x[, 11] - 50)))
  yp <- rpois(nrow(d$x), exp(0.3 * d$x[, 1] + 0.2 * d$x[, 7] + d$off))
  cases <- list(list(family = "binomial", y = yb, w = d$w, off = d$off), list(family = "poisson", y = yp, w = NULL, off = d$off),
                list(family = "binomial", y = yb, w = d$w, off = NULL))
  for (cs in cases) {
    chunks <- lapply(d$idx, function(i) list(x = d$x[i, ], y = cs$y[i], weights = cs$w[i], offset = cs$off[i]))
    for (m in c("fr", "doubling")) {
      a <- fgseq(d$x, cs$y, d$group, d$cost, family = cs$family, weights = cs$w, offset = cs$off, lambda = 1e-3,
                 method = m, fr_gain = "quadratic")
      b <- fgseq(fgseq_chunks(chunks), group = d$group, cost = d$cost, family = cs$family, lambda = 1e-3, method = m,
                 fr_gain = "quadratic")
      expect_identical(b$sequence, a$sequence)
      expect_identical(b$method, m)
      expect_identical(b$fr_gain, "quadratic")
      expect_equal(b$path$score, a$path$score, tolerance = 1e-8)
      expect_equal(b$path$objective, a$path$objective, tolerance = 1e-8)
      expect_equal(b$beta, a$beta, tolerance = 1e-8)
      expect_equal(b$a0, a$a0, tolerance = 1e-8)
    }
  }
  # the first step's gain, computed here from glm.fit()'s null model: at lambda ~ 0 the quadratic gain of
  # group h is g' H^-1 g / 2 over the columns [1, x_h] (g, H: gradient and Hessian of the mean weighted
  # negative log-likelihood at the null fit), whatever basis the group is whitened in
  chunks <- lapply(d$idx, function(i) list(x = d$x[i, ], y = yb[i], weights = d$w[i], offset = d$off[i]))
  b <- fgseq(fgseq_chunks(chunks), group = d$group, cost = d$cost, family = "binomial", lambda = 1e-10, method = "fr",
             fr_gain = "quadratic", max_steps = 1)
  mu <- glm.fit(matrix(1, nrow(d$x)), yb, weights = d$w, offset = d$off, family = quasibinomial())$fitted.values
  gain <- sapply(unique(d$group), function(h) {
    x1 <- cbind(1, d$x[, d$group == h])
    g <- crossprod(x1, d$w * (yb - mu)) / sum(d$w)
    H <- crossprod(x1, d$w * mu * (1 - mu) * x1) / sum(d$w)
    drop(crossprod(g, solve(H, g))) / 2
  })
  best <- which.max(gain / d$cost)
  expect_identical(b$sequence, names(best))
  expect_equal(b$path$score[2], unname(gain[best] / d$cost[best]), tolerance = 1e-7)
})

test_that("a Gaussian fit from chunks goes through the summed statistics, for every source kind", {
  d <- glm_chunk_data(seed = 6)
  y <- drop(d$x %*% rnorm(12)) + rnorm(nrow(d$x))
  chunks <- lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i]))
  a <- fgseq(d$x, y, d$group, d$cost, method = "fr")
  b <- fgseq(fgseq_chunks(chunks), group = d$group, cost = d$cost, method = "fr")
  f <- fgseq(fgseq_chunks(function(i) chunks[[i]], n_chunks = 3), group = d$group, cost = d$cost, method = "fr")
  expect_identical(b$sequence, a$sequence)
  expect_equal(b$beta, a$beta, tolerance = 1e-10)
  expect_equal(f$beta, a$beta, tolerance = 1e-10)
})

test_that("bad chunk sources and chunks stop with clear messages", {
  d <- glm_chunk_data()
  y <- rbinom(nrow(d$x), 1, 0.5)
  chunks <- lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i]))
  expect_error(fgseq_chunks(function(i) chunks[[i]]), "`n_chunks` must be given when `source` is a function",
               class = "fgseq_error_input")
  expect_error(fgseq_chunks(function(i) chunks[[i]], n_chunks = 1.5), "`n_chunks` must be a whole number >= 1",
               class = "fgseq_error_input")
  expect_error(fgseq_chunks(chunks, n_chunks = 3), "`n_chunks` is for a function `source` only",
               class = "fgseq_error_input")
  expect_error(fgseq_chunks(42), "`source` must be a character vector of files, a list of chunks or a function",
               class = "fgseq_error_input")
  expect_error(fgseq_chunks(list()), "`source` must hold at least one chunk", class = "fgseq_error_input")
  expect_error(fgseq_chunks("a.rds", read = 1), "`read` must be a function", class = "fgseq_error_input")
  expect_error(fgseq(fgseq_chunks(chunks), group = d$group, family = "binomial", method = "fr", fr_gain = "exact"),
               "`fr_gain` must be \"quadratic\" for method = \"fr\" in a binomial fit from chunks",
               class = "fgseq_error_input")
  expect_error(fgseq(fgseq_chunks(chunks), group = d$group, family = "poisson", method = "doubling", fr_gain = "exact"),
               "`fr_gain` must be \"quadratic\" for method = \"doubling\" in a poisson fit from chunks",
               class = "fgseq_error_input")
  expect_error(fgseq(fgseq_chunks(chunks), group = d$group, family = "binomial", method = "fr", fr_gain = "newton"),
               "`fr_gain` must be one of", class = "fgseq_error_input")
  bad <- chunks
  bad[[2]]$x <- bad[[2]]$x[, 12:1]
  expect_error(fgseq(fgseq_chunks(bad), group = d$group, family = "binomial"),
               "chunk 2: its columns differ from the first chunk's", class = "fgseq_error_input")
  bad <- chunks
  bad[[3]]$x[5, 2] <- NA
  expect_error(fgseq(fgseq_chunks(bad), group = d$group, family = "binomial"), "chunk 3: `x` contains NA",
               class = "fgseq_error_input")
  bad <- chunks
  bad[[2]]$y[1] <- 2
  expect_error(fgseq(fgseq_chunks(bad), group = d$group, family = "binomial"), "chunk 2: `y` must be 0/1",
               class = "fgseq_error_input")
  bad <- chunks
  bad[[1]] <- list(x = d$x[1:5, ])
  expect_error(fgseq(fgseq_chunks(bad), group = d$group, family = "binomial"), "chunk 1 must be a list with elements",
               class = "fgseq_error_input")
  one <- lapply(chunks, function(ch) list(x = ch$x, y = rep(1, nrow(ch$x))))
  expect_error(fgseq(fgseq_chunks(one), group = d$group, family = "binomial"), "`y` has a single class over all chunks",
               class = "fgseq_error_input")
  cnt <- lapply(chunks, function(ch) list(x = ch$x, y = ch$y - 0.5))
  expect_error(fgseq(fgseq_chunks(cnt), group = d$group, family = "poisson"), "`y` must be non-negative whole counts",
               class = "fgseq_error_input")
})

test_that("what a GLM pass ships to the workers holds no chunks", {
  none <- list(mean = c(0, 0), scale = c(1, 1), constant = c(FALSE, FALSE), cols = list(), T = list())
  pass <- fgseq:::glm_pass(0, none, "binomial")
  expect_setequal(ls(environment(pass), all.names = TRUE), c("theta", "columns", "family"))
  cache <- fgseq:::new_chunk_cache(1e6)  # what names the fit's kept chunks on a worker: its key and budget
  expect_setequal(names(cache), c("key", "bytes"))
  expect_null(fgseq:::new_chunk_cache(0))
  part <- fgseq:::checked_chunk_part(pass, cache = cache)
  expect_setequal(ls(environment(part), all.names = TRUE), c("f", "classes", "cache"))
  # and the part of one chunk is its logistic log-likelihood pieces, computed here another way
  set.seed(4)
  x <- matrix(rnorm(40), 20)
  y <- rbinom(20, 1, 0.5)
  eta <- rep(0, 20)  # theta = 0 with no selected column: the intercept 0
  pass0 <- part(list(x = x, y = y), 1L)
  expect_equal(pass0$loss, sum(log1p(exp(eta)) - y * eta))
  expect_equal(drop(pass0$xr), drop(crossprod(x, y - plogis(eta))))
  expect_equal(drop(pass0$gradient), sum(plogis(eta) - y))
  expect_equal(drop(pass0$hessian), sum(plogis(eta) * (1 - plogis(eta))))
  # named once (the message names the chunk itself)
  expect_error(part(list(x = x), 3L), "^chunk 3 must be a list", class = "fgseq_error_input")
  fgseq:::forget_chunks(cache$key)
})

test_that("a chunked logistic fit stops as the in-memory fit does (max_steps, max_cost, max_time)", {
  d <- glm_chunk_data(seed = 7)
  y <- rbinom(nrow(d$x), 1, plogis(d$x[, 1] - d$x[, 5] + 0.5 * d$x[, 8]))
  chunks <- fgseq_chunks(lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i])))
  for (limit in list(list(max_steps = 2), list(max_cost = 3), list(max_steps = 4, max_cost = 5))) {
    a <- do.call(fgseq, c(list(d$x, y, d$group, d$cost, family = "binomial", lambda = 1e-3), limit))
    b <- do.call(fgseq, c(list(chunks, group = d$group, cost = d$cost, family = "binomial", lambda = 1e-3), limit))
    expect_lt(length(a$sequence), 4L)
    expect_identical(b$sequence, a$sequence)
    expect_equal(b$beta, a$beta, tolerance = 1e-7)
    expect_equal(b$path$objective, a$path$objective, tolerance = 1e-8)
    expect_false(b$partial)
  }
  expect_lte(sum(b$cost[b$sequence]), 5)
  full <- fgseq(chunks, group = d$group, cost = d$cost, family = "binomial", lambda = 1e-3)
  expect_warning(short <- fgseq(chunks, group = d$group, cost = d$cost, family = "binomial", lambda = 1e-3,
                                max_time = 1e-9), class = "fgseq_warning_partial")
  expect_true(short$partial)
  expect_length(short$sequence, 0L)
  expect_false(full$partial)
  expect_equal(fgseq(chunks, group = d$group, cost = d$cost, family = "binomial", lambda = 1e-3,
                     progress = TRUE)$beta, full$beta)
  # an error in a later pass over the chunks stops the fit with its message
  reads <- new.env()
  reads$n <- 0
  flaky <- fgseq_chunks(function(i) {
    reads$n <- reads$n + 1
    if (reads$n > 4) stop("chunk source went away")
    list(x = d$x[d$idx[[i]], ], y = y[d$idx[[i]]])
  }, n_chunks = 3)
  # (kept chunks are not read again: with none kept, the second pass reads again and fails)
  expect_error(fgseq(flaky, group = d$group, family = "binomial", cache_bytes = 0), "chunk source went away",
               class = "fgseq_error_input")
})

test_that("the chunks kept for the passes of a fit give the fit without them, each chunk read once", {
  d <- glm_chunk_data(seed = 12)
  y <- rbinom(nrow(d$x), 1, plogis(d$x[, 1] - d$x[, 5] + 0.5 * (d$x[, 11] - 50)))
  reads <- new.env()
  source <- function(i) {
    reads$n <- reads$n + 1
    list(x = d$x[d$idx[[i]], ], y = y[d$idx[[i]]], weights = d$w[d$idx[[i]]])
  }
  fit_with <- function(...) {
    reads$n <- 0
    fit <- fgseq(fgseq_chunks(source, n_chunks = 3), group = d$group, cost = d$cost, family = "binomial",
                 lambda = 1e-3, ...)
    list(fit = fit, reads = reads$n)
  }
  none <- fit_with(cache_bytes = 0)
  every <- fit_with()  # the default budget holds the three chunks
  one <- fit_with(cache_bytes = 5e4)  # one checked chunk (300 x 12 values and its y, weights, offset)
  # each chunk read once: the first for its columns, kept for the moments pass, which reads the others
  # and keeps them
  expect_identical(every$reads, 3)
  expect_gt(none$reads, 4 + 3 * length(none$fit$sequence))
  expect_true(one$reads > every$reads && one$reads < none$reads)
  for (kept in list(every, one)) {
    expect_identical(kept$fit$sequence, none$fit$sequence)
    expect_equal(kept$fit$beta, none$fit$beta, tolerance = 1e-12)
    expect_equal(kept$fit$a0, none$fit$a0, tolerance = 1e-12)
    expect_equal(kept$fit$path$r2, none$fit$path$r2, tolerance = 1e-12)
  }
  # and the fit of the rows in memory
  a <- fgseq(d$x, y, d$group, d$cost, family = "binomial", weights = d$w, lambda = 1e-3)
  expect_identical(every$fit$sequence, a$sequence)
  expect_equal(every$fit$beta, a$beta, tolerance = 1e-8)
  # the fit dropped its chunks
  expect_null(fgseq:::chunk_cache$key)
  expect_null(fgseq:::chunk_cache$chunks)
  # a multinomial fit from a list of chunks, kept or not
  cls <- factor(c("a", "b", "c")[1 + (d$x[, 1] > 0.5) + (d$x[, 7] > 0)], levels = c("a", "b", "c"))
  mchunks <- fgseq_chunks(lapply(d$idx, function(i) list(x = d$x[i, ], y = cls[i])))
  m0 <- fgseq(mchunks, group = d$group, family = "multinomial", lambda = 1e-3, max_steps = 3, cache_bytes = 0)
  m1 <- fgseq(mchunks, group = d$group, family = "multinomial", lambda = 1e-3, max_steps = 3)
  expect_identical(m1$sequence, m0$sequence)
  expect_equal(m1$beta, m0$beta, tolerance = 1e-12)
})

test_that("cache_bytes must be a non-negative number of bytes", {
  d <- glm_chunk_data(seed = 13)
  y <- rbinom(nrow(d$x), 1, 0.5)
  chunks <- fgseq_chunks(lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i])))
  for (bad in list(-1, "1GB", NA_real_, c(1, 2), NULL)) {
    expect_error(fgseq(chunks, group = d$group, family = "binomial", cache_bytes = bad), "`cache_bytes`",
                 class = "fgseq_error_input")
  }
})

test_that("chunks with an offset: predictions ask for newoffset, as the in-memory fit's; Gaussian chunks refuse it", {
  d <- glm_chunk_data(seed = 8)
  y <- rpois(nrow(d$x), exp(0.3 * d$x[, 1] - 0.2 * d$x[, 7] + d$off))
  chunks <- lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i], offset = d$off[i]))
  b <- fgseq(fgseq_chunks(chunks), group = d$group, cost = d$cost, family = "poisson", lambda = 1e-10)
  expect_true(b$has_offset)
  newx <- d$x[1:7, ]
  expect_error(predict(b, newx), class = "fgseq_error_input", regexp = "`newoffset` is needed")
  # with newoffset, glm() with the offset on every column, at the last step
  g <- glm(y ~ d$x, family = poisson(), offset = d$off)
  eta <- drop(cbind(1, newx) %*% coef(g)) + d$off[1:7]
  expect_equal(unname(predict(b, newx, newoffset = d$off[1:7])[, ncol(b$beta)]), eta, tolerance = 1e-6)
  # chunks without an offset: no newoffset asked
  plain <- fgseq(fgseq_chunks(lapply(chunks, function(ch) ch[c("x", "y")])), group = d$group, family = "poisson")
  expect_false(plain$has_offset)
  expect_equal(dim(predict(plain, newx)), c(7L, ncol(plain$beta)))
  # the Gaussian statistics hold no offset: refused, naming the chunk, rather than ignored
  yg <- drop(d$x[, 1:3] %*% c(1, -1, 0.5)) + rnorm(nrow(d$x))
  gchunks <- lapply(d$idx, function(i) list(x = d$x[i, ], y = yg[i], offset = d$off[i]))
  expect_error(fgseq(fgseq_chunks(gchunks), group = d$group), class = "fgseq_error_chunk_offset",
               regexp = "chunk 1: an `offset` has no place")
  expect_error(fgseq_stats(gchunks, group = d$group), class = "fgseq_error_chunk_offset")
})

test_that("max_time spent in the moments pass of a GLM from chunks gives glm()'s intercept-only model", {
  # four chunks from a function; reading chunk 1 takes 0.3 s, more than max_time: chunks 2 to 4 start
  # after the deadline and add their response alone (x not read: chunk 4's NA is not seen). Chunk 2
  # has no offset (0 for its rows). The fit is the GLM on the intercept alone over all the rows, with
  # their weights and offsets, marked partial; its null risk is the weighted mean negative
  # log-likelihood (up to a constant of y) at that intercept.
  d <- glm_chunk_data(seed = 11, n = 1200)
  idx <- split(seq_len(1200), rep(1:4, each = 300))
  off <- d$off
  off[idx[[2]]] <- 0
  yb <- rbinom(1200, 1, plogis(0.5 + d$x[, 1] + off))
  yp <- rpois(1200, exp(0.2 + 0.3 * d$x[, 1] + off))
  for (family in c("binomial", "poisson")) {
    y <- if (family == "binomial") yb else yp
    chunk <- function(i) {
      if (i == 1) Sys.sleep(0.3)
      xi <- d$x[idx[[i]], ]
      if (i == 4) xi[1, 1] <- NA
      list(x = xi, y = y[idx[[i]]], weights = d$w[idx[[i]]], offset = if (i != 2) off[idx[[i]]])
    }
    chunks <- fgseq_chunks(chunk, n_chunks = 4)
    elapsed <- system.time(expect_warning(
      fit <- fgseq(chunks, group = d$group, cost = d$cost, family = family, max_time = 0.2),
      "was spent before step 1", class = "fgseq_warning_partial"))[["elapsed"]]
    expect_lt(elapsed, 5)
    expect_true(fit$partial)
    expect_true(fit$has_offset)
    expect_length(fit$sequence, 0L)
    expect_identical(fit$nobs, 1200L)
    ref <- suppressWarnings(stats::glm(y ~ 1, family = family, weights = d$w, offset = off,
                                       control = stats::glm.control(epsilon = 1e-14, maxit = 100)))
    a <- unname(coef(ref))
    # the Newton solver stops at glm()'s deviance criterion (1e-8): the intercepts agree to ~1e-8
    expect_close(unname(coef(fit)[, 1]), c(a, rep(0, 12)), 1e-7, family)
    eta <- a + off
    loss <- if (family == "binomial") log1p(exp(eta)) - y * eta else exp(eta) - y * eta
    expect_close(fit$null_risk, sum(d$w * loss) / sum(d$w), 1e-10, paste(family, "null risk"))
    expect_close(unname(predict(fit, d$x[1:5, ], newoffset = off[1:5], type = "response")[, 1]),
                 unname(fitted(ref)[1:5]), 1e-7, paste(family, "predict"))
  }
  # with time, every chunk is read: chunk 4's NA is an error
  expect_error(fgseq(chunks, group = d$group, family = "poisson"), "chunk 4: `x` contains NA, NaN or Inf",
               class = "fgseq_error_input")
  # spent before the first chunk: every chunk adds its response alone; without offsets the intercept is
  # the link of the weighted mean
  plain <- fgseq_chunks(lapply(idx, function(i) list(x = d$x[i, ], y = yb[i], weights = d$w[i])))
  expect_warning(fit <- fgseq(plain, group = d$group, family = "binomial", method = "fr", fr_gain = "quadratic",
                              max_time = 1e-9), class = "fgseq_warning_partial")
  expect_false(fit$has_offset)
  expect_close(unname(coef(fit)[1, 1]), qlogis(sum(d$w * yb) / sum(d$w)), 1e-10, "closed form")
})

test_that("the per-chunk functions ship their arguments, not the environment of the call that made them", {
  # each is built inside a function holding 8 MB: an argument left a promise would carry that frame
  # (and the whole fit's, in chunked_glm()) to every worker at every pass
  shipped_bytes <- function(make) {
    f <- local({
      big <- numeric(1e6)
      th <- c(0.5, -1)
      cols <- list(mean = 0, scale = 1, constant = FALSE, cols = list(0L), T = list(diag(1)))
      fam <- "binomial"
      make(th, cols, fam)
    })
    length(serialize(f, NULL))
  }
  expect_lt(shipped_bytes(function(th, cols, fam) fgseq:::glm_pass(th, cols, fam)), 1e5)
  expect_lt(shipped_bytes(function(th, cols, fam) fgseq:::glm_gain_pass(th, cols, 1L, fam)), 1e5)
  expect_lt(shipped_bytes(function(th, cols, fam) fgseq:::moments_part(names(cols), fam, 0L, 1L, Inf)), 1e5)
  # a formula chunk's converter: its weights and offset are expressions of the call, evaluated in the chunk
  tt <- stats::terms(y ~ x)
  attr(tt, ".Environment") <- globalenv()
  conv <- local({
    big <- numeric(1e6)
    fgseq:::chunk_converter(list(terms = tt), list(), quote(w), NULL)
  })
  expect_lt(length(serialize(conv, NULL)), 1e5)
  expect_lt(length(serialize(fgseq:::add_signature_parts, NULL)), 1e5)
  # and the pass still computes what it did: a chunk's sums at theta equal the direct ones
  x <- matrix(c(-1, 0.5, 2, -0.3, 1.2, 0.1), 6)
  ch <- list(x = x, y = c(0, 1, 1, 0, 1, 0), w = rep(1, 6), off = matrix(0, 6, 1))
  cols <- list(mean = mean(x), scale = 1, constant = FALSE, cols = list(0L), T = list(diag(1)))
  s <- fgseq:::glm_pass(c(0.2, 0.7), cols, "binomial")(ch)
  z <- x - mean(x)
  mu <- stats::plogis(0.2 + 0.7 * z)
  expect_equal(drop(s$gradient), c(sum(mu - ch$y), sum(z * (mu - ch$y))), tolerance = 1e-12)
  expect_equal(drop(s$xr), sum(x * (ch$y - mu)), tolerance = 1e-12)
})

test_that("a GLM's moments pass keeps each group's block: the same standardization and whitening as all columns' moments", {
  set.seed(3)
  n <- 500
  x <- matrix(rnorm(n * 12), n)
  x[, 3] <- 5                          # constant
  x[, 8] <- 2 * x[, 7] + 1e6           # collinear with column 7 (group 3 loses a rank), mean 1e6
  x[, 10] <- 1e-14 * x[, 10] + 3       # sd at 3e-15 of its mean: constant by the rule
  w <- runif(n)
  g <- rep(0:3, c(3, 3, 4, 2))
  idx <- split(seq_len(n), rep(1:3, length.out = n))
  all_cols <- Reduce(fgseq:::.merge_moments, lapply(idx, function(i) fgseq:::.moments(x[i, ], matrix(0, length(i), 0), w[i], "eigen")))
  by_group <- Reduce(fgseq:::.merge_group_moments, lapply(idx, function(i) fgseq:::.group_moments(x[i, ], w[i], g, 4L)))
  # the blocks of each group are the diagonal blocks of the full cross-product
  for (k in 1:4) expect_equal(by_group[[k]]$xx, all_cols$xx[g == k - 1L, g == k - 1L], tolerance = 1e-12)
  a <- fgseq:::.moments_whitening(all_cols, g, 4L, 1e-9)
  b <- fgseq:::.group_moments_whitening(by_group, g, 4L, 1e-9)
  expect_equal(b$mean, a$mean, tolerance = 1e-14)
  expect_equal(b$scale, a$scale, tolerance = 1e-12)
  expect_identical(b$constant, a$constant)
  expect_identical(b$constant[c(3, 10)], c(TRUE, TRUE))
  expect_identical(b$rank, a$rank)
  expect_identical(b$rank[3], 2L)
  for (k in 1:4) expect_equal(abs(b$T[[k]]), abs(a$T[[k]]), tolerance = 1e-10)
  # whitened columns have identity covariance: (x_g - m)' W (x_g - m) T / W = S_g^-1 ... T' Sigma_gg T = I
  for (k in which(b$rank > 0)) {
    cols <- which(g == k - 1L)
    xs <- sweep(sweep(x[, cols, drop = FALSE], 2, b$mean[cols]), 2, b$scale[cols], "/")
    xs[, b$constant[cols]] <- 0
    z <- xs %*% b$T[[k]]
    expect_equal(crossprod(z, w * z) / sum(w), diag(b$rank[k]), tolerance = 1e-8)
  }
  expect_error(fgseq:::.group_moments_whitening(by_group[1:3], g, 4L, 1e-9), "one set of moments per group")
})

test_that("the moments pass merges the group moments of a batch's chunks into one set: those of their rows", {
  d <- sim_groups(50, seed = 3)
  g <- match(d$group, unique(d$group)) - 1L
  G <- length(unique(d$group))
  part <- function(rows) {
    list(moments = list(.group_moments(d$x[rows, ], rep(1, length(rows)), g, G)), n = length(rows))
  }
  both <- add_moment_parts(part(1:20), part(21:50))
  expect_length(both$moments, 1L)
  expect_identical(both$n, 50L)
  expect_equal(both$moments[[1L]], .group_moments(d$x, rep(1, 50), g, G), tolerance = 1e-12)
  # a part whose chunks started after max_time has no moments, on either side
  late <- list(moments = NULL, n = 7L)
  expect_identical(add_moment_parts(late, part(1:20))$moments, part(1:20)$moments)
  expect_identical(add_moment_parts(part(1:20), late)$n, 27L)
  expect_null(add_moment_parts(late, late)$moments)
})

test_that("under a local plan, the passes run where they are faster: this session for light chunks, the workers for heavy ones", {
  d <- glm_chunk_data(seed = 8, n = 400)
  d$idx <- split(seq_len(400), rep(1:2, length.out = 400))
  y <- rbinom(nrow(d$x), 1, plogis(d$x[, 1] - d$x[, 5]))
  a <- fgseq(d$x, y, d$group, d$cost, family = "binomial", lambda = 1e-3, max_steps = 2)
  # a reader that records the process reading each chunk at each pass (no chunk is kept: cache_bytes = 0)
  log <- tempfile("reads")
  on.exit(unlink(log), add = TRUE)
  assign("fgseq_test_route", list(rows = lapply(d$idx, function(i) list(x = d$x[i, ], y = y[i])), log = log, pause = 0, after = 0),
         envir = globalenv())
  on.exit(rm("fgseq_test_route", envir = globalenv()), add = TRUE)
  # pause: the seconds each read takes once the log holds `after` reads (a source that gets slower)
  reader <- function(i) {
    cat(i, Sys.getpid(), "\n", file = fgseq_test_route$log, append = TRUE)
    if (length(readLines(fgseq_test_route$log)) > fgseq_test_route$after) Sys.sleep(fgseq_test_route$pause)
    fgseq_test_route$rows[[i]]
  }
  environment(reader) <- globalenv()
  oplan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(oplan), add = TRUE)
  here <- Sys.getpid()
  # the process that read chunk 2 at each pass, TRUE where it is this session
  reads <- function(pause, after = 0) {
    assign("fgseq_test_route", utils::modifyList(fgseq_test_route, list(pause = pause, after = after)), envir = globalenv())
    unlink(log)
    fit <- fgseq(fgseq_chunks(reader, n_chunks = 2), group = d$group, cost = d$cost, family = "binomial",
                 lambda = 1e-3, max_steps = 2, cache_bytes = 0)
    expect_identical(fit$sequence, a$sequence)
    expect_equal(fit$beta, a$beta, tolerance = 1e-7)
    got <- utils::read.table(log, col.names = c("chunk", "pid"))
    # chunk 1, read here for the columns and classes first, is read here at every pass (this session
    # takes the first batch of a pass itself)
    expect_true(all(got$pid[got$chunk == 1] == here))
    got$pid[got$chunk == 2] == here
  }
  # light chunks: the moments pass sends chunk 2 to a worker, whose dispatch is more than the work of the
  # whole pass here; every later pass runs here
  light <- reads(0)
  expect_gt(length(light), 5L)
  expect_false(light[1])
  expect_true(all(light[-1]))
  # heavy chunks (0.2 s to read each): every pass sends chunk 2 to a worker
  expect_false(any(reads(0.2)))
  # chunks that become heavy (0.15 s each once 12 chunks were read): the passes that moved here go back
  # to the workers after two heavy passes here (the workers would save less than half of each), and
  # stay there
  later <- reads(0.15, after = 12)
  back <- which(!later & seq_along(later) > 1L)
  expect_true(all(later[2:3]))
  expect_gt(length(back), 0L)
  expect_true(all(!later[min(back):length(later)]))
  expect_gte(sum(later[2:(min(back) - 1L)]), 2L)
  # a sequential plan: every pass here
  future::plan(future::sequential)
  expect_true(all(reads(0)))
})
