// The threads of the core (common/threads.hpp).

// WorkerPool: every item of a loop run once, whatever the chunk, on 1 and 3 threads, across many loops
// in a row (against a count per item); the bodies on the workers are not the calling thread; an
// exception thrown in a chunk reaches the caller after the loop, and the pool runs the next loop.
static void test_worker_pool() {
  for (int threads : {1, 3}) {
    WorkerPool pool(threads);
    bool counts_ok = true;
    std::atomic<int> off_caller(0);
    for (Index n : {0, 1, 7, 1000, 100003}) {
      for (Index chunk : {1, 64, 5000}) {
        std::vector<int> seen(static_cast<size_t>(n), 0);
        pool.run(n, chunk, [&](Index b, Index e) {
          if (!calling_thread()) ++off_caller;
          for (Index i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
        });
        counts_ok = counts_ok && std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; });
      }
    }
    check(counts_ok, "WorkerPool runs every item once", counts_ok, 1);
    if (threads == 1) check(off_caller.load() == 0, "WorkerPool(1) runs on the calling thread", off_caller.load(), 0);
    bool threw = false;
    try {
      pool.run(100, 1, [](Index b, Index e) {
        if (b <= 37 && 37 < e) throw std::runtime_error("item 37");
      });
    } catch (const std::runtime_error&) {
      threw = true;
    }
    check(threw, "WorkerPool rethrows a chunk's exception", threw, 1);
    Index total = 0;
    std::mutex m;
    pool.run(10, 1, [&](Index b, Index e) {
      std::lock_guard<std::mutex> lock(m);
      total += e - b;
    });
    check(total == 10, "WorkerPool runs the loop after an exception", static_cast<double>(total), 10);
  }
}
