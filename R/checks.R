# The kit of typed checkers every file uses: a number (with bounds, open or closed, finite or not,
# whole or not), a flag, one of a set of choices, and the arguments that reached `...`. Each returns
# the cleaned value or stops with a message that names the argument and says what it must be (class
# "fgseq_error_input", "fgseq_error_unknown_argument" for `...`). Checks of one verb's argument live
# beside that verb; the checks of the data shared by several verbs (x, y, group, cost, weights, offset,
# newx, budgets and steps) are in inputs.R.

# A single number, >= lower (> lower when lower_open) and <= upper (< upper when upper_open); finite
# unless allow_inf; with `whole`, a whole number returned as an integer (so at most the largest integer
# R holds). `what` says, in the message, what the number is.
check_number <- function(value, name, lower = -Inf, upper = Inf, lower_open = FALSE, upper_open = FALSE,
                         allow_inf = FALSE, whole = FALSE, what = NULL) {
  if (whole) upper <- min(upper, .Machine$integer.max)
  ok <- is.numeric(value) && length(value) == 1L && !is.na(value) && (allow_inf || is.finite(value)) &&
    (!whole || (is.finite(value) && value == round(value))) &&
    (if (lower_open) value > lower else value >= lower) && (if (upper_open) value < upper else value <= upper)
  if (ok) return(if (whole) as.integer(value) else as.double(value))
  what <- if (!is.null(what)) paste0(" (", what, ")")
  if (whole && upper == .Machine$integer.max && is.numeric(value) && length(value) == 1L && isTRUE(value > upper)) {
    abort("`", name, "` (", format(value), ") is larger than ", .Machine$integer.max, ", the largest whole ",
          "number R holds as an integer", what, ".")
  }
  bounded <- is.finite(upper) && !(whole && upper == .Machine$integer.max)
  range <- if (bounded && whole) {
    paste0("between ", lower, " and ", upper)
  } else if (bounded) {
    paste0("in ", if (lower_open) "(" else "[", lower, ", ", upper, if (upper_open) ")" else "]")
  } else if (is.finite(lower)) {
    paste0(if (lower_open) "> " else ">= ", lower)
  }
  kind <- if (whole) "whole number" else if (allow_inf || bounded) "number" else "finite number"
  abort("`", name, "` must be a single ", kind, if (!is.null(range)) " ", range, what, ".")
}

# A single whole number in [lower, upper] (see check_number()).
check_whole <- function(value, name, lower = 1, upper = Inf, what = NULL) {
  check_number(value, name, lower = lower, upper = upper, whole = TRUE, what = what)
}

check_flag <- function(value, name) {
  if (!is.logical(value) || length(value) != 1L || is.na(value)) {
    abort("`", name, "` must be TRUE or FALSE.")
  }
  value
}

# The values of an option of the core (method, criterion, fr_gain, engine, family, paid, split), as its
# name tables list them, the default first (.option_names() in src/fgseq.cpp): the choices every
# check of such an argument reads, so that R never repeats them by hand.
core_choices <- function(what) .option_names()[[what]]

# What the core says of each value of `what` ("method" or "family"; .core_traits() in src/fgseq.cpp), as a
# data frame of one row per value in the order of its name table: for a method, what it scores
# ("gradient", "gain") and how it picks its candidates; for a family, whether it is least squares and
# whether it takes one column of y, and two.
core_traits <- function(what) as.data.frame(.core_traits()[[what]], stringsAsFactors = FALSE)

# One of `choices`; the whole default vector means its first element.
check_choice <- function(value, choices, name) {
  if (identical(value, choices)) return(choices[1L])
  if (!is.character(value) || length(value) != 1L || is.na(value) || !(value %in% choices)) {
    abort("`", name, "` must be one of ", paste0("\"", choices, "\"", collapse = ", "), ".")
  }
  value
}

# Unknown arguments: call as check_dots(...) from a function whose `...` takes nothing of its own (or
# only what it forwards, named in `forwarded`). Every argument that reached `...` is an error naming
# it and, when a valid argument is close (by edit distance), suggesting that one. `valid` adds names
# the caller's caller accepts (for example the formula method's `data` when the default method checks).
# `graphics = TRUE` (plot methods) also lets the graphical parameters through (graphics_arguments).
check_dots <- function(..., forwarded = character(0), valid = character(0), graphics = FALSE) {
  if (...length() == 0L) return(invisible(NULL))
  given <- ...names()
  if (is.null(given)) given <- rep("", ...length())
  unknown <- given[!given %in% c(forwarded, if (graphics) graphics_arguments)]
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
  if (graphics) choices <- c(choices, graphics_arguments)
  parts <- vapply(unknown, describe, character(1))
  if (unknown_unnamed) parts <- c(parts, paste(unknown_unnamed, "unnamed (give these by name)"))
  abort(name, "() got unknown argument(s): ", paste(parts, collapse = ", "), ". Its arguments are: ",
        paste(setdiff(choices, if (graphics) graphics_arguments), collapse = ", "),
        if (graphics) ", and the graphical parameters of par() and plot.default()", ".", class = "unknown_argument")
}

# What a plot method passes on to base graphics: the graphical parameters of par() and the arguments of
# plot.default(). Not `xlog` and `ylog`, which plot() ignores: a log cost axis is the methods' `log = "x"`.
graphics_arguments <- c(
  "adj", "ann", "ask", "bg", "bty", "cex", "cex.axis", "cex.lab", "cex.main", "cex.sub", "col", "col.axis",
  "col.lab", "col.main", "col.sub", "crt", "err", "family", "fg", "fig", "fin", "font", "font.axis",
  "font.lab", "font.main", "font.sub", "lab", "las", "lend", "lheight", "ljoin", "lmitre", "lty", "lwd",
  "mai", "mar", "mex", "mfcol", "mfg", "mfrow", "mgp", "mkh", "new", "oma", "omd", "omi", "page", "pch",
  "pin", "plt", "ps", "pty", "smo", "srt", "tck", "tcl", "usr", "xaxp", "xaxs", "xaxt", "xpd",
  "yaxp", "yaxs", "yaxt", "ylbias", "main", "sub", "xlim", "ylim", "asp", "axes", "frame.plot",
  "panel.first", "panel.last")

# A renamed argument given under its old name: its value, with a warning of class
# "fgseq_warning_deprecated"; an error when the new name is given too (`new_missing` FALSE).
renamed_argument <- function(value, old, new, new_missing) {
  if (!new_missing) abort("give `", new, "` only: `", old, "` is its deprecated name.")
  warn("`", old, "` is deprecated: use `", new, "` (it takes the same value).", class = "deprecated")
  value
}

# `max_time`: the seconds a fit may take from its call (a positive number, or Inf), as every verb that
# takes it checks it.
check_max_time <- function(max_time) check_number(max_time, "max_time", lower = 0, lower_open = TRUE, allow_inf = TRUE)
