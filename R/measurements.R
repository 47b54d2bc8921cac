# Measurements: what is paid for at prediction time (a test, a feature extractor, a blood draw). A
# group needs one or more measurements (`needs`); a measurement shared by several groups is paid once,
# so a set of groups costs the total cost of the union of their measurements, and the marginal cost of
# a group given the groups already computed is the cost of its measurements not yet paid. Without
# `needs` each group (each variable of a formula) is its own measurement. The fits of fgseq() and
# miser() carry `needs` (a named list, one character vector of measurement names per group label, in
# the order of the fit's groups) and `measurement_cost` (a named numeric vector); `cost` stays the
# stand-alone cost of each group. The helpers below build, check and count these; the core reads them
# through measurement_index().

# The measurements of a matrix fit with groups `labels`, checked: without `needs`, `cost` is one
# cost >= 0 per group (check_cost()) and each group needs the measurement named by its label; with
# `needs` (a named list: group label -> measurement names; a group not listed needs its own label),
# `cost` is named by measurement, each finite and >= 0 (NULL: 1 each); or `cost` is measurements already
# checked (new_measurements(), from a formula method or cross-validation), taken as they are. Returns the
# measurements (new_measurements()), `cost` the stand-alone cost of each group.
group_measurements <- function(cost, needs, labels, what = "group") {
  if (inherits(cost, "fgseq_measurements")) return(checked_measurements(cost, needs, labels))
  if (is.null(needs)) {
    cost <- check_cost(cost, labels)
    return(new_measurements(stats::setNames(as.list(labels), labels), cost))
  }
  needs <- check_needs(needs, labels, what)
  full <- stats::setNames(lapply(labels, function(g) if (is.null(needs[[g]])) g else needs[[g]]), labels)
  meas <- new_measurements(full, check_measurement_cost(cost, unique(unlist(full, use.names = FALSE)), what))
  check_cost_total(meas)
}

# The costs of a fit's measurements must add up to a finite total (the cost of the whole sequence);
# returns `meas`.
check_cost_total <- function(meas) {
  total <- sum(meas$measurement_cost)
  if (!is.finite(total)) {
    abort("`cost` sums to Inf (", format(total), " overflows); give costs in a unit where their total is ",
          "finite, for example divided by ", format(max(meas$measurement_cost)), ".")
  }
  meas
}

# `needs`: NULL or a named list, entries for distinct known groups (or variables), each a character
# vector of measurement names without NA or empty names. Returns the list with its entries de-duplicated.
check_needs <- function(needs, known, what) {
  if (!is.list(needs) || is.data.frame(needs) || (length(needs) && is.null(names(needs))) ||
      any(!nzchar(names(needs)))) {
    abort("`needs` must be a named list giving, for a ", what, ", the measurements it needs, as in ",
          "list(chol = c(\"blood_draw\", \"chol\")).")
  }
  unknown <- setdiff(names(needs), known)
  if (length(unknown)) {
    abort("`needs` names ", what, "(s) that do not exist: ", paste(unknown, collapse = ", "), ". The ", what,
          "s are: ", paste(known, collapse = ", "), ".")
  }
  if (anyDuplicated(names(needs))) {
    abort("`needs` names a ", what, " more than once: ",
          paste(unique(names(needs)[duplicated(names(needs))]), collapse = ", "), ".")
  }
  # factors are read as their labels (the docs allow them)
  needs <- lapply(needs, function(m) if (is.factor(m)) as.character(m) else m)
  bad <- !vapply(needs, function(m) is.character(m) && !anyNA(m) && all(nzchar(m)), logical(1))
  if (any(bad)) {
    abort("`needs` must give each ", what, " a character vector of measurement names (no NA or empty ",
          "names); see ", paste(names(needs)[bad], collapse = ", "), ".")
  }
  lapply(needs, function(m) unique(as.character(m)))
}

# cost: NULL (all 1), or one finite number >= 0 per group (0: a free group), named by group label
# (unnamed: in the order of unique(group)). Returns a named numeric in unique(group) order.
check_cost <- function(cost, labels) {
  if (is.null(cost)) return(stats::setNames(rep(1, length(labels)), labels))
  if (is.list(cost)) cost <- unlist(cost)
  if (!is.numeric(cost)) abort("`cost` must be a numeric vector, one cost per group.")
  if (!is.null(names(cost)) && !all(nzchar(names(cost)) & !is.na(names(cost)))) {
    abort("`cost` has names for some values and not for others; name every cost by its group label, ",
          "or give no names and one cost per group in the order of the groups.")
  }
  if (is.null(names(cost))) {
    if (length(cost) != length(labels)) {
      abort("`cost` must have one value per group (", length(labels), " groups), or be named by group ",
            "label; it has ", length(cost), " unnamed values.")
    }
    names(cost) <- labels
  } else {
    if (anyDuplicated(names(cost))) {
      abort("`cost` names a group more than once: ",
            paste(unique(names(cost)[duplicated(names(cost))]), collapse = ", "), ".")
    }
    cost <- drop_unused_costs(cost, labels, "group")
  }
  cost <- complete_costs(cost, labels, "group", positive = FALSE)
  if (!is.finite(sum(cost))) {
    abort("`cost` sums to Inf (", format(sum(cost)), " overflows); give costs in a unit where their total is ",
          "finite, for example divided by ", format(max(cost)), ".")
  }
  stats::setNames(as.double(cost), labels)
}

# Measurement costs: one finite cost >= 0 per measurement of `measurements`, named by measurement
# (unnamed, when `named` is FALSE: in the order of `measurements`); NULL means 1 each. Returns the named
# costs in the order of `measurements`.
check_measurement_cost <- function(cost, measurements, what, named = TRUE) {
  if (is.null(cost)) return(stats::setNames(rep(1, length(measurements)), measurements))
  if (is.list(cost)) cost <- unlist(cost)
  if (!is.numeric(cost)) abort("`cost` must be a numeric vector, one cost per measurement.")
  if (is.null(names(cost))) {
    if (named) {
      abort("`cost` must be named by measurement when `needs` is given; the measurements are: ",
            paste(measurements, collapse = ", "), ".")
    }
    if (length(cost) != length(measurements)) {
      abort("`cost` must have one value per ", what, " (", length(measurements), "), or be named; it has ",
            length(cost), " unnamed values.")
    }
    names(cost) <- measurements
  }
  if (anyDuplicated(names(cost))) {
    abort("`cost` names a measurement more than once: ",
          paste(unique(names(cost)[duplicated(names(cost))]), collapse = ", "), ".")
  }
  cost <- drop_unused_costs(cost, measurements, "measurement")
  complete_costs(cost, measurements, "measurement", positive = FALSE)
}

# The rule for the names of `cost`, the same in every interface: a name that is no group (matrix
# interface), no measurement (with `needs`) and no variable or measurement the model uses (formula
# interface) is ignored, with one message (class fgseq_message_unused_cost) naming them all, so that one
# table of costs serves every model of a data set. Returns `cost` without them.
drop_unused_costs <- function(cost, known, unit) {
  unused <- setdiff(names(cost), known)
  if (!length(unused)) return(cost)
  inform("`cost` has ", length(unused), " name(s) that are no ", unit, " of the fit, ignored: ",
         paste(unused, collapse = ", "), ".", class = "unused_cost")
  cost[names(cost) %in% known]
}

# Named costs completed to one finite cost per name of `labels` (groups or measurements, `unit` in
# messages), > 0 with `positive`, else >= 0; returned as doubles in the order of `labels`.
complete_costs <- function(cost, labels, unit, positive) {
  missing <- setdiff(labels, names(cost))
  if (length(missing)) {
    abort("`cost` is missing for ", unit, "(s): ", paste(missing, collapse = ", "), "; give one cost per ", unit, ".")
  }
  cost <- cost[labels]
  if (!all(is.finite(cost))) {
    abort("`cost` must be finite; ", unit, "(s) ", paste(names(cost)[!is.finite(cost)], collapse = ", "),
          " have NA, NaN or Inf.")
  }
  bad <- if (positive) cost <= 0 else cost < 0
  if (any(bad)) {
    abort("`cost` must be ", if (positive) "positive" else "non-negative", "; ", unit, "(s) ",
          paste(names(cost)[bad], collapse = ", "), " have cost ", if (positive) "<= 0." else "< 0.")
  }
  stats::setNames(as.double(cost), labels)
}

# The measurements of a fit, checked: an object of class "fgseq_measurements", list(needs,
# measurement_cost, cost, paid), `cost` the stand-alone cost of each group (named by group, in the order
# of `needs`) and `paid` the measurements paid at step 0, before any group (those of a formula's offset:
# the intercept-only prediction already needs them; character(0) when none). A verb that has checked
# the measurements (a formula method, cross-validation) hands this object down as `cost`, and every
# function below it takes it as it is (group_measurements()).
new_measurements <- function(needs, measurement_cost, paid = character(0)) {
  structure(list(needs = needs, measurement_cost = measurement_cost, cost = group_costs(needs, measurement_cost),
                 paid = paid),
            class = "fgseq_measurements")
}

# Measurements handed down checked (new_measurements()), for the groups `labels` of the fit: taken as
# they are (no second check), in the order of `labels`. They come with no `needs` of their own.
checked_measurements <- function(meas, needs, labels) {
  if (!is.null(needs) || !setequal(names(meas$needs), labels) || length(meas$needs) != length(labels)) {
    abort("internal error: checked measurements handed down with `needs`, or for other groups.", class = "internal")
  }
  meas$needs <- meas$needs[labels]
  meas$cost <- meas$cost[labels]
  meas
}

# The cost paid at step 0: the total cost of the measurements paid before any group (`meas$paid`).
paid_cost <- function(meas) sum(meas$measurement_cost[meas$paid])

# The stand-alone cost of each group as the core charges it: its measurements paid at step 0 cost it
# nothing (the cost the Greedy Miser's cost penalty is scaled by, and the group lasso's weights).
charged_costs <- function(meas) {
  cost <- meas$measurement_cost
  cost[meas$paid] <- 0
  group_costs(meas$needs, cost)
}

# The budget the core spends: `max_cost` (checked) less the cost paid at step 0; a `max_cost` that
# does not exceed that cost cannot be met.
budget_beyond_paid <- function(max_cost, meas) {
  if (!length(meas$paid)) return(max_cost)
  paid <- paid_cost(meas)
  if (max_cost <= paid) {
    abort("`max_cost` (", format(max_cost), ") does not exceed the cost of the offset's measurements (",
          paste(meas$paid, collapse = ", "), ": ", format(paid), "), paid at step 0: give a larger `max_cost`.")
  }
  max_cost - paid
}

# The stand-alone cost of each group: the total cost of its measurements (named by group). The names
# are matched once for all groups (a subset by name per group would hash every measurement name each
# time: time and garbage quadratic in the number of groups).
group_costs <- function(needs, measurement_cost) {
  v <- split_like(needs, measurement_cost[unlist(needs, use.names = FALSE)])
  stats::setNames(vapply(v, sum, numeric(1), USE.NAMES = FALSE), names(needs))
}

# The values `v` of unlist(lists), unnamed, split back into one vector per element of `lists`.
split_like <- function(lists, v) {
  unname(split(unname(v), factor(rep.int(seq_along(lists), lengths(lists)), levels = seq_along(lists))))
}

# The marginal cost of each group of a sequence given the groups before it: the cost of its
# measurements not yet paid (one number per element of `sequence`); `paid`: the measurements paid
# before the first group (those of a formula's offset, at step 0). For orders the core did not pay
# (oracle()'s reorderings); a fit's own costs are its core's record (paid_groups()).
marginal_costs <- function(sequence, needs, measurement_cost, paid = character(0)) {
  vapply(sequence, function(g) {
    new <- setdiff(needs[[g]], paid)
    paid <<- c(paid, new)
    sum(measurement_cost[new])
  }, numeric(1), USE.NAMES = FALSE)
}

# The measurements as the core reads them (measurements_from() in src/glue.h): `needs`, 0-based
# measurement indices per group (in the order of `labels`), and `measurement_cost`, one cost per
# measurement some group needs. The measurements paid at step 0 (`m$paid`) cost 0 there: the core
# pays a group only its measurements not paid before, and the fit's constructor (new_fgseq(),
# new_miser()) charges their cost to step 0.
measurement_index <- function(m, labels) {
  needs <- m$needs[labels]
  flat <- unlist(needs, use.names = FALSE)
  used <- unique(flat)
  cost <- m$measurement_cost[used]
  cost[used %in% m$paid] <- 0
  list(needs = split_like(needs, match(flat, used) - 1L), measurement_cost = unname(cost))
}
