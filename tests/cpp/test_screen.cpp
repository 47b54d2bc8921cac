// The 16-bit screening copy (linear/screen.hpp).

// 8. the 16-bit screening copy: every product within its bound, for 1, 5, 13 and 20 columns (one-column,
//    8-wide and 16-wide kernels), with the vector and the plain kernels, rows and columns not multiples
//    of the padding, columns of very different scales, one column with an extreme entry, and a vector
//    aligned with a column's rounding error (the worst case)
static void test_screening_copy(Problem& pb) {
  std::mt19937& rng = pb.rng;
  std::normal_distribution<double>& N = pb.N;
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
      WorkerPool pool(2);  // the same sums on a pool's threads
      const bool same = (copy.tmul(M.leftCols(k), pool).array() == copy.tmul(M.leftCols(k), 1).array()).all();
      check(same, "screening copy: the same sums on a WorkerPool", same ? 0.0 : 1.0, 0.0);
      // some ranges of rows (not on the 4-column units): those rows as the whole product has them, the
      // other rows of out untouched
      const MatrixXd full = copy.tmul(M.leftCols(k), 1);
      MatrixXd part = MatrixXd::Constant(qq, k, -7.0);
      const std::vector<std::pair<Index, Index>> rows = {{1, 3}, {3, 6}, {13, 14}, {30, 37}};
      copy.tmul_rows(M.leftCols(k), rows, pool, part);
      bool rows_same = true;
      for (Index j = 0; j < qq; ++j) {
        bool in = false;
        for (const auto& r : rows) in = in || (j >= r.first && j < r.second);
        for (Index c = 0; c < k; ++c) rows_same = rows_same && part(j, c) == (in ? full(j, c) : -7.0);
      }
      check(rows_same, "screening copy: rows of the product as the whole product has them", rows_same ? 0.0 : 1.0, 0.0);
    }
  }
}
