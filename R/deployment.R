# Anytime prediction at deployment, shared by every learner (predict.anytime_fit()): rows that lack
# some groups (missing = "prefix"), one budget per row (per_row = TRUE), and what a prediction at a
# budget needs (type = "groups", "measurements").

# What the prediction at each requested step needs (type = "groups" or "measurements"): a list, one data
# frame per step (named like the prediction's columns). Groups: `step`, `group`, `group_cost` (the cost
# of its measurements not needed by earlier groups) and `cost` (cumulative). Measurements:
# `measurement`, `step` (the first step that needs it) and `cost`.
prediction_needs <- function(object, steps, type) {
  gs <- paid_groups(object)
  paid <- as.character(object$offset_needs)  # a formula's offset measurements, paid at step 0
  table <- if (type == "groups") {
    data.frame(step = gs$step, group = gs$group, group_cost = gs$group_cost,
               cost = sum(object$measurement_cost[paid]) + cumsum(gs$group_cost), stringsAsFactors = FALSE)
  } else {
    needed <- c(list(paid), object$needs[gs$group])
    name <- unlist(needed, use.names = FALSE)
    first <- !duplicated(name)
    data.frame(measurement = name[first], step = rep(c(0L, gs$step), lengths(needed))[first],
               cost = unname(object$measurement_cost[name[first]]), stringsAsFactors = FALSE)
  }
  out <- lapply(steps, function(s) {
    part <- table[table$step <= s, , drop = FALSE]
    rownames(part) <- NULL
    part
  })
  stats::setNames(out, names(steps))
}

# The steps requested of predict(): a named integer vector, one step per budget (per_row = FALSE) or
# per row of the rows `design$x` holds (per_row = TRUE: one budget per row of the new data, of which
# the rows a fit with na.action = na.omit or na.exclude leaves out are dropped with their budgets).
request_steps <- function(object, budget, step, per_row, design) {
  if (per_row) {
    n <- if (is.null(design$rows)) nrow(design$x) else design$n
    name <- if (!is.null(budget)) "budget" else "step"
    given <- if (!is.null(budget)) budget else step
    if (is.null(given)) {
      abort("`per_row = TRUE` needs `budget` (or `step`) with one value per row of the new data (", n, " rows).")
    }
    if (length(given) != n) {
      abort("`", name, "` must have one value per row of the new data (", n, " rows) with `per_row = TRUE`; ",
            "it has ", length(given), ".")
    }
    if (anyNA(given)) {
      abort("`", name, "` holds NA with `per_row = TRUE`: give every row a ", name, " (0 for the intercept only).")
    }
    if (!is.null(design$rows)) {
      if (!is.null(budget)) budget <- budget[design$rows] else step <- step[design$rows]
    }
  }
  resolve_steps(object, budget, step)
}

# The linear predictor of every row at its requested steps, each row limited to the longest prefix it
# has, in one pass over the columns the steps read (the core's kernel, greedy/predict.hpp): list(link =
# n x (m P) matrix, the P columns of request b side by side; step = n x m steps used; n_infinite = the
# Inf values met in those columns, which predict_request() refuses).
# a0: P x (K + 1) intercepts; beta: list of P p x (K + 1) coefficient matrices (sparse or dense).
linear_prefix <- function(object, x, steps, per_row, a0, beta) {
  requested <- if (per_row) matrix(as.integer(steps), ncol = 1L) else matrix(as.integer(steps), nrow = 1L)
  .prefix_predict(x, column_steps(object), requested, a0, as.matrix(do.call(cbind, beta)))
}

# The same for a learner whose steps are not one linear predictor each (the Greedy Miser's trees): rows
# are grouped by the step they use, and each group is predicted by predict_steps(x, step), the model
# of its first steps only (no row is predicted at every step). When every row has what the requested
# steps read (without per_row), all rows are predicted at once at those steps.
prefix_by_step <- function(object, x, steps, per_row, predict_steps) {
  n_infinite <- sum(is.infinite(x))
  n <- nrow(x)
  first <- .first_missing_step(x, column_steps(object), max(c(steps, 0L)))
  requested <- if (per_row) matrix(as.integer(steps), ncol = 1L) else matrix(as.integer(steps), n, length(steps), byrow = TRUE)
  used <- pmin(requested, first - 1L)
  if (!per_row && all(used == requested)) return(list(link = predict_steps(x, steps), step = used, n_infinite = n_infinite))
  P <- length(object$responses)
  link <- matrix(0, n, ncol(used) * P)
  for (s in unique(as.vector(used))) {
    hit <- used == s
    rows <- which(rowSums(hit) > 0)
    H <- predict_steps(x[rows, , drop = FALSE], s)
    for (b in which(colSums(hit) > 0)) {
      r <- which(hit[rows, b])
      link[rows[r], (b - 1L) * P + seq_len(P)] <- H[r, ]
    }
  }
  list(link = link, step = used, n_infinite = n_infinite)
}

# The head of predict() for every anytime fit: `type`, `missing` and `per_row` checked (a class
# prediction asked only of a fit with classes), then either what the requested steps need (`needs`, for
# type = "groups" or "measurements": the answer itself) or the design of the new data (`design`, from
# prediction_design(): new_design(), or the training data when neither `newx` nor `newdata` is given,
# with the offset of the prediction), its matrix `x`, the
# requested `steps` (request_steps()) and the `labels` of the prediction's columns.
prediction_request <- function(object, newx, newdata, newoffset, budget, step, type, missing, per_row) {
  type <- check_choice(match_type(type, prediction_types), prediction_types, "type")  # conventions.R
  if (type == "class" && is.null(object$classes)) {
    abort("`type = \"class\"` needs a binomial or multinomial fit; this fit's family is ",
          family_def(object$family)$name, ".")
  }
  missing <- check_choice(missing, c("error", "prefix", "condition"), "missing")
  if (missing == "condition" && !inherits(object, "fgseq")) {
    abort("`missing = \"condition\"` needs a linear sequence (an \"fgseq\" fit): its linear predictor is conditioned ",
          "on the observed groups; predict a ", class(object)[1L], " fit with missing = \"prefix\".")
  }
  per_row <- check_flag(per_row, "per_row")
  req <- list(type = type, missing = missing, per_row = per_row)
  if (type %in% c("groups", "measurements")) {
    return(c(req, list(answer = prediction_needs(object, resolve_steps(object, budget, step), type))))
  }
  if (type %in% c("coefficients", "nonzero")) {
    return(c(req, list(answer = coefficient_prediction(object, budget, step, type))))
  }
  design <- prediction_design(object, if (!base::missing(newx)) newx, base::missing(newx), newdata, newoffset,
                              missing)
  steps <- request_steps(object, budget, step, per_row, design)
  c(req, list(design = design, x = design$x, steps = steps, labels = if (per_row) "per_row" else names(steps),
              newdata = !is.null(newdata)))
}

# The prediction a request of prediction_request() asks for: the link of the requested steps on the
# design's x, finished in the requested type and shape (finish_prediction()). With missing = "prefix"
# or per_row, each row is predicted by the longest prefix it has, and the steps used are attached.
# Complete rows are the prefix prediction's special case: a newx not yet checked (`unchecked`, missing =
# "error") is predicted as with missing = "prefix", in the same pass that finds what a row lacks, and is
# then refused if a row lacked a value the requested steps read or a column they do not read holds NA,
# NaN or Inf (refuse_nonfinite()).
predict_request <- function(object, req) {
  if (req$missing == "condition") return(predict_conditioned(object, req))
  prefix <- req$missing == "prefix" || req$per_row
  unchecked <- isTRUE(req$design$unchecked)
  pre <- fit_link(object, req$x, req$steps, prefix || unchecked, req$per_row)
  if (unchecked) refuse_nonfinite(object, req$x, req$steps, req$per_row, pre, if (isTRUE(req$newdata)) "newdata" else "newx")
  if (!is.null(pre$n_infinite) && pre$n_infinite > 0) {
    abort("`", if (isTRUE(req$newdata)) "newdata" else "newx", "` contains Inf or -Inf in the columns of the ",
          "sequence; only NA (not computed) is allowed there.", class = "input")
  }
  finish_prediction(object, pre$link, req$type, rownames(req$x), req$labels, req$per_row, if (prefix) pre$step,
                    req$design)
}

# The prediction of missing = "condition": each row by the requested step's model given the groups it
# holds (condition_link(); rows holding a prefix by the prefix's model), with the steps used and which
# predictions were conditioned attached (attribute "conditioned", the shape of "step").
predict_conditioned <- function(object, req) {
  arg <- if (isTRUE(req$newdata)) "newdata" else "newx"
  pre <- condition_link(object, req$x, req$steps, req$per_row, isTRUE(req$condition_prefixes), arg)
  if (!is.null(pre$n_infinite) && pre$n_infinite > 0) {
    abort("`", arg, "` contains Inf or -Inf in the columns of the sequence; only NA (not computed) is allowed there.",
          class = "input")
  }
  link <- if (req$type == "link") pre$mean_link else pre$link
  out <- finish_prediction(object, link, req$type, rownames(req$x), req$labels, req$per_row, pre$step, req$design)
  shaped <- function(v) if (req$per_row) stats::setNames(v[, 1L], rownames(req$x)) else
    matrix(v, nrow(v), dimnames = list(rownames(req$x), req$labels))
  attr(out, "cost") <- pad_rows(shaped(pre$cost), req$design)
  attr(out, "conditioned") <- pad_rows(shaped(pre$conditioned), req$design)
  out
}

# The check of a newx that missing = "error" predicts (predict_request()): every value finite, as
# check_newx() asks of new data. The prefix prediction `pre` counted the Inf values of the columns the
# requested steps read and stopped each row before the first value it lacks there; the columns the steps
# do not read are scanned here.
refuse_nonfinite <- function(object, x, steps, per_row, pre, arg = "newx") {
  requested <- if (per_row) steps else rep(steps, each = nrow(x))
  unread <- which(column_steps(object) > max(c(steps, 0L)))
  if (pre$n_infinite > 0 || any(pre$step != requested) || (length(unread) && .count_nonfinite(x, unread) > 0)) {
    abort_nonfinite_newx(arg)
  }
  invisible()
}

# The design of a prediction (prediction_request()): the training design without newx and newdata,
# else new_design(). Its `offset` is what finish_prediction() adds to the link (NULL for a fit without
# an offset, else m x P): the fit's offset() terms and `offset` argument evaluated in newdata (formula
# fits, as predict.glm()), the training offset, or `newoffset` given with newx (required then, as in
# glmnet).
prediction_design <- function(object, newx, newx_missing, newdata, newoffset, missing) {
  if (newx_missing && is.null(newdata)) {
    if (!is.null(newoffset)) abort("`newoffset` goes with `newx`: give the new observations too.")
    design <- training_design(object)
  } else {
    # a newx, or the model matrix of newdata, is checked for NA, NaN and Inf in the pass that predicts it
    # (predict_request()); NA in the variables of newdata is refused before, by the model frame
    design <- new_design(object, newx, newdata, allow_na = TRUE,
                         keep_na = missing %in% c("prefix", "condition") || is.null(newdata))
    design$unchecked <- missing == "error"
  }
  if (!isTRUE(object$has_offset)) {
    if (!is.null(newoffset)) abort("`newoffset` is given, but the fit has no offset: leave `newoffset` out, or refit with `offset`.")
    design["offset"] <- list(NULL)
    return(design)
  }
  offset <- if (!is.null(design$offset)) {
    if (!is.null(newoffset)) {
      abort("`newoffset` is for `newx`: a formula fit takes its offset from `newdata`, as predict.glm() does.")
    }
    design$offset
  } else {
    if (is.null(newoffset)) abort("`newoffset` is needed: the fit used an `offset`.")
    newoffset
  }
  design$offset <- check_offset(offset, nrow(design$x), length(object$responses), name = "newoffset")
  design
}

# The tail of predict() for every anytime fit: the link matrix of the requests (`labels`; the P columns
# of each side by side) plus the design's offset (m x P) at every request, in the requested `type` and
# shape, padded to the rows of the input (pad_rows()), with the steps used per row (`used`, NULL: none)
# attached.
finish_prediction <- function(object, link, type, rows, labels, per_row, used, design) {
  if (!is.null(design$offset)) link <- link + design$offset[, rep_len(seq_len(ncol(design$offset)), ncol(link)), drop = FALSE]
  pred <- shape_prediction(link, type, family_def(object$family)$inverse, object$classes, object$responses, rows,
                           labels, per_row)
  with_steps_used(pad_rows(pred, design), object, used, rows, labels, per_row, design)
}

# A prediction in its final shape from the link matrix (n x (m P), the P columns of request b side by
# side): a matrix n x m (one response) or an array n x P x m (several), or with per_row a vector of n
# (one response) or an n x P matrix; `type` applies the inverse link or picks the class.
shape_prediction <- function(link, type, inverse, classes, responses, rows, labels, per_row) {
  n <- nrow(link)
  m <- length(labels)
  P <- ncol(link) %/% m
  if (P == 1L) {
    eta <- link
    dimnames(eta) <- list(rows, labels)
    out <- switch(type, link = eta, response = inverse(eta),
                  class = matrix(classes[(inverse(eta) > 0.5) + 1L], n, dimnames = dimnames(eta)))
    if (per_row) out <- stats::setNames(out[, 1L], rows)
    return(out)
  }
  eta <- array(link, c(n, P, m), dimnames = list(rows, responses, labels))
  if (type == "link" && !per_row) return(eta)
  mu <- eta
  if (type != "link") for (k in seq_len(m)) mu[, , k] <- inverse(matrix(eta[, , k], n))
  if (type == "class") {
    cls <- matrix(apply(mu, c(1L, 3L), function(p) classes[which.max(p)]), n, dimnames = list(rows, labels))
    return(if (per_row) stats::setNames(cls[, 1L], rows) else cls)
  }
  if (per_row) return(matrix(mu[, , 1L], n, P, dimnames = list(rows, responses)))
  mu
}

# Attach the step used and the cost spent (cost units) per row and request, shaped as the prediction's
# rows x requests (a vector with per_row) and padded as the prediction (pad_rows()); `used` NULL: none.
with_steps_used <- function(pred, object, used, rows, labels, per_row, design) {
  if (is.null(used)) return(pred)
  cost <- object$path$cost[used + 1L]
  if (per_row) {
    step <- stats::setNames(as.integer(used), rows)
    cost <- stats::setNames(cost, rows)
  } else {
    step <- matrix(as.integer(used), nrow(used), dimnames = list(rows, labels))
    cost <- matrix(cost, nrow(used), dimnames = list(rows, labels))
  }
  attr(pred, "step") <- pad_rows(step, design)
  attr(pred, "cost") <- pad_rows(cost, design)
  pred
}

#' Predict with an anytime fit at budgets or steps
#'
#' Anytime prediction: at budget `B` the model uses the groups of the longest prefix of the sequence
#' whose cumulative cost is at most `B` (Hu et al. 2016, section 1, `G<B>`). One method serves every
#' anytime fit: sequences (`"fgseq"`: [fgseq()], [fgseq_stats()], [fgseq_chunks()],
#' [sparse_sequence()]) and Greedy Miser fits (`"miser"`: [miser()]; see the section on them).
#'
#' @section Partially computed rows:
#' At deployment a row may arrive with only some groups computed: the deadline hit before the next
#' group, a test was not ordered or is not back. Such a row holds `NA` in the columns of the groups it
#' lacks (for `newdata`, `NA` in a variable: every model-matrix column of every term using the variable
#' becomes `NA`, through the model frame and the term of each column). With `missing = "prefix"` the
#' row is predicted by the longest prefix of the sequence within the budget whose groups it has: if its
#' first missing group is step `j` of the sequence, budget `B` uses step `min(k(B), j - 1)`, where
#' `k(B)` is the step of `G<B>`. A row missing the first group gets the intercept; `NA` in groups beyond
#' the step used are never read. Each row is predicted once per budget at its own step (one pass over
#' `newx`; no prediction at every step). With `missing = "error"` (the default) an `NA` stops, unless
#' the fit was made with `na.action = na.omit` or `na.exclude` (see Details). Complete rows are the
#' special case where every row reaches the step of its budget: they are predicted by the same one pass
#' over the columns the requested steps read (no matrix product at other steps), which also finds the
#' `NA`, `NaN` and `Inf` refused there; the other columns of `newx` are only scanned for them.
#'
#' @section Missing groups:
#' With `missing = "condition"` a row may hold any set of the sequence's groups, not only a prefix: the
#' model of each requested step is conditioned on the groups the row holds, under a Gaussian working
#' model of `x` (the weighted mean `mu` and population covariance `Sigma` of the columns the sequence
#' uses, on the original scale of `x`, which the fit stores as `moments`). For the step's linear
#' predictor `eta = a0 + x' beta`, observed columns `O` and the others `M`,
#' \deqn{E[\eta | x_O] = a_0 + \mu'\beta + (\beta_O + \Sigma_{OO}^{-}\Sigma_{OM}\beta_M)'(x_O - \mu_O),}{E[eta | x_O] = a0 + mu' beta + (beta_O + Sigma_OO^- Sigma_OM beta_M)' (x_O - mu_O),}
#' \deqn{Var[\eta | x_O] = \beta_M'(\Sigma_{MM} - \Sigma_{MO}\Sigma_{OO}^{-}\Sigma_{OM})\beta_M.}{Var[eta | x_O] = beta_M' (Sigma_MM - Sigma_MO Sigma_OO^- Sigma_OM) beta_M.}
#' For the gaussian family at `lambda = 0` the conditioned coefficients are exactly those of least
#' squares on the observed columns (`lm(y ~ x_O)`, weighted as the fit), since `Sigma beta = Sigma_xy`;
#' for other fits it is the best linear predictor of the full model's `eta` from `x_O` under the working
#' model. `Sigma_OO^-` is a generalized inverse: the sweep operator (Goodnight 1979) on the joint
#' covariance of `x` and `eta` skips a column whose variance given the columns before it is below
#' `1e-9` of its own. `type = "response"` uses the conditional distribution of `eta`: binomial
#' probabilities by the probit approximation `E[plogis(eta)] ~ plogis(m / sqrt(1 + pi v / 8))` (MacKay
#' 1992), Poisson means `exp(m + v / 2)` (exact), multinomial the softmax of `m_c / sqrt(1 + pi v_cc /
#' 8)`; `"class"` the class of largest probability. Rows whose groups form a prefix of the requested
#' step's groups keep that prefix's own model (as with `missing = "prefix"`) unless
#' `condition_prefixes = TRUE`. A group is measured whole: a row holding some of a group's columns and
#' not others is an error (class `fgseq_error_partial_group`). The prediction carries the attributes
#' `step` (the step whose model was used), `cost` (what the groups the prediction reads cost: the
#' prefix's path cost, or the measurements of the groups conditioned on, cost units) and `conditioned`
#' (`TRUE` where the row's groups were not a prefix). A fit that keeps its training `x` forms the
#' moments from it when first conditioned (one pass over the sequence's columns; the fit itself pays
#' nothing for them); a lean fit (`keep_data = FALSE`) forms them before it drops `x` and stores them as
#' `moments`, as do fits from [fgseq_stats()] (from its cross-product) and GLM fits from chunks (one more
#' pass over the chunks). Sequences that use more than `getOption("fgseq.moment_columns", 5000)` columns
#' get none (`q` columns take `8 q^2` bytes), and conditioning them is an error (class
#' `fgseq_error_no_moments`) that says so. [fgseq_policy()] builds a per-row acquisition policy on this
#' predictor.
#'
#' @section Greedy Miser fits:
#' A [miser()] fit predicts with its first `t` boosting iterations: at budget `B`, the largest `t`
#' whose cumulative feature cost (the `cost` column of its `path`) is at most `B`, so that only
#' features already paid for are computed (Xu et al. 2012, equation 4 with the tree-evaluation budget
#' given by `t`); `step` counts iterations (0: the starting constant `H_0`), and `"link"` is the
#' additive predictor `H` (`"response"`: the same for gaussian, the probability of class 1 for
#' binomial, the softmax of `H` for multinomial). With `missing = "prefix"` a row holding `NA` is
#' predicted by the longest prefix of trees whose features (the columns they split on) it has: if the
#' first tree that splits on a column the row lacks belongs to iteration `j`, budget `B` uses iteration
#' `min(t(B), j - 1)`; a row lacking a feature of the first tree gets `H_0`. Rows are grouped by the
#' iteration they use and each group is predicted by its first trees only. With `type = "groups"` or
#' `"measurements"`, `step` is the iteration whose trees first use the group. A fit that is not what
#' [miser()] made (a fit edited or damaged in a file: trees not numbered in order, a node number, child
#' or column out of range, or a non-finite leaf value, `init` or `eta`) is an error that names the
#' field (class `"fgseq_error_invalid_object"`).
#'
#' @section Per-row budgets and cost accounting:
#' With `per_row = TRUE`, `budget` (or `step`) gives one value per row: each row (a patient with its
#' own deadline) is predicted at its own budget, and the result has one prediction per row.
#' `type = "groups"` and `type = "measurements"` say what a prediction at each budget needs, without
#' new data (as grpreg's `type = "groups"`): the groups of `G<B>` in sequence order, or the
#' measurements they need, with their cost. The total cost of a budget's prediction is the last `cost`
#' of its groups table, and the sum of the `cost` column of its measurements table; both equal the
#' `cost` column of the fit's `path` at the step used.
#'
#' @inheritParams fgseq-arguments
#' @param type `"link"` (the linear predictor), `"response"` (the mean: probabilities for binomial and
#'   multinomial fits, expected counts for poisson; the same as `"link"` for gaussian and mgaussian),
#'   `"class"` (binomial and multinomial: the class label of largest probability), `"groups"` or
#'   `"measurements"` (what the prediction at each budget needs; see the section on cost accounting),
#'   `"coefficients"` (as [coef.fgseq()] at the budgets or steps) or `"nonzero"` (for each step, the
#'   indices of the columns of `x` with a nonzero coefficient, named by column), as
#'   `predict.glmnet()` gives them. Partially matched, as by [stats::predict.glm()] (`"resp"` is
#'   `"response"`).
#' @param newdata For fits made with the formula interface: a data frame with every variable of the
#'   model's terms (the response is not needed), one row per prediction. Used instead of `newx`.
#' @param newoffset Offset for the new observations in `newx` (a vector of length `m`, or an `m x P`
#'   matrix for multinomial and mgaussian fits); required when a matrix fit used an `offset` (as in
#'   glmnet). A formula fit takes its offset from `newdata` instead: its `offset()` terms and its
#'   `offset` argument, evaluated in `newdata` (as [stats::predict.glm()]).
#' @param missing `"error"` (the default: `NA` in `newx` or in the model variables of `newdata` is an
#'   error), `"prefix"` (a row is predicted by the longest prefix of the sequence it has; see the
#'   section on partially computed rows; a model variable absent from `newdata` is then missing in
#'   every row) or `"condition"` (sequences only: a row holding any set of groups is predicted by the
#'   requested step's model conditioned on them; see the section Missing groups). `NaN` counts as `NA`;
#'   `Inf` is an error either way.
#' @param condition_prefixes Logical, with `missing = "condition"`: also condition the rows whose groups
#'   form a prefix of the step's groups (`FALSE`, the default: they keep the prefix's own model).
#' @param per_row `FALSE` (every budget for every row) or `TRUE`: `budget` (or `step`) is a vector of one
#'   value per row of `newx` (or `newdata`), in cost units, without `NA`.
#' @details Without `newx` and `newdata`, the training rows are predicted (as [stats::predict.glm()]),
#'   padded with NA at the rows a fit with `na.action = na.exclude` left out. With `missing = "error"`,
#'   rows of `newdata` with NA in a model variable predict NA when the fit was made with
#'   `na.action = na.omit` or `na.exclude` (and are an error otherwise).
#' @return For gaussian, binomial and poisson fits a numeric matrix with one row per row of `newx` (or
#'   `newdata`) and one column per requested budget or step; with `type = "class"` a character matrix of
#'   the same shape. For multinomial and mgaussian fits an array `m x P x steps` (`P` classes or response
#'   columns) for `"link"` and `"response"`, and an `m x steps` character matrix for `"class"`.
#'
#'   With `per_row = TRUE` one prediction per row: a vector of length `m` (a character vector for
#'   `"class"`), or an `m x P` matrix for the `"link"` and `"response"` of multinomial and mgaussian fits.
#'
#'   With `missing = "prefix"` or `per_row = TRUE` the prediction carries two attributes, `m x steps`
#'   matrices (vectors of length `m` with `per_row = TRUE`) with the prediction's rows and budgets:
#'   `step`, the step of the sequence each row was predicted at (0 = intercept only), and `cost`, the
#'   cost spent on that row (the `path$cost` of that step, cost units).
#'
#'   With `type = "groups"` or `"measurements"`, a list with one data frame per requested budget or
#'   step (named `"budget=B"` or `"step<k>"`; every step `0..K` by default). Groups: one row per group of
#'   `G<B>` in sequence order, columns `step`, `group`, `group_cost` (the cost of the measurements the
#'   group needs that earlier groups did not) and `cost` (cumulative, cost units). Measurements: one row
#'   per measurement, in the order they are first needed, columns `measurement`, `step` (the first
#'   step that needs it) and `cost` (cost units). `newx`, `newdata`, `newoffset`, `missing` and
#'   `per_row` are not used.
#'
#'   With `type = "coefficients"`, the matrix (or list of matrices) of [coef.fgseq()]; with
#'   `type = "nonzero"`, a list with one integer vector per requested step (named as the columns of
#'   `coef()`): the indices of the columns of `x` with a nonzero coefficient.
#' @section Errors: Stops on an object that is not as fgseq() made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field); when `newx` or `newdata` has no rows; when `newdata` has a model
#'   variable of another type than the fit's (as `stats::.checkMFClasses()` checks; a character vector may stand for a
#'   factor); when `newoffset` is given to a fit without an offset; when `newx` has the wrong number of columns or column names that do not match
#'   the training `x`, when `newdata` lacks a variable of the model's terms, when `newx` or `newdata`
#'   hold `NA` with `missing = "error"` (class `"fgseq_error_na"`) or `Inf`, when `type = "class"`
#'   is asked of a fit that has no classes, when `newoffset` is missing for a fit with an offset, when
#'   `type` or `missing` is not one of its values (class `"fgseq_error_input"`), with `missing = "condition"`
#'   when a row holds a group in part (class `"fgseq_error_partial_group"`), the fit stores no moments
#'   (class `"fgseq_error_no_moments"`) or is not a sequence, when `per_row = TRUE` and
#'   `budget` (or `step`) is missing, has another length than the rows of the new data or holds `NA`
#'   (class `"fgseq_error_input"`), when an argument is unknown (class `"fgseq_error_unknown_argument"`), and as
#'   [coef.fgseq()] for `budget` and `step`.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Goodnight, J. H. (1979). A tutorial on the SWEEP operator. *The American Statistician* 33(3),
#'   149-158.
#'
#'   MacKay, D. J. C. (1992). The evidence framework applied to classification networks. *Neural
#'   Computation* 4(5), 720-736.
#' @seealso [write_predictor()] to apply the predictor outside R; [fgseq_policy()] for a per-row
#'   acquisition policy.
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' predict(fit, newdata = heart[1:5, ], budget = c(5, 20, 120))
#'
#' logistic <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
#' predict(logistic, newdata = heart[1:5, ], budget = c(5, 20, 120), type = "response")
#'
#' # a patient whose thallium scan is not back, and one with a tighter deadline
#' patients <- heart[1:3, ]
#' patients$thal[1] <- NA
#' predict(logistic, newdata = patients, budget = c(300, 300, 10), per_row = TRUE,
#'         missing = "prefix", type = "response")
#' predict(logistic, budget = 20, type = "groups")
#' @rdname predict.fgseq
#' @aliases predict.fgseq predict.miser
#' @export
predict.anytime_fit <- function(object, newx, ..., budget = NULL, step = NULL,
                                type = c("link", "response", "class", "groups", "measurements", "coefficients",
                                         "nonzero"),
                                newdata = NULL,
                          newoffset = NULL, missing = c("error", "prefix", "condition"), per_row = FALSE,
                          condition_prefixes = FALSE) {
  validate_fit(object)
  check_dots(...)
  req <- prediction_request(object, newx, newdata, newoffset, budget, step, type, missing, per_row)
  if (!is.null(req$answer)) return(req$answer)
  req$condition_prefixes <- check_flag(condition_prefixes, "condition_prefixes")
  predict_request(object, req)
}

# ---- the learner seam of a sequence (R/anytime_fit.R) ----

# The linear predictor of a sequence at `steps` on the rows of x, through the core's one-pass kernel
# (linear_prefix()) with or without `prefix`: only the columns the requested steps read are read (none
# at step 0, whose prediction is the intercept), so the others may hold anything, as the training x of
# a fit whose check of x max_time cut short, which the fit keeps unchecked. Without `prefix` (the
# training x, or the rows of newdata) a row lacking a value its step reads (NA, NaN or Inf) predicts
# NA there, as a matrix product of the coefficients would, and the steps used are not returned.
#' @export
fit_link.fgseq <- function(object, x, steps, prefix, per_row) {
  beta <- if (is.list(object$beta)) object$beta else list(object$beta)
  a0 <- if (is.matrix(object$a0)) object$a0 else matrix(object$a0, nrow = 1L)
  out <- linear_prefix(object, x, steps, per_row, a0, beta)
  if (prefix) return(out)
  short <- out$step != rep(steps, each = nrow(x))
  if (any(short)) out$link[short[, rep(seq_along(steps), each = length(beta)), drop = FALSE]] <- NA_real_
  list(link = out$link, step = NULL)
}
