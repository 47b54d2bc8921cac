// The multinomial family's Newton direction by preconditioned conjugate gradients.
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
// When the rows' fitted probabilities differ widely (well-separated classes at a small lambda, such as
// Fashion-MNIST's, whose Hessian's condition number reaches 1e5), the Kronecker preconditioner leaves the
// conjugate gradients hundreds of iterations per Newton step, and the truncated directions slow the
// Newton iterations too. After a solve has needed more than 30 products with H, the preconditioner is the
// penalized Hessian itself on the class contrasts (ContrastHessian below: its (K - 1) K / 2 blocks of
// m1^2 doubles formed in about (K - 1) K n m1^2 / 2 multiply-adds, through R's BLAS when it is an
// optimized one, and factorized by Cholesky by blocks in their own storage; the rows whose weight for a pair of classes is negligible beside lambda are
// left out of that pair, so that well-separated classes, whose rows have 1 or 2 classes of non-negligible
// probability, cost in proportion to the rows they share), formed at an iterate and kept while the
// conjugate gradients at later ones need no more iterations than forming a new one costs (with the
// current iterate's Hessian they end after one product or a few: exact Newton, up to the rows left out;
// with a kept one, tens). The switch holds for the later fits over
// the same columns and more (ColumnGram::use_hessian).
//
// The conjugate gradients stop when the preconditioned residual is eta^2 times the first, eta =
// min(0.1, sqrt(g)) with g the largest |gradient entry| (the forcing term of Nocedal & Wright's
// truncated Newton, whose outer iterations converge superlinearly): inexact far from the optimum, nearly
// exact near it, to the same gradient tolerance. The tighter eta = min(0.1, g) (quadratic convergence)
// cost more products per Newton step, and with many classes it made the Kronecker preconditioner's
// solves exceed their 30 products and switch to the Hessian's where they need not: on bench-glm.R's
// data with 10 classes and 10,000 rows the CS-G-OMP path took about 4 times longer (R on OpenBLAS) for
// the same sequence.
// After a damped step (the line search shortened the last direction: far from the optimum, where the
// quadratic model does not hold at the scale of a step) the kept factor's direction after those
// iterations is taken whatever its residual (an inexact Newton step), and the Hessian is formed again
// only after full steps; on Fashion-MNIST this saves about a third of the formations for the same fits.
#ifndef FGSEQ_GLM_MULTINOMIAL_HPP
#define FGSEQ_GLM_MULTINOMIAL_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "../common/newton.hpp"
#include "../common/stats.hpp"
#include "columns.hpp"
#include "cross.hpp"

namespace fgseq {

// The weighted Gram matrix A = Z1' diag(w) Z1 / W of the columns of a fit (m1 x m1, both triangles) and
// its eigenvectors and eigenvalues, what the preconditioner needs of the columns.
struct ColumnGram {
  MatrixXd A;
  MatrixXd vectors;
  VectorXd values;
  // Set by multinomial_direction() once the Kronecker preconditioner has needed too many iterations on
  // these columns (or on fewer of them): the fits over them start with the Hessian's (a setting of the
  // solver, not of the columns, hence mutable; it carries over when the model extends A group by group).
  mutable bool use_hessian = false;
  // Set likewise once the Hessian's factorization by blocks met a pivot that was not positive: later
  // ones take the pivoted LDL' of the whole matrix at once (ContrastHessian's `whole`).
  mutable bool whole_hessian = false;

  void decompose() {
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(A);
    vectors = es.eigenvectors();
    values = es.eigenvalues().cwiseMax(0.0);
  }
};

// Z1' diag(w) Z1 / W, on `threads` threads (one pass over the rows, lower triangle mirrored).
template <class Cols>
MatrixXd weighted_gram(const Cols& Z1, const VectorXd& w, double W, int threads = 1) {
  const Index m1 = Z1.cols();
  const VectorXd v = w / W;
  MatrixXd A = kernels::weighted_cross_rows(row_source(Z1), v, {{0, m1, 0, m1, true}}, threads)[0];
  A.triangularView<Eigen::StrictlyUpper>() = A.transpose();
  return A;
}

// The Gram matrix of Z1 whose first A.rows() columns have the Gram matrix A (the columns after them
// are new): A's border and corner from one pass over the rows, the new columns' products with all.
template <class Cols>
MatrixXd extend_gram(const MatrixXd& A, const Cols& Z1, const VectorXd& w, double W, int threads = 1) {
  const Index m0 = A.rows(), m1 = Z1.cols(), r = m1 - m0;
  MatrixXd out(m1, m1);
  out.topLeftCorner(m0, m0) = A;
  if (r == 0) return out;
  const VectorXd v = w / W;
  const MatrixXd Bt = kernels::weighted_cross_rows(row_source(Z1), v, {{m0, m1, 0, m1, false}}, threads)[0];  // r x m1
  out.bottomRows(r) = Bt;
  out.topRightCorner(m0, r) = Bt.leftCols(m0).transpose();
  return out;
}

// The penalized Hessian of the multinomial risk on the class contrasts, factorized: the preconditioner
// of the conjugate gradients once the Kronecker one has needed too many iterations (ill-conditioned fits,
// see the top of this file). In the basis e_a - e_R (a != R) of the contrasts (the coefficient matrices V
// with V 1 = 0), with R the class of the largest total weight, its block (a, b) is
//   H_ab + S_a + S_b + T + lambda (delta_ab + 1) D,   S_a = sum_{d != R} H_ad,  T = sum_a S_a,
// from the (K - 1) K / 2 loss blocks H_ab = Z1' diag(w dmu_a/deta_b / W) Z1 of the classes but R in one
// pass over the rows (the blocks with R follow from them: the probabilities sum to 1). Every block is
// symmetric (m1 x m1), so the matrix is held as its (K - 1) K / 2 blocks on and below the diagonal, the
// loss blocks' own storage: (m1 (K - 1))^2 / 2 doubles and a little more, formed in about
// (K - 1) K n m1^2 / 2 multiply-adds and factorized in place by a Cholesky factorization by blocks,
// H = U'U, in (m1 (K - 1))^3 / 3 (the BLAS's dpotrf, dtrsm, dsyrk and dgemm on the blocks when R's BLAS
// is an optimized one). Where a pivot is not positive the blocks are formed again and the whole matrix
// factorized by the pivoted LDL'.
class ContrastHessian {
 public:
  // whole: go straight to the pivoted LDL' of the whole matrix (a factorization by blocks over these
  // columns, or fewer, met a pivot that was not positive)
  template <class Cols>
  ContrastHessian(const Cols& Z1, const MatrixXd& mu, const VectorXd& wn, double lambda, double gram_max, int threads,
                  const Blas& blas = Blas(), bool whole = false) {
    const Index K = mu.cols();
    (mu.transpose() * wn).maxCoeff(&R_);
    for (Index c = 0; c < K; ++c)
      if (c != R_) cls_.push_back(c);
    tiles_ = form(Z1, mu, wn, lambda, gram_max, threads, blas);
    if (!whole) {
      if (factorize(blas)) return;
      // a pivot that is not positive: the blocks again (the factorization overwrote them), then the
      // whole matrix by the pivoted LDL'
      tiles_.clear();
      tiles_ = form(Z1, mu, wn, lambda, gram_max, threads, blas);
    }
    const Index m1 = tiles_[0].rows(), Q = K - 1;
    MatrixXd H(m1 * Q, m1 * Q);
    for (Index i = 0; i < Q; ++i)
      for (Index k = 0; k <= i; ++k) {
        H.block(i * m1, k * m1, m1, m1) = tile(i, k);
        if (i != k) H.block(k * m1, i * m1, m1, m1) = tile(i, k);
      }
    tiles_.clear();
    ldlt_.compute(H);
    pivoted_ = true;
  }

  // The contrast part of H^-1 R for R (m1 x K) whose rows sum to 0 over the classes (the part of R off
  // them is ignored): B u with (B' H B) u = B' R
  MatrixXd solve(const MatrixXd& Rm) const {
    const Index m1 = Rm.rows(), K = Rm.cols(), Q = K - 1;
    MatrixXd u(m1, Q);
    for (Index a = 0; a < Q; ++a) u.col(a) = Rm.col(cls_[static_cast<size_t>(a)]) - Rm.col(R_);
    if (pivoted_) {
      Eigen::Map<VectorXd> v(u.data(), u.size());
      v = ldlt_.solve(v);
    } else {
      // U' y = u (forward, block by block), then U x = y (back); U_ii' = L_ii (the diagonal blocks' lower
      // triangles), U_ki (k < i) in block (i, k)
      for (Index i = 0; i < Q; ++i) {
        for (Index k = 0; k < i; ++k) u.col(i).noalias() -= tile(i, k).transpose() * u.col(k);
        tile(i, i).triangularView<Eigen::Lower>().solveInPlace(u.col(i));
      }
      for (Index i = Q - 1; i >= 0; --i) {
        for (Index j = i + 1; j < Q; ++j) u.col(i).noalias() -= tile(j, i) * u.col(j);
        tile(i, i).triangularView<Eigen::Lower>().adjoint().solveInPlace(u.col(i));
      }
    }
    MatrixXd X(m1, K);
    X.col(R_) = -u.rowwise().sum();
    for (Index a = 0; a < Q; ++a) X.col(cls_[static_cast<size_t>(a)]) = u.col(a);
    return X;
  }

  // Whether the matrix was factorized by the pivoted LDL' (a pivot of the Cholesky was not positive).
  bool pivoted() const { return pivoted_; }

 private:
  Index R_ = 0;
  std::vector<Index> cls_;
  std::vector<MatrixXd> tiles_;   // the blocks (i, k), i >= k, at i (i + 1) / 2 + k: the matrix, then its factor
  Eigen::LDLT<MatrixXd> ldlt_;    // or the pivoted LDL' of the whole matrix
  bool pivoted_ = false;

  // the place of block (i, k), i >= k, among the blocks
  static size_t at(Index i, Index k) { return static_cast<size_t>(i * (i + 1) / 2 + k); }
  MatrixXd& tile(Index i, Index k) { return tiles_[at(i, k)]; }
  const MatrixXd& tile(Index i, Index k) const { return tiles_[at(i, k)]; }

  // The blocks on and below the diagonal of the penalized contrast Hessian, both triangles of each filled.
  template <class Cols>
  std::vector<MatrixXd> form(const Cols& Z1, const MatrixXd& mu, const VectorXd& wn, double lambda, double gram_max,
                             int threads, const Blas& blas) const {
    const Index n = Z1.rows(), m1 = Z1.cols(), K = mu.cols(), Q = K - 1;
    // the weights of the pairs of classes a <= b (but R): w mu_a (1 - mu_a) / W >= 0 and -w mu_a mu_b / W <= 0
    MatrixXd V(n, Q * (Q + 1) / 2);
    for (Index a = 0, k = 0; a < Q; ++a)
      for (Index b = a; b < Q; ++b, ++k) {
        const Index c = cls_[static_cast<size_t>(a)], d = cls_[static_cast<size_t>(b)];
        if (a == b) V.col(k) = (wn.array() * mu.col(c).array() * (1.0 - mu.col(c).array())).matrix();
        else V.col(k) = -(wn.array() * mu.col(c).array() * mu.col(d).array()).matrix();
      }
    // a row's pair weight at most tau w_i / W is left out: with G_i the rows' left-out weights in the
    // contrast basis (|entries| <= K^2 tau, norm <= K^3 tau), the factorized matrix differs from the
    // Hessian by at most K^3 tau gram_max <= lambda / 10 in norm (gram_max: the largest eigenvalue of
    // Z1' diag(w) Z1 / W), and H >= lambda off the intercepts, so the preconditioned Hessian's condition
    // number stays near 1, while well-separated classes leave out most rows of most pairs
    const double tau = 0.1 * lambda / (static_cast<double>(K * K * K) * std::max(gram_max, 1e-300));
    std::vector<MatrixXd> H =
        kernels::weighted_cross_above_rows(row_source(Z1), V, tau * wn, {{0, m1, 0, m1, true}}, threads, blas);
    V.resize(0, 0);
    // pair (a, b), a <= b, is at a Q - a (a - 1) / 2 + (b - a); block (i, k), i >= k, is pair (k, i)
    std::vector<MatrixXd> tiles(H.size());
    for (Index i = 0; i < Q; ++i)
      for (Index k = 0; k <= i; ++k) {
        MatrixXd& t = tiles[at(i, k)];
        t = std::move(H[static_cast<size_t>(k * Q - k * (k - 1) / 2 + (i - k))]);
        t.triangularView<Eigen::StrictlyUpper>() = t.transpose();
      }
    const auto block = [&](Index a, Index b) -> const MatrixXd& {
      return tiles[a >= b ? at(a, b) : at(b, a)];
    };
    std::vector<MatrixXd> S(static_cast<size_t>(Q), MatrixXd::Zero(m1, m1));
    MatrixXd T = MatrixXd::Zero(m1, m1);
    for (Index a = 0; a < Q; ++a) {
      for (Index b = 0; b < Q; ++b) S[static_cast<size_t>(a)] += block(a, b);
      T += S[static_cast<size_t>(a)];
    }
    for (Index i = 0; i < Q; ++i)
      for (Index k = 0; k <= i; ++k) {
        MatrixXd& t = tiles[at(i, k)];
        t += S[static_cast<size_t>(i)] + S[static_cast<size_t>(k)] + T;
        t.diagonal().tail(m1 - 1).array() += lambda * (i == k ? 2.0 : 1.0);
      }
    return tiles;
  }

  // H = U'U in place by blocks (right-looking): block (i, i) becomes L_ii = U_ii' (lower triangle), block
  // (i, k), k < i, becomes U_ki = L_kk^-1 H_ki (H_ki = block (i, k)': the blocks are symmetric until
  // updated, and each update keeps block (i, k) as the transpose of the upper block it stands for).
  // False where a pivot is not positive (the blocks are then undefined).
  bool factorize(const Blas& blas) {
    const Index Q = static_cast<Index>(cls_.size());
    for (Index k = 0; k < Q; ++k) {
      MatrixXd& d = tile(k, k);
      if (blas.cholesky) {
        if (!blas.cholesky(d)) return false;
      } else {
        Eigen::LLT<Eigen::Ref<MatrixXd>, Eigen::Lower> llt(d);
        if (llt.info() != Eigen::Success) return false;
      }
      for (Index i = k + 1; i < Q; ++i) {
        if (blas.lower_solve) blas.lower_solve(d, tile(i, k));
        else d.triangularView<Eigen::Lower>().solveInPlace(tile(i, k));
      }
      // the trailing blocks: U-block (i, j) -= U_ki' U_kj for k < i <= j, held in block (j, i)
      for (Index i = k + 1; i < Q; ++i)
        for (Index j = i; j < Q; ++j) {
          MatrixXd& c = tile(j, i);
          const MatrixXd& pi = tile(i, k);
          const MatrixXd& pj = tile(j, k);
          if (blas.rank_update && blas.cross_update) {
            c = -c;
            if (i == j) blas.rank_update(c, pi);
            else blas.cross_update(c, pi, pj);
            c = -c;
          } else if (i == j) {
            c.selfadjointView<Eigen::Lower>().rankUpdate(pi.transpose(), -1.0);
          } else {
            c.noalias() -= pi.transpose() * pj;
          }
        }
    }
    return true;
  }
};

// The Newton direction of the multinomial penalized risk over the columns Z1 (n x m1) by preconditioned
// conjugate gradients (see the top of this file): at an iterate whose fitted probabilities mu (n x K) and
// gradient are filled. w: the observation weights of total W; gram: Z1's (decomposed); the products with
// Z1 run on `threads` threads; poll is called before every product with H (an interrupt check, a
// deadline; may throw). w and gram are held by reference, Z1 as glm_evaluator() holds it.
//
// The preconditioner is the Kronecker one until a solve needs more than kron_iterations products with
// H: from then on (for this solve's later iterates, and, through gram.use_hessian, the later fits over
// these columns and more) it is the penalized Hessian on the contrasts (ContrastHessian) at an iterate,
// kept while the conjugate gradients need at most lag_iterations products with the Hessian of a later
// iterate or the iterate follows a damped step (then their direction after those products is taken), and
// formed again at the current iterate otherwise. With the Hessian of the current iterate the conjugate
// gradients end after one product (the exact Newton direction).
template <class Cols>
NewtonDirection multinomial_direction(const Cols& columns, const VectorXd& w, double W, double lambda,
                                      const ColumnGram& gram, int threads,
                                      const std::function<void()>& poll = std::function<void()>(),
                                      const Blas& blas = Blas(), int kron_iterations = 30) {
  const ColumnsView<Cols> Z1 = columns_view(columns);
  auto factor = std::make_shared<std::unique_ptr<ContrastHessian>>();
  return [Z1, &w, W, lambda, &gram, threads, poll, blas, kron_iterations, factor](const NewtonPoint& pt) -> VectorXd {
    const Index m1 = Z1.cols(), K = pt.mu.cols(), n = Z1.rows();
    const MatrixXd& mu = pt.mu;
    const VectorXd wn = w / W;
    // the common shift of the classes (V = v 1'), along which H is lambda D: inverted exactly (the
    // intercepts' shift, flat, left at 0)
    const auto add_shift = [&](MatrixXd& X, const MatrixXd& R) {
      if (lambda > 0) X.bottomRows(m1 - 1).colwise() += R.bottomRows(m1 - 1).rowwise().mean() / lambda;
    };
    // H V: two passes of the size of a gradient
    const auto hessian_times = [&](const MatrixXd& V) {
      MatrixXd E = MatrixXd::Zero(n, K);
      columns_sub_mul(E, Z1, -V, threads);
      E = E.cwiseProduct(mu);
      const VectorXd u = E.rowwise().sum();
      E -= u.asDiagonal() * mu;
      E = wn.asDiagonal() * E;
      MatrixXd HV = columns_tmul(Z1, E, threads);
      HV.bottomRows(m1 - 1) += lambda * V.bottomRows(m1 - 1);
      return HV;
    };
    const Eigen::Map<const MatrixXd> G(pt.gradient.data(), m1, K);
    const double eta = std::min(0.1, std::sqrt(G.cwiseAbs().maxCoeff()));
    // preconditioned conjugate gradients on H x = -G from x = 0, at most max_iter products with H;
    // true when the preconditioned residual fell to eta^2 times the first
    const auto pcg = [&](const std::function<MatrixXd(const MatrixXd&)>& precondition, int max_iter, MatrixXd& x) {
      MatrixXd r = -G;
      MatrixXd z = precondition(r);
      MatrixXd p = z;
      x = MatrixXd::Zero(m1, K);
      double rz = (r.array() * z.array()).sum();
      const double stop = eta * eta * rz;
      for (int it = 0; it < max_iter; ++it) {
        if (!(rz > stop)) return true;
        if (poll) poll();
        const MatrixXd Hp = hessian_times(p);
        const double pHp = (p.array() * Hp.array()).sum();
        if (!(pHp > 0)) {
          if (it == 0) x = z;  // no curvature along the first direction: the preconditioned gradient step
          return true;
        }
        const double alpha = rz / pHp;
        x += alpha * p;
        r -= alpha * Hp;
        z = precondition(r);
        const double rz_next = (r.array() * z.array()).sum();
        p = z + (rz_next / rz) * p;
        rz = rz_next;
      }
      return !(rz > stop);
    };
    // the directions of the columns' Gram matrix at rounding level (columns collinear across groups; its
    // eigenvalues come in increasing order: the first `flat`), along which H is lambda alone: both
    // preconditioners take them so (the Hessian's solves on the others: at lambda = 0 the factor is near
    // singular there, and its rounding would enter the conjugate gradients)
    const double amax = std::max(gram.values.maxCoeff(), 1e-300);
    Index flat = 0;
    while (flat < m1 && gram.values(flat) <= 1e-10 * amax) ++flat;
    const auto N = gram.vectors.leftCols(flat);
    const auto hessian_precondition = [&](const MatrixXd& R) {
      if (flat == 0) {
        MatrixXd X = (*factor)->solve(R);
        add_shift(X, R);
        return X;
      }
      const MatrixXd NR = N.transpose() * R;
      MatrixXd X = (*factor)->solve(R - N * NR);
      X -= N * (N.transpose() * X);
      if (lambda > 0) X.noalias() += N * (NR.colwise() - NR.rowwise().mean()) / lambda;  // H is lambda on the contrasts there
      add_shift(X, R);
      return X;
    };
    const auto form_hessian = [&]() {
      if (poll) poll();
      factor->reset();
      *factor = std::make_unique<ContrastHessian>(Z1, mu, wn, lambda, amax, threads, blas, gram.whole_hessian);
      if ((*factor)->pivoted()) gram.whole_hessian = true;
    };
    MatrixXd x;
    const int max_iter = static_cast<int>(std::min<Index>(m1 * K, 500));
    // how many iterations of the conjugate gradients a solve with a kept factor may take before the
    // factor is formed again: what forming and factorizing one costs, in iterations (each a product with
    // H, 2 n m1 K multiply-adds, and a solve with the factor, 2 (m1 (K - 1))^2, both bound by memory; the
    // formation (K - 1) K / 2 blocks of n m1 (m1 + 1) / 2 and the factorization (m1 (K - 1))^3 / 3, which
    // run at about 6 times their rate: 4 to 11 times, measured on Fashion-MNIST between 3,000 and 60,000
    // rows), at least 5: the iterations a kept factor spends before a new one is formed cost about what
    // the new one does (rent or buy), where a fixed 5 formed a factor at nearly every Newton iteration
    const double Mq = static_cast<double>(m1) * static_cast<double>(K - 1);
    const double form_cost = 0.5 * static_cast<double>(K - 1) * K * n * m1 * (m1 + 1) / 2.0 + Mq * Mq * Mq / 3.0;
    const double product_cost = 2.0 * n * m1 * K + 2.0 * Mq * Mq;
    const int lag_iterations =
        static_cast<int>(std::max(5.0, std::min<double>(max_iter, form_cost / (6.0 * product_cost))));
    if (!gram.use_hessian) {
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
      MatrixXd scale(m1, K - 1);
      for (Index k = 0; k < K - 1; ++k)
        for (Index j = 0; j < m1; ++j) {
          const double a = j >= flat ? gram.values(j) : 0.0;
          const double d = s(k) * a + lambda;
          scale(j, k) = d > 0 ? 1.0 / d : 0.0;
        }
      const auto kron_precondition = [&](const MatrixXd& R) {
        MatrixXd X = gram.vectors * (gram.vectors.transpose() * R * U).cwiseProduct(scale) * U.transpose();
        add_shift(X, R);
        return X;
      };
      if (pcg(kron_precondition, std::min(kron_iterations, max_iter), x) || max_iter <= kron_iterations)
        return Eigen::Map<const VectorXd>(x.data(), x.size());
      gram.use_hessian = true;
    }
    // the factor at hand (formed at an earlier iterate) solves in at most lag_iterations products; after
    // a damped step (the line search shortened the last direction: the quadratic model does not hold at
    // the scale of a step) its direction after those products is taken whatever its residual (a descent
    // direction, as every iterate of the conjugate gradients from 0: an inexact Newton step, Dembo,
    // Eisenstat & Steihaug 1982); the Hessian is formed again only after a full step whose solve needs more
    if (*factor && (pcg(hessian_precondition, lag_iterations, x) || pt.step < 1.0))
      return Eigen::Map<const VectorXd>(x.data(), x.size());
    form_hessian();
    pcg(hessian_precondition, max_iter, x);
    return Eigen::Map<const VectorXd>(x.data(), x.size());
  };
}

}  // namespace fgseq

#endif
