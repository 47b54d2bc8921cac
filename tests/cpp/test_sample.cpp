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
