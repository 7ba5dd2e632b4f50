// The mbarrier ring of the TMA-fed wgmma blocks (gemm_wgmma_tma_kernel.hpp, one tile per block;
// gemm_wgmma_ws_kernel.hpp, persistent): Stages stages, each with a full barrier (the producer's
// expect_tx arrival), an empty barrier (one arrival per consumer) and, in a cluster of blocks
// sharing multicast loads, a cluster_empty barrier that every block's relay warp arrives on once
// its own consumers freed the stage.
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90_tma.hpp"

namespace fly::kernels {

#if defined(__CUDACC__)
template <int Stages, int Cluster>
struct TmaRing {
  // Thread 0 of the block: the barriers at full[0, Stages), full[Stages, 2 Stages) (empty) and,
  // with a cluster, full[2 Stages, 3 Stages) (cluster_empty).
  __device__ static void init(uint64_t* full, uint32_t consumers) {
    uint64_t* empty = full + Stages;
    uint64_t* cluster_empty = empty + Stages;
    for (int s = 0; s < Stages; ++s) {
      mbarrier::init(&full[s], 1);
      mbarrier::init(&empty[s], consumers);
      if constexpr (Cluster > 1) mbarrier::init(&cluster_empty[s], Cluster);
    }
    mbarrier::fence_init();
  }

  // Every thread, after init (and its fence_init): the cluster's barriers exist before any
  // multicast or remote arrival.
  __device__ static void sync_after_init() {
    if constexpr (Cluster > 1) {
      cluster::sync_after_barrier_init();
    } else {
      __syncthreads();
    }
  }

  // The relay warp's lane `lane` (< Cluster): forwards the block's stage releases to block `lane`'s
  // cluster_empty, for all but the last Stages of the ring's `uses` fills (nobody waits for those).
  template <class Count>
  __device__ static void relay(uint64_t* empty, uint64_t* cluster_empty, Count uses, int lane) {
    for (Count t = 0; t < uses - Stages; ++t) {
      const Count s = t % Stages;
      mbarrier::wait(&empty[s], uint32_t(t / Stages) & 1);
      mbarrier::arrive_cluster(&cluster_empty[s], uint32_t(lane));
    }
  }
};
#endif

}  // namespace fly::kernels
