## Benchmark of the Sparse baseline, sparse_sequence(): the cost-weighted group lasso path (block
## coordinate descent on the whitened groups, each group's entry located by Brent's method) by the
## package's core (sparse/grouplasso.hpp), against the same algorithm in plain R (tests/testthat/helper-glasso-r.R,
## the test reference and the package's solver before the core had one) and against grpreg's compiled
## group lasso path on the same standardized columns, the same lambda values and multipliers scaled to at
## least sqrt(group size) (where grpreg's path is right). Times are the best of `reps` runs in one R
## session: `sparse_sequence` is the whole call (whitening, path, prefix refits), `core`, `plain_R` and
## `grpreg` the path alone; the ratios are core / grpreg and plain_R / core.
##
## Usage (from the package root, with fgseq, grpreg and MASS installed):
##   Rscript bench/bench-sparse-sequence.R            # heart, Boston (cubic groups), synthetic 2000 x 500
##   Rscript bench/bench-sparse-sequence.R 3          # best of 3 runs
## The plain-R solver is timed once (not best of `reps`) on the synthetic data, where it takes longest.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
source("tests/testthat/helper-glasso-r.R")
bench_header(c("fgseq", "grpreg"))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1L) as.integer(args[[1L]]) else 1L

best_of <- function(expr) {
  expr <- substitute(expr)
  env <- parent.frame()
  min(replicate(reps, system.time(eval(expr, env), gcFirst = TRUE)[["elapsed"]]))
}

heart_data <- function() {
  mm <- model.matrix(diagnosis ~ ., heart)
  grp <- attr(terms(diagnosis ~ ., data = heart), "term.labels")[attr(mm, "assign")[-1]]
  list(name = "heart (303 x 20, 13 groups)", x = mm[, -1], y = as.numeric(heart$diagnosis), group = grp,
       cost = heart_cost)
}
boston_data <- function() {
  b <- MASS::Boston
  vars <- setdiff(names(b), c("medv", "chas"))
  x <- cbind(do.call(cbind, lapply(vars, function(v) {
    p <- poly(b[[v]], 3)
    colnames(p) <- paste0(v, 1:3)
    p
  })), chas = b$chas)
  grp <- c(rep(vars, each = 3), "chas")
  set.seed(5)
  list(name = "Boston cubic (506 x 37, 13 groups)", x = x, y = b$medv, group = grp,
       cost = setNames(round(runif(13, 1, 20), 2), c(vars, "chas")))
}
synthetic_data <- function(n = 2000, G = 100, size = 5) {
  set.seed(7)
  p <- G * size
  x <- matrix(rnorm(n * p), n, p)
  y <- drop(x[, 1:50] %*% rnorm(50)) + rnorm(n, sd = 3)
  grp <- sprintf("g%03d", rep(seq_len(G), each = size))
  list(name = sprintf("synthetic (%d x %d, %d groups)", n, p, G), x = x, y = y, group = grp,
       cost = setNames(sample(c(1, 5, 10, 20, 50), G, replace = TRUE), unique(grp)))
}

rows <- list()
for (d in list(heart_data(), boston_data(), synthetic_data())) {
  t_call <- best_of(sp <- sparse_sequence(d$x, d$y, d$group, d$cost, n_penalty = 100))
  wh <- fgseq:::whiten_groups_r(d$x, d$group, unique(d$group))
  live <- names(sp$group_lasso$multiplier)
  m <- unname(sp$group_lasso$multiplier)
  z <- do.call(cbind, unname(wh$z[live]))
  t_core <- best_of(fgseq:::.group_lasso_path(z, unname(wh$rank[live]), d$y, numeric(0), numeric(0), m,
                                              "gaussian", 100L, 1e-4))
  prob <- glasso_problem(unname(wh$z[live]), d$y, m, "gaussian")
  t_r <- system.time(glasso_path(prob, 100L, 1e-4), gcFirst = TRUE)[["elapsed"]]
  s <- max(sqrt(wh$rank[live]) / m)
  cols <- unlist(wh$cols[live])
  gidx <- rep(seq_along(live), lengths(wh$cols[live]))
  t_grpreg <- best_of(grpreg::grpreg(wh$xs[, cols], d$y, group = gidx, penalty = "grLasso",
                                     group.multiplier = m * s, lambda = sp$group_lasso$penalty / s))
  rows[[length(rows) + 1L]] <- data.frame(data = d$name, sparse_sequence_s = t_call, core_s = t_core,
                                          plain_R_s = t_r, grpreg_s = t_grpreg, core_vs_grpreg = t_core / t_grpreg,
                                          plain_R_vs_core = t_r / t_core)
}
print(do.call(rbind, rows), digits = 3, row.names = FALSE)
cat("\nload average after (1, 5, 15 min):", load_average(), "\n")
