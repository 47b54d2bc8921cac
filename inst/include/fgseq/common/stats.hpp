// Sufficient statistics of a linear least-squares problem, in one pass over x.
//
// For the Gaussian family every linear method of the package needs only
//   the column means m and population standard deviations s of x,
//   the mean of y and the centred y'y / n,
//   Sigma = Xs'Xs / n and rho = Xs'yc / n, with Xs the standardized columns of x
// (Hu, Grubb, Bagnell & Hebert 2016, section 2: "all feature dimensions and responses are normalized").
// x is read in place (an Eigen::Ref to R's memory); rows are centred in small chunks, so the
// cross-product is accurate even when column means are large compared with their spread.
#ifndef FGSEQ_COMMON_STATS_HPP
#define FGSEQ_COMMON_STATS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compiled.hpp"
#include "blas.hpp"
#include "deadline.hpp"
#include "sweep.hpp"
#include "threads.hpp"
#include "types.hpp"

namespace fgseq {

// Rows per block of the passes that sum over blocks of rows instead of making n-row buffers (the GLM
// null model's Newton passes, the Greedy Miser's starting loss): a time-out on many rows then answers
// without touching fresh n-row memory.
constexpr Index kRowBlock = 8192;

struct GramStats {
  Index n = 0;
  double weight_sum = 0.0;  // W = sum of the observation weights (n when unweighted)
  VectorXd mean;            // weighted column means of x (length p)
  VectorXd scale;           // weighted population sd of each column (1 for constant columns)
  std::vector<bool> constant;  // true for columns with zero variance
  VectorXd y_mean;          // weighted mean of each response column (length P)
  VectorXd yy;              // sum_i w_i (y_i - mean)^2 / W per response column (length P)
  MatrixXd sigma;           // Xs' D Xs / W, p x p, standardized columns (rows/cols of constant columns are 0)
  MatrixXd rho;             // Xs' D yc / W, p x P
  double yy_total() const { return yy.sum(); }
};

// What the checks before a fit need from a dense x: the first column (0-based) holding NA, NaN or Inf
// (-1 when every value is finite; the sweep stops at it) and the largest magnitude of each column (for
// the extreme-scale rule). scan_columns() reads them in a sweep of their own; the Gram engine's pass
// (centred_moments() with a ColumnScan) reads them from the blocks of rows it forms the cross-product
// of, so that x is read once. scan_columns(): `poll` runs between columns, once per 2^20 values read,
// while columns remain (an interrupt check, a clock; it may throw).
struct ColumnScan {
  Index nonfinite = -1;
  VectorXd max_abs;
  bool spent = false;  // set by scan_columns() in sequence/fit.hpp when max_time ran out: nothing else is set
};

// the largest magnitude of the n values at c, or -1 when one of them is NA, NaN or Inf
inline double column_max_abs(const double* c, Index n) {
  double m = 0.0;
  int finite = 1;
  for (Index i = 0; i < n; ++i) {
    const double a = std::abs(c[i]);
    finite &= a <= std::numeric_limits<double>::max();  // 0 for Inf and NaN
    m = a > m ? a : m;
  }
  return finite ? m : -1.0;
}

FGSEQ_API ColumnScan scan_columns(const Eigen::Ref<const MatrixXd>& x, const InterruptCheck& poll = InterruptCheck());
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API ColumnScan scan_columns(const Eigen::Ref<const MatrixXd>& x, const InterruptCheck& poll) {
  const Index n = x.rows(), p = x.cols();
  ColumnScan out;
  out.max_abs = VectorXd::Zero(p);
  Index unpolled = 0;
  for (Index j = 0; j < p; ++j) {
    if (unpolled >= (Index(1) << 20) && poll) {
      poll();
      unpolled = 0;
    }
    const double m = column_max_abs(x.col(j).data(), n);
    if (m < 0) {
      out.nonfinite = j;
      return out;
    }
    out.max_abs(j) = m;
    unpolled += n;
  }
  return out;
}
#endif

// One sweep over the columns of a block of rows b (rows x p, in place in x or a copy), each column read
// once from memory (sweep::columns(): its sum, products and magnitude in one read, the next column
// prefetched): returns the column sums; with `xy`, adds b' yb to it; with `scan`, keeps each column's
// largest magnitude in scan->max_abs (the running maximum) and sets scan->nonfinite to a column that
// holds NA, NaN or Inf, and stops there. A NaN or an infinity makes a column's sum NaN or infinite, so
// only a column whose sum is not finite is read value by value (its finite values may also overflow the
// sum). b is swept 64 columns at a time, so that a column holding NA stops the sweep soon after it.
FGSEQ_API VectorXd sweep_columns(const Eigen::Ref<const MatrixXd>& b, const Eigen::Ref<const MatrixXd>& yb,
                                 MatrixXd* xy, ColumnScan* scan);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API VectorXd sweep_columns(const Eigen::Ref<const MatrixXd>& b, const Eigen::Ref<const MatrixXd>& yb,
                                 MatrixXd* xy, ColumnScan* scan) {
  const Index p = b.cols(), P = xy ? yb.cols() : 0;
  VectorXd sum(p), max_abs(p);
  for (Index j0 = 0; j0 < p; j0 += 64) {
    const Index j1 = std::min(p, j0 + 64);
    sweep::columns(b.data(), b.outerStride(), b.rows(), j0, j1, yb.data(), yb.outerStride(), P, sum.data(),
                   xy ? xy->data() : nullptr, xy ? xy->outerStride() : 0, max_abs.data());
    if (!scan) continue;
    for (Index j = j0; j < j1; ++j) {
      if (!std::isfinite(sum(j)) && !b.col(j).allFinite()) {
        scan->nonfinite = j;
        return sum;
      }
      scan->max_abs(j) = std::max(scan->max_abs(j), max_abs(j));
    }
  }
  return sum;
}
#endif

// Rows per chunk: about 8 MB of x, and at least p rows. Each chunk also reads and writes the p x p
// cross-product (the BLAS's rank update, and merge_chunk()'s pass of the chunk's mean), so a chunk of
// fewer rows than columns would spend more on those than on its own rows.
inline Index chunk_rows(Index n, Index p) {
  Index rows = std::max<Index>(static_cast<Index>((1 << 20) / std::max<Index>(p, 1)), p);
  rows = std::max<Index>(rows, 64);
  return std::min(rows, n);
}

// Centred moments of one data set (or of several, merged): everything the Gaussian engine needs, in a
// form that adds across chunks of rows (Chan, Golub & LeVeque's pairwise update).
struct Moments {
  Index n = 0;               // rows
  double weight_sum = 0.0;   // W
  VectorXd mean;             // weighted column means of x (p)
  VectorXd y_mean;           // weighted means of y (P)
  MatrixXd xx;               // sum_i w_i (x_i - mean)(x_i - mean)', p x p
  MatrixXd xy;               // sum_i w_i (x_i - mean)(y_i - y_mean)', p x P
  VectorXd yy;               // sum_i w_i (y_i - y_mean)^2 (P)
};

// x: n x p; y: n x P responses (P may be 0 when only the statistics of x are needed);
// weights: n non-negative observation weights, or empty for all 1.
// The between-chunk part of the pairwise update: a chunk of weight Wc and means mc, yc, whose centred
// cross-products are already added to m, joins the Wr weight of rows merged before it. A chunk whose
// uncentred cross-product B'B was added to m.xx (`uncentred`) is centred here: m.xx (lower) -= Wc mc mc',
// in the same pass over the lower triangle as the between-chunk term.
FGSEQ_API void merge_chunk(Moments& m, double Wr, double Wc, const VectorXd& mc, const VectorXd& yc,
                           bool uncentred = false);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API void merge_chunk(Moments& m, double Wr, double Wc, const VectorXd& mc, const VectorXd& yc,
                           bool uncentred) {
  const Index p = mc.size();
  if (!(Wr > 0)) {
    if (uncentred) m.xx.selfadjointView<Eigen::Lower>().rankUpdate(mc, -Wc);
    m.mean = mc;
    m.y_mean = yc;
    return;
  }
  const double f = Wr * Wc / (Wr + Wc);
  const VectorXd d = mc - m.mean, dy = yc - m.y_mean;
  if (uncentred) {
    for (Index j = 0; j < p; ++j)
      m.xx.col(j).tail(p - j) += (f * d(j)) * d.tail(p - j) - (Wc * mc(j)) * mc.tail(p - j);
  } else {
    m.xx.selfadjointView<Eigen::Lower>().rankUpdate(d, f);
  }
  if (m.xy.cols() > 0) {
    m.xy.noalias() += f * d * dy.transpose();
    m.yy += f * dy.cwiseAbs2();
  }
  m.mean += d * (Wc / (Wr + Wc));
  m.y_mean += dy * (Wc / (Wr + Wc));
}
#endif

// True when every column's running mean is at most 10 running standard deviations from 0 (so that an
// uncentred cross-product loses at most about 2 digits); false when a column is constant.
inline bool moderate_means(const Moments& m, double Wr) {
  for (Index j = 0; j < m.mean.size(); ++j) {
    const double var = m.xx(j, j) / Wr;
    if (!(m.mean(j) * m.mean(j) <= 100.0 * var)) return false;
  }
  return true;
}

FGSEQ_API Moments merge_moments(const Moments& a, const Moments& b);

// Throws unless the parts of m fit together (p columns, P responses: mean p, xx p x p, xy p x P,
// y_mean and yy P) and the row count and total weight are positive: moments may come from a file, and
// every later step indexes by these sizes.
FGSEQ_API void check_moments(const Moments& m, const char* where);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API void check_moments(const Moments& m, const char* where) {
  const Index p = m.mean.size(), P = m.y_mean.size();
  const bool ok = m.xx.rows() == p && m.xx.cols() == p && m.xy.rows() == p && m.xy.cols() == P &&
                  m.yy.size() == P && m.n >= 1 && std::isfinite(m.weight_sum) && m.weight_sum > 0;
  if (!ok) throw std::invalid_argument(std::string(where) + ": the moments' sizes do not fit together");
}
#endif

// threads > 1: the rows are split into one contiguous range per thread, the moments of each range are
// formed separately and merged exactly (merge_moments); only the calling thread polls the interrupt check.
// scan: when given, the checks of the values of x (ColumnScan: each column's largest magnitude, a column
// holding NA, NaN or Inf) are read from the same blocks of rows as the moments, so that x is read once;
// the pass stops at a block holding NA, NaN or Inf, and the moments returned are then unusable.
FGSEQ_API Moments centred_moments(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y,
                                  const Eigen::Ref<const VectorXd>& weights,
                                  const InterruptCheck& check_interrupt = InterruptCheck(),
                                  const RankUpdate& rank_update = RankUpdate(), int threads = 1,
                                  ColumnScan* scan = nullptr);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Moments centred_moments(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y,
                                  const Eigen::Ref<const VectorXd>& weights,
                                  const InterruptCheck& check_interrupt,
                                  const RankUpdate& rank_update, int threads,
                                  ColumnScan* scan) {
  const Index n = x.rows(), p = x.cols(), P = y.cols();
  if (scan) {
    scan->nonfinite = -1;
    scan->max_abs = VectorXd::Zero(p);
  }
  threads = static_cast<int>(std::min<Index>(std::max(threads, 1), n / std::max<Index>(2 * chunk_rows(n, p), 1)));
  for (int t = 0; t < threads && weights.size() == n; ++t)  // every range needs a positive weight
    if (!(weights.segment(n * t / threads, n * (t + 1) / threads - n * t / threads).sum() > 0)) threads = 1;
  if (threads > 1) {
    if (y.rows() != n) throw std::invalid_argument("centred_moments: y must have one row per row of x");
    if (weights.size() > 0 && weights.size() != n)
      throw std::invalid_argument("centred_moments: one weight per row is needed");
    std::vector<Moments> part(static_cast<size_t>(threads));
    std::vector<ColumnScan> part_scan(static_cast<size_t>(threads));
    const SharedCheck shared(check_interrupt);
    parallel_ranges(threads, threads, [&](Index t0, Index t1) {
      shared.run([&] {
        for (Index t = t0; t < t1; ++t) {
          const Index b = n * t / threads, e = n * (t + 1) / threads;
          part[static_cast<size_t>(t)] = centred_moments(
              x.middleRows(b, e - b), y.middleRows(b, e - b),
              weights.size() ? Eigen::Ref<const VectorXd>(weights.segment(b, e - b)) : weights,
              shared.check(), rank_update, 1, scan ? &part_scan[static_cast<size_t>(t)] : nullptr);
        }
      });
    });
    for (const ColumnScan& s : part_scan) {
      if (!scan) break;
      if (s.nonfinite >= 0) {
        scan->nonfinite = s.nonfinite;
        return Moments();
      }
      scan->max_abs = scan->max_abs.cwiseMax(s.max_abs);
    }
    Moments m = std::move(part[0]);
    for (int t = 1; t < threads; ++t) m = merge_moments(m, part[static_cast<size_t>(t)]);
    return m;
  }
  if (y.rows() != n) throw std::invalid_argument("centred_moments: y must have one row per row of x");
  if (n < 1) throw std::invalid_argument("centred_moments: at least 1 row is needed");
  const bool weighted = weights.size() > 0;
  if (weighted && weights.size() != n) throw std::invalid_argument("centred_moments: one weight per row is needed");
  Moments m;
  m.n = n;
  m.weight_sum = weighted ? weights.sum() : static_cast<double>(n);
  if (!(m.weight_sum > 0)) throw std::invalid_argument("centred_moments: the weights must not all be zero");
  // One pass: each chunk of rows is centred at its own (weighted) means and its moments are merged
  // into the running ones by the pairwise update (exact: no cancellation of large column means).
  m.mean = VectorXd::Zero(p);
  m.y_mean = VectorXd::Zero(P);
  m.xx = MatrixXd::Zero(p, p);  // lower triangle filled by the rank updates
  m.xy = MatrixXd::Zero(p, P);
  m.yy = VectorXd::Zero(P);
  double Wr = 0.0;  // weight of the rows merged so far
  const Index step = chunk_rows(n, p);
  MatrixXd buf(step, p), ybuf(step, P);
  // gram (lower) += xb' xb
  auto cross = [&](const Eigen::Ref<const MatrixXd>& xb) {
    if (p == 0) return;  // no column (the null model's moments of y): no product over an empty x
    if (rank_update) rank_update(m.xx, xb);
    else m.xx.selfadjointView<Eigen::Lower>().rankUpdate(xb.transpose());
  };
  // adds a chunk's centred y'y (yb: its centred responses) and merges its means
  auto merge = [&](const Eigen::Ref<const MatrixXd>& yb, double Wc, const VectorXd& mc, const VectorXd& yc,
                   bool uncentred = false) {
    if (P > 0) m.yy += yb.colwise().squaredNorm().transpose();
    merge_chunk(m, Wr, Wc, mc, yc, uncentred);
    Wr += Wc;
  };
  for (Index start = 0; start < n; start += step) {
    // before every chunk, the first included: a clock already spent (max_time used up by the checks
    // before the pass) stops the pass before it reads any value of x
    if (check_interrupt) check_interrupt();
    const Index rows = std::min(step, n - start);
    auto b = buf.topRows(rows);
    auto yb = ybuf.topRows(rows);
    yb.noalias() = y.middleRows(start, rows);
    double Wc = static_cast<double>(rows);
    VectorXd mc, yc;
    if (!weighted && Wr > 0 && moderate_means(m, Wr)) {
      // every column's mean is within 10 sd of 0 (by the rows so far): the chunk's cross-product is
      // formed on x in place, B'B - rows mc mc', losing at most about 2 digits, and no copy is made.
      // One sweep of its columns gives their sums, x'y and the checks, and leaves the chunk in the
      // cache for the cross-product.
      const auto xb = x.middleRows(start, rows);
      yc = yb.colwise().sum().transpose() / Wc;
      yb.rowwise() -= yc.transpose();
      mc = sweep_columns(xb, yb, P > 0 ? &m.xy : nullptr, scan) / Wc;
      if (scan && scan->nonfinite >= 0) return m;
      cross(xb);
      merge(yb, Wc, mc, yc, true);
      continue;
    }
    b.noalias() = x.middleRows(start, rows);
    // the column sums give the unweighted means; a weighted chunk sweeps its columns only for the checks
    const VectorXd sums = (scan || !weighted) ? sweep_columns(b, yb, nullptr, scan) : VectorXd();
    if (scan && scan->nonfinite >= 0) return m;
    if (weighted) {
      const auto wc = weights.segment(start, rows);
      Wc = wc.sum();
      if (!(Wc > 0)) continue;  // rows of weight 0 add nothing
      mc.noalias() = b.transpose() * wc / Wc;
      yc.noalias() = yb.transpose() * wc / Wc;
    } else {
      mc = sums / Wc;
      yc = yb.colwise().sum().transpose() / Wc;
    }
    b.rowwise() -= mc.transpose();
    yb.rowwise() -= yc.transpose();
    if (weighted) {
      const VectorXd sw = weights.segment(start, rows).cwiseSqrt();
      b = sw.asDiagonal() * b;
      yb = sw.asDiagonal() * yb;
    }
    cross(b);
    if (P > 0) sweep_columns(b, yb, &m.xy, nullptr);
    merge(yb, Wc, mc, yc);
  }
  m.xx.triangularView<Eigen::StrictlyUpper>() = m.xx.transpose();
  return m;
}
#endif

// The moments of the union of two sets of rows (pairwise update: exact, no cancellation of large means).
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Moments merge_moments(const Moments& a, const Moments& b) {
  check_moments(a, "merge_moments");
  check_moments(b, "merge_moments");
  if (a.mean.size() != b.mean.size() || a.y_mean.size() != b.y_mean.size())
    throw std::invalid_argument("merge_moments: the two sets have different columns");
  Moments m;
  m.n = a.n + b.n;
  m.weight_sum = a.weight_sum + b.weight_sum;
  const double f = a.weight_sum * b.weight_sum / m.weight_sum;
  const VectorXd d = b.mean - a.mean, dy = b.y_mean - a.y_mean;
  m.mean = a.mean + d * (b.weight_sum / m.weight_sum);
  m.y_mean = a.y_mean + dy * (b.weight_sum / m.weight_sum);
  m.xx = a.xx + b.xx;
  m.xx.noalias() += f * d * d.transpose();
  m.xy = a.xy + b.xy;
  m.xy.noalias() += f * d * dy.transpose();
  m.yy = a.yy + b.yy + f * dy.cwiseAbs2();
  return m;
}
#endif

// Standardized statistics from centred moments (consumes them: the p x p matrix is reused in place).
FGSEQ_API GramStats standardize(Moments m);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API GramStats standardize(Moments m) {
  check_moments(m, "standardize");
  const Index p = m.mean.size();
  if (m.n < 2) throw std::invalid_argument("standardize: at least 2 rows are needed");
  GramStats st;
  st.n = m.n;
  st.weight_sum = m.weight_sum;
  const double W = m.weight_sum;
  st.mean = m.mean;
  st.y_mean = m.y_mean;
  st.yy = m.yy / W;
  st.scale.resize(p);
  st.constant.assign(static_cast<size_t>(p), false);
  for (Index j = 0; j < p; ++j) {
    const double sd = std::sqrt(std::max(m.xx(j, j), 0.0) / W);
    // zero variance, or variance at rounding level of the column's magnitude
    if (!(sd > 1e-13 * std::max(std::abs(st.mean(j)), 1e-300))) {
      st.constant[static_cast<size_t>(j)] = true;
      st.scale(j) = 1.0;
    } else {
      st.scale(j) = sd;
    }
  }
  const VectorXd inv = st.scale.cwiseInverse();
  // standardize in place: Sigma = D^-1 (X'X / W) D^-1, no second p x p matrix
  for (Index j = 0; j < p; ++j) m.xx.col(j) *= inv(j) / W;
  m.xx.array().colwise() *= inv.array();
  st.sigma = std::move(m.xx);
  st.rho = inv.asDiagonal() * m.xy / W;
  for (Index j = 0; j < p; ++j) {
    if (st.constant[static_cast<size_t>(j)]) {
      st.sigma.row(j).setZero();
      st.sigma.col(j).setZero();
      st.rho.row(j).setZero();
    }
  }
  return st;
}
#endif

FGSEQ_API GramStats gram_stats(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y,
                               const Eigen::Ref<const VectorXd>& weights,
                               const InterruptCheck& check_interrupt = InterruptCheck(),
                               const RankUpdate& rank_update = RankUpdate(), int threads = 1);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API GramStats gram_stats(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y,
                               const Eigen::Ref<const VectorXd>& weights,
                               const InterruptCheck& check_interrupt,
                               const RankUpdate& rank_update, int threads) {
  if (x.rows() < 2) throw std::invalid_argument("gram_stats: at least 2 rows are needed");
  return standardize(centred_moments(x, y, weights, check_interrupt, rank_update, threads));
}
#endif

}  // namespace fgseq

#endif
