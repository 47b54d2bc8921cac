// The Greedy Miser (Xu, Weinberger & Chapelle 2012, ICML): stage-wise regression (Friedman 2001) with
// limited-depth regression trees grown on the negative gradient of the loss under the impurity of the
// paper's equation (5),
//
//   g(h_t) = 1/2 sum_i (r_i - h_t(x_i))^2 + lambda sum_a phi_a c_a F_at,
//
// r_i the negative gradient of the loss at the current predictor, F_at = 1 when tree t splits on
// feature a, c_a the feature's cost and phi_a = 1 while feature a has not been extracted by an earlier
// tree, 0 once it has (paper, section 4; the definition in section 5.2 states the reverse, a slip that
// its equation (15) contradicts). With groups, a feature costs the price of its group and every
// feature of a group is free once one of them has been used. With measurements shared by groups
// (measurements.hpp), a feature costs the unpaid part of its group's measurements: c_a phi_a is the
// total cost of the measurements of a's group not yet paid. Algorithm 1: H <- H + eta h_t, then
// phi_a <- 0 for every feature used by h_t (every measurement its group needs is paid), so a feature
// used by tree t is free from tree t + 1 on.
//
// Trees are grown greedily (CART), level by level and, within a level, node by node from left to
// right. A node is split on the feature and threshold of largest penalized gain
//   1/2 (S_L^2 / n_L + S_R^2 / n_R - S^2 / n) - lambda * charge(a),
// S the sums of r over the rows of a side, when that gain is positive. charge(a) = c_a phi_a with phi
// as at the start of the tree (PaidUpdate::AfterTree, the paper's order: every split of tree t on a
// feature not yet paid is charged), or with the measurements an earlier split of the same tree has
// used counted as paid (PaidUpdate::WithinTree: the tree pays once per measurement, F_at read as
// binary).
// lambda = 0 is plain stage-wise regression.
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
//   (WorkerPool, stats.hpp), and every sum is taken in the same order whatever the number of threads, so
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
// Losses (the families of family.hpp): squared (gaussian; r = y - H, leaf value = mean r), logistic
// (binomial; y in {0, 1}, r = y - p, p = 1/(1+e^-H)), multinomial (one tree per class per iteration
// on r_k = y_k - p_k, the class probabilities p being the softmax of H at the start of the
// iteration); leaf values are means of r, Newton-free, as in the paper (squared-loss trees on the
// negative gradient). Each loss starts from its best constant (Friedman 2001): the mean of y, the
// log-odds of its mean, the centred log class frequencies.
//
// Observation weights w_i weigh every sum: S is the sum of w_i r_i over a node's rows and n is replaced
// by the sum W of their weights in the gains and the leaf values (S / W), the histogram bins are
// weighted quantiles, and the loss and the best constant are weighted. min_node_size counts rows. An
// offset is each row's starting score: H starts at init + offset_i, init being then the best constant
// given the offset (the intercept-only GLM of glm.hpp, solved by newton_solve()).
#ifndef FGSEQ_MISER_HPP
#define FGSEQ_MISER_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
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

#include "design.hpp"
#include "family.hpp"
#include "glm.hpp"
#include "measurements.hpp"
#include "stats.hpp"

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
  static constexpr std::pair<SplitSearch, const char*> table[] = {{SplitSearch::Exact, "exact"},
                                                                  {SplitSearch::Histogram, "histogram"}};
};

struct MiserControl {
  Family family = Family::Gaussian;  // the loss: gaussian (squared), binomial (logistic), multinomial (family.hpp)
  PaidUpdate paid = PaidUpdate::AfterTree;
  SplitSearch split = SplitSearch::Histogram;
  double lambda = 0.0;      // lambda of equation (5): half squared error of the gradient fit per cost unit
  Index n_iter = 100;       // boosting iterations (one tree each; one tree per class for multinomial)
  int depth = 4;            // most splits from the root to a leaf
  double eta = 0.1;         // shrinkage (step size) of each tree
  Index min_node_size = 1;  // fewest training rows in a leaf
  int max_bin = 255;        // histogram search: most bins per column (2..65536)
  int threads = 1;          // histogram search: threads for the binning, the histograms and their scans
  double max_time = std::numeric_limits<double>::infinity();  // seconds; no tree is started after it
  bool lambda_relative = false;  // lambda is per unit of the first gradient's impurity
                                 // s0 = 1/2 sum_i w_i ||r_i||^2 / P (lambda' = lambda s0; MiserFit::lambda)
  double zero_tol = 1e-14;  // gains <= zero_tol * 1/2 sum r^2 count as 0
  double tie_tol = 1e-10;   // penalized gains within tie_tol (relative) of the best tie; first column wins
};

// Called with (iterations done, iterations asked) before each iteration.
using MiserProgress = std::function<void(Index, Index)>;

// Trees as flat arrays. Tree t owns nodes [start[t], start[t + 1]); node 0 of a tree is its root and
// left/right are node numbers local to the tree. At a leaf feature = -1 and left = right = -1.
struct Forest {
  std::vector<Index> start{0};
  std::vector<int> feature;
  std::vector<double> threshold;   // go left when x <= threshold
  std::vector<int> left, right;
  std::vector<double> value;       // mean negative gradient of the node's rows (output before eta)
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

// The row order of every column, sorted once (stable: ties keep the row order), with the rank of each
// entry's distinct value, so that a scan tells a new value by an integer compare on sequential memory.
class SortedColumns {
 public:
  SortedColumns(const Eigen::Ref<const MatrixXd>& x, const InterruptCheck& check_interrupt = InterruptCheck())
      : n_(x.rows()), idx_(static_cast<size_t>(x.rows() * x.cols())), rank_(idx_.size()) {
    if (x.rows() >= std::numeric_limits<int>::max())
      throw std::invalid_argument("miser: too many rows for 32-bit row indices");
    for (Index j = 0; j < x.cols(); ++j) {
      if (check_interrupt) check_interrupt();
      int* o = idx_.data() + j * n_;
      int* rk = rank_.data() + j * n_;
      std::iota(o, o + n_, 0);
      const double* v = x.col(j).data();
      std::stable_sort(o, o + n_, [v](int a, int b) { return v[a] < v[b]; });
      int r = 0;
      for (Index k = 0; k < n_; ++k) {
        if (k > 0 && v[o[k]] > v[o[k - 1]]) ++r;
        rk[k] = r;
      }
    }
  }
  const int* col(Index j) const { return idx_.data() + j * n_; }
  const int* rank(Index j) const { return rank_.data() + j * n_; }

 private:
  Index n_;
  std::vector<int> idx_, rank_;
};

// Every column of x cut once into at most max_bin quantile bins, and x replaced by its bin numbers
// (column-major; one byte per entry for up to 256 bins, else two). With at most max_bin distinct values
// a column has one bin per distinct value; otherwise the distinct values are taken in increasing order
// and a bin is closed as soon as it holds at least (weight not yet binned) / (bins left) of the weight
// (rows count 1 each without weights), so that heavy values get bins of their own: a row of weight k
// bins as k copies of it. Each bin keeps the smallest and largest training value in it.
class BinnedColumns {
 public:
  // w: the observation weights (n, positive), or empty for 1 each.
  BinnedColumns(const Eigen::Ref<const MatrixXd>& x, int max_bin, WorkerPool& pool,
                const InterruptCheck& check_interrupt = InterruptCheck(), const VectorXd& w = VectorXd())
      : BinnedColumns(x.rows(), x.cols(), max_bin, w) {
    bin_columns(pool, check_interrupt, max_bin, [&](Index j, std::vector<std::pair<double, double>>& v) {
      for (Index i = 0; i < n_; ++i) v.emplace_back(x(i, j), w.size() ? w(i) : 1.0);
    }, [&](Index j) {
      for (Index i = 0; i < n_; ++i) put(i, j, bin_of(j, x(i, j)));
    });
  }

  // A sparse x, binned from its stored values: the pairs of a column are its stored values and its
  // zeros (one pair for all of them without weights), and its rows get the bin of 0 but for the stored
  // ones. The bins and bin numbers are those of the same x dense.
  BinnedColumns(const SparseMap& x, int max_bin, WorkerPool& pool,
                const InterruptCheck& check_interrupt = InterruptCheck(), const VectorXd& w = VectorXd())
      : BinnedColumns(x.rows(), x.cols(), max_bin, w) {
    const auto stored = [&x](Index j) {
      const Index b = x.outerIndexPtr()[j], e = x.outerIndexPtr()[j + 1];
      return std::make_pair(b, e);
    };
    bin_columns(pool, check_interrupt, max_bin, [&](Index j, std::vector<std::pair<double, double>>& v) {
      const auto be = stored(j);
      for (Index k = be.first; k < be.second; ++k)
        v.emplace_back(x.valuePtr()[k], w.size() ? w(x.innerIndexPtr()[k]) : 1.0);
      const Index zeros = n_ - (be.second - be.first);
      if (zeros == 0) return;
      if (!w.size()) {
        v.emplace_back(0.0, static_cast<double>(zeros));
        return;
      }
      Index k = be.first;  // the rows of a column are stored in increasing order
      for (Index i = 0; i < n_; ++i) {
        if (k < be.second && x.innerIndexPtr()[k] == i) ++k;
        else v.emplace_back(0.0, w(i));
      }
    }, [&](Index j) {
      const auto be = stored(j);
      const unsigned zero = bin_of(j, 0.0);
      if (be.second - be.first < n_)
        for (Index i = 0; i < n_; ++i) put(i, j, zero);
      for (Index k = be.first; k < be.second; ++k) put(x.innerIndexPtr()[k], j, bin_of(j, x.valuePtr()[k]));
    });
  }

  Index rows() const { return n_; }
  Index cols() const { return p_; }
  bool wide() const { return wide_; }
  Index n_bins(Index j) const { return static_cast<Index>(hi_[static_cast<size_t>(j)].size()); }
  Index offset(Index j) const { return offset_[static_cast<size_t>(j)]; }  // column j's first bin in a histogram
  Index total_bins() const { return offset_.back(); }
  double lo(Index j, Index b) const { return lo_[static_cast<size_t>(j)][static_cast<size_t>(b)]; }
  double hi(Index j, Index b) const { return hi_[static_cast<size_t>(j)][static_cast<size_t>(b)]; }
  const std::uint8_t* col8(Index j) const { return bin8_.data() + j * n_; }
  const std::uint16_t* col16(Index j) const { return bin16_.data() + j * n_; }
  unsigned bin(Index i, Index j) const {
    return wide_ ? bin16_[static_cast<size_t>(j * n_ + i)] : bin8_[static_cast<size_t>(j * n_ + i)];
  }

 private:
  Index n_, p_;
  bool wide_;
  std::vector<std::uint8_t> bin8_;
  std::vector<std::uint16_t> bin16_;
  std::vector<std::vector<double>> lo_, hi_;
  std::vector<Index> offset_;

  BinnedColumns(Index n, Index p, int max_bin, const VectorXd& w)
      : n_(n), p_(p), wide_(max_bin > 256), lo_(static_cast<size_t>(p)), hi_(lo_.size()) {
    if (max_bin < 2 || max_bin > 65536) throw std::invalid_argument("miser: max_bin must be in 2..65536");
    if (n >= std::numeric_limits<int>::max()) throw std::invalid_argument("miser: too many rows for 32-bit row indices");
    if (w.size() && w.size() != n_) throw std::invalid_argument("miser: one weight per row of x is needed");
    if (wide_) bin16_.resize(static_cast<size_t>(n_ * p_));
    else bin8_.resize(static_cast<size_t>(n_ * p_));
  }

  // Cuts every column, in parallel over columns: pairs(j, v) appends the (value, weight) pairs of
  // column j to v, then bins(j) puts the bin number of each row (put(), bin_of()).
  template <class Pairs, class Bins>
  void bin_columns(WorkerPool& pool, const InterruptCheck& check_interrupt, int max_bin, const Pairs& pairs,
                   const Bins& bins) {
    // the calling thread polls before each column and between its three phases; when its poll throws,
    // the other threads stop at their own next check instead of finishing their column
    const SharedCheck shared(check_interrupt);
    pool.run(p_, 1, [&](Index begin, Index end) {
      const InterruptCheck check = shared.check();
      shared.run([&] {
        std::vector<std::pair<double, double>> v;
        for (Index j = begin; j < end; ++j) {
          if (check) check();
          v.clear();
          pairs(j, v);
          if (check) check();
          cut_column(max_bin, v, lo_[static_cast<size_t>(j)], hi_[static_cast<size_t>(j)]);
          if (check) check();
          bins(j);
        }
      });
    });
    offset_.assign(static_cast<size_t>(p_) + 1, 0);
    for (Index j = 0; j < p_; ++j) offset_[static_cast<size_t>(j) + 1] = offset_[static_cast<size_t>(j)] + n_bins(j);
  }

  // The bin of value x in column j: the first whose largest value is >= x (exact, no rounding).
  unsigned bin_of(Index j, double x) const {
    const std::vector<double>& hi = hi_[static_cast<size_t>(j)];
    return static_cast<unsigned>(std::lower_bound(hi.begin(), hi.end(), x) - hi.begin());
  }
  void put(Index i, Index j, unsigned b) {
    if (wide_) bin16_[static_cast<size_t>(j * n_ + i)] = static_cast<std::uint16_t>(b);
    else bin8_[static_cast<size_t>(j * n_ + i)] = static_cast<std::uint8_t>(b);
  }

  // The bins of one column from its (value, weight) pairs v (sorted here): smallest and largest value
  // of each bin, in order.
  void cut_column(int max_bin, std::vector<std::pair<double, double>>& v, std::vector<double>& lo,
                  std::vector<double>& hi) const {
    std::sort(v.begin(), v.end());
    std::vector<double> value;  // distinct values and their total weights
    std::vector<double> weight;
    double rest = 0.0;
    for (const auto& vw : v) {
      if (value.empty() || vw.first > value.back()) {
        value.push_back(vw.first);
        weight.push_back(0.0);
      }
      weight.back() += vw.second;
      rest += vw.second;
    }
    const Index D = static_cast<Index>(value.size());
    if (D <= max_bin) {
      lo = value;
      hi = value;
      return;
    }
    double in_bin = 0.0;
    Index bins_left = max_bin, first = 0;
    for (Index t = 0; t < D; ++t) {
      in_bin += weight[static_cast<size_t>(t)];
      const bool last = t == D - 1;
      const bool full = in_bin * static_cast<double>(bins_left) >= rest;
      if (last || (bins_left > 1 && (full || D - t - 1 < bins_left))) {
        lo.push_back(value[static_cast<size_t>(first)]);
        hi.push_back(value[static_cast<size_t>(t)]);
        rest -= in_bin;
        --bins_left;
        in_bin = 0.0;
        first = t + 1;
      }
    }
  }
};

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
  // measurements of j's group that no earlier tree has paid (unpaid, one flag per measurement) and,
  // with PaidUpdate::WithinTree, that no earlier split of this tree has used. The one place a split's
  // cost is read: every split search calls it.
  double charge(Index j, const std::vector<bool>& unpaid) const {
    double c = 0.0;
    for (Index m : meas_.needs[static_cast<size_t>(group_of_[static_cast<size_t>(j)])]) {
      const size_t k = static_cast<size_t>(m);
      if (unpaid[k] && !(ctl_.paid == PaidUpdate::WithinTree && used_[k])) c += meas_.cost[k];
    }
    return c;
  }

  // The column of largest penalized gain gains[j] - lambda * charge(j) among those with gains[j] > zero,
  // the first of those within a relative tie_tol of the best; -1 when no penalized gain is positive.
  // Marks the measurements of the column's group as used by this tree.
  Index choose(const double* gains, Index p, double zero, const std::vector<bool>& unpaid) {
    double best = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < p; ++j)
      if (gains[j] > zero) best = std::max(best, gains[j] - ctl_.lambda * charge(j, unpaid));
    if (!(best > 0.0)) return -1;
    const double tie = best - ctl_.tie_tol * std::abs(best);
    Index chosen = -1;
    for (Index j = 0; j < p && chosen < 0; ++j)
      if (gains[j] > zero && gains[j] - ctl_.lambda * charge(j, unpaid) >= tie) chosen = j;
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
      : group_of_(group_of), ctl_(ctl), penalty_(group_of, meas, ctl_), w_(w) {
    if (static_cast<Index>(group_of_.size()) != p) throw std::invalid_argument("miser: one group per column of x is needed");
    if (ctl_.depth < 1 || ctl_.min_node_size < 1) throw std::invalid_argument("miser: depth and min_node_size must be >= 1");
  }
  virtual ~TreeLearner() = default;

  // Grows the tree on r with unpaid[m] true for every measurement m not paid by an earlier tree,
  // appends it to `forest` and writes its output (leaf value, before eta) for every training row to
  // `fitted`. poll (an interrupt check, a clock) runs before the tree and before each level; when it
  // throws, the tree is abandoned and `forest` is unchanged.
  virtual void grow(const Eigen::Ref<const VectorXd>& r, const std::vector<bool>& unpaid, Forest& forest,
                    VectorXd& fitted, const InterruptCheck& poll = InterruptCheck()) = 0;

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
  VectorXd w_;         // the observation weights (empty: 1 each)
  VectorXd g_;         // the tree's weighted gradient w r (r without weights)
  double zero_ = 0.0;  // gains at most this count as 0: zero_tol * 1/2 sum_i w_i r_i^2

  bool weighted() const { return w_.size() > 0; }
  double weight(Index i) const { return weighted() ? w_(i) : 1.0; }

  // A new tree on r: g_, zero_ and the root node (all rows, starting at 0).
  void start(const Eigen::Ref<const VectorXd>& r) {
    if (weighted()) g_ = w_.cwiseProduct(r);
    else g_ = r;
    zero_ = ctl_.zero_tol * 0.5 * g_.dot(r);
    const Index n = r.size();
    nodes_.clear();
    nodes_.push_back(Node{-1, 0.0, -1, -1, n, g_.sum(), weighted() ? w_.sum() : static_cast<double>(n), 0});
    penalty_.start_tree();
  }

  // The gain of a split into sides of gradient sums sl, sr and weights wl, wr, of a node whose
  // base is sum^2 / weight.
  static double split_gain(double sl, double wl, double sr, double wr, double base) {
    if (!(wl > 0.0 && wr > 0.0)) return -std::numeric_limits<double>::infinity();  // weights lost to rounding
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

// The exact split search: every midpoint between consecutive distinct values of a node's column.
class ExactTreeLearner : public TreeLearner {
 public:
  // group_of: 0-based group of each column; meas: the measurements of each group and their costs.
  // w: the observation weights (n, positive), or empty for 1 each.
  ExactTreeLearner(const Eigen::Ref<const MatrixXd>& x, const SortedColumns& sorted, const std::vector<int>& group_of,
                   const Measurements& meas, const MiserControl& ctl, const VectorXd& w = VectorXd())
      : TreeLearner(x.cols(), group_of, meas, ctl, w), x_(x), sorted_(sorted),
        row_node_(static_cast<size_t>(x.rows())), row_slot_(static_cast<size_t>(x.rows())) {
    if (weighted()) {  // w in the sorted order of every column, as the scans read it
      const Index n = x.rows();
      wsorted_.resize(static_cast<size_t>(n * x.cols()));
      for (Index j = 0; j < x.cols(); ++j)
        for (Index k = 0; k < n; ++k) wsorted_[static_cast<size_t>(j * n + k)] = w_(sorted_.col(j)[k]);
    }
  }

  void grow(const Eigen::Ref<const VectorXd>& r, const std::vector<bool>& unpaid, Forest& forest,
            VectorXd& fitted, const InterruptCheck& poll = InterruptCheck()) override {
    if (poll) poll();
    const Index n = x_.rows(), p = x_.cols();
    const Index m = ctl_.min_node_size;
    start(r);
    std::fill(row_node_.begin(), row_node_.end(), 0);
    rsorted_.resize(static_cast<size_t>(n * p));
    for (Index j = 0; j < p; ++j) {  // w r in the sorted order of every column: the scans read it in sequence
      const int* order = sorted_.col(j);
      double* rs = rsorted_.data() + j * n;
      for (Index k = 0; k < n; ++k) rs[k] = g_(order[k]);
    }

    std::vector<Index> level{0};  // nodes of the current level, left to right
    for (int d = 0; d < ctl_.depth && !level.empty(); ++d) {
      if (poll) poll();
      // the nodes of this level that may split, numbered 0..A-1 in order
      std::vector<Index> active;
      std::vector<int> slot_of(nodes_.size(), -1);
      for (Index v : level)
        if (nodes_[static_cast<size_t>(v)].n >= 2 * m) {
          slot_of[static_cast<size_t>(v)] = static_cast<int>(active.size());
          active.push_back(v);
        }
      if (active.empty()) break;
      const Index A = static_cast<Index>(active.size());
      for (Index i = 0; i < n; ++i) row_slot_[static_cast<size_t>(i)] = slot_of[static_cast<size_t>(row_node_[static_cast<size_t>(i)])];

      // best gain and threshold of every (node, column), by one scan of each sorted column
      gain_.assign(static_cast<size_t>(A * p), -std::numeric_limits<double>::infinity());
      thr_.assign(static_cast<size_t>(A * p), 0.0);
      cnt_.resize(static_cast<size_t>(A));
      sum_.resize(static_cast<size_t>(A));
      wt_.resize(static_cast<size_t>(A));
      base_.resize(static_cast<size_t>(A));
      for (Index s = 0; s < A; ++s) {
        const Node& nd = nodes_[static_cast<size_t>(active[static_cast<size_t>(s)])];
        cnt_[s] = nd.n;
        sum_[s] = nd.sum;
        wt_[s] = nd.weight;
        base_[s] = nd.sum * nd.sum / nd.weight;
      }
      if (weighted()) scan_level<true>(A);
      else scan_level<false>(A);

      // choose the split of each node, left to right, and make its children
      std::vector<int> split_col(static_cast<size_t>(A), -1);
      std::vector<Index> next;
      std::vector<Index> child(static_cast<size_t>(A), -1);
      for (Index s = 0; s < A; ++s) {
        const Index j = penalty_.choose(gain_.data() + s * p, p, zero_, unpaid);
        if (j < 0) continue;
        split_col[static_cast<size_t>(s)] = static_cast<int>(j);
        const Index l = split_node(active[static_cast<size_t>(s)], static_cast<int>(j), thr_[static_cast<size_t>(s * p + j)]);
        child[static_cast<size_t>(s)] = l;
        next.push_back(l);
        next.push_back(l + 1);
      }
      if (next.empty()) break;
      // move the rows
      for (Index i = 0; i < n; ++i) {
        const int s = row_slot_[static_cast<size_t>(i)];
        if (s < 0) continue;
        const int j = split_col[static_cast<size_t>(s)];
        if (j < 0) continue;
        const Node& parent = nodes_[static_cast<size_t>(active[static_cast<size_t>(s)])];
        const Index c = child[static_cast<size_t>(s)] + (x_(i, j) <= parent.threshold ? 0 : 1);
        row_node_[static_cast<size_t>(i)] = c;
        Node& ch = nodes_[static_cast<size_t>(c)];
        ++ch.n;
        ch.sum += g_(i);
        ch.weight += weight(i);
      }
      level.swap(next);
    }

    append_to(forest);
    fitted.resize(n);
    for (Index i = 0; i < n; ++i) {
      fitted(i) = nodes_[static_cast<size_t>(row_node_[static_cast<size_t>(i)])].value();
    }
  }

 private:
  Eigen::Ref<const MatrixXd> x_;
  const SortedColumns& sorted_;
  std::vector<Index> row_node_;
  std::vector<int> row_slot_;                    // active node (0..A-1) of each row, -1 when not splitting
  std::vector<double> gain_, thr_;
  std::vector<double> rsorted_;                  // w r in the sorted order of each column (n x p)
  std::vector<double> wsorted_;                  // w in that order (n x p; empty without weights)
  std::vector<signed char> slot8_;               // row_slot_ in a smaller type, for the scans
  std::vector<short> slot16_;
  std::vector<Index> cnt_, nl_;                  // per active node: rows, rows scanned so far
  std::vector<double> sum_, wt_, base_, sl_, wl_, bg_;  // sum of w r, weight, sum^2 / weight, scanned sum
                                                 // and weight, best gain
  std::vector<int> last_, lastrow_;              // per node: rank and row of the last value scanned
  std::vector<std::pair<int, int>> brow_;        // per node: rows on each side of the best boundary

  // Fills gain_ and thr_ for the A active nodes of a level: for every column, one pass over its sorted
  // rows keeps, per node, the rows seen so far (count, gradient sum) and scores the boundary before each
  // new distinct value. The node of each row is read from a slot array of the smallest integer type
  // that holds A (the one random access of the pass: a small array stays in cache).
  template <bool Weighted>
  void scan_level(Index A) {
    if (A <= std::numeric_limits<signed char>::max()) scan_level<Weighted, signed char>(A, slot8_);
    else if (A <= std::numeric_limits<short>::max()) scan_level<Weighted, short>(A, slot16_);
    else scan_level<Weighted, int>(A, row_slot_);
  }

  // Without weights (Weighted false) the weights scanned are the row counts, not kept.
  template <bool Weighted, typename Slot>
  void scan_level(Index A, std::vector<Slot>& slot) {
    const Index n = x_.rows(), p = x_.cols(), m = ctl_.min_node_size;
    slot.resize(static_cast<size_t>(n));
    for (Index i = 0; i < n; ++i) slot[static_cast<size_t>(i)] = static_cast<Slot>(row_slot_[static_cast<size_t>(i)]);
    nl_.resize(static_cast<size_t>(A));
    sl_.resize(static_cast<size_t>(A));
    wl_.resize(static_cast<size_t>(A));
    last_.resize(static_cast<size_t>(A));
    lastrow_.resize(static_cast<size_t>(A));
    bg_.resize(static_cast<size_t>(A));
    brow_.resize(static_cast<size_t>(A));
    const double none = std::numeric_limits<double>::lowest();  // finite, so the tie test stays defined
    const Slot* sl_of = slot.data();
    for (Index j = 0; j < p; ++j) {
      std::fill(nl_.begin(), nl_.end(), 0);
      std::fill(sl_.begin(), sl_.end(), 0.0);
      if (Weighted) std::fill(wl_.begin(), wl_.end(), 0.0);
      std::fill(bg_.begin(), bg_.end(), none);
      const int* order = sorted_.col(j);
      const int* rank = sorted_.rank(j);
      const double* rs = rsorted_.data() + j * n;
      const double* ws = Weighted ? wsorted_.data() + j * n : nullptr;
      for (Index k = 0; k < n; ++k) {
        const int i = order[k];
        const int s = sl_of[i];
        if (s < 0) continue;
        const int v = rank[k];
        const Index nl = nl_[s];
        if (nl >= m && v > last_[s]) {  // a boundary between two distinct values of the node
          const Index nr = cnt_[s] - nl;
          if (nr >= m) {
            const double sl = sl_[s], sr = sum_[s] - sl;
            const double g = Weighted ? split_gain(sl, wl_[s], sr, wt_[s] - wl_[s], base_[s])
                                      : split_gain(sl, static_cast<double>(nl), sr, static_cast<double>(nr), base_[s]);
            if (g > bg_[s] + ctl_.tie_tol * std::abs(bg_[s])) {  // a later threshold must beat the best clearly
              bg_[s] = g;
              brow_[s] = std::make_pair(lastrow_[s], i);
            }
          }
        }
        nl_[s] = nl + 1;
        sl_[s] += rs[k];
        if (Weighted) wl_[s] += ws[k];
        last_[s] = v;
        lastrow_[s] = i;
      }
      for (Index s = 0; s < A; ++s) {
        if (bg_[s] == none) continue;  // no candidate: the gain stays -inf
        gain_[static_cast<size_t>(s * p + j)] = bg_[s];
        thr_[static_cast<size_t>(s * p + j)] = midpoint(x_(brow_[s].first, j), x_(brow_[s].second, j));
      }
    }
  }
};

// The histogram split search (see the top of this file).
class HistogramTreeLearner : public TreeLearner {
 public:
  // w: the observation weights (n, positive), or empty for 1 each.
  HistogramTreeLearner(const BinnedColumns& bins, WorkerPool& pool, const std::vector<int>& group_of,
                       const Measurements& meas, const MiserControl& ctl, const VectorXd& w = VectorXd())
      : TreeLearner(bins.cols(), group_of, meas, ctl, w), bins_(bins), workers_(pool), rows_(static_cast<size_t>(bins.rows())),
        right_(rows_.size()), ordered_(rows_.size()), wordered_(weighted() ? rows_.size() : 0) {}

  void grow(const Eigen::Ref<const VectorXd>& r, const std::vector<bool>& unpaid, Forest& forest,
            VectorXd& fitted, const InterruptCheck& poll = InterruptCheck()) override {
    if (poll) poll();
    const Index n = bins_.rows(), p = bins_.cols(), m = ctl_.min_node_size;
    start(r);
    std::iota(rows_.begin(), rows_.end(), 0);
    hist_of_.assign(1, -1);
    free_.clear();
    for (size_t h = 0; h < pool_.size(); ++h) free_.push_back(static_cast<int>(h));
    if (n >= 2 * m) build(std::vector<Index>{0});

    std::vector<Index> level{0};
    for (int d = 0; d < ctl_.depth && !level.empty(); ++d) {
      if (poll) poll();
      std::vector<Index> active;  // the nodes of this level that may split: each has its histogram
      for (Index v : level)
        if (nodes_[static_cast<size_t>(v)].n >= 2 * m) active.push_back(v);
      if (active.empty()) break;
      const Index A = static_cast<Index>(active.size());
      scan(active);

      // choose the split of each node, left to right; then split the rows of every node stably
      std::vector<Index> next, parents;
      std::vector<std::pair<Index, unsigned>> split_on;  // per split node: its column and last bin going left
      for (Index s = 0; s < A; ++s) {
        const Index v = active[static_cast<size_t>(s)];
        const Index j = penalty_.choose(gain_.data() + s * p, p, zero_, unpaid);
        if (j < 0) {
          release(v);
          continue;
        }
        const size_t sj = static_cast<size_t>(s * p + j);
        const Index l = split_node(v, static_cast<int>(j), thr_[sj]);
        split_on.emplace_back(j, bin_[sj]);
        parents.push_back(v);
        next.push_back(l);
        next.push_back(l + 1);
      }
      if (next.empty()) break;
      partition(parents, split_on);
      hist_of_.resize(nodes_.size(), -1);
      if (d + 1 < ctl_.depth) children_histograms(parents);
      else for (Index v : parents) release(v);
      level.swap(next);
    }

    append_to(forest);
    fitted.resize(n);
    workers_.run(static_cast<Index>(nodes_.size()), 1, [&](Index begin, Index end) {
      for (Index v = begin; v < end; ++v) {
        const Node& nd = nodes_[static_cast<size_t>(v)];
        if (nd.feature >= 0) continue;
        const double value = nd.value();
        for (Index k = nd.begin; k < nd.begin + nd.n; ++k) fitted(rows_[static_cast<size_t>(k)]) = value;
      }
    });
  }

 private:
  struct HistBin {
    double sum;     // sum of w r over the node's rows in the bin
    double count;   // their number (exact in a double)
    double weight;  // their total weight (with weights only)
  };

  const BinnedColumns& bins_;
  WorkerPool& workers_;                      // MiserControl::threads threads
  std::vector<int> rows_, right_;            // row permutation (each node a range of it); scratch
  std::vector<double> ordered_;              // w r in the order of rows_, for the nodes being built
  std::vector<double> wordered_;             // and w (with weights only)
  std::vector<std::vector<HistBin>> pool_;   // histogram buffers (total_bins each), reused across trees
  std::vector<int> free_;                    // buffers of pool_ not in use
  std::vector<int> hist_of_;                 // per node: its buffer in pool_, or -1
  std::vector<double> gain_, thr_;           // per (active node, column): best gain and its threshold
  std::vector<unsigned> bin_;                // and the last bin going left
  static constexpr Index kChunk = 16384;     // rows or bins a thread claims at a time

  int acquire() {
    if (free_.empty()) {
      pool_.emplace_back(static_cast<size_t>(bins_.total_bins()));
      return static_cast<int>(pool_.size()) - 1;
    }
    const int h = free_.back();
    free_.pop_back();
    return h;
  }
  void release(Index v) {
    int& h = hist_of_[static_cast<size_t>(v)];
    if (h >= 0) free_.push_back(h);
    h = -1;
  }

  // Splits the rows of every node of `parents` (each a range of rows_) into its children (left: bin <=
  // split_on[k].second of column split_on[k].first), keeping the order, and counts the children's rows
  // and sums w r and w over them. In parallel over blocks of kChunk rows of a node: a first pass counts
  // and sums each block's rows going left and right, a second writes every row at its place in right_,
  // which is then copied back. A child's sums add its blocks' sums in order, so they do not depend on
  // the number of threads.
  void partition(const std::vector<Index>& parents, const std::vector<std::pair<Index, unsigned>>& split_on) {
    struct Block {
      Index node, begin, end;  // the k-th parent; rows_[begin, end) of it
      Index nl = 0, to_left = 0, to_right = 0;  // rows going left; where its left and right rows go
      double sl = 0.0, sr = 0.0, wl = 0.0, wr = 0.0;
    };
    std::vector<Block> blocks;
    for (size_t k = 0; k < parents.size(); ++k) {
      const Node& nd = nodes_[static_cast<size_t>(parents[k])];
      for (Index b = nd.begin; b < nd.begin + nd.n; b += kChunk)
        blocks.push_back(Block{static_cast<Index>(k), b, std::min(b + kChunk, nd.begin + nd.n)});
    }
    const auto goes_left = [&](const Block& bl, int i) {
      const auto& js = split_on[static_cast<size_t>(bl.node)];
      return bins_.bin(i, js.first) <= js.second;
    };
    const Index B = static_cast<Index>(blocks.size());
    workers_.run(B, 1, [&](Index begin, Index end) {
      for (Index t = begin; t < end; ++t) {
        Block& bl = blocks[static_cast<size_t>(t)];
        for (Index k = bl.begin; k < bl.end; ++k) {
          const int i = rows_[static_cast<size_t>(k)];
          if (goes_left(bl, i)) {
            ++bl.nl;
            bl.sl += g_(i);
            bl.wl += weight(i);
          } else {
            bl.sr += g_(i);
            bl.wr += weight(i);
          }
        }
      }
    });
    for (Index t = 0; t < B;) {  // the children of each parent from its blocks, in order
      const Index k = blocks[static_cast<size_t>(t)].node;
      const Index v = parents[static_cast<size_t>(k)];
      const Node& nd = nodes_[static_cast<size_t>(v)];
      Index nl = 0, u = t;
      double sl = 0.0, sr = 0.0, wl = 0.0, wr = 0.0;
      for (; u < B && blocks[static_cast<size_t>(u)].node == k; ++u) {
        const Block& bl = blocks[static_cast<size_t>(u)];
        nl += bl.nl;
        sl += bl.sl;
        sr += bl.sr;
        wl += bl.wl;
        wr += bl.wr;
      }
      for (Index left = nd.begin, right = nd.begin + nl; t < u; ++t) {
        Block& bl = blocks[static_cast<size_t>(t)];
        bl.to_left = left;
        bl.to_right = right;
        left += bl.nl;
        right += bl.end - bl.begin - bl.nl;
      }
      const Index l = nd.left;
      nodes_[static_cast<size_t>(l)] = Node{-1, 0.0, -1, -1, nl, sl, wl, nd.begin};
      nodes_[static_cast<size_t>(l + 1)] = Node{-1, 0.0, -1, -1, nd.n - nl, sr, wr, nd.begin + nl};
    }
    workers_.run(B, 1, [&](Index begin, Index end) {
      for (Index t = begin; t < end; ++t) {
        const Block& bl = blocks[static_cast<size_t>(t)];
        Index left = bl.to_left, right = bl.to_right;
        for (Index k = bl.begin; k < bl.end; ++k) {
          const int i = rows_[static_cast<size_t>(k)];
          right_[static_cast<size_t>(goes_left(bl, i) ? left++ : right++)] = i;
        }
      }
    });
    workers_.run(B, 1, [&](Index begin, Index end) {
      for (Index t = begin; t < end; ++t) {
        const Block& bl = blocks[static_cast<size_t>(t)];
        std::copy(right_.begin() + bl.begin, right_.begin() + bl.end, rows_.begin() + bl.begin);
      }
    });
  }

  // The histograms of the next level's nodes that may split: the smaller child of each split parent
  // is built from its rows, the larger one is the parent's less the smaller's (in the parent's buffer).
  void children_histograms(const std::vector<Index>& parents) {
    const Index m = ctl_.min_node_size;
    std::vector<Index> built;
    std::vector<std::pair<Index, Index>> subtract;  // (larger, smaller)
    std::vector<Index> drop;                         // built only to subtract
    for (Index v : parents) {
      const Index l = nodes_[static_cast<size_t>(v)].left;
      const Index small = nodes_[static_cast<size_t>(l)].n <= nodes_[static_cast<size_t>(l + 1)].n ? l : l + 1;
      const Index large = small == l ? l + 1 : l;
      const bool need_small = nodes_[static_cast<size_t>(small)].n >= 2 * m;
      const bool need_large = nodes_[static_cast<size_t>(large)].n >= 2 * m;
      if (need_small || need_large) built.push_back(small);
      if (need_large) {
        hist_of_[static_cast<size_t>(large)] = hist_of_[static_cast<size_t>(v)];
        hist_of_[static_cast<size_t>(v)] = -1;
        subtract.emplace_back(large, small);
        if (!need_small) drop.push_back(small);
      } else {
        release(v);
      }
    }
    if (!built.empty()) build(built);
    workers_.run(bins_.total_bins(), kChunk, [&](Index begin, Index end) {
      for (const auto& ls : subtract) {
        HistBin* a = pool_[static_cast<size_t>(hist_of_[static_cast<size_t>(ls.first)])].data();
        const HistBin* b = pool_[static_cast<size_t>(hist_of_[static_cast<size_t>(ls.second)])].data();
        for (Index k = begin; k < end; ++k) {
          a[k].sum -= b[k].sum;
          a[k].count -= b[k].count;
          a[k].weight -= b[k].weight;
        }
      }
    });
    for (Index v : drop) release(v);
  }

  // Builds the histograms of `nodes` from their rows, in parallel: first w r (and w) in the order of
  // the nodes' rows, over chunks of rows; then the histograms, over columns (each thread zeroes the
  // bins it fills).
  void build(const std::vector<Index>& nodes) {
    for (Index v : nodes) hist_of_[static_cast<size_t>(v)] = acquire();
    for (Index v : nodes) {
      const Node& nd = nodes_[static_cast<size_t>(v)];
      if (nd.n == bins_.rows()) continue;  // the root reads g_ and w_ in row order
      workers_.run(nd.n, kChunk, [&](Index begin, Index end) {
        for (Index k = nd.begin + begin; k < nd.begin + end; ++k) {
          const int i = rows_[static_cast<size_t>(k)];
          ordered_[static_cast<size_t>(k)] = g_(i);
          if (weighted()) wordered_[static_cast<size_t>(k)] = w_(i);
        }
      });
    }
    workers_.run(bins_.cols(), 1, [&](Index begin, Index end) {
      for (Index j = begin; j < end; ++j)
        for (Index v : nodes) {
          const Node& nd = nodes_[static_cast<size_t>(v)];
          HistBin* h = pool_[static_cast<size_t>(hist_of_[static_cast<size_t>(v)])].data() + bins_.offset(j);
          std::fill(h, h + bins_.n_bins(j), HistBin{0.0, 0.0, 0.0});
          if (weighted()) {
            if (bins_.wide()) accumulate<true>(bins_.col16(j), nd, h);
            else accumulate<true>(bins_.col8(j), nd, h);
          } else {
            if (bins_.wide()) accumulate<false>(bins_.col16(j), nd, h);
            else accumulate<false>(bins_.col8(j), nd, h);
          }
        }
    });
  }

  // Without weights (Weighted false) a bin's weight is its count and is not kept.
  template <bool Weighted, typename Bin>
  void accumulate(const Bin* col, const Node& nd, HistBin* h) const {
    const bool root = nd.n == bins_.rows();  // the root: rows in order, w r and w read as they are
    const int* rows = rows_.data() + nd.begin;
    const double* g = root ? g_.data() : ordered_.data() + nd.begin;
    const double* w = !Weighted ? nullptr : root ? w_.data() : wordered_.data() + nd.begin;
    for (Index k = 0; k < nd.n; ++k) {
      HistBin& e = h[col[root ? k : rows[k]]];
      e.sum += g[k];
      e.count += 1.0;
      if (Weighted) e.weight += w[k];
    }
  }

  // Fills gain_, thr_ and bin_ for the active nodes: per column, one pass over each node's bins scores
  // the boundary before every non-empty bin that follows a non-empty one.
  void scan(const std::vector<Index>& active) {
    const Index A = static_cast<Index>(active.size()), p = bins_.cols(), m = ctl_.min_node_size;
    gain_.assign(static_cast<size_t>(A * p), -std::numeric_limits<double>::infinity());
    thr_.assign(gain_.size(), 0.0);
    bin_.assign(gain_.size(), 0);
    const double none = std::numeric_limits<double>::lowest();
    workers_.run(p, 1, [&](Index begin, Index end) {
      for (Index j = begin; j < end; ++j) {
        const Index nb = bins_.n_bins(j);
        for (Index s = 0; s < A; ++s) {
          const Node& nd = nodes_[static_cast<size_t>(active[static_cast<size_t>(s)])];
          const HistBin* h = pool_[static_cast<size_t>(hist_of_[static_cast<size_t>(active[static_cast<size_t>(s)])])].data() +
                             bins_.offset(j);
          const double base = nd.sum * nd.sum / nd.weight;
          const bool weighted = this->weighted();
          Index nl = 0, last = -1, best_left = -1, best_right = -1;
          double sl = 0.0, wl = 0.0, best = none;
          for (Index b = 0; b < nb; ++b) {
            if (h[b].count == 0.0) continue;
            if (nl >= m) {  // a boundary between two non-empty bins of the node
              const Index nr = nd.n - nl;
              if (nr >= m) {
                const double g = split_gain(sl, wl, nd.sum - sl, nd.weight - wl, base);
                if (g > best + ctl_.tie_tol * std::abs(best)) {
                  best = g;
                  best_left = last;
                  best_right = b;
                }
              }
            }
            nl += static_cast<Index>(h[b].count);
            sl += h[b].sum;
            wl += weighted ? h[b].weight : h[b].count;
            last = b;
          }
          if (best == none) continue;
          const size_t k = static_cast<size_t>(s * p + j);
          gain_[k] = best;
          thr_[k] = midpoint(bins_.hi(j, best_left), bins_.lo(j, best_right));
          bin_[k] = static_cast<unsigned>(best_left);
        }
      }
    });
  }
};

struct MiserFit {
  Forest forest;               // n_iter * P trees; tree t * P + c is class c's tree of iteration t
  VectorXd init;               // P starting constants
  std::vector<double> loss;    // mean training loss after iterations 0..n_iter
  std::vector<Index> paid_by;  // per group: the tree that first used it (-1: never used)
  bool partial = false;        // max_time stopped the fit before n_iter iterations
  double lambda = 0.0;         // the lambda of equation (5) the trees were grown with
};

namespace detail {

// Weighted mean loss of the predictor H (n x P) on the targets Y (n x P), weights w of total W: half
// the mean deviance for 0/1 targets and the gaussian family.
inline double miser_loss(const FamilyOps& fam, const MatrixXd& Y, const MatrixXd& H, const VectorXd& w, double W) {
  return fam.loss(H, Y, w) / W;
}

// The best constant predictor (Friedman 2001) given the weights w (total W) and the offset (n x P or
// empty): the intercepts of the intercept-only GLM, as fit_path's step 0 has them. Without an offset,
// the link of the weighted mean of Y; with one, the damped Newton solve of glm.hpp from there. Centred
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
// weights w, and the weighted sum of squares of the first negative gradient (for the relative lambda),
// both summed over blocks of rows: no n x P buffer, so a fit stopped before its first tree answers
// without making one.
struct StartSums {
  double loss = 0.0;
  double gradient_ss = 0.0;
};
inline StartSums start_sums(const FamilyOps& fam, const MatrixXd& Y, const VectorXd& init, const MatrixXd& offset,
                            const VectorXd& w) {
  StartSums s;
  for (Index b = 0; b < Y.rows(); b += kRowBlock) {
    const Index m = std::min(kRowBlock, Y.rows() - b);
    MatrixXd H = init.transpose().replicate(m, 1);
    if (offset.size()) H += offset.middleRows(b, m);
    const MatrixXd Yb = Y.middleRows(b, m);
    const VectorXd wb = w.segment(b, m);
    s.loss += fam.loss(H, Yb, wb);
    s.gradient_ss += wb.dot((Yb - fam.mean(H)).rowwise().squaredNorm());
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
  for (Index& by : fit.paid_by)
    if (by >= trees) by = -1;
}

}  // namespace detail

// Fits the miser. x: n x p, dense (a MatrixXd or a map of one) or sparse (SparseMap: histogram search
// only; binned from its stored values); Y: n x P targets (squared: the response; logistic: a 0/1
// column; multinomial: one 0/1 indicator column per class); group_of: 0-based group of each column; cost: the
// measurements of each group and their costs (measurements.hpp; a vector of one cost per group makes
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
                          const MiserProgress& progress = MiserProgress()) {
  const auto started = std::chrono::steady_clock::now();
  const Index n = x.rows(), P = Y.cols();
  if (Y.rows() != n) throw std::invalid_argument("miser_fit: Y must have one row per row of x");
  const FamilyOps fam{ctl.family};
  if (!fam.columns_fit(P))
    throw std::invalid_argument("miser_fit: one target column, or one per class (at least 2) for the multinomial loss");
  if (!(ctl.eta > 0.0) || ctl.lambda < 0.0 || ctl.n_iter < 0)
    throw std::invalid_argument("miser_fit: eta must be positive, lambda and n_iter non-negative");
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
  WorkerPool pool(ctl.split == SplitSearch::Histogram ? ctl.threads : 1);
  std::unique_ptr<SortedColumns> sorted;
  std::unique_ptr<BinnedColumns> binned;
  // The binning (or sorting) of x counts towards max_time, and comes first: the poll checks the clock
  // before it and between the phases of every column; when the time is spent there the fit is the
  // starting score alone, partial, found without n-row buffers.
  const InterruptCheck poll = [&check_interrupt, started, limit = ctl.max_time] {
    if (check_interrupt) check_interrupt();
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >= limit) throw TimeUp();
  };
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
  const detail::StartSums start = detail::start_sums(fam, Y, out.init, offset, w);
  out.loss.push_back(start.loss / W);
  MiserControl c = ctl;
  if (ctl.lambda_relative) c.lambda = ctl.lambda * 0.5 * start.gradient_ss / static_cast<double>(P);
  out.lambda = c.lambda;
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

  std::vector<bool> unpaid(cost.cost.size(), true);  // per measurement: phi
  VectorXd fitted;
  for (Index t = 0; t < ctl.n_iter; ++t) {
    // polled before the iteration, and by the trees before they start and before every level: a
    // deadline before or within an iteration abandons it, and the fit keeps the iterations completed
    try {
      poll();
      if (progress) progress(t, ctl.n_iter);
      if (t > 0) R = Y - fam.mean(H);  // the negative gradient of the loss
      for (Index k = 0; k < P; ++k) {
        learner->grow(R.col(k), unpaid, out.forest, fitted, poll);
        H.col(k).noalias() += ctl.eta * fitted;
        const Index tree = out.forest.n_trees() - 1;
        for (int g : learner->groups_used()) {  // Algorithm 1: phi_a <- 0 after the tree
          if (out.paid_by[static_cast<size_t>(g)] < 0) out.paid_by[static_cast<size_t>(g)] = tree;
          for (Index m : cost.needs[static_cast<size_t>(g)]) unpaid[static_cast<size_t>(m)] = false;
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
