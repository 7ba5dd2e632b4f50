// How GemmWgmmaWsBlock splits a tile's K over a cluster of SplitK blocks (cells `:k2`, `:k4`), as
// plain C++ beside the kernel: which k-tiles each block takes, which block finishes which of a
// consumer thread's accumulator floats, and where the other blocks' copies of them wait in the
// receiver's shared memory. test/kernels/test_gemm_split_k.cpp checks it on the host.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

namespace fly::kernels {

// FragFloats: one consumer thread's accumulator floats of a tile (subs x acc_size).
template <int FragFloats, int SplitK>
struct SplitKExchange {
  static_assert(SplitK == 1 || SplitK == 2 || SplitK == 4, "SplitKExchange: a split over 1, 2 or 4 blocks");
  static_assert(FragFloats % (4 * SplitK) == 0, "SplitKExchange: each slice is whole float4s");
  static constexpr int slice_floats = FragFloats / SplitK;  // what one block finishes, per thread
  static constexpr int quads = slice_floats / 4;
  // one sender's copies of a slice for a consumer warpgroup: float4s with consecutive threads adjacent
  static constexpr int slot_bytes = slice_floats * 128 * 4;
  static constexpr int buffer_bytes = (SplitK - 1) * slot_bytes;  // a warpgroup's slots, one per other block

  // The first k-tile of share `share` of a tile's k_tiles (share SplitK: the end). The shares are
  // even; where SplitK does not divide k_tiles the later ones are a k-tile longer, and with fewer
  // k-tiles than blocks some are empty.
  static FLY_HD int k_begin(int k_tiles, int share) { return int(int64_t(k_tiles) * share / SplitK); }

  // The block (cluster rank) that finishes fragment float f: the slices are contiguous runs.
  static FLY_HD int owner(int f) { return f / slice_floats; }

  // The receiver's slot for a sender's copies: the senders in rank order, the receiver skipped.
  static FLY_HD int slot(int sender, int receiver) { return sender < receiver ? sender : sender - 1; }

  // Byte offset in a warpgroup's buffer of consumer thread t's float4 holding slice float
  // 4 q .. 4 q + 3, in `slot`: a warp's 32 float4s are 512 contiguous bytes (no bank conflict).
  static FLY_HD uint32_t offset(int slot, int q, int t) {
    return uint32_t(((slot * quads + q) * 128 + t) * 16);
  }
};

}  // namespace fly::kernels
