# Extreme scales. The core squares the columns of x and y (cross-products, variances), so a column
# whose magnitude is near 1e154 or more would overflow, and one near 1e-154 or less would lose digits
# in subnormal numbers. Such columns (largest magnitude above 2^400 or below 2^-400), and y of the
# Gaussian families alike, are multiplied by a power of two that brings their largest magnitude to
# [1, 2) before the core sees them: exact in floating point, and invisible to the fit, which
# standardizes every column (the sequence, r2 and whitening do not change). The fit is then mapped
# back: coefficients and intercepts to the original units, objectives and scores by the square of y's
# factor. Data of ordinary scale are passed through untouched (no copy). A y whose squared loss in its
# own units overflows (magnitudes near 1e154 and beyond) has no finite objective: new_fgseq() refuses
# that fit (refuse_nonfinite_objective()).

# The magnitudes a column (or y) may reach without rescaling (the core's pass over a dense x of the Gram
# engine checks its columns against them: control$plain_scale).
plain_scale <- c(2^-400, 2^400)

# The power of two that brings magnitude m to [1, 2) when m is extreme, else 1 (and 1 for m = 0).
extreme_factor <- function(m) {
  e <- ifelse(m > plain_scale[2L] | (m > 0 & m < plain_scale[1L]), floor(log2(m)), 0)
  2^-pmax(pmin(e, 1000), -1000)
}

# The factors of an extreme design from the largest magnitude of each column of x (max_abs, from
# check_x_scan()): NULL when nothing is extreme, else list(x = one factor per column, y = one factor for
# the response (1 for the GLM families, whose y is not a measurement)).
extreme_scaling <- function(max_abs, y, family) {
  fx <- extreme_factor(max_abs)
  fy <- if (family_def(family)$linear) extreme_factor(max(-min(y), max(y))) else 1
  if (all(fx == 1) && fy == 1) return(NULL)
  list(x = fx, y = fy)
}

# The largest magnitude in each column of a dgCMatrix (0 for a column without stored values).
sparse_column_max_abs <- function(x) {
  out <- numeric(ncol(x))
  j <- rep.int(seq_len(ncol(x)), diff(x@p))
  if (length(j)) out[unique(j)] <- vapply(split(abs(x@x), j), max, numeric(1))
  out
}

# x with column j multiplied by f[j] (dense or dgCMatrix).
scale_columns <- function(x, f) {
  if (methods::is(x, "sparseMatrix")) {
    x@x <- x@x * rep.int(f, diff(x@p))
    return(x)
  }
  x * rep(f, each = nrow(x))
}

# The core's result on the rescaled data, mapped back to the original units.
unscale_raw <- function(raw, s) {
  to_x <- s$x / s$y
  raw$beta <- lapply(raw$beta, function(b) {  # the parts of a sparse matrix (coefficient_matrix())
    b$x <- b$x * to_x[b$i + 1L]
    b
  })
  raw$a0 <- raw$a0 / s$y
  raw$objective <- raw$objective / s$y^2
  raw$score <- raw$score / s$y^2
  raw$null_risk <- raw$null_risk / s$y^2
  raw
}
