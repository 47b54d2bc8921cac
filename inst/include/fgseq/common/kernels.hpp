// Dense products with few right-hand columns, for the sample-space engine: A'M and Y -= A C, where A
// is tall (n x m: the data x, or the basis U of the selected groups) and M, C have k columns (k is the
// rank of one group, a few to a few dozen). These are the engine's per-step work on wide data.
//
// Why not the BLAS: with k this small a BLAS packs A for every call, which costs a pass of its own, and
// an optimized BLAS runs its own thread pool, which on a machine with few cores spins against the
// fit's OpenMP threads between the short calls of every step. These kernels read A once, in place,
// on the fit's threads: a tile of a few columns of A is multiplied with up to 12 columns of M at a time,
// every sum held in a vector register (AVX-512 or AVX2 with FMA when the CPU has them, chosen at run
// time; plain C++ otherwise). Sums are in double precision, in a different order than a BLAS's, so
// results agree with one to rounding; each entry's order does not depend on the tile or the thread.
//
// The same kernels form the weighted cross-products of the GLM families (weighted_cross(): Hessians,
// and the borders of every candidate group for the quadratic FR gains), over blocks of rows held in
// cache, each thread summing its own rows.
#ifndef FGSEQ_COMMON_KERNELS_HPP
#define FGSEQ_COMMON_KERNELS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "threads.hpp"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define FGSEQ_X86_KERNELS 1
#endif

// Unrolls the loop that follows completely (its count is a constant): GCC and Clang unroll such loops
// at -O3 but not always at R's default -O2.
#if defined(__clang__)
#define FGSEQ_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define FGSEQ_UNROLL _Pragma("GCC unroll 16")
#else
#define FGSEQ_UNROLL
#endif

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


namespace kernels {

namespace detail {

// out(j, c) += a_j' m_c for columns j in [b, e) of A and the K columns of M (column-major, leading
// dimensions lda, ldm, ldo)
template <int K>
void tmul_plain(const double* A, Index lda, Index n, const double* M, Index ldm, Index b, Index e, double* out,
                Index ldo) {
  for (Index j = b; j < e; ++j) {
    const double* a = A + j * lda;
    for (int c = 0; c < K; ++c) {
      const double* m = M + c * ldm;
      double s = 0.0;
      for (Index i = 0; i < n; ++i) s += a[i] * m[i];
      out[j + c * ldo] += s;
    }
  }
}

// rows [b, e) of Y -= A C, for the m columns of A and K columns of C (and of Y)
template <int K>
void submul_plain(double* Y, Index ldy, const double* A, Index lda, Index m, const double* C, Index ldc, Index b,
                  Index e) {
  for (Index j = 0; j < m; ++j) {
    const double* a = A + j * lda;
    for (int c = 0; c < K; ++c) {
      const double cj = C[j + c * ldc];
      double* y = Y + c * ldy;
      for (Index i = b; i < e; ++i) y[i] -= a[i] * cj;
    }
  }
}

#ifdef FGSEQ_X86_KERNELS
inline bool has_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}
inline bool has_avx2_fma() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

// Columns of A per tile for K columns of M with `regs` vector registers: the J x K accumulators, the J
// vectors of A and one of M must fit in them, or the compiler keeps accumulators in memory.
constexpr int tile_cols(int K, int regs) { return std::max(1, std::min(8, (regs - 1) / (K + 1))); }

// J columns of A at a time, 8 rows per vector: J x K accumulators; each vector of M is loaded once, into
// a register (the empty asm stops the compiler from folding the load into each of the J multiply-adds,
// which would make the loads, not the multiply-adds, the bound), and used for the J columns. The loops
// over the tile are unrolled so that the accumulators stay in registers at -O2 too. Each column's rows
// kPrefetch on are prefetched into the first-level cache and those kPrefetchFar on into the second:
// the hardware prefetcher alone kept a pass over a matrix in memory at about half the rate the kernel
// reaches in cache (on a 2,000 x 50,000 matrix and 10 columns of M, 2 threads: 16 GB/s without, 19
// with the first prefetch alone, 23-25 with both). A prefetch past a column's rows touches the rows
// below them, the next column or memory past the array (prefetch_ahead() forms the address as an
// integer), and none faults. Only from kPrefetchCols columns of M on: with fewer, the kernel does at
// most 3 multiply-adds per vector of A loaded, the hardware prefetcher keeps up, and the prefetches
// only cost (2,000 x 40,000 in memory, one thread: K = 1 24 GB/s without, 22 with, K = 2 equal; in
// cache K = 1 90 against 65, K = 2 79 against 55); with 4 columns they gain 5-10% from memory, with
// 5 or more 15-50%.
constexpr Index kPrefetch = 128;     // doubles: 16 cache lines
constexpr Index kPrefetchFar = 512;  // 64 cache lines
constexpr int kPrefetchCols = 4;

// prefetches the cache line `ahead` doubles after p (the address formed as an integer: it may lie past
// the end of p's array, where pointer arithmetic would be undefined)
template <auto Hint>
inline void prefetch_ahead(const double* p, Index ahead) {
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(ahead) * sizeof(double);
  _mm_prefetch(reinterpret_cast<const char*>(at), Hint);
}
template <int J, int K>
__attribute__((target("avx512f"))) void tmul_tile_avx512(const double* A, Index lda, Index n, const double* M,
                                                          Index ldm, Index j, double* out, Index ldo) {
  const Index n8 = n / 8 * 8;
  const __mmask8 tail = static_cast<__mmask8>((1u << (n - n8)) - 1u);
  const double* a[J];
  FGSEQ_UNROLL for (int t = 0; t < J; ++t) a[t] = A + (j + t) * lda;
  __m512d s[J][K];
  FGSEQ_UNROLL for (int t = 0; t < J; ++t) FGSEQ_UNROLL for (int c = 0; c < K; ++c) s[t][c] = _mm512_setzero_pd();
  for (Index i = 0; i < n8; i += 8) {
    __m512d x[J];
    FGSEQ_UNROLL for (int t = 0; t < J; ++t) {
      x[t] = _mm512_loadu_pd(a[t] + i);
      if constexpr (K >= kPrefetchCols) {
        prefetch_ahead<_MM_HINT_T0>(a[t] + i, kPrefetch);
        prefetch_ahead<_MM_HINT_T1>(a[t] + i, kPrefetchFar);
      }
    }
    FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
      __m512d mc = _mm512_loadu_pd(M + c * ldm + i);
      __asm__("" : "+v"(mc));
      FGSEQ_UNROLL for (int t = 0; t < J; ++t) s[t][c] = _mm512_fmadd_pd(x[t], mc, s[t][c]);
    }
  }
  if (tail) {
    __m512d x[J];
    FGSEQ_UNROLL for (int t = 0; t < J; ++t) x[t] = _mm512_maskz_loadu_pd(tail, a[t] + n8);
    FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
      const __m512d mc = _mm512_maskz_loadu_pd(tail, M + c * ldm + n8);
      FGSEQ_UNROLL for (int t = 0; t < J; ++t) s[t][c] = _mm512_fmadd_pd(x[t], mc, s[t][c]);
    }
  }
  for (int c = 0; c < K; ++c)
    for (int t = 0; t < J; ++t) out[j + t + c * ldo] += _mm512_reduce_add_pd(s[t][c]);
}

// Tiles of tile_cols(K, 32) columns, the columns left over one at a time; every entry is summed in the
// same order whatever its tile.
template <int K>
void tmul_avx512(const double* A, Index lda, Index n, const double* M, Index ldm, Index b, Index e, double* out,
                 Index ldo) {
  constexpr int J = tile_cols(K, 32);
  Index j = b;
  for (; j + J <= e; j += J) tmul_tile_avx512<J, K>(A, lda, n, M, ldm, j, out, ldo);
  for (; j < e; ++j) tmul_tile_avx512<1, K>(A, lda, n, M, ldm, j, out, ldo);
}

// Rows of Y in chunks of 128 (K columns of a chunk stay in L1): for 8 columns j of A at a time, each
// column's 8-row vector is loaded once and multiplied into the K columns of the chunk. The loops over
// the 8 columns are unrolled, so that their vectors stay in registers (rolled, the compiler kept them on
// the stack), and the rows of the columns two blocks on are prefetched: the 8 columns of a block are
// short streams (a chunk's rows) that the hardware prefetcher barely starts. Each row's result is the
// same either way: y - a_0 c_0 - ... - a_3 c_3 - (a_4 c_4 + ... + a_7 c_7) per block of 8 columns, then
// the columns left over one at a time.
template <int K>
__attribute__((target("avx512f"))) void submul_avx512(double* Y, Index ldy, const double* A, Index lda, Index m,
                                                       const double* C, Index ldc, Index b, Index e) {
  for (Index i0 = b; i0 < e; i0 += 128) {
    const Index i1 = std::min(e, i0 + 128);
    Index j = 0;
    for (; j + 8 <= m; j += 8) {
      const double* a = A + j * lda;
      for (Index i = i0; i < i1; i += 8) {
        const __mmask8 mk = static_cast<__mmask8>(i1 - i >= 8 ? 0xFF : (1u << (i1 - i)) - 1u);
        __m512d u[8];
        FGSEQ_UNROLL for (int t = 0; t < 8; ++t) u[t] = _mm512_maskz_loadu_pd(mk, a + t * lda + i);
        FGSEQ_UNROLL for (int t = 0; t < 8; ++t) {  // columns j + 16 ... j + 23 (the last column at most)
          const Index ahead = std::min<Index>(j + 16 + t, m - 1);
          _mm_prefetch(reinterpret_cast<const char*>(A + ahead * lda + i), _MM_HINT_T0);
        }
        FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
          const double* cc = C + j + c * ldc;
          double* y = Y + c * ldy + i;
          __m512d v = _mm512_maskz_loadu_pd(mk, y), w = _mm512_mul_pd(u[4], _mm512_set1_pd(cc[4]));
          FGSEQ_UNROLL for (int t = 0; t < 4; ++t) v = _mm512_fnmadd_pd(u[t], _mm512_set1_pd(cc[t]), v);
          FGSEQ_UNROLL for (int t = 5; t < 8; ++t) w = _mm512_fmadd_pd(u[t], _mm512_set1_pd(cc[t]), w);
          _mm512_mask_storeu_pd(y, mk, _mm512_sub_pd(v, w));
        }
      }
    }
    for (; j < m; ++j) {
      const double* a = A + j * lda;
      for (Index i = i0; i < i1; i += 8) {
        const __mmask8 mk = static_cast<__mmask8>(i1 - i >= 8 ? 0xFF : (1u << (i1 - i)) - 1u);
        const __m512d u = _mm512_maskz_loadu_pd(mk, a + i);
        FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
          double* y = Y + c * ldy + i;
          _mm512_mask_storeu_pd(y, mk, _mm512_fnmadd_pd(u, _mm512_set1_pd(C[j + c * ldc]), _mm512_maskz_loadu_pd(mk, y)));
        }
      }
    }
  }
}

// AVX2: A'M by the same scheme with 4 rows per vector (16 registers: K at most 6); Y -= A C by its own
template <int J, int K>
__attribute__((target("avx2,fma"))) void tmul_tile_avx2(const double* A, Index lda, Index n, const double* M,
                                                         Index ldm, Index j, double* out, Index ldo) {
  const Index n4 = n / 4 * 4;
  const double* a[J];
  FGSEQ_UNROLL for (int t = 0; t < J; ++t) a[t] = A + (j + t) * lda;
  __m256d s[J][K];
  FGSEQ_UNROLL for (int t = 0; t < J; ++t) FGSEQ_UNROLL for (int c = 0; c < K; ++c) s[t][c] = _mm256_setzero_pd();
  for (Index i = 0; i < n4; i += 4) {
    __m256d x[J];
    FGSEQ_UNROLL for (int t = 0; t < J; ++t) x[t] = _mm256_loadu_pd(a[t] + i);
    if (K >= kPrefetchCols && (i & 7) == 0) {  // a cache line per 8 rows, as in tmul_tile_avx512()
      FGSEQ_UNROLL for (int t = 0; t < J; ++t) {
        prefetch_ahead<_MM_HINT_T0>(a[t] + i, kPrefetch);
        prefetch_ahead<_MM_HINT_T1>(a[t] + i, kPrefetchFar);
      }
    }
    FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
      __m256d mc = _mm256_loadu_pd(M + c * ldm + i);
      __asm__("" : "+x"(mc));
      FGSEQ_UNROLL for (int t = 0; t < J; ++t) s[t][c] = _mm256_fmadd_pd(x[t], mc, s[t][c]);
    }
  }
  for (int c = 0; c < K; ++c) {
    const double* mc = M + c * ldm;
    for (int t = 0; t < J; ++t) {
      double v[4];
      _mm256_storeu_pd(v, s[t][c]);
      double r = (v[0] + v[1]) + (v[2] + v[3]);
      for (Index i = n4; i < n; ++i) r += a[t][i] * mc[i];
      out[j + t + c * ldo] += r;
    }
  }
}

template <int K>
void tmul_avx2(const double* A, Index lda, Index n, const double* M, Index ldm, Index b, Index e, double* out,
               Index ldo) {
  constexpr int J = tile_cols(K, 16);
  Index j = b;
  for (; j + J <= e; j += J) tmul_tile_avx2<J, K>(A, lda, n, M, ldm, j, out, ldo);
  for (; j < e; ++j) tmul_tile_avx2<1, K>(A, lda, n, M, ldm, j, out, ldo);
}

// Rows in tiles of 8 (two vectors), the 2K entries of Y of a tile held in registers over all m columns
// of A: per column j, the tile's two vectors of a_j are loaded once and multiplied into the K columns.
// Every row is y - a_0 c_0 - a_1 c_1 - ... (one rounding each, in column order) in a tile of 8, of 4 or
// alone: its result does not depend on the range of rows.
template <int K>
__attribute__((target("avx2,fma"))) void submul_avx2(double* Y, Index ldy, const double* A, Index lda, Index m,
                                                      const double* C, Index ldc, Index b, Index e) {
  Index i = b;
  for (; i + 8 <= e; i += 8) {
    __m256d y[K][2];
    FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
      y[c][0] = _mm256_loadu_pd(Y + c * ldy + i);
      y[c][1] = _mm256_loadu_pd(Y + c * ldy + i + 4);
    }
    for (Index j = 0; j < m; ++j) {
      const double* a = A + j * lda + i;
      prefetch_ahead<_MM_HINT_T0>(a, 24);  // this column's rows 3 tiles on
      const __m256d u0 = _mm256_loadu_pd(a), u1 = _mm256_loadu_pd(a + 4);
      FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
        const __m256d cc = _mm256_broadcast_sd(C + j + c * ldc);
        y[c][0] = _mm256_fnmadd_pd(u0, cc, y[c][0]);
        y[c][1] = _mm256_fnmadd_pd(u1, cc, y[c][1]);
      }
    }
    FGSEQ_UNROLL for (int c = 0; c < K; ++c) {
      _mm256_storeu_pd(Y + c * ldy + i, y[c][0]);
      _mm256_storeu_pd(Y + c * ldy + i + 4, y[c][1]);
    }
  }
  for (; i + 4 <= e; i += 4) {
    __m256d y[K];
    FGSEQ_UNROLL for (int c = 0; c < K; ++c) y[c] = _mm256_loadu_pd(Y + c * ldy + i);
    for (Index j = 0; j < m; ++j) {
      const __m256d u = _mm256_loadu_pd(A + j * lda + i);
      FGSEQ_UNROLL for (int c = 0; c < K; ++c) y[c] = _mm256_fnmadd_pd(u, _mm256_broadcast_sd(C + j + c * ldc), y[c]);
    }
    FGSEQ_UNROLL for (int c = 0; c < K; ++c) _mm256_storeu_pd(Y + c * ldy + i, y[c]);
  }
  for (; i < e; ++i)
    for (int c = 0; c < K; ++c) {
      double v = Y[c * ldy + i];
      for (Index j = 0; j < m; ++j) v = __builtin_fma(-A[j * lda + i], C[j + c * ldc], v);
      Y[c * ldy + i] = v;
    }
}
#endif

// The kernels for K = k (1 <= k <= Kmax), chosen by recursion over K at compile time.
struct TmulArgs {
  const double* A;
  Index lda, n;
  const double* M;
  Index ldm;
  double* out;
  Index ldo;
};
struct SubmulArgs {
  double* Y;
  Index ldy;
  const double* A;
  Index lda, m;
  const double* C;
  Index ldc;
};

template <int K, int Kmax>
void tmul_k(int k, int isa, const TmulArgs& g, Index b, Index e) {
  if constexpr (K < Kmax) {
    if (k != K) return tmul_k<K + 1, Kmax>(k, isa, g, b, e);
  }
#ifdef FGSEQ_X86_KERNELS
  if (isa == 2) return tmul_avx512<K>(g.A, g.lda, g.n, g.M, g.ldm, b, e, g.out, g.ldo);
  if (isa == 1) return tmul_avx2<K>(g.A, g.lda, g.n, g.M, g.ldm, b, e, g.out, g.ldo);
#endif
  tmul_plain<K>(g.A, g.lda, g.n, g.M, g.ldm, b, e, g.out, g.ldo);
}

template <int K, int Kmax>
void submul_k(int k, int isa, const SubmulArgs& g, Index b, Index e) {
  if constexpr (K < Kmax) {
    if (k != K) return submul_k<K + 1, Kmax>(k, isa, g, b, e);
  }
#ifdef FGSEQ_X86_KERNELS
  if (isa == 2) return submul_avx512<K>(g.Y, g.ldy, g.A, g.lda, g.m, g.C, g.ldc, b, e);
  if (isa == 1) return submul_avx2<K>(g.Y, g.ldy, g.A, g.lda, g.m, g.C, g.ldc, b, e);
#endif
  submul_plain<K>(g.Y, g.ldy, g.A, g.lda, g.m, g.C, g.ldc, b, e);
}

// the instruction set used (0 plain, 1 AVX2 + FMA, 2 AVX-512) and its widest block of columns;
// `allow` caps the choice (the tests run every level the CPU has)
inline int isa_level(int allow) {
  int isa = 0;
#ifdef FGSEQ_X86_KERNELS
  if (has_avx512()) isa = 2;
  else if (has_avx2_fma()) isa = 1;
#endif
  return std::min(isa, allow);
}
inline int max_cols(int isa) { return isa == 2 ? 12 : isa == 1 ? 6 : 8; }

// threads only pay for products of more than about a million multiply-adds
inline int threads_for(double work, int threads) { return work > 1e6 ? threads : 1; }

}  // namespace detail

namespace detail {
// out (m x k, overwritten; it aliases neither A nor M) = A' M over ranges of whole pairs of columns of A,
// which `over(pairs, body)` runs (on threads)
template <class Over>
void tmul_over(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, int isa, const Over& over,
               Eigen::Ref<MatrixXd> out) {
  const Index n = A.rows(), m = A.cols(), k = M.cols();
  eigen_assert(out.rows() == m && out.cols() == k && "tmul: out must be A.cols() x M.cols() (and alias neither)");
  out.setZero();
  if (m == 0 || k == 0 || n == 0) return;
  isa = isa_level(isa);
  const int kmax = max_cols(isa);
  // Blocks of columns of A of about 256 KB (16 to 256 columns), each multiplied with every chunk of kmax
  // columns of M before the next: when M has more columns than a tile holds, A is read from memory once
  // and from the cache for the other chunks, and M's columns stay in cache across the range.
  const Index block = std::min<Index>(256, std::max<Index>(16, (Index(1) << 15) / n));
  over((m + 1) / 2, [&](Index b2, Index e2) {
    const Index b = 2 * b2, e = std::min(m, 2 * e2);
    for (Index j = b; j < e; j += block)
      for (Index c0 = 0; c0 < k; c0 += kmax) {
        const int kc = static_cast<int>(std::min<Index>(kmax, k - c0));
        const TmulArgs g{A.data(), A.outerStride(), n, M.data() + c0 * M.outerStride(), M.outerStride(),
                         out.data() + c0 * out.outerStride(), out.outerStride()};
        tmul_k<1, 12>(kc, isa, g, j, std::min(e, j + block));
      }
  });
}

// Y -= A C over ranges of 16 rows, which `over(units, body)` runs (on threads)
template <class Over>
void sub_mul_over(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& C,
                  int isa, const Over& over) {
  const Index n = Y.rows(), m = A.cols(), k = Y.cols();
  if (n == 0 || m == 0 || k == 0) return;
  isa = isa_level(isa);
  const int kmax = max_cols(isa);
  over((n + 15) / 16, [&](Index b16, Index e16) {
    const Index b = 16 * b16, e = std::min(n, 16 * e16);
    for (Index c0 = 0; c0 < k; c0 += kmax) {
      const int kc = static_cast<int>(std::min<Index>(kmax, k - c0));
      const SubmulArgs g{Y.data() + c0 * Y.outerStride(), Y.outerStride(), A.data(), A.outerStride(), m,
                         C.data() + c0 * C.outerStride(), C.outerStride()};
      submul_k<1, 12>(kc, isa, g, b, e);
    }
  });
}

// runs body over [0, n) in one range per thread (parallel_ranges())
inline auto on_threads(int threads) {
  return [threads](Index n, const auto& body) { parallel_ranges(n, threads, body); };
}

// runs body over [0, n) on the pool's threads (chunks claimed in turn), or at once on the calling
// thread when `split` is false
inline auto on_pool(WorkerPool& pool, bool split) {
  return [&pool, split](Index n, const auto& body) {
    if (split) pool.ranges(n, body);
    else body(Index(0), n);
  };
}
}  // namespace detail

// A' M (m x k) for A (n x m) and M (n x k), on `threads` threads (over columns of A).
// `isa` caps the instruction set: 2 (any), 1 (AVX2 at most), 0 (plain C++).
inline MatrixXd tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, int threads = 1,
                     int isa = 2) {
  threads = detail::threads_for(static_cast<double>(A.rows()) * A.cols() * M.cols(), threads);
  MatrixXd out(A.cols(), M.cols());
  detail::tmul_over(A, M, isa, detail::on_threads(threads), out);
  return out;
}

// The same into out (A.cols() x M.cols(), overwritten) on the threads of `pool`, which claim its
// columns in chunks: a fit of many short products (the sample-space engine's steps) waits at no
// barrier for a thread the system has descheduled, and a caller that keeps out from one product to the
// next spares the system fresh memory, which is slow to touch. The sums of every entry are those of
// the other form.
inline void tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool,
                 Eigen::Ref<MatrixXd> out, int isa = 2) {
  const bool split = detail::threads_for(static_cast<double>(A.rows()) * A.cols() * M.cols(), 2) > 1;
  detail::tmul_over(A, M, isa, detail::on_pool(pool, split), out);
}

// The same, returned.
inline MatrixXd tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool,
                     int isa = 2) {
  MatrixXd out(A.cols(), M.cols());
  tmul(A, M, pool, out, isa);
  return out;
}

// Y -= A C for Y (n x k), A (n x m) and C (m x k), on `threads` threads (over rows).
inline void sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& C,
                    int threads = 1, int isa = 2) {
  threads = detail::threads_for(static_cast<double>(Y.rows()) * A.cols() * Y.cols(), threads);
  detail::sub_mul_over(Y, A, C, isa, detail::on_threads(threads));
}

// The same on the threads of `pool` (see tmul()).
inline void sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& C,
                    WorkerPool& pool, int isa = 2) {
  const bool split = detail::threads_for(static_cast<double>(Y.rows()) * A.cols() * Y.cols(), 2) > 1;
  detail::sub_mul_over(Y, A, C, isa, detail::on_pool(pool, split));
}

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
