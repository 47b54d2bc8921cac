# The parsnip engine "fgseq": linear_reg() (gaussian), logistic_reg() (binomial), multinom_reg()
# (multinomial) and poisson_reg() (poisson; parsnip itself defines poisson_reg() since its version
# 0.2.0, so the poissonreg extension is not needed for it).
#
# How the budget reaches parsnip, tune and dials
# * The budget is an engine argument, `set_engine("fgseq", budget = 20)`, not one of the main
#   arguments of the model functions. linear_reg()'s main arguments are `penalty` and `mixture`, and a
#   budget is neither: mapped onto `penalty`, tune and dials would treat it as a penalty (a log10 scale
#   from 1e-10 to 1, printed and plotted as "Amount of Regularization"), and a user reading
#   `penalty = 20` could not tell that 20 is money or milliseconds. Engine arguments are what parsnip
#   offers for arguments that only one engine has.
# * The argument is registered with set_model_arg(parsnip = "budget", original = "budget", func =
#   fgseq::budget, has_submodel = TRUE). parsnip's tunable() method for model specifications reads that
#   table for the engine, so `budget = tune()` finds its dials parameter, budget(), with no tunable()
#   method here (the model classes are parsnip's), and tune reads `has_submodel` from the same table:
#   tune_grid() fits once per resample, at the largest budget of the grid, and calls multi_predict()
#   for the others.
# * The budget is a prediction-time argument, as glmnet's `penalty` is for its path: the fit is the
#   whole sequence (fgseq() without max_cost) and a budget picks its prefix `G<B>`, so one fit serves
#   every budget. The fit function only checks it; predict() and multi_predict() read it (from their
#   own `budget` argument, else from the specification).
# * The fit interface is "formula". fit() hands the user's formula to fgseq()'s formula method as it is:
#   one group per model term, `cost` named by variable (by measurement with `needs`), factors kept as
#   one group of dummy columns, predictions on new data through the formula's terms. fit_xy() reaches
#   it through parsnip's formula `..y ~ .` over the columns of `x`, so that each column is a term. The
#   engine argument `group` merges terms into groups (named by term, or one label per term in order);
#   such a fit is fgseq()'s matrix method on the formula's design, with `cost` (and `needs`) named by
#   group, and it keeps the formula's terms for predict().
# * Registration: in .onLoad(), when parsnip is installed, as parsnip's documentation for engines of
#   other packages describes. So that loading fgseq does not load parsnip and its dependencies when they
#   are not used, the engine is registered at once when parsnip's namespace is loaded, and otherwise by a
#   hook on parsnip's load.

# The models the engine serves: parsnip's model function, its mode and the fgseq family.
parsnip_models <- list(
  linear_reg = list(mode = "regression", family = "gaussian"),
  logistic_reg = list(mode = "classification", family = "binomial"),
  multinom_reg = list(mode = "classification", family = "multinomial"),
  poisson_reg = list(mode = "regression", family = "poisson")
)

.onLoad <- function(libname, pkgname) {
  if (isNamespaceLoaded("parsnip")) {
    register_parsnip_engine()
  } else {
    setHook(packageEvent("parsnip", "onLoad"), function(...) register_parsnip_engine())
  }
  invisible()
}

# Adds the "fgseq" engine to each of parsnip_models that parsnip knows; a model that has the engine
# already (fgseq loaded again in the same session) is left as it is.
register_parsnip_engine <- function() {
  env <- parsnip::get_model_env()
  for (model in names(parsnip_models)) {
    if (!model %in% env$models) next
    known <- env[[model]]
    if (!is.null(known) && "fgseq" %in% known$engine) next
    register_parsnip_model(model, parsnip_models[[model]]$mode, parsnip_models[[model]]$family)
  }
  invisible()
}

register_parsnip_model <- function(model, mode, family) {
  parsnip::set_model_engine(model, mode = mode, eng = "fgseq")
  parsnip::set_dependency(model, eng = "fgseq", pkg = "fgseq", mode = mode)
  parsnip::set_model_arg(model = model, eng = "fgseq", parsnip = "budget", original = "budget",
                         func = list(pkg = "fgseq", fun = "budget"), has_submodel = TRUE)
  parsnip::set_fit(model = model, eng = "fgseq", mode = mode, value = list(
    interface = "formula", protect = c("formula", "data"),
    func = c(pkg = "fgseq", fun = "fgseq_parsnip_fit"), defaults = list(family = family)))
  parsnip::set_encoding(model = model, eng = "fgseq", mode = mode, options = list(
    predictor_indicators = "none", compute_intercept = FALSE, remove_intercept = FALSE,
    allow_sparse_x = FALSE))
  types <- if (mode == "regression") "numeric" else c("class", "prob")
  for (type in types) {
    parsnip::set_pred(model = model, eng = "fgseq", mode = mode, type = type, value = list(
      pre = NULL, post = NULL, func = c(pkg = "fgseq", fun = "fgseq_parsnip_predict"),
      args = list(object = quote(object), new_data = quote(new_data), type = type)))
  }
}

#' The fit and prediction functions of the parsnip engine
#'
#' The functions that parsnip calls for the `"fgseq"` engine of [parsnip::linear_reg()],
#' [parsnip::logistic_reg()], [parsnip::multinom_reg()] and [parsnip::poisson_reg()]; use those
#' model functions with `set_engine("fgseq", ...)` rather than these. See [fgseq_engine] for the
#' engine's arguments.
#'
#' @param formula,data The model formula and data frame parsnip passes (with [parsnip::fit_xy()]:
#'   `..y ~ .` over the columns of `x`).
#' @param family The fgseq family of the model: `"gaussian"`, `"binomial"`, `"multinomial"` or
#'   `"poisson"`.
#' @param budget,group,cost,needs The engine arguments, see [fgseq_engine].
#' @param ... The other engine arguments: arguments of [fgseq()] (`method`, `lambda`, `criterion`,
#'   `max_steps`, ...); an unknown one is an error of class `fgseq_error_unknown_argument`.
#' @param object A parsnip `model_fit` of the engine.
#' @param new_data Data frame of new observations (the predictors of the fit).
#' @param type `"numeric"`, `"class"` or `"prob"`.
#' @return `fgseq_parsnip_fit()`: the [fgseq()] fit (class `"fgseq"`). `fgseq_parsnip_predict()`: for
#'   `"numeric"` a numeric vector, for `"class"` a character vector, for `"prob"` a data frame with one
#'   column per class (named by class), one row per row of `new_data`, at the budget of the
#'   specification (or of `predict()`). `predict._fgseq()`, the [predict()] method of parsnip's
#'   `model_fit` of the engine: a tibble, as parsnip's `predict()` returns it.
#' @section Errors:
#'   The errors of the engine's arguments ([fgseq_engine], section Errors), all of class
#'   `fgseq_error_input` naming the argument, and those of [fgseq()].
#' @keywords internal
#' @export
fgseq_parsnip_fit <- function(formula, data, family, budget = NULL, group = NULL, cost = NULL, needs = NULL, ...) {
  check_engine_budget(budget, multi = FALSE)
  if (length(cost) > 1L && is.null(names(cost))) {
    abort("`cost` of the fgseq engine must be named (by variable or term; by group with `group`, by ",
          "measurement with `needs`): parsnip's fit() and fit_xy() do not fix the order of the terms. ",
          "It has ", length(cost), " values and no names.")
  }
  if (is.null(group)) {
    fit <- fgseq(formula, data = data, family = family, cost = cost, needs = needs, ...)
  } else {
    design <- model_design(call("fgseq", x = quote(formula), data = quote(data)), environment())
    column_group <- engine_group(group, unique(design$group))[design$group]
    fit <- fgseq.default(design$x, design$y, group = unname(column_group), cost = cost, needs = needs,
                         family = family, ...)
    fit <- with_formula(fit, design, match.call(), "fgseq")
  }
  check_budget_range(budget, fit)
  fit
}

# The engine argument `group`: the group of each term, named by term label (every term named) or
# unnamed with one label per term in their order. Returns the labels named by term.
engine_group <- function(group, terms) {
  if (!is.atomic(group) || !(is.character(group) || is.numeric(group) || is.factor(group)) || anyNA(group)) {
    abort("`group` of the fgseq engine must be a character, integer or factor vector without NA: ",
          "one group label per term (named by term).")
  }
  labels <- as.character(group)
  if (is.null(names(group))) {
    if (length(group) != length(terms)) {
      abort("`group` of the fgseq engine has ", length(group), " values for ", length(terms), " terms (",
            paste(terms, collapse = ", "), "): give one label per term, or name it by term.")
    }
    return(stats::setNames(labels, terms))
  }
  unknown <- setdiff(names(group), terms)
  absent <- setdiff(terms, names(group))
  if (length(unknown) || length(absent) || anyDuplicated(names(group))) {
    abort("`group` of the fgseq engine must name each term once (", paste(terms, collapse = ", "), ")",
          if (length(unknown)) paste0("; not terms: ", paste(unknown, collapse = ", ")),
          if (length(absent)) paste0("; terms without a group: ", paste(absent, collapse = ", ")), ".")
  }
  stats::setNames(labels, names(group))[terms]
}

# The engine's `budget`: NULL, or (multi = FALSE) one number, (multi = TRUE) a non-empty numeric
# vector, in cost units, without NA.
check_engine_budget <- function(budget, multi) {
  if (is.null(budget)) return(invisible())
  ok <- is.numeric(budget) && length(budget) >= 1L && !anyNA(budget) && (multi || length(budget) == 1L)
  if (!ok) {
    abort("`budget` of the fgseq engine must be ", if (multi) "a numeric vector" else "one number",
          " (cost units) without NA; it is ",
          if (is.numeric(budget)) paste0("of length ", length(budget)) else paste0("of class ", class(budget)[1L]),
          if (!multi && length(budget) > 1L) ": give one budget, or several to multi_predict()", ".")
  }
  invisible()
}

# The budgets a fit can be asked for: from the cost of its step 0 (0, or an offset's measurements) to
# the cost of every group of the fit (the path's last cost, or more when constant groups stayed out).
budget_range <- function(fit) {
  c(fit$path$cost[1L], max(fit$path$cost, sum(fit$measurement_cost)))
}

check_budget_range <- function(budget, fit) {
  if (is.null(budget)) return(invisible())
  range <- budget_range(fit)
  out <- budget < range[1L] * (1 - 1e-12) | budget > range[2L] * (1 + 1e-12)
  if (any(out)) {
    abort("`budget` of the fgseq engine (", paste(format(budget[out]), collapse = ", "), ") is outside ",
          "the costs of the fit's path: give budgets from ", format(range[1L]), " to ", format(range[2L]),
          " (the cost of every group), in the units of `cost`.")
  }
  invisible()
}

# The budget(s) of a prediction: `budget` given to predict() or multi_predict(), else the
# specification's engine argument, else (multi_predict() only) the costs of the fit's path.
prediction_budget <- function(object, budget, multi) {
  if (is.null(budget)) budget <- parsnip::eval_args(object$spec)$eng_args$budget
  if (is.null(budget)) {
    if (multi) return(unique(object$fit$path$cost))
    abort("`budget` is missing: the fgseq engine predicts at a budget; give it to set_engine(\"fgseq\", ",
          "budget = ) or to predict(budget = ).")
  }
  check_engine_budget(budget, multi)
  check_budget_range(budget, object$fit)
  budget
}

#' @rdname fgseq_parsnip_fit
#' @export
fgseq_parsnip_predict <- function(object, new_data, type) {
  budget <- prediction_budget(object, NULL, multi = FALSE)
  pred <- parsnip_predictions(object, new_data, type, budget)
  switch(type,
         numeric = pred$.pred,
         class = as.character(pred$.pred_class),
         prob = stats::setNames(as.data.frame(pred[-1L]), object$lvl))
}

# The predictions of a model_fit at the budgets `budget`, from one predict() of its fgseq fit: a data
# frame with one row per row of new_data and budget (the budgets of a row together, in the order
# given), columns `budget` and `.pred` (numeric), `.pred_class` (a factor) or `.pred_<class>` (prob).
parsnip_predictions <- function(object, new_data, type, budget) {
  fit <- object$fit
  n <- nrow(new_data)
  m <- length(budget)
  raw <- stats::predict(fit, newdata = new_data, budget = budget, type = if (type == "class") "class" else "response")
  by_row <- function(p) as.vector(t(matrix(p, n, m)))  # n x m, row by row
  out <- data.frame(budget = rep(budget, times = n))
  if (type == "numeric") {
    out$.pred <- by_row(raw)
  } else if (type == "class") {
    out$.pred_class <- factor(by_row(raw), levels = object$lvl)
  } else if (length(dim(raw)) == 3L) {                       # multinomial: n x classes x budgets
    for (k in seq_along(object$lvl)) {
      out[[paste0(".pred_", object$lvl[k])]] <- by_row(raw[, match(object$lvl[k], fit$classes), ])
    }
  } else {                                                   # binomial: P(second class)
    p <- by_row(raw)
    out[[paste0(".pred_", object$lvl[1L])]] <- 1 - p
    out[[paste0(".pred_", object$lvl[2L])]] <- p
  }
  out
}

#' @rdname fgseq_parsnip_fit
#' @param opts Not used (parsnip's argument for `type = "raw"`, which the engine has not).
#' @export
`predict._fgseq` <- function(object, new_data, type = NULL, opts = list(), budget = NULL, ...) {
  budget <- prediction_budget(object, budget, multi = FALSE)
  object$spec$eng_args <- as.list(object$spec$eng_args)  # a plain list: it may hold the value itself
  object$spec$eng_args$budget <- budget
  predict_model_fit <- utils::getS3method("predict", "model_fit", envir = asNamespace("parsnip"))
  predict_model_fit(object, new_data = new_data, type = type, opts = opts, ...)
}

#' Predictions of the fgseq engine at many budgets
#'
#' The [parsnip::multi_predict()] method of a model fitted with `set_engine("fgseq")`: one fit, one
#' [predict()][predict.fgseq] call for all budgets (the path of one fit holds the model of every
#' budget). tune's `tune_grid()` uses it to evaluate a grid of budgets from one fit per resample.
#'
#' @param object A parsnip `model_fit` of the `"fgseq"` engine.
#' @param new_data Data frame of new observations (the predictors of the fit).
#' @param type `"numeric"` (regression models; the default for them), `"class"` (the default for
#'   classification models) or `"prob"`.
#' @param budget Numeric vector of budgets in cost units, each from the cost of step 0 to the cost of
#'   every group of the fit; `NULL` takes the specification's `budget`, else every cost of the fit's
#'   path (`object$fit$path$cost`).
#' @param ... Not used; an unknown argument is an error of class `fgseq_error_unknown_argument`.
#' @return A tibble with one row per row of `new_data` and one list column `.pred`: for each row a
#'   tibble with one row per budget (in the order of `budget`) and columns `budget` and `.pred`
#'   (numeric), `.pred_class` (a factor with the outcome's levels) or `.pred_<class>` (one
#'   probability column per class).
#' @section Errors:
#'   Stops with an error of class `fgseq_error_input` naming `budget` when it is not numeric, holds NA
#'   or lies outside the fit's costs, and naming `type` when it is not a prediction type of the model.
#' @seealso [fgseq_engine], [budget()].
#' @examplesIf requireNamespace("parsnip", quietly = TRUE)
#' spec <- parsnip::set_engine(parsnip::linear_reg(), "fgseq", cost = c(cyl = 1, disp = 2, hp = 2, wt = 4))
#' fit <- parsnip::fit(spec, mpg ~ cyl + disp + hp + wt, data = mtcars)
#' parsnip::multi_predict(fit, mtcars[1:2, ], budget = c(1, 3, 9))$.pred
#' @usage \method{multi_predict}{_fgseq}(object, new_data, type = NULL, budget = NULL, ...)
#' @rawNamespace S3method(parsnip::multi_predict, "_fgseq")
multi_predict._fgseq <- function(object, new_data, type = NULL, budget = NULL, ...) {
  check_dots(...)
  types <- if (object$spec$mode == "regression") "numeric" else c("class", "prob")
  if (is.null(type)) type <- types[1L]
  type <- check_choice(type, types, "type")
  budget <- prediction_budget(object, budget, multi = TRUE)
  pred <- parsnip_predictions(object, new_data, type, budget)
  rows <- rep(seq_len(nrow(new_data)), each = length(budget))
  parts <- lapply(split(pred, rows), function(part) tibble::as_tibble(part))
  tibble::tibble(.pred = unname(parts))
}

#' Budget, a tuning parameter of the fgseq engine
#'
#' A [dials][dials::new_quant_param] parameter for the engine argument `budget` of
#' `set_engine("fgseq")` (see [fgseq_engine]): the money, time or other cost units a prediction may
#' spend on groups. `tune()` on `budget` finds it; tune's `tune_grid()` then fits once per resample
#' and predicts every budget of the grid from that fit.
#'
#' @param range Numeric vector of two values, the smallest and largest budget (cost units).
#'   The default's upper end is unknown until finalized: [dials::finalize()] (which `tune_grid()`
#'   calls with the predictors when the grid is not given) sets it to the number of predictor
#'   columns, the cost of every group when each costs 1. With other costs give `range`, or `fit`.
#' @param trans `NULL` (budgets on their own scale) or a transformation of the scales package.
#' @param fit `NULL`, or a fit whose path gives the range: an [fgseq()] fit or a parsnip `model_fit`
#'   of the engine. The range is then from the cost of its step 0 to the cost of every group, the
#'   budgets within which the engine predicts.
#' @return A quantitative parameter of dials (class `"quant_param"`), of type double, named
#'   `budget`.
#' @section Errors:
#'   Stops with an error of class `fgseq_error_input` when dials is not installed, when `fit` is
#'   not a fit of fgseq, or when `range` is not two numbers (or [dials::unknown()]).
#' @seealso [fgseq_engine]
#' @examplesIf requireNamespace("dials", quietly = TRUE)
#' budget(range = c(0, 300))
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' dials::grid_regular(budget(fit = fit), levels = 4)
#' @export
budget <- function(range = c(0, dials::unknown()), trans = NULL, fit = NULL) {
  if (!requireNamespace("dials", quietly = TRUE)) {
    abort("budget() needs the dials package: install.packages(\"dials\").")
  }
  if (!is.null(fit)) {
    if (inherits(fit, "model_fit")) fit <- fit$fit
    if (!inherits(fit, "fgseq")) abort("`fit` must be an fgseq() fit or a parsnip model_fit of the fgseq engine.")
    range <- budget_range(fit)
  }
  if (length(range) != 2L || !all(vapply(range, function(r) dials::is_unknown(r) || (is.numeric(r) && !is.na(r)),
                                         logical(1)))) {
    abort("`range` must be two numbers (cost units), the smallest and largest budget.")
  }
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE), trans = trans,
                         label = c(budget = "Budget (cost units)"), finalize = finalize_budget)
}

# dials' finalizer of budget(): an unknown upper end becomes the number of predictor columns (the cost
# of every group at the default cost of 1 per column).
finalize_budget <- function(object, x, ...) {
  rng <- dials::range_get(object, original = FALSE)
  if (!dials::is_unknown(rng$upper)) return(object)
  dials::range_set(object, c(rng$lower, ncol(x)))
}

#' The parsnip engine "fgseq"
#'
#' With parsnip installed, fgseq adds the engine `"fgseq"` to [parsnip::linear_reg()] (family
#' gaussian), [parsnip::logistic_reg()] (binomial), [parsnip::multinom_reg()] (multinomial) and
#' [parsnip::poisson_reg()] (poisson). The fit is [fgseq()]'s whole sequence; a budget picks the
#' prefix a prediction uses, as [predict(budget = )][predict.fgseq] does.
#'
#' @section Engine arguments:
#' Given to `set_engine("fgseq", ...)`; vectors and lists are taken whole:
#' * `budget`: one number, the budget of predictions in the units of `cost`, from the cost of step 0
#'   (0 without an offset) to the cost of every group of the fit; it can be tuned (`budget = tune()`,
#'   its parameter is [budget()]) and is a submodel argument: `tune_grid()` fits once per resample
#'   and predicts every budget with [multi_predict()][multi_predict._fgseq]. `predict(fit, new_data,
#'   budget = )` overrides it. Without it, `predict()` stops.
#' * `cost`: a numeric vector named by variable (a term of the formula; with [parsnip::fit_xy()], a
#'   column of `x`), by group with `group`, by measurement with `needs`, as [fgseq()]'s formula
#'   method takes it. It must be named when it has more than one value (parsnip does not fix the order
#'   of the terms). `NULL`: cost 1 each.
#' * `group`: the group of each term, a vector of labels named by term (every term once) or with one
#'   label per term in order (the columns of `x` for [parsnip::fit_xy()]); terms of one group are
#'   bought together. `cost` and `needs` are then named by group, as for [fgseq()]'s matrix method.
#'   `NULL`: one group per term.
#' * `needs`: a named list of the measurements of each variable (group with `group`), as for [fgseq()].
#' * `method`, `lambda` and the other arguments of [fgseq()] (`criterion`, `max_steps`, ...).
#'
#' @section Why budget is an engine argument:
#' The budget is not a penalty, so it is not parsnip's `penalty` (tune and dials would give it the
#' scale and label of a penalty). It is an engine argument registered with its own dials parameter,
#' [budget()], and marked as a submodel argument, as glmnet's penalty is: one fit gives the model of
#' every budget.
#'
#' @section Predictions:
#' `predict()` returns, as parsnip does, `.pred` (regression: the mean, `type = "response"` of
#' [predict.fgseq()]), `.pred_class` and `.pred_<class>` (classification), at the budget; they are
#' `predict(fit$fit, newdata = new_data, budget = )`.
#'
#' @section Errors:
#' Errors of class `fgseq_error_input` name the argument: `budget` not one number, or outside the fit's
#' costs (at fit and at prediction time); `cost` unnamed with more than one value; `group` of the
#' wrong length, with NA, or with names that are not the terms; the errors of [fgseq()] for the other
#' arguments (an unknown argument: class `fgseq_error_unknown_argument`).
#'
#' @examplesIf requireNamespace("parsnip", quietly = TRUE)
#' heart$diagnosis <- factor(heart$diagnosis)
#' spec <- parsnip::set_engine(parsnip::logistic_reg(), "fgseq", cost = heart_cost, budget = 20)
#' fit <- parsnip::fit(spec, diagnosis ~ ., data = heart)
#' predict(fit, heart[1:3, ], type = "prob")
#' predict(fit, heart[1:3, ], budget = 120)
#' @name fgseq_engine
NULL
