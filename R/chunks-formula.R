# Formula fits from chunks of data frames: fgseq(formula, data = fgseq_chunks(<data frames>), ...).
#
# The design is fixed once, before any pass of the fit: the variables' types and factor levels come
# from a `template` data frame the user gives, or from a first pass over the chunks (the union of the
# levels of each factor, in the order they appear; the sorted union for character variables, as
# model.frame() sorts them). The terms, the factor levels (`xlevels`) and the contrasts then follow from
# the template as they follow from `data` in memory, and every chunk is turned into the model matrix of
# its rows with them (model.frame(xlev = ) and model.matrix(contrasts.arg = )) when a pass reads it: the
# fit from chunks runs on numeric chunks as fgseq.fgseq_chunks() does, and equals the in-memory formula
# fit of the same rows. A chunk whose variable has a level outside the template, or another type, stops
# the fit with an error naming the chunk and the variable.

#' @name fgseq_chunks
#' @rdname fgseq_chunks
#' @section Formula fits from chunks of data frames:
#' `fgseq(formula, data = fgseq_chunks(...), cost, needs, family, template, ...)` fits a formula from
#' chunks that are data frames (files of data frames, a list of them, a function returning chunk `i`, or
#' [dbi_chunks()] for a database table), as the formula method fits `data` in memory: one group per
#' model term, `cost` by variable and `needs` by variable, `weights` evaluated in each chunk, for the
#' gaussian, binomial, Poisson and multinomial families; `offset` (and `offset()` terms), evaluated in
#' each chunk too, for the binomial, Poisson and multinomial families only: a Gaussian fit from chunks
#' refuses an offset (class `fgseq_error_chunk_offset`; subtract it from the response). The terms, the
#' factor levels and the contrasts are fixed once and applied to every chunk:
#' * from `template`, a data frame whose columns give the types and factor levels of the model
#'   variables (for example `data[0, ]` of the full data, or a data frame of a few rows with every
#'   level); a character variable of the template is read with the sorted distinct values it holds;
#' * without `template`, from a first pass over the chunks: each factor's levels are the union of its
#'   levels in the chunks, in the order they appear (chunk 1's first), each character variable's the
#'   sorted union of its values, as [stats::model.frame()] sorts them in memory.
#'
#' Chunk columns that hold text where the template has a factor are read as that factor (databases and
#' text files store factors as text). The fit equals the in-memory formula fit of the same rows (the
#' sequence, and the coefficients up to the Newton tolerance of the GLM families); `predict(fit,
#' newdata = )` works as for an in-memory formula fit. `subset` and `na.action` are not taken (select
#' rows when reading the chunks); a chunk with NA in a model variable stops the fit (class
#' `fgseq_error_na`). A chunk whose variable holds a level the template lacks stops with an error of
#' class `fgseq_error_chunk_level`, one whose variable has another type (numeric where the template has a
#' factor, a missing variable, ...) with class `fgseq_error_chunk_type`; both name the chunk and the
#' variable. Without `template`, the columns of chunk 1 fix what `.` in the formula stands for: chunk 1
#' lacking a variable the formula names, or a later chunk holding a column that chunk 1 lacks (a variable
#' `.` would take in that chunk only), stops the fit with class `fgseq_error_chunk_type`, naming the
#' chunk and the column. A chunk of no rows holds the model variables but adds nothing (their types are
#' not checked: a database gives no type to no values).
#' @examples
#'
#' # a formula fit from chunks of data frames, with factors and an interaction
#' pieces <- split(heart, rep(1:3, length.out = nrow(heart)))
#' f <- diagnosis ~ . + sex:cp
#' chunked <- fgseq(f, data = fgseq_chunks(pieces), cost = heart_cost, family = "binomial",
#'                  template = heart[0, ])
#' in_memory <- fgseq(f, data = heart, cost = heart_cost, family = "binomial")
#' identical(chunked$sequence, in_memory$sequence)
#' max(abs(chunked$beta - in_memory$beta))
#' predict(chunked, newdata = heart[1:3, ], budget = 20, type = "response")
NULL

#' @name fgseq
#' @rdname fgseq
#' @details The formula method also fits data in chunks of data frames: `data` may be
#'   [fgseq_chunks()] of data frames or [dbi_chunks()] (a database table), with an optional `template`
#'   (a data frame fixing the types and factor levels); see the section Formula fits from chunks of
#'   data frames of [fgseq_chunks()].
NULL

# The type of a model variable, as the design reads it: numeric (integer or double), logical, factor
# (or ordered), character; anything else is "other" (a matrix column, a date, ...), kept as it is.
variable_type <- function(v) {
  if (is.factor(v)) "factor" else if (is.character(v)) "character" else if (is.logical(v)) "logical" else
    if (is.numeric(v) && is.null(dim(v))) "numeric" else class(v)[1L]
}

# The signature of the model variables `vars` of a data frame: per variable its type and, for factors and
# character variables, its levels (factors: levels(); character: the sorted distinct values), and
# whether it is ordered. `where`: how an error names the frame ("chunk 3", "`template`").
frame_signature <- function(df, vars, where) {
  if (!is.data.frame(df)) abort(where, " must be a data frame holding the variables of the formula.", class = "formula")
  missing <- setdiff(vars, names(df))
  if (length(missing)) {
    abort(where, " lacks the model variable(s) ", paste(missing, collapse = ", "), ": give every chunk every ",
          "variable of the model.", class = "chunk_type")
  }
  lapply(stats::setNames(vars, vars), function(v) {
    col <- df[[v]]
    type <- variable_type(col)
    list(type = type, ordered = is.ordered(col),
         levels = if (type == "factor") levels(col) else if (type == "character") sort(unique(col[!is.na(col)])))
  })
}

# Whether a chunk's variable of type `got` can be read with the type `want`: the same type, or text
# (character) for a factor, as databases and text files store factors.
same_kind <- function(got, want) identical(got, want) || (got == "character" && want == "factor")

# Merge the signature `b` of chunk `i` into the signature `a` so far: the same types (a factor in some
# chunks and text in others is a factor), the union of the levels (new factor levels appended,
# character values sorted again).
merge_signature <- function(a, b, i) {
  for (v in names(a)) {
    ta <- a[[v]]$type
    tb <- b[[v]]$type
    if (!same_kind(tb, ta) && !same_kind(ta, tb)) {
      abort("chunk ", i, ": variable `", v, "` is ", tb, " where the chunks before have it ", ta,
            "; give it one type in every chunk.", class = "chunk_type")
    }
    if (ta == "factor" || tb == "factor") {
      a[[v]]$levels <- union(a[[v]]$levels, b[[v]]$levels)
      a[[v]]$type <- "factor"
      a[[v]]$ordered <- a[[v]]$ordered || b[[v]]$ordered
    } else if (ta == "character") {
      a[[v]]$levels <- sort(union(a[[v]]$levels, b[[v]]$levels))
    }
  }
  a
}

# A data frame of no rows with the types and levels of `sig`: the template the terms, factor levels and
# contrasts are taken from, as model_design() takes them from `data` in memory.
signature_frame <- function(sig) {
  cols <- lapply(sig, function(s) {
    switch(s$type,
           numeric = numeric(0), logical = logical(0),
           factor = factor(character(0), levels = s$levels, ordered = s$ordered),
           character = factor(character(0), levels = s$levels),
           abort("variable of type ", s$type, " cannot be read from chunks of data frames.", class = "chunk_type"))
  })
  as.data.frame(cols, optional = TRUE, stringsAsFactors = FALSE)
}

# The formula design of chunked data: list(terms, xlevels, contrasts, group, columns, variables,
# data_names, response_levels), from the template frame `tmpl` (no rows, the model variables only);
# `data_names`: every column of the data (costs of columns the formula does not use are ignored).
chunk_design <- function(formula, tmpl, sig, data_names) {
  mt <- stats::terms(formula, data = tmpl)
  if (attr(mt, "response") == 0L) abort("the formula must have a response, as in y ~ .", class = "formula")
  if (attr(mt, "intercept") == 0L) {
    abort("the formula removes the intercept (`- 1` or `+ 0`), which a fit cannot honour (the intercept is ",
          "always fitted, unpenalized): remove `- 1` (or `+ 0`).", class = "formula")
  }
  labels <- attr(mt, "term.labels")
  if (!length(labels)) abort("the formula must have at least one term on its right-hand side.", class = "formula")
  frame <- tryCatch(stats::model.frame(mt, tmpl, drop.unused.levels = FALSE, na.action = stats::na.pass),
                    error = function(e) {
                      abort("the formula's model frame cannot be built from the variables of the chunks: ",
                            conditionMessage(e), ". Give every chunk (or `template`) each variable the formula uses.",
                            class = "formula", parent = e)
                    })
  mm <- stats::model.matrix(mt, frame)
  assign <- attr(mm, "assign")
  keep <- assign > 0L
  response <- stats::model.response(frame)
  list(terms = attr(frame, "terms"), xlevels = stats::.getXlevels(attr(frame, "terms"), frame),
       contrasts = attr(mm, "contrasts"), group = labels[assign[keep]], columns = colnames(mm)[keep],
       variables = term_variables(mt, data_names), data_names = data_names,
       response_levels = if (is.factor(response)) levels(response) else if (is.logical(response)) c("FALSE", "TRUE"))
}

# A function turning chunk `df` (a data frame; `i` its number) into the numeric chunk list(x, y, weights,
# offset) of fgseq_chunks(), with the fixed design. `weights` and `offset`: NULL or expressions of the
# call, evaluated in the chunk, then in the formula's environment, as glm() evaluates them in `data`.
# Built here so that what travels to the workers holds the design only.
chunk_converter <- function(design, sig, weights, offset) {
  force(design)
  force(sig)
  force(weights)
  force(offset)
  tt <- design$terms
  env <- environment(tt)
  package_closure(function(df, i) {
    got <- frame_signature(df, names(sig), paste("chunk", i))
    if (!nrow(df)) {
      # a chunk of no rows: its columns may have any type (a database or a text file gives no type to no
      # values); it adds nothing to any pass
      y <- if (isTRUE(design$multinomial)) factor(character(0), levels = design$response_levels) else numeric(0)
      return(list(x = matrix(0, 0L, length(design$columns), dimnames = list(NULL, design$columns)), y = y))
    }
    for (v in names(sig)) {
      if (!same_kind(got[[v]]$type, sig[[v]]$type)) {
        abort("chunk ", i, ": variable `", v, "` is ", got[[v]]$type, " where the template has it ", sig[[v]]$type,
              "; give it the template's type.", class = "chunk_type")
      }
      new <- setdiff(got[[v]]$levels, sig[[v]]$levels)
      if (length(new)) {
        abort("chunk ", i, ": variable `", v, "` has level(s) ", paste0("\"", utils::head(new, 5), "\"", collapse = ", "),
              " that the template does not: give a `template` with every level, or recode them.",
              class = "chunk_level")
      }
    }
    mf <- tryCatch(stats::model.frame(tt, df, xlev = design$xlevels, na.action = stats::na.pass),
                   error = function(e) {
                     abort("chunk ", i, ": its model frame cannot be built: ", conditionMessage(e), ". Give it the ",
                           "variables of the formula with the template's types.", class = "chunk_type", parent = e)
                   })
    bad <- names(mf)[vapply(mf, anyNA, logical(1))]
    if (length(bad)) {
      abort("chunk ", i, ": variable(s) ", paste(bad, collapse = ", "), " hold NA; remove or impute those rows ",
            "before the fit (a fit from chunks drops no row).", class = "na")
    }
    mm <- stats::model.matrix(tt, mf, contrasts.arg = design$contrasts)
    y <- stats::model.response(mf)
    if (isTRUE(design$multinomial)) {
      y <- factor(as.character(y), levels = design$response_levels)
    } else {
      if (is.factor(y) || is.character(y)) y <- as.numeric(y == design$response_levels[2L])
      if (is.logical(y)) y <- as.numeric(y)
    }
    off <- stats::model.offset(mf)
    in_df <- function(e) if (is.null(e)) NULL else eval(e, df, env)
    if (!is.null(offset)) off <- if (is.null(off)) in_df(offset) else off + in_df(offset)
    list(x = mm[, design$columns, drop = FALSE], y = unname(y), weights = in_df(weights), offset = off)
  })
}

# fgseq(formula, data = <fgseq_chunks of data frames>): the call of fgseq.formula() (`call`, evaluated
# in `env`) and its arguments.
fgseq_formula_chunks <- function(formula, data, cost, needs, call, template = NULL, family = "gaussian", ...) {
  for (a in c("subset", "na.action")) {
    if (!is.null(call[[a]])) {
      abort("`", a, "` is for data in memory; a fit from chunks uses every row of every chunk: select the ",
            "rows when reading the chunks.", class = "formula")
    }
  }
  weights <- call$weights
  offset <- call$offset
  if (is.null(template)) template <- data$template  # dbi_chunks(template = )
  # the model variables of `df` (chunk 1 or the template, called `name`): it must be a data frame (else
  # the error `not_frame`) holding every variable of the formula that the formula's environment does not
  # hold as data (else the error "lacks ...", then `lacks`, of class `class`). Returns list(vars, names).
  variables_of <- function(df, name, not_frame, lacks, class) {
    if (!is.data.frame(df)) abort(name, " must be ", not_frame, class = "formula")
    absent <- setdiff(all.vars(formula), c(".", names(df)))
    env <- environment(formula) %||% globalenv()
    absent <- absent[!vapply(absent, function(v) {
      val <- get0(v, envir = env)
      !is.null(val) && !is.function(val)
    }, logical(1))]
    if (length(absent)) abort(name, " lacks the model variable(s) ", paste(absent, collapse = ", "), lacks, class = class)
    list(vars = intersect(all.vars(stats::terms(formula, data = df)), names(df)), names = names(df))
  }
  if (is.null(template)) {
    # the first pass: the types and levels of the model variables over every chunk, and the columns of
    # chunk 1, which fix what `.` stands for
    first <- variables_of(read_chunk(data$get, data$items[[1L]], 1L), "chunk 1",
                          "a data frame holding the variables of the formula.",
                          paste0(" of the formula: give every chunk every variable the formula uses (or a `template` ",
                                 "of the data's columns)."), "chunk_type")
    vars <- first$vars
    data_names <- first$names
    # with `.`, a column of a later chunk that chunk 1 lacks would be a model variable left out; a
    # variable of the formula that chunk 1 lacks is read from the formula's environment, and a later
    # chunk holding it would be read otherwise there
    dot_names <- if ("." %in% all.vars(formula)) data_names
    env_vars <- setdiff(all.vars(formula), c(".", data_names))
    sig <- map_reduce_chunks(data$items, data$get, signature_part(vars, dot_names, env_vars), add_signature_parts)
    if (is.null(sig)) abort_empty_chunks("data")
    sig <- sig$sig
  } else {
    own <- variables_of(template, "`template`", paste0("a data frame with the model variables' types and factor ",
                                                        "levels (for example the first rows of the data)."),
                        ": give it every column the formula uses (a `.` in the formula stands for the template's columns).",
                        "formula")
    vars <- own$vars
    data_names <- own$names
    sig <- frame_signature(template, vars, "`template`")
    empty <- vapply(sig, function(s) s$type == "character" && !length(s$levels), logical(1))
    if (any(empty)) {
      abort("`template` has character variable(s) ", paste(names(sig)[empty], collapse = ", "), " without values: ",
            "make them factors with every level.", class = "formula")
    }
  }
  tmpl <- signature_frame(sig)
  environment(formula) <- environment(formula) %||% parent.frame()
  design <- chunk_design(formula, tmpl, sig, data_names)
  levels <- design$response_levels
  fam <- check_family(family, "chunks")
  classes <- family_def(fam)$classes
  if (classes == "two" && !is.null(levels) && length(levels) != 2L) {
    abort("the response has ", length(levels), " levels (", paste(utils::head(levels, 5), collapse = ", "), "); ",
          "family = \"", fam, "\" needs two.", class = "input")
  }
  # a multinomial response reaches every chunk as a factor with the template's levels (the classes)
  design$multinomial <- classes == "each"
  meas <- formula_measurements(cost, needs, design$variables, design$data_names,
                               offset_variables(design$terms, offset, design$data_names))
  chunks <- structure(list(items = Map(function(item, i) list(item = item, i = i), data$items, seq_along(data$items)),
                           get = design_reader(data$get, chunk_converter(design, sig, weights, offset)),
                           n = data$n, source = data$source, read = data$read, arg = "data"),
                      class = "fgseq_chunks")
  # the measurements, checked here, go down as they are (the offset's paid at step 0 by the fit)
  fit <- fgseq.fgseq_chunks(chunks, group = design$group, cost = meas, family = family, ...)
  if (!is.null(design$response_levels) && !is.null(fit$classes) && classes == "two") {
    fit$classes <- design$response_levels
    fit$responses <- design$response_levels[2L]
  }
  with_formula(fit, c(design[c("terms", "xlevels", "contrasts")], list(na.action = NULL, model = NULL)), call, "fgseq")
}

# The function reading a chunk of the fit (an item list(item, i)): the data frame read by `get` (NULL:
# the item is the data frame), turned into its numeric chunk by `convert`. Built here so that what
# travels to the workers holds these two functions only.
design_reader <- function(get, convert) {
  force(get)
  force(convert)
  package_closure(function(it) convert(if (is.null(get)) it$item else get(it$item), it$i))
}

# Two parts of the first pass, merged (a top-level function: it travels to every worker, and a closure
# would carry the frame it was made in).
add_signature_parts <- function(a, b) list(sig = merge_signature(a$sig, b$sig, b$i), i = b$i)

# A chunk's part of the first pass: the signature of its model variables and its number; NULL for a
# chunk of no rows (it holds the variables, but their types say nothing: a database or a text file
# gives the columns of no rows any type). `dot_names`: NULL, or for a formula with `.` the columns of
# chunk 1, which `.` stands for: a chunk with another column is an error (that variable would be in the
# model of its rows only).
signature_part <- function(vars, dot_names = NULL, env_vars = character(0)) {
  force(vars)
  force(dot_names)
  force(env_vars)
  function(chunk, i) {
    where <- paste("chunk", i)
    sig <- frame_signature(chunk, vars, where)
    extra <- union(intersect(names(chunk), env_vars), if (!is.null(dot_names)) setdiff(names(chunk), dot_names))
    if (length(extra)) {
      abort(where, " has column(s) ", paste(utils::head(extra, 5L), collapse = ", "), if (length(extra) > 5L) ", ...",
            " that chunk 1 lacks: the columns of chunk 1 fix the model's variables (what the formula's `.` stands ",
            "for, and which of its variables come from the data), so these would be model variables of some ",
            "chunks only. Give every chunk the same columns, name the variables in the formula instead of `.`, or ",
            "give a `template` (its columns are what `.` stands for).", class = "chunk_type")
    }
    if (!nrow(chunk)) return(NULL)
    list(sig = sig, i = i)
  }
}
