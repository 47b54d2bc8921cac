## Per-row acquisition against a fixed sequence: mean cost per row against test accuracy for the
## adaptive policy (fgseq_policy(rule = "adaptive")), the static sequence of the same CS-G-OMP fit (its
## accuracy-cost curve: predict(fit, budget =) at every step's path cost), the cascade on that sequence
## (rule = "cascade", early exit on the margin, at the same epsilon and delta), the Greedy Miser
## (miser()) and LightGBM's cost-efficient gradient boosting (CEGB, where lightgbm is installed). Not a
## test: it prints what it measured in this one run, with PASS/FAIL lines for the targets below.
##
## Usage (from the package root, with fgseq installed; mlbench and lightgbm are used when installed):
##   Rscript bench/bench-adaptive.R                        # quick: heart, synthetic and Pima (a few minutes)
##   Rscript bench/bench-adaptive.R all                    # also Fashion-MNIST (10,000 / 2,000 / 10,000 images)
##   Rscript bench/bench-adaptive.R fashion 20000 3000 200 10   # Fashion-MNIST only, 20,000 training and
##                                                         # 3,000 calibration images, 200 heart splits (not
##                                                         # run: heart not selected), 10 Fashion-MNIST splits
## Arguments by position: (1) the data sets, comma-separated among heart, synthetic, pima, fashion, or
## "all" (default heart,synthetic,pima); (2) Fashion-MNIST training images (default 10000); (3) its
## calibration images (default 2000, from the other training images); (4) the random calibration/test
## splits of the guarantee check on heart (default 200); (5) the same on Fashion-MNIST (default 10);
## (6) the synthetic set's training rows (default 2000; calibration half of it, test as many); (7)
## Fashion-MNIST test images (default 10000, all; fewer: a random sample of them, with a fixed seed).
##
## Data:
##   heart      the package's `heart` (303 patients, 13 tests, Turney's costs `heart_cost` in CAD, each test
##              its full cost, no shared blood draw), binomial, formula interface, lambda = 1e-3; one split
##              with a fixed seed: 120 training, 115 calibration, 68 test rows.
##   pima       mlbench's PimaIndiansDiabetes2 (rows without NA: 392), where the installed mlbench has it;
##              Turney's (1995) costs: pregnant 1, glucose 17.61, pressure 1, triceps 1, insulin 22.78,
##              mass 1, pedigree 1, age 1, where glucose and insulin share a blood draw of 2.10 (Turney's
##              discount, as for chol and fbs on heart in ?heart_cost): `needs` gives both the
##              measurement blood_draw (2.10) and their own part (glucose 15.51, insulin 20.68), so that
##              each alone costs what Turney lists and the draw is paid once. Binomial, lambda = 1e-3;
##              160 training, 116 calibration, 116 test rows (fixed seed).
##   synthetic  "CUBE"-like, binomial: a latent class z, one of the 8 vertices of the cube {-1, 1}^3,
##              picks which of 8 groups of 3 columns (g1..g8, costs 6, 8, ..., 20) carries the signal of
##              the row (its columns have standard deviation 1 in class z, 0.15 otherwise); y = 1 when
##              w'x_z + 0.7 v_1 + N(0, 0.5^2) > 0 (v the vertex); one cheap group `hint` (cost 1) is the
##              vertex plus N(0, 0.6^2) noise, revealing the class approximately. The model is linear,
##              its working model of x Gaussian: a row's informative group shows only in the size of
##              its values, not in the mean the hint predicts for them. Default 2,000 training, 1,000
##              calibration and 2,000 test rows, lambda = 1e-3.
##   fashion    Fashion-MNIST (Debian package dataset-fashion-mnist, /usr/share/datasets/fashion-mnist;
##              skipped with a line when absent), the 9 priced feature groups of
##              bench/bench-fashion-mnist.R (its reader and extractors, bench/fashion-mnist-features.R,
##              sourced; the cost of a group is its measured extraction time per image on this machine,
##              CPU microseconds, best of 3 over the 10,000 test images; the principal components from
##              the training images only), multinomial CS-G-OMP (default lambda, 1e-6); the training and
##              calibration images are drawn from the 60,000 training images, the test images are all
##              10,000 (or the sample of argument 7). The policies are multinomial (fgseq_policy() of
##              the multinomial fit); when none is made, the line printed for each epsilon says why and
##              the Fashion-MNIST targets FAIL. With fgseq 0.1.0 an adaptive multinomial policy takes
##              about 0.15 s a calibration row and 0.1 s a predicted row here (2 cores, load 2): the
##              default sizes take hours; `fashion 2000 240 - 5 - 200` takes about 11 minutes.
##
## Methods, on the same training rows: fgseq(method = "omp") (CS-G-OMP), whose full model (the last
## step) is the model every policy is calibrated against (Learn-then-Test on the calibration rows);
## the adaptive policy with each of its stops (adaptive: stopping = "reduction", the default, on which
## the targets are judged; adaptive_mixture: the same with fgseq_mixture()'s working model fitted on the
## training rows, the number of components of least BIC among 1:9, binomial sets only, on which the
## targets are judged too; adaptive_lookahead: stopping = "lookahead"; adaptive_risk: stopping = "risk";
## adaptive_margin: stopping = "margin");
## best: rule = "best", the cheapest on the calibration rows of the adaptive and sequence rules with each
## stopping, each calibrated at delta / 6 (`kept` names the one kept; no target is judged on it);
## the adaptive policy and the cascade at epsilon in {0.01, 0.02, 0.05, 0.1, 0.2} and delta = 0.1 (an
## epsilon that needs more calibration rows than there are, ceiling(log(delta) / log(1 - epsilon)), is
## skipped with a line); the static sequence at each step's path cost; miser() with 100 trees of depth 4,
## eta = 0.1, min_node_size = 5 and cost_penalty in {0.001, 0.01, 0.1, 1} (Fashion-MNIST: 30 trees of
## depth 3, eta = 0.3, {0.01, 0.1}, as in bench-fashion-mnist.R), its cost path m$path$cost (the cost of
## the distinct groups of trees 1..t); LightGBM with the settings of bench-lightgbm.R (binary) and
## bench-fashion-mnist.R (multiclass), cegb_penalty_feature_coupled = each column's group cost and
## cegb_tradeoff from the Miser's lambdas, its cost after t trees the cost of the distinct groups its
## trees 1..t split on (measurements shared through `needs` paid once). For the Miser and LightGBM the
## tables give, at a budget, the best test accuracy over their lambdas of the last iteration within it
## (a choice among a few curves on the test rows: slightly optimistic for them).
##
## Targets (from the issue; PASS/FAIL with the numbers):
##   Fashion-MNIST: the adaptive policy reaches the full static path's test accuracy within 0.5 points
##     (at some epsilon of the sweep) at a mean cost at most 0.5 x the cost at which the static
##     sequence first reaches that accuracy (full path accuracy - 0.005);
##   synthetic: the adaptive policy has a strictly lower mean cost than the static sequence at every
##     accuracy level it reaches (each adaptive point against the cost at which the static curve first
##     reaches its accuracy);
##   the adaptive mean cost per test row is no higher than the cascade's at the same epsilon and delta
##     on heart, Pima and Fashion-MNIST, and lower on synthetic;
##   the guarantee: over random calibration/test splits of the rows not used for training (heart: 200,
##     Fashion-MNIST: fewer), the test disagreement with the full model exceeds epsilon (0.1, delta =
##     0.1) in at most delta of them plus binomial noise (PASS when the count is at most
##     qbinom(0.975, splits, delta)); the test rate is itself an estimate from the test rows, so a split
##     whose true rate is just below epsilon may still count;
##   (not a target) Fashion-MNIST also prints the adaptive policy, the cascade and rule = "best" whose
##     full model is the first step within 0.5 points of the last step's accuracy on the calibration
##     rows (the step chosen without the test rows but on the calibration rows, which the guarantee
##     does not cover: it shows what choosing the full model on other rows would save);
##   speed: the time of predict(policy, newx) on the Fashion-MNIST test rows against the time of
##     predict(fit, newx, budget = the full path's cost), at most 20 x (also shown, without a target,
##     for the other data sets).

source("bench/bench-utils.R")
bench_header(c("fgseq", "mlbench", "lightgbm"), note = "learners use 1 thread")
cat("BLAS (extSoftVersion):", extSoftVersion()[["BLAS"]], "\nLAPACK (La_library):", La_library(), "\n")
cat("load average at the start (/proc/loadavg):", load_average(), "\n\n")
suppressPackageStartupMessages(library(fgseq))
options(width = 120, fgseq.threads = 1L)
args <- commandArgs(trailingOnly = TRUE)
arg <- function(i, default) if (length(args) >= i && args[[i]] != "-") args[[i]] else default
sets <- strsplit(arg(1L, "heart,synthetic,pima"), ",", fixed = TRUE)[[1L]]
if (identical(sets, "all")) sets <- c("heart", "synthetic", "pima", "fashion")
stopifnot(all(sets %in% c("heart", "synthetic", "pima", "fashion")))
n_fashion_train <- as.integer(arg(2L, 10000))
n_fashion_cal <- as.integer(arg(3L, 2000))
splits_heart <- as.integer(arg(4L, 200))
splits_fashion <- as.integer(arg(5L, 10))
n_synth <- as.integer(arg(6L, 2000))
n_fashion_test <- as.integer(arg(7L, 10000))
bench_started <- proc.time()[["elapsed"]]
EPSILONS <- c(0.01, 0.02, 0.05, 0.1, 0.2)
DELTA <- 0.1
GUARANTEE_EPSILON <- 0.1
have_lgb <- requireNamespace("lightgbm", quietly = TRUE) && utils::packageVersion("lightgbm") >= "4.0.0"
if (have_lgb && requireNamespace("data.table", quietly = TRUE)) data.table::setDTthreads(1L)
if (!have_lgb) cat("lightgbm (>= 4.0) is not installed: LightGBM CEGB is left out of every data set.\n\n")
results <- list()  # one PASS/FAIL line per target, printed again at the end

verdict <- function(ok, what) {
  line <- sprintf("%s  %s", if (isTRUE(ok)) "PASS" else "FAIL", what)
  results[[length(results) + 1L]] <<- line
  cat(line, "\n")
}

# ---- one data set --------------------------------------------------------------------------------

# A data set: list(name, family, x (all rows: a matrix with the model's columns), y (the response as
# the fit takes it), y01 (binomial: 0/1 for the Miser and LightGBM; multinomial: the factor), label
# (the truth as the fit's classes name it, character), group (per column of x), cost (per measurement),
# needs (NULL or a list), train, cal, test (row indices), and for formula fits formula and df (the data
# frame of all rows)), boost (the Miser's and LightGBM's settings).

# The rows `rows` as fgseq's functions take them: list(x = ) or list(data = ) for a formula fit.
rows_of <- function(d, rows, arg_x = "x", arg_data = "data") {
  if (is.null(d$formula)) stats::setNames(list(d$x[rows, , drop = FALSE]), arg_x) else
    stats::setNames(list(d$df[rows, , drop = FALSE]), arg_data)
}

# With the environment variable BENCH_CACHE set to a directory, the Fashion-MNIST data (features and
# their measured costs) and the fits are kept there as .rds files and read back by later runs of the
# same sizes (for trying policies on one fit; the timings printed for a fit read back are not its own).
cached <- function(key, expr) {
  dir <- Sys.getenv("BENCH_CACHE")
  if (!nzchar(dir)) return(expr)
  file <- file.path(dir, paste0(key, ".rds"))
  if (file.exists(file)) {
    cat("(read from ", file, ")\n", sep = "")
    return(readRDS(file))
  }
  value <- expr
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  saveRDS(value, file)
  value
}

fit_fgseq <- function(d) {
  cached(paste("fit", gsub("[^A-Za-z0-9]", "", d$name), length(d$train), ncol(d$x), length(d$cal), length(d$test),
               sep = "-"), fit_fgseq_now(d))
}

fit_fgseq_now <- function(d) {
  if (is.null(d$formula)) {
    fgseq(d$x[d$train, , drop = FALSE], d$y[d$train], group = d$group, cost = d$cost, needs = d$needs,
          family = d$family, lambda = d$lambda)
  } else {
    fgseq(d$formula, data = d$df[d$train, , drop = FALSE], cost = d$cost, needs = d$needs, family = d$family,
          lambda = d$lambda)
  }
}

make_policy <- function(fit, d, rows, epsilon, rule, mixture = NULL) {
  stopping <- switch(rule, adaptive_risk = "risk", adaptive_margin = "margin", adaptive_lookahead = "lookahead",
                     adaptive = "reduction", adaptive_mixture = "reduction")
  a <- c(list(fit), rows_of(d, rows), list(epsilon = epsilon, delta = DELTA))
  if (rule == "adaptive_mixture") a$working_model <- mixture
  a$rule <- sub("_(risk|margin|lookahead|mixture)$", "", rule)
  a$stopping <- stopping
  if (is.null(d$formula)) a$y <- d$y[rows]
  do.call(fgseq_policy, a)
}

policy_predict <- function(pol, d, rows) {
  do.call(predict, c(list(pol), rows_of(d, rows, "newx", "newdata"), list(type = "class")))
}

static_predict <- function(fit, d, rows, budget) {
  p <- do.call(predict, c(list(fit), rows_of(d, rows, "newx", "newdata"), list(budget = budget, type = "class")))
  matrix(as.character(p), length(rows))
}

# The cost of a set of groups: each measurement they need paid once.
set_cost <- function(d, groups) {
  if (!length(groups)) return(0)
  needs <- lapply(groups, function(g) if (is.null(d$needs[[g]])) g else d$needs[[g]])
  sum(d$cost[unique(unlist(needs))])
}

# The accuracy of a step curve (cost, accuracy) within each budget: the last point at most it.
within <- function(cost, acc, budgets) {
  vapply(budgets, function(b) {
    k <- which(cost <= b * (1 + 1e-9))
    if (length(k)) acc[max(k)] else NA_real_
  }, numeric(1))
}

# The cost at which a step curve first reaches each accuracy (Inf: never).
first_reach <- function(cost, acc, levels) {
  vapply(levels, function(a) {
    k <- which(acc >= a - 1e-12)
    if (length(k)) min(cost[k]) else Inf
  }, numeric(1))
}

timed <- function(expr) {
  t <- system.time(value <- expr, gcFirst = TRUE)
  list(value = value, elapsed = t[["elapsed"]])
}

# The Miser's curves on the test rows: one per lambda, list of data.frame(cost, accuracy).
miser_curves <- function(d) {
  b <- d$boost
  out <- list()
  for (l in b$lambdas) {
    m <- miser(d$x[d$train, , drop = FALSE], d$y01[d$train], cost = d$cost, group = d$group, needs = d$needs,
               family = d$family, cost_penalty = l, max_steps = b$trees, depth = b$depth, eta = b$eta,
               min_node_size = 5)
    cv <- anytime_curve(m, d$x[d$test, , drop = FALSE], d$y01[d$test], metric = "accuracy")
    out[[sprintf("lambda = %g", l)]] <- data.frame(cost = cv$cost, accuracy = cv$value)
  }
  out
}

# LightGBM CEGB's curves on the test rows (NULL without lightgbm): the Miser's lambdas as tradeoffs
# (bench-lightgbm.R: lambda * 2 * s0 / (mean(cost) * h0)).
lgb_curves <- function(d) {
  if (!have_lgb) return(NULL)
  b <- d$boost
  gcost <- vapply(unique(d$group), function(g) set_cost(d, g), numeric(1))
  col_cost <- unname(gcost[d$group])
  x <- d$x[d$train, , drop = FALSE]
  xt <- d$x[d$test, , drop = FALSE]
  multi <- d$family == "multinomial"
  K <- if (multi) nlevels(d$y01) else 1L
  if (multi) {
    Y <- outer(as.integer(d$y01[d$train]), seq_len(K), "==") + 0
    s0 <- 0.5 * sum(sweep(Y, 2L, colMeans(Y))^2) / K
    h0 <- mean(colMeans(Y) * (1 - colMeans(Y)))
    label <- as.integer(d$y01[d$train]) - 1L
  } else {
    y <- d$y01[d$train]
    s0 <- 0.5 * sum((y - mean(y))^2)
    h0 <- mean(y) * (1 - mean(y))
    label <- y
  }
  out <- list()
  for (l in b$lambdas) {
    params <- list(objective = if (multi) "multiclass" else "binary", num_threads = 1L, max_depth = b$depth,
                   num_leaves = 2L^b$depth, learning_rate = b$eta, min_data_in_leaf = 5L, verbose = -1L,
                   deterministic = TRUE, cegb_tradeoff = l * 2 * s0 / (mean(gcost) * h0),
                   cegb_penalty_feature_coupled = col_cost)
    if (multi) params$num_class <- K
    g <- lightgbm::lgb.train(params, lightgbm::lgb.Dataset(x, label = label), nrounds = b$trees, verbose = -1L)
    dt <- as.data.frame(lightgbm::lgb.model.dt.tree(g))
    dt <- dt[!is.na(dt$split_feature) & dt$split_feature != "NA", ]
    its <- 0:g$current_iter()
    col_group <- stats::setNames(d$group, colnames(d$x))
    tree_it <- dt$tree_index %/% K + 1L
    cost <- vapply(its, function(t) set_cost(d, unique(col_group[dt$split_feature[tree_it <= t]])), numeric(1))
    acc <- vapply(its, function(t) {
      if (t == 0L) {
        return(if (multi) mean(d$y01[d$test] == names(which.max(table(d$y01[d$train])))) else
          mean(d$y01[d$test] == as.numeric(mean(d$y01[d$train]) > 0.5)))
      }
      pr <- predict(g, xt, num_iteration = t)
      if (multi) {
        mean(levels(d$y01)[max.col(matrix(pr, nrow(xt)), ties.method = "first")] == d$y01[d$test])
      } else {
        mean(as.numeric(pr > 0.5) == d$y01[d$test])
      }
    }, numeric(1))
    out[[sprintf("lambda = %g", l)]] <- data.frame(cost = cost, accuracy = acc)
  }
  out
}

best_within <- function(curves, budgets) {
  if (!length(curves)) return(rep(NA_real_, length(budgets)))
  a <- vapply(curves, function(cv) within(cv$cost, cv$accuracy, budgets), numeric(length(budgets)))
  apply(matrix(a, length(budgets)), 1L, max, na.rm = TRUE)
}

# Times of predict(policy) and predict(fit, budget = full) on the test rows (median of `reps`).
speed <- function(pol, fit, d, reps = 3L) {
  full <- fit$path$cost[length(fit$path$cost)]
  tp <- tf <- numeric(reps)
  for (r in seq_len(reps)) {
    tp[r] <- system.time(policy_predict(pol, d, d$test), gcFirst = TRUE)[["elapsed"]]
    tf[r] <- system.time(static_predict(fit, d, d$test, full), gcFirst = TRUE)[["elapsed"]]
  }
  c(policy = stats::median(tp), fit = stats::median(tf))
}

# Runs one data set: prints its tables, returns the measurements the targets need.
run_set <- function(d) {
  t0 <- proc.time()[["elapsed"]]
  cat(sprintf("==== %s: %d training, %d calibration, %d test rows; %d groups, %d columns; total cost %.2f ====\n",
              d$title, length(d$train), length(d$cal), length(d$test), length(unique(d$group)), ncol(d$x),
              set_cost(d, unique(d$group))))
  f <- timed(fit_fgseq(d))
  fit <- f$value
  cat(sprintf("CS-G-OMP fit: %.2f s, %d steps\n", f$elapsed, length(fit$sequence)))
  K <- length(fit$sequence)
  budgets <- fit$path$cost
  sp <- static_predict(fit, d, d$test, budgets)
  static <- data.frame(step = 0:K, group = c("(none)", fit$sequence), cost = budgets,
                       accuracy = colMeans(sp == d$label[d$test]))
  full_test <- sp[, K + 1L]
  cat("Static sequence (predict(fit, budget = path cost), test rows):\n")
  print(transform(static, cost = round(cost, 2), accuracy = round(accuracy, 4)), row.names = FALSE)

  # the mixture working model of the binomial sets, on the training rows (the number of components of
  # least BIC among 1:9)
  mixture <- NULL
  if (d$family == "binomial") {
    set.seed(1)
    tm <- timed(do.call(fgseq_mixture, c(list(fit), rows_of(d, d$train))))
    mixture <- tm$value
    cat(sprintf("fgseq_mixture(): %d component(s) of least BIC among 1:9, %.2f s\n", mixture$components, tm$elapsed))
  }
  # the policies over the epsilon sweep
  n_cal <- length(d$cal)
  pts <- list()
  pols <- list()
  for (eps in EPSILONS) {
    need <- ceiling(log(DELTA) / log(1 - eps))
    if (n_cal < need) {
      cat(sprintf("epsilon = %g needs at least %d calibration rows (has %d): skipped\n", eps, need, n_cal))
      next
    }
    for (rule in c("adaptive", if (!is.null(mixture)) "adaptive_mixture", "adaptive_lookahead", "adaptive_risk",
                   "adaptive_margin", "cascade", "best")) {
      r <- tryCatch({
        tc <- timed(make_policy(fit, d, d$cal, eps, rule, mixture))
        tp <- timed(policy_predict(tc$value, d, d$test))
        list(pol = tc$value, pred = tp$value, cal_s = tc$elapsed, pred_s = tp$elapsed)
      }, error = function(e) e)
      if (inherits(r, "error")) {
        cat(sprintf("%s, epsilon = %g: skipped (%s: %s)\n", rule, eps, class(r)[1L], conditionMessage(r)))
        next
      }
      pred <- as.character(r$pred)
      cost <- attr(r$pred, "cost")
      pols[[paste(rule, eps)]] <- r$pol
      pts[[length(pts) + 1L]] <- data.frame(
        rule = rule, epsilon = eps, threshold = signif(if (is.null(r$pol$tau)) r$pol$margin else r$pol$tau, 4),
        cal_disagree = round(r$pol$disagreement, 4), cal_cost = round(mean(r$pol$cost), 2),
        test_disagree = round(mean(pred != full_test), 4), mean_cost = mean(cost),
        cost_ratio = round(mean(cost) / budgets[K + 1L], 3), accuracy = mean(pred == d$label[d$test]),
        mean_groups = round(mean(lengths(attr(r$pred, "groups"))), 2),
        calibrate_s = round(r$cal_s, 2), predict_s = round(r$pred_s, 2),
        kept = if (is.null(r$pol$selection)) "" else paste(r$pol$rule, r$pol$stopping))
    }
  }
  pts <- if (length(pts)) do.call(rbind, pts) else NULL
  miser_cv <- miser_curves(d)
  lgb_cv <- lgb_curves(d)
  if (!have_lgb) cat("LightGBM CEGB: lightgbm is not installed, left out.\n")
  if (!is.null(pts)) {
    pts$static_acc_at_cost <- within(static$cost, static$accuracy, pts$mean_cost)
    pts$static_cost_to_reach <- first_reach(static$cost, static$accuracy, pts$accuracy)
    pts$miser_acc_at_cost <- best_within(miser_cv, pts$mean_cost)
    if (have_lgb) pts$lgb_acc_at_cost <- best_within(lgb_cv, pts$mean_cost)
    cat(sprintf("\nPolicies (delta = %g; full model = step %d, cost %.2f, test accuracy %.4f). mean_cost, accuracy,",
                DELTA, K, budgets[K + 1L], static$accuracy[K + 1L]),
        "test_disagree: on the test rows; cal_*: on the calibration rows; static/miser/lgb_acc_at_cost: their",
        "test accuracy within the policy's mean cost; static_cost_to_reach: the cost at which the static",
        "sequence first reaches the policy's accuracy\n")
    show <- pts
    for (v in intersect(c("mean_cost", "static_cost_to_reach"), names(show))) show[[v]] <- round(show[[v]], 2)
    for (v in intersect(c("accuracy", "static_acc_at_cost", "miser_acc_at_cost", "lgb_acc_at_cost"), names(show))) {
      show[[v]] <- round(show[[v]], 4)
    }
    print(show[order(show$rule, show$epsilon), ], row.names = FALSE)
  } else {
    cat("\nNo policy could be made on this data set (see the lines above).\n")
  }
  # the baselines' curves at a few budgets
  total <- budgets[K + 1L]
  grid <- signif(total * c(0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1), 3)
  tab <- data.frame(budget = grid, static = within(static$cost, static$accuracy, grid))
  for (nm in names(miser_cv)) tab[[paste("miser", nm)]] <- within(miser_cv[[nm]]$cost, miser_cv[[nm]]$accuracy, grid)
  for (nm in names(lgb_cv)) tab[[paste("lgb", nm)]] <- within(lgb_cv[[nm]]$cost, lgb_cv[[nm]]$accuracy, grid)
  tab[-1L] <- lapply(tab[-1L], round, 4)
  cat("\nTest accuracy within each budget (the last point of each curve within it):\n")
  print(tab, row.names = FALSE)
  sp_t <- NULL
  if (length(pols)) {
    key <- names(pols)[startsWith(names(pols), "adaptive")]
    if (length(key)) {
      sp_t <- speed(pols[[key[length(key)]]], fit, d)
      cat(sprintf("\npredict(policy) on the %d test rows (%s): %.3f s; predict(fit, budget = %.2f): %.3f s; ratio %.1f\n",
                  length(d$test), key[length(key)], sp_t[["policy"]], total, sp_t[["fit"]],
                  sp_t[["policy"]] / max(sp_t[["fit"]], 1e-3)))
    }
  }
  cat(sprintf("(%s: %.1f s; load average %s)\n\n", d$name, proc.time()[["elapsed"]] - t0, load_average()))
  list(fit = fit, static = static, points = pts, full_test = full_test, speed = sp_t, policies = pols)
}

# Not a target: the policies whose full model is the first step of the fit within 0.5 points of the
# last step's accuracy on the calibration rows (chosen without the test rows), against the static
# sequence's test curve `st`. The guarantee would speak of agreement with that step's model, but the
# step is chosen on the calibration rows themselves, which the guarantee does not cover: a deployment
# would choose it on other rows (what this shows is the cost such a choice saves).
earlier_full_model <- function(d, fit, st) {
  K <- length(fit$sequence)
  cal_acc <- colMeans(static_predict(fit, d, d$cal, fit$path$cost) == d$label[d$cal])
  s <- which(cal_acc[-1L] >= cal_acc[K + 1L] - 0.005)[1L]
  if (is.na(s) || s == K) return(invisible(NULL))
  cat(sprintf(paste0("\nPolicies whose full model is step %d (cost %.2f; the first step within 0.5 points of the last ",
                     "step's calibration accuracy, %.4f vs %.4f); the static sequence first reaches %.4f - 0.005 at %.2f:\n"),
              s, fit$path$cost[s + 1L], cal_acc[s + 1L], cal_acc[K + 1L], st$accuracy[K + 1L],
              first_reach(st$cost, st$accuracy, st$accuracy[K + 1L] - 0.005)))
  rows <- list()
  for (eps in c(0.02, 0.05, 0.1)) for (rule in c("adaptive", "cascade", "best")) {
    a <- c(list(fit), rows_of(d, d$cal), list(epsilon = eps, delta = DELTA, rule = rule, step = s))
    if (is.null(d$formula)) a$y <- d$y[d$cal]
    pol <- tryCatch(do.call(fgseq_policy, a), error = function(e) NULL)
    if (is.null(pol)) next
    pred <- policy_predict(pol, d, d$test)
    rows[[length(rows) + 1L]] <- data.frame(step = s, rule = rule, epsilon = eps, kept = paste(pol$rule, pol$stopping),
                                            mean_cost = round(mean(attr(pred, "cost")), 2),
                                            accuracy = round(mean(as.character(pred) == d$label[d$test]), 4))
  }
  if (length(rows)) print(do.call(rbind, rows), row.names = FALSE)
  invisible(NULL)
}

# The cascade target: the adaptive mean test cost (`rule`: the single Gaussian working model, or the
# mixture) against the cascade's at each epsilon both have.
cascade_target <- function(name, pts, strict, rule = "adaptive") {
  if (is.null(pts)) return(verdict(FALSE, sprintf("%s: %s vs cascade: no policy was made", name, rule)))
  a <- pts[pts$rule == rule, ]
  k <- pts[pts$rule == "cascade", ]
  e <- intersect(a$epsilon, k$epsilon)
  if (!length(e)) return(verdict(FALSE, sprintf("%s: %s vs cascade: no epsilon with both", name, rule)))
  ca <- a$mean_cost[match(e, a$epsilon)]
  ck <- k$mean_cost[match(e, k$epsilon)]
  ok <- if (strict) all(ca < ck) else all(ca <= ck * (1 + 1e-9))
  verdict(ok, sprintf("%s: %s mean cost %s the cascade's at every epsilon (delta = %g): %s", name, rule,
                      if (strict) "<" else "<=", DELTA,
                      paste(sprintf("eps %g: %.2f vs %.2f", e, ca, ck), collapse = "; ")))
}

# The guarantee: the fit fixed, the rows not used for training split at random into calibration and
# test rows (as many calibration rows as in the main run), the adaptive policy calibrated at
# GUARANTEE_EPSILON and delta; the count of splits whose test disagreement with the full model exceeds
# epsilon.
guarantee <- function(d, fit, n_splits, seed) {
  pool <- c(d$cal, d$test)
  n_cal <- length(d$cal)
  K <- length(fit$sequence)
  full <- static_predict(fit, d, pool, fit$path$cost[K + 1L])[, 1L]
  names(full) <- pool
  rate <- cal_rate <- cost <- numeric(n_splits)
  failed <- 0L
  t0 <- proc.time()[["elapsed"]]
  set.seed(seed)
  for (s in seq_len(n_splits)) {
    cal <- sort(sample(pool, n_cal))
    test <- setdiff(pool, cal)
    pol <- tryCatch(make_policy(fit, d, cal, GUARANTEE_EPSILON, "adaptive"), error = function(e) e)
    if (inherits(pol, "error")) {
      failed <- failed + 1L
      rate[s] <- cal_rate[s] <- cost[s] <- NA
      next
    }
    pred <- as.character(policy_predict(pol, d, test))
    rate[s] <- mean(pred != full[as.character(test)])
    cal_rate[s] <- pol$disagreement
    cost[s] <- mean(pol$cost)
  }
  over <- sum(rate > GUARANTEE_EPSILON, na.rm = TRUE)
  limit <- stats::qbinom(0.975, n_splits, DELTA)
  cat(sprintf(paste0("Guarantee on %s: %d random splits (%d calibration, %d test rows; the fit fixed), adaptive, ",
                     "epsilon = %g, delta = %g: %.1f s\n"), d$name, n_splits, n_cal, length(pool) - n_cal,
              GUARANTEE_EPSILON, DELTA, proc.time()[["elapsed"]] - t0))
  cat(sprintf(paste0("  test disagreement: mean %.4f, 90%% quantile %.4f, max %.4f; calibration disagreement mean %.4f; ",
                     "mean calibration cost %.2f; policies that could not be made: %d\n"),
              mean(rate, na.rm = TRUE), stats::quantile(rate, 0.9, na.rm = TRUE), max(rate, na.rm = TRUE),
              mean(cal_rate, na.rm = TRUE), mean(cost, na.rm = TRUE), failed))
  verdict(over <= limit && failed == 0L,
          sprintf("%s guarantee: test disagreement > epsilon = %g in %d of %d splits (%.3f; delta = %g, at most %d allowed with binomial noise)%s",
                  d$name, GUARANTEE_EPSILON, over, n_splits, over / n_splits, DELTA, limit,
                  if (failed) sprintf("; %d splits made no policy", failed) else ""))
}

binary_boost <- list(lambdas = c(0.001, 0.01, 0.1, 1), trees = 100L, depth = 4L, eta = 0.1)

# ---- heart ----------------------------------------------------------------------------------------

if ("heart" %in% sets) {
  set.seed(303)
  perm <- sample(nrow(heart))
  mm <- stats::model.matrix(diagnosis ~ ., data = heart)
  d <- list(name = "heart", title = "heart (binomial, CAD)", family = "binomial", lambda = 1e-3,
            formula = diagnosis ~ ., df = heart, x = mm[, -1L], y01 = as.numeric(heart$diagnosis),
            label = as.character(heart$diagnosis), cost = heart_cost, needs = NULL,
            group = attr(stats::terms(diagnosis ~ ., data = heart), "term.labels")[attr(mm, "assign")[-1L]],
            train = sort(perm[1:120]), cal = sort(perm[121:235]), test = sort(perm[236:303]), boost = binary_boost)
  r <- run_set(d)
  cascade_target("heart", r$points, strict = FALSE)
  cascade_target("heart", r$points, strict = FALSE, rule = "adaptive_mixture")
  if (splits_heart > 0L) guarantee(d, r$fit, splits_heart, seed = 1L)
  cat("\n")
}

# ---- synthetic ------------------------------------------------------------------------------------

if ("synthetic" %in% sets) {
  sc <- synthetic_cube(n_synth)
  x <- sc$x
  y <- sc$y
  group <- sc$group
  cost <- sc$cost
  d <- list(name = "synthetic", title = "synthetic CUBE-like (binomial)", family = "binomial", lambda = 1e-3,
            x = x, y = y, y01 = y, label = as.character(y), group = group, cost = cost, needs = NULL,
            train = sc$train, cal = sc$cal, test = sc$test, boost = binary_boost)
  r <- run_set(d)
  cascade_target("synthetic", r$points, strict = TRUE)
  cascade_target("synthetic", r$points, strict = TRUE, rule = "adaptive_mixture")
  for (rule in c("adaptive", "adaptive_mixture")) {
    a <- r$points[r$points$rule == rule, ]
    if (!nrow(a)) {
      verdict(FALSE, sprintf("synthetic: %s vs static sequence: no policy was made", rule))
    } else {
      verdict(all(a$mean_cost < a$static_cost_to_reach),
              sprintf("synthetic: %s mean cost < the static sequence's cost to reach the same test accuracy, at every point: %s",
                      rule, paste(sprintf("eps %g: acc %.4f at %.2f vs %.2f", a$epsilon, a$accuracy, a$mean_cost,
                                          a$static_cost_to_reach), collapse = "; ")))
    }
  }
  cat("\n")
}

# ---- Pima -----------------------------------------------------------------------------------------

if ("pima" %in% sets) {
  have_pima <- "PimaIndiansDiabetes2" %in%
    tryCatch(utils::data(package = "mlbench")$results[, "Item"], error = function(e) NULL)
  if (!have_pima) {
    cat("Pima: the installed mlbench has no PimaIndiansDiabetes2 (or mlbench is not installed): skipped.\n\n")
  } else {
    utils::data("PimaIndiansDiabetes2", package = "mlbench", envir = environment())
    pima <- stats::na.omit(PimaIndiansDiabetes2)
    set.seed(1995)
    perm <- sample(nrow(pima))
    y <- as.numeric(pima$diabetes == "pos")
    # Turney's costs, the blood draw shared by glucose (17.61 alone) and insulin (22.78 alone)
    cost <- c(pregnant = 1, glucose = 17.61 - 2.10, pressure = 1, triceps = 1, insulin = 22.78 - 2.10, mass = 1,
              pedigree = 1, age = 1, blood_draw = 2.10)
    d <- list(name = "Pima", title = "Pima (binomial, Turney's costs, shared blood draw)", family = "binomial",
              lambda = 1e-3, x = as.matrix(pima[, 1:8]), y = y, y01 = y, label = as.character(y),
              group = names(pima)[1:8], cost = cost,
              needs = list(glucose = c("blood_draw", "glucose"), insulin = c("blood_draw", "insulin")),
              train = sort(perm[1:160]), cal = sort(perm[161:276]), test = sort(perm[277:392]), boost = binary_boost)
    r <- run_set(d)
    cascade_target("Pima", r$points, strict = FALSE)
  cascade_target("Pima", r$points, strict = FALSE, rule = "adaptive_mixture")
    cat("\n")
  }
}

# ---- Fashion-MNIST --------------------------------------------------------------------------------

if ("fashion" %in% sets) local({
  dir <- "/usr/share/datasets/fashion-mnist"
  files <- file.path(dir, c("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                            "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"))
  if (!all(file.exists(files))) {
    cat("Fashion-MNIST is not installed (", dir, "; Debian package dataset-fashion-mnist): skipped.\n\n", sep = "")
    return(invisible())
  }
  built <- cached(paste("fashion-data", n_fashion_train, n_fashion_cal, n_fashion_test, sep = "-"), local({
    # the reader, extractors and costs of bench/bench-fashion-mnist.R (bench/fashion-mnist-features.R)
    source("bench/fashion-mnist-features.R", local = TRUE)
    list2env(fashion_read(files), environment())  # img_train, lab_train, img_test, lab_test, classes
    set.seed(2017)
    chosen <- sample(nrow(img_train), min(n_fashion_train + n_fashion_cal, nrow(img_train)))
    train <- sort(chosen[seq_len(min(n_fashion_train, length(chosen)))])
    cal <- sort(setdiff(chosen, train))
    # the principal components from the training images only (not the calibration images)
    extract <- fashion_extractors(img_train[train, ])
    timing <- fashion_group_costs(extract, img_test)
    feat_test <- timing$features
    cost_us <- timing$cost
    test <- if (n_fashion_test < nrow(img_test)) sort(sample(nrow(img_test), n_fashion_test)) else seq_len(nrow(img_test))
    feat_test <- lapply(feat_test, function(f) f[test, , drop = FALSE])
    lab_test <- lab_test[test]
    rows_tr <- c(train, cal)
    feat_train <- lapply(extract, function(e) e(img_train[rows_tr, , drop = FALSE]))
    ncols <- vapply(feat_test, ncol, integer(1))
    group <- rep(names(extract), ncols)
    x <- rbind(do.call(cbind, feat_train), do.call(cbind, feat_test))
    colnames(x) <- paste0(group, "_", sequence(ncols))
    y <- factor(c(as.character(lab_train[rows_tr]), as.character(lab_test)), levels = classes)
    rm(img_train, img_test, feat_train, feat_test, timing)
    n_tr <- length(train)
    d <- list(name = "Fashion-MNIST", title = "Fashion-MNIST (multinomial, microseconds per image)",
              family = "multinomial", lambda = 1e-6, x = x, y = y, y01 = y, label = as.character(y), group = group,
              cost = cost_us, needs = NULL, train = seq_len(n_tr), cal = n_tr + seq_along(cal),
              test = n_tr + length(cal) + seq_along(lab_test),
              boost = list(lambdas = c(0.01, 0.1), trees = 30L, depth = 3L, eta = 0.3))
    list(d = d, costs = data.frame(group = names(extract), columns = ncols, cost_us = round(cost_us, 2)))
  }))
  d <- built$d
  cat("Fashion-MNIST group costs (CPU microseconds per image, best of 3 over the 10,000 test images):\n")
  print(built$costs, row.names = FALSE)
  r <- run_set(d)
  st <- r$static
  K <- nrow(st) - 1L
  a <- if (is.null(r$points)) NULL else r$points[r$points$rule == "adaptive", ]
  if (!length(a) || !nrow(a)) {
    verdict(FALSE, "Fashion-MNIST: no adaptive policy was made (the lines above say why); its other targets not measured")
  } else {
    target_acc <- st$accuracy[K + 1L] - 0.005
    static_cost <- first_reach(st$cost, st$accuracy, target_acc)
    ok <- a$accuracy >= target_acc & a$mean_cost <= 0.5 * static_cost
    best <- if (any(a$accuracy >= target_acc)) {
      j <- which(a$accuracy >= target_acc)
      j[which.min(a$mean_cost[j])]
    } else which.max(a$accuracy)
    verdict(any(ok), sprintf(paste0("Fashion-MNIST: adaptive within 0.5 points of the full path's accuracy %.4f ",
                                    "(>= %.4f) at <= 0.5 x the static cost to reach it (%.2f us): best point eps %g, ",
                                    "accuracy %.4f at %.2f us (%.3f x)"),
                             st$accuracy[K + 1L], target_acc, static_cost, a$epsilon[best], a$accuracy[best],
                             a$mean_cost[best], a$mean_cost[best] / static_cost))
    cascade_target("Fashion-MNIST", r$points, strict = FALSE)
    if (!is.null(r$speed)) {
      ratio <- r$speed[["policy"]] / max(r$speed[["fit"]], 1e-3)
      verdict(ratio <= 20, sprintf("Fashion-MNIST speed: predict(policy) %.3f s / predict(fit, budget) %.3f s = %.1f (target <= 20)",
                                   r$speed[["policy"]], r$speed[["fit"]], ratio))
    }
    if (splits_fashion > 0L) guarantee(d, r$fit, splits_fashion, seed = 2L)
    earlier_full_model(d, r$fit, st)
  }
  cat("\n")
})

cat("==== targets ====\n")
for (line in results) cat(line, "\n")
cat(sprintf("\nWhole script: %.1f min elapsed (load average at the end: %s)\n",
            (proc.time()[["elapsed"]] - bench_started) / 60, load_average()))
