// The GLM models of the greedy engine over rows in memory (glm/evaluator.hpp has the model):
// GlmPathModel, what every GLM model shares, and GlmModel, whose refits are Newton solves over the rows.
#ifndef FGSEQ_GLM_MODEL_HPP
#define FGSEQ_GLM_MODEL_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../greedy/model.hpp"
#include "columns.hpp"
#include "multinomial.hpp"
#include "sums.hpp"

namespace fgseq {

// Result of one penalized Newton solve.
struct NewtonFit {
  MatrixXd theta;   // (m + 1) x P: intercepts in row 0, whitened coefficients below
  MatrixXd eta, mu;
  double risk = 0.0;
  bool converged = true;
  bool diverging = false;  // see NewtonSolution
};

// What GlmModel and GlmRefitModel share: the selected groups in order, the current fit (theta, risk,
// deviance), the null fit, and the gradients of the log-likelihood part that CS-G-OMP scores.
class GlmPathModel : public GroupModel {
 public:
  double objective() const override { return null_risk_ - risk_; }
  double score_scale() const override { return 1.0; }
  double r2() const override { return null_deviance_ > 0 ? 1.0 - deviance_ / null_deviance_ : 0.0; }
  VectorXd intercept() const override { return theta_.row(0).transpose(); }
  MatrixXd coef() const override { return scatter(theta_.bottomRows(theta_.rows() - 1)); }
  double null_risk() const override { return null_risk_; }
  bool converged() const override { return converged_; }
  bool diverged() const override { return diverged_; }

  void set_candidates(const std::vector<bool>& candidates) override {
    candidate_ = candidates;
    gains_ready_ = false;
  }

 protected:
  GlmPathModel(const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl)
      : GroupModel(wh, st, lay, ctl), candidate_(static_cast<size_t>(lay.size()), true) {}

  std::vector<bool> candidate_;   // the candidates of the step
  bool gains_ready_ = false;      // gain_ and step_ hold the candidates' quadratic gains and Newton steps
  std::vector<double> gain_;      // at the current fit, per group
  std::vector<VectorXd> step_;    // per group (see QuadraticGains)

  // The candidates of the step whose quadratic gains are to be computed (rank > 0), in group order.
  std::vector<Index> gain_candidates() const {
    std::vector<Index> cand;
    for (Index h = 0; h < lay_.size(); ++h)
      if (candidate_[static_cast<size_t>(h)] && !selected_[static_cast<size_t>(h)] && rank(h) > 0) cand.push_back(h);
    return cand;
  }

  // Keeps the gains of the candidates `cand` (in the layout's order) at the current fit.
  void store_gains(const std::vector<Index>& cand, QuadraticGains q) {
    gain_.assign(static_cast<size_t>(lay_.size()), 0.0);
    step_.assign(static_cast<size_t>(lay_.size()), VectorXd());
    for (size_t i = 0; i < cand.size(); ++i) {
      gain_[static_cast<size_t>(cand[i])] = q.gain[i];
      step_[static_cast<size_t>(cand[i])] = std::move(q.step[i]);
    }
    gains_ready_ = true;
  }

  // The start of the refit after adding g (before it is recorded): the current theta with zero rows for
  // g's coefficients, or, after quadratic gains, the Newton step g's gain came from (the first iterate of
  // a refit from the current fit, whose Hessian the gains' pass formed already); `stepped` says which.
  MatrixXd refit_start(Index g, bool& stepped) const {
    const Index r = rank(g);
    MatrixXd theta0 = extended_theta(r);
    stepped = gains_ready_ && step_[static_cast<size_t>(g)].size();
    if (!stepped) return theta0;
    const VectorXd& step = step_[static_cast<size_t>(g)];
    const Index P = theta0.cols(), m1 = theta_.rows();
    for (Index c = 0; c < P; ++c) {
      theta0.col(c).head(m1) += step.segment(c * m1, m1);
      theta0.col(c).tail(r) = step.segment(m1 * P + c * r, r);
    }
    return theta0;
  }

  MatrixXd theta_;            // the current fit: (m + 1) x P, intercepts in row 0
  double risk_ = 0.0, deviance_ = 0.0, null_risk_ = 0.0, null_deviance_ = 0.0;
  bool converged_ = true;     // every fit so far converged
  bool diverged_ = false;     // a fit so far converged toward an optimum at infinity (NewtonSolution::diverging)

  // Records a fit over the groups in order_; the first one recorded is the null model.
  void set_fit(MatrixXd theta, double risk, double deviance, bool converged, bool diverging = false) {
    if (!has_fit_) {
      null_risk_ = risk;
      null_deviance_ = deviance;
      has_fit_ = true;
    }
    theta_ = std::move(theta);
    risk_ = risk;
    deviance_ = deviance;
    converged_ = converged_ && converged;
    diverged_ = diverged_ || diverging;
  }

  // The current theta with zero rows for a group of rank r: the start of the refit after adding it
  MatrixXd extended_theta(Index r) const {
    MatrixXd theta(theta_.rows() + r, theta_.cols());
    theta << theta_, MatrixXd::Zero(r, theta_.cols());
    return theta;
  }

  double W_ = 0.0;               // the total weight of the rows
  VectorXd rsum_;                // 1'r, r = diag(w) (y - mu) at the current fit
  MatrixXd xr_;                  // OMP: x' r (p x P), every column's in one pass

  // CS-G-OMP's score of group h at the current fit: its standardized gradient (from xr_, rsum_, W_).
  double gradient_score(Index h) const {
    const auto xr = [this](Index j) { return xr_.row(j); };
    return standardized_gradient_score(h, standardized_gradient(h, xr, rsum_, W_));
  }

  // Gradient of the log-likelihood part with respect to the standardized columns of h (d_h x P):
  // (x_j' r - mean_j 1'r) / (sd_j W) with r = diag(w) (y - mu), 0 for constant columns. xr(j) gives
  // x_j' r (1 x P), rsum is 1'r.
  template <class ColumnProduct>
  MatrixXd standardized_gradient(Index h, const ColumnProduct& xr, const VectorXd& rsum, double W) const {
    const auto& cols = lay_.cols[static_cast<size_t>(h)];
    MatrixXd g(static_cast<Index>(cols.size()), rsum.size());
    for (size_t a = 0; a < cols.size(); ++a) {
      const Index j = cols[a];
      if (st_.constant[static_cast<size_t>(j)]) {
        g.row(static_cast<Index>(a)).setZero();
        continue;
      }
      g.row(static_cast<Index>(a)) = (xr(j) - st_.mean(j) * rsum.transpose()) / (st_.scale(j) * W);
    }
    return g;
  }

 private:
  bool has_fit_ = false;
};

// The GLM over rows in memory: every refit is a Newton solve over the rows.
//
// The whitened columns of the fit, Z_ = [1, selected groups in selection order], are formed from x a
// block of rows at a time by every pass (WhitenedColumns, glm/columns.hpp), never held: a candidate's
// columns join them for its exact FR refit, or with every other candidate's for one pass of the
// quadratic FR gains (gain_sums(), schur_gains()).
class GlmModel : public GlmPathModel {
 public:
  GlmModel(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
           Family family, const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl,
           Blas blas = Blas())
      : GlmPathModel(wh, st, lay, ctl), x_(x), y_(y), w_(w), offset_(offset), fam_{family},
        blas_(std::move(blas)), Z_(x, st) {
    W_ = w_.sum();
    newton_ctl_ = ctl_;
    if (std::isnan(newton_ctl_.grad_scale)) newton_ctl_.grad_scale = response_scale(y_, w_);
    // the null model: start the intercepts at the link of the weighted mean response
    const VectorXd ybar = y_.transpose() * w_ / W_;
    if (hessian_free()) {
      gram_.A = MatrixXd::Ones(1, 1);
      gram_.decompose();
    }
    accept(newton(Z_, fam_.null_intercepts(ybar), gram_));
  }

  double raw_score(Index h) override {
    switch (scoring()) {
      case Scores::Gradient:
        return gradient_score(h);
      case Scores::Gain:
        return gain(h);
    }
    no_case(scoring(), "GlmModel::raw_score");
  }

  void add_group(Index g) override {
    append(Z_, g);
    if (hessian_free()) {
      gram_.A = extend_gram(gram_.A, Z_, w_, W_, ctl_.threads);
      gram_.decompose();
    }
    bool stepped = false;
    MatrixXd theta0 = refit_start(g, stepped);
    record(g);
    if (stepped && !(risk_at(Z_, theta0) < risk_))
      theta0 = extended_theta(rank(g));  // the step does not descend (far from quadratic): start from the current fit
    accept(newton(Z_, theta0, gram_));
  }

 private:
  // The gain of adding group h (CS-G-FR and Doubling): the exact refit's, or the quadratic gain of one
  // Newton step (fr_gain).
  double gain(Index h) {
    if (ctl_.fr_gain == FrGain::Exact) {
      WhitenedColumns Z = Z_;
      append(Z, h);
      ColumnGram gram;
      gram.use_hessian = gram_.use_hessian;
      gram.whole_hessian = gram_.whole_hessian;
      if (hessian_free()) {
        gram.A = extend_gram(gram_.A, Z, w_, W_, ctl_.threads);
        gram.decompose();
      }
      const NewtonFit f = newton(Z, extended_theta(rank(h)), gram);
      converged_ = converged_ && f.converged;
      return std::max(risk_ - f.risk, 0.0);
    }
    if (!gains_ready_) quadratic_gains();
    return gain_[static_cast<size_t>(h)];
  }

  const Design& x_;
  const MatrixXd& y_;
  const VectorXd& w_;
  const MatrixXd& offset_;
  FamilyOps fam_;
  Blas blas_;                  // the multinomial's Hessian preconditioner: rank updates and Cholesky (or empty)
  NewtonControl newton_ctl_;   // the fit's, with the gradient's scale of this response unless set (response_scale())
  WhitenedColumns Z_;          // [1, the selected groups' whitened columns], formed by each pass
  MatrixXd mu_;                // fitted means at the current fit
  MatrixXd resid_;             // w * (y - mu) at the current fit, shared by every candidate's score
                               // (its column sums rsum_, and x' resid_ in xr_ for OMP: GlmPathModel)
  ColumnGram gram_;            // multinomial: the weighted Gram matrix of Z_, decomposed

  // Whether the Newton directions come without the Hessian (the multinomial family, whose Hessian is
  // (m1 K)^2: glm/multinomial.hpp)
  bool hessian_free() const { return fam_.couples_columns(); }

  // Makes f the current fit.
  void accept(NewtonFit f) {
    mu_ = std::move(f.mu);
    resid_ = w_.asDiagonal() * (y_ - mu_);
    rsum_ = resid_.colwise().sum().transpose();
    if (scoring() == Scores::Gradient) xr_ = x_.tmul(resid_, ctl_.threads);
    gains_ready_ = false;
    set_fit(std::move(f.theta), f.risk, fam_.deviance(mu_, y_, w_), f.converged, f.diverging);
  }

  // Appends group h's whitened columns to Z.
  void append(WhitenedColumns& Z, Index h) const {
    Z.append(lay_.cols[static_cast<size_t>(h)], wh_.T[static_cast<size_t>(h)]);
  }

  // The penalized risk at theta over the columns Z1.
  double risk_at(const WhitenedColumns& Z1, const MatrixXd& theta) const {
    NewtonPoint pt;
    pt.theta = Eigen::Map<const VectorXd>(theta.data(), theta.size());
    glm_evaluator(fam_, Z1, y_, w_, W_, offset_, ctl_.lambda, ctl_.threads)(pt, NewtonNeed::Risk);
    return pt.risk;
  }

  // The penalized fit over the columns Z1 = [1, Z] (intercepts unpenalized), from theta0; gram: Z1's
  // weighted Gram matrix, decomposed (the multinomial family's Newton directions; unused otherwise).
  NewtonFit newton(const WhitenedColumns& Z1, const MatrixXd& theta0, const ColumnGram& gram) const {
    const Eigen::Map<const VectorXd> start(theta0.data(), theta0.size());
    NewtonSolution s =
        newton_solve(start, glm_evaluator(fam_, Z1, y_, w_, W_, offset_, ctl_.lambda, ctl_.threads), newton_ctl_, poll_,
                     hessian_free() ? multinomial_direction(Z1, w_, W_, ctl_.lambda, gram, ctl_.threads, poll_, blas_)
                                    : NewtonDirection());
    NewtonFit f;
    f.theta = Eigen::Map<const MatrixXd>(s.point.theta.data(), Z1.cols(), y_.cols());
    f.eta = std::move(s.point.eta);
    f.mu = std::move(s.point.mu);
    f.risk = s.point.risk;
    f.converged = s.converged;
    f.diverging = s.diverging;
    return f;
  }

  // The quadratic gains of the candidates: one Newton step from the current fit after adding a group's
  // columns, whose decrease of the quadratic model is vec(b)' pinv(M) vec(b) / 2, with b the gradient
  // for the new coefficients and M the Schur complement of the current Hessian in the Hessian of
  // [1, Z_S, Z_h] (see schur_gains()): one pass over [1, Z_S, every candidate's columns].
  void quadratic_gains() {
    const std::vector<Index> cand = gain_candidates();
    WhitenedColumns Z = Z_;
    std::vector<Index> col, rk;
    for (Index h : cand) {
      col.push_back(Z.cols());
      rk.push_back(rank(h));
      append(Z, h);
    }
    const GainLayout gl = gain_layout(Z_.cols(), std::move(col), std::move(rk));
    store_gains(cand, schur_gains(gain_sums(Z, gl, fam_, mu_, w_, resid_, W_, ctl_.threads, blas_), gl, y_.cols(),
                                  ctl_.lambda, ctl_.pivot_tol, blas_));
  }
};

}  // namespace fgseq

#endif
