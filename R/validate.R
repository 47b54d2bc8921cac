# Validators: one per object class the package makes and takes back (an "fgseq" fit, a "miser" fit, a
# "cv_fgseq" object, "fgseq_stats" statistics, a chunk of rows). Objects travel: they are saved, read
# back, edited and shipped, so every method where one enters (predict(), coef(), summary(), print(),
# plot(), write_predictor(), timeliness(), fgseq(<statistics>), ...) checks it here first, field by
# field: type, dimensions, names, finiteness, ranges and agreement between fields. A failure is an
# error of class "fgseq_error_invalid_object" that names the argument and the field and says what to
# do; an object made by the package always passes. (The core checks again the sizes it indexes.)

# Stop: `arg` is not a valid `what` object, its `field` `problem`.
invalid_object <- function(arg, what, field, problem, remedy) {
  abort("`", arg, "` is not a valid \"", what, "\" object: ", field, " ", problem, ". ", remedy,
        class = "invalid_object")
}

# Whether v is a numeric vector (no dim) of length n (any length when n is NULL) with finite values.
finite_vector <- function(v, n = NULL) {
  is.numeric(v) && is.null(dim(v)) && (is.null(n) || length(v) == n) && all(is.finite(v))
}

# Whether a and b agree to a relative `tol` of their scale (for costs summed in another order).
near <- function(a, b, tol = 1e-8) {
  length(a) == length(b) && all(abs(a - b) <= tol * pmax(1, abs(a), abs(b)))
}

is_string <- function(v) is.character(v) && length(v) == 1L && !is.na(v)

# An anytime fit entering a method: each learner its validator (validate_fgseq(), validate_miser()); a
# learner without one, the fields of the anytime_fit contract.
validate_fit <- function(object, arg = "object") UseMethod("validate_fit")

#' @export
validate_fit.fgseq <- function(object, arg = "object") validate_fgseq(object, arg)

#' @export
validate_fit.miser <- function(object, arg = "object") validate_miser(object, arg)

# A learner without a validator of its own: the fields of the anytime_fit contract.
#' @export
validate_fit.anytime_fit <- function(object, arg = "object") {
  validate_anytime_fields(object, arg, class(object)[1L],
                          "Refit it; a file holding the fit may be damaged or the fit edited.")
  invisible(object)
}

#' @export
validate_fit.default <- function(object, arg = "object") {
  abort("`", arg, "` must be a fitted anytime predictor: an \"fgseq\" fit (fgseq()) or a \"miser\" fit ",
        "(miser()).")
}

# The fields of the anytime_fit contract (R/anytime_fit.R) shared by both classes: groups, costs and
# measurements, the family and its responses, the path and the sequence. `what` is the class, `remedy`
# what to do. Returns the labels of the groups (in the order of `cost`).
validate_anytime_fields <- function(object, arg, what, remedy) {
  bad <- function(field, problem) invalid_object(arg, what, field, problem, remedy)
  if (!is.list(object)) bad("the object", "is not a list")
  missing <- setdiff(anytime_fields, names(object))
  if (length(missing)) bad(paste0("field(s) `", paste(missing, collapse = "`, `"), "`"), "are missing")
  if (!is_string(object$family) || is.null(fgseq_families[[object$family]])) {
    bad("`family`", paste0("is not one of ", paste(names(fgseq_families), collapse = ", ")))
  }
  g <- object$group
  if (!is.character(g) || !is.null(dim(g)) || length(g) < 1L || anyNA(g) || !all(nzchar(g))) {
    bad("`group`", "is not a character vector of group labels, one per column, without NA")
  }
  cols <- names(g)
  if (is.null(cols) || anyNA(cols) || !all(nzchar(cols)) || anyDuplicated(cols)) {
    bad("`group`", "is not named by the distinct column names of x")
  }
  labels <- unique(g)
  cost <- object$cost
  if (!finite_vector(cost, length(labels)) || !identical(names(cost), labels)) {
    bad("`cost`", paste0("is not one finite cost per group, named by the groups in the order of `group` (",
                         paste(utils::head(labels, 6L), collapse = ", "), if (length(labels) > 6L) ", ...", ")"))
  }
  if (any(cost < 0)) bad("`cost`", "has a negative cost")
  mc <- object$measurement_cost
  if (!finite_vector(mc) || !length(mc) || is.null(names(mc)) || anyNA(names(mc)) || anyDuplicated(names(mc)) ||
      any(mc < 0)) {
    bad("`measurement_cost`", "is not a finite cost >= 0 per measurement, named by distinct measurements")
  }
  if (!is.finite(sum(mc))) bad("`measurement_cost`", "sums to Inf (the total overflows)")
  needs <- object$needs
  if (!is.list(needs) || !identical(names(needs), labels) ||
      !all(vapply(needs, function(m) is.character(m) && length(m) >= 1L && !anyNA(m), logical(1)))) {
    bad("`needs`", "is not a list naming, for every group in order, the measurements it needs")
  }
  unknown <- setdiff(unlist(needs, use.names = FALSE), names(mc))
  if (length(unknown)) bad("`needs`", paste0("names measurement(s) without a cost: ", paste(unknown, collapse = ", ")))
  if (!near(unname(cost), unname(group_costs(needs, mc)))) {
    bad("`cost`", "differs from the total cost of each group's measurements (`needs`, `measurement_cost`)")
  }
  P <- if (family_def(object$family)$multi) length(object$responses) else 1L
  if (!is.character(object$responses) || anyNA(object$responses) || length(object$responses) < 1L ||
      (!family_def(object$family)$multi && length(object$responses) != 1L)) {
    bad("`responses`", "is not the names of the response columns")
  }
  classes <- object$classes
  kind <- family_def(object$family)$classes
  if (kind != "none") {
    if (!is.character(classes) || anyNA(classes) || length(classes) < 2L || anyDuplicated(classes) ||
        (kind == "two" && length(classes) != 2L) || (kind == "each" && !identical(classes, object$responses))) {
      bad("`classes`", "is not the distinct class labels of the family")
    }
  } else if (!is.null(classes)) {
    bad("`classes`", paste0("is given for a ", object$family, " fit, which has no classes"))
  }
  if (!is.numeric(object$nobs) || length(object$nobs) != 1L || !is.finite(object$nobs) || object$nobs < 1 ||
      object$nobs != round(object$nobs)) {
    bad("`nobs`", "is not a whole number >= 1")
  }
  if (!is.numeric(object$null_risk) || length(object$null_risk) != 1L || is.na(object$null_risk)) {
    bad("`null_risk`", "is not a number")
  }
  seq <- object$sequence
  if (!is.character(seq) || anyNA(seq) || anyDuplicated(seq) || !all(seq %in% labels)) {
    bad("`sequence`", "is not distinct labels of the fit's groups")
  }
  path <- object$path
  if (!is.data.frame(path) || !all(path_columns %in% names(path)) || nrow(path) < 1L) {
    bad("`path`", paste0("is not a data frame with columns ", paste(path_columns, collapse = ", ")))
  }
  K <- nrow(path) - 1L
  if (!is.numeric(path$step) || !identical(as.integer(path$step), 0:K) || any(path$step != 0:K)) {
    bad("`path$step`", "does not number the steps 0, 1, ..., K")
  }
  for (col in c("group_cost", "cost")) {
    v <- path[[col]]
    if (!is.numeric(v) || !all(is.finite(v)) || any(v < 0)) bad(paste0("`path$", col, "`"), "is not finite costs >= 0")
  }
  if (!near(path$cost, cumsum(path$group_cost))) bad("`path$cost`", "is not the cumulative sum of `path$group_cost`")
  for (col in c("objective", "r2")) {
    if (!is.numeric(path[[col]]) || anyNA(path[[col]])) bad(paste0("`path$", col, "`"), "is not numbers without NA")
  }
  if (!is.null(object$has_offset) && !(is.logical(object$has_offset) && length(object$has_offset) == 1L &&
                                       !is.na(object$has_offset))) {
    bad("`has_offset`", "is not TRUE or FALSE")
  }
  if (!is.null(object$partial) && !(is.logical(object$partial) && length(object$partial) == 1L && !is.na(object$partial))) {
    bad("`partial`", "is not TRUE or FALSE")
  }
  if (!is.null(object$cost_unit) && !is_string(object$cost_unit)) bad("`cost_unit`", "is not a single string")
  if (!is.null(object$label) && !is_string(object$label)) bad("`label`", "is not a single string")
  if (!is.null(object[["x"]])) {
    x <- object[["x"]]
    if (length(dim(x)) != 2L || ncol(x) != length(g)) bad("`x`", paste0("does not have the ", length(g), " columns of `group`"))
    y <- object[["y"]]
    if (is.null(y) || NROW(y) != nrow(x)) bad("`y`", "does not have one value per row of `x`")
    if (is.numeric(y) && !all(is.finite(y))) bad("`y`", "holds NA, NaN or Inf")
    w <- object[["weights"]]
    if (!is.null(w) && (!finite_vector(w, nrow(x)) || any(w < 0))) bad("`weights`", "is not one weight >= 0 per row of `x`")
    off <- object[["offset"]]
    if (!is.null(off) && (!is.numeric(off) || NROW(off) != nrow(x) || NCOL(off) != P || !all(is.finite(off)))) {
      bad("`offset`", "is not one finite offset per row of `x` and response")
    }
    if (!identical(isTRUE(object$has_offset), !is.null(off))) {
      bad("`has_offset`", "disagrees with the training `offset` the fit holds")
    }
  }
  if (!is.null(object$terms) && !inherits(object$terms, "terms")) bad("`terms`", "is not a terms object")
  omit <- object$na.action
  if (!is.null(omit) && (!is.numeric(omit) || anyNA(omit) || any(omit < 1 | omit != round(omit)) || anyDuplicated(omit))) {
    bad("`na.action`", "is not the distinct row numbers the fit left out")
  }
  if (!is.null(object$call) && !is.call(object$call)) bad("`call`", "is not a call")
  if (!is.null(object$converged) && !(is.logical(object$converged) && length(object$converged) == 1L &&
                                      !is.na(object$converged))) {
    bad("`converged`", "is not TRUE or FALSE")
  }
  if ("score" %in% names(path) && !is.numeric(path$score)) bad("`path$score`", "is not numeric")
  xlev <- object$xlevels
  if (!is.null(xlev) && (!is.list(xlev) || (length(xlev) && is.null(names(xlev))) ||
                         !all(vapply(xlev, function(l) is.character(l) && !anyNA(l), logical(1))))) {
    bad("`xlevels`", "is not a named list of factor levels")
  }
  labels
}

# The measurements of a formula's offset, paid at step 0 (`offset_needs`): NULL, or names of measurements
# of the fit. Returns them (character(0) when none); `bad` stops naming the field.
check_offset_needs <- function(object, bad) {
  paid <- object$offset_needs
  if (!is.null(paid) && (!is.character(paid) || anyNA(paid) || !all(paid %in% names(object$measurement_cost)))) {
    bad("`offset_needs`", "does not name measurements of `measurement_cost`")
  }
  as.character(paid)
}

# Whether the core's record of what a fit paid agrees with its measurements, read without replaying the
# purchases (a pass over the record and over the measurements the sequence needs, linear in their
# number): `step0` is the cost of the measurements paid at step 0 (`paid`), each group of `sequence`
# paid (`charged`) between 0 and its stand-alone cost, and all of them together the total cost of the
# measurements they and `paid` need, each once. A record that charges a shared measurement twice, or a
# group more than its measurements, fails; so does any record when no measurement is shared (each
# group's charge is then its cost).
paid_record_agrees <- function(object, step0, charged, sequence, paid) {
  mc <- object$measurement_cost
  stand_alone <- object$cost[sequence]
  needed <- unique(c(paid, unlist(object$needs[sequence], use.names = FALSE)))
  length(charged) == length(sequence) && finite_vector(charged) && !anyNA(stand_alone) &&
    near(step0, sum(mc[paid])) && all(charged >= -1e-8 * pmax(1, stand_alone)) &&
    all(charged <= stand_alone + 1e-8 * pmax(1, stand_alone)) && near(step0 + sum(charged), sum(mc[needed]))
}

# An "fgseq" fit (fgseq(), fgseq_stats(), fgseq_chunks(), sparse_sequence()): the shared fields, then the
# path against the sequence, the coefficients (p x (K + 1), finite, rows named by column; a list of them
# for multinomial and mgaussian fits), the intercepts, and the coefficients of every step zero outside
# the groups of its prefix (so that a permuted `group` is caught).
validate_fgseq <- function(object, arg = "object") {
  remedy <- "Refit with fgseq(); a file holding the fit may be damaged or the fit edited."
  bad <- function(field, problem) invalid_object(arg, "fgseq", field, problem, remedy)
  labels <- validate_anytime_fields(object, arg, "fgseq", remedy)
  path <- object$path
  K <- nrow(path) - 1L
  seq <- object$sequence
  if (length(seq) != K) bad("`sequence`", paste0("has ", length(seq), " groups but `path` has ", K, " steps"))
  if (!identical(as.character(path$group), c(NA_character_, seq))) {
    bad("`path$group`", "is not NA then the groups of `sequence`")
  }
  paid <- check_offset_needs(object, bad)
  if (!paid_record_agrees(object, path$group_cost[1L], path$group_cost[-1L], seq, paid)) {
    bad("`path$group_cost`", "is not the cost of the measurements each step adds")
  }
  if (!is.numeric(object$lambda) || length(object$lambda) != 1L || !is.finite(object$lambda) || object$lambda < 0) {
    bad("`lambda`", "is not a single finite number >= 0")
  }
  if (is.null(object$label)) {
    if (!is_string(object$method) || !object$method %in% core_choices("method")) {
      bad("`method`", paste0("is not one of ", paste0("\"", core_choices("method"), "\"", collapse = ", ")))
    }
    if (method_scores(object$method) == "gradient" &&
        !(is_string(object$criterion) && object$criterion %in% names(selection_criteria))) {
      bad("`criterion`", paste0("is not one of ", paste0("\"", names(selection_criteria), "\"", collapse = ", ")))
    }
  }
  if (!is.logical(object$cost_sensitive) || length(object$cost_sensitive) != 1L || is.na(object$cost_sensitive)) {
    bad("`cost_sensitive`", "is not TRUE or FALSE")
  }
  multi <- family_def(object$family)$multi
  P <- if (multi) length(object$responses) else 1L
  cols <- names(object$group)
  beta <- if (multi) object$beta else list(object$beta)
  if (!is.list(beta) || length(beta) != P || (multi && !identical(names(beta), object$responses))) {
    bad("`beta`", paste0("is not ", if (multi) paste0("a list of ", P, " coefficient matrices named by the responses")
                         else "a coefficient matrix"))
  }
  a0 <- if (multi) object$a0 else matrix(object$a0, nrow = 1L)
  if (is.numeric(object$a0) && !is.double(object$a0)) {
    bad("`a0`", paste0("is stored as ", typeof(object$a0), ", not as double (numbers of type \"double\", as a fit ",
                       "holds them)"))
  }
  if (!is.numeric(object$a0) || (multi && !is.matrix(object$a0)) || (!multi && !is.null(dim(object$a0))) ||
      !identical(dim(a0), c(P, K + 1L)) || !all(is.finite(a0))) {
    bad("`a0`", paste0("is not ", if (multi) paste0("a ", P, " x ", K + 1L, " matrix") else paste0(K + 1L),
                       " finite intercepts, one per step"))
  }
  # the columns of each group, and the step from which each column may have a coefficient
  first <- match(object$group, seq)
  first[is.na(first)] <- K + 1L
  for (b in beta) {
    # a dgCMatrix (a dense matrix in fits saved before the coefficients were kept sparse)
    sparse <- methods::is(b, "dgCMatrix")
    if (!sparse && !is.matrix(b)) {
      kind <- if (methods::is(b, "Matrix")) paste0("a \"", class(b)[1L], "\" of the Matrix package") else
        paste0("of class \"", class(b)[1L], "\"")
      bad("`beta`", paste0("is ", kind, ", not a sparse \"dgCMatrix\" (or a base R numeric matrix); convert it with ",
                           "methods::as(methods::as(beta, \"CsparseMatrix\"), \"generalMatrix\")"))
    }
    if (is.matrix(b) && is.numeric(b) && !is.double(b)) {
      bad("`beta`", paste0("is stored as ", typeof(b), ", not as double (numbers of type \"double\", as a fit holds them)"))
    }
    if (!(sparse && isTRUE(methods::validObject(b, test = TRUE)) || is.matrix(b) && is.numeric(b)) ||
        !identical(dim(b), c(length(cols), K + 1L)) ||
        sparse && (length(b@i) != b@p[K + 2L] || length(b@x) != b@p[K + 2L])) {
      bad("`beta`", paste0("is not a ", length(cols), " x ", K + 1L, " matrix (columns of x by steps 0..", K, ")"))
    }
    if (!identical(rownames(b), cols)) bad("`beta`", "does not have the rows of the columns of x, in order")
    # the stored values, column by column, with their rows and steps
    if (sparse) {
      value <- b@x
      row <- b@i + 1L
      step <- rep.int(0:K, diff(b@p))
    } else {
      value <- as.vector(b)
      row <- rep.int(seq_along(cols), K + 1L)
      step <- rep(0:K, each = length(cols))
    }
    if (!all(is.finite(value))) bad("`beta`", "holds NA, NaN or Inf")
    early <- which(value != 0 & first[row] > step)
    if (length(early)) {
      e <- early[1L]
      bad("`beta` or `group`", paste0("give column '", cols[row[e]], "' (group '", object$group[[row[e]]],
                                      "') a coefficient at step ", step[e], ", before its group is in the sequence"))
    }
  }
  if (!is.null(object$rank) && (!is.numeric(object$rank) || length(object$rank) != length(labels) ||
                                anyNA(object$rank) || any(object$rank < 0 | object$rank != round(object$rank)))) {
    bad("`rank`", "is not one whole number >= 0 per group")
  }
  mom <- object$moments
  if (!is.null(mom)) {
    q <- length(mom$columns)
    if (!is.list(mom) || !is.character(mom$columns) || !all(mom$columns %in% cols) || anyDuplicated(mom$columns) ||
        !is.double(mom$mean) || length(mom$mean) != q || !all(is.finite(mom$mean)) ||
        !is.matrix(mom$cov) || !is.double(mom$cov) || !identical(dim(mom$cov), c(q, q)) || !all(is.finite(mom$cov)) ||
        !all(cols[object$group %in% seq] %in% mom$columns)) {
      bad("`moments`", "is not the finite mean and covariance of the columns of the sequence's groups")
    }
  }
  invisible(object)
}

# A "miser" fit: the shared fields, the trees (check_forest()), each tree's step, and the path against
# the trees.
validate_miser <- function(object, arg = "object") {
  remedy <- "Refit with miser(); a file holding the fit may be damaged or the fit edited."
  bad <- function(field, problem) invalid_object(arg, "miser", field, problem, remedy)
  validate_anytime_fields(object, arg, "miser", remedy)
  check_forest(object)
  P <- length(object$init)
  if (P != length(object$responses)) bad("`init`", "does not have one value per response")
  tr <- object$trees
  if (!is.numeric(tr$step) || !identical(as.numeric(tr$step), as.numeric((tr$tree - 1L) %/% P + 1L))) {
    bad("`trees$step`", "is not the boosting iteration of each tree")
  }
  K <- nrow(object$path) - 1L
  if (!is.numeric(object$n_steps) || length(object$n_steps) != 1L || object$n_steps != K) {
    bad("`n_steps`", "is not the number of steps of `path`")
  }
  if (!is_string(object$paid)) bad("`paid`", "is not a single string")
  if (!is_string(object$label)) bad("`label`", "is not a single string")
  if (!is.numeric(object$cost_penalty) || length(object$cost_penalty) != 1L || !is.finite(object$cost_penalty) ||
      object$cost_penalty < 0) {
    bad("`cost_penalty`", "is not a single finite number >= 0")
  }
  if (!is.numeric(object$depth) || length(object$depth) != 1L || !is.finite(object$depth) || object$depth < 1 ||
      object$depth != round(object$depth)) {
    bad("`depth`", "is not a whole number >= 1")
  }
  split <- !is.na(tr$column)
  # the JSON predictor names the split columns (write_predictor()), predict() indexes them
  if (!is.character(tr$feature) || !identical(tr$feature[split], names(object$group)[tr$column[split]]) ||
      !all(is.na(tr$feature[!split]))) {
    bad("`trees$feature`", "is not the name of the column each split reads (`trees$column`)")
  }
  used <- unique(object$group[tr$column[split]])
  if (!setequal(used, object$sequence)) bad("`sequence`", "is not the groups the trees split on")
  # each group is paid at the step of the first tree that splits on one of its columns
  split_group <- object$group[tr$column[split]]
  first_step <- vapply(object$sequence, function(g) min(tr$step[split][split_group == g]), numeric(1))
  if (is.unsorted(first_step)) bad("`sequence`", "is not in the order the trees first use the groups")
  paid <- check_offset_needs(object, bad)
  # the record of what was paid (paid_groups()): each group of the sequence, the step that paid it, its cost
  pg <- object$paid_groups
  if (!is.data.frame(pg) || !all(c("group", "step", "group_cost") %in% names(pg)) ||
      !identical(as.character(pg$group), as.character(object$sequence)) ||
      !isTRUE(all.equal(as.numeric(pg$step), unname(first_step))) || !is.numeric(pg$group_cost) ||
      !paid_record_agrees(object, sum(object$measurement_cost[paid]), pg$group_cost, object$sequence, paid)) {
    bad("`paid_groups`", "is not the groups of `sequence` with the step of the first tree that uses each and its cost")
  }
  expected <- vapply(0:K, function(t) sum(pg$group_cost[first_step == t]), numeric(1))
  expected[1L] <- expected[1L] + sum(object$measurement_cost[paid])
  if (!near(object$path$group_cost, expected)) bad("`path$group_cost`", "is not the cost of the groups each step first uses")
  invisible(object)
}

# A "cv_fgseq" object: the grid, its fits (each a valid "fgseq" fit at its lambda), the metric table and
# the choices.
validate_cv <- function(object, arg = "object") {
  remedy <- "Rerun cv_fgseq(); a file holding the object may be damaged or the object edited."
  bad <- function(field, problem) invalid_object(arg, "cv_fgseq", field, problem, remedy)
  if (!is.list(object)) bad("the object", "is not a list")
  lambda <- object$lambda
  if (!finite_vector(lambda) || !length(lambda) || any(lambda < 0)) bad("`lambda`", "is not finite numbers >= 0")
  L <- length(lambda)
  for (f in c("cvm", "cvsd")) if (!is.numeric(object[[f]]) || length(object[[f]]) != L) bad(paste0("`", f, "`"), paste0("does not have ", L, " values"))
  fits <- object$fgseq.fit
  if (!is.list(fits) || length(fits) != L) bad("`fgseq.fit`", paste0("is not a list of ", L, " fits"))
  for (l in seq_len(L)) {
    validate_fgseq(fits[[l]], paste0(arg, "$fgseq.fit[[", l, "]]"))
    if (!near(fits[[l]]$lambda, lambda[l])) bad(paste0("`fgseq.fit[[", l, "]]`"), "is not the fit at its `lambda`")
  }
  index <- object$index
  if (!is.numeric(index) || length(index) != 2L || anyNA(index) || any(index < 1 | index > L | index != round(index))) {
    bad("`index`", paste0("is not two positions in the grid of ", L, " lambda values"))
  }
  if (!is.data.frame(object$budget) || !all(c("lambda", "cost", "cvm", "cvsd") %in% names(object$budget))) {
    bad("`budget`", "is not the table of budgets")
  }
  if (!is_string(object$metric)) bad("`metric`", "is not a single string")
  invisible(object)
}

# "fgseq_stats" statistics: check_stats() (every field, its size and finiteness), then what the core
# relies on: a symmetric cross-product matrix whose entries are within what the diagonals allow
# (Cauchy-Schwarz), and group labels matching the columns.
validate_stats <- function(s, arg = "x") {
  check_stats(s, arg)
  bad <- function(field, what) {
    abort("`", arg, "` is not valid \"fgseq_stats\" statistics: its field `", field, "` ", what,
          ". Recompute the statistics with fgseq_stats(); a file holding them may be damaged.",
          class = "invalid_object")
  }
  xx <- s$xx
  scale <- max(abs(diag(xx)), .Machine$double.xmin)
  if (any(abs(xx - t(xx)) > 1e-10 * scale)) bad("xx", "is not symmetric")
  d <- sqrt(diag(xx))
  if (any(abs(xx) > outer(d, d) * (1 + 1e-8) + 1e-12 * scale)) {
    bad("xx", "has an entry larger than its diagonals allow (not a cross-product matrix)")
  }
  xy <- as.numeric(s$xy)
  if (any(abs(xy) > d * sqrt(s$yy) * (1 + 1e-8) + 1e-12 * max(scale, s$yy))) {
    bad("xy", "has an entry larger than `xx` and `yy` allow (not a cross-product)")
  }
  if (s$weight_sum > 0 && s$n < 1) bad("n", "is not a whole number >= 1")
  if (anyNA(s$names) || anyDuplicated(s$names)) bad("names", "is not distinct column names")
  invisible(s)
}

# An "fgseq_chunks" description (fgseq_chunks()): what a fit reads before any chunk, `items` (one per
# chunk), `n` their number and `get` (NULL or a function). Each chunk is checked as it is read
# (check_chunk(): a list with x and y of one row each, finite, the columns of the first chunk).
validate_chunks <- function(chunks, arg = "x") {
  bad <- function(field, problem) {
    invalid_object(arg, "fgseq_chunks", field, problem, "Describe the chunks again with fgseq_chunks().")
  }
  if (!is.list(chunks)) bad("the object", "is not a list")
  if (!is.list(chunks$items) || !length(chunks$items)) bad("`items`", "is not a list of at least one chunk")
  if (!is.numeric(chunks$n) || length(chunks$n) != 1L || !identical(as.integer(chunks$n), length(chunks$items))) {
    bad("`n`", paste0("is not the number of chunks (", length(chunks$items), ")"))
  }
  if (!is.null(chunks$get) && !is.function(chunks$get)) bad("`get`", "is not NULL or a function returning a chunk")
  invisible(chunks)
}
