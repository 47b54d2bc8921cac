// Sufficient statistics of a linear least-squares problem, in one pass over x.
//
// For the Gaussian family every linear method of the package needs only
//   the column means m and population standard deviations s of x,
//   the mean of y and the centred y'y / n,
//   Sigma = Xs'Xs / n and rho = Xs'yc / n, with Xs the standardized columns of x
// (Hu, Grubb, Bagnell & Hebert 2016, section 2: "all feature dimensions and responses are normalized").
// x is read in place (an Eigen::Ref to R's memory); rows are centred in small chunks, so the
// cross-product is accurate even when column means are large compared with their spread.
#ifndef FGSEQ_STATS_HPP
#define FGSEQ_STATS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace fgseq {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// Called between chunks and steps; may throw to abort (the R glue wires R's interrupt check).
using InterruptCheck = std::function<void()>;

// gram (lower triangle) += block' block, block a chunk of centred rows. Empty: Eigen's own symmetric
// rank update. The R glue can inject the BLAS R is linked to (dsyrk), so an optimized BLAS speeds it.
using RankUpdate = std::function<void(MatrixXd& gram, const Eigen::Ref<const MatrixXd>& block)>;

struct GramStats {
  Index n = 0;
  double weight_sum = 0.0;  // W = sum of the observation weights (n when unweighted)
  VectorXd mean;            // weighted column means of x (length p)
  VectorXd scale;           // weighted population sd of each column (1 for constant columns)
  std::vector<bool> constant;  // true for columns with zero variance
  VectorXd y_mean;          // weighted mean of each response column (length P)
  VectorXd yy;              // sum_i w_i (y_i - mean)^2 / W per response column (length P)
  MatrixXd sigma;           // Xs' D Xs / W, p x p, standardized columns (rows/cols of constant columns are 0)
  MatrixXd rho;             // Xs' D yc / W, p x P
  double yy_total() const { return yy.sum(); }
};

// Index (0-based) of the first column of x holding NA, NaN or Inf, or -1 when all are finite.
// Reads x in place: no n x p logical matrix is allocated.
inline Index first_nonfinite_column(const Eigen::Ref<const MatrixXd>& x) {
  for (Index j = 0; j < x.cols(); ++j)
    if (!x.col(j).allFinite()) return j;
  return -1;
}

// Rows per chunk: keep the centred buffer near 4 MB.
inline Index chunk_rows(Index n, Index p) {
  Index rows = static_cast<Index>((1 << 19) / std::max<Index>(p, 1));
  rows = std::max<Index>(rows, 64);
  return std::min(rows, n);
}

// x: n x p; y: n x P responses (P may be 0 when only the statistics of x are needed);
// weights: n non-negative observation weights, or empty for all 1.
inline GramStats gram_stats(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y,
                            const Eigen::Ref<const VectorXd>& weights,
                            const InterruptCheck& check_interrupt = InterruptCheck(),
                            const RankUpdate& rank_update = RankUpdate()) {
  const Index n = x.rows(), p = x.cols(), P = y.cols();
  if (y.rows() != n) throw std::invalid_argument("gram_stats: y must have one row per row of x");
  if (n < 2) throw std::invalid_argument("gram_stats: at least 2 rows are needed");
  const bool weighted = weights.size() > 0;
  if (weighted && weights.size() != n) throw std::invalid_argument("gram_stats: one weight per row is needed");
  GramStats st;
  st.n = n;
  st.weight_sum = weighted ? weights.sum() : static_cast<double>(n);
  if (!(st.weight_sum > 0)) throw std::invalid_argument("gram_stats: the weights must not all be zero");
  const double W = st.weight_sum;
  if (weighted) {
    st.mean.noalias() = x.transpose() * weights / W;
    st.y_mean.noalias() = y.transpose() * weights / W;
  } else {
    st.mean = x.colwise().sum().transpose() / W;
    st.y_mean = y.colwise().sum().transpose() / W;
  }

  MatrixXd gram = MatrixXd::Zero(p, p);  // lower triangle filled by rankUpdate
  MatrixXd xy = MatrixXd::Zero(p, P);
  VectorXd yy = VectorXd::Zero(P);
  const Index step = chunk_rows(n, p);
  MatrixXd buf(step, p), ybuf(step, P);
  for (Index start = 0; start < n; start += step) {
    const Index rows = std::min(step, n - start);
    auto b = buf.topRows(rows);
    auto yb = ybuf.topRows(rows);
    b.noalias() = x.middleRows(start, rows);
    b.rowwise() -= st.mean.transpose();
    yb.noalias() = y.middleRows(start, rows);
    yb.rowwise() -= st.y_mean.transpose();
    if (weighted) {
      const VectorXd sw = weights.segment(start, rows).cwiseSqrt();
      b = sw.asDiagonal() * b;
      yb = sw.asDiagonal() * yb;
    }
    if (rank_update) rank_update(gram, b);
    else gram.selfadjointView<Eigen::Lower>().rankUpdate(b.transpose());
    if (P > 0) {
      xy.noalias() += b.transpose() * yb;
      yy += yb.colwise().squaredNorm().transpose();
    }
    if (check_interrupt) check_interrupt();
  }
  gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();

  st.yy = yy / W;
  st.scale.resize(p);
  st.constant.assign(static_cast<size_t>(p), false);
  for (Index j = 0; j < p; ++j) {
    const double sd = std::sqrt(std::max(gram(j, j), 0.0) / W);
    // zero variance, or variance at rounding level of the column's magnitude
    if (!(sd > 1e-13 * std::max(std::abs(st.mean(j)), 1e-300))) {
      st.constant[static_cast<size_t>(j)] = true;
      st.scale(j) = 1.0;
    } else {
      st.scale(j) = sd;
    }
  }
  const VectorXd inv = st.scale.cwiseInverse();
  // standardize in place: Sigma = D^-1 (X'X / W) D^-1, no second p x p matrix
  for (Index j = 0; j < p; ++j) gram.col(j) *= inv(j) / W;
  gram.array().colwise() *= inv.array();
  st.sigma = std::move(gram);
  st.rho = inv.asDiagonal() * xy / W;
  for (Index j = 0; j < p; ++j) {
    if (st.constant[static_cast<size_t>(j)]) {
      st.sigma.row(j).setZero();
      st.sigma.col(j).setZero();
      st.rho.row(j).setZero();
    }
  }
  return st;
}

}  // namespace fgseq

#endif
