// The greedy engine shared by CS-G-OMP, CS-G-FR and Doubling (Hu, Grubb, Bagnell & Hebert 2016,
// Algorithm 1, section 2 "CS-G-FR", Algorithm 2) and by every family: one selection loop
// (candidates, Doubling's cost rule, scores per unit of marginal cost, ties, stopping) over a
// SelectionModel that knows how to score an unselected group and how to refit after adding one.
// The models themselves are in greedy/model.hpp (their common base), linear/gram.hpp, linear/sample.hpp and glm/.
#ifndef FGSEQ_GREEDY_ENGINE_HPP
#define FGSEQ_GREEDY_ENGINE_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../common/compiled.hpp"
#include "../common/measurements.hpp"
#include "../common/options.hpp"
#include "../common/deadline.hpp"

namespace fgseq {

enum class Method { OMP, FR, Doubling };
template <>
struct Names<Method> {
  static constexpr const char* what = "method";
  static constexpr std::pair<Method, const char*> table[] = {
      {Method::OMP, "omp"}, {Method::FR, "fr"}, {Method::Doubling, "doubling"}};
};

// What each method is, which is all the models and the selection loop ask of it (never the method
// itself): what it scores, the first-order gain (a criterion of the group's gradient, CS-G-OMP:
// greedy/model.hpp) or the gain of the refit (CS-G-FR and Doubling: exact, or for the GLM families
// one Newton step's quadratic gain), and how it picks a step's candidates, every unselected group or
// those within Doubling's cost limit (Algorithm 2). A new method is its value, its name above and its
// case in method_traits(): the switch has no default, so the compiler names it (make test-core builds
// with -Werror=switch).
enum class Scores { Gradient, Gain };
template <>
struct Names<Scores> {
  static constexpr const char* what = "scores";
  static constexpr std::pair<Scores, const char*> table[] = {{Scores::Gradient, "gradient"}, {Scores::Gain, "gain"}};
};
enum class Candidates { Every, WithinCost };
template <>
struct Names<Candidates> {
  static constexpr const char* what = "candidates";
  static constexpr std::pair<Candidates, const char*> table[] = {{Candidates::Every, "every"},
                                                                 {Candidates::WithinCost, "within_cost"}};
};
struct MethodTraits {
  Scores scores;
  Candidates candidates;
};
inline MethodTraits method_traits(Method method) {
  switch (method) {
    case Method::OMP:
      return {Scores::Gradient, Candidates::Every};
    case Method::FR:
      return {Scores::Gain, Candidates::Every};
    case Method::Doubling:
      return {Scores::Gain, Candidates::WithinCost};
  }
  no_case(method, "method_traits");
}
inline Scores scores_of(Method method) { return method_traits(method).scores; }

// What the selection loop reads; part of a fit's Control (greedy/model.hpp).
struct PathControl {
  Method method = Method::OMP;
  bool cost_sensitive = true;
  Index max_steps = std::numeric_limits<Index>::max();
  double max_cost = std::numeric_limits<double>::infinity();
  double c_min = std::numeric_limits<double>::quiet_NaN();  // Doubling; NaN = smallest group cost
  double zero_tol = 1e-14;  // raw scores <= zero_tol * score_scale count as exactly 0
  double tie_tol = 1e-10;   // scores within tie_tol (relative) of the best tie; first group wins
  std::vector<Index> order;   // when not empty: evaluate this sequence of groups instead of selecting
  double max_time = std::numeric_limits<double>::infinity();  // seconds; the path stops when spent
};

// What a greedy run needs from a model family.
class SelectionModel {
 public:
  virtual ~SelectionModel() = default;
  virtual Index n_groups() const = 0;
  virtual bool selectable(Index h) const = 0;     // rank > 0
  virtual double raw_score(Index h) = 0;          // criterion of an unselected group, before cost
  // lo <= raw_score(h) <= hi from a cheaper computation (a screening pass); greedy_path() asks for
  // raw_score(h) only when the range could reach the best score. Default: the exact score.
  virtual std::pair<double, double> score_range(Index h) {
    const double s = raw_score(h);
    return {s, s};
  }
  // A model whose ranges may come from an earlier step's pass (wider, still bounds: lo may be 0 and hi
  // infinite) says which are not current; refresh_ranges(groups) computes the ranges of those groups
  // (given in any order) again from this step's state, in one pass for all of them, a stage finer
  // than their last (a model may refine in stages: each call brings a group one stage closer to
  // current, and a group is current after a bounded number of calls). Default: every range is current.
  virtual bool range_current(Index h) const {
    (void)h;
    return true;
  }
  virtual void refresh_ranges(const std::vector<Index>& groups) { (void)groups; }
  // told the candidates of a step (one flag per group) before any of them is scored
  virtual void set_candidates(const std::vector<bool>& candidates) { (void)candidates; }
  virtual void add_group(Index g) = 0;            // select g and refit
  virtual double objective() const = 0;           // F(S) = R(empty) - R(S)
  virtual double r2() const = 0;                  // fraction explained: F / R(empty), or of the deviance
  virtual double score_scale() const = 0;         // scale below which raw scores count as 0
  virtual MatrixXd coef() const = 0;              // whitened coefficients, q x P
  virtual VectorXd intercept() const = 0;         // length P, in centred coordinates
  // greedy_path() sets the poll a model calls within its own long computations (Newton iterations)
  void set_poll(Poll poll) { poll_ = std::move(poll); }

 protected:
  Poll poll_;
};

struct Path {
  std::vector<Index> sequence;    // group indices in selection order (K)
  std::vector<double> score;      // selection score of each chosen group (K)
  std::vector<double> group_cost; // marginal cost paid at each step: its measurements not paid before (K)
  std::vector<double> objective;  // F after steps 0..K (K+1)
  std::vector<double> r2;         // r2 after steps 0..K (K+1)
  std::vector<MatrixXd> w;        // whitened coefficients after steps 0..K, q x P each
  std::vector<VectorXd> a;        // intercepts (centred coordinates) after steps 0..K
  bool partial = false;           // stopped because max_time was spent
};

// The greedy selection loop. Costs enter only as the marginal cost of a candidate given the groups
// selected so far (common/measurements.hpp: the cost of its measurements not yet paid); with one measurement
// per group that is the group's cost. Scores are divided by it (cost_sensitive), Doubling's rule
// compares it, max_cost bounds the cumulative cost. A candidate of zero marginal cost with a positive
// gain is taken before any group of positive marginal cost (largest gain first; its recorded score is
// the gain itself); one without gain scores 0.
// `deadline` is the fit's clock (started at its call, from its max_time; without one, ctl.max_time from
// this call), `check_interrupt` R's interrupt check.
FGSEQ_API Path greedy_path(SelectionModel& model, const Measurements& meas, const PathControl& ctl,
                           const Deadline& deadline, const InterruptCheck& check_interrupt = InterruptCheck(),
                           const ProgressCallback& progress = ProgressCallback());
#ifdef FGSEQ_DEFINE_COMMON
FGSEQ_API Path greedy_path(SelectionModel& model, const Measurements& meas, const PathControl& ctl,
                           const Deadline& deadline, const InterruptCheck& check_interrupt,
                           const ProgressCallback& progress) {
  const Index G = model.n_groups();
  if (meas.n_groups() != G) throw std::invalid_argument("greedy_path: the measurements of every group are needed");
  const Poll poll = deadline.poll(check_interrupt);
  model.set_poll(poll);
  std::vector<bool> selected(static_cast<size_t>(G), false);
  PaidMeasurements paid(meas);
  Index available = 0;
  double smallest = std::numeric_limits<double>::infinity();
  for (Index h = 0; h < G; ++h)
    if (model.selectable(h)) {
      ++available;
      smallest = std::min(smallest, meas.group_cost(h));
    }
  const double c_min = std::isnan(ctl.c_min) ? smallest : ctl.c_min;
  const double fuzz = 1 + 1e-12;

  Path path;
  path.objective.push_back(model.objective());
  path.r2.push_back(model.r2());
  path.w.push_back(model.coef());
  path.a.push_back(model.intercept());
  double total_cost = 0.0;
  const Index max_steps = std::min(ctl.max_steps, available);
  auto take = [&](Index g, double s) {  // add g to the sequence, pay its measurements, record the refit
    model.add_group(g);
    selected[g] = true;
    const double paid_now = paid.pay(g);
    total_cost += paid_now;
    path.sequence.push_back(g);
    path.score.push_back(s);
    path.group_cost.push_back(paid_now);
    path.objective.push_back(model.objective());
    path.r2.push_back(model.r2());
    path.w.push_back(model.coef());
    path.a.push_back(model.intercept());
  };
  const Candidates rule = method_traits(ctl.method).candidates;
  std::vector<double> score(static_cast<size_t>(G)), low(static_cast<size_t>(G)), marginal(static_cast<size_t>(G));
  size_t next = 0;  // position in a given order
  try {
  for (Index step = 0; step < max_steps; ++step) {
    if (check_interrupt) check_interrupt();
    if (progress) progress(step, max_steps);
    if (deadline.passed()) {  // training is anytime too: keep the sequence learned so far
      path.partial = true;
      break;
    }
    if (!ctl.order.empty()) {  // a given sequence: no selection, no score; constant groups skipped
      for (; next < ctl.order.size(); ++next) {
        const Index h = ctl.order[next];
        if (h < 0 || h >= G || selected[h])
          throw std::invalid_argument("greedy_path: the given order must name distinct groups");
        if (model.selectable(h)) break;
      }
      if (next >= ctl.order.size()) break;
      const Index g = ctl.order[next++];
      if (total_cost + paid.marginal(g) > ctl.max_cost * fuzz) break;
      take(g, std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    // candidates (the method's rule): every unselected group; or (Doubling, paper Algorithm 2) only
    // those whose marginal cost is at most c_min (first step) or the cost so far, falling back to the
    // remaining groups of least marginal cost
    std::vector<bool> cand(static_cast<size_t>(G), false);
    bool any = false;
    double least = std::numeric_limits<double>::infinity();
    for (Index h = 0; h < G; ++h) {
      if (selected[h] || !model.selectable(h)) continue;
      marginal[h] = paid.marginal(h);
      least = std::min(least, marginal[h]);
      const double limit = step == 0 ? c_min : total_cost;
      switch (rule) {
        case Candidates::Every:
          cand[h] = true;
          break;
        case Candidates::WithinCost:
          cand[h] = marginal[h] <= limit * fuzz;
          break;
      }
      any = any || cand[h];
    }
    if (!any)
      for (Index h = 0; h < G; ++h)
        cand[h] = !selected[h] && model.selectable(h) && marginal[h] <= least * fuzz;
    model.set_candidates(cand);

    const double zero = ctl.zero_tol * model.score_scale();
    Index g = -1;
    if (ctl.cost_sensitive) {  // free candidates first: the largest exact gain, if positive
      double best = zero;
      for (Index h = 0; h < G; ++h) {
        if (!cand[h] || marginal[h] > 0.0) continue;
        score[h] = model.raw_score(h);
        best = std::max(best, score[h]);
      }
      if (best > zero)
        for (Index h = 0; h < G && g < 0; ++h)
          if (cand[h] && marginal[h] <= 0.0 && score[h] >= best - ctl.tie_tol * std::abs(best)) g = h;
    }
    if (g >= 0) {
      take(g, score[g]);  // free: nothing to check against max_cost
      continue;
    }

    // scores per unit of marginal cost: first the ranges, then the exact score of every group whose
    // range reaches the best lower end (less the tie tolerance); the others can neither win nor tie
    auto counted = [&](double s, Index h) {  // raw scores at or below the zero threshold count as 0
      if (!(s > zero)) s = 0.0;
      if (!ctl.cost_sensitive) return s;
      return marginal[h] > 0.0 ? s / marginal[h] : 0.0;  // free and without gain
    };
    double best_lo = -1.0;
    auto range = [&](Index h) {
      const std::pair<double, double> r = model.score_range(h);
      score[h] = counted(r.second, h);
      low[h] = r.first == r.second ? score[h] : counted(r.first, h);
      best_lo = std::max(best_lo, low[h]);
    };
    std::vector<Index> old;  // candidates whose range is from an earlier step
    for (Index h = 0; h < G; ++h) {
      if (!cand[h]) continue;
      poll();
      range(h);
      if (!model.range_current(h)) old.push_back(h);
    }
    if (!old.empty()) {
      // ranges of earlier steps (lazy screening): first the few whose upper ends are highest, which
      // set the best lower end, then those that still reach it; the others can neither win nor tie
      const size_t first = std::min<size_t>(old.size(), 16);
      std::partial_sort(old.begin(), old.begin() + static_cast<std::ptrdiff_t>(first), old.end(),
                        [&](Index a, Index b) { return score[a] > score[b] || (score[a] == score[b] && a < b); });
      auto refresh = [&](const std::vector<Index>& groups) {
        poll();
        model.refresh_ranges(groups);
        for (Index h : groups) range(h);
      };
      // (a model may refine a range in stages, each refresh one stage finer, until it is current; at
      // most kStages refreshes of a group: a range not current then is still a bound, and a group whose
      // range reaches the best is scored exactly below)
      constexpr int kStages = 8;
      std::vector<Index> now(old.begin(), old.begin() + static_cast<std::ptrdiff_t>(first));
      for (int stage = 0; stage < kStages && !now.empty(); ++stage) {
        refresh(now);
        now.erase(std::remove_if(now.begin(), now.end(), [&](Index h) { return model.range_current(h); }), now.end());
      }
      now.clear();
      for (int stage = 0; stage < kStages; ++stage) {
        const double reach_now = best_lo - ctl.tie_tol * std::abs(best_lo);
        for (size_t i = first; i < old.size(); ++i)
          if (score[old[i]] >= reach_now && !model.range_current(old[i])) now.push_back(old[i]);
        if (now.empty()) break;
        refresh(now);
        now.clear();
      }
    }
    const double reach = best_lo - ctl.tie_tol * std::abs(best_lo);
    double best = -1.0;
    for (Index h = 0; h < G; ++h) {
      if (!cand[h]) continue;
      if (low[h] != score[h] && score[h] >= reach) {
        poll();
        score[h] = counted(model.raw_score(h), h);
      }
      best = std::max(best, score[h]);
    }
    for (Index h = 0; h < G && g < 0; ++h)
      if (cand[h] && score[h] >= best - ctl.tie_tol * std::abs(best)) g = h;
    if (g < 0) break;
    if (total_cost + marginal[g] > ctl.max_cost * fuzz) break;
    take(g, score[g]);
  }
  } catch (const TimeUp&) {  // max_time spent within a step: keep the steps completed before it
    path.partial = true;
  }
  model.set_poll(Poll());
  if (progress) progress(static_cast<Index>(path.sequence.size()), max_steps);
  return path;
}
#endif

// The greedy selection loop on its own clock: ctl.max_time counted from this call.
inline Path greedy_path(SelectionModel& model, const Measurements& meas, const PathControl& ctl) {
  return greedy_path(model, meas, ctl, Deadline(ctl.max_time));
}

}  // namespace fgseq

#endif
