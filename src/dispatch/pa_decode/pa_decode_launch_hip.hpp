// Launching a generated gfx942 paged-decode variant on the caller's HIP stream: the kernel (one
// block per sequence x kv head x row chunk x split) and, with several splits, the reduction (one
// wavefront per query row). No allocation, no synchronisation, no device memory read on the host:
// graph-capturable. Compiled into the generated gfx942 translation units (clang-19, HIP).
#pragma once

#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "pa_decode_launch_common.hpp"
#include "status_internal.hpp"

namespace fly::dispatch {

// Resident blocks per CU of a variant's kernel on the current device (at least 1), measured once.
template <class Tile>
int pa_decode_blocks_per_cu_hip(void (*kernel)(kernels::PaDecodeParams)) {
  static std::atomic<int> cached{0};
  if (int n = cached.load(std::memory_order_relaxed); n > 0) return n;
  int n = 0;
  if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, reinterpret_cast<const void*>(kernel), Tile::threads, 0) != hipSuccess ||
      n < 1) {
    (void)hipGetLastError();  // a failed query is not the caller's error: plan for one block per CU
    return 1;
  }
  cached.store(n, std::memory_order_relaxed);
  return n;
}

template <class Tile, int ReduceThreads>
fly_status_t launch_pa_decode_hip(void (*kernel)(kernels::PaDecodeParams), void (*reduce)(kernels::PaDecodeParams, bool),
                                  const PaDecodeProblem& p, const PaDecodePlan& plan, void* stream) {
  const char* fn = "fly_pa_decode";
  if (std::string why = pa_decode_kernel_size_rejection(p); !why.empty())
    return detail::fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) + ": " + why);
  // one cache block per 32-bit buffer descriptor
  const int64_t esize = Tile::esize;
  if (p.k_block_stride * esize > INT32_MAX || p.v_block_stride * esize > INT32_MAX)
    return detail::fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) + ": the gfx942 kernels address one cache block (" +
                                                      std::to_string(p.k_block_stride * esize) +
                                                      " bytes) through a buffer descriptor of at most 2^31 bytes");
  const int64_t blocks = pa_decode_units(p, plan);
  const int64_t rows = p.num_seqs * p.q_len * p.num_q_heads;
  // a HIP grid holds fewer than 2^32 work items
  if (blocks * Tile::threads > UINT32_MAX || rows * ReduceThreads > UINT32_MAX)
    return detail::fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) + ": " + std::to_string(blocks) + " blocks of " +
                                                      std::to_string(Tile::threads) + " threads exceed a HIP grid's 2^32 work items");
  if (plan.splits > 1 && plan.workspace == nullptr)
    return detail::fail(FLY_STATUS_INTERNAL_ERROR, std::string(fn) + ": a split plan without workspace");
  const kernels::PaDecodeParams params = pa_decode_params_gfx942(p, plan);
  auto s = static_cast<hipStream_t>(stream);
  hipLaunchKernelGGL(kernel, dim3(unsigned(blocks)), dim3(Tile::threads), 0, s, params);
  hipError_t e = hipGetLastError();
  if (e == hipSuccess && plan.splits > 1) {
    hipLaunchKernelGGL(reduce, dim3(unsigned(rows)), dim3(ReduceThreads), 0, s, params, p.q_type == FLY_DTYPE_BF16);
    e = hipGetLastError();
  }
  if (e != hipSuccess)
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string(fn) + ": kernel launch failed: " + hipGetErrorString(e));
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::dispatch
