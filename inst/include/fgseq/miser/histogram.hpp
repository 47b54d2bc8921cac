// The Greedy Miser's histogram split search (miser/boost.hpp has the method).
#ifndef FGSEQ_MISER_HISTOGRAM_HPP
#define FGSEQ_MISER_HISTOGRAM_HPP

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

// The histogram split search (see the top of this file).
class HistogramTreeLearner : public TreeLearner {
 public:
  // w: the observation weights (n, positive), or empty for 1 each.
  HistogramTreeLearner(const BinnedColumns& bins, WorkerPool& pool, const std::vector<int>& group_of,
                       const Measurements& meas, const MiserControl& ctl, const VectorXd& w = VectorXd())
      : TreeLearner(bins.cols(), group_of, meas, ctl, w), bins_(bins), workers_(pool), rows_(static_cast<size_t>(bins.rows())),
        right_(rows_.size()), ordered_(rows_.size()), wordered_(weighted() ? rows_.size() : 0) {}

  void grow(const Eigen::Ref<const VectorXd>& r, const PaidMeasurements& paid, Forest& forest,
            VectorXd& fitted, const InterruptCheck& poll = InterruptCheck()) override {
    if (poll) poll();
    const Index n = bins_.rows(), p = bins_.cols(), m = ctl_.min_node_size;
    start(r);
    if (weighted()) wordered_.resize(rows_.size());  // node weights set after construction (newton)
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
        const Index j = penalty_.choose(gain_.data() + s * p, p, zero_, paid);
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

}  // namespace fgseq

#endif
