// Group whitening inside the Gram matrix (Hu et al. 2016, section 2, "group whitening").
//
// For each group g the standardized block Sigma_gg = U diag(d) U' is eigen-decomposed; directions with
// d_i <= rank_tol * max(d) are dropped (rank-deficient groups shrink, duplicated columns share weight) and
//   T_g = U_r diag(d_r)^(-1/2)   (whitening:   Z_g = Xs_g T_g has Z_g'Z_g / n = I),
//   S_g = U_r diag(d_r)^(+1/2)   (un-whitening: standardized gradient = S_g * whitened gradient).
// The whitened Gram matrix C = T' Sigma T + lambda I and rho~ = T' rho are formed group block by group
// block, never from a copy of x. A group whose columns are all constant gets rank 0.
#ifndef FGSEQ_COMMON_WHITEN_HPP
#define FGSEQ_COMMON_WHITEN_HPP

#include <Eigen/Dense>
#include <stdexcept>
#include <utility>
#include <vector>

#include "compiled.hpp"
#include "stats.hpp"

namespace fgseq {

struct GroupLayout {
  std::vector<std::vector<Index>> cols;  // 0-based columns of x in each group
  Index p = 0;
  Index size() const { return static_cast<Index>(cols.size()); }
};

// group_of[j] in 0..n_groups-1 for each column j
FGSEQ_API GroupLayout make_layout(const std::vector<int>& group_of, int n_groups);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API GroupLayout make_layout(const std::vector<int>& group_of, int n_groups) {
  GroupLayout lay;
  lay.p = static_cast<Index>(group_of.size());
  lay.cols.assign(static_cast<size_t>(n_groups), {});
  for (size_t j = 0; j < group_of.size(); ++j) {
    const int g = group_of[j];
    if (g < 0 || g >= n_groups) throw std::invalid_argument("make_layout: group index out of range");
    lay.cols[static_cast<size_t>(g)].push_back(static_cast<Index>(j));
  }
  return lay;
}
#endif

struct Whitened {
  std::vector<MatrixXd> T;      // d_g x r_g
  std::vector<MatrixXd> S;      // d_g x r_g
  std::vector<Index> offset;    // first whitened coordinate of each group
  std::vector<Index> rank;      // r_g
  Index q = 0;                  // sum of ranks
  MatrixXd C;                   // q x q, whitened Gram + lambda I (filled by whitened_gram)
  MatrixXd rho;                 // q x P (filled by whitened_gram)
};

// The number of eigenvalues kept (ascending ev): those > rank_tol times the largest.
FGSEQ_API Index kept_rank(const VectorXd& ev, double rank_tol);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Index kept_rank(const VectorXd& ev, double rank_tol) {
  const Index d = ev.size();
  const double top = d > 0 ? ev(d - 1) : 0.0;
  Index r = 0;
  if (top > 0) {
    for (Index i = 0; i < d; ++i)
      if (ev(i) > rank_tol * top) ++r;
  }
  return r;
}
#endif

// The whitening maps T and S (d x r) of one group from its standardized diagonal block Sigma_gg (d x d).
FGSEQ_API void whiten_block(const MatrixXd& block, double rank_tol, MatrixXd& T, MatrixXd& S);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API void whiten_block(const MatrixXd& block, double rank_tol, MatrixXd& T, MatrixXd& S) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(block);
  const VectorXd& ev = es.eigenvalues();  // ascending
  const Index r = kept_rank(ev, rank_tol);
  // keep the r largest eigenpairs (the last r columns)
  const MatrixXd U = es.eigenvectors().rightCols(r);
  const VectorXd dr = ev.tail(r);
  T = U * dr.cwiseSqrt().cwiseInverse().asDiagonal();
  S = U * dr.cwiseSqrt().asDiagonal();
}
#endif

// The same maps of a group wider than it is long, from A (n x d, n < d) with Sigma_gg = A' A, through
// the n x n matrix A A' = V E V' instead of the d x d block: Sigma_gg has the same non-zero
// eigenvalues E, with eigenvectors U = A' V E^(-1/2), so that T = U E^(-1/2) = A' V E^(-1) and
// S = U E^(1/2) = A' V (the r largest kept by the same rule). O(n^2 d) instead of O(d^3).
FGSEQ_API void whiten_rows(const MatrixXd& A, double rank_tol, MatrixXd& T, MatrixXd& S);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API void whiten_rows(const MatrixXd& A, double rank_tol, MatrixXd& T, MatrixXd& S) {
  MatrixXd K = MatrixXd::Zero(A.rows(), A.rows());
  K.selfadjointView<Eigen::Lower>().rankUpdate(A);
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(K);  // reads the lower triangle
  const VectorXd& ev = es.eigenvalues();  // ascending
  const Index r = kept_rank(ev, rank_tol);
  S = A.transpose() * es.eigenvectors().rightCols(r);
  T = S * ev.tail(r).cwiseInverse().asDiagonal();
}
#endif

// Ranks, offsets and q of a whitening whose maps T (and S) are set.
FGSEQ_API void count_ranks(Whitened& w);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API void count_ranks(Whitened& w) {
  w.offset.clear();
  w.rank.clear();
  w.q = 0;
  for (const MatrixXd& t : w.T) {
    w.offset.push_back(w.q);
    w.rank.push_back(t.cols());
    w.q += t.cols();
  }
}
#endif

// The whitening maps T_g and S_g of every group from its standardized diagonal block Sigma_gg, or, for
// a group whose block is empty and `rows` holds A_g (n x d_g, Sigma_gg = A_g' A_g), from A_g
// (whiten_rows()).
FGSEQ_API Whitened whiten_blocks(const std::vector<MatrixXd>& blocks, double rank_tol,
                                 const std::vector<MatrixXd>& rows = {});
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Whitened whiten_blocks(const std::vector<MatrixXd>& blocks, double rank_tol,
                                 const std::vector<MatrixXd>& rows) {
  const size_t G = blocks.size();
  Whitened w;
  w.T.resize(G);
  w.S.resize(G);
  for (size_t g = 0; g < G; ++g) {
    if (g < rows.size() && rows[g].size() > 0) whiten_rows(rows[g], rank_tol, w.T[g], w.S[g]);
    else whiten_block(blocks[g], rank_tol, w.T[g], w.S[g]);
  }
  count_ranks(w);
  return w;
}
#endif

// A whitening from given maps T_g (d_g x r_g, as whiten_blocks() made them): ranks, offsets and q;
// S, C and rho are left empty.
FGSEQ_API Whitened whitening_from_maps(std::vector<MatrixXd> T);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Whitened whitening_from_maps(std::vector<MatrixXd> T) {
  Whitened w;
  w.T = std::move(T);
  count_ranks(w);
  return w;
}
#endif

// The whitening maps of every group, from the diagonal blocks of the p x p Sigma.
FGSEQ_API Whitened whiten_groups(const GramStats& st, const GroupLayout& lay, double rank_tol);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Whitened whiten_groups(const GramStats& st, const GroupLayout& lay, double rank_tol) {
  std::vector<MatrixXd> blocks(static_cast<size_t>(lay.size()));
  for (Index g = 0; g < lay.size(); ++g) {
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    const Index d = static_cast<Index>(cols.size());
    MatrixXd& block = blocks[static_cast<size_t>(g)];
    block.resize(d, d);
    for (Index a = 0; a < d; ++a)
      for (Index b = 0; b < d; ++b) block(a, b) = st.sigma(cols[a], cols[b]);
  }
  return whiten_blocks(blocks, rank_tol);
}
#endif

// C = T' Sigma T + lambda I and rho~ = T' rho, block by block (the linear engine's inputs).
FGSEQ_API void whitened_gram(const GramStats& st, const GroupLayout& lay, double lambda, Whitened& w);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API void whitened_gram(const GramStats& st, const GroupLayout& lay, double lambda, Whitened& w) {
  const Index G = lay.size(), p = lay.p, q = w.q, P = st.rho.cols();
  // Sigma T, p x q: column block g is Sigma[, cols_g] T_g
  MatrixXd sigma_t(p, q);
  for (Index g = 0; g < G; ++g) {
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    const Index r = w.rank[static_cast<size_t>(g)];
    if (r == 0) continue;
    MatrixXd sub(p, static_cast<Index>(cols.size()));
    for (Index a = 0; a < static_cast<Index>(cols.size()); ++a) sub.col(a) = st.sigma.col(cols[a]);
    sigma_t.middleCols(w.offset[static_cast<size_t>(g)], r).noalias() = sub * w.T[static_cast<size_t>(g)];
  }
  // C = T' (Sigma T), row block g is T_g' (Sigma T)[cols_g, ]
  w.C.resize(q, q);
  w.rho.resize(q, P);
  for (Index g = 0; g < G; ++g) {
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    const Index r = w.rank[static_cast<size_t>(g)], off = w.offset[static_cast<size_t>(g)];
    if (r == 0) continue;
    MatrixXd rows(static_cast<Index>(cols.size()), q);
    MatrixXd rho_g(static_cast<Index>(cols.size()), P);
    for (Index a = 0; a < static_cast<Index>(cols.size()); ++a) {
      rows.row(a) = sigma_t.row(cols[a]);
      rho_g.row(a) = st.rho.row(cols[a]);
    }
    w.C.middleRows(off, r).noalias() = w.T[static_cast<size_t>(g)].transpose() * rows;
    w.rho.middleRows(off, r).noalias() = w.T[static_cast<size_t>(g)].transpose() * rho_g;
    // the diagonal block is the identity by construction; make it exact
    w.C.block(off, off, r, r).setIdentity();
  }
  // symmetrize against rounding, then add the ridge
  w.C = 0.5 * (w.C + w.C.transpose()).eval();
  w.C.diagonal().array() += lambda;
}
#endif

FGSEQ_API Whitened whiten(const GramStats& st, const GroupLayout& lay, double lambda, double rank_tol);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Whitened whiten(const GramStats& st, const GroupLayout& lay, double lambda, double rank_tol) {
  Whitened w = whiten_groups(st, lay, rank_tol);
  whitened_gram(st, lay, lambda, w);
  return w;
}
#endif

// ---- the moments of each group alone (what a GLM fit needs of x) ----

// The centred moments of each group's columns by themselves (no response): entry g holds group g's
// column means and its diagonal block of the centred cross-product, d_g x d_g. A GLM fit needs no more
// of x to standardize and whiten it, so a chunk of n rows costs n sum_g d_g^2 instead of n p^2, and its
// moments hold sum_g d_g^2 numbers instead of p^2. They add over chunks of rows group by group
// (merge_moments()), and their blocks are those of centred_moments() over all columns, to rounding.
FGSEQ_API std::vector<Moments> group_moments(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const VectorXd>& weights,
                                             const GroupLayout& lay);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API std::vector<Moments> group_moments(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const VectorXd>& weights,
                                             const GroupLayout& lay) {
  if (x.cols() != lay.p) throw std::invalid_argument("group_moments: x needs one column per column of the layout");
  std::vector<Moments> out(static_cast<size_t>(lay.size()));
  const MatrixXd none(x.rows(), 0);
  MatrixXd xg;
  for (Index g = 0; g < lay.size(); ++g) {
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    xg.resize(x.rows(), static_cast<Index>(cols.size()));
    for (size_t a = 0; a < cols.size(); ++a) xg.col(static_cast<Index>(a)) = x.col(cols[a]);
    out[static_cast<size_t>(g)] = centred_moments(xg, none, weights);
  }
  return out;
}
#endif

// Standardization and whitening from the merged moments of each group (group_moments()), as
// standardize() and whiten_groups() make them from the moments of all columns: st gets n, weight_sum,
// mean, scale and constant (p each; sigma and rho stay empty).
FGSEQ_API Whitened group_moments_whitening(std::vector<Moments> moments, const GroupLayout& lay, double rank_tol,
                                           GramStats& st);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Whitened group_moments_whitening(std::vector<Moments> moments, const GroupLayout& lay, double rank_tol,
                                           GramStats& st) {
  if (static_cast<Index>(moments.size()) != lay.size())
    throw std::invalid_argument("group_moments_whitening: one set of moments per group is needed");
  st = GramStats();
  st.mean = VectorXd::Zero(lay.p);
  st.scale = VectorXd::Ones(lay.p);
  st.constant.assign(static_cast<size_t>(lay.p), false);
  std::vector<MatrixXd> blocks(moments.size());
  for (Index g = 0; g < lay.size(); ++g) {
    const auto& cols = lay.cols[static_cast<size_t>(g)];
    Moments& m = moments[static_cast<size_t>(g)];
    if (m.mean.size() != static_cast<Index>(cols.size()))
      throw std::invalid_argument("group_moments_whitening: a group's moments need one mean per column of the group");
    if (g == 0) {
      st.n = m.n;
      st.weight_sum = m.weight_sum;
    } else if (m.n != st.n || m.weight_sum != st.weight_sum) {
      throw std::invalid_argument("group_moments_whitening: the groups' moments come from different rows");
    }
    GramStats sg = standardize(std::move(m));
    for (size_t a = 0; a < cols.size(); ++a) {
      const Index j = cols[a];
      st.mean(j) = sg.mean(static_cast<Index>(a));
      st.scale(j) = sg.scale(static_cast<Index>(a));
      st.constant[static_cast<size_t>(j)] = sg.constant[a];
    }
    blocks[static_cast<size_t>(g)] = std::move(sg.sigma);
  }
  return whiten_blocks(blocks, rank_tol);
}
#endif

}  // namespace fgseq

#endif
