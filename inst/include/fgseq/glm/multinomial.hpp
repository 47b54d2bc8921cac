// The multinomial family's Newton direction without its Hessian.
//
// Over m1 = m + 1 columns Z1 = [1, Z] and K classes the Hessian of the penalized risk is (m1 K) x (m1 K):
// forming it from n rows costs about n (m1 K)^2 / 2 per Newton iteration, and factorizing it (m1 K)^3 / 3,
// where a gradient costs n m1 K. The Newton direction d = -H^-1 g is found instead by preconditioned
// conjugate gradients on H d = -g (Hessian-free, or truncated, Newton; Nocedal & Wright 2006, ch. 7), in
// which every product with H is two passes of the size of a gradient: for V (m1 x K),
//   H vec(V) = vec(Z1' diag(w / W) [mu o E - diag((mu o E) 1) mu] + lambda D V),  E = Z1 V,
// with mu the fitted probabilities (n x K), o the elementwise product and D the identity without its
// intercept row (the intercepts are not penalized).
//
// The preconditioner is the Kronecker approximation M (x) A of the loss part of H, with
//   M = sum_i w_i (diag(mu_i) - mu_i mu_i') / W   (K x K: the classes' mean curvature),
//   A = Z1' diag(w) Z1 / W                        (m1 x m1: the weighted Gram matrix of the columns),
// that is Bohning's (1992) bound 1/2 (I_K - 1 1'/K) (x) A with the classes' mean curvature in place of its
// constant: it equals H when every row has the same fitted probabilities (the null model), and the
// conjugate gradients correct for the rows' differences. Adding the same v to every class's coefficients
// (V = v 1') changes no probability, so H there is lambda D exactly; the preconditioner inverts that part
// exactly (the intercepts' common shift, flat, is left at 0) and M (x) A + lambda I on the rest, through
// the eigenvectors of M (orthogonal to 1) and of A (decomposed once per fit of a set of columns).
//
// The conjugate gradients stop when the preconditioned residual is eta^2 times the first, eta =
// min(0.1, largest |gradient entry|): inexact far from the optimum, nearly exact near it, so that
// the outer iterations converge quadratically, as with the Hessian, to the same gradient tolerance (with
// eta = sqrt(...), the order-1.5 convergence stopped a lambda = 0 fit 1e-8 short of the exact Newton one
// under other compiler flags).
#ifndef FGSEQ_GLM_MULTINOMIAL_HPP
#define FGSEQ_GLM_MULTINOMIAL_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "../common/kernels.hpp"
#include "../common/newton.hpp"
#include "../common/stats.hpp"

namespace fgseq {

// The weighted Gram matrix A = Z1' diag(w) Z1 / W of the columns of a fit (m1 x m1, both triangles) and
// its eigenvectors and eigenvalues, what the preconditioner needs of the columns.
struct ColumnGram {
  MatrixXd A;
  MatrixXd vectors;
  VectorXd values;

  void decompose() {
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(A);
    vectors = es.eigenvectors();
    values = es.eigenvalues().cwiseMax(0.0);
  }
};

// Z1' diag(w) Z1 / W, on `threads` threads (one pass over the rows, lower triangle mirrored).
inline MatrixXd weighted_gram(const Eigen::Ref<const MatrixXd>& Z1, const VectorXd& w, double W, int threads = 1) {
  const Index m1 = Z1.cols();
  const VectorXd v = w / W;
  MatrixXd A = kernels::weighted_cross(Z1, v, {{0, m1, 0, m1, true}}, threads)[0];
  A.triangularView<Eigen::StrictlyUpper>() = A.transpose();
  return A;
}

// The Gram matrix of Z1 whose first A.rows() columns have the Gram matrix A (the columns after them
// are new): A's border and corner from one product of Z1 with the new weighted columns.
inline MatrixXd extend_gram(const MatrixXd& A, const Eigen::Ref<const MatrixXd>& Z1, const VectorXd& w, double W,
                            int threads = 1) {
  const Index m0 = A.rows(), m1 = Z1.cols(), r = m1 - m0;
  MatrixXd out(m1, m1);
  out.topLeftCorner(m0, m0) = A;
  if (r == 0) return out;
  const MatrixXd Zw = (w / W).asDiagonal() * Z1.rightCols(r);
  const MatrixXd B = kernels::tmul(Z1, Zw, threads);  // m1 x r
  out.rightCols(r) = B;
  out.bottomLeftCorner(r, m0) = B.topRows(m0).transpose();
  return out;
}

// The Newton direction of the multinomial penalized risk over the columns Z1 (n x m1) by preconditioned
// conjugate gradients (see the top of this file): at an iterate whose fitted probabilities mu (n x K) and
// gradient are filled. w: the observation weights of total W; gram: Z1's (decomposed); the products with
// Z1 run on `threads` threads; poll is called before every product with H (an interrupt check, a
// deadline; may throw). Z1, w and gram are held by reference.
inline NewtonDirection multinomial_direction(const Eigen::Ref<const MatrixXd>& Z1, const VectorXd& w, double W,
                                             double lambda, const ColumnGram& gram, int threads,
                                             const std::function<void()>& poll = std::function<void()>()) {
  return [Z1, &w, W, lambda, &gram, threads, poll](const NewtonPoint& pt) -> VectorXd {
    const Index m1 = Z1.cols(), K = pt.mu.cols(), n = Z1.rows();
    const MatrixXd& mu = pt.mu;
    const VectorXd wn = w / W;
    // the classes' mean curvature M and its eigenvectors orthogonal to 1 (U, K x (K - 1)), values s
    MatrixXd M = -(mu.transpose() * wn.asDiagonal() * mu);
    M.diagonal() += mu.transpose() * wn;
    const MatrixXd Q = Eigen::HouseholderQR<MatrixXd>(MatrixXd::Ones(K, 1)).householderQ();
    const MatrixXd Qp = Q.rightCols(K - 1);
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Qp.transpose() * M * Qp);
    const MatrixXd U = Qp * es.eigenvectors();
    VectorXd s = es.eigenvalues();
    const double smax = std::max(s.maxCoeff(), 1e-300);
    s = s.cwiseMax(1e-12 * smax);
    // the scale of each (column eigenvector, class eigenvector) direction: 1 / (s_k a_j + lambda), with
    // the Gram matrix's eigenvalues at rounding level taken as 0 (columns collinear across groups, along
    // which H is lambda alone): 0 where both vanish (a pseudo-inverse)
    const double amax = std::max(gram.values.maxCoeff(), 1e-300);
    MatrixXd scale(m1, K - 1);
    for (Index k = 0; k < K - 1; ++k)
      for (Index j = 0; j < m1; ++j) {
        const double a = gram.values(j) > 1e-10 * amax ? gram.values(j) : 0.0;
        const double d = s(k) * a + lambda;
        scale(j, k) = d > 0 ? 1.0 / d : 0.0;
      }
    const auto precondition = [&](const MatrixXd& R) {
      const VectorXd rbar = R.rowwise().mean();
      MatrixXd X = gram.vectors * (gram.vectors.transpose() * R * U).cwiseProduct(scale) * U.transpose();
      if (lambda > 0) X.bottomRows(m1 - 1).colwise() += rbar.tail(m1 - 1) / lambda;
      return X;
    };
    // H V: two passes of the size of a gradient
    const auto hessian_times = [&](const MatrixXd& V) {
      MatrixXd E = MatrixXd::Zero(n, K);
      kernels::sub_mul(E, Z1, -V, threads);
      E = E.cwiseProduct(mu);
      const VectorXd u = E.rowwise().sum();
      E -= u.asDiagonal() * mu;
      E = wn.asDiagonal() * E;
      MatrixXd HV = kernels::tmul(Z1, E, threads);
      HV.bottomRows(m1 - 1) += lambda * V.bottomRows(m1 - 1);
      return HV;
    };
    const Eigen::Map<const MatrixXd> G(pt.gradient.data(), m1, K);
    const double eta = std::min(0.1, G.cwiseAbs().maxCoeff());
    MatrixXd r = -G;
    MatrixXd z = precondition(r);
    MatrixXd p = z, x = MatrixXd::Zero(m1, K);
    double rz = (r.array() * z.array()).sum();
    const double stop = eta * eta * rz;
    const int max_iter = static_cast<int>(std::min<Index>(m1 * K, 500));
    for (int it = 0; it < max_iter && rz > stop; ++it) {
      if (poll) poll();
      const MatrixXd Hp = hessian_times(p);
      const double pHp = (p.array() * Hp.array()).sum();
      if (!(pHp > 0)) {
        if (it == 0) x = z;  // no curvature along the first direction: the preconditioned gradient step
        break;
      }
      const double alpha = rz / pHp;
      x += alpha * p;
      r -= alpha * Hp;
      z = precondition(r);
      const double rz_next = (r.array() * z.array()).sum();
      p = z + (rz_next / rz) * p;
      rz = rz_next;
    }
    return Eigen::Map<const VectorXd>(x.data(), x.size());
  };
}

}  // namespace fgseq

#endif
