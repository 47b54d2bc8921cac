// Anytime prediction of partially computed rows (greedy/predict.hpp).

// prefix_predict(): each row's prediction at its step equals the direct sum over the columns of
// the prefix it has, for dense and sparse x, one and two responses, shared and per-row steps,
// across several row blocks (some uniform, some not).
static void test_prefix_predict() {
  const Index nr = 5000, pc = 7, S = 5, P = 2;  // steps 0..4
  std::mt19937 r2(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const std::vector<int> cstep{1, 1, 2, 3, 3, 4, 6};  // column 6 is never read (step > K)
  MatrixXd xp(nr, pc), a0(P, S), coef(pc, S * P);
  for (Index i = 0; i < nr; ++i)
    for (Index j = 0; j < pc; ++j) xp(i, j) = U(r2);
  for (Index c = 0; c < P; ++c)
    for (Index s = 0; s < S; ++s) {
      a0(c, s) = U(r2);
      for (Index j = 0; j < pc; ++j) coef(j, c * S + s) = cstep[static_cast<size_t>(j)] <= s ? U(r2) : 0.0;
    }
  for (Index i = 2048; i < nr; i += 3) xp(i, 1 + i % 6) = std::nan("");  // holes after the first block
  const StepCoefficients cf(a0, coef);
  Eigen::MatrixXi shared(1, 3), per_row(nr, 1);
  shared << 4, 0, 2;
  for (Index i = 0; i < nr; ++i) per_row(i, 0) = static_cast<int>(i % S);
  for (Index i = 0; i < nr; i += 5) xp(i, 0) = 0.0;
  Eigen::SparseMatrix<double> xs = xp.sparseView(0.0, 0.0);
  for (Index i = 0; i < nr; i += 5) xs.coeffRef(i, 0) = 0.0;  // an explicit zero is a value, not a hole
  xs.makeCompressed();
  const SparseMap xsm(xs.rows(), xs.cols(), xs.nonZeros(), xs.outerIndexPtr(), xs.innerIndexPtr(), xs.valuePtr());
  for (const Eigen::MatrixXi* req : {&shared, &per_row}) {
    const PrefixPrediction dense = prefix_predict(xp, cstep, *req, cf);
    const PrefixPrediction sparse = prefix_predict(xsm, cstep, *req, cf);
    double worst = 0.0, worst_sparse = 0.0;
    bool steps_ok = true;
    for (Index i = 0; i < nr; ++i) {
      int first = S;  // first step whose columns the row lacks
      for (Index j = 0; j < pc; ++j)
        if (std::isnan(xp(i, j)) && cstep[static_cast<size_t>(j)] < S) first = std::min(first, cstep[static_cast<size_t>(j)]);
      for (Index b = 0; b < req->cols(); ++b) {
        const int want = std::min((*req)(req->rows() == 1 ? 0 : i, b), first - 1);
        steps_ok = steps_ok && dense.step(i, b) == want && sparse.step(i, b) == want;
        for (Index c = 0; c < P; ++c) {
          double eta = a0(c, want);
          for (Index j = 0; j < pc; ++j)
            if (cstep[static_cast<size_t>(j)] <= want) eta += xp(i, j) * coef(j, c * S + want);
          worst = std::max(worst, std::abs(dense.link(i, b * P + c) - eta));
          worst_sparse = std::max(worst_sparse, std::abs(sparse.link(i, b * P + c) - eta));
        }
      }
    }
    check(steps_ok, "prefix_predict: the step each row reaches", 0, 0);
    check(worst < 1e-13, "prefix_predict (dense): the direct sum over the prefix", worst, 0);
    check(worst_sparse < 1e-13, "prefix_predict (sparse): the direct sum over the prefix", worst_sparse, 0);
  }
  // count_nonfinite(): the values that are not finite in the listed columns, dense and sparse (a stored
  // Inf counts; an unstored entry is 0)
  Index want_nan = 0;
  for (Index i = 0; i < nr; ++i) want_nan += std::isnan(xp(i, 2)) + std::isnan(xp(i, 6));
  MatrixXd xinf = xp;
  xinf(3, 6) = std::numeric_limits<double>::infinity();
  const std::vector<Index> cols{2, 6};
  check(count_nonfinite(xp, cols) == want_nan && want_nan > 0, "count_nonfinite (dense)",
        static_cast<double>(count_nonfinite(xp, cols)), static_cast<double>(want_nan));
  check(count_nonfinite(xinf, cols) == want_nan + 1, "count_nonfinite (dense): an Inf counts",
        static_cast<double>(count_nonfinite(xinf, cols)), static_cast<double>(want_nan + 1));
  check(count_nonfinite(xsm, cols) == want_nan, "count_nonfinite (sparse)", static_cast<double>(count_nonfinite(xsm, cols)),
        static_cast<double>(want_nan));
  check(count_nonfinite(xp, std::vector<Index>{0}) == 0, "count_nonfinite: a complete column", 0, 0);
  // coefficients of fewer columns than x has (a fit edited or damaged in a file): the kernel would read
  // past the coefficient table; it throws instead
  const StepCoefficients short_cf(a0, coef.topRows(pc - 2));
  bool threw = false;
  try {
    prefix_predict(xp, cstep, shared, short_cf);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  check(threw, "prefix_predict: coef with fewer rows than x has columns throws", threw, 1);
}
