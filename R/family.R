# Response families: checking and encoding y, weights and offsets for the core, and the inverse links
# used by predict(). The core receives y as an n x P matrix: the response itself (gaussian, P = 1;
# mgaussian, P = ncol(y)), a 0/1 column (binomial), counts (poisson) or class indicators (multinomial).

families <- c("gaussian", "binomial", "multinomial", "poisson", "mgaussian")

# The canonical link of each family with a stats family object.
canonical_links <- c(gaussian = "identity", binomial = "logit", poisson = "log")

# family: one of `choices` (the whole default vector means its first), or a family object of stats
# (binomial(), poisson(), gaussian(), or the function itself, as glm() takes them) with its canonical
# link. Returns the family name.
check_family <- function(family, choices) {
  if (is.function(family)) family <- tryCatch(family(), error = function(e) NULL)
  if (inherits(family, "family")) {
    name <- family$family
    if (!name %in% intersect(choices, names(canonical_links))) {
      abort("`family` ", name, "() is not available here; use one of ",
            paste0("\"", choices, "\"", collapse = ", "), ".", class = "family")
    }
    if (!identical(family$link, canonical_links[[name]])) {
      abort("`family` ", name, "(link = \"", family$link, "\") has a non-canonical link; fgseq fits the ",
            "canonical link only: use ", name, "() (link \"", canonical_links[[name]], "\").", class = "family")
    }
    return(name)
  }
  if (identical(family, choices)) return(choices[1L])
  if (!is.character(family) || length(family) != 1L || is.na(family) || !(family %in% choices)) {
    abort("`family` must be one of ", paste0("\"", choices, "\"", collapse = ", "),
          " or a family object with its canonical link (binomial(), poisson(), gaussian()).", class = "family")
  }
  family
}

# The stats family object of a fit's family (NULL for multinomial and mgaussian, which have none).
family_object <- function(family) {
  switch(family, gaussian = stats::gaussian(), binomial = stats::binomial(), poisson = stats::poisson(), NULL)
}

# Returns list(y = n x P matrix for the core, classes = class labels or NULL, responses = column names).
check_response <- function(y, family, n) {
  switch(family,
    gaussian = {
      y <- check_y(y, n)
      list(y = matrix(y), classes = NULL, responses = "y")
    },
    mgaussian = {
      if (is.data.frame(y)) y <- as.matrix(y)
      if (is.null(dim(y))) y <- matrix(y)
      if (!is.matrix(y) || !(is.numeric(y) || is.logical(y))) {
        abort("`y` must be a numeric matrix (n rows, one column per response) for family = \"mgaussian\".")
      }
      if (nrow(y) != n) abort("`y` must have one row per row of `x`: nrow(y) is ", nrow(y), ", nrow(x) is ", n, ".")
      if (!all(is.finite(y))) abort("`y` contains NA, NaN or Inf; remove those rows first.")
      storage.mode(y) <- "double"
      spread <- apply(y, 2L, function(v) max(v) - min(v))
      if (all(spread <= 1e-12 * apply(abs(y), 2L, max))) abort("`y` is constant; there is nothing to explain.")
      responses <- if (is.null(colnames(y))) paste0("y", seq_len(ncol(y))) else colnames(y)
      list(y = unname(y), classes = NULL, responses = responses)
    },
    binomial = {
      if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
      if (is.factor(y) || is.character(y)) {
        y <- droplevels(as.factor(y))
        classes <- levels(y)
        if (length(classes) != 2L) {
          abort("`y` must have exactly two classes for family = \"binomial\"; it has ", length(classes),
                " (", paste(utils::head(classes, 5), collapse = ", "), "). Use family = \"multinomial\" for more.")
        }
        y01 <- as.numeric(y == classes[2L])
      } else if (is.logical(y) || is.numeric(y)) {
        if (anyNA(y)) abort("`y` contains NA; remove those rows first.")
        if (!all(y %in% c(0, 1))) {
          abort("`y` must be 0/1, logical or a two-level factor for family = \"binomial\"; it has other values (",
                paste(utils::head(setdiff(unique(y), c(0, 1)), 3), collapse = ", "), ").")
        }
        classes <- if (is.logical(y)) c("FALSE", "TRUE") else c("0", "1")
        y01 <- as.numeric(y)
      } else {
        abort("`y` must be 0/1, logical or a two-level factor for family = \"binomial\".")
      }
      if (length(y01) != n) abort("`y` must have one value per row of `x`: length(y) is ", length(y01), ", nrow(x) is ", n, ".")
      if (anyNA(y01)) abort("`y` contains NA; remove those rows first.")
      counts <- table(factor(y01, levels = c(0, 1)))
      if (any(counts < 2L)) {
        abort("`y` has a class with fewer than two observations (", paste(classes, counts, sep = ": ", collapse = ", "),
              "); a binomial model needs both classes.")
      }
      list(y = matrix(y01), classes = classes, responses = classes[2L])
    },
    multinomial = {
      if (!(is.factor(y) || is.character(y) || is.logical(y) || is.numeric(y)) || !is.null(dim(y))) {
        abort("`y` must be a factor (or a vector of class labels) for family = \"multinomial\".")
      }
      if (anyNA(y)) abort("`y` contains NA; remove those rows first.")
      if (length(y) != n) abort("`y` must have one value per row of `x`: length(y) is ", length(y), ", nrow(x) is ", n, ".")
      y <- as.factor(y)
      counts <- table(y)
      if (length(counts) < 2L) abort("`y` has a single class ('", levels(y)[1L], "'); there is nothing to classify.")
      if (any(counts < 2L)) {
        abort("`y` has class(es) with fewer than two observations: ",
              paste(names(counts)[counts < 2L], counts[counts < 2L], sep = ": ", collapse = ", "),
              ". Drop those classes (droplevels()) or merge them.")
      }
      classes <- levels(y)
      list(y = outer(as.integer(y), seq_along(classes), "==") + 0, classes = classes, responses = classes)
    },
    poisson = {
      if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
      if (!is.numeric(y) || !is.null(dim(y))) abort("`y` must be a vector of non-negative counts for family = \"poisson\".")
      if (length(y) != n) abort("`y` must have one value per row of `x`: length(y) is ", length(y), ", nrow(x) is ", n, ".")
      if (!all(is.finite(y))) abort("`y` contains NA, NaN or Inf; remove those rows first.")
      if (any(y < 0) || any(y != round(y))) {
        abort("`y` must be non-negative whole counts for family = \"poisson\".")
      }
      if (all(y == y[1L])) abort("`y` is constant; there is nothing to explain.")
      list(y = matrix(as.double(y)), classes = NULL, responses = "y")
    }
  )
}

check_weights <- function(weights, n) {
  if (is.null(weights)) return(numeric(0))
  if (!is.numeric(weights) || !is.null(dim(weights))) abort("`weights` must be a numeric vector, one weight per row of `x`.")
  if (length(weights) != n) {
    abort("`weights` must have one value per row of `x`: length(weights) is ", length(weights), ", nrow(x) is ", n, ".")
  }
  if (anyNA(weights) || !all(is.finite(weights))) abort("`weights` contains NA, NaN or Inf.")
  if (any(weights < 0)) abort("`weights` must be non-negative.")
  if (sum(weights > 0) < 2L) abort("`weights` must be positive for at least 2 rows.")
  if (!is.finite(sum(weights))) {
    abort("`weights` sum to Inf; divide them by a constant (the fit depends only on their ratios).")
  }
  as.double(weights)
}

# offset: NULL, a vector of length n (one linear predictor), or an n x P matrix (multinomial, mgaussian).
check_offset <- function(offset, n, P, name = "offset") {
  if (is.null(offset)) return(NULL)
  if (is.data.frame(offset)) offset <- as.matrix(offset)
  if (!is.numeric(offset)) abort("`", name, "` must be numeric.")
  if (is.null(dim(offset))) {
    if (length(offset) != n) {
      abort("`", name, "` must have one value per row of `", if (name == "offset") "x" else "newx", "`: length is ",
            length(offset), ", expected ", n, ".")
    }
    offset <- matrix(offset, n, P)
  }
  if (nrow(offset) != n || ncol(offset) != P) {
    abort("`", name, "` must be a vector of length ", n, " or an ", n, " x ", P, " matrix.")
  }
  if (!all(is.finite(offset))) abort("`", name, "` contains NA, NaN or Inf.")
  storage.mode(offset) <- "double"
  offset
}

# Inverse link, applied to an n x P matrix of linear predictors of one step.
inverse_link <- function(family, eta) {
  switch(family,
    binomial = stats::plogis(eta),
    poisson = exp(eta),
    multinomial = {
      e <- exp(eta - apply(eta, 1L, max))
      e / rowSums(e)
    },
    eta)
}
