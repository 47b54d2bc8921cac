# Conditions: every error, warning and message of the package is raised here, as a classed condition, so that
# code and tests match the class, never the message text.
#
# Errors have class c("fgseq_error_<kind>", "fgseq_error", "error", "condition"); warnings
# c("fgseq_warning_<kind>", "fgseq_warning", "warning", "condition"). The kinds in use:
#   errors:   input (a bad argument value, the default), unknown_argument, argument_order (arguments
#             given by position in an order a verb no longer takes), formula, na, subset,
#             family, no_data (a method needs the training data the fit does not hold), write (a file
#             cannot be written), internal, invalid_object (statistics or a fit not as the package
#             made them: edited, or damaged in a file; raised by the validators of R/validate.R),
#             chunk_offset (a Gaussian fit's chunk carries an offset), chunk_classes (a multinomial
#             fit's chunks disagree on the classes), chunk_level and chunk_type (a formula fit's chunk
#             whose variable has a level, a type or columns the design does not), chunks_empty (every
#             chunk of a source has no rows), sql (a fit, or a part of it, that predictor_sql() cannot
#             write as SQL), sql_dialect (a SQL dialect, or a connection's, that predictor_sql() does not
#             know), cv_chunks (cross-validation of data in chunks, which cv_fgseq() does not do);
#   warnings: constant (constant columns), constant_group (groups of constant columns left out),
#             convergence (a Newton solve did not converge), boundary (fitted probabilities or means
#             numerically 0 or 1 at lambda = 0, as glm() warns), plot_range (a curve added to a plot
#             reaches beyond its axes, which add = TRUE does not rescale), deprecated (an argument
#             given under its old name), partial (max_time stopped a fit before the end of its path),
#             cv_folds (folds too small for their held-out metric), cv_edge (a cross-validated choice at
#             the most shrunk end of the lambda grid);
#   messages: c("fgseq_message_<kind>", "fgseq_message", "message", "condition"), raised by inform():
#             unused_cost (names of `cost` that no group, variable or measurement of the fit uses, ignored).

# Stop with the message pasted from `...` (no call: the message names the argument). `parent`: the
# condition raised below the package (by DBI, model.frame(), set.seed(), ...) that this error explains,
# kept as the error's `parent` field.
abort <- function(..., class = "input", parent = NULL) {
  stop(errorCondition(paste0(...), class = c(paste0("fgseq_error_", class), "fgseq_error"), call = NULL,
                      parent = parent))
}

# A message pasted from `...`, of class c("fgseq_message_<kind>", "fgseq_message", "message",
# "condition") (suppressMessages() silences it). Kinds: unused_cost (names of `cost` that no group,
# variable or measurement of the fit uses, ignored).
inform <- function(..., class) {
  message(structure(class = c(paste0("fgseq_message_", class), "fgseq_message", "message", "condition"),
                    list(message = paste0(..., "\n"), call = NULL)))
}

# Warn with the message pasted from `...`.
warn <- function(..., class) {
  warning(warningCondition(paste0(...), class = c(paste0("fgseq_warning_", class), "fgseq_warning"),
                           call = NULL))
}

# Evaluate `expr` (work on chunk `i` of a chunked fit); an error is raised again with "chunk <i>: "
# before its message, keeping its fgseq class (an error from below the package becomes the parent of an
# "fgseq_error_input"). An fgseq error that already names the chunk is raised as it is.
in_chunk <- function(i, expr) {
  tryCatch(expr, error = function(e) {
    msg <- conditionMessage(e)
    if (inherits(e, "fgseq_error") && grepl(paste0("^chunk ", i, "([^0-9]|$)"), msg)) stop(e)
    kind <- grep("^fgseq_error_", class(e), value = TRUE)
    abort("chunk ", i, ": ", msg, class = if (length(kind)) sub("^fgseq_error_", "", kind[1L]) else "input",
          parent = if (!inherits(e, "fgseq_error")) e else e$parent)
  })
}
