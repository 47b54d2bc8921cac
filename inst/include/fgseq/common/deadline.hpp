// The clock of a fit: its interrupt check, the poll that also counts max_time, and TimeUp, thrown
// by a poll once max_time is spent. A fit starts one Deadline at its call; every part of it (the pass
// over x, the selection loop, the Newton iterations, the Greedy Miser's binning and trees) polls that
// one clock.
#ifndef FGSEQ_COMMON_DEADLINE_HPP
#define FGSEQ_COMMON_DEADLINE_HPP

#include <chrono>
#include <functional>
#include <stdexcept>
#include <utility>

#include "types.hpp"

namespace fgseq {

// Told before each step of a fit (a greedy step, a boosting iteration): (steps done, steps at most).
// The R glue wires a progress bar to it.
using ProgressCallback = std::function<void(Index, Index)>;

// Called between chunks and steps; may throw to abort (the R glue wires R's interrupt check).
using InterruptCheck = std::function<void()>;

// Thrown by a poll when max_time is spent in the middle of a step: the step is abandoned and the path
// keeps the steps completed before it.
struct TimeUp : std::runtime_error {
  TimeUp() : std::runtime_error("max_time spent") {}
};

// Called within long steps (between candidates, at every Newton iteration): checks for an interrupt
// and throws TimeUp once max_time is spent.
using Poll = std::function<void()>;

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point started) {
  return std::chrono::duration<double>(Clock::now() - started).count();
}

// max_time seconds counted from its making: a fit makes one at its call (fit_path(), miser_fit(), ...)
// and passes it down, so that every part of the fit reads the same clock.
class Deadline {
 public:
  explicit Deadline(double max_time) : max_time_(max_time), started_(Clock::now()) {}
  bool passed() const { return seconds_since(started_) >= max_time_; }
  // The poll of the fit: the interrupt check (when given), then TimeUp once max_time is spent.
  Poll poll(InterruptCheck check) const {
    return [check = std::move(check), deadline = *this] {
      if (check) check();
      if (deadline.passed()) throw TimeUp();
    };
  }

 private:
  double max_time_;
  Clock::time_point started_;
};

}  // namespace fgseq

#endif
