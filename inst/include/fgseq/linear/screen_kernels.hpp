// The kernels of the screening copy (linear/screen.hpp): the products of its 16-bit columns with
// single-precision columns, A'M in blocks of 64 rows (tmul_plain(), tmul_avx2(), tmv_avx2()), the exact
// integer sums of its 8-bit columns with a 16-bit vector (coarse_plain(), coarse_avx2()), and the
// rounding of a column to either (quantize_avx2(), quantize8_avx2()). Each plain C++ form is the
// reference its AVX2 form must agree with (the integer sums equal it); the copy chooses between them
// at run time (common/kernels.hpp: the x86 switch and the CPU's instruction sets).
#ifndef FGSEQ_LINEAR_SCREEN_KERNELS_HPP
#define FGSEQ_LINEAR_SCREEN_KERNELS_HPP

#include <algorithm>
#include <cstdint>

#include "../common/kernels.hpp"  // FGSEQ_X86_KERNELS and the vector intrinsics
#include "../common/types.hpp"

namespace fgseq {

namespace screen_detail {

constexpr Index kBlock = 64;  // rows summed in single precision before a double-precision sum

// out(j, c) = k_j' m_c for the stored integers k_j of columns [begin, end) (column stride ld) and the W
// columns of M, stored row by row (n rows of W floats); the caller multiplies by the column scales.
// Plain C++: the reference the vector kernels must agree with.
template <int W>
void tmul_plain(const int16_t* A, Index ld, Index n, const float* M, Index begin, Index end, double* out) {
  for (Index j = begin; j < end; ++j) {
    const int16_t* a = A + j * ld;
    double acc[W] = {0};
    for (Index i0 = 0; i0 < n; i0 += kBlock) {
      const Index i1 = std::min(n, i0 + kBlock);
      float s[W] = {0};
      for (Index i = i0; i < i1; ++i)
        for (int c = 0; c < W; ++c) s[c] += static_cast<float>(a[i]) * M[i * W + c];
      for (int c = 0; c < W; ++c) acc[c] += s[c];
    }
    for (int c = 0; c < W; ++c) out[j * W + c] = acc[c];
  }
}

// out[j] = c_j' l for the 8-bit integers c_j of columns [begin, end) (column stride ld, n rows; n a
// multiple of 32, zero padded) and the 16-bit integers l: exact, in 64-bit integers. Plain C++: the
// reference the vector kernel must equal.
inline void coarse_plain(const int8_t* C, Index ld, Index n, const int16_t* l, Index begin, Index end, int64_t* out) {
  for (Index j = begin; j < end; ++j) {
    const int8_t* c = C + j * ld;
    int64_t acc = 0;
    for (Index i = 0; i < n; ++i) acc += static_cast<int32_t>(c[i]) * static_cast<int32_t>(l[i]);
    out[j] = acc;
  }
}

#ifdef FGSEQ_X86_KERNELS
// The same sums: 32 rows at a time, the 8-bit integers widened to 16 bits and multiplied by pairs
// into 32-bit sums (vpmaddwd: |c_i l_i + c_k l_k| <= 2 x 127 x 32767 < 2^23), two accumulators of
// 8 lanes each taking one such sum per 32 rows, moved to 64-bit sums every 256 of them (at most
// 2^31 / 2^23 = 256 fit), so the integer sum is exact and equals coarse_plain()'s. The column two on
// (the range's last at most) is prefetched a cache line per 64 rows: a range is a few groups' columns,
// too short a stream for the hardware prefetcher to reach full speed.
__attribute__((target("avx2,fma"))) inline void coarse_avx2(const int8_t* C, Index ld, Index n, const int16_t* l,
                                                              Index begin, Index end, int64_t* out) {
  constexpr Index kSpan = 32 * 256;  // rows between moves to the 64-bit sums
  for (Index j = begin; j < end; ++j) {
    const int8_t* c = C + j * ld;
    const int8_t* ahead = C + std::min(j + 2, end - 1) * ld;
    __m256i wide = _mm256_setzero_si256();
    for (Index i0 = 0; i0 < n; i0 += kSpan) {
      const Index i1 = std::min(n, i0 + kSpan);
      __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
      for (Index i = i0; i < i1; i += 32) {
        if ((i & 63) == 0) _mm_prefetch(reinterpret_cast<const char*>(ahead + i), _MM_HINT_T0);
        const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + i));
        const __m256i k0 = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(k));
        const __m256i k1 = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(k, 1));
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(k0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(l + i))));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(k1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(l + i + 16))));
      }
      wide = _mm256_add_epi64(wide, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(s0)));
      wide = _mm256_add_epi64(wide, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s0, 1)));
      wide = _mm256_add_epi64(wide, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(s1)));
      wide = _mm256_add_epi64(wide, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s1, 1)));
    }
    alignas(32) int64_t t[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), wide);
    out[j] = (t[0] + t[1]) + (t[2] + t[3]);
  }
}

// Four columns at a time against W = 8 or 16 columns of M: every row of M (one or two vectors) is
// loaded once for four columns, each entry of A is broadcast from a block converted to single
// precision. [begin, end) holds whole groups of 4.
template <int W>
__attribute__((target("avx2,fma"))) void tmul_avx2(const int16_t* A, Index ld, Index n, const float* M, Index begin,
                                                     Index end, double* out) {
  constexpr int V = W / 8;  // vectors per row of M
  float buf[4][kBlock];
  for (Index j = begin; j < end; j += 4) {
    __m256d acc[4][2 * V];
    for (int c = 0; c < 4; ++c)
      for (int v = 0; v < 2 * V; ++v) acc[c][v] = _mm256_setzero_pd();
    for (Index i0 = 0; i0 < n; i0 += kBlock) {
      const Index i1 = std::min(n, i0 + kBlock);
      for (int c = 0; c < 4; ++c) {
        const int16_t* a = A + (j + c) * ld;
        for (Index i = i0; i < i1; ++i) buf[c][i - i0] = static_cast<float>(a[i]);
      }
      __m256 s[4][V];
      for (int c = 0; c < 4; ++c)
        for (int v = 0; v < V; ++v) s[c][v] = _mm256_setzero_ps();
      for (Index i = i0; i < i1; ++i) {
        __m256 m[V];
        for (int v = 0; v < V; ++v) m[v] = _mm256_loadu_ps(M + i * W + 8 * v);
        for (int c = 0; c < 4; ++c) {
          const __m256 b = _mm256_broadcast_ss(&buf[c][i - i0]);
          for (int v = 0; v < V; ++v) s[c][v] = _mm256_fmadd_ps(b, m[v], s[c][v]);
        }
      }
      for (int c = 0; c < 4; ++c)
        for (int v = 0; v < V; ++v) {
          acc[c][2 * v] = _mm256_add_pd(acc[c][2 * v], _mm256_cvtps_pd(_mm256_castps256_ps128(s[c][v])));
          acc[c][2 * v + 1] = _mm256_add_pd(acc[c][2 * v + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(s[c][v], 1)));
        }
    }
    for (int c = 0; c < 4; ++c)
      for (int v = 0; v < 2 * V; ++v) _mm256_storeu_pd(out + (j + c) * W + 4 * v, acc[c][v]);
  }
}

// One column of M: 16 integers are loaded and converted at a time; the rows of a block are spread over
// 16 lanes (8 products per lane and block).
__attribute__((target("avx2,fma"))) inline void tmv_avx2(const int16_t* A, Index ld, Index n, const float* m,
                                                           Index begin, Index end, double* out) {
  for (Index j = begin; j < end; ++j) {
    const int16_t* a = A + j * ld;
    __m256d acc = _mm256_setzero_pd();
    for (Index i0 = 0; i0 < n; i0 += 2 * kBlock) {  // 128 rows: 8 per lane in each of two vectors
      const Index i1 = std::min(n, i0 + 2 * kBlock);
      __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
      for (Index i = i0; i < i1; i += 16) {
        const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
        const __m256 k0 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(k)));
        const __m256 k1 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(k, 1)));
        s0 = _mm256_fmadd_ps(k0, _mm256_loadu_ps(m + i), s0);
        s1 = _mm256_fmadd_ps(k1, _mm256_loadu_ps(m + i + 8), s1);
      }
      acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_castps256_ps128(s0)));
      acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_extractf128_ps(s0, 1)));
      acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_castps256_ps128(s1)));
      acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_extractf128_ps(s1, 1)));
    }
    double t[4];
    _mm256_storeu_pd(t, acc);
    out[j] = (t[0] + t[1]) + (t[2] + t[3]);
  }
}

// Four entries a[0..3] rounded to integers as the plain loop rounds them (the product rounded, then to
// the nearest integer, ties to even, as (v + 1.5 x 2^52) - 1.5 x 2^52 does; no add follows the product,
// so no fused multiply-add forms), clamped to [-top, top]; the squared errors of the stored values
// s k and the squared stored values added to e and q. The integers are exact in 32 bits.
__attribute__((target("avx2,fma"))) inline __m128i quantize4(const double* a, __m256d vinv, __m256d vs, __m256d top,
                                                           __m256d& e, __m256d& q) {
  const __m256d x = _mm256_loadu_pd(a);
  __m256d k = _mm256_round_pd(_mm256_mul_pd(x, vinv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  k = _mm256_min_pd(top, _mm256_max_pd(_mm256_sub_pd(_mm256_setzero_pd(), top), k));
  const __m256d stored = _mm256_mul_pd(vs, k), d = _mm256_sub_pd(stored, x);
  e = _mm256_fmadd_pd(d, d, e);
  q = _mm256_fmadd_pd(stored, stored, q);
  return _mm256_cvtpd_epi32(k);
}

__attribute__((target("avx2,fma"))) inline double sum4(__m256d v) {
  double t[4];
  _mm256_storeu_pd(t, v);
  return (t[0] + t[1]) + (t[2] + t[3]);
}

// round_column()'s loop over rows [0, n - n % 8): the 16-bit integers, and the sums of squares of
// the stored values' errors and of the stored values, in partial sums (the caller pads them for their
// rounding in any order)
__attribute__((target("avx2,fma"))) inline Index quantize_avx2(const double* a, Index n, double s, double inv,
                                                                int16_t* dst, double& err, double& norm) {
  const __m256d vinv = _mm256_set1_pd(inv), vs = _mm256_set1_pd(s), top = _mm256_set1_pd(32767.0);
  __m256d e[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()}, q[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  Index i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i k0 = quantize4(a + i, vinv, vs, top, e[0], q[0]), k1 = quantize4(a + i + 4, vinv, vs, top, e[1], q[1]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_packs_epi32(k0, k1));
  }
  err = sum4(_mm256_add_pd(e[0], e[1]));
  norm = sum4(_mm256_add_pd(q[0], q[1]));
  return i;
}

// round_column()'s loop over rows [0, n - n % 16): the 8-bit integers, the same sums
__attribute__((target("avx2,fma"))) inline Index quantize8_avx2(const double* a, Index n, double s, double inv,
                                                                 int8_t* dst, double& err, double& norm) {
  const __m256d vinv = _mm256_set1_pd(inv), vs = _mm256_set1_pd(s), top = _mm256_set1_pd(127.0);
  __m256d e = _mm256_setzero_pd(), q = _mm256_setzero_pd();
  Index i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i k[4];
    for (int h = 0; h < 4; ++h) k[h] = quantize4(a + i + 4 * h, vinv, vs, top, e, q);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_packs_epi16(_mm_packs_epi32(k[0], k[1]), _mm_packs_epi32(k[2], k[3])));
  }
  err = sum4(e);
  norm = sum4(q);
  return i;
}
#endif

}  // namespace screen_detail

}  // namespace fgseq

#endif
