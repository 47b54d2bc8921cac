# Every check of user input, in one place. Each helper either returns the cleaned value or stops with
# a message that names the argument and says what to do. Nothing is computed before all checks pass,
# so a failed call leaves nothing half-done.

# x: a numeric matrix (or an all-numeric data frame), stored as double; with `sparse = TRUE` also a
# sparse matrix of the Matrix package, returned as a dgCMatrix (never densified).
check_x <- function(x, sparse = FALSE, min_rows = 2L) {
  if (methods::is(x, "sparseMatrix")) {
    if (!sparse) {
      abort("`x` is a sparse matrix; this function needs a dense numeric matrix: use as.matrix(x), ",
            "or fgseq(), which takes sparse matrices.")
    }
    return(check_sparse_x(x))
  }
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
  bad <- .first_nonfinite_column(x)
  if (bad > 0L) {
    nm <- if (is.null(colnames(x))) paste0("column ", bad) else paste0("column '", colnames(x)[bad], "'")
    abort("`x` contains NA, NaN or Inf (first in ", nm, "); remove or impute those values first.")
  }
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
  if (!all(is.finite(y))) abort("`y` contains NA, NaN or Inf; remove those rows first.")
  y <- as.double(y)
  if (!constant_ok && max(y) - min(y) <= 1e-12 * max(abs(y))) {
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
  if (!is.null(names(cost)) && !all(nzchar(names(cost)) & !is.na(names(cost)))) {
    abort("`cost` has names for some values and not for others; name every cost by its group label, ",
          "or give no names and one cost per group in the order of the groups.")
  }
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
  if (!is.finite(sum(cost))) {
    abort("`cost` sums to Inf (", format(sum(cost)), " overflows); give costs in a unit where their total is ",
          "finite, for example divided by ", format(max(cost)), ".")
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
      warn("constant column(s) in `x` keep coefficient 0: ", paste(cols, collapse = ", "), ".",
           class = "constant")
    }
    if (length(dead) == length(labels)) {
      abort("`x` has only constant columns; every group is constant and none can be sequenced.")
    }
    if (length(dead)) {
      warn("group(s) with only constant columns are left out of the sequence: ",
           paste(dead, collapse = ", "), ".", class = "constant_group")
    }
  }
  invisible(NULL)
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

# newx for predict(): a numeric matrix, or a sparse matrix (as a dgCMatrix), with the training columns
# (matched by name when named) and finite values.
# With keep_na = TRUE, NA and NaN (values not computed) pass; the prediction checks for Inf.
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
  if (!keep_na && !all(is.finite(if (sparse) newx@x else newx))) {
    abort("`newx` contains NA, NaN or Inf; remove or impute those values first, or predict rows with NA by ",
          "missing = \"prefix\".", class = "na")
  }
  if (!sparse && storage.mode(newx) != "double") storage.mode(newx) <- "double"
  newx
}

check_alpha <- function(alpha) {
  if (!is.numeric(alpha) || length(alpha) != 1L || is.na(alpha) || alpha <= 0 || alpha > 1) {
    abort("`alpha` must be a single number in (0, 1].")
  }
  alpha
}

# --- Test-time metrics, curve comparison, cross-validation ---------------------------------------------

# The metrics of anytime_curve(); "mse" and "logloss" are losses (smaller is better).
metric_names <- c("r2", "mse", "accuracy", "ndcg", "logloss", "auc")

check_metric <- function(metric) {
  if (!is.character(metric) || length(metric) != 1L || is.na(metric) || !(metric %in% metric_names)) {
    abort("`metric` must be one of ", paste0("\"", metric_names, "\"", collapse = ", "), ".")
  }
  metric
}

# What a response must look like for a metric (and the fit's family):
# "numeric" (r2, mse of a Gaussian fit), "matrix" (r2, mse of a mgaussian fit), "binary" (0/1), "class" (0/1 or a factor), "grade"
# (relevance grades for NDCG), "count" (Poisson deviance), "factor" (multinomial deviance).
newy_kind <- function(metric, family = NULL) {
  switch(metric,
    r2 = family_def(family)$newy[["r2"]],
    mse = family_def(family)$newy[["mse"]],
    accuracy = "class", ndcg = "grade", logloss = "binary", auc = "binary")
}

# newy for a test curve: cleaned to what the metric computes with (a double vector, or a factor for
# class responses with more than two levels).
check_newy <- function(newy, n, metric, family = NULL, classes = NULL) {
  kind <- newy_kind(metric, family)
  if (kind == "matrix") {
    if (is.data.frame(newy)) newy <- as.matrix(newy)
    if (!is.matrix(newy) || !is.numeric(newy) || nrow(newy) != n) {
      abort("`newy` must be a numeric matrix with one row per row of `newx` (", n, ") for a mgaussian fit.")
    }
    if (!all(is.finite(newy))) abort("`newy` contains NA, NaN or Inf.")
    storage.mode(newy) <- "double"
    return(newy)
  }
  if (is.matrix(newy) && ncol(newy) == 1L) newy <- newy[, 1L]
  if (kind == "numeric") {
    if (is.factor(newy) && nlevels(newy) == 2L) newy <- as.numeric(newy == levels(newy)[2L])
    if (is.logical(newy)) newy <- as.numeric(newy)
    if (!is.numeric(newy) || !is.null(dim(newy)) || length(newy) != n) {
      abort("`newy` must be a numeric vector with one value per row of `newx` (", n, ").")
    }
    if (!all(is.finite(newy))) abort("`newy` contains NA, NaN or Inf.")
    return(as.double(newy))
  }
  if (!is.atomic(newy) || !is.null(dim(newy)) || length(newy) != n) {
    abort("`newy` must have one value per row of `newx` (", n, "); it has ", NROW(newy), ".")
  }
  if (anyNA(newy) || (is.numeric(newy) && !all(is.finite(newy)))) abort("`newy` contains NA, NaN or Inf.")
  if (is.factor(newy) && !is.null(classes)) newy <- check_classes(newy, classes)
  if (kind %in% c("binary", "class")) {
    if (is.factor(newy) && nlevels(newy) == 2L) return(as.numeric(newy == levels(newy)[2L]))
    if (is.logical(newy)) return(as.numeric(newy))
    if (is.numeric(newy) && all(newy == 0 | newy == 1)) return(as.double(newy))
    if (kind == "class" && is.factor(newy)) return(newy)
    abort("`newy` must be 0/1, logical or a ", if (kind == "binary") "two-level " else "", "factor for ",
          "metric \"", metric, "\".")
  }
  if (kind == "grade") {
    if (is.logical(newy)) newy <- as.numeric(newy)
    if (!is.numeric(newy) || any(newy < 0)) {
      abort("`newy` must hold non-negative relevance grades for metric \"ndcg\".")
    }
    return(as.double(newy))
  }
  if (kind == "count") {
    if (!is.numeric(newy) || any(newy < 0)) abort("`newy` must hold non-negative counts for a poisson fit.")
    return(as.double(newy))
  }
  # factor: multinomial
  if (!is.factor(newy)) abort("`newy` must be a factor of the classes for a multinomial fit.")
  newy
}

# A factor response of a classification fit, relevelled to the fit's classes (in the fit's order).
check_classes <- function(newy, classes) {
  unknown <- setdiff(unique(as.character(newy)), classes)
  if (length(unknown)) {
    abort("`newy` has classes the fit was not trained on: ", paste(unknown, collapse = ", "),
          "; the fit's classes are ", paste(classes, collapse = ", "), ".")
  }
  factor(as.character(newy), levels = classes)
}

# query ids for NDCG: one per row, no NA, every query with at least two documents.
check_query <- function(query, n) {
  if (is.null(query)) abort("metric \"ndcg\" needs `query`, one query id per row of `newx`.")
  if (!is.atomic(query) || !is.null(dim(query)) || length(query) != n || anyNA(query)) {
    abort("`query` must have one id per row of `newx` (", n, "), without NA.")
  }
  sizes <- table(query)
  single <- names(sizes)[sizes < 2L]
  if (length(single)) {
    abort("`query` has ", length(single), " quer", if (length(single) == 1L) "y" else "ies",
          " with a single document (", paste(utils::head(single, 5L), collapse = ", "),
          if (length(single) > 5L) ", ..." else "", "); NDCG needs at least 2 documents per query: ",
          "drop those rows.")
  }
  query
}

check_k <- function(k) {
  if (!is.numeric(k) || length(k) != 1L || is.na(k) || !is.finite(k) || k < 1 || k != round(k)) {
    abort("`k` must be a single whole number >= 1 (the depth of NDCG@k).")
  }
  as.integer(k)
}

# At least one query must have a document of positive relevance, or NDCG is undefined.
check_ndcg_relevance <- function(rel, query) {
  if (!any(tapply(rel, query, max) > 0)) {
    abort("metric \"ndcg\" needs a query with a document of positive relevance in `newy`; all grades are 0.")
  }
  invisible(rel)
}

check_two_classes <- function(y, metric) {
  if (length(unique(y)) < 2L) abort("metric \"", metric, "\" needs both classes in `newy`; it has only one.")
  invisible(y)
}

check_oracle_source <- function(object) {
  if (!inherits(object, "fgseq")) {
    abort("`object` must be a fitted sequence (class \"fgseq\"), as returned by fgseq() or ",
          "sparse_sequence().")
  }
  object
}

# fits for compare_sequences(): a non-empty list of anytime fits ("fgseq", "miser") or "fgseq_oracle"
# objects; named by method.
check_fits <- function(fits, label) {
  ok_one <- function(f) inherits(f, "anytime_fit") || inherits(f, "fgseq_oracle")
  if (!is.list(fits) || ok_one(fits) || !length(fits) || !all(vapply(fits, ok_one, logical(1)))) {
    abort("`fits` must be a non-empty list of fitted sequences (objects of class \"fgseq\", \"miser\" or ",
          "\"fgseq_oracle\"), as in list(omp = fit1, fr = fit2).")
  }
  nm <- names(fits)
  if (is.null(nm)) nm <- rep("", length(fits))
  nm[!nzchar(nm)] <- vapply(fits[!nzchar(nm)], label, character(1))
  names(fits) <- make.unique(nm, sep = " #")
  fits
}

# Curves are only comparable on the same data: same number of observations and the same response
# (fingerprint: nobs, the training mean of the response on the response scale, i.e. the step-0
# prediction, and, between fits of the same family, R(empty): the variance / 2 for Gaussian fits).
check_same_data <- function(fits) {
  src <- lapply(fits, function(f) if (inherits(f, "fgseq_oracle")) f$fit else f)
  same <- function(a, b) {
    is.null(a) || is.null(b) || (length(a) == length(b) && all(abs(a - b) <= 1e-8 * pmax(abs(a), abs(b), 1e-300)))
  }
  family <- function(f) family_def(f$family)$name
  ref <- src[[1L]]
  for (i in seq_along(src)[-1L]) {
    f <- src[[i]]
    why <- if (!identical(as.numeric(f$nobs), as.numeric(ref$nobs))) {
      paste0("it has ", f$nobs, " observations, the first has ", ref$nobs)
    } else if (!same(response_mean(f), response_mean(ref)) ||
               (family(f) == family(ref) && !same(f$null_risk, ref$null_risk))) {
      "its response has another mean or variance than the first's"
    }
    if (!is.null(why)) {
      abort("all `fits` must be trained on the same data (same rows and response): fit ", i, " (",
            names(fits)[i], ") differs from fit 1 (", names(fits)[1L], "): ", why, ".")
    }
  }
  invisible(fits)
}

# The training mean of the response of a fit, on the response scale (the step-0 prediction; class
# frequencies for multinomial fits); NULL when an offset makes it unknown.
response_mean <- function(f) {
  if (!is.null(f$y_mean)) return(unname(f$y_mean))
  if (isTRUE(f$has_offset)) return(NULL)
  a <- if (is.matrix(f$a0)) f$a0[, 1L] else f$a0[1L]
  as.double(family_def(f$family)$inverse(matrix(unname(a), 1L)))
}

# A stopping cost below the first group of every sequence leaves only intercept-only models to compare.
# (The first positive cumulative cost: the first steps of a boosted fit may use no feature.)
check_stop_cost_reach <- function(stop_cost, fits) {
  first <- vapply(fits, function(f) {
    paid <- f$path$cost[f$path$cost > 0]
    if (length(paid)) paid[1L] else Inf
  }, numeric(1))
  if (stop_cost < min(first) * (1 - 1e-12)) {
    abort("`stop_cost` (", format(stop_cost), ") is below the cost of the first group of every sequence ",
          "(the cheapest first group costs ", format(min(first)), "): no sequence has computed a group by ",
          "then. Give a larger `stop_cost`.")
  }
  stop_cost
}

# Cross-validation inputs.
check_lambda_grid <- function(lambda) {
  if (!is.numeric(lambda) || !length(lambda) || !all(is.finite(lambda)) || any(lambda < 0)) {
    abort("`lambda` must be a vector of non-negative, finite ridge constants.")
  }
  as.double(lambda)
}

check_nfolds <- function(nfolds, n, unit = "rows") {
  if (!is.numeric(nfolds) || length(nfolds) != 1L || is.na(nfolds) || nfolds != round(nfolds) ||
      nfolds < 2 || nfolds > n) {
    abort("`nfolds` must be a whole number between 2 and ", n, " (the number of ", unit, ").")
  }
  as.integer(nfolds)
}

# foldid: one fold label per row, at least two folds; returned as 1..F.
check_foldid <- function(foldid, n) {
  if (!is.atomic(foldid) || !is.null(dim(foldid)) || length(foldid) != n || anyNA(foldid) ||
      length(unique(foldid)) < 2L) {
    abort("`foldid` must give one fold label per row of `x` (", n, "), without NA, with at least 2 folds.")
  }
  match(foldid, sort(unique(foldid)))
}

check_seed <- function(seed) {
  if (!is.null(seed) && (!is.numeric(seed) || length(seed) != 1L || !is.finite(seed))) {
    abort("`seed` must be NULL or a single finite number.")
  }
  seed
}

check_nlambda <- function(nlambda) {
  if (!is.numeric(nlambda) || length(nlambda) != 1L || is.na(nlambda) || !is.finite(nlambda) ||
      nlambda < 2 || nlambda != round(nlambda)) {
    abort("`nlambda` must be a single whole number >= 2 (the number of lambda values).")
  }
  as.integer(nlambda)
}

# The unit of costs: NULL or one string.
check_cost_unit <- function(cost_unit) {
  if (!is.null(cost_unit) && (!is.character(cost_unit) || length(cost_unit) != 1L || is.na(cost_unit))) {
    abort("`cost_unit` must be NULL or a single character string (for example \"CAD\" or \"seconds\").")
  }
  cost_unit
}

check_lambda_min_ratio <- function(ratio) {
  if (!is.numeric(ratio) || length(ratio) != 1L || is.na(ratio) || !(ratio > 0 && ratio < 1)) {
    abort("`lambda_min_ratio` must be a single number in (0, 1) (the end of the group lasso path as a ",
          "fraction of lambda_max).")
  }
  as.double(ratio)
}

# A given sequence of group labels (distinct, existing); returns 1-based indices into `labels`.
check_order <- function(order, labels) {
  idx <- match(as.character(order), labels)
  if (anyNA(idx) || anyDuplicated(idx)) {
    abort("`sequence` must name distinct groups of `group`; unknown or repeated: ",
          paste(unique(as.character(order)[is.na(idx) | duplicated(idx)]), collapse = ", "), ".")
  }
  idx
}

# --- The Greedy Miser ------------------------------------------------------------------------------------

# cost of miser(): required, one positive finite number per group (as check_cost(), but never implied),
# or with `needs` one per measurement. Returns the measurements (group_measurements()).
check_miser_cost <- function(cost, labels, missing = FALSE, needs = NULL) {
  if (missing || is.null(cost)) {
    abort("`cost` is missing: give one positive cost per group (", length(labels), " groups), named by group ",
          "label or in the order of the groups, in the units budgets will be given in.")
  }
  group_measurements(cost, needs, labels)
}

# A single whole number in [lower, upper] (at most the largest integer R holds, as it is returned as one).
check_whole <- function(value, name, lower = 1, upper = .Machine$integer.max, what = NULL) {
  ok <- is.numeric(value) && length(value) == 1L && !is.na(value) && is.finite(value) && value == round(value) &&
    value >= lower && value <= upper
  if (!ok) {
    if (is.numeric(value) && length(value) == 1L && isTRUE(value > upper) && upper == .Machine$integer.max) {
      abort("`", name, "` (", format(value), ") is larger than ", upper, ", the largest whole number R holds ",
            "as an integer", if (!is.null(what)) paste0(" (", what, ")"), ".")
    }
    range <- if (is.finite(upper) && upper < .Machine$integer.max) paste0("between ", lower, " and ", upper) else
      paste0(">= ", lower)
    abort("`", name, "` must be a single whole number ", range, if (!is.null(what)) paste0(" (", what, ")"), ".")
  }
  as.integer(value)
}

check_eta <- function(eta) {
  if (!is.numeric(eta) || length(eta) != 1L || is.na(eta) || !(eta > 0 && eta <= 1)) {
    abort("`eta` must be a single number in (0, 1] (the shrinkage applied to each tree).")
  }
  as.double(eta)
}

# One of `choices`; the whole default vector means its first element.
check_choice <- function(value, choices, name) {
  if (identical(value, choices)) return(choices[1L])
  if (!is.character(value) || length(value) != 1L || is.na(value) || !(value %in% choices)) {
    abort("`", name, "` must be one of ", paste0("\"", choices, "\"", collapse = ", "), ".")
  }
  value
}

# A grid of miser trade-off constants: non-negative, finite, distinct.
check_miser_lambdas <- function(lambda) {
  if (!is.numeric(lambda) || !length(lambda) || !all(is.finite(lambda)) || any(lambda < 0) ||
      anyDuplicated(lambda)) {
    abort("`lambda` must be a vector of distinct, non-negative, finite cost trade-off constants.")
  }
  as.double(lambda)
}

# Validation data of miser_path(): a numeric matrix with the columns of x (checked again by predict())
# and one response per row.
check_validation_x <- function(newx, newy, p) {
  if (is.null(newx)) {
    abort("miser_path() needs validation data: give `newx` and `newy` (or `newdata` with a formula), on ",
          "which the best iteration of each lambda is chosen.")
  }
  if (is.data.frame(newx)) newx <- as.matrix(newx)
  if (!is.matrix(newx) || !(is.numeric(newx) || is.logical(newx)) || ncol(newx) != p) {
    abort("`newx` must be a numeric matrix with the ", p, " columns of `x`.")
  }
  if (!all(is.finite(newx))) abort("`newx` contains NA, NaN or Inf; remove or impute those values first.")
  if (is.null(newy)) abort("give `newy` with `newx`: one validation response per row of `newx`.")
  if (NROW(newy) != nrow(newx)) {
    abort("`newy` must have one value per row of `newx` (", nrow(newx), "); it has ", NROW(newy), ".")
  }
  invisible(newx)
}
