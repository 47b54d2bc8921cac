## How often the quadratic gain of CS-G-FR (one Newton step from the current model, all candidates of a
## step from one pass over the rows) chooses the group the exact gain (a refit of every candidate)
## chooses, and what each costs, on the package's data sets and those of its suggested packages: GLM
## families only (for the Gaussian families the gain is exact whatever `fr_gain` says).
##
## Usage (from the package root, with fgseq installed; mlbench and modeldata are used when installed):
##   Rscript bench/bench-fr-gain.R
## For each data set: the two sequences of method = "fr" (and "doubling"), the number of leading steps
## on which they agree, the number of positions at which they choose the same group, whether they hold
## the same set of groups at each step (so the same models), the least and largest difference of the
## explained deviance (exact less quadratic) along the path at the exact path's costs, and the fit times
## (one run; say the load).

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(c("fgseq", "mlbench", "modeldata"), note = "fgseq at its default threads")
cat("load average at the start (/proc/loadavg):", load_average(), "\n\n")

# the data set `name` of `package`
data_set <- function(name, package) {
  e <- new.env()
  utils::data(list = name, package = package, envir = e)
  e[[name]]
}
sets <- list()
sets$heart <- list(formula = diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
if (requireNamespace("mlbench", quietly = TRUE)) {
  pima <- stats::na.omit(data_set("PimaIndiansDiabetes2", "mlbench"))
  sets$pima <- list(formula = diabetes ~ ., data = pima, cost = NULL, family = "binomial")
  sets$vehicle <- list(formula = Class ~ ., data = data_set("Vehicle", "mlbench"), cost = NULL, family = "multinomial")
  bc <- stats::na.omit(data_set("BreastCancer", "mlbench")[, -1])
  bc[1:9] <- lapply(bc[1:9], function(v) as.numeric(as.character(v)))
  sets$breast_cancer <- list(formula = Class ~ ., data = bc, cost = NULL, family = "binomial")
}
if (requireNamespace("modeldata", quietly = TRUE)) {
  credit <- stats::na.omit(data_set("credit_data", "modeldata"))
  sets$credit_data <- list(formula = Status ~ ., data = credit, cost = NULL, family = "binomial")
}
# a Poisson set of the package's own kind: counts from 12 groups of 3 columns, cost 1..12
set.seed(7)
xp <- matrix(rnorm(3000 * 36), 3000)
yp <- rpois(3000, exp(0.3 + xp[, c(1, 4, 10, 22, 31)] %*% c(0.4, -0.3, 0.25, 0.2, -0.2)))
sets$poisson_synthetic <- list(x = xp, y = yp, group = rep(paste0("g", 1:12), each = 3),
                               cost = stats::setNames(1:12, paste0("g", 1:12)), family = "poisson")

fit_one <- function(s, method, gain) {
  a <- list(family = s$family, method = method, fr_gain = gain, lambda = 1e-3)
  if (!is.null(s$cost)) a$cost <- s$cost
  t <- system.time(f <- if (is.null(s$formula)) do.call(fgseq, c(list(s$x, s$y, group = s$group), a)) else
    do.call(fgseq, c(list(s$formula, data = s$data), a)))[["elapsed"]]
  list(fit = f, time = t)
}

rows <- list()
for (nm in names(sets)) for (method in c("fr", "doubling")) {
  ex <- fit_one(sets[[nm]], method, "exact")
  qu <- fit_one(sets[[nm]], method, "quadratic")
  a <- ex$fit$sequence
  b <- qu$fit$sequence
  k <- min(length(a), length(b))
  lead <- if (k == 0) 0L else { d <- which(a[seq_len(k)] != b[seq_len(k)]); if (length(d)) d[1L] - 1L else k }
  same_set <- vapply(seq_len(k), function(j) setequal(a[seq_len(j)], b[seq_len(j)]), logical(1))
  # explained deviance along each path at the path costs of the exact one (step function)
  at <- function(f, cost) f$path$r2[findInterval(cost, f$path$cost)]
  diff <- at(ex$fit, ex$fit$path$cost) - at(qu$fit, ex$fit$path$cost)
  rows[[length(rows) + 1L]] <- data.frame(
    data = nm, family = sets[[nm]]$family, method = method, steps = k, leading_agree = lead,
    same_position = sum(a[seq_len(k)] == b[seq_len(k)]), same_set = sum(same_set),
    exact_minus_quadratic_min = signif(min(diff), 3), max = signif(max(diff), 3), exact_s = round(ex$time, 2), quadratic_s = round(qu$time, 2),
    speedup = round(ex$time / max(qu$time, 1e-3), 1))
}
out <- do.call(rbind, rows)
print(out, row.names = FALSE)
cat(sprintf("\nOver all data sets and methods: %d of %d steps hold the same set of groups under both gains (%.1f%%); %d of %d positions choose the same group.\n",
            sum(out$same_set), sum(out$steps), 100 * sum(out$same_set) / sum(out$steps), sum(out$same_position), sum(out$steps)))
cat("load average at the end (/proc/loadavg):", load_average(), "\n")
