// Which part of the decode a block does, the same on every target (the sm_90a kernels through
// pa_decode_block.cuh, the gfx942 kernel through pa_decode_gfx942_kernel.hpp): the grid's block b
// is a (sequence, kv head, split, row chunk), row chunk fastest so that the chunks of one kv head
// run side by side (its K and V stay in L2); the block visits the context tokens of its split that
// any of its rows may see, and each row sees its own causal window of them.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"
#include "pa_decode_params.hpp"

namespace fly::kernels::pa {

struct BlockWork {
  int seq, kv_head, rc, split;
  int32_t len, lo, hi;  // the sequence's visible length; the tokens [lo, hi) the block visits

  // Block `block`'s coordinates; its tokens wait for the sequence's length (bound).
  FLY_HOST_DEVICE static BlockWork at(const PaDecodeParams& p, int block) {
    BlockWork w{};
    w.rc = block % p.row_chunks;
    int rest = block / p.row_chunks;
    w.split = rest % p.splits;
    rest /= p.splits;
    w.kv_head = rest % p.num_kv_heads;
    w.seq = rest / p.num_kv_heads;
    return w;
  }

  // The tokens, from seq_lens[seq] as the caller loaded it (each target through its own path): the
  // split's, from the first new token's window start rounded down to `step` where that is later
  // (lo stays a multiple of step: the split plan's split_tokens is one).
  FLY_HOST_DEVICE void bound(const PaDecodeParams& p, int32_t stored_len, int32_t step) {
    const int32_t counted = stored_len > 0 ? stored_len : 0;
    len = counted < p.max_len ? counted : p.max_len;
    const int32_t begin = split * p.split_tokens;
    lo = begin;
    if (p.window > 0) {
      const int32_t window_start = (len - p.q_len + 1 - p.window) / step * step;
      if (window_start > lo) lo = window_start;
    }
    hi = len < begin + p.split_tokens ? len : begin + p.split_tokens;
  }
};

// Split-K without a reduce kernel: the split that finishes a (sequence, kv head, row chunk) last
// merges the splits' partials (pa_decode_merge.cuh). Each finished split counts itself in on a
// 64-bit word of the caller's workspace, which nothing initialises: the word holds (epoch << 32 |
// count) and the launcher numbers its launches (epochs 1 .. 2^31 - 1). An arrival that finds
// another epoch's word claims it (a compare-and-swap to this epoch, count 0; of the arrivals that
// race for it one wins and the rest see the winner's word), then every arrival adds 1: one atomic
// add each, not a compare-and-swap loop that 32 or more finishing splits retry one by one. An
// earlier call's leftovers and the workspace's first garbage (unless its high half equals this
// launch's epoch) count as nothing. The merging split writes the word back to 0, so a replayed
// graph (its launch's epoch frozen at capture) finds what its last replay left.
FLY_HOST_DEVICE constexpr uint64_t split_counter_claimed(uint64_t word, uint32_t epoch) {
  return (word >> 32) == epoch ? word : uint64_t(epoch) << 32;
}
FLY_HOST_DEVICE constexpr uint32_t split_arrivals(uint64_t word) { return uint32_t(word); }

// The counter of block work w: one per (sequence, kv head, row chunk), in grid order.
FLY_HOST_DEVICE inline int64_t split_counter(const PaDecodeParams& p, const BlockWork& w) {
  return (int64_t(w.seq) * p.num_kv_heads + w.kv_head) * p.row_chunks + w.rc;
}

// The context tokens [lo, hi] the query row of new token `token` sees: causal up to its own
// position, and the window when one is set.
struct RowTokens {
  int32_t lo, hi;
};

FLY_HOST_DEVICE inline RowTokens row_tokens(const PaDecodeParams& p, int32_t len, int32_t token) {
  const int32_t hi = len - p.q_len + token;
  return {p.window > 0 ? hi - p.window + 1 : 0, hi};
}

}  // namespace fly::kernels::pa
