// What every paged-decode block does around its main loop, whatever feeds its warps: the grid
// mapping of a block (pa_decode_work.hpp), Q staged in shared memory in the MMA type, each row's
// visible tokens, and the epilogue that merges the warps' partial softmaxes into out + lse (one
// split) or the split's partials (several). Every kernel uses it: pa_decode_kernel.cuh (the block's
// warps share each stage), pa_decode_warp_kernel.cuh (each warp runs its own pipeline) and
// pa_decode_ring_kernel.cuh (a producer warp feeds the computing warps from one ring).
//
// `Block` is the block's shape: head_dim, kind, v_dim_major, rows, warps, threads, q_pitch, o_pitch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "fly/arch/barrier_sm90.hpp"
#include "fly/arch/copy_sm90.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "pa_decode_fragments.cuh"
#include "pa_decode_merge.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_row_out.cuh"
#include "pa_decode_work.hpp"

namespace fly::kernels::pa {

__device__ __forceinline__ float load_q_elem(const void* q, int64_t i, bool bf16) {
  return bf16 ? __bfloat162float(static_cast<const __nv_bfloat16*>(q)[i]) : __half2float(static_cast<const __half*>(q)[i]);
}

// Where a block's query rows come from: row r of the chunk is query row rc * rows + r (16 or 8 a
// block) of the kv
// head's group x q_len rows, i.e. new token i = row / group, query head kv_head * group + row % group.
struct RowMap {
  int32_t first, count, group;  // the chunk's first row, and the rows of the kv head
  __device__ __forceinline__ bool valid(int r) const { return first + r < count; }
  __device__ __forceinline__ int32_t token(int r) const { return (first + r) / group; }
  __device__ __forceinline__ int32_t head(int r, int32_t kv_head) const { return kv_head * group + (first + r) % group; }
};

// The kernel's entry. A decode kernel is a programmatic dependent launch of whatever ran before it
// on the stream (the launcher, pa_decode_launch_cuda.hpp): its blocks may be resident while that
// kernel finishes (the previous call's reduce, in an engine the kernel that wrote q and the cache),
// and read nothing before it completed and its writes are visible (fly::wait_for_previous_grid).
// A body that can warm L2 with its first groups (warm_l2, the per-warp and persistent kernels:
// pa_decode_warp_feed.cuh, warm_groups_l2) does so meanwhile.
template <class Body>
__device__ __forceinline__ void warm_l2_then_wait(const PaDecodeParams& p, int block, int tid) {
  if constexpr (requires { Body::warm_l2(p, block, tid); }) Body::warm_l2(p, block, tid);
  fly::wait_for_previous_grid();
}

// Block `block`'s work (pa_decode_work.hpp), its sequence's length read through the read-only cache;
// lo aligned to `step` tokens.
__device__ __forceinline__ BlockWork block_work(const PaDecodeParams& p, int block, int step) {
  BlockWork w = BlockWork::at(p, block);
  w.bound(p, __ldg(p.seq_lens + w.seq), step);
  return w;
}

// Q's Block::rows rows (16 or 8) x head_dim in shared memory (pitch q_pitch), converted to the MMA type; rows past the
// group x q_len are zero. Called by `Threads` threads (tid < Threads: the block's computing threads,
// or one warp for its own Q); the caller synchronises them.
template <class Block, int Threads = Block::threads>
__device__ void stage_q(const PaDecodeParams& p, uint16_t* qs, const RowMap& rows, int seq, int kv_head, int tid) {
  constexpr bool bf16_mma = Block::kind == KvKind::bf16;
  const bool q_bf16 = Block::kind == KvKind::fp8 ? p.q_bf16 : bf16_mma;
  for (int idx = tid; idx < Block::rows * Block::head_dim; idx += Threads) {
    const int r = idx / Block::head_dim, d = idx % Block::head_dim;
    float x = 0.f;
    if (rows.valid(r)) {
      const int64_t at = int64_t(seq) * p.q_seq + int64_t(rows.token(r)) * p.q_token +
                         int64_t(rows.head(r, kv_head)) * p.q_head + d;
      x = load_q_elem(p.q, at, q_bf16);
    }
    if constexpr (bf16_mma) {
      __nv_bfloat16 v = __float2bfloat16_rn(x);
      qs[r * Block::q_pitch + d] = *reinterpret_cast<uint16_t*>(&v);
    } else {
      __half v = __float2half_rn(x);
      qs[r * Block::q_pitch + d] = *reinterpret_cast<uint16_t*>(&v);
    }
  }
}

// The tokens each of a lane's two rows (Warp::row_of) sees: causal up to the query itself, and the
// window when one is set. Rows past the group x q_len (zero Q, never written) see every token, so
// that they never force the per-token mask on a group that the real rows see whole; what they
// compute (NaN where a TMA-fed stage holds it in the slots past the context: cp.async zero-fills
// them) stays in their own row of S, P and O, and no writer reads it.
template <class Warp>
__device__ __forceinline__ void set_row_bounds(Warp& ws, const PaDecodeParams& p, const RowMap& rows, int32_t len,
                                               int lane) {
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) {
    const int r = Warp::row_of(rh, lane);
    if (rows.valid(r)) {
      const RowTokens seen = row_tokens(p, len, rows.token(r));
      ws.lo[rh] = seen.lo;
      ws.hi[rh] = seen.hi;
    } else {
      ws.lo[rh] = INT32_MIN;
      ws.hi[rh] = INT32_MAX;
    }
  }
}

// A barrier over the block's computing threads (the first Block::threads): the whole block for the
// kernels whose every warp computes; a ring block's producer warp (pa_decode_ring_kernel.cuh) is not
// among them, and may have exited.
template <class Block>
__device__ __forceinline__ void sync_compute() {
  named_barrier::sync<1, Block::threads>();
}

// Runs the main loop compiled for the call's options: loop(fnuz, capped) with fnuz =
// std::true_type for an e4m3fnuz cache (it widens differently, pa_decode_fragments.cuh) and capped =
// std::true_type when a logit soft-cap is set, so the common loop carries neither test per logit.
template <KvKind Kind, class Loop>
__device__ __forceinline__ void for_loop_options(const PaDecodeParams& p, Loop&& loop) {
  auto with_cap = [&](auto fnuz) {
    if (p.softcap > 0.f) {
      loop(fnuz, std::true_type{});
    } else {
      loop(fnuz, std::false_type{});
    }
  };
  if (Kind == KvKind::fp8 && p.fnuz) {
    with_cap(std::true_type{});
  } else {
    with_cap(std::false_type{});
  }
}

// After a block wrote its split's partials, when the launcher set the counters
// (FLY_PA_DECODE_FOLD=1): the block of the last split to finish merges every split's rows
// (pa_decode_merge.cuh), a warp a row. Called by every computing thread; `scratch` is
// the epilogue's (a word of it carries the answer across the block).
template <class Block>
__device__ void merge_if_last(const PaDecodeParams& p, const RowMap& rows, const BlockWork& w, unsigned char* scratch,
                              int tid) {
  volatile int* last = reinterpret_cast<int*>(scratch);  // the epilogue's scratch is read by then
  sync_compute<Block>();  // every partial of the block is written
  if (tid == 0) *last = last_split_arrives(p, split_counter(p, w));
  sync_compute<Block>();
  if (!*last) return;
  const bool out_bf16 = Block::kind == KvKind::fp8 ? p.q_bf16 : Block::kind == KvKind::bf16;
  for (int r = tid >> 5; r < Block::rows && rows.valid(r); r += Block::warps)
    merge_split_row<Block::head_dim>(p, w.seq, rows.token(r), rows.head(r, w.kv_head), out_bf16, tid & 31);
}

// Merges the warps' (max, sum, O) per row through `scratch`, then writes out + lse, or the split's
// partials. Called by every computing thread after the warps stopped reading shared memory.
template <class Block, class Warp>
__device__ void epilogue(const PaDecodeParams& p, Warp& ws, const RowMap& rows, unsigned char* scratch,
                         const BlockWork& work, int tid) {
  const int seq = work.seq, kv_head = work.kv_head, split = work.split;
  const int lane = tid & 31, warp = tid >> 5;
  float* os = reinterpret_cast<float*>(scratch);                          // [warp][row][o_pitch]
  float* ml = os + Block::warps * Block::rows * Block::o_pitch;           // [warp][row][2]
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) {
    const float l = ws.row_sum(rh);
    const int r = Warp::row_of(rh, lane);
    float* orow = os + (warp * Block::rows + r) * Block::o_pitch;
    if (Warp::row_leader(lane)) {
      ml[(warp * Block::rows + r) * 2] = ws.m[rh];
      ml[(warp * Block::rows + r) * 2 + 1] = l;
    }
    ws.for_each_o(rh, lane, [&](int d, float v) { orow[d] = v; });
  }
  sync_compute<Block>();
  const float v_scale = (p.v_scale != nullptr ? __ldg(p.v_scale) : 1.f) * p.v_dequant;
  const bool out_bf16 = Block::kind == KvKind::fp8 ? p.q_bf16 : Block::kind == KvKind::bf16;
  const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
  for (int idx = tid; idx < Block::rows * Block::head_dim; idx += Block::threads) {
    const int r = idx / Block::head_dim, d = idx % Block::head_dim;
    if (!rows.valid(r)) continue;
    float m = -INFINITY;
#pragma unroll
    for (int w = 0; w < Block::warps; ++w) m = fmax_nan(m, ml[(w * Block::rows + r) * 2]);
    float l = 0.f, o = 0.f;
    if (m != -INFINITY) {
#pragma unroll
      for (int w = 0; w < Block::warps; ++w) {
        const float mw = ml[(w * Block::rows + r) * 2];
        if (mw == -INFINITY) continue;
        const float c = exp2f(mw - m);
        l += ml[(w * Block::rows + r) * 2 + 1] * c;
        o += os[(w * Block::rows + r) * Block::o_pitch + d] * c;
      }
    }
    const int32_t i = rows.token(r), h = rows.head(r, kv_head);
    const int64_t qrow = pa_query_row(seq, i, h, p.q_len, q_heads);
    if (p.splits > 1) {
      const int64_t at = int64_t(split) * p.num_seqs * p.q_len * q_heads + qrow;
      p.partial_o[at * Block::head_dim + d] = o;
      if (d == 0) {
        p.partial_ml[at * 2] = m;
        p.partial_ml[at * 2 + 1] = l;
      }
      continue;
    }
    // one split: the sink joins the denominator, then normalise
    float lse = -INFINITY, value = 0.f;
    if (m != -INFINITY) {
      if (p.sinks != nullptr) o *= join_sink(p, h, m, l);
      value = o / l * v_scale;
      lse = row_lse(m, l);
    }
    store_out_elem(p.out, int64_t(seq) * p.out_seq + int64_t(i) * p.out_token + int64_t(h) * p.out_head + d, value,
                   out_bf16);
    if (p.lse != nullptr && d == 0) p.lse[qrow] = lse;
  }
  if (p.splits > 1 && p.split_counters != nullptr) merge_if_last<Block>(p, rows, work, scratch, tid);
}

// After the main loop: every copy landed, the reduce (a programmatic dependent launch) may be
// scheduled (it waits for this grid's completion before it reads the partials), the ring at
// `scratch` is free for the epilogue.
template <class Block, class Warp>
__device__ __forceinline__ void finish(const PaDecodeParams& p, Warp& ws, const RowMap& rows, unsigned char* scratch,
                                       const BlockWork& w, int tid) {
  fly::cp_async_wait_all();
  fly::launch_next_grid();
  sync_compute<Block>();
  epilogue<Block>(p, ws, rows, scratch, w, tid);
}

}  // namespace fly::kernels::pa
