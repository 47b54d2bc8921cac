## Benchmark of sparse input: a Matrix::dgCMatrix x read in place by the sample-space engine.
##
## Usage (from the package root, with fgseq and Matrix installed):
##   Rscript bench/bench-sparse.R                 # n = 100000, p = 20000, density 0.01
##   Rscript bench/bench-sparse.R 20000 5000      # smaller n and p
##
## Data: p columns in groups of 10 at 1% density (values N(0, 1)), 20 signal groups, costs drawn
## from c(1, 5, 20, 100); the first 100 groups of CS-G-OMP and CS-G-FR (max_steps = 100).
## Target (the scale issue): peak memory at most 2 x object.size(x) beyond what the engine needs by
## design. By design the sample-space engine holds its selected directions as n-vectors, U (n x q_S
## doubles, q_S = sum of the selected groups' ranks) and the dense n x 10 block of the group being
## added; that is printed as `design`, and `extra` = (peak - design) / object.size(x) is the figure
## checked. The dense x (n x p doubles) is printed for scale: it is never formed.

suppressPackageStartupMessages({
  library(fgseq)
  library(Matrix)
})
source("bench/bench-utils.R")
bench_header(c("fgseq", "Matrix"))

args <- as.numeric(commandArgs(trailingOnly = TRUE))
n <- as.integer(if (length(args) >= 1L) args[1L] else 100000)
p <- as.integer(if (length(args) >= 2L) args[2L] else 20000)
density <- 0.01
steps <- 100L
set.seed(1)
x <- Matrix::rsparsematrix(n, p, density = density, rand.x = stats::rnorm)
group <- rep(seq_len(p / 10L), each = 10L)
cost <- sample(c(1, 5, 20, 100), p / 10L, replace = TRUE)
signal <- which(group %in% sample(unique(group), 20L))
y <- as.numeric(x[, signal] %*% stats::rnorm(length(signal))) + stats::rnorm(n)
size_x <- as.numeric(utils::object.size(x))
cat(sprintf("n = %d, p = %d in %d groups of 10, density %.3f: x is %.0f MB sparse (%.0f MB if dense)\n",
            n, p, p / 10L, density, size_x / 2^20, 8 * n * p / 2^20))
cat("threads:", getOption("fgseq.threads", min(2L, parallel::detectCores())), "\n\n")

invisible(fgseq(x[1:500, 1:100], y[1:500], group = group[1:100], max_steps = 2))  # warm-up

rows <- list()
for (m in c("omp", "fr")) {
  r <- measure_fit(quote(fgseq(x, y, group = group, cost = cost, method = m, max_steps = steps)),
                   environment(), size_x)
  fit <- r$value
  q_s <- sum(fit$rank[fit$sequence])
  design <- 8 * n * (q_s + 10)
  rss_peak <- r$rss_extra * size_x
  rows[[m]] <- data.frame(method = m, engine = fit$engine, steps = length(fit$sequence),
                          elapsed_s = round(r$time, 2), q_S = q_s,
                          design_MB = round(design / 2^20), peak_rss_MB = round(rss_peak / 2^20),
                          heap_extra = round(r$heap_extra, 2),
                          extra = round((max(rss_peak, r$heap_extra * size_x) - design) / size_x, 2),
                          target = 2)
  rm(fit)
}
tab <- do.call(rbind, rows)
cat("peak_rss_MB = peak resident set during the fit minus the set before it;\n")
cat("heap_extra = (R heap peak - object.size(x)) / object.size(x);\n")
cat("extra = (larger of the two peaks - design) / object.size(x)\n\n")
print(tab, row.names = FALSE)
cat("\nmemory target met:", all(tab$extra <= tab$target), "\n")
