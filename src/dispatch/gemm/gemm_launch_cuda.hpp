// Launching a GEMM block kernel on the caller's CUDA stream: one block per BM x BN tile of D (a
// cluster of split_k per tile where the block splits K), no
// allocation, no synchronisation (graph-capturable). Errors come back as FLY_STATUS_DEVICE_ERROR.
// Blocks that stage tiles in shared memory declare smem_bytes; above the default 48 KB the kernel
// is opted in to more once per device.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cuda_dependent_launch.hpp"
#include "cuda_smem.hpp"
#include "gemm_launch_common.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_registry.hpp"
#include "status_internal.hpp"

namespace fly::kernels {

// Kernel allowed Block's dynamic shared memory (cuda_smem.hpp), once per device and per kernel:
// two kernels may share a Block and differ only in their __launch_bounds__ (a cell and its `:bN`
// twin), and each needs the attribute (a flag per Block let the second launch without it: "invalid
// argument", seen on the H100 on 2026-12-05).
template <class Block, auto Kernel>
fly_status_t allow_kernel_smem() {
  static std::atomic<uint64_t> done{0};
  if (cudaError_t e = dispatch::allow_dynamic_smem(Kernel, dynamic_smem_bytes<Block>(), done); e != cudaSuccess) {
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: cannot give the kernel ") +
                                                          std::to_string(dynamic_smem_bytes<Block>()) +
                                                          " bytes of shared memory: " + cudaGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

// fly_gemm's sm_90a kernels can be programmatic dependent launches (cuda_dependent_launch.hpp): a
// kernel's blocks may then become resident while the kernel before it on the stream finishes,
// prefetch their first B tiles into L2 and wait for it (gemm_dependent_launch.hpp); each block of
// the staged, wgmma, TMA and persistent kernels lets the next kernel be scheduled once it has
// issued its last load. On for fp8 GEMMs, off for fp32 ones, as the H200 measured them in graph
// replay (2026-12-05: fp8 decode shapes 3-11% faster, fp32 at M = 16 and 128 21-27% slower;
// docs/gemm.md, "Programmatic dependent launch"). FLY_GEMM_PDL=0 turns it off for both, =1 on for
// both; FLY_GEMM_WARM=0 skips the prefetch (all read once). Off, the kernels' wait returns at once
// and they trigger nothing (GemmParams::let_next_start: a trigger would let a programmatic launch
// behind the GEMM, such as a paged decode, start early). By default the largest problems launch
// plainly too (gemm_overlap_pays: nothing to gain there, 7% lost at 8192^3).
// -1: FLY_GEMM_PDL not set (the defaults), else the switch's value
inline int gemm_programmatic_launch_forced() {
  static const int forced = std::getenv("FLY_GEMM_PDL") == nullptr ? -1 : dispatch::env_switch("FLY_GEMM_PDL", false);
  return forced;
}
// The type's rule, for a problem below gemm_overlap_pays's size.
inline bool gemm_programmatic_launch(fly_dtype_t ab_type) {
  const int forced = gemm_programmatic_launch_forced();
  return forced < 0 ? ab_type != FLY_DTYPE_F32 : forced == 1;
}
inline bool gemm_programmatic_launch(const fly::dispatch::GemmProblem& problem) {
  return gemm_programmatic_launch(problem.a) &&
         (gemm_programmatic_launch_forced() == 1 || gemm_overlap_pays(problem.m, problem.n, problem.k));
}
// The kernel's parameters; the launch is programmatic exactly where p.let_next_start is set.
inline GemmParams gemm_launch_params(const fly::dispatch::GemmProblem& problem) {
  static const bool warm = dispatch::env_switch("FLY_GEMM_WARM", true);
  GemmParams p = gemm_params(problem);
  p.let_next_start = gemm_programmatic_launch(problem);
  p.warm_b = warm && p.let_next_start;
  return p;
}

// The blocks that share a tile's K (GemmSimtBlock's split_k): a cluster of them along x.
template <class Block>
constexpr int tile_split_k() {
  if constexpr (requires { Block::split_k; }) {
    return Block::split_k;
  } else {
    return 1;
  }
}

template <class Block, void (*Kernel)(GemmParams)>
fly_status_t launch_cuda(const fly::dispatch::GemmProblem& problem, void* stream) {
  if (fly_status_t s = check_kernel_size(problem); s != FLY_STATUS_SUCCESS) return s;
  constexpr int split_k = tile_split_k<Block>();
  const dim3 grid(unsigned((problem.m + Block::BM - 1) / Block::BM) * split_k,
                  unsigned((problem.n + Block::BN - 1) / Block::BN));
  if (fly_status_t s = check_grid_y(grid.y, problem.n, Block::BN); s != FLY_STATUS_SUCCESS) return s;
  if (fly_status_t s = allow_kernel_smem<Block, Kernel>(); s != FLY_STATUS_SUCCESS) return s;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = dim3(Block::threads);
  config.dynamicSmemBytes = dynamic_smem_bytes<Block>();
  config.stream = static_cast<cudaStream_t>(stream);
  const GemmParams params = gemm_launch_params(problem);
  cudaLaunchAttribute attrs[2];
  dispatch::set_launch_attributes(config, attrs, params.let_next_start, {unsigned(split_k), 1});
  if (cudaError_t e = cudaLaunchKernelEx(&config, Kernel, params); e != cudaSuccess) {
    (void)cudaGetLastError();
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: kernel launch failed: ") + cudaGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::kernels
