#' Data in chunks of rows, for fits beyond memory or beyond one machine
#'
#' Describes where the chunks of a data set are (files, a list, or a function that yields them) without
#' reading them. [fgseq()] on the result runs the whole fit as map-reduce passes over the chunks through
#' the future framework: the Gaussian family from the summed sufficient statistics ([fgseq_stats()]),
#' the binomial, Poisson and multinomial families (appendix B of Hu et al. 2014) by one pass per Newton step, in
#' which every chunk adds its part of the risk, of the gradient and Hessian in the selected whitened
#' columns (`Z'W(y - mu)`, `Z'WZ`) and of the gradients of every group (`X'W(y - mu)`).
#'
#' Each chunk is a list with `x` (numeric matrix, the same columns in the same order in every chunk),
#' `y` (numeric vector; for the multinomial family a factor or a vector of class labels) and optionally
#' `weights` and `offset` (numeric vectors; `offset` for the binomial, Poisson and multinomial families,
#' for the multinomial a vector or an `n x K` matrix of `K` classes: a fit whose chunks carry one predicts
#' only with `newoffset`, as an in-memory fit with an offset; a Gaussian fit from chunks refuses it,
#' subtract it from `y`). The classes of a multinomial fit are the levels of the first chunk's `y` (in
#' their order; its sorted labels when it is not a factor): a chunk may lack some classes, but every
#' class needs at least two rows over all chunks. A chunk may have no rows (an `x` of 0 rows and a `y`
#' of length 0; a data frame of 0 rows for a formula fit): it adds nothing to any pass, and the fit is
#' that of the other chunks; "the first chunk" (its columns, its classes) is then the first chunk that
#' holds rows. The passes read the chunks in parallel when a future
#' plan is set (for example `future::plan(future::multisession, workers = 2)`, or a cluster backend as in
#' the recipe of [fgseq_stats()]); each worker keeps the chunks it has read for the later passes of the
#' same fit, within the memory budget `cache_bytes` of [fgseq()], and reads again those beyond it. The
#' results are the in-memory fit's up to the Newton tolerance.
#'
#' @section When a plan pays off: every pass of a binomial, Poisson or multinomial fit (one per Newton
#'   step) sent to the workers costs a future per worker and a wait for them, a few milliseconds per
#'   future on local workers whatever the work; the workers save time only when a pass's work on the
#'   rows is well above that. Under a plan of workers on this machine (`multisession`, `multicore`),
#'   which read the same files and databases as this session, a pass is cut into as many batches of
#'   chunks as there are workers, this session reads the first batch itself (it would otherwise only
#'   wait) and the workers the others: a plan of 2 workers runs each pass on this session and one
#'   worker, one future per pass. Every pass is timed, and each pass goes where the last ones say it is
#'   faster: the first pass (the moments of the columns) goes to the workers; when a pass took more
#'   than twice, or two passes in a row took longer, there than their batches' work done one after
#'   another (the dispatch cost more than the parallel work saved), the passes run in this session alone
#'   (reading the chunks here, kept within `cache_bytes`); when a pass here took more than twice, or two
#'   passes in a row longer than, their work shared among the batches plus the measured dispatch (the
#'   work of a pass grows with the columns of the model along the path), they go back to the workers. A pass that runs in this session alone (under a sequential plan, without the
#'   future package, or routed here) forms its products on the fit's threads (option `fgseq.threads`,
#'   as an in-memory fit; one thread for a chunk of fewer than 2^18 values unless the option is set); a
#'   batch beside others, on a worker or here, on one. The results are the same on either route, up to
#'   rounding. A plan pays off for passes well
#'   above the dispatch: tens of thousands of rows and more, or chunks that are slow to read (a remote
#'   database, files on a network) and do not fit in `cache_bytes`; `bench/bench-chunks-glm.R` times
#'   both plans on 100,000 rows of 100 columns in 10 files and on 4,039 rows of 22 columns in SQLite. The workers of other
#'   plans (`cluster` on other machines, schedulers) read every batch of every pass, since this
#'   session may not reach their files.
#'
#' @param source A character vector of files (each read by `read` into one chunk), a list of chunks, or
#'   a function of one argument `i` (1-based whole number) returning chunk `i`.
#' @param n_chunks Whole number >= 1: the number of chunks, for a function `source` only.
#' @param read Function reading one file into a chunk (default [readRDS()]), for files only.
#' @return An object of class `"fgseq_chunks"`: a list with `get` (function of `i` returning chunk `i`)
#'   and `n` (number of chunks). Nothing is read until a fit.
#' @section Errors: Stops when `source` is none of the three kinds, when `n_chunks` is missing or not a
#'   whole number >= 1 for a function, or is given for files or a list. A fit stops, naming the chunk,
#'   when a chunk is not a list with `x` and `y`, has NA, NaN or Inf, or its columns differ from the
#'   first chunk's, or, for the Gaussian family, carries an `offset` (class `fgseq_error_chunk_offset`).
#'   A multinomial fit stops (class `fgseq_error_chunk_classes`) when a chunk's `y` has a label that is not
#'   a level of the first chunk's `y` (naming the chunk), or when a level of the first chunk's `y` has no
#'   row, or fewer than two, in all chunks. A fit stops (class `fgseq_error_chunks_empty`) when every
#'   chunk has no rows.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2014). Efficient feature group
#'   sequencing for anytime linear prediction, first version, appendix B.
#'   \url{https://arxiv.org/abs/1409.5495v1}
#' @seealso [fgseq_stats()] for the Gaussian statistics alone.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(600 * 6), 600)
#' y <- rbinom(600, 1, plogis(x[, 1] - x[, 4]))
#' pieces <- split(seq_len(600), rep(1:3, each = 200))
#' chunks <- lapply(pieces, function(i) list(x = x[i, ], y = y[i]))
#' fit <- fgseq(fgseq_chunks(chunks), group = rep(1:3, each = 2), family = "binomial")
#' fit$sequence
#' @export
fgseq_chunks <- function(source, n_chunks = NULL, read = readRDS) {
  if (is.function(source)) {
    if (is.null(n_chunks)) abort("`n_chunks` must be given when `source` is a function.")
    n <- check_number(n_chunks, "n_chunks", lower = 1)
    if (n != round(n)) abort("`n_chunks` must be a whole number >= 1.")
    items <- as.list(seq_len(n))
    get <- source
  } else {
    if (!is.null(n_chunks)) abort("`n_chunks` is for a function `source` only; the chunks are counted.")
    if (is.character(source)) {
      if (!is.function(read)) abort("`read` must be a function reading one file into a chunk.")
      items <- as.list(source)
      get <- read
    } else if (is.list(source)) {
      items <- source
      get <- NULL
    } else {
      abort("`source` must be a character vector of files, a list of chunks or a function of `i`.")
    }
  }
  if (!length(items)) abort("`source` must hold at least one chunk.")
  # items: what a worker gets for each chunk (a file name, the chunk itself, or i); get: turns an item
  # into the chunk (NULL: the item is the chunk)
  structure(list(items = items, get = get, n = length(items), source = source, read = read),
            class = "fgseq_chunks")
}

#' @export
print.fgseq_chunks <- function(x, ...) {
  check_dots(...)
  kind <- if (is.function(x$source)) "a function" else if (is.character(x$source)) "files" else "a list"
  cat("Data in ", x$n, " chunks of rows (from ", kind, "); read by each fit\n", sep = "")
  invisible(x)
}

#' @rdname fgseq
#' @details The `"fgseq_chunks"` method fits from data in chunks of rows ([fgseq_chunks()]):
#'   `family = "gaussian"` through the summed sufficient statistics (any `method`); `"binomial"`,
#'   `"poisson"` and `"multinomial"` by map-reduce Newton steps, one pass over the chunks each. For these, `method = "omp"`
#'   scores the groups from the gradients of the pass at the fit; `"fr"` and `"doubling"` need
#'   `fr_gain = "quadratic"`: the quadratic gains of all candidates of a step come from one more pass at
#'   the fit (every chunk adds its part of the Hessian of the selected columns, of each candidate's
#'   border and diagonal block and of its gradient), then the Schur complements as in memory, and the
#'   refit of the chosen group starts from its Newton step. The fit equals the in-memory fit of the same
#'   rows up to the Newton tolerance. `fr_gain = "exact"` would refit every candidate at every step, each
#'   Newton point a pass over the chunks; it is refused (an error of class `fgseq_error_input`). The
#'   first pass of a binomial or Poisson fit (the column moments) also keeps what the null model needs:
#'   a chunk without an `offset` its total weight and weighted mean of `y`, a chunk with one its `y`,
#'   weights and offset (three numbers a row, held until the fit ends), since with an offset the
#'   intercept has no closed form.
#' @param cache_bytes For a fit from [fgseq_chunks()] of the binomial, Poisson or multinomial family: a
#'   non-negative number of bytes (default `2^30`, 1 GiB), or `Inf`. Each process that reads chunks for
#'   the fit (each future worker, or this session under a sequential plan) keeps the chunks it has read
#'   and checked, up to this many bytes ([utils::object.size()] of the checked chunks), and takes them
#'   from memory at the later passes of the fit instead of reading them again; chunks beyond the budget
#'   are read again at every pass. `0` keeps none. The kept chunks are dropped when the fit ends. The
#'   fit is the same with or without them. A Gaussian fit reads the chunks once and keeps none. Stops
#'   (class `fgseq_error_input`) when it is not a single non-negative number.
#' @export
fgseq.fgseq_chunks <- function(x, group = NULL, cost = NULL, method = "omp",
                               lambda = 1e-6, family = "gaussian",
                               criterion = "whitened", cost_sensitive = TRUE, fr_gain = c("quadratic", "exact"),
                               max_cost = Inf, max_steps = Inf, c_min = NULL, max_time = Inf, progress = FALSE,
                               needs = NULL, cache_bytes = 2^30, ...) {
  started <- now()  # max_time counts from the call, the pass over the chunks included
  check_dots(...)
  validate_chunks(x)
  cache_bytes <- check_number(cache_bytes, "cache_bytes", lower = 0, allow_inf = TRUE,
                              what = "bytes of chunks each process keeps for the passes of the fit; 0 keeps none")
  call <- match.call()
  method <- check_method(method)
  family <- check_family(family, "chunks")
  criterion <- check_criterion(criterion)
  fr_gain <- check_choice(fr_gain, fr_gain_choices(), "fr_gain")
  max_time <- check_max_time(max_time)
  if (family_def(family)$linear) {
    # the statistics of the chunks, on the fit's clock: a chunk started after max_time adds its y alone,
    # and the fit is then the null model, marked partial
    deadline <- started + max_time
    stats <- map_chunks(x$items, x$get, group, deadline, arg = x$arg %||% "x")
    return(fit_stats(stats, cost = cost, method = method, lambda = lambda, criterion = criterion,
                     cost_sensitive = cost_sensitive, max_cost = max_cost, max_steps = max_steps, c_min = c_min,
                     max_time = max_time, progress = progress, needs = needs, call = call, started = started))
  }
  if (method_scores(method) == "gain" && fr_gain != "quadratic") {
    abort("`fr_gain` must be \"quadratic\" for method = \"", method, "\" in a ", family, " fit from chunks: the ",
          "exact gain refits every candidate group at every step, each Newton point a pass over the chunks.")
  }
  control <- fit_control(method, criterion, fr_gain, cost_sensitive, lambda, max_steps, max_cost, c_min, max_time)
  chunked_glm(x, group, cost, needs, family, control, progress, call, started, cache_bytes)
}

# ---- the map-reduce GLM path --------------------------------------------------------------------

# Map `f` (a function of one checked chunk) over the chunks and add the results element by element
# (list elements are concatenated), through the map-reduce of fgseq_stats(). `f` must be built by a
# function whose environment holds only what it needs (it is shipped to every worker). classes: those
# of a multinomial fit (see check_chunk()); cache: the fit's kept chunks (new_chunk_cache()); route:
# where the passes run (pass_route(), made once by a fit of many passes).
chunk_pass <- function(chunks, f, classes = NULL, cache = NULL, route = pass_route(chunks$get)) {
  routed_pass(chunks, checked_chunk_part(f, classes, cache), add_parts, cache, route)
}

# The map-reduce of `part` (a function of a chunk and its number, see map_reduce_chunks()) over the
# chunks, added by `combine`, on the route of the fit's passes (pass_route()), which the pass's times
# then update: chunk_pass() and the moments pass of a GLM fit.
routed_pass <- function(chunks, part, combine, cache, route) {
  if (!route$measured) return(map_reduce_chunks(chunks$items, chunks$get, part, combine, cache, route$shipped))
  shipped <- route$ship
  started <- now()
  out <- map_reduce_chunks(chunks$items, chunks$get, part, combine, cache, if (shipped) route$shipped, timed = TRUE)
  route$batches <- route$batches %||% min(length(chunks$items), future::nbrOfWorkers())
  route_after_pass(route, shipped, out$seconds, now() - started)
  out$value
}

# Where the passes of a fit from chunks run (an environment: `shipped`, the reader's globals for the
# futures (reader_globals()), or NULL for this session alone; `measured`, whether the route follows the
# passes' times; `ship`, whether the next pass goes to the workers; `dispatch`, the seconds a pass sent
# to the workers spent beyond its slowest batch; `batches`, the batches of a pass sent; `slow`, the
# passes in a row that the other route would have run faster). Under a future
# plan a pass sent to the workers costs a dispatch (a few ms per future) whatever the work, while this
# session, reading the first batch itself, takes part of the work (map_batches()); a pass run in this
# session alone costs the whole work, which grows with the columns of the model along the path. So
# under a plan whose workers run on this machine (multisession, multicore: they read the same files
# and databases as this session) every pass is timed and the next one goes where it is expected to be
# faster (route_after_pass()): the first passes of the path go to the workers, the light passes of a
# few thousand rows run in this session (which then reads the chunks itself and keeps them within
# `cache_bytes`), and the passes go back to the workers when their work outgrows the dispatch. The
# workers of any other plan read every pass. Without the future package, or under a sequential plan, every pass runs here.
pass_route <- function(get_chunk) {
  route <- new.env(parent = emptyenv())
  route$shipped <- reader_globals(get_chunk)
  route$measured <- !is.null(route$shipped) && isTRUE(route$shipped$here)
  route$ship <- TRUE
  route$dispatch <- NA_real_
  route$slow <- 0L
  route
}

# After a pass of `route` (shipped: whether it went to the workers; seconds: each batch's own work;
# elapsed: the whole pass), where the next one goes. A pass sent to the workers measures the dispatch
# (elapsed beyond the slowest batch) and the pass's time in this session alone (the batches' work
# added): this session alone would have been faster when the pass took longer than that. A pass run
# here measures its whole work S: the workers would have been faster when S shared among the route's
# batches plus the last measured dispatch is below S. The passes change route after a pass that the
# other would have run in less than half its time, or after two passes in a row that it would have run
# faster (one slow pass is as likely a pause of the machine, and the first pass here reads the chunks
# the workers held). The estimate of a pass here is of one thread, although a pass run here alone has
# the fit's threads: the first pass here reads again the chunks the workers held, which on 100,000 rows
# in 10 files costs more than the threads save over the rest of a path of 10 steps.
route_after_pass <- function(route, shipped, seconds, elapsed) {
  other <- if (shipped) {
    route$dispatch <- max(0, elapsed - max(seconds))
    if (length(seconds) > 1L) sum(seconds) else 0
  } else if (route$batches > 1L && is.finite(route$dispatch)) {
    elapsed / route$batches + route$dispatch
  } else {
    Inf
  }
  route$slow <- if (other < elapsed / 2) 2L else if (other < elapsed) route$slow + 1L else 0L
  route$ship <- if (route$slow >= 2L) !shipped else shipped
  if (route$slow >= 2L) route$slow <- 0L
  invisible(route)
}

# Two parts of a pass added field by field: numbers add, lists concatenate, and a field one part leaves
# NULL (the moments of chunks started after max_time) adds nothing.
add_parts <- function(a, b) {
  Map(function(u, v) if (is.list(u) || is.list(v) || is.null(u) || is.null(v)) c(u, v) else u + v, a, b)
}

# A chunk kept in the cache was checked when it was first read; any other is checked, and kept.
checked_chunk_part <- function(f, classes = NULL, cache = NULL) {
  force(f)
  force(classes)
  force(cache)
  function(chunk, i) {
    if (!inherits(chunk, "fgseq_checked_chunk") && in_chunk(i, empty_chunk(chunk))) return(NULL)  # no rows
    in_chunk(i, f(if (inherits(chunk, "fgseq_checked_chunk")) chunk else
      keep_chunk(cache, i, check_chunk(chunk, i, classes = classes))))
  }
}

# ---- the chunk cache of a fit -------------------------------------------------------------------

# The passes of a GLM fit from chunks read every chunk again and again. Each process that reads chunks
# for a fit (a future worker, or this session under a sequential plan) keeps the chunks it has read and
# checked here, for the fit's later passes: `key` (the fit's), `chunks` (an environment of the checked
# chunks by number) and `bytes` (their total size). It keeps a chunk only while the total stays within
# the fit's budget (`cache_bytes`); the chunks beyond it are read again at every pass. The first pass
# of a worker for another fit drops what it holds, and a fit drops its chunks at its end
# (drop_chunk_cache()).
chunk_cache <- new.env(parent = emptyenv())

# The cache of a new fit: list(key, bytes), the key unique to the fit (this process, a count of its
# fits, the time), bytes the budget of each process; NULL when the budget is 0 (no cache).
new_chunk_cache <- function(bytes) {
  if (bytes <= 0) return(NULL)
  chunk_cache$fits <- (chunk_cache$fits %||% 0) + 1
  list(key = paste(Sys.getpid(), chunk_cache$fits, format(now(), digits = 15), sep = ":"), bytes = bytes)
}

# Makes this process's store the cache's (emptied when it holds another fit's chunks).
open_chunk_cache <- function(cache) {
  if (is.null(cache) || identical(chunk_cache$key, cache$key)) return(invisible())
  forget_chunks(chunk_cache$key)
  chunk_cache$key <- cache$key
  chunk_cache$chunks <- new.env(parent = emptyenv())
  chunk_cache$bytes <- 0
  invisible()
}

# Chunk i as kept by this process for the fit of `cache`, or NULL.
cached_chunk <- function(cache, i) {
  if (is.null(cache) || !identical(chunk_cache$key, cache$key)) return(NULL)
  chunk_cache$chunks[[as.character(i)]]
}

# The checked chunk `ch` (check_chunk()) of number i, kept for the fit of `cache` when it fits in the
# budget left; returned as it is. `checked = FALSE`: a chunk as read (the first chunk, which the fit
# reads for its columns before the moments pass), which the pass that finds it checks and keeps.
keep_chunk <- function(cache, i, ch, checked = TRUE) {
  if (is.null(cache)) return(ch)
  open_chunk_cache(cache)
  key <- as.character(i)
  old <- chunk_cache$chunks[[key]]
  if (!is.null(old)) {  # the chunk as read, kept by the fit's first look at it: replaced by the checked one
    rm(list = key, envir = chunk_cache$chunks)
    chunk_cache$bytes <- chunk_cache$bytes - as.numeric(utils::object.size(old))
  }
  size <- as.numeric(utils::object.size(ch))
  if (chunk_cache$bytes + size <= cache$bytes) {
    chunk_cache$chunks[[key]] <- if (checked) structure(ch, class = "fgseq_checked_chunk") else ch
    chunk_cache$bytes <- chunk_cache$bytes + size
  }
  ch
}

# Drops the chunks this process keeps for the fit of `key`.
forget_chunks <- function(key) {
  if (!is.null(key) && identical(chunk_cache$key, key)) {
    chunk_cache$key <- NULL
    chunk_cache$chunks <- NULL
    chunk_cache$bytes <- 0
  }
  invisible()
}

# At the end of a fit: its chunks are dropped in this session and, under a future plan of other
# processes, on every worker (one future each; a worker that misses it drops them at its first pass of
# another fit). A failure here (a worker gone) does not replace the fit's result or error.
drop_chunk_cache <- function(cache) {
  if (is.null(cache)) return(invisible())
  forget_chunks(cache$key)
  if (requireNamespace("future", quietly = TRUE) && !inherits(future::plan(), "sequential")) {
    try(map_batches(as.list(seq_len(future::nbrOfWorkers())), chunk_forgetter(cache$key), list()), silent = TRUE)
  }
  invisible()
}

# The function a worker runs to drop the chunks of the fit of `key` (its environment holds the key).
chunk_forgetter <- function(key) {
  force(key)
  function(j) forget_chunks(key)
}

# Whether `chunk` (a list with x and y, see check_chunk()) has no rows: then it adds nothing to any pass.
# Its x must still be a matrix (of no rows) and its y, weights and offset of length 0 (an x of no rows
# beside a y of some is an error, not an empty chunk); `names_x`: the fit's columns, which an empty
# chunk's named columns must be too (NULL: not checked).
empty_chunk <- function(chunk, names_x = NULL) {
  if (!is.list(chunk) || is.null(chunk$x) || NROW(chunk$x) > 0L) return(FALSE)
  x <- chunk$x
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.matrix(x)) abort("`x` must be a numeric matrix (n rows, p columns).")
  if (NROW(chunk$y) != 0L) abort("`x` has no rows but `y` has ", NROW(chunk$y), " values; give them the same rows.")
  for (v in c("weights", "offset")) {
    if (NROW(chunk[[v]]) != 0L) abort("`x` has no rows but `", v, "` has ", NROW(chunk[[v]]), "; give them the same rows.")
  }
  if (!is.null(names_x) && !is.null(colnames(x)) && !identical(colnames(x), names_x)) {
    abort("its columns differ from the first chunk's; give every chunk the same columns of `x` in the same order.")
  }
  TRUE
}

# The error of a source whose every chunk has no rows (`arg`: the argument that gave the chunks).
abort_empty_chunks <- function(arg) {
  abort("every chunk of `", arg, "` is empty (0 rows): there is no row to fit. Check the source of the chunks ",
        "(files, queries or the function that returns them).", class = "chunks_empty")
}

# The first chunk that holds rows, read in turn from chunk 1: list(chunk, i); an error when every chunk is
# empty. It stands for "the first chunk" of a fit (the columns, the classes of a multinomial fit), so
# that chunks of no rows before it change nothing.
first_chunk_with_rows <- function(chunks, arg = "x") {
  for (i in seq_len(chunks$n)) {
    chunk <- read_chunk(chunks$get, chunks$items[[i]], i)
    if (!in_chunk(i, empty_chunk(chunk))) return(list(chunk = chunk, i = i))
  }
  abort_empty_chunks(arg)
}

# `read_x = FALSE`: the checks that read no value of x (a chunk of the moments pass started after
# max_time, whose x is not used). `classes`: for a multinomial fit, the classes (the levels of the first
# chunk's `y`); y is then returned as its n x K class indicators and the offset as an n x K matrix.
check_chunk <- function(chunk, i, read_x = TRUE, classes = NULL) {
  if (!is.list(chunk) || is.null(chunk$x) || is.null(chunk$y)) {
    abort("chunk ", i, " must be a list with elements `x` (a numeric matrix) and `y`.")
  }
  # the union must have 2 rows (checked in chunked_glm())
  x <- if (read_x) check_x(chunk$x, min_rows = 1L) else check_dense_x(chunk$x, min_rows = 1L)
  n <- nrow(x)
  y <- chunk$y
  if (!is.null(classes)) {
    y <- chunk_classes(y, n, classes)
  } else {
    if (is.logical(y)) y <- as.numeric(y)
    if (!is.numeric(y) || length(y) != n || !all(is.finite(y))) {
      abort("`y` must be a numeric vector with one finite value per row of `x`.")
    }
    y <- as.numeric(y)
  }
  P <- if (is.null(classes)) 1L else length(classes)
  w <- if (is.null(chunk$weights)) rep(1, n) else check_weights(chunk$weights, n)
  off <- if (is.null(chunk$offset)) matrix(0, n, P) else check_offset(chunk$offset, n, P)
  if (P == 1L) off <- drop(off)
  list(x = x, y = y, w = w, off = off, has_offset = !is.null(chunk$offset), names = x_names(x))
}

# The classes of a multinomial fit from chunks: the levels of the first chunk's `y` (a factor), or its
# sorted distinct labels.
chunk_class_levels <- function(y) {
  if (is.factor(y)) return(levels(y))
  if (!(is.character(y) || is.logical(y) || is.numeric(y)) || !is.null(dim(y))) {
    abort("`y` must be a factor (or a vector of class labels) for family = \"multinomial\".")
  }
  sort(unique(as.character(y)))
}

# A chunk's multinomial response as n x K class indicators (columns in the order of `classes`); a
# label that is not one of `classes` is an error (raised by the caller's in_chunk() with the chunk's
# number).
chunk_classes <- function(y, n, classes) {
  if (!(is.factor(y) || is.character(y) || is.logical(y) || is.numeric(y)) || !is.null(dim(y))) {
    abort("`y` must be a factor (or a vector of class labels) for family = \"multinomial\".")
  }
  if (length(y) != n || anyNA(y)) abort("`y` must have one class label, not NA, per row of `x`.")
  labels <- as.character(y)
  unseen <- setdiff(unique(labels), classes)
  if (length(unseen)) {
    abort("`y` has level(s) ", paste0("'", utils::head(unseen, 5), "'", collapse = ", "), " not among the first ",
          "chunk's levels (", paste(classes, collapse = ", "), "); give every chunk's `y` the first chunk's factor ",
          "levels (the classes of the fit).", class = "chunk_classes")
  }
  outer(match(labels, classes), seq_along(classes), "==") + 0
}

chunked_glm <- function(chunks, group, cost, needs, family, control, progress, call, started, cache_bytes) {
  # pass 1: column moments (weighted), the response's totals and the rows of the null model, the checks
  # of every chunk; on the fit's clock: a chunk started after max_time adds its response alone
  # "the first chunk": the first that holds rows (chunks of no rows add nothing, wherever they are)
  got <- first_chunk_with_rows(chunks, chunks$arg %||% "x")
  chunk1 <- got$chunk
  multi <- family_def(family)$classes == "each"
  # the classes of a multinomial fit: the first chunk's factor levels (or sorted labels)
  levels_y <- if (multi && is.list(chunk1) && !is.null(chunk1$y)) in_chunk(got$i, chunk_class_levels(chunk1$y))
  first <- in_chunk(got$i, check_chunk(chunk1, got$i, read_x = FALSE, classes = levels_y))
  rm(chunk1)  # got$chunk is kept until the route of the passes is known
  names_x <- first$names
  group <- check_group(group, first$x)
  rm(first)
  labels <- unique(group)
  meas <- group_measurements(cost, needs, labels)
  control$max_cost <- budget_beyond_paid(control$max_cost, meas)
  deadline <- started + control$max_time
  # the chunks read and checked by the moments pass are kept for the later passes (within cache_bytes
  # in each process), and dropped when the fit ends
  cache <- new_chunk_cache(cache_bytes)
  on.exit(drop_chunk_cache(cache), add = TRUE)
  # where the passes run (the globals of the user's functions in the reader found once for all of them)
  route <- pass_route(chunks$get)
  # the first chunk, already read, for the moments pass when this session runs its batch (read again
  # otherwise: about 1 / n_chunks of the pass)
  if (is.null(route$shipped) || isTRUE(route$shipped$here)) keep_chunk(cache, got$i, got$chunk, checked = FALSE)
  got$chunk <- NULL
  mom <- routed_pass(chunks, moments_part(names_x, family, match(group, labels) - 1L, length(labels), deadline, levels_y,
                                          cache), add_moment_parts, cache, route)
  W <- mom$w
  if (mom$n < 2) abort("the chunks hold ", mom$n, " row in all; a fit needs at least 2 rows.")
  if (multi) {
    absent <- levels_y[mom$counts == 0]
    if (length(absent)) {
      abort("chunk ", got$i, ": class(es) ", paste0("'", absent, "'", collapse = ", "), " of its `y` levels have no row in any ",
            "chunk; drop those levels (droplevels()) or give the classes of the fit as the first chunk's levels.",
            class = "chunk_classes")
    }
    if (any(mom$counts < 2)) {
      few <- mom$counts < 2
      abort("`y` has class(es) with fewer than two observations over all chunks: ",
            paste(levels_y[few], mom$counts[few], sep = ": ", collapse = ", "), ". Drop those classes or merge them.",
            class = "chunk_classes")
    }
  }
  classes <- if (multi) levels_y else family_def(family)$numeric_classes
  if (!multi && !is.null(classes) && (mom$ones <= 0 || mom$ones >= W)) {
    abort("`y` has a single class over all chunks; a binomial model needs both classes.")
  }
  response <- list(classes = classes, responses = if (multi) classes else if (is.null(classes)) "y" else classes[2L])
  report <- progress_reporter(progress)
  # the scale of the Newton solver's gradient test, as the in-memory fits compute it (response_scale()
  # of the core): the response's largest weighted standard deviation over its columns
  v <- max(mom$wyy / W - (mom$wy / W)^2)
  control$grad_scale <- if (is.finite(v) && v > 0) sqrt(v) else 1
  # the null model (the intercepts of the GLM with no group) from the rows the chunks left (one column
  # per class for the multinomial)
  P <- if (multi) length(levels_y) else 1L
  rows <- lapply(c("y", "w", "off"), function(v) {
    do.call(rbind, lapply(mom$null_rows, function(r) matrix(r[[v]], ncol = if (v == "w") 1L else P)))
  })
  null_model <- .fit_path(NULL, rows[[1L]], drop(rows[[2L]]), if (mom$offsets > 0) rows[[3L]] else matrix(0, 0, 0),
                    match(group, labels) - 1L, length(labels), measurement_index(meas, labels), family,
                    control, NULL)
  if (mom$late > 0 || now() - started >= control$max_time) {
    # max_time was spent in the pass: the null model, marked partial (it reads no column of x)
    return(finish_fit(null_model, names_x = names_x, group = group, meas = meas, control = control,
                      method = control$method, family = family, response = response, has_offset = mom$offsets > 0,
                      fr_gain = control$fr_gain, nobs = row_count(mom$n), call = call))
  }
  wh <- chunk_whitening(Reduce(.merge_group_moments, mom$moments), group, labels, 1e-9)
  if (all(wh$rank == 0L)) abort("every column of `x` is constant; there is nothing to sequence.")

  # The sums over the chunks of a fit over the groups `set` (1-based, in selection order) at theta:
  # one pass over the chunks adding their risk, gradient, Hessian and X'W(y - mu). The core's greedy
  # engine scores the groups from X'W(y - mu) and refits each step with its Newton solver, every point
  # it evaluates one call of sums(); max_time counts from the start, the moments pass included.
  columns <- function(set) {
    list(mean = wh$mean, scale = wh$scale, constant = wh$constant,
         cols = lapply(set, function(g) which(group == labels[g]) - 1L), T = wh$T[set])
  }
  sums <- function(theta, set) chunk_pass(chunks, glm_pass(theta, columns(set), family), levels_y, cache, route)
  # FR and Doubling: the sums of the quadratic gains of the candidates at theta over the groups `set`
  gains <- function(theta, set, candidates) {
    chunk_pass(chunks, glm_gain_pass(theta, columns(c(set, candidates)), length(set), family), levels_y, cache, route)[[1L]]
  }
  raw <- .glm_chunked_path(wh, match(group, labels) - 1L, length(labels), measurement_index(meas, labels), W,
                           null_model$a0[, 1L], sums, if (method_scores(control$method) == "gain") gains,
                           timed_control(control, started), report)
  # one more pass for the moments of the columns the sequence uses (prediction from any observed set of
  # groups), centred at the column means of the first pass; not when max_time stopped the path
  cols <- which(group %in% labels[raw$sequence])
  moments <- if (length(cols) && length(cols) <= moment_column_limit() && !isTRUE(raw$partial)) {
    cp <- chunk_pass(chunks, moments_cross_part(cols, wh$mean[cols]), levels_y, cache, route)[[1L]] / W
    dimnames(cp) <- list(names_x[cols], names_x[cols])
    if (all(is.finite(cp))) list(columns = names_x[cols], mean = stats::setNames(wh$mean[cols], names_x[cols]),
                                 cov = (cp + t(cp)) / 2)
  }
  finish_fit(raw, names_x = names_x, group = group, meas = meas, control = control, method = control$method,
             family = family, response = response, has_offset = mom$offsets > 0, fr_gain = control$fr_gain,
             nobs = row_count(mom$n), call = call, moments = moments)
}

# One chunk's weighted cross-product of the columns `cols` centred at `mean` (a list of one matrix, added
# by chunk_pass(); .centred_cross()).
moments_cross_part <- function(cols, mean) {
  force(cols)
  force(mean)
  function(ch) list(.centred_cross(ch$x, cols - 1L, mean, ch$w, chunk_threads(ch$x)))
}

# The per-chunk functions of the two kinds of pass (moments, and the sums of a Newton point), built
# here so that what is shipped to the workers holds only their arguments, forced: an argument left a
# promise would ship the environment of the call that made it (the whole fit's).

# A chunk's part of the moments pass (see map_reduce_chunks() for the contract): the weighted moments
# of each group's columns (.group_moments(): a GLM standardizes and whitens x from its groups' diagonal
# blocks, not the whole cross-product; group_of, 0-based, and n_groups), the response's totals, and its
# rows of the null model. A chunk started after
# `deadline` (seconds since the epoch; the fit's max_time) adds no moments and counts in `late`: its x
# is not read (nor checked for NA). The null model's intercept has a closed form only without offsets,
# so a chunk with an `offset` keeps its rows (y, weight, offset), and a chunk without one a single row
# of the same loss at every intercept: its weighted mean of y, with its total weight.
moments_part <- function(names_x, family, group_of, n_groups, deadline, classes = NULL, cache = NULL) {
  force(names_x)
  force(family)
  force(group_of)
  force(n_groups)
  force(deadline)
  force(classes)
  force(cache)
  function(chunk, i) {
    in_chunk(i, {
      if (empty_chunk(chunk, names_x)) return(NULL)  # no rows: nothing to add
      on_time <- now() < deadline
      ch <- check_chunk(chunk, i, read_x = on_time, classes = classes)
      if (!identical(ch$names, names_x)) {
        abort("its columns differ from the first chunk's; give every chunk the same columns of `x` in the same order.")
      }
      if (is.null(classes)) {
        wrong <- family_def(family)$values(ch$y)
        if (!is.null(wrong)) abort(wrong)
      }
      if (on_time) keep_chunk(cache, i, ch)
      W <- sum(ch$w)
      wy <- colSums(ch$w * as.matrix(ch$y))  # one total per class (multinomial), or of y
      null_rows <- if (ch$has_offset) ch[c("y", "w", "off")] else list(y = if (W > 0) wy / W else 0 * wy, w = W, off = 0 * wy)
      list(moments = if (on_time) list(.group_moments(ch$x, ch$w, group_of, n_groups)), n = nrow(ch$x),
           wy = wy, wyy = colSums(ch$w * as.matrix(ch$y)^2), w = W, ones = sum(ch$w[as.matrix(ch$y)[, 1L] > 0]), counts = colSums(as.matrix(ch$y) > 0),
           offsets = as.integer(ch$has_offset), late = as.integer(!on_time), null_rows = list(null_rows))
    })
  }
}

# Two parts of the moments pass added (add_parts()), their groups' moments merged into one set: each
# worker returns the moments of its batch, not those of every chunk it read.
add_moment_parts <- function(a, b) {
  out <- add_parts(a, b)
  if (length(out$moments) > 1L) out$moments <- list(Reduce(.merge_group_moments, out$moments))
  out
}

# One chunk's sums at theta over the selected whitened columns (`columns`, see .glm_chunk_sums()).
glm_pass <- function(theta, columns, family) {
  force(theta)
  force(columns)
  force(family)
  function(ch) {
    y <- as.matrix(ch$y)
    .glm_chunk_sums(ch$x, y, ch$w, as.matrix(ch$off), family, columns, matrix(theta, ncol = ncol(y)), chunk_threads(ch$x))
  }
}

# One chunk's sums of the quadratic gains' pass at theta over the first n_selected groups of `columns`
# for the candidates after them (see .glm_chunk_gains()), as a list of one vector (added by chunk_pass()).
glm_gain_pass <- function(theta, columns, n_selected, family) {
  force(theta)
  force(columns)
  force(n_selected)
  force(family)
  function(ch) {
    y <- as.matrix(ch$y)
    list(.glm_chunk_gains(ch$x, y, ch$w, as.matrix(ch$off), family, columns, matrix(theta, ncol = ncol(y)), n_selected,
                          chunk_threads(ch$x)))
  }
}

# Standardization and group whitening from the merged moments of each group: the core's, as after its
# own pass.
chunk_whitening <- function(moments, group, labels, rank_tol) {
  .group_moments_whitening(moments, match(group, labels) - 1L, length(labels), rank_tol)
}
