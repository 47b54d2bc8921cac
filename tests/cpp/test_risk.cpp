// The decision risk of per-row acquisition (adaptive/risk.hpp).

// P(Z1 > h, Z2 > k) by the integral over z1 of phi(z1) P(Z2 > k | z1), Simpson's rule on a fine grid.
static double bvn_by_integral(double h, double k, double r) {
  const int steps = 20000;
  const double lo = h, hi = std::max(h, 0.0) + 12.0, dz = (hi - lo) / steps;
  double sum = 0.0;
  for (int i = 0; i <= steps; ++i) {
    const double z = lo + i * dz;
    const double f = std::exp(-z * z / 2) / std::sqrt(2 * M_PI) * normal_upper((k - r * z) / std::sqrt(1 - r * r));
    sum += f * (i == 0 || i == steps ? 1 : (i % 2 ? 4 : 2));
  }
  return sum * dz / 3;
}

static void test_decision_risk() {
  // the bivariate normal probability against the integral, in every branch of bvn_upper() (r below 0.3,
  // below 0.75, below 0.925, near 1), and at r = 0 and r = 1 in closed form
  const double hs[] = {-1.3, 0.0, 0.4, 2.1};
  const double rs[] = {0.1, 0.5, 0.85, 0.95, 0.999};
  double worst = 0.0;
  for (double h : hs)
    for (double k : hs)
      for (double r : rs) worst = std::max(worst, std::abs(bvn_upper(h, k, r) - bvn_by_integral(h, k, r)));
  check(worst < 1e-10, "bvn_upper() equals the integral", worst, 0);
  check(std::abs(bvn_upper(0.3, -0.8, 0.0) - normal_upper(0.3) * normal_upper(-0.8)) < 1e-15,
        "bvn_upper() at r = 0 is the product", bvn_upper(0.3, -0.8, 0.0), normal_upper(0.3) * normal_upper(-0.8));
  check(bvn_upper(0.3, -0.8, 1.0) == normal_upper(0.3), "bvn_upper() at r = 1", bvn_upper(0.3, -0.8, 1.0),
        normal_upper(0.3));
  check(std::abs(bvn_upper(0.0, 0.0, 0.5) - (0.25 + std::asin(0.5) / (2 * M_PI))) < 1e-15,
        "bvn_upper(0, 0, r) = 1/4 + asin(r) / (2 pi)", bvn_upper(0.0, 0.0, 0.5), 0.25 + std::asin(0.5) / (2 * M_PI));
  // the expected risk: at most the risk now, the risk now when the group tells nothing (v_new = v), 0
  // when it tells all (v_new = 0); the gaussian family's in closed form
  const double m = 0.4, v = 2.0;
  check(expected_decision_risk(m, v, v, false, 0) == decision_risk(m, v, false, 0), "a group that tells nothing",
        expected_decision_risk(m, v, v, false, 0), decision_risk(m, v, false, 0));
  check(expected_decision_risk(m, v, 0.0, false, 0) == 0.0, "a group that tells all", expected_decision_risk(m, v, 0.0, false, 0), 0);
  bool below = true;
  for (double vn : {0.1, 0.7, 1.5, 1.99}) below = below && expected_decision_risk(m, v, vn, false, 0) <= decision_risk(m, v, false, 0);
  check(below, "the expected risk is at most the risk now", below, 1);
  // E over m' ~ N(m, v - vn) of pnorm(-|m'| / sqrt(vn)), by Simpson's rule on each side of m' = 0 (the
  // kink of |m'|)
  const double vn = 0.6, sd = std::sqrt(v - vn);
  auto simpson = [&](double lo, double hi) {
    const int steps = 20000;
    const double dz = (hi - lo) / steps;
    double sum = 0.0;
    for (int i = 0; i <= steps; ++i) {
      const double z = lo + i * dz;
      const double f = std::exp(-(z - m) * (z - m) / (2 * sd * sd)) / (sd * std::sqrt(2 * M_PI)) *
                       normal_upper(std::abs(z) / std::sqrt(vn));
      sum += f * (i == 0 || i == steps ? 1 : (i % 2 ? 4 : 2));
    }
    return sum * dz / 3;
  };
  const double integral = simpson(m - 12 * sd, 0.0) + simpson(0.0, m + 12 * sd);
  check(std::abs(expected_decision_risk(m, v, vn, false, 0) - integral) < 1e-12, "the expected risk equals the integral",
        expected_decision_risk(m, v, vn, false, 0), integral);
  check(std::abs(expected_decision_risk(m, v, vn, true, 0.5) - 2 * normal_upper(0.5 / std::sqrt(vn))) < 1e-16,
        "the gaussian family's expected risk", expected_decision_risk(m, v, vn, true, 0.5), 2 * normal_upper(0.5 / std::sqrt(vn)));
  VectorXd mm(2), vv(2), vnn(2);
  mm << m, -m;
  vv << v, v;
  vnn << vn, vn;
  const VectorXd all = expected_decision_risks(mm, vv, vnn, false, 0);
  check(all[0] == all[1] && all[0] == expected_decision_risk(m, v, vn, false, 0), "every row, symmetric in m", all[1], all[0]);
}
