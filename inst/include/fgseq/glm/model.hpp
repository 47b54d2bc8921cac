// The GLM models of the greedy engine over rows in memory (glm/evaluator.hpp has the model):
// GlmPathModel, what every GLM model shares, and GlmModel, whose refits are Newton solves over the rows.
#ifndef FGSEQ_GLM_MODEL_HPP
#define FGSEQ_GLM_MODEL_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../greedy/model.hpp"
#include "multinomial.hpp"
#include "sums.hpp"

namespace fgseq {

// Result of one penalized Newton solve.
struct NewtonFit {
  MatrixXd theta;   // (m + 1) x P: intercepts in row 0, whitened coefficients below
  MatrixXd eta, mu;
  double risk = 0.0;
  bool converged = true;
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

  // Records a fit over the groups in order_; the first one recorded is the null model.
  void set_fit(MatrixXd theta, double risk, double deviance, bool converged) {
    if (!has_fit_) {
      null_risk_ = risk;
      null_deviance_ = deviance;
      has_fit_ = true;
    }
    theta_ = std::move(theta);
    risk_ = risk;
    deviance_ = deviance;
    converged_ = converged_ && converged;
  }

  // The current theta with zero rows for a group of rank r: the start of the refit after adding it
  MatrixXd extended_theta(Index r) const {
    MatrixXd theta(theta_.rows() + r, theta_.cols());
    theta << theta_, MatrixXd::Zero(r, theta_.cols());
    return theta;
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
// The whitened columns live in Z_ = [1, selected groups in selection order, unselected groups]: CS-G-OMP
// appends a group's columns when it is selected; FR and Doubling, which score every candidate from its
// columns, make all of them once, and a selected group's columns move to the end of the selected part.
// Quadratic FR gains of all candidates of a step come from one pass over Z_ at the current fit
// (gain_sums(), schur_gains()).
class GlmModel : public GlmPathModel {
 public:
  GlmModel(const Design& x, const MatrixXd& y, const VectorXd& w, const MatrixXd& offset,
           Family family, const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl,
           const Poll& poll = Poll(), Blas blas = Blas())
      : GlmPathModel(wh, st, lay, ctl), x_(x), y_(y), w_(w), offset_(offset), fam_{family},
        blas_(std::move(blas)) {
    W_ = w_.sum();
    const Index G = lay_.size();
    col_.assign(static_cast<size_t>(G), -1);
    Index cols = 1;
    if (ctl_.method != Method::OMP)
      for (Index h = 0; h < G; ++h) cols += rank(h);
    Z_.resize(x_.rows(), cols);
    Z_.col(0).setOnes();
    // the null model: start the intercepts at the link of the weighted mean response
    const VectorXd ybar = y_.transpose() * w_ / W_;
    if (hessian_free()) {
      gram_.A = MatrixXd::Ones(1, 1);
      gram_.decompose();
    }
    accept(newton(Z_.leftCols(1), fam_.null_intercepts(ybar), gram_));
    // FR and Doubling: every group's whitened columns, polled between groups; when the poll throws
    // TimeUp (max_time spent) the model keeps its null fit and its path stops before its first step
    try {
      for (Index h = 0, at = 1; h < G && cols > 1; ++h) {
        if (rank(h) == 0) continue;
        if (poll) poll();
        col_[static_cast<size_t>(h)] = at;
        Z_.middleCols(at, rank(h)) = whitened_columns(h);
        at += rank(h);
      }
    } catch (const TimeUp&) {
      columns_ready_ = false;
    }
  }

  double raw_score(Index h) override {
    if (ctl_.method == Method::OMP) {
      const auto xr = [this](Index j) { return xr_.row(j); };
      return standardized_gradient_score(h, standardized_gradient(h, xr, rsum_, W_));
    }
    if (!columns_ready_) throw TimeUp();
    if (ctl_.fr_gain == FrGain::Exact) {
      const Index r = rank(h);
      MatrixXd Z(x_.rows(), m1_ + r);
      Z << Z_.leftCols(m1_), Z_.middleCols(col_[static_cast<size_t>(h)], r);
      ColumnGram gram;
      gram.use_hessian = gram_.use_hessian;
      if (hessian_free()) {
        gram.A = extend_gram(gram_.A, Z, w_, W_, ctl_.threads);
        gram.decompose();
      }
      const NewtonFit f = newton(Z, extended_theta(r), gram);
      converged_ = converged_ && f.converged;
      return std::max(risk_ - f.risk, 0.0);
    }
    if (!gains_ready_) quadratic_gains();
    return gain_[static_cast<size_t>(h)];
  }

  void add_group(Index g) override {
    if (!columns_ready_) throw TimeUp();
    const Index r = rank(g), n = x_.rows();
    const Index at = col_[static_cast<size_t>(g)];
    if (at < 0) {
      if (m1_ + r > Z_.cols()) {  // room for more groups: the capacity doubles, up to every group's columns
        Index all = 1;
        for (Index h = 0; h < lay_.size(); ++h) all += rank(h);
        Z_.conservativeResize(Eigen::NoChange, std::min(all, std::max(2 * Z_.cols(), m1_ + r)));
      }
      Z_.middleCols(m1_, r) = whitened_columns(g);
    } else if (at != m1_) {
      // move g's columns to the end of the selected part; the unselected columns before them shift right
      const MatrixXd Zg = Z_.middleCols(at, r);
      std::memmove(Z_.data() + (m1_ + r) * n, Z_.data() + m1_ * n, sizeof(double) * static_cast<size_t>((at - m1_) * n));
      Z_.middleCols(m1_, r) = Zg;
      for (Index& c : col_)
        if (c >= m1_ && c < at) c += r;
    }
    col_[static_cast<size_t>(g)] = m1_;
    if (hessian_free()) {
      gram_.A = extend_gram(gram_.A, Z_.leftCols(m1_ + r), w_, W_, ctl_.threads);
      gram_.decompose();
    }
    bool stepped = false;
    MatrixXd theta0 = refit_start(g, stepped);
    m1_ += r;
    record(g);
    if (stepped && !(risk_at(Z_.leftCols(m1_), theta0) < risk_))
      theta0 = extended_theta(r);  // the step does not descend (far from quadratic): start from the current fit
    accept(newton(Z_.leftCols(m1_), theta0, gram_));
  }

 private:
  const Design& x_;
  const MatrixXd& y_;
  const VectorXd& w_;
  const MatrixXd& offset_;
  FamilyOps fam_;
  Blas blas_;                  // the multinomial's Hessian preconditioner: rank updates and Cholesky (or empty)
  double W_ = 0.0;
  MatrixXd Z_;                 // ones, the selected groups' whitened columns, then (FR) the others' (OMP: room for more)
  Index m1_ = 1;               // columns of Z_ in the current fit: 1 + the selected groups' ranks
  std::vector<Index> col_;     // first column of each group in Z_ (-1 when not there)
  bool columns_ready_ = true;  // false when max_time was spent making the FR columns in the constructor
  MatrixXd mu_;                // fitted means at the current fit
  MatrixXd resid_;             // w * (y - mu) at the current fit, shared by every candidate's score
  VectorXd rsum_;              // its column sums
  MatrixXd xr_;                // OMP: x' resid_ (p x P), every column's in one threaded product
  ColumnGram gram_;            // multinomial: the weighted Gram matrix of Z_.leftCols(m1_), decomposed

  // Whether the Newton directions come without the Hessian (the multinomial family, whose Hessian is
  // (m1 K)^2: glm/multinomial.hpp)
  bool hessian_free() const { return fam_.family == Family::Multinomial; }

  // Makes f the current fit.
  void accept(NewtonFit f) {
    mu_ = std::move(f.mu);
    resid_ = w_.asDiagonal() * (y_ - mu_);
    rsum_ = resid_.colwise().sum().transpose();
    if (ctl_.method == Method::OMP) xr_ = x_.tmul(resid_, ctl_.threads);
    gains_ready_ = false;
    set_fit(std::move(f.theta), f.risk, fam_.deviance(mu_, y_, w_), f.converged);
  }

  // z_h = (x_h - mean) / sd * T_h, n x r_h
  MatrixXd whitened_columns(Index h) const {
    return fgseq::whitened_columns(x_, lay_.cols[static_cast<size_t>(h)], st_, wh_.T[static_cast<size_t>(h)]);
  }

  // The penalized risk at theta over the columns Z1.
  double risk_at(const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& theta) const {
    NewtonPoint pt;
    pt.theta = Eigen::Map<const VectorXd>(theta.data(), theta.size());
    glm_evaluator(fam_, Z1, y_, w_, W_, offset_, ctl_.lambda)(pt, NewtonNeed::Risk);
    return pt.risk;
  }

  // The penalized fit over the columns Z1 = [1, Z] (intercepts unpenalized), from theta0; gram: Z1's
  // weighted Gram matrix, decomposed (the multinomial family's Newton directions; unused otherwise).
  NewtonFit newton(const Eigen::Ref<const MatrixXd>& Z1, const MatrixXd& theta0, const ColumnGram& gram) const {
    const Eigen::Map<const VectorXd> start(theta0.data(), theta0.size());
    NewtonSolution s =
        newton_solve(start, glm_evaluator(fam_, Z1, y_, w_, W_, offset_, ctl_.lambda, ctl_.threads), ctl_, poll_,
                     hessian_free() ? multinomial_direction(Z1, w_, W_, ctl_.lambda, gram, ctl_.threads, poll_, blas_)
                                    : NewtonDirection());
    NewtonFit f;
    f.theta = Eigen::Map<const MatrixXd>(s.point.theta.data(), Z1.cols(), y_.cols());
    f.eta = std::move(s.point.eta);
    f.mu = std::move(s.point.mu);
    f.risk = s.point.risk;
    f.converged = s.converged;
    return f;
  }

  // The quadratic gains of the candidates: one Newton step from the current fit after adding a group's
  // columns, whose decrease of the quadratic model is vec(b)' pinv(M) vec(b) / 2, with b the gradient
  // for the new coefficients and M the Schur complement of the current Hessian in the Hessian of
  // [1, Z_S, Z_h] (see schur_gains()); the candidates' columns are in Z_ already.
  void quadratic_gains() {
    std::vector<Index> cand = gain_candidates();
    std::sort(cand.begin(), cand.end(), [this](Index a, Index b) { return col_[static_cast<size_t>(a)] < col_[static_cast<size_t>(b)]; });
    std::vector<Index> col, rk;
    for (Index h : cand) {
      col.push_back(col_[static_cast<size_t>(h)]);
      rk.push_back(rank(h));
    }
    const GainLayout gl = gain_layout(m1_, std::move(col), std::move(rk));
    store_gains(cand, schur_gains(gain_sums(Z_, gl, fam_, mu_, w_, resid_, W_, ctl_.threads, blas_), gl, y_.cols(),
                                  ctl_.lambda, ctl_.pivot_tol, blas_));
  }
};

}  // namespace fgseq

#endif
