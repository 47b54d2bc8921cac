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
