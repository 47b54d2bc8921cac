// Measurements shared by groups (common/measurements.hpp) on the greedy path (greedy/engine.hpp).

// 10. measurements shared by groups (common/measurements.hpp): the marginal cost paid at each step is the cost
//    of the group's measurements not paid before; a group of zero marginal cost with a gain is taken
//    before any group that costs; a vector of group costs is the same as each group its own measurement
static void test_shared_measurements(Problem& pb) {
  const MatrixXd& x = pb.x;
  const std::vector<int>& group_of = pb.group_of;
  const std::vector<double>& cost = pb.cost;
  const MatrixXd& Y = pb.Y;
  const Measurements shared({{0, 1}, {1, 2}, {0, 2}, {3}, {4}}, {1.0, 2.0, 0.5, 1.5, 0.0});
  const Measurements own({{0}, {1}, {2}, {3}, {4}}, cost);
  for (Method m : {Method::OMP, Method::FR, Method::Doubling}) {
    Control ctl;
    ctl.method = m;
    ctl.lambda = 0.01;
    const FitResult a = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, cost, Family::Gaussian, ctl);
    const FitResult b = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, own, Family::Gaussian, ctl);
    check(a.path.sequence == b.path.sequence && a.path.score == b.path.score && a.path.group_cost == b.path.group_cost,
          "one measurement per group: the group-cost path", 0, 0);
    const FitResult c = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, shared, Family::Gaussian, ctl);
    Control smp = ctl;
    smp.engine = Engine::Sample;
    const FitResult d = fit_path(DenseDesign(x), Y, VectorXd(), MatrixXd(), group_of, 5, shared, Family::Gaussian, smp);
    check(c.path.sequence == d.path.sequence, "measurements: the sample-space engine's sequence", 0, 0);
    check(!c.path.sequence.empty() && c.path.sequence[0] == 4, "measurements: the free group first",
          static_cast<double>(c.path.sequence.empty() ? -1 : c.path.sequence[0]), 4);
    std::vector<bool> paid(5, false);
    bool g0 = false, g1 = false;
    for (size_t k = 0; k < c.path.sequence.size(); ++k) {
      const Index g = c.path.sequence[k];
      double want = 0.0;
      for (Index mm : shared.needs[static_cast<size_t>(g)])
        if (!paid[static_cast<size_t>(mm)]) want += shared.cost[static_cast<size_t>(mm)];
      for (Index mm : shared.needs[static_cast<size_t>(g)]) paid[static_cast<size_t>(mm)] = true;
      check(c.path.group_cost[k] == want, "measurements: marginal cost paid", c.path.group_cost[k], want);
      if (g0 && g1 && g != 2 && std::find(c.path.sequence.begin(), c.path.sequence.begin() + k, 2) ==
                                    c.path.sequence.begin() + k)
        check(false, "measurements: group 2 is free after groups 0 and 1 and taken next", static_cast<double>(g), 2);
      g0 = g0 || g == 0;
      g1 = g1 || g == 1;
    }
  }
}
