# Measurement costs (issue: groups need measurements, a shared measurement is paid once): fgseq() and
# miser() against the plain-R references of helper-reference.R and helper-miser-reference.R run on
# marginal costs, cumulative costs recounted from the sequence, and the formula interface's terms.

# Five groups, two sharing a measurement ("draw"), one needing only measurements of others ("e": free
# once a and c are bought) and one free measurement ("record").
shared_design <- function(seed = 11) {
  d <- sim_groups(n = 120, sizes = c(2, 3, 1, 2, 2), rho = 0.5, seed = seed)
  # labels in group order: e, d, c, b, a
  d$needs <- list(a = c("draw", "ma"), c = c("draw", "mc"), e = c("ma", "mc"), b = c("record", "mb"))
  d$mcost <- c(draw = 2.1, ma = 5.17, mc = 3.1, record = 0, mb = 4, d = 6.5)
  d
}

union_cost <- function(fit, k) {
  ms <- unique(unlist(fit$needs[fit$sequence[seq_len(k)]]))
  sum(fit$measurement_cost[ms])
}

test_that("bad input: unknown group or variable in needs, cost missing, NA or negative; unneeded costs ignored", {
  d <- shared_design()
  expect_error(fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = c(d$needs, list(z = "draw"))),
               "`needs` names group\\(s\\) that do not exist: z", class = "fgseq_error_input")
  expect_error(fgseq(diagnosis ~ age + chol, data = heart, cost = c(heart_cost, draw = 2),
                     needs = list(cholesterol = c("draw", "chol"))),
               "`needs` names variable\\(s\\) that do not exist: cholesterol", class = "fgseq_error_input")
  expect_error(fgseq(d$x, d$y, group = d$group, cost = d$mcost[names(d$mcost) != "draw"], needs = d$needs),
               "`cost` is missing for measurement\\(s\\): draw", class = "fgseq_error_input")
  # names of no measurement are ignored, with one message
  expect_message(fgseq(d$x, d$y, group = d$group, cost = c(d$mcost, spare = 1), needs = d$needs),
                 "of the fit, ignored: spare", class = "fgseq_message_unused_cost")
  expect_message(fgseq(diagnosis ~ age + chol, data = heart, cost = c(heart_cost[c("age", "chol")], spare = 1)),
                 "of the fit, ignored: spare", class = "fgseq_message_unused_cost")
  expect_error(fgseq(d$x, d$y, group = d$group, cost = replace(d$mcost, "ma", NA), needs = d$needs),
               "`cost` must be finite; measurement\\(s\\) ma have NA, NaN or Inf", class = "fgseq_error_input")
  expect_error(fgseq(d$x, d$y, group = d$group, cost = replace(d$mcost, "mb", -1), needs = d$needs),
               "`cost` must be non-negative; measurement\\(s\\) mb have cost < 0", class = "fgseq_error_input")
  expect_error(fgseq(d$x, d$y, group = d$group, cost = unname(d$mcost), needs = d$needs),
               "`cost` must be named by measurement when `needs` is given", class = "fgseq_error_input")
  expect_error(fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = list("draw")),
               "`needs` must be a named list", class = "fgseq_error_input")
  expect_error(fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = list(a = c("draw", NA))),
               "`needs` must give each group a character vector of measurement names", class = "fgseq_error_input")
  # the same checks guard miser() and the fits from statistics
  expect_error(miser(d$x, d$y, group = d$group, cost = d$mcost, needs = list(z = "draw")),
               "`needs` names group\\(s\\) that do not exist: z", class = "fgseq_error_input")
  expect_error(miser(d$x, d$y, group = d$group, cost = replace(d$mcost, "ma", -2), needs = d$needs),
               "`cost` must be non-negative; measurement\\(s\\) ma", class = "fgseq_error_input")
  st <- fgseq_stats(d$x, d$y, group = d$group)
  expect_error(fgseq(st, cost = d$mcost[-1], needs = d$needs), "`cost` is missing for measurement\\(s\\): draw",
               class = "fgseq_error_input")
})

test_that("without shared measurements every fit is unchanged: needs naming each group itself", {
  d <- shared_design()
  own <- stats::setNames(as.list(unique(d$group)), unique(d$group))
  for (m in c("omp", "fr", "doubling")) {
    a <- fgseq(d$x, d$y, group = d$group, cost = d$cost, method = m)
    b <- fgseq(d$x, d$y, group = d$group, cost = d$cost, method = m, needs = own)
    expect_identical(a$sequence, b$sequence)
    expect_identical(a$path, b$path)
    expect_identical(a$beta, b$beta)
    expect_identical(a$needs, own)
    expect_identical(a$measurement_cost, a$cost)
  }
})

test_that("CS-G-OMP, CS-G-FR and Doubling equal the plain-R greedy on marginal costs; costs are unions", {
  d <- shared_design()
  for (s in seq_len(nrow(settings))) {
    st <- settings[s, ]
    ref <- ref_fgseq(d$x, d$y, d$group, d$mcost, method = st$method, criterion = st$criterion,
                     cost_sensitive = st$cost_sensitive, needs = d$needs)
    for (engine in c("gram", "sample")) {
      fit <- fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = d$needs, method = st$method, lambda = 0,
                   criterion = st$criterion, cost_sensitive = st$cost_sensitive, engine = engine)
      label <- paste(st$method, st$criterion, st$cost_sensitive, engine)
      expect_same_path(fit, ref, label = label)
      recount <- vapply(0:length(fit$sequence), function(k) union_cost(fit, k), numeric(1))
      expect_equal(fit$path$cost, recount, tolerance = 1e-12, label = paste(label, "cost"))
      expect_equal(fit$path$group_cost, c(0, diff(recount)), tolerance = 1e-12)
    }
  }
  # the shared draw is paid once: the whole sequence costs the measurements, not the groups
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = d$needs, method = "fr")
  expect_equal(fit$path$cost[nrow(fit$path)], sum(d$mcost))
  expect_equal(unname(fit$cost[c("a", "c", "e", "b", "d")]), c(2.1 + 5.17, 2.1 + 3.1, 5.17 + 3.1, 4, 6.5))
  expect_identical(fit$needs, list(e = c("ma", "mc"), d = "d", c = c("draw", "mc"), b = c("record", "mb"),
                                   a = c("draw", "ma")))
})

test_that("a group of zero marginal cost with a gain is taken before any group that costs", {
  d <- shared_design()
  freed <- 0
  for (m in c("omp", "fr", "doubling")) {
    fit <- fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = d$needs, method = m)
    k <- max(match(c("a", "c"), fit$sequence))   # after a and c, e is free
    ke <- match("e", fit$sequence)
    if (ke > k) {
      freed <- freed + 1
      expect_identical(ke, k + 1L, label = m)
      expect_identical(fit$path$group_cost[ke + 1], 0)
    }
  }
  expect_gt(freed, 0)
  # a group whose only measurement costs 0 is taken first, and the path starts at cost 0
  fit <- fgseq(d$x, d$y, group = d$group, cost = c(d$mcost[-6], mfree = 0), method = "fr", lambda = 0,
               needs = c(d$needs, list(d = "mfree")))
  expect_identical(fit$sequence[1], "d")
  expect_identical(fit$path$cost[1:2], c(0, 0))
  ref <- ref_fgseq(d$x, d$y, d$group, c(d$mcost[-6], mfree = 0), method = "fr", needs = c(d$needs, list(d = "mfree")))
  expect_same_path(fit, ref, label = "free first")
})

test_that("GLM families and fits from statistics or chunks select on the same marginal costs", {
  g <- sim_glm("binomial", n = 90, sizes = c(2, 1, 2, 1, 1), seed = 4)
  labels <- unique(g$group)                       # e d c b a
  needs <- list(a = c("draw", "ma"), c = c("draw", "mc"), e = c("ma", "mc"))
  mcost <- c(draw = 2, ma = 3, mc = 1.5, d = 4, b = 2.5)
  for (m in c("omp", "fr", "doubling")) {
    fit <- fgseq(g$x, g$y, group = g$group, cost = mcost, needs = needs, family = "binomial", method = m,
                 lambda = 0.01)
    ref <- ref_glm_fgseq(g$x, g$y, g$group, mcost, family = "binomial", method = m, lambda = 0.01, needs = needs)
    expect_identical(fit$sequence, ref$sequence, label = m)
    expect_equal(fit$path$cost, ref$cost, tolerance = 1e-12)
    expect_equal(fit$path$objective, ref$objective, tolerance = 1e-6)
  }
  d <- shared_design()
  whole <- fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = d$needs, method = "fr")
  st <- fgseq_stats(d$x[1:60, ], d$y[1:60], group = d$group) + fgseq_stats(d$x[61:120, ], d$y[61:120], group = d$group)
  from_stats <- fgseq(st, cost = d$mcost, needs = d$needs, method = "fr")
  expect_identical(from_stats$sequence, whole$sequence)
  expect_equal(from_stats$path$cost, whole$path$cost)
  chunks <- fgseq_chunks(list(list(x = d$x[1:60, ], y = d$y[1:60]), list(x = d$x[61:120, ], y = d$y[61:120])))
  from_chunks <- fgseq(chunks, group = d$group, cost = d$mcost, needs = d$needs, method = "fr")
  expect_identical(from_chunks$sequence, whole$sequence)
  bin <- fgseq(g$x, g$y, group = g$group, cost = mcost, needs = needs, family = "binomial", lambda = 0.01)
  bchunks <- fgseq_chunks(list(list(x = g$x[1:45, ], y = g$y[1:45]), list(x = g$x[46:90, ], y = g$y[46:90])))
  from_bchunks <- fgseq(bchunks, group = g$group, cost = mcost, needs = needs, family = "binomial", lambda = 0.01)
  expect_identical(from_bchunks$sequence, bin$sequence)
  expect_equal(from_bchunks$path$cost, bin$path$cost)
})

test_that("formula terms need the measurements of their variables: interactions, poly(), log()", {
  f <- diagnosis ~ cp:thal + poly(age, 3) + log(chol) + sex + thal
  fit <- fgseq(f, data = heart, cost = heart_cost, method = "fr", lambda = 0)
  expect_identical(fit$needs, list(`poly(age, 3)` = "age", `log(chol)` = "chol", sex = "sex", thal = "thal",
                                   `cp:thal` = c("cp", "thal")))
  expect_identical(fit$measurement_cost, heart_cost[c("age", "chol", "sex", "thal", "cp")])
  expect_equal(fit$cost[["cp:thal"]], heart_cost[["cp"]] + heart_cost[["thal"]])
  # the interaction is never bought before the measurements of both its variables are paid: its
  # marginal cost is what is left of cp and thal when it is selected
  k <- match("cp:thal", fit$sequence)
  before <- unique(unlist(fit$needs[fit$sequence[seq_len(k - 1)]]))
  expect_equal(fit$path$group_cost[k + 1], sum(heart_cost[setdiff(c("cp", "thal"), before)]))
  expect_true(fit$path$cost[k + 1] >= heart_cost[["cp"]] + heart_cost[["thal"]])
  # the same sequence as the plain-R greedy on the model matrix with those needs
  mm <- stats::model.matrix(f, heart)
  labels <- attr(stats::terms(f), "term.labels")
  ref <- ref_fgseq(mm[, -1], as.numeric(heart$diagnosis), labels[attr(mm, "assign")[-1]],
                   heart_cost[c("age", "chol", "sex", "thal", "cp")], method = "fr", needs = fit$needs)
  expect_same_path(fit, ref, tol = 1e-7, beta = FALSE, label = "formula")
  # with main effects: an interaction bought before a variable pays for it, one bought after both is
  # free (both cases occur below)
  paid_for <- numeric(0)
  for (f in list(diagnosis ~ cp + thal + cp:thal, diagnosis ~ cp + sex + cp:sex)) {
    fit2 <- fgseq(f, data = heart, cost = heart_cost, method = "fr")
    inter <- grep(":", fit2$sequence, value = TRUE)
    k2 <- match(inter, fit2$sequence)
    unpaid <- setdiff(strsplit(inter, ":")[[1]], fit2$sequence[seq_len(k2 - 1)])
    expect_identical(fit2$path$group_cost[k2 + 1], sum(heart_cost[unpaid]))
    paid_for <- c(paid_for, length(unpaid))
  }
  expect_true(any(paid_for == 0) && any(paid_for > 0))
  # a cost missing for a variable of the formula names the variable
  expect_error(fgseq(diagnosis ~ cp:thal, data = heart, cost = heart_cost["cp"]),
               "`cost` is missing for measurement\\(s\\): thal", class = "fgseq_error_input")
})

test_that("the heart example: chol and fbs share one blood draw, charged once", {
  mc <- c(replace(heart_cost, c("chol", "fbs"), c(5.17, 3.10)), blood_draw = 2.10)
  needs <- list(chol = c("blood_draw", "chol"), fbs = c("blood_draw", "fbs"))
  fit <- fgseq(diagnosis ~ ., data = heart, cost = mc, needs = needs, method = "fr")
  expect_equal(unname(fit$cost[c("chol", "fbs")]), unname(heart_cost[c("chol", "fbs")]))  # Turney's full prices
  expect_equal(fit$path$cost[nrow(fit$path)], sum(heart_cost) - 2.10)                 # the draw paid once
  recount <- vapply(0:length(fit$sequence), function(k) union_cost(fit, k), numeric(1))
  expect_equal(fit$path$cost, recount, tolerance = 1e-12)
  second <- fit$sequence[fit$sequence %in% c("chol", "fbs")][2]
  expect_equal(fit$path$group_cost[match(second, fit$sequence) + 1], mc[[second]])
})

test_that("Miser with needs: the trees of the plain-R reference; a shared measurement is paid once", {
  d <- sim_miser(n = 80, p = 6, seed = 3)
  needs <- list(x1 = c("draw", "m1"), x2 = c("draw", "m2"), x5 = c("m1", "m2"))
  mcost <- c(draw = 3, m1 = 1, m2 = 2, x3 = 4, x4 = 2.5, x6 = 1.5)
  for (paid in c("after_tree", "within_tree")) {
    fit <- miser(d$x, d$y, cost = mcost, needs = needs, cost_penalty = 0.05, max_steps = 8, depth = 2,
                 min_node_size = 3, paid = paid)
    ref <- ref_miser(d$x, d$y, n_trees = 8, depth = 2, min_node = 3, lambda_scaled = fit$cost_penalty_scaled,
                     cost = mcost, group = colnames(d$x), paid = paid, needs = needs)
    expect_equal(fit_trees(fit), ref$trees, ignore_attr = TRUE, tolerance = 1e-10)
    # the cost recomputed from the trees' features: the union of their measurements, tree after tree
    recount <- vapply(0:8, function(t) {
      used <- unique(fit$trees$feature[fit$trees$step <= t & !is.na(fit$trees$feature)])
      sum(mcost[unique(unlist(fit$needs[fit$group[used]]))])
    }, numeric(1))
    expect_equal(fit$path$cost, recount, tolerance = 1e-12)
    s <- summary(fit)
    expect_equal(s$features$cost[nrow(s$features)], recount[9])
  }
  expect_equal(fit$cost_penalty_scaled, 0.05 * 0.5 * sum((d$y - mean(d$y))^2) / mean(fit$cost))
  # formula interface: cost by variable, blood draw shared
  mc <- c(replace(heart_cost, c("chol", "fbs"), c(5.17, 3.10)), blood_draw = 2.10)
  m <- miser(diagnosis ~ ., data = heart, cost = mc, family = "binomial", max_steps = 20, depth = 2, cost_penalty = 0,
             needs = list(chol = c("blood_draw", "chol"), fbs = c("blood_draw", "fbs")))
  used <- m$sequence
  expect_equal(m$path$cost[nrow(m$path)], sum(mc[unique(unlist(m$needs[used]))]))
})

test_that("the Oracle of a fit with shared measurements counts each measurement once in its own order", {
  d <- shared_design()
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$mcost, needs = d$needs, method = "omp")
  or <- oracle(fit)
  expect_setequal(or$sequence, fit$sequence)
  recount <- vapply(0:length(or$sequence), function(k) {
    sum(d$mcost[unique(unlist(fit$needs[or$sequence[seq_len(k)]]))])   # fit$needs: checked above
  }, numeric(1))
  expect_equal(or$path$cost, recount)
})

test_that("needs with factor measurement names is read by the labels", {
  x <- as.matrix(mtcars[, c("cyl", "disp", "carb")])
  cost <- c(draw = 1, m2 = 2, disp = 3, carb = 1)
  a <- fgseq(x, mtcars$mpg, needs = list(cyl = c("draw", "m2")), cost = cost)
  b <- fgseq(x, mtcars$mpg, needs = list(cyl = factor(c("draw", "m2"))), cost = cost)
  expect_identical(b$needs, a$needs)
  expect_equal(b$path$cost, a$path$cost)
  expect_equal(a$cost[["cyl"]], 3)
})

test_that("measurement costs that sum to Inf are refused with needs, as without", {
  x <- as.matrix(mtcars[, c("cyl", "disp", "carb")])
  expect_error(fgseq(x, mtcars$mpg, cost = c(1e308, 1e308, 1)), "sums to Inf", class = "fgseq_error_input")
  expect_error(fgseq(x, mtcars$mpg, needs = list(cyl = c("m1", "m2")),
                     cost = c(m1 = 1e308, m2 = 1e308, disp = 1e308, carb = 1)),
               "sums to Inf", class = "fgseq_error_input")
  expect_error(miser(x, mtcars$mpg, needs = list(cyl = c("m1", "m2")), max_steps = 2,
                     cost = c(m1 = 1e308, m2 = 1e308, disp = 1, carb = 1)),
               "sums to Inf", class = "fgseq_error_input")
  expect_error(fgseq(mpg ~ cyl + disp, data = mtcars, cost = c(cyl = 1.5e308, disp = 1.5e308)),
               "sums to Inf", class = "fgseq_error_input")
})
