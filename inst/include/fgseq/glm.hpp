// Generalized linear models for the greedy engine (Hu, Grubb, Bagnell & Hebert 2014, appendix B):
// binomial, Poisson and multinomial families, with observation weights, offsets and unpenalized
// intercepts. The risk of a set S of groups is the ridge-regularized weighted mean negative
// log-likelihood
//   R(S) = min_{a, W} (1/sum(w)) sum_i w_i [Phi(eta_i) - y_i' eta_i] + lambda/2 ||W||_F^2,
//   eta_i = offset_i + a + z_{i,S} W,
// with z the standardized, group-whitened columns (as for the linear model). It is minimized by a
// damped Newton (IRLS) solver, warm-started from the previous step. OMP scores the gradient of R with
// respect to each unselected group's coefficients (zero at the current fit); FR scores the decrease of
// R, exactly (a refit per candidate) or by its quadratic approximation (one Newton step through the
// Schur complement of the Hessian).
#ifndef FGSEQ_GLM_HPP
#define FGSEQ_GLM_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "design.hpp"
#include "engine.hpp"
#include "stats.hpp"
#include "whiten.hpp"

namespace fgseq {

enum class Family { Gaussian, MGaussian, Binomial, Poisson, Multinomial };

// Mean, loss, deviance and Hessian weights of a family, over all rows at once.
struct FamilyOps {
  Family family;

  // mu = grad Phi(eta), row by row
  MatrixXd mean(const MatrixXd& eta) const {
    switch (family) {
      case Family::Binomial:
        return eta.unaryExpr([](double e) { return 1.0 / (1.0 + std::exp(-e)); });
      case Family::Poisson:
        return eta.array().exp().matrix();
      case Family::Multinomial: {
        MatrixXd mu = eta.colwise() - eta.rowwise().maxCoeff();
        mu = mu.array().exp().matrix();
        const VectorXd s = mu.rowwise().sum();
        return s.cwiseInverse().asDiagonal() * mu;
      }
      default:
        return eta;
    }
  }

  // sum_i w_i [Phi(eta_i) - y_i' eta_i]
  double loss(const MatrixXd& eta, const MatrixXd& y, const VectorXd& w) const {
    VectorXd phi(eta.rows());
    switch (family) {
      case Family::Binomial:
        phi = eta.col(0).unaryExpr([](double e) { return std::max(e, 0.0) + std::log1p(std::exp(-std::abs(e))); });
        break;
      case Family::Poisson:
        phi = eta.col(0).array().exp().matrix();
        break;
      case Family::Multinomial: {
        const VectorXd m = eta.rowwise().maxCoeff();
        phi = m + ((eta.colwise() - m).array().exp().rowwise().sum().log()).matrix();
        break;
      }
      default:
        phi = 0.5 * eta.rowwise().squaredNorm();
    }
    const VectorXd ye = eta.cwiseProduct(y).rowwise().sum();
    return w.dot(phi - ye);
  }

  // 2 * sum_i w_i [l_saturated - l(mu_i)]
  double deviance(const MatrixXd& mu, const MatrixXd& y, const VectorXd& w) const {
    double d = 0.0;
    for (Index i = 0; i < mu.rows(); ++i) {
      double di = 0.0;
      switch (family) {
        case Family::Binomial: {
          const double yi = y(i, 0), m = mu(i, 0);
          if (yi > 0) di -= yi * std::log(m / yi);
          if (yi < 1) di -= (1 - yi) * std::log((1 - m) / (1 - yi));
          break;
        }
        case Family::Poisson: {
          const double yi = y(i, 0), m = mu(i, 0);
          di = (yi > 0 ? yi * std::log(yi / m) : 0.0) - (yi - m);
          break;
        }
        case Family::Multinomial:
          for (Index c = 0; c < mu.cols(); ++c)
            if (y(i, c) > 0) di -= y(i, c) * std::log(mu(i, c) / y(i, c));
          break;
        default:
          di = 0.5 * (y.row(i) - mu.row(i)).squaredNorm();
      }
      d += 2.0 * w(i) * di;
    }
    return d;
  }

  // Hessian weight of the (c, d) pair of linear predictors: d mu_c / d eta_d, per row
  VectorXd hessian_weight(const MatrixXd& mu, Index c, Index d) const {
    switch (family) {
      case Family::Binomial:
        return mu.col(0).cwiseProduct((1.0 - mu.col(0).array()).matrix());
      case Family::Poisson:
        return mu.col(0);
      case Family::Multinomial:
        if (c == d) return mu.col(c).cwiseProduct((1.0 - mu.col(c).array()).matrix());
        return -mu.col(c).cwiseProduct(mu.col(d));
      default:
        return VectorXd::Constant(mu.rows(), c == d ? 1.0 : 0.0);
    }
  }
};

// Result of one penalized Newton solve.
struct NewtonFit {
  MatrixXd theta;   // (m + 1) x P: intercepts in row 0, whitened coefficients below
  MatrixXd eta, mu;
  double risk = 0.0;
  bool converged = true;
};

class GlmModel : public SelectionModel {
 public:
  GlmModel(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
           Family family, const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl)
      : x_(x), y_(y), w_(w), offset_(offset), fam_{family}, wh_(wh), st_(st), lay_(lay), ctl_(ctl) {
    W_ = w_.sum();
    selected_.assign(static_cast<size_t>(lay_.size()), false);
    Z_ = MatrixXd::Ones(x_.rows(), 1);
    MatrixXd theta0 = MatrixXd::Zero(1, y_.cols());
    // start the intercepts at the link of the weighted mean response
    const VectorXd ybar = y_.transpose() * w_ / W_;
    for (Index c = 0; c < y_.cols(); ++c) {
      const double m = std::min(std::max(ybar(c), 1e-10), 1 - 1e-10);
      if (family == Family::Binomial) theta0(0, c) = std::log(m / (1 - m));
      else if (family == Family::Poisson) theta0(0, c) = std::log(std::max(ybar(c), 1e-10));
      else if (family == Family::Multinomial) theta0(0, c) = std::log(m);
    }
    fit_ = newton(Z_, theta0);
    resid_ = w_.asDiagonal() * (y_ - fit_.mu);
    null_risk_ = fit_.risk;
    null_deviance_ = fam_.deviance(fit_.mu, y_, w_);
    converged_ = fit_.converged;
  }

  Index n_groups() const override { return lay_.size(); }
  bool selectable(Index h) const override { return rank(h) > 0; }
  double objective() const override { return null_risk_ - fit_.risk; }
  double score_scale() const override { return 1.0; }
  double r2() const override { return null_deviance_ > 0 ? 1.0 - deviance() / null_deviance_ : 0.0; }
  VectorXd intercept() const override { return fit_.theta.row(0).transpose(); }
  MatrixXd coef() const override {
    MatrixXd w = MatrixXd::Zero(wh_.q, y_.cols());
    Index row = 1;
    for (Index g : order_) {
      w.middleRows(offset(g), rank(g)) = fit_.theta.middleRows(row, rank(g));
      row += rank(g);
    }
    return w;
  }
  double null_deviance() const { return null_deviance_; }
  double null_risk() const { return null_risk_; }
  double deviance() const { return fam_.deviance(fit_.mu, y_, w_); }
  bool converged() const { return converged_; }

  double raw_score(Index h) override {
    if (ctl_.method == Method::OMP) {
      const MatrixXd bs = standardized_gradient(h);
      switch (ctl_.criterion) {
        case Criterion::Whitened:
          return (wh_.T[static_cast<size_t>(h)].transpose() * bs).squaredNorm();
        case Criterion::L2:
          return bs.squaredNorm();
        case Criterion::Linf:
          return bs.rowwise().squaredNorm().maxCoeff();
      }
    }
    const MatrixXd Zh = whitened_columns(h);
    if (ctl_.fr_gain == FrGain::Exact) {
      MatrixXd Z(x_.rows(), Z_.cols() + Zh.cols());
      Z << Z_, Zh;
      MatrixXd theta(fit_.theta.rows() + Zh.cols(), y_.cols());
      theta << fit_.theta, MatrixXd::Zero(Zh.cols(), y_.cols());
      const NewtonFit f = newton(Z, theta);
      converged_ = converged_ && f.converged;
      return std::max(fit_.risk - f.risk, 0.0);
    }
    return quadratic_gain(Zh);
  }

  void add_group(Index g) override {
    const MatrixXd Zg = whitened_columns(g);
    Z_.conservativeResize(Eigen::NoChange, Z_.cols() + Zg.cols());
    Z_.rightCols(Zg.cols()) = Zg;
    MatrixXd theta(fit_.theta.rows() + Zg.cols(), y_.cols());
    theta << fit_.theta, MatrixXd::Zero(Zg.cols(), y_.cols());
    fit_ = newton(Z_, theta);
    resid_ = w_.asDiagonal() * (y_ - fit_.mu);
    converged_ = converged_ && fit_.converged;
    hessian_ready_ = false;
    selected_[g] = true;
    order_.push_back(g);
  }

 private:
  const Design& x_;
  const MatrixXd& y_;
  const VectorXd& w_;
  const MatrixXd& offset_;
  FamilyOps fam_;
  const Whitened& wh_;
  const GramStats& st_;
  const GroupLayout& lay_;
  Control ctl_;
  double W_ = 0.0, null_risk_ = 0.0, null_deviance_ = 0.0;
  MatrixXd Z_;                 // n x (m + 1): a column of ones, then the whitened columns of the selected groups
  std::vector<Index> order_;
  std::vector<bool> selected_;
  NewtonFit fit_;
  MatrixXd resid_;                    // w * (y - mu) at the current fit, shared by every candidate's score
  bool converged_ = true;
  bool hessian_ready_ = false;        // H_ldlt_ is the Hessian at the current fit
  Eigen::LDLT<MatrixXd> H_ldlt_;      // factorized Hessian at the current fit (quadratic FR gains)

  Index rank(Index h) const { return wh_.rank[static_cast<size_t>(h)]; }
  Index offset(Index h) const { return wh_.offset[static_cast<size_t>(h)]; }

  // z_h = (x_h - mean) / sd * T_h, n x r_h
  MatrixXd whitened_columns(Index h) const {
    return standardized_columns(x_, lay_.cols[static_cast<size_t>(h)], st_) * wh_.T[static_cast<size_t>(h)];
  }

  // Gradient of the log-likelihood part with respect to the standardized columns of h: Xs_h' r / W
  MatrixXd standardized_gradient(Index h) const {
    const MatrixXd& r = resid_;
    const VectorXd rsum = r.colwise().sum().transpose();
    const auto& cols = lay_.cols[static_cast<size_t>(h)];
    MatrixXd g(static_cast<Index>(cols.size()), y_.cols());
    for (size_t a = 0; a < cols.size(); ++a) {
      const Index j = cols[a];
      if (st_.constant[static_cast<size_t>(j)]) {
        g.row(static_cast<Index>(a)).setZero();
        continue;
      }
      g.row(static_cast<Index>(a)) = (x_.col_tmul(j, r) - st_.mean(j) * rsum.transpose()) / (st_.scale(j) * W_);
    }
    return g;
  }

  double risk(const MatrixXd& eta, const MatrixXd& theta) const {
    return fam_.loss(eta, y_, w_) / W_ + 0.5 * ctl_.lambda * theta.bottomRows(theta.rows() - 1).squaredNorm();
  }

  // The P x P blocks A' diag(w * dmu_c/deta_d / W) B, ordered response by response (row c * cols(A) + j,
  // column d * cols(B) + k). With A == B (same object) the diagonal blocks use a symmetric rank update.
  MatrixXd weighted_cross(const MatrixXd& A, const MatrixXd& B, const MatrixXd& mu) const {
    const Index ma = A.cols(), mb = B.cols(), P = y_.cols();
    const bool same = &A == &B;
    MatrixXd H(ma * P, mb * P);
    for (Index c = 0; c < P; ++c)
      for (Index d = (same ? c : 0); d < P; ++d) {
        const VectorXd v = w_.cwiseProduct(fam_.hessian_weight(mu, c, d)) / W_;
        MatrixXd block(ma, mb);
        if (same && c == d) {
          // sum over row chunks of (sqrt(v) A)'(sqrt(v) A): no n x m copy
          block.setZero();
          const VectorXd sv = v.cwiseMax(0.0).cwiseSqrt();
          const Index n = A.rows(), step = chunk_rows(n, ma);
          MatrixXd Bs(step, ma);
          for (Index start = 0; start < n; start += step) {
            const Index rows = std::min(step, n - start);
            Bs.topRows(rows).noalias() = sv.segment(start, rows).asDiagonal() * A.middleRows(start, rows);
            block.selfadjointView<Eigen::Lower>().rankUpdate(Bs.topRows(rows).transpose());
          }
          block.triangularView<Eigen::StrictlyUpper>() = block.transpose();
        } else {
          block.noalias() = A.transpose() * (v.asDiagonal() * B);
        }
        H.block(c * ma, d * mb, ma, mb) = block;
        if (same && c != d) H.block(d * ma, c * mb, ma, mb) = block.transpose();
      }
    return H;
  }

  // Hessian of the risk in theta = (intercepts; coefficients), Z1 = [1, Z]; ridge on the coefficients.
  MatrixXd hessian(const MatrixXd& Z1, const MatrixXd& mu) const {
    const Index m1 = Z1.cols(), P = y_.cols();
    MatrixXd H = weighted_cross(Z1, Z1, mu);
    for (Index c = 0; c < P; ++c) H.diagonal().segment(c * m1 + 1, m1 - 1).array() += ctl_.lambda;
    return H;
  }

  // Damped Newton on the penalized risk over the columns Z1 = [1, Z] (intercepts unpenalized).
  NewtonFit newton(const MatrixXd& Z1, const MatrixXd& theta0) const {
    const Index m1 = Z1.cols(), P = y_.cols();
    NewtonFit f;
    f.theta = theta0;
    f.eta = offset_ + Z1 * f.theta;
    f.mu = fam_.mean(f.eta);
    f.risk = risk(f.eta, f.theta);
    f.converged = false;
    for (int it = 0; it < ctl_.newton_max_iter; ++it) {
      MatrixXd G = Z1.transpose() * (w_.asDiagonal() * (f.mu - y_)) / W_;
      G.bottomRows(m1 - 1) += ctl_.lambda * f.theta.bottomRows(m1 - 1);
      // converged: the gradient vanishes to rounding (checked before paying for a Hessian)
      if (G.cwiseAbs().maxCoeff() <= ctl_.grad_tol) {
        f.converged = true;
        break;
      }
      MatrixXd H = hessian(Z1, f.mu);
      // a tiny ridge keeps the solve defined in flat directions (multinomial intercepts, collinear
      // columns at lambda = 0); the gradient has no component there
      const double jitter = 1e-12 * std::max(H.diagonal().maxCoeff(), 1e-300);
      H.diagonal().array() += jitter;
      const Eigen::Map<const VectorXd> g(G.data(), G.size());
      const VectorXd delta = -H.ldlt().solve(g);
      const double decrement = -g.dot(delta);  // Newton decrement (squared), >= 0
      if (!(decrement >= 0) || !std::isfinite(decrement)) break;
      const Eigen::Map<const MatrixXd> D(delta.data(), m1, P);
      double t = 1.0;
      NewtonFit next;
      bool improved = false;
      for (int half = 0; half < 50; ++half, t *= 0.5) {
        next.theta = f.theta + t * D;
        next.eta = offset_ + Z1 * next.theta;
        next.risk = risk(next.eta, next.theta);
        if (std::isfinite(next.risk) && next.risk <= f.risk + 1e-4 * t * -decrement) {
          improved = true;
          break;
        }
      }
      if (!improved) {  // no descent left: at the optimum up to rounding
        f.converged = decrement <= 1e-8 * (std::abs(f.risk) + 1e-8);
        break;
      }
      next.mu = fam_.mean(next.eta);
      const double change = f.risk - next.risk;
      f = std::move(next);
      // the risk no longer moves and the last Newton decrement was small: converged
      if (change <= ctl_.newton_tol * (std::abs(f.risk) + ctl_.newton_tol) && decrement <= 1e-12 * (std::abs(f.risk) + 1e-8)) {
        f.converged = true;
        break;
      }
    }
    // without a ridge, a minimum at infinity (separation: fitted probabilities or means numerically 0 or
    // 1) is reached only in the limit; the iterate is finite but the fit has not converged
    if (ctl_.lambda == 0 && fam_.family != Family::Gaussian && fam_.family != Family::MGaussian) {
      const double eps = 1e-10;
      for (Index i = 0; i < f.mu.rows() && f.converged; ++i) {
        if (w_(i) <= 0) continue;
        for (Index c = 0; c < f.mu.cols(); ++c) {
          const double m = f.mu(i, c);
          if (m < eps || (fam_.family != Family::Poisson && m > 1 - eps)) f.converged = false;
        }
      }
    }
    return f;
  }

  // One Newton step from the current fit after adding the columns Zh: the decrease of the quadratic
  // model, vec(b)' pinv(M) vec(b) / 2, with b the gradient for the new coefficients and M the Schur
  // complement of the current Hessian (factorized once per step) in the Hessian of [1, Z, Zh].
  double quadratic_gain(const MatrixXd& Zh) {
    const Index r = Zh.cols(), P = y_.cols();
    if (!hessian_ready_) {
      MatrixXd H = hessian(Z_, fit_.mu);
      H.diagonal().array() += 1e-12 * std::max(H.diagonal().maxCoeff(), 1e-300);
      H_ldlt_.compute(H);
      hessian_ready_ = true;
    }
    const MatrixXd Gh = -(Zh.transpose() * resid_) / W_;
    const MatrixXd Hac = weighted_cross(Zh, Z_, fit_.mu);
    MatrixXd Mhh = weighted_cross(Zh, Zh, fit_.mu);
    Mhh.diagonal().array() += ctl_.lambda;
    Mhh.noalias() -= Hac * H_ldlt_.solve(Hac.transpose());
    Mhh = 0.5 * (Mhh + Mhh.transpose()).eval();
    const Eigen::Map<const VectorXd> b(Gh.data(), r * P);
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Mhh);
    const VectorXd u = es.eigenvectors().transpose() * b;
    const double tol = ctl_.pivot_tol * (es.eigenvalues().cwiseAbs().maxCoeff() + ctl_.lambda);
    double s = 0.0;
    for (Index i = 0; i < u.size(); ++i)
      if (es.eigenvalues()(i) > tol) s += u(i) * u(i) / es.eigenvalues()(i);
    return 0.5 * s;
  }
};

}  // namespace fgseq

#endif
