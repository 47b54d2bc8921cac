// The sample-space engine (linear/sample.hpp) and its screened CS-G-OMP (linear/screen.hpp).

// 5. the sample-space engine, on the dense x and on the same x stored sparse, gives the Gram engine's
// sequence and objectives for every method (with two OpenMP threads when compiled with them).
static void test_sample_engine(Problem& pb) {
  const MatrixXd& x = pb.x;
  const std::vector<int>& group_of = pb.group_of;
  const std::vector<double>& cost = pb.cost;
  const MatrixXd& Y = pb.Y;
  Eigen::SparseMatrix<double> xs = x.sparseView();
  const SparseMap xmap(xs.rows(), xs.cols(), xs.nonZeros(), xs.outerIndexPtr(), xs.innerIndexPtr(), xs.valuePtr());
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
}

// CS-G-FR's gains of a step computed at once on the fit's threads (SampleModel::set_candidates()): each
// equals the gain the model computes alone, bit for bit, and the Gram engine's gain (the objective it
// would add) within rounding, over the steps of a path; a poll that throws within them stops them, and
// a gain it did not compute is then computed alone (the same value).
static void test_sample_fr_gains(Problem& pb) {
  const GroupLayout lay = make_layout(pb.group_of, 5);
  Control ctl;
  ctl.method = Method::FR;
  ctl.engine = Engine::Sample;
  ctl.lambda = 0.01;
  const DenseDesign dx(pb.x);
  const BlockStats bs = block_stats(dx, pb.Y, VectorXd(), lay);
  const Whitened wh = whiten_block_stats(bs, ctl.rank_tol);
  SampleModel batch(dx, pb.Y, VectorXd(), bs.st, wh, lay, ctl, 2), alone(dx, pb.Y, VectorXd(), bs.st, wh, lay, ctl, 1);
  Control gctl = ctl;
  gctl.engine = Engine::Gram;
  const GramStats st = gram_stats(pb.x, pb.Y, VectorXd());
  const Whitened gw = whiten(st, lay, gctl.lambda, gctl.rank_tol);  // the model keeps a reference
  GramModel gram(gw, st, lay, gctl);
  std::vector<bool> cand(5, true);
  double worst = 0.0;
  bool same = true;
  int scored = 0;
  for (const Index g : {Index(2), Index(0), Index(4)}) {
    batch.set_candidates(cand);
    for (Index h = 0; h < 5; ++h) {
      if (!cand[static_cast<size_t>(h)]) continue;
      const double a = batch.raw_score(h), b = alone.raw_score(h), c = gram.raw_score(h);
      same = same && a == b;
      worst = std::max(worst, std::abs(a - c) / (1.0 + std::abs(c)));
      ++scored;
    }
    batch.add_group(g);
    alone.add_group(g);
    gram.add_group(g);
    cand[static_cast<size_t>(g)] = false;
  }
  check(same && scored == 12, "SampleModel: CS-G-FR gains of a step at once equal those computed alone", scored, 12);
  check(worst < 1e-9, "SampleModel: CS-G-FR gains equal the Gram engine's", worst, 0);
  batch.set_poll([] { throw TimeUp(); });
  bool stopped = false;
  try {
    batch.set_candidates(cand);
  } catch (const TimeUp&) {
    stopped = true;
  }
  check(stopped && batch.raw_score(1) == alone.raw_score(1),
        "SampleModel: a poll that throws stops the gains of a step; each is then computed alone", 0, 0);
}

// CS-G-OMP with and without screening: the same path on a wide problem with a duplicated group.
static void test_screened_omp(Problem& pb) {
  std::mt19937& rng = pb.rng;
  std::normal_distribution<double>& N = pb.N;
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
  // max_time spent while the screening copy is made (polled before each group, after the three polls
  // before the model's n-row buffers): no copy, and the model scores in double precision (the
  // unscreened path, bit for bit)
  Control on;
  on.engine = Engine::Sample;
  on.lambda = 0.01;
  Control off = on;
  off.screen = false;
  const DenseDesign dw(xw);
  const GroupLayout lay = make_layout(gof, static_cast<int>(gw));
  const BlockStats bs = block_stats(dw, yw, VectorXd(), lay);
  const Whitened wh = whiten_block_stats(bs, on.rank_tol);
  int polls = 0;
  SampleModel cut(dw, yw, VectorXd(), bs.st, wh, lay, on, 1, [&polls] {
    if (++polls > 5) throw TimeUp();  // the third group's poll
  });
  SampleModel plain(dw, yw, VectorXd(), bs.st, wh, lay, off, 1);
  const Path pc = greedy_path(cut, Measurements(cw), on), pp = greedy_path(plain, Measurements(cw), off);
  check(polls == 6 && pc.sequence == pp.sequence && pc.score == pp.score,
        "SampleModel: max_time spent making the screening copy leaves the unscreened model", polls, 6);
  // spent before the model's buffers: the constructor throws (fit_path() then gives the null model)
  int early = 0;
  bool thrown = false;
  try {
    SampleModel none(dw, yw, VectorXd(), bs.st, wh, lay, on, 1, [&early] {
      if (++early > 1) throw TimeUp();
    });
  } catch (const TimeUp&) {
    thrown = true;
  }
  check(thrown && early == 2, "SampleModel: max_time spent before its buffers leaves the constructor", early, 2);
}

// Lazy screening (linear/sample.hpp): a range from an earlier step's pass over the copy still holds the
// exact score (raw_score(), from x in double precision) after the residual has moved, for every
// criterion, with weights and a ridge; and the engine, which passes only over the groups whose range
// reaches the best, gives the unscreened path while passing over fewer columns than a pass per step.
static void test_lazy_screening(Problem& pb) {
  std::mt19937& rng = pb.rng;
  std::normal_distribution<double>& N = pb.N;
  const Index nw = 60, gw = 40, d = 3;
  MatrixXd xw(nw, d * gw);
  for (Index j = 0; j < xw.cols(); ++j)
    for (Index i = 0; i < nw; ++i) xw(i, j) = N(rng) + (j % d == 0 ? 0.0 : 0.5 * xw(i, j - 1));
  MatrixXd yw = xw.col(1) - 0.5 * xw.col(7) + 0.8 * xw.col(40) + 0.3 * MatrixXd::Random(nw, 1);
  VectorXd w = VectorXd::Random(nw).array() + 1.5;
  std::vector<int> gof;
  for (Index j = 0; j < xw.cols(); ++j) gof.push_back(static_cast<int>(j / d));
  std::vector<double> cw(static_cast<size_t>(gw));
  for (Index g = 0; g < gw; ++g) cw[static_cast<size_t>(g)] = g % 4 == 0 ? 1.0 : (g % 4 == 1 ? 5.0 : (g % 4 == 2 ? 20.0 : 100.0));
  const DenseDesign dw(xw);
  const GroupLayout lay = make_layout(gof, static_cast<int>(gw));
  const BlockStats bs = block_stats(dw, yw, w, lay);
  const Whitened wh = whiten_block_stats(bs, 1e-9);
  for (Criterion cr : {Criterion::Whitened, Criterion::L2, Criterion::Linf}) {
    Control on;
    on.engine = Engine::Sample;
    on.criterion = cr;
    on.lambda = 0.01;
    SampleModel m(dw, yw, w, bs.st, wh, lay, on, 2);
    std::vector<Index> all;
    for (Index h = 0; h < gw; ++h) all.push_back(h);
    check(!m.range_current(0) && std::isinf(m.score_range(0).second), "lazy screening: no range before a pass", 0, 0);
    m.refresh_ranges(all);  // one response: the coarse (8-bit) level first, then the 16-bit one
    const std::pair<double, double> coarse = m.score_range(5);
    check(!m.range_current(5) && std::isfinite(coarse.second), "lazy screening: a coarse range after the first pass", 0, 0);
    m.refresh_ranges(all);
    const std::pair<double, double> fine = m.score_range(5);
    check(m.range_current(5), "lazy screening: a range of this step after the second pass", 0, 0);
    const double exact5 = m.raw_score(5);
    check(coarse.first <= fine.first && fine.second <= coarse.second && fine.first <= exact5 && exact5 <= fine.second &&
              (coarse.second - coarse.first) > 30 * (fine.second - fine.first),
          "lazy screening: the 16-bit range within the coarse one, both holding the exact score",
          coarse.second - coarse.first, fine.second - fine.first);
    double worst = 0.0;  // the largest distance of an exact score outside its range, relative
    int old_ranges = 0;
    // 12 steps: more than the 4 residuals the model keeps here, so that ranges of steps whose residual
    // was dropped are checked too
    const std::vector<Index> take = {13, 2, 0, 27, 33, 8, 19, 4, 36, 22, 11, 39};
    for (size_t k = 0; k < take.size(); ++k) {
      m.add_group(take[k]);
      if (k == 2) m.refresh_ranges({5, 6, 30});  // some groups passed over again (coarse), the others not
      if (k == 7) {
        m.refresh_ranges({1, 6, 31});
        m.refresh_ranges({6, 31});  // and to the 16-bit level
      }
      for (Index h = 0; h < gw; ++h) {
        if (std::find(take.begin(), take.begin() + static_cast<std::ptrdiff_t>(k) + 1, h) != take.begin() + static_cast<std::ptrdiff_t>(k) + 1) continue;
        const std::pair<double, double> r = m.score_range(h);
        const double s = m.raw_score(h);
        old_ranges += m.range_current(h) ? 0 : 1;
        worst = std::max(worst, std::max(r.first - s, s - r.second) / (1e-300 + s));
      }
    }
    check(worst <= 1e-12, "lazy screening: ranges of earlier steps hold the exact score", worst, 1e-12);
    check(old_ranges > 100, "lazy screening: ranges of earlier steps were checked", old_ranges, 100);
    // the engine: the unscreened path, and fewer columns passed over than one pass per step
    struct Counting : SelectionModel {
      SampleModel& m;
      Index groups = 0, passes = 0;
      explicit Counting(SampleModel& model) : m(model) {}
      Index n_groups() const override { return m.n_groups(); }
      bool selectable(Index h) const override { return m.selectable(h); }
      double raw_score(Index h) override { return m.raw_score(h); }
      std::pair<double, double> score_range(Index h) override { return m.score_range(h); }
      bool range_current(Index h) const override { return m.range_current(h); }
      void refresh_ranges(const std::vector<Index>& gs) override {
        ++passes;
        m.refresh_ranges(gs);
        for (Index h : gs) (m.range_current(h) ? groups : coarse) += 1;  // a 16-bit pass makes it current
      }
      Index coarse = 0;
      void set_candidates(const std::vector<bool>& c) override { m.set_candidates(c); }
      void add_group(Index g) override { m.add_group(g); }
      double objective() const override { return m.objective(); }
      double r2() const override { return m.r2(); }
      double score_scale() const override { return m.score_scale(); }
      MatrixXd coef() const override { return m.coef(); }
      VectorXd intercept() const override { return m.intercept(); }
    };
    Control off = on;
    off.screen = false;
    on.max_steps = off.max_steps = 15;
    SampleModel lazy(dw, yw, w, bs.st, wh, lay, on, 2), plain(dw, yw, w, bs.st, wh, lay, off, 1);
    Counting counted(lazy);
    const Path a = greedy_path(counted, Measurements(cw), on), b = greedy_path(plain, Measurements(cw), off);
    check(a.sequence == b.sequence && a.sequence.size() == 15, "lazy screening: the unscreened sequence", 0, 0);
    for (size_t k = 0; k < a.score.size() && k < b.score.size(); ++k)
      check(std::abs(a.score[k] - b.score[k]) <= 1e-9 * std::abs(b.score[k]), "lazy screening: the unscreened scores",
            a.score[k], b.score[k]);
    Index candidates = 0;  // one pass per step would pass over every unselected group
    for (Index k = 0; k < 15; ++k) candidates += gw - k;
    check(counted.groups < candidates * 3 / 4, "lazy screening: fewer groups passed over at 16 bits than a pass per step",
          static_cast<double>(counted.groups), static_cast<double>(candidates));
    check(counted.passes >= 15 && counted.passes <= 60, "lazy screening: two to four passes a step (two levels)",
          static_cast<double>(counted.passes), 60);
  }
}

// A group wider than x is long (60 columns, 20 weighted rows) is whitened from the n x n matrix of its
// rows (whiten_rows()) instead of its 60 x 60 block: the same rank (19: the centred rows span 19
// directions), the same pseudo-inverse T T' and block S S' as the eigen-decomposition of the block
// itself, and the sample-space engine's path on it equals the Gram engine's (which whitens the block).
static void test_wide_group(Problem& pb) {
  std::mt19937& rng = pb.rng;
  std::normal_distribution<double>& N = pb.N;
  const Index n = 20, d = 60, p = d + 3;
  MatrixXd x(n, p);
  for (Index j = 0; j < p; ++j)
    for (Index i = 0; i < n; ++i) x(i, j) = N(rng) + 3.0;
  VectorXd w(n);
  std::uniform_real_distribution<double> U(0.5, 2.0);
  for (Index i = 0; i < n; ++i) w(i) = U(rng);
  MatrixXd y(n, 1);
  for (Index i = 0; i < n; ++i) y(i, 0) = x(i, d) - 0.5 * x(i, 3) + 0.3 * N(rng);
  std::vector<int> gof(static_cast<size_t>(p), 1);
  for (Index j = 0; j < d; ++j) gof[static_cast<size_t>(j)] = 0;
  gof[static_cast<size_t>(d + 2)] = 2;
  const GroupLayout lay = make_layout(gof, 3);
  const BlockStats bs = block_stats(DenseDesign(x), MatrixXd(n, 0), w, lay);
  check(bs.rows[0].rows() == n && bs.blocks[0].size() == 0 && bs.rows[1].size() == 0,
        "block_stats: a wide group keeps its rows, not its block", static_cast<double>(bs.rows[0].rows()), n);
  const MatrixXd block = bs.rows[0].transpose() * bs.rows[0];  // Sigma_gg
  MatrixXd Tb, Sb;
  whiten_block(block, 1e-9, Tb, Sb);
  const Whitened wh = whiten_block_stats(bs, 1e-9);
  const MatrixXd& T = wh.T[0];
  const MatrixXd& S = wh.S[0];
  check(wh.rank[0] == n - 1 && Tb.cols() == n - 1, "whiten_rows: rank n - 1 of a wide group", static_cast<double>(wh.rank[0]), n - 1);
  const double pinv = (T * T.transpose() - Tb * Tb.transpose()).norm() / (Tb * Tb.transpose()).norm();
  check(pinv < 1e-8, "whiten_rows: T T' is the block's pseudo-inverse", pinv, 0);
  const double back = (S * S.transpose() - block).norm() / block.norm();
  check(back < 1e-10, "whiten_rows: S S' is the block", back, 0);
  const double white = (T.transpose() * block * T - MatrixXd::Identity(n - 1, n - 1)).norm();
  check(white < 1e-8, "whiten_rows: T' Sigma T = I", white, 0);
  const std::vector<double> cost{4.0, 1.0, 1.0};
  Control gram;
  gram.method = Method::FR;
  gram.lambda = 0.0;
  Control sample = gram;
  sample.engine = Engine::Sample;
  const FitResult a = fit_path(DenseDesign(x), y, w, MatrixXd(), gof, 3, cost, Family::Gaussian, gram);
  const FitResult b = fit_path(DenseDesign(x), y, w, MatrixXd(), gof, 3, cost, Family::Gaussian, sample);
  check(a.path.sequence == b.path.sequence && a.rank == b.rank, "wide group: the sample engine's sequence and ranks",
        static_cast<double>(b.path.sequence.size()), static_cast<double>(a.path.sequence.size()));
  for (size_t k = 0; k < a.path.r2.size() && k < b.path.r2.size(); ++k)
    check(std::abs(a.path.r2[k] - b.path.r2[k]) < 1e-8, "wide group: the sample engine's r2", b.path.r2[k], a.path.r2[k]);
}

// The sample-space engine's basis near saturation: 60 rows, 24 groups of 4 columns, of which group 1
// is group 0 plus noise of 1e-4 that the response follows (groups 0 and 1 cost nothing, so both come
// first: the directions of group 1 keep about 1e-4 of their length after the projection on group 0,
// and one pass of Gram-Schmidt would leave them about 1e-12 off orthogonal); every later group loses
// most of its length to the basis as the path fills the 59 centred dimensions. At every step of
// CS-G-OMP and CS-G-FR (lambda 0, weighted rows), the fitted values from the fit's coefficients on the
// original scale are those of the weighted least squares of y on the groups selected, solved by
// Householder QR of the centred columns, to 6e-12 of ||y||, and the r2 the path reports (from the
// basis: ||z||^2 / TSS) is 1 - RSS / TSS to 1e-13. Without the second pass, r2 is off by 2e-13 to
// 6e-13 and the fitted values by 9e-12 to 3.5e-11 here; with it, 3e-14 and 3e-12.
static void test_sample_saturation(Problem& pb) {
  std::mt19937& rng = pb.rng;
  std::normal_distribution<double>& N = pb.N;
  const Index n = 60, G = 24, d = 4, p = G * d;
  MatrixXd x(n, p);
  for (Index j = 0; j < p; ++j)
    for (Index i = 0; i < n; ++i) x(i, j) = N(rng) + 0.5 * static_cast<double>(j);
  MatrixXd noise(n, d);
  for (Index j = 0; j < d; ++j)
    for (Index i = 0; i < n; ++i) {
      noise(i, j) = N(rng);
      x(i, d + j) = x(i, j) + 1e-4 * noise(i, j);
    }
  VectorXd w(n);
  std::uniform_real_distribution<double> U(0.5, 2.0);
  for (Index i = 0; i < n; ++i) w(i) = U(rng);
  MatrixXd y(n, 1);
  for (Index i = 0; i < n; ++i) y(i, 0) = 1e-3 * (noise(i, 0) - noise(i, 2)) + x(i, 0) + 0.5 * x(i, 9) + 0.3 * N(rng);
  std::vector<int> gof(static_cast<size_t>(p));
  for (Index j = 0; j < p; ++j) gof[static_cast<size_t>(j)] = static_cast<int>(j / d);
  std::vector<double> cost(static_cast<size_t>(G), 1.0);
  cost[0] = cost[1] = 0.0;
  const VectorXd sw = w.cwiseSqrt();
  const double W = w.sum();
  const double ybar = w.dot(y.col(0)) / W;
  const VectorXd yc = sw.asDiagonal() * (y.col(0).array() - ybar).matrix();
  const double tss = yc.squaredNorm();
  for (Method m : {Method::OMP, Method::FR}) {
    Control ctl;
    ctl.method = m;
    ctl.lambda = 0.0;
    ctl.engine = Engine::Sample;
    ctl.threads = 2;
    const FitResult f = fit_path(DenseDesign(x), y, w, MatrixXd(), gof, G, cost, Family::Gaussian, ctl);
    const std::vector<Index>& seq = f.path.sequence;
    check(seq.size() >= 14 && f.rank[1] == d && std::min(seq[0], seq[1]) == 0 && std::max(seq[0], seq[1]) == 1,
          "saturation: groups 0 and 1 first, the path to the 59 dimensions", static_cast<double>(seq.size()), 14);
    double worst_fit = 0.0, worst_r2 = 0.0;
    std::vector<Index> cols;
    for (size_t k = 1; k <= seq.size(); ++k) {
      for (Index j = 0; j < d; ++j) cols.push_back(seq[k - 1] * d + j);
      MatrixXd A(n, static_cast<Index>(cols.size()));
      for (size_t a = 0; a < cols.size(); ++a) {
        const VectorXd c = x.col(cols[a]);
        A.col(static_cast<Index>(a)) = sw.asDiagonal() * (c.array() - w.dot(c) / W).matrix();
      }
      Eigen::ColPivHouseholderQR<MatrixXd> qr(A);
      const VectorXd fit_qr = A * qr.solve(yc);
      const auto kk = static_cast<Index>(k);
      const VectorXd fitted = x * VectorXd(f.beta[0].col(kk)) + VectorXd::Constant(n, f.a0(0, kk) - ybar);
      worst_fit = std::max(worst_fit, (sw.asDiagonal() * fitted - fit_qr).norm() / yc.norm());
      worst_r2 = std::max(worst_r2, std::abs(f.path.r2[k] - (1.0 - (yc - fit_qr).squaredNorm() / tss)));
    }
    check(worst_fit < 6e-12, "saturation: the fitted values of least squares at every step", worst_fit, 6e-12);
    check(worst_r2 < 1e-13, "saturation: r2 = 1 - RSS / TSS at every step", worst_r2, 1e-13);
  }
}
