// How GemmWgmmaWsBlock and GemmSimtBlock split a tile's K over a cluster of SplitK blocks (cells
// `:k2`, `:k4`), as plain C++ beside the kernels: which k-tiles each block takes, which block
// finishes which of a thread's accumulator floats, and where the other blocks' copies of them wait
// in the receiver's shared memory. test/kernels/test_gemm_split_k.cpp checks it on the host. The
// cluster primitives a block's exchange uses have host stand-ins, so that a host test can run a
// whole cluster's blocks as host threads (test/kernels/test_gemm_simt.cpp).
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90_tma.hpp"
#include "fly/layout/config.hpp"

namespace fly::kernels {

// FragFloats: one thread's accumulator floats of a tile (GemmWgmmaWsBlock: subs x acc_size);
// Threads: the threads that exchange them (a consumer warpgroup, or a SIMT block).
template <int FragFloats, int SplitK, int Threads = 128>
struct SplitKExchange {
  static_assert(SplitK == 1 || SplitK == 2 || SplitK == 4, "SplitKExchange: a split over 1, 2 or 4 blocks");
  static_assert(FragFloats % (4 * SplitK) == 0, "SplitKExchange: each slice is whole float4s");
  static constexpr int slice_floats = FragFloats / SplitK;  // what one block finishes, per thread
  static constexpr int quads = slice_floats / 4;
  // one sender's copies of a slice for the Threads: float4s with consecutive threads adjacent
  static constexpr int slot_bytes = slice_floats * Threads * 4;
  static constexpr int buffer_bytes = (SplitK - 1) * slot_bytes;  // the Threads' slots, one per other block

  // The first k-tile of share `share` of a tile's k_tiles (share SplitK: the end). The shares are
  // even; where SplitK does not divide k_tiles the later ones are a k-tile longer, and with fewer
  // k-tiles than blocks some are empty.
  static FLY_HD int k_begin(int k_tiles, int share) { return int(int64_t(k_tiles) * share / SplitK); }

  // The block (cluster rank) that finishes fragment float f: the slices are contiguous runs.
  static FLY_HD int owner(int f) { return f / slice_floats; }

  // The receiver's slot for a sender's copies: the senders in rank order, the receiver skipped.
  static FLY_HD int slot(int sender, int receiver) { return sender < receiver ? sender : sender - 1; }

  // Byte offset in the Threads' buffer of thread t's float4 holding slice float 4 q .. 4 q + 3,
  // in `slot`: a warp's 32 float4s are 512 contiguous bytes (no bank conflict).
  static FLY_HD uint32_t offset(int slot, int q, int t) {
    return uint32_t(((slot * quads + q) * Threads + t) * 16);
  }
};

#if !defined(__CUDA_ARCH__)
// A host test that runs a cluster's blocks as host threads sets these in each of them: its block's
// rank, a rendezvous of every thread of the cluster, and each block's shared memory.
inline thread_local int host_cluster_rank = 0;
inline thread_local void (*host_cluster_sync)() = nullptr;
inline thread_local float* (*host_cluster_smem)(int rank) = nullptr;
#endif

// This block's rank in its cluster.
FLY_HOST_DEVICE inline int split_rank() {
#if defined(__CUDA_ARCH__)
  return int(cluster::block_rank());
#else
  return host_cluster_rank;
#endif
}

// Every thread of the cluster meets; shared-memory stores before it, local or remote, are seen by
// every thread of the cluster after it (release / acquire at cluster scope).
FLY_HOST_DEVICE inline void split_sync() {
#if defined(__CUDA_ARCH__)
  cluster::sync();
#else
  if (host_cluster_sync != nullptr) host_cluster_sync();
#endif
}

// Four floats at smem + offset in the shared memory of block `rank` of the cluster (smem: this
// block's shared memory, laid out as every block's; offset: in floats, a multiple of 4).
FLY_HOST_DEVICE inline void store_to_block(float* smem, int offset, int rank, float x, float y, float z, float w) {
#if defined(__CUDA_ARCH__)
  cluster::store_remote(uint32_t(__cvta_generic_to_shared(smem + offset)), uint32_t(rank), x, y, z, w);
#else
  (void)smem;
  float* to = host_cluster_smem(rank) + offset;
  to[0] = x, to[1] = y, to[2] = z, to[3] = w;
#endif
}

}  // namespace fly::kernels
