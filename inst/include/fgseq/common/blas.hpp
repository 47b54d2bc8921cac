// The dense linear algebra a fit may take from outside the core: the BLAS and LAPACK that R is linked
// to, injected by the R glue as callbacks (each may be empty: the core then uses Eigen's own), and the
// Cholesky factorization that goes through them. The Gram pass (common/stats.hpp), the Newton solve
// (common/newton.hpp), the GLM's weighted cross-products (glm/cross.hpp) and Newton steps
// (glm/sums.hpp), the multinomial's Hessian preconditioner (glm/multinomial.hpp) and the policy's
// block sweep (adaptive/node.hpp) reach them here.
#ifndef FGSEQ_COMMON_BLAS_HPP
#define FGSEQ_COMMON_BLAS_HPP

#include <Eigen/Dense>
#include <functional>

#include "types.hpp"

namespace fgseq {

// gram (lower triangle) += block' block, block a chunk of centred rows. Empty: Eigen's own symmetric
// rank update. The R glue can inject the BLAS R is linked to (dsyrk), so an optimized BLAS speeds it.
using RankUpdate = std::function<void(MatrixXd& gram, const Eigen::Ref<const MatrixXd>& block)>;

// a = L L' in place for a symmetric a (lower triangle read): L in the lower triangle, the strict upper
// triangle untouched; false when a pivot is not positive (the lower triangle is then undefined). Empty:
// Eigen's Cholesky. The R glue can inject the LAPACK R is linked to (dpotrf).
using CholeskyInPlace = std::function<bool(MatrixXd& a)>;

// B = L^-1 B in place for a lower triangular L (the lower triangle of its argument). Empty: Eigen's
// triangular solve. The R glue can inject the BLAS's (dtrsm).
using LowerSolve = std::function<void(const MatrixXd& L, MatrixXd& B)>;

// C += X' Y. The R glue can inject the BLAS's (dgemm).
using CrossUpdate = std::function<void(MatrixXd& C, const Eigen::Ref<const MatrixXd>& X, const Eigen::Ref<const MatrixXd>& Y)>;

// The dense linear algebra a fit may take from outside the core (each may be empty; the R glue sets all
// of them, or none, when R is linked to an optimized BLAS).
struct Blas {
  RankUpdate rank_update;
  CholeskyInPlace cholesky;
  LowerSolve lower_solve;
  CrossUpdate cross_update;
};

// H = L L' in place for a symmetric H (lower triangle read; L in it) through blas.cholesky, or Eigen's
// blocked Cholesky. False where a pivot is not positive (H singular or indefinite to rounding): H is then
// restored from its strict upper triangle and its diagonal, ready for a pivoted factorization.
inline bool cholesky_in_place(MatrixXd& H, const Blas& blas = Blas()) {
  const VectorXd diagonal = H.diagonal();
  bool factored;
  if (blas.cholesky) {
    factored = blas.cholesky(H);
  } else {
    Eigen::LLT<Eigen::Ref<MatrixXd>, Eigen::Lower> llt(H);
    factored = llt.info() == Eigen::Success;
  }
  if (!factored) {
    H.triangularView<Eigen::StrictlyLower>() = H.transpose();
    H.diagonal() = diagonal;
  }
  return factored;
}

}  // namespace fgseq

#endif
