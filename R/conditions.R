# Conditions: every error and warning of the package is raised here, as a classed condition, so that
# code and tests match the class, never the message text.
#
# Errors have class c("fgseq_error_<kind>", "fgseq_error", "error", "condition"); warnings
# c("fgseq_warning_<kind>", "fgseq_warning", "warning", "condition"). The kinds in use:
#   errors:   input (a bad argument value, the default), unknown_argument, formula, na, subset,
#             family, no_data (a method needs the training data the fit does not hold), write (a file
#             cannot be written), internal, invalid_object (statistics or a fit not as the package
#             made them: edited, or damaged in a file);
#   warnings: constant (constant columns), constant_group (groups of constant columns left out),
#             convergence (a Newton solve did not converge), boundary (fitted probabilities or means
#             numerically 0 or 1 at lambda = 0, as glm() warns), plot_range (a curve added to a plot
#             reaches beyond its axes, which add = TRUE does not rescale).

# Stop with the message pasted from `...` (no call: the message names the argument).
abort <- function(..., class = "input") {
  stop(errorCondition(paste0(...), class = c(paste0("fgseq_error_", class), "fgseq_error"), call = NULL))
}

# Warn with the message pasted from `...`.
warn <- function(..., class) {
  warning(warningCondition(paste0(...), class = c(paste0("fgseq_warning_", class), "fgseq_warning"),
                           call = NULL))
}

# Evaluate `expr` (work on chunk `i` of a chunked fit); an error is raised again with "chunk <i>: "
# before its message, keeping its fgseq class.
in_chunk <- function(i, expr) {
  tryCatch(expr, error = function(e) {
    kind <- grep("^fgseq_error_", class(e), value = TRUE)
    abort("chunk ", i, ": ", conditionMessage(e), class = if (length(kind)) sub("^fgseq_error_", "", kind[1L]) else "input")
  })
}

# Unknown arguments: call as check_dots(...) from a function whose `...` takes nothing of its own (or
# only what it forwards, named in `forwarded`). Every argument that reached `...` is an error naming
# it and, when a valid argument is close (by edit distance), suggesting that one. `valid` adds names
# the caller's caller accepts (for example the formula method's `data` when the default method checks).
check_dots <- function(..., forwarded = character(0), valid = character(0)) {
  if (...length() == 0L) return(invisible(NULL))
  given <- ...names()
  if (is.null(given)) given <- rep("", ...length())
  unknown <- given[!given %in% forwarded]
  unknown_unnamed <- sum(!nzchar(given))
  unknown <- unknown[nzchar(unknown)]
  if (!length(unknown) && !unknown_unnamed) return(invisible(NULL))
  fun <- sys.function(-1L)
  # the generic's name for a method (the user called fgseq(), not fgseq.formula())
  name <- get0(".Generic", envir = parent.frame(), inherits = FALSE)
  if (is.null(name)) {
    head <- sys.call(-1L)[[1L]]
    name <- if (is.name(head)) as.character(head) else "this function"
  }
  choices <- setdiff(unique(c(names(formals(fun)), forwarded, valid)), "...")
  # the nearest valid name: one it abbreviates, else the least edit distance
  describe <- function(arg) {
    prefix <- choices[startsWith(choices, arg)]
    d <- utils::adist(arg, choices, ignore.case = TRUE)[1L, ]
    near <- if (length(prefix)) prefix[1L] else if (min(d) <= max(2, nchar(arg) %/% 2)) choices[which.min(d)]
    paste0("`", arg, "`", if (length(near)) paste0(" (did you mean `", near, "`?)"))
  }
  parts <- vapply(unknown, describe, character(1))
  if (unknown_unnamed) parts <- c(parts, paste(unknown_unnamed, "unnamed (give these by name)"))
  abort(name, "() got unknown argument(s): ", paste(parts, collapse = ", "), ". Its arguments are: ",
        paste(choices, collapse = ", "), ".", class = "unknown_argument")
}
