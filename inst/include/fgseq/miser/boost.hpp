// The Greedy Miser (Xu, Weinberger & Chapelle 2012, ICML): stage-wise regression (Friedman 2001) with
// limited-depth regression trees grown on the negative gradient of the loss under the impurity of the
// paper's equation (5),
//
//   g(h_t) = 1/2 sum_i (r_i - h_t(x_i))^2 + cost_penalty sum_a phi_a c_a F_at,
//
// r_i the negative gradient of the loss at the current predictor, F_at = 1 when tree t splits on
// feature a, c_a the feature's cost and phi_a = 1 while feature a has not been extracted by an earlier
// tree, 0 once it has (paper, section 4; the definition in section 5.2 states the reverse, a slip that
// its equation (15) contradicts). With groups, a feature costs the price of its group and every
// feature of a group is free once one of them has been used. With measurements shared by groups
// (common/measurements.hpp), a feature costs the unpaid part of its group's measurements: c_a phi_a is the
// total cost of the measurements of a's group not yet paid. Algorithm 1: H <- H + eta h_t, then
// phi_a <- 0 for every feature used by h_t (every measurement its group needs is paid), so a feature
// used by tree t is free from tree t + 1 on.
//
// Trees are grown greedily (CART), level by level and, within a level, node by node from left to
// right. A node is split on the feature and threshold of largest penalized gain
//   1/2 (S_L^2 / n_L + S_R^2 / n_R - S^2 / n) - cost_penalty * charge(a),
// S the sums of r over the rows of a side, when that gain is positive. charge(a) = c_a phi_a with phi
// as at the start of the tree (PaidUpdate::AfterTree, the paper's order: every split of tree t on a
// feature not yet paid is charged), or with the measurements an earlier split of the same tree has
// used counted as paid (PaidUpdate::WithinTree: the tree pays once per measurement, F_at read as
// binary).
// cost_penalty = 0 is plain stage-wise regression.
//
// Two split searches find the best split of every (node, column) of a level; both hand the gains to
// one CostPenalty, which charges each column through one call, charge(j), and picks the column.
// - SplitSearch::Exact: every column is sorted once (stable, ties by row), and each level scans every
//   column in that order, so the split candidates are all midpoints between consecutive distinct
//   values within a node (go left when x <= threshold).
// - SplitSearch::Histogram (as LightGBM, Ke et al. 2017): every column is cut once into at most
//   max_bin quantile bins (one bin per distinct value when there are few enough), the rows of x are
//   replaced by their bin numbers (one byte each for up to 256 bins), and each node keeps, per column,
//   the sum of r and the row count of every bin. The candidates are the boundaries between non-empty
//   bins of a node; the threshold of a boundary is the midpoint between the largest training value of
//   the bin on its left and the smallest of the bin on its right, so with one bin per distinct value
//   the candidates, thresholds and trees are those of the exact search. Of two sibling nodes only the
//   smaller one's histogram is built from its rows; the larger one's is its parent's less the
//   smaller's (the parent's buffer is reused). The rows of each node are a contiguous range of one
//   row permutation, split stably, so each node's rows stay in increasing order. On
//   MiserControl::threads threads, the binning, the histograms and their scans run in parallel over
//   columns, and the splits of the rows of a level's nodes, the gathers, the histogram subtractions
//   and the tree's output over chunks of rows or bins; threads claim columns or chunks in turn
//   (WorkerPool, common/threads.hpp), and every sum is taken in the same order whatever the number of threads, so
//   the trees do not depend on it.
// Ties (both searches): within a column, scanned by increasing threshold, a threshold replaces the best
// so far only when its gain is larger by more than a relative tie_tol (the smallest of tied thresholds
// wins); across columns every penalized gain within a relative tie_tol of the best ties and the first
// column wins. Gains at most zero_tol * 1/2 sum_i r_i^2 count as 0 (no split).
//
// Training is anytime: miser_fit() stops once max_time seconds have passed since it started (binning
// or sorting included; an iteration in progress is abandoned) and returns the iterations completed so
// far, marked partial.
//
// Losses (the families of common/family.hpp): squared (gaussian; r = y - H, leaf value = mean r), logistic
// (binomial; y in {0, 1}, r = y - p, p = 1/(1+e^-H)), multinomial (one tree per class per iteration
// on r_k = y_k - p_k, the class probabilities p being the softmax of H at the start of the
// iteration). Leaf values are, as in the paper, means of r (squared-loss trees on the negative
// gradient); with MiserControl::newton (classification), second order as LightGBM and XGBoost grow
// their trees: each row's weight in a node is w_i h_i with h_i = p_i (1 - p_i) the loss's second
// derivative (times P / (P - 1) for P > 1 classes, Friedman 2001, algorithm 6), so that the gain of a
// split is 1/2 (G_L^2 / H_L + G_R^2 / H_R - G^2 / H), G and H the sums of w r and of w h, the
// second-order decrease of the loss, and a leaf's value G / H is its Newton step. A side of H at most
// min_hessian is not a candidate. The cost penalty is then in units of that decrease of the loss.
// Each loss starts from its best constant (Friedman 2001): the mean of y, the
// log-odds of its mean, the centred log class frequencies.
//
// Observation weights w_i weigh every sum: S is the sum of w_i r_i over a node's rows and n is replaced
// by the sum W of their weights in the gains and the leaf values (S / W), the histogram bins are
// weighted quantiles, and the loss and the best constant are weighted. min_node_size counts rows. An
// offset is each row's starting score: H starts at init + offset_i, init being then the best constant
// given the offset (the intercept-only GLM of glm/evaluator.hpp, solved by newton_solve()).
#ifndef FGSEQ_MISER_BOOST_HPP
#define FGSEQ_MISER_BOOST_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>
#include <chrono>

#include "../common/deadline.hpp"
#include "../glm/evaluator.hpp"
#include "exact.hpp"
#include "histogram.hpp"

namespace fgseq {

struct MiserFit {
  Forest forest;               // max_steps * P trees; tree t * P + c is class c's tree of iteration t
  VectorXd init;               // P starting constants
  std::vector<double> loss;    // mean training loss after iterations 0..max_steps
  std::vector<Index> paid_by;  // per group: the tree that first used it (-1: never used)
  std::vector<double> paid_cost;  // per group: the cost of its measurements not paid before that tree
                                  // (PaidMeasurements::pay(), in the order of the nodes; 0: never used)
  bool partial = false;        // max_time stopped the fit before max_steps iterations
  double cost_penalty = 0.0;         // the cost_penalty of equation (5) the trees were grown with
};

namespace detail {

// Weighted mean loss of the predictor H (n x P) on the targets Y (n x P), weights w of total W: half
// the mean deviance for 0/1 targets and the gaussian family.
inline double miser_loss(const FamilyOps& fam, const MatrixXd& Y, const MatrixXd& H, const VectorXd& w, double W) {
  return fam.loss(H, Y, w) / W;
}

// The best constant predictor (Friedman 2001) given the weights w (total W) and the offset (n x P or
// empty): the intercepts of the intercept-only GLM, as fit_path's step 0 has them. Without an offset,
// the link of the weighted mean of Y; with one, the damped Newton solve of glm/evaluator.hpp from there. Centred
// when only differences between the columns count (multinomial: the centred log class frequencies).
inline VectorXd miser_init(const FamilyOps& fam, const MatrixXd& Y, const VectorXd& w, double W, bool weighted,
                           const MatrixXd& offset) {
  const VectorXd ybar = weighted ? VectorXd((Y.transpose() * w) / W) : VectorXd(Y.colwise().mean().transpose());
  VectorXd init = fam.null_intercepts(ybar).row(0).transpose();
  if (offset.size()) {
    const MatrixXd ones = MatrixXd::Ones(Y.rows(), 1);
    const NewtonSolution s = newton_solve(init, glm_evaluator(fam, ones, Y, w, W, offset, 0.0), NewtonControl());
    init = s.point.theta;
  }
  if (fam.shift_invariant()) init.array() -= init.mean();
  return init;
}

// The loss of the starting score (init, plus the offset: n x P or empty) summed over the rows with
// weights w, and the weighted sum of squares of the first negative gradient (for the relative cost_penalty),
// both summed over blocks of rows: no n x P buffer, so a fit stopped before its first tree answers
// without making one.
struct StartSums {
  double loss = 0.0;
  double gradient_ss = 0.0;
};
// With `hessian_factor` > 0 (Newton trees), the sum of squares is of the gradient over the Hessian,
// sum_i w_i sum_k r_ik^2 / h_ik with h_ik = p_ik (1 - p_ik) hessian_factor: the second-order impurity,
// in the units of the Newton trees' gains.
inline StartSums start_sums(const FamilyOps& fam, const MatrixXd& Y, const VectorXd& init, const MatrixXd& offset,
                            const VectorXd& w, double hessian_factor = 0.0) {
  StartSums s;
  for (Index b = 0; b < Y.rows(); b += kRowBlock) {
    const Index m = std::min(kRowBlock, Y.rows() - b);
    MatrixXd H = init.transpose().replicate(m, 1);
    if (offset.size()) H += offset.middleRows(b, m);
    const MatrixXd Yb = Y.middleRows(b, m);
    const VectorXd wb = w.segment(b, m);
    s.loss += fam.loss(H, Yb, wb);
    const MatrixXd M = fam.mean(H);
    const MatrixXd R = Yb - M;
    if (hessian_factor > 0) {
      const MatrixXd h = ((M.array() * (1.0 - M.array())) * hessian_factor).cwiseMax(std::numeric_limits<double>::min());
      s.gradient_ss += wb.dot((R.array().square() / h.array()).matrix().rowwise().sum());
    } else {
      s.gradient_ss += wb.dot(R.rowwise().squaredNorm());
    }
  }
  return s;
}

// Keeps the first `trees` trees of a fit: the forest is cut back to them, and a group first paid by a
// later tree is unpaid again.
inline void keep_trees(MiserFit& fit, Index trees) {
  Forest& f = fit.forest;
  f.start.resize(static_cast<size_t>(trees) + 1);
  const size_t nodes = static_cast<size_t>(f.start.back());
  f.feature.resize(nodes);
  f.threshold.resize(nodes);
  f.left.resize(nodes);
  f.right.resize(nodes);
  f.value.resize(nodes);
  for (size_t g = 0; g < fit.paid_by.size(); ++g)
    if (fit.paid_by[g] >= trees) {
      fit.paid_by[g] = -1;
      fit.paid_cost[g] = 0.0;
    }
}

}  // namespace detail

// Fits the miser. x: n x p, dense (a MatrixXd or a map of one) or sparse (SparseMap: histogram search
// only; binned from its stored values); Y: n x P targets (squared: the response; logistic: a 0/1
// column; multinomial: one 0/1 indicator column per class); group_of: 0-based group of each column; cost: the
// measurements of each group and their costs (common/measurements.hpp; a vector of one cost per group makes
// each group its own measurement). weights: n positive observation weights, or empty for 1 each: they
// multiply every row's gradient in the trees' sums and counts (gains and leaf values are those of the
// weighted squared error), the bins' quantiles, the starting constants and the loss. offset: n x P, or
// empty for 0: each row's starting score, added to the starting constants (which are then the best
// given the offset). Training is anytime: once ctl.max_time seconds have passed since the call, no
// iteration starts and the one in progress is abandoned (its trees poll the clock before every level);
// the fit then holds the iterations completed so far and partial = true (none when the time is spent
// in the binning or sorting of x, which reads no value of x after that).
template <class X>
MiserFit miser_fit(const X& x, const MatrixXd& Y, const VectorXd& weights,
                          const MatrixXd& offset, const std::vector<int>& group_of, const Measurements& cost,
                          const MiserControl& ctl, const InterruptCheck& check_interrupt = InterruptCheck(),
                          const ProgressCallback& progress = ProgressCallback()) {
  const Deadline deadline(ctl.max_time);  // the fit's one clock, from its call
  const Index n = x.rows(), P = Y.cols();
  if (Y.rows() != n) throw std::invalid_argument("miser_fit: Y must have one row per row of x");
  const FamilyOps fam{ctl.family};
  if (!fam.columns_fit(P))
    throw std::invalid_argument("miser_fit: one target column, or one per class (at least 2) for the multinomial loss");
  if (!(ctl.eta > 0.0) || ctl.cost_penalty < 0.0 || ctl.max_steps < 0)
    throw std::invalid_argument("miser_fit: eta must be positive, cost_penalty and max_steps non-negative");
  const bool weighted = weights.size() > 0;
  if ((weighted && weights.size() != n) || (offset.size() && (offset.rows() != n || offset.cols() != P)))
    throw std::invalid_argument("miser_fit: weights and offset need one row per row of x (offset: one column per target)");
  if (weighted && !(weights.array() > 0.0).all()) throw std::invalid_argument("miser_fit: weights must be positive");
  if (!weights.allFinite() || !offset.allFinite()) throw std::invalid_argument("miser_fit: weights and offset must be finite");
  constexpr bool sparse = std::is_same<X, SparseMap>::value;  // binned from its stored values; no exact search
  if (sparse && ctl.split == SplitSearch::Exact)
    throw std::invalid_argument("miser: the exact split search needs a dense x; use the histogram search");
  MiserFit out;
  out.paid_by.assign(static_cast<size_t>(cost.n_groups()), -1);
  out.paid_cost.assign(static_cast<size_t>(cost.n_groups()), 0.0);
  WorkerPool pool(ctl.split == SplitSearch::Histogram ? ctl.threads : 1);
  std::unique_ptr<SortedColumns> sorted;
  std::unique_ptr<BinnedColumns> binned;
  // The binning (or sorting) of x counts towards max_time, and comes first: the poll checks the clock
  // before it and between the phases of every column; when the time is spent there the fit is the
  // starting score alone, partial, found without n-row buffers.
  const Poll poll = deadline.poll(check_interrupt);
  try {
    poll();
    if (ctl.split == SplitSearch::Exact) {
      if constexpr (!sparse) sorted.reset(new SortedColumns(x, poll));
    } else {
      binned.reset(new BinnedColumns(x, ctl.max_bin, pool, poll, weights));
    }
  } catch (const TimeUp&) {
    out.partial = true;
  }

  const VectorXd w = weighted ? weights : VectorXd::Ones(n);
  const double W = w.sum();
  out.init = detail::miser_init(fam, Y, w, W, weighted, offset);
  // Newton boosting (classification): per class the Hessian p_k (1 - p_k) of the loss in H_k, times
  // P / (P - 1) for the multinomial loss (Friedman 2001, algorithm 6; LightGBM's multiclass objective)
  const bool newton = ctl.newton && (ctl.family == Family::Binomial || ctl.family == Family::Multinomial);
  const double hessian_factor = P > 1 ? static_cast<double>(P) / static_cast<double>(P - 1) : 1.0;
  const detail::StartSums start = detail::start_sums(fam, Y, out.init, offset, w, newton ? hessian_factor : 0.0);
  out.loss.push_back(start.loss / W);
  MiserControl c = ctl;
  if (ctl.cost_penalty_relative) c.cost_penalty = ctl.cost_penalty * 0.5 * start.gradient_ss / static_cast<double>(P);
  out.cost_penalty = c.cost_penalty;
  if (out.partial) return out;

  std::unique_ptr<TreeLearner> learner;
  if (c.split == SplitSearch::Exact) {
    if constexpr (!sparse) learner.reset(new ExactTreeLearner(x, *sorted, group_of, cost, c, weights));
  } else {
    learner.reset(new HistogramTreeLearner(*binned, pool, group_of, cost, c, weights));
  }
  MatrixXd H = out.init.transpose().replicate(n, 1);
  if (offset.size()) H += offset;
  MatrixXd R = Y - fam.mean(H);  // the first negative gradient

  PaidMeasurements paid(cost);  // phi: the measurements paid by the trees so far
  VectorXd fitted;
  for (Index t = 0; t < ctl.max_steps; ++t) {
    // polled before the iteration, and by the trees before they start and before every level: a
    // deadline before or within an iteration abandons it, and the fit keeps the iterations completed
    try {
      poll();
      if (progress) progress(t, ctl.max_steps);
      MatrixXd M;
      if (t > 0 || newton) M = fam.mean(H);
      if (t > 0) R = Y - M;  // the negative gradient of the loss
      for (Index k = 0; k < P; ++k) {
        if (newton) {  // the node weights w_i h_i, h the second derivative of the loss in H_k
          VectorXd hw = (M.col(k).array() * (1.0 - M.col(k).array())).matrix() * hessian_factor;
          if (weighted) hw = hw.cwiseProduct(weights);
          learner->set_node_weights(hw.cwiseMax(std::numeric_limits<double>::min()));
        }
        learner->grow(R.col(k), paid, out.forest, fitted, poll);
        H.col(k).noalias() += ctl.eta * fitted;
        const Index tree = out.forest.n_trees() - 1;
        for (int g : learner->groups_used()) {  // Algorithm 1: phi_a <- 0 after the tree
          if (out.paid_by[static_cast<size_t>(g)] >= 0) continue;
          out.paid_by[static_cast<size_t>(g)] = tree;
          out.paid_cost[static_cast<size_t>(g)] = paid.pay(g);
        }
      }
    } catch (const TimeUp&) {
      detail::keep_trees(out, t * P);  // the classes' trees of this iteration grown before the deadline
      out.partial = true;
      break;
    }
    out.loss.push_back(detail::miser_loss(fam, Y, H, w, W));
  }
  return out;
}

}  // namespace fgseq

#endif
