## Helpers shared by the benchmark scripts (sourced, not part of the package). Every script runs from
## the package root (Rscript bench/<script>.R ...) and starts with source("bench/bench-utils.R").
##
## bench_header() prints what a reader of the figures needs to know about where they were measured:
## the command, R, the operating system, the CPU and its cores, the BLAS and LAPACK, the versions of
## the packages involved and the load average (other work on the machine moves timings).
##
## Memory is measured two ways: the R heap (gc(reset = TRUE) before the call, "max used" Vcells
## after, minus the Vcells in use before the call: the data already held) and, on Linux, the peak
## resident set of the process (VmHWM, reset through /proc/self/clear_refs), which also sees memory
## allocated by compiled code outside the R heap. The second is a lower bound (memory freed earlier and reused does not
## raise the peak) but catches any large copy of x.

## The script's arguments by position (Rscript bench/<script>.R 100000 5), each a number, or its
## default when not given: `defaults` is a named numeric vector (c(n = 100000, reps = 1)); returns the
## named list of values (doubles, so that n * p does not overflow an integer).
bench_args <- function(defaults) {
  given <- as.numeric(commandArgs(trailingOnly = TRUE))
  out <- as.list(defaults)
  for (i in seq_len(min(length(given), length(defaults)))) out[[i]] <- given[[i]]
  out
}

## An n x p matrix of independent standard normal values, columns named prefix001, prefix002, ...
normal_matrix <- function(n, p, prefix = "x") {
  matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, sprintf("%s%03d", prefix, seq_len(p))))
}

## The 1, 5 and 15 minute load averages ("n/a" where /proc/loadavg is missing).
load_average <- function() {
  if (!file.exists("/proc/loadavg")) return("n/a")
  paste(strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1L]][1:3], collapse = " ")
}

## The header of a bench's output. `packages`: the packages whose versions matter (fgseq also shows
## which code forms its cross-products); `note`: said after the number of cores (e.g. how many a
## learner uses).
bench_header <- function(packages = "fgseq", note = NULL) {
  script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  cat("command:", paste(c("Rscript", script, commandArgs(trailingOnly = TRUE)), collapse = " "), "\n")
  si <- utils::sessionInfo()
  cpu <- NA_character_
  if (file.exists("/proc/cpuinfo")) {
    m <- grep("^model name", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE)
    if (length(m)) cpu <- sub("^model name\\s*:\\s*", "", m[[1L]])
  }
  cat("machine:", R.version.string, "|", si$running, "|", R.version$platform, "\n")
  cat("cpu:", cpu, "|", parallel::detectCores(), "cores", if (length(note)) paste0("(", note, ")"), "\n")
  cat("BLAS:  ", si$BLAS, "\nLAPACK:", si$LAPACK, "\n")
  version <- function(p) {
    if (requireNamespace(p, quietly = TRUE)) format(utils::packageVersion(p)) else "not installed"
  }
  cat("packages:", paste(packages, vapply(packages, version, character(1)), collapse = " | "), "\n")
  if ("fgseq" %in% packages && requireNamespace("fgseq", quietly = TRUE)) {
    cat("fgseq Gram-engine cross-product through:", fgseq:::linear_algebra(), "\n")
  }
  cat("load average (1, 5, 15 min):", load_average(), "\n\n")
}

vm_kb <- function(field) {
  f <- "/proc/self/status"
  if (!file.exists(f)) return(NA_real_)
  line <- grep(paste0("^", field, ":"), readLines(f, warn = FALSE), value = TRUE)
  if (!length(line)) return(NA_real_)
  as.numeric(gsub("[^0-9]", "", line)) * 1024
}

reset_peak_rss <- function() {
  ok <- tryCatch({
    cat("5", file = "/proc/self/clear_refs")
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE)
  ok && is.finite(vm_kb("VmHWM"))
}

## Evaluate `expr` (a quoted call) in `env`; elapsed seconds and the memory it needed beyond what the
## process held before the call (x among it), as fractions of `size_x`, the bytes of x.
measure_fit <- function(expr, env, size_x) {
  invisible(gc())
  rss_ok <- reset_peak_rss()
  rss0 <- vm_kb("VmRSS")
  heap0 <- gc(reset = TRUE)["Vcells", "used"] * 8  # bytes (8 per Vcell)
  time <- system.time(value <- eval(expr, env), gcFirst = FALSE)[["elapsed"]]
  g <- gc()
  heap_peak <- g["Vcells", "max used"] * 8
  rss_peak <- if (rss_ok) vm_kb("VmHWM") else NA_real_
  list(value = value, time = time,
       heap_extra = (heap_peak - heap0) / size_x,
       rss_extra = (rss_peak - rss0) / size_x)
}

# The synthetic set of bench/bench-adaptive.R (see its header): a latent vertex z of the cube {-1, 1}^3
# picks which of 8 groups of 3 columns carries the signal of a row; one cheap group `hint` is the vertex
# plus noise. 2.5 n_synth rows (seed 8): n_synth training, n_synth / 2 calibration, n_synth test.
synthetic_cube <- function(n_synth) {
  set.seed(8)
  n <- 2.5 * n_synth
  vertices <- as.matrix(expand.grid(v1 = c(-1, 1), v2 = c(-1, 1), v3 = c(-1, 1)))
  z <- sample(8L, n, replace = TRUE)
  v <- vertices[z, ]
  w <- c(1.5, -1, 0.75)
  cols <- list(hint = v + matrix(stats::rnorm(3 * n, sd = 0.6), n))
  eta <- 0.7 * v[, 1] + stats::rnorm(n, sd = 0.5)
  for (k in 1:8) {
    s <- ifelse(z == k, 1, 0.15)
    xk <- matrix(stats::rnorm(3 * n), n) * s
    cols[[paste0("g", k)]] <- xk
    eta <- eta + ifelse(z == k, drop(xk %*% w), 0)
  }
  x <- do.call(cbind, cols)
  group <- rep(names(cols), each = 3L)
  colnames(x) <- paste0(group, "_", 1:3)
  idx <- seq_len(n)
  list(x = x, y = as.numeric(eta > 0), group = group, vertices = vertices,
       cost = c(hint = 1, stats::setNames(seq(6, 20, by = 2), paste0("g", 1:8))),
       train = idx[seq_len(n_synth)], cal = n_synth + seq_len(n_synth / 2), test = 1.5 * n_synth + seq_len(n_synth))
}
