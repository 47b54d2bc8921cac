## Benchmark of the Greedy Miser: the same stage-wise boosting (100 trees of depth 4, eta = 0.1) with
## the cost penalty of equation (5) (lambda > 0) and without it (lambda = 0, plain stage-wise regression).
##
## Usage (from the package root, with fgseq installed):
##   Rscript bench/bench-miser.R               # n = 100000, p = 100
##   Rscript bench/bench-miser.R 20000         # smaller n
##   Rscript bench/bench-miser.R 100000 3      # best of 3 runs per setting
## Target: every lambda > 0 setting <= 2 x the time of lambda = 0. The penalty only changes which
## (column, threshold) a node takes among the best gains of the columns, so both do the same scans.
## Each setting is timed on the same data in one R session, on one thread (option fgseq.threads = 1).
## Last, the two split searches at the default lambda: split = "exact" against the default histogram
## search (max_bin = 255), their times and their r2 on 20000 held-out rows at the last iteration.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(note = "the core uses 1")
options(width = 120, fgseq.threads = 1L)
args <- bench_args(c(n = 100000, reps = 1))
n <- args$n
reps <- args$reps
p <- 100L
n_trees <- 100L
depth <- 4L

set.seed(20121)
x <- normal_matrix(n, p, "f")
y <- x[, 1] + sin(2 * x[, 2]) + 0.5 * x[, 3] * x[, 4] + 0.3 * rowSums(x[, 5:14]) + stats::rnorm(n)
# feature costs as on Yahoo! LTR in the paper (section 6): {1, 5, 10, 20, 50, 100, 150}
cost <- stats::setNames(sample(c(1, 5, 10, 20, 50, 100, 150), p, replace = TRUE), colnames(x))
group <- rep(sprintf("g%02d", seq_len(p / 10L)), each = 10L)
gcost <- stats::setNames(sample(c(1, 5, 10, 20, 50, 100, 150), p / 10L, replace = TRUE), unique(group))
cat(sprintf("n = %d, p = %d, %d trees of depth %d, eta = 0.1, min_node_size = 5\n\n", n, p, n_trees, depth))

time_it <- function(expr) {
  t <- replicate(reps, system.time(expr, gcFirst = TRUE)[["elapsed"]])
  min(t)
}
settings <- list(
  list(what = "lambda = 0 (stage-wise regression)", lambda = 0, paid = "after_tree", group = FALSE),
  list(what = "lambda = 0.01 (default)", lambda = 0.01, paid = "after_tree", group = FALSE),
  list(what = "lambda = 0.1", lambda = 0.1, paid = "after_tree", group = FALSE),
  list(what = "lambda = 0.01, within_tree", lambda = 0.01, paid = "within_tree", group = FALSE),
  list(what = "lambda = 0.01, 10 groups of 10", lambda = 0.01, paid = "after_tree", group = TRUE))
rows <- lapply(settings, function(s) {
  fit <- NULL
  t <- time_it(fit <- miser(x, y, cost = if (s$group) gcost else cost, group = if (s$group) group else NULL,
                            cost_penalty = s$lambda, max_steps = n_trees, depth = depth, paid = s$paid))
  last <- nrow(fit$path)
  data.frame(setting = s$what, elapsed_s = round(t, 2), features_cost = fit$path$cost[last],
             groups_used = length(fit$sequence), train_r2 = round(fit$path$r2[last], 4))
})
tab <- do.call(rbind, rows)
tab$ratio_to_lambda0 <- round(tab$elapsed_s / tab$elapsed_s[1], 2)
print(tab, row.names = FALSE)
t_pred <- time_it(pr <- predict(fitted <- miser(x[1:1000, ], y[1:1000], cost = cost, max_steps = n_trees,
                                                depth = depth), x, step = c(10, 50, 100)))
cat(sprintf("\nlargest ratio lambda > 0 / lambda = 0: %.2f (target <= 2: %s)\n", max(tab$ratio_to_lambda0[-1]),
            max(tab$ratio_to_lambda0[-1]) <= 2))
cat(sprintf("predict: %d rows at 3 steps of a 100-tree fit: %.2f s\n", n, t_pred))

# the two split searches: time and held-out r2
set.seed(20122)
x_new <- matrix(stats::rnorm(20000 * p), 20000, p, dimnames = list(NULL, colnames(x)))
y_new <- x_new[, 1] + sin(2 * x_new[, 2]) + 0.5 * x_new[, 3] * x_new[, 4] + 0.3 * rowSums(x_new[, 5:14]) +
  stats::rnorm(20000)
searches <- lapply(c("histogram", "exact"), function(split) {
  fit <- NULL
  t <- time_it(fit <- miser(x, y, cost = cost, cost_penalty = 0.01, max_steps = n_trees, depth = depth, split = split))
  r2 <- 1 - sum((y_new - predict(fit, x_new, step = n_trees))^2) / sum((y_new - mean(y))^2)
  data.frame(split = split, elapsed_s = round(t, 2), features_cost = fit$path$cost[n_trees + 1L],
             heldout_r2 = round(r2, 4), load = load_average())
})
searches <- do.call(rbind, searches)
cat("\nsplit searches at lambda = 0.01:\n")
print(searches, row.names = FALSE)
cat(sprintf("ratio histogram / exact time: %.2f\n", searches$elapsed_s[1] / searches$elapsed_s[2]))
