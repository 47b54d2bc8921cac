// The Greedy Miser (miser/).

// Forests may come from files: Forest::validate() accepts a fitted forest, and miser_predict() throws
// on a tampered one (a child out of range, a loop, a column out of range, a wrong tree start).
static void test_tampered_forest(Problem& pb) {
  const MatrixXd& x = pb.x;
  const VectorXd& y = pb.y;
  const std::vector<int>& group_of = pb.group_of;
  const std::vector<double>& cost = pb.cost;
  MiserControl mc;
  mc.max_steps = 3;
  mc.depth = 2;
  const MiserFit mf = miser_fit(x, y, VectorXd(), MatrixXd(), group_of, cost, mc);
  Forest f = mf.forest;
  bool threw = false;
  try { f.validate(x.cols()); } catch (const std::invalid_argument&) { threw = true; }
  check(!threw, "Forest::validate accepts a fitted forest", 0, 0);
  for (int what = 0; what < 4; ++what) {
    Forest t = mf.forest;
    size_t k = 0;
    while (t.feature[k] < 0) ++k;  // the first split
    if (what == 0) t.left[k] = 1000;
    if (what == 1) t.right[k] = 0;  // back to the root: a loop
    if (what == 2) t.feature[k] = static_cast<int>(x.cols());
    if (what == 3) t.start.back() += 1;
    threw = false;
    try { miser_predict(x, t, mf.init, 0.1, {3}); } catch (const std::invalid_argument&) { threw = true; }
    check(threw, "miser_predict: a tampered forest throws", what, 1);
  }
}

// max_time spent in the binning (histogram) or the sorting (exact) of x: the poll is called before it
// and before every column (here its interrupt check reports the time spent at its second call, before
// the first column); the fit stops there and is the starting score alone (the weighted mean of y), no
// tree, partial. The same with the clock: max_time = 0 stops it at the first poll.
static void test_miser_time_up(Problem& pb) {
  const MatrixXd& x = pb.x;
  const VectorXd& y = pb.y;
  VectorXd w(x.rows());
  for (Index i = 0; i < w.size(); ++i) w(i) = 0.5 + static_cast<double>(i % 3);
  const double wmean = w.dot(y) / w.sum();
  for (int exact = 0; exact < 2; ++exact) {
    MiserControl mc;
    mc.max_steps = 3;
    mc.depth = 2;
    mc.threads = 1;
    mc.split = exact ? SplitSearch::Exact : SplitSearch::Histogram;
    int calls = 0;
    const InterruptCheck spent_at_second = [&calls] {
      if (++calls == 2) throw TimeUp();
    };
    const MiserFit mf = miser_fit(x, y, w, MatrixXd(), pb.group_of, pb.cost, mc, spent_at_second);
    check(mf.partial && mf.forest.n_trees() == 0 && mf.loss.size() == 1 && calls == 2,
          exact ? "miser_fit: max_time spent sorting x (two polls, no tree, partial)"
                : "miser_fit: max_time spent binning x (two polls, no tree, partial)",
          static_cast<double>(calls), 2);
    check(std::abs(mf.init(0) - wmean) < 1e-12 && mf.paid_by.size() == pb.cost.size(),
          "miser_fit: the starting score alone when max_time was spent before the first tree", mf.init(0), wmean);
    mc.max_time = 0.0;
    calls = 0;
    const MiserFit clock = miser_fit(x, y, w, MatrixXd(), pb.group_of, pb.cost, mc, [&calls] { ++calls; });
    check(clock.partial && clock.forest.n_trees() == 0 && calls == 1 && clock.loss == mf.loss,
          "miser_fit: max_time = 0 stops at the first poll, before x is read", static_cast<double>(calls), 1);
  }
}

// max_time spent within an iteration: the trees poll before the tree and before every level, and the
// iteration in progress is abandoned. A multinomial fit (3 classes, one tree each per iteration) of
// depth 1 polls twice per tree; here the time runs out at the third poll of iteration 1, within class
// 1's tree, after class 0's tree was appended. The fit keeps iteration 0 alone: the forest, the paid
// groups and the losses of a fit of one iteration.
static void test_miser_time_up_in_iteration(Problem& pb) {
  const MatrixXd& x = pb.x;
  const Index n = x.rows();
  MatrixXd Y = MatrixXd::Zero(n, 3);
  for (Index i = 0; i < n; ++i) Y(i, x(i, 0) < -0.4 ? 0 : (x(i, 1) < 0.3 ? 1 : 2)) = 1.0;
  MiserControl mc;
  mc.family = Family::Multinomial;
  mc.max_steps = 4;
  mc.depth = 1;
  mc.threads = 1;
  MiserControl one = mc;
  one.max_steps = 1;
  const MiserFit ref = miser_fit(x, Y, VectorXd(), MatrixXd(), pb.group_of, pb.cost, one);
  bool armed = false;
  int polls = 0;
  const InterruptCheck spent_in_iteration_1 = [&] {
    if (armed && ++polls == 3) throw TimeUp();
  };
  const ProgressCallback arm = [&](Index t, Index) { armed = t == 1; };
  const MiserFit mf = miser_fit(x, Y, VectorXd(), MatrixXd(), pb.group_of, pb.cost, mc, spent_in_iteration_1, arm);
  check(mf.partial && polls == 3 && mf.forest.n_trees() == 3 && mf.loss.size() == 2,
        "miser_fit: max_time spent within an iteration keeps the iterations before it", static_cast<double>(mf.forest.n_trees()), 3);
  const auto same_values = [](const std::vector<double>& a, const std::vector<double>& b) {  // NaN: a leaf's threshold
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](double u, double v) { return u == v || (std::isnan(u) && std::isnan(v)); });
  };
  const bool same = mf.forest.start == ref.forest.start && mf.forest.feature == ref.forest.feature &&
                    same_values(mf.forest.threshold, ref.forest.threshold) && same_values(mf.forest.value, ref.forest.value) &&
                    mf.forest.left == ref.forest.left && mf.forest.right == ref.forest.right &&
                    mf.paid_by == ref.paid_by && same_values(mf.loss, ref.loss);
  check(same, "miser_fit: the iterations kept are those of a fit of one iteration", 0, 0);
}

// The record of what is paid (MiserFit::paid_by, paid_cost) with measurements shared by groups: read
// from the forest's nodes in order (the first split on each group), the groups' costs are the cost of
// their measurements not needed by a group paid before, computed here by a plain loop over sets; a
// group never split on costs 0; the path's charges add up to the cost of every measurement used.
static void test_miser_paid_record(Problem& pb) {
  // 5 groups over 4 measurements: groups 1 and 3 share measurement 1, groups 2 and 4 measurement 3
  const std::vector<std::vector<Index>> needs{{0}, {1}, {2, 3}, {1}, {3}};
  const std::vector<double> mcost{1.0, 4.0, 2.0, 3.0};
  const Measurements meas(needs, mcost);
  MiserControl mc;
  mc.max_steps = 12;
  mc.depth = 2;
  mc.cost_penalty = 0.001;
  const MiserFit mf = miser_fit(pb.x, pb.Y, VectorXd(), MatrixXd(), pb.group_of, meas, mc);
  std::vector<int> order;
  for (int j : mf.forest.feature)
    if (j >= 0 && std::find(order.begin(), order.end(), pb.group_of[j]) == order.end()) order.push_back(pb.group_of[j]);
  std::vector<bool> paid(mcost.size(), false);
  bool same = true;
  double total = 0.0;
  for (int g : order) {
    double c = 0.0;
    for (Index m : needs[g])
      if (!paid[m]) {
        c += mcost[m];
        paid[m] = true;
      }
    total += c;
    same = same && mf.paid_by[g] >= 0 && std::abs(mf.paid_cost[g] - c) < 1e-15;
  }
  for (int g = 0; g < 5; ++g)
    if (std::find(order.begin(), order.end(), g) == order.end()) same = same && mf.paid_by[g] < 0 && mf.paid_cost[g] == 0.0;
  double recorded = 0.0;
  for (double c : mf.paid_cost) recorded += c;
  check(order.size() >= 2 && same, "miser: the paid record against a plain loop over measurement sets",
        static_cast<double>(order.size()), 2);
  check(std::abs(recorded - total) < 1e-12, "miser: the paid costs add up to the measurements used", recorded, total);
}

// Newton trees (MiserControl::newton), binomial, one stump from the best constant: its split has the
// largest second-order gain 1/2 (G_L^2 / H_L + G_R^2 / H_R - G^2 / H) of every column and midpoint
// (G sums of r = y - p, H of p (1 - p), by brute force), and its leaves are G / H of their sides.
static void test_miser_newton(Problem& pb) {
  const MatrixXd& x = pb.x;
  const Index n = x.rows();
  VectorXd y01(n);
  std::vector<double> sorted(pb.y.data(), pb.y.data() + n);
  std::nth_element(sorted.begin(), sorted.begin() + n / 3, sorted.end());
  for (Index i = 0; i < n; ++i) y01(i) = pb.y(i) > sorted[static_cast<size_t>(n / 3)] ? 1.0 : 0.0;
  MiserControl mc;
  mc.family = Family::Binomial;
  mc.split = SplitSearch::Exact;
  mc.newton = true;
  mc.max_steps = 1;
  mc.depth = 1;
  const MiserFit mf = miser_fit(x, MatrixXd(y01), VectorXd(), MatrixXd(), pb.group_of, pb.cost, mc);
  const double p0 = 1 / (1 + std::exp(-mf.init[0]));
  const double h = p0 * (1 - p0);
  double best = -1;
  for (Index j = 0; j < x.cols(); ++j) {
    std::vector<double> v(x.col(j).data(), x.col(j).data() + n);
    std::sort(v.begin(), v.end());
    for (Index k = 0; k + 1 < n; ++k) {
      if (!(v[k] < v[k + 1])) continue;
      const double t = v[k] + 0.5 * (v[k + 1] - v[k]);
      double gl = 0, hl = 0, g = 0;
      for (Index i = 0; i < n; ++i) {
        g += y01(i) - p0;
        if (x(i, j) <= t) {
          gl += y01(i) - p0;
          hl += h;
        }
      }
      const double hr = n * h - hl;
      if (hl <= 1e-3 || hr <= 1e-3) continue;
      best = std::max(best, 0.5 * (gl * gl / hl + (g - gl) * (g - gl) / hr - g * g / (n * h)));
    }
  }
  const int j = mf.forest.feature[0];
  const double t = mf.forest.threshold[0];
  double gl = 0, hl = 0, gr = 0, hr = 0;
  for (Index i = 0; i < n; ++i) {
    if (x(i, j) <= t) {
      gl += y01(i) - p0;
      hl += h;
    } else {
      gr += y01(i) - p0;
      hr += h;
    }
  }
  const double g = gl + gr, chosen = 0.5 * (gl * gl / hl + gr * gr / hr - g * g / (hl + hr));
  check(chosen >= best * (1 - 1e-10), "Newton stump: the split of largest second-order gain", chosen, best);
  const double dv = std::abs(mf.forest.value[static_cast<size_t>(mf.forest.left[0])] - gl / hl) +
                    std::abs(mf.forest.value[static_cast<size_t>(mf.forest.right[0])] - gr / hr);
  check(dv < 1e-12, "Newton stump: leaves G / H", dv, 0);
}
