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

#include "kernels.hpp"
#include "types.hpp"

namespace fgseq {

// X = H^-1 B for a symmetric H (both triangles filled) that is positive definite up to rounding, such as
// a Hessian with a tiny ridge. H is factorized in place (it is consumed) by the blocked Cholesky
// H = L L', whose work is in matrix products (on a few thousand rows it is several times faster than the
// pivoted LDL', which works column by column; cholesky_in_place()). Where it meets a pivot that is not
// positive (H singular or indefinite to rounding), H is restored from its strict upper triangle and its
// diagonal and solved by the pivoted LDL' (Eigen's LDLT) instead. Both are backward stable on a positive definite H:
// their solutions agree to rounding.
inline MatrixXd symmetric_solve(MatrixXd H, const Eigen::Ref<const MatrixXd>& B) {
  if (!cholesky_in_place(H)) return H.ldlt().solve(B);
  MatrixXd X = B;
  H.triangularView<Eigen::Lower>().solveInPlace(X);
  H.triangularView<Eigen::Lower>().adjoint().solveInPlace(X);
  return X;
}

// When the solver stops (see newton_solve()); part of a fit's Control (greedy/model.hpp).
struct NewtonControl {
  double newton_tol = 1e-10;  // relative decrease of the risk that ends the Newton iterations
  double deviance_tol = 1e-8; // glm()'s convergence criterion |D - D_old| / (|D| + 0.1) < deviance_tol
  double grad_tol = 1e-11;    // largest gradient entry of the risk at which a fit has converged
  int newton_max_iter = 100;
  // For an evaluator whose points are expensive (each a pass over chunks of rows): the last Newton step
  // (whose decrement g'H^-1 g already meets the convergence criterion and that moves no coefficient by
  // more than 5e-9, relative; see newton_solve()) is taken without evaluating its point.
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
};

// Damped Newton from theta0 (ctl: newton_tol, grad_tol, newton_max_iter). The iteration stops when the
// largest gradient entry is at most grad_tol, or when the risk no longer moves and the Newton decrement
// g'H^-1 g is negligible, or when no step decreases the risk, or after newton_max_iter steps. It has
// converged when it stopped at a vanishing gradient or decrement (a step whose decrement meets the
// criterion is taken whole unless its risk rose by more than the risk's rounding, without a search;
// with ctl.take_last_step, a short one without evaluating its point), or, by the criterion of glm(),
// when its last step changed the penalized deviance D by |D - D_old| / (|D| + 0.1) < deviance_tol. Fitted
// means near the edge of the family's range (probabilities near 0 or 1) do not by themselves mean
// non-convergence.
// poll: called before each iteration (an interrupt check, a deadline; may throw). direction: the
// Newton direction without the Hessian (see NewtonDirection), or empty.
inline NewtonSolution newton_solve(VectorXd theta0, const NewtonEvaluator& evaluate, const NewtonControl& ctl,
                                   const std::function<void()>& poll = std::function<void()>(),
                                   const NewtonDirection& direction = NewtonDirection()) {
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
  NewtonPoint f = point(std::move(theta0));
  fill(f, NewtonNeed::Accept);
  bool converged = false;
  bool deviance_settled = false;  // glm()'s criterion on the last step taken
  for (int it = 0; it < ctl.newton_max_iter; ++it) {
    if (poll) poll();
    fill(f, NewtonNeed::Gradient);
    const VectorXd& g = f.gradient;
    // converged: the gradient vanishes to rounding (checked before paying for a Hessian)
    if (g.cwiseAbs().maxCoeff() <= ctl.grad_tol) {
      converged = true;
      break;
    }
    VectorXd delta;
    if (direction) {
      delta = direction(f);
    } else {
      fill(f, NewtonNeed::Hessian);
      // a tiny ridge keeps the solve defined in flat directions (multinomial intercepts, collinear
      // columns at lambda = 0); the gradient has no component there. The iterate's Hessian is consumed
      // by the factorization (it can be (m P)^2 doubles: no copy).
      MatrixXd H = std::move(f.hessian);
      const double jitter = 1e-12 * std::max(H.diagonal().maxCoeff(), 1e-300);
      H.diagonal().array() += jitter;
      delta = -symmetric_solve(std::move(H), g);
    }
    const double decrement = -g.dot(delta);  // Newton decrement (squared), >= 0
    if (!(decrement >= 0) || !std::isfinite(decrement)) break;
    double t = 1.0;
    NewtonPoint next;
    bool improved = false;
    const double settled = 1e-12 * (std::abs(f.risk) + 1e-8);
    if (decrement <= settled && 0.5 * decrement <= ctl.newton_tol * (std::abs(f.risk) + ctl.newton_tol)) {
      // The step would end the solve (its risk change is below the tolerances). The risk it removes is
      // then about the rounding of the risk, so trial points cannot judge it: a search would keep
      // whichever fraction of the step rounding happened to favour, and two fits whose sums differ in
      // the last bits would end apart by up to the step (about the square root of the decrement over
      // the Hessian's smallest eigenvalue: 1e-7 of the coefficients at a ridge of 1e-3). So the step is
      // taken whole. With take_last_step, a step that moves no coefficient by more than 5e-9 (relative)
      // is taken unevaluated, and the solve ends: the point returned has the stepped theta and the rest
      // (risk, sums) of the point before it, which differ from those at theta by about the decrement. (A
      // step along a flat direction, such as the multinomial's shift of every class's intercept, can be
      // long at a negligible decrement: it is evaluated.) Otherwise its point is evaluated and taken
      // unless its risk rose by more than that rounding (the solve then ends below, unless the risk fell
      // by more than the decrement promised); when it rose, the search starts at half the step.
      if (ctl.take_last_step && delta.cwiseAbs().maxCoeff() <= 5e-9 * (1.0 + f.theta.cwiseAbs().maxCoeff())) {
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
    if (!improved) {  // no descent left: at the optimum up to rounding
      converged = decrement <= 1e-8 * (std::abs(f.risk) + 1e-8);
      break;
    }
    fill(next, NewtonNeed::Accept);
    const double change = f.risk - next.risk;
    deviance_settled = std::abs(next.deviance - f.deviance) / (std::abs(next.deviance) + 0.1) < ctl.deviance_tol;
    next.step = t;
    f = std::move(next);
    // the risk no longer moves and the last Newton decrement was small: converged
    if (change <= ctl.newton_tol * (std::abs(f.risk) + ctl.newton_tol) && decrement <= 1e-12 * (std::abs(f.risk) + 1e-8)) {
      converged = true;
      break;
    }
  }
  converged = converged || deviance_settled;
  NewtonSolution out;
  out.point = std::move(f);
  out.converged = converged;
  return out;
}

}  // namespace fgseq

#endif
