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

// The names of each option's values (Names<E> beside each enum): every name reads back to its value
// and the value to its name, names are distinct, and an unknown name is an error.
template <class E>
void check_names(const char* what) {
  std::vector<std::string> seen;
  for (const auto& entry : Names<E>::table) {
    const E value = from_name<E>(entry.second);
    check(value == entry.first && std::string(name_of(value)) == entry.second, what, 0, 0);
    check(std::find(seen.begin(), seen.end(), entry.second) == seen.end(), what, 0, 0);
    seen.push_back(entry.second);
  }
  bool threw = false;
  try {
    from_name<E>("no such value");
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  check(threw, what, threw, 1);
}

// WorkerPool: every item of a loop run once, whatever the chunk, on 1 and 3 threads, across many loops
// in a row (against a count per item); the bodies on the workers are not the calling thread; an
// exception thrown in a chunk reaches the caller after the loop, and the pool runs the next loop.
static void test_worker_pool() {
  for (int threads : {1, 3}) {
    WorkerPool pool(threads);
    bool counts_ok = true;
    std::atomic<int> off_caller(0);
    for (Index n : {0, 1, 7, 1000, 100003}) {
      for (Index chunk : {1, 64, 5000}) {
        std::vector<int> seen(static_cast<size_t>(n), 0);
        pool.run(n, chunk, [&](Index b, Index e) {
          if (!calling_thread()) ++off_caller;
          for (Index i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
        });
        counts_ok = counts_ok && std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; });
      }
    }
    check(counts_ok, "WorkerPool runs every item once", counts_ok, 1);
    if (threads == 1) check(off_caller.load() == 0, "WorkerPool(1) runs on the calling thread", off_caller.load(), 0);
    bool threw = false;
    try {
      pool.run(100, 1, [](Index b, Index e) {
        if (b <= 37 && 37 < e) throw std::runtime_error("item 37");
      });
    } catch (const std::runtime_error&) {
      threw = true;
    }
    check(threw, "WorkerPool rethrows a chunk's exception", threw, 1);
    Index total = 0;
    std::mutex m;
    pool.run(10, 1, [&](Index b, Index e) {
      std::lock_guard<std::mutex> lock(m);
      total += e - b;
    });
    check(total == 10, "WorkerPool runs the loop after an exception", static_cast<double>(total), 10);
  }
}

static void test_option_names() {
  check_names<Method>("names of Method");
  check_names<Criterion>("names of Criterion");
  check_names<FrGain>("names of FrGain");
  check_names<Engine>("names of Engine");
  check_names<Family>("names of Family");
  check_names<PaidUpdate>("names of PaidUpdate");
  check_names<SplitSearch>("names of SplitSearch");
  check(from_name<Criterion>("l2") == Criterion::L2 && std::string(name_of(Criterion::Linf)) == "linf",
        "criterion names as R spells them", 0, 0);
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
