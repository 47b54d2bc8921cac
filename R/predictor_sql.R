#' The prediction of a fitted sequence as a SQL expression
#'
#' Writes the anytime predictor of an [fgseq()] fit at a budget as one SQL expression that a database
#' evaluates on the rows of a table, so that rows are scored where they are stored (Hu et al. 2016: at
#' budget `B` the model of `G<B>`, the longest prefix of the sequence whose cumulative cost is at most
#' `B`). The expression reads the table's columns by name: the columns of `x` for a matrix fit, the
#' variables of the formula for a formula fit, whose model-matrix columns it forms as [predict.fgseq()]
#' does (a factor's coding as `CASE WHEN`, an interaction as the product of its parts, a numeric
#' expression such as `log(chol)` or `I(age^2)` translated for the dialect; a function dbplyr does not
#' translate is written as it is called, and the database must have it). Identifiers and strings are quoted for
#' the connection's dialect through DBI ([DBI::dbQuoteIdentifier()], [DBI::dbQuoteString()]), and
#' functions translated for it by dbplyr (`dbplyr::translate_sql_()`).
#'
#' @section Rows that lack groups:
#' A row whose later groups were not computed holds `NULL` in their columns (or variables). The
#' expression scores it as `predict(missing = "prefix")` does: if the first step of the sequence that
#' reads a `NULL` is step `j`, budget `B` uses step `min(k(B), j - 1)`, where `k(B)` is the step of
#' `G<B>`, and `NULL` in groups beyond that step is never read. For a formula fit a `NULL` in a variable
#' is missing in every model-matrix column that uses it. A factor level that the fit did not see makes
#' the prediction `NULL` (where `predict()` stops).
#'
#' @section Numbers and functions:
#' Coefficients and intercepts are written with 17 significant digits (each reads back as the same
#' double), each with a decimal point or an exponent (no integer division), negative ones in
#' parentheses. The expression at a budget is `CASE WHEN <a group of step 1 is NULL> THEN eta_0 WHEN
#' ... ELSE eta_k END`, with `eta_s` the linear predictor of step `s` on the original scale of `x`
#' (intercept plus coefficient times column, every column of the steps `1..s`). With
#' `type = "response"` each branch is the family's inverse link of its `eta_s`: binomial
#' `1.0 / (1.0 + EXP(-eta))` (the probability of the second class, written with the coefficients
#' negated), poisson `EXP(eta)`, multinomial the softmax `1.0 / (1.0 + sum over k != c of
#' EXP(eta_k - eta_c))` of class `c` (one expression per class, written with the coefficients of the
#' differences); gaussian and mgaussian responses are the link. `EXP` is dbplyr's translation of
#' `exp()` for the dialect (a database without it, such as SQLite built without its mathematical
#' functions, cannot evaluate the response of those families). Its argument is held within
#' `[-700, 700]` by a `CASE`, since some databases (PostgreSQL) raise an error where `EXP` overflows or
#' underflows: a probability within about `1e-304` of 0 or 1 is written as that bound, and a poisson
#' mean above `exp(700)` (about `1e304`) as `exp(700)`, where R gives the exact value or `Inf`.
#'
#' @param fit An `"fgseq"` fit ([fgseq()], [fgseq_stats()], [fgseq_chunks()], [sparse_sequence()]),
#'   matrix or formula interface, of any family, without an offset.
#' @param budget Either a numeric vector of budgets (cost units, as `predict(budget = )`; each `>= 0`,
#'   not `NA`; a budget beyond the last step's cost uses the whole sequence), one expression each; or a
#'   per-row budget: a single string naming the table's column that holds each row's budget (quoted as
#'   an identifier), or a SQL expression (`dbplyr::sql()` or [DBI::SQL()], used as it is). A row whose
#'   budget is `NULL` or below the cost of step 0 scores `NULL` (where `predict(per_row = TRUE)` stops).
#' @param con The SQL dialect: a DBI connection ([DBI::dbConnect()]; its class must be one that dbplyr
#'   translates for, such as `RSQLite::SQLite()`'s, PostgreSQL's, MySQL/MariaDB's, ODBC's), whose
#'   driver quotes identifiers and strings ([DBI::dbQuoteIdentifier()], [DBI::dbQuoteString()]); or,
#'   without a connection, a single string naming a dialect that takes standard SQL's quoting
#'   (`"name"`, `'text'`, as [DBI::ANSI()] quotes): `"ansi"` (dbplyr's generic SQL), `"sqlite"`,
#'   `"postgres"`, `"mssql"`, `"oracle"`, `"snowflake"`, `"redshift"`, `"teradata"` or `"hana"`
#'   (functions translated as dbplyr's simulated connection of that dialect translates them; a
#'   connection dbplyr simulates, such as `dbplyr::simulate_postgres()`, is taken the same way). MySQL,
#'   Hive, Impala and Access quote identifiers otherwise: give a live connection for them. Nothing is
#'   sent to the database.
#' @param type `"link"` (the linear predictor, as `predict(type = "link")`) or `"response"` (the
#'   prediction on the response scale, as `predict(type = "response")`).
#' @param ... Nothing: an unknown argument is an error.
#' @return A character vector of class `"sql"` (dbplyr's [dbplyr::sql()]), one SQL expression per
#'   requested budget and response: for gaussian, binomial and poisson fits one per budget, named as the
#'   columns of `predict()` (`"budget=5"`, or `"per_row"` for a per-row budget); for multinomial and
#'   mgaussian fits one per budget and class (or response column), the classes of a budget side by side,
#'   named `"<budget>:<class>"`. Each is an expression for a `SELECT` list (`SELECT <expr> AS pred FROM
#'   tab`) or for `dplyr::mutate(pred = !!expr)` on a dbplyr table.
#' @section Errors: Stops (class `fgseq_error_input`) when `fit` is not an anytime fit, when `budget`
#'   is missing, not numeric and not a single column name or SQL expression, or as [predict.fgseq()]
#'   for numeric budgets (negative, `NA`, empty, or below the cost of step 0), when `type` is not one
#'   of its values, when `con` is missing or neither a DBI connection nor a single string, when DBI or
#'   dbplyr is not installed; (class `fgseq_error_sql_dialect`) when `con` names a dialect this
#'   function does not know or is a DBI connection of a class dbplyr has no translation for; (class
#'   `fgseq_error_sql`) when the model has no SQL form here: a [miser()] fit (trees), a fit with an
#'   offset, a family without an inverse link written in SQL, a formula fit with a matrix-valued
#'   variable (such as `poly(age, 3)`), a factor given as an expression (such as `factor(cyl)`) or
#'   columns the formula's description cannot give (class `fgseq_error_formula`, as
#'   [write_predictor()]); on an object that is not as [fgseq()] made it (class
#'   `fgseq_error_invalid_object`); when an argument is unknown (class `fgseq_error_unknown_argument`).
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. *Proceedings of the 32nd Conference on Uncertainty in
#'   Artificial Intelligence (UAI)*, 279-288. \url{https://arxiv.org/abs/1409.5495}
#' @seealso [predict.fgseq()] (`missing = "prefix"`, `per_row = TRUE`), [write_predictor()] for the
#'   same predictor as portable JSON.
#' @examples
#' fit <- fgseq(diagnosis ~ age + sex + cp + chol, data = heart, family = "binomial",
#'              cost = heart_cost[c("age", "sex", "cp", "chol")])
#' if (requireNamespace("RSQLite", quietly = TRUE) && requireNamespace("dbplyr", quietly = TRUE)) {
#'   print(predictor_sql(fit, budget = 3, con = "postgres", type = "response"))
#'   con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#'   DBI::dbWriteTable(con, "heart", heart)
#'   expr <- predictor_sql(fit, budget = c(3, 10), con = con, type = "response")
#'   scored <- DBI::dbGetQuery(con, paste("SELECT", expr[["budget=3"]], "AS p3,",
#'                                        expr[["budget=10"]], "AS p10 FROM heart"))
#'   print(all.equal(as.matrix(scored), predict(fit, newdata = heart, budget = c(3, 10), type = "response"),
#'                   check.attributes = FALSE))
#'   DBI::dbDisconnect(con)
#' }
#' @export
predictor_sql <- function(fit, budget, con, type = c("link", "response"), ...) {
  check_dots(...)
  if (!inherits(fit, "anytime_fit") || inherits(fit, "fgseq_policy")) {
    abort("`fit` must be a fitted sequence, an \"fgseq\" fit (fgseq()); got an object of class ",
          class(fit)[1L], ".")
  }
  validate_fit(fit, "fit")
  if (!inherits(fit, "fgseq")) {
    abort("`fit` is a \"", class(fit)[1L], "\" fit: predictor_sql() writes linear sequences (\"fgseq\" fits) ",
          "only; apply its trees with write_predictor() outside the database.", class = "sql")
  }
  if (isTRUE(fit$has_offset)) {
    abort("`fit` has an offset, which predictor_sql() does not write: refit without the offset, or score the ",
          "link of a fit without it and add the offset in the query.", class = "sql")
  }
  type <- check_choice(type, c("link", "response"), "type")
  for (pkg in c("DBI", "dbplyr")) {
    if (!requireNamespace(pkg, quietly = TRUE)) {
      abort("predictor_sql() needs the ", pkg, " package: install.packages(\"", pkg, "\").")
    }
  }
  con <- sql_connection(if (!missing(con)) con)
  if (missing(budget)) abort("`budget` is missing: give budgets (cost units) or the column of each row's budget.")
  budget <- sql_budget(fit, budget, con)
  link <- family_def(fit$family)$json_link
  if (!link %in% c("identity", "logit", "log", "softmax")) {
    abort("the family of `fit` (", family_def(fit$family)$name, ") has no inverse link written in SQL.", class = "sql")
  }
  design <- sql_design(fit, con)
  responses <- fit$responses
  P <- length(responses)
  K <- nrow(fit$path) - 1L
  col_step <- column_steps(fit)
  models <- lapply(0:K, function(k) step_coefficients(fit, k, names(fit$group)[col_step <= k]))
  # the SQL of response r at step s (0-based step)
  branch <- function(s, r) {
    m <- models[[s + 1L]]
    cols <- design$columns[col_step <= s]
    a <- m$intercept
    b <- m$coefficients
    if (type == "link" || link == "identity") return(sql_linear(a[r], b[, r], cols))
    if (link == "logit") return(paste0("1.0 / (1.0 + ", sql_exp(sql_linear(-a[r], -b[, r], cols), con), ")"))
    if (link == "log") return(sql_exp(sql_linear(a[r], b[, r], cols), con))
    others <- vapply(setdiff(seq_len(P), r), function(k) sql_exp(sql_linear(a[k] - a[r], b[, k] - b[, r], cols), con),
                     character(1))
    paste0("1.0 / (", paste(c("1.0", others), collapse = " + "), ")")
  }
  missing_at <- vapply(seq_len(K), function(s) {
    tests <- unique(unlist(design$tests[col_step == s], use.names = FALSE))
    if (length(tests)) paste(tests, collapse = " OR ") else NA_character_
  }, character(1))
  one <- function(r, step) {
    if (!is.null(step)) {
      if (step == 0L) return(branch(0L, r))
      whens <- vapply(seq_len(step), function(s) {
        if (is.na(missing_at[s])) "" else paste0(" WHEN ", missing_at[s], " THEN ", branch(s - 1L, r))
      }, character(1))
      return(paste0("CASE", paste(whens, collapse = ""), " ELSE ", branch(step, r), " END"))
    }
    # a per-row budget: step s is used from the cost of step s on (resolve_steps()' tolerance)
    limit <- sql_number(fit$path$cost * (1 - 1e-12))
    B <- budget$column
    whens <- vapply(seq_len(K), function(s) {
      cond <- paste0(B, " < ", limit[s + 1L], if (!is.na(missing_at[s])) paste0(" OR ", missing_at[s]))
      paste0(" WHEN ", cond, " THEN ", branch(s - 1L, r))
    }, character(1))
    paste0("CASE WHEN ", B, " IS NULL OR ", B, " < ", limit[1L], " THEN NULL", paste(whens, collapse = ""),
           " ELSE ", branch(K, r), " END")
  }
  labels <- if (is.null(budget$steps)) "per_row" else names(budget$steps)
  out <- character(0)
  for (b in seq_along(labels)) {
    step <- if (is.null(budget$steps)) NULL else budget$steps[[b]]
    exprs <- vapply(seq_len(P), function(r) one(r, step), character(1))
    names(exprs) <- if (P == 1L) labels[b] else paste0(labels[b], ":", responses)
    out <- c(out, exprs)
  }
  dbplyr::sql(out)
}

# The SQL dialects `con` may name, as dbplyr simulates them ("ansi": its generic SQL) for the
# translation of functions; identifiers and strings are quoted as standard SQL (quoting()).
# Only dialects that take standard SQL's quoted identifiers ("name"): MySQL, Hive, Impala and Access
# quote otherwise, and need a live connection.
sql_dialects <- c(ansi = "simulate_dbi", sqlite = "simulate_sqlite", postgres = "simulate_postgres",
                  mssql = "simulate_mssql", oracle = "simulate_oracle", snowflake = "simulate_snowflake",
                  redshift = "simulate_redshift", teradata = "simulate_teradata", hana = "simulate_hana")

# `con` of predictor_sql(): a DBI connection of a class dbplyr translates for (or one dbplyr simulates),
# or a dialect's name, returned as dbplyr's simulated connection of that dialect.
sql_connection <- function(con) {
  if (is.null(con)) {
    abort("`con` is missing: give a DBI connection (DBI::dbConnect()) or the name of a SQL dialect (",
          paste0("\"", names(sql_dialects), "\"", collapse = ", "), ").")
  }
  if (is.character(con)) {
    if (length(con) != 1L || is.na(con)) abort("`con` must be a DBI connection or a single string naming a SQL dialect.")
    if (!con %in% names(sql_dialects)) {
      abort("`con` (\"", con, "\") is not a SQL dialect predictor_sql() knows; give one of ",
            paste0("\"", names(sql_dialects), "\"", collapse = ", "), ", or a DBI connection.", class = "sql_dialect")
    }
    return(getExportedValue("dbplyr", sql_dialects[[con]])())
  }
  if (!methods::is(con, "DBIConnection")) {
    abort("`con` must be a DBI connection (DBI::dbConnect()) or a single string naming a SQL dialect; got an ",
          "object of class ", class(con)[1L], ".")
  }
  classes <- setdiff(union(class(con), methods::is(con)), c("DBIConnection", "DBIObject"))
  known <- "TestConnection" %in% classes || any(vapply(classes, function(cl) {
    !is.null(utils::getS3method("sql_translation", cl, optional = TRUE, envir = asNamespace("dbplyr")))
  }, logical(1)))
  if (!known) {
    abort("`con` is a connection of class ", class(con)[1L], ", whose SQL dialect dbplyr does not translate for; ",
          "give `con` as the name of its dialect (one of ", paste0("\"", names(sql_dialects), "\"", collapse = ", "),
          ").", class = "sql_dialect")
  }
  con
}

# `budget` of predictor_sql(): list(steps = the named steps of numeric budgets, as predict() resolves
# them) or list(column = the SQL of each row's budget: a quoted column name, or a SQL expression).
sql_budget <- function(fit, budget, con) {
  if (inherits(budget, "sql") || methods::is(budget, "SQL")) {
    if (length(budget) != 1L || is.na(budget)) abort("`budget` as SQL must be a single expression.")
    return(list(column = paste0("(", as.character(budget), ")")))
  }
  if (is.character(budget)) {
    if (length(budget) != 1L || is.na(budget) || !nzchar(budget)) {
      abort("`budget` as a column must be a single non-empty string, the name of the column of each row's budget.")
    }
    return(list(column = sql_ident(budget, con)))
  }
  if (!is.numeric(budget)) {
    abort("`budget` must be numeric budgets (cost units), a single string naming the column of each row's budget, ",
          "or a SQL expression (dbplyr::sql()); got an object of class ", class(budget)[1L], ".")
  }
  list(steps = resolve_steps(fit, budget = budget))
}

# The table's side of the fit in SQL: `columns`, the SQL of each column of x (of the model matrix for a
# formula fit), and `tests`, for each column the SQL tests (`... IS NULL`) of what it reads.
sql_design <- function(fit, con) {
  cols <- names(fit$group)
  if (is.null(fit$terms)) {
    ident <- sql_ident(cols, con)
    return(list(columns = ident, tests = as.list(paste(ident, "IS NULL"))))
  }
  data_class <- attr(fit$terms, "dataClasses")
  for (v in rownames(attr(stats::delete.response(fit$terms), "factors"))) {
    if (data_class[[v]] %in% c("factor", "ordered", "logical", "character") && !is.name(str2lang(v))) {
      abort("predictor_sql() cannot write the factor ", v, " given as an expression: make it a column of the ",
            "table and of the data, and refit.", class = "sql")
    }
  }
  desc <- formula_columns(fit, "predictor_sql()")
  vars <- list()
  for (v in desc$variables) {
    if (v$type == "numeric") {
      vars[[v$name]] <- list(type = "numeric", sql = sql_translate(str2lang(v$name), con))
      next
    }
    expr <- str2lang(v$name)
    vars[[v$name]] <- list(type = if (identical(attr(fit$terms, "dataClasses")[[v$name]], "logical")) "logical" else "factor",
                           sql = sql_translate(expr, con))
  }
  coding <- function(f) {
    var <- vars[[f$variable]]
    code <- vapply(f$coding, function(x) as.numeric(unclass(x)), numeric(1))
    whens <- if (var$type == "logical") {
      paste0(" WHEN ", c(var$sql, paste0("NOT ", var$sql)), " THEN ", sql_number(code[c("TRUE", "FALSE")]))
    } else {
      paste0(" WHEN ", var$sql, " = ", sql_string(names(code), con), " THEN ",
             sql_number(code))
    }
    paste0("(CASE", paste(whens, collapse = ""), " END)")
  }
  columns <- vapply(desc$columns, function(cl) {
    parts <- c(vapply(cl$numeric, function(v) paste0("(", vars[[v]]$sql, ")"), character(1)),
               vapply(cl$factors, coding, character(1)))
    if (length(parts)) paste(parts, collapse = " * ") else "1.0"
  }, character(1))
  tests <- lapply(desc$columns, function(cl) {
    used <- c(unlist(cl$numeric), vapply(cl$factors, function(f) f$variable, character(1)))
    paste0("(", vapply(used, function(v) vars[[v]]$sql, character(1)), ") IS NULL")
  })
  names(columns) <- vapply(desc$columns, function(cl) cl$name, character(1))
  list(columns = unname(columns[cols]), tests = unname(tests[match(cols, names(columns))]))
}

# Identifiers and strings quoted through DBI: by a live connection's driver, or as standard SQL
# (DBI::ANSI(): "name", 'text') for a dialect given by name (a connection dbplyr simulates, which only
# renders SQL).
quoting <- function(con) if (inherits(con, "TestConnection")) DBI::ANSI() else con
sql_ident <- function(x, con) as.character(DBI::dbQuoteIdentifier(quoting(con), x))
sql_string <- function(x, con) as.character(DBI::dbQuoteString(quoting(con), x))

# An R expression in the dialect of `con`: its variables as quoted identifiers (sql_ident()), its
# functions as dbplyr translates them for the dialect, I() (a formula's "as is") dropped.
sql_translate <- function(expr, con) {
  drop_as_is <- function(e) {
    if (!is.call(e)) return(e)
    if (identical(e[[1L]], quote(I)) && length(e) == 2L) return(drop_as_is(e[[2L]]))
    e[-1L] <- lapply(as.list(e)[-1L], drop_as_is)
    e
  }
  expr <- drop_as_is(expr)
  vars <- all.vars(expr)
  quoted <- lapply(stats::setNames(vars, vars), function(v) dbplyr::sql(sql_ident(v, con)))
  expr <- do.call(substitute, list(expr, quoted))
  as.character(dbplyr::translate_sql_(list(expr), con = con))
}

# EXP of a SQL expression, as dbplyr translates exp() for the dialect, its argument held within
# [-700, 700] (a CASE, which every dialect has): PostgreSQL raises an error where EXP overflows (above
# about 709.8) or underflows to 0 (below about -745), where R gives Inf or 0.
sql_exp <- function(x, con) {
  lim <- sql_number(SQL_EXP_LIMIT)
  held <- paste0("CASE WHEN ", x, " > ", lim, " THEN ", lim, " WHEN ", x, " < ", sql_number(-SQL_EXP_LIMIT),
                 " THEN ", sql_number(-SQL_EXP_LIMIT), " ELSE ", x, " END")
  sql_translate(call("exp", dbplyr::sql(held)), con)
}

# The largest argument of EXP in the SQL of a prediction, in absolute value.
SQL_EXP_LIMIT <- 700

# Numbers as SQL literals: 17 significant digits (the same double read back), always with a decimal
# point or an exponent (no integer arithmetic), negative ones in parentheses (never "--").
sql_number <- function(v) {
  v <- as.double(v)
  if (!all(is.finite(v))) abort("internal error: a non-finite number in the SQL of the predictor.", class = "internal")
  s <- sprintf("%.17g", v)
  s <- ifelse(grepl("[.eE]", s), s, paste0(s, ".0"))
  ifelse(v < 0, paste0("(", s, ")"), s)
}

# The linear predictor `a + sum b_j * column_j` (columns as SQL), in parentheses.
sql_linear <- function(a, b, columns) {
  if (!length(columns)) return(sql_number(a))
  paste0("(", paste(c(sql_number(a), paste0(sql_number(b), " * ", columns)), collapse = " + "), ")")
}
