// Generalized linear models for the greedy engine (Hu, Grubb, Bagnell & Hebert 2014, appendix B):
// binomial, Poisson and multinomial families, with observation weights, offsets and unpenalized
// intercepts. The risk of a set S of groups is the ridge-regularized weighted mean negative
// log-likelihood
//   R(S) = min_{a, W} (1/sum(w)) sum_i w_i [Phi(eta_i) - y_i' eta_i] + lambda/2 ||W||_F^2,
//   eta_i = offset_i + a + z_{i,S} W,
// with z the standardized, group-whitened columns (as for the linear model). It is minimized by a
// damped Newton (IRLS) solver (common/newton.hpp), warm-started from the previous step; the multinomial
// family's Newton directions come from preconditioned conjugate gradients (glm/multinomial.hpp). OMP scores the
// gradient of R with respect to each unselected group's coefficients (zero at the current fit); FR
// scores the decrease of R, exactly (a refit per candidate) or by its quadratic approximation (one
// Newton step through the Schur complement of the Hessian). The risk, gradient and Hessian are sums
// over rows: glm_chunk_sums() gives one chunk's part, so fits from chunks of rows share all of this.
// GlmModel fits the rows in memory; GlmRefitModel runs the same CS-G-OMP selection with its refits done
// by a callback (the chunked fits: a Newton solve whose every point is one pass over the chunks).
//
// This header: the risk, gradient and Hessian over rows in memory and glm_evaluator(), which the
// Greedy Miser also uses for its starting constants (no model class here).
#ifndef FGSEQ_GLM_EVALUATOR_HPP
#define FGSEQ_GLM_EVALUATOR_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../common/family.hpp"
#include "../common/newton.hpp"
#include "../common/stats.hpp"
#include "columns.hpp"
#include "cross.hpp"

namespace fgseq {

// ---- sums over rows, shared by the in-memory and the chunked fits ----
// theta is (m + 1) x P: the intercepts in row 0 (unpenalized), the whitened coefficients below; vectors
// in theta's space are vec(theta), response by response. W divides the sums over rows (the total
// weight; 1 for a chunk's raw sums).

// Penalized risk from the loss sum_i w_i [Phi(eta_i) - y_i' eta_i]: loss / W + lambda/2 ||coefficients||^2
inline double ridge_risk(double loss, double W, const MatrixXd& theta, double lambda) {
  return loss / W + 0.5 * lambda * theta.bottomRows(theta.rows() - 1).squaredNorm();
}

// The ridge's part of the gradient and of the Hessian (m1 = m + 1 rows of theta per response)
inline void add_ridge_gradient(MatrixXd& G, const MatrixXd& theta, double lambda) {
  G.bottomRows(G.rows() - 1) += lambda * theta.bottomRows(theta.rows() - 1);
}
inline void add_ridge_hessian(MatrixXd& H, Index m1, Index P, double lambda) {
  for (Index c = 0; c < P; ++c) H.diagonal().segment(c * m1 + 1, m1 - 1).array() += lambda;
}

// The columns Z1 of these functions are a matrix or WhitenedColumns (glm/columns.hpp).

// Gradient of the loss part in theta over the columns Z1: Z1' diag(w) (mu - y) / W, (m + 1) x P, on
// `threads` threads
template <class Cols>
MatrixXd glm_gradient(const Cols& Z1, const VectorXd& w, const MatrixXd& mu, const MatrixXd& y, double W,
                      int threads = 1) {
  return columns_tmul(Z1, w.asDiagonal() * (mu - y), threads) / W;
}

// The linear predictors offset + Z1 theta (n x P), on `threads` threads
template <class Cols>
MatrixXd glm_eta(const Cols& Z1, const MatrixXd& theta, const MatrixXd& offset, int threads = 1) {
  MatrixXd eta = offset;
  columns_sub_mul(eta, Z1, -theta, threads);
  return eta;
}

// The Hessian weights of the pairs of responses c <= d, w * dmu_c/deta_d / W: one column per pair,
// in the order (0, 0), (0, 1), ..., (0, P - 1), (1, 1), ... (pair_column() gives the column).
inline MatrixXd glm_pair_weights(const FamilyOps& fam, const MatrixXd& mu, const VectorXd& w, double W) {
  const Index P = mu.cols();
  MatrixXd V(mu.rows(), P * (P + 1) / 2);
  Index k = 0;
  for (Index c = 0; c < P; ++c)
    for (Index d = c; d < P; ++d) V.col(k++) = w.cwiseProduct(fam.hessian_weight(mu, c, d)) / W;
  return V;
}
inline Index pair_column(Index c, Index d, Index P) {
  if (c > d) std::swap(c, d);
  return c * P - c * (c - 1) / 2 + (d - c);
}

// The (m P) x (m P) matrix of the symmetric blocks G[k] (m x m, lower triangles filled) of the pairs of
// responses (pair_column() order): block (c, d) at rows c * m, columns d * m.
inline MatrixXd pair_blocks(const std::vector<MatrixXd>& G, Index P, Index first = 0, Index stride = 1) {
  const Index m = G[static_cast<size_t>(first)].rows();
  MatrixXd H(m * P, m * P);
  for (Index c = 0; c < P; ++c)
    for (Index d = c; d < P; ++d) {
      MatrixXd b = G[static_cast<size_t>(first + stride * pair_column(c, d, P))];
      b.triangularView<Eigen::StrictlyUpper>() = b.transpose();
      H.block(c * m, d * m, m, m) = b;
      if (c != d) H.block(d * m, c * m, m, m) = b;
    }
  return H;
}

// The products A[, i0:i1)' diag(w * dmu_c/deta_d / W) A[, j0:j1) of the blocks of every pair of responses
// c <= d, in kernels::weighted_cross()'s order (pair pair_column(c, d, P)'s block b at pair * blocks + b),
// in one pass over the rows.
// The multinomial's weights of a row sum to 0 over the classes d of a pair (the probabilities sum to 1:
// sum_d w mu_c (delta_cd - mu_d) = 0), so the pass forms only the (K - 1) K / 2 pairs without one
// reference class R (10 of the 15 pairs for K = 5, 45 of 55 for K = 10) and the others follow from
// theirs, block by block: (c, R) = -sum_{d != R} (c, d), and (R, R) = -sum_{c != R} (c, R). R is the
// class of the largest total weight sum_i w_i mu_iR, whose blocks are the largest of the classes', so
// that these sums cancel least; they agree with the direct products to rounding of the Hessian's scale.
template <class Cols>
std::vector<MatrixXd> glm_pair_cross(const FamilyOps& fam, const Cols& A, const MatrixXd& mu, const VectorXd& w,
                                     double W, const std::vector<kernels::CrossBlock>& blocks, int threads = 1,
                                     const Blas& blas = Blas()) {
  const Index P = mu.cols();
  if (!fam.couples_columns() || P < 2)
    return kernels::weighted_cross_rows(row_source(A), glm_pair_weights(fam, mu, w, W), blocks, threads, blas);
  const size_t nb = blocks.size();
  Index R = 0;
  (mu.transpose() * w).maxCoeff(&R);
  std::vector<Index> cls;  // the classes but R
  for (Index c = 0; c < P; ++c)
    if (c != R) cls.push_back(c);
  const Index Q = P - 1;
  MatrixXd V(mu.rows(), Q * (Q + 1) / 2);
  for (Index a = 0, k = 0; a < Q; ++a)
    for (Index b = a; b < Q; ++b) V.col(k++) = w.cwiseProduct(fam.hessian_weight(mu, cls[a], cls[b])) / W;
  std::vector<MatrixXd> part = kernels::weighted_cross_rows(row_source(A), V, blocks, threads, blas);
  std::vector<MatrixXd> out(static_cast<size_t>(P * (P + 1) / 2) * nb);
  const auto at = [&](Index c, Index d, size_t b) -> MatrixXd& { return out[static_cast<size_t>(pair_column(c, d, P)) * nb + b]; };
  for (Index a = 0; a < Q; ++a)
    for (Index b = a; b < Q; ++b)
      for (size_t blk = 0; blk < nb; ++blk)
        at(cls[a], cls[b], blk) = std::move(part[static_cast<size_t>(pair_column(a, b, Q)) * nb + blk]);
  for (size_t blk = 0; blk < nb; ++blk) {
    MatrixXd& rr = at(R, R, blk);
    for (Index c : cls) {
      MatrixXd& cr = at(c, R, blk);
      cr = -at(c, cls[0], blk);
      for (Index a = 1; a < Q; ++a) cr -= at(c, cls[a], blk);
      if (c == cls[0]) rr = -cr;
      else rr -= cr;
    }
  }
  return out;
}

// The P x P blocks A' diag(w * dmu_c/deta_d / W) A, ordered response by response (row c * cols(A) + j,
// column d * cols(A) + k): every pair of responses in one pass over the rows (glm_pair_cross()).
template <class Cols>
MatrixXd glm_weighted_cross(const FamilyOps& fam, const Cols& A, const MatrixXd& mu, const VectorXd& w, double W,
                            int threads = 1) {
  const Index m = A.cols();
  return pair_blocks(glm_pair_cross(fam, A, mu, w, W, {{0, m, 0, m, true}}, threads), mu.cols());
}

// Hessian of the penalized risk in theta over Z1 = [1, Z]: the weighted cross-product plus the ridge
template <class Cols>
MatrixXd glm_hessian(const FamilyOps& fam, const Cols& Z1, const MatrixXd& mu, const VectorXd& w, double W,
                     double lambda, int threads = 1) {
  MatrixXd H = glm_weighted_cross(fam, Z1, mu, w, W, threads);
  add_ridge_hessian(H, Z1.cols(), mu.cols(), lambda);
  return H;
}

// The scale of the risk's gradient (NewtonControl::grad_scale): the response's weighted standard
// deviation, sqrt(max_c sum_i w_i (y_ic - ybar_c)^2 / W) over its columns c (the classes of a
// multinomial), with ybar the weighted means; 1 when it is 0. At the intercept-only model without offset
// every gradient entry of a whitened column (weighted mean 0, weighted variance 1) is at most this, by
// Cauchy-Schwarz. The chunked fits compute the same from their first pass (R/chunks.R) and set it.
inline double response_scale(const MatrixXd& y, const VectorXd& w) {
  const double W = w.sum();
  if (!(W > 0)) return 1.0;
  double v = 0.0;
  for (Index c = 0; c < y.cols(); ++c) {
    const double ybar = w.dot(y.col(c)) / W;
    v = std::max(v, w.dot((y.col(c).array() - ybar).square().matrix()) / W);
  }
  return v > 0 && std::isfinite(v) ? std::sqrt(v) : 1.0;
}

// The evaluator of newton_solve() over rows in memory: Z1 = [1, Z] (n x (m + 1): a matrix, held by
// reference, or WhitenedColumns, copied: its whitening maps, not its rows), y (n x P), weights w with
// total W, offset (n x P), these held by reference. It keeps eta at every point and mu at every
// iterate; the products with Z1 run on `threads` threads.
template <class Cols>
NewtonEvaluator glm_evaluator(const FamilyOps& fam, const Cols& columns, const MatrixXd& y, const VectorXd& w,
                              double W, const MatrixXd& offset, double lambda, int threads = 1) {
  const ColumnsView<Cols> Z1 = columns_view(columns);
  return [&fam, Z1, &y, &w, W, &offset, lambda, threads](NewtonPoint& pt, NewtonNeed need) {
    const MatrixXd theta = Eigen::Map<const MatrixXd>(pt.theta.data(), Z1.cols(), y.cols());
    if (pt.level < NewtonNeed::Risk) {
      pt.eta = glm_eta(Z1, theta, offset, threads);
      pt.loss = fam.loss(pt.eta, y, w);
      pt.risk = ridge_risk(pt.loss, W, theta, lambda);
    }
    if (need >= NewtonNeed::Accept && pt.level < NewtonNeed::Accept) {
      pt.mu = fam.mean(pt.eta);
      pt.deviance = fam.deviance(pt.mu, y, w) + 2.0 * (W * pt.risk - pt.loss);
    }
    if (need >= NewtonNeed::Gradient && pt.level < NewtonNeed::Gradient) {
      MatrixXd G = glm_gradient(Z1, w, pt.mu, y, W, threads);
      add_ridge_gradient(G, theta, lambda);
      pt.gradient = Eigen::Map<const VectorXd>(G.data(), G.size());
    }
    if (need >= NewtonNeed::Hessian && pt.level < NewtonNeed::Hessian) pt.hessian = glm_hessian(fam, Z1, pt.mu, w, W, lambda, threads);
    pt.level = need;
  };
}

}  // namespace fgseq

#endif
