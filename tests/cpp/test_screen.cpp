// The screening copy, its 16-bit and 8-bit levels (linear/screen.hpp) and their kernels
// (linear/screen_kernels.hpp).

// qq columns of nn rows of very different scales, column 11 with an extreme entry, and k normal
// vectors, the first aligned with column 3's rounding error at `top` integer levels (the worst case)
static void screen_data(Problem& pb, Index nn, Index qq, Index k, double top, MatrixXd& A, MatrixXd& M) {
  A.resize(nn, qq);
  M.resize(nn, k);
  for (Index j = 0; j < qq; ++j)
    for (Index i = 0; i < nn; ++i) A(i, j) = pb.N(pb.rng) * std::pow(10.0, static_cast<double>(j % 7) - 3);
  A(5, 11) *= 1e4;
  for (Index c = 0; c < k; ++c)
    for (Index i = 0; i < nn; ++i) M(i, c) = pb.N(pb.rng);
  const double s3 = A.col(3).cwiseAbs().maxCoeff() / top;
  for (Index i = 0; i < nn; ++i) M(i, 0) = s3 * std::nearbyint(A(i, 3) / s3) - A(i, 3);
}

// 8. the 16-bit screening copy: every product within its bound, for 1, 5, 13 and 20 columns (one-column,
//    8-wide and 16-wide kernels), with the vector and the plain kernels, rows and columns not multiples
//    of the padding, columns of very different scales, one column with an extreme entry, and a vector
//    aligned with a column's rounding error (the worst case)
static void test_screening_copy(Problem& pb) {
  const Index nn = 203, qq = 37;
  MatrixXd A, M;
  screen_data(pb, nn, qq, 20, 32767.0, A, M);
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

// 8b. the coarse (8-bit) level: every product within its bound for columns of very different scales,
//     one column with an extreme entry, a vector aligned with a column's 8-bit rounding error (the worst
//     case), one with an extreme entry, and the zero vector; the vector kernel's sums equal the plain
//     ones exactly (integer sums), whatever the threads; some ranges of rows as the whole product has
//     them; the bound of about 8-bit size; rows not a multiple of 32
static void test_screening_coarse(Problem& pb) {
  for (Index nn : {203, 9000}) {  // 9000: more rows than the vector kernel's 32-bit sums take
    const Index qq = 37;
    MatrixXd A, M;
    screen_data(pb, nn, qq, 5, 127.0, A, M);
    M(7, 1) = 1e5;
    M.col(2).setZero();
    const MatrixXd want = A.transpose() * M;
    WorkerPool pool1(1), pool2(2);
    const std::vector<std::pair<Index, Index>> all = {{0, qq}};
    VectorXd ref;
    for (bool vec : {false, true}) {
      ScreeningCopy copy(nn, qq, vec, true), plain16(nn, qq, vec);
      check(copy.has_coarse() && !plain16.has_coarse(), "screening copy: the coarse level only when asked", 0.0, 0.0);
      for (Index j = 0; j < qq; ++j) copy.set_column(j, A.col(j));
      double worst = 0.0, loosest = 0.0;
      for (Index c = 0; c < M.cols(); ++c) {
        for (WorkerPool* pool : {&pool1, &pool2}) {
          VectorXd got = VectorXd::Constant(qq, -7.0);
          const ScreeningCopy::CoarseBound b = copy.coarse_rows(M.col(c), all, *pool, got);
          if (c == 3 && !vec && pool == &pool1) ref = got;
          if (c == 3) {
            const bool same = (got.array() == ref.array()).all();
            check(same, "screening copy: the coarse sums equal the plain kernel's on any threads", same ? 0.0 : 1.0, 0.0);
          }
          for (Index j = 0; j < qq; ++j) {
            const double bound = copy.coarse_alpha()(j) * b.norm + copy.coarse_gamma()(j) * b.error;
            const double err = std::abs(got(j) - want(j, c));
            worst = std::max(worst, bound > 0 ? err / bound : (err > 0 ? 2.0 : 0.0));
            if (j != 11 && c >= 3) loosest = std::max(loosest, bound / (A.col(j).norm() * M.col(c).norm()));
          }
        }
      }
      check(worst <= 1.0, "screening copy: coarse products within their bound", worst, 1.0);
      check(loosest > 1e-4 && loosest < 0.05, "screening copy: the coarse bound is of 8-bit size", loosest, 0.05);
      // some ranges of rows: those entries as the whole product has them, the others untouched
      VectorXd full = VectorXd::Zero(qq), part = VectorXd::Constant(qq, -7.0);
      copy.coarse_rows(M.col(4), all, pool2, full);
      const std::vector<std::pair<Index, Index>> rows = {{1, 3}, {3, 6}, {13, 14}, {30, 37}};
      copy.coarse_rows(M.col(4), rows, pool2, part);
      bool rows_same = true;
      for (Index j = 0; j < qq; ++j) {
        bool in = false;
        for (const auto& r : rows) in = in || (j >= r.first && j < r.second);
        rows_same = rows_same && part(j) == (in ? full(j) : -7.0);
      }
      check(rows_same, "screening copy: coarse rows as the whole product has them", rows_same ? 0.0 : 1.0, 0.0);
      // made level by level (the 16-bit columns of some groups only, later, in another order): the same
      // products of the columns made, and the coarse ones everywhere
      ScreeningCopy lazy(nn, qq, vec, true);
      for (Index j = 0; j < qq; ++j) lazy.set_coarse_column(j, A.col(j));
      const std::vector<std::pair<Index, Index>> made = {{2, 5}, {13, 14}, {30, 37}};
      for (auto r = made.rbegin(); r != made.rend(); ++r)
        for (Index j = r->first; j < r->second; ++j) lazy.set_fine_column(j, A.col(j));
      VectorXd lc = VectorXd::Zero(qq);
      lazy.coarse_rows(M.col(4), all, pool2, lc);
      MatrixXd lf = MatrixXd::Constant(qq, 1, -7.0), ef = MatrixXd::Constant(qq, 1, -7.0);
      lazy.tmul_rows(M.col(4), made, pool2, lf);
      copy.tmul_rows(M.col(4), made, pool2, ef);
      bool same_levels = (lc.array() == full.array()).all() && (lf.array() == ef.array()).all();
      for (const auto& r : made)
        for (Index j = r.first; j < r.second; ++j) same_levels = same_levels && lazy.eta()(j) == copy.eta()(j);
      check(same_levels, "screening copy: made level by level, the products of one made at once", same_levels ? 0.0 : 1.0, 0.0);
    }
  }
}

