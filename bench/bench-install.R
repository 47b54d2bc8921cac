## Install time from source: `R CMD INSTALL --preclean` of the package root into a temporary library,
## with one make job and with two (MAKEFLAGS=-j1, -j2), and with two jobs keeping the debug information
## (FGSEQ_DEBUG_FLAGS = -g through a temporary R_MAKEVARS_USER, as R's default -g would without
## src/Makevars' -g0). Not a test.
##
## Usage (from the package root):
##   Rscript bench/bench-install.R        # each install once, in turn
##   Rscript bench/bench-install.R 3      # each 3 times, in turn; the medians compared
##
## Printed: the compiler and R's flags for C++17, the load before each install, every wall time, the
## medians, the ratio of two jobs to one and the target (two jobs at most 60 s on 2 cores). The package's
## C++ code is in five units (src/Makevars: glm.o, fgseq.o, core.o, miser.o, RcppExports.o); with one
## job they compile one after another, with two side by side.
source("bench/bench-utils.R")
bench_header("fgseq")
args <- bench_args(c(repeats = 1))
repeats <- max(1L, as.integer(args$repeats))
r_bin <- file.path(R.home("bin"), "R")
cxx <- system2(r_bin, c("CMD", "config", "CXX17"), stdout = TRUE)
cat("compiler:", system2(strsplit(cxx, " ")[[1L]][1L], "--version", stdout = TRUE)[1L], "\n")
cat("CXX17FLAGS:", system2(r_bin, c("CMD", "config", "CXX17FLAGS"), stdout = TRUE), "\n\n")

debug_makevars <- tempfile("Makevars")
writeLines("FGSEQ_DEBUG_FLAGS = -g", debug_makevars)
routes <- list(
  "1 job" = c(MAKEFLAGS = "-j1"),
  "2 jobs" = c(MAKEFLAGS = "-j2"),
  "2 jobs, debug information" = c(MAKEFLAGS = "-j2", R_MAKEVARS_USER = debug_makevars)
)

install_once <- function(env) {
  lib <- tempfile("lib")
  dir.create(lib)
  on.exit(unlink(lib, recursive = TRUE))
  log <- tempfile("install", fileext = ".log")
  old <- Sys.getenv(names(env), unset = NA)
  do.call(Sys.setenv, as.list(env))
  on.exit(for (v in names(old)) if (is.na(old[[v]])) Sys.unsetenv(v) else do.call(Sys.setenv, as.list(old[v])),
          add = TRUE)
  load <- load_average()
  t <- system.time(status <- system2(r_bin, c("CMD", "INSTALL", "--preclean", "--no-test-load", "-l", shQuote(lib), "."),
                                     stdout = log, stderr = log))[["elapsed"]]
  if (!identical(status, 0L)) stop("the install failed; its log: ", log)
  c(seconds = t, load = as.numeric(strsplit(load, " ")[[1L]][1L]))
}

times <- matrix(NA_real_, length(routes), repeats, dimnames = list(names(routes), NULL))
for (k in seq_len(repeats)) {
  for (r in names(routes)) {
    got <- install_once(routes[[r]])
    times[r, k] <- got[["seconds"]]
    cat(sprintf("  %-28s %6.1f s   (load before: %.2f)\n", r, got[["seconds"]], got[["load"]]))
  }
}
med <- apply(times, 1L, stats::median)
cat("\nmedian wall seconds:", paste(sprintf("%s %.1f", names(med), med), collapse = "; "), "\n")
cat(sprintf("2 jobs / 1 job: %.2f; debug information / without: %.2f\n",
            med[["2 jobs"]] / med[["1 job"]], med[["2 jobs, debug information"]] / med[["2 jobs"]]))
cat(sprintf("target: 2 jobs at most 60 s on 2 cores: %s (%.1f s)\n", med[["2 jobs"]] <= 60, med[["2 jobs"]]))
cat("load average at the end:", load_average(), "\n")
