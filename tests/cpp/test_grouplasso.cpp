// The cost-weighted group lasso path (sparse/grouplasso.hpp), through its public functions: the first penalty
// of the path in closed form, the optimality (KKT) conditions at every solution of the path, each
// group's entry penalty between the grid values that bracket its entry, and Brent's root finder.
// Its own random stream (the shared problem's is left to the checks before it).

// n rows of groups of the given sizes, whitened under the weights wt (summing to 1): weighted-centred
// columns with Z_g' diag(wt) Z_g = I.
static MatrixXd whitened_groups(std::mt19937& rng, Index n, const std::vector<Index>& sizes, const VectorXd& wt) {
  std::normal_distribution<double> N(0.0, 1.0);
  Index p = 0;
  for (Index k : sizes) p += k;
  MatrixXd x(n, p);
  for (Index i = 0; i < n; ++i) {
    const double common = N(rng);
    for (Index j = 0; j < p; ++j) x(i, j) = 0.5 * common + N(rng);
  }
  for (Index j = 0; j < p; ++j) x.col(j).array() -= wt.dot(x.col(j));
  Index at = 0;
  for (Index k : sizes) {
    const MatrixXd xg = x.middleCols(at, k);
    const MatrixXd S = xg.transpose() * wt.asDiagonal() * xg;
    const Eigen::SelfAdjointEigenSolver<MatrixXd> es(S);
    x.middleCols(at, k) = xg * es.operatorInverseSqrt();
    at += k;
  }
  return x;
}

// The largest violation of the group lasso's optimality conditions at (a0, b), relative to penalty m_g:
// with q = Z' diag(wt) (y - mu) (wt summing to 1), q_g = penalty m_g b_g / ||b_g|| for a non-zero group,
// ||q_g|| <= penalty m_g for a zero one, and the intercept's score sum_i wt_i (y_i - mu_i) = 0.
static double kkt_violation(const MatrixXd& z, const std::vector<Index>& sizes, const VectorXd& y, const VectorXd& wt,
                            const VectorXd& off, const VectorXd& m, bool binomial, double penalty, double a0,
                            const VectorXd& b) {
  VectorXd eta = off + z * b;
  eta.array() += a0;
  const VectorXd mu = binomial ? VectorXd((1.0 + (-eta.array()).exp()).inverse().matrix()) : eta;
  const VectorXd r = wt.cwiseProduct(y - mu);
  const VectorXd q = z.transpose() * r;
  double worst = std::abs(r.sum()) / (penalty * m.minCoeff());
  Index at = 0;
  for (size_t g = 0; g < sizes.size(); ++g) {
    const Index k = sizes[g];
    const VectorXd qg = q.segment(at, k), bg = b.segment(at, k);
    const double pen = penalty * m(static_cast<Index>(g)), nb = bg.norm();
    const double off_by = nb > 0.0 ? (qg - pen * bg / nb).norm() : std::max(0.0, qg.norm() - pen);
    worst = std::max(worst, off_by / pen);
    at += k;
  }
  return worst;
}

static void test_group_lasso_path() {
  std::mt19937 rng(2016);
  std::normal_distribution<double> N(0.0, 1.0);
  std::uniform_real_distribution<double> U(0.5, 2.0);
  const Index n = 150;
  const std::vector<Index> sizes{2, 3, 1, 2};
  const VectorXd m = (VectorXd(4) << 0.5, 1.5, 1.0, 0.8).finished();
  for (int weighted = 0; weighted < 2; ++weighted) {
    VectorXd w = VectorXd::Ones(n), off = VectorXd::Zero(n);
    if (weighted) {
      for (Index i = 0; i < n; ++i) {
        w(i) = U(rng);
        off(i) = 0.3 * N(rng);
      }
    }
    const VectorXd wt = w / w.sum();
    const MatrixXd z = whitened_groups(rng, n, sizes, wt);
    for (int binomial = 0; binomial < 2; ++binomial) {
      VectorXd eta = off + 0.8 * z.col(0) - 0.5 * z.col(3) + 0.3 * z.col(5);
      VectorXd y(n);
      for (Index i = 0; i < n; ++i) {
        y(i) = binomial ? (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < 1.0 / (1.0 + std::exp(-eta(i))) ? 1.0 : 0.0)
                        : eta(i) + N(rng);
      }
      GroupLasso gl(z, sizes, y, weighted ? VectorXd(w) : VectorXd(), weighted ? VectorXd(off) : VectorXd(), m,
                    binomial ? Family::Binomial : Family::Gaussian);
      const GroupLassoPath path = gl.path(30, 0.01);

      // the first penalty: max_g ||Z_g' diag(wt) r|| / m_g, r the residual of the intercept-only fit
      // (gaussian: y - o - the weighted mean of y - o; binomial without offset: y - the weighted mean of y;
      // with wt = 1/n, ||Z_g' r|| / (n m_g))
      if (!binomial || !weighted) {
        VectorXd r = y - off;
        r.array() -= wt.dot(r);
        const VectorXd q = z.transpose() * wt.asDiagonal() * r;
        double lmax = 0.0;
        Index first = -1, at = 0;
        for (size_t g = 0; g < sizes.size(); ++g) {
          const double v = q.segment(at, sizes[g]).norm() / m(static_cast<Index>(g));
          if (v > lmax) {
            lmax = v;
            first = static_cast<Index>(g);
          }
          at += sizes[g];
        }
        check(std::abs(path.penalty(0) - lmax) <= 1e-12 * lmax, "group lasso: penalty_max in closed form", path.penalty(0), lmax);
        check(std::abs(path.entry(first) - lmax) <= 1e-12 * lmax, "group lasso: the first group enters at penalty_max",
              path.entry(first), lmax);
        if (!binomial) {
          // the second group to enter, g: until it does, only the first group f is non-zero, at the exact
          // block solution b_f = u (1 - penalty m_f / ||u||), u = q_f (Z_f' diag(wt) Z_f = I), so that
          // q_g(penalty) = q_g - Z_g' diag(wt) Z_f b_f(penalty): its entry is the root of
          // ||q_g(penalty)|| - penalty m_g, found here by bisection
          std::vector<Index> start{0};
          for (Index k : sizes) start.push_back(start.back() + k);
          Index second = -1;
          for (Index g = 0; g < static_cast<Index>(sizes.size()); ++g) {
            if (g == first || std::isnan(path.entry(g))) continue;
            if (second < 0 || path.entry(g) > path.entry(second)) second = g;
          }
          const VectorXd u = q.segment(start[first], sizes[first]);
          const MatrixXd C = z.middleCols(start[second], sizes[second]).transpose() * wt.asDiagonal() *
                             z.middleCols(start[first], sizes[first]);
          const auto h = [&](double penalty) {
            const VectorXd bf = u * (1.0 - penalty * m(first) / u.norm());
            return (q.segment(start[second], sizes[second]) - C * bf).norm() - penalty * m(second);
          };
          double lo = path.penalty(path.penalty.size() - 1), hi = lmax;
          for (int it = 0; it < 200; ++it) {
            const double mid = 0.5 * (lo + hi);
            (h(mid) > 0.0 ? lo : hi) = mid;
          }
          check(std::abs(path.entry(second) - lo) <= 1e-8 * lmax, "group lasso: the second entry in closed form",
                path.entry(second), lo);
        }
      }

      // the optimality conditions at every solution of the path
      double worst = 0.0;
      for (Index k = 0; k < path.penalty.size(); ++k) {
        worst = std::max(worst, kkt_violation(z, sizes, y, wt, off, m, binomial, path.penalty(k), path.a0(k),
                                              path.beta.col(k)));
      }
      check(worst <= 1e-8, "group lasso: KKT conditions along the path (relative violation)", worst, 1e-8);

      // each group's entry lies between the grid values that bracket the first solution holding it
      bool bracketed = true;
      Index at = 0;
      for (size_t g = 0; g < sizes.size(); ++g) {
        Index k = 0;
        while (k < path.penalty.size() && path.beta.col(k).segment(at, sizes[g]).norm() == 0.0) ++k;
        const double e = path.entry(static_cast<Index>(g));
        if (k == path.penalty.size()) bracketed = bracketed && std::isnan(e);
        else if (k == 0) bracketed = bracketed && e == path.penalty(0);
        else bracketed = bracketed && e >= path.penalty(k) && e <= path.penalty(k - 1);
        at += sizes[g];
      }
      check(bracketed, "group lasso: entry lambdas bracketed by the grid", 0, 0);
    }
  }
  // Brent's method: the cube root of 2
  const auto f = [](double x) { return x * x * x - 2.0; };
  const double root = brent_root(f, 0.0, 2.0, f(0.0), f(2.0), 1e-14);
  check(std::abs(root - std::cbrt(2.0)) <= 1e-12, "brent_root: the cube root of 2", root, std::cbrt(2.0));
}
