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

struct GramStats {
  Index n = 0;
  VectorXd mean;            // column means of x (length p)
  VectorXd scale;           // population sd of each column (1 for constant columns)
  std::vector<bool> constant;  // true for columns with zero variance
  double y_mean = 0.0;
  double yy = 0.0;          // sum((y - mean(y))^2) / n
  MatrixXd sigma;           // Xs'Xs / n, p x p, standardized columns (rows/cols of constant columns are 0)
  VectorXd rho;             // Xs'yc / n, length p
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

inline GramStats gram_stats(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const VectorXd>& y,
                            const InterruptCheck& check_interrupt = InterruptCheck()) {
  const Index n = x.rows(), p = x.cols();
  if (y.size() != n) throw std::invalid_argument("gram_stats: y must have one value per row of x");
  if (n < 2) throw std::invalid_argument("gram_stats: at least 2 rows are needed");
  GramStats st;
  st.n = n;
  st.mean = x.colwise().sum().transpose() / static_cast<double>(n);
  st.y_mean = y.sum() / static_cast<double>(n);

  MatrixXd gram = MatrixXd::Zero(p, p);  // lower triangle filled by rankUpdate
  VectorXd xy = VectorXd::Zero(p);
  double yy = 0.0;
  const Index step = chunk_rows(n, p);
  MatrixXd buf(step, p);
  VectorXd ybuf(step);
  for (Index start = 0; start < n; start += step) {
    const Index rows = std::min(step, n - start);
    auto b = buf.topRows(rows);
    auto yb = ybuf.head(rows);
    b.noalias() = x.middleRows(start, rows);
    b.rowwise() -= st.mean.transpose();
    yb = y.segment(start, rows).array() - st.y_mean;
    gram.selfadjointView<Eigen::Lower>().rankUpdate(b.transpose());
    xy.noalias() += b.transpose() * yb;
    yy += yb.squaredNorm();
    if (check_interrupt) check_interrupt();
  }
  gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();

  const double dn = static_cast<double>(n);
  st.yy = yy / dn;
  st.scale.resize(p);
  st.constant.assign(static_cast<size_t>(p), false);
  for (Index j = 0; j < p; ++j) {
    const double sd = std::sqrt(std::max(gram(j, j), 0.0) / dn);
    // zero variance, or variance at rounding level of the column's magnitude
    if (!(sd > 1e-13 * std::max(std::abs(st.mean(j)), 1e-300))) {
      st.constant[static_cast<size_t>(j)] = true;
      st.scale(j) = 1.0;
    } else {
      st.scale(j) = sd;
    }
  }
  const VectorXd inv = st.scale.cwiseInverse();
  // standardize in place: Sigma = D^-1 (X'X / n) D^-1, no second p x p matrix
  for (Index j = 0; j < p; ++j) gram.col(j) *= inv(j) / dn;
  gram.array().colwise() *= inv.array();
  st.sigma = std::move(gram);
  st.rho = inv.cwiseProduct(xy) / dn;
  for (Index j = 0; j < p; ++j) {
    if (st.constant[static_cast<size_t>(j)]) {
      st.sigma.row(j).setZero();
      st.sigma.col(j).setZero();
      st.rho(j) = 0.0;
    }
  }
  return st;
}

}  // namespace fgseq

#endif
