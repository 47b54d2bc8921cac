// The clock of a fit: its interrupt check, the poll that also counts max_time, and TimeUp, thrown
// by a poll once max_time is spent.
#ifndef FGSEQ_COMMON_DEADLINE_HPP
#define FGSEQ_COMMON_DEADLINE_HPP

#include <chrono>
#include <functional>
#include <stdexcept>

namespace fgseq {

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

}  // namespace fgseq

#endif
