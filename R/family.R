# Response families: each family is one object (new_family()) holding everything the R side knows
# about it: which verbs and engines fit it, how y is checked and encoded for the core, its classes,
# inverse link, deviance and log-likelihood, the default metric and the kinds of test response its
# metrics take, and its stats family object. Adding a family is one entry of `fgseq_families` (and its
# cases in the core: common/family.hpp); tests/testthat/test-tables.R checks this table against the
# core's. The chunked fits (R/chunks.R, R/chunks-formula.R) and the validators (R/validate.R) ask a
# family's fields, not its name. Fits keep the family's name (a string) in `$family`; family_def() finds
# its object.
#
# The core receives y as an n x P matrix: the response itself (gaussian, P = 1; mgaussian, P = ncol(y)),
# a 0/1 column (binomial), counts (poisson) or class indicators (multinomial).

# A family. Fields:
#   name      the name users give (`family = "binomial"`) and fits keep in `$family`;
#   link      the link's name as stats names it; `json_link` as the portable predictor names it;
#   stats     the stats family object (NULL when stats has none), with its canonical link;
#   verbs     the fitting verbs and engines that fit it: "fgseq" (fgseq() on data), "chunks"
#             (fgseq_chunks()), "sparse" (sparse_sequence()), "miser" (miser()), and "policy" when
#             fgseq_policy() takes its fits;
#   linear    TRUE when the fit is least squares (the linear engine; y is a measurement, rescaled with
#             x when extreme; r2 is the explained variance);
#   multi     TRUE when the fit keeps one coefficient matrix per class or response column;
#   classes   what classes the response has: "none"; "two" (y is one 0/1 column, the second class
#             modelled, `responses` its label); "each" (one indicator column of y per class, the
#             classes the `responses`);
#   named     TRUE when print() names the family (every family but the default, gaussian);
#   metric    the default test metric of a fit (miser_path()); `newy`: the kind of test response
#             (check_newy()) of metrics "r2" and "mse";
#   numeric_classes the class labels of a numeric 0/1 response (binomial), NULL for other families;
#   encode    function(y, n): list(y = n x P matrix for the core, classes, responses);
#   values    function(y): NULL, or what is wrong with the values of a 0/1 or count vector y (a chunk);
#   inverse   function(eta): the inverse link on an n x P matrix of linear predictors;
#   deviance  function(y, mu, w): the deviance of fitted means mu (training rows, prior weights w);
#   loglik    function(y, mu, w, coefs): list(value, df), or NULL when the family has no likelihood
#             (both default to the stats family's: its deviance residuals and aic());
#   test_deviance function(y, p, w = 1): the deviance of predictions p on test data (clipped away from
#             the boundary; rows weighted by w), for the test r2 of the GLM families; NULL for least squares;
#   boundary  NULL, or function(mu, y, diverged = FALSE): NULL, or what glm() would warn about fitted
#             means mu (y: the response matrix) at lambda = 0; always that when `diverged` (a Newton solve
#             of the fit converged as toward an optimum at infinity, whose means stop short of the edge).
new_family <- function(name, link, stats = NULL, verbs, linear = FALSE, multi = FALSE, classes = "none", metric = "r2",
                       newy = c(r2 = "numeric", mse = "numeric"), json_link = link, numeric_classes = NULL,
                       encode, values = function(y) NULL, inverse = function(eta) eta, deviance = NULL,
                       loglik = NULL, test_deviance = NULL, boundary = NULL) {
  if (!is.null(stats)) {
    if (is.null(deviance)) deviance <- function(y, mu, w) sum(stats$dev.resids(y, mu, w))
    # -aic/2 of the stats family, as logLik.glm(); least squares also estimates the dispersion
    if (is.null(loglik)) loglik <- function(y, mu, w, coefs) {
      aic <- stats$aic(y, rep(1, length(y)), mu, w, deviance(y, mu, w))
      list(value = -aic / 2 + linear, df = coefs + linear)
    }
  }
  structure(list(name = name, link = link, json_link = json_link, stats = stats, verbs = verbs,
                 linear = linear, multi = multi, classes = classes, named = name != default_family, metric = metric,
                 newy = newy, numeric_classes = numeric_classes, encode = encode, values = values,
                 inverse = inverse, deviance = deviance, loglik = loglik, test_deviance = test_deviance,
                 boundary = boundary),
            class = "fgseq_family")
}

# The family of a fit that names none, and of fits from sufficient statistics.
default_family <- "gaussian"

# Whether `family` (as given to a verb, before check_family()) leaves the default family.
is_default_family <- function(family) is.null(family) || identical(family, default_family)

# Fitted means this close to 0 (or 1) at lambda = 0 are glm()'s sign of separation.
boundary_eps <- 10 * .Machine$double.eps

# One response value per row of x.
check_y_length <- function(y, n) {
  if (length(y) != n) abort("`y` must have one value per row of `x`: length(y) is ", length(y), ", nrow(x) is ", n, ".")
}

fgseq_families <- list(
  gaussian = new_family(
    "gaussian", "identity", stats::gaussian(), verbs = c("fgseq", "chunks", "sparse", "miser", "policy"), linear = TRUE,
    encode = function(y, n) list(y = matrix(check_y(y, n)), classes = NULL, responses = "y")),

  binomial = new_family(
    "binomial", "logit", stats::binomial(), verbs = c("fgseq", "chunks", "sparse", "miser", "policy"), classes = "two",
    metric = "accuracy",
    numeric_classes = c("0", "1"),
    newy = c(r2 = "binary", mse = "numeric"), inverse = stats::plogis,
    encode = function(y, n) {
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
        if (!all(y == 0 | y == 1)) {
          abort("`y` must be 0/1, logical or a two-level factor for family = \"binomial\"; it has other values (",
                paste(utils::head(setdiff(unique(y), c(0, 1)), 3), collapse = ", "), ").")
        }
        classes <- if (is.logical(y)) c("FALSE", "TRUE") else c("0", "1")
        y01 <- as.numeric(y)
      } else {
        abort("`y` must be 0/1, logical or a two-level factor for family = \"binomial\".")
      }
      check_y_length(y01, n)
      if (anyNA(y01)) abort("`y` contains NA; remove those rows first.")
      ones <- sum(y01)
      counts <- c(length(y01) - ones, ones)
      if (any(counts < 2L)) {
        abort("`y` has a class with fewer than two observations (", paste(classes, counts, sep = ": ", collapse = ", "),
              "); a binomial model needs both classes.")
      }
      list(y = matrix(y01), classes = classes, responses = classes[2L])
    },
    values = function(y) if (!all(y == 0 | y == 1)) "`y` must be 0/1 for family = \"binomial\".",
    test_deviance = function(y, p, w = 1) {
      p <- pmin(pmax(p, 1e-15), 1 - 1e-15)
      -2 * sum(w * (y * log(p) + (1 - y) * log(1 - p)))
    },
    boundary = function(mu, y, diverged = FALSE) {
      if (diverged || any(mu < boundary_eps | mu > 1 - boundary_eps)) "probabilities numerically 0 or 1"
    }),

  multinomial = new_family(
    "multinomial", "logit", json_link = "softmax", verbs = c("fgseq", "chunks", "miser", "policy"), multi = TRUE, classes = "each",
    metric = "accuracy",
    newy = c(r2 = "factor", mse = "factor"),
    inverse = function(eta) {
      e <- exp(eta - apply(eta, 1L, max))
      e / rowSums(e)
    },
    encode = function(y, n) {
      if (!(is.factor(y) || is.character(y) || is.logical(y) || is.numeric(y)) || !is.null(dim(y))) {
        abort("`y` must be a factor (or a vector of class labels) for family = \"multinomial\".")
      }
      if (anyNA(y)) abort("`y` contains NA; remove those rows first.")
      check_y_length(y, n)
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
    deviance = function(y, mu, w) -2 * sum(w * rowSums(ifelse(y > 0, y * log(mu), 0))),
    # the symmetric parametrization has one redundant coefficient vector
    loglik = function(y, mu, w, coefs) {
      list(value = sum(w * rowSums(ifelse(y > 0, y * log(mu), 0))), df = coefs * (ncol(y) - 1L))
    },
    test_deviance = function(y, p, w = 1) {
      if (!is.matrix(p) || ncol(p) != nlevels(y)) {
        abort("metric \"r2\" of a multinomial fit needs one predicted probability per level of `newy`.")
      }
      -2 * sum(w * log(pmax(p[cbind(seq_along(y), as.integer(y))], 1e-15)))
    },
    # a class separable from the others (the probability of its own class numerically 1 on all its rows),
    # or two classes separable from each other (a probability that underflows to 0: log-odds of a class
    # against another beyond about 708, which only coefficients growing without bound reach)
    boundary = function(mu, y, diverged = FALSE) {
      own <- vapply(seq_len(ncol(y)), function(c) any(y[, c] > 0) && all(mu[y[, c] > 0, c] > 1 - boundary_eps), TRUE)
      if (diverged || any(own) || any(mu < .Machine$double.xmin)) "probabilities numerically 0 or 1"
    }),

  poisson = new_family(
    "poisson", "log", stats::poisson(), verbs = c("fgseq", "chunks", "sparse"), newy = c(r2 = "count", mse = "numeric"),
    inverse = exp,
    encode = function(y, n) {
      if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
      if (!is.numeric(y) || !is.null(dim(y))) abort("`y` must be a vector of non-negative counts for family = \"poisson\".")
      check_y_length(y, n)
      if (!all(is.finite(y))) abort("`y` contains NA, NaN or Inf; remove those rows first.")
      if (any(y < 0) || any(y != round(y))) {
        abort("`y` must be non-negative whole counts for family = \"poisson\".")
      }
      if (all(y == y[1L])) abort("`y` is constant; there is nothing to explain.")
      # the gradients of the log-likelihood are sums of counts, squared by the scores
      if (max(y) > 2^400) {
        abort("`y` holds counts up to ", format(max(y), digits = 3), ", beyond what the Poisson fit holds in double ",
              "precision (2^400, about 1e120: its gradients are squared); model log(y) with family = \"gaussian\", ",
              "or count in larger units.")
      }
      list(y = matrix(as.double(y)), classes = NULL, responses = "y")
    },
    values = function(y) {
      if (any(y < 0 | y != round(y))) "`y` must be non-negative whole counts for family = \"poisson\"."
    },
    test_deviance = function(y, mu, w = 1) {
      mu <- pmax(mu, 1e-15)
      2 * sum(w * (ifelse(y > 0, y * log(y / mu), 0) - (y - mu)))
    },
    boundary = function(mu, y, diverged = FALSE) if (diverged || any(mu < boundary_eps)) "means numerically 0"),

  mgaussian = new_family(
    "mgaussian", "identity", verbs = "fgseq", linear = TRUE, multi = TRUE, newy = c(r2 = "matrix", mse = "matrix"),
    encode = function(y, n) {
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
    deviance = function(y, mu, w) sum(w * (y - mu)^2),
    loglik = function(y, mu, w, coefs) NULL)
)

# The response among the rows of positive weight (the rows that take part in the fit) passes the checks
# the family applies to the whole response: each class of a binomial or multinomial response has at
# least two such rows, and another response is not constant on them.
check_weighted_response <- function(response, weights, family) {
  if (!length(weights) || all(weights > 0)) return(invisible())
  Y <- response$y[weights > 0, , drop = FALSE]
  if (!is.null(response$classes)) {
    counts <- if (ncol(Y) == 1L) c(sum(Y == 0), sum(Y == 1)) else colSums(Y)
    if (any(counts < 2)) {
      abort("`weights` leave class(es) with fewer than two rows of positive weight (",
            paste(response$classes, counts, sep = ": ", collapse = ", "), "); the model needs every class: give ",
            "those rows positive weights, or drop the class.")
    }
  } else if (all(apply(Y, 2L, function(v) max(v) - min(v) <= 1e-12 * max(abs(v))))) {
    abort("`y` is constant on the rows of positive `weights`; there is nothing to explain.")
  }
  invisible()
}

# The families a verb (or engine) fits, in the order its help lists them.
family_names <- function(verb) names(Filter(function(f) verb %in% f$verbs, fgseq_families))

# The family object of a family name (a fit's `$family`; NULL, in a fit that names none: the default).
family_def <- function(name) fgseq_families[[if (is.null(name)) default_family else name]]

# family: the name of a family `verb` fits, or a family object of stats (binomial(), poisson(),
# gaussian(), or the function itself, as glm() takes them) with its canonical link. Returns the name.
check_family <- function(family, verb) {
  choices <- family_names(verb)
  if (is.function(family)) family <- tryCatch(family(), error = function(e) NULL)
  if (inherits(family, "family")) {
    name <- family$family
    def <- fgseq_families[[name]]
    if (!name %in% choices || is.null(def$stats)) {
      abort("`family` ", name, "() is not available here; use one of ",
            paste0("\"", choices, "\"", collapse = ", "), ".", class = "family")
    }
    if (!identical(family$link, def$stats$link)) {
      abort("`family` ", name, "(link = \"", family$link, "\") has a non-canonical link; fgseq fits the ",
            "canonical link only: use ", name, "() (link \"", def$stats$link, "\").", class = "family")
    }
    return(name)
  }
  if (!is.character(family) || length(family) != 1L || is.na(family) || !(family %in% choices)) {
    abort("`family` must be one of ", paste0("\"", choices, "\"", collapse = ", "),
          " or a family object with its canonical link (binomial(), poisson(), gaussian()).", class = "family")
  }
  family
}

# Returns list(y = n x P matrix for the core, classes = class labels or NULL, responses = column names).
check_response <- function(y, family, n) family_def(family)$encode(y, n)
