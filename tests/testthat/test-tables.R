# Every table of the core against the R side's: the names of the methods, criteria and families
# (Names<E> beside each enum, .option_names()) and what the core says of each (.core_traits():
# method_traits() of greedy/engine.hpp, FamilyOps of common/family.hpp) against R's tables
# (selection_methods and selection_criteria in R/fgseq.R, fgseq_families in R/family.R), the verbs'
# defaults and the help's argument entries. A value added to the core without its R entry, or the
# other way round, fails here and names it.

core_choices <- fgseq:::core_choices
core_traits <- fgseq:::core_traits

# The text of argument `arg` of help page `topic`, as installed.
rd_argument <- function(topic, arg) {
  rd <- tools::Rd_db("fgseq")[[paste0(topic, ".Rd")]]
  tags <- vapply(rd, function(x) attr(x, "Rd_tag") %||% "", "")
  for (item in rd[[which(tags == "\\arguments")]]) {
    if (identical(attr(item, "Rd_tag"), "\\item") && identical(paste(unlist(item[[1L]]), collapse = ""), arg)) {
      return(paste(unlist(item[[2L]]), collapse = ""))
    }
  }
  NA_character_
}
`%||%` <- function(a, b) if (is.null(a)) b else a

# The names in `want` missing from `have` (expect_identical(missing, character(0)) then names them).
missing_from <- function(want, have) setdiff(want, have)

test_that("every method of the core has its entry in selection_methods, and no other method has one", {
  core <- core_choices("method")
  r <- names(fgseq:::selection_methods)
  expect_identical(missing_from(core, r), character(0), label = "core methods without an entry of selection_methods")
  expect_identical(missing_from(r, core), character(0), label = "selection_methods entries the core does not know")
  expect_identical(core_traits("method")$name, core)
})

test_that("what the core says each method scores and how it picks candidates is the paper's", {
  traits <- core_traits("method")
  expect_true(all(traits$scores %in% c("gradient", "gain")))
  expect_true(all(traits$candidates %in% c("every", "within_cost")))
  # Hu et al. 2016: CS-G-OMP scores the gradient, CS-G-FR and Doubling the gain of the refit; Doubling
  # alone takes only the groups within its cost limit (Algorithm 2)
  known <- data.frame(name = c("omp", "fr", "doubling"), scores = c("gradient", "gain", "gain"),
                      candidates = c("every", "every", "within_cost"), stringsAsFactors = FALSE)
  expect_identical(traits[match(known$name, traits$name), names(known)], known, ignore_attr = TRUE)
  expect_identical(fgseq:::method_scores(c("fr", "omp")), c("gain", "gradient"))
})

test_that("every method of the core has a label, with and without costs", {
  for (m in core_choices("method")) {
    for (cs in c(TRUE, FALSE)) {
      label <- fgseq:::method_label(list(method = m, criterion = core_choices("criterion")[1L], cost_sensitive = cs))
      expect_true(is.character(label) && length(label) == 1L && !is.na(label) && nzchar(label), label = m)
    }
  }
  lab <- function(m, cs = TRUE, criterion = "whitened") {
    fgseq:::method_label(list(method = m, criterion = criterion, cost_sensitive = cs))
  }
  expect_identical(c(lab("omp"), lab("omp", FALSE), lab("omp", criterion = "l2"), lab("fr"), lab("fr", FALSE),
                     lab("doubling"), lab("doubling", FALSE)),
                   c("CS-G-OMP", "G-OMP", "CS-G-OMP (No-Whiten)", "CS-G-FR", "G-FR", "Doubling", "Doubling (cost-blind)"))
})

test_that("every criterion of the core has its label in selection_criteria, and no other criterion has one", {
  core <- core_choices("criterion")
  r <- names(fgseq:::selection_criteria)
  expect_identical(missing_from(core, r), character(0), label = "core criteria without a label in selection_criteria")
  expect_identical(missing_from(r, core), character(0), label = "selection_criteria entries the core does not know")
})

test_that("the help names every method and criterion of the core", {
  method <- rd_argument("fgseq", "method")
  criterion <- rd_argument("fgseq", "criterion")
  for (m in core_choices("method")) expect_true(grepl(paste0("\"", m, "\""), method, fixed = TRUE), label = m)
  for (m in core_choices("criterion")) expect_true(grepl(paste0("\"", m, "\""), criterion, fixed = TRUE), label = m)
  family <- rd_argument("fgseq", "family")
  for (f in fgseq:::family_names("fgseq")) expect_true(grepl(paste0("\"", f, "\""), family, fixed = TRUE), label = f)
})

test_that("the verbs default to the first method, criterion and family of the core's tables", {
  verbs <- list(fgseq:::fgseq.default, fgseq:::fgseq.fgseq_chunks, fgseq:::fgseq.fgseq_stats)
  for (verb in verbs) {
    expect_identical(formals(verb)$method, core_choices("method")[1L])
    expect_identical(formals(verb)$criterion, core_choices("criterion")[1L])
  }
  expect_identical(fgseq:::default_family, core_choices("family")[1L])
  expect_identical(formals(fgseq:::fgseq.default)$family, fgseq:::default_family)
  expect_identical(formals(fgseq:::fgseq.fgseq_chunks)$family, fgseq:::default_family)
})

test_that("every family of the core has its entry in fgseq_families, which agrees with the core on it", {
  families <- fgseq:::fgseq_families
  # the names first: a family the core names but whose cases it lacks stops core_traits() (naming it)
  expect_identical(missing_from(core_choices("family"), names(families)), character(0),
                   label = "core families without an entry of fgseq_families")
  expect_identical(missing_from(names(families), core_choices("family")), character(0),
                   label = "fgseq_families entries the core does not know")
  core <- core_traits("family")
  expect_identical(core$name, core_choices("family"))
  for (f in intersect(core$name, names(families))) {
    def <- families[[f]]
    ops <- core[core$name == f, ]
    expect_identical(def$name, f)
    # the linear engine is the core's least squares
    expect_identical(def$linear, ops$least_squares, label = paste(f, "least squares"))
    # one coefficient matrix per response column: the core takes several columns of y
    expect_identical(def$multi, ops$many_columns, label = paste(f, "columns of y"))
    expect_true(def$classes %in% c("none", "two", "each"), label = f)
    # two classes are one 0/1 column, each class its own column (so never a single one)
    if (def$classes == "two") expect_true(ops$one_column && !ops$many_columns, label = f)
    if (def$classes == "each") expect_true(!ops$one_column && ops$many_columns, label = f)
  }
})
