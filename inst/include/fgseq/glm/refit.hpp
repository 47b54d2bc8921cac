// The GLM whose refits run elsewhere (the chunked fits): GlmRefitModel over a GlmRefitter, and the
// refitter that solves over sums from chunks of rows (sums_refitter()).
#ifndef FGSEQ_GLM_REFIT_HPP
#define FGSEQ_GLM_REFIT_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "model.hpp"

namespace fgseq {

// ---- a GLM whose refits run elsewhere ----

// What the selection needs of one fit: the solution and, at it, the sums that score every column.
struct GlmRefit {
  MatrixXd theta;          // (m + 1) x P: intercepts in row 0, then the selected groups' whitened coefficients
  double risk = 0.0;       // penalized risk
  double deviance = 0.0;
  MatrixXd xr;             // x' diag(w) (y - mu), p x P
  VectorXd rsum;           // 1' diag(w) (y - mu), P
  bool converged = true;
  bool diverging = false;  // see NewtonSolution
};

// Where a refit starts: at theta ((m + 1) x P) or, when fallback is not empty and the penalized risk
// at theta is not below `below` (a quadratic FR step that does not descend), at fallback.
struct RefitStart {
  MatrixXd theta, fallback;
  double below = std::numeric_limits<double>::infinity();
};

// The penalized fit over `groups` (selection order) from start; an empty list is the null model. The
// chunked fits run it as a Newton solve over sums from chunks of rows (sums_refitter()). poll: the
// path's interrupt check and clock, to be called within the refit (may throw TimeUp; empty for the
// null model).
using GlmRefitter =
    std::function<GlmRefit(const std::vector<Index>& groups, const RefitStart& start, const Poll& poll)>;

// The sums over all rows of a fit over `groups` (selection order) at theta ((m + 1) x P): the
// glm_chunk_sums() of every chunk of rows, added. The chunked fits of the R package pass over their
// chunks once per call.
using GlmSumsSource = std::function<GlmSums(const std::vector<Index>& groups, const MatrixXd& theta)>;

// The sums over all rows of the quadratic gains' pass (gain_sums(), not divided by the total weight) at
// theta over `groups`, for the candidate groups `candidates` (in group order; their columns follow the
// selected ones', layout gl): the glm_chunk_gains() of every chunk, added.
using GlmGainSource = std::function<GainSums(const std::vector<Index>& groups, const std::vector<Index>& candidates,
                                             const MatrixXd& theta, const GainLayout& gl)>;

// The refit as newton_solve() over the sums of `sums` (one call per point the solver evaluates), of
// total weight weight_sum, polled before every Newton iteration; the refit's xr, rsum and deviance are
// those of the solution. The solve takes its last, converging step without a pass over the chunks
// (NewtonControl::take_last_step): the xr, rsum, risk and deviance are then those of the point before
// it, which differ by about the step's Newton decrement (below the Newton tolerance).
inline GlmRefitter sums_refitter(GlmSumsSource sums, double weight_sum, const Control& ctl) {
  return [sums = std::move(sums), weight_sum, ctl](const std::vector<Index>& groups, const RefitStart& start,
                                                   const Poll& poll) {
    const Index m1 = start.theta.rows(), P = start.theta.cols();
    std::vector<GlmSums> seen;  // the sums at every point, by the point's index
    const MatrixXd* theta0 = &start.theta;
    if (start.fallback.size()) {  // the sums at theta serve as the first point's if the solve starts there
      if (poll) poll();
      seen.push_back(sums(groups, start.theta));
      if (!(ridge_risk(seen[0].loss, weight_sum, start.theta, ctl.lambda) < start.below)) {
        seen.clear();
        theta0 = &start.fallback;
      }
    }
    const NewtonEvaluator evaluate = [&](NewtonPoint& pt, NewtonNeed) {
      if (pt.index == 0 && !seen.empty()) {
        glm_sums_point(seen[0], weight_sum, ctl.lambda, pt);
        return;
      }
      GlmSums s = sums(groups, Eigen::Map<const MatrixXd>(pt.theta.data(), m1, P));
      glm_sums_point(s, weight_sum, ctl.lambda, pt);
      seen.resize(static_cast<size_t>(pt.index) + 1);
      seen[static_cast<size_t>(pt.index)] = std::move(s);
    };
    NewtonControl nc = ctl;
    nc.take_last_step = true;  // every point is a pass over the chunks: the last, converging step is not evaluated
    const NewtonSolution sol =
        newton_solve(Eigen::Map<const VectorXd>(theta0->data(), theta0->size()), evaluate, nc, poll);
    GlmSums& at = seen[static_cast<size_t>(sol.point.index)];
    GlmRefit f;
    f.theta = Eigen::Map<const MatrixXd>(sol.point.theta.data(), m1, P);
    f.risk = sol.point.risk;
    f.deviance = at.deviance;
    f.xr = std::move(at.xr);
    f.rsum = std::move(at.rsum);
    f.converged = sol.converged;
    f.diverging = sol.diverging;
    return f;
  };
}

// CS-G-OMP, and CS-G-FR and Doubling with the quadratic gain, for a GLM through callbacks: the OMP
// scores come from the X'W(y - mu) and 1'W(y - mu) the refit returns, the quadratic gains of a step's
// candidates from one call of `gains` at the current fit (then schur_gains(), as GlmModel), so no rows
// are needed here. wh needs T, rank and offset (not S); st the column means, scales and constant flags;
// weight_sum the total weight; null_theta (1 x P) the null model's starting intercepts; gains: for FR
// and Doubling (ctl.fr_gain must be Quadratic; the exact gain would refit every candidate). The first
// refit (the null model) runs in the constructor.
class GlmRefitModel : public GlmPathModel {
 public:
  GlmRefitModel(const Whitened& wh, const GramStats& st, const GroupLayout& lay, double weight_sum,
                const MatrixXd& null_theta, GlmRefitter refit, const Control& ctl, GlmGainSource gains = GlmGainSource())
      : GlmPathModel(wh, st, lay, ctl), refit_(std::move(refit)), gains_(std::move(gains)) {
    W_ = weight_sum;
    if (scoring() == Scores::Gain && (ctl_.fr_gain != FrGain::Quadratic || !gains_))
      throw std::invalid_argument("GlmRefitModel: FR and Doubling need the quadratic gain and its sums");
    if (!refit_) throw std::invalid_argument("GlmRefitModel: a refit is needed");
    if (null_theta.rows() != 1) throw std::invalid_argument("GlmRefitModel: the null theta has one row");
    RefitStart start;
    start.theta = null_theta;
    accept(refit_(order_, start, Poll()), null_theta.cols());
  }

  double raw_score(Index h) override {
    switch (scoring()) {
      case Scores::Gradient:
        return gradient_score(h);
      case Scores::Gain:
        if (!gains_ready_) quadratic_gains();
        return gain_[static_cast<size_t>(h)];
    }
    no_case(scoring(), "GlmRefitModel::raw_score");
  }

  void add_group(Index g) override {
    RefitStart start;
    bool stepped = false;
    start.theta = refit_start(g, stepped);
    if (stepped) {
      start.fallback = extended_theta(rank(g));
      start.below = risk_;
    }
    std::vector<Index> groups = order_;
    groups.push_back(g);
    GlmRefit f = refit_(groups, start, poll_);  // may throw TimeUp: g is then not recorded
    record(g);
    accept(std::move(f), start.theta.cols());
  }

 private:
  GlmRefitter refit_;
  GlmGainSource gains_;

  void accept(GlmRefit f, Index P) {
    Index m1 = 1;
    for (Index g : order_) m1 += rank(g);
    if (f.theta.rows() != m1 || f.theta.cols() != P)
      throw std::invalid_argument("GlmRefitModel: the refit's theta needs one row per whitened column and the intercept");
    if (f.xr.rows() != lay_.p || f.xr.cols() != P || f.rsum.size() != P)
      throw std::invalid_argument("GlmRefitModel: the refit's xr must be p x P and its rsum of length P");
    xr_ = std::move(f.xr);
    rsum_ = std::move(f.rsum);
    gains_ready_ = false;
    set_fit(std::move(f.theta), f.risk, f.deviance, f.converged, f.diverging);
  }

  // The quadratic gains of the candidates (see GlmModel::quadratic_gains()): their columns follow the
  // selected groups' in the callback's pass, in group order.
  void quadratic_gains() {
    const std::vector<Index> cand = gain_candidates();
    std::vector<Index> col, rk;
    Index at = theta_.rows();
    for (Index h : cand) {
      col.push_back(at);
      rk.push_back(rank(h));
      at += rank(h);
    }
    const GainLayout gl = gain_layout(theta_.rows(), std::move(col), std::move(rk));
    GainSums s;
    if (!cand.empty()) {
      s = gains_(order_, cand, theta_, gl);
      s /= W_;
    }
    store_gains(cand, cand.empty() ? QuadraticGains() : schur_gains(s, gl, theta_.cols(), ctl_.lambda, ctl_.pivot_tol));
  }
};

}  // namespace fgseq

#endif
