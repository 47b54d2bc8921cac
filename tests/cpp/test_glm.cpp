// The GLM models (glm/): chunk sums, the Newton solver over either evaluator (common/newton.hpp), the path
// through a refit callback, and the one-pass quadratic FR gains.

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

// The GLM checks' data: the shared x with random weights in [0.5, 2] and offsets, its layout and its
// column statistics.
struct GlmData {
  VectorXd wt;
  MatrixXd off;
  DenseDesign dx;
  GroupLayout lay;
  BlockStats bs;
  double W = 0.0;
  explicit GlmData(Problem& pb) : dx(pb.x) {
    pb.weights_offsets(wt, off);
    lay = make_layout(pb.group_of, 5);
    bs = block_stats(dx, MatrixXd(pb.n, 0), wt, lay);
    W = wt.sum();
  }
};

// glm_chunk_sums() over three chunks of the rows (from rows 0, 130 and 275), added.
static GlmSums three_chunk_sums(const GlmData& d, const MatrixXd& x, const MatrixXd& yg, Family family,
                                const SelectedColumns& sel, const MatrixXd& theta) {
  const std::vector<Index> rows{0, 130, 275, x.rows()};
  GlmSums total;
  for (size_t k = 0; k + 1 < rows.size(); ++k) {
    const Index b = rows[k], len = rows[k + 1] - rows[k];
    const GlmSums part = glm_chunk_sums(DenseDesign(x.middleRows(b, len)), yg.middleRows(b, len), d.wt.segment(b, len),
                                        d.off.middleRows(b, len), family, d.bs.st, sel, theta);
    if (k == 0) total = part;
    else total += part;
  }
  return total;
}

// A response of the family drawn row by row at the linear predictor 0.3 x_0 - 0.2 x_7 + c3 x_3 (centred
// columns): 0/1 (binomial), counts (Poisson), or one indicator column per class of 3 (multinomial).
static MatrixXd draw_response(Family family, const MatrixXd& x, double c3, std::mt19937& rng) {
  const Index n = x.rows();
  MatrixXd yg = MatrixXd::Zero(n, family == Family::Multinomial ? 3 : 1);
  for (Index i = 0; i < n; ++i) {
    const double eta = 0.3 * (x(i, 0) - x.col(0).mean()) - 0.2 * (x(i, 7) - x.col(7).mean()) +
                       c3 * (x(i, 3) - x.col(3).mean());
    if (family == Family::Binomial) yg(i, 0) = std::bernoulli_distribution(1.0 / (1.0 + std::exp(-eta)))(rng);
    else if (family == Family::Poisson) yg(i, 0) = std::poisson_distribution<int>(std::exp(eta))(rng);
    else yg(i, std::discrete_distribution<int>({1.0, std::exp(eta), std::exp(-0.5 * eta)})(rng)) = 1.0;
  }
  return yg;
}

// 6. GLM sums by chunks of rows, and the Newton solver over either evaluator
// (binomial and Poisson, with weights and offsets): one chunk's sums added over a split of the rows
// equal the whole data's, and newton_solve() reproduces GlmModel's fit after two steps both with the
// in-memory evaluator and with the sums over the chunks.
static void test_glm_chunk_sums(Problem& pb) {
  const Index n = pb.n;
  const MatrixXd& x = pb.x;
  std::mt19937& rng = pb.rng;
  const GlmData d(pb);
  const Whitened wh = whiten_blocks(d.bs.blocks, 1e-9);
  for (Family family : {Family::Binomial, Family::Poisson}) {
    const FamilyOps fam{family};
    const MatrixXd yg = draw_response(family, x, 0.0, rng);
    Control ctl;
    ctl.lambda = 1e-3;
    GlmModel model(d.dx, yg, d.wt, d.off, family, wh, d.bs.st, d.lay, ctl);
    model.add_group(0);
    model.add_group(3);
    const SelectedColumns sel{{d.lay.cols[0], d.lay.cols[3]}, {wh.T[0], wh.T[3]}};
    const Index r0 = wh.rank[0], r3 = wh.rank[3], m1 = 1 + r0 + r3;
    MatrixXd Z1(n, m1);
    Z1.col(0).setOnes();
    Z1.middleCols(1, r0) = whitened_columns(d.dx, d.lay.cols[0], d.bs.st, wh.T[0]);
    Z1.middleCols(1 + r0, r3) = whitened_columns(d.dx, d.lay.cols[3], d.bs.st, wh.T[3]);
    // the model's fit as theta = (intercept; coefficients of group 0; of group 3)
    VectorXd want(m1);
    want << model.intercept(), model.coef().middleRows(wh.offset[0], r0), model.coef().middleRows(wh.offset[3], r3);
    const double want_risk = model.null_risk() - model.objective();

    // sums over the chunks equal the sums over all rows
    auto chunk_total = [&](const MatrixXd& theta) { return three_chunk_sums(d, x, yg, family, sel, theta); };
    const GlmSums whole = glm_chunk_sums(d.dx, yg, d.wt, d.off, family, d.bs.st, sel, want);
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
    glm_sums_point(whole, d.W, ctl.lambda, at);
    check(at.gradient.cwiseAbs().maxCoeff() < 1e-9, "GLM chunk sums: gradient zero at the fit", at.gradient.cwiseAbs().maxCoeff(), 0);
    check(std::abs(at.risk - want_risk) < 1e-12 * (1 + want_risk), "GLM chunk sums: risk at the fit", at.risk, want_risk);

    // the solver from the null intercept, over the rows in memory and over the chunks' sums
    VectorXd theta0 = VectorXd::Zero(m1);
    theta0(0) = fam.null_intercepts(VectorXd::Constant(1, yg.col(0).dot(d.wt) / d.W))(0, 0);
    const NewtonSolution mem = newton_solve(theta0, glm_evaluator(fam, Z1, yg, d.wt, d.W, d.off, ctl.lambda), ctl);
    const NewtonEvaluator by_chunks = [&](NewtonPoint& pt, NewtonNeed) {
      glm_sums_point(chunk_total(Eigen::Map<const MatrixXd>(pt.theta.data(), m1, 1)), d.W, ctl.lambda, pt);
    };
    const NewtonSolution chk = newton_solve(theta0, by_chunks, ctl);
    // taking the last, converging step without evaluating it (take_last_step, as the chunked refits do):
    // the same coefficients as the solve that evaluates it, from no more points
    NewtonControl taking = ctl;
    taking.take_last_step = true;
    Index points_all = 0, points_taken = 0;
    const auto counted = [&](Index& count) {
      return NewtonEvaluator([&by_chunks, &count](NewtonPoint& pt, NewtonNeed need) {
        ++count;
        by_chunks(pt, need);
      });
    };
    const NewtonSolution all = newton_solve(theta0, counted(points_all), ctl);
    const NewtonSolution taken = newton_solve(theta0, counted(points_taken), taking);
    check((taken.point.theta - all.point.theta).cwiseAbs().maxCoeff() < 1e-10, "newton_solve: the last step taken unevaluated",
          (taken.point.theta - all.point.theta).cwiseAbs().maxCoeff(), 0);
    check(points_taken <= points_all, "newton_solve: the last step taken unevaluated adds no point", points_taken, points_all);
    for (const NewtonSolution* sol : {&mem, &chk, &taken}) {
      const double err = (sol->point.theta - want).cwiseAbs().maxCoeff();
      check(sol->converged, "newton_solve: converged", sol->converged, 1);
      check(err < 1e-8, "newton_solve: GlmModel's coefficients", err, 0);
      check(std::abs(sol->point.risk - want_risk) < 1e-12 * (1 + want_risk), "newton_solve: GlmModel's risk",
            sol->point.risk, want_risk);
    }
    // the risk's rounding does not decide where the solve ends: with the risk off by up to 3e-13
    // (relative; a function of theta, as sums in another order would be), the solve ends where it ends
    // without. (This small problem ends by its gradient before its steps reach the risk's rounding; the
    // fits of test-chunks-formula.R on machines with AVX-512 are the case that did.)
    for (double amp : {1e-14, 1e-13, 3e-13}) {
      const NewtonEvaluator rounded = [&by_chunks, amp](NewtonPoint& pt, NewtonNeed need) {
        by_chunks(pt, need);
        const double u = std::fmod(std::abs(pt.theta.sum()) * 1e12, 1.0) - 0.5;
        pt.risk *= 1.0 + 2.0 * amp * u;
      };
      const NewtonSolution off = newton_solve(theta0, rounded, ctl);
      const double moved = (off.point.theta - chk.point.theta).cwiseAbs().maxCoeff();
      check(moved < 1e-11, "newton_solve: the end of the solve does not depend on the risk's rounding", moved, 0);
    }
  }
}

// 7. the GLM path through a refit callback
// (GlmRefitModel, fit_glm_refit) with a refit over the rows in memory, and with sums_refitter() over
// sums from chunks of rows, gives GlmModel's path (fit_path) for every OMP criterion, with and without
// max_steps and max_cost; with the quadratic gains' sums from the chunks (GlmGainSource), GlmModel's
// quadratic CS-G-FR and Doubling paths.
static void test_glm_refit(Problem& pb) {
  const Index n = pb.n;
  const MatrixXd& x = pb.x;
  const std::vector<int>& group_of = pb.group_of;
  const std::vector<double>& cost = pb.cost;
  std::mt19937& rng = pb.rng;
  const GlmData d(pb);
  for (Family family : {Family::Binomial, Family::Poisson}) {
    const FamilyOps fam{family};
    const MatrixXd yg = draw_response(family, x, 0.1, rng);
    for (Criterion criterion : {Criterion::Whitened, Criterion::L2, Criterion::Linf})
      for (int limits = 0; limits < 3; ++limits) {
        Control ctl;
        ctl.lambda = 1e-3;
        ctl.criterion = criterion;
        if (limits == 1) ctl.max_steps = 2;
        if (limits == 2) ctl.max_cost = 4.0;
        const Whitened wh = whiten_blocks(d.bs.blocks, ctl.rank_tol);
        // the Newton solve over the rows in memory, then the sums that score every column
        Index refits = 0;
        const GlmRefitter refit = [&](const std::vector<Index>& groups, const RefitStart& start, const Poll&) {
          const MatrixXd& theta0 = start.theta;
          ++refits;
          SelectedColumns sel;
          Index m1 = 1;
          for (Index g : groups) {
            sel.cols.push_back(d.lay.cols[g]);
            sel.T.push_back(wh.T[g]);
            m1 += wh.rank[g];
          }
          MatrixXd Z1(n, m1);
          Z1.col(0).setOnes();
          for (size_t k = 0, at = 1; k < groups.size(); at += sel.T[k].cols(), ++k)
            Z1.middleCols(static_cast<Index>(at), sel.T[k].cols()) = whitened_columns(d.dx, sel.cols[k], d.bs.st, sel.T[k]);
          const Eigen::Map<const VectorXd> from(theta0.data(), theta0.size());
          const NewtonSolution sol = newton_solve(from, glm_evaluator(fam, Z1, yg, d.wt, d.W, d.off, ctl.lambda), ctl);
          GlmRefit f;
          f.theta = Eigen::Map<const MatrixXd>(sol.point.theta.data(), m1, 1);
          f.risk = sol.point.risk;
          f.converged = sol.converged;
          const GlmSums sums = glm_chunk_sums(d.dx, yg, d.wt, d.off, family, d.bs.st, sel, f.theta);
          f.deviance = sums.deviance;
          f.xr = sums.xr;
          f.rsum = sums.rsum;
          return f;
        };
        const MatrixXd null_theta = fam.null_intercepts(VectorXd::Constant(1, yg.col(0).dot(d.wt) / d.W));
        const FitResult a = fit_path(d.dx, yg, d.wt, d.off, group_of, 5, cost, family, ctl);
        const FitResult b = fit_glm_refit(whitening_from_maps(wh.T), d.bs.st, d.lay, d.W, null_theta, refit, cost, ctl);
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
          check((MatrixXd(a.beta[0]).col(k) - MatrixXd(b.beta[0]).col(k)).cwiseAbs().maxCoeff() < 1e-8 &&
                std::abs(a.a0(0, k) - b.a0(0, k)) < 1e-8, "GlmRefitModel: GlmModel's coefficients",
                b.a0(0, k), a.a0(0, k));
        }
        for (size_t k = 0; k < a.path.score.size() && k < b.path.score.size(); ++k)
          check(std::abs(a.path.score[k] - b.path.score[k]) <= 1e-8 * (1 + a.path.score[k]),
                "GlmRefitModel: GlmModel's scores", b.path.score[k], a.path.score[k]);
        check(std::abs(a.null_risk - b.null_risk) < 1e-12 && a.converged == b.converged,
              "GlmRefitModel: null risk and convergence", b.null_risk, a.null_risk);
        // the chunked fits' seam: the refits as the core's Newton solves over sums from three chunks of rows
        const GlmSumsSource chunk_sums = [&](const std::vector<Index>& groups, const MatrixXd& theta) {
          SelectedColumns sel;
          for (Index g : groups) {
            sel.cols.push_back(d.lay.cols[g]);
            sel.T.push_back(wh.T[g]);
          }
          return three_chunk_sums(d, x, yg, family, sel, theta);
        };
        const FitResult c = fit_glm_refit(whitening_from_maps(wh.T), d.bs.st, d.lay, d.W, null_theta,
                                          sums_refitter(chunk_sums, d.W, ctl), cost, ctl);
        check(a.path.sequence == c.path.sequence, "sums_refitter: GlmModel's sequence",
              static_cast<double>(c.path.sequence.size()), K);
        double worst = std::abs(a.null_risk - c.null_risk);
        for (size_t k = 0; k < a.path.objective.size() && k < c.path.objective.size(); ++k)
          worst = std::max({worst, std::abs(a.path.objective[k] - c.path.objective[k]), std::abs(a.path.r2[k] - c.path.r2[k]),
                            (MatrixXd(a.beta[0]).col(k) - MatrixXd(c.beta[0]).col(k)).cwiseAbs().maxCoeff()});
        check(worst < 1e-8 && a.converged == c.converged, "sums_refitter: GlmModel's objectives, r2 and coefficients",
              worst, 0);
        if (criterion != Criterion::Whitened) continue;
        // CS-G-FR and Doubling with the quadratic gain: the gains' sums from the three chunks (glm_chunk_gains)
        const GlmGainSource chunk_gains = [&](const std::vector<Index>& groups, const std::vector<Index>& candidates,
                                              const MatrixXd& theta, const GainLayout&) {
          SelectedColumns sel;
          for (const std::vector<Index>* part : {&groups, &candidates})
            for (Index g : *part) {
              sel.cols.push_back(d.lay.cols[g]);
              sel.T.push_back(wh.T[g]);
            }
          const std::vector<Index> rows{0, 130, 275, x.rows()};
          GainSums total;
          for (size_t k = 0; k + 1 < rows.size(); ++k) {
            const Index b = rows[k], len = rows[k + 1] - rows[k];
            const GainSums part = glm_chunk_gains(DenseDesign(x.middleRows(b, len)), yg.middleRows(b, len), d.wt.segment(b, len),
                                                  d.off.middleRows(b, len), family, d.bs.st, sel,
                                                  static_cast<Index>(groups.size()), theta);
            if (k == 0) total = part;
            else total += part;
          }
          return total;
        };
        for (Method method : {Method::FR, Method::Doubling}) {
          Control fr = ctl;
          fr.method = method;
          fr.fr_gain = FrGain::Quadratic;
          const FitResult e = fit_path(d.dx, yg, d.wt, d.off, group_of, 5, cost, family, fr);
          const FitResult q = fit_glm_refit(whitening_from_maps(wh.T), d.bs.st, d.lay, d.W, null_theta,
                                            sums_refitter(chunk_sums, d.W, fr), cost, fr, Services(), chunk_gains);
          check(e.path.sequence == q.path.sequence, "GlmGainSource: GlmModel's quadratic FR and Doubling sequence",
                static_cast<double>(q.path.sequence.size()), static_cast<double>(e.path.sequence.size()));
          double gap = 0.0;
          for (size_t k = 0; k < e.path.objective.size() && k < q.path.objective.size(); ++k)
            gap = std::max({gap, std::abs(e.path.objective[k] - q.path.objective[k]),
                            (MatrixXd(e.beta[0]).col(k) - MatrixXd(q.beta[0]).col(k)).cwiseAbs().maxCoeff()});
          for (size_t k = 0; k < e.path.score.size() && k < q.path.score.size(); ++k)
            gap = std::max(gap, std::abs(e.path.score[k] - q.path.score[k]) / (1 + e.path.score[k]));
          check(gap < 1e-8, "GlmGainSource: GlmModel's quadratic gains, objectives and coefficients", gap, 0);
        }
      }
  }
}

// 12. quadratic FR gains of every candidate at every step, for binomial, Poisson and 3-class
//     multinomial models with weights and offsets, at lambda 0 and 0.05, with 1 and 2 threads, equal the
//     former one-candidate-at-a-time computation (reference_quadratic_gain) to 1e-10 (and 0 for the
//     group that duplicates a selected column at lambda = 0, where that was rounding noise); the greedy choice
//     on those gains is the sequence of fit_path() for FR, and Doubling's candidates are scored alike
static void test_quadratic_gains(Problem& pb) {
  const Index n = pb.n;
  const MatrixXd& x = pb.x;
  const GlmData d(pb);
  double worst = 0.0;
  int zeros = 0;  // degenerate candidates whose gain is not 0
  for (Family family : {Family::Binomial, Family::Poisson, Family::Multinomial}) {
    const FamilyOps fam{family};
    const Index P = family == Family::Multinomial ? 3 : 1;
    const MatrixXd yg = draw_response(family, x, 0.1, pb.rng);
    MatrixXd off(n, P);  // the offsets spread over the classes
    for (Index i = 0; i < n; ++i)
      for (Index c = 0; c < P; ++c) off(i, c) = d.off(i, 0) * (c + 1) / P;
    for (double lambda : {0.0, 0.05})
      for (int threads : {1, 2}) {
        Control ctl;
        ctl.method = Method::FR;
        ctl.fr_gain = FrGain::Quadratic;
        ctl.lambda = lambda;
        ctl.threads = threads;
        const Whitened wh = whiten_blocks(d.bs.blocks, ctl.rank_tol);
        GlmModel model(d.dx, yg, d.wt, off, family, wh, d.bs.st, d.lay, ctl);
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
            Z1.middleCols(at, wh.rank[g]) = whitened_columns(d.dx, d.lay.cols[g], d.bs.st, wh.T[g]);
            theta.middleRows(at, wh.rank[g]) = model.coef().middleRows(wh.offset[g], wh.rank[g]);
          }
          const MatrixXd mu = fam.mean(off + Z1 * theta);
          Index best = -1;
          double best_score = -1.0;
          for (Index h = 0; h < 5; ++h) {
            if (!cand[h]) continue;
            const double got = model.raw_score(h);
            bool degenerate = false;
            const double want = reference_quadratic_gain(fam, Z1, whitened_columns(d.dx, d.lay.cols[h], d.bs.st, wh.T[h]),
                                                         yg, d.wt, mu, ctl, degenerate);
            if (degenerate) zeros += got == 0.0 ? 0 : 1;
            else worst = std::max(worst, std::abs(got - want) / std::max(want, 1e-300));
            if (want / pb.cost[h] > best_score * (1 + 1e-10)) {
              best_score = want / pb.cost[h];
              best = h;
            }
          }
          model.add_group(best);
          selected[best] = true;
          order.push_back(best);
        }
        const FitResult fit = fit_path(d.dx, yg, d.wt, off, pb.group_of, 5, pb.cost, family, ctl);
        check(fit.path.sequence == order, "quadratic FR: the sequence of the reference gains",
              static_cast<double>(fit.path.sequence.size()), 5);
        Control dbl = ctl;
        dbl.method = Method::Doubling;
        const FitResult doubling = fit_path(d.dx, yg, d.wt, off, pb.group_of, 5, pb.cost, family, dbl);
        check(doubling.path.sequence.size() == 5, "quadratic Doubling: every group",
              static_cast<double>(doubling.path.sequence.size()), 5);
      }
  }
  check(worst < 1e-10, "quadratic FR: the reference gains of every candidate", worst, 1e-10);
  check(zeros == 0, "quadratic FR: a candidate collinear with the selected groups gains 0", zeros, 0);
}

// max_time within a GLM step's own work: spent before the first step of an FR path, it leaves the null
// model (intercept: the logit of the mean response) and an empty path marked partial; a poll that says so inside a chunked refit stops its Newton solve before its first iteration
// (the sums at the starting point only) and leaves the group unselected; spent in the pass over the
// groups before the model (block_stats()), it leaves the null model with every rank 0, marked partial.
static void test_glm_time_up(const Problem& pb) {
  const Index n = pb.n;
  const DenseDesign dx(pb.x);
  const GroupLayout lay = make_layout(pb.group_of, 5);
  const BlockStats bs = block_stats(dx, MatrixXd(n, 0), VectorXd::Ones(n), lay);
  const Whitened wh = whiten_blocks(bs.blocks, 1e-9);
  MatrixXd yg(n, 1);
  for (Index i = 0; i < n; ++i) yg(i, 0) = pb.x(i, 0) > pb.x.col(0).mean() + 0.5 ? 1.0 : 0.0;
  const double ybar = yg.mean();
  Control ctl;
  ctl.method = Method::FR;
  // max_time spent before the first step of an FR path: the path stops there, with the null model
  Control fr = ctl;
  fr.max_time = 0.0;
  GlmModel model(dx, yg, VectorXd::Ones(n), MatrixXd::Zero(n, 1), Family::Binomial, wh, bs.st, lay, fr);
  const Path path = greedy_path(model, Measurements(pb.cost), fr);
  check(path.partial && path.sequence.empty(), "GlmModel: max_time spent before the first FR step",
        static_cast<double>(path.sequence.size()), 0);
  check(std::abs(model.intercept()(0) - std::log(ybar / (1 - ybar))) < 1e-8 && model.objective() == 0.0,
        "GlmModel: the null model when max_time was spent before the first step", model.intercept()(0),
        std::log(ybar / (1 - ybar)));

  // max_time spent in the GLM pass over the groups (block_stats, polled between groups, one thread):
  // the first poll stops it, no group is whitened, and the fit is the null model, marked partial
  Control spent = ctl;
  spent.method = Method::OMP;
  spent.max_time = 0.0;
  spent.threads = 1;
  int checks = 0;
  Services svc;
  svc.check_interrupt = [&checks] { ++checks; };
  const FitResult null_fit = fit_path(dx, yg, VectorXd(), MatrixXd(), pb.group_of, 5, Measurements(pb.cost),
                                      Family::Binomial, spent, svc);
  bool no_rank = true;
  for (Index r : null_fit.rank) no_rank = no_rank && r == 0;
  check(null_fit.path.partial && null_fit.path.sequence.empty() && no_rank && checks == 1,
        "fit_path: max_time spent in the GLM pass over the groups (one poll, every rank 0, partial)",
        static_cast<double>(checks), 1);
  check(std::abs(null_fit.a0(0, 0) - std::log(ybar / (1 - ybar))) < 1e-8 && null_fit.beta[0].nonZeros() == 0,
        "fit_path: the null model when max_time was spent in the GLM pass over the groups", null_fit.a0(0, 0),
        std::log(ybar / (1 - ybar)));

  ctl.method = Method::OMP;
  Index calls = 0;
  const GlmSumsSource sums = [&](const std::vector<Index>& groups, const MatrixXd& theta) {
    ++calls;
    SelectedColumns sel;
    for (Index g : groups) {
      sel.cols.push_back(lay.cols[g]);
      sel.T.push_back(wh.T[g]);
    }
    return glm_chunk_sums(dx, yg, VectorXd::Ones(n), MatrixXd::Zero(n, 1), Family::Binomial, bs.st, sel, theta);
  };
  const Whitened maps = whitening_from_maps(wh.T);  // the model keeps a reference
  GlmRefitModel refit_model(maps, bs.st, lay, static_cast<double>(n),
                            FamilyOps{Family::Binomial}.null_intercepts(VectorXd::Constant(1, ybar)),
                            sums_refitter(sums, static_cast<double>(n), ctl), ctl);
  const double null_objective = refit_model.objective();
  refit_model.set_poll([] { throw TimeUp(); });
  calls = 0;
  bool threw = false;
  try {
    refit_model.add_group(0);
  } catch (const TimeUp&) {
    threw = true;
  }
  check(threw && calls == 1, "sums_refitter: the poll runs inside the Newton solve", static_cast<double>(calls), 1);
  check(refit_model.coef().cwiseAbs().maxCoeff() == 0.0 && refit_model.objective() == null_objective,
        "GlmRefitModel: a refit stopped by max_time leaves the fit before it", refit_model.objective(), null_objective);
}

// null_fit() of a binomial and a Poisson response with weights and an offset on rows spanning several
// of the blocks the null model sums over (kRowBlock): its intercept is the root of the score
// sum_i w_i (y_i - mu(a + o_i)), found here by bisection, and its null risk the weighted mean of
// Phi(eta) - y eta at that root. Its own random stream.
static void test_null_model_rows() {
  std::mt19937 rng(17);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  const Index n = 3 * kRowBlock + 17, p = 4;
  VectorXd w(n);
  MatrixXd off(n, 1), yb(n, 1), yp(n, 1);
  for (Index i = 0; i < n; ++i) {
    w(i) = 0.5 + 1.5 * unif(rng);
    off(i, 0) = 0.5 * normal(rng);
    yb(i, 0) = unif(rng) < 1.0 / (1.0 + std::exp(-(0.3 + off(i, 0)))) ? 1.0 : 0.0;
    yp(i, 0) = std::floor(3.0 * unif(rng) * std::exp(off(i, 0)));
  }
  const std::vector<int> group_of{0, 0, 1, 1};
  for (Family family : {Family::Binomial, Family::Poisson}) {
    const FamilyOps fam{family};
    const MatrixXd& y = family == Family::Binomial ? yb : yp;
    const auto score = [&](double a) {
      double s = 0.0;
      for (Index i = 0; i < n; ++i) {
        const double e = a + off(i, 0);
        s += w(i) * (y(i, 0) - (family == Family::Binomial ? 1.0 / (1.0 + std::exp(-e)) : std::exp(e)));
      }
      return s;
    };
    double lo = -10.0, hi = 10.0;  // the score decreases in a
    for (int k = 0; k < 200; ++k) {
      const double mid = 0.5 * (lo + hi);
      (score(mid) > 0 ? lo : hi) = mid;
    }
    const double a = 0.5 * (lo + hi);
    const MatrixXd eta = (off.array() + a).matrix();
    const double risk = fam.loss(eta, y, w) / w.sum();
    Control ctl;
    const FitResult f = null_fit(p, y, w, off, group_of, 2, Measurements(std::vector<double>{1.0, 2.0}), family, ctl);
    check(f.path.partial && f.path.sequence.empty() && f.beta[0].nonZeros() == 0 &&
              std::abs(f.a0(0, 0) - a) < 1e-8,
          family == Family::Binomial ? "null_fit: the binomial intercept with weights and an offset over row blocks"
                                     : "null_fit: the Poisson intercept with weights and an offset over row blocks",
          f.a0(0, 0), a);
    check(std::abs(f.null_risk - risk) < 1e-12 * std::max(1.0, std::abs(risk)),
          "null_fit: the null risk over row blocks", f.null_risk, risk);
  }
}

// symmetric_solve() (common/newton.hpp): H X = B through the blocked Cholesky on a positive definite H, and
// through the pivoted LDL' of the restored H where the Cholesky meets a non-positive pivot (here an
// indefinite H); both checked against a full-pivoting LU of the same H. Sizes past Eigen's blocking
// threshold (32) so that the blocked factorization runs. Its own random stream.
static void test_symmetric_solve() {
  std::mt19937 rng(7);
  std::normal_distribution<double> N(0.0, 1.0);
  const Index m = 150, k = 3;
  MatrixXd A(m + 20, m), B(m, k);
  for (Index i = 0; i < A.size(); ++i) A.data()[i] = N(rng);
  for (Index i = 0; i < B.size(); ++i) B.data()[i] = N(rng);
  const MatrixXd pd = A.transpose() * A / 170.0 + 1e-3 * MatrixXd::Identity(m, m);
  // an indefinite H: pd's eigenvectors with two eigenvalues made negative
  const Eigen::SelfAdjointEigenSolver<MatrixXd> es(pd);
  VectorXd ev = es.eigenvalues();
  ev(0) = -0.5;
  ev(m / 2) = -ev(m / 2);
  MatrixXd indef = es.eigenvectors() * ev.asDiagonal() * es.eigenvectors().transpose();
  indef = 0.5 * (indef + indef.transpose()).eval();
  for (const MatrixXd* H : {&pd, static_cast<const MatrixXd*>(&indef)}) {
    const char* what = H == &pd ? "symmetric_solve: positive definite H" : "symmetric_solve: indefinite H (LDL')";
    const MatrixXd want = H->fullPivLu().solve(B);
    const MatrixXd got = symmetric_solve(*H, B);
    const double err = (got - want).cwiseAbs().maxCoeff() / want.cwiseAbs().maxCoeff();
    check(err < 1e-9, what, err, 0);
    const VectorXd g = B.col(1);
    const VectorXd x = symmetric_solve(*H, g);  // one right-hand side, as the Newton step
    const double err1 = (x - want.col(1)).cwiseAbs().maxCoeff() / want.col(1).cwiseAbs().maxCoeff();
    check(err1 < 1e-9, what, err1, 0);
  }
  check(Eigen::LLT<MatrixXd>(indef).info() != Eigen::Success, "symmetric_solve: the indefinite H defeats the Cholesky", 0, 1);
}

// glm_pair_cross() (glm/evaluator.hpp) for the multinomial: the blocks of the pairs with the reference
// class (here class 2, of the largest total weight), which it forms from the others' as sums, equal the
// direct products A' diag(w dmu_c/deta_d / W) A of every pair (to 1e-12 of the largest entry), for a
// lower-triangular block, a rectangular one and one of a single column, with 4 and 2 classes and on 1
// and 2 threads. Its own random stream.
static void test_pair_cross() {
  std::mt19937 rng(11);
  std::normal_distribution<double> N(0.0, 1.0);
  std::uniform_real_distribution<double> U(0.5, 2.0);
  const Index n = 700, m = 9;
  MatrixXd A(n, m);
  for (Index i = 0; i < A.size(); ++i) A.data()[i] = N(rng);
  A.col(0).setOnes();
  VectorXd w(n);
  for (Index i = 0; i < n; ++i) w(i) = U(rng);
  const std::vector<kernels::CrossBlock> blocks{{0, 5, 0, 5, true}, {5, 9, 0, 5, false}, {8, 9, 8, 9, true}};
  const FamilyOps fam{Family::Multinomial};
  for (Index P : {4, 2})
    for (int threads : {1, 2}) {
      MatrixXd eta(n, P);
      for (Index i = 0; i < n; ++i)
        for (Index c = 0; c < P; ++c) eta(i, c) = N(rng) + (c == P / 2 ? 1.5 : 0.0) + 0.5 * c * A(i, 1);
      const MatrixXd mu = fam.mean(eta);
      const double W = w.sum();
      const std::vector<MatrixXd> got = glm_pair_cross(fam, A, mu, w, W, blocks, threads);
      double err = 0.0, scale = 0.0;
      for (Index c = 0; c < P; ++c)
        for (Index d = c; d < P; ++d)
          for (size_t b = 0; b < blocks.size(); ++b) {
            const kernels::CrossBlock& cb = blocks[b];
            const VectorXd v = w.cwiseProduct(fam.hessian_weight(mu, c, d)) / W;
            const MatrixXd want =
                A.middleCols(cb.i0, cb.i1 - cb.i0).transpose() * v.asDiagonal() * A.middleCols(cb.j0, cb.j1 - cb.j0);
            const MatrixXd& g = got[static_cast<size_t>(pair_column(c, d, P)) * blocks.size() + b];
            for (Index j = 0; j < want.cols(); ++j)
              for (Index i = cb.lower ? j : 0; i < want.rows(); ++i) {
                err = std::max(err, std::abs(g(i, j) - want(i, j)));
                scale = std::max(scale, std::abs(want(i, j)));
              }
          }
      check(got.size() == static_cast<size_t>(P * (P + 1) / 2) * blocks.size(), "glm_pair_cross: one block per pair",
            static_cast<double>(got.size()), static_cast<double>(P * (P + 1) / 2 * blocks.size()));
      check(err <= 1e-12 * scale, "glm_pair_cross: the multinomial pairs against direct products", err / scale, 0);
    }
}

// The BLAS's rank and cross updates (dsyrk, dgemm), here through Eigen: the Blas of the products by rows.
static Blas eigen_updates() {
  Blas b;
  b.rank_update = [](MatrixXd& g, const Eigen::Ref<const MatrixXd>& r) {
    g.selfadjointView<Eigen::Lower>().rankUpdate(r.transpose());
  };
  b.cross_update = [](MatrixXd& c, const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y) {
    c.noalias() += x.transpose() * y;
  };
  return b;
}

// 13. the multinomial Newton direction without the Hessian (glm/multinomial.hpp): the penalized fit of
//     a 3-class model over every group's whitened columns, with weights and offsets, at lambda 0.05 and
//     0 (flat along adding the same to every class) and on 1 and 2 threads, by newton_solve() with
//     multinomial_direction() equals its fit with the factorized Hessian (linear predictors to 1e-8, and
//     at lambda > 0 coefficients; both converged, the gradient at most 1e-8), with each preconditioner
//     (the Kronecker one; the Hessian on the contrasts formed by weighted_cross() or by rank updates,
//     factorized by Cholesky or the pivoted LDL'); the preconditioner's Gram matrix built by extend_gram()
//     group by group equals weighted_gram() of all columns; on separable classes at lambda 1e-4, where
//     many pair weights are left out of the Hessian preconditioner, its fit is still the factorized one,
//     also from far starts, where the directions after damped steps are the kept factor's, inexact
static void test_multinomial_direction(Problem& pb) {
  const Index n = pb.n;
  const GlmData d(pb);
  const Whitened wh = whiten_blocks(d.bs.blocks, 1e-9);
  const MatrixXd yg = draw_response(Family::Multinomial, pb.x, 0.4, pb.rng);
  MatrixXd off(n, 3);
  for (Index i = 0; i < n; ++i)
    for (Index c = 0; c < 3; ++c) off(i, c) = d.off(i, 0) * (c + 1) / 3;
  Index m1 = 1;
  for (Index g = 0; g < 5; ++g) m1 += wh.rank[g];
  MatrixXd Z1(n, m1);
  Z1.col(0).setOnes();
  ColumnGram gram;
  gram.A = MatrixXd::Ones(1, 1);
  for (Index g = 0, at = 1; g < 5; at += wh.rank[g], ++g) {
    Z1.middleCols(at, wh.rank[g]) = whitened_columns(d.dx, d.lay.cols[g], d.bs.st, wh.T[g]);
    gram.A = extend_gram(gram.A, Z1.leftCols(at + wh.rank[g]), d.wt, d.W);
  }
  const double gram_err = (gram.A - weighted_gram(Z1, d.wt, d.W)).cwiseAbs().maxCoeff();
  check(gram_err < 1e-12, "multinomial direction: extend_gram() is the Gram matrix of all columns", gram_err, 0);
  gram.decompose();
  const FamilyOps fam{Family::Multinomial};
  // the BLAS's way of forming the Hessian preconditioner (rank updates of square-root-weighted rows),
  // here through Eigen
  const Blas by_rows = eigen_updates();
  for (double lambda : {0.05, 0.0})
    for (int threads : {1, 2}) {
      Control ctl;
      ctl.lambda = lambda;
      MatrixXd theta0 = MatrixXd::Zero(m1, 3);
      theta0.row(0) = fam.null_intercepts(yg.transpose() * d.wt / d.W);
      const Eigen::Map<const VectorXd> start(theta0.data(), theta0.size());
      const NewtonEvaluator ev = glm_evaluator(fam, Z1, yg, d.wt, d.W, off, lambda, threads);
      const NewtonSolution exact = newton_solve(start, ev, ctl);
      // the Kronecker preconditioner (these data need no more); and the Hessian's from the first iterate
      // (kron_iterations = 0), formed by weighted_cross() or by rank updates (by_rows), factorized by
      // Cholesky or, when it reports a pivot that is not positive, by the pivoted LDL'
      Blas no_cholesky = by_rows;
      no_cholesky.cholesky = [](MatrixXd&) { return false; };
      for (int variant = 0; variant < 4; ++variant) {
      ColumnGram g = gram;
      const char* name[] = {"Kronecker", "Hessian", "Hessian by rank updates", "Hessian by LDL'"};
      const NewtonSolution cg = newton_solve(
          start, ev, ctl, std::function<void()>(),
          multinomial_direction(Z1, d.wt, d.W, lambda, g, threads, std::function<void()>(),
                                variant < 2 ? Blas() : variant == 2 ? by_rows : no_cholesky, variant == 0 ? 30 : 0));
      check(variant == 0 ? !g.use_hessian : g.use_hessian, (std::string("multinomial direction: preconditioner ") + name[variant]).c_str(),
            g.use_hessian, variant > 0);
      // compare class-centred linear predictors (at lambda = 0 the coefficients are unique only up to a
      // common shift of the classes and to the columns' collinearity across groups), and at lambda > 0
      // the coefficients themselves
      auto centred = [&](const VectorXd& v) {
        const MatrixXd eta = Z1 * Eigen::Map<const MatrixXd>(v.data(), m1, 3);
        return MatrixXd(eta.colwise() - eta.rowwise().mean());
      };
      const double err = (centred(cg.point.theta) - centred(exact.point.theta)).cwiseAbs().maxCoeff();
      check(exact.converged && cg.converged, "multinomial direction: both solves converged", cg.converged, 1);
      check(err < 1e-8, "multinomial direction: the factorized Hessian's fit", err, 0);
      if (lambda > 0) {  // the intercepts are unique up to a common shift
        MatrixXd diff = Eigen::Map<const MatrixXd>(cg.point.theta.data(), m1, 3) -
                        Eigen::Map<const MatrixXd>(exact.point.theta.data(), m1, 3);
        diff.row(0).array() -= diff.row(0).mean();
        const double coef_err = diff.cwiseAbs().maxCoeff();
        check(coef_err < 1e-8, "multinomial direction: the factorized Hessian's coefficients", coef_err, 0);
      }
      NewtonPoint at;
      at.theta = cg.point.theta;
      ev(at, NewtonNeed::Gradient);
      check(at.gradient.cwiseAbs().maxCoeff() <= 1e-8, "multinomial direction: gradient at the fit",
            at.gradient.cwiseAbs().maxCoeff(), 0);
      }
    }
  // separable classes (the class read off the sign of a linear predictor) at lambda 1e-4: many rows'
  // pair weights are under the floor of ContrastHessian (checked at the fit), and the fit with the
  // Hessian's preconditioner from the first iterate, formed without them (by the kernels or through rank
  // updates, 1 and 2 threads), is still the factorized Hessian's
  {
    MatrixXd ys = MatrixXd::Zero(n, 3);
    for (Index i = 0; i < n; ++i) {
      const double eta = 0.3 * (pb.x(i, 0) - pb.x.col(0).mean()) - 0.2 * (pb.x(i, 7) - pb.x.col(7).mean());
      ys(i, eta > 0.1 ? 1 : eta < -0.1 ? 2 : 0) = 1.0;
    }
    const double lambda = 0.0001;
    Control ctl;
    ctl.lambda = lambda;
    MatrixXd theta0 = MatrixXd::Zero(m1, 3);
    theta0.row(0) = fam.null_intercepts(ys.transpose() * d.wt / d.W);
    const Eigen::Map<const VectorXd> start(theta0.data(), theta0.size());
    const NewtonEvaluator ev = glm_evaluator(fam, Z1, ys, d.wt, d.W, off, lambda, 1);
    const NewtonSolution exact = newton_solve(start, ev, ctl);
    const MatrixXd eta = off + Z1 * Eigen::Map<const MatrixXd>(exact.point.theta.data(), m1, 3);
    const double tau = 0.1 * lambda / (27.0 * gram.values.maxCoeff());
    double under = 0.0;
    for (Index i = 0; i < n; ++i) {
      const Eigen::Array3d p = (eta.row(i).array() - eta.row(i).maxCoeff()).exp().transpose();
      const Eigen::Array3d mu = p / p.sum();
      for (Index a = 0; a < 3; ++a)
        for (Index b = a; b < 3; ++b) under += (a == b ? mu(a) * (1.0 - mu(a)) : mu(a) * mu(b)) <= tau;
    }
    under /= static_cast<double>(6 * n);
    check(under > 0.3, "multinomial direction, separable classes: pair weights under the floor (share over 0.3)", under, 0.3);
    for (int threads : {1, 2})
      for (bool blas : {false, true}) {
        ColumnGram g = gram;
        const NewtonSolution cg = newton_solve(start, ev, ctl, std::function<void()>(),
                                               multinomial_direction(Z1, d.wt, d.W, lambda, g, threads, std::function<void()>(),
                                                                     blas ? by_rows : Blas(), 0));
        MatrixXd diff = Eigen::Map<const MatrixXd>(cg.point.theta.data(), m1, 3) -
                        Eigen::Map<const MatrixXd>(exact.point.theta.data(), m1, 3);
        diff.row(0).array() -= diff.row(0).mean();
        check(exact.converged && cg.converged, "multinomial direction, separable classes: both solves converged", cg.converged, 1);
        check(diff.cwiseAbs().maxCoeff() < 1e-8, "multinomial direction, separable classes: the factorized Hessian's coefficients",
              diff.cwiseAbs().maxCoeff(), 0);
      }
    // from a start far from the optimum (every coefficient of the fit, intercepts but, times -3 and 6),
    // the line search damps steps, after which the kept factor's direction is taken unconverged: such
    // directions (the iterate's exact Newton direction, from its factorized Hessian, differs by more
    // than 1e-3 of its size) occur, and the fit is still the factorized Hessian's
    for (double far : {-3.0, 6.0}) {
      MatrixXd theta_far = Eigen::Map<const MatrixXd>(exact.point.theta.data(), m1, 3);
      theta_far.bottomRows(m1 - 1) *= far;
      const Eigen::Map<const VectorXd> start_far(theta_far.data(), theta_far.size());
      const NewtonSolution exact_far = newton_solve(start_far, ev, ctl);
      ColumnGram g = gram;
      const NewtonDirection direction = multinomial_direction(Z1, d.wt, d.W, lambda, g, 1, std::function<void()>(), Blas(), 0);
      int inexact = 0;
      const NewtonDirection watched = [&](const NewtonPoint& pt) {
        VectorXd dir = direction(pt);
        if (pt.step < 1.0) {
          MatrixXd H = glm_hessian(fam, Z1, pt.mu, d.wt, d.W, lambda, 1);
          H.diagonal().array() += 1e-12 * H.diagonal().maxCoeff();
          const VectorXd newton = -H.ldlt().solve(pt.gradient);
          MatrixXd diff = Eigen::Map<const MatrixXd>(dir.data(), m1, 3) - Eigen::Map<const MatrixXd>(newton.data(), m1, 3);
          diff.row(0).array() -= diff.row(0).mean();
          if (diff.norm() > 1e-3 * newton.norm()) ++inexact;
        }
        return dir;
      };
      const NewtonSolution cg = newton_solve(start_far, ev, ctl, std::function<void()>(), watched);
      MatrixXd diff = Eigen::Map<const MatrixXd>(cg.point.theta.data(), m1, 3) -
                      Eigen::Map<const MatrixXd>(exact.point.theta.data(), m1, 3);
      diff.row(0).array() -= diff.row(0).mean();
      check(exact_far.converged && cg.converged, "multinomial direction, far start: both solves converged", cg.converged, 1);
      check(inexact > 0, "multinomial direction, far start: unconverged directions after damped steps", inexact, 1);
      check(diff.cwiseAbs().maxCoeff() < 1e-8, "multinomial direction, far start: the factorized Hessian's coefficients",
            diff.cwiseAbs().maxCoeff(), 0);
    }
  }
}

// 138. WhitenedColumns (glm/columns.hpp), the GLM's whitened columns formed a block of rows at a time,
//      against the matrix Z1 = [1, whitened_columns() of the groups in order] held whole: its rows (read(),
//      all columns and cut inside a group), Y - Z1 C, Z1' M (all columns and a range of groups) on 1 and
//      2 threads, and the weighted cross-products read from it (by the kernels and through BLAS-like
//      updates), on dense x with one column's mean at 1e6
//      (the centring happens in the block, as whitened_columns() centres) and on sparse x (about half
//      zeros), groups in an order other than theirs, a rank-deficient one among them; a range that does
//      not start at a group is an error.
static void test_whitened_columns(Problem& pb) {
  const Index n = pb.n;
  MatrixXd xd = pb.x;
  xd.col(1).array() += 1e6;
  MatrixXd xz = pb.x;
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < xz.cols(); ++j)
      if ((i * 7 + j * 3) % 5 < 2 || (i + j) % 3 == 0) xz(i, j) = 0.0;
  const Eigen::SparseMatrix<double> xsp = xz.sparseView();
  const SparseMap xs(xsp.rows(), xsp.cols(), xsp.nonZeros(), xsp.outerIndexPtr(), xsp.innerIndexPtr(), xsp.valuePtr());
  const DenseDesign dense(xd);
  const SparseDesign sparse(xs);
  const GroupLayout lay = make_layout(pb.group_of, 5);
  VectorXd wt;
  MatrixXd off;
  pb.weights_offsets(wt, off);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (const Design* x : {static_cast<const Design*>(&dense), static_cast<const Design*>(&sparse)}) {
    const BlockStats bs = block_stats(*x, MatrixXd(n, 0), wt, lay);
    const Whitened wh = whiten_blocks(bs.blocks, 1e-9);
    WhitenedColumns Z(*x, bs.st);
    MatrixXd Z1(n, 1);
    Z1.col(0).setOnes();
    std::vector<Index> first;
    for (Index g : {2, 0, 4, 1, 3}) {
      first.push_back(Z1.cols());
      Z.append(lay.cols[g], wh.T[g]);
      const MatrixXd zg = whitened_columns(*x, lay.cols[g], bs.st, wh.T[g]);
      MatrixXd grown(n, Z1.cols() + zg.cols());
      grown << Z1, zg;
      Z1 = grown;
    }
    const Index m1 = Z1.cols();
    check(Z.cols() == m1 && Z.rows() == n, "WhitenedColumns: the columns of the groups", static_cast<double>(Z.cols()),
          static_cast<double>(m1));
    const double zscale = Z1.cwiseAbs().maxCoeff();
    // rows, all columns, and columns cut inside the fourth group (rank 2 of 3)
    double worst = 0.0;
    for (Index cmax : {m1, first[3] + 1})
      for (Index r0 : {Index(0), Index(37), n - 50}) {
        MatrixXd dst(60, m1);
        Z.read(r0, 50, cmax, dst);
        worst = std::max(worst, (dst.topLeftCorner(50, cmax) - Z1.block(r0, 0, 50, cmax)).cwiseAbs().maxCoeff());
      }
    check(worst <= 1e-14 * zscale, "WhitenedColumns: read() gives Z1's rows", worst, 0);
    MatrixXd C(m1, 3), M(n, 3), Y0(n, 3);
    for (Index i = 0; i < C.size(); ++i) C(i) = U(pb.rng);
    for (Index i = 0; i < M.size(); ++i) M(i) = U(pb.rng);
    for (Index i = 0; i < Y0.size(); ++i) Y0(i) = U(pb.rng);
    const MatrixXd want_y = Y0 - Z1 * C, want_t = Z1.transpose() * M;
    const double yscale = Z1.cwiseAbs().rowwise().sum().maxCoeff() * C.cwiseAbs().maxCoeff();
    const double tscale = Z1.cwiseAbs().colwise().sum().maxCoeff() * M.cwiseAbs().maxCoeff();
    for (int threads : {1, 2}) {
      MatrixXd Y = Y0;
      Z.sub_mul(Y, C, threads);
      const double ey = (Y - want_y).cwiseAbs().maxCoeff();
      check(ey <= 1e-12 * yscale, "WhitenedColumns: Y - Z1 C", ey, 0);
      const double et = (Z.tmul(M, threads) - want_t).cwiseAbs().maxCoeff();
      check(et <= 1e-12 * tscale, "WhitenedColumns: Z1' M", et, 0);
      const MatrixXd part = Z.tmul(M, threads, first[1], first[3]);
      const double er = (part - want_t.middleRows(first[1], first[3] - first[1])).cwiseAbs().maxCoeff();
      check(er <= 1e-12 * tscale, "WhitenedColumns: Z1[, groups 2 to 3]' M", er, 0);
      // the weighted cross-products of one pass, read from the columns and from the matrix
      const std::vector<kernels::CrossBlock> blocks{{0, m1, 0, m1, true}, {first[2], m1, 0, first[2], false}};
      const MatrixXd V = (wt.array() * (1.0 + M.col(0).array())).matrix();
      // (also through BLAS-like rank and cross updates, whose rows are formed on the threads)
      const Blas updates = eigen_updates();
      const std::vector<MatrixXd> want = kernels::weighted_cross(Z1, V, blocks, threads);
      for (const std::vector<MatrixXd>& got :
           {kernels::weighted_cross_rows(Z, V, blocks, threads), kernels::weighted_cross_rows(Z, V, blocks, threads, updates)}) {
        double ec = 0.0;
        for (size_t b = 0; b < got.size(); ++b) {
          MatrixXd diff = got[b] - want[b];
          if (blocks[b].lower) diff.triangularView<Eigen::StrictlyUpper>().setZero();
          ec = std::max(ec, diff.cwiseAbs().maxCoeff());
        }
        check(ec <= 1e-12 * (1.0 + want[0].cwiseAbs().maxCoeff()), "WhitenedColumns: the weighted cross-products", ec, 0);
      }
    }
    bool threw = false;
    try {
      Z.tmul(M, 1, first[1] + 1, m1);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    check(threw, "WhitenedColumns: a range inside a group is an error", threw, 1);
  }
}

// 139. ContrastHessian (glm/multinomial.hpp), the multinomial's penalized Hessian on the class contrasts
//      held as its blocks and factorized by blocks, solves its system as the whole matrix does: with 5
//      classes (4 x 4 blocks, so that the trailing updates include blocks off the diagonal), for a right
//      side whose rows sum to 0, X = B u with (B' H B) u = B' vec(R), B the contrast basis e_a - e_R (R the
//      class of the largest total weight) and H the penalized Hessian of every class formed by Eigen;
//      through Eigen, through BLAS-like rank and cross updates, with those and a triangular solve and
//      Cholesky given, where the Cholesky reports a pivot that is not positive (the pivoted LDL'), and
//      told to take the pivoted LDL' at once.
static void test_contrast_hessian(Problem& pb) {
  const Index n = pb.n, K = 5;
  const GlmData d(pb);
  const Whitened wh = whiten_blocks(d.bs.blocks, 1e-9);
  WhitenedColumns Z(d.dx, d.bs.st);
  for (Index g = 0; g < 5; ++g) Z.append(d.lay.cols[g], wh.T[g]);
  const Index m1 = Z.cols();
  MatrixXd Z1(n, m1);
  Z.read(0, n, m1, Z1);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  MatrixXd eta(n, K);
  for (Index i = 0; i < eta.size(); ++i) eta(i) = 2.0 * U(pb.rng);
  const MatrixXd mu = FamilyOps{Family::Multinomial}.mean(eta);
  const VectorXd wn = d.wt / d.W;
  const double lambda = 0.05;
  // the penalized Hessian of every class, (m1 K)^2, and the contrast basis
  MatrixXd H(m1 * K, m1 * K);
  for (Index c = 0; c < K; ++c)
    for (Index e = 0; e < K; ++e) {
      const VectorXd v = wn.cwiseProduct(mu.col(c).cwiseProduct((c == e ? 1.0 : 0.0) * VectorXd::Ones(n) - mu.col(e)));
      H.block(c * m1, e * m1, m1, m1) = Z1.transpose() * v.asDiagonal() * Z1;
    }
  for (Index c = 0; c < K; ++c) H.diagonal().segment(c * m1 + 1, m1 - 1).array() += lambda;
  Index R = 0;
  (mu.transpose() * wn).maxCoeff(&R);
  MatrixXd B = MatrixXd::Zero(m1 * K, m1 * (K - 1));
  for (Index c = 0, a = 0; c < K; ++c) {
    if (c == R) continue;
    B.block(c * m1, a * m1, m1, m1).setIdentity();
    B.block(R * m1, a * m1, m1, m1) = -MatrixXd::Identity(m1, m1);
    ++a;
  }
  MatrixXd Rm(m1, K);
  for (Index i = 0; i < Rm.size(); ++i) Rm(i) = U(pb.rng);
  Rm.colwise() -= Rm.rowwise().mean();
  const Eigen::Map<const VectorXd> r(Rm.data(), Rm.size());
  const VectorXd u = (B.transpose() * H * B).llt().solve(B.transpose() * r);
  const VectorXd want = B * u;
  const Blas updates = eigen_updates();
  Blas all = updates;
  all.lower_solve = [](const MatrixXd& L, MatrixXd& b) { L.triangularView<Eigen::Lower>().solveInPlace(b); };
  all.cholesky = [](MatrixXd& a) { return Eigen::LLT<Eigen::Ref<MatrixXd>, Eigen::Lower>(a).info() == Eigen::Success; };
  Blas no_cholesky = updates;
  no_cholesky.cholesky = [](MatrixXd&) { return false; };
  const char* name[] = {"Eigen", "rank and cross updates", "updates, solve and Cholesky given", "pivoted LDL'",
                        "pivoted LDL' at once"};
  int variant = 0;
  const Blas none;
  const Blas* blases[] = {&none, &updates, &all, &no_cholesky, &all};
  for (const Blas* blas : blases) {
    // gram_max large: no row is left out of a pair, so the factor is the Hessian's own
    const ContrastHessian ch(Z, mu, wn, lambda, 1e300, 2, *blas, variant == 4);
    const MatrixXd X = ch.solve(Rm);
    const double err = (Eigen::Map<const VectorXd>(X.data(), X.size()) - want).cwiseAbs().maxCoeff();
    check(err <= 1e-10 * want.cwiseAbs().maxCoeff(),
          (std::string("ContrastHessian: the whole matrix's solve, ") + name[variant]).c_str(), err, 0);
    check(ch.pivoted() == (variant >= 3), (std::string("ContrastHessian: the factorization, ") + name[variant]).c_str(),
          ch.pivoted(), variant >= 3);
    ++variant;
  }
}
