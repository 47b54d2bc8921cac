# Sufficient statistics of chunks of rows add up to those of all rows, and the fit from them equals the
# fit from the rows (the data-beyond-memory route).

chunk_data <- function(seed = 8, n = 600) {
  set.seed(seed)
  x <- matrix(rnorm(n * 9), n, 9, dimnames = list(NULL, paste0("v", 1:9)))
  x[, 1:3] <- x[, 1:3] + 1e4           # large means: the pairwise merge must not lose digits
  y <- drop(x %*% rnorm(9)) + rnorm(n)
  list(x = x, y = y, group = rep(c("a", "b", "c"), each = 3), cost = c(a = 1, b = 2, c = 4),
       chunks = split(seq_len(n), rep(1:5, length.out = n)))
}

test_that("statistics of chunks add to those of all rows, and fgseq() on them equals the in-memory fit", {
  d <- chunk_data()
  parts <- lapply(d$chunks, function(i) fgseq_stats(d$x[i, ], d$y[i], group = d$group))
  st <- Reduce(`+`, parts)
  whole <- fgseq_stats(d$x, d$y, group = d$group)
  xc <- sweep(d$x, 2, colMeans(d$x))
  expect_equal(st$mean, unname(colMeans(d$x)), tolerance = 1e-13)
  expect_equal(st$xx, unname(crossprod(xc)), tolerance = 1e-10)
  expect_equal(drop(st$xy), unname(drop(crossprod(xc, d$y - mean(d$y)))), tolerance = 1e-10)
  expect_equal(st$yy, sum((d$y - mean(d$y))^2), tolerance = 1e-12)
  expect_equal(st$xx, whole$xx, tolerance = 1e-10)
  for (m in c("omp", "fr", "doubling")) {
    a <- fgseq(st, cost = d$cost, method = m, lambda = 0.01)
    b <- fgseq(d$x, d$y, group = d$group, cost = d$cost, method = m, lambda = 0.01)
    expect_identical(a$sequence, b$sequence)
    expect_equal(a$beta, b$beta, tolerance = 1e-10)
    expect_equal(a$a0, b$a0, tolerance = 1e-10)
    expect_equal(a$path$r2, b$path$r2, tolerance = 1e-10)
  }
  # weighted chunks: weights travel with the chunks
  w <- runif(nrow(d$x))
  stw <- Reduce(`+`, lapply(d$chunks, function(i) fgseq_stats(d$x[i, ], d$y[i], group = d$group, weights = w[i])))
  expect_equal(fgseq(stw, cost = d$cost)$beta,
               fgseq(d$x, d$y, group = d$group, cost = d$cost, weights = w)$beta, tolerance = 1e-10)
})

test_that("chunk files on disk, mapped on 2 multisession workers, give the in-memory fit", {
  skip_if_not_installed("future")
  d <- chunk_data(9)
  files <- vapply(seq_along(d$chunks), function(k) {
    f <- tempfile(fileext = ".rds")
    saveRDS(list(x = d$x[d$chunks[[k]], ], y = d$y[d$chunks[[k]]]), f)
    f
  }, character(1))
  on.exit(unlink(files))
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  st <- fgseq_stats(files, group = d$group)
  a <- fgseq(st, cost = d$cost, method = "fr")
  b <- fgseq(d$x, d$y, group = d$group, cost = d$cost, method = "fr")
  expect_identical(a$sequence, b$sequence)
  expect_equal(a$beta, b$beta, tolerance = 1e-10)
  # a list of chunks and a chunk function give the same statistics
  chunks <- lapply(d$chunks, function(i) list(x = d$x[i, ], y = d$y[i]))
  expect_equal(fgseq_stats(chunks, group = d$group)$xx, st$xx, tolerance = 1e-12)
  expect_equal(fgseq_stats(function(i) chunks[[i]], n_chunks = length(chunks), group = d$group)$xy, st$xy,
               tolerance = 1e-12)
  # fewer chunks than workers, and a number of chunks that does not divide among the workers
  expect_equal(fgseq_stats(chunks[1], group = d$group)$xx,
               fgseq_stats(d$x[d$chunks[[1]], ], d$y[d$chunks[[1]]], group = d$group)$xx, tolerance = 1e-12)
  three <- fgseq_stats(chunks[1:3], group = d$group)
  rows <- unlist(d$chunks[1:3])
  expect_equal(three$n, length(rows))
  expect_equal(three$xx, fgseq_stats(d$x[rows, ], d$y[rows], group = d$group)$xx, tolerance = 1e-10)
  # a custom reader is applied to each file on the workers; errors name the chunk
  st2 <- fgseq_stats(files, group = d$group, read = function(f) {
    chunk <- readRDS(f)
    chunk$y <- 2 * chunk$y
    chunk
  })
  expect_equal(st2$xy, 2 * st$xy, tolerance = 1e-12)
  bad <- chunks
  bad[[4]]$x[2, 2] <- NaN
  expect_error(fgseq_stats(bad, group = d$group), "chunk 4: `x` contains NA, NaN or Inf", class = "fgseq_error_input")
  swapped <- chunks
  swapped[[5]]$x <- swapped[[5]]$x[, c(2, 1, 3:9)]
  expect_error(fgseq_stats(swapped, group = d$group),
               "chunk 5: the statistics come from chunks with different columns or column order",
               class = "fgseq_error_input")
})

test_that("the chunks are cut into one contiguous batch per worker, and a batch ships only its own chunks", {
  skip_if_not_installed("future.apply")
  d <- chunk_data(11)
  chunks <- lapply(d$chunks, function(i) list(x = d$x[i, ], y = d$y[i]))
  seen <- new.env()
  get_chunk <- function(i) {
    seen$order <- c(seen$order, i)
    chunks[[i]]
  }
  old <- future::plan(future::sequential)
  on.exit(future::plan(old))
  st <- fgseq_stats(get_chunk, n_chunks = 5, group = d$group)   # one worker: one batch, in order
  expect_identical(seen$order, 1:5)
  expect_equal(st$xx, Reduce(`+`, lapply(chunks, function(ch) fgseq_stats(ch$x, ch$y, group = d$group)))$xx,
               tolerance = 1e-12)
  # the function run on a batch carries only the reader, the groups and the deadline of a fit's
  # max_time, not the other batches' chunks
  stats_of <- fgseq:::chunk_stats(d$group)
  run <- fgseq:::chunk_batch_runner(NULL, stats_of, `+`)
  expect_setequal(ls(environment(run), all.names = TRUE), c("get_chunk", "f", "combine", "cache", "timed"))
  expect_null(environment(run)$cache)  # the statistics are one pass: no chunk is kept
  expect_setequal(ls(environment(stats_of), all.names = TRUE), c("group", "deadline"))
  one <- run(list(index = 2:3, items = chunks[2:3]))
  rows <- unlist(d$chunks[2:3])
  expect_equal(one$xx, fgseq_stats(d$x[rows, ], d$y[rows], group = d$group)$xx, tolerance = 1e-10)
})

test_that("bad chunks: different columns or order, NA, different groups", {
  d <- chunk_data(10)
  i1 <- d$chunks[[1]]
  i2 <- d$chunks[[2]]
  a <- fgseq_stats(d$x[i1, ], d$y[i1], group = d$group)
  expect_error(a + fgseq_stats(d$x[i2, c(2, 1, 3:9)], d$y[i2], group = d$group),
               "the statistics come from chunks with different columns or column order", class = "fgseq_error_input")
  expect_error(a + fgseq_stats(d$x[i2, 1:8], d$y[i2], group = d$group[1:8]),
               "the statistics come from chunks with different columns or column order", class = "fgseq_error_input")
  expect_error(a + fgseq_stats(d$x[i2, ], d$y[i2], group = rep(c("a", "b", "c"), 3)),
               "the statistics come from different group definitions", class = "fgseq_error_input")
  bad <- d$x[i2, ]
  bad[3, 4] <- NA
  expect_error(fgseq_stats(list(list(x = d$x[i1, ], y = d$y[i1]), list(x = bad, y = d$y[i2])), group = d$group),
               "chunk 2: `x` contains NA, NaN or Inf", class = "fgseq_error_input")
  expect_error(fgseq_stats(list(list(x = d$x[i1, ])), group = d$group),
               "chunk 1 must be a list with elements `x` \\(a numeric matrix\\) and `y`", class = "fgseq_error_input")
  expect_error(a + 1, "only statistics made by fgseq_stats\\(\\) can be added together", class = "fgseq_error_input")
})

test_that("a chunk with a constant y, or a last chunk of one row, is taken: the union is checked (lm())", {
  d <- chunk_data(seed = 21, n = 301)
  y <- d$y
  y[1:100] <- 7                                  # chunk 1: constant y
  pieces <- list(1:100, 101:300, 301)            # chunk 3: one row
  chunks <- lapply(pieces, function(i) list(x = d$x[i, , drop = FALSE], y = y[i]))
  fit <- fgseq(fgseq_chunks(chunks), group = d$group, cost = d$cost, lambda = 0)
  K <- length(fit$sequence)
  ref <- lm(y ~ d$x)
  expect_equal(unname(fit$beta[, K + 1]), unname(coef(ref)[-1]), tolerance = 1e-7)
  st <- Reduce(`+`, lapply(chunks, function(ch) fgseq_stats(ch$x, ch$y, group = d$group)))
  expect_equal(fgseq(st, cost = d$cost, lambda = 0)$beta, fit$beta, tolerance = 1e-12)
  # the union itself constant, or of one row: refused
  const <- lapply(pieces[1:2], function(i) list(x = d$x[i, ], y = rep(7, length(i))))
  expect_error(fgseq(fgseq_chunks(const)), "`y` is constant over all the rows of the statistics",
               class = "fgseq_error_input")
  expect_error(fgseq(fgseq_stats(d$x[1, , drop = FALSE], 1)), "summarizes 1 row; a fit needs at least 2 rows",
               class = "fgseq_error_input")
})

test_that("a missing chunk file is named in the error", {
  d <- chunk_data()
  f <- tempfile(fileext = ".rds")
  saveRDS(list(x = d$x[1:50, ], y = d$y[1:50]), f)
  missing <- tempfile(fileext = ".rds")
  expect_error(suppressWarnings(fgseq_stats(c(f, missing))),
               paste0("chunk 2 \\(file ", missing, "\\) could not be read"), fixed = FALSE,
               class = "fgseq_error_input")
})

test_that("an error naming its chunk is not named twice", {
  d <- chunk_data(n = 100)
  ok <- list(x = d$x[1:50, ], y = d$y[1:50])
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "binomial") as.numeric(d$y > median(d$y)) else d$y
    ok$y <- y[1:50]
    e <- tryCatch(fgseq(fgseq_chunks(list(ok, "not a chunk")), group = d$group, family = family), error = identity)
    expect_s3_class(e, "fgseq_error_input")
    expect_match(conditionMessage(e), "^chunk 2 ")
    expect_false(grepl("chunk 2: chunk 2", conditionMessage(e), fixed = TRUE))
  }
  # a formula fit whose chunks disagree on a variable's type
  df <- data.frame(y = d$y, a = d$x[, 1], f = factor(rep(c("u", "v"), 50)))
  pieces <- split(df, rep(1:2, each = 50))
  pieces[[2]]$f <- as.numeric(pieces[[2]]$f)
  e <- tryCatch(fgseq(y ~ ., data = fgseq_chunks(pieces), cost = c(a = 1, f = 1)), error = identity)
  expect_s3_class(e, "fgseq_error_chunk_type")
  expect_match(conditionMessage(e), "^chunk 2: variable `f`")
  expect_false(grepl("chunk 2: chunk 2", conditionMessage(e), fixed = TRUE))
})

test_that("a chunked formula fit without training data asks for newdata, a matrix fit for newx", {
  d <- chunk_data(n = 100)
  df <- data.frame(y = d$y, a = d$x[, 1], b = d$x[, 2])
  f <- fgseq(y ~ ., data = fgseq_chunks(split(df, rep(1:2, each = 50))), cost = c(a = 1, b = 1))
  expect_error(predict(f), "`newdata`", class = "fgseq_error_no_data")
  e <- tryCatch(fitted(f), error = identity)
  expect_false(grepl("`newx`", conditionMessage(e), fixed = TRUE))
  m <- fgseq(fgseq_chunks(lapply(d$chunks, function(i) list(x = d$x[i, ], y = d$y[i]))), group = d$group, cost = d$cost)
  expect_error(predict(m), "`newx`", class = "fgseq_error_no_data")
})

test_that("chunks of no rows add nothing: the fit without them (gaussian, binomial, multinomial)", {
  d <- chunk_data(n = 300)
  x <- d$x
  ys <- list(gaussian = d$y, binomial = as.numeric(d$y > median(d$y)),
             multinomial = factor(cut(d$y, 3, labels = c("lo", "mid", "hi"))))
  for (fam in names(ys)) {
    y <- ys[[fam]]
    pieces <- lapply(d$chunks, function(i) list(x = x[i, ], y = y[i]))
    none <- list(x = x[0, , drop = FALSE], y = y[0])
    padded <- c(list(none), pieces[1:2], list(none, none), pieces[-(1:2)], list(none))
    a <- fgseq(fgseq_chunks(pieces), group = d$group, cost = d$cost, family = fam, max_steps = 2)
    b <- fgseq(fgseq_chunks(padded), group = d$group, cost = d$cost, family = fam, max_steps = 2)
    expect_identical(b$sequence, a$sequence)
    beta <- function(f) unlist(lapply(if (is.list(f$beta)) f$beta else list(f$beta), as.matrix))
    expect_equal(beta(b), beta(a), tolerance = 1e-12)
    expect_equal(b$a0, a$a0, tolerance = 1e-12)
    expect_identical(b$nobs, a$nobs)
  }
  # an empty chunk still has the other chunks' columns, and a y of no values
  pieces <- lapply(d$chunks, function(i) list(x = x[i, ], y = d$y[i]))
  wrong <- list(x = x[0, 2:1, drop = FALSE], y = numeric(0))
  expect_error(fgseq(fgseq_chunks(c(pieces, list(wrong))), group = d$group), "chunk 6")
  pieces01 <- lapply(d$chunks, function(i) list(x = x[i, ], y = ys$binomial[i]))
  expect_error(fgseq(fgseq_chunks(c(pieces01, list(wrong))), group = d$group, family = "binomial"),
               "chunk 6: its columns differ")
  expect_error(fgseq(fgseq_chunks(c(pieces, list(list(x = x[0, ], y = 1)))), group = d$group), "chunk 6",
               class = "fgseq_error_input")
})

test_that("a source whose every chunk has no rows is one classed error", {
  d <- chunk_data(n = 30)
  none <- list(x = d$x[0, ], y = numeric(0))
  for (fam in c("gaussian", "binomial", "poisson")) {
    expect_error(fgseq(fgseq_chunks(list(none, none)), group = d$group, family = fam), "every chunk",
                 class = "fgseq_error_chunks_empty")
  }
  expect_error(fgseq_stats(list(none, none, none)), class = "fgseq_error_chunks_empty")
})
