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
// The same kernels form the weighted cross-products of the GLM families (glm/cross.hpp). The BLAS
// services a fit may be given instead (RankUpdate, Blas, ...) are in common/blas.hpp.
#ifndef FGSEQ_COMMON_KERNELS_HPP
#define FGSEQ_COMMON_KERNELS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>

#include "compiled.hpp"
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

// The tiles of each instruction set: their width in entries (tile_cols()) and the tile of J columns.
struct Avx512Tiles {
  static constexpr int width = 32;
  template <int J, int K>
  static void tile(const double* A, Index lda, Index n, const double* M, Index ldm, Index j, double* out, Index ldo) {
    tmul_tile_avx512<J, K>(A, lda, n, M, ldm, j, out, ldo);
  }
};
struct Avx2Tiles {
  static constexpr int width = 16;
  template <int J, int K>
  static void tile(const double* A, Index lda, Index n, const double* M, Index ldm, Index j, double* out, Index ldo) {
    tmul_tile_avx2<J, K>(A, lda, n, M, ldm, j, out, ldo);
  }
};

// Columns b..e of A'M in tiles of tile_cols(K, width) columns, the columns left over one at a time;
// every entry is summed in the same order whatever its tile.
template <class Tiles, int K>
void tmul_tiles(const double* A, Index lda, Index n, const double* M, Index ldm, Index b, Index e, double* out,
                Index ldo) {
  constexpr int J = tile_cols(K, Tiles::width);
  Index j = b;
  for (; j + J <= e; j += J) Tiles::template tile<J, K>(A, lda, n, M, ldm, j, out, ldo);
  for (; j < e; ++j) Tiles::template tile<1, K>(A, lda, n, M, ldm, j, out, ldo);
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
  if (isa == 2) return tmul_tiles<Avx512Tiles, K>(g.A, g.lda, g.n, g.M, g.ldm, b, e, g.out, g.ldo);
  if (isa == 1) return tmul_tiles<Avx2Tiles, K>(g.A, g.lda, g.n, g.M, g.ldm, b, e, g.out, g.ldo);
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

// With FGSEQ_COMPILED the kernels (every tile, for every K and instruction set) are instantiated once,
// by the unit that defines FGSEQ_DEFINE_COMMON (common/compiled.hpp); every other unit calls them there.
#ifdef FGSEQ_COMPILED
FGSEQ_COMMON_INSTANCE void tmul_k<1, 12>(int k, int isa, const TmulArgs& g, Index b, Index e);
FGSEQ_COMMON_INSTANCE void submul_k<1, 12>(int k, int isa, const SubmulArgs& g, Index b, Index e);
#endif

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
FGSEQ_API MatrixXd tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, int threads = 1,
                        int isa = 2);

// The same into out (A.cols() x M.cols(), overwritten) on the threads of `pool`, which claim its
// columns in chunks: a fit of many short products (the sample-space engine's steps) waits at no
// barrier for a thread the system has descheduled, and a caller that keeps out from one product to the
// next spares the system fresh memory, which is slow to touch. The sums of every entry are those of
// the other form.
FGSEQ_API void tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool,
                    Eigen::Ref<MatrixXd> out, int isa = 2);

// The same, returned.
FGSEQ_API MatrixXd tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool,
                        int isa = 2);

// Y -= A C for Y (n x k), A (n x m) and C (m x k), on `threads` threads (over rows).
FGSEQ_API void sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& C,
                       int threads = 1, int isa = 2);

// The same on the threads of `pool` (see tmul()).
FGSEQ_API void sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& C,
                       WorkerPool& pool, int isa = 2);

#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API MatrixXd tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, int threads, int isa) {
  threads = detail::threads_for(static_cast<double>(A.rows()) * A.cols() * M.cols(), threads);
  MatrixXd out(A.cols(), M.cols());
  detail::tmul_over(A, M, isa, detail::on_threads(threads), out);
  return out;
}

FGSEQ_API void tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool,
                    Eigen::Ref<MatrixXd> out, int isa) {
  const bool split = detail::threads_for(static_cast<double>(A.rows()) * A.cols() * M.cols(), 2) > 1;
  detail::tmul_over(A, M, isa, detail::on_pool(pool, split), out);
}

FGSEQ_API MatrixXd tmul(const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool,
                        int isa) {
  MatrixXd out(A.cols(), M.cols());
  tmul(A, M, pool, out, isa);
  return out;
}

FGSEQ_API void sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& C,
                       int threads, int isa) {
  threads = detail::threads_for(static_cast<double>(Y.rows()) * A.cols() * Y.cols(), threads);
  detail::sub_mul_over(Y, A, C, isa, detail::on_threads(threads));
}

FGSEQ_API void sub_mul(Eigen::Ref<MatrixXd> Y, const Eigen::Ref<const MatrixXd>& A, const Eigen::Ref<const MatrixXd>& C,
                       WorkerPool& pool, int isa) {
  const bool split = detail::threads_for(static_cast<double>(Y.rows()) * A.cols() * Y.cols(), 2) > 1;
  detail::sub_mul_over(Y, A, C, isa, detail::on_pool(pool, split));
}
#endif  // FGSEQ_DEFINE_COMMON

}  // namespace kernels

}  // namespace fgseq

#endif
