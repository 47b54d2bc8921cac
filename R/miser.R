#' The Greedy Miser: cost-aware gradient-boosted trees
#'
#' Stage-wise regression (gradient boosting, Friedman 2001) with limited-depth regression trees whose
#' impurity charges the cost of the features they extract (Xu, Weinberger and Chapelle 2012). Once an
#' earlier tree has used a feature, it is free. Every number of trees `t = 0..T` is a model, and its
#' cost is the total cost of the features (groups) used by trees `1..t`: the fit is an anytime
#' predictor on the same cost axis as [fgseq()], and [predict()][predict.miser], [plot()][plot.fgseq],
#' [anytime_curve()], [timeliness()], [stop_cost()] and [compare_sequences()] apply to it.
#'
#' @section Model (paper, equation 5 and Algorithm 1):
#' Starting from the best constant `H_0` (the mean of `y`; its log-odds; the centred log class
#' frequencies; with `offset`, `H_0 + offset_i`, see the section Weights and offsets), iteration `t` fits a tree `h_t` to the negative gradient `r_i` of the loss at the
#' current predictor and adds it with shrinkage: `H <- H + eta * h_t`. The tree greedily minimizes the
#' impurity of the paper's equation (5),
#' \deqn{g(h_t) = \frac{1}{2}\sum_i (r_i - h_t(x_i))^2 + \lambda' \sum_a \phi_a c_a F_{at},}{g(h_t) = 1/2 sum_i (r_i - h_t(x_i))^2 + lambda' sum_a phi_a c_a F_at,}
#' where `F_at = 1` when tree `t` splits on feature `a`, `c_a` is its cost (with `group`, the cost of
#' its group) and `phi_a = 1` while no earlier tree has used feature `a` (with `group`: any feature of
#' its group), `phi_a = 0` once one has (paper, section 4; the paper's section 5.2 states the reverse
#' in words, a slip that its equation (15) contradicts). Leaves predict the (weighted) mean of `r` over their rows.
#' The losses are the squared error `(y - H)^2 / 2` (`"gaussian"`, the negative gradient `y - H`), the log-loss of a 0/1
#' response (`"binomial"`, `y - p`, `p = 1 / (1 + exp(-H))`) and the multi-class log-loss
#' (`"multinomial"`, one tree per class per iteration on `r_k = y_k - p_k`, `p` the softmax of `H` at
#' the start of the iteration; paper, section 6, Scene-15). With `leaves = "gradient"` leaf values are
#' gradient means, without a Newton step, as in the paper. `cost_penalty = 0` is plain stage-wise
#' regression, the paper's baseline.
#'
#' @section Newton trees (classification):
#' With `leaves = "newton"` (the default; `"binomial"` and `"multinomial"`), the trees are grown as
#' LightGBM and xgboost grow theirs, on the second-order expansion of the log-loss: each row weighs
#' `w_i h_i` in a node, `h_i = p_i (1 - p_i)` the second derivative of the loss in `H` (times `K / (K - 1)`
#' for `K` classes, as in Friedman 2001, algorithm 6, and LightGBM's multiclass objective). A split's
#' gain is `1/2 (G_L^2 / H_L + G_R^2 / H_R - G^2 / H)` with `G` the sums of `w_i r_i` and `H` of
#' `w_i h_i` over a side (the second-order decrease of the loss, in place of the decrease of the squared
#' error of the gradient fit), a side needs `H > 1e-3` (LightGBM's `min_sum_hessian_in_leaf`), and a leaf
#' predicts its Newton step `G / H`. The cost penalty of equation (5) charges that decrease of the loss,
#' with the same `lambda'`. For `"gaussian"`, `h_i = 1` and both choices grow the same trees.
#'
#' @section The scale of cost_penalty:
#' The constant of equation (5) is \eqn{\lambda' = \lambda s_0 / \bar c}{lambda' = lambda * s0 / mean(cost)},
#' with `lambda` the `cost_penalty`,
#' with `s0 = 1/2 sum_i w_i ||r_i||^2 / P` the squared-error impurity of the first gradient (`P = 1`, or the
#' number of classes; `w_i` the observation weights, 1 without `weights`) and `mean(cost)` the average group cost;
#' with Newton trees (see the section Newton trees) `s0 = 1/2 sum_i w_i sum_k r_ik^2 / h_ik / P`, the
#' impurity in the units of their gains (the second-order decrease of the loss a perfect fit of the
#' first gradient would give: for a 0/1 response, the squared-error impurity over `p_0 (1 - p_0)`). So `cost_penalty` is free of the units of `y`
#' and of `cost` (multiplying either by a constant gives the same trees): a split on a feature of
#' average cost must reduce the tree's squared error by `cost_penalty` times the initial impurity `s0`; a
#' feature `k` times as costly must buy `k` times as much. The constant `lambda'` is returned as `cost_penalty_scaled`.
#' The paper tunes it on validation data ([miser_path()] does this over a grid); the default
#' `0.01` charges a feature of average cost 1% of the initial impurity.
#'
#' @section Trees and when a feature becomes free:
#' Trees grow level by level and, within a level, node by node from left to right, to at most `depth`
#' splits from the root. A node of at least `2 * min_node_size` rows is split on the feature and
#' threshold of largest penalized gain `1/2 (S_L^2 / W_L + S_R^2 / W_R - S^2 / W) - lambda' * phi_a c_a`
#' (`S` the sums of `w_i r_i` over a side, `W` the sums of the weights `w_i`: the row counts without
#' `weights`; with Newton trees the sums of `w_i h_i`, see the section Newton trees), if that gain is positive; `x <=` threshold goes left and both
#' sides keep at least `min_node_size` rows. Ties: within a column,
#' scanned by increasing threshold, a threshold replaces the best so far only when its gain is larger by
#' more than a relative `1e-10` (the smallest of tied thresholds wins); across columns, penalized gains
#' within a relative `1e-10` of the best are tied and the first column wins. Gains up to `1e-14` times
#' `1/2 sum_i w_i r_i^2` count as 0.
#'
#' @section Weights and offsets:
#' Observation weights `w_i` (as in [stats::glm()]) multiply each row's gradient and Hessian in every sum:
#' a leaf predicts the weighted mean `S / W` of `r` over its rows, splits maximize the decrease of the
#' weighted squared error above, the histogram bins are weighted quantiles, the loss of the `path` is the
#' weighted mean loss, and `H_0` is the weighted best constant (weighted mean, log-odds of the weighted
#' mean, centred log weighted class frequencies). So a whole-number weight `k` is `k` copies of the row
#' when `min_node_size = 1`, and multiplying every weight by a constant changes no tree. `min_node_size`
#' counts rows, not weights (as LightGBM's `min_data_in_leaf`, unlike xgboost's `min_child_weight`, a
#' sum of Hessians), so that it means the same whatever the scale of the weights. Rows of weight 0 take
#' no part in the fit (they are left out before binning) but keep their fitted values; `nobs` counts the
#' others.
#'
#' An `offset` is each row's starting score, on the link scale (log-odds; one column per class for
#' `"multinomial"`): the predictor starts at `H_0 + offset_i`, where `H_0` is then the best constant given
#' the offset (the intercept of the intercept-only [stats::glm()] with that offset and the weights:
#' the weighted mean of `y - offset` for `"gaussian"`, Newton's method otherwise), and the trees fit the
#' gradient from there. [predict()][predict.miser] adds the offset of the new rows (`newoffset`, or for
#' formula fits the `offset()` terms and `offset` evaluated in `newdata`).
#'
#' @section Split search:
#' `split = "histogram"` (the default, as LightGBM: Ke et al. 2017) cuts every column once into at most
#' `max_bin` quantile bins: a column with at most `max_bin` distinct values gets one bin per value;
#' otherwise its distinct values are taken in increasing order and a bin is closed as soon as it holds
#' at least (rows not yet binned) / (bins left) rows (weights: of the weight), so a value shared by many rows gets a bin of its
#' own. The candidates of a node are the boundaries between its non-empty bins, and the threshold of a
#' boundary is the midpoint between the largest training value of the bin on its left and the smallest
#' of the bin on its right. So when `max_bin` is at least the number of distinct values of every
#' column, the candidates, thresholds and trees are those of the exact search (up to rounding in the
#' sums of `r`). Each node keeps per column the sum of `w r`, the row count (and the weight) of every bin; of two
#' sibling nodes only the smaller one's histogram is built from its rows, the larger one's is the
#' parent's less the smaller's. Binning costs one sort per column; `x` is then held as one byte per
#' entry (two when `max_bin > 256`) beside the fit's per-row vectors.
#'
#' A sparse `x` is binned column by column from its stored values and its zeros, which bin as the
#' values 0 they are (one pair of value and weight for all of a column's zeros without `weights`): the
#' bins, and so the trees, are those of the same `x` dense, and `x` is never copied dense. Predictions
#' on a sparse `newx` ([predict()][predict.miser]) are those of the dense `newx`.
#'
#' `split = "exact"` (dense `x` only) sorts every column once and takes every midpoint between consecutive distinct
#' values of a node as a candidate; it holds two 4-byte integers and one double (two with `weights`) per
#' entry of `x` and is several times slower on large data.
#'
#' The binning and the histograms run on `getOption("fgseq.threads", 2)` OpenMP threads (over columns);
#' the exact search runs on one. The trees do not depend on the number of threads.
#'
#' @section Anytime training:
#' With `max_time`, once that many seconds have passed since the call (the check of `x` for NA and Inf,
#' and the binning or sorting, included) no boosting iteration starts, and the one in progress is
#' abandoned (its trees check the clock before every level; a multinomial iteration is one tree per
#' class): the fit holds the iterations completed so far (its `n_steps` is their number) and
#' `partial = TRUE`. When the time is spent before the first iteration, in the check or the binning of
#' `x`, the fit is the starting score alone (the weighted mean of `y`, or the best constant given the
#' offset), `n_steps = 0`, and `x` is not read further. A user interrupt (Ctrl-C, Esc) is checked during
#' the binning and before every level of every tree; `progress = TRUE` shows a progress bar (cli) over
#' the iterations.
#'
#' `paid = "after_tree"` is the paper's order (Algorithm 1): `phi` is updated after each tree, so a
#' feature used by tree `t` is free from tree `t + 1` on, and within tree `t` every split on a feature
#' not yet paid is charged. `paid = "within_tree"` frees a feature (group) for the rest of the same tree
#' as soon as one split uses it, so a tree pays once per feature (equation 5 with `F_at` read as
#' "used anywhere in the tree"). For multinomial fits `phi` is updated after each class's tree. Either
#' way the reported `cost` counts every group once, when it is first used.
#'
#' @section Measurement costs:
#' With `needs` (see [fgseq()], section Measurement costs), a group needs measurements that other
#' groups may share, and `cost` is named by measurement (by variable with the formula method, where a
#' term needs the measurements of all its variables). A feature is charged the unpaid part of its
#' group's measurements: `phi_a c_a` of equation (5) becomes the total cost of the measurements of its
#' group not yet paid (by earlier trees; with `paid = "within_tree"` also by earlier splits of the same
#' tree), so a tree never pays twice for a shared measurement, and once a tree has used a feature every
#' measurement of its group is paid. The path's `group_cost` is the cost of the measurements first
#' paid at the step and its `cost` the cost of the union of the measurements of the groups used so
#' far; the `mean(cost)` in the scale of `cost_penalty` is the mean stand-alone group cost (`lambda' = 0`
#' when every group is free). The paper proves no approximation bound for the Miser, with or without
#' shared costs. Without `needs` each group is its own measurement, as before.
#'
#' @section Missing values:
#' `x` must not hold NA, NaN or Inf (`miser()` stops; impute first). Columns that are constant are
#' never split on.
#'
#' @param x Numeric matrix, `n x p` (an all-numeric data frame is accepted), without NA, NaN or Inf; or a
#'   sparse matrix of the Matrix package (for example a `dgCMatrix`, `n x p`, stored values finite) with
#'   `split = "histogram"`, binned from its stored values without a dense copy (the trees are those of
#'   the same `x` dense); or, for the formula method, a model formula such as `diagnosis ~ .` (one group
#'   per term).
#' @param y Response, one value per row of `x`: numeric (`"gaussian"`, logical read as 0/1), 0/1, logical
#'   or a two-level factor (`"binomial"`, the second level is class 1), a factor or class labels
#'   (`"multinomial"`).
#' @param cost_unit `NULL` or a character string naming the unit of `cost`, kept with the fit and shown
#'   on the cost axis of its plots.
#' @param cost One finite cost `>= 0` per group (per column when `group` is `NULL`; 0 is a free group),
#'   in any unit (the unit of budgets and of the `cost` column of the path), named by group label or
#'   unnamed in the order of `unique(group)`; `NULL` (the default, as for [fgseq()]) means cost 1 for
#'   every group; with `needs`, one finite cost `>= 0` per measurement, named by
#'   measurement. For the formula method, named by variable (for example `heart_cost`) or, with
#'   `needs`, by measurement; the variables of an `offset()` term or of `offset` need no cost (0 unless
#'   named, then paid at step 0). Names follow the rule of [fgseq()] in every interface: every group
#'   (variable, measurement) the fit uses must have a cost, and names that are none of them are
#'   ignored, with one message of class `fgseq_message_unused_cost`.
#' @param group `NULL` (each column its own group, labelled by its column name) or a vector of length
#'   `p` (integer, character or factor): the group of each column. A group is paid once, when a tree
#'   first splits on any of its columns; afterwards all its columns are free.
#' @param cost_penalty Single non-negative number, the trade-off of feature cost against the loss
#'   (`lambda` of the paper's equation 5; see the section on its scale); `0` is stage-wise regression.
#' @param max_steps Whole number `>= 1`: the boosting iterations `T`, the steps of the path (for
#'   multinomial fits, each adds one tree per class).
#' @param n_trees,lambda Deprecated names of `max_steps` and `cost_penalty`: still accepted, with a
#'   warning of class `"fgseq_warning_deprecated"`.
#' @param depth Whole number between 1 and 30: the most splits from the root to a leaf (1: stumps).
#' @param eta Number in `(0, 1]`: the shrinkage (step size) of each tree.
#' @param family `"gaussian"` (squared loss), `"binomial"` (log-loss) or `"multinomial"` (multi-class
#'   log-loss).
#' @param paid `"after_tree"` (the paper's order) or `"within_tree"`; see the section on trees.
#' @param min_node_size Whole number `>= 1`: the fewest training rows in a leaf.
#' @param needs `NULL` (each group its own measurement) or a named list giving, for a group (for the
#'   formula method: a variable of `data`), a character vector of the measurements it needs; `cost` is
#'   then named by measurement (finite, `>= 0`). See the section Measurement costs.
#' @param split `"histogram"` (binned columns, the default) or `"exact"` (every distinct value); see the
#'   section Split search.
#' @param max_bin Whole number between 2 and 65536: the most bins per column of the histogram search
#'   (ignored by `"exact"`).
#' @param max_time Positive number of seconds, or `Inf`: no iteration starts, and the one in progress
#'   is abandoned, after this much time since the call (the checks of the input and the binning of `x`
#'   included); the fit then holds the iterations grown so far and
#'   `partial = TRUE`, with a warning of class `fgseq_warning_partial` that says at which iteration it
#'   stopped ([miser_path()]: one warning for all its fits).
#' @param progress Logical: show a progress bar (cli) over the boosting iterations.
#' @param leaves `"newton"` (the default) or `"gradient"`: for `"binomial"` and `"multinomial"` fits,
#'   trees grown on the second-order expansion of the loss with Newton leaf values, or the paper's
#'   squared-error trees on the negative gradient with mean leaf values (see the sections Model and Newton
#'   trees); the same trees for `"gaussian"`.
#' @param keep_data Logical: keep the training data (`x`, `y`, `weights`, `offset` and, for the formula
#'   method, the model frame `model`; the default `TRUE`, about the size of `x` when saved) or not
#'   (`FALSE`: a lean fit whose size grows with the trees, not the rows), as for [fgseq()] (section
#'   Training data kept). A lean fit predicts new data and prints, summarizes, plots and exports as the
#'   full fit; `fitted()`, `residuals()`, `deviance()`, `model.matrix()`, `augment()` and `predict()`
#'   without new data stop with an error of class `fgseq_error_no_data`.
#' @param weights `NULL` or a numeric vector of `n` non-negative, finite observation weights (as in
#'   [stats::glm()]; at least two positive), see the section Weights and offsets. For the formula method
#'   evaluated in `data`, then in the formula's environment.
#' @param offset `NULL`, a numeric vector of `n` finite starting scores on the link scale, or an `n x K`
#'   matrix for `"multinomial"` fits (`K` classes, in the order of the class labels). Predictions on `newx`
#'   then need `newoffset`. For the formula method evaluated in `data` (then in the formula's
#'   environment) and added to the formula's `offset()` terms; `predict(newdata = )` evaluates both in
#'   `newdata`.
#' @param ... For the default method: nothing (an unknown argument is an error). The formula method
#'   passes them to the default method.
#'
#' @return An object of class `c("miser", "anytime_fit")`, a list with
#' * `path`: data frame with `T + 1` rows (steps `t = 0..T`, boosting iterations) and columns `step`,
#'   `trees` (trees in the model: `t`, or `t` times the number of classes), `group` (the groups first
#'   used by the trees of step `t`, comma-separated in the order they were first split on; NA when
#'   none), `group_cost` (the cost of the measurements they pay for first, 0 when none), `cost`
#'   (cumulative cost: the total cost of the union of the measurements of the groups used by the trees
#'   of steps `1..t`, in cost units), `loss` (mean training loss),
#'   `objective` (`loss_0 - loss_t`) and `r2` (`1 - loss_t / loss_0`: `1 - SSE_t / SSE_0` for
#'   `"gaussian"`, the fraction of the null deviance explained for the log-losses);
#' * `sequence`: character, the groups in the order they were first used;
#' * `trees`: data frame, one row per node of every tree, with columns `tree` (1, 2, ...), `step`
#'   (the iteration that added it), `class` (the class of a multinomial tree; NA otherwise), `node`
#'   (1 is the root), `feature` (column name split on; NA at a leaf), `column` (its index in `x`),
#'   `threshold` (rows with `x <= threshold` go left), `left` and `right` (node numbers of the
#'   children in the same tree; NA at a leaf) and `value` (the weighted mean negative gradient of the node's
#'   training rows, or with Newton trees its sum over the sum of their `w_i h_i`: the tree's output at a
#'   leaf before shrinkage by `eta`);
#' * `init`: the starting constants `H_0` (length 1, or one per class; with an offset, the best given it);
#' * `group`: character vector of length `p` (named by column), the group of each column; `cost`: named
#'   numeric, one cost per group in `unique(group)` order (the total cost of its measurements);
#'   `needs`: named list, the measurements each group needs (in `unique(group)` order);
#'   `measurement_cost`: named numeric, the cost of each measurement (without `needs`, equal to `cost`);
#' * `leaves`, `split`, `max_bin` (NA for `"exact"`), `partial` (`TRUE` when `max_time` stopped the fit; then
#'   `n_steps` counts the iterations grown);
#' * `cost_penalty`, `cost_penalty_scaled` (the `lambda'` of equation 5; `fit$lambda_scaled`, its former
#'   name, still reads it with a warning of class `"fgseq_warning_deprecated"`), `n_steps` (the boosting steps
#'   grown, at most `max_steps`; `fit$n_trees`, its former name, still reads it with a warning of class
#'   `fgseq_warning_deprecated`), `depth`, `eta`, `paid`,
#'   `min_node_size`, `family`, `classes` (binomial and multinomial class labels), `responses`,
#'   `nobs` (rows of positive weight), `null_risk` (`loss_0`), `has_offset`, `weights` and `offset` (as
#'   given; absent when not given), `y_mean` (weighted mean of the response on the response scale: the class
#'   frequencies for multinomial fits), `label` (used by [print()] and [compare_sequences()]), `call`;
#' * formula fits also carry `terms`, `xlevels` and `contrasts`, used by `predict(newdata = )`.
#'
#' @section Errors:
#' `miser()` stops, naming the argument, when `cost` is not numeric, of the wrong length, missing for
#' a group, negative or not finite (names of no group are ignored, with a message of class
#' `fgseq_message_unused_cost`); when a numeric third argument is given by position without `cost`
#' (class `fgseq_error_argument_order`); with `needs`, as [fgseq()] for `needs` and
#' measurement costs; when `x` is not a numeric matrix (or a sparse matrix) or holds
#' NA, NaN or Inf; when `x` is sparse and `split = "exact"` (class `"fgseq_error_sparse_exact"`: use the
#' histogram search or a dense `x`); as [fgseq()] when `weights` are not a numeric vector of one non-negative finite value per
#' row with at least two positive, or `offset` is not numeric, has the wrong length or shape (a vector of
#' length `n` or an `n x K` matrix) or holds NA, NaN or Inf (class `"fgseq_error_input"`); when `y` has the wrong length, holds NA or does not suit `family` (a factor for
#' `"gaussian"`, values other than 0/1 or more than two classes for `"binomial"`, a single class or a
#' class of fewer than two rows); when `group` has the wrong length or NA; when `cost_penalty < 0`, `max_steps`
#' is not a whole number `>= 1`, `depth` not a whole number in `1..30`, `eta` outside `(0, 1]`,
#' `min_node_size` not a whole number `>= 1`, `family`, `paid`, `split` or `leaves` unknown, `max_bin` not a whole
#' number in `2..65536`, `max_time` not a positive number, `progress` not `TRUE` or `FALSE`, or an
#' unknown argument is given; when `group` and `cost` are both given by position with numeric group
#' labels, or a third argument is given by position without `cost` (class
#' `"fgseq_error_argument_order"`: `miser()` takes `group` before `cost`, as [fgseq()], since this
#' version; it took `cost` first before); when a Gaussian `y` has magnitude above `2^400` or below
#' `2^-400` (its squared loss would overflow or vanish); when `max_steps` asks for more trees than R's
#' largest table or the machine's memory holds; when `weights` leave a class with fewer than two rows
#' of positive weight; when the formula removes the intercept (class `"fgseq_error_formula"`).
#'
#' @references Xu, Z., Weinberger, K. Q. and Chapelle, O. (2012). The Greedy Miser: learning under
#'   test-time budgets. *Proceedings of the 29th International Conference on Machine Learning (ICML)*,
#'   1175-1182. \url{https://arxiv.org/abs/1206.6451}
#'
#'   Ke, G., Meng, Q., Finley, T., Wang, T., Chen, W., Ma, W., Ye, Q. and Liu, T.-Y. (2017). LightGBM: a
#'   highly efficient gradient boosting decision tree. *Advances in Neural Information Processing
#'   Systems 30*, 3146-3154.
#'
#'   Friedman, J. H. (2001). Greedy function approximation: a gradient boosting machine. *Annals of
#'   Statistics* 29(5), 1189-1232. \doi{10.1214/aos/1013203451}
#' @seealso [predict.miser()], [summary.miser()] (cost per step, features in order of first use),
#'   [miser_path()] (a grid of `cost_penalty` and its cost/accuracy frontier), [compare_sequences()].
#' @examples
#' train <- heart[1:200, ]
#' test <- heart[201:303, ]
#' fit <- miser(diagnosis ~ ., data = train, cost = heart_cost, family = "binomial", max_steps = 50)
#' fit
#' predict(fit, newdata = test[1:3, ], budget = c(10, 100, 1000), type = "response")
#' anytime_curve(fit, newdata = test, metric = "accuracy")
#'
#' # on one cost axis with a linear sequence
#' omp <- fgseq(diagnosis ~ ., data = train, cost = heart_cost)
#' compare_sequences(list(omp, fit), newdata = test, metric = "auc")
#'
#' # matrix interface, each column its own group
#' x <- as.matrix(mtcars[, -1])
#' m <- miser(x, mtcars$mpg, cost = seq_len(ncol(x)), cost_penalty = 0.05, max_steps = 30, depth = 2)
#' m$path[m$path$group_cost > 0, c("step", "group", "cost", "r2")]
#' @order 1
#' @export
miser <- function(x, ...) UseMethod("miser")

#' @rdname miser
#' @order 2
#' @export
miser.default <- function(x, y, group = NULL, cost = NULL, cost_penalty = 0.01, max_steps = 100, depth = 4, eta = 0.1,
                          family = "gaussian",
                          paid = c("after_tree", "within_tree"), min_node_size = 5, needs = NULL,
                          cost_unit = NULL, split = c("histogram", "exact"), max_bin = 255, max_time = Inf,
                          progress = FALSE, weights = NULL, offset = NULL, keep_data = TRUE,
                          leaves = c("newton", "gradient"), ..., n_trees, lambda) {
  started <- now()  # max_time counts from the call, the input checks included
  check_dots(...)
  check_group_cost_order(sys.call(), group, missing(cost), "miser")
  if (!missing(n_trees)) max_steps <- renamed_argument(n_trees, "n_trees", "max_steps", missing(max_steps))
  if (!missing(lambda)) cost_penalty <- renamed_argument(lambda, "lambda", "cost_penalty", missing(cost_penalty))
  call <- match.call()
  call[[1L]] <- quote(miser)
  split <- check_choice(split, core_choices("split"), "split")
  leaves <- check_choice(leaves, c("newton", "gradient"), "leaves")
  keep_data <- check_flag(keep_data, "keep_data")
  if (methods::is(x, "sparseMatrix") && split == "exact") {
    abort("`x` is a sparse matrix; split = \"exact\" needs a dense one: use split = \"histogram\" (the ",
          "default), which bins the sparse columns as they are, or give as.matrix(x).", class = "sparse_exact")
  }
  max_time <- check_max_time(max_time)
  # the sweep over a dense x counts towards max_time: when it is spent there, x is left unread and the
  # fit is the starting score alone (the core checks the clock before it reads x)
  scan <- check_x_scan(x, sparse = TRUE, time_left = max_time - (now() - started))
  x <- scan$x
  n <- nrow(x)
  family <- check_family(family, "miser")
  paid <- check_choice(paid, core_choices("paid"), "paid")
  response <- check_response(y, family, n)
  check_miser_scale(response$y, family)
  weights <- check_weights(weights, n)
  check_weighted_response(response, weights, family)
  offset <- check_offset(offset, n, ncol(response$y))
  group <- check_group(group, x)
  labels <- unique(group)
  meas <- group_measurements(cost, needs, labels)
  cost <- charged_costs(meas)  # as the core charges them: the measurements paid at step 0 cost nothing
  cost_penalty <- check_number(cost_penalty, "cost_penalty", lower = 0)
  max_steps <- check_whole(max_steps, "max_steps", 1, what = "boosting iterations")
  depth <- check_whole(depth, "depth", 1, 30, what = "splits from the root to a leaf")
  check_miser_size(max_steps, ncol(response$y))
  eta <- check_number(eta, "eta", 0, 1, lower_open = TRUE, what = "the shrinkage applied to each tree")
  min_node_size <- check_whole(min_node_size, "min_node_size", 1, what = "rows in a leaf")
  max_bin <- check_whole(max_bin, "max_bin", 2, 65536, what = "bins per column")
  cost_unit <- check_cost_unit(cost_unit)
  report <- progress_reporter(progress, name = "Growing trees")

  Y <- response$y
  # rows of weight 0 take no part in the fit (they keep their fitted values, as in glm())
  fit_rows <- if (length(weights) && any(weights == 0)) weights > 0 else rep(TRUE, n)
  w <- if (length(weights)) weights[fit_rows] else numeric(0)
  y_mean <- if (length(weights)) colSums(Y * weights) / sum(weights) else colMeans(Y)
  # lambda' of equation (5): the core scales cost_penalty / mean(cost) by the first gradient's impurity
  control <- list(family = family, paid = paid, split = split,
                  cost_penalty = if (mean(cost) > 0) cost_penalty / mean(cost) else 0,  # every group free: nothing to charge
                  max_steps = max_steps, depth = depth, eta = eta, min_node_size = min_node_size, max_bin = max_bin,
                  threads = fit_threads(), max_time = max_time, newton = leaves == "newton" && family != "gaussian")
  every_row <- all(fit_rows)
  fit_part <- function(m) if (every_row) m else m[fit_rows, , drop = FALSE]  # no copy when every row takes part
  raw <- .miser_fit(fit_part(x), fit_part(Y), w, if (is.null(offset)) matrix(0, 0, 0) else fit_part(offset),
                    match(group, labels) - 1L, measurement_index(meas, labels),
                    timed_control(control, started, spent = scan$spent), report)
  if (isTRUE(raw$partial)) warn_partial(length(raw$loss) - 1L, max_steps, max_time, what = "iteration")
  # the training data, for fitted(), residuals() and predict() without new data
  fit <- new_miser(raw, x_names = x_names(x), group = group, meas = meas, response = response, family = family,
            cost_penalty = cost_penalty, cost_penalty_scaled = raw$cost_penalty, n_steps = length(raw$loss) - 1L, depth = depth,
            eta = eta, paid = paid, min_node_size = min_node_size, y_mean = y_mean, nobs = sum(fit_rows),
            call = call, split = split, max_bin = if (split == "histogram") max_bin else NA_integer_,
            has_offset = !is.null(offset), leaves = leaves,
            data = list(x = x, y = if (ncol(Y) == 1L) drop(Y) else Y, weights = if (length(weights)) weights,
                        offset = offset), cost_unit = cost_unit)
  apply_keep_data(fit, keep_data)
}

# The Greedy Miser fits squared losses on y's own scale (cost_penalty trades them against costs, so y
# is not rescaled): a Gaussian y beyond 2^400 (about 1e120) overflows its squares, one below 2^-400
# loses them in subnormal numbers.
check_miser_scale <- function(Y, family) {
  if (!family_def(family)$linear) return(invisible())
  m <- max(abs(Y))
  if (m > 2^400 || m < 2^-400) {
    abort("`y` has magnitude ", format(m, digits = 3), ", beyond what the squared loss of the Greedy Miser holds ",
          "in double precision (2^-400 to 2^400, about 1e-120 to 1e120): divide or multiply `y` by a constant ",
          "(cost_penalty is relative to the loss, so choose it again on the new scale).")
  }
  invisible()
}

# `max_steps` iterations keep `P` trees each, at least one node of 7 numbers per tree: refused before
# the fit when that exceeds R's largest table (2^31 - 1 trees) or the machine's memory.
check_miser_size <- function(max_steps, P) {
  trees <- as.double(max_steps) * P
  bytes <- trees * 7 * 8
  memory <- machine_memory()
  if (trees > .Machine$integer.max || (!is.na(memory) && bytes > memory)) {
    abort("`max_steps` (", format(max_steps), ") asks for ", format(trees), " trees, which need at least ",
          format(bytes / 2^30, digits = 3), " GB", if (!is.na(memory)) paste0(" (the machine has ",
          format(memory / 2^30, digits = 3), " GB)"), ": give fewer boosting iterations (a few hundred or ",
          "thousand are usual; `max_time` bounds the time instead).")
  }
  invisible()
}

# The constructor of the "miser" object, the only place it is assembled, from the core's result (see the
# anytime_fit contract in anytime_fit.R). `meas`: the fit's measurements (group_measurements()); a group
# first used at step t costs its measurements not paid before. `data`: the training list(x, y).
new_miser <- function(raw, x_names, group, meas, response, family, cost_penalty, cost_penalty_scaled, n_steps, depth, eta,
                      paid, min_node_size, y_mean, nobs, call, split, max_bin, has_offset = FALSE, data = NULL,
                      cost_unit = NULL, leaves = "gradient") {
  cost <- meas$cost
  labels <- names(cost)
  P <- length(raw$init)
  n_total <- length(raw$start) - 1L
  sizes <- diff(raw$start)
  tree <- rep(seq_len(n_total), sizes)
  node <- sequence(sizes)
  split <- raw$feature >= 0L
  on_split <- function(v) replace(v, !split, NA)  # typed even when there are no trees
  column <- on_split(as.integer(raw$feature) + 1L)
  trees <- data.frame(tree = tree, step = (tree - 1L) %/% P + 1L,
                      class = if (family_def(family)$multi) response$classes[(tree - 1L) %% P + 1L] else
                        rep(NA_character_, length(tree)),
                      node = node, feature = x_names[column], column = column,
                      threshold = on_split(as.numeric(raw$threshold)),
                      left = on_split(as.integer(raw$left) + 1L), right = on_split(as.integer(raw$right) + 1L),
                      value = raw$value, stringsAsFactors = FALSE)

  # the groups in the order they were first split on: by tree, then by node (level order)
  group_of_node <- match(group[column], labels)
  first <- !is.na(group_of_node) & !duplicated(group_of_node)
  paid_order <- labels[group_of_node[first]]
  paid_step <- trees$step[first]
  paid_tree <- raw$paid_by[match(paid_order, labels)] + 1
  if (!isTRUE(all.equal(paid_tree, trees$tree[first]))) {
    abort("internal error: the core's paid groups differ from its trees.", class = "internal")
  }
  steps <- 0:n_steps
  new_groups <- lapply(steps, function(t) paid_order[paid_step == t])
  record <- data.frame(group = paid_order, step = paid_step, group_cost = raw$paid_cost[match(paid_order, labels)],
                       stringsAsFactors = FALSE)
  group_cost <- vapply(steps, function(t) sum(record$group_cost[record$step == t]), numeric(1))
  group_cost[1L] <- group_cost[1L] + paid_cost(meas)  # step 0 pays the offset's measurements (meas$paid)
  loss <- raw$loss
  path <- data.frame(step = steps, trees = steps * P,
                     group = vapply(new_groups, function(g) if (length(g)) paste(g, collapse = ", ") else NA_character_,
                                    character(1)),
                     group_cost = group_cost, cost = cumsum(group_cost), loss = loss,
                     objective = loss[1L] - loss, r2 = if (loss[1L] > 0) 1 - loss / loss[1L] else 0 * loss,
                     stringsAsFactors = FALSE)
  init <- stats::setNames(raw$init, response$responses)
  label <- if (cost_penalty == 0) "Stage-wise regression" else
    paste0("Greedy Miser (cost_penalty = ", format(cost_penalty), ")")
  fields <- list(path = path, sequence = paid_order, paid_groups = record, trees = trees, init = init,
                 group = stats::setNames(group, x_names), cost = cost, needs = meas$needs,
                 measurement_cost = meas$measurement_cost, cost_penalty = cost_penalty,
                 cost_penalty_scaled = cost_penalty_scaled, n_steps = n_steps, depth = depth, eta = eta, paid = paid,
                 min_node_size = min_node_size, family = family, classes = response$classes,
                 responses = response$responses, nobs = nobs, null_risk = loss[1L],
                 y_mean = stats::setNames(unname(y_mean), response$responses), label = label, call = call,
                 split = split, max_bin = max_bin, has_offset = has_offset, leaves = leaves)
  optional <- c(list(offset_needs = if (length(meas$paid)) meas$paid, partial = raw$partial), data,
                list(cost_unit = cost_unit))
  new_anytime_fit(c(fields, optional[!vapply(optional, is.null, logical(1))]), "miser")
}

#' The Greedy Miser over a grid of cost penalties: cost/accuracy frontier
#'
#' Fits [miser()] for every `cost_penalty` of a grid and traces each fit's validation metric against the
#' cumulative feature cost as trees are added (the dashed traces of Xu et al. 2012, Figure 1). For each
#' `cost_penalty` the best iteration on the validation data gives one point (its cost, its metric): these
#' points are the cost/accuracy trade-off curve of the paper's Figures 1 and 3.
#'
#' The best iteration maximizes the metric (minimizes it for the losses `"mse"` and `"logloss"`); ties
#' go to the earliest iteration, which is also the cheapest. A point is `efficient` when no other point
#' of the grid costs at most as much and scores at least as well, one of the two strictly.
#'
#' @inheritParams miser
#' @inheritParams anytime_curve
#' @param cost_penalty Numeric vector of distinct non-negative trade-off constants (see [miser()] for their
#'   scale). `NULL` means `c(0, 10^seq(-3, 0, by = 0.5))`.
#' @param ... Further arguments to [miser()] (`max_steps`, `depth`, `eta`, `family`, `paid`,
#'   `min_node_size`, `split`, `max_bin`), the same for every `cost_penalty`.
#' @param x Numeric matrix, `n x p` (an all-numeric data frame is accepted; dense), without NA, NaN or
#'   Inf; or, for the formula method, a model formula such as `diagnosis ~ .` (one group per term).
#' @param group As for [miser()]: `NULL` or the group of each column of `x`.
#' @param lambda Deprecated name of `cost_penalty`: still accepted, with a warning of class
#'   `"fgseq_warning_deprecated"`.
#' @param newx,newy Validation data (required for the matrix method): a numeric matrix with the columns
#'   of `x`, and its response (as `newy` of [anytime_curve()] for `metric`).
#' @param newdata For the formula method: a data frame of validation rows, with the response.
#' @param metric A metric of [anytime_curve()]; `NULL` means `"r2"` for gaussian fits and `"accuracy"`
#'   for classification.
#' @return An object of class `"miser_path"`, a list with
#' * `frontier`: data frame, one row per `cost_penalty` (in the order given), with columns `cost_penalty`,
#'   `step`
#'   (the best iteration on the validation data), `cost` (its cumulative feature cost, cost units),
#'   `value` (its validation metric), `final_cost` (the cost after all `max_steps` iterations) and
#'   `efficient` (logical, see above);
#' * `traces`: list of the validation curves of [anytime_curve()], one per `cost_penalty` (columns `step`,
#'   `group`, `cost`, `value`);
#' * `fits`: list of the [miser()] fits, one per `cost_penalty`;
#' * `metric`, `k`, `cost_penalty` (the grid).
#'
#' `print()` shows the frontier; `plot()` draws the frontier points joined by cost (solid) and,
#' with `traces = TRUE`, each `cost_penalty`'s trace (dashed step curves).
#' @section Errors: Stops when `cost_penalty` is not a vector of distinct non-negative finite numbers; when no
#'   validation data are given, `newx` does not have the columns of `x` or holds NA, NaN or Inf, or
#'   `newy` has the wrong length; as [anytime_curve()] for `metric`, `newy`, `query` and `k`; and as
#'   [miser()] for the other arguments.
#' @references Xu, Z., Weinberger, K. Q. and Chapelle, O. (2012). The Greedy Miser: learning under
#'   test-time budgets. *Proceedings of the 29th International Conference on Machine Learning (ICML)*.
#'   \url{https://arxiv.org/abs/1206.6451}
#' @seealso [miser()], [compare_sequences()].
#' @examples
#' set.seed(1)
#' idx <- sample(nrow(heart), 200)
#' mp <- miser_path(diagnosis ~ ., data = heart[idx, ], cost = heart_cost,
#'                  cost_penalty = c(0, 0.01, 0.1), newdata = heart[-idx, ], family = "binomial",
#'                  max_steps = 40, depth = 2)
#' mp
#' plot(mp)
#' @order 1
#' @export
miser_path <- function(x, ...) UseMethod("miser_path")

#' @rdname miser_path
#' @order 2
#' @export
miser_path.default <- function(x, y, group = NULL, cost = NULL, cost_penalty = NULL, ..., newx = NULL, newy = NULL,
                               metric = NULL, query = NULL, k = 5, lambda) {
  check_group_cost_order(sys.call(), group, missing(cost), "miser_path")
  if (!missing(lambda)) cost_penalty <- renamed_argument(lambda, "lambda", "cost_penalty", is.null(cost_penalty))
  penalties <- check_miser_penalties(if (is.null(cost_penalty)) c(0, 10^seq(-3, 0, by = 0.5)) else cost_penalty)
  x <- check_x(x)
  check_validation_x(newx, newy, ncol(x))
  if (!is.null(metric)) metric <- check_metric(metric)
  # one message for the names of `cost` that are no group: that of the first fit
  fits <- quiet_partial(lapply(seq_along(penalties), function(i) {
    fit_one <- function() miser.default(x, y, group = group, cost = cost, cost_penalty = penalties[i], ...)
    if (i == 1L) fit_one() else suppressMessages(fit_one(), classes = "fgseq_message_unused_cost")
  }))
  warn_partial_fits(sum(vapply(fits, function(f) isTRUE(f$partial), logical(1))), length(fits), list(...)$max_time)
  miser_frontier(fits, penalties, metric, function(f, metric) {
    anytime_curve(f, newx, newy, metric = metric, query = query, k = k)
  })
}

# The frontier of a list of fits: the best validation iteration of each.
miser_frontier <- function(fits, penalties, metric, curve_of) {
  if (is.null(metric)) metric <- family_def(fits[[1L]]$family)$metric
  traces <- lapply(fits, curve_of, metric = metric)
  higher <- metric_higher_better(metric)
  best <- vapply(traces, function(cv) if (higher) which.max(cv$value) else which.min(cv$value), integer(1))
  cost <- vapply(seq_along(traces), function(i) traces[[i]]$cost[best[i]], numeric(1))
  value <- vapply(seq_along(traces), function(i) traces[[i]]$value[best[i]], numeric(1))
  sign <- if (higher) 1 else -1
  efficient <- vapply(seq_along(cost), function(i) {
    !any(cost <= cost[i] & sign * value >= sign * value[i] & (cost < cost[i] | sign * value > sign * value[i]))
  }, logical(1))
  frontier <- data.frame(cost_penalty = penalties, step = best - 1L, cost = cost, value = value,
                         final_cost = vapply(traces, function(cv) cv$cost[nrow(cv)], numeric(1)),
                         efficient = efficient)
  names(traces) <- paste0("cost_penalty=", format(penalties, trim = TRUE))
  structure(list(frontier = frontier, traces = traces, fits = fits, metric = metric,
                 k = attr(traces[[1L]], "k"), cost_penalty = penalties),
            class = "miser_path")
}

#' @rdname miser_path
#' @param digits Number of significant digits.
#' @export
print.miser_path <- function(x, digits = 4, ...) {
  check_dots(...)
  cat("Greedy Miser over ", length(x$cost_penalty), " values of cost_penalty: best iteration on the validation ",
      metric_label(x$metric, x$k), if (metric_higher_better(x$metric)) "" else " (a loss: smaller is better)",
      "\n\n", sep = "")
  print(format(x$frontier, digits = digits), row.names = FALSE)
  invisible(x)
}

#' @rdname miser_path
#' @param traces Logical: draw each `cost_penalty`'s validation trace (a dashed step curve in its own colour,
#'   named in the legend) behind the frontier.
#' @param col Colour of the frontier: its points (filled where efficient) and the step function
#'   through the efficient points in order of cost (`type = "s"`: between two of them the value of
#'   the cheaper holds, what a deployed model attains; a straight segment would show values that no
#'   model attains); `trace_col`: the colours of the traces, recycled over `cost_penalty`.
#' @param trace_col Colours of the traces.
#' @param log `""` or `"x"`: a log scale for the cost axis (cost 0 at the left edge).
#' @param cost_unit `NULL` or a character string, the unit of costs shown in the axis label.
#' @param legend Position of the legend (see [graphics::legend()]), or `NULL` for none.
#' @param xlab,ylab,main Axis labels and title (`ylab = NULL` names the metric). `main` is matched by
#'   its full name only (it follows `...`, so that the graphical parameter `mai` is not taken for it).
#' @export
plot.miser_path <- function(x, traces = TRUE, col = 1, trace_col = grDevices::hcl.colors(length(x$cost_penalty), "Dark 3"),
                            log = "", cost_unit = x$fits[[1L]]$cost_unit, legend = "bottomright", xlab = NULL, ylab = NULL,
                            ..., main = "Greedy Miser: cost/accuracy trade-off") {
  check_dots(..., graphics = TRUE)
  traces <- check_flag(traces, "traces")
  log <- check_choice(log, c("", "x"), "log")
  fr <- x$frontier
  curves <- if (traces) x$traces else list()
  trace_col <- rep_len(trace_col, length(x$cost_penalty))
  if (is.null(ylab)) ylab <- paste("validation", metric_label(x$metric, x$k))
  if (is.null(xlab)) xlab <- cost_axis_label("cumulative cost", cost_unit)
  xs <- c(fr$cost, unlist(lapply(curves, `[[`, "cost")))
  ys <- c(fr$value, unlist(lapply(curves, `[[`, "value")))
  left <- min(zero_at_left(c(0, xs), 0.5))    # where cost 0 sits on a log axis
  at <- function(cost) if (log == "x") zero_at_left(cost, 0.5, left) else cost
  graphics::plot(NA, xlim = range(at(c(0, xs))), ylim = range(ys), log = log, xlab = xlab, ylab = ylab,
                 main = main, xaxt = if (log == "x") "n" else "s", ...)
  if (log == "x") log_cost_axis(left)
  for (i in seq_along(curves)) {
    graphics::lines(at(curves[[i]]$cost), curves[[i]]$value, type = "s", lty = 2, col = trace_col[i])
  }
  # the frontier as a step function over the efficient points: between two of them the value of the
  # cheaper holds (joining them by a segment would show accuracies that no model attains)
  front <- frontier_steps(fr, metric_higher_better(x$metric))
  graphics::lines(at(front$cost), front$value, type = "s", col = col, lwd = 2)
  graphics::points(at(fr$cost), fr$value, col = col, pch = ifelse(fr$efficient, 19, 1))
  if (!is.null(legend)) {
    lam <- paste("cost_penalty =", format(x$cost_penalty, digits = 3))
    graphics::legend(legend, legend = c("frontier (best iteration)", if (traces) lam),
                     col = c(col, if (traces) trace_col), lty = c(1, if (traces) rep(2, length(lam))),
                     lwd = c(2, if (traces) rep(1, length(lam))), pch = c(19, if (traces) rep(NA, length(lam))),
                     bty = "n", cex = 0.8)
  }
  invisible(x)
}

# The efficient points of a frontier in order of cost, with their values (a higher-is-better metric
# increases along them, a loss decreases); drawn with type = "s".
frontier_steps <- function(fr, higher_better) {
  eff <- fr[fr$efficient, , drop = FALSE]
  eff <- eff[order(eff$cost, if (higher_better) -eff$value else eff$value), , drop = FALSE]
  data.frame(cost = eff$cost, value = eff$value)
}

# A grid of miser trade-off constants: non-negative, finite, distinct.
check_miser_penalties <- function(penalties) {
  if (!is.numeric(penalties) || !length(penalties) || !all(is.finite(penalties)) || any(penalties < 0) ||
      anyDuplicated(penalties)) {
    abort("`cost_penalty` must be a vector of distinct, non-negative, finite cost trade-off constants.")
  }
  as.double(penalties)
}

# Validation data of miser_path(): a numeric matrix with the columns of x (checked again by predict())
# and one response per row.
check_validation_x <- function(newx, newy, p) {
  if (is.null(newx)) {
    abort("miser_path() needs validation data: give `newx` and `newy` (or `newdata` with a formula), on ",
          "which the best iteration of each cost_penalty is chosen.")
  }
  if (is.data.frame(newx)) newx <- as.matrix(newx)
  if (!is.matrix(newx) || !(is.numeric(newx) || is.logical(newx)) || ncol(newx) != p) {
    abort("`newx` must be a numeric matrix with the ", p, " columns of `x`.")
  }
  if (!all(is.finite(newx))) abort("`newx` contains NA, NaN or Inf; remove or impute those values first.")
  if (is.null(newy)) abort("give `newy` with `newx`: one validation response per row of `newx`.")
  if (NROW(newy) != nrow(newx)) {
    abort("`newy` must have one value per row of `newx` (", nrow(newx), "); it has ", NROW(newy), ".")
  }
  invisible(newx)
}

# miser() and miser_path() took (x, y, cost, group) before they took `group` before `cost`, as fgseq()
# does. Costs are numbers and group labels are usually numbers too, so a call giving both by position
# is read in the new order only when `group` holds labels that cannot be costs (character or factor);
# otherwise it is an error asking for names, never a silent swap. A numeric third argument by position
# without `cost` may be the old order's cost: an error saying where it goes (character or factor labels
# are groups, and `cost` takes its default, 1 per group).
check_group_cost_order <- function(call, group, cost_missing, verb) {
  args <- as.list(call)[-1L]
  given <- names(args)
  if (is.null(given)) given <- rep("", length(args))
  positional <- c("x", "y", "group", "cost")
  named <- positional[stats::na.omit(pmatch(given[nzchar(given)], positional))]
  free <- setdiff(positional, named)
  by_position <- free[seq_len(min(sum(!nzchar(given)), length(free)))]
  if (!"group" %in% by_position) return(invisible())
  if (cost_missing && (is.numeric(group) || is.logical(group))) {
    abort("`cost` is not given, and a numeric third argument is given by position: ", verb, "() takes `group` ",
          "before `cost`, as fgseq() does, so these could be the costs of the old order ", verb, "(x, y, cost). ",
          "Give them by name: ", verb, "(x, y, cost = ...), or group = ... for numeric group labels.",
          class = "argument_order")
  }
  if ("cost" %in% by_position && (is.numeric(group) || is.logical(group))) {
    abort(verb, "() takes `group` before `cost` (it took `cost` first before, as miser(x, y, cost, group)); ",
          "numeric group labels given by position could be costs: give both by name, ", verb,
          "(x, y, group = ..., cost = ...).", class = "argument_order")
  }
  invisible()
}

# Fields read under a former name: `fit$n_trees` (and that of a summary) is `n_steps`, `fit$lambda_scaled`
# is `cost_penalty_scaled`, with a warning of class "fgseq_warning_deprecated". Every other name is matched exactly.
renamed_fields <- c(n_trees = "n_steps", lambda_scaled = "cost_penalty_scaled")

#' @export
`$.miser` <- function(x, name) {
  if (name %in% names(renamed_fields)) {
    warn("`$", name, "` is deprecated: use `$", renamed_fields[[name]], "` (the same value).", class = "deprecated")
    name <- renamed_fields[[name]]
  }
  .subset2(x, name)
}

#' @export
`$.summary.miser` <- `$.miser`
