#' Write an anytime predictor as portable JSON
#'
#' Writes what a service outside R (in C++, Java, Python, ...) needs to apply a fitted anytime
#' predictor: the sequence of groups, the columns and measurements of each group, the costs, and for
#' every step the model after it (for [fgseq()] fits the intercepts and coefficients on the original
#' scale of `x`, for [miser()] fits the trees). A consumer that has computed the groups of a prefix of
#' the sequence applies the model of that step (Hu et al. 2016, anytime prediction; Xu et al. 2012).
#' For an acquisition policy ([fgseq_policy()]), the document of its fit and what the policy needs to
#' choose each row's groups (the member `policy`).
#'
#' @section Schema (format `"fgseq-predictor"`, version 1):
#' A JSON object with
#' * `format` (`"fgseq-predictor"`), `version` (1), `model` (`"linear"` for [fgseq()] fits, `"trees"`
#'   for [miser()] fits), `family` and `link`: `"identity"` (gaussian, mgaussian: the prediction is the
#'   linear predictor), `"logit"` (binomial: probability of the second class `1 / (1 + exp(-eta))`),
#'   `"log"` (poisson: mean `exp(eta)`) or `"softmax"` (multinomial: `exp(eta_c) / sum_k exp(eta_k)`);
#' * `responses`: the `P` names of the linear predictors (the modelled class of a binomial fit, the
#'   classes of a multinomial fit, the response columns of a mgaussian fit, `"y"` otherwise);
#'   `classes`: the class labels (binomial: the first is predicted when the probability is at most 0.5),
#'   or `null`; `offset`: `true` when the consumer must add its offset to every linear predictor;
#' * `columns`: the names of the `p` input columns, in order (the columns of `x`, or the model-matrix
#'   columns of a formula fit, see `formula`);
#' * `groups`: one object per group, `label`, `columns` (its input columns), `measurements` (what it
#'   needs) and `cost` (its stand-alone cost); `measurements`: one object per measurement, `name` and
#'   `cost` (cost units; a measurement shared by several groups is paid once);
#' * `sequence`: the group labels in the order they are computed (for trees: first used);
#' * `steps`: one object per step `k = 0..K` (step 0: no group), with `step`, `groups` (labels of the
#'   groups the step adds), `new_columns` (the columns read from this step on), `group_cost` (the cost
#'   the step adds) and `cost` (cumulative: the cost of the measurements of steps `1..k`). For
#'   `"linear"`, `intercept` (an array of `P` numbers) and `coefficients` (an object mapping each column
#'   of the groups of steps `1..k` to an array of `P` numbers); the linear predictor of response `c` is
#'   `intercept[c] + sum over those columns of value * coefficients[column][c]`. For `"trees"`, `trees`:
#'   the indices (0-based) into `trees` of the trees the step adds.
#' * `"trees"` models also hold `init` (`P` starting constants), `shrinkage` (`eta`) and `trees`: one
#'   object per tree with `response` (0-based index of the linear predictor it adds to) and node arrays
#'   `feature` (input column name; `null` at a leaf), `threshold` (go to `left` when the value is
#'   `<= threshold`, else to `right`), `left`, `right` (0-based node indices within the tree; -1 at a
#'   leaf) and `value` (leaf output). Starting from node 0, follow the splits to a leaf. After step `k`
#'   the linear predictor of response `c` is `init[c] + shrinkage * sum of value` over the trees of steps
#'   `1..k` with `response = c`.
#' * `formula`: `null` for matrix fits. For formula fits, what the consumer computes from raw
#'   variables: `variables`, one object per model variable, `name`, `type` (`"numeric"` or `"factor"`; a
#'   logical variable is a factor with levels `"FALSE"`, `"TRUE"`), `levels` (factors), `contrasts` (the
#'   contrast function's name, factors) and `expression` (`true` when `name` is an R expression of the
#'   raw data columns in `inputs`, such as `log(chol)`, that the consumer must evaluate); and
#'   `columns`, one object per input column, `name`, `term` (its group), `numeric` (the names of the
#'   numeric variables it multiplies) and `factors` (for each factor of the term, `variable` and
#'   `coding`, an object mapping each level to a number). The column's value is the product of the
#'   numeric variables' values and of each factor's coding at the row's level (an empty product is 1).
#'
#' * `policy`: only in the document of an `"fgseq_policy"` ([fgseq_policy()]; the members above are then
#'   those of the policy's fit, as `write_predictor(policy$fit)` writes them). What a consumer needs to
#'   run the policy on a row as [predict.fgseq_policy()] and [next_group()] do (see the sections of
#'   [fgseq_policy()]): `rule` (`"adaptive"`, `"sequence"` or `"cascade"`), `family`, `step` (the step
#'   whose model is the full model), `groups` (the groups of its model, in the order of the sequence:
#'   the candidates, and the order in which ties are broken), `stopping` (what the threshold bounds:
#'   `"reduction"`, the best score, `"lookahead"`, the larger of the best score and the risk over the
#'   marginal cost of every group left when they fit in the budget, `"risk"`, the risk of stopping, or
#'   `"margin"` for the cascade),
#'   `threshold` (the one in use: `tau`, or `margin` for the cascade), `tau` and `margin` (`null` when not the rule's), `tol` (gaussian; else
#'   `null`), `budget`, `paid` (measurements paid before any group: a formula's offset), `epsilon`,
#'   `delta`, `calibration` (`n`, the calibration rows, and `disagreement`, their rate of disagreement
#'   with the full model at the threshold; `null` when `tau` or `margin` was given); the conditional
#'   model: `columns` (the `q` input columns of the model's groups, in the order of `columns`),
#'   `column_groups` (the group of each), `mu` (their training means), `diag0` (their variances, the
#'   scale of the sweep's rank tolerance), `base` (the `P` unconditional means of the linear
#'   predictors), `J` (the joint covariance of the `q` columns and the `P` linear predictors, `q + P`
#'   row arrays), `sweep_tolerance` (a pivot is swept only when its remaining variance is above this
#'   times its `diag0`); and the rules' constants: `bivariate_normal` (`rules`: the nodes `x` in (0, 1]
#'   and weights `w` of the 6-, 12- and 20-point Gauss-Legendre rules, half of each symmetric rule, of
#'   the bivariate normal probability of the expected risk; see [fgseq_policy()]), `tie_tolerance` (`1e-10`) and `tie_floor` (`1e-300`: scores within `tie_tolerance *
#'   max(|best|, tie_floor)` of the best tie, and the group first in `groups` wins), `budget_tolerance`
#'   (`1e-12`: a group fits when `(spent + marginal cost) * (1 - budget_tolerance) <= budget`). An
#'   infinite `threshold`, `tau` or `budget` is the string `"Inf"`. A row's prediction is the model of
#'   step `k` in `steps` when the groups it bought are the first `k` of the sequence, else the
#'   conditional mean of the linear predictors (response: the probit approximation, see
#'   [fgseq_policy()]).
#'
#'   `mixture`: only in the document of a binomial policy with a mixture working model
#'   (`fgseq_policy(working_model = )`, [fgseq_mixture()]); absent otherwise. Then the conditional model
#'   is the mixture's (see the section Working model and risk of [fgseq_policy()]): the single-Gaussian
#'   `J`, `mu`, `base` and `diag0` above stay in the document (the fit's own moments) and are not read.
#'   `components`: one object per component `k`, with `J` (the joint covariance under the component of
#'   the `q` columns and the linear predictor, `q + 1` row arrays), `mu` (its `q` means of the columns),
#'   `base` (its unconditional mean of the linear predictor, an array of one number), `diag0` (its `q`
#'   variances of the columns, the scale of the sweep's rank tolerance) and `log_prior` (the log of its
#'   mixing proportion); each component's pivots are swept as above, and its log weight given the swept
#'   columns `x_O` is `log_prior - log det(Sigma_OO) / 2 - (x_O - mu_O)' Sigma_OO^-1 (x_O - mu_O) / 2`.
#'   `draws`: the fixed standard normal draws of the expected risk of a candidate group, one row array
#'   per draw, as many entries as the largest group of the model has columns (a group of `d` columns
#'   reads the first `d`). `system.file("python", "fgseq_policy.py", package = "fgseq")` is a scorer in
#'   plain Python (standard library only) that runs the policy from this member exactly as R does, and
#'   says the next group for a partially measured row.
#'
#' The version stays 1 for policies: the `policy` member is an addition, and every other member means
#' what it means in the document of a fit, so a consumer of version 1 reads a policy's file as its fit's
#' anytime predictor.
#'
#' Numbers are written with 17 significant digits, so that they read back as the same doubles. A row
#' that lacks a group (a value not computed) uses the largest step `k` such that it has every column in
#' `new_columns` of steps `1..k` and whose `cost` is within its budget, as
#' `predict(missing = "prefix")` does.
#'
#' @param fit A fitted anytime predictor: an `"fgseq"` fit ([fgseq()], [sparse_sequence()]) or a
#'   `"miser"` fit ([miser()]); or an acquisition policy, an `"fgseq_policy"` ([fgseq_policy()]).
#' @param file A single path (character) of the JSON file to write. The JSON is written to a temporary
#'   file in the same directory and renamed to `file` once complete, so that a reader never sees a
#'   half-written file.
#' @param ... Nothing: an unknown argument is an error.
#' @return `file`, invisibly.
#' @section Errors: Stops on an object that is not as [fgseq()], [miser()] or [fgseq_policy()] made it (a field edited, or damaged in a file: class `fgseq_error_invalid_object`, naming the field; for a policy, its conditional model or threshold), before writing anything; stops (class `"fgseq_error_write"`) when `file` is not a single path or cannot be
#'   written (its directory does not exist or is not writable, or `file` is a directory), leaving no file
#'   behind; stops when `fit` is not an `"fgseq"` or `"miser"` fit or an `"fgseq_policy"`; stops (class
#'   `"fgseq_error_formula"`) when a formula fit has a matrix-valued variable (such as
#'   `poly(age, 3)`) or columns that the schema cannot describe (then fit with the matrix interface on
#'   the model matrix); stops when an argument is unknown (class `"fgseq_error_unknown_argument"`).
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Xu, Z., Weinberger, K. Q. and Chapelle, O. (2012). The Greedy Miser: learning under test-time
#'   budgets. *Proceedings of the 29th International Conference on Machine Learning (ICML)*.
#'   \url{https://arxiv.org/abs/1206.6451}
#' @seealso [predict.fgseq()] (`missing = "prefix"`, `per_row = TRUE`), [predict.fgseq_policy()],
#'   [next_group()], `vignette("deployment")`.
#' @examples
#' fit <- fgseq(diagnosis ~ age + sex + cp + chol, data = heart, family = "binomial",
#'              cost = heart_cost[c("age", "sex", "cp", "chol")])
#' path <- tempfile(fileext = ".json")
#' write_predictor(fit, path)
#' predictor <- jsonlite::fromJSON(path, simplifyVector = FALSE)
#' predictor$sequence
#' str(predictor$steps[[3]])
#' str(predictor$formula$columns[[3]])
#'
#' # an acquisition policy, and the plain-Python scorer that runs it
#' policy <- fgseq_policy(fit, tau = 1e-3)
#' write_predictor(policy, path)
#' str(jsonlite::fromJSON(path)$policy[c("rule", "groups", "threshold", "columns")])
#' system.file("python", "fgseq_policy.py", package = "fgseq")
#' @export
write_predictor <- function(fit, file, ...) {
  policy <- inherits(fit, "fgseq_policy")
  if (policy) validate_policy(fit, "fit") else validate_fit(fit, "fit")
  check_dots(...)
  if (!policy && !inherits(fit, "anytime_fit")) {
    abort("`fit` must be a fitted anytime predictor: an \"fgseq\" fit (fgseq()) or a \"miser\" fit (miser()), ",
          "or an \"fgseq_policy\" (fgseq_policy()).")
  }
  file <- check_output_file(if (missing(file)) NULL else file)
  doc <- if (policy) c(predictor_document(fit$fit), list(policy = policy_document(fit))) else predictor_document(fit)
  json <- jsonlite::toJSON(doc, auto_unbox = TRUE, json_verbatim = TRUE, pretty = TRUE, na = "null",
                           null = "null")
  write_whole_file(json, file)
  invisible(file)
}

# `file`: a single path whose directory exists and is writable.
check_output_file <- function(file) {
  if (!is.character(file) || length(file) != 1L || is.na(file) || !nzchar(file)) {
    abort("`file` must be a single path (a character string) to write the predictor to.", class = "write")
  }
  dir <- dirname(file)
  if (!dir.exists(dir) || file.access(dir, 2L) != 0L) {
    abort("`file` cannot be written: the directory '", dir, "' does not exist or is not writable.",
          class = "write")
  }
  if (dir.exists(file)) abort("`file` cannot be written: '", file, "' is a directory.", class = "write")
  file
}

# Writes `text` to a temporary file beside `file` and renames it: `file` is either complete or untouched.
write_whole_file <- function(text, file) {
  tmp <- tempfile(paste0(".", basename(file), "-"), tmpdir = dirname(file))
  ok <- tryCatch({
    writeLines(text, tmp, useBytes = TRUE)
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE)
  if (!ok || !suppressWarnings(file.rename(tmp, file))) {
    unlink(tmp)
    abort("`file` cannot be written: writing '", file, "' failed; nothing was left behind.", class = "write")
  }
  invisible(file)
}

# Numbers as JSON with 17 significant digits (jsonlite writes at most 15), read back as the same doubles.
json_numbers <- function(v) {
  v <- as.double(v)
  if (!all(is.finite(v))) abort("internal error: a non-finite number in the predictor.", class = "internal")
  structure(paste0("[", paste(sprintf("%.17g", v), collapse = ","), "]"), class = "json")
}
json_number <- function(v) structure(sprintf("%.17g", as.double(v)), class = "json")

# The whole document (see the schema in ?write_predictor) as a list for jsonlite.
predictor_document <- function(fit) {
  family <- family_def(fit$family)$name
  model <- predictor_model(fit)
  columns <- names(fit$group)
  labels <- names(fit$cost)
  groups <- lapply(labels, function(g) {
    list(label = g, columns = I(columns[fit$group == g]), measurements = I(fit$needs[[g]]),
         cost = json_number(fit$cost[[g]]))
  })
  measurements <- lapply(names(fit$measurement_cost), function(m) {
    list(name = m, cost = json_number(fit$measurement_cost[[m]]))
  })
  col_step <- column_steps(fit)
  gs <- paid_groups(fit)
  path <- fit$path
  steps <- lapply(path$step, function(k) {
    s <- list(step = k, groups = I(gs$group[gs$step == k]), new_columns = I(columns[col_step == k]),
              group_cost = json_number(path$group_cost[k + 1L]), cost = json_number(path$cost[k + 1L]))
    c(s, model$step(k))
  })
  doc <- list(format = "fgseq-predictor", version = 1L, model = model$model, family = family,
              link = family_def(family)$json_link, responses = I(fit$responses),
              classes = if (is.null(fit$classes)) NULL else I(fit$classes), offset = isTRUE(fit$has_offset),
              columns = I(columns), groups = groups, measurements = measurements, sequence = I(fit$sequence),
              steps = steps)
  doc <- c(doc, model$parts)
  doc["formula"] <- list(if (is.null(fit$terms)) NULL else formula_columns(fit))
  doc
}

# What a consumer computes for each model-matrix column of a formula fit: the product of numeric
# variables and of factor codings (contrasts, or indicators where R codes a factor fully). The
# description is checked against the model matrix of predict(newdata = ) on synthetic rows. `verb`: the
# function named in the errors (write_predictor(), predictor_sql()).
formula_columns <- function(fit, verb = "write_predictor()") {
  tt <- stats::delete.response(fit$terms)
  fac <- attr(tt, "factors")
  data_class <- attr(fit$terms, "dataClasses")
  vars <- rownames(fac)
  bad <- vars[grepl("matrix", data_class[vars])]
  if (length(bad)) {
    abort(verb, " cannot describe the matrix-valued variable(s) ", paste(bad, collapse = ", "),
          " of the formula; build the model matrix yourself and fit with the matrix interface.",
          class = "formula")
  }
  is_factor <- data_class[vars] %in% c("factor", "ordered", "logical", "character")
  names(is_factor) <- vars
  levels_of <- function(v) if (data_class[[v]] == "logical") c("FALSE", "TRUE") else fit$xlevels[[v]]
  contrast_name <- function(v) {
    ctr <- fit$contrasts[[v]]
    if (is.null(ctr)) ctr <- getOption("contrasts")[[if (data_class[[v]] == "ordered") 2L else 1L]]
    ctr
  }
  coding_of <- function(v, full) {
    lev <- levels_of(v)
    if (full) return(stats::setNames(diag(length(lev)), NULL))
    ctr <- contrast_name(v)
    m <- if (is.character(ctr)) get(ctr, mode = "function")(lev) else ctr
    as.matrix(m)
  }
  variables <- lapply(vars, function(v) {
    if (is_factor[[v]]) {
      ctr <- contrast_name(v)
      list(name = v, type = "factor", levels = I(levels_of(v)), contrasts = if (is.character(ctr)) ctr else "matrix")
    } else {
      list(name = v, type = "numeric", expression = !identical(make.names(v), v),
           inputs = I(all.vars(str2lang(v))))
    }
  })
  term_labels <- attr(tt, "term.labels")
  cols <- list()
  for (t in term_labels) {
    in_term <- vars[fac[, t] > 0]
    fvars <- in_term[is_factor[in_term]]
    codings <- lapply(fvars, function(v) coding_of(v, fac[v, t] == 2L))
    grid <- expand.grid(lapply(codings, function(m) seq_len(ncol(m))))
    names_t <- names(fit$group)[fit$group == t]
    if (nrow(grid) != length(names_t) && !(length(fvars) == 0L && length(names_t) == 1L)) {
      abort(verb, " cannot describe the columns of the term ", t, "; fit with the matrix interface.",
            class = "formula")
    }
    for (r in seq_along(names_t)) {
      factors <- lapply(seq_along(fvars), function(a) {
        code <- codings[[a]][, grid[r, a]]
        list(variable = fvars[a], coding = stats::setNames(lapply(code, json_number), levels_of(fvars[a])))
      })
      cols[[length(cols) + 1L]] <- list(name = names_t[r], term = t, numeric = I(setdiff(in_term, fvars)),
                                        factors = factors)
    }
  }
  check_formula_columns(fit, cols, is_factor, levels_of, verb)
  list(variables = variables, columns = cols)
}

# The columns as described, computed on synthetic rows, must equal the model matrix predict() builds.
check_formula_columns <- function(fit, cols, is_factor, levels_of, verb = "write_predictor()") {
  raw <- all.vars(stats::delete.response(fit$terms))
  data_class <- attr(fit$terms, "dataClasses")
  n <- 24L
  pseudo_values <- function(k) (seq_len(n) * 0.618034 * k) %% 1 + 0.5  # deterministic, no RNG state touched
  synth <- as.data.frame(lapply(stats::setNames(seq_along(raw), raw), function(a) {
    v <- raw[a]
    cls <- if (v %in% names(data_class)) data_class[[v]] else "numeric"
    if (cls == "logical") return(rep(c(FALSE, TRUE), length.out = n))
    if (v %in% names(fit$xlevels)) return(factor(rep(fit$xlevels[[v]], length.out = n), levels = fit$xlevels[[v]]))
    pseudo_values(a)
  }), stringsAsFactors = FALSE)
  want <- new_design(fit, newdata = synth)$x
  got <- vapply(cols, function(cl) {
    val <- rep(1, n)
    for (v in cl$numeric) val <- val * eval(str2lang(v), synth)
    for (f in cl$factors) {
      lev <- as.character(synth[[f$variable]])
      code <- vapply(f$coding, function(x) as.numeric(unclass(x)), numeric(1))
      val <- val * code[lev]
    }
    unname(val)
  }, numeric(n))
  if (!identical(dim(matrix(got, n)), dim(want)) || any(abs(got - want) > 1e-10 * pmax(1, abs(want)))) {
    abort(verb, " cannot describe the model-matrix columns of this formula; fit with the matrix ",
          "interface on the model matrix.", class = "formula")
  }
  invisible(TRUE)
}

# The constants of the policy's rules (see ?fgseq_policy), as R/policy.R applies them: a tie within a
# relative 1e-10 of the best score (floored at 1e-300), a group within the budget when (spent + its
# marginal cost) * (1 - 1e-12) <= budget.
policy_tie_tolerance <- 1e-10
policy_tie_floor <- 1e-300
policy_budget_tolerance <- 1e-12

# A threshold or budget that may be infinite: a JSON number, or the string "Inf".
json_limit <- function(v) if (is.infinite(v)) "Inf" else json_number(v)

# The `policy` member of the document of an "fgseq_policy" (see the schema in ?write_predictor).
policy_document <- function(policy) {
  fit <- policy$fit
  cm <- policy$cm
  calibrated <- !is.null(policy$n_calibration)
  doc <- list(rule = policy$rule, stopping = policy_stopping(policy), family = policy$family, step = as.integer(cm$step),
       groups = I(cm$groups), threshold = json_limit(policy_threshold(policy)),
       tau = if (!on_margin(policy)) json_limit(policy$tau),
       margin = if (on_margin(policy)) json_number(policy$margin),
       tol = if (!is.null(policy$tol)) json_number(policy$tol),
       budget = json_limit(policy$budget),
       paid = I(as.character(fit$offset_needs)),
       columns = I(names(fit$group)[cm$columns]), column_groups = I(unname(cm$col_group)),
       mu = json_numbers(cm$mu), diag0 = json_numbers(cm$diag0), base = json_numbers(cm$base),
       J = lapply(seq_len(nrow(cm$J)), function(i) json_numbers(cm$J[i, ])),
       sweep_tolerance = json_number(sweep_tolerance),
       bivariate_normal = list(rules = lapply(.bvn_rules(), function(r) list(x = json_numbers(r$x), w = json_numbers(r$w)))),
       tie_tolerance = json_number(policy_tie_tolerance), tie_floor = json_number(policy_tie_floor),
       budget_tolerance = json_number(policy_budget_tolerance),
       epsilon = json_number(policy$epsilon), delta = json_number(policy$delta),
       calibration = if (calibrated) list(n = as.integer(policy$n_calibration),
                                          disagreement = json_number(policy$disagreement)))
  if (!is.null(cm$mixture)) doc$mixture <- mixture_document(cm$mixture)  # only under a mixture working model
  doc
}

# The member `mixture` of a policy under a mixture working model (see the schema in ?write_predictor):
# each component's conditional model, as the single Gaussian's members, and the draws.
mixture_document <- function(mixture) {
  rows <- function(M) lapply(seq_len(nrow(M)), function(i) json_numbers(M[i, ]))
  list(components = lapply(mixture$components, function(c) {
         list(J = rows(c$J), mu = json_numbers(c$mu), base = json_numbers(c$base), diag0 = json_numbers(c$diag0),
              log_prior = json_number(c$log_prior))
       }),
       draws = rows(mixture$draws))
}
