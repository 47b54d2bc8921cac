#' A per-row acquisition policy with a calibrated guarantee
#'
#' A fitted sequence pays the same prefix of groups for every row. `fgseq_policy()` turns it into a
#' policy that buys, for each row, only the groups that row needs: at each point the next group is the
#' one whose measurement is expected to reduce the decision risk the most per unit of its marginal cost,
#' and the row stops when no group reduces it by more than `tau` per cost unit (`stopping =
#' "reduction"`), or when neither that group nor buying every group left does (`stopping =
#' "lookahead"`), or when its risk itself is below `tau` (`stopping = "risk"`), or its budget is spent.
#' `tau` is chosen on calibration rows so that the policy's decision differs from the full model's on at
#' most a fraction `epsilon` of rows, with probability at least `1 - delta` (Learn-then-Test,
#' Angelopoulos, Bates, Candes, Jordan and Lei 2021).
#'
#' @section Working model and risk:
#' Given the observed groups `O` of a row, the linear predictor `eta` of the model of step `step` (by
#' default the last) is, under a Gaussian working model of `x` (the training mean and covariance of the
#' columns the model uses, stored by the fit), normal with mean
#' `E[eta | x_O] = a0 + mu' beta + (beta_O + Sigma_OO^- Sigma_OM beta_M)' (x_O - mu_O)` and variance
#' `V_O = beta_M' (Sigma_MM - Sigma_MO Sigma_OO^- Sigma_OM) beta_M` (see the section Missing groups of
#' [predict.fgseq()]). The risk of stopping at `O` is the probability that the current decision differs
#' from the full-information decision:
#' * binomial: the decision is the sign of `eta`; with `m = E[eta | x_O]`, the risk is
#'   `pnorm(-|m| / sqrt(V_O))`. Observing a group `g` more moves the mean to `m' ~ N(m, V_O - V_{O+g})`,
#'   and the expected risk after it is `E[pnorm(-|m'| / sqrt(V_{O+g}))]`, the probability that `m'` and
#'   `eta` fall on different sides of 0: in closed form, `pnorm(-a) + pnorm(-b) - 2 P(Z_1 > a, Z_2 >
#'   b)` with `a = m / sqrt(V_O - V_{O+g})`, `b = m / sqrt(V_O)` and `(Z_1, Z_2)` standard normal of
#'   correlation `sqrt((V_O - V_{O+g}) / V_O)`, whose probability is computed by the method of Drezner
#'   and Wesolowsky (1989) as Genz (2004) refined it for double precision (about `1e-15`);
#' * multinomial: the decision is the class of largest probability, and the risk is approximated by
#'   the contrast of the two leading classes: with `a = e_1 - e_2` (the leading and the runner-up class
#'   of the row at that point), the risk is `pnorm(-|a'm| / sqrt(a' V_O a))`, the probability that
#'   these two swap, and its expected value after a group is the binomial formula above on that
#'   contrast. It is exact for two classes and leaves out swaps with the third class onwards (a lower
#'   bound of the probability that the arg max changes, close to it when two classes compete);
#' * gaussian: the risk is the probability that the prediction is further than `tol` from the full
#'   model's, `2 pnorm(-tol / sqrt(V_O))`, and after observing `g` it is `2 pnorm(-tol / sqrt(V_{O+g}))`.
#'   It depends on the variances only, not on the values: the gaussian policy buys the groups in the same
#'   order for every row (a row can still stop earlier under a smaller budget).
#'
#' The reduction of `g` is the risk now less its expected value after `g` (never negative: the
#' expectation of the risk cannot exceed it), divided by the marginal cost of `g` (its measurements not
#' yet paid: a measurement already paid is free, as everywhere in the package; a group of marginal cost
#' 0 with a positive reduction is taken first). Ties (within a relative `1e-10`) go to the group earlier
#' in the fit's sequence. A row stops when the best score is below `tau` (`stopping = "reduction"`,
#' the rule of the expected reduction per cost), or when both the best score and the risk per cost of
#' buying every group left are below `tau` (`stopping = "lookahead"`: buying them all ends at the full
#' model, whose decision is the full-information decision, so that plan reduces the risk by all of it,
#' for the marginal cost of the groups left, counted only when they fit in the row's budget; it looks
#' past a next group that alone reduces the risk little), or when the risk of stopping now is below
#' `tau` (`stopping = "risk"`: the row goes on while its decision may still change, whatever the price
#' of the next group), or when the probability of its prediction at that point is at least `margin` from 0.5
#' (`stopping = "margin"`, binomial; multinomial: half the gap between the two largest probabilities,
#' as the cascade stops), or when no group fits in its budget. Its prediction is the fit's own prefix
#' model when the groups bought are a prefix of the sequence (as [predict.fgseq()] at that budget), and otherwise the conditional mean of `eta` given
#' them (probabilities by the probit approximation `plogis(m / sqrt(1 + pi V_O / 8))`).
#'
#' With `working_model` a mixture of Gaussians ([fgseq_mixture()], binomial fits), component `k` of
#' proportion `pi_k` has, given `x_O`, the posterior weight `w_k` proportional to `pi_k` times the
#' density of `x_O` under it, and `eta` the conditional normal `N(m_k, V_k)` of the formulas above with
#' the component's mean and covariance. The probability that the full model decides 1 is
#' `P_1 = sum_k w_k pnorm(m_k / sqrt(V_k))`, the node's probability `sum_k w_k plogis(m_k / sqrt(1 + pi
#' V_k / 8))`, its decision 1 when that is above 1/2, and its risk the probability that the full model
#' decides otherwise (`1 - P_1` or `P_1`; with one component, the binomial risk above). The expected risk
#' after a group `g` has no closed form: it is the average over the mixture's fixed draws `z_s`
#' (`draws` of them) of the risk after observing `x_g = E_j[x_g | x_O] + L_j z_s` (`L_j` the Cholesky
#' factor of the covariance of `x_g` given `x_O` under component `j`), which updates every component's
#' weight by its density of `x_g` and its conditional mean of `eta`, weighted by `w_j / draws` over the
#' components `j`. Where a component's covariance determines a column of `g` from the others, that
#' column is left out of every component's update. The rest (scores, ties, stopping, budgets,
#' calibration) is as with one Gaussian, and so is the guarantee, which holds for any working model.
#'
#' Values far outside the training range are not refused: the conditional mean is linear in the
#' observed values, so a value many standard deviations out moves the prediction as the fit's linear
#' model would, and the working model's variances do not depend on the values at all.
#'
#' @section Rules:
#' * `"adaptive"` (the default): the greedy rule above over every group of the model;
#' * `"sequence"`: the fit's own order, each row stopped by the same rule on the next group; with
#'   `tau = 0` no row stops before its budget, and the policy is [predict.fgseq()] at that budget;
#' * `"cascade"` (binomial): the fit's own order, each row stopped at the first prefix whose
#'   probability is at least `margin` from 0.5 (an early exit on the margin, as prediction-time early
#'   stopping in boosting libraries does), `margin` calibrated as `tau` is. The baseline an adaptive
#'   policy must beat.
#' * `"best"`: each of the policies above with each stopping its family allows (adaptive and sequence
#'   rules stopping on the reduction or the lookahead, the adaptive rule on the margin, and the
#'   cascade: six policies for binomial and multinomial fits, four for gaussian ones), each calibrated at
#'   `delta / K` (`K` of them), and the one of least mean cost on the calibration rows among those that
#'   meet the guarantee is kept (see the section The guarantee). The calibration rows' paths are run
#'   once per order, every stopping read off them.
#'
#' @section The guarantee:
#' For each threshold on a grid, from the strictest (`tau = 0`, which buys every group the budget
#' allows; for the cascade a margin above 0.5) to the loosest, the number `k` of calibration rows on
#' which the policy's decision differs from the full model's (gaussian: a prediction further than `tol`
#' from the full model's) gives the p-value `pbinom(k, n, epsilon)` of the hypothesis that the rate of
#' disagreement exceeds `epsilon`. Fixed-sequence testing walks the grid while the p-value is at most
#' `delta` and takes the last threshold passed. Then, with probability at least `1 - delta` over the
#' draw of the calibration rows, the policy disagrees with the full model on at most a fraction
#' `epsilon` of new rows, **for rows exchangeable with the calibration rows** (drawn from the same
#' distribution, as every conformal-type guarantee assumes). The guarantee needs no assumption on `x`:
#' the Gaussian working model affects how much the policy saves, not the guarantee. With no
#' disagreement the p-value is `(1 - epsilon)^n`, so at least `ceiling(log(delta) / log(1 - epsilon))`
#' calibration rows are needed. The guarantee is about agreement with the full model, not accuracy;
#' `y` is used only to report accuracy.
#'
#' With `rule = "best"`, each of the `K` policies is tested by its own fixed sequence at level
#' `delta / K`: by the union bound, the probability that any of them passes a threshold whose rate of
#' disagreement exceeds `epsilon` is at most `delta`, so the guarantee holds for the policy kept however
#' it is chosen among those that passed (Learn-then-Test's family-wise error control, Angelopoulos et al.
#' 2021, section 4, with the Bonferroni correction). The price is the smaller level of each test:
#' `ceiling(log(delta / K) / log(1 - epsilon))` calibration rows at least, and a slightly stricter
#' threshold for each policy than it would have alone.
#'
#' @param fit An `"fgseq"` fit ([fgseq()]) of the binomial, multinomial or gaussian family that stores the moments
#'   of `x` or keeps it (see the section Missing groups of [predict.fgseq()]).
#' @param x Calibration rows: a numeric matrix (or sparse matrix) with the training columns, complete
#'   in the columns of the model's groups (matrix fits).
#' @param y `NULL` or the response of the calibration rows (length `n`; for reporting accuracy only).
#' @param data For formula fits, the calibration rows as a data frame (used instead of `x`; its
#'   response, when present, is `y`).
#' @param epsilon The tolerated rate of disagreement with the full model, in (0, 1).
#' @param delta The probability that the guarantee may fail, in (0, 1).
#' @param rule `"adaptive"`, `"sequence"`, `"cascade"` or `"best"` (see the section Rules).
#' @param stopping For the rules `"adaptive"` and `"sequence"`: what the threshold bounds, `"reduction"`
#'   (`tau` on the best expected risk reduction per cost unit, the default), `"lookahead"` (`tau` on the
#'   larger of that and the risk per cost unit of buying every group left), `"risk"` (`tau` on the risk
#'   of stopping, a probability) or `"margin"` (binomial and multinomial: the row stops once the
#'   probability of its node's prediction is at least `margin` from 0.5, or the two largest
#'   probabilities at least `2 margin` apart, as the cascade stops; the groups still chosen by the
#'   rule); see the section Working model and risk. Not for the cascade, which stops on `margin`,
#'   nor for `rule = "best"`, which chooses it.
#' @param tau `NULL` (calibrate on the rows given) or a fixed threshold `>= 0` on the risk reduction per
#'   cost unit (per cost unit of the risk, as `stopping` says), or on the risk with `stopping = "risk"` (`"adaptive"`, `"sequence"`): no calibration
#'   then, and `x` may be omitted.
#' @param margin `NULL` (calibrate) or a fixed margin in `[0, 0.5]` (`"cascade"`, `stopping = "margin"`).
#' @param tol Gaussian family: the tolerance, in the units of `y`, within which a prediction agrees
#'   with the full model's (a positive number; required). Not used for binomial fits.
#' @param budget The most a row may spend, in cost units (a single number `>= 0`, or `Inf`).
#' @param step The step of the fit whose model is the full model (a whole number, by default the last).
#'   The guarantee is agreement with that model: when an earlier step is as accurate (the last steps of
#'   a path often add cost and little accuracy), a policy calibrated against it can cost far less for
#'   the same accuracy. Choose it on rows other than the calibration rows: the guarantee does not
#'   cover a full model chosen on the rows that calibrate the policy.
#' @param working_model `NULL` (the fit's moments: one Gaussian) or an `"fgseq_mixture"`
#'   ([fgseq_mixture()], binomial fits) fitted on rows other than the calibration rows: the working model
#'   of `x` under which the policy scores the groups (see the section Working model and risk). Not for
#'   the cascade; with `rule = "best"` the adaptive and sequence rules use it.
#' @param ... Not used: an unknown argument is an error.
#' @return An object of class `"fgseq_policy"`: a list with `fit` (the fit without its training data),
#'   `rule`, `stopping` (`"reduction"`, `"risk"`, or `"margin"` for the cascade), `step`, `tau` or `margin` (the threshold in use), `tol`, `budget`, `epsilon`, `delta`,
#'   `calibration` (a data frame, one row per threshold of the grid: `threshold`, `disagreement` (rate),
#'   `p_value`, `mean_cost`, `passed`), `n_calibration`, `chosen` (the row of `calibration` in use), and
#'   on the calibration rows at that threshold `cost` (the cost each row spent, cost units), `groups`
#'   (a list of the groups each row bought, in order), `disagreement` (rate), `accuracy` (binomial: of the
#'   policy and of the full model, when `y` is given) or `rmse` (gaussian). With `rule = "best"`, `rule`
#'   and `stopping` are those of the policy kept, `calibration` is its own table (at level `delta_each
#'   = delta / K`), and `selection` is a data frame with one row per policy tried: `rule`, `stopping`,
#'   `threshold`, `disagreement`, `mean_cost` (on the calibration rows, at its calibrated threshold; NA
#'   when it met no threshold), `passed` and `chosen`.
#' @section Errors:
#' Stops (class `fgseq_error_input`, naming the argument) when `epsilon` or `delta` is not in (0, 1),
#' `tau` is negative, `margin` outside `[0, 0.5]`, `tol` missing or not positive for a gaussian fit,
#' `budget` negative, `stopping` not one of its values or given for the cascade or `rule = "best"`, `tau`
#' or `margin` given with `rule = "best"`, `step` not a step of the fit, `working_model` given for the
#' cascade, or not an `"fgseq_mixture"` of the fit's columns; when the fit has an offset; when the fit's family is not binomial, multinomial or
#' gaussian, the cascade is asked of a gaussian fit, or a mixture working model of a fit that is not binomial (class `fgseq_error_family`); when the fit stores
#' no moments of `x` (class `fgseq_error_no_moments`, saying why); when there are fewer calibration
#' rows than the guarantee needs, saying how many are needed, or not even the strictest threshold meets
#' it, as when the budget stops rows short of the full model (class `fgseq_error_calibration`); when the
#' calibration rows lack a value in the model's columns or have other columns than the fit (as
#' [predict.fgseq()]); when an argument is unknown (class `fgseq_error_unknown_argument`).
#' @references Angelopoulos, A. N., Bates, S., Candes, E. J., Jordan, M. I. and Lei, L. (2021).
#'   Learn then test: calibrating predictive algorithms to achieve risk control.
#'   \url{https://arxiv.org/abs/2110.01052}
#'
#'   Hu, H., Grubb, A., Bagnell, J. A. and Hebert, M. (2016). Efficient feature group sequencing for
#'   anytime linear prediction. \url{https://arxiv.org/abs/1409.5495}
#'
#'   Drezner, Z. and Wesolowsky, G. O. (1989). On the computation of the bivariate normal integral.
#'   *Journal of Statistical Computation and Simulation* 35, 101-107.
#'
#'   Genz, A. (2004). Numerical computation of rectangular bivariate and trivariate normal and t
#'   probabilities. *Statistics and Computing* 14, 251-260.
#'
#'   MacKay, D. J. C. (1992). The evidence framework applied to classification networks. *Neural
#'   Computation* 4(5), 720-736 (the probit approximation).
#' @seealso [next_group()], [predict.fgseq_policy()], [write_predictor()], `vignette("adaptive")`.
#' @examples
#' set.seed(1)
#' train <- sample(nrow(heart), 150)
#' fit <- fgseq(diagnosis ~ ., data = heart[train, ], cost = heart_cost, family = "binomial",
#'              lambda = 1e-3)
#' policy <- fgseq_policy(fit, data = heart[-train, ], epsilon = 0.1, delta = 0.1)
#' policy
#' next_group(policy, heart[1, c("age", "sex", "cp")])
#' @export
fgseq_policy <- function(fit, x = NULL, y = NULL, data = NULL, epsilon = 0.05, delta = 0.1,
                         rule = c("adaptive", "sequence", "cascade", "best"), stopping = c("reduction", "lookahead", "risk", "margin"),
                         tau = NULL, margin = NULL, tol = NULL, budget = Inf, step = NULL, working_model = NULL, ...) {
  check_dots(...)
  validate_fit(fit, "fit")
  if (!inherits(fit, "fgseq")) abort("`fit` must be an \"fgseq\" fit (fgseq()): a policy conditions its linear predictor.")
  stopping <- if (missing(stopping)) NULL else stopping
  rule <- check_choice(rule, c("adaptive", "sequence", "cascade", "best"), "rule")
  if (rule == "best") {
    return(best_policy(fit, x, y, data, epsilon, delta, stopping, tau, margin, tol, budget, step, working_model))
  }
  pol <- policy_settings(fit, rule, stopping, epsilon, delta, tau, margin, tol, budget, step, working_model)
  fixed <- if (on_margin(pol)) margin else tau
  if (is.null(x) && is.null(data)) {
    if (is.null(fixed)) {
      abort("give calibration rows (`x`, or `data` for a formula fit) to calibrate the policy, or a fixed `",
            if (on_margin(pol)) "margin" else "tau", "`.")
    }
    return(new_policy(pol, NULL))
  }
  cal <- policy_rows(fit, x, y, data, "x")
  if (is.null(fixed)) check_calibration_rows(pol, cal)
  paths <- policy_paths(pol, cal$x, rep(pol$budget, nrow(cal$x)), threshold = NULL)
  new_policy(pol, calibrate_policy(pol, paths, cal, fixed))
}

# Whether there are enough calibration rows for the guarantee of `pol` (its delta: of each policy
# tested, delta / K when `rule = "best"` tests K of them).
check_calibration_rows <- function(pol, cal, K = 1L) {
  n_needed <- ceiling(log(pol$delta) / log(1 - pol$epsilon))
  if (nrow(cal$x) >= n_needed) return(invisible(TRUE))
  abort("`", cal$arg, "` has ", nrow(cal$x), " calibration rows; a disagreement rate of at most epsilon = ",
        pol$epsilon, " with probability 1 - delta = ", 1 - pol$delta * K, " needs at least ", n_needed,
        if (K > 1L) paste0(" when `rule = \"best\"` tests ", K, " policies at delta / ", K, " each"),
        " (ceiling(log(delta", if (K > 1L) paste0(" / ", K), ") / log(1 - epsilon))): give more rows, or a larger ",
        "epsilon or delta", if (K > 1L) ", or name a rule", ".", class = "calibration")
}

# The policies `rule = "best"` chooses among: every rule with every stopping its family allows (the
# sequence rule stopping on the margin is the cascade).
policy_candidates <- function(family) {
  stops <- if (classifies(family)) c("reduction", "lookahead", "margin") else c("reduction", "lookahead")
  out <- expand.grid(stopping = stops, rule = c("adaptive", "sequence"), stringsAsFactors = FALSE)[, c("rule", "stopping")]
  out$rule[out$rule == "sequence" & out$stopping == "margin"] <- "cascade"
  out
}

# rule = "best": each policy of policy_candidates() calibrated by Learn-then-Test at delta / K (K of
# them), the one of least mean cost on the calibration rows among those that meet the guarantee kept.
# The paths of the calibration rows are run once per order (adaptive, the fit's sequence), every
# stopping read off the same records.
best_policy <- function(fit, x, y, data, epsilon, delta, stopping, tau, margin, tol, budget, step, working_model = NULL) {
  if (!is.null(stopping)) abort("`stopping` is chosen by `rule = \"best\"`; leave it out, or name a rule.")
  if (!is.null(tau) || !is.null(margin)) {
    abort("`rule = \"best\"` calibrates the threshold of each policy it tries; leave `tau` and `margin` out, or name a rule.")
  }
  if (is.null(x) && is.null(data)) {
    abort("`rule = \"best\"` chooses on calibration rows: give them as `x` (or `data` for a formula fit).")
  }
  base <- policy_settings(fit, "adaptive", "reduction", epsilon, delta, NULL, NULL, tol, budget, step, working_model)
  delta <- base$delta
  cands <- policy_candidates(base$family)
  K <- nrow(cands)
  base$delta <- delta / K
  cal <- policy_rows(fit, x, y, data, "x")
  check_calibration_rows(base, cal, K)
  budgets <- rep(base$budget, nrow(cal$x))
  order <- ifelse(cands$rule == "adaptive", "adaptive", "sequence")  # the order each policy follows
  paths <- list()
  for (o in unique(order)) {
    p <- base
    p$rule <- o
    paths[[o]] <- policy_paths(p, cal$x, budgets, threshold = NULL)
  }
  pols <- lapply(seq_len(K), function(k) {
    p <- base
    p$rule <- cands$rule[k]
    p$stopping <- cands$stopping[k]
    if (p$rule == "cascade") p$cm$mixture <- NULL  # the cascade reads the prefix models only
    p
  })
  res <- lapply(seq_len(K), function(k) calibrate_policy(pols[[k]], paths[[order[k]]], cal, NULL, required = FALSE))
  ok <- !vapply(res, is.null, logical(1))
  if (!any(ok)) {
    abort("no policy meets the guarantee at delta / ", K, " = ", format(delta / K, digits = 3),
          " (each of the ", K, " policies `rule = \"best\"` tests, at its strictest threshold)",
          if (is.finite(base$budget)) ", as the budget stops rows short of the full model",
          "; give a larger epsilon, delta or budget, or more calibration rows.", class = "calibration")
  }
  # a number of each calibrated policy, NA for those that met no threshold
  of_each <- function(f) vapply(res, function(r) if (is.null(r)) NA_real_ else f(r), numeric(1))
  mean_cost <- of_each(function(r) mean(r$cost))
  chosen <- which.min(ifelse(ok, mean_cost, Inf))
  out <- new_policy(pols[[chosen]], res[[chosen]])
  out$delta <- delta
  out$selection <- data.frame(
    rule = cands$rule, stopping = cands$stopping, threshold = of_each(function(r) r$threshold),
    disagreement = of_each(function(r) r$disagreement), mean_cost = mean_cost, passed = ok,
    chosen = seq_len(K) == chosen, stringsAsFactors = FALSE)
  out$delta_each <- delta / K
  out
}

# The checked settings of a policy, with its conditional model.
policy_settings <- function(fit, rule, stopping, epsilon, delta, tau, margin, tol, budget, step, working_model = NULL) {
  rule <- check_choice(rule, c("adaptive", "sequence", "cascade"), "rule")
  if (rule == "cascade") {
    if (!is.null(stopping)) abort("`stopping` is for the rules \"adaptive\" and \"sequence\"; the cascade stops on `margin`.")
    stopping <- "margin"
  } else {
    stopping <- if (is.null(stopping)) "reduction" else check_choice(stopping, policy_stoppings, "stopping")
  }
  family <- family_def(fit$family)$name
  if (!family %in% family_names("policy")) {
    abort("fgseq_policy() takes fits of the families ", paste(family_names("policy"), collapse = ", "),
          "; this fit's family is ", family, ".", class = "family")
  }
  if (stopping == "margin" && !classifies(family)) {
    abort(if (rule == "cascade") "`rule = \"cascade\"`" else "`stopping = \"margin\"`",
          " stops on the margin of a probability: it needs a binomial or multinomial fit.", class = "family")
  }
  epsilon <- check_number(epsilon, "epsilon", lower = 0, upper = 1, lower_open = TRUE, upper_open = TRUE)
  delta <- check_number(delta, "delta", lower = 0, upper = 1, lower_open = TRUE, upper_open = TRUE)
  if (!is.null(tau)) {
    if (stopping == "margin") abort("`tau` is for the rules \"adaptive\" and \"sequence\" stopping on the reduction, the lookahead or the risk; a policy stopping on the margin (the cascade) takes `margin`.")
    tau <- check_number(tau, "tau", lower = 0, allow_inf = TRUE)
  }
  if (!is.null(margin)) {
    if (stopping != "margin") abort("`margin` is for `rule = \"cascade\"` and `stopping = \"margin\"`; the other policies take `tau`.")
    margin <- check_number(margin, "margin", lower = 0, upper = 0.5)
  }
  if (!classifies(family)) {
    if (is.null(tol)) abort("`tol` is needed for a gaussian fit: the distance (in the units of y) within which a ",
                            "prediction agrees with the full model's.")
    tol <- check_number(tol, "tol", lower = 0, lower_open = TRUE)
  } else if (!is.null(tol)) {
    abort("`tol` is for gaussian fits; a ", family, " policy compares decisions (leave `tol` out).")
  }
  if (isTRUE(fit$has_offset)) {
    abort("fgseq_policy() takes fits without an offset: the conditional model of a row does not hold one; ",
          "refit without `offset` (or with the offset's variable as a group).")
  }
  if (!is.null(working_model)) {
    if (rule == "cascade") {
      abort("`working_model` is for the rules \"adaptive\" and \"sequence\": the cascade stops on the margins of the ",
            "prefix models and uses no working model.")
    }
    if (family != "binomial") {
      abort("a mixture `working_model` is for binomial fits; this fit's family is ", family,
            " (leave `working_model` out: the fit's own moments, one Gaussian).", class = "family")
    }
  }
  budget <- check_number(budget, "budget", lower = 0, allow_inf = TRUE)
  K <- length(fit$sequence)
  if (!K) abort("`fit` has no step: a policy needs at least one group in the sequence.")
  step <- if (is.null(step)) K else check_number(step, "step", lower = 1, upper = K, whole = TRUE)
  fit <- lean_fit(fit)  # the moments formed once, from the training x if the fit keeps it
  list(fit = fit, family = family, rule = rule, stopping = stopping, epsilon = epsilon, delta = delta, tau = tau,
       margin = margin, tol = tol, budget = budget, step = as.integer(step),
       cm = conditional_model(fit, step, mixture = working_model))
}

# The rows a policy is calibrated on or predicts: list(x (dense, n x p), y (NULL or the response as
# class labels or numbers), arg (the argument they came from)).
policy_rows <- function(fit, x, y, data, arg = "x") {
  if (!is.null(data)) {
    if (is.null(fit$terms)) abort("`data` is for formula fits; give this matrix fit's rows as `", arg, "`.")
    design <- new_design(fit, newdata = data)
    if (!is.null(design$rows) && length(design$rows) != design$n) {
      abort("`data` holds NA in the model's variables; a policy needs complete rows.", class = "na")
    }
    resp <- tryCatch(stats::model.response(stats::model.frame(fit$terms, data, na.action = stats::na.pass)),
                     error = function(e) NULL)
    if (is.null(y)) y <- resp
    x <- design$x
    arg <- "data"
  } else {
    if (is.null(x)) abort("give the rows as `", arg, "` (or `data` for a formula fit).")
    x <- new_design(fit, newx = x)$x
  }
  x <- as.matrix(x)
  storage.mode(x) <- "double"
  if (!is.null(y)) y <- policy_response(fit, y, nrow(x))
  list(x = x, y = y, arg = arg)
}

# The response of calibration rows as class labels (binomial) or numbers (gaussian).
policy_response <- function(fit, y, n) {
  if (length(y) != n) abort("`y` must have one value per calibration row (", n, "); it has ", length(y), ".")
  if (anyNA(y)) abort("`y` holds NA; give the response of every calibration row, or leave `y` out.")
  if (is.null(fit$classes)) {
    if (!is.numeric(y)) abort("`y` must be numeric for a gaussian fit.")
    return(as.double(y))
  }
  if (is.factor(y) || is.character(y)) {
    y <- as.character(y)
    if (!all(y %in% fit$classes)) abort("`y` holds classes the fit does not know: ", paste(setdiff(unique(y), fit$classes), collapse = ", "), ".")
    return(y)
  }
  if (is.logical(y)) y <- as.integer(y)
  if (!is.numeric(y) || !all(y %in% c(0, 1))) abort("`y` must be 0/1, logical, or the fit's classes.")
  fit$classes[y + 1L]
}

# The marginal cost of each group of `groups` alone, given the measurements `paid`.
candidate_costs <- function(fit, groups, paid) {
  vapply(groups, function(g) marginal_costs(g, fit$needs, fit$measurement_cost, paid), numeric(1))
}

# The link (n x P) of the prefix model of step j on the rows of x.
prefix_link <- function(fit, x, j) {
  pm <- prefix_model(fit, j)
  x[, pm$prefix_cols, drop = FALSE] %*% pm$prefix_beta + rep(pm$prefix_a0, each = nrow(x))
}

# What a node of a policy decides for its rows (`rows` of x, all columns of the fit; budget: theirs):
# the prediction at the node (`link`, n x P, and `rlink`, whose inverse link is the response: the
# prefix model when its groups are a prefix of the sequence, else the conditional mean and
# response_link()), the decision, and the group each row would buy next with its score (NA, -Inf:
# none fits its budget, or none is left). With a `threshold` and stopping = "risk" or "margin", the
# candidates are scored only for the rows that do not stop on that statistic (the others stop whatever
# the scores: their `best` is NA). The numbers are the core's (adaptive/node.hpp: conditional
# moments, contrast, risk, each candidate's expected risk and score, the best per row); `table = TRUE`
# keeps each candidate's reduction and score (candidates x rows).
policy_node <- function(pol, node, x, rows, budget, threshold = NULL, table = FALSE) {
  fit <- pol$fit
  cm <- pol$cm
  st <- node$state
  j <- length(st$groups)
  prefix <- setequal(st$groups, fit$sequence[seq_len(j)])
  left <- setdiff(cm$groups, st$groups)
  cand <- if (pol$rule == "adaptive") left else utils::head(left, 1L)
  pivots <- lapply(cand, function(g) which(cm$col_group == g))
  spec <- list(swept = st$swept, swept_cols = cm$columns[st$swept], swept_mu = cm$mu[st$swept], prefix = prefix,
               candidates = pivots, candidate_diag0 = lapply(pivots, function(k) cm$diag0[k]),
               marginal_cost = as.double(candidate_costs(fit, cand, node$paid)), spent = as.double(node$spent),
               # read by the lookahead only: the recorded paths (threshold NULL) keep it for every stopping
               rest_cost = if (is.null(threshold) || policy_stopping(pol) == "lookahead") {
                 sum(marginal_costs(left, fit$needs, fit$measurement_cost, node$paid))
               } else 0,
               budget = as.double(budget))
  if (prefix) spec <- c(spec, if (!is.null(pol$prefix_models)) pol$prefix_models[[j + 1L]] else prefix_model(fit, j))
  settings <- list(family = pol$family, rule = pol$rule, stopping = policy_stopping(pol),
                   tol = if (is.null(pol$tol)) 0 else pol$tol, threshold = if (is.null(threshold)) NA_real_ else threshold,
                   eta0 = cm$eta[1L], P = cm$P, base = as.double(cm$base))
  A <- st$A
  if (!is.null(cm$mixture)) {  # each component's swept matrix, pivots and log weight before x_O
    spec$mixture <- Map(function(sm, c) list(A = sm$A, swept = sm$swept, mu = c$mu, base = c$base,
                                             lw0 = c$log_prior - (sm$logdet + length(sm$swept) * log(2 * pi)) / 2,
                                             diag0 = c$diag0),
                        st$mix, cm$mixture$components)
    spec$model_cols <- cm$columns
    spec$draws <- cm$mixture$draws
    A <- matrix(0, 0, 0)
  }
  ev <- .policy_node(A, x, as.integer(rows), spec, settings, table)
  ev$best <- cand[ev$best]
  ev$prefix <- prefix
  if (pol$rule == "cascade") ev$risk <- NULL
  if (table && length(cand)) {
    ev[["table"]] <- list(groups = cand, marginal_cost = spec$marginal_cost, reduction = ev[["reduction"]],
                          score = ev[["table_score"]])
  }
  ev[c("reduction", "table_score")] <- NULL
  ev
}

# The prefix model of step j over the fit's columns (1-based, of x): its columns, coefficients
# (columns x P) and intercepts (P).
prefix_model <- function(fit, j) {
  cols <- which(fit$group %in% fit$sequence[seq_len(j)])
  beta <- if (is.list(fit$beta)) fit$beta else list(fit$beta)
  B <- matrix(0, length(cols), length(beta))
  for (k in seq_along(beta)) B[, k] <- as.numeric(beta[[k]][cols, j + 1L])
  a0 <- if (is.matrix(fit$a0)) fit$a0[, j + 1L] else fit$a0[j + 1L]
  list(prefix_cols = cols, prefix_beta = B, prefix_a0 = as.double(a0))
}

# The statistic a node's rows stop on: the margin (the cascade, stopping = "margin"), the best score
# (stopping = "reduction"), the larger of it and the risk per cost of every group left (stopping =
# "lookahead") or the risk of stopping (stopping = "risk"); of a node's evaluation, or of
# recorded paths (n x (D + 1)).
stop_statistic <- function(pol, ev) {
  switch(policy_stopping(pol), margin = ev$margin, risk = ev$risk, lookahead = ev$lookahead, ev$score)
}

# What the threshold of a policy may bound (`stopping` of fgseq_policy(), whose formals list them too).
policy_stoppings <- c("reduction", "lookahead", "risk", "margin")

# How a policy stops (a policy made before `stopping` existed stops on the reduction).
policy_stopping <- function(pol) if (pol$rule == "cascade") "margin" else if (is.null(pol$stopping)) "reduction" else pol$stopping

# Whether a policy stops on the margin (the cascade, or stopping = "margin"): it stops where the
# statistic is at least the threshold, the others where it is below it.
on_margin <- function(pol) policy_stopping(pol) == "margin"

# Whether the rows of a node stop there, at the threshold (tau, or the cascade's margin).
policy_stops <- function(pol, ev, threshold) {
  if (on_margin(pol)) return(is.na(ev$best) | ev$margin >= threshold)
  is.na(ev$best) | stop_statistic(pol, ev) < threshold
}

# Runs the policy on the rows of x (dense, complete in the model's columns) with per-row budgets,
# breadth-first: the rows at one node (the same set of groups bought, in any order) share its
# conditional model, and a group bought is one sweep of its pivots for all of them. With `threshold` NULL every row
# runs until no group fits (tau = 0 for the adaptive rules, the whole sequence for the cascade) and every
# node of its path is recorded (for calibration): n x (D + 1) matrices of each statistic a row can stop
# on at the node (`score`, the best score; `lookahead`, the larger of it and risk / cost of the groups left;
# `risk`, NA for the cascade; `margin`, NA for gaussian fits),
# `cost`, `decision`, `bought` (the group bought at the node, NA at the last), and `depth` (nodes per
# row). The order does not depend on how the rows stop, so one record serves every stopping. With a threshold, each row stops at its first
# node that stops, and the result holds, per row, `groups` (list), `cost`, `link` and `rlink` (n x P).
policy_paths <- function(pol, x, budget, threshold = NULL) {
  fit <- pol$fit
  pol$prefix_models <- lapply(0:pol$step, function(j) prefix_model(fit, j))  # read by every prefix node
  n <- nrow(x)
  P <- pol$cm$P
  D <- length(pol$cm$groups) + 1L
  record <- is.null(threshold)
  if (record) {
    mats <- lapply(stats::setNames(nm = c("score", "lookahead", "risk", "margin", "cost", "decision")), function(v) matrix(NA_real_, n, D))
    bought <- matrix(NA_character_, n, D)
    depth <- integer(n)
  } else {
    out <- list(groups = vector("list", n), cost = numeric(n), link = matrix(0, n, P), rlink = matrix(0, n, P))
    trail <- matrix(NA_character_, n, D)  # the groups each row bought, in order
  }
  paid0 <- as.character(fit$offset_needs)
  frontier <- list(list(rows = seq_len(n), state = observe_groups(pol$cm, character(0)), paid = paid0,
                        spent = sum(fit$measurement_cost[paid0])))
  while (length(frontier)) {
    # the nodes of the next depth, one per set of groups bought (whatever the order: what is known, paid
    # and spent depends on the set only), keyed by the set
    next_frontier <- list()
    for (node in frontier) {
      r <- node$rows
      ev <- policy_node(pol, node, x, r, budget[r], threshold)
      d <- length(node$state$groups) + 1L
      if (record) {
        mats$score[r, d] <- ev$score
        mats$lookahead[r, d] <- ev$lookahead
        if (!is.null(ev$risk)) mats$risk[r, d] <- ev$risk
        mats$margin[r, d] <- ev$margin
        mats$cost[r, d] <- node$spent
        mats$decision[r, d] <- ev$decision
        bought[r, d] <- ev$best
        depth[r] <- d
        go <- !is.na(ev$best)
      } else {
        stop_here <- policy_stops(pol, ev, threshold)
        s <- r[stop_here]
        out$cost[s] <- node$spent
        out$link[s, ] <- ev$link[stop_here, , drop = FALSE]
        out$rlink[s, ] <- ev$rlink[stop_here, , drop = FALSE]
        for (i in s) out$groups[[i]] <- trail[i, seq_len(d - 1L)]
        go <- !stop_here
        trail[r[go], d] <- ev$best[go]
      }
      for (g in unique(ev$best[go])) {
        child <- r[go & ev$best %in% g]
        key <- paste(sort(match(c(node$state$groups, g), pol$cm$groups)), collapse = ",")
        if (!is.null(next_frontier[[key]])) {
          next_frontier[[key]]$rows <- c(next_frontier[[key]]$rows, child)
          next
        }
        next_frontier[[key]] <- list(rows = child, state = observe_groups(pol$cm, g, node$state),
                                     paid = union(node$paid, fit$needs[[g]]),
                                     spent = node$spent + candidate_costs(fit, g, node$paid))
      }
    }
    frontier <- next_frontier
  }
  if (record) c(mats, list(bought = bought, depth = depth)) else out
}

# The node at which each recorded path stops at `threshold`: an index into the columns of the records.
stop_node <- function(pol, paths, threshold) {
  stat <- stop_statistic(pol, paths)
  hit <- if (on_margin(pol)) stat >= threshold else stat < threshold
  hit <- hit | col(stat) == paths$depth
  hit[is.na(hit)] <- FALSE
  max.col(hit, ties.method = "first")
}

# The sum over the recorded rows of `value` (n x (D + 1), the value of stopping at each node) at each
# threshold of `grid`, for every threshold at once: a row stops at node t for the thresholds of an
# interval (lo, hi] (adaptive rules: lo the least score of nodes 1..t, hi that of nodes 1..t-1; the
# cascade: lo the largest margin of nodes 1..t-1, hi that of nodes 1..t; the last node takes every
# threshold left), so each (row, node) adds its value to the grid points in its interval.
threshold_sums <- function(pol, paths, value, grid) {
  stat <- stop_statistic(pol, paths)
  D <- ncol(stat)
  last <- col(stat) == paths$depth
  margin <- on_margin(pol)
  stat[last] <- if (margin) Inf else -Inf
  stat[col(stat) > paths$depth] <- NA
  run <- t(apply(stat, 1L, if (margin) cummax else cummin))
  if (D == 1L) run <- t(run)
  before <- cbind(if (margin) -Inf else Inf, run[, -D, drop = FALSE])
  lo <- if (margin) before else run
  hi <- if (margin) run else before
  keep <- !is.na(run)
  sorted <- sort(grid)
  from <- findInterval(lo[keep], sorted, left.open = FALSE) + 1L  # the first grid point above lo
  to <- findInterval(hi[keep], sorted)                             # the last grid point at most hi
  ok <- from <= to
  acc <- numeric(length(sorted) + 1L)
  v <- value[keep][ok]
  acc <- acc + tabulate_sum(from[ok], v, length(acc)) - tabulate_sum(to[ok] + 1L, v, length(acc))
  out <- cumsum(acc)[seq_along(sorted)]
  out[match(grid, sorted)]
}

# sum(v[i == j]) for j = 1..n.
tabulate_sum <- function(i, v, n) {
  out <- numeric(n)
  s <- rowsum(as.double(v), i)
  out[as.integer(rownames(s))] <- s[, 1L]
  out
}

# Whether a policy of `family` decides a class (its family has classes), or else predicts a number.
classifies <- function(family) family_def(family)$classes != "none"

# The decision of predictions with links `rlink` (n x P), by the classes of the family: two classes (one
# 0/1 column) 1 for the second class, 0 for the first; a class each, the index of the class; no classes,
# the prediction itself.
policy_decision <- function(pol, rlink) {
  switch(family_def(pol$family)$classes, two = as.numeric(rlink[, 1L] > 0),
         each = as.numeric(max.col(rlink, "first")), none = rlink[, 1L])
}

# Whether decisions (or the predictions of a family without classes) `a` disagree with the full model's `b`.
policy_disagrees <- function(pol, a, b) if (classifies(pol$family)) a != b else abs(a - b) > pol$tol

# The class label of decisions.
policy_class <- function(pol, decision) {
  if (family_def(pol$family)$classes == "two") pol$fit$classes[decision + 1L] else pol$fit$classes[decision]
}

# Learn-then-Test on the recorded paths: the disagreement with the full model of every threshold of
# the grid, its binomial p-value, fixed-sequence testing from the strictest; with `fixed` the policy's
# own threshold only. Returns the calibration table and the calibration rows' results at the chosen
# threshold.
calibrate_policy <- function(pol, paths, cal, fixed, required = TRUE) {
  n <- nrow(cal$x)
  full <- policy_decision(pol, prefix_link(pol$fit, cal$x, pol$step))
  stat <- stop_statistic(pol, paths)
  values <- sort(unique(stat[is.finite(stat)]))
  grid <- if (!is.null(fixed)) {
    fixed
  } else if (on_margin(pol)) {
    c(Inf, rev(values[values <= 0.5]) * (1 - 1e-12))
  } else {
    c(0, values[values > 0] * (1 + 1e-12))
  }
  at <- function(k, v) paths[[v]][cbind(seq_len(n), k)]
  lost <- policy_disagrees(pol, paths$decision, full)  # n x (D + 1): the loss of stopping at each node
  wrong <- threshold_sums(pol, paths, lost, grid)
  mean_cost <- threshold_sums(pol, paths, paths$cost, grid) / n
  p_value <- stats::pbinom(wrong, n, pol$epsilon)
  passed <- cumsum(p_value > pol$delta) == 0
  chosen <- if (!is.null(fixed)) 1L else if (any(passed)) max(which(passed)) else 0L
  if (chosen == 0L && !required) return(NULL)
  if (chosen == 0L) {
    abort("no threshold meets the guarantee: at the strictest, the policy disagrees with the full model on ",
          wrong[1L], " of ", n, " calibration rows (p-value ", format(p_value[1L], digits = 3), " > delta = ",
          pol$delta, ")", if (is.finite(pol$budget)) ", as the budget stops rows short of the full model",
          "; give a larger epsilon, delta or budget, or more calibration rows.", class = "calibration")
  }
  k <- stop_node(pol, paths, grid[chosen])
  decision <- at(k, "decision")
  res <- list(calibration = data.frame(threshold = grid, disagreement = wrong / n, p_value = p_value,
                                       mean_cost = mean_cost, passed = passed),
              chosen = chosen, threshold = grid[chosen], n_calibration = n, cost = at(k, "cost"),
              groups = lapply(seq_len(n), function(i) paths$bought[i, seq_len(k[i] - 1L)]),
              disagreement = wrong[chosen] / n)
  if (!is.null(cal$y)) {
    if (!classifies(pol$family)) {
      res$rmse <- c(policy = sqrt(mean((decision - cal$y)^2)), full = sqrt(mean((full - cal$y)^2)))
    } else {
      res$accuracy <- c(policy = mean(policy_class(pol, decision) == cal$y),
                        full = mean(policy_class(pol, full) == cal$y))
    }
  }
  res
}

# The "fgseq_policy" object.
new_policy <- function(pol, cal) {
  threshold <- if (!is.null(cal)) cal$threshold else if (on_margin(pol)) pol$margin else pol$tau
  pol$tau <- if (!on_margin(pol)) threshold
  pol$margin <- if (on_margin(pol)) threshold
  structure(c(pol, cal[setdiff(names(cal), "threshold")]), class = "fgseq_policy")
}

policy_threshold <- function(policy) if (on_margin(policy)) policy$margin else policy$tau

#' Run an acquisition policy on rows whose values are all known
#'
#' Applies [fgseq_policy()] to each row as if its groups were measured one at a time: the row buys the
#' groups the policy chooses, in order, until it stops, and is predicted from what it bought.
#'
#' @param object An `"fgseq_policy"` ([fgseq_policy()]).
#' @param newx A numeric matrix with the training columns, complete in the columns of the model's groups
#'   (matrix fits).
#' @param newdata For formula fits: a data frame of the rows (used instead of `newx`).
#' @param type `"response"` (probabilities for binomial fits, the prediction for gaussian), `"link"` or
#'   `"class"` (binomial).
#' @param budget `NULL` (the policy's budget) or the most each row may spend, in cost units: one number,
#'   or one per row.
#' @param ... Not used: an unknown argument is an error.
#' @return A vector with one prediction per row, with attributes `"groups"` (a list: the groups each row
#'   bought, in the order bought) and `"cost"` (a numeric vector: what each row spent, cost units).
#' @section Errors: Stops, naming the argument, when the rows have other columns than the fit, lack a value in the
#'   model's columns (class `fgseq_error_na` for `newdata`), when `type` is not one of its values or
#'   `"class"` is asked of a gaussian policy, when `budget` is negative, NA or of another length than the
#'   rows, and when an argument is unknown (class `fgseq_error_unknown_argument`).
#' @seealso [fgseq_policy()], [next_group()].
#' @export
predict.fgseq_policy <- function(object, newx = NULL, newdata = NULL, type = c("response", "link", "class"),
                                 budget = NULL, ...) {
  check_dots(...)
  validate_policy(object)
  type <- check_choice(match_type(type, c("response", "link", "class")), c("response", "link", "class"), "type")
  if (type == "class" && !classifies(object$family)) abort("`type = \"class\"` needs a binomial or multinomial policy.")
  rows <- policy_rows(object$fit, newx, NULL, newdata, "newx")
  n <- nrow(rows$x)
  budget <- policy_budget(object, budget, n)
  out <- policy_paths(object, rows$x, budget, threshold = policy_threshold(object))
  pred <- switch(type, link = out$link, response = family_def(object$family)$inverse(out$rlink),
                 class = policy_class(object, policy_decision(object, out$rlink)))
  if (is.matrix(pred) && ncol(pred) == 1L) pred <- pred[, 1L]
  if (is.matrix(pred)) dimnames(pred) <- list(rownames(rows$x), object$fit$responses) else names(pred) <- rownames(rows$x)
  attr(pred, "groups") <- out$groups
  attr(pred, "cost") <- out$cost
  pred
}

# The budget of each of n rows.
policy_budget <- function(policy, budget, n) {
  if (is.null(budget)) return(rep(policy$budget, n))
  if (!is.numeric(budget) || !length(budget) %in% c(1L, n) || anyNA(budget) || any(budget < 0)) {
    abort("`budget` must be one number >= 0 (cost units), or one per row (", n, "), without NA.")
  }
  rep_len(as.double(budget), n)
}

# An "fgseq_policy" as fgseq_policy() made it (its fit, its conditional model's shape, its settings).
validate_policy <- function(policy, arg = "object") {
  if (!inherits(policy, "fgseq_policy")) abort("`", arg, "` must be an \"fgseq_policy\" (fgseq_policy()).")
  validate_fit(policy$fit, paste0(arg, "$fit"))
  cm <- policy$cm
  q <- length(cm$columns)
  P <- length(policy$fit$responses)
  ok <- is.list(cm) && is.matrix(cm$J) && all(dim(cm$J) == q + P) && all(is.finite(cm$J)) && identical(cm$P, P) &&
    length(cm$mu) == q && length(cm$diag0) == q && is.numeric(cm$base) && length(cm$base) == P &&
    all(cm$columns >= 1L & cm$columns <= length(policy$fit$group)) && policy$rule %in% c("adaptive", "sequence", "cascade") &&
    (is.null(policy$stopping) || (policy$rule != "cascade" || identical(policy$stopping, "margin")) &&
       identical(length(policy$stopping), 1L) && policy$stopping %in% policy_stoppings)
  mx <- cm$mixture
  if (ok && !is.null(mx)) {
    ok <- is.list(mx$components) && length(mx$components) >= 1L && is.matrix(mx$draws) && all(is.finite(mx$draws)) &&
      all(vapply(mx$components, function(c) is.matrix(c$J) && all(dim(c$J) == q + P) && all(is.finite(c$J)) &&
                   length(c$mu) == q && length(c$diag0) == q && length(c$base) == P && is.finite(c$log_prior), logical(1)))
  }
  th <- policy_threshold(policy)
  if (!ok || !is.numeric(th) || length(th) != 1L || is.na(th) || th < 0) {
    abort("`", arg, "` is not an \"fgseq_policy\" as fgseq_policy() made it (its conditional model or threshold ",
          "was edited or damaged); make the policy again.", class = "invalid_object")
  }
  invisible(policy)
}

#' The next group to measure for one row, or that the row can stop
#'
#' For a caller who measures one group at a time: given a row with the groups measured so far (the
#' others `NA`), says which group the policy ([fgseq_policy()]) buys next, or that the row is done, with
#' the current prediction and its uncertainty under the working model.
#'
#' @param policy An `"fgseq_policy"` ([fgseq_policy()]).
#' @param row One row: a numeric vector or one-row matrix with the training columns (matrix fits), or a
#'   one-row data frame with the model's variables (formula fits; a variable not measured may be absent
#'   or `NA`). A group is measured whole: all its columns present, or none.
#' @param budget `NULL` (the policy's budget) or the most the row may spend in all, in cost units.
#' @param ... Not used: an unknown argument is an error.
#' @return A list with `group` (the label of the group to measure next, or `NA` when done), `done`
#'   (logical), `observed` (the groups the row holds), `cost` (what they cost, cost units),
#'   `marginal_cost` (of `group`, cost units, `NA` when done), `link` and `response` (the current
#'   prediction: the prefix model when the observed groups are a prefix of the fit's sequence, else the
#'   conditional mean), `sd` (the conditional standard deviation of the full model's linear predictor,
#'   0 for the full model), `risk` (the current decision risk; `NA` for the cascade) and `candidates` (a
#'   data frame: each group the policy could buy, its marginal cost, expected risk reduction and score).
#' @section Errors: Stops when `row` is not one row with the training columns, holds a group in part
#'   (class `fgseq_error_partial_group`), `Inf`, or when an argument is unknown.
#' @seealso [fgseq_policy()], [predict.fgseq_policy()].
#' @export
next_group <- function(policy, row, budget = NULL, ...) {
  check_dots(...)
  validate_policy(policy, "policy")
  fit <- policy$fit
  x <- policy_row(fit, row)
  budget <- policy_budget(policy, budget, 1L)
  have <- observed_groups(fit, x, policy$cm$groups, "row")[1L, ]
  observed <- policy$cm$groups[have]
  if (any(is.infinite(x[, policy$cm$columns[policy$cm$col_group %in% observed]]))) {
    abort("`row` holds Inf in a measured group; give finite values.")
  }
  x[is.na(x)] <- 0  # not read: only the observed columns enter the conditional model
  storage.mode(x) <- "double"
  paid <- union(as.character(fit$offset_needs), unlist(fit$needs[observed], use.names = FALSE))
  node <- list(state = observe_groups(policy$cm, observed), paid = paid, spent = sum(fit$measurement_cost[paid]))
  ev <- policy_node(policy, node, x, 1L, budget, table = TRUE)
  done <- policy_stops(policy, ev, policy_threshold(policy))
  tab <- ev[["table"]]
  candidates <- if (is.null(tab)) {
    data.frame(group = character(0), marginal_cost = numeric(0), reduction = numeric(0), score = numeric(0))
  } else {
    data.frame(group = tab$groups, marginal_cost = unname(tab$marginal_cost), reduction = tab$reduction[, 1L],
               score = tab$score[, 1L], stringsAsFactors = FALSE)
  }
  list(group = if (done) NA_character_ else ev$best, done = done, observed = observed, cost = node$spent,
       marginal_cost = if (done) NA_real_ else unname(candidate_costs(fit, ev$best, paid)),
       link = one_row(ev$link, fit$responses), response = one_row(family_def(policy$family)$inverse(ev$rlink), fit$responses),
       sd = if (ev$prefix && length(observed) == length(policy$cm$groups)) 0 else ev$sd,
       risk = if (policy$rule == "cascade") NA_real_ else ev$risk,
       candidates = candidates)
}

# A 1 x P prediction as a number, or a vector named by the responses.
one_row <- function(v, responses) if (length(v) == 1L) v[1L] else stats::setNames(as.numeric(v), responses)

# One row of a policy's fit as a 1 x p matrix with NA where not measured.
policy_row <- function(fit, row) {
  if (is.data.frame(row)) {
    if (nrow(row) != 1L) abort("`row` must be one row; it has ", nrow(row), ".")
    if (is.null(fit$terms)) {
      row <- as.matrix(row)
    } else {
      # a variable not measured: absent, or NA of any type, stands as NA of its training type
      classes <- attr(fit$terms, "dataClasses")
      for (v in all.vars(stats::delete.response(fit$terms))) {
        if (!is.null(row[[v]]) && !is.na(row[[v]])) next
        cls <- if (v %in% names(classes)) classes[[v]] else "numeric"
        row[[v]] <- if (cls %in% c("factor", "ordered")) factor(NA, levels = fit$xlevels[[v]]) else
          if (cls == "logical") NA else NA_real_
      }
      return(as.matrix(new_design(fit, newdata = row, allow_na = TRUE, keep_na = TRUE)$x))
    }
  }
  if (is.null(dim(row))) {
    if (!is.numeric(row) && !is.logical(row)) abort("`row` must be a numeric vector, one-row matrix or data frame.")
    if (!is.null(names(row))) {
      full <- stats::setNames(rep(NA_real_, length(fit$group)), names(fit$group))
      unknown <- setdiff(names(row), names(full))
      if (length(unknown)) abort("`row` names columns the fit does not have: ", paste(unknown, collapse = ", "), ".")
      full[names(row)] <- row
      row <- full
    }
    row <- matrix(row, nrow = 1L, dimnames = list(NULL, names(row)))
  }
  if (nrow(row) != 1L) abort("`row` must be one row; it has ", nrow(row), ".")
  as.matrix(check_newx(row, fit, keep_na = TRUE))
}

#' @export
print.fgseq_policy <- function(x, ...) {
  check_dots(...)
  fit <- x$fit
  label <- switch(x$rule, adaptive = "Adaptive acquisition policy", sequence = "Policy on the fit's sequence",
                  cascade = "Cascade on the fit's sequence")
  cat(label, " (", family_def(fit$family)$name, ", model of step ", x$step, " of ", length(fit$sequence), ", ",
      length(x$cm$groups), " groups)\n", sep = "")
  if (!is.null(x$cm$mixture)) {
    K <- length(x$cm$mixture$components)
    cat("Working model: a mixture of ", K, " Gaussian", if (K > 1L) "s", " (", nrow(x$cm$mixture$draws), " draws)\n", sep = "")
  }
  cat(if (x$rule == "cascade") "margin" else if (on_margin(x)) "margin (stopping)" else
        paste0("tau (on the ", policy_stopping(x), ")"), " = ",
      format(policy_threshold(x), digits = 4),
      if (!is.null(x$tol)) paste0(", tol = ", format(x$tol)), ", budget = ", format(x$budget), "\n", sep = "")
  if (!is.null(x$n_calibration)) {
    full <- fit$path$cost[x$step + 1L]
    cat("Calibrated on ", x$n_calibration, " rows: disagreement with the full model ", format(x$disagreement, digits = 3),
        " (epsilon = ", x$epsilon, ", delta = ", x$delta, ")\n", sep = "")
    cat("Mean cost per row ", format(mean(x$cost), digits = 4), " against ", format(full, digits = 4),
        " for the full model (", format(mean(x$cost) / full, digits = 3), " x)\n", sep = "")
  }
  if (!is.null(x$selection)) {
    cat("Chosen by rule = \"best\" among ", nrow(x$selection), " policies (each calibrated at delta / ",
        nrow(x$selection), "): ", x$rule, if (x$rule != "cascade") paste0(", stopping on the ", policy_stopping(x)), "\n",
        sep = "")
  }
  invisible(x)
}

#' @export
summary.fgseq_policy <- function(object, ...) {
  check_dots(...)
  out <- list(policy = object, threshold = policy_threshold(object))
  if (!is.null(object$cost)) {
    out$cost <- stats::quantile(object$cost, c(0, 0.1, 0.25, 0.5, 0.75, 0.9, 1))
    out$mean_cost <- mean(object$cost)
    tab <- table(factor(unlist(object$groups), levels = object$cm$groups))
    out$bought <- data.frame(group = names(tab), rows = as.integer(tab), share = as.numeric(tab) / length(object$cost),
                             stringsAsFactors = FALSE)
    out$accuracy <- object$accuracy
    out$rmse <- object$rmse
  }
  out$selection <- object$selection
  structure(out, class = "summary.fgseq_policy")
}

#' @export
print.summary.fgseq_policy <- function(x, ...) {
  print(x$policy)
  if (!is.null(x$cost)) {
    cat("\nCost per calibration row (quantiles):\n")
    print(x$cost)
    cat("\nGroups bought (calibration rows):\n")
    print(x$bought, row.names = FALSE)
    if (!is.null(x$accuracy)) cat("\nAccuracy: policy ", format(x$accuracy[["policy"]], digits = 3), ", full model ",
                                  format(x$accuracy[["full"]], digits = 3), "\n", sep = "")
    if (!is.null(x$rmse)) cat("\nRMSE: policy ", format(x$rmse[["policy"]], digits = 4), ", full model ",
                              format(x$rmse[["full"]], digits = 4), "\n", sep = "")
  }
  if (!is.null(x$selection)) {
    cat("\nPolicies tried by rule = \"best\" (calibration rows):\n")
    print(x$selection, row.names = FALSE, digits = 4)
  }
  invisible(x)
}

#' Plot the calibration of an acquisition policy
#'
#' Draws, for each threshold of the calibration grid of [fgseq_policy()], the disagreement with the
#' full model against the mean cost per calibration row (a step curve), the tolerance `epsilon`
#' (dashed) and the threshold chosen (a filled point).
#'
#' @param x A calibrated `"fgseq_policy"`.
#' @param log `""` or `"x"`: a log scale for the mean cost axis (a mean cost of 0 at the left edge,
#'   half the smallest positive one, labelled `0`).
#' @param cost_unit `NULL` or a character string, the unit of costs added to the axis label (default:
#'   the fit's `cost_unit`).
#' @param ... Graphical parameters for [graphics::plot()] (`xlab`, `main`, `xlim`, `col`, ...); any
#'   other argument is an error.
#' @return `x`, invisibly.
#' @section Errors: Stops when the policy was not calibrated, when `log` is not `""` or `"x"`, when
#'   `cost_unit` is not `NULL` or a single string (class `fgseq_error_input`), and on an unknown
#'   argument (class `fgseq_error_unknown_argument`; `xlog` included: give `log = "x"`).
#' @seealso [fgseq_policy()].
#' @export
plot.fgseq_policy <- function(x, log = "", cost_unit = x$fit$cost_unit, ...) {
  check_dots(..., graphics = TRUE)
  log <- check_choice(log, c("", "x"), "log")
  if (is.null(x$calibration)) abort("this policy was not calibrated: there is nothing to plot.")
  cal <- x$calibration
  at <- cost_at(cal$mean_cost, log == "x", left = list(...)$xlim[1L])
  dots <- list(...)
  xlab <- if (is.null(dots$xlab)) cost_axis_label("mean cost per calibration row", cost_unit) else dots$xlab
  dots$xlab <- NULL
  do.call(graphics::plot, c(list(at, cal$disagreement, type = "s", log = log, xlab = xlab,
                                 ylab = "disagreement with the full model", xaxt = if (log == "x") "n" else "s"),
                            dots))
  if (log == "x") log_cost_axis(min(at))
  graphics::abline(h = x$epsilon, lty = 2)
  graphics::points(at[x$chosen], cal$disagreement[x$chosen], pch = 19)
  invisible(x)
}
