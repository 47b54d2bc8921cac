#' Sufficient statistics of a linear problem, chunk by chunk
#'
#' For the Gaussian family every linear method of the package needs only the number of rows, the
#' column means of `x`, the centred cross-products `X'X` and `X'y` and the centred `y'y` (Hu et al.
#' 2016, section 2). `fgseq_stats()` computes them for one chunk of rows; statistics of chunks add with
#' `+` (an exact pairwise update of means and centred cross-products, without the cancellation of
#' `X'X - n m m'`), and [fgseq()] accepts the sum in place of `x` and `y`. Data beyond memory, or
#' spread over machines, are thus sequenced from their chunks.
#'
#' Given a character vector of file names, a list of chunks or a function returning chunk `i`,
#' `fgseq_stats()` maps over the chunks with futures ([future::future()]) when the future package is
#' installed (with [lapply()] otherwise), so the same call runs sequentially, on local cores
#' (`future::plan("multisession")`), or on a cluster or a scheduler through any future backend
#' (`future::plan("cluster", workers = ...)`, future.batchtools); then it adds the statistics. The
#' chunks are cut into one contiguous batch per worker ([future::nbrOfWorkers()]); a worker reads its
#' chunks one at a time and returns the sum of their statistics, so a worker holds one chunk at a time
#' and one `p x p` matrix per worker travels back, whatever the number of chunks. Start the plan once
#' per session: starting workers takes longer than mapping a few chunks.
#'
#' @section Setting up the workers:
#' Mapping chunks is reading each chunk and forming its cross-product, work bound by the cores and the
#' memory. With as many local workers as cores, three settings made before [future::plan()] keep the
#' workers at that work:
#' * `options(socketOptions = "no-delay")`: the main session's sockets to the workers send without
#'   delay; otherwise each exchange with a worker can wait about 40 ms for the operating system
#'   (Nagle's algorithm against delayed acknowledgements).
#' * `Sys.setenv(OPENBLAS_NUM_THREADS = "1")` (`MKL_NUM_THREADS` for MKL): one BLAS thread per worker.
#'   The workers already share the cores, and a multi-threaded BLAS keeps its idle threads spinning for
#'   a while after each cross-product, taking the cores the other workers need.
#' * On Linux, `Sys.setenv(MALLOC_MMAP_THRESHOLD_ = "1073741824", MALLOC_TRIM_THRESHOLD_ = "4294967296")`:
#'   each worker reuses the memory of the chunk it read before, where otherwise the operating system
#'   maps and zeroes fresh pages for every chunk.
#'
#' The environment variables reach only workers started after they are set, and leave the running
#' session as it is. `bench/bench-chunks.R` in the package sources shows the setup and what it gains.
#'
#' @section A cluster recipe:
#' Save the chunks where every worker can read them (for example `saveRDS(list(x = x_i, y = y_i),
#' file_i)` on a shared file system), then
#' `future::plan("cluster", workers = c("node1", "node2"))` (or `future::plan(future.batchtools::batchtools_slurm)`),
#' `st <- fgseq_stats(files, group = group)` and `fit <- fgseq(st, cost = cost)`. Only the `p x p`
#' statistics travel back, never the rows. [saveRDS()] stores numbers in big-endian (XDR) order, which
#' costs a byte swap per number when read on the usual little-endian machines; files written with
#' `con <- file(f, "wb"); serialize(chunk, con, xdr = FALSE); close(con)` are still read by
#' [readRDS()], about twice as fast.
#'
#' @param x A numeric matrix (`n x p`, one chunk of rows); or a character vector of files, each
#'   holding one chunk read by `read`; or a list of chunks; or a function of `i` returning chunk `i`,
#'   `i = 1..n_chunks`. A chunk is a list with elements `x` (numeric matrix, the same columns in the
#'   same order in every chunk), `y` (numeric vector) and optionally `weights`.
#' @param y Numeric vector of length `n` (matrix method).
#' @param group Group labels of the columns, as for [fgseq()] (kept with the statistics, so that only
#'   statistics of the same groups are added).
#' @param weights `NULL` or `n` non-negative observation weights (matrix method).
#' @param read Function reading one file into a chunk (character method); default [readRDS()].
#' @param n_chunks Number of chunks (function method).
#' @param ... Not used: an unknown argument is an error.
#' @return An object of class `"fgseq_stats"`: a list with `n` (rows), `weight_sum`, `mean` (length
#'   `p`), `y_mean`, `xx` (`p x p` centred cross-product), `xy` (`p x 1`), `yy` (centred sum of
#'   squares of `y`), `names` (column names) and `group`. Pass it to [fgseq()].
#' @section Errors: A chunk may have a single row or a constant `y`; [fgseq()] stops when all the rows
#'   together are fewer than 2 or their `y` is constant. Stops when a chunk has NA, NaN or Inf, when chunks have different columns or a
#'   different column order, when statistics of different group definitions are added, when an object
#'   added with `+` is not valid statistics (a field missing, of the wrong size or not finite: the
#'   error names it), when the cross-products overflow (values near `1e154` or more), and as
#'   [fgseq()] for `x`, `y`, `group` and `weights` of each chunk.
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Chan, T. F., Golub, G. H. and LeVeque, R. J. (1983). Algorithms for computing the sample variance:
#'   analysis and recommendations. *The American Statistician* 37(3), 242-247.
#' @examples
#' mm <- model.matrix(diagnosis ~ ., heart)
#' x <- mm[, -1]
#' y <- as.numeric(heart$diagnosis)
#' group <- attr(terms(diagnosis ~ ., data = heart), "term.labels")[attr(mm, "assign")[-1]]
#' halves <- split(seq_len(nrow(x)), rep(1:2, length.out = nrow(x)))
#' st <- fgseq_stats(x[halves[[1]], ], y[halves[[1]]], group = group) +
#'   fgseq_stats(x[halves[[2]], ], y[halves[[2]]], group = group)
#' fit <- fgseq(st, cost = heart_cost)
#' all.equal(fit$beta, fgseq(x, y, group = group, cost = heart_cost)$beta)
#' @export
fgseq_stats <- function(x, ...) UseMethod("fgseq_stats")

#' @rdname fgseq_stats
#' @export
fgseq_stats.default <- function(x, y, group = NULL, weights = NULL, ...) {
  check_dots(...)
  x <- check_x(x, min_rows = 1L)  # a chunk may be one row, and its y constant: fgseq() checks the union
  n <- nrow(x)
  y <- check_y(y, n, constant_ok = TRUE)
  group <- check_group(group, x)
  weights <- check_weights(weights, n)
  m <- .moments(x, matrix(y), weights, linear_algebra())
  if (!all(is.finite(m$xx)) || !all(is.finite(m$xy)) || !all(is.finite(m$yy))) {
    abort("the cross-products of `x` and `y` overflow (values of magnitude near 1e154 or more): the ",
          "statistics cannot hold them. Give `x` and `y` in smaller units, or fit the rows with fgseq(), ",
          "which rescales such columns.")
  }
  structure(c(m, list(names = x_names(x), group = group)), class = "fgseq_stats")
}

#' @rdname fgseq_stats
#' @export
fgseq_stats.character <- function(x, group = NULL, read = readRDS, ...) {
  check_dots(...)
  map_chunks(as.list(x), read, group)
}

#' @rdname fgseq_stats
#' @export
fgseq_stats.list <- function(x, group = NULL, ...) {
  check_dots(...)
  map_chunks(x, NULL, group)
}

#' @rdname fgseq_stats
#' @export
fgseq_stats.function <- function(x, n_chunks, group = NULL, ...) {
  check_dots(...)
  n_chunks <- check_number(n_chunks, "n_chunks", lower = 1)
  map_chunks(as.list(seq_len(n_chunks)), x, group)
}

# Statistics of every chunk, added. `items` holds one element per chunk (a file name, a chunk, or the
# index passed to a chunk function) and `get_chunk(item)` returns the chunk (NULL: the item is the
# chunk). The chunks are cut into as many contiguous batches as there are future workers (one batch
# without the future package or under a sequential plan); each worker reads its chunks one at a time,
# keeps a running sum of their statistics and returns only that sum, so one p x p matrix per worker
# travels back, whatever the number of chunks, and a worker holds one chunk at a time. Each future
# carries only its own items.
# With a `deadline` (a time in seconds since the epoch on the clock now(); a fit's started + max_time), a
# chunk started after it adds the moments of its y alone (its x is not read): the sum is then of y
# alone (class "fgseq_y_stats", 0 columns of moments, the names and groups of the columns), from which
# the fit is the null model, marked partial (fit_stats()). Chunks of no rows add nothing; when every
# chunk has none, the error names `arg`, the argument that gave them.
map_chunks <- function(items, get_chunk, group, deadline = Inf, arg = "x") {
  out <- map_reduce_chunks(items, get_chunk, chunk_stats(group, deadline), add_chunk_stats)
  if (inherits(out, "fgseq_no_rows")) abort_empty_chunks(arg)
  out
}

# The statistics of one chunk (see map_reduce_chunks() for f's contract); of its y alone after the
# deadline; for a chunk of no rows, its columns and groups alone (class "fgseq_no_rows", which adds
# nothing).
chunk_stats <- function(group, deadline = Inf) {
  force(group)
  force(deadline)
  function(chunk, i) {
    if (!is.list(chunk) || is.null(chunk$x) || is.null(chunk$y)) {
      abort("chunk ", i, " must be a list with elements `x` (a numeric matrix) and `y`.")
    }
    if (!is.null(chunk$offset)) {
      # the statistics hold no offset: ignoring it would fit y without it, silently
      in_chunk(i, abort("an `offset` has no place in the Gaussian statistics of chunks: subtract it from `y` ",
                        "(a Gaussian fit with an offset is the fit of y - offset) and add it to the predictions.",
                        class = "chunk_offset"))
    }
    if (in_chunk(i, empty_chunk(chunk))) {
      # no rows: nothing to add, but its columns and groups are checked against the other chunks'
      return(in_chunk(i, {
        x <- check_dense_x(chunk$x, min_rows = 0L)
        structure(list(names = x_names(x), group = check_group(group, x)), class = "fgseq_no_rows")
      }))
    }
    if (now() < deadline) {
      return(in_chunk(i, fgseq_stats.default(chunk$x, chunk$y, group = group, weights = chunk$weights)))
    }
    in_chunk(i, {
      x <- check_dense_x(chunk$x, min_rows = 1L)  # its values are not read
      n <- nrow(x)
      y <- check_y(chunk$y, n, constant_ok = TRUE)
      m <- .moments(matrix(0, n, 0), matrix(y), check_weights(chunk$weights, n), linear_algebra())
      structure(c(m, list(names = x_names(x), group = check_group(group, x))), class = "fgseq_y_stats")
    })
  }
}

# The sum of the statistics of two parts of the chunks: `+` for statistics of x and y; of y alone when
# either part is (add_chunk_stats() of map_chunks()).
add_chunk_stats <- function(a, b) {
  if (inherits(a, "fgseq_no_rows") || inherits(b, "fgseq_no_rows")) {
    # a chunk of no rows (chunk_stats()) adds nothing; its columns and groups must be the others'
    if (!identical(a$names, b$names) || !identical(a$group, b$group)) {
      abort("the chunks have different columns or groups; give every chunk the same columns of `x` in the same order.")
    }
    return(if (inherits(a, "fgseq_no_rows")) b else a)
  }
  if (inherits(a, "fgseq_stats") && inherits(b, "fgseq_stats")) return(a + b)
  y_only <- function(s) {
    s$mean <- numeric(0)
    s$xx <- matrix(0, 0, 0)
    s$xy <- matrix(0, 0, 1)
    s
  }
  if (!identical(a$names, b$names) || !identical(a$group, b$group)) {
    abort("the chunks have different columns or groups; give every chunk the same columns of `x` in the same order.")
  }
  structure(c(.merge_moments(y_only(a), y_only(b)), list(names = a$names, group = a$group)), class = "fgseq_y_stats")
}

# The map-reduce over chunks shared by fgseq_stats() and the GLM passes of fgseq(<fgseq_chunks>).
# `items` holds one element per chunk and `get_chunk(item)` returns the chunk (NULL: the item is the
# chunk); `f(chunk, i)` returns chunk i's part (its errors name the chunk), or NULL for a chunk that adds
# nothing (one of no rows), and `combine(a, b)` adds two parts. The result is NULL when no chunk added
# a part. The chunks are cut into as many contiguous batches as there are future workers (one batch
# without the future package or under a sequential plan); each worker reads its chunks one at a time,
# keeps a running sum of their parts and returns only that sum. Each future carries only its own
# items, and `get_chunk`, `f` and `combine`, which must be built where their environments hold only what they need. `cache`: the chunk
# cache of a fit (new_chunk_cache()) or NULL; a chunk it holds is given to `f` as kept there (a checked
# chunk, see keep_chunk()) instead of being read.
# `shipped`: what reader_globals() found for `get_chunk` (a fit of many passes finds it once).
# `timed`: each batch also measures the seconds its work took (reading and f), and the result is
# list(value, seconds), seconds one number per batch (see pass_route()).
map_reduce_chunks <- function(items, get_chunk, f, combine, cache = NULL, shipped = reader_globals(get_chunk),
                              timed = FALSE) {
  n_chunks <- length(items)
  n_batches <- if (is.null(shipped)) 1 else min(n_chunks, future::nbrOfWorkers())
  batches <- unname(split(seq_len(n_chunks), ceiling(seq_len(n_chunks) * n_batches / n_chunks)))
  # a pass that runs in this session alone has the fit's threads for its products (chunk_threads());
  # a batch of the workers' (or this session's beside theirs) one: the batches already share the cores
  threads <- if (is.null(shipped)) fit_threads() else 1L
  jobs <- lapply(batches, function(b) list(index = b, items = items[b], threads = threads))
  parts <- map_batches(jobs, chunk_batch_runner(get_chunk, f, combine, cache, timed), shipped)
  seconds <- NULL
  if (timed) {
    seconds <- vapply(parts, function(p) p$seconds, numeric(1))
    parts <- lapply(parts, function(p) p$part)
  }
  # a batch of chunks of no rows adds nothing (NULL); NULL when every chunk is empty
  parts <- parts[!vapply(parts, is.null, logical(1))]
  out <- if (length(parts)) Reduce(combine, parts)
  if (timed) list(value = out, seconds = seconds) else out
}

# run(job) for every job: one future each (future::future(), under the session's plan) with the globals
# and packages of `shipped`, or lapply() when `shipped` is NULL (no future package). `run` and `job`
# travel inside the future's expression, the call run(job), not as globals: a cluster future sends each
# of its globals to its worker in an exchange of its own before it starts (a binomial fit from chunk
# files on 2 workers took 8% less time without those two exchanges). The price: the result of a batch
# that failed keeps the calls, and so carries the batch back (the chunks themselves, for a list of
# chunks). No global is searched for in `run`, whose environment travels with it (a search of `run` at
# every pass would cost the session about as much as the pass's work on the rows).
# With `shipped$here` (a plan of workers on this machine, see reader_globals()), this session runs the
# first job itself while the futures run the others: it would otherwise only wait, and a pass then sends
# one future fewer (each costs a few ms of the session's time whatever the work: 2.7 ms for a trivial
# one on 2 local workers).
map_batches <- function(jobs, run, shipped) {
  if (is.null(shipped)) return(lapply(jobs, run))
  here <- isTRUE(shipped$here) && length(jobs) > 1L
  globals <- if (length(shipped$globals)) shipped$globals else FALSE
  futures <- lapply(if (here) jobs[-1L] else jobs, function(job) {
    future::future(as.call(list(run, job)), substitute = FALSE, globals = globals,
                   packages = shipped$packages, seed = NULL)
  })
  # this session's job; an error in it is raised after the futures have ended (their workers free)
  mine <- if (here) tryCatch(list(value = run(jobs[[1L]])), error = function(e) list(error = e))
  # each future's result is awaited in turn (a blocking read from its worker) before value() relays
  # them in order: value() of a list polls the unresolved ones every future.wait.interval (10 ms, about
  # a pass's work)
  for (f in futures) future::result(f)
  if (!is.null(mine$error)) stop(mine$error)
  values <- future::value(futures)
  if (here) c(list(mine$value), values) else values
}

# What a worker needs, besides the function it runs on a batch of chunks (whose environment travels
# with it and holds only the package's closures and their values), to read a chunk with `get_chunk`:
# the globals and packages of a user's reader (a variable of the session, a function of an attached
# package), found once, for the many passes of one fit (the future framework's search of the whole
# function at every pass costs about as much as a pass's work on the rows). NULL without the future
# package or under a sequential plan: the chunks are then read here by lapply(), as a future of that plan
# would read them, without its few ms a pass (a GLM fit from chunks makes about 4 passes a step).
# `here`: whether the workers run on this machine (a multisession or multicore plan of several workers),
# so that this session can read the chunks too (map_batches()).
# Searched are the user's functions only (reader_parts()): a closure made by this package (the reader of
# dbi_chunks(), a formula fit's conversion) travels with its environment, where the worker finds its
# values; only a function the user wrote (a `source` or `read`, a `connect`) can use a variable of this
# session. On the SQLite table of bench/bench-chunks-glm.R: 4 ms in place of 18 ms for the whole reader.
reader_globals <- function(get_chunk) {
  if (!requireNamespace("future", quietly = TRUE) || inherits(future::plan(), "sequential")) return(NULL)
  parts <- reader_parts(get_chunk)
  user <- parts$user
  names(user) <- sprintf("fgseq_reader_%d", seq_along(user))
  found <- if (length(user)) {
    future::getGlobalsAndPackages(as.call(c(list(as.name("list")), lapply(names(user), as.name))),
                                  envir = list2env(user))
  }
  list(globals = found$globals[!names(found$globals) %in% names(user)],
       packages = unique(c("fgseq", parts$packages, found$packages)), here = local_parallel_plan())
}

# The parts of a reader that a worker needs searched: list(user, packages): the user's functions inside
# it, and the packages of the other packages' functions it holds. A reader made by this package
# (package_closure(): dbi_chunks()' reader, a formula fit's conversion) is looked into: the functions
# among the values of its environment, and those in plain lists there (not in data frames or deeper). Any
# other function is the user's, unless its environment is another package's namespace.
reader_parts <- function(f) {
  own <- getNamespaceName(topenv(environment(reader_parts)))
  user <- list()
  packages <- character()
  seen <- list()
  visit <- function(f) {
    if (is.primitive(f)) return()
    env <- environment(f)
    if (!isTRUE(attr(f, "fgseq_closure"))) {
      top <- topenv(env)
      if (isNamespace(top) && !identical(getNamespaceName(top), own)) {
        packages <<- c(packages, getNamespaceName(top))
      } else {
        user[[length(user) + 1L]] <<- f
      }
      return()
    }
    if (any(vapply(seen, identical, logical(1), env))) return()
    seen[[length(seen) + 1L]] <<- env
    for (name in ls(env, all.names = TRUE)) {
      value <- if (!bindingIsActive(name, env)) tryCatch(get(name, envir = env, inherits = FALSE), error = function(e) NULL)
      if (is.function(value)) {
        visit(value)
      } else if (is.list(value) && !is.object(value)) {
        for (v in value) if (is.function(v)) visit(v)
      }
    }
  }
  visit(f)
  list(user = user, packages = setdiff(unique(unname(packages)), "base"))
}

# `f`, a closure made by this package to read chunks, marked as such for reader_parts().
package_closure <- function(f) {
  attr(f, "fgseq_closure") <- TRUE
  f
}

# A plan of several workers on this machine.
local_parallel_plan <- function() {
  inherits(future::plan(), c("multisession", "multicore")) && future::nbrOfWorkers() > 1
}

# lapply() through future.apply::future_lapply() when future.apply is installed (in parallel under a
# parallel future plan), plain lapply() otherwise; `...` goes to `f`. What a worker receives is `f` with
# its environment and `...`: build `f` where its environment holds only what it needs.
map_parallel <- function(items, f, ...) {
  if (requireNamespace("future.apply", quietly = TRUE)) {
    future.apply::future_lapply(items, f, ..., future.seed = NULL)
  } else {
    lapply(items, f, ...)
  }
}

# The function a worker runs on one batch of chunks: built here so that its environment holds only
# `get_chunk`, `f`, `combine`, `cache` and `timed` (not the items of other batches), which is what the future
# ships. With `timed`, it returns list(part, seconds): the batch's sum and the seconds it took.
chunk_batch_runner <- function(get_chunk, f, combine, cache = NULL, timed = FALSE) {
  force(get_chunk)
  force(f)
  force(combine)
  force(cache)
  force(timed)
  function(job) {
    started <- proc.time()[["elapsed"]]
    open_chunk_cache(cache)
    old <- batch_state$threads
    batch_state$threads <- job$threads %||% 1L
    on.exit(batch_state$threads <- old, add = TRUE)
    total <- NULL
    for (k in seq_along(job$index)) {
      i <- job$index[[k]]
      chunk <- cached_chunk(cache, i) %||% read_chunk(get_chunk, job$items[[k]], i)
      part <- f(chunk, i)
      rm(chunk)
      if (is.null(part)) next  # a chunk of no rows adds nothing
      total <- if (is.null(total)) {
        part
      } else {
        in_chunk(i, combine(total, part))
      }
    }
    if (timed) list(part = total, seconds = proc.time()[["elapsed"]] - started) else total
  }
}

# The threads of the batch of chunks this process runs (chunk_batch_runner() sets them from its job, see
# map_reduce_chunks()): what the per-chunk functions of the GLM passes give the core's products through
# chunk_threads(), with pass_threads()' rule for a chunk of few values.
batch_state <- new.env(parent = emptyenv())
batch_state$threads <- 1L
chunk_threads <- function(x) pass_threads(batch_state$threads, x)

# Statistics may travel between machines as files: before any of it reaches the core, an
# "fgseq_stats" object must hold every field with the sizes of its p columns (mean, names and group of
# length p, xx p x p, xy p x 1), finite numbers, n a whole number >= 1, weight_sum > 0 and yy >= 0.
# `arg` names the object in the error.
check_stats <- function(s, arg = "x") {
  bad <- function(field, what) {
    abort("`", arg, "` is not valid \"fgseq_stats\" statistics: its field `", field, "` ", what,
          ". Recompute the statistics with fgseq_stats(); a file holding them may be damaged.",
          class = "invalid_object")
  }
  fields <- c("n", "weight_sum", "mean", "y_mean", "xx", "xy", "yy", "names", "group")
  if (!is.list(s)) bad("list", "is missing (the object is not a list)")
  for (f in fields) if (is.null(s[[f]])) bad(f, "is missing")
  p <- length(s$mean)
  num <- function(f) is.numeric(s[[f]]) && is.null(dim(s[[f]])) || is.matrix(s[[f]]) && is.numeric(s[[f]])
  for (f in fields[1:7]) {
    if (!num(f)) bad(f, "is not numeric")
    if (!all(is.finite(s[[f]]))) bad(f, "holds NA, NaN or Inf")
  }
  if (p < 1L) bad("mean", "is empty")
  if (length(s$n) != 1L || s$n < 1 || s$n != round(s$n)) bad("n", "is not a whole number >= 1")
  if (s$n > 2^53) bad("n", paste0("(", format(s$n), ") is larger than 2^53, beyond any count of rows"))
  if (length(s$weight_sum) != 1L || s$weight_sum <= 0) bad("weight_sum", "is not a single positive number")
  if (length(s$y_mean) != 1L) bad("y_mean", "is not a single number")
  if (length(s$yy) != 1L || s$yy < 0) bad("yy", "is not a single non-negative number")
  if (!is.matrix(s$xx) || !identical(dim(s$xx), c(p, p))) bad("xx", paste0("is not a ", p, " x ", p, " matrix"))
  if (any(diag(s$xx) < 0)) bad("xx", "has a negative diagonal (a negative sum of squares)")
  if (length(s$xy) != p || (is.matrix(s$xy) && ncol(s$xy) != 1L)) bad("xy", paste0("does not have ", p, " values"))
  if (!is.character(s$names) || length(s$names) != p) bad("names", paste0("is not ", p, " column names"))
  if (!is.character(s$group) || length(s$group) != p || anyNA(s$group)) {
    bad("group", paste0("is not ", p, " group labels without NA"))
  }
  s
}

# Chunk i from its item (a file name or an index; the chunk itself when `get_chunk` is NULL), with an
# error that names the chunk when reading fails. Every pass over the chunks reads them here.
read_chunk <- function(get_chunk, item, i) {
  if (is.null(get_chunk)) return(item)
  tryCatch(get_chunk(item), error = function(e) {
    # raised by the package on reading the chunk: named by it when it does not name the chunk itself
    if (inherits(e, "fgseq_error")) in_chunk(i, stop(e))
    what <- if (is.character(item)) paste0(" (file ", item, ")") else ""
    abort("chunk ", i, what, " could not be read: ", conditionMessage(e), parent = e)
  })
}

#' @rdname fgseq_stats
#' @param e1,e2 Two `"fgseq_stats"` objects of chunks with the same columns and groups.
#' @export
`+.fgseq_stats` <- function(e1, e2) {
  if (!inherits(e1, "fgseq_stats") || !inherits(e2, "fgseq_stats")) {
    abort("only statistics made by fgseq_stats() can be added together.")
  }
  validate_stats(e1, "e1")
  validate_stats(e2, "e2")
  if (!identical(e1$names, e2$names)) {
    abort("the statistics come from chunks with different columns or column order; give every chunk ",
          "the same columns of `x` in the same order.")
  }
  if (!identical(e1$group, e2$group)) {
    abort("the statistics come from different group definitions; compute every chunk's statistics with ",
          "the same `group`.")
  }
  structure(c(.merge_moments(e1, e2), list(names = e1$names, group = e1$group)), class = "fgseq_stats")
}

#' @export
print.fgseq_stats <- function(x, ...) {
  check_dots(...)
  cat("Sufficient statistics of ", format(x$n), " rows and ", length(x$names), " columns in ",
      length(unique(x$group)), " groups\n", sep = "")
  invisible(x)
}

#' @rdname fgseq
#' @details The `"fgseq_stats"` method sequences from sufficient statistics (see [fgseq_stats()]), for
#'   the Gaussian family: the fit equals that of the rows the statistics summarize. Its `x` is the
#'   statistics; `group` comes with them. Statistics read from a file are checked before use: every
#'   field present, of the sizes of its `p` columns, finite; an error names the field.
#' @export
fgseq.fgseq_stats <- function(x, cost = NULL, method = "omp", lambda = 1e-6,
                              criterion = "whitened", cost_sensitive = TRUE, max_cost = Inf,
                              max_steps = Inf, c_min = NULL, max_time = Inf, progress = FALSE, needs = NULL,
                              ...) {
  started <- now()  # max_time counts from the call, the checks of the statistics included
  check_dots(...)
  method <- check_method(method)
  criterion <- check_criterion(criterion)
  max_time <- check_max_time(max_time)
  fit_stats(x, cost = cost, method = method, lambda = lambda, criterion = criterion, cost_sensitive = cost_sensitive,
            max_cost = max_cost, max_steps = max_steps, c_min = c_min, max_time = max_time, progress = progress,
            needs = needs, call = match.call(), started = started)
}

# The fit from statistics, max_time counting from `started`; from statistics of y alone (class
# "fgseq_y_stats": max_time was spent in the pass over the chunks), the null model, marked partial.
fit_stats <- function(x, cost, method, lambda, criterion, cost_sensitive, max_cost, max_steps, c_min, max_time,
                      progress, needs, call, started) {
  if (!inherits(x, "fgseq_y_stats")) validate_stats(x)
  if (x$n < 2) abort("`x` (the statistics) summarizes ", x$n, " row; a fit needs at least 2 rows.")
  # the rule of check_y() on the union: constant when the spread is at rounding level of the mean
  if (!(sqrt(x$yy / x$weight_sum) > 1e-13 * abs(x$y_mean))) {
    abort("`y` is constant over all the rows of the statistics; there is nothing to explain.")
  }
  labels <- unique(x$group)
  meas <- group_measurements(cost, needs, labels)
  control <- fit_control(method, criterion, "exact", cost_sensitive, lambda, max_steps, max_cost, c_min, max_time,
                         meas = meas)
  report <- progress_reporter(progress)
  moments <- unclass(x)[c("n", "weight_sum", "mean", "y_mean", "xx", "xy", "yy")]
  moments$xy <- matrix(as.double(x$xy), ncol = 1L)
  raw <- .fit_moments(moments, match(x$group, labels) - 1L, length(labels), measurement_index(meas, labels),
                      timed_control(control, started), report)
  finish_fit(raw, names_x = x$names, group = x$group, meas = meas, control = control, method = method,
             family = default_family, response = list(classes = NULL, responses = "y"),
             has_offset = FALSE, fr_gain = "exact", nobs = row_count(x$n), call = call,
             moments = stats_moments(x, labels[raw$sequence]))
}

# A count of rows as a fit's `nobs`: an integer, or a double beyond the largest integer R holds
# (statistics of more than 2^31 - 1 rows).
row_count <- function(n) if (n <= .Machine$integer.max) as.integer(n) else as.double(n)
