// A node of per-row acquisition under a mixture working model (adaptive/mixture.hpp).

static void test_mixture_node() {
  // a joint covariance of 5 columns and eta; the groups {0, 1} (observed) and {2, 3} (the candidate)
  const Index q = 5, N = q + 1, n = 6, S = 8;
  MatrixXd Zx = MatrixXd::Random(60, q);
  const VectorXd beta = VectorXd::Random(q);
  MatrixXd X(60, N);
  X << Zx, Zx * beta;
  const VectorXd mu = X.colwise().mean();
  const MatrixXd C = X.rowwise() - mu.transpose();
  const MatrixXd J = C.transpose() * C / 59.0;
  const VectorXd diag0 = J.diagonal().head(q);
  MatrixXd A = J;
  VectorXd d01(2);
  d01 << diag0[0], diag0[1];
  sweep_block(A, {0, 1}, d01);
  // two equal components of proportion 1/2: the posterior weights stay 1/2 whatever the values, so the
  // node is the single Gaussian's, and the expected risk after {2, 3} the average over the draws of the
  // single Gaussian's risk at the moved mean
  MixtureSpec mx;
  for (int k = 0; k < 2; ++k) {
    MixtureComponent c;
    c.A = A;
    c.swept = {0, 1};
    c.mu = mu.head(q);
    c.base = mu[q];
    c.lw0 = std::log(0.5);
    c.diag0 = diag0;
    mx.components.push_back(c);
  }
  mx.x = X.topRows(n).leftCols(q);
  mx.z = MatrixXd::Random(S, 2) * 1.7;
  NodeSpec s;
  s.family = Family::Binomial;
  s.eta0 = q;
  s.P = 1;
  s.base = mu.tail(1);
  s.swept = {0, 1};
  s.xo = C.topRows(n).leftCols(2);
  s.budget = VectorXd::Constant(n, 1e9);
  VectorXd d23(2);
  d23 << diag0[2], diag0[3];
  s.candidates = {{2, 3}};
  s.candidate_diag0 = {d23};
  s.marginal_cost = VectorXd::Constant(1, 2.0);
  s.table = true;
  const NodeResult single = evaluate_node(A, s);
  const NodeResult r = evaluate_mixture_node(mx, s);
  const double dl = (r.link - single.link).cwiseAbs().maxCoeff();
  const double dr = (r.risk - single.risk).cwiseAbs().maxCoeff();
  check(dl < 1e-12 && dr < 1e-14, "two equal components: the single Gaussian's mean and risk", dr, 0);
  MatrixXd Sg(2, 2);
  Sg << A(2, 2), A(2, 3), A(3, 2), A(3, 3);
  const VectorXd a = (VectorXd(2) << A(2, q), A(3, q)).finished();
  const MatrixXd L = Sg.llt().matrixL();
  const VectorXd b = Sg.llt().solve(a);
  const double vn = A(q, q) - a.dot(b);
  double worst = 0;
  for (Index i = 0; i < n; ++i) {
    double e = 0;
    for (Index t = 0; t < S; ++t) {
      const double m = single.link(i, 0) + b.dot(L * mx.z.row(t).transpose());
      e += decision_risk(m, vn, false, 0) / S;
    }
    worst = std::max(worst, std::abs(r.reduction(0, i) - std::max(0.0, single.risk[i] - e)));
  }
  check(worst < 1e-12, "two equal components: the expected risk is the draws' average of the moved mean's risk", worst, 0);
  // a component of negligible weight changes nothing
  MixtureSpec three = mx;
  three.components.push_back(mx.components[0]);
  three.components[2].mu.array() += 3;
  three.components[2].lw0 = -800;
  const NodeResult r3 = evaluate_mixture_node(three, s);
  const double d3 = (r3.reduction - r.reduction).cwiseAbs().maxCoeff() + (r3.risk - r.risk).cwiseAbs().maxCoeff();
  check(d3 < 1e-14, "a component of weight exp(-800) changes neither the risk nor the reductions", d3, 0);
}
