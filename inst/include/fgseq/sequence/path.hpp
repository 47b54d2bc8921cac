// What every whole fit of a sequence shares (fit.hpp, fit_glm.hpp): its result (FitResult), the
// Services the glue gives a fit, the poll of its passes, the greedy path of a model on the original
// scale of x, the null model's whitening, and the declarations of the GLM fits that fit_path() calls.
#ifndef FGSEQ_SEQUENCE_PATH_HPP
#define FGSEQ_SEQUENCE_PATH_HPP

#include <vector>

#include "../common/blas.hpp"
#include "../common/compiled.hpp"
#include "../common/deadline.hpp"
#include "../common/design.hpp"
#include "../common/family.hpp"
#include "../common/measurements.hpp"
#include "../common/stats.hpp"
#include "../common/whiten.hpp"
#include "../greedy/engine.hpp"
#include "../greedy/model.hpp"

// The GLM fits of fit_glm.hpp are header-only like the rest of the core (inline; fit.hpp includes
// fit_glm.hpp at its end) unless FGSEQ_COMPILED is defined (common/compiled.hpp): then the two that
// fit_path() calls are only declared here, and the one translation unit that defines FGSEQ_DEFINE_GLM
// and includes fit_glm.hpp defines them (the R package's src/glm.cpp), so that a unit that fits no GLM
// does not compile the GLM models: their headers cost about 20 s of the compiler's front end and their
// code about 30 s of code generation (g++ 12, -O2).

namespace fgseq {

struct FitResult {
  Path path;
  std::vector<SparseMatrixXd> beta;  // one sparse p x (K+1) matrix per response column, original scale
  MatrixXd a0;                  // P x (K+1) intercepts
  std::vector<bool> constant;   // per column
  std::vector<Index> rank;      // per group, after whitening
  double null_risk = 0.0;       // R(empty)
  bool converged = true;        // every Newton solve converged (GLM families)
  bool diverged = false;        // a Newton solve converged toward an optimum at infinity (NewtonSolution)
  // ctl.check_values: what the pass over x read for the checks (max_abs empty when max_time ran out in
  // it); `stopped` when it found NA, NaN or Inf (scan.nonfinite) or an extreme column: nothing else is set
  ColumnScan scan;
  bool stopped = false;
};

// Services a fit may use: R's interrupt check, a BLAS rank update, a progress bar. The fit's clock is not
// one of them: each fit starts one Deadline at its call (from ctl.max_time) and passes it down, and the
// poll of a long pass is timed_poll(svc, deadline), the interrupt check then the clock.
struct Services {
  InterruptCheck check_interrupt;  // R's interrupt check only (may throw); never the clock
  RankUpdate rank_update;
  CholeskyInPlace cholesky;
  LowerSolve lower_solve;
  CrossUpdate cross_update;
  ProgressCallback progress;
};

namespace detail {
// The poll of a fit's passes before its path (the Gram engine's pass over x between chunks of rows, the
// sample-space engine's and the GLM's pass over the groups): R's interrupt check, then TimeUp once the
// fit's deadline has passed; the fit is then the null model, marked partial (null_model()).
inline Poll timed_poll(const Services& svc, const Deadline& deadline) { return deadline.poll(svc.check_interrupt); }

// The greedy path of a model, on the original scale of x.
inline FitResult run_path(GroupModel& model, const Measurements& cost, const Control& ctl, const Deadline& deadline,
                          const Services& svc) {
  FitResult out;
  out.path = greedy_path(model, cost, ctl, deadline, svc.check_interrupt, svc.progress);  // the fit's clock
  out.converged = model.converged();
  out.diverged = model.diverged();
  out.null_risk = model.null_risk();
  original_scale(out.path, model.whitening(), model.stats(), model.layout(), out.beta, out.a0);
  out.constant = model.stats().constant;
  out.rank = model.whitening().rank;
  return out;
}

// The fit when max_time is spent before the statistics of x are complete (in the checks of x before
// the fit, in the linear engines' pass over x or over chunks of rows, in the GLM pass over the
// groups): the null model, its path empty and marked partial. No column of x is read: st holds the
// moments of y alone (n, weight_sum, and for the Gaussian families y_mean and yy); the p columns get
// mean 0 and scale 1, none is constant, every group has rank 0 and every coefficient is 0.
inline Whitened no_columns(GramStats& st, Index p, const GroupLayout& lay) {
  st.mean = VectorXd::Zero(p);
  st.scale = VectorXd::Ones(p);
  st.constant.assign(static_cast<size_t>(p), false);
  std::vector<MatrixXd> maps;
  for (const auto& cols : lay.cols) maps.emplace_back(static_cast<Index>(cols.size()), 0);
  Whitened wh = whitening_from_maps(maps);
  wh.S = std::move(maps);
  wh.C.resize(0, 0);
  wh.rho.resize(0, st.y_mean.size());
  return wh;
}

// The GLM families' null model (see null_model()) and a GLM fit (binomial, Poisson, multinomial):
// fit_glm.hpp.
FGSEQ_API FitResult null_glm(Index p, const Eigen::Ref<const MatrixXd>& y, const VectorXd& w,
                             const MatrixXd& offset, Family family, const GroupLayout& lay,
                             const Measurements& cost, const Control& ctl, const Services& svc);
FGSEQ_API FitResult glm_fit(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
                            Family family, const GroupLayout& lay, const Measurements& cost,
                            const Control& ctl, const Deadline& deadline, const Services& svc);

}  // namespace detail
}  // namespace fgseq

#endif
