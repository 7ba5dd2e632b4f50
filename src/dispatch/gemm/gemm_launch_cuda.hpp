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
#include "gemm_epilogue.hpp"
#include "gemm_registry.hpp"
#include "status_internal.hpp"

namespace fly::kernels {

inline GemmParams gemm_params(const fly::dispatch::GemmProblem& p) {
  GemmParams g;
  g.m = int(p.m);
  g.n = int(p.n);
  g.k = int(p.k);
  g.lda = p.lda;
  g.ldb = p.ldb;
  g.ldc = p.ldc;
  g.ldd = p.ldd;
  g.a = p.A;
  g.b = p.B;
  g.c = p.C;
  g.d = p.D;
  g.alpha = p.alpha;
  g.beta = p.beta;
  g.scale_a = p.scale_a;
  g.scale_b = p.scale_b;
  return g;
}

template <class Block>
constexpr int dynamic_smem_bytes() {
  if constexpr (requires { Block::smem_bytes; }) {
    return Block::smem_bytes;
  } else {
    return 0;
  }
}

// A Block's kernel allowed its dynamic shared memory (cuda_smem.hpp), once per device.
template <class Block, class Kernel>
cudaError_t allow_dynamic_smem(Kernel kernel) {
  static std::atomic<uint64_t> done{0};
  return dispatch::allow_dynamic_smem(kernel, dynamic_smem_bytes<Block>(), done);
}

// A grid's y extent (column blocks, or clusters x their size) is at most 65535.
inline fly_status_t check_grid_y(uint64_t blocks_y, int64_t n, int bn) {
  if (blocks_y <= 65535u) return FLY_STATUS_SUCCESS;
  return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: N = " + std::to_string(n) +
                                                         " needs more than 65535 column blocks of " + std::to_string(bn));
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
