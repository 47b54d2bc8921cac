## Measurement helpers shared by the benchmark scripts (sourced, not part of the package).
##
## Memory is measured two ways: the R heap (gc(reset = TRUE) before the call, "max used" Vcells
## after, minus the size of the data already held) and, on Linux, the peak resident set of the
## process (VmHWM, reset through /proc/self/clear_refs), which also sees memory allocated by compiled
## code outside the R heap. The second is a lower bound (memory freed earlier and reused does not
## raise the peak) but catches any large copy of x.

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

## Evaluate `expr` (a quoted call) in `env`; elapsed seconds and the memory it needed beyond the
## `size_x` bytes of data already held, as fractions of size_x.
measure_fit <- function(expr, env, size_x) {
  invisible(gc())
  rss_ok <- reset_peak_rss()
  rss0 <- vm_kb("VmRSS")
  invisible(gc(reset = TRUE))
  time <- system.time(value <- eval(expr, env), gcFirst = FALSE)[["elapsed"]]
  g <- gc()
  heap_peak <- g["Vcells", "max used"] * 8          # bytes (8 per Vcell)
  rss_peak <- if (rss_ok) vm_kb("VmHWM") else NA_real_
  list(value = value, time = time,
       heap_extra = (heap_peak - size_x) / size_x,
       rss_extra = (rss_peak - rss0) / size_x)
}
