// A whole fit of a sequence end to end: statistics, whitening, the model (linear/ or glm/), the greedy
// path (greedy/), coefficients on the original scale. The room above the models and the selection loop
// it puts together: no header of theirs includes it. What every fit shares (FitResult, Services, the
// path on the original scale) is in path.hpp; the GLM fits (glm_fit(), the GLM's null model,
// fit_glm_refit()) in fit_glm.hpp, which this header includes at its end unless FGSEQ_COMPILED is
// defined (see common/compiled.hpp and path.hpp).
#ifndef FGSEQ_SEQUENCE_FIT_HPP
#define FGSEQ_SEQUENCE_FIT_HPP

#include <chrono>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../common/blas.hpp"
#include "../common/deadline.hpp"
#include "../common/design.hpp"
#include "../common/family.hpp"
#include "../common/measurements.hpp"
#include "../common/stats.hpp"
#include "../common/whiten.hpp"
#include "../greedy/engine.hpp"
#include "../greedy/model.hpp"
#include "../linear/gram.hpp"
#include "../linear/sample.hpp"
#include "path.hpp"

namespace fgseq {

namespace detail {
// The responses of a least-squares family less the offset, kept in `store`; without an offset, y itself
// (not copied: an n x P copy of a tall y is a pass over fresh memory).
inline Eigen::Ref<const MatrixXd> less_offset(const Eigen::Ref<const MatrixXd>& y, const MatrixXd& offset,
                                              MatrixXd& store) {
  if (!offset.size()) return y;
  store = y - offset;
  return store;
}

// The Gaussian families' null model from the moments of y (see no_columns()).
inline FitResult null_gram(GramStats st, Index p, const GroupLayout& lay, const Measurements& cost,
                           const Control& ctl, const Services& svc) {
  const Whitened wh = no_columns(st, p, lay);
  Control spent = ctl;
  spent.max_time = 0.0;
  GramModel model(wh, st, lay, spent);
  FitResult out = run_path(model, cost, spent, Deadline(0.0), svc);  // a clock already spent: no step
  out.path.partial = true;
  return out;
}

// The null model from the rows of y (n x P, less the offset for the Gaussian families), the weights w
// (empty: 1 each) and the offset; x contributes its column count p only (the GLM families' in
// null_glm(), fit_glm.hpp).
inline FitResult null_model(Index p, const Eigen::Ref<const MatrixXd>& y, const VectorXd& w, const MatrixXd& offset,
                            Family family, const GroupLayout& lay, const Measurements& cost, const Control& ctl,
                            const Services& svc) {
  if (FamilyOps{family}.least_squares())
    return null_gram(standardize(centred_moments(MatrixXd(y.rows(), 0), y, w)), p, lay, cost, ctl, svc);
  return null_glm(p, y, w, offset, family, lay, cost, ctl, svc);
}

// Whether the values the pass over x read stop the fit (Control::check_values): NA, NaN or Inf, or a
// column whose largest magnitude is outside [plain_min, plain_max] and not 0.
inline bool refused(const ColumnScan& scan, const Control& ctl) {
  if (scan.nonfinite >= 0) return true;
  for (Index j = 0; j < scan.max_abs.size(); ++j) {
    const double a = scan.max_abs(j);
    if (a > ctl.plain_max || (a > 0 && a < ctl.plain_min)) return true;
  }
  return false;
}

// The fit stopped by the values its pass over x read (refused()): the scan alone.
inline FitResult stopped_by(ColumnScan scan) {
  FitResult out;
  out.scan = std::move(scan);
  out.stopped = true;
  return out;
}

// The linear engine on standardized statistics (gaussian and mgaussian).
inline FitResult fit_gram(const GramStats& st, const GroupLayout& lay, const Measurements& cost,
                          const Control& ctl, const Deadline& deadline, const Services& svc) {
  const Whitened wh = whiten(st, lay, ctl.lambda, ctl.rank_tol);
  GramModel model(wh, st, lay, ctl);
  return run_path(model, cost, ctl, deadline, svc);
}

// The linear engine in sample space (gaussian and mgaussian, wide data): no p x p matrix. The fit's
// clock is polled before each group of the statistics pass and before each of the model's n-row
// buffers; max_time spent there gives the null model, marked partial. A dense x with ctl.check_values
// is checked in the statistics pass (block_stats()), which reads each group's columns once, as
// fit_path() checks it in the Gram engine's pass.
inline FitResult fit_sample(const Design& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights,
                            const GroupLayout& lay, const Measurements& cost, const Control& ctl,
                            const Deadline& deadline, const Services& svc) {
  BlockStats bs;
  Whitened wh;
  std::optional<SampleModel> model;
  const Poll poll = timed_poll(svc, deadline);
  ColumnScan scan;
  const bool check = ctl.check_values && !x.is_sparse();
  try {
    bs = block_stats(x, y, weights, lay, ctl.threads, poll, check ? &scan : nullptr);
    if (check && refused(scan, ctl)) return stopped_by(std::move(scan));
    wh = whiten_block_stats(bs, ctl.rank_tol);
    model.emplace(x, y, weights, bs.st, wh, lay, ctl, ctl.threads, poll);
  } catch (const TimeUp&) {  // before the model's buffers were made: the null model
    return null_model(x.cols(), y, weights, MatrixXd(), Family::Gaussian, lay, cost, ctl, svc);
  }
  FitResult out = run_path(*model, cost, ctl, deadline, svc);
  out.scan = std::move(scan);
  return out;
}

}  // namespace detail

// x: n x p, dense or sparse (see common/design.hpp); y: n x P (Gaussian, multi-response Gaussian: the
// responses; binomial: one 0/1 column; Poisson: one column of counts; multinomial: one indicator
// column per class); cost: the measurements each group needs and their costs (common/measurements.hpp; a
// vector of one cost per group makes each group its own measurement); weights: n (or empty); offset:
// n x P (or empty). ctl.engine picks the linear engine (Gram or sample space); the GLM families need
// only the diagonal blocks of the Gram matrix.
inline FitResult fit_path(const Design& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights,
                          const MatrixXd& offset,
                          const std::vector<int>& group_of, int n_groups, const Measurements& cost,
                          Family family, const Control& ctl, const Services& svc = Services()) {
  if (static_cast<Index>(group_of.size()) != x.cols())
    throw std::invalid_argument("fit_path: one group per column of x is needed");
  if (y.rows() != x.rows() || (weights.size() && weights.size() != x.rows()) ||
      (offset.size() && (offset.rows() != x.rows() || offset.cols() != y.cols())))
    throw std::invalid_argument("fit_path: y, weights and offset need one row per row of x");
  const Deadline deadline(ctl.max_time);  // the fit's one clock, from its call
  const GroupLayout lay = make_layout(group_of, n_groups);
  if (FamilyOps{family}.least_squares()) {
    MatrixXd store;
    const Eigen::Ref<const MatrixXd> yc = detail::less_offset(y, offset, store);
    if (ctl.engine == Engine::Sample) return detail::fit_sample(x, yc, weights, lay, cost, ctl, deadline, svc);
    GramStats st;
    if (x.is_sparse()) {
      st = sparse_gram_stats(static_cast<const SparseDesign&>(x).matrix(), yc, weights);
    } else {
      // with an injected BLAS rank update the BLAS brings its own threads
      const int threads = svc.rank_update ? 1 : ctl.threads;
      ColumnScan scan;
      try {
        if (x.rows() < 2) throw std::invalid_argument("gram_stats: at least 2 rows are needed");
        Moments m = centred_moments(static_cast<const DenseDesign&>(x).matrix(), yc, weights,
                                    detail::timed_poll(svc, deadline), svc.rank_update, threads,
                                    ctl.check_values ? &scan : nullptr);
        if (ctl.check_values && detail::refused(scan, ctl)) return detail::stopped_by(std::move(scan));
        st = standardize(std::move(m));
      } catch (const TimeUp&) {
        return detail::null_model(x.cols(), yc, weights, offset, family, lay, cost, ctl, svc);
      }
      FitResult out = detail::fit_gram(st, lay, cost, ctl, deadline, svc);
      out.scan = std::move(scan);
      return out;
    }
    return detail::fit_gram(st, lay, cost, ctl, deadline, svc);
  }
  const Index n = x.rows();
  const MatrixXd yg = y, off = offset.size() ? offset : MatrixXd::Zero(n, y.cols());  // the model keeps references
  const VectorXd w = weights.size() ? weights : VectorXd::Ones(n);
  return detail::glm_fit(x, yg, w, off, family, lay, cost, ctl, deadline, svc);
}

// The fit when max_time is spent in the checks of x before fit_path() could start (see
// detail::null_model()): the null model of y, weights and offset (the arguments of fit_path(), x
// replaced by its column count p), marked partial. x is not read.
inline FitResult null_fit(Index p, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights, const MatrixXd& offset,
                          const std::vector<int>& group_of, int n_groups, const Measurements& cost, Family family,
                          const Control& ctl, const Services& svc = Services()) {
  if (static_cast<Index>(group_of.size()) != p) throw std::invalid_argument("null_fit: one group per column is needed");
  const Index n = y.rows();
  if ((weights.size() && weights.size() != n) || (offset.size() && (offset.rows() != n || offset.cols() != y.cols())))
    throw std::invalid_argument("null_fit: weights and offset need one row per row of y");
  const GroupLayout lay = make_layout(group_of, n_groups);
  MatrixXd store;  // the Gaussian families' null model reads y less the offset
  const Eigen::Ref<const MatrixXd> yn = FamilyOps{family}.least_squares() ? detail::less_offset(y, offset, store) : y;
  return detail::null_model(p, yn, weights, offset, family, lay, cost, ctl, svc);
}

// The sweep of the checks over a dense x (scan_columns() in common/stats.hpp) on a fit's clock: with max_time
// seconds left, polled between columns (the interrupt check, then the clock); when the time runs out
// only `spent` is set, and the fit is null_fit().
inline ColumnScan scan_columns(const Eigen::Ref<const MatrixXd>& x, double max_time, const Services& svc = Services()) {
  try {
    return scan_columns(x, detail::timed_poll(svc, Deadline(max_time)));
  } catch (const TimeUp&) {
    ColumnScan out;
    out.spent = true;
    return out;
  }
}

// Dense x read in place.
inline FitResult fit_path(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y, const VectorXd& weights,
                          const MatrixXd& offset, const std::vector<int>& group_of, int n_groups,
                          const Measurements& cost, Family family, const Control& ctl,
                          const Services& svc = Services()) {
  return fit_path(DenseDesign(x), y, weights, offset, group_of, n_groups, cost, family, ctl, svc);
}

// The linear fit from centred moments (of one data set, or merged from chunks of rows): the same path
// as fit_path() on the rows themselves, without them.
inline FitResult fit_moments(const Moments& m, const std::vector<int>& group_of, int n_groups,
                             const Measurements& cost, const Control& ctl,
                             const Services& svc = Services()) {
  if (static_cast<Index>(group_of.size()) != m.mean.size())
    throw std::invalid_argument("fit_moments: one group per column is needed");
  const Deadline deadline(ctl.max_time);  // the fit's one clock, from its call
  const GroupLayout lay = make_layout(group_of, n_groups);
  return detail::fit_gram(standardize(m), lay, cost, ctl, deadline, svc);
}

// The fit when max_time was spent in the pass over chunks of rows before the moments of x were
// complete: the null model from the moments of y alone (m of 0 columns: n, weight_sum, y_mean, yy;
// see detail::null_model()) for the p columns of group_of, marked partial.
inline FitResult null_fit(const Moments& m, const std::vector<int>& group_of, int n_groups, const Measurements& cost,
                          const Control& ctl, const Services& svc = Services()) {
  if (m.mean.size() != 0) throw std::invalid_argument("null_fit: the moments of y alone (0 columns) are needed");
  const GroupLayout lay = make_layout(group_of, n_groups);
  return detail::null_gram(standardize(m), static_cast<Index>(group_of.size()), lay, cost, ctl, svc);
}

}  // namespace fgseq

#ifndef FGSEQ_COMPILED
#include "fit_glm.hpp"
#endif

#endif
