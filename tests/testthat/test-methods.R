# print, summary, plot and the formula interface, checked against values computed another way.

hfit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, method = "fr")

test_that("print shows every step with its group, costs and r2", {
  out <- capture.output(print(hfit))
  expect_match(out[1], "CS-G-FR sequence: 13 of 13 groups, 303 observations")
  rows <- out[grepl("^ *[0-9]+ ", out)]
  expect_length(rows, 14)
  for (k in seq_along(hfit$sequence)) {
    fields <- strsplit(trimws(rows[k + 1]), " +")[[1]]
    expect_equal(fields[2], hfit$sequence[k])
    expect_equal(as.numeric(fields[3]), unname(heart_cost[hfit$sequence[k]]), tolerance = 1e-3)
    expect_equal(as.numeric(fields[4]), sum(heart_cost[hfit$sequence[1:k]]), tolerance = 1e-3)
  }
  expect_equal(as.numeric(strsplit(trimws(rows[14]), " +")[[1]][5]),
               summary(lm(diagnosis ~ ., data = heart))$r.squared, tolerance = 1e-3)
})

test_that("summary reports stopping costs and timeliness that agree with stop_cost() and timeliness()", {
  s <- summary(hfit, alpha = c(0.5, 0.97))
  r2 <- hfit$path$r2
  expect_equal(s$stopping$stop_cost[1], hfit$path$cost[which(r2 >= 0.5 * r2[14])[1]])
  expect_equal(s$stopping$timeliness[2], timeliness(hfit, stop_cost = stop_cost(hfit, 0.97)))
  expect_equal(s$total_cost, sum(heart_cost))
  expect_match(paste(capture.output(print(s)), collapse = "\n"), "Training timeliness up to the alpha-stopping cost")
})

test_that("plot returns the training curve, or the test curve computed from predictions", {
  pdf(NULL)
  on.exit(dev.off())
  tr <- plot(hfit)
  expect_equal(tr$r2, hfit$path$r2)
  expect_equal(tr$cost, cumsum(c(0, heart_cost[hfit$sequence])), ignore_attr = TRUE)
  test <- heart[seq(2, 303, by = 3), ]
  te <- plot(hfit, newdata = test, add = TRUE, col = 2)
  y <- as.numeric(test$diagnosis)
  x <- model.matrix(diagnosis ~ ., test)[, -1]
  pred <- sweep(x %*% hfit$beta, 2, hfit$a0, "+")
  sse <- colSums((y - pred)^2)
  expect_equal(te$r2, unname(1 - sse / sse[1]))
  expect_equal(plot(hfit, newx = x, newy = y)$r2, te$r2)
})

test_that("the formula interface makes one group per term and predicts from new data frames", {
  expect_setequal(hfit$sequence, names(heart_cost))
  expect_equal(unname(hfit$group[c("cpaa", "cpnp", "cpa")]), rep("cp", 3))
  # predictions on a data frame holding only some factor levels use the training levels
  nd <- heart[heart$cp == "a", ][1:4, ]
  x <- model.matrix(diagnosis ~ ., heart)[, -1][rownames(nd), ]
  expect_equal(unname(predict(hfit, newdata = nd, budget = c(3, 120))),
               unname(predict(hfit, x, budget = c(3, 120))))
  # same sequence as the matrix interface with the terms as groups
  mm <- model.matrix(diagnosis ~ ., heart)
  labels <- attr(terms(diagnosis ~ ., data = heart), "term.labels")
  mfit <- fgseq(mm[, -1], heart$diagnosis, group = labels[attr(mm, "assign")[-1]], cost = heart_cost,
                method = "fr")
  expect_identical(mfit$sequence, hfit$sequence)
  expect_equal(mfit$beta, hfit$beta)
})

test_that("max_steps and max_cost truncate the path to a prefix of the full sequence", {
  full <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
  short <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost, max_cost = 100)
  k <- max(which(full$path$cost <= 100)) - 1
  expect_identical(short$sequence, full$sequence[seq_len(k)])
  expect_equal(short$path$r2, full$path$r2[1:(k + 1)])
  expect_identical(fgseq(diagnosis ~ ., data = heart, cost = heart_cost, max_steps = 2)$sequence,
                   full$sequence[1:2])
})
