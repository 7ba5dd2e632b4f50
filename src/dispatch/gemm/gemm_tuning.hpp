// GEMM tuning tables: per target and dtypes, the variant measured fastest at a problem shape.
// Internal (C++), not part of the C API.
//
// The data lives in src/dispatch/tuning/<target>.tsv (committed; written on the target by
// `fly_bench --tune`). cmake/fly_tuning.cmake turns every table into C++ at configure time, in
// every build: a host-only build has the table but no variant it names, so it never applies there.
// select_gemm_variant (gemm_registry.hpp) consults it before its heuristic.
#pragma once

#include <cstdint>
#include <span>

#include "fly/fly.h"
#include "gemm_registry.hpp"

namespace fly::dispatch {

// One measured line of a table: on `target`, for ab_type x ab_type -> d_type at m x n x k, the
// variant named `variant` was the fastest.
struct GemmTuning {
  Target target;
  fly_dtype_t ab_type, d_type;
  int64_t m, n, k;
  const char* variant;
};

// Every entry of every committed table (generated; may be empty).
std::span<const GemmTuning> gemm_tuning();

// The entry that applies to `problem` on `target`: same target, ab_type == problem.a and d_type ==
// problem.d, each of m, n, k within a factor 2 of the entry's (inclusive), and among those the
// nearest in log2 space (sum over m, n, k of |log2(x / x_entry)|), the first listed on a tie.
// Null when none applies. Measurements transfer between nearby shapes, not across a factor 2.
const GemmTuning* nearest_gemm_tuning(std::span<const GemmTuning> tuning, const GemmProblem& problem, Target target);

// The second reach, for a problem no entry is within a factor 2 of in every dimension: among the
// entries of the target and dtypes whose m is within a factor 2 (n and k anything), the nearest in
// log2 space. On the H200 the fastest variant follows M much more than N and K: an N = K = 8192
// entry's variant ran the N = K = 4096 and 4096 x 14336 shapes within 1.07-1.15x of their own best,
// where the heuristic's pick was 2.3-3.4x slower (docs/gemm.md, "Tuning tables"). The selection
// still refuses it when it pads the call much more than the least padded variant.
const GemmTuning* nearest_gemm_tuning_by_m(std::span<const GemmTuning> tuning, const GemmProblem& problem,
                                           Target target);

// sum over m, n, k of |log2(problem / entry)|: 0 for the entry's own shape.
double gemm_tuning_distance(const GemmTuning& entry, const GemmProblem& problem);

}  // namespace fly::dispatch
