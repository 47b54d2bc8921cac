# The methods of a Greedy Miser fit (miser.R has the verb and its constructor): the learner seam
# (R/anytime_fit.R), the check of a forest read from a file, print(), summary() and coef().

# ---- the learner seam of the Greedy Miser (R/anytime_fit.R) ----

# The link of a Greedy Miser fit at `steps` (boosting iterations) on the rows of x: the trees read
# only the columns they split on.
#' @export
fit_link.miser <- function(object, x, steps, prefix, per_row) {
  # the trees were checked (check_forest()) by validate_fit() at the method's entry
  if (methods::is(x, "sparseMatrix")) x <- as.matrix(x)
  tr <- object$trees
  start <- c(0, cumsum(tabulate(tr$tree, nbins = max(tr$tree, 0L))))
  predict_steps <- function(x, steps) {
    .miser_predict(x, start, ifelse(is.na(tr$column), -1L, tr$column - 1L),
                   ifelse(is.na(tr$threshold), NaN, tr$threshold), ifelse(is.na(tr$left), -1L, tr$left - 1L),
                   ifelse(is.na(tr$right), -1L, tr$right - 1L), tr$value, unname(object$init), object$eta,
                   as.integer(steps))
  }
  if (prefix) return(prefix_by_step(object, x, steps, per_row, predict_steps))
  list(link = predict_steps(x, steps), step = NULL)
}

# A Greedy Miser fit reads each column from the first iteration whose trees split on it.
#' @export
column_steps.miser <- function(object) {
  tr <- object$trees[!is.na(object$trees$column), ]
  first <- rep(nrow(object$path), length(object$group))
  used <- tapply(tr$step, tr$column, min)
  first[as.integer(names(used))] <- as.integer(used)
  first
}

# The groups in the order the trees first split on them, each with the cost the core paid for it
# (MiserFit::paid_cost, from its PaidMeasurements).
#' @export
paid_groups.miser <- function(object) object$paid_groups

# The trees of a miser fit, one object per tree with 0-based node indices.
tree_arrays <- function(fit) {
  tr <- fit$trees
  P <- length(fit$init)
  out <- lapply(split(tr, tr$tree), function(t) {
    leaf <- is.na(t$column)
    list(response = (t$tree[1L] - 1L) %% P, feature = I(ifelse(leaf, NA_character_, t$feature)),
         threshold = structure(paste0("[", paste(ifelse(leaf, "null", sprintf("%.17g", t$threshold)), collapse = ","),
                                      "]"), class = "json"),
         left = I(ifelse(leaf, -1L, t$left - 1L)), right = I(ifelse(leaf, -1L, t$right - 1L)),
         value = json_numbers(t$value))
  })
  list(init = json_numbers(fit$init), shrinkage = json_number(fit$eta), trees = unname(out))
}

# A Greedy Miser fit writes the trees of each iteration, and the trees themselves after the steps.
#' @export
predictor_model.miser <- function(fit) {
  first <- fit$trees$step[!duplicated(fit$trees$tree)]
  list(model = "trees", step = function(k) list(trees = I(which(first == k) - 1L)), parts = tree_arrays(fit))
}

# A fit may come from a file: before its trees reach the core, they must be what new_miser() made.
# Trees numbered 1..(n_trees * P) in order, each with nodes 1..size; at a split a column of x, a
# threshold and children that are later nodes of the same tree; finite leaf values, init (doubles) and
# eta (in (0, 1], as miser() takes it).
check_forest <- function(object) {
  bad <- function(field, what) {
    abort("`object` is not a valid \"miser\" fit: ", field, " ", what, ". Refit with miser(); a file ",
          "holding the fit may be damaged.", class = "invalid_object")
  }
  tr <- object$trees
  cols <- c("tree", "node", "column", "threshold", "left", "right", "value")
  if (!is.data.frame(tr) || !all(cols %in% names(tr))) {
    bad("`trees`", paste0("is not a data frame with columns ", paste(cols, collapse = ", ")))
  }
  P <- length(object$init)
  if (!is.numeric(object$init) || P < 1L || !all(is.finite(object$init))) bad("`init`", "is not finite numbers")
  if (!is.double(object$init)) bad("`init`", paste0("is stored as ", typeof(object$init), ", not as double"))
  if (!is.numeric(object$eta) || length(object$eta) != 1L || !is.finite(object$eta) || object$eta <= 0 ||
      object$eta > 1) {
    bad("`eta`", "is not a number in (0, 1] (the shrinkage of each tree)")
  }
  if (!is.data.frame(object$path) || nrow(object$path) < 1L) bad("`path`", "is not a data frame of steps")
  n_trees <- (nrow(object$path) - 1L) * P
  whole <- function(v) is.numeric(v) && all(is.na(v) | (is.finite(v) & v == round(v)))
  for (f in c("tree", "node", "column", "left", "right")) if (!whole(tr[[f]])) bad(paste0("`trees$", f, "`"), "is not whole numbers")
  if (anyNA(tr$tree) || anyNA(tr$node) || is.unsorted(tr$tree) || !identical(as.integer(unique(tr$tree)), seq_len(n_trees))) {
    bad("`trees$tree`", paste0("does not number the ", n_trees, " trees of the path in order"))
  }
  if (!identical(as.integer(tr$node), sequence(tabulate(tr$tree, n_trees)))) bad("`trees$node`", "does not number each tree's nodes 1, 2, ...")
  size <- tabulate(tr$tree, n_trees)[tr$tree]
  split <- !is.na(tr$column)
  if (any(tr$column[split] < 1 | tr$column[split] > length(object$group))) bad("`trees$column`", "is not a column of x")
  if (!is.numeric(tr$threshold)) bad("`trees$threshold`", "is not numeric")
  if (any(is.na(tr$threshold[split]))) bad("`trees$threshold`", "is missing at a split")
  child_ok <- function(ch) !is.na(ch) & ch > tr$node & ch <= size
  if (!all(child_ok(tr$left)[split] & child_ok(tr$right)[split])) {
    bad("`trees$left` or `trees$right`", "is not a later node of the same tree")
  }
  if (!is.numeric(tr$value) || !all(is.finite(tr$value[!split]))) bad("`trees$value`", "is not finite at a leaf")
  invisible(object)
}

#' Print a Greedy Miser fit
#'
#' Shows the steps at which trees first used a group (its cost, the cumulative cost and the training
#' `r2`), and the last step.
#'
#' @param x A `"miser"` fit from [miser()].
#' @param digits Number of significant digits.
#' @param ... Not used: an unknown argument is an error.
#' @return `x`, invisibly.
#' @section Errors: Stops on an object that is not as [fgseq()] or [miser()] made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field).
#' @references Xu, Z., Weinberger, K. Q. and Chapelle, O. (2012). The Greedy Miser: learning under
#'   test-time budgets. *Proceedings of the 29th International Conference on Machine Learning (ICML)*.
#'   \url{https://arxiv.org/abs/1206.6451}
#' @examples
#' print(miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 20))
#' @export
print.miser <- function(x, digits = 4, ...) {
  validate_fit(x, "x")
  check_dots(...)
  per <- if (family_def(x$family)$multi) paste0(" (", length(x$classes), " trees per step, one per class)") else ""
  cat(x$label, ", ", x$family, ": ", x$n_steps, " steps", per, " of depth-", x$depth, " trees, eta = ",
      format(x$eta), ", ", x$nobs, " observations\n", sep = "")
  cat("Groups paid ", if (x$paid == "after_tree") "after each tree" else "within each tree", "; ",
      length(x$sequence), " of ", length(x$cost), " groups used, total cost ",
      format(x$path$cost[nrow(x$path)], digits = digits), "\n", sep = "")
  if (family_def(x$family)$named) cat("r2: fraction of the null deviance explained\n")
  if (isTRUE(x$partial)) cat("Partial: `max_time` was spent before all trees were grown.\n")
  cat("\n")
  p <- x$path
  keep <- unique(c(1L, which(!is.na(p$group)), nrow(p)))
  print_path(p[keep, ], "(constant only)", digits)
  left <- setdiff(names(x$cost), x$sequence)
  if (length(left)) cat("\nNever used:", paste(left, collapse = ", "), "\n")
  invisible(x)
}

#' Summarize a Greedy Miser fit: cost per step and the features in order of first use
#'
#' The Miser's analogue of the sequence of [fgseq()]: the features (columns of `x`) in the order the
#' trees first split on them, with the cost each first use charged, and per boosting iteration the
#' cumulative cost, the distinct features and groups used so far and the training objective.
#'
#' Features are ordered by tree, then by node within a tree (level by level from the root, left to
#' right, as the trees grow; see [miser()]). A feature whose group an earlier feature already paid for
#' is charged 0: with `group = NULL` every feature is its own group and each first use is charged its
#' cost. `coef()` stops: the model is a sum of trees, it has no linear coefficients.
#'
#' @param object A `"miser"` fit from [miser()].
#' @param ... Not used: an unknown argument is an error.
#' @return An object of class `"summary.miser"`, a list with
#' * `label` (character), `family`, `nobs`, `cost_penalty`, `n_steps`, `depth`, `eta`, `paid`: as in the fit
#'   (`$n_trees`, the former name of `n_steps`, still reads it, with a deprecation warning);
#' * `n_features` (distinct columns used by the trees), `p` (columns of `x`), `n_groups` (groups
#'   paid), `total_groups`, `total_cost` (cost units) and `r2` (final training `r2`);
#' * `steps`: data frame with `T + 1` rows (steps `t = 0..T`) and columns `step`, `trees`,
#'   `new_features` (the columns first used at step `t`, comma-separated in order of first use; NA when
#'   none), `features` and `groups` (the numbers of distinct columns and groups used by the trees of
#'   steps `1..t`), `cost` (cumulative cost, cost units), `loss` (mean training loss), `objective`
#'   (`loss_0 - loss_t`) and `r2` (as in the fit's `path`);
#' * `features`: data frame, one row per column used, in order of first use, with columns `feature`
#'   (column name), `column` (index in `x`), `group`, `step` and `tree` (where it was first split on),
#'   `charged` (the cost of its group if this first use paid for the group, else 0), `cost` (cumulative
#'   cost after it) and `splits` (the number of splits on it over all trees);
#' * `unused`: character, the columns no tree splits on.
#'
#' `print()` shows the steps at which new features were used and the last step, then the features in
#' order of first use.
#' @section Errors: `summary()` and `print()` stop on an object that is not as [fgseq()] or [miser()] made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field). `coef()` always stops,
#'   saying that a Miser fit has no coefficients and pointing to `summary()` and `predict()`.
#' @references Xu, Z., Weinberger, K. Q. and Chapelle, O. (2012). The Greedy Miser: learning under
#'   test-time budgets. *Proceedings of the 29th International Conference on Machine Learning (ICML)*.
#'   \url{https://arxiv.org/abs/1206.6451}
#' @seealso [miser()], [print.miser()], [anytime_curve()].
#' @examples
#' fit <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 30,
#'              cost_penalty = 0.01, depth = 2)
#' s <- summary(fit)
#' s
#' s$features[, c("feature", "group", "step", "charged", "cost")]
#' @export
summary.miser <- function(object, ...) {
  validate_fit(object)
  check_dots(...)
  tr <- object$trees
  x_names <- names(object$group)
  cost <- object$cost
  split <- !is.na(tr$column)
  first <- split & !duplicated(ifelse(split, tr$column, NA_integer_))
  col <- tr$column[first]
  grp <- unname(object$group[col])
  pg <- paid_groups(object)
  charged <- ifelse(duplicated(grp), 0, pg$group_cost[match(grp, pg$group)])
  features <- data.frame(feature = x_names[col], column = col, group = grp, step = tr$step[first],
                         tree = tr$tree[first], charged = charged, cost = cumsum(charged),
                         splits = tabulate(tr$column[split], nbins = length(x_names))[col],
                         stringsAsFactors = FALSE)
  path <- object$path
  steps <- path$step
  new_features <- vapply(steps, function(t) {
    f <- features$feature[features$step == t]
    if (length(f)) paste(f, collapse = ", ") else NA_character_
  }, character(1))
  n_groups_at <- vapply(steps, function(t) length(unique(grp[features$step <= t])), integer(1))
  steps_tab <- data.frame(step = steps, trees = path$trees, new_features = new_features,
                          features = vapply(steps, function(t) sum(features$step <= t), integer(1)),
                          groups = n_groups_at, cost = path$cost, loss = path$loss,
                          objective = path$objective, r2 = path$r2, stringsAsFactors = FALSE)
  last <- nrow(path)
  structure(list(label = object$label, family = object$family, nobs = object$nobs, cost_penalty = object$cost_penalty,
                 n_steps = object$n_steps, depth = object$depth, eta = object$eta, paid = object$paid,
                 n_features = nrow(features), p = length(x_names), n_groups = length(unique(grp)),
                 total_groups = length(cost), total_cost = path$cost[last], r2 = path$r2[last],
                 steps = steps_tab, features = features, unused = setdiff(x_names, features$feature)),
            class = "summary.miser")
}

#' @rdname summary.miser
#' @param x A `"summary.miser"` object.
#' @param digits Number of significant digits.
#' @export
print.summary.miser <- function(x, digits = 4, ...) {
  check_dots(...)
  cat(x$label, ", ", x$family, ": ", x$n_steps, " steps of depth-", x$depth, " trees, eta = ", format(x$eta),
      ", ", x$nobs, " observations\n", sep = "")
  cat(x$n_features, " of ", x$p, " features used (", x$n_groups, " of ", x$total_groups,
      " groups), total cost ", format(x$total_cost, digits = digits), ", final training r2 ",
      format(x$r2, digits = digits), "\n", sep = "")
  if (family_def(x$family)$named) cat("r2: fraction of the null deviance explained\n")
  cat("\nSteps that use new features, and the last step:\n")
  st <- x$steps
  keep <- unique(c(1L, which(!is.na(st$new_features)), nrow(st)))
  st <- st[keep, ]
  st$new_features[is.na(st$new_features)] <- ""
  st$new_features[1L] <- "(constant only)"
  print(format(st, digits = digits), row.names = FALSE, right = FALSE)
  cat("\nFeatures in order of first use:\n")
  if (nrow(x$features)) {
    print(format(x$features, digits = digits), row.names = FALSE)
  } else {
    cat("(none: every tree is a single leaf)\n")
  }
  if (length(x$unused)) cat("\nNever used:", paste(x$unused, collapse = ", "), "\n")
  invisible(x)
}

#' @rdname summary.miser
#' @export
coef.miser <- function(object, ...) {
  abort("a Greedy Miser fit has no coefficients: its model is a sum of trees. Use summary() for the ",
        "features in order of first use and the cost of each step, or predict() for its predictions.")
}
