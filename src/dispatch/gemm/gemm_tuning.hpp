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
#include "gemm_cost_model.hpp"
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

// What selection consults besides the variants (select_gemm_variant): the tuning entries, the cost
// model and the device's SM count (0: the model's own). The library's (gemm_tuning(),
// gemm_cost_model()) or a test's.
struct GemmTables {
  std::span<const GemmTuning> tuning = {};
  std::span<const GemmCostModel> model = {};
  int multiprocessors = 0;
  // Optional, parallel to the variants: each one's row of `model` (null: none), which a handle
  // finds once (gemm_cost_model_rows) rather than by name on every decision. Empty: by name.
  std::span<const GemmCostModel* const> model_rows = {};
  // A measuring switch (FLY_GEMM_VARIANT, read by the handle): the one variant selection may
  // return, or null for the usual choice. A call it cannot run is refused, never rerouted.
  const char* forced = nullptr;
};

// The entry that applies to `problem` on `target`: same target, ab_type == problem.a and d_type ==
// problem.d, each of m, n, k within a factor 2 of the entry's (inclusive), and among those the
// nearest in log2 space (sum over m, n, k of |log2(x / x_entry)|), the first listed on a tie.
// Null when none applies. Measurements transfer between nearby shapes, not across a factor 2.
const GemmTuning* nearest_gemm_tuning(std::span<const GemmTuning> tuning, const GemmProblem& problem, Target target);

// The farther reaches, for a problem no entry is within a factor 2 of in every dimension. On the
// H200 the fastest variant follows M and the output's size (how many tiles fill the SMs) far more
// than K: held out of the table (every entry within a factor 2 removed), each tuned shape of device
// runs 2 and 6 of the fourth 2026-12-03 session ran its nearest such entry's variant at a geometric
// mean of 1.16x / 1.12x its own best, against 1.26x / 1.25x through m alone and 1.48x / 1.23x
// through the heuristic (tools/tuning_holdout.py; docs/gemm.md, "Tuning tables"). The selection refuses either reach's variant when it
// pads the call much more than the least padded variant.
//
// Second reach: entries whose m is within a factor 2 and whose m x n is within a factor 4.
const GemmTuning* nearest_gemm_tuning_by_output(std::span<const GemmTuning> tuning, const GemmProblem& problem,
                                                Target target);

// Third reach, for decode rows only (m <= kTuningDecodeRows, where a GEMM streams the weight and
// the tile follows m alone; the caller, select_gemm_variant, applies that bound): entries whose m
// is within a factor 2 (n and k anything).
inline constexpr int64_t kTuningDecodeRows = 32;
const GemmTuning* nearest_gemm_tuning_by_m(std::span<const GemmTuning> tuning, const GemmProblem& problem,
                                           Target target);

// sum over m, n, k of |log2(problem / entry)|: 0 for the entry's own shape.
double gemm_tuning_distance(const GemmTuning& entry, const GemmProblem& problem);

}  // namespace fly::dispatch
