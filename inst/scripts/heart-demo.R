## Anytime diagnosis of heart disease with fgseq.
##
## Each of the 13 tests of the Cleveland heart-disease data (`heart`) has a
## price (`heart_cost`, Canadian dollars): age, sex, chest pain type and blood
## pressure cost $1, the exercise test and the thallium scan about $100 each.
## fgseq learns in which order to run the tests, and a predictor for every
## prefix of that order, so that a prediction is available whatever has been
## spent. At each budget where CS-G-OMP or CS-G-FR completes a test, the
## prefix explains at least 1 - exp(-gamma B / K) times what any set of tests
## of total cost K explains (Hu et al. 2016, Theorem 3.2; gamma grows with the
## smallest eigenvalue of the tests' correlation and the ridge constant);
## Doubling is within a constant factor, at every budget B, of the best set of
## cost B / 4 (Theorem 4.3). These hold for costs that add up; with
## measurements shared between groups (fgseq's `needs`), as the blood draw of
## chol and fbs here, the first weakens by the sharing (K at most doubled: two
## tests share the draw) and the second is not proved (?fgseq).
##
## The response is diagnosis coded 0/1 and the model is linear: a linear
## probability model. Its predictions estimate the probability of disease but
## are not confined to [0, 1].
##
## Usage: Rscript heart-demo.R [OUTDIR] [--readme]
##   OUTDIR    where the figure goes (default "demo-output")
##   --readme  also copy the figure to man/figures/README-heart-curves.png
##             (run from the package root)
## The installed copy is found with
##   system.file("scripts", "heart-demo.R", package = "fgseq")

suppressPackageStartupMessages(library(fgseq))

args <- commandArgs(trailingOnly = TRUE)
readme <- "--readme" %in% args
args <- setdiff(args, "--readme")
out_dir <- if (length(args) >= 1L) args[[1L]] else "demo-output"
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

rule <- function(title) cat("\n", strrep("=", 72), "\n", title, "\n", strrep("=", 72), "\n", sep = "")

## ---- data: 0/1 response, 70/30 split --------------------------------------------
d <- heart
d$diagnosis <- as.numeric(d$diagnosis)     # 1 = disease: linear probability model
set.seed(2026)
in_train <- sample(nrow(d), round(0.7 * nrow(d)))
train <- d[in_train, ]
test <- d[-in_train, ]

## chol and fbs come from one blood draw, paid once when both are ordered (Turney 1995): each test
## needs the draw ($2.10) and its own analysis ($5.17, $3.10), as in ?heart and vignette("deployment")
needs <- list(chol = c("blood_draw", "chol"), fbs = c("blood_draw", "fbs"))
cost <- c(replace(heart_cost, c("chol", "fbs"), c(5.17, 3.10)), blood_draw = 2.10)

rule("Costs of the tests and the shared blood draw (Canadian dollars)")
print(cost)
cat(sprintf("\n%d training and %d test patients; %.0f%% of the training patients have disease\n",
            nrow(train), nrow(test), 100 * mean(train$diagnosis)))

## ---- one sequence per method -----------------------------------------------------
methods <- c(omp = "omp", fr = "fr", doubling = "doubling")
labels <- c(omp = "CS-G-OMP", fr = "CS-G-FR", doubling = "Doubling")
fits <- lapply(methods, function(m)
  fgseq(diagnosis ~ ., data = train, cost = cost, needs = needs, method = m))

for (m in methods) {
  rule(sprintf("%s (method = \"%s\"): order of the tests", labels[[m]], m))
  print(fits[[m]])
}

## ---- timeliness with a common stopping cost ---------------------------------------
B <- stop_cost(fits$omp, alpha = 0.97)
rule("Timeliness on the test patients")
cat(sprintf(paste0("stopping cost B = $%.2f: the cost at which CS-G-OMP reaches 97%% of its\n",
                   "final training r2; every method is scored on [0, B]\n\n"), B))
tl <- data.frame(
  method = unname(labels[methods]),
  linear = vapply(fits, function(f)
    timeliness(f, stop_cost = B, newdata = test, interpolation = "linear"), numeric(1)),
  step = vapply(fits, function(f)
    timeliness(f, stop_cost = B, newdata = test, interpolation = "step"), numeric(1)),
  final_test_r2 = vapply(fits, function(f) {
    r <- test$diagnosis - predict(f, newdata = test, step = length(f$sequence))
    1 - sum(r^2) / sum((test$diagnosis - mean(train$diagnosis))^2)
  }, numeric(1)),
  row.names = NULL
)
print(tl, digits = 3, row.names = FALSE)
cat("\nlinear: the paper's timeliness (points joined by straight lines);",
    "\nstep:   what an interrupted predictor delivers (r2 stays flat until the next test is paid for)\n")

## ---- anytime predictions for five test patients ---------------------------------------
budgets <- c(5, 20, 120)
rule("Predicted risk of disease (CS-G-OMP) after spending a budget")
fit <- fits$omp
for (b in budgets) {
  bought <- fit$sequence[fit$path$cost[-1L] <= b]
  cat(sprintf("budget $%5.0f buys: %s\n", b,
              if (length(bought)) paste(bought, collapse = ", ") else "(no test: base rate)"))
}
five <- test[1:5, ]
risk <- predict(fit, newdata = five, budget = budgets)
out <- data.frame(patient = rownames(five), diagnosis = as.logical(five$diagnosis),
                  round(risk, 2), check.names = FALSE)
names(out)[-(1:2)] <- sprintf("risk at $%g", budgets)
cat("\n")
print(out, row.names = FALSE)
cat("\n(linear probability model: a risk may fall slightly outside [0, 1])\n")

## ---- the same job with a logistic model ------------------------------------------------
rule("Logistic CS-G-OMP (family = \"binomial\"): order of the tests")
train_b <- transform(train, diagnosis = diagnosis == 1)
test_b <- transform(test, diagnosis = diagnosis == 1)
logit <- fgseq(diagnosis ~ ., data = train_b, cost = cost, needs = needs, family = "binomial", lambda = 1e-4)
print(logit)
prob <- predict(logit, newdata = test_b, type = "response")   # one column per step
acc <- colMeans((prob > 0.5) == test_b$diagnosis)
cat("\nTest accuracy after each step (cumulative cost in CAD):\n")
print(data.frame(step = logit$path$step, group = logit$path$group, cost = logit$path$cost,
                 accuracy = round(acc, 3)), row.names = FALSE)
risk_b <- predict(logit, newdata = five_b <- test_b[1:5, ], budget = budgets, type = "response")
out_b <- data.frame(patient = rownames(five_b), diagnosis = five_b$diagnosis, round(risk_b, 2),
                    check.names = FALSE)
names(out_b)[-(1:2)] <- sprintf("P(disease) at $%g", budgets)
cat("\nPredicted probability of disease for the same five patients:\n")
print(out_b, row.names = FALSE)

## ---- figure: what cost-awareness buys -----------------------------------------------------
## Test accuracy against the money spent, on a log cost axis (the cheap end is where the $1 tests
## are): the cost-sensitive logistic CS-G-OMP, the same method blind to cost (Group OMP with
## cost_sensitive = FALSE, which buys the informative $100 tests first) and the Greedy Miser (boosted
## trees of depth 2 that pay for a test the first time a tree uses it).
blind <- fgseq(diagnosis ~ ., data = train_b, cost = cost, needs = needs, family = "binomial", lambda = 1e-4,
               cost_sensitive = FALSE)
trees <- miser(diagnosis ~ ., data = train_b, cost = cost, needs = needs, family = "binomial", cost_penalty = 0.01,
               depth = 2, max_steps = 150)
shown <- list("CS-G-OMP (cost-sensitive)" = logit, "Group OMP (cost-blind)" = blind,
              "Greedy Miser" = trees)
curves <- lapply(shown, anytime_curve, newdata = test_b, metric = "accuracy")
rule("Test accuracy against cost (the README figure)")
for (nm in names(curves)) {
  cv <- curves[[nm]]
  at <- c(5, 20, 120, 600)
  acc_at <- vapply(at, function(b) cv$value[max(which(cv$cost <= b))], numeric(1))
  cat(sprintf("%-26s %s\n", nm, paste(sprintf("$%g: %.3f", at, acc_at), collapse = "   ")))
}
## every step of each curve as drawn: the accuracy holds from this cost to the next row's
cat("\nEach curve's steps (accuracy from that cost on, until the next step):\n")
for (nm in names(curves)) {
  cv <- curves[[nm]]
  cv <- cv[!duplicated(cv$cost, fromLast = TRUE), ]   # at a cost several steps pay, the last is drawn
  keep <- c(TRUE, diff(cv$value) != 0)                 # the points where the accuracy changes
  pts <- sprintf("$%.2f: %.3f", cv$cost[keep], cv$value[keep])
  rows <- split(pts, (seq_along(pts) - 1L) %/% 6L)             # six points a line
  cat(sprintf("%-26s %s\n", c(nm, rep("", length(rows) - 1L)),
              vapply(rows, paste, character(1), collapse = "  ")), sep = "")
}
png_file <- file.path(out_dir, "heart-curves.png")
grDevices::png(png_file, width = 1000, height = 620, res = 120)
op <- graphics::par(mar = c(4.2, 4.2, 2.6, 1))
cols <- c("#1b9e77", "#d95f02", "#7570b3")
ltys <- c(1, 2, 1)
lwds <- c(3, 2, 1.5)
vals <- unlist(lapply(curves, `[[`, "value"))
ylim <- c(min(vals) - 0.02, max(vals) + 0.06)   # room above the curves for the labels
xlim <- c(0.5, sum(cost))
for (i in rev(seq_along(shown))) {             # the cost-sensitive curve and its labels on top
  plot(shown[[i]], newdata = test_b, metric = "accuracy", add = i < length(shown), log = "x",
       cost_unit = "CAD", labels = i == 1L, xlim = xlim, ylim = ylim, col = cols[i], lty = ltys[i], lwd = lwds[i],
       main = "Heart disease: which tests to buy first", ylab = "accuracy on test patients")
}
graphics::legend("bottomright", legend = names(shown), col = cols, lty = ltys, lwd = lwds, bty = "n")
graphics::par(op)
invisible(grDevices::dev.off())
cat("\nfigure written to", png_file, "\n")
if (readme) {
  fig_dir <- file.path("man", "figures")
  dir.create(fig_dir, showWarnings = FALSE, recursive = TRUE)
  file.copy(png_file, file.path(fig_dir, "README-heart-curves.png"), overwrite = TRUE)
  cat("copied to", file.path(fig_dir, "README-heart-curves.png"), "\n")
}
