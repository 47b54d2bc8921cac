// The damped Newton solver over an evaluator (common/newton.hpp), on risks whose minimum is known
// another way.

// A quadratic risk 1/2 t' A t - b' t (A positive definite): newton_solve() ends at A^-1 b (Eigen's LDLT)
// and says it converged.
static void test_newton_quadratic(Problem& pb) {
  const Index k = 6;
  MatrixXd R(k + 4, k);
  for (Index i = 0; i < R.size(); ++i) R.data()[i] = pb.N(pb.rng);
  const MatrixXd A = R.transpose() * R + MatrixXd::Identity(k, k);
  VectorXd b(k);
  for (Index i = 0; i < k; ++i) b(i) = pb.N(pb.rng);
  const NewtonEvaluator ev = [&](NewtonPoint& pt, NewtonNeed need) {
    pt.risk = 0.5 * pt.theta.dot(A * pt.theta) - b.dot(pt.theta);
    pt.loss = pt.risk;
    pt.deviance = 2.0 * pt.risk;
    if (need >= NewtonNeed::Gradient) pt.gradient = A * pt.theta - b;
    if (need >= NewtonNeed::Hessian) pt.hessian = A;
    pt.level = std::max(need, NewtonNeed::Accept);
  };
  const NewtonSolution s = newton_solve(VectorXd::Zero(k), ev, NewtonControl());
  const VectorXd want = A.ldlt().solve(b);
  check(s.converged && (s.point.theta - want).norm() < 1e-9 * want.norm(), "Newton on a quadratic: A^-1 b",
        (s.point.theta - want).norm(), 0);
}

// Ridge logistic regression on the shared problem's first 3 columns (standardized) with an intercept,
// its risk and derivatives written here by plain loops: at the solution, the gradient computed by a
// plain loop vanishes, and the risk is below that of any of 20 random nearby points.
static void test_newton_logistic(Problem& pb) {
  const Index n = pb.n, k = 4;
  MatrixXd X(n, k);
  X.col(0).setOnes();
  for (Index j = 1; j < k; ++j) {
    const VectorXd c = pb.x.col(j - 1).array() - pb.x.col(j - 1).mean();
    X.col(j) = c / std::sqrt(c.squaredNorm() / n);
  }
  VectorXd y(n);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (Index i = 0; i < n; ++i) y(i) = U(pb.rng) < 1.0 / (1.0 + std::exp(-(0.3 + X(i, 1) - 0.5 * X(i, 2)))) ? 1.0 : 0.0;
  const double lambda = 0.01;
  auto risk = [&](const VectorXd& t) {
    double s = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double e = X.row(i).dot(t);
      s += std::log1p(std::exp(e)) - y(i) * e;
    }
    return s / n + 0.5 * lambda * t.tail(k - 1).squaredNorm();
  };
  auto gradient = [&](const VectorXd& t) {
    VectorXd g = VectorXd::Zero(k);
    for (Index i = 0; i < n; ++i) g += X.row(i).transpose() * (1.0 / (1.0 + std::exp(-X.row(i).dot(t))) - y(i)) / n;
    g.tail(k - 1) += lambda * t.tail(k - 1);
    return g;
  };
  const NewtonEvaluator ev = [&](NewtonPoint& pt, NewtonNeed need) {
    pt.risk = risk(pt.theta);
    pt.loss = pt.risk * n;
    pt.deviance = 2.0 * n * pt.risk;
    if (need >= NewtonNeed::Gradient) pt.gradient = gradient(pt.theta);
    if (need >= NewtonNeed::Hessian) {
      const VectorXd mu = (1.0 + (-(X * pt.theta)).array().exp()).inverse();
      const VectorXd v = mu.array() * (1.0 - mu.array());
      pt.hessian = X.transpose() * v.asDiagonal() * X / n;
      pt.hessian.diagonal().tail(k - 1).array() += lambda;
    }
    pt.level = std::max(need, NewtonNeed::Accept);
  };
  const NewtonSolution s = newton_solve(VectorXd::Zero(k), ev, NewtonControl());
  check(s.converged && gradient(s.point.theta).cwiseAbs().maxCoeff() < 1e-8, "Newton on a logistic risk: zero gradient",
        gradient(s.point.theta).cwiseAbs().maxCoeff(), 0);
  check(!s.diverging, "Newton on a logistic risk: a finite optimum, not diverging", s.diverging, 0);
  // converged means the gradient test at the point returned: stopped after 2 steps, it has not
  NewtonControl two;
  two.newton_max_iter = 2;
  const NewtonSolution short_solve = newton_solve(VectorXd::Zero(k), ev, two);
  check(!short_solve.converged && gradient(short_solve.point.theta).cwiseAbs().maxCoeff() > two.grad_tol,
        "Newton on a logistic risk: 2 steps, not converged", short_solve.converged, 0);
  bool lowest = true;
  for (int r = 0; r < 20; ++r) {
    VectorXd t = s.point.theta;
    for (Index j = 0; j < k; ++j) t(j) += 0.01 * pb.N(pb.rng);
    lowest = lowest && risk(t) > risk(s.point.theta);
  }
  check(lowest, "Newton on a logistic risk: a minimum", lowest, 1);
}

// Logistic regression without intercept or ridge on separable data (y = 1 exactly where x > 0, x on a
// grid away from 0): the risk mean log(1 + exp(-|x_i| t)) falls toward 0 as t grows, without a minimum.
// The solve ends by the gradient test (the gradient, computed by a plain loop at the point returned,
// is at most grad_tol) at a large t, and says it went toward an optimum at infinity (each Newton step
// about the same length: the risk is about a exp(-t) there); on the same x with two labels flipped (a
// finite optimum) it converges without that.
static void test_newton_separable(Problem&) {
  const Index n = 40;
  VectorXd x(n), y(n);
  for (Index i = 0; i < n; ++i) {
    x(i) = (i < n / 2 ? -1.0 : 1.0) * (0.5 + static_cast<double>(i % (n / 2)) / 10.0);
    y(i) = x(i) > 0 ? 1.0 : 0.0;
  }
  auto solve = [&](const VectorXd& yy, double& grad) {
    auto gradient = [&](double t) {
      double g = 0.0;
      for (Index i = 0; i < n; ++i) g += x(i) * (1.0 / (1.0 + std::exp(-x(i) * t)) - yy(i)) / n;
      return g;
    };
    const NewtonEvaluator ev = [&](NewtonPoint& pt, NewtonNeed need) {
      const double t = pt.theta(0);
      double r = 0.0, h = 0.0;
      for (Index i = 0; i < n; ++i) {
        const double e = x(i) * t;
        r += (e > 0 ? e + std::log1p(std::exp(-e)) : std::log1p(std::exp(e))) - yy(i) * e;
        const double mu = 1.0 / (1.0 + std::exp(-e));
        h += x(i) * x(i) * mu * (1.0 - mu);
      }
      pt.risk = r / n;
      pt.loss = r;
      pt.deviance = 2.0 * r;
      if (need >= NewtonNeed::Gradient) pt.gradient = VectorXd::Constant(1, gradient(t));
      if (need >= NewtonNeed::Hessian) pt.hessian = MatrixXd::Constant(1, 1, h / n);
      pt.level = std::max(need, NewtonNeed::Accept);
    };
    const NewtonSolution s = newton_solve(VectorXd::Zero(1), ev, NewtonControl());
    grad = std::abs(gradient(s.point.theta(0)));
    return s;
  };
  double grad = 0.0;
  const NewtonSolution sep = solve(y, grad);
  check(sep.converged && grad <= NewtonControl().grad_tol, "Newton on separable data: the gradient test", grad,
        NewtonControl().grad_tol);
  check(sep.diverging && sep.point.theta(0) > 10.0, "Newton on separable data: toward an optimum at infinity",
        sep.point.theta(0), 1);
  VectorXd flipped = y;
  flipped(0) = 1.0;
  flipped(n - 1) = 0.0;
  const NewtonSolution fin = solve(flipped, grad);
  check(fin.converged && grad <= NewtonControl().grad_tol && !fin.diverging,
        "Newton on nearly separable data: a finite optimum, not diverging", grad, 0);
}
