## Memory of the Greedy Miser on tall data: n = 1,000,000 rows, p = 100 (x is 800 MB), 10 trees of
## depth 4, the default histogram search (max_bin = 255). Target: the fit needs at most 2 x the size
## of x beyond x. Not a test.
##
## Usage (from the package root, with fgseq installed; needs about 2.5 GB of free memory):
##   Rscript bench/bench-miser-memory.R            # n = 1e6
##   Rscript bench/bench-miser-memory.R 200000     # smaller n
## Memory is measured as in bench-utils.R: the R heap's peak and the peak resident set (VmHWM) of the
## process, each beyond what was held before the call, as a multiple of the size of x. The exact
## search (split = "exact") is measured too for comparison (its sorted order and ranks are two 4-byte
## integers per entry, and r in sorted order one double per entry).

suppressPackageStartupMessages(library(fgseq))
source("bench/bench-utils.R")
bench_header(note = "fgseq.threads = 2")
n <- bench_args(c(n = 1e6))$n
p <- 100L
options(fgseq.threads = 2L)
set.seed(1)
x <- normal_matrix(n, p, "f")
y <- x[, 1] + sin(2 * x[, 2]) + 0.5 * x[, 3] * x[, 4] + stats::rnorm(n)
cost <- stats::setNames(sample(c(1, 5, 10, 20, 50, 100, 150), p, replace = TRUE), colnames(x))
size_x <- as.numeric(utils::object.size(x))
cat(sprintf("n = %.0f, p = %d, x = %.0f MB; 10 trees of depth 4\n\n", n, p, size_x / 2^20))
env <- environment()
rows <- lapply(c("histogram", "exact"), function(split) {
  m <- measure_fit(quote(miser(x, y, cost = cost, max_steps = 10, depth = 4, split = split)),
                   list2env(list(split = split), parent = env), size_x)
  data.frame(split = split, elapsed_s = round(m$time, 1), heap_beyond_x = round(m$heap_extra, 2),
             rss_beyond_x = round(m$rss_extra, 2), load = load_average())
})
tab <- do.call(rbind, rows)
print(tab, row.names = FALSE)
cat(sprintf("\nhistogram search: peak resident memory beyond x = %.2f x size of x (target <= 2: %s)\n",
            tab$rss_beyond_x[1], tab$rss_beyond_x[1] <= 2))
