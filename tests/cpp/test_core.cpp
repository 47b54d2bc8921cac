// Tests of the C++ core without R: builds against Eigen alone.
//   make test-core
// Checks, on a small random problem with correlated, rank-deficient and duplicated columns:
//   1. group whitening: every diagonal block of the whitened Gram matrix is the identity (+ lambda);
//   2. the objective after the last step equals rho~' C^-1 rho~ / 2 computed by a direct solve;
//   3. every FR gain recorded on the path equals the increase of that direct objective;
//   4. the coefficients mapped to the original scale reproduce the fitted values of the direct solve;
//   5. the sample-space engine, on the dense x and on the same x stored sparse, gives the Gram engine's
//      sequence and objectives for every method (and with two OpenMP threads when compiled with them).
#include <fgseq/fgseq.hpp>

#include <cmath>
#include <cstdio>
#include <random>

using namespace fgseq;

static int failures = 0, passes = 0;
static void check(bool ok, const char* what, double got, double want) {
  if (ok) {
    ++passes;
  } else {
    ++failures;
    std::printf("FAIL %s: got %.12g, want %.12g\n", what, got, want);
  }
}

int main() {
  const Index n = 400, p = 12;
  std::mt19937 rng(42);
  std::normal_distribution<double> N(0.0, 1.0);
  MatrixXd x(n, p);
  for (Index i = 0; i < n; ++i) {
    const double common = N(rng);
    for (Index j = 0; j < p; ++j) x(i, j) = 0.6 * common + N(rng) + 10.0 * j;
  }
  x.col(5) = x.col(3) + x.col(4);  // rank-deficient group {3, 4, 5}
  x.col(11) = x.col(0);            // a column duplicated in another group
  VectorXd y(n);
  for (Index i = 0; i < n; ++i) y(i) = x(i, 0) - 0.5 * x(i, 3) + 0.25 * x(i, 7) + N(rng);
  const std::vector<int> group_of{0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 4};
  const std::vector<double> cost{1.0, 2.0, 5.0, 1.5, 3.0};

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
    std::vector<MatrixXd> beta;
    MatrixXd a0;
    original_scale(path, wh, st, lay, beta, a0);
    const Index K = static_cast<Index>(path.sequence.size());
    const VectorXd fitted = (x * beta[0].col(K)).array() + a0(0, K);
    const VectorXd resid = y - fitted;
    const double R = resid.squaredNorm() / (2.0 * n) + 0.5 * lambda * path.w[K].squaredNorm();
    const double want_R = 0.5 * st.yy_total() - path.objective.back();
    check(std::abs(R - want_R) < 1e-9 * (1 + want_R), "risk of the original-scale model", R, want_R);
  }
  // 5. engines and storage agree
  Eigen::SparseMatrix<double> xs = x.sparseView();
  const SparseMap xmap(xs.rows(), xs.cols(), xs.nonZeros(), xs.outerIndexPtr(), xs.innerIndexPtr(), xs.valuePtr());
  const MatrixXd Y = y;
  for (Method m : {Method::OMP, Method::FR, Method::Doubling}) {
    Control gram;
    gram.method = m;
    gram.lambda = 0.01;
    Control sample = gram;
    sample.engine = Engine::Sample;
    sample.threads = 2;
    const FitResult a = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, cost, Family::Gaussian, gram);
    for (int storage = 0; storage < 2; ++storage) {
      const FitResult b = storage == 0
          ? fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, cost, Family::Gaussian, sample)
          : fit_path(SparseDesign(xmap), Y, VectorXd(), MatrixXd(), group_of, 5, cost, Family::Gaussian, sample);
      check(a.path.sequence == b.path.sequence, "sample-space engine: same sequence", 0, 0);
      for (size_t k = 0; k < a.path.objective.size() && k < b.path.objective.size(); ++k)
        check(std::abs(a.path.objective[k] - b.path.objective[k]) < 1e-9 * (1 + a.path.objective[k]),
              "sample-space engine: same objective", b.path.objective[k], a.path.objective[k]);
    }
  }
  std::printf("core: %d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
