// The weighted cross-products of the GLM families: for weight columns v_k of V, the blocks
// A[, i0:i1)' diag(v_k) A[, j0:j1) of one pass over the rows of A (the Hessians of the GLM's Newton
// solves, the borders of every candidate group for the quadratic FR gains, the multinomial's Hessian
// on the class contrasts). The rows are read in blocks held in cache, each thread summing its own
// rows, and multiplied by the dense kernels of common/kernels.hpp (kernels::detail::tmul_k()); for
// weight columns of one sign they go through the BLAS a fit was given (common/blas.hpp) instead. A is
// a matrix (DenseRows) or any source of rows, such as the GLM's whitened columns (glm/columns.hpp),
// formed a block of rows at a time.
#ifndef FGSEQ_GLM_CROSS_HPP
#define FGSEQ_GLM_CROSS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "../common/blas.hpp"
#include "../common/compiled.hpp"
#include "../common/kernels.hpp"
#include "../common/threads.hpp"

namespace fgseq {

namespace kernels {

// One product of a weighted_cross() pass: columns [i0, i1) of A times columns [j0, j1), under the
// row weights. With `lower`, only the entries on or below the diagonal (column index of A for the row
// >= for the column) are needed; the tiles that straddle the diagonal also form some above it.
struct CrossBlock {
  Index i0, i1, j0, j1;
  bool lower;
};

namespace detail {
// The K x blocks.size() sums of a weighted_cross() pass on `threads` threads: body(t, out) adds thread
// t's rows into its own zeroed blocks `out` (weight column k, block b at k * blocks.size() + b), and the
// threads' sums are added at the end.
template <class Body>
std::vector<MatrixXd> thread_sums(int threads, Index K, const std::vector<CrossBlock>& blocks, const Body& body) {
  std::vector<std::vector<MatrixXd>> part(static_cast<size_t>(threads));
  parallel_ranges(threads, threads, [&](Index t0, Index t1) {
    for (Index t = t0; t < t1; ++t) {
      std::vector<MatrixXd>& out = part[static_cast<size_t>(t)];
      for (Index k = 0; k < K; ++k)
        for (const CrossBlock& b : blocks) out.push_back(MatrixXd::Zero(b.i1 - b.i0, b.j1 - b.j0));
      body(t, out);
    }
  });
  std::vector<MatrixXd> out = std::move(part[0]);
  for (size_t t = 1; t < part.size(); ++t)
    for (size_t i = 0; i < out.size(); ++i) out[i] += part[t][i];
  return out;
}

// Whether every weight column of V has one sign and `blas` can form the products (the BLAS path of the
// weighted_cross() versions); sign: each column's (+1 or -1).
inline bool one_signed(const Eigen::Ref<const MatrixXd>& V, const Blas& blas, std::vector<double>& sign) {
  sign.assign(static_cast<size_t>(V.cols()), 1.0);
  bool one_sign = blas.rank_update && blas.cross_update;
  for (Index k = 0; k < V.cols() && one_sign; ++k) {
    const bool pos = (V.col(k).array() >= 0).all(), neg = (V.col(k).array() <= 0).all();
    one_sign = pos || neg;
    if (!pos) sign[static_cast<size_t>(k)] = -1.0;
  }
  return one_sign;
}

// The BLAS path's sums (weight column k, block b at k * nb + b) times each column's sign.
inline void apply_signs(std::vector<MatrixXd>& out, const std::vector<double>& sign, Index nb) {
  for (size_t k = 0; k < sign.size(); ++k)
    if (sign[k] < 0)
      for (Index b = 0; b < nb; ++b) out[k * static_cast<size_t>(nb) + static_cast<size_t>(b)] *= -1.0;
}

// o += S[, i0:i1)' S[, j0:j1) over the first `rows` rows of S (square-root-weighted rows) through the
// BLAS: a rank update for a lower block on the diagonal, a product otherwise.
inline void blas_block(const Blas& blas, MatrixXd& o, const MatrixXd& S, Index rows, const CrossBlock& cb) {
  const auto X = S.block(0, cb.i0, rows, cb.i1 - cb.i0);
  if (cb.lower && cb.i0 == cb.j0 && cb.i1 == cb.j1) blas.rank_update(o, X);
  else blas.cross_update(o, X, S.block(0, cb.j0, rows, cb.j1 - cb.j0));
}

// o += W[, i0:i1)' P[, j0:j1) over `rows` rows by the kernels, kmax columns of P at a time (only the
// tiles on or below the diagonal for a lower block): W, P column-major with leading dimensions ldw, ldp,
// W weighted, P plain.
inline void kernel_block(const double* W, Index ldw, const double* P, Index ldp, Index rows, const CrossBlock& cb,
                         MatrixXd& o, int kmax, int isa) {
  for (Index c0 = cb.j0; c0 < cb.j1; c0 += kmax) {
    const int kc = static_cast<int>(std::min<Index>(kmax, cb.j1 - c0));
    const Index first = cb.lower ? std::max(cb.i0, c0) : cb.i0;
    if (first >= cb.i1) continue;
    const TmulArgs g{W + cb.i0 * ldw, ldw, rows, P + c0 * ldp, ldp, o.data() + (c0 - cb.j0) * o.rows(), o.rows()};
    tmul_k<1, 12>(kc, isa, g, first - cb.i0, cb.i1 - cb.i0);
  }
}
}  // namespace detail

// The rows a weighted_cross() pass reads: rows() of them, and read(r0, rows, cmax, dst), which puts rows
// [r0, r0 + rows) of columns [0, cmax) into dst's top-left corner (dst has at least that many rows and
// columns; calls on disjoint rows may run at once). The passes read a matrix in memory (DenseRows) in
// place, through detail::row_block(); the GLM's whitened columns are formed a block of rows at a time
// (glm/columns.hpp), never held whole. `formed` says whether a source's rows cost more than a copy (then the BLAS paths form them
// on the fit's threads).
struct DenseRows {
  static constexpr bool formed = false;
  Eigen::Ref<const MatrixXd> A;
  Index rows() const { return A.rows(); }
  void read(Index r0, Index rows, Index cmax, Eigen::Ref<MatrixXd> dst) const {
    dst.topLeftCorner(rows, cmax) = A.block(r0, 0, rows, cmax);
  }
};

namespace detail {
inline Index max_column(const std::vector<CrossBlock>& blocks) {
  Index cmax = 0;
  for (const CrossBlock& b : blocks) cmax = std::max({cmax, b.i1, b.j1});
  return cmax;
}

// A.read() of rows [r0, r0 + rows) into dst, the rows split over `threads` threads (the BLAS paths, whose
// products run on the calling thread: a source that forms its rows, as the GLM's whitened columns do,
// forms them on the fit's threads meanwhile idle)
template <class Rows>
void read_rows(const Rows& A, Index r0, Index rows, Index cmax, MatrixXd& dst, int threads) {
  if (!Rows::formed || threads <= 1 || rows < 64) {
    A.read(r0, rows, cmax, dst);
    return;
  }
  parallel_ranges(rows, threads, [&](Index b, Index e) { A.read(r0 + b, e - b, cmax, dst.middleRows(b, e - b)); });
}

// Rows [r0, r0 + rows) of A[, 0:cmax) where a pass reads them: in place for a matrix, else read into buf
// (by read_rows(), on `threads` threads; buf grows to the rows asked).
using RowBlock = Eigen::Map<const MatrixXd, 0, Eigen::OuterStride<>>;
inline RowBlock row_block(const DenseRows& A, Index r0, Index rows, Index cmax, MatrixXd&, int) {
  return RowBlock(A.A.data() + r0, rows, cmax, Eigen::OuterStride<>(A.A.outerStride()));
}
template <class Rows>
RowBlock row_block(const Rows& A, Index r0, Index rows, Index cmax, MatrixXd& buf, int threads) {
  if (buf.rows() < rows || buf.cols() < cmax) buf.resize(std::max(buf.rows(), rows), std::max(buf.cols(), cmax));
  read_rows(A, r0, rows, cmax, buf, threads);
  return RowBlock(buf.data(), rows, cmax, Eigen::OuterStride<>(buf.outerStride()));
}
}  // namespace detail

// For each weight column k of V (n x K) and each block b: out[k * blocks.size() + b] =
// A[, i0:i1)' diag(V[, k]) A[, j0:j1), all in one pass over the rows of A (a matrix, or any source of
// rows as DenseRows): blocks of 256 rows, read once, whose weighted copy (for each k) is multiplied with
// A's columns while in cache. On `threads` threads over rows, each with its own sums, added at the end.
template <class Rows>
std::vector<MatrixXd> weighted_cross_rows(const Rows& A, const Eigen::Ref<const MatrixXd>& V,
                                          const std::vector<CrossBlock>& blocks, int threads = 1, int isa = 2) {
  const Index n = A.rows(), K = V.cols(), nb = static_cast<Index>(blocks.size());
  isa = detail::isa_level(isa);
  const int kmax = detail::max_cols(isa);
  const Index cmax = detail::max_column(blocks);
  double work = 0.0;
  for (const CrossBlock& b : blocks) work += static_cast<double>(b.i1 - b.i0) * static_cast<double>(b.j1 - b.j0);
  const Index rb = 256, nblk = (n + rb - 1) / rb;
  threads = static_cast<int>(std::min<Index>(detail::threads_for(work * static_cast<double>(n * K), threads), std::max<Index>(nblk, 1)));
  return detail::thread_sums(threads, K, blocks, [&](Index t, std::vector<MatrixXd>& out) {
    MatrixXd Ab, Av(rb, cmax);  // a formed source's rows of the block (row_block()), and them times the weights
    for (Index blk = nblk * t / threads; blk < nblk * (t + 1) / threads; ++blk) {
      const Index r0 = blk * rb, rows = std::min(rb, n - r0);
      const detail::RowBlock Ar = detail::row_block(A, r0, rows, cmax, Ab, 1);
      for (Index k = 0; k < K; ++k) {
        Av.topRows(rows).noalias() = V.col(k).segment(r0, rows).asDiagonal() * Ar;
        for (Index b = 0; b < nb; ++b)
          detail::kernel_block(Av.data(), rb, Ar.data(), Ar.outerStride(), rows, blocks[static_cast<size_t>(b)],
                               out[static_cast<size_t>(k * nb + b)], kmax, isa);
      }
    }
  });
}
inline std::vector<MatrixXd> weighted_cross(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& V,
                                            const std::vector<CrossBlock>& blocks, int threads = 1, int isa = 2) {
  return weighted_cross_rows(DenseRows{A}, V, blocks, threads, isa);
}

// weighted_cross() through the BLAS of `blas` (rank_update and cross_update) when every weight column has
// one sign, as the GLM families' pair weights do (w mu (1 - mu) >= 0, -w mu_c mu_d <= 0, w mu >= 0):
// A' diag(v) B = s (|v|^1/2 o A)' (|v|^1/2 o B) with s the column's sign. Per block of 1024 rows, the
// square-root-weighted rows of A[, 0:max column) once per weight column, then one rank update (a lower
// block on the diagonal) or one product per block. Otherwise (no BLAS, or a column of both signs) the
// kernels above.
template <class Rows>
std::vector<MatrixXd> weighted_cross_rows(const Rows& A, const Eigen::Ref<const MatrixXd>& V,
                                          const std::vector<CrossBlock>& blocks, int threads, const Blas& blas) {
  const Index n = A.rows(), K = V.cols(), nb = static_cast<Index>(blocks.size());
  std::vector<double> sign;
  if (!detail::one_signed(V, blas, sign)) return weighted_cross_rows(A, V, blocks, threads);
  const Index cmax = detail::max_column(blocks);
  std::vector<MatrixXd> out;
  for (Index k = 0; k < K; ++k)
    for (const CrossBlock& b : blocks) out.push_back(MatrixXd::Zero(b.i1 - b.i0, b.j1 - b.j0));
  const Index rb = 1024;
  MatrixXd Ab, S(std::min(rb, n), cmax);
  for (Index r0 = 0; r0 < n; r0 += rb) {
    const Index rows = std::min(rb, n - r0);
    const detail::RowBlock Ar = detail::row_block(A, r0, rows, cmax, Ab, threads);
    for (Index k = 0; k < K; ++k) {
      const VectorXd root = V.col(k).segment(r0, rows).cwiseAbs().cwiseSqrt();
      S.topRows(rows).noalias() = root.asDiagonal() * Ar;
      for (Index b = 0; b < nb; ++b)
        detail::blas_block(blas, out[static_cast<size_t>(k * nb + b)], S, rows, blocks[static_cast<size_t>(b)]);
    }
  }
  detail::apply_signs(out, sign, nb);
  return out;
}
inline std::vector<MatrixXd> weighted_cross(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& V,
                                            const std::vector<CrossBlock>& blocks, int threads, const Blas& blas) {
  return weighted_cross_rows(DenseRows{A}, V, blocks, threads, blas);
}

// The products over a matrix's rows (DenseRows: the GLM fits' evaluators over x, the Greedy Miser's) are
// instantiated once with FGSEQ_COMPILED, by the unit that defines FGSEQ_DEFINE_COMMON (common/compiled.hpp).
#ifdef FGSEQ_COMPILED
FGSEQ_COMMON_INSTANCE std::vector<MatrixXd> weighted_cross_rows<DenseRows>(
    const DenseRows&, const Eigen::Ref<const MatrixXd>&, const std::vector<CrossBlock>&, int, int);
FGSEQ_COMMON_INSTANCE std::vector<MatrixXd> weighted_cross_rows<DenseRows>(
    const DenseRows&, const Eigen::Ref<const MatrixXd>&, const std::vector<CrossBlock>&, int, const Blas&);
#endif

// weighted_cross() without the entries of V that are at most floor(i) in magnitude (row i): each weight
// column's kept rows are gathered, up to 256 at a time, and multiplied there, so that a column whose weights
// are mostly negligible (the multinomial pair weights of well-separated classes) costs in proportion to
// the rows it keeps. The rows are read in windows of 128 (held in cache while every column gathers from
// them), each column gathering into its own buffer. Through the BLAS of `blas` when every
// weight column has one sign (as weighted_cross() does), else the kernels, on `threads` threads over rows.
template <class Rows>
std::vector<MatrixXd> weighted_cross_above_rows(const Rows& A, const Eigen::Ref<const MatrixXd>& V,
                                                const VectorXd& floor, const std::vector<CrossBlock>& blocks,
                                                int threads, const Blas& blas, int isa = 2) {
  const Index n = A.rows(), K = V.cols(), nb = static_cast<Index>(blocks.size());
  std::vector<double> sign;
  const bool one_sign = detail::one_signed(V, blas, sign);
  isa = detail::isa_level(isa);
  const int kmax = detail::max_cols(isa);
  const Index cmax = detail::max_column(blocks);
  // gathered blocks of up to 256 rows, fewer for narrow A: the K buffers (K cmax br doubles) stay no
  // larger than the K products (K cmax^2 for a square block) once cmax >= 32
  const Index wr = 128, br = std::min<Index>(256, std::max<Index>(32, cmax));
  const int read_threads = one_sign ? threads : 1;  // the BLAS path reads its windows on the fit's threads
  if (one_sign) threads = 1;  // the BLAS runs its own threads
  threads = static_cast<int>(std::max<Index>(1, std::min<Index>(threads, (n + wr - 1) / wr)));
  return detail::thread_sums(threads, K, blocks, [&](Index t, std::vector<MatrixXd>& out) {
    const Index r0 = n * t / threads, r1 = n * (t + 1) / threads;
    MatrixXd Ab, win(cmax, wr);  // a formed source's window (row_block()), and the window's rows one per column
    std::vector<MatrixXd> rows(static_cast<size_t>(K), MatrixXd(cmax, br));  // each weight column's kept rows
    MatrixXd weights(br, K);                                                   // and their weights
    std::vector<Index> count(static_cast<size_t>(K), 0);
    MatrixXd S(br, cmax), P;  // a flushed buffer: its rows weighted (S) and plain (P: the kernels)
    if (!one_sign) P.resize(br, cmax);
    const auto flush = [&](Index k) {
      const Index c = count[static_cast<size_t>(k)];
      count[static_cast<size_t>(k)] = 0;
      if (c == 0) return;
      const MatrixXd& R = rows[static_cast<size_t>(k)];
      VectorXd scale = weights.col(k).head(c);
      if (one_sign) scale = scale.cwiseAbs().cwiseSqrt();
      for (Index j0 = 0; j0 < cmax; j0 += 16) {  // S = diag(scale) R', 16 columns of S at a time (in cache)
        const Index j1 = std::min(cmax, j0 + 16);
        for (Index r = 0; r < c; ++r)
          for (Index j = j0; j < j1; ++j) {
            S(r, j) = scale(r) * R(j, r);
            if (!one_sign) P(r, j) = R(j, r);
          }
      }
      for (Index b = 0; b < nb; ++b) {
        const CrossBlock& cb = blocks[static_cast<size_t>(b)];
        MatrixXd& o = out[static_cast<size_t>(k * nb + b)];
        if (one_sign) detail::blas_block(blas, o, S, c, cb);
        else detail::kernel_block(S.data(), br, P.data(), br, c, cb, o, kmax, isa);
      }
    };
    for (Index w0 = r0; w0 < r1; w0 += wr) {
      const Index wn = std::min(wr, r1 - w0);
      win.leftCols(wn) = detail::row_block(A, w0, wn, cmax, Ab, read_threads).transpose();
      for (Index k = 0; k < K; ++k)
        for (Index i = 0; i < wn; ++i) {
          const double v = V(w0 + i, k);
          if (!(std::abs(v) > floor(w0 + i))) continue;
          Index& c = count[static_cast<size_t>(k)];
          rows[static_cast<size_t>(k)].col(c) = win.col(i);
          weights(c, k) = v;
          if (++c == br) flush(k);
        }
    }
    for (Index k = 0; k < K; ++k) flush(k);
    if (one_sign) detail::apply_signs(out, sign, nb);
  });
}
inline std::vector<MatrixXd> weighted_cross_above(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& V,
                                                  const VectorXd& floor, const std::vector<CrossBlock>& blocks,
                                                  int threads, const Blas& blas, int isa = 2) {
  return weighted_cross_above_rows(DenseRows{A}, V, floor, blocks, threads, blas, isa);
}

}  // namespace kernels

}  // namespace fgseq

#endif
