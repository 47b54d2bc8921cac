# Anytime prediction at deployment: partially computed rows (missing = "prefix"), per-row budgets,
# and what a prediction at a budget needs (type = "groups", "measurements"). Every prediction is checked
# against the complete row predicted at the step the row reached, that step worked out here from the
# NA pattern, the sequence and path$cost, without the package's prefix code.

# The step a row reaches at budget B: the step of G<B> (from path$cost), cut before the first group of
# the sequence in which the row has an NA.
ref_step_reached <- function(fit, row_na_groups, budget) {
  k <- max(which(fit$path$cost <= budget * (1 + 1e-12))) - 1L
  hit <- which(fit$sequence %in% row_na_groups)
  if (length(hit)) k <- min(k, min(hit) - 1L)
  k
}

# Puts NA in a few groups of some rows: row i gets NA in one column of group na_group[i] (NA: none).
with_holes <- function(x, group, na_group) {
  for (i in which(!is.na(na_group))) {
    j <- which(group == na_group[i])
    x[i, j[length(j)]] <- NA
  }
  x
}

# predict(missing = "prefix") against the complete rows predicted at the reference steps (NA filled
# with arbitrary values, which the model at those steps does not read).
expect_prefix_matches <- function(fit, x, filled, na_group, budgets, tol = 1e-12, ..., type = "link") {
  got <- predict(fit, x, budget = budgets, missing = "prefix", type = type, ...)
  full <- predict(fit, filled, type = type, ...)  # every step, complete rows
  multi <- length(dim(got)) == 3L
  for (b in seq_along(budgets)) {
    want <- vapply(seq_len(nrow(x)), function(i) ref_step_reached(fit, na_group[i], budgets[b]), integer(1))
    expect_identical(unname(attr(got, "step")[, b]), want)
    expect_close(attr(got, "cost")[, b], fit$path$cost[want + 1L], 1e-14)
    if (multi) {
      expect_close(got[, , b], t(vapply(seq_along(want), function(i) full[i, , want[i] + 1L], numeric(dim(got)[2]))),
                   tol)
    } else {
      expect_close(got[, b], full[cbind(seq_along(want), want + 1L)], tol)
    }
  }
  invisible(got)
}

deploy_data <- function(n = 60, family = "gaussian", seed = 4) {
  d <- if (family == "gaussian") sim_groups(n, sizes = c(2, 3, 1, 2, 2), seed = seed) else
    sim_glm(family, n = n, sizes = c(2, 3, 1, 2, 2), seed = seed)
  set.seed(seed)
  labels <- unique(d$group)
  d$na_group <- sample(c(labels, NA), n, replace = TRUE)
  d$holes <- with_holes(d$x, d$group, d$na_group)
  d$filled <- d$holes
  d$filled[is.na(d$filled)] <- 1e6  # never read at the step used
  d
}

test_that("missing = 'prefix' predicts each row at the step it reached (gaussian, both engines, dense and sparse)", {
  d <- deploy_data()
  budgets <- c(0, 3, 8, 15, 100)
  for (engine in c("gram", "sample")) {
    fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, engine = engine, method = "fr")
    expect_prefix_matches(fit, d$holes, d$filled, d$na_group, budgets)
    sparse <- Matrix::Matrix(d$holes, sparse = TRUE)
    expect_close(predict(fit, sparse, budget = budgets, missing = "prefix"),
                 predict(fit, d$holes, budget = budgets, missing = "prefix"), 1e-12)
  }
  # complete rows give today's prediction
  expect_close(predict(fit, d$x, budget = budgets, missing = "prefix"), predict(fit, d$x, budget = budgets), 1e-12)
})

test_that("missing = 'prefix' for binomial, poisson, multinomial and mgaussian fits", {
  budgets <- c(2, 9, 30)
  for (family in c("binomial", "poisson", "multinomial")) {
    d <- deploy_data(family = family)
    fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, family = family, lambda = 1e-3)
    expect_prefix_matches(fit, d$holes, d$filled, d$na_group, budgets, tol = 1e-10, type = "response")
    if (family != "poisson") {
      cls <- predict(fit, d$holes, budget = budgets, missing = "prefix", type = "class")
      full <- vapply(seq_len(nrow(d$x)), function(i) {
        predict(fit, d$filled[i, , drop = FALSE], step = attr(cls, "step")[i, 3], type = "class")[1, 1]
      }, character(1))
      expect_identical(unname(cls[, 3]), full)
    }
  }
  d <- deploy_data()
  y2 <- cbind(a = d$y, b = d$x[, 1] - d$y)
  fit <- fgseq(d$x, y2, group = d$group, cost = d$cost, family = "mgaussian")
  expect_prefix_matches(fit, d$holes, d$filled, d$na_group, budgets, tol = 1e-10)
})

test_that("missing = 'prefix' adds the new offset, and matches per budget and per step", {
  d <- deploy_data(family = "poisson")
  off <- seq(-0.2, 0.2, length.out = nrow(d$x))
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, family = "poisson", offset = off, lambda = 1e-3)
  expect_prefix_matches(fit, d$holes, d$filled, d$na_group, c(1, 10, 40), tol = 1e-10, newoffset = off)
  by_step <- predict(fit, d$holes, step = 0:3, missing = "prefix", newoffset = off)
  by_budget <- predict(fit, d$holes, budget = fit$path$cost[1:4], missing = "prefix", newoffset = off)
  expect_close(by_step, by_budget, 1e-14)
})

test_that("formula fits: NA in a variable removes every term that uses it, interactions included", {
  h <- heart[1:40, ]
  fit <- fgseq(diagnosis ~ age + cp + chol + thal + cp:thal + log(trestbps), data = heart,
               cost = c(age = 1, cp = 1, chol = 7.27, thal = 102.9, trestbps = 1),
               family = "binomial")
  set.seed(2)
  vars <- c("age", "cp", "chol", "thal", "trestbps")
  lacking <- sample(c(vars, NA), nrow(h), replace = TRUE)
  holes <- h
  for (i in which(!is.na(lacking))) holes[i, lacking[i]] <- NA
  terms_of <- list(age = "age", cp = c("cp", "cp:thal"), chol = "chol", thal = c("thal", "cp:thal"),
                   trestbps = "log(trestbps)")
  na_groups <- lapply(lacking, function(v) if (is.na(v)) character(0) else terms_of[[v]])
  budgets <- c(1, 4, 20, 300)
  got <- predict(fit, newdata = holes, budget = budgets, missing = "prefix", type = "response")
  full <- predict(fit, newdata = h, type = "response")
  for (b in seq_along(budgets)) {
    want <- vapply(seq_len(nrow(h)), function(i) ref_step_reached(fit, na_groups[[i]], budgets[b]), integer(1))
    expect_identical(unname(attr(got, "step")[, b]), want)
    expect_close(got[, b], full[cbind(seq_len(nrow(h)), want + 1L)], 1e-12)
  }
})

test_that("a row missing the first group gets the intercept; NA beyond the budget's prefix is fine", {
  d <- deploy_data()
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost)
  x <- d$x[1:3, ]
  x[1, d$group == fit$sequence[1]] <- NA
  x[2, d$group == fit$sequence[length(fit$sequence)]] <- NA
  p <- predict(fit, x, budget = fit$path$cost[3], missing = "prefix")
  expect_close(p[1, 1], fit$a0[1], 1e-14)
  expect_identical(unname(attr(p, "step")[, 1]), c(0L, 2L, 2L))
  expect_close(p[2, 1], predict(fit, d$x[2, , drop = FALSE], step = 2), 1e-12)
})

test_that("per_row = TRUE predicts each row at its own budget", {
  d <- deploy_data(family = "multinomial")
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost, family = "multinomial", lambda = 1e-3)
  set.seed(5)
  b <- sample(c(0, 2, 9, 30, 100), nrow(d$x), replace = TRUE)
  all <- predict(fit, d$x, budget = sort(unique(b)), type = "response")
  got <- predict(fit, d$x, budget = b, per_row = TRUE, type = "response")
  expect_identical(dim(got), c(nrow(d$x), 3L))
  expect_close(got, t(vapply(seq_len(nrow(d$x)), function(i) all[i, , match(b[i], sort(unique(b)))], numeric(3))),
               1e-12)
  steps <- vapply(b, function(B) max(which(fit$path$cost <= B)) - 1L, integer(1))
  expect_identical(unname(attr(got, "step")), steps)
  expect_close(attr(got, "cost"), fit$path$cost[steps + 1L], 1e-14)
  cls <- predict(fit, d$holes, budget = b, per_row = TRUE, missing = "prefix", type = "class")
  expect_identical(length(cls), nrow(d$x))
  by_row <- predict(fit, d$holes, budget = b, missing = "prefix", type = "class")
  expect_identical(as.vector(cls), as.vector(by_row[cbind(seq_along(b), seq_along(b))]))
})

test_that("Greedy Miser: the longest prefix of trees whose features the row has", {
  s <- sim_miser(n = 90)
  cost <- c(x1 = 1, x2 = 2, x3 = 3, x4 = 1.5, x5 = 4, x6 = 0.5)
  budgets <- c(0, 2, 5, 100)
  for (family in c("gaussian", "multinomial")) {
    y <- if (family == "gaussian") s$y else s$yk
    fit <- miser(s$x, y, cost = cost, family = family, max_steps = 15, depth = 2, cost_penalty = 0.05)
    # the first iteration whose trees split on each column, read from the trees
    first_use <- vapply(seq_len(ncol(s$x)), function(j) {
      st <- fit$trees$step[fit$trees$column %in% j]
      if (length(st)) min(st) else Inf
    }, numeric(1))
    set.seed(8)
    holes <- s$x
    lack <- sample(c(seq_len(ncol(s$x)), NA), nrow(s$x), replace = TRUE)
    for (i in which(!is.na(lack))) holes[i, lack[i]] <- NA
    filled <- holes
    filled[is.na(filled)] <- 1e6
    got <- predict(fit, holes, budget = budgets, missing = "prefix", type = "response")
    full <- predict(fit, filled, type = "response")
    for (b in seq_along(budgets)) {
      t_b <- max(which(fit$path$cost <= budgets[b])) - 1L
      want <- vapply(seq_len(nrow(s$x)), function(i) {
        as.integer(min(t_b, if (is.na(lack[i])) Inf else first_use[lack[i]] - 1))
      }, integer(1))
      expect_identical(unname(attr(got, "step")[, b]), want)
      expect_close(attr(got, "cost")[, b], fit$path$cost[want + 1L], 1e-14)
      if (family == "gaussian") {
        expect_close(got[, b], full[cbind(seq_along(want), want + 1L)], 1e-12)
      } else {
        for (i in seq_along(want)) expect_close(got[i, , b], full[i, , want[i] + 1L], 1e-12)
      }
    }
    per <- predict(fit, holes, budget = rep(budgets, length.out = nrow(s$x)), per_row = TRUE, missing = "prefix")
    every <- predict(fit, holes, budget = budgets, missing = "prefix")
    idx <- rep(seq_along(budgets), length.out = nrow(s$x))
    if (family == "gaussian") expect_close(per, every[cbind(seq_along(idx), idx)], 1e-14)
  }
})

test_that("type = 'groups' and 'measurements' list what each budget needs, at the cost of path$cost", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, method = "fr")
  budgets <- c(0, 5, 50, 300, 1000)
  groups <- predict(fit, budget = budgets, type = "groups")
  meas <- predict(fit, budget = budgets, type = "measurements")
  expect_identical(names(groups), paste0("budget=", format(budgets, trim = TRUE)))
  for (b in seq_along(budgets)) {
    k <- max(which(fit$path$cost <= budgets[b])) - 1L
    expect_identical(groups[[b]]$group, fit$sequence[seq_len(k)])
    expect_close(groups[[b]]$group_cost, heart_cost[fit$sequence[seq_len(k)]], 1e-14)
    expect_close(sum(meas[[b]]$cost), fit$path$cost[k + 1L], 1e-12)
    expect_identical(sort(meas[[b]]$measurement), sort(fit$sequence[seq_len(k)]))
  }
  m <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 20, depth = 2)
  mg <- predict(m, step = c(0, 5, 20), type = "groups")
  for (k in c(0, 5, 20)) {
    used <- unique(unname(m$group[stats::na.omit(m$trees$column[m$trees$step <= k])]))
    g <- mg[[paste0("step", k)]]
    expect_setequal(g$group, used)
    expect_close(sum(g$group_cost), m$path$cost[k + 1L], 1e-12)
  }
})

# --- bad input ---------------------------------------------------------------------------------------

test_that("per_row = TRUE with a budget of the wrong length, NA or none is an error", {
  d <- deploy_data()
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost)
  expect_error(predict(fit, d$x, budget = 1:3, per_row = TRUE), class = "fgseq_error_input")
  expect_error(predict(fit, d$x, budget = 1:3, per_row = TRUE), "must have one value per row of the new data \\(60",
               class = "fgseq_error_input")
  expect_error(predict(fit, d$x, budget = c(NA, rep(1, 59)), per_row = TRUE), class = "fgseq_error_input")
  expect_error(predict(fit, d$x, per_row = TRUE), class = "fgseq_error_input")
  expect_error(predict(fit, d$x, budget = 1, per_row = NA), "`per_row` must be TRUE or FALSE",
               class = "fgseq_error_input")
})

test_that("`missing` must be one of its values; NA with missing = 'error' stops", {
  d <- deploy_data()
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost)
  expect_error(predict(fit, d$holes, budget = 1, missing = "drop"), class = "fgseq_error_input")
  expect_error(predict(fit, d$holes, budget = 1, missing = "drop"), "`missing` must be one of \"error\", \"prefix\"",
               class = "fgseq_error_input")
  expect_error(predict(fit, d$holes, budget = 1), class = "fgseq_error_na")
  h <- heart[1:5, ]
  h$chol[2] <- NA
  hf <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
  expect_error(predict(hf, newdata = h), class = "fgseq_error_na")
  expect_error(predict(hf, newdata = h), "`newdata` has NA in the model variables", class = "fgseq_error_na")
  m <- miser(d$x, d$y, cost = d$cost, group = d$group, max_steps = 5)
  expect_error(predict(m, d$holes), class = "fgseq_error_na")
  expect_error(predict(m, d$holes, missing = "maybe"), class = "fgseq_error_input")
  inf <- d$x
  inf[3, 1] <- Inf
  expect_error(predict(fit, inf, missing = "prefix"), "contains Inf or -Inf", class = "fgseq_error_input")
  expect_error(predict(m, inf, missing = "prefix"), "contains Inf or -Inf", class = "fgseq_error_input")
})

test_that("unknown arguments to predict() are errors", {
  d <- deploy_data()
  fit <- fgseq(d$x, d$y, group = d$group, cost = d$cost)
  expect_error(predict(fit, d$x, budgt = 3), class = "fgseq_error_unknown_argument")
  expect_error(predict(fit, d$x, budgt = 3), "predict\\(\\) got unknown argument\\(s\\): `budgt`",
               class = "fgseq_error_unknown_argument")
  m <- miser(d$x, d$y, cost = d$cost, group = d$group, max_steps = 5)
  expect_error(predict(m, d$x, per_rows = TRUE), class = "fgseq_error_unknown_argument")
})

test_that("with na.action = na.exclude, missing = 'error' pads NA rows and 'prefix' predicts them", {
  h <- heart[1:120, ]
  h$chol[c(3, 9)] <- NA
  fit <- fgseq(diagnosis ~ . - restecg, data = h, cost = heart_cost[names(heart_cost) != "restecg"],
               family = "binomial", na.action = na.exclude, lambda = 1e-3)  # restecg: a level absent here
  new <- heart[121:130, ]
  new$thal[2] <- NA
  budget <- c(10, 500, 300, 20, 5, 600, 100, 50, 400, 250)
  padded <- predict(fit, newdata = new, budget = budget, per_row = TRUE, type = "response")
  expect_true(is.na(padded[2]) && is.na(attr(padded, "step")[2]))
  prefix <- predict(fit, newdata = new, budget = budget, per_row = TRUE, missing = "prefix", type = "response")
  expect_close(prefix[-2], padded[-2], 1e-14)
  k <- max(which(fit$path$cost <= budget[2])) - 1L
  want <- min(k, match("thal", fit$sequence) - 1L)
  expect_identical(unname(attr(prefix, "step")[2]), want)
  expect_close(prefix[2], predict(fit, newdata = heart[122, ], step = want, type = "response"), 1e-12)
})

test_that("with a shared measurement, a budget's measurements are the union, each paid once", {
  needs <- list(chol = c("blood_draw", "chol"), fbs = c("blood_draw", "fbs"))
  cost <- c(replace(heart_cost, c("chol", "fbs"), c(5.17, 3.10)), blood_draw = 2.10)
  fit <- fgseq(diagnosis ~ ., data = heart, cost = cost, needs = needs, method = "fr")
  meas <- predict(fit, type = "measurements")
  groups <- predict(fit, type = "groups")
  for (k in seq_along(meas)) {
    prefix <- fit$sequence[seq_len(k - 1L)]
    union <- as.character(unique(unlist(lapply(prefix, function(g) if (g %in% names(needs)) needs[[g]] else g))))
    expect_setequal(meas[[k]]$measurement, union)
    expect_close(sum(meas[[k]]$cost), sum(cost[union]), 1e-12)
    expect_close(sum(meas[[k]]$cost), fit$path$cost[k], 1e-12)
    expect_close(groups[[k]]$group_cost, fit$path$group_cost[seq_len(k)[-1L]], 1e-12)
  }
})

test_that("newoffset given to a fit without an offset is an error, not ignored", {
  x <- as.matrix(mtcars[, -1])
  fit <- fgseq(x, mtcars$mpg)
  expect_error(predict(fit, x[1:2, ], newoffset = c(100, 100)), "newoffset", class = "fgseq_error_input")
  m <- miser(x, mtcars$mpg, cost = rep(1, 10), max_steps = 3, depth = 2)
  expect_error(predict(m, x[1:2, ], newoffset = c(100, 100)), "newoffset", class = "fgseq_error_input")
})
