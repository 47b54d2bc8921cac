#' Sequence feature groups by cost for anytime linear prediction
#'
#' Learns an order in which to compute groups of features, each with a cost, and a ridge-regularized
#' linear predictor for every prefix of that order (Hu, Grubb, Bagnell and Hebert 2016). A prediction
#' interrupted at budget `B` uses the longest prefix whose cumulative cost is at most `B`.
#'
#' @section Model:
#' Columns of `x` are centred and scaled to unit population variance, `y` is centred, and each group is
#' whitened: with `Sigma_gg = U diag(d) U'` the group's correlation block, `Z_g = X_g U_r diag(d_r)^(-1/2)`
#' keeps the eigen-directions with `d_i > 1e-9 * max(d)` (a rank-deficient group keeps its rank, duplicated
#' columns share their weight). For a set `S` of groups the risk is (paper, equation 1)
#' \deqn{R(S) = \min_w \frac{1}{2n} \|y - Z_S w\|^2 + \frac{\lambda}{2}\|w\|^2,}{R(S) = min_w 1/(2n) ||y - Z_S w||^2 + lambda/2 ||w||^2,}
#' the ridge acting on the whitened coefficients whatever the `criterion`, so that curves of different
#' criteria are comparable. The objective (explained variance) is `F(S) = R(empty) - R(S)` and
#' `r2 = F(S) / R(empty)`; at `lambda = 0` it is the R-squared of least squares on the columns of `S`.
#' Coefficients are reported on the original scale of `x`.
#'
#' @section Methods:
#' With `b_h` the gradient of `F` with respect to the coefficients of an unselected group `h` at the
#' current fit (paper, section 2):
#' * `"omp"`, CS-G-OMP (paper, Algorithm 1): select the group maximizing `||b_h||^2 / c(h)` in whitened
#'   coordinates (`criterion = "whitened"`, the paper's `b' (X_h'X_h)^-1 b`); `criterion = "l2"` is the
#'   paper's No-Whiten variant (`||b_h||^2` on the standardized columns) and `"linf"` its Single variant
#'   (`max_j b_hj^2`, the best single column of the group).
#' * `"fr"`, CS-G-FR: select the group with the largest gain `F(S + h) - F(S)` per unit cost.
#' * `"doubling"`, the Doubling algorithm (paper, Algorithm 2): FR gains per unit cost, but the first
#'   group must cost at most `c_min` and every later group at most the cumulative cost so far, so the
#'   total cost at most doubles at each step. When no remaining group is that cheap (the data are not
#'   "doubling capable", paper Definition 4.2), the candidates are the remaining groups of least cost.
#'
#' `cost_sensitive = FALSE` drops the division by cost (for `"omp"`: cost-blind Group OMP of Lozano,
#' Swirszcz and Abe 2009). `criterion` applies to `"omp"` only. Ties (scores within a relative `1e-10`)
#' go to the group that comes first in `unique(group)`; gradients or gains below `1e-14` times the
#' variance of `y` count as 0.
#'
#' @section Measurement costs:
#' What is paid for at prediction time is a measurement (a laboratory test, a feature extractor, a
#' blood draw), and a group may need several, some shared with other groups: `needs` names, for a
#' group (a variable with the formula method), the measurements it needs, and `cost` is then named by
#' measurement. A set of groups costs the total cost of the union of their measurements, so a shared
#' measurement is paid once. Every method uses the marginal cost of a candidate given the groups
#' already selected, the cost of its measurements not yet paid: CS-G-OMP and CS-G-FR divide their
#' score by it, Doubling compares it with `c_min` and with the cost so far (and `c_min = NULL` is the
#' smallest stand-alone group cost), `max_cost` bounds the cumulative cost, the path's `group_cost` is
#' the marginal cost paid at the step and its `cost` the cost of the union of the measurements of the
#' prefix. A measurement may cost 0 (read from the record). A candidate of zero marginal cost with a
#' positive gain (score before division) is taken before any group of positive marginal cost, largest
#' gain first, and its `score` is that gain; one without gain scores 0. Without `needs` each group
#' (each variable) is its own measurement and nothing changes: the marginal cost of a group is its cost.
#'
#' With the formula method a term needs the measurements of all its variables (the rows of
#' `attr(terms, "factors")`, each reduced to the columns of `data` it uses): `cp:thal` needs `cp` and
#' `thal`, `poly(age, 3)` needs `age`, `log(chol)` needs `chol`. So an interaction is never cheaper than
#' the unpaid part of its variables, and is free once they are bought; `cost` is named by variable
#' (`heart_cost` serves any formula on [heart] or on a subset of its columns; names of variables the
#' formula does not use are ignored, with one message) and `needs` maps variables to measurements. The fit's `needs` maps each group (term) to its
#' measurements. The variables of the formula's `offset()` terms and of `offset` are measurements too,
#' paid at step 0 (the intercept-only prediction already needs them), of cost 0 unless `cost` names
#' them (as [stats::glm()] users expect, an offset needs no cost): the path's `cost` starts from
#' their cost, the fit's `offset_needs` names them, a group that shares one does not pay it again,
#' `max_cost` counts them and a budget below their cost is an error.
#'
#' What becomes of the paper's guarantees: they assume modular costs, the cost of a sequence being the
#' sum of the costs of its groups. Shared measurements make the cost of a set the cost of a union,
#' which is submodular, not modular, and then:
#' * Theorem 3.2 (CS-G-OMP and CS-G-FR within `1 - exp(-gamma B / K)` of any set of groups of cost `K`,
#'   at the budgets `B` where a group is completed) holds with `K` replaced by `m K`:
#'   \deqn{F(G_{\langle B \rangle}) > (1 - e^{-\gamma B / (m K)}) F(S), \quad m = \frac{\sum_{s \in S} c(s)}{c(S)} \le d,}{F(G<B>) > (1 - exp(-gamma B / (m K))) F(S),  m = sum_{s in S} c(s) / c(S) <= d,}
#'   for every set `S` of cost `K = c(S)` (the union of its measurements), where `c(s)` is the
#'   stand-alone cost of a group, `m` the cost-weighted mean multiplicity of the measurements of `S`
#'   (the number of groups of `S` that need a measurement, averaged over its measurements weighted by
#'   their costs) and `d` the largest number of groups of `S` that share one measurement. So the bound
#'   weakens at most to `1 - exp(-gamma B / (d K))`, and with `d = 1` (no sharing within `S`) it is
#'   the paper's. Proof sketch: `B` is the sum of the marginal costs `c_j` paid at the steps. At a step
#'   that pays `c_j > 0`, every unselected group of zero marginal cost has a zero gradient (a gain
#'   would have made it a free step), and every other group `h` has `||b_h||^2 <= c_j(h) r_j <= c(h)
#'   r_j`, with `c_j(h)` its marginal cost and `r_j` the largest `||b_h||^2 / c_j(h)` of the step,
#'   since marginal costs never exceed stand-alone costs; by Lemma 3.4 the group CS-G-OMP selects, and
#'   so the one CS-G-FR selects, gains at least `r_j / (2 (1 + lambda))` per unit of its marginal
#'   cost. So equations 6-8 of the proof of Lemma 3.1 hold with
#'   `c(g_j) = c_j` and `sum_i c(s_i) = m K`, Lemma 3.1 holds with `K` replaced by `m K`, and the
#'   recursion `Delta_j <= (1 - gamma c_j / (m K)) Delta_{j-1}` of Theorem 3.2 (steps with `c_j = 0`
#'   only decrease `Delta_j = F(S) - F(G_j)`) gives the bound. The factor cannot be dropped: with `d`
#'   orthogonal groups of equal gain sharing one measurement of cost 1 and a decoy with its own
#'   measurement of cost 1 and 1.1 times their gain, both methods buy the decoy first, and at `B = 1`
#'   reach `1.1 / d` of the `d` groups (0.55, 0.367, 0.275 for `d = 2, 3, 4`), below the paper's
#'   `1 - exp(-1) = 0.632` (`gamma = 1`). Both are checked by brute force in the package's tests.
#' * Theorem 4.3 (Doubling within a constant factor of the optimum of cost `B / 4` at every budget `B`)
#'   is not proved: its case analysis compares the costs of single items with costs of prefixes as
#'   if costs added up. Theorem 4.1 (in general no sequence does so against the optimum of a cost
#'   above `B / 4`) still holds, as modular costs are a special case.
#' * Without `needs` (or when no two groups share a measurement) costs are modular and every result
#'   of the paper applies unchanged.
#'
#' @section Computation:
#' One pass over `x` forms its column means and the cross-product of the centred columns (rows are
#' centred in small chunks; `x` is not copied). The cross-product of each chunk goes through the BLAS
#' R is linked to (`dsyrk`) when that is an optimized BLAS (OpenBLAS, MKL, BLIS, ATLAS, Accelerate, by
#' the name in `extSoftVersion()["BLAS"]`), and through Eigen otherwise (faster than R's reference
#' BLAS); `options(fgseq.linear_algebra = "blas")` or `"eigen"` forces either. The same choice holds for the GLM
#' families' weighted cross-products of the multinomial Hessian and of the CS-G-FR quadratic gains
#' (`dsyrk`, `dgemm`), their Cholesky factorizations (LAPACK's `dpotrf`) and triangular solves (`dtrsm`).
#' Standardization, whitening and the greedy path then run
#' on the `p x p` matrix only: a block Gram-Schmidt step in the ridge metric per selected group keeps
#' the gradients and the Schur complements that give every FR gain exactly, so CS-G-FR and Doubling
#' cost about what CS-G-OMP costs.
#'
#' For wide data the sample-space engine (`engine = "sample"`) never forms a `p x p` matrix: it
#' whitens each group from its own `d_g x d_g` block (a group of more columns than rows from the
#' `n x n` matrix of its centred, scaled rows, which has the same non-zero eigenvalues, in `O(n^2 d_g)`
#' instead of `O(d_g^3)`; the GLM families do the same), keeps the selected directions as `n`-vectors
#' (orthonormal in the ridge metric) and the residual; CS-G-OMP makes one pass `x'r` per step for the
#' gradients of all groups, CS-G-FR and Doubling one pass `x'U` over the `r_g` new directions of the
#' selected group, which update every candidate's Schur complement (incremental orthogonalization).
#' Memory is `O(n q_S)` for the `q_S` selected directions. Both engines give the same sequence and path
#' (up to rounding). `engine = "auto"` (the default) takes the sample-space engine for the Gaussian
#' families when `p > 2000` and either `p > n`, `p > 10000` (a Gram matrix above 800 MB) or `x` is
#' sparse; the Gram engine otherwise. The GLM families never form the `p x p` matrix (only each group's
#' block), so `engine` does not apply to them.
#'
#' With a dense `x`, CS-G-OMP in the sample-space engine screens the groups: the pass `x'r` reads a
#' 16-bit copy of the whitened columns (integers with one scale per column, `2 n q` bytes, a quarter of
#' the size of `x`), whose products come with a rigorous bound on their error (Higham 2002, section
#' 3.1). Each group gets a range
#' for its score, and only the groups whose range reaches the best are scored again in double precision
#' from `x`, so the sequence, scores and path are those of the exact algorithm. A group's range is
#' kept from step to step, widened by how far the residual has moved since it was computed (measured
#' against up to 64 residuals of earlier steps, `n` values each per response, kept for this), and the
#' copy is read again only for the groups whose widened range still reaches the best: with costs that
#' differ between groups, the expensive groups are read at few steps. With one response the copy has
#' a coarser level as well, 8-bit integers (`n q` bytes), whose products against the residual rounded
#' to 16 bits are exact integer sums with a range about 300 times wider: a range is first refreshed from
#' it, and only the groups whose coarse range still reaches the best are read at 16 bits, whose columns
#' are made when first read. Set `options(fgseq.screen = FALSE)` to make every pass in double precision
#' (and save the copy's memory).
#'
#' `x` may be a sparse matrix of the Matrix package (a `dgCMatrix`, or anything that coerces to one):
#' it is read in place, never densified; centring is implicit (`x'v - m (1'v)`). In the sample-space
#' engine a dense `x` is centred implicitly too, so for columns whose mean exceeds their standard
#' deviation by a factor of `1e6` or more the Gram engine (which centres in chunks) is more accurate.
#'
#' The passes over `x` run on `getOption("fgseq.threads", 2)` threads; when the option is not set, on one
#' when `x` holds fewer than `2^18` values (nonzeros, when sparse), where a pass is too short for a
#' second thread to pay and a machine busy with other work would hold it up (the Gram engine's
#' cross-product splits the rows over OpenMP threads, with an exact merge of the parts; the
#' sample-space engine's threads live for the fit and take chunks of columns in turn, so that on a
#' machine busy with other work a thread held back by the system delays its chunk, not the step);
#' with an optimized BLAS the Gram engine's cross-product uses the BLAS's own threads instead. The
#' sample-space engine's products (`x'M` and the orthogonalization, with a few columns in `M`) run on
#' fgseq's own kernels, which use AVX-512 or AVX2 vector instructions when the CPU has them
#' (detected at run time).
#'
#' @section Families:
#' `family = "gaussian"` (numeric `y`) and `"mgaussian"` (numeric matrix `y`, one column per response;
#' scores and objective summed over the columns) use the linear engine above. `"binomial"` (`y` 0/1,
#' logical or a two-level factor; the second level is modelled), `"multinomial"` (a factor with two or
#' more classes, symmetric parametrization with one coefficient vector per class) and `"poisson"`
#' (non-negative counts) follow the paper's appendix B (Hu et al. 2014): the risk is the
#' ridge-regularized weighted mean negative log-likelihood
#' \deqn{R(S) = \min_{a, W} \frac{1}{\sum_i w_i}\sum_i w_i\,[\Phi(\eta_i) - y_i^T \eta_i] + \frac{\lambda}{2}\|W\|_F^2,\quad \eta_i = o_i + a + z_{i,S} W,}{R(S) = min_{a,W} sum_i w_i [Phi(eta_i) - y_i' eta_i] / sum(w) + lambda/2 ||W||_F^2, eta_i = offset_i + a + z_{i,S} W,}
#' with unpenalized intercepts `a`, refitted after every step by a damped Newton (IRLS) solver
#' warm-started from the previous step. OMP scores the squared Frobenius norm of the gradient of `R`
#' with respect to each unselected group's whitened coefficients (per unit cost). FR and Doubling score
#' the decrease of `R`: `fr_gain = "exact"` refits every candidate at every step (about `J - k`
#' Newton solves at step `k`: slow on large data), `"quadratic"` takes one Newton step through the
#' Schur complement of the current Hessian. The quadratic gains of all candidates of a step come from one
#' pass over the rows: the Hessian of the selected columns and every candidate's border and diagonal
#' block as one blocked weighted product on the fit's threads, over the whitened columns formed from `x`
#' a block of rows at a time (no copy of `x` is held), then one factorization of the Hessian
#' for all Schur complements; so a quadratic CS-G-FR path costs about one more pass per step than
#' CS-G-OMP. A candidate whose Schur complement is below `1e-9` times its own curvature (collinear with
#' the selected groups) gains 0. The exact gains are not screened by the quadratic ones: for a GLM the
#' quadratic gain bounds the exact gain in neither direction (the curvature of the log-likelihood
#' changes along the step), and the rigorous bound at hand, `||g_h||^2 / (2 lambda)` from the gradient
#' `g_h` (strong convexity of the ridge only), exceeds the gain by about (curvature + `lambda`) /
#' `lambda` and so rules out no candidate at small `lambda`; every candidate is refitted. The objective is
#' `F = R(empty) - R(S)` and `r2` the fraction of the null deviance explained (glmnet's `dev.ratio`).
#' A Newton solve has converged when the largest entry of the gradient of `R` (in the intercepts and the
#' whitened coefficients) is at most `1e-11 s` at the coefficients it returns, with `s` the scale of that
#' gradient, the response's weighted standard deviation \eqn{s = \max_c (\sum_i w_i (y_{ic} - \bar y_c)^2 / \sum_i w_i)^{1/2}}{s = max_c sqrt(sum_i w_i (y_ic - ybar_c)^2 / sum(w))}
#' over its columns `c` (the classes of a multinomial fit; 0/1 indicators), the bound of every such entry
#' at the intercept-only model without offset (1 when it is 0). That is the only test: a change of the
#' deviance over a step says nothing of it (a short, damped step changes the deviance little far from
#' the optimum). When a solve does not converge (after 100 Newton steps, when no step decreases the risk,
#' or when the gradient stalls at its rounding: three steps in a row at the risk's rounding that do not
#' halve it), `fgseq()` warns (class `fgseq_warning_convergence`), `converged` is `FALSE` and the fit keeps
#' the coefficients of its last iterate. As [stats::glm()], a binomial, multinomial or Poisson fit at `lambda = 0` whose last step has
#' fitted probabilities numerically 0 or 1 (means 0; for a multinomial fit, the probability of its own
#' class numerically 1 on every row of a class, a class separable from the others such as the setosa
#' irises, or a probability that underflows to 0, two classes separable from each other) warns of
#' separation (class `fgseq_warning_boundary`), and so does one whose Newton solve of some step
#' converged as toward an optimum at infinity (its last three steps whole Newton steps at a linear rate,
#' each growing the largest coefficient and cutting the largest gradient entry by a factor between 0.05
#' and 0.95 only, where Newton's method ends a finite optimum at a quadratic rate): no finite optimum may
#' exist, the coefficients move toward it without bound (the gradient vanishes as the probabilities
#' approach 0 or 1, so such a solve converges), and those returned, finite, may be very large. Probabilities near 0 or 1 alone do not mean
#' non-convergence. The multinomial family's Newton directions are found by conjugate gradients
#' preconditioned by a Kronecker approximation of its Hessian (Bohning's bound with the classes' mean
#' curvature), each iteration two passes over the rows of the size of a gradient, instead of forming the
#' `(m + 1) K` square Hessian of `m` selected columns and `K` classes; when that needs more than 30
#' iterations (well-separated classes at a small `lambda`), the preconditioner becomes the Hessian on the
#' class contrasts, formed at an iterate and refreshed when it needs more than 5. Forming it leaves out
#' the rows whose weight for a pair of classes is negligible (a product of probabilities below about
#' `lambda / (10 K^3)` over the largest eigenvalue of the columns' Gram matrix: it then differs from the
#' Hessian by at most `lambda / 10`), so that well-separated classes cost in proportion to the rows they
#' share. The fit and its tolerance are the same either way.
#'
#' @section Extreme scales:
#' A column of `x` whose largest magnitude is above `2^400` (about `1e120`) or below `2^-400`, and
#' such a `y` for the Gaussian families, is multiplied by a power of two (exact in floating point)
#' before the fit, so that squares and cross-products neither overflow nor lose digits in subnormal
#' numbers; the fit is reported in the original units (coefficients, intercepts, objectives). Whether
#' `y` is constant is judged relative to its magnitude, so `y` in any unit is accepted, up to the unit in
#' which its squared loss, the objective, still fits in double precision: a `y` of magnitude near
#' `1e154` or more is refused (rescale it).
#'
#' @section Constant columns:
#' A column of zero variance keeps coefficient 0 and a warning names it; a group whose columns are all
#' constant is left out of the sequence, with a warning. When every group is constant, `fgseq()` stops.
#'
#' @param x Numeric matrix, `n x p` (an all-numeric data frame is accepted), or a sparse matrix of the
#'   Matrix package (`dgCMatrix`), without NA, NaN or Inf; or, for the formula method, a model formula
#'   such as `diagnosis ~ .`.
#' @param y Numeric vector of length `n` (logical is read as 0/1, a linear probability model).
#' @param group Vector of length `p` (integer, character or factor): the group label of each column.
#'   `NULL` puts each column in its own group, labelled by the column names. A named `group` is matched
#'   to the columns of `x` by name (names that are not the column names are an error).
#' @param cost Numeric vector of finite group costs `>= 0`, in any unit (the unit of budgets later):
#'   named by group label, or unnamed in the order of `unique(group)`. `NULL` (the default of every
#'   learner, [miser()] and [sparse_sequence()] included) means cost 1 for every group. A cost of 0 is
#'   allowed in every interface: a free group (or measurement), taken before any group of positive
#'   marginal cost when it has a gain (see the section Measurement costs). With `needs`, one finite cost `>= 0` per measurement, named by measurement (`NULL`: 1
#'   each). For the formula method, named by variable (for example `heart_cost`), or by measurement
#'   with `needs`; see the section Measurement costs. The variables of the formula's `offset()` terms
#'   and of `offset` need no cost: they cost 0 unless `cost` names them (a cost given is paid at step 0).
#'   The rule for names is the same in every interface (matrix, formula on any data frame, chunks):
#'   every group (variable, measurement) the fit uses must have a cost, and names that are none of
#'   them are ignored, with one message of class `fgseq_message_unused_cost` naming them
#'   ([suppressMessages()] silences it), so that one table of costs serves every model of a data set.
#' @param method One of `"omp"` (CS-G-OMP, the default), `"fr"` (CS-G-FR) or `"doubling"`.
#' @param lambda Non-negative ridge constant `lambda` of the risk (on the whitened, unit-variance scale).
#'   `lambda = 0` is least squares (projections handle rank deficiency).
#' @param criterion Selection criterion of `"omp"`: `"whitened"` (CS-G-OMP, the default), `"l2"`
#'   (No-Whiten) or `"linf"` (Single). Any other value is an error of class `fgseq_error_input` naming
#'   `criterion`.
#' @param cost_unit `NULL` or a character string naming the unit of `cost` (for example `"CAD"` or
#'   `"ms"`), kept with the fit as `cost_unit` and shown on the cost axis of its plots.
#' @param cost_sensitive Logical: divide scores by group cost (`TRUE`, the paper's methods) or not.
#' @param max_cost Positive number (cost units): stop before the cumulative cost would exceed it. The
#'   path is then a prefix of the unconstrained sequence.
#' @param max_steps Positive whole number (or `Inf`): the most groups to select.
#' @param c_min Positive number (cost units), Doubling only: the most the first group may cost.
#'   `NULL` means the smallest group cost.
#' @param max_time Positive number of seconds, or `Inf`: the fit stops selecting when this much time
#'   has passed since the call (the checks of the input and the statistics pass included) and returns
#'   the sequence learned so far, marked `partial = TRUE`, with a warning of class
#'   `fgseq_warning_partial` that says at which step it stopped: training is anytime too. Checked
#'   between candidate groups within a step and at every Newton iteration (GLM families), so a step is
#'   abandoned when the time is spent. The passes over `x` before the first step count too, and are
#'   checked as they go: the sweep of a dense `x` for NA, NaN, Inf and extreme scales (for the GLM
#'   families between columns, every `2^20` values; for the Gaussian families it is part of the
#'   statistics pass), the linear engines' statistics pass (between chunks of rows, or between
#'   groups), the GLM families' (between groups) and, for data in chunks ([fgseq_chunks()]), the first
#'   pass over the chunks (between chunks: a chunk started after `max_time` adds its `y`, weights and
#'   offset alone, its `x` is not read; the chunk in progress is finished). The null model needs every
#'   row's response, so a fit from chunks still reads each chunk's `y`, weights and offset after the time
#'   is spent and, with an offset, solves for the intercept over all rows: past `max_time` it takes time
#'   in proportion to the rows. When the time is spent in one of them the fit is
#'   the null model (the weighted mean of `y`, less `offset`, for the Gaussian families; the intercepts
#'   of the GLM with no group otherwise; every coefficient 0), marked partial, with the warning. That
#'   model reads no column of `x`, so an `x` whose sweep was cut short is not checked for NA; its
#'   [fitted()][fitted.fgseq] values, residuals and `predict()` without new data read none either (the
#'   intercept plus the offset on every row).
#' @param progress Logical: show a progress bar (cli) over the steps of the selection.
#' @param keep_data Logical: keep the training data with the fit (`TRUE`, the default; see the section
#'   Training data kept) or not (`FALSE`, a lean fit for deployment, as [stats::glm()] with
#'   `model = FALSE`). A lean fit predicts (on new data), and its `coef()`, `print()`, `summary()`,
#'   `plot()`, [timeliness()] (on new data or from the training path) and [write_predictor()] are those
#'   of the full fit; `fitted()`, `residuals()`, `deviance()`, `logLik()`, `model.matrix()`, `augment()`
#'   and `predict()` without new data stop with an error of class `fgseq_error_no_data`.
#' @param engine Linear engine for the Gaussian families: `"auto"` (the rule in the section
#'   Computation), `"gram"` (the `p x p` Gram matrix, fastest for tall data) or `"sample"` (sample space,
#'   no `p x p` matrix, for wide data). The fit records it as `engine`.
#' @param family One of `"gaussian"`, `"binomial"`, `"multinomial"`, `"poisson"`, `"mgaussian"`, or a
#'   family object of stats with its canonical link, as [stats::glm()] takes it (`gaussian()`,
#'   `binomial()`, `poisson()`, or the function itself); see the section Families. Another link is an
#'   error.
#' @param weights `NULL` or a numeric vector of `n` non-negative observation weights (as in [stats::glm()]:
#'   a weight of 2 counts a row twice; for the formula method evaluated in `data`, then in the formula's
#'   environment). Means, scales and whitening are weighted too.
#' @param offset `NULL`, a numeric vector of `n` values added to the linear predictor, or an `n x P`
#'   matrix for multinomial (`P` classes) and mgaussian (`P` responses) fits. Predictions on `newx` then
#'   need `newoffset`. For the formula method evaluated in `data` (then in the formula's environment),
#'   and added to the formula's `offset()` terms; `predict(newdata = )` evaluates both in `newdata`.
#' @param fr_gain For `method = "fr"` or `"doubling"` with a GLM family: `"quadratic"` (the default:
#'   one Newton step, all candidates of a step from one pass over the rows, so that the path costs about
#'   what CS-G-OMP's costs) or `"exact"` (refit each candidate at every step: about `J - k` Newton solves
#'   at step `k`, 2 to 15 times slower on the package's data sets and more on larger ones); see the
#'   section Families for how often the two choose the same group. Ignored for the Gaussian families,
#'   where the gain is exact and cheap. A GLM fit from chunks ([fgseq_chunks()]) takes `"quadratic"`
#'   only (see Details).
#' @param needs `NULL` (each group its own measurement) or a named list giving, for a group (for the
#'   formula method: a variable of `data`), a character vector of the measurements it needs, as in
#'   `list(chol = c("blood_draw", "chol"))`; groups (variables) not listed need one measurement named by
#'   their label. See the section Measurement costs.
#' @param ... Not used by the matrix method; the formula method passes them to the matrix method. An
#'   unknown or misspelt argument is an error (class `fgseq_error_unknown_argument`) that names it and
#'   suggests the nearest valid one.
#'
#' @return An object of class `c("fgseq", "anytime_fit")` (the class `"anytime_fit"` holds the methods it
#'   shares with [miser()] fits: [anytime_curve()], [timeliness()], [stop_cost()], [plot()][plot.fgseq]), a list with
#' * `sequence`: character vector of length `K`, the group labels in selection order;
#' * `path`: data frame with `K + 1` rows (steps `0..K`) and columns `step`, `group` (NA at step 0),
#'   `group_cost` (the marginal cost paid at the step: the group's measurements not paid before),
#'   `cost` (cumulative cost, in cost units: the cost of the union of the measurements of the prefix),
#'   `objective` (`F` on the training data), `r2` (`F / R(empty)`) and `score` (the selection score of
#'   the chosen group, NA at step 0);
#' * `beta`: `p x (K + 1)` sparse matrix (a `dgCMatrix` of the Matrix package, as glmnet's `beta`) of
#'   coefficients on the original scale of `x`, column `k + 1` is the model after step `k`; rows named
#'   by the columns of `x`, columns `step0`, ..., `stepK`. Column `k + 1` stores the non-constant
#'   columns of the groups of the first `k` steps (a stored value may be 0; every other coefficient is
#'   0), so a wide fit keeps what it selected, not `p x (K + 1)` numbers. `coef()` gives the
#'   coefficients as a dense matrix; `as.matrix(fit$beta)` all of them;
#' * `a0`: numeric vector of the `K + 1` intercepts;
#' * `group`: character vector of length `p` (named by column), the group of each column;
#' * `cost`: named numeric vector, one cost per group in `unique(group)` order: the stand-alone cost
#'   of the group, the total cost of its measurements;
#' * `needs`: named list, one character vector of measurement names per group, in `unique(group)` order
#'   (without `needs`, each group needs the measurement named by its label);
#' * `measurement_cost`: named numeric vector, the cost of each measurement (without `needs`, equal to
#'   `cost`);
#' * `rank`: integer vector, the whitened rank of each group (0 for a constant group);
#' * for multinomial and mgaussian fits, `beta` is a list of such matrices, one per class or response
#'   column, and `a0` a `P x (K + 1)` matrix;
#' * `lambda`, `method`, `criterion`, `cost_sensitive`, `family`, `fr_gain`, `nobs`, `call`;
#' * `cost_unit`: the unit of `cost` given, or `NULL`;
#' * `engine`: `"gram"` or `"sample"`, the linear engine used (`"gram"` for the GLM families);
#' * `partial`: `TRUE` when `max_time` stopped the selection before its end;
#' * `classes` (binomial, multinomial: the class labels), `responses` (names of the response columns),
#'   `has_offset`, `null_risk` (`R(empty)`), `converged` (every Newton solve ended at a vanishing gradient, see the section Families);
#' * formula fits also carry `terms`, `xlevels` and `contrasts`, used by `predict(newdata = )`, and, when
#'   their offset reads variables of `data`, `offset_needs`: the measurements of the offset, paid at
#'   step 0 (the path's `group_cost` and `cost` at step 0 are their cost).
#'
#' @section Training data kept:
#' By default a fit keeps its training data, for `fitted()`, `residuals()`, `deviance()`, `logLik()`,
#' `model.matrix()`, `augment()` and `predict()` without new data: `x` (the matrix given, not a copy; for
#' the formula method the `n x p` model matrix), `y`, `weights` and `offset` (when given) and, for the
#' formula method, the model frame `model` (the model variables of `data`). Saved with [saveRDS()] the fit
#' is then about as large as `x` and `data` together: a formula fit of 200,000 rows and 20 numeric
#' variables about 65 MB (`x` alone 31 MB). `keep_data = FALSE` keeps none of them (and marks the fit
#' `keep_data = FALSE`): what remains (the path, the coefficients, costs and measurements, terms and
#' factor levels, the call) grows with the columns and steps, not the rows: the same fit saves to
#' about 4 KB. As for [stats::glm()], a formula fit keeps the formula's environment (with
#' `terms`): a formula written inside a function whose frame holds large objects saves them too. Fits
#' from [fgseq_chunks()] and [fgseq_stats()] keep no training data.
#'
#' @section Errors:
#' `fgseq()` stops, naming the argument, when `x` is not numeric, has fewer than 2 rows or holds NA, NaN
#' or Inf (for a sparse `x`: stores one); when `y` is not numeric, has the wrong length, holds NA, NaN or Inf, or is constant; when
#' `group` has the wrong length or NA; when `x` has column names that are NA, empty or duplicated (name
#' every column distinctly, or remove the names); when a cost is missing for a group, named for some
#' groups only, negative or non-finite, or the costs sum to Inf (names of no group are not an error:
#' they are ignored with a message of class `fgseq_message_unused_cost`);
#' when `weights` sum to Inf; with `needs` (or the formula method), when `needs` is not a
#' named list of character vectors or names a group or variable that does not exist, when a measurement
#' has no cost, or a measurement cost is NA, NaN, Inf or negative, or `cost` is unnamed with `needs`; when `cost_unit` is not `NULL` or a single string; when `lambda`, `max_cost`, `max_steps`, `c_min` or `max_time` are out of
#' range; when `method`, `criterion`, `fr_gain` or `engine` is not one of its values; when every column is constant; for GLM families, when `y` does not suit the family (binomial
#' `y` with other than two classes, a multinomial class with fewer than two observations or a single
#' class, negative or non-integer Poisson counts), when `weights` are negative, NA or of the wrong
#' length, or `offset` has the wrong length; when `weights` leave a class with fewer than two rows of
#' positive weight, or a constant response on those rows; when Poisson counts exceed `2^400` (their
#' squared gradients would overflow); when the fit's objective is not finite (for the Gaussian families a
#' `y` whose squared loss overflows double precision, values near `1e154` or more: rescale `y`); when a named `group` is not named by the columns of `x`; when the
#' option `fgseq.threads` exceeds 4 threads per core; when `family` is unknown or a family object with a
#' non-canonical link (class `fgseq_error_family`); when an argument is unknown (class
#' `fgseq_error_unknown_argument`). The formula method also stops when `data` is missing or not a data
#' frame or the formula has no response or no term, or removes the intercept (`- 1` or `+ 0`: every
#' engine centres the columns and the response, so the intercept is always fitted), or a variable of the
#' formula, `weights`, `offset` or `subset` is in neither `data` nor the formula's environment (R's error
#' kept as the `parent`) (class `fgseq_error_formula`), when a model variable
#' holds NA and `na.action` is [stats::na.fail()] (given, or missing with `options(na.action = "na.fail")`),
#' or `na.action` (given or from the option) is another function (class
#' `fgseq_error_na`), and when `subset` is not a logical vector with one value per row (without NA) or
#' whole row numbers in range, or leaves fewer than 2 rows (class `fgseq_error_subset`). Every error has
#' class `fgseq_error` (bad values of other arguments: `fgseq_error_input`); warnings have class
#' `fgseq_warning` and one of `fgseq_warning_constant`, `fgseq_warning_constant_group`,
#' `fgseq_warning_convergence`, `fgseq_warning_boundary`, `fgseq_warning_partial` (`max_time` spent).
#'
#' @references Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group
#'   sequencing for anytime linear prediction. In *Proceedings of the Thirty-Second Conference on
#'   Uncertainty in Artificial Intelligence (UAI)*, 279-288. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2014). Efficient feature group sequencing for
#'   anytime linear prediction, first version, appendix B (generalized linear models with
#'   multi-dimensional responses). \url{https://arxiv.org/abs/1409.5495v1}
#'
#'   Lozano, A. C., Swirszcz, G. and Abe, N. (2009). Grouped orthogonal matching pursuit for variable
#'   selection and prediction. *Advances in Neural Information Processing Systems 22*.
#' @seealso [predict.fgseq()], [coef.fgseq()], [plot.fgseq()], [timeliness()], [stop_cost()].
#' @examples
#' fit <- fgseq(diagnosis ~ ., data = heart, cost = heart_cost)
#' fit
#' predict(fit, newdata = heart[1:3, ], budget = c(5, 20, 120))
#'
#' # matrix interface, each column its own group
#' x <- as.matrix(mtcars[, -1])
#' fr <- fgseq(x, mtcars$mpg, method = "fr", cost = seq_len(ncol(x)))
#' coef(fr, budget = 10)
#' @export
fgseq <- function(x, ...) UseMethod("fgseq")

#' @rdname fgseq
#' @export
fgseq.default <- function(x, y, group = NULL, cost = NULL, method = "omp",
                          lambda = 1e-6, criterion = "whitened", cost_sensitive = TRUE,
                          family = "gaussian",
                          weights = NULL, offset = NULL, fr_gain = c("quadratic", "exact"),
                          max_cost = Inf, max_steps = Inf, c_min = NULL, max_time = Inf, progress = FALSE,
                          engine = c("auto", "gram", "sample"), needs = NULL, cost_unit = NULL,
                          keep_data = TRUE, ...) {
  started <- now()  # max_time counts from the call, the input checks included
  check_dots(...)
  call <- match.call()
  call[[1L]] <- quote(fgseq)
  keep_data <- check_flag(keep_data, "keep_data")
  # x may be the checked inputs of a verb that fits them many times (cv_fgseq()'s fits on all rows):
  # then y, group, cost, needs, weights and offset are in them
  inputs <- if (inherits(x, "fgseq_inputs")) x
  fit <- fit_sequence(x, y, group = group, cost = cost, needs = needs, method = check_method(method), lambda = lambda,
               criterion = criterion, cost_sensitive = cost_sensitive, family = check_family(family, "fgseq"),
               weights = weights, offset = offset, fr_gain = check_choice(fr_gain, fr_gain_choices(), "fr_gain"),
               max_cost = max_cost,
               max_steps = max_steps, c_min = c_min, max_time = max_time, progress = progress,
               engine = check_choice(engine, c("auto", core_choices("engine")), "engine"), cost_unit = cost_unit,
               call = call, started = started, inputs = inputs)
  apply_keep_data(fit, keep_data)
}

# The core's values of `fr_gain`, the default ("quadratic") first.
fr_gain_choices <- function() union("quadratic", core_choices("fr_gain"))

# The inputs of a fit, each checked once: x as swept for NA, NaN, Inf and extreme scales (`scan`), the
# response, the weights, the offset, the group of each column and the measurements. The sweep runs on
# the fit's clock (max_time from `started`): when max_time runs out there, the fit is the null model (x
# is not read further), as when it runs out in the core's pass. A caller that swept x already
# (check_x_scan(x, sparse = TRUE) in full) passes its `scan`. A dense x of the Gaussian families is swept
# by the core's own first pass over it (the Gram engine's, that forms its cross-product; the
# sample-space engine's, that forms the groups' blocks; see `in_pass` in fit_sequence()), so that the
# sweep costs no pass of its own. A verb that needs the checked inputs itself (sparse_sequence()) makes
# them here and hands them to fit_sequence(), which then checks nothing again.
fit_inputs <- function(x, y, group, cost, needs, family, weights, offset, max_time = Inf, started = now(),
                       scan = NULL) {
  if (is.null(scan)) {
    dense <- !methods::is(x, "sparseMatrix")
    if (dense) x <- check_dense_x(x)
    scan <- if (dense && family_def(family)$linear) {
      list(x = x, in_pass = TRUE)
    } else {
      check_x_scan(x, sparse = TRUE, time_left = max_time - (now() - started))
    }
  }
  x <- scan$x
  n <- nrow(x)
  response <- check_response(y, family, n)
  weights <- check_weights(weights, n)
  check_weighted_response(response, weights, family)
  offset <- check_offset(offset, n, ncol(response$y))
  group <- check_group(group, x)
  labels <- unique(group)
  structure(list(scan = scan, x = x, n = n, response = response, weights = weights, offset = offset,
                 group = group, labels = labels, meas = group_measurements(cost, needs, labels), family = family),
            class = "fgseq_inputs")
}

# The one fitting pipeline behind fgseq() and the baselines: check every input (fit_inputs(), unless
# the caller hands its checked `inputs`: then x, y, group, cost, needs, weights, offset and scan are
# not given), run the core, warn, assemble the "fgseq" object. `order` (group labels) evaluates a given
# sequence instead of selecting one; `baseline` then describes the method that chose it (see
# new_fgseq()). `started`: the time of the call (now()), from which max_time counts.
fit_sequence <- function(x, y, group = NULL, cost = NULL, needs = NULL, method = "omp", lambda = 1e-6,
                         criterion = "whitened",
                         cost_sensitive = TRUE, family = default_family, weights = NULL, offset = NULL,
                         fr_gain = "quadratic", max_cost = Inf, max_steps = Inf, c_min = NULL, max_time = Inf,
                         progress = FALSE, order = NULL, baseline = NULL, engine = "auto", cost_unit = NULL,
                         call = NULL, started = now(), scan = NULL, inputs = NULL) {
  force(started)
  max_time <- check_max_time(max_time)
  criterion <- check_criterion(criterion)
  if (is.null(inputs)) {
    inputs <- fit_inputs(x, y, group, cost, needs, family, weights, offset, max_time, started, scan)
  } else if (!identical(inputs$family, family)) {
    abort("internal error: fit_sequence() was handed the inputs of another family.", class = "internal")
  }
  scan <- inputs$scan
  x <- inputs$x
  n <- inputs$n
  response <- inputs$response
  weights <- inputs$weights
  offset <- inputs$offset
  group <- inputs$group
  labels <- inputs$labels
  meas <- inputs$meas
  control <- fit_control(method, criterion, fr_gain, cost_sensitive, lambda, max_steps, max_cost, c_min,
                         max_time, if (is.null(order)) integer(0) else check_order(order, labels) - 1L,
                         engine = choose_engine(engine, x, family), meas = meas)
  cost_unit <- check_cost_unit(cost_unit)
  report <- progress_reporter(progress)

  group_index <- match(group, labels) - 1L
  # columns or y near the limits of double precision reach the core rescaled (the fit keeps x and y)
  core <- function(max_abs, spent, plain_scale = NULL) {
    extreme <- extreme_scaling(if (spent || is.null(max_abs)) numeric(ncol(x)) else max_abs, response$y, family)
    xs <- if (spent) NULL else x
    ys <- response$y
    os <- offset
    if (!is.null(extreme)) {
      if (!spent && any(extreme$x != 1)) xs <- scale_columns(x, extreme$x)
      ys <- response$y * extreme$y
      if (!is.null(offset) && family_def(family)$linear) os <- offset * extreme$y
    }
    ctl <- timed_control(control, started)
    ctl$threads <- pass_threads(ctl$threads, x)
    ctl$plain_scale <- plain_scale
    raw <- .fit_path(xs, ys, weights, if (is.null(os)) matrix(0, 0, 0) else os, group_index, length(labels),
                     measurement_index(meas, labels), family, ctl, report)
    rm(xs, ys, os)
    if (!is.null(extreme) && is.null(raw$stopped)) raw <- unscale_raw(raw, extreme)
    raw
  }
  if (isTRUE(scan$in_pass)) {
    # the core's pass over x checks its values: NA, NaN or Inf is refused (check_x_scan() names the
    # first column), and a column of extreme scale stops the fit, which runs again on x rescaled
    raw <- core(NULL, FALSE, plain_scale)
    if (isTRUE(raw$nonfinite)) check_x_scan(x)
    if (isTRUE(raw$stopped)) raw <- core(raw$max_abs, FALSE)
  } else {
    raw <- core(scan$max_abs, scan$spent)
  }
  # the training data, for fitted(), residuals() and predict() without new data (no copies: x and the
  # response are the objects given, or their checked double versions)
  data <- list(x = x, y = if (ncol(response$y) == 1L) drop(response$y) else response$y,
               weights = if (length(weights)) weights, offset = offset)
  fit <- finish_fit(raw, names_x = x_names(x), group = group, meas = meas, control = control, method = method,
                    family = family, response = response, has_offset = !is.null(offset),
                    fr_gain = fr_gain, nobs = n, call = call, baseline = baseline, engine = control$engine,
                    cost_unit = cost_unit, data = data)
  check_boundary(fit, response$y, raw$diverged)
  fit
}

# As glm() warns: at lambda = 0, fitted probabilities within 10 machine epsilons of 0 or 1 (binomial),
# means of 0 (poisson), or, multinomial, the probability of its own class within 10 machine epsilons of
# 1 for every row of a class (a class separable from the others; single rows near 0 or 1 are common at
# a finite optimum, as nnet::multinom() finds) or a probability that underflows to 0 (two classes
# separable from each other), at the last step are the sign of separable data, whose coefficients grow
# without bound (the family's `boundary`). So is a Newton solve of the path that converged as toward an
# optimum at infinity (`diverged`, the core's NewtonSolution::diverging: its last steps at a linear
# rate, each growing the coefficients), whose probabilities stop short of 0 or 1 by about the gradient's
# tolerance. y: the response as the core fitted it.
check_boundary <- function(fit, y, diverged = FALSE) {
  boundary <- family_def(fit$family)$boundary
  if (fit$lambda > 0 || is.null(boundary) || !length(fit$sequence)) return(invisible())
  what <- boundary(stats::fitted(fit), y, isTRUE(diverged))
  if (!is.null(what)) {
    warn("fitted ", what, " occurred at lambda = 0 (as glm() warns), or the coefficients grew toward them without ",
         "bound: the data are separable, or nearly so; no finite optimum may exist, and the coefficients, finite, may ",
         "be very large. A positive `lambda` keeps them bounded.", class = "boundary")
  }
  invisible()
}

# The linear engine of a Gaussian fit (see the section Computation of ?fgseq): the sample-space engine
# for wide data, where a p x p matrix would cost more than the passes over x it saves, or would not fit.
choose_engine <- function(engine, x, family) {
  if (!family_def(family)$linear) return("gram")  # GLMs never form the p x p matrix
  if (engine != "auto") return(engine)
  p <- ncol(x)
  wide <- p > 2000L && (p > nrow(x) || p > 10000L || methods::is(x, "sparseMatrix"))
  if (wide) "sample" else "gram"
}

# Whether the sample-space engine screens groups with a reduced-precision copy of dense x (see the
# section Computation of ?fgseq): option `fgseq.screen`, TRUE by default.
fit_screen <- function() {
  screen <- getOption("fgseq.screen", TRUE)
  if (!is.logical(screen) || length(screen) != 1L || is.na(screen)) {
    abort("option `fgseq.screen` must be TRUE or FALSE.")
  }
  screen
}

# Warnings about the core's result (constant columns, convergence, max_time spent), then the "fgseq" object (new_fgseq(), which takes the arguments
# after `call`). `meas`: the fit's measurements (group_measurements()).
finish_fit <- function(raw, names_x, group, meas, control, method, family, response, has_offset,
                       fr_gain, nobs, call, ...) {
  report_constant(stats::setNames(raw$constant, names_x), group, names(meas$cost))
  if (!raw$converged) {
    warn("the Newton solver did not converge at every step (the gradient of the risk did not vanish to its ",
         "tolerance): the iteration limit was reached, no step decreased the risk or the gradient stalled; the ",
         "coefficients are those of the last iterate. A positive `lambda` makes the problem better conditioned.",
         class = "convergence")
  }
  if (isTRUE(raw$partial)) warn_partial(length(raw$sequence), min(control$max_steps, length(meas$cost)), control$max_time)
  new_fgseq(raw, x_names = names_x, group = group, meas = meas, lambda = control$lambda, method = method,
            criterion = control$criterion, cost_sensitive = control$cost_sensitive, family = family, response = response,
            has_offset = has_offset, fr_gain = fr_gain, nobs = nobs, call = call, ...)
}

# The selection criteria of method = "omp" (paper, Algorithm 1, and its No-Whiten and Single variants): each
# criterion's name, as users give it (`criterion =`; the core's table lists them, core_choices()),
# and its label in print() and plots: a new criterion is its name and score in the core and its label here.
selection_criteria <- c(whitened = "G-OMP", l2 = "G-OMP (No-Whiten)", linf = "G-OMP (Single)")

check_criterion <- function(criterion) check_choice(criterion, core_choices("criterion"), "criterion")

# The selection methods (paper: Algorithm 1 CS-G-OMP, CS-G-FR, Algorithm 2 Doubling), one entry per name of
# the core's table (core_choices("method"), the first the default; tests/testthat/test-tables.R checks
# both ways): its label in print() and plots (NA: its criterion's, selection_criteria) and whether a
# cost-sensitive fit's label is prefixed "CS-" (else a cost-blind fit's is followed by "(cost-blind)").
# What a method scores, and so which arguments apply to it, is the core's (method_scores()).
selection_methods <- list(
  omp = list(label = NA_character_, cs_prefix = TRUE),
  fr = list(label = "G-FR", cs_prefix = TRUE),
  doubling = list(label = "Doubling", cs_prefix = FALSE)
)

check_method <- function(method) check_choice(method, core_choices("method"), "method")

# What `method` scores, as the core's method_traits() say (greedy/engine.hpp): "gradient" (a criterion of
# each group's gradient: `criterion` applies) or "gain" (the gain of the refit: `fr_gain` applies).
method_scores <- function(method) {
  traits <- core_traits("method")
  traits$scores[match(method, traits$name)]
}

# The options of a fit, checked, as the named list the core reads (control_from() in src/glue-fit.h).
# `method`, `criterion`, `fr_gain`, `engine` and `max_time` come checked by the verb, where they enter.
# `max_cost` is the fit's budget; the core spends it less the cost paid at step 0 (budget_beyond_paid(),
# with the fit's measurements `meas`; NULL: not known yet, and the caller does so itself).
fit_control <- function(method, criterion, fr_gain, cost_sensitive, lambda, max_steps, max_cost, c_min, max_time,
                        order = integer(0), engine = "gram", meas = NULL) {
  max_cost <- check_number(max_cost, "max_cost", lower = 0, lower_open = TRUE, allow_inf = TRUE)
  list(method = method, criterion = criterion, fr_gain = fr_gain,
       cost_sensitive = check_flag(cost_sensitive, "cost_sensitive"), lambda = check_number(lambda, "lambda", lower = 0),
       max_steps = check_max_steps(max_steps),
       max_cost = if (is.null(meas)) max_cost else budget_beyond_paid(max_cost, meas),
       c_min = if (is.null(c_min)) NA_real_ else check_number(c_min, "c_min", lower = 0, lower_open = TRUE),
       max_time = max_time, order = as.integer(order), linear_algebra = linear_algebra(), engine = engine, threads = fit_threads(),
       screen = fit_screen())
}

# NULL, or a function(done, total) that moves a cli progress bar (closed when the caller returns).
progress_reporter <- function(progress, .envir = parent.frame(), name = "Sequencing groups") {
  if (!check_flag(progress, "progress")) return(NULL)
  bar <- cli::cli_progress_bar(name, total = NA, .envir = .envir)
  function(done, total) cli::cli_progress_update(id = bar, set = done, total = total, .envir = .envir)
}

# The constructor of the "fgseq" object, the only place it is assembled, from the core's result (on the
# original scale of x and y). Single-response families keep `beta` as a sparse p x (K+1) matrix and `a0` as a
# vector; multinomial and mgaussian fits keep a list of such matrices, one per class or response
# column, and `a0` as a P x (K+1) matrix. The path's `group_cost` is the marginal cost the core paid at
# each step (the group's measurements not paid before), and at step 0 the cost of the measurements paid
# before any group (`meas$paid`, a formula's offset: the fit's `offset_needs`). Optional fields: `engine`, `cost_unit`, and
# `data`, the training data (list(x, y, weights, offset)) that fits from data keep. `baseline`: for a
# sequence chosen by a method outside the greedy selection, list(label, method) and optionally `score`
# (its value for each group of the sequence, the path's `score` column) and fields of its own (named
# list `fields`, such as the group lasso path of sparse_sequence()); its criterion is NA.
# The fields of the anytime_fit contract are checked by new_anytime_fit().
new_fgseq <- function(raw, x_names, group, meas, lambda, method, criterion, cost_sensitive, family, response,
                      has_offset, fr_gain, nobs, call, baseline = NULL, engine = NULL, cost_unit = NULL,
                      data = NULL, moments = NULL) {
  refuse_nonfinite_objective(raw, family)
  cost <- meas$cost
  labels <- names(cost)
  sequence <- labels[raw$sequence]
  K <- length(sequence)
  steps <- paste0("step", 0:K)
  group_cost <- c(paid_cost(meas), raw$group_cost)  # step 0 pays the offset's measurements (meas$paid)
  if (!is.null(baseline)) {
    method <- baseline$method
    criterion <- NA_character_
  }
  score <- if (is.null(baseline$score)) raw$score else baseline$score
  path <- data.frame(step = 0:K, group = c(NA_character_, sequence), group_cost = group_cost,
                     cost = cumsum(group_cost), objective = raw$objective, r2 = raw$r2,
                     score = c(NA_real_, score), stringsAsFactors = FALSE)
  beta <- lapply(raw$beta, coefficient_matrix, dimnames = list(x_names, steps))
  a0 <- raw$a0
  dimnames(a0) <- list(response$responses, steps)
  if (family_def(family)$multi) {
    names(beta) <- response$responses
  } else {
    beta <- beta[[1L]]
    a0 <- a0[1L, ]
  }
  fields <- list(sequence = sequence, path = path, beta = beta, a0 = a0,
                 group = stats::setNames(group, x_names), cost = cost, needs = meas$needs,
                 measurement_cost = meas$measurement_cost, rank = stats::setNames(raw$rank, labels), lambda = lambda, method = method,
                 criterion = criterion, cost_sensitive = cost_sensitive, family = family,
                 classes = response$classes, responses = response$responses, has_offset = has_offset,
                 fr_gain = fr_gain, nobs = nobs, null_risk = raw$null_risk, converged = raw$converged,
                 call = call)
  optional <- c(list(offset_needs = if (length(meas$paid)) meas$paid, label = baseline$label, partial = raw$partial,
                     engine = engine, cost_unit = cost_unit, moments = moments), data,
                baseline$fields)
  new_anytime_fit(c(fields, optional[!vapply(optional, is.null, logical(1))]), "fgseq")
}

# A fit whose objective (the training loss of each step, or of the null model) is not finite cannot be
# used: every method would refuse it as damaged. A Gaussian y whose squares overflow (magnitudes near
# 1e154 and beyond: the core fits y rescaled, but the loss in y's units is Inf) is the usual cause.
refuse_nonfinite_objective <- function(raw, family) {
  bad <- which(!is.finite(raw$objective))
  if (!length(bad) && is.finite(raw$null_risk %||% 0)) return(invisible())
  at <- if (length(bad)) paste0("at step ", bad[1L] - 1L) else "of the null model"
  abort("the fit's objective (its training loss) is not finite ", at, ": ",
        if (family_def(family)$linear) {
          paste0("the squares of `y` overflow double precision (values of magnitude near 1e154 or more). Rescale ",
                 "`y` (divide it by a constant such as a power of 10; the sequence does not change) and multiply ",
                 "the predictions back")
        } else {
          "the loss overflows; check the scale of `offset` and of the columns of `x`"
        }, ".", class = "input")
}

# The p x (K + 1) coefficients of one response as a Matrix::dgCMatrix, from the core's parts (0-based
# rows `i` of the values `x`, column starts `p`, `dim`): a column holds the columns of the groups
# selected by its step, so a wide fit keeps what it selected, not p x (K + 1) numbers (glmnet's `beta`).
coefficient_matrix <- function(parts, dimnames) {
  methods::new("dgCMatrix", i = parts$i, p = parts$p, x = parts$x, Dim = as.integer(parts$dim),
               Dimnames = dimnames)
}

check_max_steps <- function(max_steps) {
  max_steps <- check_number(max_steps, "max_steps", lower = 1, allow_inf = TRUE)
  if (is.finite(max_steps) && max_steps != round(max_steps)) {
    abort("`max_steps` must be a whole number of steps (or Inf).")
  }
  max_steps
}

# Warn about constant columns and groups; stop when no group is left.
report_constant <- function(constant, group, labels) {
  if (any(constant)) {
    dead <- labels[vapply(labels, function(g) all(constant[group == g]), logical(1))]
    cols <- names(constant)[constant & !(group %in% dead)]
    if (length(cols)) {
      warn("constant column(s) in `x` keep coefficient 0: ", paste(cols, collapse = ", "), ".",
           class = "constant")
    }
    if (length(dead) == length(labels)) {
      abort("`x` has only constant columns; every group is constant and none can be sequenced.")
    }
    if (length(dead)) {
      warn("group(s) with only constant columns are left out of the sequence: ",
           paste(dead, collapse = ", "), ".", class = "constant_group")
    }
  }
  invisible(NULL)
}

# A given sequence of group labels (distinct, existing); returns 1-based indices into `labels`.
check_order <- function(order, labels) {
  idx <- match(as.character(order), labels)
  if (anyNA(idx) || anyDuplicated(idx)) {
    abort("`sequence` must name distinct groups of `group`; unknown or repeated: ",
          paste(unique(as.character(order)[is.na(idx) | duplicated(idx)]), collapse = ", "), ".")
  }
  idx
}
