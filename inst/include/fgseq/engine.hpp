// The greedy engine shared by CS-G-OMP, CS-G-FR and Doubling (Hu, Grubb, Bagnell & Hebert 2016,
// Algorithm 1, section 2 "CS-G-FR", Algorithm 2) and by every family: one selection loop
// (candidates, Doubling's cost rule, scores per unit of marginal cost, ties, stopping) over a
// SelectionModel that knows how to score an unselected group and how to refit after adding one.
#ifndef FGSEQ_ENGINE_HPP
#define FGSEQ_ENGINE_HPP

#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "measurements.hpp"
#include "stats.hpp"
#include "whiten.hpp"

namespace fgseq {

enum class Method { OMP, FR, Doubling };
enum class Criterion { Whitened, L2, Linf };
enum class FrGain { Exact, Quadratic };  // GLM forward-regression gains: refit, or one Newton step
enum class Engine { Gram, Sample };      // linear families: p x p Gram matrix, or sample space (wide data)

struct Control {
  Method method = Method::OMP;
  Criterion criterion = Criterion::Whitened;  // OMP only
  FrGain fr_gain = FrGain::Exact;             // FR and Doubling with GLM families
  bool cost_sensitive = true;
  double lambda = 1e-6;
  Index max_steps = std::numeric_limits<Index>::max();
  double max_cost = std::numeric_limits<double>::infinity();
  double c_min = std::numeric_limits<double>::quiet_NaN();  // Doubling; NaN = smallest group cost
  double rank_tol = 1e-9;   // whitening: eigenvalues <= rank_tol * largest are dropped
  double pivot_tol = 1e-9;  // Schur complement eigenvalues <= pivot_tol * (1 + lambda) add nothing
  double zero_tol = 1e-14;  // raw scores <= zero_tol * score_scale count as exactly 0
  double tie_tol = 1e-10;   // scores within tie_tol (relative) of the best tie; first group wins
  double newton_tol = 1e-10;  // GLM: relative decrease of the risk that ends the Newton iterations
  double deviance_tol = 1e-8; // GLM: glm()'s convergence criterion |D - D_old| / (|D| + 0.1) < deviance_tol
  double grad_tol = 1e-11;    // GLM: largest gradient entry of the risk at which a fit has converged
  int newton_max_iter = 100;
  std::vector<Index> order;   // when not empty: evaluate this sequence of groups instead of selecting
  double max_time = std::numeric_limits<double>::infinity();  // seconds; the path stops when spent
  Engine engine = Engine::Gram;  // gaussian and mgaussian; the GLM families never form a p x p matrix
  int threads = 1;               // OpenMP threads for the passes over x
  bool screen = true;            // sample-space engine, dense x: screen groups with a 16-bit copy
};

// Told after each step: (steps done, steps at most). The R glue wires a progress bar to it.
using ProgressCallback = std::function<void(Index, Index)>;

// Thrown by a poll when max_time is spent in the middle of a step: the step is abandoned and the path
// keeps the steps completed before it.
struct TimeUp : std::runtime_error {
  TimeUp() : std::runtime_error("max_time spent") {}
};

// Called within long steps (between candidates, at every Newton iteration): checks for an interrupt
// and throws TimeUp once max_time is spent.
using Poll = std::function<void()>;

// What a greedy run needs from a model family.
class SelectionModel {
 public:
  virtual ~SelectionModel() = default;
  virtual Index n_groups() const = 0;
  virtual bool selectable(Index h) const = 0;     // rank > 0
  virtual double raw_score(Index h) = 0;          // criterion of an unselected group, before cost
  // lo <= raw_score(h) <= hi from a cheaper computation (a screening pass); greedy_path() asks for
  // raw_score(h) only when the range could reach the best score. Default: the exact score.
  virtual std::pair<double, double> score_range(Index h) {
    const double s = raw_score(h);
    return {s, s};
  }
  // told the candidates of a step (one flag per group) before any of them is scored
  virtual void set_candidates(const std::vector<bool>& candidates) { (void)candidates; }
  virtual void add_group(Index g) = 0;            // select g and refit
  virtual double objective() const = 0;           // F(S) = R(empty) - R(S)
  virtual double r2() const = 0;                  // fraction explained: F / R(empty), or of the deviance
  virtual double score_scale() const = 0;         // scale below which raw scores count as 0
  virtual MatrixXd coef() const = 0;              // whitened coefficients, q x P
  virtual VectorXd intercept() const = 0;         // length P, in centred coordinates
  // greedy_path() sets the poll a model calls within its own long computations (Newton iterations)
  void set_poll(Poll poll) { poll_ = std::move(poll); }

 protected:
  Poll poll_;
};

struct Path {
  std::vector<Index> sequence;    // group indices in selection order (K)
  std::vector<double> score;      // selection score of each chosen group (K)
  std::vector<double> group_cost; // marginal cost paid at each step: its measurements not paid before (K)
  std::vector<double> objective;  // F after steps 0..K (K+1)
  std::vector<double> r2;         // r2 after steps 0..K (K+1)
  std::vector<MatrixXd> w;        // whitened coefficients after steps 0..K, q x P each
  std::vector<VectorXd> a;        // intercepts (centred coordinates) after steps 0..K
  bool partial = false;           // stopped because max_time was spent
};

// The greedy selection loop. Costs enter only as the marginal cost of a candidate given the groups
// selected so far (measurements.hpp: the cost of its measurements not yet paid); with one measurement
// per group that is the group's cost. Scores are divided by it (cost_sensitive), Doubling's rule
// compares it, max_cost bounds the cumulative cost. A candidate of zero marginal cost with a positive
// gain is taken before any group of positive marginal cost (largest gain first; its recorded score is
// the gain itself); one without gain scores 0.
inline Path greedy_path(SelectionModel& model, const Measurements& meas, const Control& ctl,
                        const InterruptCheck& check_interrupt = InterruptCheck(),
                        const ProgressCallback& progress = ProgressCallback()) {
  const auto started = std::chrono::steady_clock::now();
  const Index G = model.n_groups();
  if (meas.n_groups() != G) throw std::invalid_argument("greedy_path: the measurements of every group are needed");
  const Poll poll = [&check_interrupt, started, &ctl] {
    if (check_interrupt) check_interrupt();
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - started;
    if (spent.count() >= ctl.max_time) throw TimeUp();
  };
  model.set_poll(poll);
  std::vector<bool> selected(static_cast<size_t>(G), false);
  PaidMeasurements paid(meas);
  Index available = 0;
  double smallest = std::numeric_limits<double>::infinity();
  for (Index h = 0; h < G; ++h)
    if (model.selectable(h)) {
      ++available;
      smallest = std::min(smallest, meas.group_cost(h));
    }
  const double c_min = std::isnan(ctl.c_min) ? smallest : ctl.c_min;
  const double fuzz = 1 + 1e-12;

  Path path;
  path.objective.push_back(model.objective());
  path.r2.push_back(model.r2());
  path.w.push_back(model.coef());
  path.a.push_back(model.intercept());
  double total_cost = 0.0;
  const Index max_steps = std::min(ctl.max_steps, available);
  auto take = [&](Index g, double s) {  // add g to the sequence, pay its measurements, record the refit
    model.add_group(g);
    selected[g] = true;
    const double paid_now = paid.pay(g);
    total_cost += paid_now;
    path.sequence.push_back(g);
    path.score.push_back(s);
    path.group_cost.push_back(paid_now);
    path.objective.push_back(model.objective());
    path.r2.push_back(model.r2());
    path.w.push_back(model.coef());
    path.a.push_back(model.intercept());
  };
  std::vector<double> score(static_cast<size_t>(G)), low(static_cast<size_t>(G)), marginal(static_cast<size_t>(G));
  size_t next = 0;  // position in a given order
  try {
  for (Index step = 0; step < max_steps; ++step) {
    if (check_interrupt) check_interrupt();
    if (progress) progress(step, max_steps);
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - started;
    if (spent.count() >= ctl.max_time) {  // training is anytime too: keep the sequence learned so far
      path.partial = true;
      break;
    }
    if (!ctl.order.empty()) {  // a given sequence: no selection, no score; constant groups skipped
      for (; next < ctl.order.size(); ++next) {
        const Index h = ctl.order[next];
        if (h < 0 || h >= G || selected[h])
          throw std::invalid_argument("greedy_path: the given order must name distinct groups");
        if (model.selectable(h)) break;
      }
      if (next >= ctl.order.size()) break;
      const Index g = ctl.order[next++];
      if (total_cost + paid.marginal(g) > ctl.max_cost * fuzz) break;
      take(g, std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    // candidates: every unselected group; Doubling (paper Algorithm 2) only those whose marginal cost is
    // at most c_min (first step) or the cost so far, falling back to the remaining groups of least
    // marginal cost
    std::vector<bool> cand(static_cast<size_t>(G), false);
    bool any = false;
    double least = std::numeric_limits<double>::infinity();
    for (Index h = 0; h < G; ++h) {
      if (selected[h] || !model.selectable(h)) continue;
      marginal[h] = paid.marginal(h);
      least = std::min(least, marginal[h]);
      const double limit = step == 0 ? c_min : total_cost;
      cand[h] = ctl.method != Method::Doubling || marginal[h] <= limit * fuzz;
      any = any || cand[h];
    }
    if (!any)
      for (Index h = 0; h < G; ++h)
        cand[h] = !selected[h] && model.selectable(h) && marginal[h] <= least * fuzz;
    model.set_candidates(cand);

    const double zero = ctl.zero_tol * model.score_scale();
    Index g = -1;
    if (ctl.cost_sensitive) {  // free candidates first: the largest exact gain, if positive
      double best = zero;
      for (Index h = 0; h < G; ++h) {
        if (!cand[h] || marginal[h] > 0.0) continue;
        score[h] = model.raw_score(h);
        best = std::max(best, score[h]);
      }
      if (best > zero)
        for (Index h = 0; h < G && g < 0; ++h)
          if (cand[h] && marginal[h] <= 0.0 && score[h] >= best - ctl.tie_tol * std::abs(best)) g = h;
    }
    if (g >= 0) {
      take(g, score[g]);  // free: nothing to check against max_cost
      continue;
    }

    // scores per unit of marginal cost: first the ranges, then the exact score of every group whose
    // range reaches the best lower end (less the tie tolerance); the others can neither win nor tie
    auto counted = [&](double s, Index h) {  // raw scores at or below the zero threshold count as 0
      if (!(s > zero)) s = 0.0;
      if (!ctl.cost_sensitive) return s;
      return marginal[h] > 0.0 ? s / marginal[h] : 0.0;  // free and without gain
    };
    double best_lo = -1.0;
    for (Index h = 0; h < G; ++h) {
      if (!cand[h]) continue;
      poll();
      const std::pair<double, double> r = model.score_range(h);
      score[h] = counted(r.second, h);
      low[h] = r.first == r.second ? score[h] : counted(r.first, h);
      best_lo = std::max(best_lo, low[h]);
    }
    const double reach = best_lo - ctl.tie_tol * std::abs(best_lo);
    double best = -1.0;
    for (Index h = 0; h < G; ++h) {
      if (!cand[h]) continue;
      if (low[h] != score[h] && score[h] >= reach) {
        poll();
        score[h] = counted(model.raw_score(h), h);
      }
      best = std::max(best, score[h]);
    }
    for (Index h = 0; h < G && g < 0; ++h)
      if (cand[h] && score[h] >= best - ctl.tie_tol * std::abs(best)) g = h;
    if (g < 0) break;
    if (total_cost + marginal[g] > ctl.max_cost * fuzz) break;
    take(g, score[g]);
  }
  } catch (const TimeUp&) {  // max_time spent within a step: keep the steps completed before it
    path.partial = true;
  }
  model.set_poll(Poll());
  if (progress) progress(static_cast<Index>(path.sequence.size()), max_steps);
  return path;
}

// The CS-G-OMP criterion of an unselected group from its whitened gradient bh (r_h x P) and its
// un-whitening map S_h: ||bh||^2 (whitened), ||S_h bh||^2 (No-Whiten), or the largest squared row of
// S_h bh (Single).
inline double omp_score(const Eigen::Ref<const MatrixXd>& bh, const MatrixXd& S, Criterion criterion) {
  switch (criterion) {
    case Criterion::L2:
      return (S * bh).squaredNorm();
    case Criterion::Linf:
      return (S * bh).rowwise().squaredNorm().maxCoeff();
    default:
      return bh.squaredNorm();
  }
}

// tr(b' pinv(M) b) for a symmetric positive semi-definite M, eigenvalues at or below
// tol + rel_tol * (largest |eigenvalue|) ignored.
// Fast path: when a Cholesky factor exists and 1 / tr(M^-1) (a lower bound of the smallest eigenvalue)
// is above tol + rel_tol * tr(M) (tr(M) bounds the largest), pinv(M) = M^-1 and the quadratic form is
// ||L^-1 b||^2; otherwise an eigendecomposition.
inline double pinv_quad(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& bh, double tol, double rel_tol = 0.0) {
  const Index r = M.rows();
  Eigen::LLT<MatrixXd> llt(M);
  if (llt.info() == Eigen::Success) {
    const MatrixXd Linv = llt.matrixL().solve(MatrixXd::Identity(r, r));
    const double trace_inv = Linv.squaredNorm();
    if (std::isfinite(trace_inv) && 1.0 / trace_inv > tol + rel_tol * M.trace()) return (Linv * bh).squaredNorm();
  }
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(M);
  const MatrixXd u = es.eigenvectors().transpose() * bh;
  const double cut = tol + rel_tol * (r > 0 ? es.eigenvalues().cwiseAbs().maxCoeff() : 0.0);
  double s = 0.0;
  for (Index i = 0; i < u.rows(); ++i)
    if (es.eigenvalues()(i) > cut) s += u.row(i).squaredNorm() / es.eigenvalues()(i);
  return s;
}

// pinv(M) b for the M, b and eigenvalue cut of pinv_quad()
inline MatrixXd pinv_solve(const MatrixXd& M, const Eigen::Ref<const MatrixXd>& b, double tol, double rel_tol = 0.0) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(M);
  const double cut = tol + rel_tol * (M.rows() > 0 ? es.eigenvalues().cwiseAbs().maxCoeff() : 0.0);
  VectorXd inv = VectorXd::Zero(M.rows());
  for (Index i = 0; i < M.rows(); ++i)
    if (es.eigenvalues()(i) > cut) inv(i) = 1.0 / es.eigenvalues()(i);
  return es.eigenvectors() * (inv.asDiagonal() * (es.eigenvectors().transpose() * b));
}

// The linear (Gaussian, multi-response Gaussian) model in whitened feature space, after one pass
// over the data.
//
// Notation (whitened coordinates, q of them): C = Sigma~ + lambda I, rho~ = T' rho (q x P).
// The selected coordinates S are spanned by a C-orthonormal basis Q (Q'CQ = I, columns supported on S),
// kept with P = C Q and z = Q' rho~. Then
//   w(S) = Q z,  F(S) = ||z||_F^2 / 2,  b = rho~ - C w(S) = rho~ - P z   (gradient, paper's b_g^S),
//   M_hh = C_hh - P_h P_h'   (Schur complement of C_SS in C, the block of group h),
//   FR gain of h = tr(b_h' pinv(M_hh) b_h) / 2.
// Adding group g is one block step of Gram-Schmidt in the C inner product (a block sweep): with
// V = E_g - Q P_g' (re-orthogonalized once), M_gg = V'CV = U D U', the new basis columns are
// V U D^-1/2 for the eigenvalues D above the pivot tolerance, so rank-deficient and collinear groups
// (lambda = 0) add only their new directions. Every quantity is then updated by a rank-r_g downdate;
// CS-G-FR costs about what CS-G-OMP costs.
class GramModel : public SelectionModel {
 public:
  GramModel(const Whitened& wh, const GramStats& st, const GroupLayout& lay, const Control& ctl)
      : wh_(wh), st_(st), lay_(lay), ctl_(ctl) {
    const Index q = wh_.q, G = lay_.size();
    Q_.resize(q, q);
    P_.resize(q, q);
    z_.resize(q, wh_.rho.cols());
    b_ = wh_.rho;
    selected_.assign(static_cast<size_t>(G), false);
    if (ctl_.method != Method::OMP) {
      M_.assign(static_cast<size_t>(G), MatrixXd());
      for (Index h = 0; h < G; ++h) M_[h] = wh_.C.block(offset(h), offset(h), rank(h), rank(h));
    }
  }

  Index n_groups() const override { return lay_.size(); }
  bool selectable(Index h) const override { return rank(h) > 0; }
  double objective() const override { return 0.5 * z_.topRows(m_).squaredNorm(); }
  double score_scale() const override { return st_.yy_total(); }
  double r2() const override { return st_.yy_total() > 0 ? 2.0 * objective() / st_.yy_total() : 0.0; }
  VectorXd intercept() const override { return st_.y_mean; }
  MatrixXd coef() const override { return Q_.leftCols(m_) * z_.topRows(m_); }

  double raw_score(Index h) override {
    const auto bh = b_.middleRows(offset(h), rank(h));
    if (ctl_.method == Method::OMP) return omp_score(bh, wh_.S[static_cast<size_t>(h)], ctl_.criterion);
    return 0.5 * pinv_quad(M_[static_cast<size_t>(h)], bh, ctl_.pivot_tol * (1.0 + ctl_.lambda));
  }

  void add_group(Index g) override {
    const Index q = wh_.q, r = rank(g), off = offset(g);
    MatrixXd V = MatrixXd::Zero(q, r);
    V.middleRows(off, r).setIdentity();
    if (m_ > 0) {
      auto Q = Q_.leftCols(m_);
      auto P = P_.leftCols(m_);
      V.noalias() -= Q * P.middleRows(off, r).transpose();
      V.noalias() -= Q * (P.transpose() * V);  // second pass keeps Q C-orthonormal
    }
    const MatrixXd CV = wh_.C * V;
    MatrixXd Mgg = V.transpose() * CV;
    Mgg = 0.5 * (Mgg + Mgg.transpose()).eval();
    Eigen::SelfAdjointEigenSolver<MatrixXd> es(Mgg);
    const double tol = ctl_.pivot_tol * (1.0 + ctl_.lambda);
    Index k = 0;
    for (Index i = 0; i < r; ++i)
      if (es.eigenvalues()(i) > tol) ++k;
    const MatrixXd U = es.eigenvectors().rightCols(k);
    const VectorXd dinv = es.eigenvalues().tail(k).cwiseSqrt().cwiseInverse();
    const MatrixXd Qn = V * U * dinv.asDiagonal();
    const MatrixXd Pn = CV * U * dinv.asDiagonal();
    const MatrixXd zn = Qn.transpose() * wh_.rho;

    Q_.middleCols(m_, k) = Qn;
    P_.middleCols(m_, k) = Pn;
    z_.middleRows(m_, k) = zn;
    m_ += k;
    selected_[g] = true;
    b_.noalias() -= Pn * zn;
    if (!M_.empty()) {
      for (Index h = 0; h < lay_.size(); ++h) {
        if (selected_[h] || rank(h) == 0) continue;
        const auto Ph = Pn.middleRows(offset(h), rank(h));
        M_[h].noalias() -= Ph * Ph.transpose();
      }
      M_[g].resize(0, 0);
    }
  }

 private:
  const Whitened& wh_;
  const GramStats& st_;
  const GroupLayout& lay_;
  Control ctl_;
  MatrixXd Q_, P_;  // q x q storage, first m_ columns in use
  MatrixXd z_, b_;  // z: first m_ rows in use (q x P storage); b: q x P
  Index m_ = 0;
  std::vector<MatrixXd> M_;  // Schur complement blocks of unselected groups (FR, Doubling)
  std::vector<bool> selected_;

  Index rank(Index h) const { return wh_.rank[static_cast<size_t>(h)]; }
  Index offset(Index h) const { return wh_.offset[static_cast<size_t>(h)]; }
};

// Coefficients on the original scale of x: beta_g = T_g w_g / sd (one p x (K+1) matrix per response
// column), intercepts a0 = a - mean(x)' beta (P x (K+1)).
inline void original_scale(const Path& path, const Whitened& wh, const GramStats& st, const GroupLayout& lay,
                           std::vector<MatrixXd>& beta, MatrixXd& a0) {
  const Index K1 = static_cast<Index>(path.w.size());
  const Index P = K1 > 0 ? path.w[0].cols() : 0;
  beta.assign(static_cast<size_t>(P), MatrixXd::Zero(lay.p, K1));
  a0.resize(P, K1);
  for (Index k = 0; k < K1; ++k) {
    for (Index g = 0; g < lay.size(); ++g) {
      const Index r = wh.rank[static_cast<size_t>(g)];
      if (r == 0) continue;
      const MatrixXd bg = wh.T[static_cast<size_t>(g)] * path.w[k].middleRows(wh.offset[static_cast<size_t>(g)], r);
      const auto& cols = lay.cols[static_cast<size_t>(g)];
      for (size_t a = 0; a < cols.size(); ++a) {
        const Index j = cols[a];
        if (st.constant[static_cast<size_t>(j)]) continue;
        for (Index c = 0; c < P; ++c) beta[c](j, k) = bg(static_cast<Index>(a), c) / st.scale(j);
      }
    }
    for (Index c = 0; c < P; ++c) a0(c, k) = path.a[k](c) - beta[c].col(k).dot(st.mean);
  }
}

}  // namespace fgseq

#endif
