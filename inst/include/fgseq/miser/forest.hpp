// The Greedy Miser's options, its trees (Forest) and their prediction (miser/boost.hpp has the method).
#ifndef FGSEQ_MISER_FOREST_HPP
#define FGSEQ_MISER_FOREST_HPP

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

#include "../common/family.hpp"
#include "../common/options.hpp"
#include "../common/stats.hpp"

namespace fgseq {

enum class PaidUpdate { AfterTree, WithinTree };
template <>
struct Names<PaidUpdate> {
  static constexpr const char* what = "paid rule";
  static constexpr std::pair<PaidUpdate, const char*> table[] = {{PaidUpdate::AfterTree, "after_tree"},
                                                                 {PaidUpdate::WithinTree, "within_tree"}};
};

enum class SplitSearch { Exact, Histogram };
template <>
struct Names<SplitSearch> {
  static constexpr const char* what = "split search";
  static constexpr std::pair<SplitSearch, const char*> table[] = {{SplitSearch::Histogram, "histogram"},
                                                                  {SplitSearch::Exact, "exact"}};
};

struct MiserControl {
  Family family = Family::Gaussian;  // the loss: gaussian (squared), binomial (logistic), multinomial (common/family.hpp)
  PaidUpdate paid = PaidUpdate::AfterTree;
  SplitSearch split = SplitSearch::Histogram;
  double cost_penalty = 0.0;      // cost_penalty of equation (5): half squared error of the gradient fit per cost unit
  Index max_steps = 100;    // boosting iterations (one tree each; one tree per class for multinomial)
  int depth = 4;            // most splits from the root to a leaf
  double eta = 0.1;         // shrinkage (step size) of each tree
  Index min_node_size = 1;  // fewest training rows in a leaf
  int max_bin = 255;        // histogram search: most bins per column (2..65536)
  int threads = 1;          // histogram search: threads for the binning, the histograms and their scans
  double max_time = std::numeric_limits<double>::infinity();  // seconds; no tree is started after it
  bool cost_penalty_relative = false;  // cost_penalty is per unit of the first gradient's impurity
                                 // s0 = 1/2 sum_i w_i ||r_i||^2 / P (cost_penalty' = cost_penalty s0; MiserFit::cost_penalty);
                                 // newton: 1/2 sum_i w_i sum_k r_ik^2 / h_ik / P, in the units of its gains
  bool newton = false;      // classification: second-order gains and leaf values (node weights w_i h_i)
  double min_hessian = 1e-3;  // newton: the least sum of w_i h_i on each side of a split (LightGBM's
                              // min_sum_hessian_in_leaf)
  double zero_tol = 1e-14;  // gains <= zero_tol * 1/2 sum r^2 count as 0
  double tie_tol = 1e-10;   // penalized gains within tie_tol (relative) of the best tie; first column wins
};

// Trees as flat arrays. Tree t owns nodes [start[t], start[t + 1]); node 0 of a tree is its root and
// left/right are node numbers local to the tree. At a leaf feature = -1 and left = right = -1.
struct Forest {
  std::vector<Index> start{0};
  std::vector<int> feature;
  std::vector<double> threshold;   // go left when x <= threshold
  std::vector<int> left, right;
  std::vector<double> value;       // the node's output before eta: the weighted mean of the negative
                                   // gradient of its rows, or (newton) its sum over the sum of w h
  Index n_trees() const { return static_cast<Index>(start.size()) - 1; }

  // Throws unless the arrays describe trees that predict() can walk on p columns: tree starts rising
  // from 0 to the number of nodes, one entry per node in every array, a split's feature in [0, p) and
  // its children local nodes of the same tree after it (so every walk ends at a leaf), finite leaf
  // values. Forests may come from a file.
  void validate(Index p) const {
    const size_t nodes = feature.size();
    if (start.empty() || start.front() != 0 || static_cast<size_t>(start.back()) != nodes ||
        threshold.size() != nodes || left.size() != nodes || right.size() != nodes || value.size() != nodes)
      throw std::invalid_argument("miser forest: the tree starts and node arrays do not fit together");
    for (size_t t = 0; t + 1 < start.size(); ++t) {
      const Index b = start[t], size = start[t + 1] - start[t];
      if (size < 1) throw std::invalid_argument("miser forest: a tree has no node");
      for (Index v = 0; v < size; ++v) {
        const size_t k = static_cast<size_t>(b + v);
        if (feature[k] < 0) {
          if (!std::isfinite(value[k])) throw std::invalid_argument("miser forest: a leaf value is not finite");
          continue;
        }
        if (feature[k] >= p) throw std::invalid_argument("miser forest: a split's feature is not a column of x");
        if (left[k] <= v || left[k] >= size || right[k] <= v || right[k] >= size)
          throw std::invalid_argument("miser forest: a split's child is not a later node of its tree");
      }
    }
  }

  // Output of tree t for row i of x (a forest that passed validate(x.cols())).
  double predict(Index t, const Eigen::Ref<const MatrixXd>& x, Index i) const {
    const Index base = start[static_cast<size_t>(t)];
    Index node = base;
    while (feature[static_cast<size_t>(node)] >= 0) {
      const size_t k = static_cast<size_t>(node);
      node = base + (x(i, feature[k]) <= threshold[k] ? left[k] : right[k]);
    }
    return value[static_cast<size_t>(node)];
  }
};

// The additive predictor H after each requested number of iterations: an n x (P * m) matrix, the
// P columns of steps[k] in columns k * P .. k * P + P - 1 (link scale: no inverse link applied).
inline MatrixXd miser_predict(const Eigen::Ref<const MatrixXd>& x, const Forest& forest, const VectorXd& init,
                              double eta, const std::vector<Index>& steps,
                              const InterruptCheck& check_interrupt = InterruptCheck()) {
  const Index n = x.rows(), P = init.size(), m = static_cast<Index>(steps.size());
  std::vector<Index> order(static_cast<size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return steps[a] < steps[b]; });
  forest.validate(x.cols());
  if (P < 1 || !init.allFinite() || !std::isfinite(eta))
    throw std::invalid_argument("miser_predict: init must be finite, with at least one response, and eta finite");
  for (Index s : steps)
    if (s < 0 || s * P > forest.n_trees()) throw std::invalid_argument("miser_predict: step out of range");
  MatrixXd H = init.transpose().replicate(n, 1);
  MatrixXd out(n, P * m);
  Index done = 0;  // iterations added to H so far
  for (Index k : order) {
    const Index target = steps[static_cast<size_t>(k)];
    for (; done < target; ++done) {
      if (check_interrupt) check_interrupt();
      for (Index c = 0; c < P; ++c) {
        const Index t = done * P + c;
        for (Index i = 0; i < n; ++i) H(i, c) += eta * forest.predict(t, x, i);
      }
    }
    out.middleCols(k * P, P) = H;
  }
  return out;
}

}  // namespace fgseq

#endif
