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
