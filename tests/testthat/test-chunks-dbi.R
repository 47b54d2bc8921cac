# dbi_chunks(): a SQLite table in a temporary file read in chunks (by a key column and by row ranges)
# gives the in-memory fit; each chunk is read through its own connection.

sqlite_heart <- function() {
  path <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbWriteTable(con, "patients", cbind(id = seq_len(nrow(heart)) * 10L, heart))
  DBI::dbDisconnect(con)
  path
}

test_that("a formula fit from a SQLite table in chunks equals the in-memory fit", {
  path <- sqlite_heart()
  on.exit(unlink(path))
  opened <- 0L
  connect <- function() {
    opened <<- opened + 1L
    DBI::dbConnect(RSQLite::SQLite(), path)
  }
  a <- fgseq(diagnosis ~ . + sex:cp, data = heart, cost = heart_cost, family = "binomial", lambda = 1e-3)
  by_key <- dbi_chunks(connect, "patients", n_chunks = 4, key = "id", template = heart[0, ])
  expect_identical(by_key$n, 4L)
  opened <- 0L
  b <- fgseq(diagnosis ~ . + sex:cp, data = by_key, cost = heart_cost, family = "binomial", lambda = 1e-3)
  expect_identical(b$sequence, a$sequence)
  expect_equal(b$beta, a$beta, tolerance = 1e-8)
  expect_equal(b$a0, a$a0, tolerance = 1e-8)
  expect_identical(b$classes, a$classes)
  # a connection per chunk read: each chunk once (chunk 1 for its columns, kept for the moments pass, which
  # reads the others), all kept for the later passes
  expect_identical(opened, 4L)
  # without kept chunks, a connection per chunk and pass, and the same fit
  opened <- 0L
  b0 <- fgseq(diagnosis ~ . + sex:cp, data = by_key, cost = heart_cost, family = "binomial", lambda = 1e-3,
              cache_bytes = 0)
  expect_gt(opened, 5L + 4L * length(b0$sequence))
  expect_identical(b0$sequence, b$sequence)
  expect_equal(b0$beta, b$beta, tolerance = 1e-12)
  # the chunks by key hold every row once
  rows <- lapply(seq_len(by_key$n), by_key$get)
  expect_setequal(unlist(lapply(rows, `[[`, "id")), seq_len(nrow(heart)) * 10L)
  expect_type(rows[[1]]$diagnosis, "logical")     # 0/1 in the database, logical in the template
  # row ranges (no key), chosen columns, a Gaussian fit
  by_rows <- dbi_chunks(connect, "patients", n_chunks = 3, columns = c("age", "sex", "cp", "thal", "chol"),
                        template = heart[0, ])
  expect_equal(sum(vapply(seq_len(by_rows$n), function(i) nrow(by_rows$get(i)), 1)), nrow(heart))
  cost <- heart_cost[c("sex", "cp", "thal", "chol")]
  g <- fgseq(age ~ sex * cp + thal + chol, data = by_rows, cost = cost)
  m <- fgseq(age ~ sex * cp + thal + chol, data = heart, cost = cost)
  expect_identical(g$sequence, m$sequence)
  expect_equal(g$beta, m$beta, tolerance = 1e-8)
})

test_that("a formula fit from a SQLite table on 2 multisession workers, whose reader needs a global of the session, equals the in-memory fit", {
  skip_if_not_installed("future")
  assign("fgseq_test_sqlite", sqlite_heart(), envir = globalenv())
  on.exit({
    unlink(get("fgseq_test_sqlite", envir = globalenv()))
    rm("fgseq_test_sqlite", envir = globalenv())
  }, add = TRUE)
  # the workers reach the file only through the session's global, which the reader's globals carry
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), fgseq_test_sqlite)
  environment(connect) <- globalenv()
  oplan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(oplan), add = TRUE)
  a <- fgseq(diagnosis ~ . + sex:cp, data = heart, cost = heart_cost, family = "binomial", lambda = 1e-3)
  b <- fgseq(diagnosis ~ . + sex:cp, data = dbi_chunks(connect, "patients", n_chunks = 4, key = "id", template = heart[0, ]),
             cost = heart_cost, family = "binomial", lambda = 1e-3)
  expect_identical(b$sequence, a$sequence)
  expect_equal(b$beta, a$beta, tolerance = 1e-8)
  expect_equal(b$a0, a$a0, tolerance = 1e-8)
})

test_that("the workers' globals are searched in the user's functions of a reader, not in the package's closures around them", {
  path <- sqlite_heart()
  on.exit(unlink(path))
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), path)
  # dbi_chunks()' reader (a closure of the package) holds the user's connect()
  by_key <- dbi_chunks(connect, "patients", n_chunks = 3, key = "id", template = heart[0, ])
  parts <- fgseq:::reader_parts(by_key$get)
  expect_identical(parts$user, list(connect))
  # a formula fit's reader: the conversion around the data's reader, found through the chunks it holds
  box <- new.env()
  suppressMessages(trace("pass_route", bquote(assign("reader", get_chunk, envir = .(box))), print = FALSE,
                         where = asNamespace("fgseq")))
  on.exit(suppressMessages(untrace("pass_route", where = asNamespace("fgseq"))), add = TRUE)
  fgseq(diagnosis ~ age + sex + cp, data = by_key, cost = heart_cost[c("age", "sex", "cp")], family = "binomial")
  expect_false(identical(box$reader, by_key$get))
  expect_identical(fgseq:::reader_parts(box$reader)$user, list(connect))
  # a function of another package as the files' reader (utils::read.csv): its package, no search
  files <- fgseq_chunks(c("a.rds", "b.rds"), read = utils::read.csv)
  expect_identical(fgseq:::reader_parts(files$get), list(user = list(), packages = "utils"))
  # a reader of the user's: itself
  mine <- function(i) list(x = matrix(i, 2, 1), y = c(0, 1))
  expect_identical(fgseq:::reader_parts(fgseq_chunks(mine, n_chunks = 2)$get)$user, list(mine))
})

test_that("dbi_chunks() checks its arguments", {
  path <- sqlite_heart()
  on.exit(unlink(path))
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), path)
  expect_error(dbi_chunks("db", "patients", 2), class = "fgseq_error_input")
  expect_error(dbi_chunks(function() 1, "patients", 2), class = "fgseq_error_input")
  expect_error(dbi_chunks(connect, c("a", "b"), 2), class = "fgseq_error_input")
  expect_error(dbi_chunks(connect, "patients"), class = "fgseq_error_input")
  expect_error(dbi_chunks(connect, "patients", 0), class = "fgseq_error_input")
  expect_error(dbi_chunks(connect, "patients", 2, key = "cp"), class = "fgseq_error_input")
  expect_error(dbi_chunks(connect, "patients", 2, template = "heart"), class = "fgseq_error_input")
  expect_error(dbi_chunks(connect, "patients", 2, columns = 1:3), class = "fgseq_error_input")
})

test_that("the database's errors on the row count and the key range are fgseq errors keeping the driver's", {
  path <- sqlite_heart()
  on.exit(unlink(path))
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), path)
  driver <- function(sql) {
    con <- connect()
    on.exit(DBI::dbDisconnect(con))
    tryCatch(DBI::dbGetQuery(con, sql), error = identity)
  }
  e <- tryCatch(dbi_chunks(connect, "no_such_table", 2), error = identity)
  expect_s3_class(e, "fgseq_error_input")
  expect_match(conditionMessage(e), "`table`", fixed = TRUE)
  expect_identical(conditionMessage(e$parent), conditionMessage(driver("SELECT COUNT(*) FROM no_such_table")))
  e <- tryCatch(dbi_chunks(connect, "patients", 2, key = "no_such_column"), error = identity)
  expect_s3_class(e, "fgseq_error_input")
  expect_match(conditionMessage(e), "`key`", fixed = TRUE)
  expect_identical(conditionMessage(e$parent), conditionMessage(driver("SELECT MIN(no_such_column) FROM patients")))
  e <- tryCatch(dbi_chunks(connect, "no_such_table", 2, key = "id"), error = identity)
  expect_s3_class(e, "fgseq_error_input")
  # a connect() that fails
  e <- tryCatch(dbi_chunks(function() stop("the server is down"), "patients", 2), error = identity)
  expect_s3_class(e, "fgseq_error_input")
  expect_identical(conditionMessage(e$parent), "the server is down")
})

test_that("a key with a gap: its empty ranges are dropped, and the fit is the fit without them", {
  path <- tempfile(fileext = ".sqlite")
  on.exit(unlink(path))
  # ids 1..150 and 1001..1153: of 8 ranges of equal width, those between hold no row
  ids <- c(seq_len(150), 1000 + seq_len(nrow(heart) - 150))
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbWriteTable(con, "patients", cbind(id = ids, heart))
  DBI::dbDisconnect(con)
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), path)
  ch <- dbi_chunks(connect, "patients", n_chunks = 8, key = "id", template = heart[0, ])
  breaks <- seq(min(ids), max(ids), length.out = 9)
  held <- tabulate(findInterval(ids, breaks, rightmost.closed = TRUE), 8)
  expect_true(any(held == 0))                       # the gap leaves ranges without rows
  expect_identical(ch$n, sum(held > 0))
  rows <- lapply(seq_len(ch$n), ch$get)
  expect_true(all(vapply(rows, nrow, 1L) > 0))
  expect_identical(vapply(rows, nrow, 1L), held[held > 0])
  f <- diagnosis ~ age + sex * cp + thal
  b <- fgseq(f, data = ch, cost = heart_cost, family = "binomial", lambda = 1e-3, max_steps = 3)
  # the same chunks with the empty ranges kept as data frames of no rows: the same fit
  cut <- split(heart, factor(findInterval(ids, breaks, rightmost.closed = TRUE), levels = 1:8))
  kept <- fgseq(f, data = fgseq_chunks(unname(cut)), cost = heart_cost, family = "binomial", lambda = 1e-3,
                max_steps = 3, template = heart[0, ])
  expect_identical(b$sequence, kept$sequence)
  expect_equal(as.matrix(b$beta), as.matrix(kept$beta), tolerance = 1e-12)
  expect_equal(b$a0, kept$a0, tolerance = 1e-12)
  # the Gaussian and multinomial families alike
  for (fam in c("gaussian", "multinomial")) {
    g <- if (fam == "gaussian") age ~ sex + cp + thal + chol else cp ~ age + sex + thal
    by_db <- fgseq(g, data = ch, cost = heart_cost, family = fam, lambda = 1e-3, max_steps = 2)
    by_list <- fgseq(g, data = fgseq_chunks(unname(cut)), cost = heart_cost, family = fam, lambda = 1e-3,
                     max_steps = 2, template = heart[0, ])
    expect_identical(by_db$sequence, by_list$sequence)
    expect_equal(unlist(lapply(if (is.list(by_db$beta)) by_db$beta else list(by_db$beta), as.matrix)),
                 unlist(lapply(if (is.list(by_list$beta)) by_list$beta else list(by_list$beta), as.matrix)),
                 tolerance = 1e-12)
    expect_equal(by_db$a0, by_list$a0, tolerance = 1e-12)
  }
  # and the in-memory fit of the table's rows
  a <- fgseq(f, data = heart, cost = heart_cost, family = "binomial", lambda = 1e-3, max_steps = 3)
  expect_identical(b$sequence, a$sequence)
  expect_equal(b$beta, a$beta, tolerance = 1e-8)
  # rows deleted after the chunks were described: the chunk that reads none adds nothing
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbExecute(con, "DELETE FROM patients WHERE id <= 150")
  DBI::dbDisconnect(con)
  now <- lapply(seq_len(ch$n), ch$get)
  expect_identical(nrow(now[[1L]]), 0L)
  late <- fgseq(f, data = ch, cost = heart_cost, family = "binomial", lambda = 1e-3, max_steps = 3)
  rest <- fgseq(f, data = fgseq_chunks(now[vapply(now, nrow, 1L) > 0]), cost = heart_cost, family = "binomial",
                lambda = 1e-3, max_steps = 3, template = heart[0, ])
  expect_identical(late$sequence, rest$sequence)
  expect_equal(as.matrix(late$beta), as.matrix(rest$beta), tolerance = 1e-12)
  expect_identical(late$nobs, nrow(heart) - 150L)
  # a table whose every chunk then reads no row: one classed error
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbExecute(con, "DELETE FROM patients")
  DBI::dbDisconnect(con)
  expect_error(fgseq(f, data = ch, cost = heart_cost, family = "binomial"), class = "fgseq_error_chunks_empty")
  expect_error(fgseq(age ~ sex + cp, data = ch, cost = heart_cost), class = "fgseq_error_chunks_empty")
})
