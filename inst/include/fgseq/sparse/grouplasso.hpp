// The cost-weighted group lasso path on whitened groups: the paper's Sparse baseline (Hu et al. 2016,
// section 5.2; Yuan and Lin 2006), and the penalty at which each group first enters it.
//
//   min_{a, b}  1/W sum_i w_i loss(y_i, o_i + a + z_i' b) + penalty sum_g m_g ||b_g||,   W = sum_i w_i,
//
// with loss half the squared error (gaussian) or the negative log-likelihood (binomial, poisson), o the
// offset, and groups whitened under the weights (Z_g' diag(w) Z_g / W = I, weighted-centred columns).
// Block coordinate descent: the update of a group is the proximal step
//   b_g <- S(b_g + q_g / v, penalty m_g / v),   S(u, t) = u (1 - t / ||u||)_+,
// with q = Z' diag(w) (y - mu) / W the score and v a bound on the curvature of the loss along the
// group. Gaussian: v = 1 and the step is the exact block minimizer, done on the Gram matrix
// Z' diag(w) Z / W with q kept up to date (no pass over the rows); once the non-zero groups have stayed
// the same for 10 passes, Newton's method on them finishes the solve. Binomial: v = 1/4. Poisson: v
// starts at max(mu) and doubles until the step decreases the loss as its quadratic bound promises (the
// family's mean, loss and curvature bound are its FamilyOps, common/family.hpp). The
// intercept is an unpenalized block (gaussian: the weighted mean of y - o, the columns being centred).
// A solve cycles over the non-zero groups until each meets its optimality condition to a relative
// 1e-9, then adds every group that violates ||q_g|| <= penalty m_g, until none does.
//
// The path runs over n_penalty values log-spaced from penalty_max (where the first group enters) down to
// ratio * penalty_max, warm-started. A group's first entry is located between the two grid values that
// bracket it as the root of h(penalty) = ||q_g(penalty)|| - penalty m_g, q_g taken at the solution that
// holds the group at 0, by Brent's method to 1e-10 * the upper grid value.
#ifndef FGSEQ_SPARSE_GROUPLASSO_HPP
#define FGSEQ_SPARSE_GROUPLASSO_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../common/family.hpp"

namespace fgseq {

// The path: the grid (decreasing), the whitened coefficients along it (r x n_penalty), the intercepts,
// each group's entry penalty (NaN: not within the grid) and ||q_g|| / (m_g penalty_max) at the last
// solution (the order in which the groups left out would enter next).
struct GroupLassoPath {
  Eigen::VectorXd penalty;
  Eigen::MatrixXd beta;
  Eigen::VectorXd a0;
  Eigen::VectorXd entry;
  Eigen::VectorXd kkt;
};

// A point of the path: whitened coefficients, intercept, linear predictor (binomial, poisson, offset
// included) and score q (gaussian, kept up to date).
struct GroupLassoState {
  Eigen::VectorXd b;
  double a0 = 0.0;
  Eigen::VectorXd eta;
  Eigen::VectorXd q;
};

// Brent's root finder (as R's uniroot()): a root of f in [lo, hi] given f(lo) and f(hi) of opposite
// signs, to an absolute tolerance tol (plus 2 eps |x|). Inverse quadratic or secant interpolation
// when it stays well inside the bracket, bisection otherwise.
inline double brent_root(const std::function<double(double)>& f, double lo, double hi, double f_lo, double f_hi,
                         double tol, int max_iter = 1000) {
  if (f_lo == 0.0) return lo;
  if (f_hi == 0.0) return hi;
  const double eps = std::numeric_limits<double>::epsilon();
  double a = lo, b = hi, c = lo, fa = f_lo, fb = f_hi, fc = f_lo;
  for (int it = 0; it <= max_iter; ++it) {
    const double previous = b - a;
    if (std::abs(fc) < std::abs(fb)) {  // b is the best point so far
      a = b; b = c; c = a;
      fa = fb; fb = fc; fc = fa;
    }
    const double tol_act = 2.0 * eps * std::abs(b) + tol / 2.0;
    double step = (c - b) / 2.0;
    if (std::abs(step) <= tol_act || fb == 0.0) return b;
    if (std::abs(previous) >= tol_act && std::abs(fa) > std::abs(fb)) {
      const double cb = c - b;
      double p, q;
      if (a == c) {  // two distinct points: the secant
        const double t1 = fb / fa;
        p = cb * t1;
        q = 1.0 - t1;
      } else {  // inverse quadratic interpolation
        const double r = fa / fc, t1 = fb / fc, t2 = fb / fa;
        p = t2 * (cb * r * (r - t1) - (b - a) * (t1 - 1.0));
        q = (r - 1.0) * (t1 - 1.0) * (t2 - 1.0);
      }
      if (p > 0.0) q = -q; else p = -p;
      if (p < 0.75 * cb * q - std::abs(tol_act * q) / 2.0 && p < std::abs(previous * q / 2.0)) step = p / q;
    }
    if (std::abs(step) < tol_act) step = step > 0.0 ? tol_act : -tol_act;
    a = b;
    fa = fb;
    b += step;
    fb = f(b);
    if ((fb > 0.0 && fc > 0.0) || (fb < 0.0 && fc < 0.0)) {
      c = a;
      fc = fa;
    }
  }
  return b;
}

class GroupLasso {
 public:
  // z: n x r whitened groups side by side (group g's columns follow group g - 1's); sizes: the number
  // of columns of each group; y: response; w: weights (empty: 1 each); offset (empty: 0); m: the
  // multipliers m_g > 0. tol: the tolerance on coefficient changes (times the sd of y - o, gaussian).
  GroupLasso(Eigen::Ref<const Eigen::MatrixXd> z, const std::vector<Eigen::Index>& sizes,
             Eigen::Ref<const Eigen::VectorXd> y, Eigen::Ref<const Eigen::VectorXd> w,
             Eigen::Ref<const Eigen::VectorXd> offset, Eigen::Ref<const Eigen::VectorXd> m, Family family,
             double tol = 1e-10, int max_iter = 10000)
      : z_(z), y_(y), m_(m), ops_{family}, max_iter_(max_iter) {  // z is referenced: it must outlive this
    const Eigen::Index n = z.rows();
    if (y.size() != n || (w.size() && w.size() != n) || (offset.size() && offset.size() != n)) {
      throw std::invalid_argument("group lasso: y, weights and offset must have one value per row of z");
    }
    if (!ops_.columns_fit(1) || ops_.columns_fit(2)) {  // a family of one response column
      throw std::invalid_argument(std::string("group lasso: the family '") + name_of(family) +
                                  "' does not fit one response column (gaussian, binomial and poisson do)");
    }
    start_.push_back(0);
    for (Eigen::Index k : sizes) start_.push_back(start_.back() + k);
    if (start_.back() != z.cols() || m.size() != static_cast<Eigen::Index>(sizes.size())) {
      throw std::invalid_argument("group lasso: the group sizes must add up to ncol(z), one multiplier per group");
    }
    wt_ = w.size() ? Eigen::VectorXd(w / w.sum()) : Eigen::VectorXd::Constant(n, 1.0 / n);
    offset_ = offset.size() ? Eigen::VectorXd(offset) : Eigen::VectorXd::Zero(n);
    if (gaussian()) {
      const Eigen::VectorXd r = y_ - offset_;
      const double mean = wt_.dot(r);
      const double nn = static_cast<double>(n);
      tol_ = tol * std::sqrt(wt_.dot((r.array() - mean).square().matrix()) * nn / (nn - 1.0));
      gram_ = z_.transpose() * wt_.asDiagonal() * z_;
      zy_ = z_.transpose() * (wt_.array() * (r.array() - mean)).matrix();
    } else {
      tol_ = tol;
    }
  }

  Eigen::Index groups() const { return static_cast<Eigen::Index>(start_.size()) - 1; }

  // The path on n_penalty log-spaced values from penalty_max down to ratio * penalty_max. poll: called
  // once per penalty and every 1000 passes (an interrupt check; may throw).
  GroupLassoPath path(int n_penalty, double ratio, const std::function<void()>& poll = [] {}) {
    poll_ = poll;
    const Eigen::Index G = groups();
    GroupLassoState st = null_state();
    const double lmax = (gradnorm(st).array() / m_.array()).maxCoeff();
    GroupLassoPath out;
    out.penalty.resize(n_penalty);
    const double to = std::log(ratio), by = to / (n_penalty - 1);
    for (int k = 0; k < n_penalty; ++k) {
      out.penalty[k] = lmax * std::exp(k == n_penalty - 1 ? to : k * by);
    }
    out.beta.resize(z_.cols(), n_penalty);
    out.a0.resize(n_penalty);
    out.entry = Eigen::VectorXd::Constant(G, std::numeric_limits<double>::quiet_NaN());
    for (int k = 0; k < n_penalty; ++k) {
      poll_();
      const GroupLassoState prev = st;
      st = solve(out.penalty[k], std::move(st));
      out.beta.col(k) = st.b;
      out.a0[k] = st.a0;
      for (Eigen::Index g = 0; g < G; ++g) {
        if (!std::isnan(out.entry[g]) || !nonzero(st, g)) continue;
        out.entry[g] = k == 0 ? out.penalty[0] : entry(g, out.penalty[k], out.penalty[k - 1], prev);
      }
    }
    out.kkt = gradnorm(st).array() / (m_.array() * lmax);
    return out;
  }

 private:
  Eigen::Ref<const Eigen::MatrixXd> z_;
  Eigen::VectorXd y_;
  Eigen::VectorXd m_;
  FamilyOps ops_;
  int max_iter_;
  std::vector<Eigen::Index> start_;
  Eigen::VectorXd wt_;      // weights scaled to sum 1
  Eigen::VectorXd offset_;
  double tol_ = 0.0;
  Eigen::MatrixXd gram_;    // gaussian: Z' diag(wt) Z
  Eigen::VectorXd zy_;      // gaussian: Z' diag(wt) (y - o - a0)
  std::function<void()> poll_ = [] {};

  bool gaussian() const { return ops_.least_squares(); }
  Eigen::Index size(Eigen::Index g) const { return start_[g + 1] - start_[g]; }
  auto block(const Eigen::VectorXd& v, Eigen::Index g) const { return v.segment(start_[g], size(g)); }
  bool nonzero(const GroupLassoState& st, Eigen::Index g) const { return (block(st.b, g).array() != 0.0).any(); }

  Eigen::ArrayXd mean(const Eigen::VectorXd& eta) const { return ops_.mean(eta).col(0).array(); }
  // The weighted mean loss 1/W sum_i w_i loss(y_i, eta_i), up to a constant.
  double loss(const Eigen::VectorXd& eta) const { return ops_.loss(eta, y_, wt_); }
  // wt .* (y - mu): the score's weighted residual.
  Eigen::VectorXd residual(const GroupLassoState& st) const {
    return (wt_.array() * (y_.array() - mean(st.eta))).matrix();
  }

  // The intercept-only solution (GLMs: Newton's method on the intercept from the link of the mean
  // response, which is the solution itself without an offset).
  GroupLassoState null_state() const {
    GroupLassoState st;
    st.b = Eigen::VectorXd::Zero(z_.cols());
    const double ybar = wt_.dot(y_);
    if (gaussian()) {
      st.a0 = ybar - wt_.dot(offset_);
      st.q = zy_;
      return st;
    }
    st.a0 = ops_.null_intercepts(Eigen::VectorXd::Constant(1, ybar))(0, 0);
    for (int it = 0; it < 100; ++it) {
      const Eigen::MatrixXd mu = ops_.mean(Eigen::VectorXd(offset_.array() + st.a0));
      const double step = wt_.dot(y_ - mu.col(0)) / wt_.dot(ops_.hessian_weight(mu, 0, 0));
      st.a0 += step;
      if (std::abs(step) <= 1e-13 * (1.0 + std::abs(st.a0))) break;
    }
    st.eta = offset_.array() + st.a0;
    return st;
  }

  // q = Z' diag(wt) (y - mu) of every column.
  Eigen::VectorXd score(const GroupLassoState& st) const {
    return gaussian() ? st.q : Eigen::VectorXd(z_.transpose() * residual(st));
  }
  // ||q_g|| of every group: the group lasso's KKT quantity.
  Eigen::VectorXd gradnorm(const GroupLassoState& st) const {
    const Eigen::VectorXd q = score(st);
    Eigen::VectorXd out(groups());
    for (Eigen::Index g = 0; g < groups(); ++g) out[g] = block(q, g).norm();
    return out;
  }
  double gradnorm(const GroupLassoState& st, Eigen::Index g) const {
    if (gaussian()) return block(st.q, g).norm();
    return (z_.middleCols(start_[g], size(g)).transpose() * residual(st)).norm();
  }

  // The exact gaussian block step of group g with penalty pen; returns the largest coefficient change.
  double step_gaussian(GroupLassoState& st, Eigen::Index g, double pen) const {
    const Eigen::VectorXd b = block(st.b, g);
    const Eigen::VectorXd u = b + block(st.q, g);
    const double nu = u.norm();
    const Eigen::VectorXd bn = nu > pen ? Eigen::VectorXd(u * (1.0 - pen / nu)) : Eigen::VectorXd::Zero(u.size());
    const Eigen::VectorXd d = bn - b;
    if (!(d.array() != 0.0).any()) return 0.0;
    st.b.segment(start_[g], size(g)) = bn;
    st.q.noalias() -= gram_.middleCols(start_[g], size(g)) * d;
    return d.cwiseAbs().maxCoeff();
  }

  // One proximal block step of a GLM on group g (the intercept when g < 0) with penalty pen.
  double step_glm(GroupLassoState& st, Eigen::Index g, double pen) const {
    const Eigen::VectorXd r = residual(st);
    Eigen::VectorXd grad, b;
    if (g < 0) {
      grad = Eigen::VectorXd::Constant(1, -r.sum());
      b = Eigen::VectorXd::Constant(1, st.a0);
    } else {
      grad = -(z_.middleCols(start_[g], size(g)).transpose() * r);
      b = block(st.b, g);
    }
    const bool checked = !ops_.curvature_bound_global();  // the bound holds near the current fit only
    double v = ops_.curvature_bound(ops_.mean(st.eta));
    const double old = checked ? loss(st.eta) : 0.0;
    Eigen::VectorXd bn, d, eta;
    for (;;) {
      const Eigen::VectorXd u = b - grad / v;
      const double nu = u.norm();
      bn = pen > 0.0 ? (nu > pen / v ? Eigen::VectorXd(u * (1.0 - pen / (v * nu))) : Eigen::VectorXd::Zero(u.size()))
                     : u;
      d = bn - b;
      if (!(d.array() != 0.0).any()) return 0.0;
      eta = g < 0 ? Eigen::VectorXd(st.eta.array() + d[0])
                  : Eigen::VectorXd(st.eta + z_.middleCols(start_[g], size(g)) * d);
      if (!checked) break;
      const double bound = old + grad.dot(d) + v / 2.0 * d.squaredNorm();
      if (loss(eta) <= bound + 1e-13 * std::abs(old)) break;
      v *= 2.0;
    }
    if (g < 0) st.a0 = bn[0]; else st.b.segment(start_[g], size(g)) = bn;
    st.eta = std::move(eta);
    return d.cwiseAbs().maxCoeff();
  }

  double step(GroupLassoState& st, Eigen::Index g, double pen) const {
    return gaussian() ? step_gaussian(st, g, pen) : step_glm(st, g, pen);
  }

  // Whether the groups among `active` meet their optimality conditions to a relative 1e-9:
  // q_g = penalty m_g b_g / ||b_g|| for a non-zero group, ||q_g|| <= penalty m_g for a zero one.
  bool stationary(const GroupLassoState& st, double penalty, const std::vector<bool>& active) const {
    const Eigen::VectorXd r = gaussian() ? Eigen::VectorXd() : residual(st);
    for (Eigen::Index g = 0; g < groups(); ++g) {
      if (!active[g]) continue;
      const Eigen::VectorXd q = gaussian() ? Eigen::VectorXd(block(st.q, g))
                                           : Eigen::VectorXd(z_.middleCols(start_[g], size(g)).transpose() * r);
      const Eigen::VectorXd b = block(st.b, g);
      const double nb = b.norm(), pen = penalty * m_[g];
      const double off = nb == 0.0 ? std::max(0.0, q.norm() - pen) : (q - pen * b / nb).norm();
      if (off > 1e-9 * pen) return false;
    }
    return true;
  }

  std::vector<bool> support(const GroupLassoState& st) const {
    std::vector<bool> s(groups());
    for (Eigen::Index g = 0; g < groups(); ++g) s[g] = nonzero(st, g);
    return s;
  }

  // Newton's method on the non-zero groups of a gaussian state, where the objective
  // 1/2 b'Gb - b'zy + penalty sum_g m_g ||b_g|| is smooth: gradient G b - zy + penalty m_g b_g / ||b_g||,
  // Hessian G + penalty m_g (I - u_g u_g') / ||b_g|| (u_g = b_g / ||b_g||), with a backtracking line
  // search. Block coordinate descent is slow when groups are strongly correlated; this finishes the
  // solve in a few steps once the non-zero groups are found. False when a step fails (a group heading
  // to 0, which block coordinate descent then settles).
  bool newton(GroupLassoState& st, double penalty) const {
    std::vector<Eigen::Index> nz, cols;
    for (Eigen::Index g = 0; g < groups(); ++g) {
      if (!nonzero(st, g)) continue;
      nz.push_back(g);
      for (Eigen::Index j = start_[g]; j < start_[g + 1]; ++j) cols.push_back(j);
    }
    if (nz.empty()) return false;
    const Eigen::Index A = static_cast<Eigen::Index>(cols.size());
    Eigen::MatrixXd G(A, A);
    Eigen::VectorXd zy(A), b(A);
    for (Eigen::Index i = 0; i < A; ++i) {
      zy[i] = zy_[cols[i]];
      b[i] = st.b[cols[i]];
      for (Eigen::Index k = 0; k < A; ++k) G(i, k) = gram_(cols[i], cols[k]);
    }
    std::vector<Eigen::Index> at(nz.size() + 1, 0);  // group i's columns within A
    std::vector<double> pen(nz.size());
    for (size_t i = 0; i < nz.size(); ++i) {
      at[i + 1] = at[i] + size(nz[i]);
      pen[i] = penalty * m_[nz[i]];
    }
    const auto norms = [&](const Eigen::VectorXd& v) {
      std::vector<double> out(nz.size());
      for (size_t i = 0; i < nz.size(); ++i) out[i] = v.segment(at[i], at[i + 1] - at[i]).norm();
      return out;
    };
    const auto objective = [&](const Eigen::VectorXd& v) {
      const std::vector<double> nv = norms(v);
      double f = v.dot(G * v) / 2.0 - zy.dot(v);
      for (size_t i = 0; i < nz.size(); ++i) f += pen[i] * nv[i];
      return f;
    };
    const double min_pen = *std::min_element(pen.begin(), pen.end());
    for (int it = 0; it < 30; ++it) {
      const std::vector<double> nb = norms(b);
      if (std::any_of(nb.begin(), nb.end(), [](double x) { return x == 0.0; })) return false;
      Eigen::VectorXd grad = G * b - zy;
      Eigen::MatrixXd H = G;
      for (size_t i = 0; i < nz.size(); ++i) {
        const Eigen::Index k = at[i + 1] - at[i];
        const Eigen::VectorXd u = b.segment(at[i], k) / nb[i];
        grad.segment(at[i], k) += pen[i] * u;
        H.block(at[i], at[i], k, k) += pen[i] / nb[i] * (Eigen::MatrixXd::Identity(k, k) - u * u.transpose());
      }
      if (grad.norm() <= 1e-11 * min_pen) break;
      // H is positive definite unless the groups are collinear: Cholesky, else LU as R's solve() (refused
      // when near singular)
      Eigen::VectorXd dir;
      const Eigen::LLT<Eigen::MatrixXd> llt(H);
      if (llt.info() == Eigen::Success) {
        dir = llt.solve(grad);
      } else {
        const Eigen::PartialPivLU<Eigen::MatrixXd> lu(H);
        if (!(lu.rcond() >= std::numeric_limits<double>::epsilon())) return false;
        dir = lu.solve(grad);
      }
      if (!dir.allFinite()) return false;
      const double f0 = objective(b), slope = grad.dot(dir);
      double t = 1.0;
      Eigen::VectorXd bn;
      for (;;) {
        bn = b - t * dir;
        if (objective(bn) <= f0 - 1e-4 * t * slope) break;
        t /= 2.0;
        if (t < 1e-8) return false;
      }
      b = bn;
    }
    Eigen::VectorXd d(A);
    for (Eigen::Index i = 0; i < A; ++i) d[i] = b[i] - st.b[cols[i]];
    for (Eigen::Index i = 0; i < A; ++i) {
      st.q.noalias() -= gram_.col(cols[i]) * d[i];
      st.b[cols[i]] = b[i];
    }
    return true;
  }

  // The solution at penalty, warm-started from st; group `exclude` (or -1) is held at 0.
  GroupLassoState solve(double penalty, GroupLassoState st, Eigen::Index exclude = -1) const {
    std::vector<bool> active = support(st);
    std::vector<bool> last_support;
    int stable = 0;
    long passes = 0;
    for (int iter = 0; iter < max_iter_; ++iter) {
      for (;;) {
        if (++passes % 1000 == 0) poll_();
        if (passes > 100L * max_iter_) break;
        double change = 0.0;
        if (!gaussian()) change = step_glm(st, -1, 0.0);
        for (Eigen::Index g = 0; g < groups(); ++g) {
          if (active[g]) change = std::max(change, step(st, g, penalty * m_[g]));
        }
        if (change <= tol_ && stationary(st, penalty, active)) break;
        if (gaussian()) {
          const std::vector<bool> s = support(st);
          if (s != last_support) {
            last_support = s;
            stable = 0;
          }
          if (++stable == 10 && change > 1e3 * tol_) {
            GroupLassoState polished = st;
            if (newton(polished, penalty) && stationary(polished, penalty, active)) {
              st = std::move(polished);
              break;
            }
          }
        }
      }
      if (passes > 100L * max_iter_) break;
      const Eigen::VectorXd gn = gradnorm(st);
      bool any = false;
      for (Eigen::Index g = 0; g < groups(); ++g) {
        if (active[g] || g == exclude || !(gn[g] > penalty * m_[g] * (1.0 + 1e-12))) continue;
        active[g] = true;
        any = true;
      }
      if (!any) return st;
    }
    throw std::runtime_error("the group lasso did not converge in " + std::to_string(max_iter_) +
                             " passes at penalty = " + std::to_string(penalty) + ".");
  }

  // The penalty at which group g enters, between lo (where it is non-zero) and hi (where it is 0, at
  // solution st_hi): the root of ||q_g|| - penalty m_g at the solution that holds g at 0.
  double entry(Eigen::Index g, double lo, double hi, const GroupLassoState& st_hi) const {
    GroupLassoState warm = st_hi;
    const auto h = [&](double penalty) {
      warm = solve(penalty, std::move(warm), g);
      return gradnorm(warm, g) - penalty * m_[g];
    };
    const double h_hi = gradnorm(st_hi, g) - hi * m_[g];
    if (h_hi >= 0.0) return hi;
    const double h_lo = h(lo);
    if (h_lo <= 0.0) return lo;
    warm = st_hi;
    return brent_root(h, lo, hi, h_lo, h_hi, 1e-10 * hi);
  }
};

}  // namespace fgseq

#endif
