// Launching a TMA-fed GEMM block (GemmWgmmaTmaBlock, GemmWgmmaWsBlock) on the caller's stream: the
// two tensor maps are encoded on the host for this call (no device work, no allocation) and passed
// by value with the parameters as one __grid_constant__ argument; GemmWgmmaTmaBlock's blocks are
// launched in clusters of ClusterN along N, the persistent GemmWgmmaWsBlock's one per SM.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "gemm_dependent_launch.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_launch_cuda.hpp"
#include "gemm_registry.hpp"
#include "gemm_store_box.hpp"
#include "status_internal.hpp"
#include "tma_desc_cuda.hpp"

namespace fly::kernels {

struct GemmTmaArgs {
  CUtensorMap a, b;  // 64-byte aligned by CUtensorMap's own alignment
  CUtensorMap d;       // a TmaStore block's epilogue boxes, when d_by_tma
  CUtensorMap a_edge;  // a persistent block's A in edge boxes, when a_by_edge (make_gemm_edge_map)
  GemmParams p;
  bool d_by_tma, a_by_edge;
};

// The kernel of a Block, for blocks outside the generated grid (the tests' clusters); the grid's
// kernels are generated with their variant's name (fly_gemm_generator).
template <class Block>
__global__ void __launch_bounds__(Block::threads) gemm_wgmma_tma_kernel(const __grid_constant__ GemmTmaArgs args) {
  // 128, not 1024: the compiler trusts a declared alignment and would fold Block::run's align-up
  // away, while the runtime does not promise it for dynamic shared memory.
  extern __shared__ __align__(128) unsigned char smem[];
  warm_b_then_wait<Block>(args.p, int64_t(blockIdx.y) * Block::BN, int(threadIdx.x));
  Block::run(args.a, args.b, args.p, smem, int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
}

// The call's parameters and the two tensor maps a Block's boxes read (A: M x K in boxes of
// a_box_rows x box_cols bytes, B: N x K in boxes of b_box_rows x box_cols).
template <class Block>
fly_status_t make_gemm_tma_args(const fly::dispatch::GemmProblem& problem, GemmTmaArgs& args) {
  // a cluster's tiles may start past M or N (their boxes read zeros, their stores are skipped): the
  // rule's 4096 of reach keeps their 32-bit offsets from wrapping (four tiles of 256 and one more)
  if (fly_status_t s = check_kernel_size(problem); s != FLY_STATUS_SUCCESS) return s;
  args.p = gemm_launch_params(problem);
  args.d_by_tma = false;
  args.a_by_edge = false;
  if (fly_status_t s = make_tma_desc_2d(&args.a, {problem.A, problem.m, problem.k, problem.lda, Block::a_box_rows,
                                                  Block::box_cols});
      s != FLY_STATUS_SUCCESS)
    return s;
  return make_tma_desc_2d(&args.b, {problem.B, problem.n, problem.k, problem.ldb, Block::b_box_rows, Block::box_cols});
}

// D's tensor map for a TmaStore block (GemmWgmmaWsBlock's `:st` cells), in boxes of one store
// chunk, where gemm_store_box allows it (beta = 0, D's base and rows 16-byte aligned). Otherwise,
// or where the driver cannot encode it, the block stores D directly (d_by_tma false).
template <class Block>
void make_gemm_store_map(const fly::dispatch::GemmProblem& problem, GemmTmaArgs& args) {
  if constexpr (Block::tma_store) {
    using Chunk = typename Block::StoreChunk;
    TmaBox2d box;
    args.d_by_tma = gemm_store_box(problem, Chunk::rows, Chunk::row_bytes, Chunk::elem_bytes, box) &&
                    try_make_tma_desc_2d(&args.d, box);
  }
}

// A's edge map for a persistent Block (GemmWgmmaWsBlock): where M is not a whole number of the
// block's A slices, boxes of only the rows up to M's next 8 (Block::edge_box_rows) for the slice
// that M cuts, so that the TMA does not zero-fill the rest of a whole box (the H100 run of
// 2026-12-05, docs/gemm-log.md "Thirteenth session": the best cell 1.05-1.17x faster where M cuts a
// tile, the same elsewhere). FLY_GEMM_EDGE_BOX=0 turns it off, to time against. Where the driver
// cannot encode it, the block loads whole boxes (a_by_edge false).
template <class Block>
void make_gemm_edge_map(const fly::dispatch::GemmProblem& problem, GemmTmaArgs& args) {
  static const bool on = dispatch::env_switch("FLY_GEMM_EDGE_BOX", true);
  if (!on || problem.m % Block::a_slice_rows == 0) return;
  TmaBox2d box{problem.A, problem.m, problem.k, problem.lda, Block::edge_box_rows(problem.m), Block::box_cols};
  args.a_by_edge = try_make_tma_desc_2d(&args.a_edge, box);
}

// Kernel runs Block::run over its arguments, as gemm_wgmma_tma_kernel does.
template <class Block, void (*Kernel)(GemmTmaArgs)>
fly_status_t launch_tma_cuda(const fly::dispatch::GemmProblem& problem, void* stream) {
  GemmTmaArgs args{};
  if (fly_status_t s = make_gemm_tma_args<Block>(problem, args); s != FLY_STATUS_SUCCESS) return s;
  const unsigned n_blocks = unsigned((problem.n + Block::BN - 1) / Block::BN);
  const unsigned clusters = (n_blocks + Block::cluster_n - 1) / Block::cluster_n;
  if (fly_status_t s = check_grid_y(uint64_t(clusters) * Block::cluster_n, problem.n, Block::BN); s != FLY_STATUS_SUCCESS)
    return s;
  if (fly_status_t s = allow_kernel_smem<Block, Kernel>(); s != FLY_STATUS_SUCCESS) return s;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned((problem.m + Block::BM - 1) / Block::BM), clusters * Block::cluster_n);
  config.blockDim = dim3(Block::threads);
  config.dynamicSmemBytes = Block::smem_bytes;
  config.stream = static_cast<cudaStream_t>(stream);
  cudaLaunchAttribute attrs[2];
  dispatch::set_launch_attributes(config, attrs, args.p.let_next_start, {1, unsigned(Block::cluster_n)});
  if (cudaError_t e = cudaLaunchKernelEx(&config, Kernel, args); e != cudaSuccess) {
    (void)cudaGetLastError();  // reported here: not left for the caller's next CUDA call
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: kernel launch failed: ") + cudaGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

// A persistent Block (GemmWgmmaWsBlock): as many blocks as the device runs at once (one per SM,
// or with clusters as many clusters as it can co-schedule: cudaOccupancyMaxActiveClusters, asked
// once per device), at most one per tile; the blocks walk the tiles themselves. Host queries only,
// no device work.
template <class Block, void (*Kernel)(GemmTmaArgs)>
fly_status_t launch_tma_persistent_cuda(const fly::dispatch::GemmProblem& problem, void* stream) {
  GemmTmaArgs args{};
  if (fly_status_t s = make_gemm_tma_args<Block>(problem, args); s != FLY_STATUS_SUCCESS) return s;
  make_gemm_store_map<Block>(problem, args);
  make_gemm_edge_map<Block>(problem, args);
  if (fly_status_t s = allow_kernel_smem<Block, Kernel>(); s != FLY_STATUS_SUCCESS) return s;
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(Block::threads);
  config.dynamicSmemBytes = Block::smem_bytes;
  config.stream = static_cast<cudaStream_t>(stream);
  constexpr dispatch::ClusterShape cluster{unsigned(Block::cluster), 1};
  cudaLaunchAttribute attrs[2];
  dispatch::set_launch_attributes(config, attrs, args.p.let_next_start, cluster);
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: no current device: ") + cudaGetErrorString(e));
  static std::atomic<int> resident[64];  // blocks at once, per device (0: not asked yet)
  int blocks = device < 64 ? resident[device].load(std::memory_order_relaxed) : 0;
  if (blocks == 0) {
    int sms = 0;
    if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
      return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: cannot read the SM count: ") +
                                                            cudaGetErrorString(e));
    blocks = sms;
    if constexpr (Block::cluster > 1) {
      int clusters = 0;
      cudaLaunchConfig_t shape = config;  // the cluster shape alone: what the occupancy query reads
      shape.gridDim = dim3(unsigned(sms / Block::cluster * Block::cluster));
      cudaLaunchAttribute cluster_dims = dispatch::cluster_attribute(cluster);
      shape.attrs = &cluster_dims;
      shape.numAttrs = 1;
      if (cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, Kernel, &shape); e != cudaSuccess || clusters < 1) {
        (void)cudaGetLastError();  // reported here: not left for the caller's next CUDA call
        return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: no cluster of ") +
                                                              std::to_string(Block::cluster) + " blocks fits: " +
                                                              cudaGetErrorString(e));
      }
      blocks = std::min(sms / Block::cluster, clusters) * Block::cluster;
    }
    if (device < 64) resident[device].store(blocks, std::memory_order_relaxed);
  }
  const int64_t rows = int64_t(Block::BM) * Block::cluster_m, cols = int64_t(Block::BN) * Block::cluster_n;
  const int64_t cluster_tiles = ((problem.m + rows - 1) / rows) * ((problem.n + cols - 1) / cols);
  config.gridDim = dim3(unsigned(std::min<int64_t>(blocks, cluster_tiles * Block::cluster)));
  if (cudaError_t e = cudaLaunchKernelEx(&config, Kernel, args); e != cudaSuccess) {
    (void)cudaGetLastError();  // reported here: not left for the caller's next CUDA call
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_gemm: kernel launch failed: ") + cudaGetErrorString(e));
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::kernels
