// Dense or sparse x behind one interface (common/design.hpp), against products formed directly.

// The shared problem's x with about 70% of its entries set to 0, as a dense and as a sparse matrix:
// gather, cross, weighted_sums and tmul of both equal the same products of the dense matrix by Eigen;
// the statistics of the sparse design (sparse_gram_stats()) equal those of the dense pass (gram_stats()).
static void test_design_products(Problem& pb) {
  const Index n = pb.n, p = pb.p;
  std::uniform_real_distribution<double> U(0.0, 1.0);
  MatrixXd x = pb.x;
  for (Index j = 0; j < p; ++j)
    for (Index i = 0; i < n; ++i)
      if (U(pb.rng) < 0.7) x(i, j) = 0.0;
  VectorXd w(n);
  for (Index i = 0; i < n; ++i) w(i) = 0.5 + U(pb.rng);
  MatrixXd M(n, 3);
  for (Index i = 0; i < M.size(); ++i) M.data()[i] = pb.N(pb.rng);
  const Eigen::SparseMatrix<double> xsp = x.sparseView();
  const SparseMap xs(xsp.rows(), xsp.cols(), xsp.nonZeros(), xsp.outerIndexPtr(), xsp.innerIndexPtr(), xsp.valuePtr());
  const DenseDesign dd(x);
  const SparseDesign sd(xs);
  const std::vector<Index> cols{7, 0, 11};
  for (const Design* d : {static_cast<const Design*>(&dd), static_cast<const Design*>(&sd)}) {
    const char* kind = d->is_sparse() ? "sparse" : "dense";
    MatrixXd got;
    d->gather(cols, got);
    double worst = 0.0;
    for (size_t a = 0; a < cols.size(); ++a) worst = std::max(worst, (got.col(a) - x.col(cols[a])).cwiseAbs().maxCoeff());
    check(worst == 0.0 && d->rows() == n && d->cols() == p, kind, worst, 0);
    const double want_cross = (x.col(2).array() * x.col(9).array() * w.array()).sum();
    check(std::abs(d->cross(2, 9, w) - want_cross) < 1e-9 * (1 + std::abs(want_cross)), "design cross", d->cross(2, 9, w),
          want_cross);
    check((d->weighted_sums(w) - x.transpose() * w).norm() < 1e-9 * (x.transpose() * w).norm(), "design weighted sums", 0, 0);
    const MatrixXd want = x.transpose() * M;
    for (int threads : {1, 2})
      check((d->tmul(M, threads) - want).norm() < 1e-10 * want.norm(), "design x' M", (d->tmul(M, threads) - want).norm(), 0);
  }
  const GramStats a = gram_stats(x, pb.Y, w), b = sparse_gram_stats(xs, pb.Y, w);
  check((a.mean - b.mean).norm() < 1e-10 * a.mean.norm() && (a.scale - b.scale).norm() < 1e-10 * a.scale.norm(),
        "sparse and dense column statistics", (a.scale - b.scale).norm(), 0);
  check((a.sigma - b.sigma).norm() < 1e-9 && (a.rho - b.rho).norm() < 1e-9 && std::abs(a.yy(0) - b.yy(0)) < 1e-9 * a.yy(0),
        "sparse and dense Gram statistics", (a.sigma - b.sigma).norm(), 0);
}
