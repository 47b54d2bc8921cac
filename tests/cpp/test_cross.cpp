// The weighted cross-products of one pass (glm/cross.hpp).

// 11. the weighted cross-products of one pass (kernels::weighted_cross) agree with Eigen's (also through
//     a BLAS's rank updates and products, for weight columns of one sign), for every
//     instruction set, 1 and 2 threads, full and lower blocks, several weights, row counts beyond and
//     not multiples of the 256-row blocks; weighted_cross_above() (negligible weights left out) likewise
// the largest difference between weighted_cross()'s blocks and Eigen's products, relative to 1 + |entry|
// (only the lower triangle of a lower block)
static double cross_error(const std::vector<MatrixXd>& got, const MatrixXd& A, const MatrixXd& V,
                          const std::vector<kernels::CrossBlock>& blocks) {
  double worst = 0.0;
  for (Index k = 0; k < V.cols(); ++k)
    for (size_t b = 0; b < blocks.size(); ++b) {
      const kernels::CrossBlock& cb = blocks[b];
      const MatrixXd want = A.middleCols(cb.i0, cb.i1 - cb.i0).transpose() * V.col(k).asDiagonal() *
                            A.middleCols(cb.j0, cb.j1 - cb.j0);
      const MatrixXd& g = got[static_cast<size_t>(k) * blocks.size() + b];
      for (Index i = 0; i < want.rows(); ++i)
        for (Index j = 0; j < want.cols(); ++j)
          if (!cb.lower || cb.i0 + i >= cb.j0 + j)
            worst = std::max(worst, std::abs(g(i, j) - want(i, j)) / (1.0 + std::abs(want(i, j))));
    }
  return worst;
}

// n x 3 weights: a column >= 0, a column <= 0, and a third of both signs (mixed) or >= 0
static MatrixXd signed_weights(Index n, bool mixed) {
  MatrixXd V(n, 3);
  V.col(0) = VectorXd::Random(n).cwiseAbs();
  V.col(1) = -VectorXd::Random(n).cwiseAbs();
  V.col(2) = VectorXd::Random(n);
  if (!mixed) V.col(2) = V.col(2).cwiseAbs();
  return V;
}

static void test_weighted_cross() {
  double worst = 0.0;
  for (int isa : {0, 1, 2})
    for (Index n : {5, 300, 611})
      for (int threads : {1, 2}) {
        const MatrixXd A = MatrixXd::Random(n, 40), V = MatrixXd::Random(n, 3);
        const std::vector<kernels::CrossBlock> blocks{{0, 15, 0, 15, true}, {15, 40, 0, 15, false},
                                                      {21, 29, 21, 29, true}, {3, 4, 0, 1, false}};
        worst = std::max(worst, cross_error(kernels::weighted_cross(A, V, blocks, threads, isa), A, V, blocks));
      }
  check(worst < 1e-11, "weighted_cross: Eigen's products", worst, 1e-11);
  // through a BLAS (here Eigen's products standing in for dsyrk and dgemm): weight columns of one sign
  // each (>= 0, <= 0), over several blocks of 1024 rows, and a column of both signs (the kernels)
  Blas blas;
  blas.rank_update = [](MatrixXd& g, const Eigen::Ref<const MatrixXd>& b) { g.selfadjointView<Eigen::Lower>().rankUpdate(b.transpose()); };
  blas.cross_update = [](MatrixXd& c, const Eigen::Ref<const MatrixXd>& x, const Eigen::Ref<const MatrixXd>& y) { c.noalias() += x.transpose() * y; };
  worst = 0.0;
  for (Index n : {5, 2500})
    for (bool mixed : {false, true}) {
      const MatrixXd A = MatrixXd::Random(n, 40);
      MatrixXd V = signed_weights(n, mixed);
      const std::vector<kernels::CrossBlock> blocks{{0, 15, 0, 15, true}, {15, 40, 0, 15, false}, {21, 29, 21, 29, true}};
      worst = std::max(worst, cross_error(kernels::weighted_cross(A, V, blocks, 1, blas), A, V, blocks));
    }
  check(worst < 1e-12, "weighted_cross: through a BLAS, Eigen's products", worst, 1e-12);
  // weighted_cross_above(): the products of the weights with the entries at most the row's floor set to
  // 0 (about 70% of them, and a row floor of 0 keeping all but exact zeros), through the kernels (every
  // instruction set, 1 and 2 threads) and a BLAS (weight columns of one sign; a mixed one: the kernels),
  // row counts from under one gathered block to several (the gathered rows fill a block mid-window)
  worst = 0.0;
  double worst_blas = 0.0;
  for (Index n : {5, 611, 2500, 5003})
    for (bool mixed : {false, true}) {
      const MatrixXd A = MatrixXd::Random(n, 40);
      MatrixXd V = signed_weights(n, mixed);
      V(0, 0) = 0.0;
      VectorXd floor = 0.7 * VectorXd::Ones(n);
      floor(n - 1) = 0.0;
      MatrixXd kept = V;
      for (Index i = 0; i < n; ++i)
        for (Index k = 0; k < 3; ++k)
          if (std::abs(V(i, k)) <= floor(i)) kept(i, k) = 0.0;
      const std::vector<kernels::CrossBlock> blocks{{0, 15, 0, 15, true}, {15, 40, 0, 15, false}, {21, 29, 21, 29, true}};
      for (int isa : {0, 1, 2})
        for (int threads : {1, 2})
          worst = std::max(worst, cross_error(kernels::weighted_cross_above(A, V, floor, blocks, threads, Blas(), isa), A, kept, blocks));
      worst_blas = std::max(worst_blas, cross_error(kernels::weighted_cross_above(A, V, floor, blocks, 2, blas), A, kept, blocks));
    }
  check(worst < 1e-11, "weighted_cross_above: the kept entries' products, kernels", worst, 1e-11);
  check(worst_blas < 1e-12, "weighted_cross_above: the kept entries' products, through a BLAS", worst_blas, 1e-12);
}
