// Generalized linear models for the greedy engine (Hu, Grubb, Bagnell & Hebert 2014, appendix B):
// binomial, Poisson and multinomial families, with observation weights, offsets and unpenalized
// intercepts. The risk of a set S of groups is the ridge-regularized weighted mean negative
// log-likelihood
//   R(S) = min_{a, W} (1/sum(w)) sum_i w_i [Phi(eta_i) - y_i' eta_i] + lambda/2 ||W||_F^2,
//   eta_i = offset_i + a + z_{i,S} W,
// with z the standardized, group-whitened columns (as for the linear model). It is minimized by a
// damped Newton (IRLS) solver (newton.hpp), warm-started from the previous step; the multinomial
// family's Newton directions come from conjugate gradients without its Hessian (glm/multinomial.hpp). OMP scores the
// gradient of R with respect to each unselected group's coefficients (zero at the current fit); FR
// scores the decrease of R, exactly (a refit per candidate) or by its quadratic approximation (one
// Newton step through the Schur complement of the Hessian). The risk, gradient and Hessian are sums
// over rows: glm_chunk_sums() gives one chunk's part, so fits from chunks of rows share all of this.
// GlmModel fits the rows in memory; GlmRefitModel runs the same CS-G-OMP selection with its refits done
// by a callback (the chunked fits: a Newton solve whose every point is one pass over the chunks).
#ifndef FGSEQ_GLM_HPP
#define FGSEQ_GLM_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "design.hpp"
#include "family.hpp"
#include "glm/multinomial.hpp"
#include "kernels.hpp"
#include "model.hpp"
#include "newton.hpp"
#include "stats.hpp"
#include "whiten.hpp"

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

// Gradient of the loss part in theta over the columns Z1: Z1' diag(w) (mu - y) / W, (m + 1) x P, on
// `threads` threads
inline MatrixXd glm_gradient(const Eigen::Ref<const MatrixXd>& Z1, const VectorXd& w, const MatrixXd& mu,
                             const MatrixXd& y, double W, int threads = 1) {
  return kernels::tmul(Z1, w.asDiagonal() * (mu - y), threads) / W;
}

// The linear predictors offset + Z1 theta (n x P), on `threads` threads
inline MatrixXd glm_eta(const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& theta, const MatrixXd& offset,
                        int threads = 1) {
  MatrixXd eta = offset;
  kernels::sub_mul(eta, Z1, -theta, threads);
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

// The P x P blocks A' diag(w * dmu_c/deta_d / W) A, ordered response by response (row c * cols(A) + j,
// column d * cols(A) + k): every pair of responses in one pass over the rows (kernels::weighted_cross).
inline MatrixXd glm_weighted_cross(const FamilyOps& fam, const Eigen::Ref<const MatrixXd>& A, const MatrixXd& mu,
                                   const VectorXd& w, double W, int threads = 1) {
  const Index m = A.cols();
  return pair_blocks(kernels::weighted_cross(A, glm_pair_weights(fam, mu, w, W), {{0, m, 0, m, true}}, threads),
                     mu.cols());
}

// Hessian of the penalized risk in theta over Z1 = [1, Z]: the weighted cross-product plus the ridge
inline MatrixXd glm_hessian(const FamilyOps& fam, const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& mu,
                            const VectorXd& w, double W, double lambda, int threads = 1) {
  MatrixXd H = glm_weighted_cross(fam, Z1, mu, w, W, threads);
  add_ridge_hessian(H, Z1.cols(), mu.cols(), lambda);
  return H;
}

// The evaluator of newton_solve() over rows in memory: Z1 = [1, Z] (n x (m + 1)), y (n x P), weights w
// with total W, offset (n x P), all held by reference. It keeps eta at every point and mu at every
// iterate; the products with Z1 run on `threads` threads.
inline NewtonEvaluator glm_evaluator(const FamilyOps& fam, const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& y,
                                     const VectorXd& w, double W, const MatrixXd& offset, double lambda,
                                     int threads = 1) {
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

// ---- one chunk of rows ----

// The whitened columns of the selected groups, in selection order: group k's columns cols[k] of x,
// whitened by T[k] (d_k x r_k). With the column statistics they define Z.
struct SelectedColumns {
  std::vector<std::vector<Index>> cols;
  std::vector<MatrixXd> T;
};

// One chunk's additive parts of a GLM fit at theta over Z1 = [1, Z]: summed over the chunks and
// passed to glm_sums_point(), they are the whole data's risk, gradient and Hessian; xr and rsum give
// the OMP scores of every column, (x_j - mean_j)' diag(w) (y - mu) = xr_j - mean_j rsum.
struct GlmSums {
  double loss = 0.0;      // sum_i w_i [Phi(eta_i) - y_i' eta_i]
  double deviance = 0.0;  // 2 sum_i w_i [l_saturated - l(mu_i)]
  MatrixXd gradient;      // Z1' diag(w) (mu - y), (m + 1) x P
  MatrixXd hessian;       // the blocks Z1' diag(w dmu_c/deta_d) Z1, (m + 1) P square
  MatrixXd xr;            // x' diag(w) (y - mu), p x P
  VectorXd rsum;          // 1' diag(w) (y - mu), P

  GlmSums& operator+=(const GlmSums& o) {
    loss += o.loss;
    deviance += o.deviance;
    gradient += o.gradient;
    hessian += o.hessian;
    xr += o.xr;
    rsum += o.rsum;
    return *this;
  }
};

// [1, z of the groups of sel in order]: the chunk's rows of the whitened columns of sel (n x (1 + their
// ranks)), after the checks of glm_chunk_sums().
inline MatrixXd chunk_columns(const Design& x, const GramStats& st, const SelectedColumns& sel) {
  if (st.mean.size() != x.cols() || st.scale.size() != x.cols() || static_cast<Index>(st.constant.size()) != x.cols())
    throw std::invalid_argument("glm_chunk_sums: one mean, scale and constant flag per column of x is needed");
  if (sel.cols.size() != sel.T.size()) throw std::invalid_argument("glm_chunk_sums: one whitening map per group is needed");
  Index m1 = 1;
  for (const MatrixXd& T : sel.T) m1 += T.cols();
  MatrixXd Z1(x.rows(), m1);
  Z1.col(0).setOnes();
  Index at = 1;
  for (size_t k = 0; k < sel.T.size(); ++k) {
    if (static_cast<Index>(sel.cols[k].size()) != sel.T[k].rows())
      throw std::invalid_argument("glm_chunk_sums: a whitening map needs one row per column of its group");
    for (Index j : sel.cols[k])
      if (j < 0 || j >= x.cols()) throw std::invalid_argument("glm_chunk_sums: column index out of range");
    Z1.middleCols(at, sel.T[k].cols()) = whitened_columns(x, sel.cols[k], st, sel.T[k]);
    at += sel.T[k].cols();
  }
  return Z1;
}

// The chunk's linear predictors Z1 theta + offset, after the checks of the sizes of y, w, offset and theta.
inline MatrixXd chunk_eta(const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& y, const VectorXd& w,
                          const MatrixXd& offset, const MatrixXd& theta) {
  const Index n = Z1.rows(), P = y.cols();
  if (y.rows() != n || w.size() != n || (offset.size() && (offset.rows() != n || offset.cols() != P)))
    throw std::invalid_argument("glm_chunk_sums: y, weights and offset need one row per row of x");
  if (theta.rows() != Z1.cols() || theta.cols() != P)
    throw std::invalid_argument("glm_chunk_sums: theta needs one row per whitened column and the intercept");
  return glm_eta(Z1, theta, offset.size() ? offset : MatrixXd::Zero(n, P));
}

// x: the chunk's rows (n x p); y: n x P; w: n weights; offset: n x P or empty; st: the column means,
// scales and constant flags of the whole data; sel: the selected groups; theta: (m + 1) x P.
inline GlmSums glm_chunk_sums(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
                              Family family, const GramStats& st, const SelectedColumns& sel, const MatrixXd& theta) {
  const FamilyOps fam{family};
  const MatrixXd Z1 = chunk_columns(x, st, sel);
  const MatrixXd eta = chunk_eta(Z1, y, w, offset, theta);
  const MatrixXd mu = fam.mean(eta);
  GlmSums s;
  s.loss = fam.loss(eta, y, w);
  s.deviance = fam.deviance(mu, y, w);
  s.gradient = glm_gradient(Z1, w, mu, y, 1.0);
  s.hessian = glm_weighted_cross(fam, Z1, mu, w, 1.0);
  const MatrixXd r = w.asDiagonal() * (y - mu);
  s.xr = x.tmul(r);
  s.rsum = r.colwise().sum().transpose();
  return s;
}

// Fills a point of newton_solve() from the sums over all chunks at point.theta (W: total weight).
inline void glm_sums_point(const GlmSums& s, double W, double lambda, NewtonPoint& pt) {
  const Index m1 = s.gradient.rows(), P = s.gradient.cols();
  if (pt.theta.size() != m1 * P || s.hessian.rows() != m1 * P || s.hessian.cols() != m1 * P)
    throw std::invalid_argument("glm_sums_point: the sums do not match theta");
  const MatrixXd theta = Eigen::Map<const MatrixXd>(pt.theta.data(), m1, P);
  pt.loss = s.loss;
  pt.risk = ridge_risk(s.loss, W, theta, lambda);
  pt.deviance = s.deviance + 2.0 * (W * pt.risk - s.loss);
  MatrixXd G = s.gradient / W;
  add_ridge_gradient(G, theta, lambda);
  pt.gradient = Eigen::Map<const VectorXd>(G.data(), G.size());
  pt.hessian = s.hessian / W;
  add_ridge_hessian(pt.hessian, m1, P, lambda);
  pt.level = NewtonNeed::Hessian;
}

// ---- the quadratic FR gains, shared by the in-memory and the chunked fits ----
// The quadratic gains of all candidates of a step come from one pass over the rows at the current fit
// (weights V_cd = w dmu_c/deta_d / W of every pair of responses) over columns Z = [1, Z_S, ...] in which
// candidate i holds the columns [col[i], col[i] + rank[i]) (increasing): the Hessian H of [1, Z_S], every
// candidate's border B_h = Z_h' V Z_S1 and diagonal block D_h = Z_h' V Z_h (kernels::weighted_cross),
// and the gradients Z_h' diag(w) (y - mu) / W; then one factorization of H and one solve for all
// borders: the Schur complement of h is M_h = D_h + lambda I - B_h H^-1 B_h', and the gain
// vec(b_h)' pinv(M_h) vec(b_h) / 2 (schur_gains()).

// The products of that pass: [1, Z_S]'s block, then each run of adjacent candidates against [1, Z_S]
// (the borders), then each candidate's diagonal block.
struct GainLayout {
  Index m1 = 1;                             // columns of [1, Z_S]
  std::vector<Index> col, rank;             // per candidate: its first column in Z and its rank
  std::vector<kernels::CrossBlock> blocks;
  std::vector<Index> run_of;                // per candidate: the block of its run
  Index n_runs = 1;                         // blocks before the diagonal blocks ([1, Z_S]'s included)
};

inline GainLayout gain_layout(Index m1, std::vector<Index> col, std::vector<Index> rank) {
  GainLayout gl;
  gl.m1 = m1;
  gl.col = std::move(col);
  gl.rank = std::move(rank);
  gl.blocks.push_back({0, m1, 0, m1, true});
  gl.run_of.resize(gl.col.size());
  for (size_t i = 0; i < gl.col.size(); ++i) {
    const Index c = gl.col[i], e = c + gl.rank[i];
    if (i > 0 && gl.blocks.back().i1 == c) gl.blocks.back().i1 = e;
    else gl.blocks.push_back({c, e, 0, m1, false});
    gl.run_of[i] = static_cast<Index>(gl.blocks.size()) - 1;
  }
  gl.n_runs = static_cast<Index>(gl.blocks.size());
  for (size_t i = 0; i < gl.col.size(); ++i) gl.blocks.push_back({gl.col[i], gl.col[i] + gl.rank[i], gl.col[i], gl.col[i] + gl.rank[i], true});
  return gl;
}

// The sums of the pass: cross, the products of the layout's blocks under the pair weights
// (weighted_cross() order: pair k's block b at k * blocks + b); zr, Z_run' diag(w) (y - mu) of every run
// (indexed as the blocks; entry 0 empty). Divided by W, as gain_sums() makes them; a chunk's (W = 1)
// add up.
struct GainSums {
  std::vector<MatrixXd> cross, zr;

  GainSums& operator+=(const GainSums& o) {
    for (size_t k = 0; k < cross.size(); ++k) cross[k] += o.cross[k];
    for (size_t k = 0; k < zr.size(); ++k) zr[k] += o.zr[k];
    return *this;
  }
  GainSums& operator/=(double W) {
    for (MatrixXd& m : cross) m /= W;
    for (MatrixXd& m : zr) m /= W;
    return *this;
  }
};

// The pass over the rows of Z at fitted means mu (resid = diag(w) (y - mu)), on `threads` threads.
inline GainSums gain_sums(const Eigen::Ref<const MatrixXd>& Z, const GainLayout& gl, const FamilyOps& fam,
                          const MatrixXd& mu, const VectorXd& w, const MatrixXd& resid, double W, int threads) {
  GainSums s;
  s.cross = kernels::weighted_cross(Z, glm_pair_weights(fam, mu, w, W), gl.blocks, threads);
  s.zr.resize(static_cast<size_t>(gl.n_runs));
  for (Index run = 1; run < gl.n_runs; ++run) {
    const kernels::CrossBlock& cb = gl.blocks[static_cast<size_t>(run)];
    s.zr[static_cast<size_t>(run)] = kernels::tmul(Z.middleCols(cb.i0, cb.i1 - cb.i0), resid, threads) / W;
  }
  return s;
}

// The sums in one vector (cross, then zr, each matrix column-major), and back for the layout gl of P
// responses: how the chunked fits carry them.
inline VectorXd pack_gain_sums(const GainSums& s) {
  Index size = 0;
  for (const MatrixXd& m : s.cross) size += m.size();
  for (const MatrixXd& m : s.zr) size += m.size();
  VectorXd v(size);
  Index at = 0;
  for (const std::vector<MatrixXd>* part : {&s.cross, &s.zr})
    for (const MatrixXd& m : *part) {
      v.segment(at, m.size()) = Eigen::Map<const VectorXd>(m.data(), m.size());
      at += m.size();
    }
  return v;
}
inline GainSums unpack_gain_sums(const Eigen::Ref<const VectorXd>& v, const GainLayout& gl, Index P) {
  GainSums s;
  Index at = 0;
  auto take = [&](Index rows, Index cols) {
    if (at + rows * cols > v.size()) throw std::invalid_argument("unpack_gain_sums: the sums do not match the candidates");
    MatrixXd m = Eigen::Map<const MatrixXd>(v.data() + at, rows, cols);
    at += rows * cols;
    return m;
  };
  for (Index k = 0; k < P * (P + 1) / 2; ++k)
    for (const kernels::CrossBlock& b : gl.blocks) s.cross.push_back(take(b.i1 - b.i0, b.j1 - b.j0));
  s.zr.resize(static_cast<size_t>(gl.n_runs));
  for (Index run = 1; run < gl.n_runs; ++run) {
    const kernels::CrossBlock& b = gl.blocks[static_cast<size_t>(run)];
    s.zr[static_cast<size_t>(run)] = take(b.i1 - b.i0, P);
  }
  if (at != v.size()) throw std::invalid_argument("unpack_gain_sums: the sums do not match the candidates");
  return s;
}

// The quadratic gains of the candidates, per candidate of the layout: gain, and the Newton step it
// came from (vec of the step in theta over [1, Z_S] ((m1) P), then over Z_h (r P)): the start of the
// refit if the candidate is selected.
struct QuadraticGains {
  std::vector<double> gain;
  std::vector<VectorXd> step;
};

inline QuadraticGains schur_gains(const GainSums& s, const GainLayout& gl, Index P, double lambda, double pivot_tol) {
  const Index m1 = gl.m1, nb = static_cast<Index>(gl.blocks.size()), n_runs = gl.n_runs;
  const std::vector<MatrixXd>& out = s.cross;
  // the Hessian at the current fit, factorized once
  MatrixXd H = pair_blocks(out, P, 0, nb);
  add_ridge_hessian(H, m1, P, lambda);
  H.diagonal().array() += 1e-12 * std::max(H.diagonal().maxCoeff(), 1e-300);
  // the borders of every candidate, response by response (row c * r_h + j of candidate h's rows),
  // and one solve for all of them
  const size_t nc = gl.col.size();
  Index rows = 0;
  std::vector<Index> first(nc);
  for (size_t i = 0; i < nc; ++i) {
    first[i] = rows;
    rows += gl.rank[i] * P;
  }
  MatrixXd B(rows, m1 * P);
  for (size_t i = 0; i < nc; ++i) {
    const Index r = gl.rank[i], run = gl.run_of[i];
    const Index o = gl.col[i] - gl.blocks[static_cast<size_t>(run)].i0;
    for (Index c = 0; c < P; ++c)
      for (Index d = 0; d < P; ++d)
        B.block(first[i] + c * r, d * m1, r, m1) = out[static_cast<size_t>(pair_column(c, d, P) * nb + run)].middleRows(o, r);
  }
  const MatrixXd S = symmetric_solve(std::move(H), B.transpose());
  QuadraticGains q;
  q.gain.resize(nc);
  q.step.resize(nc);
  for (size_t i = 0; i < nc; ++i) {
    const Index r = gl.rank[i], run = gl.run_of[i];
    // the gradient of the candidate's coefficients, -Z_h' diag(w) (y - mu) / W
    const MatrixXd Gh = -s.zr[static_cast<size_t>(run)].middleRows(gl.col[i] - gl.blocks[static_cast<size_t>(run)].i0, r);
    MatrixXd M = pair_blocks(out, P, n_runs + static_cast<Index>(i), nb);
    M.diagonal().array() += lambda;
    // directions of h whose Schur complement is below pivot_tol times h's own curvature (D_h + lambda)
    // or times the complement's largest eigenvalue add nothing (h collinear with the selected groups)
    const double scale = M.diagonal().maxCoeff();
    M.noalias() -= B.middleRows(first[i], r * P) * S.middleCols(first[i], r * P);
    M = 0.5 * (M + M.transpose()).eval();
    const Eigen::Map<const VectorXd> b(Gh.data(), r * P);
    const double tol = pivot_tol * (scale + lambda);
    q.gain[i] = 0.5 * pinv_quad(M, b, tol, pivot_tol);
    // the Newton step itself, -(pinv(M) b) for h's coefficients and -H^-1 B_h' of that for [1, Z_S]
    VectorXd step(m1 * P + r * P);
    step.tail(r * P) = -pinv_solve(M, b, tol, pivot_tol);
    step.head(m1 * P).noalias() = -S.middleCols(first[i], r * P) * step.tail(r * P);
    q.step[i] = std::move(step);
  }
  return q;
}

// One chunk's sums of the gains' pass at theta ((m1) x P, over the first n_selected groups of sel) for
// the candidates that follow them in sel (W = 1: the raw sums; the arguments as for glm_chunk_sums()).
inline GainSums glm_chunk_gains(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
                                Family family, const GramStats& st, const SelectedColumns& sel, Index n_selected,
                                const MatrixXd& theta) {
  const FamilyOps fam{family};
  if (n_selected < 0 || n_selected > static_cast<Index>(sel.T.size()))
    throw std::invalid_argument("glm_chunk_gains: n_selected out of range");
  const MatrixXd Z = chunk_columns(x, st, sel);
  Index m1 = 1;
  for (Index k = 0; k < n_selected; ++k) m1 += sel.T[static_cast<size_t>(k)].cols();
  const MatrixXd mu = fam.mean(chunk_eta(Z.leftCols(m1), y, w, offset, theta));
  std::vector<Index> col, rank;
  for (Index k = n_selected, at = m1; k < static_cast<Index>(sel.T.size()); at += sel.T[static_cast<size_t>(k)].cols(), ++k) {
    col.push_back(at);
    rank.push_back(sel.T[static_cast<size_t>(k)].cols());
  }
  const MatrixXd resid = w.asDiagonal() * (y - mu);
  return gain_sums(Z, gain_layout(m1, std::move(col), std::move(rank)), fam, mu, w, resid, 1.0, 1);
}

// Result of one penalized Newton solve.
struct NewtonFit {
  MatrixXd theta;   // (m + 1) x P: intercepts in row 0, whitened coefficients below
  MatrixXd eta, mu;
  double risk = 0.0;
  bool converged = true;
};

// What GlmModel and GlmRefitModel share: the selected groups in order, the current fit (theta, risk,
// deviance), the null fit, and the gradients of the log-likelihood part that CS-G-OMP scores.
class GlmPathModel : public GroupModel {
 public:
  double objective() const override { return null_risk_ - risk_; }
  double score_scale() const override { return 1.0; }
  double r2() const override { return null_deviance_ > 0 ? 1.0 - deviance_ / null_deviance_ : 0.0; }
  VectorXd intercept() const override { return theta_.row(0).transpose(); }
  MatrixXd coef() const override { return scatter(theta_.bottomRows(theta_.rows() - 1)); }
  double null_risk() const override { return null_risk_; }
  bool converged() const override { return converged_; }

  void set_candidates(const std::vector<bool>& candidates) override {
    candidate_ = candidates;
    gains_ready_ = false;
  }

 protected:
  GlmPathModel(const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl)
      : GroupModel(wh, st, lay, ctl), candidate_(static_cast<size_t>(lay.size()), true) {}

  std::vector<bool> candidate_;   // the candidates of the step
  bool gains_ready_ = false;      // gain_ and step_ hold the candidates' quadratic gains and Newton steps
  std::vector<double> gain_;      // at the current fit, per group
  std::vector<VectorXd> step_;    // per group (see QuadraticGains)

  // The candidates of the step whose quadratic gains are to be computed (rank > 0), in group order.
  std::vector<Index> gain_candidates() const {
    std::vector<Index> cand;
    for (Index h = 0; h < lay_.size(); ++h)
      if (candidate_[static_cast<size_t>(h)] && !selected_[static_cast<size_t>(h)] && rank(h) > 0) cand.push_back(h);
    return cand;
  }

  // Keeps the gains of the candidates `cand` (in the layout's order) at the current fit.
  void store_gains(const std::vector<Index>& cand, QuadraticGains q) {
    gain_.assign(static_cast<size_t>(lay_.size()), 0.0);
    step_.assign(static_cast<size_t>(lay_.size()), VectorXd());
    for (size_t i = 0; i < cand.size(); ++i) {
      gain_[static_cast<size_t>(cand[i])] = q.gain[i];
      step_[static_cast<size_t>(cand[i])] = std::move(q.step[i]);
    }
    gains_ready_ = true;
  }

  // The start of the refit after adding g (before it is recorded): the current theta with zero rows for
  // g's coefficients, or, after quadratic gains, the Newton step g's gain came from (the first iterate of
  // a refit from the current fit, whose Hessian the gains' pass formed already); `stepped` says which.
  MatrixXd refit_start(Index g, bool& stepped) const {
    const Index r = rank(g);
    MatrixXd theta0 = extended_theta(r);
    stepped = gains_ready_ && step_[static_cast<size_t>(g)].size();
    if (!stepped) return theta0;
    const VectorXd& step = step_[static_cast<size_t>(g)];
    const Index P = theta0.cols(), m1 = theta_.rows();
    for (Index c = 0; c < P; ++c) {
      theta0.col(c).head(m1) += step.segment(c * m1, m1);
      theta0.col(c).tail(r) = step.segment(m1 * P + c * r, r);
    }
    return theta0;
  }

  MatrixXd theta_;            // the current fit: (m + 1) x P, intercepts in row 0
  double risk_ = 0.0, deviance_ = 0.0, null_risk_ = 0.0, null_deviance_ = 0.0;
  bool converged_ = true;     // every fit so far converged

  // Records a fit over the groups in order_; the first one recorded is the null model.
  void set_fit(MatrixXd theta, double risk, double deviance, bool converged) {
    if (!has_fit_) {
      null_risk_ = risk;
      null_deviance_ = deviance;
      has_fit_ = true;
    }
    theta_ = std::move(theta);
    risk_ = risk;
    deviance_ = deviance;
    converged_ = converged_ && converged;
  }

  // The current theta with zero rows for a group of rank r: the start of the refit after adding it
  MatrixXd extended_theta(Index r) const {
    MatrixXd theta(theta_.rows() + r, theta_.cols());
    theta << theta_, MatrixXd::Zero(r, theta_.cols());
    return theta;
  }

  // Gradient of the log-likelihood part with respect to the standardized columns of h (d_h x P):
  // (x_j' r - mean_j 1'r) / (sd_j W) with r = diag(w) (y - mu), 0 for constant columns. xr(j) gives
  // x_j' r (1 x P), rsum is 1'r.
  template <class ColumnProduct>
  MatrixXd standardized_gradient(Index h, const ColumnProduct& xr, const VectorXd& rsum, double W) const {
    const auto& cols = lay_.cols[static_cast<size_t>(h)];
    MatrixXd g(static_cast<Index>(cols.size()), rsum.size());
    for (size_t a = 0; a < cols.size(); ++a) {
      const Index j = cols[a];
      if (st_.constant[static_cast<size_t>(j)]) {
        g.row(static_cast<Index>(a)).setZero();
        continue;
      }
      g.row(static_cast<Index>(a)) = (xr(j) - st_.mean(j) * rsum.transpose()) / (st_.scale(j) * W);
    }
    return g;
  }

 private:
  bool has_fit_ = false;
};

// The GLM over rows in memory: every refit is a Newton solve over the rows.
//
// The whitened columns live in Z_ = [1, selected groups in selection order, unselected groups]: CS-G-OMP
// appends a group's columns when it is selected; FR and Doubling, which score every candidate from its
// columns, make all of them once, and a selected group's columns move to the end of the selected part.
// Quadratic FR gains of all candidates of a step come from one pass over Z_ at the current fit
// (gain_sums(), schur_gains()).
class GlmModel : public GlmPathModel {
 public:
  GlmModel(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
           Family family, const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl,
           const Poll& poll = Poll())
      : GlmPathModel(wh, st, lay, ctl), x_(x), y_(y), w_(w), offset_(offset), fam_{family} {
    W_ = w_.sum();
    const Index G = lay_.size();
    col_.assign(static_cast<size_t>(G), -1);
    Index cols = 1;
    if (ctl_.method != Method::OMP)
      for (Index h = 0; h < G; ++h) cols += rank(h);
    Z_.resize(x_.rows(), cols);
    Z_.col(0).setOnes();
    // the null model: start the intercepts at the link of the weighted mean response
    const VectorXd ybar = y_.transpose() * w_ / W_;
    if (hessian_free()) {
      gram_.A = MatrixXd::Ones(1, 1);
      gram_.decompose();
    }
    accept(newton(Z_.leftCols(1), fam_.null_intercepts(ybar), gram_));
    // FR and Doubling: every group's whitened columns, polled between groups; when the poll throws
    // TimeUp (max_time spent) the model keeps its null fit and its path stops before its first step
    try {
      for (Index h = 0, at = 1; h < G && cols > 1; ++h) {
        if (rank(h) == 0) continue;
        if (poll) poll();
        col_[static_cast<size_t>(h)] = at;
        Z_.middleCols(at, rank(h)) = whitened_columns(h);
        at += rank(h);
      }
    } catch (const TimeUp&) {
      columns_ready_ = false;
    }
  }

  double raw_score(Index h) override {
    if (ctl_.method == Method::OMP) {
      const auto xr = [this](Index j) { return xr_.row(j); };
      return standardized_gradient_score(h, standardized_gradient(h, xr, rsum_, W_));
    }
    if (!columns_ready_) throw TimeUp();
    if (ctl_.fr_gain == FrGain::Exact) {
      const Index r = rank(h);
      MatrixXd Z(x_.rows(), m1_ + r);
      Z << Z_.leftCols(m1_), Z_.middleCols(col_[static_cast<size_t>(h)], r);
      ColumnGram gram;
      if (hessian_free()) {
        gram.A = extend_gram(gram_.A, Z, w_, W_, ctl_.threads);
        gram.decompose();
      }
      const NewtonFit f = newton(Z, extended_theta(r), gram);
      converged_ = converged_ && f.converged;
      return std::max(risk_ - f.risk, 0.0);
    }
    if (!gains_ready_) quadratic_gains();
    return gain_[static_cast<size_t>(h)];
  }

  void add_group(Index g) override {
    if (!columns_ready_) throw TimeUp();
    const Index r = rank(g), n = x_.rows();
    const Index at = col_[static_cast<size_t>(g)];
    if (at < 0) {
      if (m1_ + r > Z_.cols()) {  // room for more groups: the capacity doubles, up to every group's columns
        Index all = 1;
        for (Index h = 0; h < lay_.size(); ++h) all += rank(h);
        Z_.conservativeResize(Eigen::NoChange, std::min(all, std::max(2 * Z_.cols(), m1_ + r)));
      }
      Z_.middleCols(m1_, r) = whitened_columns(g);
    } else if (at != m1_) {
      // move g's columns to the end of the selected part; the unselected columns before them shift right
      const MatrixXd Zg = Z_.middleCols(at, r);
      std::memmove(Z_.data() + (m1_ + r) * n, Z_.data() + m1_ * n, sizeof(double) * static_cast<size_t>((at - m1_) * n));
      Z_.middleCols(m1_, r) = Zg;
      for (Index& c : col_)
        if (c >= m1_ && c < at) c += r;
    }
    col_[static_cast<size_t>(g)] = m1_;
    if (hessian_free()) {
      gram_.A = extend_gram(gram_.A, Z_.leftCols(m1_ + r), w_, W_, ctl_.threads);
      gram_.decompose();
    }
    bool stepped = false;
    MatrixXd theta0 = refit_start(g, stepped);
    m1_ += r;
    record(g);
    if (stepped && !(risk_at(Z_.leftCols(m1_), theta0) < risk_))
      theta0 = extended_theta(r);  // the step does not descend (far from quadratic): start from the current fit
    accept(newton(Z_.leftCols(m1_), theta0, gram_));
  }

 private:
  const Design& x_;
  const MatrixXd& y_;
  const VectorXd& w_;
  const MatrixXd& offset_;
  FamilyOps fam_;
  double W_ = 0.0;
  MatrixXd Z_;                 // ones, the selected groups' whitened columns, then (FR) the others' (OMP: room for more)
  Index m1_ = 1;               // columns of Z_ in the current fit: 1 + the selected groups' ranks
  std::vector<Index> col_;     // first column of each group in Z_ (-1 when not there)
  bool columns_ready_ = true;  // false when max_time was spent making the FR columns in the constructor
  MatrixXd mu_;                // fitted means at the current fit
  MatrixXd resid_;             // w * (y - mu) at the current fit, shared by every candidate's score
  VectorXd rsum_;              // its column sums
  MatrixXd xr_;                // OMP: x' resid_ (p x P), every column's in one threaded product
  ColumnGram gram_;            // multinomial: the weighted Gram matrix of Z_.leftCols(m1_), decomposed

  // Whether the Newton directions come without the Hessian (the multinomial family, whose Hessian is
  // (m1 K)^2: glm/multinomial.hpp)
  bool hessian_free() const { return fam_.family == Family::Multinomial; }

  // Makes f the current fit.
  void accept(NewtonFit f) {
    mu_ = std::move(f.mu);
    resid_ = w_.asDiagonal() * (y_ - mu_);
    rsum_ = resid_.colwise().sum().transpose();
    if (ctl_.method == Method::OMP) xr_ = x_.tmul(resid_, ctl_.threads);
    gains_ready_ = false;
    set_fit(std::move(f.theta), f.risk, fam_.deviance(mu_, y_, w_), f.converged);
  }

  // z_h = (x_h - mean) / sd * T_h, n x r_h
  MatrixXd whitened_columns(Index h) const {
    return fgseq::whitened_columns(x_, lay_.cols[static_cast<size_t>(h)], st_, wh_.T[static_cast<size_t>(h)]);
  }

  // The penalized risk at theta over the columns Z1.
  double risk_at(const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& theta) const {
    NewtonPoint pt;
    pt.theta = Eigen::Map<const VectorXd>(theta.data(), theta.size());
    glm_evaluator(fam_, Z1, y_, w_, W_, offset_, ctl_.lambda)(pt, NewtonNeed::Risk);
    return pt.risk;
  }

  // The penalized fit over the columns Z1 = [1, Z] (intercepts unpenalized), from theta0; gram: Z1's
  // weighted Gram matrix, decomposed (the multinomial family's Newton directions; unused otherwise).
  NewtonFit newton(const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& theta0, const ColumnGram& gram) const {
    const Eigen::Map<const VectorXd> start(theta0.data(), theta0.size());
    NewtonSolution s =
        newton_solve(start, glm_evaluator(fam_, Z1, y_, w_, W_, offset_, ctl_.lambda, ctl_.threads), ctl_, poll_,
                     hessian_free() ? multinomial_direction(Z1, w_, W_, ctl_.lambda, gram, ctl_.threads, poll_)
                                    : NewtonDirection());
    NewtonFit f;
    f.theta = Eigen::Map<const MatrixXd>(s.point.theta.data(), Z1.cols(), y_.cols());
    f.eta = std::move(s.point.eta);
    f.mu = std::move(s.point.mu);
    f.risk = s.point.risk;
    f.converged = s.converged;
    return f;
  }

  // The quadratic gains of the candidates: one Newton step from the current fit after adding a group's
  // columns, whose decrease of the quadratic model is vec(b)' pinv(M) vec(b) / 2, with b the gradient
  // for the new coefficients and M the Schur complement of the current Hessian in the Hessian of
  // [1, Z_S, Z_h] (see schur_gains()); the candidates' columns are in Z_ already.
  void quadratic_gains() {
    std::vector<Index> cand = gain_candidates();
    std::sort(cand.begin(), cand.end(), [this](Index a, Index b) { return col_[static_cast<size_t>(a)] < col_[static_cast<size_t>(b)]; });
    std::vector<Index> col, rk;
    for (Index h : cand) {
      col.push_back(col_[static_cast<size_t>(h)]);
      rk.push_back(rank(h));
    }
    const GainLayout gl = gain_layout(m1_, std::move(col), std::move(rk));
    store_gains(cand, schur_gains(gain_sums(Z_, gl, fam_, mu_, w_, resid_, W_, ctl_.threads), gl, y_.cols(),
                                  ctl_.lambda, ctl_.pivot_tol));
  }
};

// ---- a GLM whose refits run elsewhere ----

// What the selection needs of one fit: the solution and, at it, the sums that score every column.
struct GlmRefit {
  MatrixXd theta;          // (m + 1) x P: intercepts in row 0, then the selected groups' whitened coefficients
  double risk = 0.0;       // penalized risk
  double deviance = 0.0;
  MatrixXd xr;             // x' diag(w) (y - mu), p x P
  VectorXd rsum;           // 1' diag(w) (y - mu), P
  bool converged = true;
};

// Where a refit starts: at theta ((m + 1) x P) or, when fallback is not empty and the penalized risk
// at theta is not below `below` (a quadratic FR step that does not descend), at fallback.
struct RefitStart {
  MatrixXd theta, fallback;
  double below = std::numeric_limits<double>::infinity();
};

// The penalized fit over `groups` (selection order) from start; an empty list is the null model. The
// chunked fits run it as a Newton solve over sums from chunks of rows (sums_refitter()). poll: the
// path's interrupt check and clock, to be called within the refit (may throw TimeUp; empty for the
// null model).
using GlmRefitter =
    std::function<GlmRefit(const std::vector<Index>& groups, const RefitStart& start, const Poll& poll)>;

// The sums over all rows of a fit over `groups` (selection order) at theta ((m + 1) x P): the
// glm_chunk_sums() of every chunk of rows, added. The chunked fits of the R package pass over their
// chunks once per call.
using GlmSumsSource = std::function<GlmSums(const std::vector<Index>& groups, const MatrixXd& theta)>;

// The sums over all rows of the quadratic gains' pass (gain_sums(), not divided by the total weight) at
// theta over `groups`, for the candidate groups `candidates` (in group order; their columns follow the
// selected ones', layout gl): the glm_chunk_gains() of every chunk, added.
using GlmGainSource = std::function<GainSums(const std::vector<Index>& groups, const std::vector<Index>& candidates,
                                             const MatrixXd& theta, const GainLayout& gl)>;

// The refit as newton_solve() over the sums of `sums` (one call per point the solver evaluates), of
// total weight weight_sum, polled before every Newton iteration; the refit's xr, rsum and deviance are
// those of the solution.
inline GlmRefitter sums_refitter(GlmSumsSource sums, double weight_sum, const Control& ctl) {
  return [sums = std::move(sums), weight_sum, ctl](const std::vector<Index>& groups, const RefitStart& start,
                                                   const Poll& poll) {
    const Index m1 = start.theta.rows(), P = start.theta.cols();
    std::vector<GlmSums> seen;  // the sums at every point, by the point's index
    const MatrixXd* theta0 = &start.theta;
    if (start.fallback.size()) {  // the sums at theta serve as the first point's if the solve starts there
      if (poll) poll();
      seen.push_back(sums(groups, start.theta));
      if (!(ridge_risk(seen[0].loss, weight_sum, start.theta, ctl.lambda) < start.below)) {
        seen.clear();
        theta0 = &start.fallback;
      }
    }
    const NewtonEvaluator evaluate = [&](NewtonPoint& pt, NewtonNeed) {
      if (pt.index == 0 && !seen.empty()) {
        glm_sums_point(seen[0], weight_sum, ctl.lambda, pt);
        return;
      }
      GlmSums s = sums(groups, Eigen::Map<const MatrixXd>(pt.theta.data(), m1, P));
      glm_sums_point(s, weight_sum, ctl.lambda, pt);
      seen.resize(static_cast<size_t>(pt.index) + 1);
      seen[static_cast<size_t>(pt.index)] = std::move(s);
    };
    const NewtonSolution sol =
        newton_solve(Eigen::Map<const VectorXd>(theta0->data(), theta0->size()), evaluate, ctl, poll);
    GlmSums& at = seen[static_cast<size_t>(sol.point.index)];
    GlmRefit f;
    f.theta = Eigen::Map<const MatrixXd>(sol.point.theta.data(), m1, P);
    f.risk = sol.point.risk;
    f.deviance = at.deviance;
    f.xr = std::move(at.xr);
    f.rsum = std::move(at.rsum);
    f.converged = sol.converged;
    return f;
  };
}

// CS-G-OMP, and CS-G-FR and Doubling with the quadratic gain, for a GLM through callbacks: the OMP
// scores come from the X'W(y - mu) and 1'W(y - mu) the refit returns, the quadratic gains of a step's
// candidates from one call of `gains` at the current fit (then schur_gains(), as GlmModel), so no rows
// are needed here. wh needs T, rank and offset (not S); st the column means, scales and constant flags;
// weight_sum the total weight; null_theta (1 x P) the null model's starting intercepts; gains: for FR
// and Doubling (ctl.fr_gain must be Quadratic; the exact gain would refit every candidate). The first
// refit (the null model) runs in the constructor.
class GlmRefitModel : public GlmPathModel {
 public:
  GlmRefitModel(const Whitened& wh, const GramStats& st, const GroupLayout& lay, double weight_sum,
                const MatrixXd& null_theta, GlmRefitter refit, const Control& ctl, GlmGainSource gains = GlmGainSource())
      : GlmPathModel(wh, st, lay, ctl), W_(weight_sum), refit_(std::move(refit)), gains_(std::move(gains)) {
    if (ctl_.method != Method::OMP && (ctl_.fr_gain != FrGain::Quadratic || !gains_))
      throw std::invalid_argument("GlmRefitModel: FR and Doubling need the quadratic gain and its sums");
    if (!refit_) throw std::invalid_argument("GlmRefitModel: a refit is needed");
    if (null_theta.rows() != 1) throw std::invalid_argument("GlmRefitModel: the null theta has one row");
    RefitStart start;
    start.theta = null_theta;
    accept(refit_(order_, start, Poll()), null_theta.cols());
  }

  double raw_score(Index h) override {
    if (ctl_.method == Method::OMP) {
      const auto xr = [this](Index j) { return xr_.row(j); };
      return standardized_gradient_score(h, standardized_gradient(h, xr, rsum_, W_));
    }
    if (!gains_ready_) quadratic_gains();
    return gain_[static_cast<size_t>(h)];
  }

  void add_group(Index g) override {
    RefitStart start;
    bool stepped = false;
    start.theta = refit_start(g, stepped);
    if (stepped) {
      start.fallback = extended_theta(rank(g));
      start.below = risk_;
    }
    std::vector<Index> groups = order_;
    groups.push_back(g);
    GlmRefit f = refit_(groups, start, poll_);  // may throw TimeUp: g is then not recorded
    record(g);
    accept(std::move(f), start.theta.cols());
  }

 private:
  double W_;
  GlmRefitter refit_;
  GlmGainSource gains_;
  MatrixXd xr_;
  VectorXd rsum_;

  void accept(GlmRefit f, Index P) {
    Index m1 = 1;
    for (Index g : order_) m1 += rank(g);
    if (f.theta.rows() != m1 || f.theta.cols() != P)
      throw std::invalid_argument("GlmRefitModel: the refit's theta needs one row per whitened column and the intercept");
    if (f.xr.rows() != lay_.p || f.xr.cols() != P || f.rsum.size() != P)
      throw std::invalid_argument("GlmRefitModel: the refit's xr must be p x P and its rsum of length P");
    xr_ = std::move(f.xr);
    rsum_ = std::move(f.rsum);
    gains_ready_ = false;
    set_fit(std::move(f.theta), f.risk, f.deviance, f.converged);
  }

  // The quadratic gains of the candidates (see GlmModel::quadratic_gains()): their columns follow the
  // selected groups' in the callback's pass, in group order.
  void quadratic_gains() {
    const std::vector<Index> cand = gain_candidates();
    std::vector<Index> col, rk;
    Index at = theta_.rows();
    for (Index h : cand) {
      col.push_back(at);
      rk.push_back(rank(h));
      at += rank(h);
    }
    const GainLayout gl = gain_layout(theta_.rows(), std::move(col), std::move(rk));
    GainSums s;
    if (!cand.empty()) {
      s = gains_(order_, cand, theta_, gl);
      s /= W_;
    }
    store_gains(cand, cand.empty() ? QuadraticGains() : schur_gains(s, gl, theta_.cols(), ctl_.lambda, ctl_.pivot_tol));
  }
};

}  // namespace fgseq

#endif
