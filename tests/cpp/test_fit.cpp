// A whole fit (sequence/fit.hpp) against least squares solved directly.

// fit_path() of the Gaussian family on the shared problem, with weights and an offset, lambda = 0: after
// each step the fitted values x beta_k + a0_k + offset are those of the weighted least-squares fit of y
// on an intercept and the columns of the groups selected so far (Eigen's complete orthogonal
// decomposition of sqrt(w) [1, x_S]: minimum-norm, so the rank-deficient group is no matter); the
// Gram and the sample-space engines give the same fit; r2 is 1 - RSS / TSS of that fit.
static void test_fit_least_squares(Problem& pb) {
  const Index n = pb.n, p = pb.p;
  VectorXd w;
  MatrixXd off;
  pb.weights_offsets(w, off);
  Control ctl;
  ctl.lambda = 0.0;
  ctl.method = Method::FR;
  std::vector<FitResult> fits;
  for (Engine engine : {Engine::Gram, Engine::Sample}) {
    ctl.engine = engine;
    fits.push_back(fit_path(DenseDesign(pb.x), pb.Y, w, off, pb.group_of, 5, pb.cost, Family::Gaussian, ctl));
  }
  const FitResult& fit = fits[0];
  const VectorXd sw = w.cwiseSqrt();
  const VectorXd z = pb.y - off.col(0);
  const double zbar = w.dot(z) / w.sum();
  const double tss = w.dot((z.array() - zbar).square().matrix());
  double worst = 0.0, worst_r2 = 0.0, worst_engines = 0.0;
  std::vector<Index> cols;
  for (size_t k = 0; k <= fit.path.sequence.size(); ++k) {
    if (k > 0)
      for (Index j = 0; j < p; ++j)
        if (pb.group_of[j] == fit.path.sequence[k - 1]) cols.push_back(j);
    MatrixXd A(n, 1 + static_cast<Index>(cols.size()));
    A.col(0).setOnes();
    for (size_t a = 0; a < cols.size(); ++a) A.col(1 + static_cast<Index>(a)) = pb.x.col(cols[a]);
    const VectorXd coef = (sw.asDiagonal() * A).completeOrthogonalDecomposition().solve(sw.cwiseProduct(z));
    const VectorXd want = A * coef;
    const VectorXd got = (pb.x * MatrixXd(fit.beta[0]).col(static_cast<Index>(k))).array() + fit.a0(0, static_cast<Index>(k));
    worst = std::max(worst, (got - want).cwiseAbs().maxCoeff());
    const double r2 = 1.0 - w.dot((z - want).array().square().matrix()) / tss;
    worst_r2 = std::max(worst_r2, std::abs(fit.path.r2[k] - r2));
    const VectorXd other = (pb.x * MatrixXd(fits[1].beta[0]).col(static_cast<Index>(k))).array() + fits[1].a0(0, static_cast<Index>(k));
    worst_engines = std::max(worst_engines, (other - got).cwiseAbs().maxCoeff());
  }
  check(fit.path.sequence.size() == 5 && !fit.path.partial, "fit_path selects every group", static_cast<double>(fit.path.sequence.size()), 5);
  check(worst < 1e-6, "fit_path: fitted values of least squares at every step", worst, 0);
  check(worst_r2 < 1e-8, "fit_path: r2 of least squares at every step", worst_r2, 0);
  check(fits[1].path.sequence == fit.path.sequence && worst_engines < 1e-6, "fit_path: the sample-space engine agrees",
        worst_engines, 0);
}
