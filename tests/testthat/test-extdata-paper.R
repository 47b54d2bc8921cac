# The precomputed run of vignette("paper") (inst/extdata/paper-*.csv, written by
# data-raw/paper-experiments.R): the files come from one run of 6 splits, the curves of the first split
# agree with its scores (timeliness recomputed here by a plain trapezoid sum, not curve_timeliness()),
# and the Heart numbers of the first split are recomputed here from lm() fits of each prefix of the
# CS-G-OMP sequence on the same training rows (lambda = 1e-6 is least squares to ~1e-6).

paper_read <- function(what) {
  file <- system.file("extdata", paste0("paper-", what, ".csv"), package = "fgseq")
  expect_true(nzchar(file), label = paste("installed file paper", what))
  utils::read.csv(file)
}

# area under the curve joined by straight lines, from cost 0 to B, divided by B
trapezoid <- function(cost, value, B) {
  at <- c(cost[cost < B], B)
  v <- c(value[cost < B], stats::approx(cost, value, xout = B, ties = "ordered", rule = 2)$y)
  sum(diff(at) * (v[-1L] + v[-length(v)]) / 2) / B
}

test_that("the paper files come from one run: every data set, split, metric and method", {
  scores <- paper_read("scores")
  curves <- paper_read("curves")
  run <- paper_read("run-evaluation")
  methods <- c("CS-G-OMP", "Single", "No-Whiten", "G-OMP", "CS-G-FR", "Doubling", "FR Oracle",
               "OMP Oracle", "Sparse")
  expect_true(all(c("Heart", paste0("Yahoo-like (s = ", c(5, 10, 15, 20), ")")) %in% scores$dataset))
  for (nm in unique(scores$dataset)) {
    s <- scores[scores$dataset == nm & scores$metric == "r2", ]
    expect_setequal(unique(s$split), 1:6)
    expect_equal(as.vector(table(s$split)), rep(length(methods), 6), label = nm)
    expect_setequal(s$method, methods)
    # one stopping cost per split, shared by all methods and metrics
    all_s <- scores[scores$dataset == nm, ]
    expect_equal(as.vector(tapply(all_s$stop_cost, all_s$split, function(b) diff(range(b)))), rep(0, 6))
  }
  expect_setequal(unique(scores$metric), c("r2", "accuracy", "ndcg"))
  expect_setequal(unique(curves$dataset), unique(scores$dataset))
  expect_equal(nrow(run), 1L)
  expect_true(run$seconds > 0)
})

test_that("the first split's curves give its scores (linear and step timeliness)", {
  scores <- paper_read("scores")
  curves <- paper_read("curves")
  first <- scores[scores$split == 1L, ]
  for (i in seq_len(nrow(first))) {
    r <- first[i, ]
    cv <- curves[curves$dataset == r$dataset & curves$metric == r$metric & curves$method == r$method, ]
    lab <- paste(r$dataset, r$metric, r$method)
    expect_gt(nrow(cv), 1L)
    expect_equal(trapezoid(cv$cost, cv$value, r$stop_cost), r$linear, tolerance = 1e-10, label = lab)
    # step: each value holds from its cost to the next point's
    at <- c(cv$cost[cv$cost < r$stop_cost], r$stop_cost)
    v <- cv$value[cv$cost < r$stop_cost]
    v <- vapply(seq_along(v), function(k) cv$value[max(which(cv$cost <= at[k]))], numeric(1))
    expect_equal(sum(diff(at) * v) / r$stop_cost, r$step, tolerance = 1e-10, label = lab)
    expect_equal(max(cv$cost), r$total_cost, tolerance = 1e-12, label = lab)
  }
})

test_that("Heart, first split: the CS-G-OMP test curve and timeliness equal lm() fits of its prefixes", {
  scores <- paper_read("scores")
  curves <- paper_read("curves")
  mm <- model.matrix(diagnosis ~ ., data = heart)
  x <- mm[, -1]
  y <- as.numeric(heart$diagnosis)
  group <- attr(terms(diagnosis ~ ., data = heart), "term.labels")[attr(mm, "assign")[-1]]
  set.seed(1)                                        # the vignette's first split of Heart
  train <- sample(nrow(x), round(0.7 * nrow(x)))
  fit <- fgseq(x[train, ], y[train], group = group, cost = heart_cost, lambda = 1e-6)
  sse <- function(pred) sum((y[-train] - pred)^2)
  sse0 <- sse(mean(y[train]))
  r2 <- c(0, vapply(seq_along(fit$sequence), function(k) {
    cols <- group %in% fit$sequence[seq_len(k)]
    d <- data.frame(y = y[train], x[train, cols, drop = FALSE], check.names = FALSE)
    m <- stats::lm(y ~ ., data = d)
    1 - sse(stats::predict(m, newdata = data.frame(x[-train, cols, drop = FALSE], check.names = FALSE))) / sse0
  }, numeric(1)))
  cost <- c(0, cumsum(heart_cost[fit$sequence]))
  cv <- curves[curves$dataset == "Heart" & curves$metric == "r2" & curves$method == "CS-G-OMP", ]
  expect_equal(cv$cost, unname(cost), tolerance = 1e-12)
  expect_equal(cv$value, unname(r2), tolerance = 1e-5)
  row <- scores[scores$dataset == "Heart" & scores$split == 1L & scores$metric == "r2" &
                  scores$method == "CS-G-OMP", ]
  B <- stop_cost(fit, alpha = 0.97)
  expect_equal(row$stop_cost, B, tolerance = 1e-12)
  expect_equal(row$linear, trapezoid(cost, r2, B), tolerance = 1e-5)
})
