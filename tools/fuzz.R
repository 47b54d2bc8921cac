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

# name = list(code, expect): expect is a regular expression the output must match; ok() prints CASE-OK
# when the value a call returned is right.
cases <- list(
  stats_short_xx = list("s <- st; s$xx <- s$xx[1:3, 1:3]; fgseq(s)", "field `xx` is not a 5 x 5 matrix"),
  stats_short_xy = list("s <- st; s$xy <- s$xy[1:2, , drop = FALSE]; fgseq(s)", "field `xy`"),
  stats_long_mean = list("s <- st; s$mean <- c(s$mean, 1); fgseq(s)", "field `xx`"),
  stats_nan = list("s <- st; s$xx[1, 1] <- NaN; fgseq(s)", "holds NA, NaN or Inf"),
  stats_huge_n = list("s <- st; s$n <- 1e300; fgseq(s)", "row count `n` is out of range"),
  stats_chr_xx = list("s <- st; s$xx <- 'a'; fgseq(s)", "field `xx` is not numeric"),
  stats_add_tampered = list("s <- st; s$xy <- 1; st + s", "`e2` is not valid"),
  stats_not_list = list("fgseq(structure(1, class = 'fgseq_stats'))", "not valid \"fgseq_stats\""),
  core_fit_moments = list(paste("m <- unclass(st)[c('n','weight_sum','mean','y_mean','xx','xy','yy')];",
                                "m$xx <- diag(2); fgseq:::.fit_moments(m, 0:4, 5L, mi, ctl, NULL)"),
                          "standardize: the moments' sizes do not fit together"),
  core_merge_moments = list(paste("m <- unclass(st)[c('n','weight_sum','mean','y_mean','xx','xy','yy')];",
                                  "m2 <- m; m2$yy <- numeric(0); fgseq:::.merge_moments(m, m2)"),
                            "merge_moments: the moments' sizes"),
  core_whitening = list(paste("m <- unclass(st)[c('n','weight_sum','mean','y_mean','xx','xy','yy')];",
                              "m$xx <- diag(9); fgseq:::.moments_whitening(m, 0:4, 5L, 1e-9)"),
                        "standardize: the moments' sizes"),
  miser_left = list("m <- mfit; k <- which(!is.na(m$trees$left))[1]; m$trees$left[k] <- 1e6; predict(m, x)",
                    "not a later node of the same tree"),
  miser_loop = list("m <- mfit; k <- which(!is.na(m$trees$right))[1]; m$trees$right[k] <- 1; predict(m, x)",
                    "not a later node of the same tree"),
  miser_column = list("m <- mfit; m$trees$column[which(!is.na(m$trees$column))[1]] <- 1e9; predict(m, x)",
                      "not a column of x"),
  miser_trees = list("m <- mfit; m$trees <- m$trees[-1, ]; predict(m, x)", "does not number"),
  miser_value = list("m <- mfit; m$trees$value[] <- NA; predict(m, x)", "not finite at a leaf"),
  miser_no_trees = list("m <- mfit; m$trees <- NULL; predict(m, x)", "is not a data frame"),
  core_miser_child = list("l <- ifelse(is.na(tr$left), -1L, tr$left - 1L); l[l >= 0][1] <- 1e6L; mp(left = l)",
                          "miser forest: a split's child"),
  core_miser_start = list("mp(start = c(0, 1e6))", "miser forest: the tree starts"),
  core_miser_feature = list("f <- ifelse(is.na(tr$column), -1L, tr$column - 1L); f[f >= 0][1] <- 99L; mp(feature = f)",
                            "miser forest: a split's feature"),
  core_miser_value = list("mp(value = tr$value[-1])", "miser forest: the tree starts and node arrays"),
  core_miser_steps = list("mp(steps = 1e6L)", "step out of range"),
  core_miser_narrow = list("mp(newx = x[, 1:2])", "miser forest: a split's feature"),
  max_steps_2_63 = list("f <- fgseq(x, y, max_steps = 2^63); ok(length(f$sequence) == 5)", "CASE-OK"),
  max_steps_1e300 = list("f <- fgseq(x, y, max_steps = 1e300); ok(length(f$sequence) == 5)", "CASE-OK"),
  n_trees_1e10 = list("miser(x, y, cost = rep(1, 5), n_trees = 1e10)", "larger than 2147483647"),
  threads_1e10 = list("options(fgseq.threads = 1e10); fgseq(x, y)", "`fgseq.threads` must be a whole number"),
  budget_empty = list("predict(fgseq(x, y), x, budget = numeric(0))", "`budget` is empty"),
  colnames_na = list("x2 <- x; colnames(x2)[2] <- NA; fgseq(x2, y)", "without a name"),
  colnames_dup = list("x2 <- x; colnames(x2)[2] <- 'v1'; fgseq(x2, y)", "duplicated column names"),
  cost_inf_sum = list("fgseq(x, y, cost = rep(1e308, 5))", "`cost` sums to Inf"),
  cost_partial_names = list("fgseq(x, y, cost = c(v1 = 1, 2, 3, 4, 5))", "names for some values"),
  x_1e154 = list("f <- fgseq(x * 1e154, y); ok(length(f$sequence) == 5)", "CASE-OK"),
  x_1e300_sample = list("f <- fgseq(x * 1e300, y, engine = 'sample'); ok(length(f$sequence) == 5)", "CASE-OK"),
  y_1e300 = list("f <- fgseq(x, y * 1e300); ok(all(is.finite(f$path$r2)))", "CASE-OK"),
  x_tiny = list("f <- fgseq(x * 1e-300, y); ok(length(f$sequence) == 5)", "CASE-OK"),
  x_one_row = list("fgseq(x[1, , drop = FALSE], 1)", "at least 2 rows"),
  x_no_col = list("fgseq(x[, 0], y)", "at least 1 column"),
  weights_huge = list("fgseq(x, y, weights = rep(1e308, 60))", "`weights` sum to Inf"),
  group_na = list("fgseq(x, y, group = c(1, 2, NA, 3, 3))", "`group` contains NA"),
  glue_group_range = list("fgseq:::.fit_path(x, matrix(y), numeric(0), matrix(0, 0, 0), c(0L, 1L, 2L, 3L, 9L), 5L, mi, 'gaussian', c(ctl, list(engine = 'gram')), NULL)",
                          "Error"),
  glue_short_y = list("fgseq:::.fit_path(x, matrix(y[1:10]), numeric(0), matrix(0, 0, 0), 0:4, 5L, mi, 'gaussian', c(ctl, list(engine = 'gram')), NULL)",
                      "fit_path: y, weights and offset need one row per row of x"),
  glue_short_cost = list("fgseq:::.fit_path(x, matrix(y), numeric(0), matrix(0, 0, 0), 0:4, 5L, list(needs = mi$needs[1:2], cost = mi$cost), 'gaussian', c(ctl, list(engine = 'gram')), NULL)",
                         "Error"),
  glue_moments_weights = list("fgseq:::.moments(x, matrix(y), c(1, 2), 'eigen')", "Error"),
  newx_wrong = list("predict(mfit, x[, 1:3])", "`newx` must have 5 columns"),
  chunk_missing_file = list("fgseq_stats(c(tempfile(), tempfile()))", "chunk 1 \\(file .*\\) could not be read"),
  chunk_bad = list("fgseq_stats(list(list(x = x), 1))", "chunk 1 must be a list"),
  empty_fit_methods = list(paste("f <- fgseq(x, y, cost = rep(5, 5), max_cost = 1); s <- summary(f);",
                                 "ok(timeliness(f) == 0 && length(f$sequence) == 0)"), "CASE-OK")
)

rscript <- file.path(R.home("bin"), "Rscript")
sanitizer <- "AddressSanitizer|runtime error:|LeakSanitizer|caught segfault|corrupted|double free"
passed <- 0L
failed <- character(0)
for (name in names(cases)) {
  case <- cases[[name]]
  file <- tempfile(fileext = ".R")
  writeLines(c(setup, case[[1]]), file)
  out <- suppressWarnings(system2(rscript, c("--vanilla", file), stdout = TRUE, stderr = TRUE))
  status <- attr(out, "status")
  if (is.null(status)) status <- 0L
  text <- paste(out, collapse = "\n")
  ok <- status %in% c(0L, 1L) && !grepl(sanitizer, text) && grepl(case[[2]], text)
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
