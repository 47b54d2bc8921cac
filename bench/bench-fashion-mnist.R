## Fashion-MNIST at scale on one cost axis: multinomial CS-G-OMP and CS-G-FR (fgseq), the Greedy Miser
## (miser) and LightGBM's cost-efficient gradient boosting (CEGB), test accuracy against the cost of
## the feature groups computed, the timeliness of each curve, and the fit time of each. Not a test.
##
## Data: the Debian package dataset-fashion-mnist (Xiao, Rasul & Vollgraf 2017; 60,000 training and
## 10,000 test images of 28 x 28 pixels, 10 classes), read from /usr/share/datasets/fashion-mnist. When
## the files are absent the script says so and stops without error.
##
## Usage (from the package root, with fgseq installed; lightgbm and glmnet are used when installed):
##   Rscript bench/bench-fashion-mnist.R                    # 10,000 training images
##   Rscript bench/bench-fashion-mnist.R 60000              # all of them
##   Rscript bench/bench-fashion-mnist.R 60000 inst/extdata # also write the csv files the vignette shows
##   Rscript bench/bench-fashion-mnist.R 2000 - omp,frq     # only the learners listed (omp, frq, fr, miser,
##                                                          # lightgbm; comma-separated), no csv ("-")
## The default learners are omp, frq, miser and lightgbm; fr (CS-G-FR with the exact gain, a refit of
## every candidate at every step) runs only when listed. glmnet runs whenever it is installed.
##
## Feature groups: what an image system computes, each at its own price; the reader, the extractors and
## the timing are in bench/fashion-mnist-features.R (shared with bench/bench-adaptive.R). The cost of a
## group is its measured extraction time per image on this machine, in microseconds: the CPU time of
## extracting the group from the 10,000 test images (best of 3), divided by their number (the training
## images are extracted once, untimed: the cost per image does not depend on which images). Every
## extractor starts from the raw pixels (a group that shares work with another, e.g. the two gradient
## histograms, pays for it again).
##   blocks7   7 x 7 means of 4 x 4 pixel blocks (49)
##   blocks14  14 x 14 means of 2 x 2 pixel blocks (196)
##   rows, cols  the 28 row sums and the 28 column sums (projections)
##   moments   ink mass, centroid, spreads and the row-column covariance (6)
##   hog2      gradient-orientation histograms, 8 orientations, 2 x 2 cells of 14 pixels (32)
##   hog4      the same on 4 x 4 cells of 7 pixels (128)
##   pca10     projections on the first 10 principal components of the training images (10)
##   pca50     projections on components 11 to 50 (40)
##
## Learners: fgseq(family = "multinomial") with method = "omp" (CS-G-OMP) and method = "fr" with
## fr_gain = "quadratic" (CS-G-FR, quadratic gain; "exact" with learner fr), the full path; miser() with 30
## iterations of depth-3 trees (one per class), eta = 0.3, cost_penalty in {0.01, 0.1}, one thread; LightGBM
## multiclass with the same trees (max_depth = 3, num_leaves = 8, learning_rate = 0.3, 30 rounds,
## min_data_in_leaf = 5, one thread), cegb_penalty_feature_coupled = each column's group cost and
## cegb_tradeoff from the same cost_penalty values as in bench-lightgbm.R (LightGBM charges per column, not per
## group: a second column of a paid group is charged again in its criterion, never in the reported cost).
## Reference fit for the time ratio: one glmnet(family = "multinomial") call (its default path of
## lambdas) on all groups, in the same run; its row in the fits table has its fit time and the test
## accuracy at the last lambda of its path (no cost curve: it is not a sequence of groups).
##
## Memory of the fgseq fits: measure_fit() of bench/bench-utils.R, the peak beyond what the process
## held before the call (R heap through gc(), and the peak resident set through VmHWM), as a multiple
## of the size of the training x. The process keeps memory it freed before (the feature extraction's,
## an earlier fit's) and a fit reuses it unseen, so that the resident set's figure depends on what ran
## before; started with the environment variable MALLOC_MMAP_THRESHOLD_=131072 (every allocation of
## 128 kB or more is then given back when freed), it does not. Targets at 60,000 training images (printed, from this run): the
## CS-G-OMP path at most 2 x the glmnet path, its peak memory beyond x at most 1 x the size of x, the
## whole script within 30 minutes on 2 cores (its elapsed time is printed at the end with the load).
##
## Timeliness: the area under each test-accuracy step curve from cost 0 to the total cost of all groups,
## divided by that cost (curve_timeliness(interpolation = "step")).

source("bench/bench-utils.R")
bench_header(c("fgseq", "lightgbm", "glmnet"), note = "learners use 1 thread")
dir <- "/usr/share/datasets/fashion-mnist"
files <- file.path(dir, c("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                          "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"))
if (!all(file.exists(files))) {
  message("bench-fashion-mnist.R: Fashion-MNIST is not installed (", dir, "); nothing to do. ",
          "Install the Debian package dataset-fashion-mnist.")
  quit(save = "no", status = 0)
}
suppressPackageStartupMessages(library(fgseq))
options(width = 120, fgseq.threads = 1L)
args <- commandArgs(trailingOnly = TRUE)
n_train <- if (length(args) >= 1L) as.integer(args[[1L]]) else 10000L
out_dir <- if (length(args) >= 2L && args[[2L]] != "-") args[[2L]] else NULL
learners <- if (length(args) >= 3L) strsplit(args[[3L]], ",", fixed = TRUE)[[1L]] else c("omp", "frq", "miser", "lightgbm")
stopifnot(all(learners %in% c("omp", "frq", "fr", "miser", "lightgbm")))
bench_started <- proc.time()[["elapsed"]]
have_glmnet <- requireNamespace("glmnet", quietly = TRUE)

# ---- data and feature extractors (bench/fashion-mnist-features.R) -----------------------------------

source("bench/fashion-mnist-features.R")
list2env(fashion_read(files), environment())  # img_train, lab_train, img_test, lab_test, classes
set.seed(2017)
train <- sort(sample(nrow(img_train), min(n_train, nrow(img_train))))
# the principal components from the training images (offline, not part of any cost)
extract <- fashion_extractors(img_train[train, ])
timing <- fashion_group_costs(extract, img_test)
feat_test <- timing$features
cost_us <- timing$cost
rm(timing)
feat_train <- lapply(extract, function(e) e(img_train[train, , drop = FALSE]))
ncols <- vapply(feat_test, ncol, integer(1))
group <- rep(names(extract), ncols)
xtr <- do.call(cbind, feat_train)
xte <- do.call(cbind, feat_test)
colnames(xtr) <- colnames(xte) <- paste0(group, "_", sequence(ncols))
ytr <- lab_train[train]
yte <- lab_test
groups_tab <- data.frame(group = names(extract), columns = ncols,
                         cost_us = round(cost_us, 2))
cat(sprintf("Fashion-MNIST: %d training images (of %d), %d test images; %d columns in %d groups\n",
            nrow(xtr), nrow(img_train), nrow(xte), ncol(xtr), length(extract)))
cat("Group costs: CPU microseconds per image to extract the group from the raw pixels (10,000 images, best of 3):\n")
print(groups_tab, row.names = FALSE)
total_cost <- sum(cost_us)

# ---- learners ----------------------------------------------------------------------------------------

rm(img_train, img_test, feat_train, feat_test)  # the learners need only the features
size_x <- as.numeric(utils::object.size(xtr))
timed <- function(expr) {
  t <- system.time(value <- expr, gcFirst = TRUE)
  list(value = value, elapsed = t[["elapsed"]], load = load_average())
}
curves <- list()
fits <- list()
add <- function(method, cost, accuracy, time) {
  curves[[method]] <<- data.frame(method = method, cost = cost, accuracy = accuracy)
  fits[[method]] <<- data.frame(method = method, fit_s = round(time$elapsed, 2), final_cost = round(max(cost), 1),
                                final_accuracy = round(accuracy[length(accuracy)], 4),
                                timeliness = round(curve_timeliness(cost, accuracy, total_cost, "step"), 4),
                                load = time$load)
  cat(sprintf("  %-32s %9.2f s  (load at its end: %s)\n", method, time$elapsed, time$load))
}

# the speed reference right after CS-G-OMP (the two one after the other, under the same load), not
# before it: a fit's peak memory is measured beyond what the process holds before it, and the memory
# glmnet frees stays with the process (its allocator keeps it), where CS-G-OMP would reuse it unseen
run_glmnet <- function() {
  if (!have_glmnet) return(invisible())
  g <- timed(glmnet::glmnet(xtr, ytr, family = "multinomial"))
  last <- g$value$lambda[length(g$value$lambda)]
  acc <- mean(predict(g$value, xte, s = last, type = "class") == yte)
  fits[["glmnet"]] <<- data.frame(method = "glmnet multinomial path (all groups)", fit_s = round(g$elapsed, 2),
                                  final_cost = round(total_cost, 1), final_accuracy = round(acc, 4),
                                  timeliness = NA_real_, load = g$load)
  cat(sprintf("  %-32s %9.2f s  (load at its end: %s)\n", "glmnet multinomial path", g$elapsed, g$load))
}
fgseq_learners <- list(omp = list(label = "CS-G-OMP", args = list(method = "omp")),
                       frq = list(label = "CS-G-FR (quadratic gain)", args = list(method = "fr", fr_gain = "quadratic")),
                       fr = list(label = "CS-G-FR (exact gain)", args = list(method = "fr", fr_gain = "exact")))
cat("\n")
if (!"omp" %in% learners) run_glmnet()
memory <- list()
for (m in intersect(names(fgseq_learners), learners)) {
  spec <- fgseq_learners[[m]]
  call <- as.call(c(list(quote(fgseq), quote(xtr), quote(ytr), group = quote(group), cost = quote(cost_us),
                         family = "multinomial"), spec$args))
  r <- measure_fit(call, environment(), size_x)
  cv <- anytime_curve(r$value, xte, yte, metric = "accuracy")
  add(spec$label, cv$cost, cv$value, list(elapsed = r$time, load = load_average()))
  memory[[m]] <- data.frame(method = spec$label, heap_beyond_x = round(r$heap_extra, 2),
                            rss_beyond_x = round(r$rss_extra, 2))
  cat(sprintf("  %-32s peak memory beyond x: R heap %.2f x size(x), resident set %.2f x size(x)\n", "",
              r$heap_extra, r$rss_extra))
  if (m == "omp") run_glmnet()
}
for (l in if ("miser" %in% learners) c(0.01, 0.1)) {
  f <- timed(miser(xtr, ytr, cost = cost_us, group = group, family = "multinomial", cost_penalty = l, max_steps = 30,
                   depth = 3, eta = 0.3, min_node_size = 5))
  cv <- anytime_curve(f$value, xte, yte, metric = "accuracy")
  add(sprintf("Miser (cost_penalty = %g)", l), cv$cost, cv$value, f)
}
have_lgb <- requireNamespace("lightgbm", quietly = TRUE)  # looked up when needed (bench_header() too)
if ("lightgbm" %in% learners && !have_lgb) message("lightgbm is not installed: its learner is left out")
if (have_lgb && "lightgbm" %in% learners) {
  cat("lightgbm", format(utils::packageVersion("lightgbm")), "\n")
  col_cost <- unname(cost_us[group])
  for (l in c(0.01, 0.1)) {
    # the Miser's cost_penalty as a CEGB tradeoff (bench-lightgbm.R): cost_penalty * 2 * s0 / (mean(cost) * h0), with
    # the impurity s0 and hessian h0 of the first multinomial gradient, per class
    Y <- outer(as.integer(ytr), seq_len(10), "==") + 0
    s0 <- 0.5 * sum(sweep(Y, 2L, colMeans(Y))^2) / 10
    h0 <- mean(colMeans(Y) * (1 - colMeans(Y)))
    params <- list(objective = "multiclass", num_class = 10L, num_threads = 1L, max_depth = 3L, num_leaves = 8L,
                   learning_rate = 0.3, min_data_in_leaf = 5L, verbose = -1L, deterministic = TRUE,
                   cegb_tradeoff = l * 2 * s0 / (mean(cost_us) * h0), cegb_penalty_feature_coupled = col_cost)
    f <- timed(lightgbm::lgb.train(params, lightgbm::lgb.Dataset(xtr, label = as.integer(ytr) - 1L),
                                   nrounds = 30L, verbose = -1L))
    dt <- as.data.frame(lightgbm::lgb.model.dt.tree(f$value))
    dt <- dt[!is.na(dt$split_feature), ]
    first_it <- tapply(dt$tree_index %/% 10L + 1L, group[match(dt$split_feature, colnames(xtr))], min)
    its <- 0:f$value$current_iter()
    cost <- vapply(its, function(t) sum(cost_us[names(first_it)[first_it <= t]]), numeric(1))
    acc <- vapply(its, function(t) {
      if (t == 0L) return(mean(yte == names(which.max(table(ytr)))))
      pr <- matrix(predict(f$value, xte, num_iteration = t), nrow(xte))
      mean(classes[max.col(pr, ties.method = "first")] == yte)
    }, numeric(1))
    add(sprintf("LightGBM CEGB (from cost_penalty = %g)", l), cost, acc, f)
  }
}
curves <- do.call(rbind, curves)
fits <- do.call(rbind, fits)
cat("\nFit time (elapsed s, with the load average at its end), final cost (microseconds per image), final",
    "test accuracy and timeliness (step curve, budget = all groups,", round(total_cost, 1), "us):\n")
print(fits, row.names = FALSE)
if (length(memory)) {
  cat(sprintf("\nPeak memory of the fgseq fits beyond what the process held before, as a multiple of the size of the training x (%.0f MB):\n",
              size_x / 2^20))
  print(do.call(rbind, memory), row.names = FALSE)
}
if (have_glmnet && "omp" %in% learners) {
  cat(sprintf("\nCS-G-OMP full path / glmnet multinomial path on all groups (same run) = %.2f\n",
              fits$fit_s[fits$method == "CS-G-OMP"] / fits$fit_s[startsWith(fits$method, "glmnet")]))
}

# test accuracy of each curve at a few budgets (the last point within each)
budgets <- signif(total_cost * c(0.02, 0.05, 0.1, 0.2, 0.5, 1), 2)
at <- vapply(split(curves, curves$method), function(cv) {
  vapply(budgets, function(b) cv$accuracy[max(which(cv$cost <= b))], numeric(1))
}, numeric(length(budgets)))
at <- data.frame(budget_us = budgets, round(matrix(at, length(budgets)), 3), check.names = FALSE)
names(at)[-1L] <- names(split(curves, curves$method))
cat("\nTest accuracy within each budget (microseconds per image):\n")
print(at, row.names = FALSE)

if (!is.null(out_dir)) {
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  groups_tab$n_train <- fits$n_train <- curves$n_train <- nrow(xtr)
  utils::write.csv(groups_tab, file.path(out_dir, "fashion-mnist-groups.csv"), row.names = FALSE)
  utils::write.csv(fits, file.path(out_dir, "fashion-mnist-fits.csv"), row.names = FALSE)
  curves$accuracy <- round(curves$accuracy, 4)
  curves$cost <- round(curves$cost, 2)
  utils::write.csv(curves, file.path(out_dir, "fashion-mnist-curves.csv"), row.names = FALSE)
  cat("\nwrote", file.path(out_dir, c("fashion-mnist-groups.csv", "fashion-mnist-fits.csv",
                                      "fashion-mnist-curves.csv")), "\n")
}
cat(sprintf("\nWhole script: %.1f min elapsed (load average at the end: %s)\n",
            (proc.time()[["elapsed"]] - bench_started) / 60, load_average()))
