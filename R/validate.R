# Every check of user input, in one place. Each helper either returns the cleaned value or stops with
# a message that names the argument and says what to do. Nothing is computed before all checks pass,
# so a failed call leaves nothing half-done.

abort <- function(...) stop(paste0(...), call. = FALSE)

# x: a numeric matrix (or an all-numeric data frame), stored as double.
check_x <- function(x) {
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
  if (nrow(x) < 2L) abort("`x` must have at least 2 rows; it has ", nrow(x), ".")
  if (ncol(x) < 1L) abort("`x` must have at least 1 column.")
  bad <- .first_nonfinite_column(x)
  if (bad > 0L) {
    nm <- if (is.null(colnames(x))) paste0("column ", bad) else paste0("column '", colnames(x)[bad], "'")
    abort("`x` contains NA, NaN or Inf (first in ", nm, "); remove or impute those values first.")
  }
  x
}

# Column names of x, or V1..Vp. Kept apart from x so that x itself is never modified (no copy).
x_names <- function(x) {
  nm <- colnames(x)
  if (is.null(nm)) nm <- paste0("V", seq_len(ncol(x)))
  nm
}

# y: a numeric (or logical) vector with one finite value per row of x, not constant.
check_y <- function(y, n) {
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  if (is.logical(y)) y <- as.numeric(y)
  if (!is.numeric(y) || !is.null(dim(y))) {
    abort("`y` must be a numeric vector (or logical, read as 0/1) for the Gaussian family.")
  }
  if (length(y) != n) {
    abort("`y` must have one value per row of `x`: length(y) is ", length(y), ", nrow(x) is ", n, ".")
  }
  if (!all(is.finite(y))) abort("`y` contains NA, NaN or Inf; remove those rows first.")
  y <- as.double(y)
  if (max(y) - min(y) <= 1e-12 * max(1, abs(mean(y)))) {
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
  as.character(group)
}

# cost: NULL (all 1), or one positive finite number per group, named by group label
# (unnamed: in the order of unique(group)). Returns a named numeric in unique(group) order.
check_cost <- function(cost, labels) {
  if (is.null(cost)) return(stats::setNames(rep(1, length(labels)), labels))
  if (is.list(cost)) cost <- unlist(cost)
  if (!is.numeric(cost)) abort("`cost` must be a numeric vector, one cost per group.")
  if (is.null(names(cost))) {
    if (length(cost) != length(labels)) {
      abort("`cost` must have one value per group (", length(labels), " groups), or be named by group ",
            "label; it has ", length(cost), " unnamed values.")
    }
    names(cost) <- labels
  } else {
    unknown <- setdiff(names(cost), labels)
    if (length(unknown)) {
      abort("`cost` is named for groups that do not exist: ", paste(unknown, collapse = ", "),
            ". The groups are: ", paste(labels, collapse = ", "), ".")
    }
    if (anyDuplicated(names(cost))) {
      abort("`cost` names a group more than once: ",
            paste(unique(names(cost)[duplicated(names(cost))]), collapse = ", "), ".")
    }
    missing <- setdiff(labels, names(cost))
    if (length(missing)) {
      abort("`cost` is missing for group(s): ", paste(missing, collapse = ", "),
            "; give one cost per group.")
    }
    cost <- cost[labels]
  }
  if (!all(is.finite(cost))) {
    abort("`cost` must be finite; group(s) ", paste(names(cost)[!is.finite(cost)], collapse = ", "),
          " have NA, NaN or Inf.")
  }
  if (any(cost <= 0)) {
    abort("`cost` must be positive; group(s) ", paste(names(cost)[cost <= 0], collapse = ", "),
          " have cost <= 0.")
  }
  stats::setNames(as.double(cost), labels)
}

check_number <- function(value, name, lower = -Inf, lower_open = FALSE, allow_inf = FALSE) {
  ok <- is.numeric(value) && length(value) == 1L && !is.na(value) && (allow_inf || is.finite(value)) &&
    (if (lower_open) value > lower else value >= lower)
  if (!ok) {
    bound <- if (lower_open) paste0("> ", lower) else paste0(">= ", lower)
    abort("`", name, "` must be a single ", if (allow_inf) "" else "finite ", "number ", bound, ".")
  }
  as.double(value)
}

check_lambda <- function(lambda) check_number(lambda, "lambda", lower = 0)

check_max_steps <- function(max_steps) {
  max_steps <- check_number(max_steps, "max_steps", lower = 1, allow_inf = TRUE)
  if (is.finite(max_steps) && max_steps != round(max_steps)) {
    abort("`max_steps` must be a whole number of steps (or Inf).")
  }
  max_steps
}

check_flag <- function(value, name) {
  if (!is.logical(value) || length(value) != 1L || is.na(value)) {
    abort("`", name, "` must be TRUE or FALSE.")
  }
  value
}

# Warn about constant columns and groups; stop when no group is left.
report_constant <- function(constant, group, labels) {
  if (any(constant)) {
    dead <- labels[vapply(labels, function(g) all(constant[group == g]), logical(1))]
    cols <- names(constant)[constant & !(group %in% dead)]
    if (length(cols)) {
      warning("constant column(s) in `x` keep coefficient 0: ", paste(cols, collapse = ", "), ".",
              call. = FALSE)
    }
    if (length(dead) == length(labels)) {
      abort("`x` has only constant columns; every group is constant and none can be sequenced.")
    }
    if (length(dead)) {
      warning("group(s) with only constant columns are left out of the sequence: ",
              paste(dead, collapse = ", "), ".", call. = FALSE)
    }
  }
  invisible(NULL)
}

# budget / step selectors of coef() and predict(): returns the step indices (0-based) to use.
resolve_steps <- function(object, budget = NULL, step = NULL) {
  K <- length(object$sequence)
  if (!is.null(budget) && !is.null(step)) abort("give either `budget` or `step`, not both.")
  if (!is.null(budget)) {
    if (!is.numeric(budget) || anyNA(budget)) abort("`budget` must be numeric, without NA.")
    if (any(budget < 0)) abort("`budget` must be non-negative (in cost units); got ",
                               paste(budget[budget < 0], collapse = ", "), ".")
    steps <- findInterval(budget, object$path$cost * (1 - 1e-12)) - 1L
    names(steps) <- paste0("budget=", format(budget, trim = TRUE))
    return(steps)
  }
  if (is.null(step)) step <- 0:K
  if (!is.numeric(step) || anyNA(step) || any(step != round(step)) || any(step < 0) || any(step > K)) {
    abort("`step` must be whole numbers between 0 and ", K, " (the number of steps in the sequence).")
  }
  steps <- as.integer(step)
  names(steps) <- paste0("step", steps)
  steps
}

# newx for predict(): a numeric matrix with the training columns (matched by name when named).
check_newx <- function(newx, object) {
  if (is.data.frame(newx)) newx <- as.matrix(newx)
  if (is.null(dim(newx)) && is.numeric(newx) && length(newx) == length(object$group)) {
    newx <- matrix(newx, nrow = 1L, dimnames = list(NULL, names(object$group)))
  }
  if (!is.matrix(newx) || !(is.numeric(newx) || is.logical(newx))) {
    abort("`newx` must be a numeric matrix with the ", length(object$group), " columns of the training x.")
  }
  p <- length(object$group)
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
  if (storage.mode(newx) != "double") storage.mode(newx) <- "double"
  newx
}

check_alpha <- function(alpha) {
  if (!is.numeric(alpha) || length(alpha) != 1L || is.na(alpha) || alpha <= 0 || alpha > 1) {
    abort("`alpha` must be a single number in (0, 1].")
  }
  alpha
}
