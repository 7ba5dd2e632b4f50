// Launching a GEMM block kernel on the caller's CUDA stream: one block per BM x BN tile of D, no
// allocation, no synchronisation (graph-capturable). Errors come back as FLY_STATUS_DEVICE_ERROR.
// Blocks that stage tiles in shared memory declare smem_bytes; above the default 48 KB the kernel
// is opted in to more once per device.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "cuda_smem.hpp"
#include "gemm_launch_common.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_registry.hpp"
#include "status_internal.hpp"

namespace fly::kernels {

// A Block's kernel allowed its dynamic shared memory (cuda_smem.hpp), once per device.
template <class Block, class Kernel>
cudaError_t allow_dynamic_smem(Kernel kernel) {
  static std::atomic<uint64_t> done{0};
  return dispatch::allow_dynamic_smem(kernel, dynamic_smem_bytes<Block>(), done);
}

template <class Block>
fly_status_t launch_cuda(void (*kernel)(GemmParams), const fly::dispatch::GemmProblem& problem, void* stream) {
  if (problem.m > INT32_MAX || problem.n > INT32_MAX || problem.k > INT32_MAX) {
    return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: the sm_90a kernels take M, N and K below 2^31");
  }
  const dim3 grid(unsigned((problem.m + Block::BM - 1) / Block::BM), unsigned((problem.n + Block::BN - 1) / Block::BN));
  if (fly_status_t s = check_grid_y(grid.y, problem.n, Block::BN); s != FLY_STATUS_SUCCESS) return s;
  if (cudaError_t e = allow_dynamic_smem<Block>(kernel); e != cudaSuccess) {
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: cannot give the kernel ") +
                                                          std::to_string(dynamic_smem_bytes<Block>()) +
                                                          " bytes of shared memory: " + cudaGetErrorString(e));
  }
  kernel<<<grid, Block::threads, dynamic_smem_bytes<Block>(), static_cast<cudaStream_t>(stream)>>>(gemm_params(problem));
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: kernel launch failed: ") + cudaGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::kernels
