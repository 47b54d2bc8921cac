// Tests of the C++ core without R: builds against Eigen alone.
//   make test-core
// Checks, on a small random problem with correlated, rank-deficient and duplicated columns:
//   1. group whitening: every diagonal block of the whitened Gram matrix is the identity (+ lambda);
//   2. the objective after the last step equals rho~' C^-1 rho~ / 2 computed by a direct solve;
//   3. every FR gain recorded on the path equals the increase of that direct objective;
//   4. the coefficients mapped to the original scale reproduce the fitted values of the direct solve;
//   5. the sample-space engine, on the dense x and on the same x stored sparse, gives the Gram engine's
//      sequence and objectives for every method (and with two OpenMP threads when compiled with them);
//   6. GLM (binomial and Poisson, with weights and offsets): one chunk's sums added over a split of the
//      rows equal the whole data's, and newton_solve() reproduces GlmModel's fit after two steps both
//      with the in-memory evaluator and with the sums over the chunks;
//   7. GlmRefitModel (fit_glm_refit) with a refit over the rows in memory gives GlmModel's path
//      (fit_path) for every OMP criterion, with and without max_steps and max_cost;
//   8. the 16-bit screening copy and screened CS-G-OMP;
//   9. prefix_predict() (predict.hpp): partially computed rows against the direct sum over their prefix;
//  10. measurements shared by groups: marginal costs paid, free groups first, and one measurement per
//      group is the group-cost path.
#include <fgseq/fgseq.hpp>

#include <algorithm>
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

// ---- the quadratic FR gain as GlmModel computed it before the one-pass form (a reference) ----
// One candidate at a time: its whitened columns Zh, its border Zh' V Z1 and diagonal block by separate
// products, the Schur complement through the LDLT of the Hessian of [1, Z_S], and an eigendecomposition
// (eigenvalues at or below pivot_tol * (largest |eigenvalue| + lambda) dropped).
static MatrixXd reference_cross(const FamilyOps& fam, const MatrixXd& A, const MatrixXd& B, const MatrixXd& mu,
                                const VectorXd& w, double W) {
  const Index ma = A.cols(), mb = B.cols(), P = mu.cols();
  MatrixXd H(ma * P, mb * P);
  for (Index c = 0; c < P; ++c)
    for (Index d = 0; d < P; ++d)
      H.block(c * ma, d * mb, ma, mb) = A.transpose() * (w.cwiseProduct(fam.hessian_weight(mu, c, d)) / W).asDiagonal() * B;
  return H;
}
// `degenerate`: the Schur complement is below pivot_tol * (h's own curvature + lambda) in every
// direction (h collinear with the selected groups), where the former gain was rounding noise.
static double reference_quadratic_gain(const FamilyOps& fam, const MatrixXd& Z1, const MatrixXd& Zh, const MatrixXd& y,
                                       const VectorXd& w, const MatrixXd& mu, const Control& ctl, bool& degenerate) {
  const double W = w.sum();
  const Index r = Zh.cols(), P = y.cols();
  MatrixXd H = reference_cross(fam, Z1, Z1, mu, w, W);
  for (Index c = 0; c < P; ++c) H.diagonal().segment(c * Z1.cols() + 1, Z1.cols() - 1).array() += ctl.lambda;
  H.diagonal().array() += 1e-12 * std::max(H.diagonal().maxCoeff(), 1e-300);
  const Eigen::LDLT<MatrixXd> ldlt(H);
  const MatrixXd resid = w.asDiagonal() * (y - mu);
  const MatrixXd Gh = -(Zh.transpose() * resid) / W;
  const MatrixXd Hac = reference_cross(fam, Zh, Z1, mu, w, W);
  MatrixXd Mhh = reference_cross(fam, Zh, Zh, mu, w, W);
  Mhh.diagonal().array() += ctl.lambda;
  const double scale = Mhh.diagonal().maxCoeff();
  Mhh.noalias() -= Hac * ldlt.solve(Hac.transpose());
  Mhh = 0.5 * (Mhh + Mhh.transpose()).eval();
  const Eigen::Map<const VectorXd> b(Gh.data(), r * P);
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(Mhh);
  degenerate = es.eigenvalues().maxCoeff() <= ctl.pivot_tol * (scale + ctl.lambda);
  const VectorXd u = es.eigenvectors().transpose() * b;
  const double tol = ctl.pivot_tol * (es.eigenvalues().cwiseAbs().maxCoeff() + ctl.lambda);
  double s = 0.0;
  for (Index i = 0; i < u.size(); ++i)
    if (es.eigenvalues()(i) > tol) s += u(i) * u(i) / es.eigenvalues()(i);
  return 0.5 * s;
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
  // random weights in [0.5, 2] and offsets for the GLM checks (6 and 7 draw their own)
  auto glm_weights_offsets = [&](VectorXd& wt, MatrixXd& off) {
    std::uniform_real_distribution<double> U(0.5, 2.0);
    wt.resize(n);
    off.resize(n, 1);
    for (Index i = 0; i < n; ++i) {
      wt(i) = U(rng);
      off(i, 0) = 0.2 * N(rng);
    }
  };
  // 6. GLM sums by chunks of rows, and the Newton solver over either evaluator
  {
    VectorXd wt;
    MatrixXd off;
    glm_weights_offsets(wt, off);
    const DenseDesign dx(x);
    const GroupLayout lay = make_layout(group_of, 5);
    const BlockStats bs = block_stats(dx, MatrixXd(n, 0), wt, lay);
    const Whitened wh = whiten_blocks(bs.blocks, 1e-9);
    const double W = wt.sum();
    const std::vector<Index> rows{0, 130, 275, n};  // three chunks of rows
    for (Family family : {Family::Binomial, Family::Poisson}) {
      const FamilyOps fam{family};
      MatrixXd yg(n, 1);
      for (Index i = 0; i < n; ++i) {
        const double eta = 0.3 * (x(i, 0) - x.col(0).mean()) - 0.2 * (x(i, 7) - x.col(7).mean());
        yg(i, 0) = family == Family::Binomial ? std::bernoulli_distribution(1.0 / (1.0 + std::exp(-eta)))(rng)
                                              : std::poisson_distribution<int>(std::exp(eta))(rng);
      }
      Control ctl;
      ctl.lambda = 1e-3;
      GlmModel model(dx, yg, wt, off, family, wh, bs.st, lay, ctl);
      model.add_group(0);
      model.add_group(3);
      const SelectedColumns sel{{lay.cols[0], lay.cols[3]}, {wh.T[0], wh.T[3]}};
      const Index r0 = wh.rank[0], r3 = wh.rank[3], m1 = 1 + r0 + r3;
      MatrixXd Z1(n, m1);
      Z1.col(0).setOnes();
      Z1.middleCols(1, r0) = whitened_columns(dx, lay.cols[0], bs.st, wh.T[0]);
      Z1.middleCols(1 + r0, r3) = whitened_columns(dx, lay.cols[3], bs.st, wh.T[3]);
      // the model's fit as theta = (intercept; coefficients of group 0; of group 3)
      VectorXd want(m1);
      want << model.intercept(), model.coef().middleRows(wh.offset[0], r0), model.coef().middleRows(wh.offset[3], r3);
      const double want_risk = model.null_risk() - model.objective();

      // sums over the chunks equal the sums over all rows
      auto chunk_total = [&](const MatrixXd& theta) {
        GlmSums total;
        for (size_t k = 0; k + 1 < rows.size(); ++k) {
          const Index b = rows[k], len = rows[k + 1] - rows[k];
          const GlmSums part = glm_chunk_sums(DenseDesign(x.middleRows(b, len)), yg.middleRows(b, len),
                                              wt.segment(b, len), off.middleRows(b, len), family, bs.st, sel, theta);
          if (k == 0) total = part;
          else total += part;
        }
        return total;
      };
      const GlmSums whole = glm_chunk_sums(dx, yg, wt, off, family, bs.st, sel, want);
      const GlmSums split = chunk_total(want);
      auto close = [](const MatrixXd& a, const MatrixXd& b) { return (a - b).norm() <= 1e-10 * (1 + b.norm()); };
      check(std::abs(split.loss - whole.loss) <= 1e-10 * (1 + std::abs(whole.loss)), "GLM chunk sums: loss", split.loss, whole.loss);
      check(std::abs(split.deviance - whole.deviance) <= 1e-10 * (1 + whole.deviance), "GLM chunk sums: deviance",
            split.deviance, whole.deviance);
      check(close(split.gradient, whole.gradient), "GLM chunk sums: gradient", split.gradient.norm(), whole.gradient.norm());
      check(close(split.hessian, whole.hessian), "GLM chunk sums: Hessian", split.hessian.norm(), whole.hessian.norm());
      check(close(split.xr, whole.xr), "GLM chunk sums: X'W(y - mu)", split.xr.norm(), whole.xr.norm());
      check(close(split.rsum, whole.rsum), "GLM chunk sums: 1'W(y - mu)", split.rsum(0), whole.rsum(0));
      // at the fit the penalized gradient from the sums vanishes
      NewtonPoint at;
      at.theta = want;
      glm_sums_point(whole, W, ctl.lambda, at);
      check(at.gradient.cwiseAbs().maxCoeff() < 1e-9, "GLM chunk sums: gradient zero at the fit", at.gradient.cwiseAbs().maxCoeff(), 0);
      check(std::abs(at.risk - want_risk) < 1e-12 * (1 + want_risk), "GLM chunk sums: risk at the fit", at.risk, want_risk);

      // the solver from the null intercept, over the rows in memory and over the chunks' sums
      VectorXd theta0 = VectorXd::Zero(m1);
      theta0(0) = fam.null_intercepts(VectorXd::Constant(1, yg.col(0).dot(wt) / W))(0, 0);
      const NewtonSolution mem = newton_solve(theta0, glm_evaluator(fam, Z1, yg, wt, W, off, ctl.lambda), ctl);
      const NewtonEvaluator by_chunks = [&](NewtonPoint& pt, NewtonNeed) {
        glm_sums_point(chunk_total(Eigen::Map<const MatrixXd>(pt.theta.data(), m1, 1)), W, ctl.lambda, pt);
      };
      const NewtonSolution chk = newton_solve(theta0, by_chunks, ctl);
      for (const NewtonSolution* sol : {&mem, &chk}) {
        const double err = (sol->point.theta - want).cwiseAbs().maxCoeff();
        check(sol->converged, "newton_solve: converged", sol->converged, 1);
        check(err < 1e-8, "newton_solve: GlmModel's coefficients", err, 0);
        check(std::abs(sol->point.risk - want_risk) < 1e-12 * (1 + want_risk), "newton_solve: GlmModel's risk",
              sol->point.risk, want_risk);
      }
    }
  }
  // 7. the GLM path through a refit callback
  {
    VectorXd wt;
    MatrixXd off;
    glm_weights_offsets(wt, off);
    const DenseDesign dx(x);
    const GroupLayout lay = make_layout(group_of, 5);
    const BlockStats bs = block_stats(dx, MatrixXd(n, 0), wt, lay);
    const double W = wt.sum();
    for (Family family : {Family::Binomial, Family::Poisson}) {
      const FamilyOps fam{family};
      MatrixXd yg(n, 1);
      for (Index i = 0; i < n; ++i) {
        const double eta = 0.3 * (x(i, 0) - x.col(0).mean()) - 0.2 * (x(i, 7) - x.col(7).mean()) +
                           0.1 * (x(i, 3) - x.col(3).mean());
        yg(i, 0) = family == Family::Binomial ? std::bernoulli_distribution(1.0 / (1.0 + std::exp(-eta)))(rng)
                                              : std::poisson_distribution<int>(std::exp(eta))(rng);
      }
      for (Criterion criterion : {Criterion::Whitened, Criterion::L2, Criterion::Linf})
        for (int limits = 0; limits < 3; ++limits) {
          Control ctl;
          ctl.lambda = 1e-3;
          ctl.criterion = criterion;
          if (limits == 1) ctl.max_steps = 2;
          if (limits == 2) ctl.max_cost = 4.0;
          const Whitened wh = whiten_blocks(bs.blocks, ctl.rank_tol);
          // the Newton solve over the rows in memory, then the sums that score every column
          Index refits = 0;
          const GlmRefitter refit = [&](const std::vector<Index>& groups, const MatrixXd& theta0) {
            ++refits;
            SelectedColumns sel;
            Index m1 = 1;
            for (Index g : groups) {
              sel.cols.push_back(lay.cols[g]);
              sel.T.push_back(wh.T[g]);
              m1 += wh.rank[g];
            }
            MatrixXd Z1(n, m1);
            Z1.col(0).setOnes();
            for (size_t k = 0, at = 1; k < groups.size(); at += sel.T[k].cols(), ++k)
              Z1.middleCols(static_cast<Index>(at), sel.T[k].cols()) = whitened_columns(dx, sel.cols[k], bs.st, sel.T[k]);
            const Eigen::Map<const VectorXd> start(theta0.data(), theta0.size());
            const NewtonSolution sol = newton_solve(start, glm_evaluator(fam, Z1, yg, wt, W, off, ctl.lambda), ctl);
            GlmRefit f;
            f.theta = Eigen::Map<const MatrixXd>(sol.point.theta.data(), m1, 1);
            f.risk = sol.point.risk;
            f.converged = sol.converged;
            const GlmSums sums = glm_chunk_sums(dx, yg, wt, off, family, bs.st, sel, f.theta);
            f.deviance = sums.deviance;
            f.xr = sums.xr;
            f.rsum = sums.rsum;
            return f;
          };
          const MatrixXd null_theta = fam.null_intercepts(VectorXd::Constant(1, yg.col(0).dot(wt) / W));
          const FitResult a = fit_path(dx, yg, wt, off, group_of, 5, cost, family, ctl);
          const FitResult b = fit_glm_refit(whitening_from_maps(wh.T), bs.st, lay, W, null_theta, refit, cost, ctl);
          const double K = static_cast<double>(a.path.sequence.size());
          check(a.path.sequence == b.path.sequence, "GlmRefitModel: GlmModel's sequence",
                static_cast<double>(b.path.sequence.size()), K);
          check(refits == static_cast<Index>(b.path.sequence.size()) + 1, "GlmRefitModel: one refit per step",
                static_cast<double>(refits), K + 1);
          if (limits == 1) check(K == 2, "GlmRefitModel: max_steps", K, 2);
          if (limits == 0) check(K == 5, "GlmRefitModel: every group", K, 5);
          double spent = 0.0;
          for (Index g : b.path.sequence) spent += cost[g];
          if (limits == 2) check(spent <= 4.0 && K < 5, "GlmRefitModel: max_cost", spent, 4.0);
          for (size_t k = 0; k < a.path.objective.size() && k < b.path.objective.size(); ++k) {
            check(std::abs(a.path.objective[k] - b.path.objective[k]) < 1e-8, "GlmRefitModel: GlmModel's objective",
                  b.path.objective[k], a.path.objective[k]);
            check(std::abs(a.path.r2[k] - b.path.r2[k]) < 1e-8, "GlmRefitModel: GlmModel's r2", b.path.r2[k], a.path.r2[k]);
            check((a.beta[0].col(k) - b.beta[0].col(k)).cwiseAbs().maxCoeff() < 1e-8 &&
                  std::abs(a.a0(0, k) - b.a0(0, k)) < 1e-8, "GlmRefitModel: GlmModel's coefficients",
                  b.a0(0, k), a.a0(0, k));
          }
          for (size_t k = 0; k < a.path.score.size() && k < b.path.score.size(); ++k)
            check(std::abs(a.path.score[k] - b.path.score[k]) <= 1e-8 * (1 + a.path.score[k]),
                  "GlmRefitModel: GlmModel's scores", b.path.score[k], a.path.score[k]);
          check(std::abs(a.null_risk - b.null_risk) < 1e-12 && a.converged == b.converged,
                "GlmRefitModel: null risk and convergence", b.null_risk, a.null_risk);
        }
    }
  }
  // 8. the 16-bit screening copy: every product within its bound, for 1, 5, 13 and 20 columns (one-column,
  //    8-wide and 16-wide kernels), with the vector and the plain kernels, rows and columns not multiples
  //    of the padding, columns of very different scales, one column with an extreme entry, and a vector
  //    aligned with a column's rounding error (the worst case)
  {
    const Index nn = 203, qq = 37;
    MatrixXd A(nn, qq), M(nn, 20);
    for (Index j = 0; j < qq; ++j)
      for (Index i = 0; i < nn; ++i) A(i, j) = N(rng) * std::pow(10.0, static_cast<double>(j % 7) - 3);
    A(5, 11) *= 1e4;
    for (Index c = 0; c < M.cols(); ++c)
      for (Index i = 0; i < nn; ++i) M(i, c) = N(rng);
    const double s3 = A.col(3).cwiseAbs().maxCoeff() / 32767.0;
    for (Index i = 0; i < nn; ++i) M(i, 0) = s3 * std::nearbyint(A(i, 3) / s3) - A(i, 3);
    for (bool vec : {true, false}) {
      ScreeningCopy copy(nn, qq, vec);
      for (Index j = 0; j < qq; ++j) copy.set_column(j, A.col(j));
      for (Index k : {1, 5, 13, 20}) {
        for (int threads : {1, 2}) {
          const MatrixXd got = copy.tmul(M.leftCols(k), threads), want = A.transpose() * M.leftCols(k);
          double worst = 0.0, loosest = 0.0;  // largest error / bound, largest bound / (||a|| ||m||)
          for (Index j = 0; j < qq; ++j)
            for (Index c = 0; c < k; ++c) {
              const double bound = copy.eta()(j) * M.col(c).norm();
              worst = std::max(worst, std::abs(got(j, c) - want(j, c)) / bound);
              if (j != 11) loosest = std::max(loosest, bound / (A.col(j).norm() * M.col(c).norm()));
            }
          check(worst <= 1.0, "screening copy: products within their bound", worst, 1.0);
          check(loosest < 1e-4, "screening copy: the bound is of 16-bit size", loosest, 1e-4);
        }
      }
    }
  }
  // 9. the dense kernels A'M and Y -= A C agree with Eigen's products for every instruction set the CPU
  //    has, for sizes that are not multiples of the vector width and column counts beyond one block
  {
    double worst = 0.0;
    for (int isa : {0, 1, 2})
      for (Index n : {1, 7, 16, 37, 203})
        for (Index m : {1, 3, 50})
          for (Index k : {1, 5, 10, 13, 25})
            for (int threads : {1, 2}) {
              const MatrixXd A = MatrixXd::Random(n + 3, m), M = MatrixXd::Random(n + 2, k);
              const MatrixXd C = MatrixXd::Random(m + 1, k), Y = MatrixXd::Random(n + 4, k);
              const MatrixXd got = kernels::tmul(A.topRows(n), M.topRows(n), threads, isa);
              worst = std::max(worst, (got - A.topRows(n).transpose() * M.topRows(n)).cwiseAbs().maxCoeff());
              MatrixXd Yk = Y, Ye = Y;
              kernels::sub_mul(Yk.topRows(n), A.topRows(n), C.topRows(m), threads, isa);
              Ye.topRows(n).noalias() -= A.topRows(n) * C.topRows(m);
              worst = std::max(worst, (Yk - Ye).cwiseAbs().maxCoeff());
            }
    check(worst < 1e-12, "dense kernels: Eigen's products", worst, 1e-12);
  }
  {
    // CS-G-OMP with and without screening: the same path on a wide problem with a duplicated group
    const Index nw = 30, gw = 16;
    MatrixXd xw(nw, 3 * gw);
    for (Index j = 0; j < xw.cols(); ++j)
      for (Index i = 0; i < nw; ++i) xw(i, j) = N(rng);
    xw.middleCols(3 * (gw - 1), 3) = xw.leftCols(3);
    MatrixXd yw = xw.col(1) - 0.5 * xw.col(7) + 0.3 * MatrixXd::Random(nw, 1);
    std::vector<int> gof;
    for (Index j = 0; j < xw.cols(); ++j) gof.push_back(static_cast<int>(j / 3));
    std::vector<double> cw(static_cast<size_t>(gw));
    for (Index g = 0; g < gw; ++g) cw[static_cast<size_t>(g)] = 1.0 + static_cast<double>(g % 3);
    for (Criterion cr : {Criterion::Whitened, Criterion::L2, Criterion::Linf}) {
      Control on;
      on.engine = Engine::Sample;
      on.criterion = cr;
      on.lambda = 0.01;
      Control off = on;
      off.screen = false;
      const FitResult a = fit_path(DenseDesign(xw), yw, VectorXd(), MatrixXd(), gof, static_cast<int>(gw), cw,
                                   Family::Gaussian, off);
      const FitResult b = fit_path(DenseDesign(xw), yw, VectorXd(), MatrixXd(), gof, static_cast<int>(gw), cw,
                                   Family::Gaussian, on);
      check(a.path.sequence == b.path.sequence, "screened CS-G-OMP: same sequence", 0, 0);
      for (size_t k = 0; k < a.path.score.size() && k < b.path.score.size(); ++k)
        check(std::abs(a.path.score[k] - b.path.score[k]) <= 1e-9 * (1 + std::abs(a.path.score[k])),
              "screened CS-G-OMP: same scores", b.path.score[k], a.path.score[k]);
    }
  }
  // 10. measurements shared by groups (measurements.hpp): the marginal cost paid at each step is the cost
  //    of the group's measurements not paid before; a group of zero marginal cost with a gain is taken
  //    before any group that costs; a vector of group costs is the same as each group its own measurement
  {
    const Measurements shared({{0, 1}, {1, 2}, {0, 2}, {3}, {4}}, {1.0, 2.0, 0.5, 1.5, 0.0});
    const Measurements own({{0}, {1}, {2}, {3}, {4}}, cost);
    for (Method m : {Method::OMP, Method::FR, Method::Doubling}) {
      Control ctl;
      ctl.method = m;
      ctl.lambda = 0.01;
      const FitResult a = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, cost, Family::Gaussian, ctl);
      const FitResult b = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, own, Family::Gaussian, ctl);
      check(a.path.sequence == b.path.sequence && a.path.score == b.path.score && a.path.group_cost == b.path.group_cost,
            "one measurement per group: the group-cost path", 0, 0);
      const FitResult c = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, shared, Family::Gaussian, ctl);
      Control smp = ctl;
      smp.engine = Engine::Sample;
      const FitResult d = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, shared, Family::Gaussian, smp);
      check(c.path.sequence == d.path.sequence, "measurements: the sample-space engine's sequence", 0, 0);
      check(!c.path.sequence.empty() && c.path.sequence[0] == 4, "measurements: the free group first",
            static_cast<double>(c.path.sequence.empty() ? -1 : c.path.sequence[0]), 4);
      std::vector<bool> paid(5, false);
      bool g0 = false, g1 = false;
      for (size_t k = 0; k < c.path.sequence.size(); ++k) {
        const Index g = c.path.sequence[k];
        double want = 0.0;
        for (Index mm : shared.needs[static_cast<size_t>(g)])
          if (!paid[static_cast<size_t>(mm)]) want += shared.cost[static_cast<size_t>(mm)];
        for (Index mm : shared.needs[static_cast<size_t>(g)]) paid[static_cast<size_t>(mm)] = true;
        check(c.path.group_cost[k] == want, "measurements: marginal cost paid", c.path.group_cost[k], want);
        if (g0 && g1 && g != 2 && std::find(c.path.sequence.begin(), c.path.sequence.begin() + k, 2) ==
                                      c.path.sequence.begin() + k)
          check(false, "measurements: group 2 is free after groups 0 and 1 and taken next", static_cast<double>(g), 2);
        g0 = g0 || g == 0;
        g1 = g1 || g == 1;
      }
    }
  }
  // 11. the weighted cross-products of one pass (kernels::weighted_cross) agree with Eigen's, for every
  //     instruction set, 1 and 2 threads, full and lower blocks, several weights, row counts beyond and
  //     not multiples of the 256-row blocks
  {
    double worst = 0.0;
    for (int isa : {0, 1, 2})
      for (Index n : {5, 300, 611})
        for (int threads : {1, 2}) {
          const MatrixXd A = MatrixXd::Random(n, 40), V = MatrixXd::Random(n, 3);
          const std::vector<kernels::CrossBlock> blocks{{0, 15, 0, 15, true}, {15, 40, 0, 15, false},
                                                        {21, 29, 21, 29, true}, {3, 4, 0, 1, false}};
          const std::vector<MatrixXd> got = kernels::weighted_cross(A, V, blocks, threads, isa);
          for (Index k = 0; k < 3; ++k)
            for (size_t b = 0; b < blocks.size(); ++b) {
              const kernels::CrossBlock& cb = blocks[b];
              const MatrixXd want = A.middleCols(cb.i0, cb.i1 - cb.i0).transpose() * V.col(k).asDiagonal() *
                                    A.middleCols(cb.j0, cb.j1 - cb.j0);
              const MatrixXd& g = got[static_cast<size_t>(k) * blocks.size() + b];
              for (Index i = 0; i < want.rows(); ++i)
                for (Index j = 0; j < want.cols(); ++j)
                  if (!cb.lower || cb.i0 + i >= cb.j0 + j) worst = std::max(worst, std::abs(g(i, j) - want(i, j)));
            }
        }
    check(worst < 1e-11, "weighted_cross: Eigen's products", worst, 1e-11);
  }
  // 12. quadratic FR gains of every candidate at every step, for binomial, Poisson and 3-class
  //     multinomial models with weights and offsets, at lambda 0 and 0.05, with 1 and 2 threads, equal the
  //     former one-candidate-at-a-time computation (reference_quadratic_gain) to 1e-10 (and 0 for the
  //     group that duplicates a selected column at lambda = 0, where that was rounding noise); the greedy choice
  //     on those gains is the sequence of fit_path() for FR, and Doubling's candidates are scored alike
  {
    VectorXd wt;
    MatrixXd off1;
    glm_weights_offsets(wt, off1);
    const DenseDesign dx(x);
    const GroupLayout lay = make_layout(group_of, 5);
    const BlockStats bs = block_stats(dx, MatrixXd(n, 0), wt, lay);
    double worst = 0.0;
    int zeros = 0;  // degenerate candidates whose gain is not 0
    for (Family family : {Family::Binomial, Family::Poisson, Family::Multinomial}) {
      const FamilyOps fam{family};
      const Index P = family == Family::Multinomial ? 3 : 1;
      MatrixXd yg = MatrixXd::Zero(n, P), off(n, P);
      for (Index i = 0; i < n; ++i) {
        const double eta = 0.3 * (x(i, 0) - x.col(0).mean()) - 0.2 * (x(i, 7) - x.col(7).mean()) +
                           0.1 * (x(i, 3) - x.col(3).mean());
        if (family == Family::Binomial) yg(i, 0) = std::bernoulli_distribution(1.0 / (1.0 + std::exp(-eta)))(rng);
        else if (family == Family::Poisson) yg(i, 0) = std::poisson_distribution<int>(std::exp(eta))(rng);
        else yg(i, std::discrete_distribution<int>({1.0, std::exp(eta), std::exp(-0.5 * eta)})(rng)) = 1.0;
        for (Index c = 0; c < P; ++c) off(i, c) = off1(i, 0) * (c + 1) / P;
      }
      for (double lambda : {0.0, 0.05})
        for (int threads : {1, 2}) {
          Control ctl;
          ctl.method = Method::FR;
          ctl.fr_gain = FrGain::Quadratic;
          ctl.lambda = lambda;
          ctl.threads = threads;
          const Whitened wh = whiten_blocks(bs.blocks, ctl.rank_tol);
          GlmModel model(dx, yg, wt, off, family, wh, bs.st, lay, ctl);
          std::vector<bool> selected(5, false);
          std::vector<Index> order;
          for (int step = 0; step < 5; ++step) {
            std::vector<bool> cand(5);
            for (Index h = 0; h < 5; ++h) cand[h] = !selected[h] && wh.rank[h] > 0;
            model.set_candidates(cand);
            // the current fit's columns and means, rebuilt from its coefficients
            Index m1 = 1;
            for (Index g : order) m1 += wh.rank[g];
            MatrixXd Z1(n, m1), theta(m1, P);
            Z1.col(0).setOnes();
            theta.row(0) = model.intercept().transpose();
            for (Index k = 0, at = 1; k < static_cast<Index>(order.size()); at += wh.rank[order[k]], ++k) {
              const Index g = order[k];
              Z1.middleCols(at, wh.rank[g]) = whitened_columns(dx, lay.cols[g], bs.st, wh.T[g]);
              theta.middleRows(at, wh.rank[g]) = model.coef().middleRows(wh.offset[g], wh.rank[g]);
            }
            const MatrixXd mu = fam.mean(off + Z1 * theta);
            Index best = -1;
            double best_score = -1.0;
            for (Index h = 0; h < 5; ++h) {
              if (!cand[h]) continue;
              const double got = model.raw_score(h);
              bool degenerate = false;
              const double want = reference_quadratic_gain(fam, Z1, whitened_columns(dx, lay.cols[h], bs.st, wh.T[h]),
                                                           yg, wt, mu, ctl, degenerate);
              if (degenerate) zeros += got == 0.0 ? 0 : 1;
              else worst = std::max(worst, std::abs(got - want) / std::max(want, 1e-300));
              if (want / cost[h] > best_score * (1 + 1e-10)) {
                best_score = want / cost[h];
                best = h;
              }
            }
            model.add_group(best);
            selected[best] = true;
            order.push_back(best);
          }
          const FitResult fit = fit_path(dx, yg, wt, off, group_of, 5, cost, family, ctl);
          check(fit.path.sequence == order, "quadratic FR: the sequence of the reference gains",
                static_cast<double>(fit.path.sequence.size()), 5);
          Control dbl = ctl;
          dbl.method = Method::Doubling;
          const FitResult d = fit_path(dx, yg, wt, off, group_of, 5, cost, family, dbl);
          check(d.path.sequence.size() == 5, "quadratic Doubling: every group", static_cast<double>(d.path.sequence.size()), 5);
        }
    }
    check(worst < 1e-10, "quadratic FR: the reference gains of every candidate", worst, 1e-10);
    check(zeros == 0, "quadratic FR: a candidate collinear with the selected groups gains 0", zeros, 0);
  }
  {
    // moments and forests may come from files: wrong sizes throw, never index out of bounds
    Moments m = centred_moments(x, y, VectorXd());
    Moments bad = m;
    bad.xx = bad.xx.topLeftCorner(3, 3).eval();
    bool threw = false;
    try { standardize(bad); } catch (const std::invalid_argument&) { threw = true; }
    check(threw, "standardize: a 3 x 3 xx with 12 means throws", 0, 1);
    bad = m;
    bad.xy = bad.xy.topRows(2).eval();
    threw = false;
    try { merge_moments(m, bad); } catch (const std::invalid_argument&) { threw = true; }
    check(threw, "merge_moments: a short xy throws", 0, 1);
    MiserControl mc;
    mc.n_iter = 3;
    mc.depth = 2;
    const MiserFit mf = miser_fit(x, y, group_of, cost, mc);
    Forest f = mf.forest;
    threw = false;
    try { f.validate(x.cols()); } catch (const std::invalid_argument&) { threw = true; }
    check(!threw, "Forest::validate accepts a fitted forest", 0, 0);
    for (int what = 0; what < 4; ++what) {
      Forest t = mf.forest;
      size_t k = 0;
      while (t.feature[k] < 0) ++k;  // the first split
      if (what == 0) t.left[k] = 1000;
      if (what == 1) t.right[k] = 0;  // back to the root: a loop
      if (what == 2) t.feature[k] = static_cast<int>(x.cols());
      if (what == 3) t.start.back() += 1;
      threw = false;
      try { miser_predict(x, t, mf.init, 0.1, {3}); } catch (const std::invalid_argument&) { threw = true; }
      check(threw, "miser_predict: a tampered forest throws", what, 1);
    }
  }

  // 9. prefix_predict(): each row's prediction at its step equals the direct sum over the columns of
  //    the prefix it has, for dense and sparse x, one and two responses, shared and per-row steps,
  //    across several row blocks (some uniform, some not).
  {
    const Index nr = 5000, pc = 7, S = 5, P = 2;  // steps 0..4
    std::mt19937 r2(7);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    const std::vector<int> cstep{1, 1, 2, 3, 3, 4, 6};  // column 6 is never read (step > K)
    MatrixXd xp(nr, pc), a0(P, S), coef(pc, S * P);
    for (Index i = 0; i < nr; ++i)
      for (Index j = 0; j < pc; ++j) xp(i, j) = U(r2);
    for (Index c = 0; c < P; ++c)
      for (Index s = 0; s < S; ++s) {
        a0(c, s) = U(r2);
        for (Index j = 0; j < pc; ++j) coef(j, c * S + s) = cstep[static_cast<size_t>(j)] <= s ? U(r2) : 0.0;
      }
    for (Index i = 2048; i < nr; i += 3) xp(i, 1 + i % 6) = std::nan("");  // holes after the first block
    const StepCoefficients cf(a0, coef);
    Eigen::MatrixXi shared(1, 3), per_row(nr, 1);
    shared << 4, 0, 2;
    for (Index i = 0; i < nr; ++i) per_row(i, 0) = static_cast<int>(i % S);
    for (Index i = 0; i < nr; i += 5) xp(i, 0) = 0.0;
    Eigen::SparseMatrix<double> xs = xp.sparseView(0.0, 0.0);
    for (Index i = 0; i < nr; i += 5) xs.coeffRef(i, 0) = 0.0;  // an explicit zero is a value, not a hole
    xs.makeCompressed();
    const SparseMap xsm(xs.rows(), xs.cols(), xs.nonZeros(), xs.outerIndexPtr(), xs.innerIndexPtr(), xs.valuePtr());
    for (const Eigen::MatrixXi* req : {&shared, &per_row}) {
      const PrefixPrediction dense = prefix_predict(xp, cstep, *req, cf);
      const PrefixPrediction sparse = prefix_predict(xsm, cstep, *req, cf);
      double worst = 0.0, worst_sparse = 0.0;
      bool steps_ok = true;
      for (Index i = 0; i < nr; ++i) {
        int first = S;  // first step whose columns the row lacks
        for (Index j = 0; j < pc; ++j)
          if (std::isnan(xp(i, j)) && cstep[static_cast<size_t>(j)] < S) first = std::min(first, cstep[static_cast<size_t>(j)]);
        for (Index b = 0; b < req->cols(); ++b) {
          const int want = std::min((*req)(req->rows() == 1 ? 0 : i, b), first - 1);
          steps_ok = steps_ok && dense.step(i, b) == want && sparse.step(i, b) == want;
          for (Index c = 0; c < P; ++c) {
            double eta = a0(c, want);
            for (Index j = 0; j < pc; ++j)
              if (cstep[static_cast<size_t>(j)] <= want) eta += xp(i, j) * coef(j, c * S + want);
            worst = std::max(worst, std::abs(dense.link(i, b * P + c) - eta));
            worst_sparse = std::max(worst_sparse, std::abs(sparse.link(i, b * P + c) - eta));
          }
        }
      }
      check(steps_ok, "prefix_predict: the step each row reaches", 0, 0);
      check(worst < 1e-13, "prefix_predict (dense): the direct sum over the prefix", worst, 0);
      check(worst_sparse < 1e-13, "prefix_predict (sparse): the direct sum over the prefix", worst_sparse, 0);
    }
  }
  std::printf("core: %d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
