# What the plot methods draw, read back from the recorded display list and the device's state
# (helper-plots.R): log cost axes, cost units, labels inside the plot, layouts and step frontiers.

p_train <- heart[c(TRUE, FALSE), ]
p_test <- heart[c(FALSE, TRUE), ]
p_omp <- fgseq(diagnosis ~ ., data = p_train, cost = heart_cost, cost_unit = "CAD")
p_fr <- fgseq(diagnosis ~ ., data = p_train, cost = heart_cost, method = "fr", cost_unit = "CAD")

test_that("plot() of a comparison takes log = \"x\" and the fits' cost_unit", {
  cmp <- compare_sequences(list(p_omp, p_fr), newdata = p_test)
  expect_identical(cmp$cost_unit, "CAD")
  d <- drawn(function() plot(cmp, log = "x"))
  expect_identical(d$value, cmp)
  expect_true(d$xlog)
  expect_true("cumulative cost (CAD)" %in% drawn_strings(d))
  # cost 0 is drawn at half the smallest positive cost of the curves, where the axis begins
  costs <- unlist(lapply(cmp$curves, `[[`, "cost"))
  left <- min(costs[costs > 0]) / 2
  right <- max(cmp$stop_cost, cmp$curves[[1]]$cost)
  expect_equal(d$usr[1:2], log10(c(left, right)) + c(-1, 1) * 0.04 * diff(log10(c(left, right))))
  lines <- calls_named(d, "C_plotXY")[-1]   # the first is plot(NA)'s empty frame
  expect_equal(lines[[1]]$args[[1]]$x, replace(cmp$curves[[1]]$cost, cmp$curves[[1]]$cost == 0, left))
  # "0" labels the left end
  axes <- calls_named(d, "C_axis")
  expect_true(any(vapply(axes, function(a) identical(a$args[[2]], left) && identical(a$args[[3]], "0"),
                         logical(1))))
  # a linear axis by default, with a unit given by the call
  lin <- drawn(function() plot(cmp, cost_unit = "dollars"))
  expect_false(lin$xlog)
  expect_true("cumulative cost (dollars)" %in% drawn_strings(lin))
  expect_error(plot(cmp, log = "y"), "log", class = "fgseq_error_input")
  expect_error(plot(cmp, cost_unit = 3), "cost_unit", class = "fgseq_error_input")
})

test_that("xlog = TRUE, which plot() ignores, is an unknown argument pointing to log = \"x\"", {
  cmp <- compare_sequences(list(p_omp, p_fr), newdata = p_test)
  pdf(NULL)
  on.exit(dev.off())
  expect_error(plot(cmp, xlog = TRUE), "did you mean `log`", class = "fgseq_error_unknown_argument")
  expect_error(plot(p_omp, xlog = TRUE), "did you mean `log`", class = "fgseq_error_unknown_argument")
})

test_that("plot() of an oracle takes log = \"x\" and the fit's cost_unit", {
  or <- oracle(p_omp)
  d <- drawn(function() plot(or, log = "x"))
  expect_true(d$xlog)
  expect_true("cumulative cost (CAD)" %in% drawn_strings(d))
  pos <- or$path$cost[or$path$cost > 0]
  expect_equal(10^d$usr[1] * 1.0, (min(pos) / 2) / (max(or$path$cost) / (min(pos) / 2))^(0.04), tolerance = 1e-12)
})

# the text() calls of a drawing: x, y and labels of each, with its srt
drawn_text <- function(d) {
  do.call(rbind, lapply(calls_named(d, "C_text"), function(cl) {
    xy <- cl$args[[1]]
    data.frame(x = xy$x, y = xy$y, label = as.character(cl$args[[2]]),
               srt = if (is.null(cl$args$srt)) 0 else cl$args$srt, stringsAsFactors = FALSE)
  }))
}

test_that("coefficient labels do not collide and stay inside the plot at the default size", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  beta <- as.matrix(fit$beta)
  last <- beta[, ncol(beta)]
  for (log in c("", "x")) {
    d <- drawn(function() {
      plot(fit, what = "coef", log = log, labels = TRUE)
      list(line = graphics::strheight("M", units = "inches", cex = 0.7),
           width = graphics::strwidth(rownames(beta), units = "inches", cex = 0.7),
           char = graphics::strwidth("M", units = "inches", cex = 0.7))
    })
    tx <- drawn_text(d)
    paths <- tx[tx$srt == 0 & tx$label %in% rownames(beta), ]
    expect_gt(nrow(paths), 10)
    # the labelled paths are those of largest last |coefficient|
    expect_setequal(paths$label, names(sort(-abs(last[last != 0])))[seq_len(nrow(paths))])
    # one line of text apart: no two overlap
    per_inch <- diff(d$usr[3:4]) / d$pin[2]
    expect_true(all(diff(sort(paths$y)) >= d$value$line * per_inch * (1 - 1e-9)))
    expect_true(all(paths$y >= d$usr[3] & paths$y <= d$usr[4]))
    # each ends inside the plot region (pos = 4 writes half a character right of the point)
    u <- if (log == "x") log10(paths$x) else paths$x
    width <- d$value$width[match(paths$label, rownames(beta))]
    expect_true(all(u + (width + 0.5 * d$value$char) * diff(d$usr[1:2]) / d$pin[1] <= d$usr[2]))
  }
})

test_that("group labels end below the top border", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  d <- drawn(function() {
    plot(fit, log = "x", labels = TRUE)
    graphics::strwidth(fit$sequence, units = "inches", cex = 0.7)
  })
  tx <- drawn_text(d)
  up <- tx[tx$srt == 90, ]
  expect_true(nrow(up) > 5 && all(up$label %in% fit$sequence))
  len <- d$value[match(up$label, fit$sequence)] * diff(d$usr[3:4]) / d$pin[2]
  expect_true(all(up$y + 1.15 * len <= d$usr[4]))
  expect_true(all(log10(up$x) <= d$usr[2]))
})

test_that("a multinomial coefficient plot draws every class on one page and restores par()", {
  fit <- fgseq(Species ~ ., data = iris, family = "multinomial")
  d <- drawn(function() {
    plot(fit, what = "coef", labels = TRUE)
    graphics::par("mfrow")
  })
  expect_identical(d$pages, 1L)
  expect_length(calls_named(d, "C_plot_window"), 3L)
  expect_identical(d$value, c(1L, 1L))
  titles <- drawn_strings(d)
  expect_true(all(paste0("CS-G-OMP: ", levels(iris$Species)) %in% titles))
})

test_that("the top axis shows the number of groups at each step, as plot.glmnet() its df", {
  fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial")
  for (what in c("curve", "coef")) {
    d <- drawn(function() plot(fit, what = what))
    top <- Filter(function(a) isTRUE(a$args[[1]] == 3), calls_named(d, "C_axis"))
    expect_length(top, 1L)
    # at each step's cumulative cost, the length of the prefix of the sequence
    expect_equal(top[[1]]$args[[2]], fit$path$cost)
    expect_equal(as.numeric(top[[1]]$args[[3]]), vapply(0:length(fit$sequence), function(k) length(fit$sequence[seq_len(k)]), 0))
  }
  # a boosted step that pays several groups counts them all
  m <- miser(diagnosis ~ ., data = heart, cost = heart_cost, family = "binomial", max_steps = 6, depth = 2)
  d <- drawn(function() plot(m))
  top <- Filter(function(a) isTRUE(a$args[[1]] == 3), calls_named(d, "C_axis"))[[1]]
  paid <- predict(m, heart[1, ], step = 6, type = "groups")[[1]]
  expect_equal(max(as.numeric(top$args[[3]])), nrow(paid))
})

test_that("the miser_path() frontier is a step function through its efficient points", {
  d0 <- sim_miser(120, 5)
  mp <- miser_path(d0$x[1:80, ], d0$y[1:80], cost = c(1, 2, 4, 8, 16), cost_penalty = c(0, 0.01, 0.1, 1),
                   max_steps = 6, depth = 2, newx = d0$x[81:120, ], newy = d0$y[81:120])
  d <- drawn(function() plot(mp, traces = FALSE))
  xy <- calls_named(d, "C_plotXY")
  steps <- Filter(function(cl) identical(cl$args[[2]], "s"), xy)
  expect_length(steps, 1L)
  fr <- mp$frontier
  eff <- fr[fr$efficient, ]
  o <- order(eff$cost)
  expect_equal(steps[[1]]$args[[1]]$x, eff$cost[o])
  expect_equal(steps[[1]]$args[[1]]$y, eff$value[o])
  # efficient points: no cheaper point is at least as good (computed from the frontier table)
  for (i in seq_len(nrow(eff))) expect_false(any(fr$cost < eff$cost[i] & fr$value >= eff$value[i]))
})
