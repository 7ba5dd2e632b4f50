// What every op's tuning table means by "near": a measured shape transfers to a call whose every
// keyed size is within a factor 2 of it, and among those the entry nearest in log2 space applies
// (gemm/gemm_tuning.cpp, pa_decode/pa_decode_tuning.cpp). Internal.
#pragma once

#include <cmath>
#include <cstdint>

namespace fly::dispatch {

// x and y (both >= 1) differ by at most a factor 2, inclusive; in integers, so that the boundary is
// exact and nothing overflows.
inline bool within_factor_2(int64_t x, int64_t y) { return x >= y ? x - y <= y : y - x <= x; }

// |log2(x / y)|: one term of a table's distance.
inline double log2_ratio(int64_t x, int64_t y) {
  return std::fabs(std::log2(static_cast<double>(x)) - std::log2(static_cast<double>(y)));
}

// Distances closer than this are a tie (rounding): the first listed entry keeps it.
inline constexpr double kTuningTie = 1e-9;

}  // namespace fly::dispatch
