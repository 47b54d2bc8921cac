// Measurements: what is paid for at prediction time (a laboratory test, a feature extractor, a blood
// draw). Every group needs one or more measurements, and a measurement shared by several groups is
// paid once: a set of groups costs the total cost of the union of their measurements, and the
// marginal cost of a group given the measurements already paid is the cost of its measurements not
// yet paid. The greedy path (greedy/engine.hpp) and the Greedy Miser (miser/) read costs only through
// these marginal costs. When each group is its own measurement (the default, built from one cost per
// group) the marginal cost of a group is its cost, and costs are modular as in Hu et al. (2016).
#ifndef FGSEQ_COMMON_MEASUREMENTS_HPP
#define FGSEQ_COMMON_MEASUREMENTS_HPP

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "types.hpp"



namespace fgseq {

// The incidence of groups and measurements (groups x measurements, stored as each group's list of
// measurement indices) and the cost of every measurement.
struct Measurements {
  std::vector<std::vector<Index>> needs;  // per group: distinct indices of the measurements it needs
  std::vector<double> cost;               // per measurement: finite, >= 0

  Measurements() = default;

  // Each group its own measurement, costing the group's cost (implicit: a vector of group costs is
  // the measurement structure without shared measurements).
  Measurements(const std::vector<double>& group_cost)  // NOLINT(google-explicit-constructor)
      : needs(group_cost.size()), cost(group_cost) {
    for (size_t g = 0; g < needs.size(); ++g) needs[g].push_back(static_cast<Index>(g));
    validate();
  }

  Measurements(std::vector<std::vector<Index>> group_needs, std::vector<double> measurement_cost)
      : needs(std::move(group_needs)), cost(std::move(measurement_cost)) {
    validate();
  }

  Index n_groups() const { return static_cast<Index>(needs.size()); }
  Index n_measurements() const { return static_cast<Index>(cost.size()); }

  // The stand-alone cost of group g: the total cost of its measurements.
  double group_cost(Index g) const {
    double s = 0.0;
    for (Index m : needs[static_cast<size_t>(g)]) s += cost[static_cast<size_t>(m)];
    return s;
  }

 private:
  void validate() const {
    for (double c : cost)
      if (!std::isfinite(c) || c < 0.0) throw std::invalid_argument("measurements: costs must be finite and >= 0");
    std::vector<bool> seen(cost.size());
    for (const auto& nd : needs) {
      for (Index m : nd) {
        if (m < 0 || m >= static_cast<Index>(cost.size()))
          throw std::invalid_argument("measurements: a group needs a measurement index out of range");
        if (seen[static_cast<size_t>(m)])
          throw std::invalid_argument("measurements: a group lists a measurement twice");
        seen[static_cast<size_t>(m)] = true;
      }
      for (Index m : nd) seen[static_cast<size_t>(m)] = false;
    }
  }
};

// The measurements paid so far (by the groups selected, or the features used): the marginal cost of a
// group, and paying for it. The marginal costs are kept, one per group in one array, and a payment
// sums again those of the groups that share a measurement it paid (the same sums, in the same order,
// as from scratch): the greedy loop reads every candidate's marginal cost at every step, and the
// groups' lists of measurements are scattered over memory.
class PaidMeasurements {
 public:
  explicit PaidMeasurements(const Measurements& m)
      : m_(m), paid_(m.cost.size(), false), users_(m.cost.size()), marginal_(m.needs.size()) {
    for (Index g = 0; g < m.n_groups(); ++g) {
      for (Index k : m.needs[static_cast<size_t>(g)]) users_[static_cast<size_t>(k)].push_back(g);
      marginal_[static_cast<size_t>(g)] = unpaid_cost(g);
    }
  }

  // The total cost of g's measurements not yet paid.
  double marginal(Index g) const { return marginal_[static_cast<size_t>(g)]; }

  // Pays for g's measurements; returns what that cost (the marginal cost of g before the call).
  double pay(Index g) {
    const double s = marginal(g);
    for (Index k : m_.needs[static_cast<size_t>(g)]) {
      if (paid_[static_cast<size_t>(k)]) continue;
      paid_[static_cast<size_t>(k)] = true;
      for (Index h : users_[static_cast<size_t>(k)]) marginal_[static_cast<size_t>(h)] = unpaid_cost(h);
    }
    return s;
  }

  bool paid(Index m) const { return paid_[static_cast<size_t>(m)]; }
  const Measurements& measurements() const { return m_; }

 private:
  const Measurements& m_;
  std::vector<bool> paid_;
  std::vector<std::vector<Index>> users_;  // per measurement: the groups that need it
  std::vector<double> marginal_;

  double unpaid_cost(Index g) const {
    double s = 0.0;
    for (Index k : m_.needs[static_cast<size_t>(g)])
      if (!paid_[static_cast<size_t>(k)]) s += m_.cost[static_cast<size_t>(k)];
    return s;
  }
};

}  // namespace fgseq

#endif
