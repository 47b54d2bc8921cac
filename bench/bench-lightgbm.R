## The Greedy Miser against LightGBM's cost-efficient gradient boosting (CEGB), on the same data, costs
## and trees. Not a test: lightgbm (>= 4.0) is not needed by fgseq, and the script stops with a message
## when it is not installed.
##
## Usage (from the package root, with fgseq and lightgbm installed):
##   Rscript bench/bench-lightgbm.R              # heart, Pima (needs an mlbench that has it), speed n = 100000
##   Rscript bench/bench-lightgbm.R 20000        # smaller n for the speed setting
##   Rscript bench/bench-lightgbm.R 100000 0     # skip the speed setting's lambda grid (timing only)
##
## LightGBM: cegb_penalty_feature_coupled = the cost of each column (charged once per model, the first
## time a split uses the column; later splits and trees use it for free, as in the Miser), and
## cegb_tradeoff over a grid; num_threads = 1, max_depth = 4, num_leaves = 16, learning_rate = 0.1,
## min_data_in_leaf = 5, 100 rounds. miser(): 100 trees of depth 4, eta = 0.1, min_node_size = 5, a
## lambda grid, its default histogram search (max_bin = 255) on one thread (option fgseq.threads); the
## speed setting also times it on 2 threads against itself on 1 (target: at most 0.6), 1 and 2 threads
## alternated three times each, and prints the ratio of the median elapsed times with the CPU seconds
## and the load of every fit. Both grids are given as the Miser's lambda; the LightGBM tradeoff of a lambda is
##   cegb_tradeoff = lambda * 2 * s0 / (mean(cost) * h0),
## s0 = 1/2 sum_i (y_i - mean(y))^2 the Miser's initial impurity, h0 the hessian of the loss per row at
## the start (1 for the squared error, mean(y) (1 - mean(y)) for the log-loss). LightGBM's split gain is
## G_L^2 / H_L + G_R^2 / H_R - G^2 / H, twice the Miser's for the squared error, so for "gaussian" the
## two penalties are the same function of the gain; for the log-loss the Miser's default Newton trees
## (miser(leaves = "newton")) have LightGBM's gain over 2 as well, and the h0 of the grid maps the
## lambdas as the gradient trees (leaves = "gradient", unit weights) would have them: the grids of both
## learners cover the same range of costs, and the tables compare them at equal cost. Remaining differences: both bin each feature (max_bin = 255; LightGBM
## from a sample of rows, the Miser from all of them); LightGBM grows a tree best-first up to 16 leaves
## and depth 4, the Miser level by level; a LightGBM split on a column frees that column for the rest
## of its tree (the Miser's paid = "within_tree"; the default "after_tree" is used here, as in the
## paper).
##
## Cost of a model of t trees: the total cost of the distinct groups used by trees 1..t (for LightGBM
## from lgb.model.dt.tree()). On heart, a factor test is a group of dummy columns; LightGBM gets one
## penalty per column, so a second dummy of an already paid test is charged again in its criterion
## (never in the reported cost).
##
## Protocol on heart and Pima (as in vignette("miser")): 10 random splits, 70% training and 30% test;
## 25% of the training rows are a validation set, both learners fit on the other 75%. For every grid
## value the best iteration on the validation rows (ties: the earliest) gives one point: its cost and
## its test accuracy. The table reports the mean over splits (SE in brackets).

source("bench/bench-utils.R")
bench_header(c("fgseq", "lightgbm"), note = "both use 1")
if (!requireNamespace("lightgbm", quietly = TRUE) || utils::packageVersion("lightgbm") < "4.0.0") {
  message("bench-lightgbm.R: the lightgbm package (>= 4.0) is not installed; nothing to compare. ",
          "Install it with install.packages(\"lightgbm\").")
  quit(save = "no", status = 0)
}
suppressPackageStartupMessages({
  library(fgseq)
  library(lightgbm)
})
options(width = 120)
args <- commandArgs(trailingOnly = TRUE)
n_speed <- if (length(args) >= 1L) as.integer(args[[1L]]) else 100000L
speed_grid <- if (length(args) >= 2L) as.integer(args[[2L]]) != 0L else TRUE
if (requireNamespace("data.table", quietly = TRUE)) data.table::setDTthreads(1L)

N_TREES <- 100L
DEPTH <- 4L

# ---- LightGBM -------------------------------------------------------------------------------------

lgb_tradeoff <- function(lambda, y, cost, family) {
  s0 <- 0.5 * sum((y - mean(y))^2)
  h0 <- if (family == "gaussian") 1 else mean(y) * (1 - mean(y))
  lambda * 2 * s0 / (mean(cost) * h0)
}

# col_cost: one cost per column of x (its group's cost).
lgb_fit <- function(x, y, col_cost, family, tradeoff) {
  params <- list(objective = if (family == "gaussian") "regression" else "binary",
                 num_threads = 1L, max_depth = DEPTH, num_leaves = 16L, learning_rate = 0.1,
                 min_data_in_leaf = 5L, verbose = -1L, deterministic = TRUE)
  if (tradeoff > 0) {
    params$cegb_tradeoff <- tradeoff
    params$cegb_penalty_feature_coupled <- unname(col_cost)
  }
  lightgbm::lgb.train(params = params, data = lightgbm::lgb.Dataset(x, label = y), nrounds = N_TREES,
                      verbose = -1L)
}

# Cumulative cost after every iteration 0..T: distinct groups used by trees 1..t.
# dt: the model's lgb.model.dt.tree() as a data frame (one parse per model: it is the slow part).
lgb_trees <- function(model) as.data.frame(lightgbm::lgb.model.dt.tree(model, num_iteration = N_TREES))

lgb_path_cost <- function(dt, col_group, group_cost) {
  dt <- dt[!is.na(dt$split_feature) & dt$split_feature != "NA", ]
  first <- tapply(dt$tree_index + 1L, col_group[dt$split_feature], min)   # first tree using each group
  vapply(0:N_TREES, function(t) sum(group_cost[names(first)[first <= t]]), numeric(1))
}

# The prediction after every iteration 0..T on x: an n x (T + 1) matrix on the link scale; column 1 the
# constant model (the training mean or its log-odds, which LightGBM adds to its first tree). From the
# leaf of every row in every tree and the leaf values of lgb.model.dt.tree(). LightGBM stops early when
# a tree cannot split (for example under a large penalty): the model after its last tree then stands
# for the remaining iterations.
lgb_path_predict <- function(model, dt, x, init) {
  n_it <- model$current_iter()
  H <- matrix(init, nrow(x), N_TREES + 1L)
  if (n_it == 0L) return(H)
  leaf <- matrix(predict(model, x, type = "leaf"), nrow(x))           # leaf index of every row in every tree
  dt <- dt[!is.na(dt$leaf_value), ]
  if (!nrow(dt)) return(H)               # the first tree did not split: the constant model throughout
  value <- matrix(0, n_it, max(dt$leaf_index) + 1L)
  value[cbind(dt$tree_index + 1L, dt$leaf_index + 1L)] <- dt$leaf_value
  contrib <- vapply(seq_len(n_it), function(t) value[t, leaf[, t] + 1L], numeric(nrow(x)))
  cum <- t(apply(matrix(contrib, nrow(x)), 1L, cumsum))
  if (n_it == 1L) cum <- matrix(cum, ncol = 1L)
  H[, 1L + seq_len(N_TREES)] <- cum[, pmin(seq_len(N_TREES), n_it)]
  H
}

# ---- metrics --------------------------------------------------------------------------------------

path_metric <- function(H, y, family, y_train_mean) {
  if (family == "gaussian") {
    sse0 <- sum((y - y_train_mean)^2)
    return(1 - colSums((y - H)^2) / sse0)
  }
  colMeans((H > 0) == (y == 1))
}

# ---- one data set: splits, grids, points ------------------------------------------------------------

# d: list(x, y, group, cost, family); returns one row per (learner, lambda, split).
compare_small <- function(d, lambdas, n_splits = 10L) {
  col_cost <- d$cost[d$group]
  rows <- list()
  for (s in seq_len(n_splits)) {
    set.seed(s)
    n <- nrow(d$x)
    train <- sample(n, round(0.7 * n))
    test <- setdiff(seq_len(n), train)
    valid <- sample(train, round(0.25 * length(train)))
    fit_rows <- setdiff(train, valid)
    x <- d$x[fit_rows, , drop = FALSE]
    y <- d$y[fit_rows]
    for (l in lambdas) {
      m <- miser(x, y, cost = d$cost, group = d$group, cost_penalty = l, max_steps = N_TREES, depth = DEPTH,
                 family = d$family, min_node_size = 5)
      mv <- path_metric(predict(m, d$x[valid, ]), d$y[valid], d$family, mean(y))
      mt <- path_metric(predict(m, d$x[test, ]), d$y[test], d$family, mean(y))
      b <- which.max(mv)
      rows[[length(rows) + 1L]] <- data.frame(learner = "miser", lambda = l, split = s, iteration = b - 1L,
                                              cost = m$path$cost[b], test = mt[b])
      tr <- lgb_tradeoff(l, y, d$cost, d$family)
      g <- lgb_fit(x, y, col_cost, d$family, tr)
      init <- if (d$family == "gaussian") mean(y) else stats::qlogis(mean(y))
      dt <- lgb_trees(g)
      gv <- path_metric(lgb_path_predict(g, dt, d$x[valid, ], init), d$y[valid], d$family, mean(y))
      gt <- path_metric(lgb_path_predict(g, dt, d$x[test, ], init), d$y[test], d$family, mean(y))
      gc <- lgb_path_cost(dt, stats::setNames(d$group, colnames(d$x)), d$cost)
      b <- which.max(gv)
      rows[[length(rows) + 1L]] <- data.frame(learner = "lightgbm", lambda = l, split = s, iteration = b - 1L,
                                              cost = gc[b], test = gt[b])
    }
  }
  do.call(rbind, rows)
}

summarise_points <- function(res, metric) {
  se <- function(v) stats::sd(v) / sqrt(length(v))
  agg <- function(f) stats::aggregate(cbind(iteration, cost, test) ~ learner + lambda, res, f)
  m <- agg(mean)
  s <- agg(se)
  out <- data.frame(learner = m$learner, lambda = m$lambda,
                    iteration = round(m$iteration, 1),
                    cost = sprintf("%.2f (%.2f)", m$cost, s$cost),
                    test = sprintf("%.3f (%.3f)", m$test, s$test))
  names(out)[5L] <- paste("test", metric)
  out[order(out$learner != "miser", out$lambda), ]
}

lambdas <- c(0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1)

# heart: the design matrix of the formula interface, one group per test
mm <- stats::model.matrix(diagnosis ~ ., data = heart)
heart_d <- list(x = mm[, -1], y = as.numeric(heart$diagnosis), family = "binomial", cost = heart_cost,
                group = attr(stats::terms(diagnosis ~ ., data = heart), "term.labels")[attr(mm, "assign")[-1]])
# compare_small() on data set `d`, printed under the title `what` with its time
report_small <- function(d, what) {
  t0 <- proc.time()[["elapsed"]]
  res <- compare_small(d, lambdas)
  cat("==", what, "best validation iteration per lambda, mean (SE) over 10 splits ==\n")
  print(summarise_points(res, "accuracy"), row.names = FALSE)
  cat(sprintf("(%.1f s)\n\n", proc.time()[["elapsed"]] - t0))
}
report_small(heart_d, sprintf("heart (%d patients, 13 tests, costs in CAD, total %.2f):", nrow(heart_d$x),
                              sum(heart_cost)))

# Pima: from mlbench, whose recent versions no longer ship it
have_pima <- "PimaIndiansDiabetes2" %in%
  tryCatch(utils::data(package = "mlbench")$results[, "Item"], error = function(e) NULL)
if (have_pima) {
  utils::data("PimaIndiansDiabetes2", package = "mlbench", envir = environment())
  pima <- stats::na.omit(PimaIndiansDiabetes2)
  # Turney's costs; blood pressure and skin fold have none there and are taken as 1.00
  pima_cost <- c(pregnant = 1, glucose = 17.61, pressure = 1, triceps = 1, insulin = 22.78,
                 mass = 1, pedigree = 1, age = 1)
  pima_d <- list(x = as.matrix(pima[, 1:8]), y = as.numeric(pima$diabetes == "pos"), family = "binomial",
                 cost = pima_cost, group = names(pima)[1:8])
  report_small(pima_d, sprintf("Pima (%d women, 8 measurements, total cost %.2f):", nrow(pima_d$x),
                                sum(pima_cost)))
} else {
  cat("the installed mlbench has no Pima data (or mlbench is not installed): Pima skipped.\n\n")
}

# ---- speed setting: n rows, p = 100, 100 trees of depth 4 (as bench/bench-miser.R) -------------------

p <- 100L
set.seed(20121)
n_all <- n_speed + 40000L
x_all <- matrix(stats::rnorm(n_all * p), n_all, p, dimnames = list(NULL, sprintf("f%03d", seq_len(p))))
y_all <- x_all[, 1] + sin(2 * x_all[, 2]) + 0.5 * x_all[, 3] * x_all[, 4] + 0.3 * rowSums(x_all[, 5:14]) +
  stats::rnorm(n_all)
cost <- stats::setNames(sample(c(1, 5, 10, 20, 50, 100, 150), p, replace = TRUE), colnames(x_all))
x <- x_all[seq_len(n_speed), ]
y <- y_all[seq_len(n_speed)]
valid <- n_speed + seq_len(20000L)
test <- n_speed + 20000L + seq_len(20000L)
cat(sprintf("== speed setting: n = %d, p = %d, %d trees of depth %d, gaussian, one thread ==\n",
            n_speed, p, N_TREES, DEPTH))

withr_threads <- function(threads, expr) {
  op <- options(fgseq.threads = threads)
  on.exit(options(op))
  expr
}
timed <- function(expr) {
  t <- system.time(value <- expr, gcFirst = TRUE)[["elapsed"]]
  list(value = value, time = t)
}
options(fgseq.threads = 1L)  # the Miser's histograms on one thread, as LightGBM's num_threads = 1
speed_lambdas <- if (speed_grid) c(0, 0.001, 0.01, 0.1, 1) else c(0, 0.01)
rows <- list()
for (l in speed_lambdas) {
  m <- timed(miser(x, y, cost = cost, cost_penalty = l, max_steps = N_TREES, depth = DEPTH, min_node_size = 5))
  tr <- lgb_tradeoff(l, y, cost, "gaussian")
  g <- timed(lgb_fit(x, y, cost, "gaussian", tr))
  mv <- path_metric(predict(m$value, x_all[valid, ]), y_all[valid], "gaussian", mean(y))
  mt <- path_metric(predict(m$value, x_all[test, ]), y_all[test], "gaussian", mean(y))
  dt <- lgb_trees(g$value)
  gv <- path_metric(lgb_path_predict(g$value, dt, x_all[valid, ], mean(y)), y_all[valid], "gaussian", mean(y))
  gt <- path_metric(lgb_path_predict(g$value, dt, x_all[test, ], mean(y)), y_all[test], "gaussian", mean(y))
  gc <- lgb_path_cost(dt, stats::setNames(colnames(x), colnames(x)), cost)
  bm <- which.max(mv)
  bg <- which.max(gv)
  rows[[length(rows) + 1L]] <- data.frame(
    lambda = l, cegb_tradeoff = signif(tr, 3),
    miser_s = round(m$time, 2), lightgbm_s = round(g$time, 2), ratio = round(m$time / g$time, 2),
    miser_iter = bm - 1L, miser_cost = m$value$path$cost[bm], miser_test_r2 = round(mt[bm], 4),
    miser_cost_T = m$value$path$cost[N_TREES + 1L], lgb_iter = bg - 1L, lgb_cost = gc[bg],
    lgb_test_r2 = round(gt[bg], 4), lgb_cost_T = gc[N_TREES + 1L])
}
tab <- do.call(rbind, rows)
print(tab, row.names = FALSE)
cat("\nmiser_s, lightgbm_s: elapsed seconds to fit 100 trees (LightGBM including its lgb.Dataset binning);",
    "ratio = miser_s / lightgbm_s, measured in this one run.\n",
    "*_iter, *_cost, *_test_r2: best iteration on 20000 validation rows, its cost and its r2 on 20000 test",
    "rows; *_cost_T: cost after all 100 trees.\n")
cat(sprintf("ratio miser / lightgbm: median %.2f, range %.2f to %.2f\n", stats::median(tab$ratio),
            min(tab$ratio), max(tab$ratio)))

# the Miser on 2 threads (option fgseq.threads) against itself on 1, at the default lambda: 1 and 2
# threads alternated, REPS fits each; elapsed and CPU seconds (user + system, all threads) of each fit
REPS <- 3L
thread_runs <- list()
for (r in seq_len(REPS)) {
  for (threads in 1:2) {
    st <- withr_threads(threads, system.time(
      fit <- miser(x, y, cost = cost, cost_penalty = 0.01, max_steps = N_TREES, depth = DEPTH, min_node_size = 5),
      gcFirst = TRUE))
    thread_runs[[length(thread_runs) + 1L]] <- list(
      threads = threads, elapsed = st[["elapsed"]], cpu = st[["user.self"]] + st[["sys.self"]],
      trees = fit$trees, load = load_average())
  }
}
runs <- data.frame(threads = vapply(thread_runs, `[[`, 1, "threads"),
                   elapsed_s = vapply(thread_runs, `[[`, 1, "elapsed"),
                   cpu_s = vapply(thread_runs, `[[`, 1, "cpu"),
                   load = vapply(thread_runs, `[[`, "", "load"))
cat("\nmiser, lambda = 0.01, 1 and 2 threads alternated (cpu_s: user + system seconds of all threads):\n")
print(runs, row.names = FALSE)
same <- all(vapply(thread_runs, function(r) identical(r$trees, thread_runs[[1L]]$trees), logical(1)))
med <- function(k, what) stats::median(runs[[what]][runs$threads == k])
cat(sprintf("median elapsed: 1 thread %.2f s, 2 threads %.2f s; median cpu: 1 thread %.2f s, 2 threads %.2f s\n",
            med(1, "elapsed_s"), med(2, "elapsed_s"), med(1, "cpu_s"), med(2, "cpu_s")))
cat(sprintf("ratio 2 / 1 threads (median elapsed) %.2f (target <= 0.6); same trees: %s; load average %s\n",
            med(2, "elapsed_s") / med(1, "elapsed_s"), same, load_average()))
