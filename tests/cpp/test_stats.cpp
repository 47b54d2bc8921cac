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
    return f.path.partial && f.path.sequence.empty() && no_rank && f.beta[0].cwiseAbs().maxCoeff() == 0.0 &&
           std::abs(f.a0(0, 0) - ybar) < 1e-12 && f.path.objective.size() == 1;
  };
  const MatrixXd big = MatrixXd::Random(20000, pb.p);  // many chunks of rows: the Gram pass polls
  const VectorXd yb = big.col(0) + VectorXd::Random(20000);
  VectorXd wb = VectorXd::Constant(20000, 1.5);
  const MatrixXd ob = MatrixXd::Constant(20000, 1, 0.25);
  const double ybar_big = yb.mean() - 0.25;
  const FitResult gram = fit_path(big, yb, wb, ob, pb.group_of, 5, cost, Family::Gaussian, spent);
  check(gram.path.partial && gram.path.sequence.empty() && std::abs(gram.a0(0, 0) - ybar_big) < 1e-12 &&
        gram.beta[0].cwiseAbs().maxCoeff() == 0.0,
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
