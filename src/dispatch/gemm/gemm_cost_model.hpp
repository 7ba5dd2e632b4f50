// The GEMM cost model: per variant, a prediction of its GPU time at any shape, fitted to the times
// the tuner measured (every variant at every tuning shape). select_gemm_variant picks by it where
// no tuning entry is at the call's own shape. Internal (C++), not part of the C API.
//
// For a variant of block tile BM x BN x BK at m x n x k on `sms` SMs:
//   tiles = ceil(m / BM) ceil(n / BN),  kt = ceil(k / BK),  waves = ceil(tiles / sms)
// (a split-K variant, GemmVariant::split_k = N: tiles counts blocks, N a tile, and kt is a block's
// share, ceil(ceil(k / BK) / N))
//   us = c0 + c1 waves kt + c2 tiles kt / sms + c3 (m k + n k + 2 m n) / 1e6 + c4 waves + c5 kt
// a call's fixed cost, the k-tiles of the SM with the most tiles (whole waves), those of the average
// SM (a persistent walk's share), the elements the call streams, a wave's own cost (its fill and
// epilogue) and a k-tile's latency however many tiles run. The coefficients (>= 0, least
// relative error) come from tools/gemm_cost_model.py, which fits the listing of `fly_bench --tune`
// with FLY_TUNE_ALL=1 and writes src/dispatch/tuning/gemm_model_<target>.tsv; cmake/fly_tuning.cmake
// turns that table into C++. Held out of the fit (tools/tuning_holdout.py), the model's picks ran at
// a geometric mean of 1.02x the best on the H100 listing of 2026-12-05, where the tuning table's
// farther reaches picked at 1.15x (docs/gemm.md, "The cost model"). The fit's shapes have n and k
// of 1024 or more: below that its predictions are extrapolations.
#pragma once

#include <span>
#include <vector>

#include "gemm_registry.hpp"

namespace fly::dispatch {

struct GemmCostModel {
  Target target;
  const char* variant;  // the registry's name
  int sms;              // the SM count of the machine the coefficients were fitted on
  double us[6];         // c0 .. c5
};

// Every row of every committed model table (generated; may be empty).
std::span<const GemmCostModel> gemm_cost_model();

// The row for variant `name` on `target`, or null.
const GemmCostModel* find_gemm_cost_model(std::span<const GemmCostModel> model, Target target, const char* name);

// Each variant's row of `model` (null where it has none), in the variants' order.
std::vector<const GemmCostModel*> gemm_cost_model_rows(std::span<const GemmCostModel> model,
                                                        std::span<const GemmVariant> variants);

// The model's time for `variant` (whose tile the features use) on `problem`: on `sms` SMs, or the
// row's own count when sms < 1.
double gemm_model_us(const GemmCostModel& row, const GemmVariant& variant, const GemmProblem& problem, int sms);

}  // namespace fly::dispatch
