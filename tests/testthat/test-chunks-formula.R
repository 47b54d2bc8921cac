# Formula fits from chunks of data frames against the in-memory formula fit of the same rows: factors,
# an interaction, costs by variable, needs, the three families; the design fixed from a template or a
# first pass; classed errors naming the chunk and the variable.

heart_pieces <- function(d = heart, k = 3) unname(split(d, rep(seq_len(k), length.out = nrow(d))))

expect_same_fit <- function(b, a, tol = 1e-8) {
  expect_identical(b$sequence, a$sequence)
  expect_identical(b$group, a$group)
  expect_equal(b$beta, a$beta, tolerance = tol)
  expect_equal(b$a0, a$a0, tolerance = tol)
  expect_equal(b$path$cost, a$path$cost)
}

test_that("chunked formula fits equal in-memory formula fits on heart (factors, interaction, 3 families)", {
  needs <- list(chol = c("blood_draw", "chol"), fbs = c("blood_draw", "fbs"))
  cost <- c(replace(heart_cost, c("chol", "fbs"), c(5.17, 3.10)), blood_draw = 2.10)
  d <- heart
  d$visits <- as.numeric(d$ca)   # a count response for the Poisson family
  forms <- list(gaussian = age ~ sex + cp + thal + restecg + chol + fbs + cp:sex,
                binomial = diagnosis ~ . + cp:sex - visits,
                poisson = visits ~ age + cp * sex + thal + chol + fbs - ca)
  for (fam in names(forms)) {
    f <- forms[[fam]]
    a <- fgseq(f, data = d, cost = cost, needs = needs, family = fam, lambda = 1e-3)
    # design from the first pass, and from a template
    b <- fgseq(f, data = fgseq_chunks(heart_pieces(d)), cost = cost, needs = needs, family = fam, lambda = 1e-3)
    t <- fgseq(f, data = fgseq_chunks(heart_pieces(d)), cost = cost, needs = needs, family = fam, lambda = 1e-3,
               template = d[0, ])
    expect_same_fit(b, a)
    expect_same_fit(t, a)
    expect_true(any(grepl(":", a$sequence, fixed = TRUE)))   # the interaction is in the sequence
    expect_identical(b$xlevels, a$xlevels)
    new <- d[c(5, 50, 150), ]
    expect_equal(predict(b, newdata = new, type = "response"), predict(a, newdata = new, type = "response"),
                 tolerance = 1e-8)
  }
  # rows whose tests are not back, predicted by the longest prefix they have, as in memory
  partial <- d[c(5, 50, 150), ]
  partial$thal[1] <- NA
  partial$chol[2] <- NA
  pb <- predict(b, newdata = partial, missing = "prefix", budget = 200)
  pa <- predict(a, newdata = partial, missing = "prefix", budget = 200)
  expect_equal(pb, pa, tolerance = 1e-8)
  expect_identical(attr(pb, "step"), attr(pa, "step"))
  # the binomial fit names its classes as the in-memory fit does (a logical response)
  expect_identical(b$classes, a$classes)
  # the last step of the gaussian fit from chunks is lm() on every term
  g <- fgseq(age ~ sex + cp + thal + cp:sex, data = fgseq_chunks(heart_pieces()), lambda = 0)
  l <- lm(age ~ sex + cp + thal + cp:sex, data = heart)
  expect_equal(unname(predict(g, newdata = heart)[, ncol(g$beta)]), unname(fitted(l)), tolerance = 1e-8)
})

test_that("chunked formula fits read text as the template's factors and take weights from the chunks", {
  d <- heart
  d$w <- rep(c(0.5, 1, 2), length.out = nrow(d))
  pieces <- lapply(heart_pieces(d), function(p) {
    p$cp <- as.character(p$cp)          # as a database or a text file returns it
    p
  })
  a <- fgseq(diagnosis ~ age + cp + thal, data = d, weights = w, family = "binomial", lambda = 1e-3)
  b <- fgseq(diagnosis ~ age + cp + thal, data = fgseq_chunks(pieces), weights = w, family = "binomial",
             lambda = 1e-3, template = d[0, ])
  expect_same_fit(b, a)
  # without a template, text is read with its sorted values as levels, as model.frame() reads it
  e <- d
  e$cp <- as.character(e$cp)
  a2 <- fgseq(diagnosis ~ age + cp + thal, data = e, family = "binomial", lambda = 1e-3)
  b2 <- fgseq(diagnosis ~ age + cp + thal, data = fgseq_chunks(pieces), family = "binomial", lambda = 1e-3)
  expect_same_fit(b2, a2)
})

test_that("offsets from the chunks: offset() terms and the offset argument, as in memory", {
  d <- heart
  d$visits <- as.numeric(d$ca)
  d$days <- rep(c(1, 2, 4), length.out = nrow(d))
  a <- fgseq(visits ~ age + cp + thal + offset(log(days)), data = d, family = "poisson", offset = 0.1 * sex,
             lambda = 1e-3)
  b <- fgseq(visits ~ age + cp + thal + offset(log(days)), data = fgseq_chunks(heart_pieces(d)),
             family = "poisson", offset = 0.1 * sex, lambda = 1e-3)
  expect_identical(b$sequence, a$sequence)
  expect_equal(b$beta, a$beta, tolerance = 1e-8)
  expect_equal(b$a0, a$a0, tolerance = 1e-8)
  new <- d[1:4, ]
  expect_equal(predict(b, newdata = new, type = "response"), predict(a, newdata = new, type = "response"),
               tolerance = 1e-8)
  # priced offset variables are measurements paid at step 0, from chunks as in memory
  cost <- c(age = 1, cp = 1, thal = 50, days = 3, sex = 2)
  a <- fgseq(visits ~ age + cp + thal + offset(log(days)), data = d, family = "poisson", offset = 0.1 * sex,
             cost = cost, lambda = 1e-3)
  b <- fgseq(visits ~ age + cp + thal + offset(log(days)), data = fgseq_chunks(heart_pieces(d)),
             family = "poisson", offset = 0.1 * sex, cost = cost, lambda = 1e-3)
  expect_identical(b$sequence, a$sequence)
  expect_equal(b$beta, a$beta, tolerance = 1e-8)
  expect_equal(b$path$cost[1L], 5)                     # days and sex, before any group
  expect_equal(b$path$cost, 5 + cumsum(c(0, cost[b$sequence])), ignore_attr = TRUE)
  expect_setequal(b$offset_needs, c("days", "sex"))
})

test_that("a chunk with an unknown level or another type is a classed error naming chunk and variable", {
  pieces <- heart_pieces()
  odd <- pieces
  odd[[2]]$cp <- factor(as.character(odd[[2]]$cp), levels = c(levels(heart$cp), "unknown"))
  odd[[2]]$cp[3] <- "unknown"
  expect_error(fgseq(diagnosis ~ age + cp, data = fgseq_chunks(odd), template = heart[0, ]),
               class = "fgseq_error_chunk_level")
  expect_error(fgseq(diagnosis ~ age + cp, data = fgseq_chunks(odd), template = heart[0, ]),
               "chunk 2: variable `cp`")
  typed <- pieces
  typed[[3]]$thal <- as.numeric(typed[[3]]$thal)
  for (tmpl in list(NULL, heart[0, ])) {
    err <- expect_error(fgseq(diagnosis ~ age + thal, data = fgseq_chunks(typed), template = tmpl),
                        class = "fgseq_error_chunk_type")
    expect_match(conditionMessage(err), "chunk 3: variable `thal`")
  }
  gone <- pieces
  gone[[2]]$age <- NULL
  expect_error(fgseq(diagnosis ~ age + thal, data = fgseq_chunks(gone), template = heart[0, ]),
               class = "fgseq_error_chunk_type")
  holed <- pieces
  holed[[1]]$age[2] <- NA
  expect_error(fgseq(diagnosis ~ age + thal, data = fgseq_chunks(holed)), class = "fgseq_error_na")
  expect_error(fgseq(diagnosis ~ age, data = fgseq_chunks(pieces), subset = age > 50), class = "fgseq_error_formula")
  three <- lapply(pieces, function(p) transform(p, cp3 = factor(as.character(cp))))
  expect_error(fgseq(cp3 ~ age, data = fgseq_chunks(three), family = "binomial"), "needs two",
               class = "fgseq_error_input")
  expect_error(fgseq(diagnosis ~ age - 1, data = fgseq_chunks(pieces)), class = "fgseq_error_formula")
  expect_error(fgseq(diagnosis ~ age + visits, data = fgseq_chunks(pieces), template = heart[0, ]),
               class = "fgseq_error_formula")
  expect_error(fgseq(diagnosis ~ age, data = fgseq_chunks(pieces), template = as.matrix(heart)),
               class = "fgseq_error_formula")
})

test_that("a multinomial formula fit from chunks equals the in-memory fit (classes in the template's order)", {
  d <- heart
  d$w <- rep(c(0.5, 1, 2), length.out = nrow(d))
  f <- cp ~ age + sex + thal + chol + exang
  pieces <- heart_pieces(d)
  # chunk 2 has no row of class "ta" (a class may be absent from a chunk); it reads cp as text
  pieces[[2]] <- pieces[[2]][pieces[[2]]$cp != "ta", ]
  pieces[[2]]$cp <- as.character(pieces[[2]]$cp)
  keep <- do.call(rbind, pieces)
  a <- fgseq(f, data = keep, weights = w, family = "multinomial", cost = heart_cost, lambda = 1e-3)
  b <- fgseq(f, data = fgseq_chunks(pieces), weights = w, family = "multinomial", cost = heart_cost,
             lambda = 1e-3, template = d[0, ])
  expect_identical(b$sequence, a$sequence)
  expect_identical(b$classes, levels(heart$cp))
  expect_identical(b$classes, a$classes)
  expect_equal(b$path$cost, a$path$cost)
  expect_equal(unlist(b$beta), unlist(a$beta), tolerance = 1e-8)
  new <- d[c(3, 30, 300), ]
  expect_equal(predict(b, newdata = new, type = "response"), predict(a, newdata = new, type = "response"),
               tolerance = 1e-8)
  expect_identical(predict(b, newdata = new, type = "class"), predict(a, newdata = new, type = "class"))
})

# The fits `b` and `a` of the same rows, chunked alike except for chunks of no rows: the same sequence,
# and coefficients and intercepts to 1e-12.
expect_same_rows_fit <- function(b, a) {
  expect_identical(b$sequence, a$sequence)
  expect_equal(unlist(lapply(if (is.list(b$beta)) b$beta else list(b$beta), as.matrix)),
               unlist(lapply(if (is.list(a$beta)) a$beta else list(a$beta), as.matrix)), tolerance = 1e-12)
  expect_equal(b$a0, a$a0, tolerance = 1e-12)
  expect_identical(b$nobs, a$nobs)
}

test_that("formula chunks of no rows add nothing: the fit without them (three families)", {
  d <- heart
  pieces <- heart_pieces(d)
  none <- d[0, ]
  padded <- list(none, pieces[[1]], none, pieces[[2]], pieces[[3]], none)
  forms <- list(gaussian = age ~ sex + cp + thal + chol, binomial = diagnosis ~ age + sex * cp + thal,
                multinomial = cp ~ age + sex + thal)
  for (fam in names(forms)) {
    tmpl <- if (fam == "binomial") d[0, ]   # the design from a template, or from the first pass
    a <- fgseq(forms[[fam]], data = fgseq_chunks(pieces), cost = heart_cost, family = fam, lambda = 1e-3,
               template = tmpl, max_steps = 3)
    b <- fgseq(forms[[fam]], data = fgseq_chunks(padded), cost = heart_cost, family = fam, lambda = 1e-3,
               template = tmpl, max_steps = 3)
    expect_same_rows_fit(b, a)
    if (fam == "binomial") {
      # a chunk of no rows whose columns have other types (a database gives no type to no values) is empty
      odd <- as.data.frame(lapply(d[0, ], as.character), stringsAsFactors = FALSE)
      expect_same_rows_fit(fgseq(forms[[fam]], data = fgseq_chunks(c(list(odd), pieces)), cost = heart_cost,
                                 family = fam, lambda = 1e-3, max_steps = 3), a)
    }
  }
  # every chunk empty: one classed error
  for (fam in c("gaussian", "binomial")) {
    expect_error(fgseq(forms[[fam]], data = fgseq_chunks(list(none, none)), cost = heart_cost, family = fam),
                 "every chunk of `data`", class = "fgseq_error_chunks_empty")
    expect_error(fgseq(forms[[fam]], data = fgseq_chunks(list(none, none)), cost = heart_cost, family = fam,
                       template = d[0, ]), "every chunk of `data`", class = "fgseq_error_chunks_empty")
  }
})

test_that("the columns of chunk 1 fix the model: a column it lacks is an error naming the chunk and column", {
  pieces <- heart_pieces()
  # chunk 1 without `chol`, which `.` would take in the later chunks only
  drift <- pieces
  drift[[1]]$chol <- NULL
  e <- expect_error(fgseq(age ~ . - diagnosis, data = fgseq_chunks(drift), cost = heart_cost), class = "fgseq_error_chunk_type")
  expect_match(conditionMessage(e), "^chunk 2 has column\\(s\\) chol")
  # without the drift the same formula fits, with chol in the model
  fit <- fgseq(age ~ . - diagnosis, data = fgseq_chunks(pieces), cost = heart_cost)
  expect_true("chol" %in% fit$group)
  # a variable the formula names that chunk 1 lacks: named, with the chunk (not base R's "object not found")
  e <- expect_error(fgseq(diagnosis ~ age + chol, data = fgseq_chunks(drift), cost = heart_cost,
                          family = "binomial"), class = "fgseq_error_chunk_type")
  expect_match(conditionMessage(e), "chunk 1 lacks the model variable\\(s\\) chol")
  # ... also when a variable of that name exists in the formula's environment
  chol <- seq_len(nrow(heart))
  e <- expect_error(fgseq(diagnosis ~ age + chol, data = fgseq_chunks(drift), cost = heart_cost,
                          family = "binomial"), class = "fgseq_error_chunk_type")
  expect_match(conditionMessage(e), "chunk 2 has column\\(s\\) chol")
  # a later chunk without it: named too, with and without a template
  gone <- pieces
  gone[[3]]$chol <- NULL
  for (tmpl in list(NULL, heart[0, ])) {
    e <- expect_error(fgseq(age ~ . - diagnosis, data = fgseq_chunks(gone), cost = heart_cost, template = tmpl),
                      class = "fgseq_error_chunk_type")
    expect_match(conditionMessage(e), "chunk 3 lacks the model variable\\(s\\) chol")
  }
  # with a template, `.` stands for the template's columns: a chunk's other columns are not in the model
  extra <- lapply(pieces, function(p) cbind(p, id = seq_len(nrow(p))))
  a <- fgseq(age ~ . - diagnosis, data = fgseq_chunks(extra), cost = heart_cost, template = heart[0, ])
  expect_identical(a$sequence, fit$sequence)
  expect_false("id" %in% a$group)
})
