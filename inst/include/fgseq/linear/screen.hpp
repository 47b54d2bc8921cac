// A 16-bit copy of the whitened design, for screening the groups of the sample-space engine.
//
// Every step of CS-G-OMP reads all of x once (the gradients A'R). On wide data these passes are the
// cost of a fit, and they are bound by memory traffic. The copy holds A (n x q) as 16-bit integers
// with one scale per column: a quarter of the bytes of x. Its products are not used as values. Each
// comes with a rigorous bound on its error, and the engine decides exactly: a group whose score range
// cannot reach the best is passed over, and the few that can are scored again in double precision
// from x. The sequence, scores and path are those of the double-precision algorithm.
//
// The copy. Column a is stored as integers k_i = round(a_i / s), |k_i| <= 32767, s = max |a_i| / 32767,
// which stand for a~ = s k. The kernels convert k exactly to single precision, round m to m~ = fl32(m),
// add the products k_i m~_i in single precision over blocks of at most 64 rows, the block sums in
// double, and multiply the total by s. Then (Higham, Accuracy and Stability of Numerical Algorithms,
// 2002, section 3.1)
//   |computed - a'm| <= ||a~ - a|| ||m~|| + ||a|| ||m~ - m|| + gamma_64 ||a~|| ||m~|| + (double sums)
//                    <= eta ||m||,
//   eta = ||a~ - a|| (1 + 2u) + ||a~|| (u + (gamma_64 + gamma_nb) (1 + u)),  u = 2^-24,
// with ||a~ - a|| and ||a~|| measured when the copy is made, and nb the number of row blocks (plus a
// few for the last sums and the scaling). For columns without extreme entries ||a~ - a|| is about
// 1e-5 ||a||.
//
// The coarse level (for one vector m at a time). The copy also holds each column as 8-bit integers,
// c_i = round(a_i / s8), |c_i| <= 127, s8 = max |a_i| / 127 (an eighth of x's bytes), and a pass
// rounds m to 16-bit integers l_i = round(m_i / t), |l_i| <= 32767, t = max |m_i| / 32767. The sum
// c'l is exact in integers (each |c_i l_i| < 2^22; 32-bit sums of at most 256 pairs of products per
// lane, then 64-bit sums), so the only errors are the two roundings to integers and the scaling of the
// sum by s8 t (two multiplications):
//   |computed - a'm| <= ||c~ - a|| ||l~|| + ||a|| ||l~ - m|| + 2.01 u ||c~|| ||l~||,  c~ = s8 c, l~ = t l,
// in double precision u = 2^-53 (linear/sample.hpp takes the norms over a group's columns). For columns
// without extreme entries ||c~ - a|| is about 1e-2 ||a||: a range 300 times wider than the 16-bit one,
// which still sets aside most groups of a screening step at half the bytes and a third of the
// instructions per entry, before the 16-bit pass over the few it does not.
//
// The kernels of both levels are in linear/screen_kernels.hpp. ResidualDrift, after the copy, bounds
// how far the sample-space engine's residual has moved since an earlier step's pass over the copy
// (lazy screening, linear/sample.hpp).
#ifndef FGSEQ_LINEAR_SCREEN_HPP
#define FGSEQ_LINEAR_SCREEN_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "../common/kernels.hpp"  // the x86 vector kernel switch and CPU detection
#include "../common/threads.hpp"
#include "screen_kernels.hpp"

namespace fgseq {

class ScreeningCopy {
 public:
  ScreeningCopy() = default;
  // room for q columns of n rows (an empty copy has none); rows are padded to a multiple of 16 (32 in
  // the coarse level) and columns to a multiple of 4, with zeros. `coarse` adds the 8-bit level.
  // `vector_kernels = false` keeps to the plain C++ kernels. The q columns are left unwritten until
  // set_column() (the memory of a tall copy is touched only there: its caller can poll between
  // columns); a product needs the columns it reads set (set_column(), or each level on its own).
  ScreeningCopy(Index n, Index q, bool vector_kernels = true, bool coarse = false)
      : n_(n), q_(q), ld_((n + 15) / 16 * 16), qpad_((q + 3) / 4 * 4),
        data_(new int16_t[static_cast<size_t>(ld_ * qpad_)]), scale_(VectorXd::Zero(qpad_)), eta_(VectorXd::Zero(q)) {
    std::fill(data_.get() + q_ * ld_, data_.get() + qpad_ * ld_, int16_t(0));  // the padding columns
    if (coarse) {
      ld8_ = (n + 31) / 32 * 32;
      coarse_.reset(new int8_t[static_cast<size_t>(ld8_ * qpad_)]);
      std::fill(coarse_.get() + q_ * ld8_, coarse_.get() + qpad_ * ld8_, int8_t(0));
      cscale_ = VectorXd::Zero(qpad_);
      calpha_ = VectorXd::Zero(q);
      cgamma_ = VectorXd::Zero(q);
    }
    const double u = std::ldexp(1.0, -24), ud = std::ldexp(1.0, -53);
    const double g64 = 64 * u / (1 - 64 * u);
    const double nb = static_cast<double>((n + screen_detail::kBlock - 1) / screen_detail::kBlock) + 8;
    const double gnb = nb * ud / (1 - nb * ud);
    err_factor_ = 1 + 2 * u;
    norm_factor_ = u + (g64 + gnb) * (1 + u);
    // a sum of n squares rounded in any order is within gamma_n of its value (Higham 2002, section 4.2):
    // its square root within gamma_n too; padded once more for the products with the factors
    const double gn = static_cast<double>(n + 8) * ud / (1 - static_cast<double>(n + 8) * ud);
    sum_pad_ = (1 + gn) * (1 + 1e-12);
#ifdef FGSEQ_X86_KERNELS
    avx2_ = vector_kernels && kernels::detail::has_avx2_fma();
#else
    (void)vector_kernels;
#endif
  }

  Index cols() const { return q_; }

  // stores column j as 16-bit integers with its scale and its error factor, and in the coarse level
  // when the copy has one
  void set_column(Index j, const Eigen::Ref<const VectorXd>& a) {
    set_fine_column(j, a);
    if (coarse_) set_coarse_column(j, a);
  }

  // Column j in one level only. A level may be made lazily: a column left unwritten must be set before
  // a product reads it (one-column products read only the columns they are asked for).
  void set_fine_column(Index j, const Eigen::Ref<const VectorXd>& a) {
    const Rounded r = round_column(a, data_.get() + j * ld_, ld_);
    scale_(j) = r.scale;
    eta_(j) = (std::sqrt(r.err) * err_factor_ + std::sqrt(r.norm) * norm_factor_) * sum_pad_;
  }

  // column j of the coarse level (which the copy must have), and the bounds of its rounding
  void set_coarse_column(Index j, const Eigen::Ref<const VectorXd>& a) {
    const Rounded r = round_column(a, coarse_.get() + j * ld8_, ld8_);
    cscale_(j) = r.scale;
    const double u = std::ldexp(1.0, -53), e = r.error_bound(sum_pad_), c = r.norm_bound(sum_pad_);
    calpha_(j) = (e + 2.01 * u * c) * (1 + 4 * u);
    cgamma_(j) = (c + e) * (1 + 4 * u);
  }

  bool has_coarse() const { return static_cast<bool>(coarse_); }

  // The coarse level: |coarse_rows(m)(j) - a_j'm| <= coarse_alpha(j) b.norm + coarse_gamma(j) b.error
  // for the bound b that coarse_rows() returns for m: coarse_alpha(j) bounds ||c~_j - a_j|| + 2.01 u
  // ||c~_j||, coarse_gamma(j) bounds ||c~_j|| + ||c~_j - a_j|| (>= ||a_j||).
  const VectorXd& coarse_alpha() const { return calpha_; }
  const VectorXd& coarse_gamma() const { return cgamma_; }
  struct CoarseBound {
    double norm = 0.0;   // >= ||l~||, the rounded m
    double error = 0.0;  // >= ||l~ - m||
  };

  // Rows [b, e) of the coarse A'm for each range of `rows` (ascending, disjoint), into the same
  // entries of `out` (length q; the others left as they are), on the threads of `pool`; and the bound
  // of m's rounding. Each entry is an exact integer sum times the two scales: it does not depend on the
  // threads or on the kernel.
  CoarseBound coarse_rows(const Eigen::Ref<const VectorXd>& m, const std::vector<std::pair<Index, Index>>& rows,
                          WorkerPool& pool, Eigen::Ref<VectorXd> out) const {
    std::vector<int16_t> l(static_cast<size_t>(ld8_));
    const Rounded rm = round_column(m, l.data(), ld8_);
    const double t = rm.scale;
    std::vector<int64_t> o(static_cast<size_t>(qpad_));
    run_ranges(kernels::detail::on_pool(pool, true), rows, [&](Index b, Index e) {
#ifdef FGSEQ_X86_KERNELS
      if (avx2_) {
        screen_detail::coarse_avx2(coarse_.get(), ld8_, ld8_, l.data(), b, e, o.data());
        return;
      }
#endif
      screen_detail::coarse_plain(coarse_.get(), ld8_, ld8_, l.data(), b, e, o.data());
    });
    for (const auto& r : rows)
      for (Index j = r.first; j < r.second; ++j) out(j) = (cscale_(j) * t) * static_cast<double>(o[static_cast<size_t>(j)]);
    CoarseBound b;
    b.norm = rm.norm_bound(sum_pad_);
    b.error = rm.error_bound(sum_pad_);
    return b;
  }

  // |tmul(M)(j, c) - a_j' M_c| <= eta(j) ||M_c|| for every column j of A and c of M.
  const VectorXd& eta() const { return eta_; }

  // A' M (q x k) for an n x k matrix M, on `threads` threads.
  MatrixXd tmul(const Eigen::Ref<const MatrixXd>& M, int threads = 1) const {
    MatrixXd out(q_, M.cols());
    tmul_over(M, {{0, q_}}, kernels::detail::on_threads(threads), out);
    return out;
  }

  // The same on the threads of `pool` (chunks of columns claimed in turn; the same sums).
  MatrixXd tmul(const Eigen::Ref<const MatrixXd>& M, WorkerPool& pool) const {
    MatrixXd out(q_, M.cols());
    tmul_over(M, {{0, q_}}, kernels::detail::on_pool(pool, true), out);
    return out;
  }

  // Rows [b, e) of A' M for each range of `rows` (ascending, disjoint), into the same rows of `out`
  // (q x k); its other rows are left as they are. Each row is the sum tmul() gives.
  void tmul_rows(const Eigen::Ref<const MatrixXd>& M, const std::vector<std::pair<Index, Index>>& rows,
                 WorkerPool& pool, Eigen::Ref<MatrixXd> out) const {
    tmul_over(M, rows, kernels::detail::on_pool(pool, true), out);
  }

 private:
  Index n_ = 0, q_ = 0, ld_ = 0, qpad_ = 0;
  std::unique_ptr<int16_t[]> data_;
  VectorXd scale_, eta_;
  double err_factor_ = 1.0, norm_factor_ = 0.0, sum_pad_ = 1.0;
  bool avx2_ = false;
  // the coarse level (none when coarse_ is empty): rows padded to ld8_, one scale per column, the bounds
  Index ld8_ = 0;
  std::unique_ptr<int8_t[]> coarse_;
  VectorXd cscale_, calpha_, cgamma_;

  // the units of 4 columns that cover the ranges (ascending), each unit once
  static std::vector<Index> units_of(const std::vector<std::pair<Index, Index>>& rows) {
    std::vector<Index> units;
    for (const auto& r : rows)
      for (Index u = r.first / 4; u < (r.second + 3) / 4; ++u)
        if (units.empty() || units.back() < u) units.push_back(u);
    return units;
  }

  // body(begin, end) over the given units of 4 columns (runs of consecutive units at once), run by
  // over(count, body)
  template <class Over, class Body>
  static void run(const Over& over, const std::vector<Index>& units, const Body& body) {
    over(static_cast<Index>(units.size()), [&](Index b, Index e) {
      for (Index i = b; i < e;) {
        Index j = i + 1;
        while (j < e && units[static_cast<size_t>(j)] == units[static_cast<size_t>(j - 1)] + 1) ++j;
        body(4 * units[static_cast<size_t>(i)], 4 * (units[static_cast<size_t>(j - 1)] + 1));
        i = j;
      }
    });
  }

  // A column rounded to integers: k_i = round(a_i / scale), |k_i| <= the type's top (32767 or 127),
  // scale = max |a_i| / top; the sums of the squared errors of the stored values scale k_i and of the
  // squared stored values, rounded (in any order).
  struct Rounded {
    double scale = 0.0, err = 0.0, norm = 0.0;
    // bounds of ||a~|| and ||a~ - a|| (a~ = scale k): the sums padded by `pad` for their rounding, the
    // error by u ||a~|| more for the rounding of each stored value scale k_i
    double norm_bound(double pad) const { return std::sqrt(norm) * pad; }
    double error_bound(double pad) const { return (std::sqrt(err) + 3 * std::ldexp(1.0, -53) * std::sqrt(norm)) * pad; }
  };

  // a (n rows) rounded into dst (16 or 8-bit integers; rows [n, ld) zero), by the vector kernel for the
  // rows it takes, the plain loop for the rest (the same rounding, the same clamp)
  template <class Int>
  Rounded round_column(const Eigen::Ref<const VectorXd>& a, Int* dst, Index ld) const {
    constexpr double top = sizeof(Int) == 1 ? 127.0 : 32767.0;
    Rounded r;
    r.scale = (n_ > 0 ? a.cwiseAbs().maxCoeff() : 0.0) / top;
    const double inv = r.scale > 0 ? 1.0 / r.scale : 0.0;
    Index i = 0;
#ifdef FGSEQ_X86_KERNELS
    if (avx2_) {
      if constexpr (sizeof(Int) == 1) i = screen_detail::quantize8_avx2(a.data(), n_, r.scale, inv, dst, r.err, r.norm);
      else i = screen_detail::quantize_avx2(a.data(), n_, r.scale, inv, dst, r.err, r.norm);
    }
#endif
    const double round = 6755399441055744.0;  // 1.5 x 2^52: (v + round) - round is v rounded to an integer
    for (; i < n_; ++i) {
      const double k = (a(i) * inv + round) - round;  // up to the rounding of a(i) * inv
      dst[i] = static_cast<Int>(std::max(-top, std::min(top, k)));
      const double stored = r.scale * dst[i], d = stored - a(i);
      r.err += d * d;
      r.norm += stored * stored;
    }
    std::fill(dst + n_, dst + ld, Int(0));  // the padding rows
    return r;
  }

  // body(begin, end) over the ranges themselves (cut into pieces of at most 64 columns, for the
  // threads), run by over(count, body): one-column products read only the columns asked for
  template <class Over, class Body>
  static void run_ranges(const Over& over, const std::vector<std::pair<Index, Index>>& rows, const Body& body) {
    std::vector<std::pair<Index, Index>> pieces;
    for (const auto& r : rows)
      for (Index b = r.first; b < r.second; b += 64) pieces.emplace_back(b, std::min(r.second, b + 64));
    over(static_cast<Index>(pieces.size()), [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) body(pieces[static_cast<size_t>(i)].first, pieces[static_cast<size_t>(i)].second);
    });
  }

  // the rows of A' M in `rows`, into `out`; the ranges of columns run by over(units, body)
  template <class Over>
  void tmul_over(const Eigen::Ref<const MatrixXd>& M, const std::vector<std::pair<Index, Index>>& rows,
                 const Over& over, Eigen::Ref<MatrixXd> out) const {
    const Index k = M.cols();
    const std::vector<Index> units = units_of(rows);
    for (Index c0 = 0; c0 < k; c0 += 16) {
      const Index kc = std::min<Index>(16, k - c0);
      if (kc == 1) {
        std::vector<float> m(static_cast<size_t>(ld_), 0.0f);
        for (Index i = 0; i < n_; ++i) m[static_cast<size_t>(i)] = static_cast<float>(M(i, c0));
        std::vector<double> o(static_cast<size_t>(qpad_));
        run_ranges(over, rows, [&](Index b, Index e) { tmv(m.data(), b, e, o.data()); });
        for (const auto& r : rows)
          for (Index j = r.first; j < r.second; ++j) out(j, c0) = o[static_cast<size_t>(j)] * scale_(j);
      } else if (kc <= 8) {
        block<8>(M.middleCols(c0, kc), units, rows, over, out.middleCols(c0, kc));
      } else {
        block<16>(M.middleCols(c0, kc), units, rows, over, out.middleCols(c0, kc));
      }
    }
  }

  void tmv(const float* m, Index b, Index e, double* o) const {
#ifdef FGSEQ_X86_KERNELS
    if (avx2_) {
      screen_detail::tmv_avx2(data_.get(), ld_, ld_, m, b, e, o);
      return;
    }
#endif
    screen_detail::tmul_plain<1>(data_.get(), ld_, ld_, m, b, e, o);
  }

  template <int W, class Over>
  void block(const Eigen::Ref<const MatrixXd>& M, const std::vector<Index>& units,
             const std::vector<std::pair<Index, Index>>& rows, const Over& over, Eigen::Ref<MatrixXd> out) const {
    const Index kc = M.cols();
    std::vector<float> m(static_cast<size_t>(ld_ * W), 0.0f);  // row by row, zero padded
    for (Index i = 0; i < n_; ++i)
      for (Index c = 0; c < kc; ++c) m[static_cast<size_t>(i * W + c)] = static_cast<float>(M(i, c));
    std::vector<double> o(static_cast<size_t>(qpad_ * W));
    run(over, units, [&](Index b, Index e) {
#ifdef FGSEQ_X86_KERNELS
      if (avx2_) {
        screen_detail::tmul_avx2<W>(data_.get(), ld_, ld_, m.data(), b, e, o.data());
        return;
      }
#endif
      screen_detail::tmul_plain<W>(data_.get(), ld_, ld_, m.data(), b, e, o.data());
    });
    for (const auto& r : rows)
      for (Index j = r.first; j < r.second; ++j)
        for (Index c = 0; c < kc; ++c) out(j, c) = o[static_cast<size_t>(j * W + c)] * scale_(j);
  }
};

// How far the residual R of the sample-space engine (linear/sample.hpp) has moved since each earlier
// step, for lazy screening: a group's score range from an earlier step's pass over the copy stays a
// bound once widened by ||A_h||_2 times since(t0). start() at step 0, then at every step move() with
// the residual's update and track() with the residual after it.
class ResidualDrift {
 public:
  // step 0, at the residual R; at most max_snaps residuals kept
  void start(const MatrixXd& R, Index max_snaps) {
    moved_at_.assign(1, 0.0);
    snaps_.assign(1, Snapshot{0, R});
    max_snaps_ = max_snaps;
    since_ = VectorXd::Zero(1);
  }

  // R (after the step) = R (before) - dR: a bound of how far dR moved R, the update's norm padded by
  // the rounding of that norm (gamma of its n P terms) and of the subtraction (u ||R||), added to the
  // running sum, padded by its own rounding (so that it grows by at least that bound at every step)
  void move(const MatrixXd& dR, const MatrixXd& R) {
    const double u = std::ldexp(1.0, -53), g = static_cast<double>(dR.size() + 2) * u;
    moved_ = (moved_ + dR.norm() * (1 + 2 * g / (1 - g)) + 2 * u * R.norm()) * (1 + 4 * u);
  }

  // After each step (R the residual at `step`): since(t0) for every earlier step t0. Two bounds of
  // ||R(t) - R(t0)||: the sum of the norms of the residual's updates since t0 (moved_ - moved_at_[t0],
  // as padded when summed), and, for a kept residual R(s) of a step s >= t0, ||R(t) - R(s)|| (computed,
  // padded by the rounding of the differences and the norm) plus the updates' norms from t0 to s (the
  // triangle inequality). The residual's updates of successive steps are (nearly) orthogonal, so
  // ||R(t) - R(s)|| is about the square root of the sum of their squared norms, far below the sum of
  // the norms over many steps. Kept: at most max_snaps_ residuals, spread over the steps (when one too
  // many, the one whose neighbours are closest is dropped).
  void track(Index step, const MatrixXd& R) {
    moved_at_.push_back(moved_);
    snaps_.push_back({step, R});
    if (static_cast<Index>(snaps_.size()) > max_snaps_ && snaps_.size() > 2) {
      size_t drop = 1;
      for (size_t i = 2; i + 1 < snaps_.size(); ++i)
        if (snaps_[i + 1].step - snaps_[i - 1].step < snaps_[drop + 1].step - snaps_[drop - 1].step) drop = i;
      snaps_.erase(snaps_.begin() + static_cast<std::ptrdiff_t>(drop));
    }
    const double u = std::ldexp(1.0, -53), g = static_cast<double>(R.size() + 2) * u;
    const double pad = (1 + 2 * g / (1 - g)) * (1 + 2 * u);
    // v(s) = bound of ||R(t) - R(s)|| + moved_at_[s]; since_(t0) = min over s >= t0 of v(s) - moved_at_[t0]
    std::vector<double> v(static_cast<size_t>(step + 1), std::numeric_limits<double>::infinity());
    v[static_cast<size_t>(step)] = moved_;
    for (const Snapshot& sn : snaps_)
      if (sn.step < step) v[static_cast<size_t>(sn.step)] = ((R - sn.R).norm() * pad + moved_at_[static_cast<size_t>(sn.step)]) * (1 + 2 * u);
    since_.resize(step + 1);
    double low = std::numeric_limits<double>::infinity();
    for (Index t0 = step; t0 >= 0; --t0) {
      low = std::min(low, v[static_cast<size_t>(t0)]);
      since_(t0) = (low - moved_at_[static_cast<size_t>(t0)]) + 2 * u * low;
    }
  }

  // a bound of ||R(t) - R(t0)|| at the last step t tracked, for t0 = 0..t
  double since(Index t0) const { return since_(t0); }

 private:
  double moved_ = 0.0;            // the sum of the norms of the residual's updates, padded
  std::vector<double> moved_at_;  // its value after each step
  struct Snapshot {
    Index step;
    MatrixXd R;
  };
  std::vector<Snapshot> snaps_;  // ascending steps; the first (step 0) and the last (this step) always kept
  Index max_snaps_ = 0;
  VectorXd since_;  // since_(t0), t0 = 0..t: a bound of ||R(t) - R(t0)||
};

}  // namespace fgseq

#endif
