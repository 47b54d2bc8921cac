// The sample-space engine (sample.hpp) and its screened CS-G-OMP (screen.hpp).

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
}
