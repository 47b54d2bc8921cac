## Benchmark of a logistic fit from chunks (fgseq(fgseq_chunks(files), family = "binomial")): one
## map-reduce pass over the chunks per Newton step, under a sequential plan and on 2 multisession
## workers, against the in-memory fit of the same rows; then the same two plans on a small table, the
## 4,039 complete rows of modeldata's credit_data in SQLite (dbi_chunks(), 4 chunks, a formula fit),
## where a pass's work is smaller than the dispatch of its futures (the fit then runs its passes in
## the session, see ?fgseq_chunks).
##
## Usage (from the package root, with fgseq, future, future.apply, DBI, RSQLite and modeldata installed):
##   Rscript bench/bench-chunks-glm.R             # n = 100000, p = 100 in 20 groups of 5, 10 steps, 3 repeats
##   Rscript bench/bench-chunks-glm.R 20000       # smaller n
##   Rscript bench/bench-chunks-glm.R 100000 5    # 5 repeats
##
## The workers are started (and set up as ?fgseq_stats advises) before timing; writing the chunk files
## and the table is not timed. Each route runs once untimed first (the session and the workers compile
## the R code a fit runs the first time it runs it), then the routes are timed in turn, `repeats` times
## each, and the medians compared, since other work on the machine moves single timings. Printed: every
## time, the medians, their ratios (targets: chunk files on 2 workers at most 1.5 x in memory and faster
## than under the sequential plan; the small table on 2 workers at most 1.2 x sequential) and the
## largest difference of the coefficients.

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(c("fgseq", "future", "future.apply", "DBI", "RSQLite"))
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1L) as.integer(args[[1L]]) else 100000L
repeats <- if (length(args) >= 2L) as.integer(args[[2L]]) else 3L
if (is.na(n) || n < 1000L || is.na(repeats) || repeats < 1L) stop("n must be >= 1000 and repeats >= 1")
p <- 100L
steps <- 10L
set.seed(1)
x <- matrix(stats::rnorm(n * p), n)
group <- rep(seq_len(p / 5L), each = 5L)
cost <- sample(c(1, 5, 20), p / 5L, replace = TRUE)
y <- stats::rbinom(n, 1, stats::plogis(drop(x[, c(1, 7, 33, 60)] %*% c(1, -1, 0.5, 0.8))))
dir <- tempfile("chunks")
dir.create(dir)
idx <- split(seq_len(n), rep(1:10, length.out = n))
files <- file.path(dir, sprintf("chunk%02d.rds", seq_along(idx)))
for (k in seq_along(idx)) saveRDS(list(x = x[idx[[k]], ], y = y[idx[[k]]]), files[k], compress = FALSE)
cat(sprintf("n = %d, p = %d in %d groups, %d steps of CS-G-OMP (binomial), 10 chunk files\n", n, p, p / 5L, steps))

options(socketOptions = "no-delay")
Sys.setenv(OPENBLAS_NUM_THREADS = "1", OMP_NUM_THREADS = "1")
workers <- function() {
  future::plan(future::multisession, workers = 2)
  invisible(future.apply::future_lapply(1:2, function(i) requireNamespace("fgseq", quietly = TRUE)))
}
sequential <- function() future::plan(future::sequential)

# Each route: a function that fits, and the plan it runs under. The routes of one plan are run under it
# together (a new plan starts new workers): once untimed, then `repeats` times in turn.
time_routes <- function(routes, plans, repeats) {
  times <- lapply(routes, function(r) numeric(0))
  fits <- list()
  for (plan in unique(plans)) {
    mine <- names(routes)[vapply(plans, identical, logical(1), plan)]
    plan()
    for (r in mine) fits[[r]] <- routes[[r]]()  # untimed first runs
    for (k in seq_len(repeats)) {
      for (r in mine) times[[r]] <- c(times[[r]], system.time(fits[[r]] <- routes[[r]]())[["elapsed"]])
    }
  }
  for (r in names(routes)) cat(sprintf("  %-28s %s\n", r, paste(sprintf("%.2f", times[[r]]), collapse = " ")))
  list(median = vapply(times, stats::median, numeric(1)), fits = fits)
}

cat("elapsed seconds, each repeat:\n")
big <- time_routes(
  list(`in memory` = function() fgseq(x, y, group, cost, family = "binomial", max_steps = steps),
       `chunk files, sequential` = function() fgseq(fgseq_chunks(files), group = group, cost = cost,
                                                    family = "binomial", max_steps = steps),
       `chunk files, 2 workers` = function() fgseq(fgseq_chunks(files), group = group, cost = cost,
                                                   family = "binomial", max_steps = steps)),
  list(`in memory` = sequential, `chunk files, sequential` = sequential, `chunk files, 2 workers` = workers),
  repeats)
m <- big$median
cat(sprintf("median: in memory %.2f s; chunk files sequential %.2f s; on 2 workers %.2f s\n", m[[1]], m[[2]], m[[3]]))
cat(sprintf("ratio 2 workers / in memory %.2f (target <= 1.5); 2 workers / sequential %.2f (target < 1)\n",
            m[[3]] / m[[1]], m[[3]] / m[[2]]))
a <- big$fits[[1]]
b <- big$fits[[3]]
cat(sprintf("same sequence: %s; max |beta difference| %.2e\n", identical(a$sequence, b$sequence),
            max(abs(a$beta - b$beta))))
unlink(dir, recursive = TRUE)

# the small table: 4,039 rows, 13 terms
data(credit_data, package = "modeldata")
d <- stats::na.omit(credit_data)
rownames(d) <- NULL
path <- tempfile(fileext = ".sqlite")
con <- DBI::dbConnect(RSQLite::SQLite(), path)
DBI::dbWriteTable(con, "credit", d)
DBI::dbDisconnect(con)
table_chunks <- dbi_chunks(function() DBI::dbConnect(RSQLite::SQLite(), path), "credit", n_chunks = 4, template = d[0, ])
small <- time_routes(
  list(`SQLite table, sequential` = function() fgseq(Status ~ ., data = table_chunks, family = "binomial"),
       `SQLite table, 2 workers` = function() fgseq(Status ~ ., data = table_chunks, family = "binomial")),
  list(`SQLite table, sequential` = sequential, `SQLite table, 2 workers` = workers), repeats)
sequential()
unlink(path)
m <- small$median
cat(sprintf("median: SQLite table (%d rows) sequential %.2f s; on 2 workers %.2f s; ratio %.2f (target <= 1.2)\n",
            nrow(d), m[[1]], m[[2]], m[[2]] / m[[1]]))
cat(sprintf("same sequence: %s; max |beta difference| %.2e\n",
            identical(small$fits[[1]]$sequence, small$fits[[2]]$sequence), max(abs(small$fits[[1]]$beta - small$fits[[2]]$beta))))
