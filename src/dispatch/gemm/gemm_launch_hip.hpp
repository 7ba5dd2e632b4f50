// Launching a GEMM block kernel on the caller's HIP stream (gfx942): one block per BM x BN tile of
// D, no allocation, no synchronisation. Errors come back as FLY_STATUS_DEVICE_ERROR. Compiled into
// the generated gfx942 translation units (clang-19, HIP), beside their kernel.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <string>
#include <tuple>

#include "gemm_launch_common.hpp"

namespace fly::kernels {

template <class Block>
fly_status_t launch_hip(void (*kernel)(GemmParams), const fly::dispatch::GemmProblem& problem, void* stream) {
  static_assert(dynamic_smem_bytes<Block>() <= 64 * 1024, "gfx942 gives a workgroup at most 64 KB of LDS");
  if (fly_status_t s = check_kernel_size(problem); s != FLY_STATUS_SUCCESS) return s;
  // buffer loads address a tile's rows through a 32-bit byte range and 32-bit offsets
  const int64_t esize = fly::dispatch::dtype_bytes(problem.a);
  for (auto [name, rows, ld] : {std::tuple{"A", Block::BM, problem.lda}, std::tuple{"B", Block::BN, problem.ldb}}) {
    if (((rows - 1) * ld + problem.k) * esize >= (int64_t{1} << 31)) {
      return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED,
                               std::string("fly_gemm: a ") + std::to_string(rows) + "-row tile of " + name + " (ld " +
                                   std::to_string(ld) + ", K " + std::to_string(problem.k) +
                                   ") spans 2 GiB or more, past the gfx942 buffer loads' 32-bit offsets");
    }
  }
  const dim3 grid(unsigned((problem.m + Block::BM - 1) / Block::BM), unsigned((problem.n + Block::BN - 1) / Block::BN));
  if (fly_status_t s = check_grid_y(grid.y, problem.n, Block::BN); s != FLY_STATUS_SUCCESS) return s;
  // HIP counts a dimension's work-items (blocks x threads) in 32 bits
  if (uint64_t(grid.x) * Block::threads >= (uint64_t{1} << 32)) {
    return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: M = " + std::to_string(problem.m) +
                                                           " takes 2^32 or more gfx942 work-items along the grid's x");
  }
  hipLaunchKernelGGL(kernel, grid, dim3(Block::threads), dynamic_smem_bytes<Block>(), static_cast<hipStream_t>(stream),
                     gemm_params(problem));
  if (hipError_t e = hipGetLastError(); e != hipSuccess) {
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: kernel launch failed: ") + hipGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::kernels
