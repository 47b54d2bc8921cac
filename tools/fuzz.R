# Bad and extreme inputs across the exported surface (and the glue's entry points), each case in its
# own R process, so that a crash fails its case instead of ending the run. A case passes when its
# process exits normally (status 0 for a value, 1 for an R error), its output matches `expect`, and
# no sanitizer reported anything. Run by tools/check-asan.sh against the sanitizer build; it runs
# against any installed fgseq:
#   R_LIBS=<library> Rscript tools/fuzz.R
# Prints one line per case and "fuzz: N passed, N failed"; exits 1 when a case failed.

setup <- '
suppressMessages(library(fgseq))
set.seed(1)
x <- matrix(rnorm(60 * 5), 60, 5, dimnames = list(NULL, paste0("v", 1:5)))
y <- x[, 1] - x[, 3] + rnorm(60)
st <- fgseq_stats(x, y)
mfit <- miser(x, y, cost = rep(1, 5), n_trees = 4, depth = 2, min_node_size = 2)
mi <- fgseq:::measurement_index(fgseq:::group_measurements(NULL, NULL, colnames(x)), colnames(x))
ctl <- fgseq:::fit_control("omp", "whitened", "exact", TRUE, 0, Inf, Inf, NULL, Inf)
tr <- mfit$trees
ok <- function(cond) cat(if (isTRUE(cond)) "CASE-OK\n" else "CASE-WRONG\n")
mp <- function(start = c(0, cumsum(tabulate(tr$tree))), feature = ifelse(is.na(tr$column), -1L, tr$column - 1L),
               left = ifelse(is.na(tr$left), -1L, tr$left - 1L), right = ifelse(is.na(tr$right), -1L, tr$right - 1L),
               value = tr$value, steps = 4L, newx = x)
  fgseq:::.miser_predict(newx, start, feature, ifelse(is.na(tr$threshold), NaN, tr$threshold), left, right, value,
                         mfit$init, mfit$eta, steps)
'

# The cases, one record each in tools/fuzz-cases.dcf (beside this script): `name`, `code` (run after
# `setup`) and `expect`, a regular expression the output must match; ok() prints CASE-OK when the value
# a call returned is right.
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L]))
cases <- as.data.frame(read.dcf(file.path(here, "fuzz-cases.dcf"), all = TRUE), stringsAsFactors = FALSE)

rscript <- file.path(R.home("bin"), "Rscript")
sanitizer <- "AddressSanitizer|runtime error:|LeakSanitizer|caught segfault|corrupted|double free"
passed <- 0L
failed <- character(0)
for (i in seq_len(nrow(cases))) {
  name <- cases$name[[i]]
  file <- tempfile(fileext = ".R")
  writeLines(c(setup, cases$code[[i]]), file)
  out <- suppressWarnings(system2(rscript, c("--vanilla", file), stdout = TRUE, stderr = TRUE))
  status <- attr(out, "status")
  if (is.null(status)) status <- 0L
  text <- paste(out, collapse = "\n")
  ok <- status %in% c(0L, 1L) && !grepl(sanitizer, text) && grepl(cases$expect[[i]], text)
  cat(sprintf("%-22s %s (status %d)\n", name, if (ok) "ok" else "FAILED", status))
  if (!ok) {
    failed <- c(failed, name)
    cat(utils::tail(out, 15), sep = "\n")
  }
  passed <- passed + ok
  unlink(file)
}
cat(sprintf("fuzz: %d passed, %d failed\n", passed, length(failed)))
if (length(failed)) quit(status = 1)
