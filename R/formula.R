# The formula interface of every verb (fgseq(), miser(), sparse_sequence(), cv_fgseq()): arguments
# evaluated as glm() evaluates them. A formula method calls
#   d <- model_design(match.call(), parent.frame())
# and fits on d$x, d$y (with d$weights and d$offset where the verb takes them); with_formula() then
# attaches what the methods of the fit need (terms, factor levels, the model frame, na.action, the call).

# The design of a formula method's call, evaluated in `env` (the caller's frame):
# * the formula is the call's `x` (or `formula`); `data` a data frame;
# * `subset`, `weights` and `offset` are evaluated in `data` (then in the formula's environment), as
#   by stats::model.frame(); `offset()` terms of the formula add to `offset`;
# * `na.action`: missing or na.fail: a clear error when a model variable holds NA; na.omit or
#   na.exclude (a function or its name): those rows are dropped (na.exclude pads fitted values,
#   residuals and predictions back to every row, as in glm());
# * the design is model.matrix() without its intercept column, all factor levels kept (drop.unused.levels
#   = FALSE), one group per term: a numeric term is a group of one column, a factor term the group of
#   its dummy columns, an interaction the group of its product columns.
# Returns list(x, y, group, weights, offset (NULL when none), terms, xlevels, contrasts, na.action, model,
# variables (term label -> the variables of data it uses, term_variables()), data_names).
model_design <- function(call, env) {
  args <- as.list(call)[-1L]
  form <- if ("formula" %in% names(args)) "formula" else "x"
  formula <- eval(args[[form]], env)
  if (!inherits(formula, "formula")) {
    abort("`", form, "` must be a model formula such as y ~ a + b.", class = "formula")
  }
  # without `data`, the formula's variables from its environment, as glm() reads them (conventions.R)
  data <- if (is.null(args$data)) formula_env_data(formula, environment(formula) %||% env, form) else eval(args$data, env)
  if (!is.data.frame(data)) abort("`data` must be a data frame holding the variables of the formula.", class = "formula")
  n <- nrow(data)
  fenv <- environment(formula)
  if (is.null(fenv)) fenv <- env
  # an error of R's evaluation (a variable that neither `data` nor the formula's environment holds) is
  # raised again naming the argument, with R's error as its parent
  in_data <- function(name) {
    tryCatch(eval(args[[name]], data, fenv), error = function(e) {
      abort("`", name, "` cannot be evaluated in `data` (or the formula's environment): ", conditionMessage(e), ".",
            class = "formula", parent = e)
    })
  }

  mf <- list(formula = formula, data = data, drop.unused.levels = FALSE)
  if (!is.null(args$subset)) mf$subset <- check_subset(in_data("subset"), n)
  for (name in intersect(c("weights", "offset"), names(args))) {
    value <- in_data(name)
    if (!is.null(value)) mf[[name]] <- check_row_values(value, n, name)
  }
  na <- if (is.null(args$na.action)) check_na_action(default_na_action(data), "options(na.action)") else
    check_na_action(eval(args$na.action, env))
  mf$na.action <- if (is.null(na)) stats::na.pass else na
  frame <- tryCatch(do.call(stats::model.frame, mf), error = function(e) {
    if (inherits(e, "fgseq_error")) stop(e)
    abort("the model frame of `", form, "` (the formula) cannot be built from `data`: ", conditionMessage(e),
          ". Give `data` every variable the formula uses (or define it in the formula's environment).",
          class = "formula", parent = e)
  })
  if (anyNA(frame)) {
    bad <- names(frame)[vapply(frame, anyNA, logical(1))]
    abort("`data` has NA in ", paste(bad, collapse = ", "), "; remove or impute those rows, or give ",
          "na.action = na.omit (or na.exclude) to drop them.", class = "na")
  }
  if (nrow(frame) < 2L) abort("`subset` (or `na.action`) leaves fewer than 2 rows to fit.", class = "subset")
  mt <- attr(frame, "terms")
  if (attr(mt, "response") == 0L) abort("`", form, "` (the formula) must have a response, as in y ~ .", class = "formula")
  if (attr(mt, "intercept") == 0L) {
    abort("`", form, "` (the formula) removes the intercept (`- 1` or `+ 0`), which the fits cannot honour: ",
          "every engine centres the columns and the response (the intercept is unpenalized and always ",
          "fitted). Remove `- 1` (or `+ 0`) from the formula.", class = "formula")
  }
  labels <- attr(mt, "term.labels")
  if (!length(labels)) {
    abort("`", form, "` (the formula) must have at least one term on its right-hand side.", class = "formula")
  }
  mm <- stats::model.matrix(mt, frame)
  assign <- attr(mm, "assign")
  keep <- assign > 0L
  list(x = mm[, keep, drop = FALSE], y = stats::model.response(frame), group = labels[assign[keep]],
       weights = stats::model.weights(frame), offset = stats::model.offset(frame), terms = mt,
       xlevels = stats::.getXlevels(mt, frame), contrasts = attr(mm, "contrasts"),
       na.action = attr(frame, "na.action"), model = frame, variables = term_variables(mt, names(data)),
       offset_variables = offset_variables(mt, args$offset, names(data)), data_names = names(data))
}

# The variables of data that the offset needs: those of the formula's offset() terms and of the
# `offset` argument (an expression evaluated in data).
offset_variables <- function(terms, offset_arg, data_names) {
  vars <- as.list(attr(terms, "variables"))[-1L]
  used <- unlist(lapply(vars[attr(terms, "offset")], all.vars), use.names = FALSE)
  if (!is.null(offset_arg)) used <- c(used, all.vars(offset_arg))
  intersect(unique(used), data_names)
}

# subset: logical (one per row of data, no NA), or whole row numbers (all positive or all negative).
check_subset <- function(subset, n) {
  ok <- if (is.logical(subset)) {
    length(subset) == n && !anyNA(subset)
  } else if (is.numeric(subset)) {
    !anyNA(subset) && all(subset == round(subset)) && all(abs(subset) >= 1 & abs(subset) <= n) &&
      (all(subset > 0) || all(subset < 0))
  } else {
    FALSE
  }
  if (!ok) {
    abort("`subset` must be a logical vector with one TRUE/FALSE per row of `data` (", n, "), or row ",
          "numbers between 1 and ", n, " (all positive, or all negative to drop rows), without NA.",
          class = "subset")
  }
  subset
}

# weights or offset evaluated in data: numeric, one value per row of data (an offset may be a matrix
# with one row per row, for multinomial and mgaussian fits); the verb checks the values themselves.
check_row_values <- function(value, n, name) {
  rows <- if (is.null(dim(value))) length(value) else nrow(value)
  if (!is.numeric(value) || rows != n) {
    abort("`", name, "` must be numeric with one value per row of `data` (", n, "); it has ", rows, ".",
          class = "input")
  }
  value
}

# na.action: NULL (or na.fail: the clear error of model_design()), or na.omit / na.exclude given as a
# function or its name. Returns NULL or the function. `given`: where the value came from, for the message.
check_na_action <- function(na_action, given = "`na.action`") {
  if (is.null(na_action)) return(NULL)
  known <- list(na.omit = stats::na.omit, na.exclude = stats::na.exclude, na.fail = stats::na.fail)
  if (is.character(na_action) && length(na_action) == 1L && na_action %in% names(known)) {
    na_action <- known[[na_action]]
  }
  which <- names(known)[vapply(known, identical, logical(1), na_action)]
  if (!length(which)) {
    abort(given, " must be na.omit or na.exclude (drop rows with NA in a model variable; na.exclude ",
          "pads fitted values and residuals back to every row), or na.fail (stop on NA)",
          if (given != "`na.action`") "; or give `na.action` to the call", ".", class = "na")
  }
  if (which == "na.fail") NULL else na_action
}

# The na.action of a call that gives none, as stats::model.frame() (and so glm()) takes it: the
# "na.action" attribute of `data` when it is not numeric, else getOption("na.action") (R's default
# "na.omit"), else na.fail.
default_na_action <- function(data) {
  naa <- attr(data, "na.action")
  if (!is.null(naa) && mode(naa) != "numeric") return(naa)
  getOption("na.action", "na.fail")
}

# Attach what the methods of a fit need to a fit made from a formula; the stored call names the
# exported generic (so that update() re-evaluates it).
with_formula <- function(fit, design, call, generic) {
  call[[1L]] <- as.name(generic)
  fit$call <- call
  fit$terms <- design$terms
  fit$xlevels <- design$xlevels
  fit$contrasts <- design$contrasts
  fit$na.action <- design$na.action
  if (!isFALSE(fit$keep_data)) fit$model <- design$model  # keep_data = FALSE: no model frame (lean.R)
  fit
}

# The design of new observations for a formula fit, rebuilt from newdata with the training terms and
# factor levels, as new_design() returns it: list(x, offset, rows, n). The offset is that of the fit's
# offset() terms and `offset` argument, evaluated in newdata (as predict.glm() does). Rows with NA in a
# model variable are an error, unless `allow_na` and the fit dropped such rows itself (na.omit,
# na.exclude): x then holds the complete rows, `rows` says which, and predictions are NA for the others.
# With keep_na (predict(missing = "prefix")), NA in the model variables stay in x as NA in the columns
# of every term using the variable.
newdata_design <- function(object, newdata, allow_na = FALSE, keep_na = FALSE) {
  if (is.null(object$terms)) {
    abort("`newdata` works with fits made by the formula interface; give `newx` (a matrix) instead.")
  }
  if (!is.data.frame(newdata)) abort("`newdata` must be a data frame.")
  if (!nrow(newdata)) abort("`newdata` has no rows: give at least one row to predict.")
  tt <- stats::delete.response(object$terms)
  check_newdata_offset(object, newdata)
  missing <- setdiff(all.vars(tt), names(newdata))
  if (length(missing)) {
    if (!keep_na) {
      abort("`newdata` lacks the model variable(s) ", paste(missing, collapse = ", "), "; add them, or predict ",
            "with missing = \"prefix\" (a variable not measured is a missing value).")
    }
    # missing = "prefix": a variable not measured is NA in every row (of its fitted type)
    newdata[missing] <- lapply(missing, absent_variable, object = object, n = nrow(newdata))
  }
  check_newdata_types(object, newdata)
  check_newdata_levels(object, newdata)
  mf <- tryCatch(stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object$xlevels),
                 error = function(e) {
                   abort("`newdata` cannot be turned into the fit's model frame: ", conditionMessage(e),
                         ". Give it the model variables as they were in the training data.", parent = e)
                 })
  offset <- stats::model.offset(mf)
  call_offset <- object$call$offset
  if (!is.null(call_offset)) {
    more <- eval(call_offset, newdata, environment(object$terms))
    offset <- if (is.null(offset)) more else offset + more
  }
  if (!is.null(offset)) offset <- check_row_values(offset, nrow(newdata), "offset")
  if (keep_na && !is.null(offset) && !all(stats::complete.cases(offset))) {
    abort("the fit's offset (", offset_text(object), ") is NA in ", sum(!stats::complete.cases(offset)),
          " row(s) of `newdata`: every prediction needs the offset, the intercept-only one at step 0 ",
          "included, so missing = \"prefix\" cannot do without it; give those rows a value of ",
          paste(offset_newdata_variables(object), collapse = ", "), " (or drop them).", class = "na")
  }
  complete <- (if (keep_na) rep(TRUE, nrow(mf)) else stats::complete.cases(mf)) &
    (if (is.null(offset)) TRUE else stats::complete.cases(offset))
  rows <- NULL
  if (!all(complete)) {
    if (!allow_na || is.null(object$na.action)) {
      abort("`newdata` has NA in the model variables; remove or impute those rows first",
            if (!allow_na) "" else " (or fit with na.action = na.exclude to predict NA for them)",
            ", or predict them with missing = \"prefix\" (the longest prefix of the sequence each row has).",
            class = "na")
    }
    rows <- which(complete)
    mf <- mf[rows, , drop = FALSE]
    if (!is.null(offset)) offset <- if (is.matrix(offset)) offset[rows, , drop = FALSE] else offset[rows]
  }
  mm <- stats::model.matrix(tt, mf, contrasts.arg = object$contrasts)
  list(x = mm[, names(object$group), drop = FALSE], offset = offset, rows = rows, n = nrow(newdata),
       names = row.names(newdata))
}

# The variables of a formula fit's offset (its offset() terms and `offset` argument) that prediction
# reads from newdata: those the formula's environment does not hold as a value (a function, as `t`,
# is not one).
offset_newdata_variables <- function(object) {
  vars <- as.list(attr(object$terms, "variables"))[-1L]
  used <- unlist(lapply(vars[attr(object$terms, "offset")], all.vars), use.names = FALSE)
  if (!is.null(object$call$offset)) used <- c(used, all.vars(object$call$offset))
  env <- environment(object$terms)
  Filter(function(v) is.null(env) || !exists(v, envir = env) || is.function(get(v, envir = env)), unique(used))
}

# The offset of a formula fit as written: its offset() terms and `offset` argument.
offset_text <- function(object) {
  vars <- as.list(attr(object$terms, "variables"))[-1L]
  parts <- vapply(vars[attr(object$terms, "offset")], deparse1, character(1))
  if (!is.null(object$call$offset)) parts <- c(parts, paste0("offset = ", deparse1(object$call$offset)))
  paste(parts, collapse = " + ")
}

# newdata must hold the variables of the fit's offset, whatever `missing`: every prediction adds the
# offset, step 0 included, so there is no prefix without them.
check_newdata_offset <- function(object, newdata) {
  absent <- setdiff(offset_newdata_variables(object), names(newdata))
  if (length(absent)) {
    abort("`newdata` lacks ", paste(absent, collapse = ", "), ", the variable(s) of the fit's offset (",
          offset_text(object), "): every prediction adds the offset, the intercept-only one at step 0 ",
          "included, so missing = \"prefix\" cannot do without ", if (length(absent) > 1L) "them" else "it",
          "; add ", if (length(absent) > 1L) "them" else "it", " to `newdata`.")
  }
  invisible()
}

# A model variable absent from newdata under missing = "prefix": n missing values of the type it was
# fitted with (a factor with the training levels, logical, character or numeric).
absent_variable <- function(name, object, n) {
  type <- attr(object$terms, "dataClasses")[name]
  levels <- object$xlevels[[name]]
  if (!is.null(levels)) return(factor(rep(NA_character_, n), levels = levels))
  switch(if (is.na(type %||% NA)) "numeric" else type, logical = rep(NA, n), character = rep(NA_character_, n),
         rep(NA_real_, n))
}

# Each factor (or character) model variable of newdata holds only levels the fit was trained with (its
# `xlevels`): a level the fit never saw has no coefficient (model.frame() would stop on it, unclassed).
check_newdata_levels <- function(object, newdata) {
  for (v in intersect(names(object$xlevels), names(newdata))) {
    got <- newdata[[v]]
    if (!(is.factor(got) || is.character(got))) next
    new <- setdiff(unique(as.character(got[!is.na(got)])), object$xlevels[[v]])
    if (length(new)) {
      abort("`newdata` variable '", v, "' has level(s) ", paste0("\"", utils::head(new, 5L), "\"", collapse = ", "),
            if (length(new) > 5L) ", ...", " that the fit was not trained with (its levels: ",
            paste0("\"", utils::head(object$xlevels[[v]], 10L), "\"", collapse = ", "),
            if (length(object$xlevels[[v]]) > 10L) ", ...", "); recode them to training levels, or set them to NA and ",
            "predict with missing = \"prefix\".", class = "input")
    }
  }
  invisible()
}

# Each model variable of newdata has the type it was fitted with (the terms' "dataClasses", as
# stats::.checkMFClasses() checks for predict.glm()); a character vector may stand for a factor and a
# factor for a character vector (their levels are then matched to the training levels).
check_newdata_types <- function(object, newdata) {
  fitted <- attr(object$terms, "dataClasses")
  vars <- intersect(setdiff(names(fitted), names(fitted)[attr(object$terms, "response")]), names(newdata))
  if (!length(vars)) return(invisible())
  given <- vapply(newdata[vars], stats::.MFclass, character(1))
  want <- fitted[vars]
  want[want == "ordered"] <- "factor"
  given[given == "ordered"] <- "factor"
  given[given == "character" & want == "factor"] <- "factor"
  given[given == "factor" & want == "character"] <- "character"
  wrong <- given != want
  if (any(wrong)) {
    abort("`newdata` has variable(s) of another type than the fit's: ",
          paste0("'", vars[wrong], "' was fitted as ", want[wrong], " but is ", given[wrong], collapse = "; "),
          ". Give each variable the type it had in the training data.")
  }
  invisible()
}

# The training design of a fit, as new_design() returns it: the x, offset and weights the fit was made
# from; with na.action = na.exclude, `rows` maps them back to every row of the training data.
training_design <- function(object) {
  if (is.null(object[["x"]])) no_training_data(object)
  out <- list(x = object[["x"]], offset = object[["offset"]], rows = NULL, n = nrow(object[["x"]]))
  omit <- object$na.action
  if (inherits(omit, "exclude")) {
    out$n <- nrow(object[["x"]]) + length(omit)
    out$rows <- seq_len(out$n)[-omit]
    out$names <- character(out$n)
    out$names[out$rows] <- rownames(object[["x"]]) %||% as.character(out$rows)
    out$names[omit] <- names(omit) %||% as.character(omit)
  }
  out
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# Predictions (a vector, a matrix or an array with one row per row of design$x) padded back to the
# design's `n` rows with NA where design$rows leaves rows out.
pad_rows <- function(out, design) {
  if (is.null(design$rows)) return(out)
  index <- rep(NA_integer_, design$n)
  index[design$rows] <- seq_along(design$rows)
  if (is.null(dim(out))) {
    out <- out[index]
    names(out) <- design$names
    return(out)
  }
  out <- if (length(dim(out)) == 2L) out[index, , drop = FALSE] else out[index, , , drop = FALSE]
  rownames(out) <- design$names
  out
}

# --- The formula methods of the verbs ---

#' @rdname fgseq
#' @param data Data frame holding the variables of the formula (formula method).
#' @param subset,na.action Formula method, evaluated as by [stats::glm()]: `subset` (evaluated in
#'   `data`, then in the formula's environment) is a logical vector (one value per row of `data`) or
#'   row numbers selecting the rows to fit. `na.action`: [stats::na.fail()] stops when a model variable
#'   holds NA (an error of class `fgseq_error_na`); [stats::na.omit()] drops those rows;
#'   [stats::na.exclude()] drops them and pads [fitted()][fitted.fgseq], [residuals()][fitted.fgseq] and
#'   `predict()` without new data back to every row of `data` with NA, as in [stats::glm()]. Missing, it
#'   is taken as [stats::model.frame()] and so [stats::glm()] take it: the `"na.action"` attribute of
#'   `data`, else `getOption("na.action")` (R's default is `"na.omit"`: rows with NA are dropped, as
#'   `glm()` drops them; `options(na.action = "na.fail")` makes a missing `na.action` stop on NA). A
#'   value other than these three (given or from the option) is an error of class `fgseq_error_na`.
#' @details The formula method builds the design with [stats::model.matrix()] (without its intercept
#'   column) and makes one group per model term: a numeric term is a group of one column, a factor
#'   term the group of its dummy columns, an interaction the group of its product columns. `cost` is
#'   named by variable: a term needs the measurements of all its variables (see the section
#'   Measurement costs). `predict(fit, newdata = )` rebuilds the design with the training terms and
#'   factor levels. All levels of a factor are kept: a level absent from the training rows gives a
#'   constant dummy column, which keeps coefficient 0 (with a warning), so new data holding that level
#'   can still be predicted (as the reference level).
#' @export
fgseq.formula <- function(x, data, subset, weights, offset, na.action, cost = NULL, needs = NULL, ...) {
  if (!missing(data) && inherits(data, "fgseq_chunks")) {
    return(fgseq_formula_chunks(x, data, cost, needs, match.call(), ...))  # chunks-formula.R
  }
  check_dots(..., forwarded = formula_forwarded(fgseq.default))
  d <- model_design(match.call(), parent.frame())
  # the measurements, checked here, go down as they are (the offset's paid at step 0 by the fit)
  meas <- formula_measurements(cost, needs, d$variables, d$data_names, d$offset_variables)
  fit <- fgseq.default(d$x, d$y, group = d$group, cost = meas, weights = d$weights, offset = d$offset, ...)
  with_formula(fit, d, match.call(), "fgseq")
}

# The arguments a formula method forwards through `...` to its matrix method: the matrix method's, but
# those the formula supplies.
formula_forwarded <- function(fun) {
  setdiff(names(formals(fun)), c("x", "y", "group", "weights", "offset", "needs", "..."))
}

#' @rdname miser
#' @param data Data frame holding the variables of the formula (formula method). The design is built as
#'   for [fgseq()]: one group per model term, all factor levels kept as dummy columns.
#' @param subset,na.action Formula method, as for [fgseq()]: `subset` (evaluated in `data`) selects the
#'   rows to fit; `na.action` is [stats::na.fail()] (stop on NA), [stats::na.omit()] or
#'   [stats::na.exclude()], missing: from `getOption("na.action")` as [stats::glm()] takes it.
#' @order 3
#' @export
miser.formula <- function(x, data, subset, weights, offset, na.action, cost = NULL, needs = NULL, ...) {
  check_dots(..., forwarded = formula_forwarded(miser.default))
  d <- model_design(match.call(), parent.frame())
  meas <- formula_measurements(cost, needs, d$variables, d$data_names, d$offset_variables)
  fit <- miser.default(d$x, d$y, group = d$group, cost = meas, weights = d$weights, offset = d$offset, ...)
  with_formula(fit, d, match.call(), "miser")
}

#' @rdname miser_path
#' @order 3
#' @export
miser_path.formula <- function(x, data, cost = NULL, cost_penalty = NULL, ..., newdata = NULL, metric = NULL, query = NULL,
                               k = 5, lambda) {
  if (!missing(lambda)) cost_penalty <- renamed_argument(lambda, "lambda", "cost_penalty", is.null(cost_penalty))
  penalties <- check_miser_penalties(if (is.null(cost_penalty)) c(0, 10^seq(-3, 0, by = 0.5)) else cost_penalty)
  if (is.null(newdata) || !is.data.frame(newdata)) {
    abort("miser_path() needs validation data: give `newdata`, a data frame of validation rows with the ",
          "response, on which the best iteration of each cost_penalty is chosen.")
  }
  if (!is.null(metric)) metric <- check_metric(metric)
  # one message for the names of `cost` the model does not use: that of the first fit
  fits <- lapply(seq_along(penalties), function(i) {
    fit_one <- function() miser.formula(x, data, cost = cost, cost_penalty = penalties[i], ...)
    if (i == 1L) fit_one() else suppressMessages(fit_one(), classes = "fgseq_message_unused_cost")
  })
  miser_frontier(fits, penalties, metric, function(f, metric) {
    anytime_curve(f, newdata = newdata, metric = metric, query = query, k = k)
  })
}

# The measurements of a formula fit: a term needs the measurements of all its variables (term_vars:
# term label -> variables), a variable those `needs` gives it (a named list: variable -> measurement
# names) or, when not listed, itself. `cost` is named by measurement (by variable without `needs`; NULL:
# 1 each; unnamed: in the order of the measurements the terms need). Names the model does not use are
# ignored with one message (drop_unused_costs(), the rule of every interface), so one cost vector serves
# every formula on the same data. The measurements of the offset alone cost 0 unless `cost` names them.
# Returns the checked measurements (new_measurements()), the offset's as `paid`: the verb hands them down
# as `cost`, and the fit pays them at step 0.
formula_measurements <- function(cost, needs, term_vars, data_names, offset_vars = character(0)) {
  known <- unique(c(data_names, unlist(term_vars, use.names = FALSE)))
  if (!is.null(needs)) needs <- check_needs(needs, known, "variable")
  var_needs <- function(v) if (is.null(needs[[v]])) v else needs[[v]]
  full <- lapply(term_vars, function(vs) unique(unlist(lapply(vs, var_needs), use.names = FALSE)))
  paid <- unique(unlist(lapply(offset_vars, var_needs), use.names = FALSE))
  terms_need <- unique(unlist(full, use.names = FALSE))
  used <- unique(c(terms_need, paid))
  # the measurements of the offset alone need no cost (0 unless `cost` names them), as glm() users expect
  offset_only <- setdiff(paid, terms_need)
  free <- function(have) stats::setNames(rep(0, length(setdiff(offset_only, have))), setdiff(offset_only, have))
  if (is.list(cost)) cost <- unlist(cost)
  if (is.null(cost)) {
    cost <- c(stats::setNames(rep(1, length(terms_need)), terms_need), free(character(0)))
  } else if (is.numeric(cost) && !is.null(names(cost))) {
    cost <- drop_unused_costs(cost, used, if (is.null(needs)) "variable" else "measurement")
    cost <- c(cost, free(names(cost)))
  } else if (is.numeric(cost) && is.null(needs) && length(cost) == length(terms_need)) {
    # unnamed: one cost per variable of the terms, in the order they appear
    cost <- c(stats::setNames(cost, terms_need), free(character(0)))
  }
  check_cost_total(new_measurements(full, check_measurement_cost(cost, used, "variable", named = !is.null(needs)), paid))
}

# The variables each term of a model needs (term label -> variable names), from the terms object: the
# variables of the term (attr(terms, "factors")), each reduced to the names it uses that are columns of
# the data (so poly(age, 3) and log(chol) need age and chol).
term_variables <- function(terms, data_names) {
  f <- attr(terms, "factors")
  labels <- attr(terms, "term.labels")
  row_vars <- lapply(rownames(f), function(r) {
    v <- all.vars(str2lang(r))
    d <- intersect(v, data_names)
    if (length(d)) d else v
  })
  stats::setNames(lapply(labels, function(t) unique(unlist(row_vars[f[, t] > 0], use.names = FALSE))), labels)
}

# The response of a formula fit, taken from newdata as it is (no conversion: the metric checks it).
# (new_design() has already checked that the fit has terms and that newdata is a data frame.)
response_from_newdata <- function(object, newdata) {
  tt <- object$terms
  expr <- attr(tt, "variables")[[attr(tt, "response") + 1L]]
  missing <- setdiff(all.vars(expr), names(newdata))
  if (length(missing)) abort("`newdata` lacks the response ", paste(missing, collapse = ", "), ".")
  eval(expr, newdata, environment(tt))
}

# The formula methods of cv_fgseq() and sparse_sequence().

#' @rdname cv_fgseq
#' @param data Data frame holding the variables of the formula (formula method); `predict()` then
#'   accepts `newdata`. The variables of the formula's offset are measurements paid at step 0 (see
#'   [fgseq()]): every fit, the `budget` table, `budget.min`, `budget.1se` and `stop_cost` include their
#'   cost (a `stop_cost` given must exceed it); the held-out timeliness is that of the curves beyond it,
#'   which every budget shares.
#' @param subset,na.action Formula method, as for [fgseq()]: `subset` (evaluated in `data`) selects the
#'   rows to cross-validate; `na.action` is [stats::na.fail()] (stop on NA), [stats::na.omit()] or
#'   [stats::na.exclude()], missing: from `getOption("na.action")` as [stats::glm()] takes it.
#' @export
cv_fgseq.formula <- function(x, data, subset, weights, offset, na.action, cost = NULL, needs = NULL, ...) {
  if (!missing(data) && inherits(data, "fgseq_chunks")) abort_cv_chunks("data")
  check_glmnet_names(...)
  check_dots(..., forwarded = c(setdiff(names(formals(cv_fgseq.default)),
                                        c("x", "y", "group", "cost", "weights", "offset", "...")),
                                cv_forwarded()))
  d <- model_design(match.call(), parent.frame())
  # the offset's measurements are paid at step 0 by every fit (cv_fgseq.default() scores the curves
  # beyond that cost, which every budget shares)
  meas <- formula_measurements(cost, needs, d$variables, d$data_names, d$offset_variables)
  cv <- cv_fgseq.default(d$x, d$y, group = d$group, cost = meas, weights = d$weights, offset = d$offset, ...)
  cv$fgseq.fit <- lapply(cv$fgseq.fit, function(f) with_formula(f, design = d, call = match.call(), generic = "cv_fgseq"))
  call <- match.call()
  call[[1L]] <- quote(cv_fgseq)
  cv$call <- call
  cv
}

#' @rdname sparse_sequence
#' @param data Data frame holding the variables of the formula (formula method); `predict()`,
#'   [anytime_curve()] and [compare_sequences()] then accept `newdata`. For the gaussian family a
#'   two-level factor response is read as 0/1 (the second level is 1).
#' @param subset,na.action Formula method, as for [fgseq()]: `subset` (evaluated in `data`) selects the
#'   rows to fit; `na.action` is missing or [stats::na.fail()] (stop on NA), [stats::na.omit()] or
#'   [stats::na.exclude()] (rows with NA in a model variable, the weights or the offset are dropped).
#' @export
sparse_sequence.formula <- function(x, data, subset, weights, offset, na.action, cost = NULL, needs = NULL, ...) {
  check_dots(..., forwarded = formula_forwarded(sparse_sequence.default))
  d <- model_design(match.call(), parent.frame())
  meas <- formula_measurements(cost, needs, d$variables, d$data_names, d$offset_variables)
  family <- list(...)$family
  if (is.factor(d$y) && is_default_family(family)) {
    if (nlevels(d$y) != 2L) abort("the response must be numeric, logical or a two-level factor.")
    d$y <- as.numeric(d$y == levels(d$y)[2L])
  }
  fit <- sparse_sequence.default(d$x, d$y, group = d$group, cost = meas, weights = d$weights, offset = d$offset, ...)
  with_formula(fit, d, match.call(), "sparse_sequence")
}
