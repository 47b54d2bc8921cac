# What every learner asks of the machine and of R's linear algebra: the threads of the passes over x,
# the cores and memory of the machine, and which code forms cross-products.

# OpenMP threads for the passes over x: option fgseq.threads, by default 2 (or 1 on a one-core machine).
fit_threads <- function() {
  threads <- getOption("fgseq.threads", min(2L, machine_cores(), na.rm = TRUE))
  if (!is.numeric(threads) || length(threads) != 1L || is.na(threads) || threads < 1 ||
      threads > .Machine$integer.max || threads != round(threads)) {
    abort("option `fgseq.threads` must be a whole number >= 1.")
  }
  # every thread holds its own buffers: more than 4 per core only costs memory
  cores <- machine_cores()
  if (!is.na(cores) && threads > 4 * max(cores, 1L)) {
    abort("option `fgseq.threads` (", threads, ") is more than 4 threads per core of this machine (", cores,
          " cores); set it to at most ", 4 * max(cores, 1L), ", for example options(fgseq.threads = ", cores, ").")
  }
  as.integer(threads)
}

# The threads of a fit's passes over x: `threads` (fit_threads()); unless option fgseq.threads is set,
# 1 when x holds fewer than 2^18 values (its nonzeros when sparse), so that a pass is a few hundred
# microseconds of work: a second thread saves little there, and on a machine busy with other work a
# thread descheduled at the end of a pass holds up every pass (a binomial fit of 4,039 rows and 22 columns took 5 x longer on 2 threads
# than on 1 while other jobs kept both cores busy, and as long on a quiet machine).
pass_threads <- function(threads, x) {
  if (!is.null(getOption("fgseq.threads"))) return(threads)
  values <- if (isS4(x) && methods::.hasSlot(x, "x")) length(x@x) else as.numeric(length(x))
  if (values < 2^18) 1L else threads
}

# The machine's cores, counted once a session: on Linux parallel::detectCores() runs a shell command,
# a fork of the R process whose cost grows with the memory R holds (tens of ms beside a large x), and
# fit_threads() runs on a fit's clock.
machine_cores <- local({
  cores <- NULL
  function() {
    if (is.null(cores)) cores <<- parallel::detectCores()
    cores
  }
})

# The machine's memory in bytes (MemTotal of /proc/meminfo), NA where it cannot be read.
machine_memory <- function() {
  info <- tryCatch(readLines("/proc/meminfo", n = 1L, warn = FALSE), error = function(e) character(0))
  kb <- suppressWarnings(as.numeric(sub("^MemTotal:\\s*([0-9]+).*$", "\\1", info)))
  if (length(kb) == 1L && !is.na(kb)) kb * 1024 else NA_real_
}

# Which linear algebra the fits use for the cross-product of x (the one pass over the data), the GLM
# families' weighted cross-products, Cholesky factorizations and triangular solves: R's BLAS and LAPACK
# ("blas") when R is linked to an optimized BLAS, which is then faster and multi-threaded; Eigen's own
# ("eigen", several times faster than the reference BLAS) otherwise. options(fgseq.linear_algebra =
# "blas" or "eigen") forces either; the option's former name `fgseq.gram` is still read when it is not set.
linear_algebra <- function() {
  opt <- getOption("fgseq.linear_algebra", getOption("fgseq.gram", "auto"))
  if (!identical(opt, "auto")) {
    if (!is.character(opt) || length(opt) != 1L || !opt %in% c("blas", "eigen")) {
      abort("option `fgseq.linear_algebra` must be \"auto\", \"blas\" or \"eigen\".")
    }
    return(opt)
  }
  blas <- tolower(extSoftVersion()[["BLAS"]])
  if (grepl("openblas|mkl|blis|atlas|accelerate|veclib", blas)) "blas" else "eigen"
}
