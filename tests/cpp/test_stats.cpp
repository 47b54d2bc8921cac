// Column statistics and their moments (stats.hpp).

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
