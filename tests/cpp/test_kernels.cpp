// The threaded dense kernels (common/kernels.hpp).

// 9. the dense kernels A'M and Y -= A C agree with Eigen's products for every instruction set the CPU
//    has, for sizes that are not multiples of the vector width and column counts beyond one block; on
//    a WorkerPool of 2 threads (chunks claimed in turn) they give the same sums, bit for bit, as on
//    parallel_ranges() (products large enough to be split)
static void test_dense_kernels() {
  double worst = 0.0;
  WorkerPool pool(2);
  bool same = true;
  for (int isa : {0, 1, 2})
    for (Index m : {3, 301}) {
      const MatrixXd A = MatrixXd::Random(1203, m), M = MatrixXd::Random(1203, 11), C = MatrixXd::Random(m, 11);
      same = same && (kernels::tmul(A, M, pool, isa).array() == kernels::tmul(A, M, 2, isa).array()).all();
      MatrixXd Yp = MatrixXd::Random(1203, 11), Yt = Yp;
      kernels::sub_mul(Yp, A, C, pool, isa);
      kernels::sub_mul(Yt, A, C, 2, isa);
      same = same && (Yp.array() == Yt.array()).all();
    }
  check(same, "dense kernels: the same sums on a WorkerPool", same ? 0.0 : 1.0, 0.0);
  // Y -= A C on some rows alone (ranges that start and end off the 4- and 8-row tiles) gives those rows
  // of the whole product, bit for bit
  bool rows_alone = true;
  for (int isa : {0, 1, 2})
    for (Index k : {1, 4, 6, 11}) {
      const MatrixXd A = MatrixXd::Random(203, 37), C = MatrixXd::Random(37, k), Y0 = MatrixXd::Random(203, k);
      MatrixXd whole = Y0;
      kernels::sub_mul(whole, A, C, 1, isa);
      for (const std::pair<Index, Index>& r : std::vector<std::pair<Index, Index>>{{0, 3}, {5, 13}, {1, 202}, {200, 3}}) {
        MatrixXd part = Y0.middleRows(r.first, r.second);
        kernels::sub_mul(part, A.middleRows(r.first, r.second), C, 1, isa);
        rows_alone = rows_alone && (part.array() == whole.middleRows(r.first, r.second).array()).all();
      }
    }
  check(rows_alone, "dense kernels: rows of Y -= A C alone as in the whole product", rows_alone ? 0.0 : 1.0, 0.0);
  // A'M sums each column of A in tiles of several columns (their width depends on M's columns); a
  // column alone (a tile of one) gets the same sums, bit for bit
  bool tiles = true;
  for (int isa : {0, 1, 2})
    for (Index k = 1; k <= 14; ++k) {
      const MatrixXd A = MatrixXd::Random(203, 19), M = MatrixXd::Random(203, k);
      const MatrixXd all = kernels::tmul(A, M, 1, isa);
      for (Index j = 0; j < A.cols(); ++j)
        tiles = tiles && (kernels::tmul(A.col(j), M, 1, isa).array() == all.row(j).array()).all();
    }
  check(tiles, "dense kernels: a column's sums do not depend on its tile", tiles ? 0.0 : 1.0, 0.0);
  for (int isa : {0, 1, 2})
    for (Index n : {1, 7, 16, 37, 203})
      for (Index m : {1, 3, 50})
        for (Index k : {1, 2, 3, 5, 7, 10, 13, 25})
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
