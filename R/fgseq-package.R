#' fgseq: cost-aware feature group sequencing for anytime prediction
#'
#' Features often come in groups that cost something to compute at prediction time (a clinical test,
#' a ranking feature extractor, a sensor). `fgseq` learns an order in which to compute the groups and
#' a linear predictor for every prefix of that order, so that a prediction interrupted at a budget uses
#' the groups already paid for.
#'
#' What is proved (Hu, Grubb, Bagnell and Hebert 2016, for costs that add up; `F` is the explained
#' variance):
#' * At each budget `B` where CS-G-OMP or CS-G-FR completes a group, the prefix explains at least
#'   `1 - exp(-gamma B / K)` times what any set of groups of total cost `K` explains, with
#'   `gamma = (lambda* + lambda) / (1 + lambda)` in `(0, 1]`, `lambda*` the smallest eigenvalue of the
#'   correlation matrix of the whitened groups and `lambda` the ridge constant (Theorem 3.2). Between
#'   those budgets nothing is proved: the next group may be expensive.
#' * Doubling is near-optimal at every budget `B > c_min`, against the best set of cost `B / 4`: it
#'   explains at least `1 - exp(-g^2 / (1 + g))` times what that set explains, `g` the submodularity
#'   ratio of `F`, on data where every step has a candidate no dearer than the cost so far (Theorem 4.3).
#'   In general no fixed sequence can approximate the best prediction at every budget within a constant
#'   factor against sets of cost above `B / 4` (Theorem 4.1 gives data where none can), so the cost
#'   factor 4 cannot be improved.
#' * With measurements shared between groups (`needs`), costs no longer add up: the bound of Theorem 3.2
#'   holds with `K` multiplied by at most `d`, the most groups of the competing set that share one
#'   measurement, and Theorem 4.3 is not proved. See the section Measurement costs of [fgseq()].
#'
#' The main verb is [fgseq()], which returns an object of class `"fgseq"` with methods
#' [print()][print.fgseq], [summary()][summary.fgseq], [coef()][coef.fgseq], [predict()][predict.fgseq]
#' (at any budget) and [plot()][plot.fgseq], and the anytime metrics [timeliness()] and [stop_cost()].
#' [miser()] fits the Greedy Miser (Xu, Weinberger and Chapelle 2012), gradient-boosted trees that pay
#' for a feature when they first use it; its fits share those anytime methods (class `"anytime_fit"`)
#' and compare with sequences on one cost axis ([compare_sequences()], [miser_path()]).
#'
#' All linear methods run after one pass over the data: the package forms the cross-product of the
#' centred columns of `x` once, standardizes and whitens each group inside it, and runs the greedy
#' selection on that matrix (see the section Computation of [fgseq()]).
#'
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Lozano, A. C., Swirszcz, G. and Abe, N. (2009). Grouped orthogonal matching pursuit for variable
#'   selection and prediction. *Advances in Neural Information Processing Systems 22*.
#' @docType package
#' @name fgseq-package
#' @aliases fgseq-package
#' @keywords internal
#' @useDynLib fgseq, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importClassesFrom Matrix dgCMatrix
#' @importFrom stats coef predict deviance family fitted formula logLik model.matrix nobs residuals update
NULL

#' Shared argument documentation
#'
#' @param object A fitted sequence, an object of class `"fgseq"` returned by [fgseq()].
#' @param x A fitted sequence, an object of class `"fgseq"` returned by [fgseq()].
#' @param budget Numeric vector of budgets, in the cost units of the fit's `cost` (non-negative). Budget
#'   `B` uses the longest prefix of the sequence whose cumulative cost is at most `B`; a budget below the
#'   first group's cost gives the intercept-only model.
#' @param step Integer vector of steps between 0 (intercept only) and `K`, the number of groups in the
#'   sequence. Give `budget` or `step`, not both; with neither, every step `0..K` is returned.
#' @param newx Numeric matrix of new observations, `m x p`, with the columns of the training `x` (matched
#'   by name when both have column names; a permutation of the training names is reordered).
#' @param newy Numeric vector of `m` responses for `newx` (logical is read as 0/1).
#' @param newdata For fits made with the formula interface: a data frame with every variable of the
#'   model's terms (and the response, where a response is needed). Used instead of `newx`/`newy`.
#' @param alpha Number in `(0, 1]`: the fraction of the final training objective that defines the
#'   alpha-stopping cost (Hu et al. 2016, section 5.2).
#' @param ... Not used: an argument that is none of the documented ones is an error (naming it and
#'   suggesting the nearest valid name), so that a misspelt or partially given argument (`s =` for
#'   `step =`) is never silently ignored or matched.
#' @name fgseq-arguments
#' @keywords internal
NULL
