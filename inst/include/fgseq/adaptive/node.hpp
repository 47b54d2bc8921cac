// A node of per-row acquisition (R's fgseq_policy()): the rows that have bought the same set of
// groups share the conditional model of the full model's linear predictors eta given those groups,
// held as the swept joint covariance A of (x_S, eta) (Goodnight's sweep, symmetric: after sweeping
// the pivots O, A[O, eta] are the coefficients of the conditional mean of eta on x_O, A[eta, eta] its
// conditional covariance, A[U, U] and A[U, eta] the covariances of the columns not yet observed).
//   sweep_block(): observes one group more (its pivots at once, a symmetric rank update of A);
//   candidate_covariance(): eta's conditional covariance after one group more, without the sweep;
//   evaluate_node(): the node's prediction for its rows, its decision risk, and the group each row
//     buys next with its score (the expected reduction of the risk per unit of marginal cost).
// The R package keeps the tree of nodes (which rows are at which set) and the costs; R's
// sweep_pivots() is the reference of the sweep, its policy reference of the node.

#ifndef FGSEQ_ADAPTIVE_NODE_HPP
#define FGSEQ_ADAPTIVE_NODE_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "../common/blas.hpp"
#include "../common/family.hpp"
#include "../common/options.hpp"
#include "../common/types.hpp"
#include "risk.hpp"

namespace fgseq {

// The relative tolerance below which a pivot of the sweep is skipped (a column that the columns swept
// before determine, within rounding): R's sweep_tolerance, the rank rule of the fit's whitening.
constexpr double kSweepTolerance = 1e-9;

// The pivots of a block S (k x k, symmetric) that the sweep in turn would take, and the lower
// Cholesky factor of their block: when the factor of S exists and every squared diagonal (each
// pivot's variance given the pivots before it) is above kSweepTolerance times its original variance
// diag0, all of them; otherwise the pivots are tried one by one (a group with collinear columns).
struct Pivots {
  std::vector<Index> keep;  // indices into the block
  MatrixXd L;               // lower Cholesky factor of S[keep, keep]
};

inline Pivots accepted_pivots(const MatrixXd& S, const VectorXd& diag0) {
  const Index k = S.rows();
  Pivots out;
  if (k == 0) return out;
  bool positive = (diag0.array() > 0).all();
  if (positive) {
    Eigen::LLT<MatrixXd> llt(S);
    if (llt.info() == Eigen::Success) {
      MatrixXd L = llt.matrixL();
      bool all = true;
      for (Index i = 0; i < k && all; ++i) all = L(i, i) * L(i, i) > kSweepTolerance * diag0[i];
      if (all) {
        out.keep.resize(k);
        for (Index i = 0; i < k; ++i) out.keep[i] = i;
        out.L = L;
        return out;
      }
    }
  }
  MatrixXd A = S;  // one pivot at a time, as R's sweep_pivots()
  for (Index j = 0; j < k; ++j) {
    const double d = A(j, j);
    if (!(diag0[j] > 0) || !(d > kSweepTolerance * diag0[j])) continue;
    const VectorXd a = A.col(j);
    const VectorXd b = A.row(j).transpose();
    A.noalias() -= a * b.transpose() / d;
    A.row(j) = b.transpose() / d;
    A.col(j) = a / d;
    A(j, j) = -1 / d;
    out.keep.push_back(j);
  }
  if (out.keep.empty()) return out;
  const Index m = static_cast<Index>(out.keep.size());
  MatrixXd Sk(m, m);
  for (Index a = 0; a < m; ++a)
    for (Index b = 0; b < m; ++b) Sk(a, b) = S(out.keep[a], out.keep[b]);
  out.L = Eigen::LLT<MatrixXd>(Sk).matrixL();
  return out;
}

// The block A[k, k] and its pivots' original variances.
inline MatrixXd principal_block(const MatrixXd& A, const std::vector<Index>& k) {
  const Index m = static_cast<Index>(k.size());
  MatrixXd S(m, m);
  for (Index b = 0; b < m; ++b)
    for (Index a = 0; a < m; ++a) S(a, b) = A(k[a], k[b]);
  return S;
}

// Sweeps the pivots k of A (symmetric, N x N) at once, leaving out those the sweep in turn would
// skip: with S = A[k, k] = L L', A[i, j] -= A[i, k] S^-1 A[k, j] (a symmetric rank-|k| update),
// A[k, j] = S^-1 A[k, j], A[i, k] its transpose, A[k, k] = -S^-1. Returns the pivots swept (indices
// into A), in the order of k. `rank_update` (gram += block' block, lower triangle; empty: Eigen's)
// lets an optimized BLAS do the update.
inline std::vector<Index> sweep_block(MatrixXd& A, const std::vector<Index>& k, const VectorXd& diag0,
                                      const RankUpdate& rank_update = RankUpdate()) {
  const Pivots piv = accepted_pivots(principal_block(A, k), diag0);
  std::vector<Index> swept;
  for (Index i : piv.keep) swept.push_back(k[i]);
  const Index m = static_cast<Index>(swept.size());
  if (!m) return swept;
  const Index N = A.rows();
  MatrixXd T(m, N);  // L^-1 A[swept, ]
  for (Index a = 0; a < m; ++a) T.row(a) = A.row(swept[a]);
  piv.L.triangularView<Eigen::Lower>().solveInPlace(T);
  if (rank_update) {  // A - T'T as -((-A) + T'T)
    A = -A;
    rank_update(A, T);
    A = -A;
  } else {
    A.selfadjointView<Eigen::Lower>().rankUpdate(T.transpose(), -1.0);
  }
  A.triangularView<Eigen::StrictlyUpper>() = A.transpose();
  piv.L.transpose().triangularView<Eigen::Upper>().solveInPlace(T);  // S^-1 A[swept, ] (before the update)
  MatrixXd Sinv = MatrixXd::Identity(m, m);
  piv.L.triangularView<Eigen::Lower>().solveInPlace(Sinv);
  piv.L.transpose().triangularView<Eigen::Upper>().solveInPlace(Sinv);
  for (Index a = 0; a < m; ++a) {
    A.row(swept[a]) = T.row(a);
    A.col(swept[a]) = T.row(a).transpose();
  }
  for (Index a = 0; a < m; ++a)
    for (Index b = 0; b < m; ++b) A(swept[a], swept[b]) = -Sinv(a, b);
  return swept;
}

// The conditional covariance (P x P) of eta (the rows and columns eta0 .. eta0 + P - 1 of A) after
// also observing the pivots k, without the sweep: V - C' S^-1 C with S the block of k's accepted
// pivots and C their covariances with eta.
inline MatrixXd candidate_covariance(const MatrixXd& A, const std::vector<Index>& k, const VectorXd& diag0, Index eta0,
                                     Index P) {
  MatrixXd V = A.block(eta0, eta0, P, P);
  const Pivots piv = accepted_pivots(principal_block(A, k), diag0);
  const Index m = static_cast<Index>(piv.keep.size());
  if (!m) return V;
  MatrixXd W(m, P);
  for (Index a = 0; a < m; ++a) W.row(a) = A.block(k[piv.keep[a]], eta0, 1, P);
  piv.L.triangularView<Eigen::Lower>().solveInPlace(W);
  V.noalias() -= W.transpose() * W;
  return V;
}

// The rules and stops of a policy, as R's fgseq_policy() names them (its families are the fit's, Family:
// a least-squares family predicts a number, the others decide a class).
enum class PolicyRule { Adaptive, Sequence, Cascade };
enum class PolicyStop { Reduction, Risk, Margin, Lookahead };

template <>
struct Names<PolicyRule> {
  static constexpr const char* what = "rule";
  static constexpr std::pair<PolicyRule, const char*> table[] = {
      {PolicyRule::Adaptive, "adaptive"}, {PolicyRule::Sequence, "sequence"}, {PolicyRule::Cascade, "cascade"}};
};
template <>
struct Names<PolicyStop> {
  static constexpr const char* what = "stopping";
  static constexpr std::pair<PolicyStop, const char*> table[] = {
      {PolicyStop::Reduction, "reduction"}, {PolicyStop::Risk, "risk"}, {PolicyStop::Margin, "margin"},
      {PolicyStop::Lookahead, "lookahead"}};
};

// What a node's evaluation needs besides A: the model (family, rule, stop, tol), the rows' values
// of the swept pivots and of the prefix model's columns, the candidates.
struct NodeSpec {
  Family family = Family::Binomial;
  PolicyRule rule = PolicyRule::Adaptive;
  PolicyStop stop = PolicyStop::Reduction;
  double tol = 0;                    // gaussian: the tolerance of agreement
  double threshold = std::numeric_limits<double>::quiet_NaN();  // NaN: none (every row scored)
  Index eta0 = 0;                    // the first row of eta in A
  Index P = 1;                       // linear predictors
  VectorXd base;                     // the unconditional mean of eta (P)
  std::vector<Index> swept;          // the pivots swept (indices into A)
  MatrixXd xo;                       // n x |swept|: the rows' values of the swept pivots, centred
  bool prefix = false;               // the set is a prefix of the fit's sequence
  MatrixXd xp;                       // n x r: the rows' values of the prefix model's columns
  MatrixXd prefix_beta;              // r x P
  VectorXd prefix_a0;                // P
  std::vector<std::vector<Index>> candidates;  // the pivots of each candidate group
  std::vector<VectorXd> candidate_diag0;       // their original variances
  VectorXd marginal_cost;            // of each candidate
  double spent = 0;                  // what the node's rows have spent
  double rest_cost = 0;              // the marginal cost of every group left (all of them bought)
  VectorXd budget;                   // of each row
  bool table = false;                // keep the candidates' reductions and scores
};

struct NodeResult {
  MatrixXd link, rlink;   // n x P: the node's prediction, and the link whose inverse is its response
  VectorXd decision;      // binomial 0/1, multinomial the class (1-based), gaussian the prediction
  std::vector<int> best;  // the candidate each row buys next (0-based), -1: none
  VectorXd score;         // its score (-Inf: none)
  VectorXd lookahead;     // max(score, risk / rest_cost) where every group left fits the budget, else score
  VectorXd margin;        // the margin of the prediction (classification; NaN otherwise)
  VectorXd risk;          // the decision risk of stopping (NaN for the cascade)
  VectorXd sd;            // the standard deviation of the decision contrast
  MatrixXd var;           // P x P: the conditional covariance of eta
  MatrixXd reduction, table_score;  // candidates x n (with `table`)
};

// The columns of the largest and second largest value of a row (ties: the first column), as R's
// max.col(ties.method = "first").
inline void leading_two(const Eigen::Ref<const Eigen::RowVectorXd>& v, Index& first, Index& second) {
  first = 0;
  for (Index c = 1; c < v.size(); ++c)
    if (v[c] > v[first]) first = c;
  second = first == 0 ? 1 : 0;
  for (Index c = 0; c < v.size(); ++c)
    if (c != first && v[c] > v[second]) second = c;
}

// The budget rule of a policy: a cost fits when (spent + cost) (1 - 1e-12) <= budget (the
// `budget_tolerance` of write_predictor()'s document).
inline bool fits_budget(double spent, double cost, double budget) { return (spent + cost) * (1 - 1e-12) <= budget; }

// The decision of each row of a node from its link r.rlink (whose inverse link is the response), and
// the margin of its probability (classification; NaN otherwise): binomial the sign, multinomial the
// class of largest probability (1-based) and half the gap between the two largest, gaussian the
// prediction itself.
inline void node_decisions(const NodeSpec& s, NodeResult& r) {
  const Index n = r.rlink.rows(), P = s.P;
  const bool gaussian = FamilyOps{s.family}.least_squares();
  r.margin = VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  r.decision.resize(n);
  for (Index i = 0; i < n; ++i) {
    if (gaussian) {
      r.decision[i] = r.rlink(i, 0);
    } else if (P == 1) {
      r.decision[i] = r.rlink(i, 0) > 0 ? 1 : 0;
      r.margin[i] = std::abs(1 / (1 + std::exp(-r.rlink(i, 0))) - 0.5);
    } else {
      Index a, b;
      leading_two(r.rlink.row(i), a, b);
      r.decision[i] = static_cast<double>(a + 1);
      const double top = r.rlink(i, a);
      double sum = 0;
      for (Index c = 0; c < P; ++c) sum += std::exp(r.rlink(i, c) - top);
      r.margin[i] = (1 / sum - std::exp(r.rlink(i, b) - top) / sum) / 2;
    }
  }
}

// The prediction of a node whose groups are a prefix of the fit's sequence: the prefix model's link,
// which is also the link whose inverse is its response.
inline void prefix_prediction(const NodeSpec& s, NodeResult& r) {
  r.link = s.xp * s.prefix_beta;
  r.link.rowwise() += s.prefix_a0.transpose();
  r.rlink = r.link;
}

// The choices of a node's n rows before any candidate is scored: none (best -1, score and lookahead -Inf).
inline void no_choices(Index n, NodeResult& r) {
  r.best.assign(n, -1);
  r.score = VectorXd::Constant(n, -std::numeric_limits<double>::infinity());
  r.lookahead = r.score;
}

// The score of a candidate of marginal cost mc that reduces the risk by d: d / mc, a free candidate
// with a positive reduction first (Inf).
inline double candidate_score(double d, double mc) {
  return mc == 0 ? (d > 0 ? std::numeric_limits<double>::infinity() : 0.0) : d / mc;
}

// What a node's rows do next, from each candidate's reduction `red` and score `sc` (candidates x the
// rows `on` that are scored; NaN score: the candidate does not fit the row's budget): the best per row
// (ties within a relative 1e-10 go to the candidate earlier in the sequence), its score, and the
// lookahead (buying every group left ends at the full model, where the risk is 0, so it reduces the
// risk by all of it for rest_cost; a row goes on while that plan or the best group pays more than the
// threshold per cost unit). Shared by the single Gaussian and the mixture working models.
inline void choose_candidates(const NodeSpec& s, const std::vector<Index>& on, const MatrixXd& red, const MatrixXd& sc,
                              NodeResult& r) {
  const bool cascade = s.rule == PolicyRule::Cascade;
  const double inf = std::numeric_limits<double>::infinity();
  const Index K = sc.rows(), m_on = static_cast<Index>(on.size());
  for (Index j = 0; j < m_on; ++j) {
    double top = -inf;
    for (Index k = 0; k < K; ++k) {
      const double v = std::isnan(sc(k, j)) ? -inf : sc(k, j);
      if (v > top) top = v;
    }
    if (!(top > -inf)) continue;
    const double slack = std::isinf(top) ? 0.0 : 1e-10 * std::max(std::abs(top), 1e-300);
    for (Index k = 0; k < K; ++k) {
      const double v = std::isnan(sc(k, j)) ? -inf : sc(k, j);
      if (v >= top - slack) {
        r.best[on[j]] = static_cast<int>(k);
        r.score[on[j]] = sc(k, j);
        break;
      }
    }
  }
  if (!cascade)
    for (Index j = 0; j < m_on; ++j) {
      const Index i = on[j];
      if (r.best[i] < 0) continue;
      r.lookahead[i] = r.score[i];
      if (!fits_budget(s.spent, s.rest_cost, s.budget[i])) continue;
      const double all = s.rest_cost > 0 ? r.risk[i] / s.rest_cost : (r.risk[i] > 0 ? inf : 0.0);
      if (all > r.lookahead[i]) r.lookahead[i] = all;
    }
  if (s.table) {
    r.reduction = red;
    r.table_score = sc;
  }
}

// The rows of a node whose candidates are scored: all, or with a threshold on the risk or the margin
// those that do not stop on it.
inline std::vector<Index> scored_rows(const NodeSpec& s, const NodeResult& r) {
  std::vector<Index> on;
  const bool has_threshold = !std::isnan(s.threshold);
  for (Index i = 0; i < static_cast<Index>(s.budget.size()); ++i) {
    bool go = true;
    if (has_threshold && s.stop == PolicyStop::Risk) go = !(r.risk[i] < s.threshold);
    if (has_threshold && s.stop == PolicyStop::Margin) go = !(r.margin[i] >= s.threshold);
    if (go) on.push_back(i);
  }
  return on;
}

inline NodeResult evaluate_node(const MatrixXd& A, const NodeSpec& s) {
  const Index n = s.budget.size(), P = s.P;
  const bool gaussian = FamilyOps{s.family}.least_squares();  // a prediction, not a class
  const bool cascade = s.rule == PolicyRule::Cascade;
  NodeResult r;
  // the conditional mean and covariance of eta
  MatrixXd mean = s.base.transpose().replicate(n, 1);
  if (!s.swept.empty()) {
    MatrixXd coef(s.swept.size(), P);
    for (std::size_t a = 0; a < s.swept.size(); ++a) coef.row(a) = A.block(s.swept[a], s.eta0, 1, P);
    mean.noalias() += s.xo * coef;
  }
  MatrixXd V = A.block(s.eta0, s.eta0, P, P);
  for (Index c = 0; c < P; ++c)
    if (V(c, c) < 0) V(c, c) = 0;
  r.var = V;
  // the link whose inverse is E[response | x_O]: the probit approximation for classification
  MatrixXd cond = mean;
  if (!gaussian)
    for (Index c = 0; c < P; ++c) cond.col(c) /= std::sqrt(1 + 3.14159265358979323846 * V(c, c) / 8);
  if (s.prefix) {
    prefix_prediction(s, r);
  } else {
    r.link = mean;
    r.rlink = cond;
  }
  // the decision contrast of each row: eta itself, or the difference of the two leading classes
  VectorXd cm(n), cv(n);
  std::vector<Index> f(n, 0), sec(n, 0);
  for (Index i = 0; i < n; ++i) {
    if (P == 1) {
      cm[i] = mean(i, 0);
      cv[i] = std::max(0.0, V(0, 0));
    } else {
      leading_two(cond.row(i), f[i], sec[i]);
      cm[i] = mean(i, f[i]) - mean(i, sec[i]);
      cv[i] = std::max(0.0, V(f[i], f[i]) + V(sec[i], sec[i]) - 2 * V(f[i], sec[i]));
    }
  }
  r.sd = cv.cwiseSqrt();
  r.risk = VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  if (!cascade)
    for (Index i = 0; i < n; ++i) r.risk[i] = decision_risk(cm[i], cv[i], gaussian, s.tol);
  node_decisions(s, r);
  // the rows whose candidates are scored
  const std::vector<Index> on = scored_rows(s, r);
  no_choices(n, r);
  const Index K = static_cast<Index>(s.candidates.size()), m_on = static_cast<Index>(on.size());
  if (!K || !m_on) return r;
  const double inf = std::numeric_limits<double>::infinity();
  MatrixXd red = MatrixXd::Constant(K, m_on, cascade ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  MatrixXd sc = MatrixXd::Constant(K, m_on, inf);
  for (Index k = 0; k < K; ++k) {
    const double mc = s.marginal_cost[k];
    if (!cascade) {
      const MatrixXd Vn = candidate_covariance(A, s.candidates[k], s.candidate_diag0[k], s.eta0, P);
      for (Index j = 0; j < m_on; ++j) {
        const Index i = on[j];
        const double vn = P == 1 ? std::max(0.0, Vn(0, 0))
                                 : std::max(0.0, Vn(f[i], f[i]) + Vn(sec[i], sec[i]) - 2 * Vn(f[i], sec[i]));
        const double e = expected_decision_risk(cm[i], cv[i], vn, gaussian, s.tol);
        const double d = std::max(0.0, r.risk[i] - e);
        red(k, j) = d;
        sc(k, j) = candidate_score(d, mc);
      }
    }
    for (Index j = 0; j < m_on; ++j)
      if (!fits_budget(s.spent, mc, s.budget[on[j]])) sc(k, j) = std::numeric_limits<double>::quiet_NaN();
  }
  choose_candidates(s, on, red, sc, r);
  return r;
}

}  // namespace fgseq

#endif  // FGSEQ_ADAPTIVE_NODE_HPP
