// Rows that must not pass silently: a row whose result is wrong (a verification mismatch) or whose
// library call failed reports it through fail_row(), which skips the row with the error (Google
// Benchmark prints it) and counts it; fly_bench's main() then exits non-zero. Google Benchmark's
// SkipWithError alone leaves the exit status 0, so a benchmark that lies would still "pass".
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace fly::bench {

inline std::atomic<int>& row_failures() {
  static std::atomic<int> count{0};
  return count;
}

// `row`: the row's name (benchmark::State has no name() in the Google Benchmark 1.7 of Debian).
inline void fail_row(benchmark::State& state, const std::string& row, const std::string& why) {
  row_failures().fetch_add(1);
  std::fprintf(stderr, "fly_bench: FAILED %s: %s\n", row.c_str(), why.c_str());
  state.SkipWithError(why.c_str());
}

}  // namespace fly::bench
