// Launching a generated paged-decode variant on the caller's CUDA stream: the kernel (one block
// per sequence x kv head x row chunk x split) and, with several splits, a reduction (or, with
// FLY_PA_DECODE_FOLD=1, the kernel alone, its last split of each row chunk merging them). No
// allocation, no synchronisation, no device memory read on the host: graph-capturable.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "cuda_dependent_launch.hpp"
#include "cuda_smem.hpp"
#include "pa_decode_launch_common.hpp"
#include "status_internal.hpp"

namespace fly::dispatch {

// Resident blocks per SM of a variant's kernel on the current device (at least 1), measured once
// per process: the split plan fills SMs x this many slots (pa_decode_select.cpp).
template <class Tile, class Arg>
int pa_decode_blocks_per_sm(void (*kernel)(Arg)) {
  static std::atomic<int> cached{0};
  if (int n = cached.load(std::memory_order_relaxed); n > 0) return n;
  static std::atomic<uint64_t> smem_done{0};
  int n = 0;
  if (allow_dynamic_smem(kernel, Tile::smem_bytes, smem_done) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, Tile::threads, Tile::smem_bytes) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();  // a failed query is not the caller's error: plan for one block per SM
    return 1;
  }
  cached.store(n, std::memory_order_relaxed);
  return n;
}

// Both kernels of a call are programmatic dependent launches: each is scheduled while the kernel
// before it on the stream finishes (the decode behind the previous call's reduce or an engine's
// kernel, the reduce behind the decode's last blocks) and waits for it in the kernel
// (griddepcontrol.wait) before it reads anything, hiding the launch latency.
// FLY_PA_DECODE_PDL=0 (read once) launches them plainly, for measuring what the overlap gives.
inline bool programmatic_launch() {
  static const bool on = env_switch("FLY_PA_DECODE_PDL", true);
  return on;
}

// FLY_PA_DECODE_FOLD=1 (read once): the splits of a call merge themselves, the last to finish a
// row chunk merging it, and no reduce kernel runs (pa_decode_merge.cuh). Off by default: on the
// H200 it ties the reduce kernel from 4 splits up and loses 2.4-3.3 us at batch 1 (32 and 47
// splits), where one warp's merge of a row is a chain of L2 round trips that the reduce kernel's
// 256 threads a row issue at once (docs/pa-decode.md, Split-K).
inline bool fold_splits() {
  static const bool on = env_switch("FLY_PA_DECODE_FOLD", false);
  return on;
}

// The per-warp and persistent kernels prefetch their first groups into L2 while the grid before
// them finishes (pa_decode_warp_feed.cuh, warm_groups_l2): only where they are programmatic
// dependent launches (otherwise nothing runs before the wait), for 16-bit caches (below).
// FLY_PA_DECODE_WARM=0 (read once) turns it off, for measuring what it gives.
inline bool warm_l2_before_wait() {
  static const bool on = programmatic_launch() && env_switch("FLY_PA_DECODE_WARM", true);
  return on;
}

// A fresh epoch for each launch whose splits count themselves in, 1 .. 2^31 - 1 and around again
// (pa_decode_work.hpp, split_counter_claimed): shared by every handle and thread of the process.
inline uint32_t next_split_epoch() {
  static std::atomic<uint32_t> launches{0};
  return launches.fetch_add(1, std::memory_order_relaxed) % 0x7fffffffu + 1;
}

template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, int threads, size_t smem, cudaStream_t s,
                             Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = smem;
  config.stream = s;
  cudaLaunchAttribute attrs[2];
  set_launch_attributes(config, attrs, programmatic_launch());
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

inline cudaError_t launch_reduce(void (*reduce)(kernels::PaDecodeParams, bool), int threads,
                                 const kernels::PaDecodeParams& params, bool out_bf16, int64_t rows, cudaStream_t s) {
  return launch_dependent(reduce, dim3(unsigned(rows)), threads, 0, s, params, out_bf16);
}

// The checks and launches every paged-decode variant shares. ReduceThreads: the block size the
// reduce kernel is compiled for; make_arg(params, arg) builds the kernel's argument from the
// parameters (a status other than success stops the launch).
template <class Tile, int ReduceThreads, class Arg, class MakeArg>
fly_status_t launch_pa_decode(void (*kernel)(Arg), void (*reduce)(kernels::PaDecodeParams, bool), const PaDecodeProblem& p,
                              const PaDecodePlan& plan, void* stream, MakeArg make_arg) {
  static std::atomic<uint64_t> smem_done{0};
  const char* fn = "fly_pa_decode";
  if (std::string why = pa_decode_kernel_size_rejection(p); !why.empty())
    return detail::fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) + ": " + why);
  const int64_t units = pa_decode_units(p, plan);
  const int64_t rows = p.num_seqs * p.q_len * p.num_q_heads;
  if (units > INT32_MAX)
    return detail::fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) + ": " + std::to_string(units) +
                                                      " units of work exceed the grid's 2^31 - 1");
  // a persistent grid's warps take the units in turn; otherwise a block per unit
  const int64_t blocks = plan.grid_blocks > 0 ? std::min(plan.grid_blocks, units) : units;
  if (plan.splits > 1 && plan.workspace == nullptr)
    return detail::fail(FLY_STATUS_INTERNAL_ERROR, std::string(fn) + ": a split plan without workspace");
  if (cudaError_t e = allow_dynamic_smem(kernel, Tile::smem_bytes, smem_done); e != cudaSuccess)
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string(fn) + ": cannot give the kernel " +
                                                     std::to_string(Tile::smem_bytes) + " bytes of shared memory: " +
                                                     cudaGetErrorString(e));
  kernels::PaDecodeParams params = pa_decode_params(p, plan);
  // not for fp8 caches: at batch 1 the TMA-fed fp8 cell measured 2% slower with it, at batch 8 no
  // faster (docs/pa-decode.md, 2026-12-04 fourth session)
  params.warm_l2 = warm_l2_before_wait() && Tile::kind != kernels::pa::KvKind::fp8;
  const bool folded = plan.splits > 1 && fold_splits();
  if (folded) {
    params.split_counters = pa_decode_split_counters(p, plan);
    params.epoch = next_split_epoch();
  }
  Arg arg;
  if (fly_status_t s = make_arg(params, arg); s != FLY_STATUS_SUCCESS) return s;
  auto s = static_cast<cudaStream_t>(stream);
  cudaError_t e = launch_dependent(kernel, dim3(unsigned(blocks)), Tile::threads, Tile::smem_bytes, s, arg);
  if (e == cudaSuccess && plan.splits > 1 && !folded) e = launch_reduce(reduce, ReduceThreads, params, p.q_type == FLY_DTYPE_BF16, rows, s);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // reported here: not left for the caller's next CUDA call
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string(fn) + ": kernel launch failed: " + cudaGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

// A variant whose kernel takes the parameters themselves (cp.async-fed).
template <class Tile, int ReduceThreads>
fly_status_t launch_pa_decode_cuda(void (*kernel)(kernels::PaDecodeParams), void (*reduce)(kernels::PaDecodeParams, bool),
                                   const PaDecodeProblem& p, const PaDecodePlan& plan, void* stream) {
  return launch_pa_decode<Tile, ReduceThreads>(kernel, reduce, p, plan, stream,
                                               [](const kernels::PaDecodeParams& params, kernels::PaDecodeParams& arg) {
                                                 arg = params;
                                                 return FLY_STATUS_SUCCESS;
                                               });
}

}  // namespace fly::dispatch
