// Group whitening (common/whiten.hpp), the Gram model's path (linear/gram.hpp) and the original scale (greedy/model.hpp).

// On the shared problem at lambda 0 and 0.1: 1. every diagonal block of the whitened Gram matrix is the
// identity (+ lambda); 2. the objective after each step equals rho~' C^-1 rho~ / 2 computed by a direct
// solve; 3. every FR gain recorded on the path equals the increase of that direct objective; 4. the
// coefficients mapped to the original scale reproduce the risk of the direct solve.
static void test_gram_path(Problem& pb) {
  const Index n = pb.n;
  const MatrixXd& x = pb.x;
  const VectorXd& y = pb.y;
  const std::vector<int>& group_of = pb.group_of;
  const std::vector<double>& cost = pb.cost;
  for (double lambda : {0.0, 0.1}) {
    Control ctl;
    ctl.method = Method::FR;
    ctl.lambda = lambda;
    const GramStats st = gram_stats(x, y, VectorXd());
    const GroupLayout lay = make_layout(group_of, 5);
    const Whitened wh = whiten(st, lay, lambda, ctl.rank_tol);
    for (Index g = 0; g < lay.size(); ++g) {
      const Index r = wh.rank[g], off = wh.offset[g];
      const MatrixXd want = MatrixXd::Identity(r, r) * (1.0 + lambda);
      check((wh.C.block(off, off, r, r) - want).norm() < 1e-10, "whitened diagonal block", 0, 0);
    }
    check(wh.rank[1] == 2, "rank of the rank-deficient group", static_cast<double>(wh.rank[1]), 2);

    GramModel model(wh, st, lay, ctl);
    const Path path = greedy_path(model, cost, ctl);
    // direct objective of a set of groups: rho_S' pinv(C_SS) rho_S / 2 (eigen-based pseudo-inverse)
    auto direct_F = [&](size_t k) {
      std::vector<Index> idx;
      for (size_t s = 0; s < k; ++s)
        for (Index a = 0; a < wh.rank[path.sequence[s]]; ++a) idx.push_back(wh.offset[path.sequence[s]] + a);
      const Index m = static_cast<Index>(idx.size());
      if (m == 0) return 0.0;
      MatrixXd C(m, m);
      VectorXd r(m);
      for (Index a = 0; a < m; ++a) {
        r(a) = wh.rho(idx[a], 0);
        for (Index b = 0; b < m; ++b) C(a, b) = wh.C(idx[a], idx[b]);
      }
      Eigen::SelfAdjointEigenSolver<MatrixXd> es(C);
      const VectorXd u = es.eigenvectors().transpose() * r;
      double F = 0.0;
      for (Index a = 0; a < m; ++a)
        if (es.eigenvalues()(a) > 1e-9) F += u(a) * u(a) / es.eigenvalues()(a);
      return 0.5 * F;
    };
    for (size_t k = 1; k < path.objective.size(); ++k) {
      const double want = direct_F(k);
      check(std::abs(path.objective[k] - want) < 1e-10 * (1 + want), "objective after a step", path.objective[k], want);
      const double gain = (want - direct_F(k - 1)) / cost[path.sequence[k - 1]];
      check(std::abs(path.score[k - 1] - gain) < 1e-10 * (1 + std::abs(gain)), "FR gain per cost", path.score[k - 1], gain);
    }
    // fitted values from original-scale coefficients vs the whitened solution
    std::vector<SparseMatrixXd> beta;
    MatrixXd a0;
    original_scale(path, wh, st, lay, beta, a0);
    const Index K = static_cast<Index>(path.sequence.size());
    const VectorXd fitted = (x * MatrixXd(beta[0]).col(K)).array() + a0(0, K);
    const VectorXd resid = y - fitted;
    const double R = resid.squaredNorm() / (2.0 * n) + 0.5 * lambda * path.w[K].squaredNorm();
    const double want_R = 0.5 * st.yy_total() - path.objective.back();
    check(std::abs(R - want_R) < 1e-9 * (1 + want_R), "risk of the original-scale model", R, want_R);
  }
}
