// The greedy selection loop (greedy/engine.hpp) over a model of additive gains, against the same
// rules written as a plain loop here.

namespace {
// The objective of a set is the sum of its groups' gains; group `dead` has rank 0 (never selectable).
class AdditiveModel : public SelectionModel {
 public:
  AdditiveModel(std::vector<double> gain, Index dead) : gain_(std::move(gain)), dead_(dead) {}
  Index n_groups() const override { return static_cast<Index>(gain_.size()); }
  bool selectable(Index h) const override { return h != dead_; }
  double raw_score(Index h) override { return gain_[static_cast<size_t>(h)]; }
  void add_group(Index g) override { f_ += gain_[static_cast<size_t>(g)]; }
  double objective() const override { return f_; }
  double r2() const override { return f_ / 100.0; }
  double score_scale() const override { return 1.0; }
  MatrixXd coef() const override { return MatrixXd::Constant(1, 1, f_); }
  VectorXd intercept() const override { return VectorXd::Zero(1); }

 private:
  std::vector<double> gain_;
  Index dead_;
  double f_ = 0.0;
};

// The reference: the largest gain per unit of cost (the first of ties), among every unselected group
// (OMP) or, for Doubling, those of cost at most c_min at the first step and at most the cost so far
// after it (else those of least cost); stops before a group whose cost would pass max_cost.
std::vector<Index> reference_sequence(const std::vector<double>& gain, const std::vector<double>& cost, Index dead,
                                      bool doubling, double max_cost) {
  const Index G = static_cast<Index>(gain.size());
  std::vector<bool> taken(static_cast<size_t>(G), false);
  std::vector<Index> seq;
  double total = 0.0, c_min = std::numeric_limits<double>::infinity();
  for (Index h = 0; h < G; ++h)
    if (h != dead) c_min = std::min(c_min, cost[h]);
  for (;;) {
    double least = std::numeric_limits<double>::infinity();
    for (Index h = 0; h < G; ++h)
      if (!taken[h] && h != dead) least = std::min(least, cost[h]);
    if (!std::isfinite(least)) break;
    const double limit = seq.empty() ? c_min : total;
    bool any = false;
    for (Index h = 0; h < G; ++h) any = any || (!taken[h] && h != dead && (!doubling || cost[h] <= limit));
    Index best = -1;
    for (Index h = 0; h < G; ++h) {
      if (taken[h] || h == dead) continue;
      const bool cand = !doubling || (any ? cost[h] <= limit : cost[h] <= least);
      if (cand && (best < 0 || gain[h] / cost[h] > gain[best] / cost[best])) best = h;
    }
    if (total + cost[best] > max_cost) break;
    taken[best] = true;
    total += cost[best];
    seq.push_back(best);
  }
  return seq;
}
}  // namespace

// 9 groups of random gains and costs (one of them of rank 0): the sequence, the cost paid at each
// step and the objective after it, for CS-G-OMP and Doubling, without and with a budget; a given order
// is evaluated as given (the rank-0 group skipped).
static void test_engine_selection(Problem& pb) {
  const Index G = 9, dead = 4;
  std::uniform_real_distribution<double> U(0.1, 1.0);
  const double costs[] = {1, 2, 5, 10, 20};
  std::vector<double> gain(G), cost(G);
  for (Index h = 0; h < G; ++h) {
    gain[h] = U(pb.rng);
    cost[h] = costs[std::uniform_int_distribution<int>(0, 4)(pb.rng)];
  }
  for (Method method : {Method::OMP, Method::Doubling}) {
    for (double max_cost : {std::numeric_limits<double>::infinity(), 12.0}) {
      AdditiveModel model(gain, dead);
      PathControl ctl;
      ctl.method = method;
      ctl.max_cost = max_cost;
      const Path path = greedy_path(model, cost, ctl);
      const std::vector<Index> want = reference_sequence(gain, cost, dead, method == Method::Doubling, max_cost);
      bool same = path.sequence == want;
      double f = 0.0;
      for (size_t s = 0; same && s < want.size(); ++s) {
        f += gain[want[s]];
        same = path.group_cost[s] == cost[want[s]] && std::abs(path.objective[s + 1] - f) < 1e-12 &&
               std::abs(path.score[s] - gain[want[s]] / cost[want[s]]) < 1e-12;
      }
      check(same, method == Method::OMP ? "greedy_path OMP against the plain loop" : "greedy_path Doubling against the plain loop",
            static_cast<double>(path.sequence.size()), static_cast<double>(want.size()));
      check(!path.partial && path.objective.size() == path.sequence.size() + 1, "greedy_path: one objective per step", 0, 0);
    }
  }
  AdditiveModel model(gain, dead);
  PathControl ctl;
  ctl.order = {8, dead, 0, 3};
  const Path path = greedy_path(model, cost, ctl);
  check(path.sequence == std::vector<Index>({8, 0, 3}) && std::isnan(path.score[0]) &&
            std::abs(path.objective.back() - (gain[8] + gain[0] + gain[3])) < 1e-12,
        "greedy_path evaluates a given order", static_cast<double>(path.sequence.size()), 3);
}
