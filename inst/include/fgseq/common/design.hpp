// x as the engines read it: a dense column-major matrix or a sparse compressed-column matrix, both
// read in place. Only three operations are needed: gather some columns (densified), x' M for a dense
// M (the sample-space engine's one pass per step), and the column statistics with the standardized
// diagonal blocks of every group (for whitening without a p x p matrix). Centring is implicit for
// sparse x: x'M - mean (1'M), so no n x p centred copy is ever formed.
#ifndef FGSEQ_COMMON_DESIGN_HPP
#define FGSEQ_COMMON_DESIGN_HPP

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "compiled.hpp"
#include "kernels.hpp"
#include "threads.hpp"
#include "deadline.hpp"
#include "stats.hpp"
#include "whiten.hpp"

namespace fgseq {

using SparseMap = Eigen::Map<const Eigen::SparseMatrix<double>>;

class Design {
 public:
  virtual ~Design() = default;
  virtual Index rows() const = 0;
  virtual Index cols() const = 0;
  virtual bool is_sparse() const = 0;
  // out (n x |cols|) = x[, cols]
  virtual void gather(const std::vector<Index>& cols, MatrixXd& out) const = 0;
  // rows [r0, r0 + rows) of the columns cols[0], ..., cols[k - 1], column a at dst + a * ld
  virtual void gather_rows(const Index* cols, Index k, Index r0, Index rows, double* dst, Index ld) const = 0;
  // sum_i w_i x_ij x_ik over rows (the uncentred weighted cross-product of two columns)
  virtual double cross(Index j, Index k, const VectorXd& w) const = 0;
  // the weighted column sums x' w
  virtual VectorXd weighted_sums(const VectorXd& w) const = 0;

  // x' M, p x k, on `threads` threads
  virtual MatrixXd tmul(const Eigen::Ref<const MatrixXd>& M, int threads = 1) const = 0;
  // the same into out (p x k, overwritten) on the threads of `pool` (chunks of columns claimed in turn)
  virtual void tmul(const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool, Eigen::Ref<MatrixXd> out) const = 0;
  MatrixXd tmul(const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool) const {
    MatrixXd out(cols(), M.cols());
    tmul(M, pool, out);
    return out;
  }
};

class DenseDesign : public Design {
 public:
  explicit DenseDesign(const Eigen::Ref<const MatrixXd>& x) : x_(x) {}
  // read in place by the dense kernels (common/kernels.hpp)
  MatrixXd tmul(const Eigen::Ref<const MatrixXd>& M, int threads = 1) const override {
    return kernels::tmul(x_, M, threads);
  }
  void tmul(const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool, Eigen::Ref<MatrixXd> out) const override {
    kernels::tmul(x_, M, pool, out);
  }
  using Design::tmul;
  Index rows() const override { return x_.rows(); }
  Index cols() const override { return x_.cols(); }
  bool is_sparse() const override { return false; }
  const Eigen::Ref<const MatrixXd>& matrix() const { return x_; }
  void gather(const std::vector<Index>& cols, MatrixXd& out) const override {
    out.resize(x_.rows(), static_cast<Index>(cols.size()));
    for (size_t a = 0; a < cols.size(); ++a) out.col(static_cast<Index>(a)) = x_.col(cols[a]);
  }
  void gather_rows(const Index* cols, Index k, Index r0, Index rows, double* dst, Index ld) const override {
    for (Index a = 0; a < k; ++a) Eigen::Map<VectorXd>(dst + a * ld, rows) = x_.col(cols[a]).segment(r0, rows);
  }
  double cross(Index j, Index k, const VectorXd& w) const override {
    return (x_.col(j).array() * x_.col(k).array() * w.array()).sum();
  }
  VectorXd weighted_sums(const VectorXd& w) const override { return x_.transpose() * w; }

 private:
  Eigen::Ref<const MatrixXd> x_;
};

class SparseDesign : public Design {
 public:
  explicit SparseDesign(const SparseMap& x) : x_(x) {}
  Index rows() const override { return x_.rows(); }
  Index cols() const override { return x_.cols(); }
  bool is_sparse() const override { return true; }
  const SparseMap& matrix() const { return x_; }
  void gather(const std::vector<Index>& cols, MatrixXd& out) const override {
    out = MatrixXd::Zero(x_.rows(), static_cast<Index>(cols.size()));
    for (size_t a = 0; a < cols.size(); ++a)
      for (SparseMap::InnerIterator it(x_, cols[a]); it; ++it) out(it.row(), static_cast<Index>(a)) = it.value();
  }
  // each column's stored rows are sorted: the first at or after r0 by bisection
  void gather_rows(const Index* cols, Index k, Index r0, Index rows, double* dst, Index ld) const override {
    const auto* outer = x_.outerIndexPtr();
    const auto* inner = x_.innerIndexPtr();
    const double* value = x_.valuePtr();
    for (Index a = 0; a < k; ++a) {
      double* d = dst + a * ld;
      std::fill(d, d + rows, 0.0);
      const Index j = cols[a];
      const auto* end = inner + outer[j + 1];
      for (const auto* it = std::lower_bound(inner + outer[j], end, r0); it != end && *it < r0 + rows; ++it)
        d[*it - r0] = value[it - inner];
    }
  }
  // column ranges spread over the threads
  MatrixXd tmul(const Eigen::Ref<const MatrixXd>& M, int threads = 1) const override {
    MatrixXd out(x_.cols(), M.cols());
    parallel_ranges(x_.cols(), threads, [&](Index b, Index e) { tmul_range(M, b, e, out); });
    return out;
  }
  void tmul(const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool, Eigen::Ref<MatrixXd> out) const override {
    pool.ranges(x_.cols(), [&](Index b, Index e) { tmul_range(M, b, e, out); });
  }
  using Design::tmul;
  void tmul_range(const Eigen::Ref<const MatrixXd>& M, Index begin, Index end, Eigen::Ref<MatrixXd> out) const {
    const Index k = M.cols();
    if (k == 1) {
      for (Index j = begin; j < end; ++j) {
        double s = 0.0;
        for (SparseMap::InnerIterator it(x_, j); it; ++it) s += it.value() * M(it.row(), 0);
        out(j, 0) = s;
      }
      return;
    }
    // rows of M made contiguous (k x n): each stored entry of x then reads one short run of memory
    const MatrixXd Mt = M.transpose();
    Eigen::VectorXd acc(k);
    for (Index j = begin; j < end; ++j) {
      acc.setZero();
      for (SparseMap::InnerIterator it(x_, j); it; ++it) acc.noalias() += it.value() * Mt.col(it.row());
      out.row(j) = acc.transpose();
    }
  }
  double cross(Index j, Index k, const VectorXd& w) const override {
    SparseMap::InnerIterator a(x_, j), b(x_, k);
    double s = 0.0;
    while (a && b) {  // row indices are sorted within a column
      if (a.row() < b.row()) ++a;
      else if (b.row() < a.row()) ++b;
      else {
        s += a.value() * b.value() * w(a.row());
        ++a;
        ++b;
      }
    }
    return s;
  }
  VectorXd weighted_sums(const VectorXd& w) const override { return x_.transpose() * w; }

 private:
  SparseMap x_;
};

// z = (x[, cols] - mean) / sd * T: the whitened columns of one group (st: mean, scale, constant),
// n x r. Centred explicitly (accurate for any column means); the scales are folded into T (the rows of
// constant columns zero), and the product runs on the dense kernels (z = 0 - x_c (-T~)).
// -T~ for the whitening map T of the columns cols: T's rows divided by the columns' scales, the rows of
// constant columns 0, negated (z = 0 - x_c (-T~) on the kernels).
FGSEQ_API MatrixXd negated_scaled_map(const std::vector<Index>& cols, const GramStats& st, const MatrixXd& T);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API MatrixXd negated_scaled_map(const std::vector<Index>& cols, const GramStats& st, const MatrixXd& T) {
  MatrixXd Ts = T;
  for (Index a = 0; a < Ts.rows(); ++a) {
    const Index j = cols[static_cast<size_t>(a)];
    if (st.constant[static_cast<size_t>(j)]) Ts.row(a).setZero();
    else Ts.row(a) /= -st.scale(j);
  }
  return Ts;
}
#endif

FGSEQ_API MatrixXd whitened_columns(const Design& x, const std::vector<Index>& cols, const GramStats& st,
                                    const MatrixXd& T);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API MatrixXd whitened_columns(const Design& x, const std::vector<Index>& cols, const GramStats& st,
                                    const MatrixXd& T) {
  MatrixXd xg;
  x.gather(cols, xg);
  for (Index a = 0; a < xg.cols(); ++a) xg.col(a).array() -= st.mean(cols[static_cast<size_t>(a)]);
  MatrixXd z = MatrixXd::Zero(xg.rows(), T.cols());
  kernels::sub_mul(z, xg, negated_scaled_map(cols, st, T));
  return z;
}
#endif

// Column statistics and the standardized diagonal blocks Sigma_gg of every group, without the p x p
// matrix: what whitening needs (the GLM families and the sample-space engine). Dense groups are
// centred explicitly (accurate for any column means); sparse groups implicitly,
// sum w x_j x_k - W m_j m_k. The constant-column rule is standardize()'s. A group with more columns
// than x has rows keeps, instead of its d_g x d_g block, the standardized rows A_g (n x d_g, centred,
// times sqrt(w / W), scaled; Sigma_gg = A_g' A_g), from which whiten_block_stats() whitens it through
// the n x n matrix A_g A_g' (whiten_rows()).
// With `scan` (a dense x, the sample-space engine's check of the values), x is read once, group by group:
// each group's columns are gathered, and their checks (ColumnScan: each column's largest magnitude,
// whether any holds NA, NaN or Inf), means and block are taken from that copy while it is in cache. A
// value NA, NaN or Inf stops the pass (scan->nonfinite is then a column that holds one, not necessarily
// the first); the statistics returned are then unusable. Without it (the GLM families, whose fits at the
// boundary of separable data are sensitive to the means' rounding), the column means come from one pass
// x'w first, as they always have.
struct BlockStats {
  GramStats st;                   // mean, scale, constant, n, weight_sum, y_mean, yy (sigma, rho empty)
  std::vector<MatrixXd> blocks;   // standardized Sigma_gg, d_g x d_g (empty for a wide group)
  std::vector<MatrixXd> rows;     // a wide group's A_g, n x d_g (empty for the others)
};

FGSEQ_API BlockStats block_stats(const Design& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights,
                                 const GroupLayout& lay, int threads = 1,
                                 const InterruptCheck& check_interrupt = InterruptCheck(), ColumnScan* scan = nullptr);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API BlockStats block_stats(const Design& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights,
                                 const GroupLayout& lay, int threads,
                                 const InterruptCheck& check_interrupt, ColumnScan* scan) {
  const Index n = x.rows(), p = x.cols(), P = y.cols();
  if (n < 2) throw std::invalid_argument("block_stats: at least 2 rows are needed");
  if (check_interrupt) check_interrupt();  // before the first pass over x (the column means)
  const VectorXd w = weights.size() ? weights : VectorXd::Ones(n);
  BlockStats out;
  GramStats& st = out.st;
  st.n = n;
  st.weight_sum = w.sum();
  const double W = st.weight_sum;
  if (!(W > 0)) throw std::invalid_argument("block_stats: the weights must not all be zero");
  const bool dense = !x.is_sparse(), by_group = dense && scan;
  if (by_group) st.mean = VectorXd::Zero(p);  // group by group, from the gathered columns
  else st.mean = x.weighted_sums(w) / W;
  if (scan) {
    scan->nonfinite = -1;
    scan->max_abs = VectorXd::Zero(p);
  }
  std::atomic<Index> nonfinite{-1};  // a column found holding NA, NaN or Inf
  // by_group: a dense group's columns, just gathered: their checks and means; false when one holds NA,
  // NaN or Inf (the pass then stops)
  const auto check_and_mean = [&](const std::vector<Index>& cols, const MatrixXd& xg) {
    for (Index a = 0; a < xg.cols(); ++a) {
      const Index j = cols[static_cast<size_t>(a)];
      const double m = column_max_abs(xg.col(a).data(), n);
      if (m < 0) {
        Index none = -1;
        nonfinite.compare_exchange_strong(none, j);  // the first thread to find one sets it
        return false;
      }
      scan->max_abs(j) = m;  // distinct j per thread: no race
      st.mean(j) = xg.col(a).dot(w) / W;
    }
    return true;
  };
  st.y_mean = y.transpose() * w / W;
  st.yy.resize(P);
  for (Index c = 0; c < P; ++c) st.yy(c) = (w.array() * (y.col(c).array() - st.y_mean(c)).square()).sum() / W;
  st.scale = VectorXd::Ones(p);
  st.constant.assign(static_cast<size_t>(p), false);
  const Index G = lay.size();
  out.blocks.assign(static_cast<size_t>(G), MatrixXd());
  out.rows.assign(static_cast<size_t>(G), MatrixXd());
  const VectorXd sw = weights.size() ? VectorXd(w.cwiseSqrt()) : VectorXd();  // unweighted: 1 each, not formed
  const SharedCheck shared(check_interrupt);
  parallel_ranges(G, threads, [&](Index g0, Index g1) {
    const InterruptCheck check = shared.check();
    MatrixXd xg;
    shared.run([&] {
      for (Index g = g0; g < g1; ++g) {
        if (nonfinite >= 0) return;
        if (check) check();  // before each group (its first pass allocates n-row buffers)
        const auto& cols = lay.cols[static_cast<size_t>(g)];
        const Index d = static_cast<Index>(cols.size());
        // the constant-column rule on a column's sd; returns 1 / sd, or 0 for a constant column
        const auto inverse_sd = [&](Index a, double sd) {
          const Index j = cols[a];
          if (!(sd > 1e-13 * std::max(std::abs(st.mean(j)), 1e-300))) {
            st.constant[static_cast<size_t>(j)] = true;  // distinct j per thread: no race
            st.scale(j) = 1.0;
            return 0.0;
          }
          st.scale(j) = sd;
          return 1.0 / sd;
        };
        if (d > n) {  // wide: the standardized rows, no d x d block
          MatrixXd& A = out.rows[static_cast<size_t>(g)];
          x.gather(cols, A);
          if (by_group && !check_and_mean(cols, A)) return;
          for (Index a = 0; a < d; ++a) A.col(a).array() -= st.mean(cols[a]);
          if (weights.size()) A.array().colwise() *= sw.array();
          A /= std::sqrt(W);
          for (Index a = 0; a < d; ++a) A.col(a) *= inverse_sd(a, A.col(a).norm());
          continue;
        }
        MatrixXd B(d, d);
        if (x.is_sparse()) {
          for (Index a = 0; a < d; ++a)
            for (Index b = 0; b <= a; ++b)
              B(a, b) = B(b, a) = x.cross(cols[a], cols[b], w) - W * st.mean(cols[a]) * st.mean(cols[b]);
        } else {
          x.gather(cols, xg);
          if (by_group && !check_and_mean(cols, xg)) return;
          for (Index a = 0; a < d; ++a) xg.col(a).array() -= st.mean(cols[a]);
          if (weights.size()) xg.array().colwise() *= sw.array();  // in place: no n-row temporary
          B.setZero();
          B.selfadjointView<Eigen::Lower>().rankUpdate(xg.transpose());
          B.triangularView<Eigen::StrictlyUpper>() = B.transpose();
        }
        B /= W;
        // standardize with the column scales; the same rule for constant columns as standardize()
        VectorXd inv(d);
        for (Index a = 0; a < d; ++a) inv(a) = inverse_sd(a, std::sqrt(std::max(B(a, a), 0.0)));
        out.blocks[static_cast<size_t>(g)] = inv.asDiagonal() * B * inv.asDiagonal();
      }
    });
  });
  if (scan) scan->nonfinite = nonfinite;
  return out;
}
#endif

// The whitening maps of every group from block_stats(): from its block, or a wide group from its rows.
FGSEQ_API Whitened whiten_block_stats(const BlockStats& bs, double rank_tol);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Whitened whiten_block_stats(const BlockStats& bs, double rank_tol) {
  return whiten_blocks(bs.blocks, rank_tol, bs.rows);
}
#endif

// Standardized statistics of a sparse x for the Gram engine: x' D x formed sparsely, centred
// implicitly (x'Dx - W m m'), densified once (p x p).
FGSEQ_API GramStats sparse_gram_stats(const SparseMap& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API GramStats sparse_gram_stats(const SparseMap& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights) {
  const Index n = x.rows(), P = y.cols();
  if (n < 2) throw std::invalid_argument("gram_stats: at least 2 rows are needed");
  const VectorXd w = weights.size() ? weights : VectorXd::Ones(n);
  Moments m;
  m.n = n;
  m.weight_sum = w.sum();
  const double W = m.weight_sum;
  if (!(W > 0)) throw std::invalid_argument("gram_stats: the weights must not all be zero");
  m.mean = x.transpose() * w / W;
  m.y_mean = y.transpose() * w / W;
  const Eigen::SparseMatrix<double> xw = w.asDiagonal() * x;
  const Eigen::SparseMatrix<double> xtx = Eigen::SparseMatrix<double>(x.transpose()) * xw;
  m.xx = MatrixXd(xtx);
  m.xx.noalias() -= W * m.mean * m.mean.transpose();
  MatrixXd yc = y;
  yc.rowwise() -= m.y_mean.transpose();
  m.xy = xw.transpose() * yc;  // x' D yc: the column means drop out since 1' D yc = 0
  m.yy.resize(P);
  for (Index c = 0; c < P; ++c) m.yy(c) = (w.array() * yc.col(c).array().square()).sum();
  return standardize(std::move(m));
}
#endif

}  // namespace fgseq

#endif
