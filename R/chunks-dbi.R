#' Chunks of rows of a database table
#'
#' Describes a table of a database reached through DBI as chunks of rows for [fgseq()], without reading
#' it: [fgseq_chunks()] with a function that, for chunk `i`, opens its own connection (`connect()`),
#' reads the chunk's rows with one `SELECT` and closes the connection. Every pass of a fit reads the
#' chunks again, in parallel when a future plan is set, each worker with its own connections (a DBI
#' connection cannot travel between processes). A formula fit (`fgseq(y ~ ., data = dbi_chunks(...))`)
#' fixes its terms and factor levels from `template` (see the section Formula fits from chunks of data
#' frames of [fgseq_chunks()]).
#'
#' The chunks are cut either by `key`, a numeric column (such as a row id), into `n_chunks` ranges of
#' equal width between its smallest and largest value (`key >= lo AND key < hi`, the last range closed),
#' which every database reads in the same way and fast with an index on `key` (the ranges that hold no
#' row, at gaps in the key, are dropped when the chunks are described: each range is counted once, and
#' the result may have fewer than `n_chunks` chunks); or, without `key`, into
#' `n_chunks` row ranges of the table's count (`LIMIT ... OFFSET ...`), which relies on the database
#' returning the rows in the same order at every query (SQLite does for a table without deletions;
#' give `key` for other databases). Rows with a `NULL` key are in no chunk.
#'
#' Databases have fewer types than R: a factor comes back as text and a logical as 0/1. With `template`
#' (a data frame, for example `data[0, ]` of the data the table was written from), the columns of each
#' chunk that are logical in the template are read as logical, and the template's factor levels fix the
#' levels of the text columns when the formula fit builds its design.
#'
#' @param connect A function of no arguments returning an open DBI connection, for example
#'   `function() DBI::dbConnect(RSQLite::SQLite(), path)`. Called once to count the rows (or to read the
#'   range of `key` and count the rows of each of its ranges) and once per chunk and pass, in the process
#'   that reads the chunk.
#' @param table Character string: the name of the table (quoted with [DBI::dbQuoteIdentifier()]).
#' @param n_chunks Whole number >= 1: the number of chunks.
#' @param key `NULL` (row ranges) or a character string naming a numeric column whose ranges cut the
#'   chunks.
#' @param columns `NULL` (every column) or a character vector of the columns to read.
#' @param template `NULL` or a data frame giving the types and factor levels of the columns (see
#'   above); a formula fit from the chunks takes it as its `template`.
#' @return An object of class `"fgseq_chunks"` (see [fgseq_chunks()]), with the `template`.
#' @section Errors: Stops (class `fgseq_error_input`) when the DBI package is not installed, when
#'   `connect` is not a function or does not return a DBI connection, when `table`, `key` or `columns`
#'   are not character strings, when `n_chunks` is not a whole number >= 1, when `key` is not a numeric
#'   column or is `NULL` on every row, when the table is empty, and when `template` is not a data frame;
#'   when `connect()` fails, and when the database refuses the query counting the rows or reading the
#'   range of `key` (a table or a column that does not exist): the error names `table` (and `key`) and
#'   keeps the driver's error as its `parent`. A fit stops, naming the chunk, when a chunk cannot be read.
#' @seealso [fgseq_chunks()]; `vignette("chunks", package = "fgseq")` fits `heart` from a SQLite table.
#' @examples
#' if (requireNamespace("RSQLite", quietly = TRUE)) {
#'   path <- tempfile(fileext = ".sqlite")
#'   con <- DBI::dbConnect(RSQLite::SQLite(), path)
#'   DBI::dbWriteTable(con, "heart", cbind(id = seq_len(nrow(heart)), heart))
#'   DBI::dbDisconnect(con)
#'   chunks <- dbi_chunks(function() DBI::dbConnect(RSQLite::SQLite(), path), "heart", n_chunks = 3,
#'                        key = "id", template = heart[0, ])
#'   fit <- fgseq(diagnosis ~ ., data = chunks, cost = heart_cost, family = "binomial")
#'   in_memory <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
#'   print(identical(fit$sequence, in_memory$sequence))
#'   unlink(path)
#' }
#' @export
dbi_chunks <- function(connect, table, n_chunks, key = NULL, columns = NULL, template = NULL) {
  if (!requireNamespace("DBI", quietly = TRUE)) {
    abort("dbi_chunks() needs the DBI package (and a DBI driver such as RSQLite): install.packages(\"DBI\").")
  }
  if (!is.function(connect)) abort("`connect` must be a function of no arguments returning a DBI connection.")
  table <- check_identifier(table, "table")
  if (!is.null(key)) key <- check_identifier(key, "key")
  if (!is.null(columns) && (!is.character(columns) || !length(columns) || anyNA(columns))) {
    abort("`columns` must be NULL (every column) or a character vector of column names.")
  }
  if (missing(n_chunks)) abort("`n_chunks` must be given: the number of chunks to cut the table into.")
  n_chunks <- check_whole(n_chunks, "n_chunks", 1, what = "the number of chunks")
  if (!is.null(template) && !is.data.frame(template)) {
    abort("`template` must be NULL or a data frame giving the columns' types and factor levels.")
  }
  con <- open_connection(connect)
  on.exit(DBI::dbDisconnect(con))
  from <- DBI::dbQuoteIdentifier(con, table)
  select <- paste("SELECT", if (is.null(columns)) "*" else
    paste(vapply(columns, function(v) as.character(DBI::dbQuoteIdentifier(con, v)), ""), collapse = ", "),
    "FROM", from)
  if (is.null(key)) {
    n <- dbi_query(con, paste("SELECT COUNT(*) AS n FROM", from), paste0("count the rows of `table` (\"", table, "\")"),
                   "check that `table` names a table of the database")$n
    if (!n) abort("table `", table, "` has no rows.")
    ends <- round(seq(0, n, length.out = min(n_chunks, n) + 1L))
    queries <- lapply(seq_len(length(ends) - 1L), function(i) {
      list(sql = sprintf("%s LIMIT %.0f OFFSET %.0f", select, ends[i + 1L] - ends[i], ends[i]), params = NULL)
    })
  } else {
    k <- DBI::dbQuoteIdentifier(con, key)
    range <- dbi_query(con, paste0("SELECT MIN(", k, ") AS lo, MAX(", k, ") AS hi FROM ", from),
                       paste0("read the range of `key` (\"", key, "\") in `table` (\"", table, "\")"),
                       "check that `table` names a table of the database and `key` one of its columns")
    if (!is.numeric(range$lo) || !is.numeric(range$hi) || is.na(range$lo)) {
      abort("`key` must name a numeric column of `", table, "` with values (it cuts the chunks into ranges).")
    }
    breaks <- seq(range$lo, range$hi, length.out = n_chunks + 1L)
    where <- function(i) paste0(" WHERE ", k, " >= ? AND ", k, if (i == n_chunks) " <= ?" else " < ?")
    queries <- lapply(seq_len(n_chunks), function(i) {
      list(sql = paste0(select, where(i)), params = list(breaks[i], breaks[i + 1L]))
    })
    # the ranges that hold no row (gaps in the key, more chunks than the key's values) are dropped: each
    # range counted with the condition its chunk reads
    if (n_chunks > 1L) {
      rows <- vapply(seq_len(n_chunks), function(i) {
        as.numeric(dbi_query(con, paste0("SELECT COUNT(*) AS n FROM ", from, where(i)),
                             paste0("count the rows of chunk ", i, " of `table` (\"", table, "\")"),
                             "check that `key` names a numeric column of `table`",
                             params = queries[[i]]$params)$n)
      }, numeric(1))
      queries <- queries[rows > 0]
    }
  }
  read <- dbi_reader(connect, queries, template)
  chunks <- fgseq_chunks(read, n_chunks = length(queries))
  chunks$template <- template
  chunks
}

# The function reading chunk i (shipped to the workers: it holds `connect`, the queries and the template).
dbi_reader <- function(connect, queries, template) {
  force(connect)
  force(queries)
  logical_cols <- if (!is.null(template)) names(template)[vapply(template, is.logical, logical(1))]
  package_closure(function(i) {
    con <- open_connection(connect)
    on.exit(DBI::dbDisconnect(con))
    q <- queries[[i]]
    df <- if (is.null(q$params)) DBI::dbGetQuery(con, q$sql) else DBI::dbGetQuery(con, q$sql, params = q$params)
    for (v in intersect(logical_cols, names(df))) {
      if (is.numeric(df[[v]])) df[[v]] <- as.logical(df[[v]])   # databases store logicals as 0/1
    }
    df
  })
}

# A single non-empty string naming a table or a column.
check_identifier <- function(value, name) {
  if (!is.character(value) || length(value) != 1L || is.na(value) || !nzchar(value)) {
    abort("`", name, "` must be a single non-empty character string (a name in the database).")
  }
  value
}

# The result of the query `sql` on `con`; an error of the database (a table or a column that does not
# exist, ...) is raised again naming what the query was for (`what`) and what to check (`remedy`), with the
# driver's error as its parent.
dbi_query <- function(con, sql, what, remedy, params = NULL) {
  tryCatch(if (is.null(params)) DBI::dbGetQuery(con, sql) else DBI::dbGetQuery(con, sql, params = params), error = function(e) {
    abort("dbi_chunks() could not ", what, ": ", conditionMessage(e), "; ", remedy, ".", parent = e)
  })
}

open_connection <- function(connect) {
  con <- tryCatch(connect(), error = function(e) {
    abort("`connect()` failed to open a DBI connection: ", conditionMessage(e), parent = e)
  })
  if (!methods::is(con, "DBIConnection")) abort("`connect()` must return a DBI connection (a DBIConnection).")
  con
}
