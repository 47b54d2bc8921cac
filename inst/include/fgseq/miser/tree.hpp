// What both split searches of the Greedy Miser share: the cost penalty of equation (5), which charges
// each column the unpaid cost of its group's measurements and picks a node's column, and the tree under
// construction (miser/boost.hpp has the method).
#ifndef FGSEQ_MISER_TREE_HPP
#define FGSEQ_MISER_TREE_HPP

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

#include "../common/measurements.hpp"
#include "../common/threads.hpp"
#include "forest.hpp"

namespace fgseq {

// The cost penalty of equation (5) and the choice of a node's column, shared by both split searches.
class CostPenalty {
 public:
  // group_of: 0-based group of each column; meas: the measurements of each group and their costs.
  CostPenalty(const std::vector<int>& group_of, const Measurements& meas, const MiserControl& ctl)
      : group_of_(group_of), meas_(meas), ctl_(ctl) {
    for (int g : group_of_)
      if (g < 0 || g >= meas_.n_groups()) throw std::invalid_argument("miser: group index out of range");
  }

  // A new tree: no measurement used by it yet.
  void start_tree() { used_.assign(meas_.cost.size(), false); }

  // phi_a c_a of column j, as the update rule has it at this point of the tree: the total cost of the
  // measurements of j's group that no earlier tree has paid (the fit's record of what is paid) and,
  // with PaidUpdate::WithinTree, that no earlier split of this tree has used. The one place a split's
  // cost is read: every split search calls it.
  double charge(Index j, const PaidMeasurements& paid) const {
    double c = 0.0;
    for (Index m : meas_.needs[static_cast<size_t>(group_of_[static_cast<size_t>(j)])]) {
      const size_t k = static_cast<size_t>(m);
      if (!paid.paid(m) && !(ctl_.paid == PaidUpdate::WithinTree && used_[k])) c += meas_.cost[k];
    }
    return c;
  }

  // The column of largest penalized gain gains[j] - cost_penalty * charge(j) among those with gains[j] > zero,
  // the first of those within a relative tie_tol of the best; -1 when no penalized gain is positive.
  // Marks the measurements of the column's group as used by this tree.
  Index choose(const double* gains, Index p, double zero, const PaidMeasurements& paid) {
    double best = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < p; ++j)
      if (gains[j] > zero) best = std::max(best, gains[j] - ctl_.cost_penalty * charge(j, paid));
    if (!(best > 0.0)) return -1;
    const double tie = best - ctl_.tie_tol * std::abs(best);
    Index chosen = -1;
    for (Index j = 0; j < p && chosen < 0; ++j)
      if (gains[j] > zero && gains[j] - ctl_.cost_penalty * charge(j, paid) >= tie) chosen = j;
    for (Index mm : meas_.needs[static_cast<size_t>(group_of_[static_cast<size_t>(chosen)])])
      used_[static_cast<size_t>(mm)] = true;
    return chosen;
  }

 private:
  const std::vector<int>& group_of_;
  const Measurements& meas_;
  const MiserControl& ctl_;
  std::vector<bool> used_;  // measurements used by the splits of this tree so far
};

// What both learners share: the tree under construction, level by level, and its output.
class TreeLearner {
 public:
  // w: the observation weights (n, positive), or empty for 1 each.
  TreeLearner(Index p, const std::vector<int>& group_of, const Measurements& meas, const MiserControl& ctl,
              const VectorXd& w)
      : group_of_(group_of), ctl_(ctl), penalty_(group_of, meas, ctl_), w_(w), wobs_(w),
        min_weight_(ctl.newton ? ctl.min_hessian : 0.0) {
    if (static_cast<Index>(group_of_.size()) != p) throw std::invalid_argument("miser: one group per column of x is needed");
    if (ctl_.depth < 1 || ctl_.min_node_size < 1) throw std::invalid_argument("miser: depth and min_node_size must be >= 1");
  }
  virtual ~TreeLearner() = default;

  // Grows the tree on r with `paid` holding the measurements paid by earlier trees,
  // appends it to `forest` and writes its output (leaf value, before eta) for every training row to
  // `fitted`. poll (an interrupt check, a clock) runs before the tree and before each level; when it
  // throws, the tree is abandoned and `forest` is unchanged.
  virtual void grow(const Eigen::Ref<const VectorXd>& r, const PaidMeasurements& paid, Forest& forest,
                    VectorXd& fitted, const InterruptCheck& poll = InterruptCheck()) = 0;

  // The node weights of the trees grown next (n, positive): in place of the observation weights in the
  // nodes' weights, the gains and the leaf values, while the gradient stays weighted by the
  // observation weights. Newton boosting passes w_i h_i (h the loss's second derivative), so that a
  // node's weight is the sum of its rows' Hessians, its gain the second-order decrease of the loss
  // and its value the Newton step (sum w r / sum w h).
  void set_node_weights(const VectorXd& hw) {
    w_ = hw;
    node_weights_changed();
  }

  // Groups split on by the last grown tree.
  std::vector<int> groups_used() const {
    std::vector<int> out;
    for (const Node& nd : nodes_)
      if (nd.feature >= 0) out.push_back(group_of_[static_cast<size_t>(nd.feature)]);
    return out;
  }

 protected:
  struct Node {
    int feature;
    double threshold;
    Index left, right;
    Index n;         // training rows in the node
    double sum;      // sum of w r over them
    double weight;   // sum of w over them (n without weights)
    Index begin;     // histogram search: the node's rows are rows_[begin, begin + n)
    double value() const { return weight > 0.0 ? sum / weight : 0.0; }  // the weighted mean of r
  };

  const std::vector<int>& group_of_;
  MiserControl ctl_;
  CostPenalty penalty_;
  std::vector<Node> nodes_;
  VectorXd w_;         // the node weights: the observation weights, or set_node_weights()'s (empty: 1 each)
  VectorXd wobs_;      // the observation weights (empty: 1 each)
  VectorXd g_;         // the tree's weighted gradient w r (r without weights)
  double min_weight_;  // the least node weight on each side of a split (0: any positive weight)
  double zero_ = 0.0;  // gains at most this count as 0: zero_tol * 1/2 sum_i w_i r_i^2

  bool weighted() const { return w_.size() > 0; }
  double weight(Index i) const { return weighted() ? w_(i) : 1.0; }

  // A new tree on r: g_, zero_ and the root node (all rows, starting at 0).
  void start(const Eigen::Ref<const VectorXd>& r) {
    if (wobs_.size()) g_ = wobs_.cwiseProduct(r);
    else g_ = r;
    zero_ = ctl_.zero_tol * 0.5 * g_.dot(r);
    const Index n = r.size();
    nodes_.clear();
    nodes_.push_back(Node{-1, 0.0, -1, -1, n, g_.sum(), weighted() ? w_.sum() : static_cast<double>(n), 0});
    penalty_.start_tree();
  }

  // A learner's reaction to new node weights (the exact search keeps them in each column's order).
  virtual void node_weights_changed() {}

  // The gain of a split into sides of gradient sums sl, sr and weights wl, wr, of a node whose
  // base is sum^2 / weight; none (-inf) when a side's weight is not above min_weight_ (0: weights lost
  // to rounding; newton: a side of too little curvature for its Newton step).
  double split_gain(double sl, double wl, double sr, double wr, double base) const {
    if (!(wl > min_weight_ && wr > min_weight_) || !(wl > 0.0 && wr > 0.0)) return -std::numeric_limits<double>::infinity();
    return 0.5 * (sl * sl / wl + sr * sr / wr - base);
  }

  // Appends the grown tree to the forest.
  void append_to(Forest& forest) const {
    for (const Node& nd : nodes_) {
      forest.feature.push_back(nd.feature);
      forest.threshold.push_back(nd.feature >= 0 ? nd.threshold : std::numeric_limits<double>::quiet_NaN());
      forest.left.push_back(static_cast<int>(nd.left));
      forest.right.push_back(static_cast<int>(nd.right));
      forest.value.push_back(nd.value());
    }
    forest.start.push_back(forest.start.back() + static_cast<Index>(nodes_.size()));
  }

  // Splits node v on column j at `threshold`: appends its two children (empty) and returns the left one.
  Index split_node(Index v, int j, double threshold) {
    const Index l = static_cast<Index>(nodes_.size());
    nodes_[static_cast<size_t>(v)].feature = j;
    nodes_[static_cast<size_t>(v)].threshold = threshold;
    nodes_[static_cast<size_t>(v)].left = l;
    nodes_[static_cast<size_t>(v)].right = l + 1;
    nodes_.push_back(Node{-1, 0.0, -1, -1, 0, 0.0, 0.0, 0});
    nodes_.push_back(Node{-1, 0.0, -1, -1, 0, 0.0, 0.0, 0});
    return l;
  }

  static double midpoint(double a, double b) {
    const double m = a + 0.5 * (b - a);
    return m < b ? m : a;
  }
};

}  // namespace fgseq

#endif
