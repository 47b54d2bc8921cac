// The sweep over the columns of a block of rows that goes with each cross-product of the tall path
// (sweep_columns() in stats.hpp): each column's sum, its products with the responses and its largest
// magnitude, in one read of the column. The block is a few MB of rows of x in place, each column a
// separate stretch of memory, so the read is the cost: the next column is prefetched while this one is
// summed, and the sums are taken in vector registers (AVX2 when the CPU has it, chosen at run time;
// plain C++ otherwise).
//
// Every sum is taken in one fixed order, whatever the instruction set: row i goes to the partial sum
// i mod 8 over the whole blocks of 8 rows, the partial sums are added as ((s0 + s4) + (s1 + s5)) +
// ((s2 + s6) + (s3 + s7)), then the rows after the last whole block, one by one. A product is rounded
// before it is added (no fused multiply-add), so the AVX2 and plain forms give the same bits.
#ifndef FGSEQ_COMMON_SWEEP_HPP
#define FGSEQ_COMMON_SWEEP_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "kernels.hpp"
#include "types.hpp"

namespace fgseq {

namespace sweep {

namespace detail {

// the fixed order's final additions of the 8 partial sums
inline double combine(const double* a) { return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7])); }

// The rows [i, rows) after the last whole block of 8, one by one, added to sum, dot and max_abs.
inline void rest(const double* c, Index i, Index rows, const double* y, double& sum, double& dot, double& max_abs) {
  for (; i < rows; ++i) {
    sum += c[i];
    if (y) {
      const double prod = c[i] * y[i];
      dot += prod;
    }
    max_abs = std::max(max_abs, std::abs(c[i]));
  }
}

// Column c (`rows` values): its sum, its largest magnitude and, with y, c'y, in the fixed order.
inline void column_plain(const double* c, Index rows, const double* y, double& sum, double& dot, double& max_abs) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, d[8] = {0, 0, 0, 0, 0, 0, 0, 0}, m = 0.0;
  Index i = 0;
  for (; i + 8 <= rows; i += 8)
    for (int l = 0; l < 8; ++l) {
      const double v = c[i + l];
      s[l] += v;
      if (y) {
        const double prod = v * y[i + l];
        d[l] += prod;
      }
      m = std::max(m, std::abs(v));
    }
  sum = combine(s);
  dot = combine(d);
  max_abs = m;
  rest(c, i, rows, y, sum, dot, max_abs);
}

#ifdef FGSEQ_X86_KERNELS
// The same with AVX2, prefetching `next` (the next column's rows, or null) a cache line per 8 rows.
__attribute__((target("avx2"))) inline void column_avx2(const double* c, Index rows, const double* y,
                                                        const double* next, double& sum, double& dot,
                                                        double& max_abs) {
  const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, d0 = s0, d1 = s0, m0 = s0, m1 = s0;
  Index i = 0;
  for (; i + 8 <= rows; i += 8) {
    if (next) __builtin_prefetch(next + i, 0, 3);
    const __m256d a0 = _mm256_loadu_pd(c + i), a1 = _mm256_loadu_pd(c + i + 4);
    s0 = _mm256_add_pd(s0, a0);
    s1 = _mm256_add_pd(s1, a1);
    if (y) {
      d0 = _mm256_add_pd(d0, _mm256_mul_pd(a0, _mm256_loadu_pd(y + i)));
      d1 = _mm256_add_pd(d1, _mm256_mul_pd(a1, _mm256_loadu_pd(y + i + 4)));
    }
    m0 = _mm256_max_pd(m0, _mm256_and_pd(a0, magnitude));
    m1 = _mm256_max_pd(m1, _mm256_and_pd(a1, magnitude));
  }
  double s[8], d[8], m[8];
  _mm256_storeu_pd(s, s0);
  _mm256_storeu_pd(s + 4, s1);
  _mm256_storeu_pd(d, d0);
  _mm256_storeu_pd(d + 4, d1);
  _mm256_storeu_pd(m, m0);
  _mm256_storeu_pd(m + 4, m1);
  sum = combine(s);
  dot = combine(d);
  max_abs = *std::max_element(m, m + 8);
  rest(c, i, rows, y, sum, dot, max_abs);
}
#endif

}  // namespace detail

// For the columns j in [j0, j1) of b (rows x p, column-major, leading dimension ldb): sum[j] = the
// column's sum, max_abs[j] = its largest magnitude (for columns of finite values; NA, NaN or Inf make
// the sum not finite, which the caller checks), and, when P > 0, xy[j + k ldxy] += the column's
// product with column k of y (rows x P, leading dimension ldy). `isa` caps the instruction set: 1 (AVX2
// when the CPU has it), 0 (plain C++); both give the same sums.
inline void columns(const double* b, Index ldb, Index rows, Index j0, Index j1, const double* y, Index ldy,
                    Index P, double* sum, double* xy, Index ldxy, double* max_abs, int isa = 1) {
  isa = kernels::detail::isa_level(std::min(isa, 1));
  for (Index j = j0; j < j1; ++j) {
    const double* c = b + j * ldb;
    double dot = 0.0;
    for (Index k = 0; k < std::max<Index>(P, 1); ++k) {
      const double* yk = P > 0 ? y + k * ldy : nullptr;
      double s, m;
#ifdef FGSEQ_X86_KERNELS
      if (isa == 1) {
        // the next column is prefetched while the first response is summed (later ones read c from cache)
        const double* next = (k == 0 && j + 1 < j1) ? c + ldb : nullptr;
        detail::column_avx2(c, rows, yk, next, s, dot, m);
      } else
#endif
        detail::column_plain(c, rows, yk, s, dot, m);
      if (k == 0) {
        sum[j] = s;
        max_abs[j] = m;
      }
      if (P > 0) xy[j + k * ldxy] += dot;
    }
  }
}

}  // namespace sweep

}  // namespace fgseq

#endif
