// The damped Newton solver of the GLM families, over an evaluator of the penalized risk.
//
// The solver sees the problem only through evaluate(point, need): the penalized risk at point.theta,
// and on request the gradient and the Hessian. Where they come from is the evaluator's business: the
// rows in memory (GlmModel), or sums over chunks of rows, one map-reduce pass per point (the chunked
// fits of the R package). Each iteration takes the Newton direction -H^-1 g (with a tiny ridge on H)
// and halves the step until the Armijo condition R(theta + t d) <= R(theta) - 1e-4 t g'H^-1 g holds.
// The Newton system is solved by symmetric_solve(): a blocked Cholesky factorization, the pivoted LDL'
// only where the Cholesky meets a pivot that is not positive.
#ifndef FGSEQ_COMMON_NEWTON_HPP
#define FGSEQ_COMMON_NEWTON_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "compiled.hpp"
#include "blas.hpp"
#include "types.hpp"

namespace fgseq {

// X = H^-1 B for a symmetric H (both triangles filled) that is positive definite up to rounding, such as
// a Hessian with a tiny ridge. H is factorized in place (it is consumed) by the blocked Cholesky
// H = L L', whose work is in matrix products (on a few thousand rows it is several times faster than the
// pivoted LDL', which works column by column; cholesky_in_place()). Where it meets a pivot that is not
// positive (H singular or indefinite to rounding), H is restored from its strict upper triangle and its
// diagonal and solved by the pivoted LDL' (Eigen's LDLT) instead. Both are backward stable on a positive definite H:
// their solutions agree to rounding.
FGSEQ_API MatrixXd symmetric_solve(MatrixXd H, const Eigen::Ref<const MatrixXd>& B);
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API MatrixXd symmetric_solve(MatrixXd H, const Eigen::Ref<const MatrixXd>& B) {
  if (!cholesky_in_place(H)) return H.ldlt().solve(B);
  MatrixXd X = B;
  H.triangularView<Eigen::Lower>().solveInPlace(X);
  H.triangularView<Eigen::Lower>().adjoint().solveInPlace(X);
  return X;
}
#endif

// When the solver stops (see newton_solve()); part of a fit's Control (greedy/model.hpp).
struct NewtonControl {
  double newton_tol = 1e-10;  // relative decrease of the risk below which a step is at the risk's rounding
  // A solve has converged when the largest entry of the gradient of the penalized risk is at most
  // grad_tol * grad_scale at the point it returns. grad_scale is the scale of that gradient; NaN (the
  // default) means 1 to newton_solve() and, to the GLM models over rows in memory, the response's
  // weighted standard deviation (response_scale(), glm/evaluator.hpp: the bound of every gradient entry
  // of the null model in whitened columns), which the chunked fits compute from their sums and set.
  double grad_tol = 1e-11;
  double grad_scale = std::numeric_limits<double>::quiet_NaN();
  int newton_max_iter = 100;
  // For an evaluator whose points are expensive (each a pass over chunks of rows): the last Newton step
  // (whose decrement g'H^-1 g is at the risk's rounding, that moves no coefficient by more than 5e-9,
  // relative, and after which the Newton model's gradient meets the tolerance; see newton_solve()) is
  // taken without evaluating its point.
  bool take_last_step = false;
};

// What the solver asks of a point; each level includes the ones before it.
//   Risk:     the penalized risk (trial points of the step halving);
//   Accept:   the point becomes the iterate: whatever the evaluator keeps of an iterate (an in-memory
//             evaluator its fitted means), and its penalized deviance (see NewtonPoint);
//   Gradient, Hessian: the derivatives of the penalized risk.
enum class NewtonNeed { None, Risk, Accept, Gradient, Hessian };

struct NewtonPoint {
  VectorXd theta;
  NewtonNeed level = NewtonNeed::None;  // filled so far; an evaluator may fill more than asked and say so
  Index index = 0;                      // 0-based number of the point among those a solve evaluated
  double risk = 0.0;
  double loss = 0.0;         // the weighted sum of the unpenalized losses (filled with the risk)
  double deviance = std::numeric_limits<double>::quiet_NaN();  // the penalized deviance of an
                             // iterate, deviance + 2 W (risk - loss / W) (filled at Accept)
  VectorXd gradient;
  MatrixXd hessian;
  MatrixXd eta, mu;          // an in-memory evaluator's linear predictors and fitted means at theta
  double step = 1.0;         // an iterate's step length t from the iterate before it (1 for the first)
};

// Fills `point` at point.theta up to `need`. Called with increasing needs on one point, and only for
// needs above point.level.
using NewtonEvaluator = std::function<void(NewtonPoint& point, NewtonNeed need)>;

// The Newton direction at an iterate filled up to Gradient, -H^-1 g, found without forming H (the
// multinomial's Hessian-free solve, glm/multinomial.hpp). Empty: the solver asks for the Hessian and
// factorizes it.
using NewtonDirection = std::function<VectorXd(const NewtonPoint& point)>;

struct NewtonSolution {
  NewtonPoint point;       // the last iterate, filled at least up to Accept
  bool converged = false;
  // Converged as a solve toward an optimum at infinity does (separable data at lambda = 0): its last
  // three steps were whole Newton steps, each growing the largest coefficient and cutting the largest
  // gradient entry by a factor of 0.05 to 0.95 only (a linear rate, as on an exponential tail, where a
  // Newton step moves by a constant and the gradient falls by a constant factor), not the quadratic rate
  // with which Newton's method ends at a finite optimum.
  bool diverging = false;
};

// Damped Newton from theta0 (ctl: grad_tol, grad_scale, newton_tol, newton_max_iter, take_last_step). The
// solve has converged, and stops, when the largest entry of the gradient at the iterate is at most
// tol = grad_tol * grad_scale: the only test of convergence (the change of the risk or the deviance over
// a step is none: a short, damped step changes both little far from the optimum, as on nearly separable
// data at lambda = 0). It stops unconverged when no step decreases the risk, when the gradient stalls
// at its rounding (three steps at the risk's rounding in a row, each reducing the largest gradient entry
// by less than half), or after newton_max_iter steps. A step whose decrement is at the risk's rounding
// is taken whole unless its risk rose by more than that rounding, without a search; with
// ctl.take_last_step and the Hessian's direction, a short one is taken without evaluating its point when
// the Newton model's gradient after it (jitter * step, see below) meets tol, and the solve ends
// converged. Fitted means near the edge of the family's range (probabilities near 0 or 1) do not by
// themselves mean non-convergence: on separable data the gradient vanishes as they reach it.
// poll: called before each iteration (an interrupt check, a deadline; may throw). direction: the
// Newton direction without the Hessian (see NewtonDirection), or empty.
FGSEQ_API NewtonSolution newton_solve(VectorXd theta0, const NewtonEvaluator& evaluate, const NewtonControl& ctl,
                                      const std::function<void()>& poll = std::function<void()>(),
                                      const NewtonDirection& direction = NewtonDirection());
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API NewtonSolution newton_solve(VectorXd theta0, const NewtonEvaluator& evaluate, const NewtonControl& ctl,
                                      const std::function<void()>& poll,
                                      const NewtonDirection& direction) {
  Index count = 0;
  auto point = [&count](VectorXd theta) {
    NewtonPoint pt;
    pt.theta = std::move(theta);
    pt.index = count++;
    return pt;
  };
  auto fill = [&evaluate](NewtonPoint& pt, NewtonNeed need) {
    if (pt.level >= need) return;
    evaluate(pt, need);
    if (pt.level < need) pt.level = need;
  };
  const double tol = ctl.grad_tol * (std::isnan(ctl.grad_scale) ? 1.0 : ctl.grad_scale);
  NewtonPoint f = point(std::move(theta0));
  fill(f, NewtonNeed::Accept);
  bool converged = false;
  double last_gmax = std::numeric_limits<double>::infinity();
  bool last_settled = false;  // the step to f had a decrement at the risk's rounding
  int stalls = 0;             // such steps in a row that did not halve the largest gradient entry
  int linear = 0;             // whole steps in a row at a linear rate with a growing coefficient (diverging)
  double last_theta = f.theta.size() ? f.theta.cwiseAbs().maxCoeff() : 0.0;
  for (int it = 0; it < ctl.newton_max_iter; ++it) {
    if (poll) poll();
    fill(f, NewtonNeed::Gradient);
    const VectorXd& g = f.gradient;
    const double gmax = g.cwiseAbs().maxCoeff();
    const double theta_max = f.theta.size() ? f.theta.cwiseAbs().maxCoeff() : 0.0;
    linear = it > 0 && f.step == 1.0 && !last_settled && gmax >= 0.05 * last_gmax && gmax <= 0.95 * last_gmax &&
                     theta_max > last_theta
                 ? linear + 1
                 : 0;
    last_theta = theta_max;
    // converged: the gradient test (checked before paying for a Hessian)
    if (gmax <= tol) {
      converged = true;
      break;
    }
    if (!std::isfinite(gmax)) break;
    stalls = last_settled && gmax > 0.5 * last_gmax ? stalls + 1 : 0;
    if (stalls >= 3) break;  // the gradient no longer falls: its rounding is above tol
    last_gmax = gmax;
    VectorXd delta;
    double jitter = 0.0;
    if (direction) {
      delta = direction(f);
    } else {
      fill(f, NewtonNeed::Hessian);
      // a tiny ridge keeps the solve defined in flat directions (multinomial intercepts, collinear
      // columns at lambda = 0); the gradient has no component there. The iterate's Hessian is consumed
      // by the factorization (it can be (m P)^2 doubles: no copy).
      MatrixXd H = std::move(f.hessian);
      jitter = 1e-12 * std::max(H.diagonal().maxCoeff(), 1e-300);
      H.diagonal().array() += jitter;
      delta = -symmetric_solve(std::move(H), g);
    }
    const double decrement = -g.dot(delta);  // Newton decrement (squared), >= 0
    if (!(decrement >= 0) || !std::isfinite(decrement)) break;
    double t = 1.0;
    NewtonPoint next;
    bool improved = false;
    const double settled = 1e-12 * (std::abs(f.risk) + 1e-8);
    const bool at_rounding =
        decrement <= settled && 0.5 * decrement <= ctl.newton_tol * (std::abs(f.risk) + ctl.newton_tol);
    if (at_rounding) {
      // The risk the step removes is about the rounding of the risk, so trial points cannot judge it: a
      // search would keep whichever fraction of the step rounding happened to favour, and two fits whose
      // sums differ in the last bits would end apart by up to the step (about the square root of the
      // decrement over the Hessian's smallest eigenvalue: 1e-7 of the coefficients at a ridge of 1e-3).
      // So the step is taken whole. With take_last_step and the Hessian's direction, a step that moves no
      // coefficient by more than 5e-9 (relative) is taken unevaluated, and the solve ends converged, when
      // the Newton model's gradient after it, g + H delta = -jitter delta (delta solves (H + jitter I)
      // delta = -g), meets tol: the point returned has the stepped theta and the rest (risk, sums) of the
      // point before it, which differ from those at theta by about the decrement. (A step along a flat
      // direction, such as the multinomial's shift of every class's intercept, can be long at a
      // negligible decrement: it is evaluated.) Otherwise its point is evaluated and taken unless its
      // risk rose by more than that rounding; when it rose, the search starts at half the step.
      const double dmax = delta.cwiseAbs().maxCoeff();
      if (ctl.take_last_step && !direction && dmax <= 5e-9 * (1.0 + f.theta.cwiseAbs().maxCoeff()) &&
          jitter * dmax <= tol) {
        f.theta += delta;
        converged = true;
        break;
      }
      next = point(f.theta + delta);
      fill(next, NewtonNeed::Risk);
      improved = std::isfinite(next.risk) && next.risk <= f.risk + settled;
      if (!improved) t = 0.5;
    }
    for (int half = 0; half < 50 && !improved; ++half, t *= 0.5) {
      next = point(f.theta + t * delta);
      fill(next, NewtonNeed::Risk);
      if (std::isfinite(next.risk) && next.risk <= f.risk + 1e-4 * t * -decrement) {
        improved = true;
        break;
      }
    }
    if (!improved) break;  // no step decreases the risk, and the gradient test failed: not converged
    fill(next, NewtonNeed::Accept);
    next.step = t;
    last_settled = at_rounding;
    f = std::move(next);
  }
  NewtonSolution out;
  out.point = std::move(f);
  out.converged = converged;
  out.diverging = converged && linear >= 3;
  return out;
}
#endif

}  // namespace fgseq

#endif
