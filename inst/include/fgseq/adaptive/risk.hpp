// The decision risk of per-row acquisition (R's fgseq_policy()): what observing one more group is
// expected to leave of the chance that a row's decision differs from the full-information decision,
// under the Gaussian working model of x. For each row the decision goes through one contrast of the
// linear predictors (binomial and gaussian: eta; multinomial: the difference of the two leading
// classes) with conditional mean m and variance v given the groups observed; observing a group leaves
// the variance v_new <= v, and its mean m' ~ N(m, v - v_new).
//   classification: risk now pnorm(-|m| / sqrt(v)); after the group E[pnorm(-|m'| / sqrt(v_new))],
//     the probability that sign(m') differs from sign(eta), with (m', eta) bivariate normal of means
//     (m, m), variances (v - v_new, v) and covariance v - v_new: with a = m / sqrt(v - v_new),
//     b = m / sqrt(v) and rho = sqrt((v - v_new) / v), pnorm(-a) + pnorm(-b) - 2 P(Z1 > a, Z2 > b);
//   gaussian: the probability that the prediction is further than tol from the full model's,
//     2 pnorm(-tol / sqrt(v_new)), which depends on the variance alone.
// The R package keeps the tree of nodes and the candidates' variances; these are its per-row numbers.
#ifndef FGSEQ_ADAPTIVE_RISK_HPP
#define FGSEQ_ADAPTIVE_RISK_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "../common/types.hpp"

namespace fgseq {

// P(Z > z) for a standard normal Z (R's pnorm(-z)).
inline double normal_upper(double z) { return 0.5 * std::erfc(z * 0.70710678118654752440); }

// Gauss-Legendre nodes in (0, 1] and weights of the 6-, 12- and 20-point rules (half of each
// symmetric rule), as bvn_upper() uses them.
struct BvnRule {
  int size;
  const double* x;
  const double* w;
};
inline BvnRule bvn_rule(int which) {
  static const double x6[] = {0.9324695142031522, 0.6612093864662647, 0.2386191860831970};
  static const double w6[] = {0.1713244923791705, 0.3607615730481384, 0.4679139345726904};
  static const double x12[] = {0.9815606342467191, 0.9041172563704750, 0.7699026741943050,
                               0.5873179542866171, 0.3678314989981802, 0.1252334085114692};
  static const double w12[] = {0.04717533638651177, 0.1069393259953183, 0.1600783285433464,
                               0.2031674267230659,  0.2334925365383547, 0.2491470458134029};
  static const double x20[] = {0.9931285991850949, 0.9639719272779138, 0.9122344282513259, 0.8391169718222188,
                               0.7463319064601508, 0.6360536807265150, 0.5108670019508271, 0.3737060887154196,
                               0.2277858511416451, 0.07652652113349733};
  static const double w20[] = {0.01761400713915212, 0.04060142980038694, 0.06267204833410906, 0.08327674157670475,
                               0.1019301198172404,  0.1181945319615184,  0.1316886384491766,  0.1420961093183821,
                               0.1491729864726037,  0.1527533871307259};
  if (which == 0) return {3, x6, w6};
  if (which == 1) return {6, x12, w12};
  return {10, x20, w20};
}

// P(Z1 > h, Z2 > k) for standard normals of correlation r in [0, 1]: the method of Drezner and
// Wesolowsky (1989) with Genz's (2004) treatment for double precision. For r < 0.925, Gauss-Legendre
// on Plackett's integral over the correlation, in asin(r) (6, 12 or 20 points as r grows); for r near 1
// the expansion about r = 1 with a 20-point rule for its remainder. Accurate to about 1e-15.
inline double bvn_upper(double h, double k, double r) {
  constexpr double two_pi = 6.283185307179586476925;
  const double hk = h * k;
  double out;
  if (r < 0.925) {
    const BvnRule rule = bvn_rule(r < 0.3 ? 0 : (r < 0.75 ? 1 : 2));
    const double hs = (h * h + k * k) / 2;
    const double asr = std::asin(r) / 2;
    double sum = 0.0;
    for (int side = 0; side < 2; ++side) {
      for (int j = 0; j < rule.size; ++j) {
        const double sn = std::sin(asr * (side == 0 ? 1 - rule.x[j] : 1 + rule.x[j]));
        sum += std::exp((sn * hk - hs) / (1 - sn * sn)) * rule.w[j];
      }
    }
    out = sum * asr / two_pi + normal_upper(h) * normal_upper(k);
  } else if (r < 1) {
    const BvnRule rule = bvn_rule(2);
    const double as = (1 - r) * (1 + r);
    double a = std::sqrt(as);
    const double bs = (h - k) * (h - k);
    const double asr = -(bs / as + hk) / 2;
    const double c = (4 - hk) / 8;
    const double d = (12 - hk) / 80;
    double bvn = asr > -100 ? a * std::exp(asr) * (1 - c * (bs - as) * (1 - d * bs) / 3 + c * d * as * as) : 0.0;
    const double b = std::sqrt(bs);
    const double tail = hk > -100 ? std::exp(-hk / 2) * std::sqrt(two_pi) * normal_upper(b / a) * b *
                                        (1 - c * bs * (1 - d * bs) / 3)
                                  : 0.0;
    bvn -= tail;
    a /= 2;
    double sum = 0.0;
    for (int side = 0; side < 2; ++side) {
      for (int j = 0; j < rule.size; ++j) {
        const double ax = a * (side == 0 ? 1 - rule.x[j] : 1 + rule.x[j]);
        const double xs = ax * ax;
        const double asr2 = -(bs / xs + hk) / 2;
        const double sp = 1 + c * xs * (1 + 5 * d * xs);
        const double rs = std::sqrt(1 - xs);
        const double ep = std::exp(-(hk / 2) * xs / ((1 + rs) * (1 + rs))) / rs;
        sum += (asr2 > -100 ? std::exp(asr2) * (sp - ep) : 0.0) * rule.w[j];
      }
    }
    out = (a * sum - bvn) / two_pi + normal_upper(std::max(h, k));
  } else {
    out = normal_upper(std::max(h, k));
  }
  return std::min(std::max(out, 0.0), 1.0);
}

// The decision risk of stopping for a contrast of mean m and variance v (0 where v is 0): for a
// classification pnorm(-|m| / sqrt(v)), for the gaussian family (`tol` > 0) 2 pnorm(-tol / sqrt(v)).
inline double decision_risk(double m, double v, bool gaussian, double tol) {
  if (!(v > 0)) return 0.0;
  return gaussian ? 2 * normal_upper(tol / std::sqrt(v)) : normal_upper(std::abs(m) / std::sqrt(v));
}

// The expected decision risk after observing a group that leaves the contrast variance v_new (<= v).
inline double expected_decision_risk(double m, double v, double v_new, bool gaussian, double tol) {
  if (gaussian || !(v_new > 0)) return decision_risk(m, v_new, gaussian, tol);
  const double d = v - v_new;
  if (!(d > 0)) return normal_upper(std::abs(m) / std::sqrt(v_new));  // the contrast is left as it is
  const double a = m / std::sqrt(d), b = m / std::sqrt(v);
  const double both = normal_upper(a) + normal_upper(b) - 2 * bvn_upper(a, b, std::sqrt(d / v));
  return std::min(std::max(both, 0.0), 1.0);
}

// expected_decision_risk() of every row (m, v, v_new of the same length).
inline VectorXd expected_decision_risks(const Eigen::Ref<const VectorXd>& m, const Eigen::Ref<const VectorXd>& v,
                                        const Eigen::Ref<const VectorXd>& v_new, bool gaussian, double tol) {
  VectorXd out(m.size());
  for (Index i = 0; i < m.size(); ++i) out[i] = expected_decision_risk(m[i], v[i], v_new[i], gaussian, tol);
  return out;
}

}  // namespace fgseq

#endif
