// The pseudo-inverse forms of a symmetric positive semi-definite block, tr(b' pinv(M) b) and pinv(M) b,
// eigenvalues below a cut ignored: the FR gains of the linear models (the Schur complement blocks of
// GroupModel, greedy/model.hpp) and the GLM's quadratic FR gains and their Newton steps (glm/sums.hpp).
#ifndef FGSEQ_COMMON_PINV_HPP
#define FGSEQ_COMMON_PINV_HPP

#include <Eigen/Dense>
#include <cmath>

#include "compiled.hpp"
#include "types.hpp"

namespace fgseq {

namespace detail {
// pinv_quad()'s fast path for r <= 16 on the stack, without the allocations of Eigen's dynamic
// matrices (CS-G-FR scores every candidate group at every step: the allocations cost more than the
// arithmetic of a block of 10): the Cholesky factor L by rows, L^-1 by rows (row i is e_i less L_ik
// times the rows k < i, times 1 / L_ii), then ||L^-1 b||^2. False (out untouched) when a pivot is not positive
// or 1 / tr(M^-1) = 1 / ||L^-1||_F^2 is not above `cut`.
FGSEQ_API bool small_cholesky_quad(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& bh, double cut, double& out);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API bool small_cholesky_quad(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& bh, double cut, double& out) {
  constexpr int S = 16;
  const Index r = M.rows();
  double L[S][S], X[S][S], inv[S];  // inv: 1 / L_ii
  for (Index i = 0; i < r; ++i) {
    for (Index j = 0; j <= i; ++j) {
      double v = M(i, j);
      for (Index k = 0; k < j; ++k) v -= L[i][k] * L[j][k];
      if (j < i) {
        L[i][j] = v * inv[j];
      } else {
        if (!(v > 0)) return false;  // NaN too
        L[i][i] = std::sqrt(v);
        inv[i] = 1.0 / L[i][i];
      }
    }
  }
  double trace_inv = 0.0;
  for (Index i = 0; i < r; ++i) {
    for (Index c = 0; c <= i; ++c) X[i][c] = c == i ? 1.0 : 0.0;
    for (Index k = 0; k < i; ++k) {
      const double l = L[i][k];
      for (Index c = 0; c <= k; ++c) X[i][c] -= l * X[k][c];
    }
    for (Index c = 0; c <= i; ++c) {
      X[i][c] *= inv[i];
      trace_inv += X[i][c] * X[i][c];
    }
  }
  if (!std::isfinite(trace_inv) || !(1.0 / trace_inv > cut)) return false;
  double q = 0.0;
  for (Index p = 0; p < bh.cols(); ++p) {
    for (Index i = 0; i < r; ++i) {
      double v = 0.0;
      for (Index k = 0; k <= i; ++k) v += X[i][k] * bh(k, p);
      q += v * v;
    }
  }
  out = q;
  return true;
}
#endif
}  // namespace detail

// tr(b' pinv(M) b) for a symmetric positive semi-definite M, eigenvalues at or below
// tol + rel_tol * (largest |eigenvalue|) ignored.
// Fast path: when a Cholesky factor exists and 1 / tr(M^-1) (a lower bound of the smallest eigenvalue)
// is above tol + rel_tol * tr(M) (tr(M) bounds the largest), pinv(M) = M^-1 and the quadratic form is
// ||L^-1 b||^2 (for blocks of at most 16, small_cholesky_quad()); otherwise an eigendecomposition.
FGSEQ_API double pinv_quad(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& bh, double tol, double rel_tol = 0.0);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API double pinv_quad(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& bh, double tol, double rel_tol) {
  const Index r = M.rows();
  double q = 0.0;
  if (r <= 16) {
    if (detail::small_cholesky_quad(M, bh, tol + rel_tol * M.trace(), q)) return q;
  } else {
    Eigen::LLT<MatrixXd> llt(M);
    if (llt.info() == Eigen::Success) {
      const MatrixXd Linv = llt.matrixL().solve(MatrixXd::Identity(r, r));
      const double trace_inv = Linv.squaredNorm();
      if (std::isfinite(trace_inv) && 1.0 / trace_inv > tol + rel_tol * M.trace()) return (Linv * bh).squaredNorm();
    }
  }
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(M);
  const MatrixXd u = es.eigenvectors().transpose() * bh;
  const double cut = tol + rel_tol * (r > 0 ? es.eigenvalues().cwiseAbs().maxCoeff() : 0.0);
  double s = 0.0;
  for (Index i = 0; i < u.rows(); ++i)
    if (es.eigenvalues()(i) > cut) s += u.row(i).squaredNorm() / es.eigenvalues()(i);
  return s;
}
#endif

// pinv(M) b for the M, b and eigenvalue cut of pinv_quad()
FGSEQ_API MatrixXd pinv_solve(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& b, double tol, double rel_tol = 0.0);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API MatrixXd pinv_solve(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& b, double tol, double rel_tol) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(M);
  const double cut = tol + rel_tol * (M.rows() > 0 ? es.eigenvalues().cwiseAbs().maxCoeff() : 0.0);
  VectorXd inv = VectorXd::Zero(M.rows());
  for (Index i = 0; i < M.rows(); ++i)
    if (es.eigenvalues()(i) > cut) inv(i) = 1.0 / es.eigenvalues()(i);
  return es.eigenvectors() * (inv.asDiagonal() * (es.eigenvectors().transpose() * b));
}
#endif

}  // namespace fgseq

#endif
