// Launching a GEMM block kernel on the caller's HIP stream (gfx942): one block per BM x BN tile of
// D, no allocation, no synchronisation. Errors come back as FLY_STATUS_DEVICE_ERROR. Compiled into
// the generated gfx942 translation units (clang-19, HIP), beside their kernel.
#pragma once

#include <hip/hip_runtime.h>

#include <string>

#include "gemm_launch_common.hpp"

namespace fly::kernels {

template <class Block>
fly_status_t launch_hip(void (*kernel)(GemmParams), const fly::dispatch::GemmProblem& problem, void* stream) {
  static_assert(dynamic_smem_bytes<Block>() <= 64 * 1024, "gfx942 gives a workgroup at most 64 KB of LDS");
  if (problem.m > INT32_MAX || problem.n > INT32_MAX || problem.k > INT32_MAX) {
    return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: the gfx942 kernels take M, N and K below 2^31");
  }
  const dim3 grid(unsigned((problem.m + Block::BM - 1) / Block::BM), unsigned((problem.n + Block::BN - 1) / Block::BN));
  if (fly_status_t s = check_grid_y(grid.y, problem.n, Block::BN); s != FLY_STATUS_SUCCESS) return s;
  hipLaunchKernelGGL(kernel, grid, dim3(Block::threads), dynamic_smem_bytes<Block>(), static_cast<hipStream_t>(stream),
                     gemm_params(problem));
  if (hipError_t e = hipGetLastError(); e != hipSuccess) {
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: kernel launch failed: ") + hipGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::kernels
