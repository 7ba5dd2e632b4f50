// fly_handle_s: the backend and device a handle is bound to, and its cache of GEMM dispatch
// decisions. Internal.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "fly/fly.h"
#include "gemm/gemm_registry.hpp"
#include "gemm/gemm_cost_model.hpp"
#include "gemm/gemm_tuning.hpp"
#include "pa_decode/pa_decode_registry.hpp"
#include "pa_decode/pa_decode_tuning.hpp"
#include "platform.hpp"

namespace fly::dispatch {

// What fly_gemm runs for one problem: the host reference, a registry variant, or nothing.
struct GemmDecision {
  bool host = false;                     // the host reference (host backend)
  const GemmVariant* variant = nullptr;  // GPU backends: null when nothing can run the problem
  std::string line;                      // "<name>: <why>" or "none: <why>" (fly_gemm_explain)
};

}  // namespace fly::dispatch

struct fly_handle_s {
  fly::platform::DeviceInfo device;                      // backend HOST for the host backend
  std::span<const fly::dispatch::GemmVariant> variants;  // the registry (tests substitute their own)
  std::span<const fly::dispatch::GemmTuning> tuning;     // the tuning tables (tests: their own or none)
  std::span<const fly::dispatch::GemmCostModel> model;   // the GEMM cost model (tests: their own or none)
  std::vector<const fly::dispatch::GemmCostModel*> model_rows;  // variants[i]'s row of `model`, found once
  std::span<const fly::dispatch::PaDecodeVariant> pa_decode_variants;  // the paged-decode registry
  std::span<const fly::dispatch::PaDecodeTuning> pa_decode_tuning;     // its tuning tables (tests: their own)
  bool log_dispatch = false;                             // FLY_LOG_DISPATCH at creation

  // The decision for `problem`, from the cache or computed (and cached). Thread-safe. `with_line`:
  // fill decision.line (otherwise it may stay empty). May throw std::bad_alloc.
  fly::dispatch::GemmDecision decide_gemm(const fly::dispatch::GemmProblem& problem, bool with_line);

  // Number of cached decisions (tests).
  size_t cached_decisions();

 private:
  // Selection depends on the dtypes, the exact shape (padding waste, and the nearest tuned shape:
  // any of m, n, k may cross a factor-2 bound or a nearest-entry boundary) and the alignment class.
  // Target, variants and tuning are fixed per handle.
  using Key = std::tuple<int, int, int64_t, int64_t, int64_t, int>;  // a, d, m, n, k, align
  struct Entry {
    int variant;  // index into `variants`, -1 for none
    std::string why;
  };
  static constexpr size_t max_cached = 4096;  // bounded: a long-running engine sees many M values
  std::mutex mutex_;
  std::map<Key, Entry> cache_;
};

namespace fly::dispatch {

// A handle for `device` (backend HOST: the host backend) dispatching over `variants`, consulting
// `tuning` first. Reads FLY_LOG_DISPATCH. Used by fly_create / fly_create_host (the library's
// variants and tables), and by tests with a fake registry. May throw std::bad_alloc.
fly_handle_t make_handle(const platform::DeviceInfo& device, std::span<const GemmVariant> variants,
                         std::span<const GemmTuning> tuning = {}, std::span<const GemmCostModel> model = {});

// "m=17 n=31 k=7 e4m3fn x e4m3fn -> bf16": the problem, for messages.
std::string describe_problem(const GemmProblem& problem);

}  // namespace fly::dispatch
