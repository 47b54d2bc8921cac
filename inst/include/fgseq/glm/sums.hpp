// The GLM's sums over one chunk of rows (glm/evaluator.hpp has the model): the risk, gradient and
// Hessian at a point, and the pass of the quadratic FR gains, shared by the in-memory and the chunked fits.
#ifndef FGSEQ_GLM_SUMS_HPP
#define FGSEQ_GLM_SUMS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../common/design.hpp"
#include "../common/pinv.hpp"
#include "../common/whiten.hpp"
#include "evaluator.hpp"

namespace fgseq {

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
                          const MatrixXd& offset, const MatrixXd& theta, int threads = 1) {
  const Index n = Z1.rows(), P = y.cols();
  if (y.rows() != n || w.size() != n || (offset.size() && (offset.rows() != n || offset.cols() != P)))
    throw std::invalid_argument("glm_chunk_sums: y, weights and offset need one row per row of x");
  if (theta.rows() != Z1.cols() || theta.cols() != P)
    throw std::invalid_argument("glm_chunk_sums: theta needs one row per whitened column and the intercept");
  return glm_eta(Z1, theta, offset.size() ? offset : MatrixXd::Zero(n, P), threads);
}

// x: the chunk's rows (n x p); y: n x P; w: n weights; offset: n x P or empty; st: the column means,
// scales and constant flags of the whole data; sel: the selected groups; theta: (m + 1) x P; threads:
// of the products over the chunk's rows (the same sums on any number).
inline GlmSums glm_chunk_sums(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
                              Family family, const GramStats& st, const SelectedColumns& sel, const MatrixXd& theta,
                              int threads = 1) {
  const FamilyOps fam{family};
  const MatrixXd Z1 = chunk_columns(x, st, sel);
  const MatrixXd eta = chunk_eta(Z1, y, w, offset, theta, threads);
  const MatrixXd mu = fam.mean(eta);
  GlmSums s;
  s.loss = fam.loss(eta, y, w);
  s.deviance = fam.deviance(mu, y, w);
  s.gradient = glm_gradient(Z1, w, mu, y, 1.0, threads);
  s.hessian = glm_weighted_cross(fam, Z1, mu, w, 1.0, threads);
  const MatrixXd r = w.asDiagonal() * (y - mu);
  s.xr = x.tmul(r, threads);
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
// candidate's border B_h = Z_h' V Z_S1 and diagonal block D_h = Z_h' V Z_h (glm_pair_cross()),
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
// Z: a matrix or WhitenedColumns (glm/columns.hpp).
template <class Cols>
GainSums gain_sums(const Cols& Z, const GainLayout& gl, const FamilyOps& fam, const MatrixXd& mu, const VectorXd& w,
                   const MatrixXd& resid, double W, int threads, const Blas& blas = Blas()) {
  GainSums s;
  s.cross = glm_pair_cross(fam, Z, mu, w, W, gl.blocks, threads, blas);
  s.zr.resize(static_cast<size_t>(gl.n_runs));
  for (Index run = 1; run < gl.n_runs; ++run) {
    const kernels::CrossBlock& cb = gl.blocks[static_cast<size_t>(run)];
    s.zr[static_cast<size_t>(run)] = columns_tmul(Z, resid, threads, cb.i0, cb.i1) / W;
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

inline QuadraticGains schur_gains(const GainSums& s, const GainLayout& gl, Index P, double lambda, double pivot_tol,
                                  const Blas& blas = Blas()) {
  const Index m1 = gl.m1, nb = static_cast<Index>(gl.blocks.size()), n_runs = gl.n_runs;
  const std::vector<MatrixXd>& out = s.cross;
  // the Hessian at the current fit, factorized once
  MatrixXd H = pair_blocks(out, P, 0, nb);
  add_ridge_hessian(H, m1, P, lambda);
  H.diagonal().array() += 1e-12 * std::max(H.diagonal().maxCoeff(), 1e-300);
  // the borders of every candidate, response by response (row c * r_h + j of candidate h's rows),
  // and one triangular solve for all of them: with the Cholesky factor H = L L' (blocked), C = L^-1 B'
  // gives B_h H^-1 B_h' = C_h' C_h, half the work of the solve H^-1 B'; where the Cholesky meets a pivot
  // that is not positive, C = H^-1 B' by symmetric_solve()'s pivoted LDL' and B_h H^-1 B_h' = B_h C_h
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
  // H = L L' in place (L in H's lower triangle; blas: R's LAPACK and BLAS when given)
  const bool cholesky = cholesky_in_place(H, blas);
  MatrixXd C = B.transpose();
  if (cholesky) {
    if (blas.lower_solve) blas.lower_solve(H, C);
    else H.triangularView<Eigen::Lower>().solveInPlace(C);
  } else {
    C = symmetric_solve(std::move(H), C);
  }
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
    const auto Ch = C.middleCols(first[i], r * P);
    if (cholesky) M.noalias() -= Ch.transpose() * Ch;
    else M.noalias() -= B.middleRows(first[i], r * P) * Ch;
    M = 0.5 * (M + M.transpose()).eval();
    const Eigen::Map<const VectorXd> b(Gh.data(), r * P);
    const double tol = pivot_tol * (scale + lambda);
    q.gain[i] = 0.5 * pinv_quad(M, b, tol, pivot_tol);
    // the Newton step itself, -(pinv(M) b) for h's coefficients and -H^-1 B_h' of that for [1, Z_S]
    VectorXd step(m1 * P + r * P);
    step.tail(r * P) = -pinv_solve(M, b, tol, pivot_tol);
    VectorXd head = -Ch * step.tail(r * P);
    if (cholesky) H.triangularView<Eigen::Lower>().adjoint().solveInPlace(head);  // -L'^-1 C_h pinv(M) b = -H^-1 B_h' pinv(M) b
    step.head(m1 * P) = head;
    q.step[i] = std::move(step);
  }
  return q;
}

// One chunk's sums of the gains' pass at theta ((m1) x P, over the first n_selected groups of sel) for
// the candidates that follow them in sel (W = 1: the raw sums; the arguments as for glm_chunk_sums()).
inline GainSums glm_chunk_gains(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
                                Family family, const GramStats& st, const SelectedColumns& sel, Index n_selected,
                                const MatrixXd& theta, int threads = 1) {
  const FamilyOps fam{family};
  if (n_selected < 0 || n_selected > static_cast<Index>(sel.T.size()))
    throw std::invalid_argument("glm_chunk_gains: n_selected out of range");
  const MatrixXd Z = chunk_columns(x, st, sel);
  Index m1 = 1;
  for (Index k = 0; k < n_selected; ++k) m1 += sel.T[static_cast<size_t>(k)].cols();
  const MatrixXd mu = fam.mean(chunk_eta(Z.leftCols(m1), y, w, offset, theta, threads));
  std::vector<Index> col, rank;
  for (Index k = n_selected, at = m1; k < static_cast<Index>(sel.T.size()); at += sel.T[static_cast<size_t>(k)].cols(), ++k) {
    col.push_back(at);
    rank.push_back(sel.T[static_cast<size_t>(k)].cols());
  }
  const MatrixXd resid = w.asDiagonal() * (y - mu);
  return gain_sums(Z, gain_layout(m1, std::move(col), std::move(rank)), fam, mu, w, resid, 1.0, threads);
}

}  // namespace fgseq

#endif
