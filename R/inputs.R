# Checks of the data every verb shares: x, y, group, weights and offset when fitting; newx,
# budgets and steps when predicting. Each returns the cleaned value or stops with a message that names
# the argument and says what to do; a verb checks all its input before computing anything, so a failed
# call leaves nothing half-done. (Typed checkers of single values are in checks.R.)

# x: a numeric matrix (or an all-numeric data frame), stored as double; with `sparse = TRUE` also a
# sparse matrix of the Matrix package, returned as a dgCMatrix (never densified).
check_x <- function(x, sparse = FALSE, min_rows = 2L) check_x_scan(x, sparse, min_rows)$x

# check_x() with what a fit needs from the same sweep over x (one pass, in the core): list(x, max_abs
# = the largest magnitude of each column (for extreme_scaling()), spent). With `time_left` seconds (the
# rest of a fit's max_time) the sweep over a dense x stops when they run out: then `spent` is TRUE, x
# is unchecked for NA, NaN and Inf, and max_abs is NULL; the fit is the null model (.fit_path(NULL, ...)).
check_x_scan <- function(x, sparse = FALSE, min_rows = 2L, time_left = Inf) {
  if (methods::is(x, "sparseMatrix")) {
    if (!sparse) {
      abort("`x` is a sparse matrix; this function needs a dense numeric matrix: use as.matrix(x), ",
            "or fgseq(), which takes sparse matrices.")
    }
    x <- check_sparse_x(x)
    return(list(x = x, max_abs = sparse_column_max_abs(x), spent = FALSE))
  }
  x <- check_dense_x(x, min_rows)
  scan <- .scan_columns(x, time_left)
  if (scan$spent) return(list(x = x, max_abs = NULL, spent = TRUE))
  bad <- scan$nonfinite
  if (bad > 0L) {
    nm <- if (is.null(colnames(x))) paste0("column ", bad) else paste0("column '", colnames(x)[bad], "'")
    abort("`x` contains NA, NaN or Inf (first in ", nm, "); remove or impute those values first.")
  }
  list(x = x, max_abs = scan$max_abs, spent = FALSE)
}

# The checks of a dense x that read no value (check_x_scan() reads them): a numeric matrix or an
# all-numeric data frame, stored as double, with at least `min_rows` rows, a column, and valid column
# names. Returns x as a matrix of doubles.
check_dense_x <- function(x, min_rows = 2L) {
  if (is.data.frame(x)) {
    if (!all(vapply(x, function(v) is.numeric(v) || is.logical(v), logical(1)))) {
      abort("`x` must be a numeric matrix; it is a data frame with non-numeric columns. ",
            "Use the formula interface, fgseq(y ~ ., data = ...), to expand factors into groups.")
    }
    x <- as.matrix(x)
  }
  if (!is.matrix(x)) {
    if (is.numeric(x) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
    else abort("`x` must be a numeric matrix (n rows, p columns).")
  }
  if (!(is.numeric(x) || is.logical(x))) {
    abort("`x` must be a numeric matrix; it has storage mode '", storage.mode(x), "'.")
  }
  if (storage.mode(x) != "double") storage.mode(x) <- "double"
  if (nrow(x) < min_rows) abort("`x` must have at least ", min_rows, " row", if (min_rows > 1L) "s", "; it has ",
                                nrow(x), ".")
  if (ncol(x) < 1L) abort("`x` must have at least 1 column.")
  check_colnames(x)
  x
}

# A sparse x as the core reads it: a dgCMatrix (compressed columns of doubles), all stored values finite.
check_sparse_x <- function(x) {
  x <- as_dgc(x)
  if (nrow(x) < 2L) abort("`x` must have at least 2 rows; it has ", nrow(x), ".")
  if (ncol(x) < 1L) abort("`x` must have at least 1 column.")
  check_colnames(x)
  bad <- which(!is.finite(x@x))
  if (length(bad)) {
    j <- findInterval(bad[1L] - 1L, x@p)
    nm <- if (is.null(colnames(x))) paste0("column ", j) else paste0("column '", colnames(x)[j], "'")
    abort("`x` (a sparse matrix) stores NA, NaN or Inf (first in ", nm,
          "); remove or impute those values first.")
  }
  x
}

# Any sparse matrix of the Matrix package as a dgCMatrix (general, double, compressed columns).
as_dgc <- function(x) {
  if (methods::is(x, "dgCMatrix")) return(x)
  methods::as(methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix"), "dMatrix")
}

# Column names of x, or V1..Vp. Kept apart from x so that x itself is never modified (no copy).
# Column names label the columns (and, without `group`, the groups) in fits, coefficients and the
# matching of newx: when x has them, each must be present and distinct. (Without names the columns are
# V1..Vp.)
check_colnames <- function(x) {
  nm <- colnames(x)
  if (is.null(nm)) return(invisible(x))
  missing <- which(is.na(nm) | !nzchar(nm))
  if (length(missing)) {
    abort("`x` has column(s) without a name (NA or \"\"): column(s) ", paste(utils::head(missing, 5L), collapse = ", "),
          if (length(missing) > 5L) ", ..." else "", ". Name every column, or remove the names with ",
          "colnames(x) <- NULL (the columns are then V1, V2, ...).")
  }
  dup <- unique(nm[duplicated(nm)])
  if (length(dup)) {
    abort("`x` has duplicated column names: ", paste(utils::head(dup, 5L), collapse = ", "),
          if (length(dup) > 5L) ", ..." else "", ". Give every column a distinct name, for example with ",
          "colnames(x) <- make.unique(colnames(x)); put columns in one group with `group`.")
  }
  invisible(x)
}

x_names <- function(x) {
  nm <- colnames(x)
  if (is.null(nm)) nm <- paste0("V", seq_len(ncol(x)))
  nm
}

# y: a numeric (or logical) vector with one finite value per row of x, not constant (its range at most
# 1e-12 of its largest magnitude: a relative rule, so that y in any unit is accepted). A chunk of rows
# (`constant_ok`) may be constant: the union of the chunks is checked (check_stats_response()).
check_y <- function(y, n, constant_ok = FALSE) {
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  if (is.logical(y)) y <- as.numeric(y)
  if (!is.numeric(y) || !is.null(dim(y))) {
    abort("`y` must be a numeric vector (or logical, read as 0/1) for the Gaussian family.")
  }
  if (length(y) != n) {
    abort("`y` must have one value per row of `x`: length(y) is ", length(y), ", nrow(x) is ", n, ".")
  }
  # min() and max() see NA, NaN and Inf without a copy of y (n may be large, and the clock of a fit runs)
  lo <- min(y)
  hi <- max(y)
  if (!is.finite(lo) || !is.finite(hi)) abort("`y` contains NA, NaN or Inf; remove those rows first.")
  y <- as.double(y)
  if (!constant_ok && hi - lo <= 1e-12 * max(-lo, hi)) {
    abort("`y` is constant; there is nothing to explain.")
  }
  y
}

# group: one label per column; returns the labels as character.
check_group <- function(group, x) {
  p <- ncol(x)
  if (is.null(group)) return(x_names(x))
  if (!is.atomic(group) || !is.null(dim(group))) {
    abort("`group` must be a vector of labels (integer, character or factor), one per column of `x`.")
  }
  if (length(group) != p) {
    abort("`group` must have one label per column of `x`: length(group) is ", length(group),
          ", ncol(x) is ", p, ".")
  }
  if (anyNA(group)) abort("`group` contains NA; give every column of `x` a group label.")
  named <- names(group)
  if (!is.null(named)) {
    # a named group is matched to the columns by name (as `cost` is matched to groups by name)
    cols <- x_names(x)
    if (anyNA(named) || !setequal(named, cols) || anyDuplicated(named)) {
      # only the problems there are: names not among the columns, columns without a name, names repeated
      list_of <- function(what, v) {
        if (length(v)) paste0(what, " ", paste(utils::head(v, 5L), collapse = ", "), if (length(v) > 5L) ", ...")
      }
      problems <- c(list_of("unknown", setdiff(named[!is.na(named)], cols)), if (anyNA(named)) "a name NA",
                    list_of("missing", setdiff(cols, named)), list_of("repeated", unique(named[duplicated(named)])))
      abort("`group` is named, but its names are not the column names of `x` (each once): ",
            paste(problems, collapse = "; "), ". Name `group` by column, or give it without names in the order of ",
            "the columns.")
    }
    group <- group[cols]
  }
  unname(as.character(group))
}

check_weights <- function(weights, n) {
  if (is.null(weights)) return(numeric(0))
  if (!is.numeric(weights) || !is.null(dim(weights))) abort("`weights` must be a numeric vector, one weight per row of `x`.")
  if (length(weights) != n) {
    abort("`weights` must have one value per row of `x`: length(weights) is ", length(weights), ", nrow(x) is ", n, ".")
  }
  if (anyNA(weights) || !all(is.finite(weights))) abort("`weights` contains NA, NaN or Inf.")
  if (any(weights < 0)) abort("`weights` must be non-negative.")
  if (sum(weights > 0) < 2L) abort("`weights` must be positive for at least 2 rows.")
  if (!is.finite(sum(weights))) {
    abort("`weights` sum to Inf; divide them by a constant (the fit depends only on their ratios).")
  }
  as.double(weights)
}

# offset: NULL, a vector of length n (one linear predictor), or an n x P matrix (multinomial, mgaussian).
check_offset <- function(offset, n, P, name = "offset") {
  if (is.null(offset)) return(NULL)
  if (is.data.frame(offset)) offset <- as.matrix(offset)
  if (!is.numeric(offset)) abort("`", name, "` must be numeric.")
  if (is.null(dim(offset))) {
    if (length(offset) != n) {
      abort("`", name, "` must have one value per row of `", if (name == "offset") "x" else "newx", "`: length is ",
            length(offset), ", expected ", n, ".")
    }
    offset <- matrix(offset, n, P)
  }
  if (nrow(offset) != n || ncol(offset) != P) {
    abort("`", name, "` must be a vector of length ", n, " or an ", n, " x ", P, " matrix.")
  }
  if (!all(is.finite(offset))) abort("`", name, "` contains NA, NaN or Inf.")
  storage.mode(offset) <- "double"
  offset
}

# The unit of costs: NULL or one string.
check_cost_unit <- function(cost_unit) {
  if (!is.null(cost_unit) && (!is.character(cost_unit) || length(cost_unit) != 1L || is.na(cost_unit))) {
    abort("`cost_unit` must be NULL or a single character string (for example \"CAD\" or \"seconds\").")
  }
  cost_unit
}

# Names of the columns of budgets, "budget=B": B as format() prints the vector, unless two distinct
# budgets print alike; then each budget to the fewest significant digits (up to 17, which tell any two
# doubles apart) that print distinct budgets apart, so that 1 and 1 + 1e-7 stay two columns.
budget_names <- function(budget) {
  label <- format(budget, trim = TRUE)
  digits <- 7L
  while (length(unique(label)) < length(unique(budget)) && digits < 17L) {
    digits <- digits + 1L
    label <- vapply(budget, format, character(1), digits = digits)
  }
  paste0("budget=", label)
}

# budget / step selectors of coef() and predict(): returns the step indices (0-based) to use.
# Steps are the rows of the fit's path (groups of a sequence, boosting iterations of a miser fit).
resolve_steps <- function(object, budget = NULL, step = NULL) {
  K <- nrow(object$path) - 1L
  if (!is.null(budget) && !is.null(step)) abort("give either `budget` or `step`, not both.")
  if (!is.null(budget)) {
    if (!is.numeric(budget) || anyNA(budget)) abort("`budget` must be numeric, without NA.")
    if (!length(budget)) abort("`budget` is empty: give at least one budget (in cost units), or use `step`.")
    if (any(budget < 0)) abort("`budget` must be non-negative (in cost units); got ",
                               paste(budget[budget < 0], collapse = ", "), ".")
    steps <- findInterval(budget, object$path$cost * (1 - 1e-12)) - 1L
    if (any(steps < 0L)) {
      abort("`budget` (", format(min(budget)), ") is below the cost of step 0 (", format(object$path$cost[1L]),
            ": the measurements of the offset, ", paste(object$offset_needs, collapse = ", "),
            ", which every prediction needs); give a budget of at least that.")
    }
    names(steps) <- budget_names(budget)
    return(steps)
  }
  if (is.null(step)) step <- 0:K
  if (is.numeric(step) && !length(step)) abort("`step` is empty: give at least one step (0..", K, "), or NULL for every step.")
  if (!is.numeric(step) || anyNA(step) || any(step != round(step)) || any(step < 0) || any(step > K)) {
    abort("`step` must be whole numbers between 0 and ", K, " (the number of steps in the sequence).")
  }
  steps <- as.integer(step)
  names(steps) <- paste0("step", steps)
  steps
}

# newx for predict(): a numeric matrix, or a sparse matrix (as a dgCMatrix), with the training columns
# (matched by name when named) and finite values.
# With keep_na = TRUE the values are not read here: NA and NaN (values not computed) pass, and the
# prediction checks for Inf (and, with missing = "error", for NA too: predict_request()).
check_newx <- function(newx, object, keep_na = FALSE) {
  sparse <- methods::is(newx, "sparseMatrix")
  if (sparse) {
    newx <- as_dgc(newx)
  } else {
    if (is.data.frame(newx)) newx <- as.matrix(newx)
    if (is.null(dim(newx)) && is.numeric(newx) && length(newx) == length(object$group)) {
      newx <- matrix(newx, nrow = 1L, dimnames = list(NULL, names(object$group)))
    }
    if (!is.matrix(newx) || !(is.numeric(newx) || is.logical(newx))) {
      abort("`newx` must be a numeric matrix with the ", length(object$group), " columns of the training x.")
    }
  }
  p <- length(object$group)
  if (!nrow(newx)) abort("`newx` has no rows: give at least one row to predict.")
  if (ncol(newx) != p) {
    abort("`newx` must have ", p, " columns, as the training x; it has ", ncol(newx), ".")
  }
  train <- names(object$group)
  if (!is.null(colnames(newx)) && !identical(colnames(newx), train)) {
    if (!setequal(colnames(newx), train) || anyDuplicated(colnames(newx))) {
      abort("`newx` column names do not match the training x: unknown ",
            paste(setdiff(colnames(newx), train), collapse = ", "), "; missing ",
            paste(setdiff(train, colnames(newx)), collapse = ", "), ".")
    }
    newx <- newx[, train, drop = FALSE]
  }
  if (!sparse && storage.mode(newx) != "double") storage.mode(newx) <- "double"
  # counted by the core, without an n x p logical copy of newx
  if (!keep_na && .count_nonfinite(newx, seq_len(p)) > 0) abort_nonfinite_newx()
  newx
}

# The error of a newx (or newdata's model matrix, `arg`) holding NA, NaN or Inf where missing = "error"
# refuses them.
abort_nonfinite_newx <- function(arg = "newx") {
  abort("`", arg, "` contains NA, NaN or Inf; remove or impute those values first, or predict rows with NA by ",
        "missing = \"prefix\".", class = "na")
}
