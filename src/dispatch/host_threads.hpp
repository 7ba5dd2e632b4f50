// The host backends' threading: a fixed number of parts run on threads of their own, the caller's
// thread taking part 0 and any part whose thread could not be started.
#pragma once

#include <thread>
#include <vector>

namespace fly::dispatch {

// Calls work(t, n) for t = 0 .. n - 1, where n = threads, each on a thread of its own where one
// can be started; part 0 and the parts whose thread could not start run on the calling thread, so
// the result never depends on how many threads ran. Without memory for the bookkeeping, n = 1.
template <class Work>
void run_on_threads(int threads, Work&& work) {
  std::vector<std::thread> pool;
  std::vector<int> inline_parts;
  try {
    pool.reserve(static_cast<size_t>(threads));
    inline_parts.reserve(static_cast<size_t>(threads));
  } catch (...) {
    threads = 1;  // no memory for the bookkeeping: run everything here
  }
  const int n = threads;
  auto part = [&](int t) { work(t, n); };
  for (int t = 1; t < n; ++t) {
    try {
      pool.emplace_back(part, t);
    } catch (...) {
      inline_parts.push_back(t);  // capacity reserved above: cannot throw
    }
  }
  part(0);
  for (int t : inline_parts) part(t);
  for (std::thread& th : pool) th.join();
}

}  // namespace fly::dispatch
