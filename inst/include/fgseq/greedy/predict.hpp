// Anytime prediction of partially computed rows. A row may lack some values (NaN: the group was not
// computed before the deadline, the test is not back); the prediction at a requested step k uses the
// longest prefix of the sequence that the row has:
//
//   first(i) = min { column_step[j] : x(i, j) is not finite },  used(i, b) = min(requested(i, b), first(i) - 1),
//
// where column_step[j] is the step from which the model reads column j (the step of its group in the
// sequence; a step > K for a column it never reads). The linear predictor of row i at budget b is then
// a0(c, s) + sum_{j : column_step[j] <= s} x(i, j) beta_c(j, s) with s = used(i, b): one pass over the
// values of x, never a prediction at every step. Values of columns beyond the reached prefix are never
// read into a sum, so NaN there is harmless.
#ifndef FGSEQ_GREEDY_PREDICT_HPP
#define FGSEQ_GREEDY_PREDICT_HPP

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../common/deadline.hpp"
#include "../common/types.hpp"

namespace fgseq {

// The model of every step: intercepts a0 (P x (K + 1)) and coefficients on the original scale of x,
// coef (p x ((K + 1) P)): column c (K + 1) + s holds response c after step s.
struct StepCoefficients {
  StepCoefficients(const Eigen::Ref<const MatrixXd>& a0, const Eigen::Ref<const MatrixXd>& coef)
      : P(a0.rows()), S(a0.cols()), p(coef.rows()), a0_(a0), table_(static_cast<size_t>(coef.rows() * coef.cols())) {
    if (coef.cols() != P * S) throw std::invalid_argument("prefix_predict: coef must have (K + 1) P columns");
    // table_[(j S + s) P + c] = coef(j, c S + s): the P values of column j at step s side by side
    for (Index j = 0; j < coef.rows(); ++j)
      for (Index s = 0; s < S; ++s)
        for (Index c = 0; c < P; ++c) table_[static_cast<size_t>((j * S + s) * P + c)] = coef(j, c * S + s);
  }
  Index P, S, p;  // responses, steps (K + 1), columns of x (rows of coef)
  double a0(Index c, Index s) const { return a0_(c, s); }
  const double* column(Index j) const { return table_.data() + j * S * P; }

 private:
  MatrixXd a0_;
  std::vector<double> table_;
};

// What prefix_predict() returns: link (n x (m P), the P columns of budget b in columns b P .. b P + P - 1),
// step (n x m, the step used) and the number of infinite values met in the columns it scanned.
struct PrefixPrediction {
  MatrixXd link;
  Eigen::MatrixXi step;
  Index n_infinite = 0;
};

namespace detail {

// Checks shared by the dense and sparse versions; returns the largest requested step.
inline int check_prefix_args(Index n, Index p, const std::vector<int>& column_step,
                             const Eigen::Ref<const Eigen::MatrixXi>& requested, const StepCoefficients& cf) {
  if (static_cast<Index>(column_step.size()) != p)
    throw std::invalid_argument("prefix_predict: one column step per column of x is needed");
  if (cf.p != p) throw std::invalid_argument("prefix_predict: coef must have one row per column of x");
  if (requested.rows() != 1 && requested.rows() != n)
    throw std::invalid_argument("prefix_predict: requested steps need 1 or n rows");
  if (requested.size() && (requested.minCoeff() < 0 || requested.maxCoeff() >= cf.S))
    throw std::invalid_argument("prefix_predict: requested step out of range");
  return requested.size() ? requested.maxCoeff() : 0;
}

// The columns the requested steps can read, in order.
inline std::vector<Index> active_columns(const std::vector<int>& column_step, int max_step) {
  std::vector<Index> active;
  for (size_t j = 0; j < column_step.size(); ++j)
    if (column_step[j] >= 1 && column_step[j] <= max_step) active.push_back(static_cast<Index>(j));
  return active;
}

// The largest requested step and the columns it can read.
struct PrefixPlan {
  int max_step;
  std::vector<Index> active;
};

// Checks the arguments, sizes `out` (n rows, m requests of P responses) and plans the pass.
inline PrefixPlan prepare(Index n, Index p, const std::vector<int>& column_step,
                          const Eigen::Ref<const Eigen::MatrixXi>& requested, const StepCoefficients& cf,
                          PrefixPrediction& out) {
  const int max_step = check_prefix_args(n, p, column_step, requested, cf);
  out.link.resize(n, requested.cols() * cf.P);
  out.step.resize(n, requested.cols());
  return PrefixPlan{max_step, active_columns(column_step, max_step)};
}

// used(i, b) = min(requested, first(i) - 1) and the intercepts, for rows [i0, i1).
inline void start_rows(Index i0, Index i1, const std::vector<int>& first, const Eigen::Ref<const Eigen::MatrixXi>& requested,
                       const StepCoefficients& cf, PrefixPrediction& out) {
  const Index m = requested.cols(), P = cf.P;
  for (Index b = 0; b < m; ++b) {
    for (Index i = i0; i < i1; ++i) {
      const int want = requested.rows() == 1 ? requested(0, b) : requested(i, b);
      const int s = std::min(want, first[static_cast<size_t>(i - i0)] - 1);
      out.step(i, b) = s;
      for (Index c = 0; c < P; ++c) out.link(i, b * P + c) = cf.a0(c, s);
    }
  }
}

}  // namespace detail

// Dense x (n x p, NaN where a value was not computed). Rows are taken in blocks whose active columns
// fit in a core's cache (about 1 MB), so that the scan for missing values and the sums read each block
// of x once from memory. The sums go column by column, every budget of a column while it is in cache.
// A budget requested of every row (or whose rows in the block all use one step) adds an axpy per
// column at its step, as if every row reached it; the few rows that stopped short of it are then
// summed again, row by row, at their own step (their axpy sums, which may hold NaN, are overwritten).
inline PrefixPrediction prefix_predict(const Eigen::Ref<const MatrixXd>& x, const std::vector<int>& column_step,
                                       const Eigen::Ref<const Eigen::MatrixXi>& requested, const StepCoefficients& cf,
                                       const InterruptCheck& check_interrupt = InterruptCheck()) {
  using Segment = Eigen::Map<VectorXd>;
  using ConstSegment = Eigen::Map<const VectorXd>;
  const Index n = x.rows(), m = requested.cols(), P = cf.P;
  PrefixPrediction out;
  const detail::PrefixPlan plan = detail::prepare(n, x.cols(), column_step, requested, cf, out);
  const int max_step = plan.max_step;
  const std::vector<Index>& active = plan.active;
  const Index block = std::min<Index>(2048, std::max<Index>(64, (Index(1) << 17) / std::max<Index>(1, active.size())));
  std::vector<int> first(static_cast<size_t>(block));
  std::vector<int> target(static_cast<size_t>(m));  // the step budget b adds by axpy in the block, or -1
  std::vector<Index> short_rows;
  Index done = 0;
  for (Index i0 = 0; i0 < n; i0 += block) {
    const Index i1 = std::min(n, i0 + block), len = i1 - i0;
    if (check_interrupt && (done += len * static_cast<Index>(active.size() + 1)) >= (Index(1) << 24)) {
      check_interrupt();
      done = 0;
    }
    std::fill(first.begin(), first.begin() + len, max_step + 1);
    for (Index j : active) {
      const double* xj = x.col(j).data() + i0;
      const int cs = column_step[static_cast<size_t>(j)];
      for (Index i = 0; i < len; ++i) {
        if (!std::isfinite(xj[i])) {
          if (std::isinf(xj[i])) ++out.n_infinite;
          first[static_cast<size_t>(i)] = std::min(first[static_cast<size_t>(i)], cs);
        }
      }
    }
    detail::start_rows(i0, i1, first, requested, cf, out);
    for (Index b = 0; b < m; ++b) {
      const int* used = out.step.col(b).data() + i0;
      const bool uniform = std::all_of(used, used + len, [&](int s) { return s == used[0]; });
      target[static_cast<size_t>(b)] = uniform ? used[0] : requested.rows() == 1 ? requested(0, b) : -1;
    }
    for (Index j : active) {
      const int cs = column_step[static_cast<size_t>(j)];
      const ConstSegment xj(x.col(j).data() + i0, len);
      const double* tj = cf.column(j);
      for (Index b = 0; b < m; ++b) {
        const int s = target[static_cast<size_t>(b)];
        if (s >= 0 && cs > s) continue;
        for (Index c = 0; c < P; ++c) {
          double* eta = out.link.col(b * P + c).data() + i0;
          if (s >= 0) {
            Segment(eta, len) += tj[s * P + c] * xj;
          } else {
            const int* used = out.step.col(b).data() + i0;
            for (Index i = 0; i < len; ++i)
              if (cs <= used[i]) eta[i] += xj[i] * tj[used[i] * P + c];
          }
        }
      }
    }
    for (Index b = 0; b < m; ++b) {  // the rows short of the step added by axpy, at their own step
      const int s = target[static_cast<size_t>(b)];
      if (s < 0) continue;
      short_rows.clear();
      for (Index i = i0; i < i1; ++i)
        if (out.step(i, b) != s) short_rows.push_back(i);
      for (Index i : short_rows) {
        const int own = out.step(i, b);
        for (Index c = 0; c < P; ++c) {
          double eta = cf.a0(c, own);
          for (Index j : active)
            if (column_step[static_cast<size_t>(j)] <= own) eta += x(i, j) * cf.column(j)[own * P + c];
          out.link(i, b * P + c) = eta;
        }
      }
    }
  }
  return out;
}

// Sparse x (compressed columns; a stored NaN is a value not computed, an unstored entry is 0).
inline PrefixPrediction prefix_predict(const Eigen::Map<const Eigen::SparseMatrix<double>>& x,
                                       const std::vector<int>& column_step,
                                       const Eigen::Ref<const Eigen::MatrixXi>& requested, const StepCoefficients& cf,
                                       const InterruptCheck& check_interrupt = InterruptCheck()) {
  using It = Eigen::Map<const Eigen::SparseMatrix<double>>::InnerIterator;
  const Index n = x.rows(), m = requested.cols(), P = cf.P;
  PrefixPrediction out;
  const detail::PrefixPlan plan = detail::prepare(n, x.cols(), column_step, requested, cf, out);
  const int max_step = plan.max_step;
  const std::vector<Index>& active = plan.active;
  std::vector<int> first(static_cast<size_t>(n), max_step + 1);
  for (Index j : active) {
    const int cs = column_step[static_cast<size_t>(j)];
    for (It it(x, j); it; ++it) {
      if (!std::isfinite(it.value())) {
        if (std::isinf(it.value())) ++out.n_infinite;
        first[static_cast<size_t>(it.row())] = std::min(first[static_cast<size_t>(it.row())], cs);
      }
    }
  }
  detail::start_rows(0, n, first, requested, cf, out);
  for (Index j : active) {
    if (check_interrupt) check_interrupt();
    const int cs = column_step[static_cast<size_t>(j)];
    const double* tj = cf.column(j);
    for (It it(x, j); it; ++it) {
      const Index i = it.row();
      for (Index b = 0; b < m; ++b) {
        const int s = out.step(i, b);
        if (cs > s) continue;
        for (Index c = 0; c < P; ++c) out.link(i, b * P + c) += it.value() * tj[s * P + c];
      }
    }
  }
  return out;
}

// For each row, the first step whose columns it lacks (a value that is not finite), or max_step + 1
// when it has every column read up to max_step (the Greedy Miser's prefix of trees: column_step[j] is
// the first iteration whose trees split on column j).
inline std::vector<int> first_missing_step(const Eigen::Ref<const MatrixXd>& x, const std::vector<int>& column_step,
                                           int max_step) {
  if (static_cast<Index>(column_step.size()) != x.cols())
    throw std::invalid_argument("first_missing_step: one column step per column of x is needed");
  std::vector<int> first(static_cast<size_t>(x.rows()), max_step + 1);
  for (Index j : detail::active_columns(column_step, max_step)) {
    const int cs = column_step[static_cast<size_t>(j)];
    const double* xj = x.col(j).data();
    for (Index i = 0; i < x.rows(); ++i)
      if (!std::isfinite(xj[i])) first[static_cast<size_t>(i)] = std::min(first[static_cast<size_t>(i)], cs);
  }
  return first;
}

// The number of values that are not finite (NA, NaN, Inf) in the given columns (0-based) of x: the
// check of the columns a prediction does not read (prefix_predict() counts in those it reads).
inline Index count_nonfinite(const Eigen::Ref<const MatrixXd>& x, const std::vector<Index>& columns) {
  Index count = 0;
  for (Index j : columns) {
    if (j < 0 || j >= x.cols()) throw std::invalid_argument("count_nonfinite: column out of range");
    const double* xj = x.col(j).data();
    for (Index i = 0; i < x.rows(); ++i) count += !std::isfinite(xj[i]);
  }
  return count;
}

inline Index count_nonfinite(const Eigen::Map<const Eigen::SparseMatrix<double>>& x, const std::vector<Index>& columns) {
  Index count = 0;
  for (Index j : columns) {
    if (j < 0 || j >= x.cols()) throw std::invalid_argument("count_nonfinite: column out of range");
    for (Eigen::Map<const Eigen::SparseMatrix<double>>::InnerIterator it(x, j); it; ++it) count += !std::isfinite(it.value());
  }
  return count;
}

}  // namespace fgseq

#endif
