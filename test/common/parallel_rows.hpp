// Host references over large outputs: f(row) for every row in [0, rows), rows split among the
// host's threads (each row by one thread; f must only write what belongs to its row).
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace fly_test {

template <class F>
void parallel_rows(int64_t rows, F&& f) {
  const int64_t workers = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 64);
  std::vector<std::thread> pool;
  for (int64_t w = 0; w < std::min(workers, rows); ++w)
    pool.emplace_back([&, w] {
      for (int64_t r = w; r < rows; r += workers) f(r);
    });
  for (auto& t : pool) t.join();
}

}  // namespace fly_test
