# The anytime_fit contract: what every fit the anytime methods take holds, written once. Two classes
# share it: "fgseq" (new_fgseq(): fits of fgseq(), fgseq_stats(), fgseq_chunks(), sparse_sequence()) and
# "miser" (new_miser()). predict(), coef(), fitted() and the other model methods, anytime_curve(),
# timeliness(), stop_cost(), compare_sequences(), cv_fgseq(), oracle(), plot() and write_predictor()
# rely on these fields and nothing else common to both classes:
#   path             data frame, one row per step k = 0..K (step 0: the intercept or starting constant),
#                    columns `step` (0..K), `group` (the group(s) first used at the step; NA when none),
#                    `group_cost` (the marginal cost paid at the step, cost units), `cost` (cumulative,
#                    non-decreasing; at step 0 the cost of `offset_needs`, else 0), `objective` and `r2`
#                    (training fraction explained);
#   sequence         character, the groups in the order they were first used;
#   group            character, one group label per column of the training x, named by column;
#   cost             named numeric, the stand-alone cost of each group (named by group label);
#   needs, measurement_cost   the measurements each group needs and their costs (group_measurements());
#   family           the name of a family of `fgseq_families` (family_def() gives its object);
#   classes, responses   the class labels (NULL without classes) and the names of the response columns;
#   nobs, null_risk, call   the training rows, the step-0 risk and the call.
# (Each class adds its own: "fgseq" its ridge constant `lambda`, coefficients `beta` and `a0`; "miser"
# its `cost_penalty`, trees and `init`.)
# Optional fields: `offset_needs` (the measurements of a formula's offset, paid at step 0: the path's
# cost starts from theirs), `label` (the name of the method in print() and plots), `cost_unit`, `partial`
# (max_time ran out), `has_offset` (predictions need an offset), the training data `x`, `y`, `weights`,
# `offset` (fits from data; fitted(), residuals() and predict() without new data use them), and the
# formula fields set by with_formula():
# `terms`, `xlevels`, `contrasts`, `na.action`, `model`.

# ---- The learner seam ----
# What every anytime fit answers beyond its fields, one generic each; a learner (a class beside
# "fgseq" and "miser" that inherits "anytime_fit") has a method of each, in its own file. predict(),
# the model methods, write_predictor() and the anytime measures reach a learner only through these
# and the fields above.

# The link (linear predictor or additive score, before the offset) at `steps` on the rows of x:
# list(link = n x (m P) matrix, the P columns of request b side by side; step = n x m steps used with
# `prefix` (each row at the longest prefix it has, see linear_prefix() and prefix_by_step()), else
# NULL; with `prefix`, n_infinite = the Inf values met in the columns read, which predict() refuses).
# A fit reads only the columns its models at those steps use. predict() of complete rows asks for the
# prefix prediction (its special case) and refuses a row that lacked a value.
fit_link <- function(object, x, steps, prefix, per_row) UseMethod("fit_link")

# The step from which the fit reads each column of the training x: integer, one per column, K + 1 for
# a column it never reads.
column_steps <- function(object) UseMethod("column_steps")

# The record of what is paid: a data frame with one row per group in the order the fit pays it,
# columns `group`, `step` (the step that pays it) and `group_cost` (the cost of its measurements not
# paid before it, cost units, as the core paid it). The path's group_cost is its sum per step, plus at
# step 0 the cost of `offset_needs`. The record is the core's, stored in the fit; the validators check
# it against the measurements without replaying it (paid_record_agrees()).
paid_groups <- function(object) UseMethod("paid_groups")

# What write_predictor() writes of the model: list(model = its name in the document ("linear",
# "trees"), step = function(k) the fields of step k beside the common ones, parts = the fields added
# to the document after the steps).
predictor_model <- function(fit) UseMethod("predictor_model")

# The groups and the measurements each step pays first: a data frame of steps 0..K with list columns
# `groups` and `measurements` (character vectors; empty at steps that pay nothing; at step 0 the
# measurements of a formula's offset, `offset_needs`, when the fit has them).
step_groups <- function(object) {
  gs <- paid_groups(object)
  steps <- object$path$step
  groups <- lapply(steps, function(k) gs$group[gs$step == k])
  seen <- character(0)
  measurements <- lapply(seq_along(steps), function(i) {
    needed <- c(if (i == 1L) as.character(object$offset_needs), unlist(object$needs[groups[[i]]], use.names = FALSE))
    new <- setdiff(as.character(needed), seen)
    seen <<- c(seen, new)
    new
  })
  out <- data.frame(step = steps)
  out$groups <- groups
  out$measurements <- measurements
  out
}

anytime_fields <- c("path", "sequence", "group", "cost", "needs", "measurement_cost", "family", "classes",
                    "responses", "nobs", "null_risk", "call")
path_columns <- c("step", "group", "group_cost", "cost", "objective", "r2")

# An object of class c(class, "anytime_fit") from its named list of fields, after checking the contract
# (a failure is a defect of the constructor, not of the user's input).
new_anytime_fit <- function(fields, class) {
  bad <- function(what) abort("internal error: a new \"", class, "\" object ", what, ".", class = "internal")
  missing <- setdiff(anytime_fields, names(fields))
  if (length(missing)) bad(paste0("lacks field(s) ", paste(missing, collapse = ", ")))
  path <- fields$path
  if (!is.data.frame(path) || !all(path_columns %in% names(path)) || !identical(as.integer(path$step), seq_len(nrow(path)) - 1L)) {
    bad("has no path of steps 0..K with columns step, group, group_cost, cost, objective and r2")
  }
  step0 <- sum(fields$measurement_cost[as.character(fields$offset_needs)])
  if (is.unsorted(path$cost) || path$cost[1L] != step0) {
    bad("has a path whose cost does not rise from the cost of step 0 (its `offset_needs`, else 0)")
  }
  if (!is.character(fields$group) || is.null(names(fields$group)) || !is.numeric(fields$cost) ||
      !setequal(names(fields$cost), unique(fields$group))) {
    bad("has no group label per column or no cost per group")
  }
  if (is.null(fgseq_families[[fields$family]])) bad(paste0("has an unknown family (", fields$family, ")"))
  structure(fields, class = c(class, "anytime_fit"))
}

# The one clock of the R side: seconds since the epoch. A verb reads it once at its call (`started`);
# max_time counts from there, in R (timed_control()) and in the workers of a chunked fit, other
# processes that compare it with the fit's deadline, started + max_time. (The core keeps its own
# monotonic clock, which starts at the core's call with what is left of max_time.)
now <- function() as.numeric(Sys.time())

# max_time counts from the call of a verb: the options the core gets when the R side has worked since
# `started` (now() at the call) hold what is left of it.
timed_control <- function(control, started, spent = FALSE) {
  # spent: the sweep of x found the time spent (x left unread); the core then reads none of x, whatever
  # its own clock says of the millisecond left
  control$max_time <- if (spent) 0 else control$max_time - (now() - started)
  control
}

# A fit that max_time stopped before the end of its path (field `partial = TRUE`) also warns (class
# "fgseq_warning_partial"), saying why and at which step: `done` steps (`what`: "step" of a sequence,
# "iteration" of a Greedy Miser fit) were completed of at most `planned`.
warn_partial <- function(done, planned, max_time, what = "step") {
  warn("`max_time` (", format(max_time), " s) was spent before ", what, " ", done + 1, " (of at most ", planned,
       ") was complete: the fit holds the ", done, " ", what, if (done != 1) "s", " before it and is marked ",
       "`partial = TRUE`. Give a larger `max_time` for more.", class = "partial")
}

# Evaluate `expr`, which makes several fits, holding back their warnings of class
# "fgseq_warning_partial"; a verb that makes several fits says once how many max_time stopped
# (warn_partial_fits()).
quiet_partial <- function(expr) {
  withCallingHandlers(expr, fgseq_warning_partial = function(w) invokeRestart("muffleWarning"))
}

warn_partial_fits <- function(n_partial, n_fits, max_time) {
  if (n_partial == 0) return(invisible())
  warn("`max_time` (", format(max_time), " s) stopped ", n_partial, " of the ", n_fits, " fits before the end ",
       "of their paths (each is marked `partial = TRUE`): their curves end early. Give a larger `max_time` ",
       "for complete fits.", class = "partial")
}
