// The Greedy Miser (miser.hpp).

// Forests may come from files: Forest::validate() accepts a fitted forest, and miser_predict() throws
// on a tampered one (a child out of range, a loop, a column out of range, a wrong tree start).
static void test_tampered_forest(Problem& pb) {
  const MatrixXd& x = pb.x;
  const VectorXd& y = pb.y;
  const std::vector<int>& group_of = pb.group_of;
  const std::vector<double>& cost = pb.cost;
  MiserControl mc;
  mc.n_iter = 3;
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
