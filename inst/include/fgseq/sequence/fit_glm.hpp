// The whole fits of the GLM families (binomial, Poisson, multinomial): over the rows in memory
// (glm_fit(), GlmModel), the null model when the fit's clock is spent before its pass over x
// (null_glm()), and the path whose refits run elsewhere (fit_glm_refit(), GlmRefitModel: the fits from
// chunks of rows). fit_path() and null_fit() of fit.hpp call the first two (declared in path.hpp).
// Included at the end of fit.hpp (header-only), or, with FGSEQ_COMPILED, by the one translation unit
// that defines FGSEQ_DEFINE_GLM and so the first two (common/compiled.hpp).
#ifndef FGSEQ_SEQUENCE_FIT_GLM_HPP
#define FGSEQ_SEQUENCE_FIT_GLM_HPP

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "../glm/model.hpp"
#include "../glm/refit.hpp"
#include "path.hpp"

namespace fgseq {
namespace detail {

// The GLM families' null model (see null_model() in fit.hpp): the intercepts come from the Newton
// solver of fits from chunks (sums_refitter()), over blocks of kRowBlock rows: every Newton point is
// one pass over the rows with block-sized buffers, so a time-out on many rows answers without making
// n-row copies.
#ifdef FGSEQ_DEFINE_GLM
FGSEQ_API FitResult null_glm(Index p, const Eigen::Ref<const MatrixXd>& y, const VectorXd& w,
                             const MatrixXd& offset, Family family, const GroupLayout& lay,
                             const Measurements& cost, const Control& ctl, const Services& svc) {
  const Index n = y.rows(), P = y.cols();
  const FamilyOps fam{family};
  GramStats st;
  st.n = n;
  st.weight_sum = w.size() ? w.sum() : static_cast<double>(n);
  const Whitened wh = no_columns(st, p, lay);
  const std::vector<int> outer(static_cast<size_t>(p) + 1, 0);
  const int no_index = 0;
  const double no_value = 0.0;
  const GlmSumsSource sums = [&](const std::vector<Index>&, const MatrixXd& theta) {
    GlmSums total;
    for (Index b = 0; b < n; b += kRowBlock) {
      const Index m = std::min(kRowBlock, n - b);
      const SparseDesign none(SparseMap(m, p, 0, outer.data(), &no_index, &no_value));  // m x p, no stored value
      const MatrixXd yb = y.middleRows(b, m);
      const VectorXd wb = w.size() ? VectorXd(w.segment(b, m)) : VectorXd::Ones(m);
      const MatrixXd ob = offset.size() ? MatrixXd(offset.middleRows(b, m)) : MatrixXd();
      GlmSums part = glm_chunk_sums(none, yb, wb, ob, family, st, SelectedColumns(), theta);
      if (b == 0) total = std::move(part);
      else total += part;
    }
    return total;
  };
  VectorXd ybar = VectorXd::Zero(P);  // the start: the link of the weighted mean response
  for (Index i = 0; i < n; ++i) ybar += (w.size() ? w(i) : 1.0) * y.row(i).transpose();
  Control spent = ctl;
  spent.max_time = 0.0;
  spent.method = Method::OMP;  // nothing is selected: a method that scores gradients, needing no gains
  GlmRefitModel model(wh, st, lay, st.weight_sum, fam.null_intercepts(ybar / st.weight_sum),
                      sums_refitter(sums, st.weight_sum, spent), spent);
  FitResult out = run_path(model, cost, spent, Deadline(0.0), svc);  // a clock already spent: no step
  out.path.partial = true;
  return out;
}

// A GLM fit (binomial, Poisson, multinomial). Its pass over the groups (column statistics and diagonal
// blocks) polls the fit's clock between groups; when max_time is spent there, no group is whitened and
// the fit is the null model, marked partial (null_glm()).
FGSEQ_API FitResult glm_fit(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
                            Family family, const GroupLayout& lay, const Measurements& cost,
                            const Control& ctl, const Deadline& deadline, const Services& svc) {
  BlockStats bs;
  Whitened wh;
  try {
    bs = block_stats(x, MatrixXd(x.rows(), 0), w, lay, ctl.threads, timed_poll(svc, deadline));
    wh = whiten_block_stats(bs, ctl.rank_tol);
  } catch (const TimeUp&) {
    return null_glm(x.cols(), y, w, offset, family, lay, cost, ctl, svc);
  }
  GlmModel model(x, y, w, offset, family, wh, bs.st, lay, ctl, Blas{svc.rank_update, svc.cholesky, svc.lower_solve, svc.cross_update});
  return run_path(model, cost, ctl, deadline, svc);
}
#endif  // FGSEQ_DEFINE_GLM
}  // namespace detail

// The path of a GLM whose refits run elsewhere (GlmRefitModel): CS-G-OMP, or CS-G-FR and Doubling with
// the quadratic gain from `gains`; from the column statistics and the whitening of the whole data (wh:
// T, rank and offset), the total weight, the null model's starting intercepts null_theta (1 x P) and
// the refit. max_time counts from the call.
inline FitResult fit_glm_refit(const Whitened& wh, const GramStats& st, const GroupLayout& lay, double weight_sum,
                               const MatrixXd& null_theta, const GlmRefitter& refit,
                               const Measurements& cost, const Control& ctl,
                               const Services& svc = Services(), const GlmGainSource& gains = GlmGainSource()) {
  if (st.mean.size() != lay.p || st.scale.size() != lay.p || static_cast<Index>(st.constant.size()) != lay.p)
    throw std::invalid_argument("fit_glm_refit: one mean, scale and constant flag per column is needed");
  const Deadline deadline(ctl.max_time);  // the fit's one clock, from its call
  GlmRefitModel model(wh, st, lay, weight_sum, null_theta, refit, ctl, gains);
  return detail::run_path(model, cost, ctl, deadline, svc);
}

}  // namespace fgseq

#endif
