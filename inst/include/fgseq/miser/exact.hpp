// The Greedy Miser's exact split search (miser/boost.hpp has the method).
#ifndef FGSEQ_MISER_EXACT_HPP
#define FGSEQ_MISER_EXACT_HPP

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

#include "bins.hpp"
#include "tree.hpp"

namespace fgseq {

// The exact split search: every midpoint between consecutive distinct values of a node's column.
class ExactTreeLearner : public TreeLearner {
 public:
  // group_of: 0-based group of each column; meas: the measurements of each group and their costs.
  // w: the observation weights (n, positive), or empty for 1 each.
  ExactTreeLearner(const Eigen::Ref<const MatrixXd>& x, const SortedColumns& sorted, const std::vector<int>& group_of,
                   const Measurements& meas, const MiserControl& ctl, const VectorXd& w = VectorXd())
      : TreeLearner(x.cols(), group_of, meas, ctl, w), x_(x), sorted_(sorted),
        row_node_(static_cast<size_t>(x.rows())), row_slot_(static_cast<size_t>(x.rows())) {
    if (weighted()) sort_weights();
  }

  void grow(const Eigen::Ref<const VectorXd>& r, const PaidMeasurements& paid, Forest& forest,
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
        const Index j = penalty_.choose(gain_.data() + s * p, p, zero_, paid);
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

 protected:
  void node_weights_changed() override { sort_weights(); }

 private:
  // The node weights in the sorted order of every column, as the scans read them.
  void sort_weights() {
    const Index n = x_.rows();
    wsorted_.resize(static_cast<size_t>(n * x_.cols()));
    for (Index j = 0; j < x_.cols(); ++j) {
      const int* order = sorted_.col(j);
      double* ws = wsorted_.data() + j * n;
      for (Index k = 0; k < n; ++k) ws[k] = w_(order[k]);
    }
  }

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

}  // namespace fgseq

#endif
