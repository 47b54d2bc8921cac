// Threads of the core. Two mechanisms, each for one shape of work, and the rule for each:
// - parallel_ranges(): one long pass (milliseconds and more) split into one contiguous range per
//   thread: the passes over all rows of x (moments, products, the GLM models). An OpenMP region when
//   the compiler has OpenMP, else std::threads; either way its threads start at the pass and end with
//   it, a cost that a long pass does not feel.
// - WorkerPool: many short loops (microseconds: the levels of the Greedy Miser's trees, hundreds per
//   fit; the products of the sample-space engine, dozens per step), claimed in chunks by threads that
//   live as long as the pool (one fit), so that a loop does not pay a thread start, and that end no
//   later than the loop's last chunk (no wait for a descheduled thread at a barrier). Started at the
//   first loop that has more than one chunk.
// Both run on the number of threads the fit was given (option fgseq.threads in R), and neither starts a
// thread when that is 1. Only the calling thread polls the interrupt check and the clock
// (calling_thread(), SharedCheck). bench/bench-threads.R times each on its work at 1 and 2 threads.
#ifndef FGSEQ_COMMON_THREADS_HPP
#define FGSEQ_COMMON_THREADS_HPP

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "deadline.hpp"
#include "types.hpp"

namespace fgseq {

// True on the threads the core starts (a WorkerPool's, and parallel_ranges()' without OpenMP).
inline bool& pool_worker() {
  thread_local bool worker = false;
  return worker;
}

// Runs body(begin, end) over [0, n) split into `threads` contiguous ranges: an OpenMP parallel region
// when the compiler has OpenMP, else one std::thread per range beside the calling thread, which runs
// the first. An exception in any range (an interrupt, say) is rethrown after every thread has
// finished, never across the parallel region; the other ranges stop at their next check of `failed`.
template <class Body>
void parallel_ranges(Index n, int threads, const Body& body) {
  threads = std::max(1, std::min<int>(threads, static_cast<int>(std::max<Index>(n, 1))));
  if (threads == 1) {
    body(Index(0), n);
    return;
  }
  std::exception_ptr error = nullptr;
  std::mutex error_mutex;
  std::atomic<bool> failed(false);
  auto range = [&](int t) {
    const Index begin = n * t / threads, end = n * (t + 1) / threads;
    try {
      if (!failed.load()) body(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed.store(true);
    }
  };
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) range(t);
#else
  std::vector<std::thread> others;
  int started = 1;
  try {
    for (; started < threads; ++started)
      others.emplace_back([&range, started] {
        pool_worker() = true;
        range(started);
      });
  } catch (...) {  // no more threads to be had: the calling thread runs the ranges left
  }
  range(0);
  for (int t = started; t < threads; ++t) range(t);
  for (std::thread& th : others) th.join();
#endif
  if (error) std::rethrow_exception(error);
}

// True on the thread that called into the core (the only one allowed to poll R's interrupt check).
inline bool calling_thread() {
  if (pool_worker()) return false;
#ifdef _OPENMP
  return omp_get_thread_num() == 0;
#else
  return true;
#endif
}

// Threads that run the chunks of many short loops beside the calling thread (the levels of the Greedy
// Miser's trees). run(n, chunk, body) calls body(begin, end) over [0, n) cut into chunks of `chunk`
// items, which the calling thread and the workers claim in turn. Unlike an OpenMP parallel region, a
// loop waits for no worker that has not started on it: it ends once its chunks are done, so on a
// machine shared with other work a worker the system has descheduled costs at most the chunk it holds,
// not a time slice per loop. For items whose results do not depend on which thread ran them. An
// exception in a body stops the claiming and is rethrown on the calling thread once the loop's
// running chunks are done. The workers never call back into R (calling_thread() is false on them).
class WorkerPool {
 public:
  // The workers start at the first loop of more than one chunk: a pool that only ever runs short loops
  // (or has one thread) starts none.
  explicit WorkerPool(int threads) : threads_(std::max(threads, 1)) {}
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return threads_; }

  // run() over [0, n) in about 8 chunks per thread: a pass whose items cost alike, which a
  // descheduled thread holds back by at most one chunk
  template <class Body>
  void ranges(Index n, const Body& body) {
    const Index parts = 8 * static_cast<Index>(threads_);
    run(n, (n + parts - 1) / parts, body);
  }

  template <class Body>
  void run(Index n, Index chunk, const Body& body) {
    chunk = std::max<Index>(chunk, 1);
    const Index n_chunks = (n + chunk - 1) / chunk;
    if (threads_ == 1 || n_chunks <= 1) {
      if (n > 0) body(Index(0), n);
      return;
    }
    if (workers_.empty())
      for (int t = 1; t < threads_; ++t) workers_.emplace_back([this] { work(); });
    Loop loop([&](Index begin, Index end) { body(begin, end); }, n, chunk, n_chunks);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      loop_ = &loop;
      ++generation_;
    }
    wake_.notify_all();
    loop.claim();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      loop_ = nullptr;  // no worker joins the loop from now on; wait for those inside it
      done_.wait(lock, [&] { return loop.active == 0; });
    }
    if (loop.error) std::rethrow_exception(loop.error);
  }

 private:
  struct Loop {
    Loop(std::function<void(Index, Index)> b, Index n_, Index chunk_, Index n_chunks_)
        : body(std::move(b)), n(n_), chunk(chunk_), n_chunks(n_chunks_) {}
    std::function<void(Index, Index)> body;
    Index n, chunk, n_chunks;
    std::atomic<Index> next{0};
    int active = 0;  // workers inside claim() (under the pool's mutex)
    std::mutex error_mutex;
    std::exception_ptr error = nullptr;
    void claim() {
      for (Index c = next.fetch_add(1); c < n_chunks; c = next.fetch_add(1)) {
        try {
          body(c * chunk, std::min(n, (c + 1) * chunk));
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
          next.store(n_chunks);
        }
      }
    }
  };

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  Loop* loop_ = nullptr;
  std::atomic<unsigned long> generation_{0};  // loops started (changed under mutex_)
  bool quit_ = false;

  void work() {
    pool_worker() = true;
    unsigned long seen = 0;
    for (;;) {
      // the next loop of a fit usually follows within microseconds: look for it, yielding the core to
      // other work, for up to a millisecond before sleeping (a sleeping worker wakes late on a busy
      // machine, when the loop may be over)
      const auto idle = std::chrono::steady_clock::now();
      while (generation_.load() == seen && std::chrono::steady_clock::now() - idle < std::chrono::milliseconds(1))
        std::this_thread::yield();
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || (loop_ != nullptr && generation_.load() != seen); });
      if (quit_) return;
      seen = generation_.load();
      Loop* loop = loop_;
      ++loop->active;
      lock.unlock();
      loop->claim();
      lock.lock();
      if (--loop->active == 0) done_.notify_all();
    }
  }
};

// The interrupt check of a pass split over threads (parallel_ranges()): the calling thread polls
// `check` (R's interrupt check, a clock), the only one allowed to; when that throws, every other
// thread stops at its own next check too (instead of finishing its range), and the calling thread's
// exception is the one parallel_ranges() rethrows. Each range's body runs inside run().
class SharedCheck {
 public:
  explicit SharedCheck(const InterruptCheck& check) : check_(check) {}
  // the check of the thread that calls it
  InterruptCheck check() const {
    if (!check_) return InterruptCheck();
    if (calling_thread()) {
      return [this] {
        try {
          check_();
        } catch (...) {
          stop_.store(true);
          throw;
        }
      };
    }
    return [this] {
      if (stop_.load()) throw Abandoned();
    };
  }
  template <class Body>
  void run(const Body& body) const {
    try {
      body();
    } catch (const Abandoned&) {  // stopped because the calling thread's check threw
    }
  }

 private:
  struct Abandoned {};
  InterruptCheck check_;
  mutable std::atomic<bool> stop_{false};
};

}  // namespace fgseq

#endif
