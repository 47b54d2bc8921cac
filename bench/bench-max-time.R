## How far a fit overshoots `max_time` (target: at most 10% of max_time or 0.2 s, whichever is larger),
## where a single step is long: binomial CS-G-FR with fr_gain = "exact" refits every candidate group
## (one Newton solve each) within a step, and the passes over x before the first step (the sweep for
## NA and extreme scales, the statistics of either linear engine, the passes over chunks, the binning of
## the Greedy Miser). Prints, for each
## case, the elapsed time, the bound (max_time plus the allowance), the overshoot (elapsed - max_time)
## and its ratio to the allowance (at most 1 within the bound).
## The tall Gaussian cases run `reps` times each (their overshoot varies from run to run).
##   Rscript bench/bench-max-time.R [n] [reps]        (defaults n = 200000, reps = 5)
source("bench/bench-utils.R")
suppressMessages(library(fgseq))
bench_header()
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args)) as.numeric(args[[1L]]) else 200000
reps <- if (length(args) > 1L) as.numeric(args[[2L]]) else 5

report <- function(label, max_time, expr) {
  t0 <- proc.time()[["elapsed"]]
  out <- tryCatch(withCallingHandlers(expr, fgseq_warning_partial = function(w) invokeRestart("muffleWarning")),
                  error = function(e) e)
  elapsed <- proc.time()[["elapsed"]] - t0
  allowance <- max(0.1 * max_time, 0.2)
  what <- if (inherits(out, "error")) "error (max_time spent in the pass)" else
    if (inherits(out, "miser")) paste0(out$n_steps, " iterations, partial = ", isTRUE(out$partial)) else
    paste0(length(out$sequence), " groups, partial = ", isTRUE(out$partial))
  cat(sprintf("%-46s max_time %5.2f s  elapsed %6.2f s  bound %5.2f s  overshoot %5.2f s  overshoot/allowance %5.2f  (%s)\n",
              label, max_time, elapsed, max_time + allowance, elapsed - max_time, (elapsed - max_time) / allowance,
              what))
}

set.seed(1)
p <- 400
x <- matrix(rnorm(n * p), n, p)
y <- rbinom(n, 1, plogis(drop(x[, 1:20] %*% rnorm(20, sd = 0.3))))
group <- rep(seq_len(p / 10), each = 10)
for (mt in c(1, 2, 5)) {
  report("binomial FR exact (a refit per candidate)", mt,
         fgseq(x, y, group = group, family = "binomial", method = "fr", fr_gain = "exact", max_time = mt))
}
report("binomial OMP", 1, fgseq(x, y, group = group, family = "binomial", max_time = 1))
rm(x)

# the pass over x: a tall Gaussian problem whose statistics take longer than max_time
xt <- matrix(rnorm(1e6 * 60), 1e6, 60)
yt <- drop(xt[, 1:5] %*% rnorm(5)) + rnorm(1e6)
t0 <- proc.time()[["elapsed"]]
invisible(fgseq(xt, yt, max_steps = 1))
cat(sprintf("gaussian n = 1e6, p = 60: the pass and one step take %.2f s\n", proc.time()[["elapsed"]] - t0))
for (mt in rep(c(0.2, 0.5), each = reps)) {
  report("gaussian n = 1e6, p = 60 (the pass over x)", mt, fgseq(xt, yt, max_time = mt))
}
for (mt in rep(c(0.2, 0.5), each = reps)) {
  report("gaussian n = 1e6, p = 60, sample-space engine", mt, fgseq(xt, yt, engine = "sample", max_time = mt))
}
# the same rows in 10 chunks (a list): the pass over the chunks counts, checked between chunks
chunks <- fgseq_chunks(lapply(split(seq_len(1e6), rep(1:10, each = 1e5)), function(i) list(x = xt[i, ], y = yt[i])))
for (mt in rep(c(0.2, 0.5), each = reps)) report("gaussian n = 1e6, p = 60, 10 chunks", mt, fgseq(chunks, max_time = mt))
# a binomial fit from the same chunks with an offset: its moments pass counts too (checked between
# chunks), and the null model's intercept comes from the response, weights and offsets that pass keeps
off <- rnorm(1e6, sd = 0.2)
yb <- rbinom(1e6, 1, plogis(xt[, 1] + off))
bchunks <- fgseq_chunks(lapply(split(seq_len(1e6), rep(1:10, each = 1e5)),
                               function(i) list(x = xt[i, ], y = yb[i], offset = off[i])))
for (mt in rep(c(0.2, 0.5, 2), each = reps)) {
  report("binomial n = 1e6, p = 60, 10 chunks, offset", mt, fgseq(bchunks, family = "binomial", max_time = mt))
}
# the Greedy Miser on the tall rows: the sweep of x for NA and Inf and its binning count (the binning
# is polled between columns), so max_time bounds a fit whose first tree takes seconds
for (mt in rep(c(0.2, 0.5), each = reps)) {
  report("miser n = 1e6, p = 60 (sweep and binning)", mt, miser(xt, yt, cost = rep(1, 60), max_steps = 10, max_time = mt))
}
# a multinomial Miser whose iteration is ten trees (one per class) of about 0.1 s each: the trees check
# the clock before every level, so an iteration in progress at the deadline is abandoned
xm <- xt[seq_len(4e5), 1:40]
cls <- factor(max.col(xm[, 1:10] + matrix(rnorm(4e5 * 10), 4e5, 10)))
for (mt in c(6, 6.5, 7, 7.5)) {
  report("miser multinomial n = 4e5, p = 40, 10 classes", mt,
         miser(xm, cls, cost = rep(1, 40), family = "multinomial", max_steps = 50, depth = 6, max_time = mt))
}
cat("load after:", load_average(), "\n")
