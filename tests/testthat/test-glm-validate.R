# One test per error message of the GLM inputs (R/family.R) and of predict() for GLM fits.

set.seed(21)
gx <- matrix(rnorm(40 * 3), 40, 3, dimnames = list(NULL, c("a", "b", "c")))
gy <- rbinom(40, 1, plogis(gx[, 1]))

test_that("binomial: y with other values than two classes", {
  expect_error(fgseq(gx, replace(gy, 3, 2), family = "binomial"),
               "`y` must be 0/1, logical or a two-level factor for family = \"binomial\"; it has other values (2).",
               fixed = TRUE, class = "fgseq_error_input")
  expect_error(fgseq(gx, factor(rep(c("p", "q", "r", "s"), 10)), family = "binomial"),
               "`y` must have exactly two classes for family = \"binomial\"; it has 4 (p, q, r, s). Use family = \"multinomial\" for more.",
               fixed = TRUE, class = "fgseq_error_input")
  expect_error(fgseq(gx, as.list(gy), family = "binomial"),
               "`y` must be 0/1, logical or a two-level factor for family = \"binomial\".", fixed = TRUE,
               class = "fgseq_error_input")
})

test_that("a factor with one level", {
  one <- factor(rep("only", 40))
  expect_error(fgseq(gx, one, family = "multinomial"),
               "`y` has a single class ('only'); there is nothing to classify.", fixed = TRUE,
               class = "fgseq_error_input")
  expect_error(fgseq(gx, one, family = "binomial"),
               "`y` must have exactly two classes for family = \"binomial\"; it has 1 (only).", fixed = TRUE,
               class = "fgseq_error_input")
})

test_that("a class with fewer than two observations", {
  y <- factor(c("z", rep(c("a", "b"), length.out = 39)))
  expect_error(fgseq(gx, y, family = "multinomial"),
               "`y` has class(es) with fewer than two observations: z: 1. Drop those classes (droplevels()) or merge them.",
               fixed = TRUE, class = "fgseq_error_input")
  expect_error(fgseq(gx, c(1, rep(0, 39)), family = "binomial"),
               "`y` has a class with fewer than two observations (0: 39, 1: 1); a binomial model needs both classes.",
               fixed = TRUE, class = "fgseq_error_input")
})

test_that("poisson: negative or non-integer counts", {
  y <- rpois(40, 2)
  msg <- "`y` must be non-negative whole counts for family = \"poisson\"."
  expect_error(fgseq(gx, replace(y, 1, -1), family = "poisson"), msg, fixed = TRUE, class = "fgseq_error_input")
  expect_error(fgseq(gx, replace(y, 1, 1.5), family = "poisson"), msg, fixed = TRUE, class = "fgseq_error_input")
})

test_that("weights: negative, NA or of the wrong length", {
  w <- rep(1, 40)
  expect_error(fgseq(gx, gy, family = "binomial", weights = replace(w, 2, -1)),
               "`weights` must be non-negative.", fixed = TRUE, class = "fgseq_error_input")
  expect_error(fgseq(gx, gy, family = "binomial", weights = replace(w, 2, NA)),
               "`weights` contains NA, NaN or Inf.", fixed = TRUE, class = "fgseq_error_input")
  expect_error(fgseq(gx, gy, family = "poisson", weights = w[-1]),
               "`weights` must have one value per row of `x`: length(weights) is 39, nrow(x) is 40.", fixed = TRUE,
               class = "fgseq_error_input")
})

test_that("offset of the wrong length", {
  expect_error(fgseq(gx, gy, family = "binomial", offset = rep(0, 39)),
               "`offset` must have one value per row of `x`: length is 39, expected 40.", fixed = TRUE,
               class = "fgseq_error_input")
  yk <- factor(rep(c("u", "v", "w"), length.out = 40))
  expect_error(fgseq(gx, yk, family = "multinomial", offset = matrix(0, 40, 2)),
               "`offset` must be a vector of length 40 or an 40 x 3 matrix.", fixed = TRUE,
               class = "fgseq_error_input")
})

test_that("predict: newoffset missing when the fit had an offset", {
  fit <- fgseq(gx, gy, family = "binomial", offset = rep(0.1, 40))
  expect_error(predict(fit, gx[1:5, ]), "`newoffset` is needed: the fit used an `offset`.", fixed = TRUE,
               class = "fgseq_error_input")
  expect_error(predict(fit, gx[1:5, ], newoffset = rep(0, 3)),
               "`newoffset` must have one value per row of `newx`: length is 3, expected 5.", fixed = TRUE,
               class = "fgseq_error_input")
})

test_that("predict: type = \"class\" for a fit without classes", {
  fit <- fgseq(gx, gx[, 1] + rnorm(40))
  expect_error(predict(fit, gx, type = "class"),
               "`type = \"class\"` needs a binomial or multinomial fit; this fit's family is gaussian.", fixed = TRUE,
               class = "fgseq_error_input")
  fit <- fgseq(gx, rpois(40, 2), family = "poisson")
  expect_error(predict(fit, gx, type = "class"),
               "`type = \"class\"` needs a binomial or multinomial fit; this fit's family is poisson.", fixed = TRUE,
               class = "fgseq_error_input")
})

test_that("Poisson counts beyond double precision's squares are refused, not fitted as an empty sequence", {
  set.seed(3)
  x <- matrix(rnorm(100), 50)
  y <- rpois(50, 3)
  y[1] <- 1e300
  expect_error(fgseq(x, y, family = "poisson"), "`y`", class = "fgseq_error_input")
  # a large count within range fits as glm() does (slopes invariant to the scale of the count)
  y[1] <- 1e10
  fit <- fgseq(x, y, family = "poisson", lambda = 0)
  ref <- stats::glm(y ~ x, family = poisson)
  expect_equal(unname(coef(fit)[-1, ncol(coef(fit))]), unname(coef(ref)[-1]), tolerance = 1e-6)
})

test_that("weights that leave a single class are refused, as the same response without weights is", {
  set.seed(4)
  x <- matrix(rnorm(100), 50)
  y <- rep(0:1, 25)
  w <- ifelse(y == 1, 0, 1)
  expect_error(fgseq(x[y == 0, ], y[y == 0], family = "binomial"), "class", class = "fgseq_error_input")
  expect_error(fgseq(x, y, family = "binomial", weights = w), "`weights`", class = "fgseq_error_input")
  cls <- factor(rep(c("a", "b", "c"), length.out = 50))
  expect_error(fgseq(x, cls, family = "multinomial", weights = as.numeric(cls != "c")), "`weights`",
               class = "fgseq_error_input")
  expect_error(miser(x, y, family = "binomial", weights = w, cost = c(1, 1), max_steps = 2), "`weights`",
               class = "fgseq_error_input")
  yc <- ifelse(w > 0, 5, rpois(50, 3))
  expect_error(fgseq(x, yc, family = "poisson", weights = w), "constant", class = "fgseq_error_input")
})
