## Experiment: which stopping of fgseq_policy() pays least for a given agreement with the full model,
## each at its best threshold. Not a test: the thresholds are read off the test rows themselves (an
## oracle choice, the same for every stopping), so that the comparison is of the stopping rules, not of
## the calibration's noise on a hundred rows.
##
## For each stopping (`reduction`, `lookahead`, `risk`, `margin` of the adaptive rule, and the cascade;
## `mixture`: the rule stopping on the reduction under fgseq_mixture()'s working model fitted on the
## training rows, the number of components of least BIC among 1:9, and `mixture_2` with 2 components),
## fgseq_policy() is "calibrated" on the test rows with epsilon = delta = 0.5: its calibration table then
## holds, for every threshold at which some row's path changes, the rate of disagreement with the full
## model and the mean cost on those rows. Printed is the least mean cost at a disagreement of at most
## eps, the mean over random splits (a split that never reaches eps counts the full cost).
##
## Usage (from the package root, with fgseq installed; mlbench for Pima):
##   Rscript bench/experiment-adaptive-stopping.R                 # heart and Pima over 10 splits, synthetic
##   Rscript bench/experiment-adaptive-stopping.R heart 20        # sets, splits
## Data as in bench/experiment-adaptive-fitted-mixture.R: heart 120 training / 110 calibration (unused
## here) / 73 test rows, Pima 160 / 116 / 116, the synthetic set of bench/bench-adaptive.R at 2,000
## training and 600 test rows; CS-G-OMP binomial fits at lambda = 1e-3.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
args <- commandArgs(trailingOnly = TRUE)
sets <- strsplit(if (length(args) >= 1L) args[[1L]] else "heart,pima,synthetic", ",")[[1L]]
splits <- if (length(args) >= 2L) as.integer(args[[2L]]) else 10L
EPS <- c(0.01, 0.02, 0.05, 0.1, 0.2)
STOPS <- c("reduction", "lookahead", "risk", "margin", "cascade", "mixture", "mixture_2")

least_costs <- function(x, y, group, cost, needs, train, test) {
  fit <- suppressWarnings(fgseq(x[train, ], y[train], group, cost, needs = needs, family = "binomial", lambda = 1e-3))
  full_cost <- max(fit$path$cost)
  vapply(STOPS, function(s) {
    pol <- if (s == "cascade") {
      fgseq_policy(fit, x[test, ], epsilon = 0.5, delta = 0.5, rule = "cascade")
    } else if (startsWith(s, "mixture")) {  # fgseq_mixture() on the training rows: by BIC, or 2 components
      set.seed(1)
      mix <- fgseq_mixture(fit, x[train, ], components = if (s == "mixture") 1:9 else 2)
      fgseq_policy(fit, x[test, ], epsilon = 0.5, delta = 0.5, working_model = mix)
    } else {
      fgseq_policy(fit, x[test, ], epsilon = 0.5, delta = 0.5, stopping = s)
    }
    tab <- pol$calibration
    vapply(EPS, function(e) { ok <- tab$disagreement <= e; if (any(ok)) min(tab$mean_cost[ok]) else full_cost }, 0)
  }, numeric(length(EPS)))
}
report <- function(name, tabs) {
  tab <- Reduce(`+`, tabs) / length(tabs)
  cat(sprintf("==== %s: least mean test cost at a disagreement with the full model of at most eps (mean over %d split%s)\n",
              name, length(tabs), if (length(tabs) > 1L) "s" else ""))
  cat(sprintf("  %-6s %s\n", "eps", paste(sprintf("%11s", STOPS), collapse = "")))
  for (i in seq_along(EPS)) cat(sprintf("  %-6s %s\n", EPS[i], paste(sprintf("%11.1f", tab[i, ]), collapse = "")))
  cat("\n")
}
over_splits <- function(n, sizes, run) {
  lapply(seq_len(splits), function(s) {
    set.seed(s)
    perm <- sample(n)
    run(sort(perm[seq_len(sizes[1])]), sort(perm[-seq_len(sum(sizes))]))
  })
}

if ("heart" %in% sets) {
  mm <- stats::model.matrix(diagnosis ~ ., data = heart)
  group <- attr(stats::terms(diagnosis ~ ., data = heart), "term.labels")[attr(mm, "assign")[-1L]]
  y <- as.numeric(heart$diagnosis)
  report("heart", over_splits(nrow(heart), c(120, 110), function(tr, te) least_costs(mm[, -1L], y, group, heart_cost, NULL, tr, te)))
}
if ("pima" %in% sets && requireNamespace("mlbench", quietly = TRUE)) {
  utils::data("PimaIndiansDiabetes2", package = "mlbench", envir = environment())
  pima <- stats::na.omit(PimaIndiansDiabetes2)
  cost <- c(pregnant = 1, glucose = 17.61 - 2.10, pressure = 1, triceps = 1, insulin = 22.78 - 2.10, mass = 1,
            pedigree = 1, age = 1, blood_draw = 2.10)
  needs <- list(glucose = c("blood_draw", "glucose"), insulin = c("blood_draw", "insulin"))
  report("Pima", over_splits(nrow(pima), c(160, 116), function(tr, te)
    least_costs(as.matrix(pima[, 1:8]), as.numeric(pima$diabetes == "pos"), names(pima)[1:8], cost, needs, tr, te)))
}
if ("synthetic" %in% sets) {
  sc <- synthetic_cube(2000)
  report("synthetic", list(least_costs(sc$x, sc$y, sc$group, sc$cost, NULL, sc$train, utils::head(sc$test, 600))))
}
