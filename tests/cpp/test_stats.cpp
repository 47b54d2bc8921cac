// Column statistics and their moments (common/stats.hpp).

// Moments may come from files: wrong sizes throw, never index out of bounds.
static void test_moment_sizes(Problem& pb) {
  const MatrixXd& x = pb.x;
  const VectorXd& y = pb.y;
  Moments m = centred_moments(x, y, VectorXd());
  Moments bad = m;
  bad.xx = bad.xx.topLeftCorner(3, 3).eval();
  bool threw = false;
  try { standardize(bad); } catch (const std::invalid_argument&) { threw = true; }
  check(threw, "standardize: a 3 x 3 xx with 12 means throws", 0, 1);
  bad = m;
  bad.xy = bad.xy.topRows(2).eval();
  threw = false;
  try { merge_moments(m, bad); } catch (const std::invalid_argument&) { threw = true; }
  check(threw, "merge_moments: a short xy throws", 0, 1);
}

// The checks' sweep over x (scan_columns()) and a fit whose max_time runs out before its statistics
// are complete. The sweep: each column's largest magnitude (against a plain loop), the first column
// with NaN or Inf (the sweep stops there), one poll per 2^20 values read while columns remain; on a
// clock with no time left, only `spent`. Time spent in the Gram engine's pass over x, in the
// sample-space engine's, or before the fit (null_fit()): the null model of y, weights and offset (the
// weighted mean of y - offset, every coefficient 0), the path empty and marked partial.
static void test_time_before_stats(Problem& pb) {
  const Index n = pb.n;
  MatrixXd x = pb.x;
  x(7, 2) = -1e300;
  const ColumnScan s = scan_columns(x);
  double worst = 0.0;
  for (Index j = 0; j < x.cols(); ++j) {
    double m = 0.0;
    for (Index i = 0; i < n; ++i) m = std::max(m, std::abs(x(i, j)));
    worst = std::max(worst, std::abs(s.max_abs(j) - m));
  }
  check(s.nonfinite == -1 && !s.spent && worst == 0.0, "scan_columns: the largest magnitude of each column", worst, 0);
  x(3, 9) = std::numeric_limits<double>::quiet_NaN();
  x(5, 10) = std::numeric_limits<double>::infinity();
  check(scan_columns(x).nonfinite == 9, "scan_columns: the first column with NaN or Inf",
        static_cast<double>(scan_columns(x).nonfinite), 9);
  const MatrixXd tall = MatrixXd::Ones(Index(1) << 18, 9);  // 2^20 values every 4 columns
  int polls = 0;
  scan_columns(tall, [&polls] { ++polls; });
  check(polls == 2, "scan_columns: one poll per 2^20 values while columns remain", polls, 2);
  check(scan_columns(tall, 0.0).spent && !scan_columns(tall, 1e9).spent && scan_columns(x, 0.0).nonfinite == 9,
        "scan_columns: the clock stops a sweep of more than 2^20 values", 0, 0);

  VectorXd wt;
  MatrixXd off;
  pb.weights_offsets(wt, off);
  const double ybar = (wt.array() * (pb.y - off.col(0)).array()).sum() / wt.sum();
  Control spent;
  spent.max_time = 0.0;
  spent.threads = 1;
  const Measurements cost(pb.cost);
  const auto is_null = [&](const FitResult& f) {
    bool no_rank = true;
    for (Index r : f.rank) no_rank = no_rank && r == 0;
    return f.path.partial && f.path.sequence.empty() && no_rank && f.beta[0].nonZeros() == 0 &&
           std::abs(f.a0(0, 0) - ybar) < 1e-12 && f.path.objective.size() == 1;
  };
  const MatrixXd big = MatrixXd::Random(20000, pb.p);  // many chunks of rows: the Gram pass polls
  const VectorXd yb = big.col(0) + VectorXd::Random(20000);
  VectorXd wb = VectorXd::Constant(20000, 1.5);
  const MatrixXd ob = MatrixXd::Constant(20000, 1, 0.25);
  const double ybar_big = yb.mean() - 0.25;
  const FitResult gram = fit_path(big, yb, wb, ob, pb.group_of, 5, cost, Family::Gaussian, spent);
  check(gram.path.partial && gram.path.sequence.empty() && std::abs(gram.a0(0, 0) - ybar_big) < 1e-12 &&
        gram.beta[0].nonZeros() == 0,
        "fit_path: max_time spent in the Gram engine's pass gives the null model", gram.a0(0, 0), ybar_big);
  Control sample = spent;
  sample.engine = Engine::Sample;
  const FitResult smp = fit_path(big, yb, wb, ob, pb.group_of, 5, cost, Family::Gaussian, sample);
  check(smp.path.partial && smp.path.sequence.empty() && std::abs(smp.a0(0, 0) - ybar_big) < 1e-12 &&
        std::abs(smp.null_risk - gram.null_risk) < 1e-12,
        "fit_path: max_time spent in the sample-space engine's pass gives the null model", smp.null_risk,
        gram.null_risk);
  const FitResult before = null_fit(pb.p, pb.Y, wt, off, pb.group_of, 5, cost, Family::Gaussian, Control());
  const VectorXd r = pb.y - off.col(0) - VectorXd::Constant(n, ybar);
  const double null_risk = 0.5 * (wt.array() * r.array().square()).sum() / wt.sum();
  check(is_null(before) && std::abs(before.null_risk - null_risk) < 1e-12,
        "null_fit: the weighted null model of y - offset, marked partial", before.null_risk, null_risk);
  const MatrixXd yc = pb.Y - off;
  const FitResult chunks = null_fit(centred_moments(MatrixXd(n, 0), yc, wt), pb.group_of, 5, cost, Control());
  check(is_null(chunks) && std::abs(chunks.null_risk - null_risk) < 1e-12,
        "null_fit: the null model from the moments of y alone (a pass over chunks cut short)", chunks.null_risk,
        null_risk);
}

// What the two pass-check tests below share: the response y = x_1 + 1, the weights 0.5, 1.5, 2.5 in
// turn, the sweep the passes' checks must equal (scan_columns(x)), and the settings they run in: one
// thread or two, unweighted (weights empty) or weighted.
struct PassCase {
  VectorXd y, w;
  ColumnScan ref;
  explicit PassCase(const MatrixXd& x) : y(x.col(0) + VectorXd::Ones(x.rows())), w(x.rows()), ref(scan_columns(x)) {
    for (Index i = 0; i < x.rows(); ++i) w(i) = 0.5 + static_cast<double>(i % 3);
  }
  // body(threads, the weights given to the pass, weighted) for every setting
  template <class Body>
  void each_setting(Body body) const {
    for (int threads = 1; threads <= 2; ++threads)
      for (int weighted = 0; weighted <= 1; ++weighted) body(threads, weighted ? w : VectorXd(), weighted != 0);
  }
};

// The checks read by the Gram engine's pass over x (centred_moments() with a ColumnScan): each column's
// largest magnitude equal to the sweep's (scan_columns()), the moments unchanged by the checks, and NA,
// NaN or Inf found in any block of rows (the first, copied and centred; one in the middle, read in place;
// the last, of fewer rows), weighted or not, on one thread or two; a fit with check_values then stops, its
// path empty, as it does for a column beyond plain_max or below plain_min.
static void test_pass_checks(Problem&) {
  std::mt19937 rng(126);
  std::normal_distribution<double> N(0.0, 1.0);
  const Index n = 44000, p = 100;  // chunk_rows(): 10485 rows; two threads take 22000 rows each
  MatrixXd x(n, p);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < p; ++j) x(i, j) = N(rng) + 0.01 * j;
  x(4321, 17) = -1e200;  // finite values whose sum overflows: read value by value, not refused
  x(4322, 17) = -1e308;
  x(4323, 17) = -1e308;
  const PassCase c(x);
  const VectorXd &y = c.y, &w = c.w;
  c.each_setting([&](int threads, const VectorXd& wt, bool) {
    ColumnScan s;
    centred_moments(x, y, wt, InterruptCheck(), RankUpdate(), threads, &s);
    check(s.nonfinite == -1 && s.max_abs == c.ref.max_abs, "centred_moments: max_abs of the pass equals the sweep's",
          (s.max_abs - c.ref.max_abs).cwiseAbs().maxCoeff(), 0);
    for (const Index row : {Index(3), Index(15000), n - 1}) {
      for (const double bad : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
        MatrixXd xb = x;
        xb(row, p - 1) = bad;
        ColumnScan sb;
        centred_moments(xb, y, wt, InterruptCheck(), RankUpdate(), threads, &sb);
        check(sb.nonfinite == p - 1, "centred_moments: NA or Inf in any block of rows stops the pass",
              static_cast<double>(sb.nonfinite), static_cast<double>(p - 1));
      }
    }
  });
  // the checks leave the moments as they were
  MatrixXd xs = x;
  xs.col(17).setConstant(1.0);
  ColumnScan s;
  const Moments with = centred_moments(xs, y, w.head(0), InterruptCheck(), RankUpdate(), 1, &s);
  const Moments without = centred_moments(xs, y, w.head(0));
  check(with.xx == without.xx && with.xy == without.xy && with.mean == without.mean,
        "centred_moments: the checks leave the moments unchanged", 0, 0);
  // a fit that checks the values stops at NA, NaN or Inf and at an extreme column; otherwise it fits
  std::vector<int> group_of(static_cast<size_t>(p));
  for (Index j = 0; j < p; ++j) group_of[static_cast<size_t>(j)] = static_cast<int>(j / 10);
  const int n_groups = static_cast<int>(p / 10);
  const Measurements cost(std::vector<double>(static_cast<size_t>(n_groups), 1.0));
  Control ctl;
  ctl.check_values = true;
  ctl.plain_min = std::ldexp(1.0, -400);
  ctl.plain_max = std::ldexp(1.0, 400);
  ctl.max_steps = 3;
  MatrixXd xf = xs;
  const FitResult plain = fit_path(xf, y, VectorXd(), MatrixXd(), group_of, n_groups, cost, Family::Gaussian, ctl);
  check(!plain.stopped && plain.path.sequence.size() == 3 && plain.scan.max_abs.size() == p,
        "fit_path: check_values fits plain data and returns max_abs", static_cast<double>(plain.path.sequence.size()), 3);
  xf(n - 1, 4) = std::numeric_limits<double>::infinity();
  const FitResult inf = fit_path(xf, y, VectorXd(), MatrixXd(), group_of, n_groups, cost, Family::Gaussian, ctl);
  check(inf.stopped && inf.scan.nonfinite == 4 && inf.path.sequence.empty(), "fit_path: Inf in the last row stops the fit",
        static_cast<double>(inf.scan.nonfinite), 4);
  xf = xs;
  xf.col(9) *= 1e-200;
  const FitResult tiny = fit_path(xf, y, VectorXd(), MatrixXd(), group_of, n_groups, cost, Family::Gaussian, ctl);
  check(tiny.stopped && tiny.scan.nonfinite == -1 && tiny.scan.max_abs(9) < ctl.plain_min,
        "fit_path: a column below plain_min stops the fit", tiny.scan.max_abs(9), 0);
}

// The checks read by the sample-space engine's pass over the groups (block_stats() with a ColumnScan):
// each column's largest magnitude equal to the sweep's (scan_columns()), the column means equal to x'w / W
// (within rounding) and the blocks those of the pass without the checks (within rounding); NA, NaN or Inf found in any group (one of
// more columns than rows included), weighted or not, on one thread or two; a fit of that engine with
// check_values then stops, its path empty, as it does for a column below plain_min.
static void test_block_pass_checks(Problem&) {
  std::mt19937 rng(142);
  std::normal_distribution<double> N(0.0, 1.0);
  const Index n = 40, p = 110;  // 10 groups of 5, then one of 60 columns (more than the rows)
  MatrixXd x(n, p);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < p; ++j) x(i, j) = N(rng) * (1.0 + 0.1 * j) + 0.5 * j;
  std::vector<int> group_of(static_cast<size_t>(p));
  for (Index j = 0; j < p; ++j) group_of[static_cast<size_t>(j)] = static_cast<int>(std::min<Index>(j / 5, 10));
  const GroupLayout lay = make_layout(group_of, 11);
  const PassCase c(x);
  const VectorXd& y = c.y;
  const ColumnScan& ref = c.ref;
  c.each_setting([&](int threads, const VectorXd& wt, bool weighted) {
    const VectorXd ww = weighted ? c.w : VectorXd::Ones(n);
    const DenseDesign dx(x);
    ColumnScan s;
    const BlockStats with = block_stats(dx, y, wt, lay, threads, InterruptCheck(), &s);
    const BlockStats without = block_stats(dx, y, wt, lay, threads);
    check(s.nonfinite == -1 && s.max_abs == ref.max_abs, "block_stats: max_abs of the pass equals the sweep's",
          (s.max_abs - ref.max_abs).cwiseAbs().maxCoeff(), 0);
    const VectorXd mean = x.transpose() * ww / ww.sum();
    const double mean_err = ((with.st.mean - mean).array() / mean.array().abs().max(1.0)).abs().maxCoeff();
    check(mean_err < 1e-14, "block_stats: the column means from the groups' copies equal x'w / W", mean_err, 0);
    // without the checks the means come from x'w first: the same statistics within rounding
    double diff = ((with.st.scale - without.st.scale).array() / without.st.scale.array()).abs().maxCoeff();
    for (Index g = 0; g < lay.size(); ++g) {
      for (const auto* m : {&with.blocks, &with.rows}) {
        const MatrixXd& a = (*m)[static_cast<size_t>(g)];
        const MatrixXd& b = (m == &with.blocks ? without.blocks : without.rows)[static_cast<size_t>(g)];
        if (a.size() != b.size()) diff = 1.0;
        else if (a.size() > 0) diff = std::max(diff, (a - b).cwiseAbs().maxCoeff());
      }
    }
    check(diff < 1e-12 && with.rows[10].cols() == 60, "block_stats: the checks leave the statistics unchanged (to rounding)",
          diff, 0);
    for (const Index col : {Index(0), Index(23), p - 1}) {
      for (const double bad : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
        MatrixXd xb = x;
        xb(col == 23 ? n / 2 : n - 1, col) = bad;
        ColumnScan sb;
        block_stats(DenseDesign(xb), y, wt, lay, threads, InterruptCheck(), &sb);
        check(sb.nonfinite == col, "block_stats: NA or Inf in any group stops the pass",
              static_cast<double>(sb.nonfinite), static_cast<double>(col));
      }
    }
  });
  // a fit of the sample-space engine that checks the values stops at Inf and at an extreme column
  const Measurements cost(std::vector<double>(11, 1.0));
  Control ctl;
  ctl.engine = Engine::Sample;
  ctl.check_values = true;
  ctl.plain_min = std::ldexp(1.0, -400);
  ctl.plain_max = std::ldexp(1.0, 400);
  ctl.max_steps = 3;
  MatrixXd xf = x;
  const FitResult plain = fit_path(xf, y, VectorXd(), MatrixXd(), group_of, 11, cost, Family::Gaussian, ctl);
  check(!plain.stopped && plain.path.sequence.size() == 3 && plain.scan.max_abs == ref.max_abs,
        "fit_path (sample space): check_values fits plain data and returns max_abs",
        static_cast<double>(plain.path.sequence.size()), 3);
  xf(n - 1, 4) = std::numeric_limits<double>::infinity();
  const FitResult inf = fit_path(xf, y, VectorXd(), MatrixXd(), group_of, 11, cost, Family::Gaussian, ctl);
  check(inf.stopped && inf.scan.nonfinite == 4 && inf.path.sequence.empty(),
        "fit_path (sample space): Inf in the last row stops the fit", static_cast<double>(inf.scan.nonfinite), 4);
  xf = x;
  xf.col(9) *= 1e-200;
  const FitResult tiny = fit_path(xf, y, VectorXd(), MatrixXd(), group_of, 11, cost, Family::Gaussian, ctl);
  check(tiny.stopped && tiny.scan.nonfinite == -1 && tiny.scan.max_abs(9) < ctl.plain_min,
        "fit_path (sample space): a column below plain_min stops the fit", tiny.scan.max_abs(9), 0);
}

// The column sweep of the tall path's blocks (sweep::columns(), common/sweep.hpp): each column's sum and
// products with the responses against sums in long double, its largest magnitude exactly; the AVX2 and
// plain forms give the same bits (the fixed order), on blocks whose rows are not a multiple of 8 and
// whose columns start anywhere in memory; products are added to what xy holds.
static void test_column_sweep(Problem&) {
  std::mt19937 rng(141);
  std::normal_distribution<double> N(0.0, 1.0);
  const Index ld = 1801, p = 37;
  MatrixXd x(ld, p), y(ld, 3);
  for (Index j = 0; j < p; ++j)
    for (Index i = 0; i < ld; ++i) x(i, j) = N(rng) * std::pow(10.0, static_cast<double>(j % 7) - 3) + 0.1 * j;
  for (Index i = 0; i < ld; ++i)
    for (Index k = 0; k < 3; ++k) y(i, k) = N(rng);
  double worst_sum = 0, worst_dot = 0, worst_max = 0;
  bool same = true;
  int cases = 0;
  for (const Index rows : {Index(0), Index(1), Index(7), Index(8), Index(9), Index(64), Index(1747)}) {
    for (const Index start : {Index(0), Index(3), Index(53)}) {
      for (const Index P : {Index(0), Index(1), Index(3)}) {
        VectorXd sum[2], mx[2];
        MatrixXd xy[2];
        for (int isa = 0; isa <= 1; ++isa) {
          sum[isa] = VectorXd::Constant(p, -7.0);
          mx[isa] = VectorXd::Constant(p, -7.0);
          xy[isa] = MatrixXd::Constant(p + 2, 3, 0.25);  // leading dimension p + 2: rows p and p + 1 untouched
          sweep::columns(x.data() + start, ld, rows, 2, p, y.data() + start, ld, P, sum[isa].data(), xy[isa].data(),
                         xy[isa].rows(), mx[isa].data(), isa);
        }
        same = same && sum[0].tail(p - 2) == sum[1].tail(p - 2) && mx[0].tail(p - 2) == mx[1].tail(p - 2) &&
               xy[0] == xy[1];
        same = same && sum[0](0) == -7.0 && sum[0](1) == -7.0 && (xy[0].bottomRows(2).array() == 0.25).all();
        for (Index j = 2; j < p; ++j) {
          long double s = 0, a = 0;
          double m = 0;
          for (Index i = start; i < start + rows; ++i) {
            s += x(i, j);
            a += std::abs(x(i, j));
            m = std::max(m, std::abs(x(i, j)));
          }
          worst_sum = std::max(worst_sum, static_cast<double>(std::abs(sum[1](j) - s) / (a + 1e-300)));
          worst_max = std::max(worst_max, std::abs(mx[1](j) - m));
          for (Index k = 0; k < 3; ++k) {
            long double d = 0, ad = 0;
            for (Index i = start; i < start + rows && k < P; ++i) {
              d += static_cast<long double>(x(i, j)) * y(i, k);
              ad += std::abs(static_cast<long double>(x(i, j)) * y(i, k));
            }
            worst_dot = std::max(worst_dot, static_cast<double>(std::abs((xy[1](j, k) - 0.25L) - d) / (ad + 0.25L)));
          }
        }
        ++cases;
      }
    }
  }
  check(cases == 63 && same, "sweep::columns: the AVX2 and plain forms give the same bits, other entries untouched",
        same, 1);
  check(worst_sum < 1e-14, "sweep::columns: column sums (relative to the sum of magnitudes)", worst_sum, 0);
  check(worst_dot < 1e-14, "sweep::columns: products with the responses, added to xy", worst_dot, 0);
  check(worst_max == 0, "sweep::columns: the largest magnitude of each column", worst_max, 0);
}
