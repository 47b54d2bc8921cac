// The columns of x as the Greedy Miser's split searches read them: sorted once (the exact search) or
// cut into quantile bins (the histogram search) (miser/boost.hpp has the method).
#ifndef FGSEQ_MISER_BINS_HPP
#define FGSEQ_MISER_BINS_HPP

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

#include "../common/design.hpp"
#include "../common/stats.hpp"
#include "../common/threads.hpp"

namespace fgseq {

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

}  // namespace fgseq

#endif
