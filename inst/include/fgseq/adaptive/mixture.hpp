// A node of per-row acquisition under a Gaussian mixture working model of x (R's fgseq_mixture(),
// binomial fits): K components, each with its swept joint covariance A_k of (x_S, eta) (as node.hpp's
// single Gaussian), its means and its prior weight. Given a row's observed columns x_O, component k
// has the posterior weight w_k (prior times the density of x_O under k) and eta the conditional normal
// N(m_k, v_k); the probability that the full model decides 1 is P1 = sum_k w_k P(eta > 0 | k) and the
// response the mixture of the probit approximations, sum_k w_k plogis(m_k / sqrt(1 + pi v_k / 8)). The
// node decides by the response (1 when it is above 1/2), and its risk is the probability that the full
// model decides otherwise (1 - P1 or P1). A candidate group g's expected risk is an average over fixed
// draws: for each component j, S draws x_g = E_j[x_g | x_O] + L_j z_s (z_s the stored standard normal
// draws, L_j the Cholesky factor of the conditional covariance of x_g under j), each updating every
// component's weight (the density of x_g given x_O under it) and conditional mean of eta, weighted by
// w_j / S (components of weight below kMixtureWeightFloor left out as sources). The rows of a node
// share every matrix that does not depend on the row's values (the factors L_k^-1 L_j z_s, the
// regression of eta on x_g under k); a row pays K^2 (d^2 + d S) for them.
// Its plain-R reference is tests/testthat/helper-mixture-reference.R.
#ifndef FGSEQ_ADAPTIVE_MIXTURE_HPP
#define FGSEQ_ADAPTIVE_MIXTURE_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../common/types.hpp"
#include "node.hpp"
#include "risk.hpp"

namespace fgseq {

// The posterior weight below which a component is left out as a source of the draws of x_g (its
// share of the expected risk is at most this).
constexpr double kMixtureWeightFloor = 1e-13;

// One component of the mixture at a node.
struct MixtureComponent {
  MatrixXd A;                 // the swept joint covariance of (x_S, eta) under the component
  std::vector<Index> swept;   // its swept pivots (indices into A)
  VectorXd mu;                // its means of the model's columns (the first rows of A)
  double base = 0;            // the unconditional mean of eta under it
  double lw0 = 0;             // log prior weight - (log det(Sigma_OO) + |O| log(2 pi)) / 2 over the swept pivots O
  VectorXd diag0;             // its variances of the model's columns (the rank rule of the pivots)
};

struct MixtureSpec {
  std::vector<MixtureComponent> components;
  MatrixXd x;   // n x q: the node's rows' values of the model's columns (unobserved: not read)
  MatrixXd z;   // S x d_max: the standard normal draws
};

// P(eta > 0) and P(eta < 0) for eta ~ N(m, v) (v = 0: the sign of m; m = 0: one half each).
inline void normal_sides(double m, double v, double& above, double& below) {
  if (v > 0) {  // the smaller side by erfc, the larger as its complement (exact to rounding)
    const double t = m / std::sqrt(v);
    if (t >= 0) {
      below = normal_upper(t);
      above = 1 - below;
    } else {
      above = normal_upper(-t);
      below = 1 - above;
    }
  } else {
    above = m > 0 ? 1.0 : (m < 0 ? 0.0 : 0.5);
    below = 1 - above;
  }
}

// plogis(t) and plogis(-t), each computed without cancellation.
inline void logistic_sides(double t, double& up, double& down) {
  if (t >= 0) {
    const double e = std::exp(-t);
    up = 1 / (1 + e);
    down = e / (1 + e);
  } else {
    const double e = std::exp(t);
    up = e / (1 + e);
    down = 1 / (1 + e);
  }
}

// The working model's numbers of one row: weights w (K, from log weights lw), the components' means m and
// variances v of eta: its risk, and with `decide` its response's two sides (pr = P(y = 1), qr = 1 - pr).
struct MixturePoint {
  double p1 = 0, q1 = 0, pr = 0, qr = 0;
  double risk() const { return pr > qr ? q1 : p1; }
};

inline MixturePoint mixture_point(const double* lw, const double* m, const VectorXd& v, Index K) {
  double top = -std::numeric_limits<double>::infinity();
  for (Index k = 0; k < K; ++k) top = std::max(top, lw[k]);
  double total = 0;
  MixturePoint out;
  for (Index k = 0; k < K; ++k) {
    const double w = std::exp(lw[k] - top);
    total += w;
    double a, b, u, d;
    normal_sides(m[k], v[k], a, b);
    logistic_sides(m[k] / std::sqrt(1 + 3.14159265358979323846 * v[k] / 8), u, d);
    out.p1 += w * a;
    out.q1 += w * b;
    out.pr += w * u;
    out.qr += w * d;
  }
  out.p1 /= total;
  out.q1 /= total;
  out.pr /= total;
  out.qr /= total;
  return out;
}

inline NodeResult evaluate_mixture_node(const MixtureSpec& mx, const NodeSpec& s) {
  const Index n = s.budget.size(), K = static_cast<Index>(mx.components.size()), e0 = s.eta0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NodeResult r;
  // each component's conditional mean of eta and log weight for each row
  MatrixXd m(n, K), lw(n, K);
  VectorXd v(K);
  std::vector<MatrixXd> xo(K);  // the rows' centred values of each component's swept pivots
  for (Index k = 0; k < K; ++k) {
    const MixtureComponent& c = mx.components[k];
    const Index o = static_cast<Index>(c.swept.size());
    xo[k].resize(n, o);
    VectorXd coef(o);
    MatrixXd Q(o, o);
    for (Index a = 0; a < o; ++a) {
      xo[k].col(a) = mx.x.col(c.swept[a]).array() - c.mu[c.swept[a]];
      coef[a] = c.A(c.swept[a], e0);
      for (Index b = 0; b < o; ++b) Q(a, b) = c.A(c.swept[a], c.swept[b]);  // -Sigma_OO^-1
    }
    m.col(k) = VectorXd::Constant(n, c.base) + xo[k] * coef;
    lw.col(k) = VectorXd::Constant(n, c.lw0) + 0.5 * ((xo[k] * Q).cwiseProduct(xo[k])).rowwise().sum();
    v[k] = std::max(0.0, c.A(e0, e0));
  }
  // the prediction, its spread and the risk of each row
  r.link.resize(n, 1);
  r.rlink.resize(n, 1);
  r.risk.resize(n);
  r.sd.resize(n);
  const MatrixXd mt = m.transpose(), lwt = lw.transpose();  // K x n: one row's numbers are contiguous
  for (Index i = 0; i < n; ++i) {
    const MixturePoint pt = mixture_point(lwt.col(i).data(), mt.col(i).data(), v, K);
    r.risk[i] = pt.risk();
    double top = lwt.col(i).maxCoeff(), total = 0, mean = 0, spread = 0;
    for (Index k = 0; k < K; ++k) {
      const double w = std::exp(lwt(k, i) - top);
      total += w;
      mean += w * mt(k, i);
    }
    mean /= total;
    for (Index k = 0; k < K; ++k) {  // the variance of eta: within and between the components
      const double dm = mt(k, i) - mean;
      spread += std::exp(lwt(k, i) - top) * (v[k] + dm * dm);
    }
    r.sd[i] = std::sqrt(spread / total);
    r.link(i, 0) = mean;
    r.rlink(i, 0) = std::log(pt.pr) - std::log(pt.qr);
  }
  if (s.prefix) prefix_prediction(s, r);
  r.var = MatrixXd::Constant(1, 1, nan);  // per row under a mixture: sd
  const bool cascade = s.rule == PolicyRule::Cascade;  // the fit's order, stopped on the margin: no risk
  if (cascade) r.risk.setConstant(nan);
  node_decisions(s, r);
  const std::vector<Index> on = scored_rows(s, r);
  no_choices(n, r);
  const Index C = static_cast<Index>(s.candidates.size()), m_on = static_cast<Index>(on.size());
  if (!C || !m_on) return r;
  MatrixXd red = MatrixXd::Constant(C, m_on, cascade ? nan : 0.0);
  MatrixXd sc = MatrixXd::Constant(C, m_on, std::numeric_limits<double>::infinity());
  const Index S = mx.z.rows();
  for (Index g = 0; g < C; ++g) {
    const double mc = s.marginal_cost[g];
    if (cascade) {
      for (Index jj = 0; jj < m_on; ++jj)
        if (!fits_budget(s.spent, mc, s.budget[on[jj]])) sc(g, jj) = nan;
      continue;
    }
    const std::vector<Index>& G = s.candidates[g];
    // the pivots every component accepts
    std::vector<char> ok(G.size(), 1);
    for (Index k = 0; k < K; ++k) {
      const MixtureComponent& c = mx.components[k];
      VectorXd d0(G.size());
      for (std::size_t a = 0; a < G.size(); ++a) d0[a] = c.diag0[G[a]];
      const Pivots piv = accepted_pivots(principal_block(c.A, G), d0);
      std::vector<char> in(G.size(), 0);
      for (Index a : piv.keep) in[a] = 1;
      for (std::size_t a = 0; a < G.size(); ++a) ok[a] = ok[a] && in[a];
    }
    std::vector<Index> keep;
    for (std::size_t a = 0; a < G.size(); ++a)
      if (ok[a]) keep.push_back(G[a]);
    const Index d = static_cast<Index>(keep.size());
    if (d > 0) {
      // what does not depend on the row: each component's factor L, the regression b of eta on x_g,
      // eta's variance after x_g, and for each pair (k, j) the draws of component j seen from k
      std::vector<MatrixXd> L(K), B(K);
      std::vector<VectorXd> b(K);
      VectorXd vn(K), hl(K);
      for (Index k = 0; k < K; ++k) {
        const MixtureComponent& c = mx.components[k];
        const MatrixXd Sg = principal_block(c.A, keep);
        L[k] = Eigen::LLT<MatrixXd>(Sg).matrixL();
        VectorXd a(d);
        for (Index t = 0; t < d; ++t) a[t] = c.A(keep[t], e0);
        b[k] = L[k].transpose().triangularView<Eigen::Upper>().solve(L[k].triangularView<Eigen::Lower>().solve(a));
        vn[k] = std::max(0.0, v[k] - a.dot(b[k]));
        hl[k] = L[k].diagonal().array().log().sum();
        const Index o = static_cast<Index>(c.swept.size());
        B[k].resize(o, d);  // E_k[x_g | x_O] = mu_k,g + xo_k B_k
        for (Index a2 = 0; a2 < o; ++a2)
          for (Index t = 0; t < d; ++t) B[k](a2, t) = c.A(c.swept[a2], keep[t]);
      }
      const MatrixXd Zt = mx.z.leftCols(d).transpose();  // d x S
      std::vector<MatrixXd> T(K * K);                     // (k, j): L_k^-1 L_j z (d x S)
      MatrixXd nz(K * K, S), shift(K * K, S);             // |L_k^-1 L_j z|^2 and b_k' L_j z
      for (Index j = 0; j < K; ++j) {
        const MatrixXd Y = L[j].triangularView<Eigen::Lower>() * Zt;
        for (Index k = 0; k < K; ++k) {
          MatrixXd Tk = L[k].triangularView<Eigen::Lower>().solve(Y);
          nz.row(k * K + j) = Tk.colwise().squaredNorm();
          shift.row(k * K + j) = b[k].transpose() * Y;
          T[k * K + j] = std::move(Tk);
        }
      }
      MatrixXd E(d, K), M(K, S), lwd(K, S);
      VectorXd u(d);
      for (Index jj = 0; jj < m_on; ++jj) {
        const Index i = on[jj];
        for (Index k = 0; k < K; ++k) {
          const MixtureComponent& c = mx.components[k];
          for (Index t = 0; t < d; ++t) E(t, k) = c.mu[keep[t]];
          if (B[k].rows()) E.col(k).noalias() += B[k].transpose() * xo[k].row(i).transpose();
        }
        double top = lwt.col(i).maxCoeff(), total = 0;
        VectorXd w(K);
        for (Index k = 0; k < K; ++k) total += (w[k] = std::exp(lwt(k, i) - top));
        w /= total;
        double expected = 0;
        for (Index j = 0; j < K; ++j) {
          if (!(w[j] > kMixtureWeightFloor)) continue;
          for (Index k = 0; k < K; ++k) {
            const VectorXd delta = E.col(j) - E.col(k);
            u = L[k].triangularView<Eigen::Lower>().solve(delta);
            const double uu = u.squaredNorm(), mb = b[k].dot(delta);
            const Eigen::RowVectorXd uz = u.transpose() * T[k * K + j];
            for (Index t = 0; t < S; ++t) {
              lwd(k, t) = lwt(k, i) - 0.5 * (uu + 2 * uz[t] + nz(k * K + j, t)) - hl[k];
              M(k, t) = mt(k, i) + mb + shift(k * K + j, t);
            }
          }
          double sum = 0;
          for (Index t = 0; t < S; ++t) sum += mixture_point(lwd.col(t).data(), M.col(t).data(), vn, K).risk();
          expected += w[j] * sum / S;
        }
        const double dd = std::max(0.0, r.risk[i] - std::min(std::max(expected, 0.0), 1.0));
        red(g, jj) = dd;
        sc(g, jj) = candidate_score(dd, mc);
      }
    } else {
      for (Index jj = 0; jj < m_on; ++jj) sc(g, jj) = candidate_score(0.0, mc);
    }
    for (Index jj = 0; jj < m_on; ++jj)
      if (!fits_budget(s.spent, mc, s.budget[on[jj]])) sc(g, jj) = nan;
  }
  choose_candidates(s, on, red, sc, r);
  return r;
}

}  // namespace fgseq

#endif  // FGSEQ_ADAPTIVE_MIXTURE_HPP
