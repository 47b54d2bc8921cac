// A node of per-row acquisition (adaptive/node.hpp).

// Goodnight's sweep of pivot j of A in place, with the tolerance rule of the block sweep.
static bool sweep_one(MatrixXd& A, Index j, double diag0) {
  const double d = A(j, j);
  if (!(diag0 > 0) || !(d > kSweepTolerance * diag0)) return false;
  const VectorXd a = A.col(j), b = A.row(j).transpose();
  A -= a * b.transpose() / d;
  A.row(j) = b.transpose() / d;
  A.col(j) = a / d;
  A(j, j) = -1 / d;
  return true;
}

static void test_policy_node() {
  // a joint covariance of 7 columns and 2 linear predictors; column 5 a combination of columns 0 and 3
  const Index q = 7, P = 2, N = q + P;
  MatrixXd Z = MatrixXd::Random(40, q);
  Z.col(5) = Z.col(0) - 2 * Z.col(3);
  MatrixXd B = MatrixXd::Random(q, P);
  MatrixXd X(40, N);
  X << Z, Z * B;
  const VectorXd mu = X.colwise().mean();
  const MatrixXd C = X.rowwise() - mu.transpose();
  const MatrixXd J = C.transpose() * C / 39.0;
  const VectorXd diag0 = J.diagonal().head(q);
  // the groups {0, 3}, {1, 5, 2}: the block sweep against one pivot at a time
  MatrixXd Ablock = J, Aone = J;
  std::vector<Index> swept;
  for (const std::vector<Index>& g : {std::vector<Index>{0, 3}, std::vector<Index>{1, 5, 2}}) {
    VectorXd d0(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) d0[i] = diag0[g[i]];
    for (Index k : sweep_block(Ablock, g, d0)) swept.push_back(k);
    for (std::size_t i = 0; i < g.size(); ++i) sweep_one(Aone, g[i], d0[i]);
  }
  check(swept.size() == 4 && swept[2] == 1 && swept[3] == 2, "the collinear column is not swept",
        static_cast<double>(swept.size()), 4);
  const double diff = (Ablock - Aone).cwiseAbs().maxCoeff();
  check(diff < 1e-10, "the block sweep equals the sweep one pivot at a time", diff, 0);
  // the conditional covariance after one group more, without the sweep, against the sweep
  MatrixXd A0 = J;
  VectorXd d03(2);
  d03 << diag0[0], diag0[3];
  sweep_block(A0, {0, 3}, d03);
  VectorXd d4(2);
  d4 << diag0[4], diag0[6];
  const MatrixXd Vc = candidate_covariance(A0, {4, 6}, d4, q, P);
  MatrixXd A1 = A0;
  sweep_block(A1, {4, 6}, d4);
  const double dv = (Vc - A1.block(q, q, P, P)).cwiseAbs().maxCoeff();
  check(dv < 1e-12, "candidate_covariance() equals the sweep's", dv, 0);
  // the node's conditional mean: Sigma_eO Sigma_OO^-1 (x_O - mu_O) by a direct solve
  NodeSpec s;
  s.family = Family::Multinomial;
  s.eta0 = q;
  s.P = P;
  s.base = mu.tail(P);
  s.swept = {0, 3};
  s.xo.resize(5, 2);
  s.xo << C.block(0, 0, 5, 1), C.block(0, 3, 5, 1);
  s.budget = VectorXd::Constant(5, 1e9);
  s.candidates = {{4, 6}};
  s.candidate_diag0 = {d4};
  s.marginal_cost = VectorXd::Constant(1, 2.0);
  const NodeResult r = evaluate_node(A0, s);
  MatrixXd Soo(2, 2), Soe(2, P);
  Soo << J(0, 0), J(0, 3), J(3, 0), J(3, 3);
  Soe << J.block(0, q, 1, P), J.block(3, q, 1, P);
  const MatrixXd want = (s.xo * Soo.ldlt().solve(Soe)).rowwise() + mu.tail(P).transpose();
  const double dm = (r.link - want).cwiseAbs().maxCoeff();
  check(dm < 1e-10, "the node's conditional mean equals the direct solve", dm, 0);
  const MatrixXd Vwant = J.block(q, q, P, P) - Soe.transpose() * Soo.ldlt().solve(Soe);
  check((r.var - Vwant).cwiseAbs().maxCoeff() < 1e-10, "the node's conditional covariance", r.var(0, 0), Vwant(0, 0));
  bool chosen = true;
  for (Index i = 0; i < 5; ++i) chosen = chosen && (r.best[i] == 0) == (r.score[i] > 0);
  check(chosen, "a row buys the candidate when its score is positive", 0, 0);
  // the lookahead: max(score, risk / rest_cost) where every group left fits the budget, else the score
  NodeSpec t = s;
  t.rest_cost = 7.5;
  t.budget << 1e9, 1e9, 7.5, 7.4, 0;
  const NodeResult u = evaluate_node(A0, t);
  bool look = true;
  for (Index i = 0; i < 5; ++i) {
    const double want = u.best[i] < 0 ? -std::numeric_limits<double>::infinity()
                        : i < 3 ? std::max(u.score[i], u.risk[i] / 7.5) : u.score[i];
    look = look && u.lookahead[i] == want;
  }
  check(look && u.best[4] < 0, "the lookahead is the larger of the score and the risk per cost of every group left",
        u.lookahead[0], std::max(u.score[0], u.risk[0] / 7.5));
}
