// The linear fit end to end: statistics, whitening, greedy path, coefficients on the original scale.
#ifndef FGSEQ_FIT_HPP
#define FGSEQ_FIT_HPP

#include <vector>

#include "engine.hpp"
#include "stats.hpp"
#include "whiten.hpp"

namespace fgseq {

struct LinearFit {
  Path path;
  MatrixXd beta;                // p x (K+1), original scale
  VectorXd a0;                  // K+1 intercepts
  std::vector<double> r2;       // K+1
  std::vector<bool> constant;   // per column
  std::vector<Index> rank;      // per group, after whitening
  double null_risk = 0.0;       // R(empty) = yy / 2
};

inline LinearFit fit_linear(const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const VectorXd>& y,
                            const std::vector<int>& group_of, int n_groups, const std::vector<double>& cost,
                            const Control& ctl, const InterruptCheck& check_interrupt = InterruptCheck()) {
  if (static_cast<Index>(group_of.size()) != x.cols())
    throw std::invalid_argument("fit_linear: one group per column of x is needed");
  const GramStats st = gram_stats(x, y, check_interrupt);
  const GroupLayout lay = make_layout(group_of, n_groups);
  const Whitened wh = whiten(st, lay, ctl.lambda, ctl.rank_tol);
  GreedyEngine engine(wh, st, lay, cost, ctl);
  LinearFit out;
  out.path = engine.run(check_interrupt);
  original_scale(out.path, wh, st, lay, out.beta, out.a0);
  out.null_risk = 0.5 * st.yy;
  for (double F : out.path.objective) out.r2.push_back(st.yy > 0 ? F / out.null_risk : 0.0);
  out.constant = st.constant;
  out.rank = wh.rank;
  return out;
}

}  // namespace fgseq

#endif
