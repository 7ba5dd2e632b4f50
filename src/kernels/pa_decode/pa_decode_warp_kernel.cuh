// The paged-decode kernel with a pipeline per warp: the block's context tokens are dealt out in
// 16-token groups (one cache page each, block_size >= 16), group g to warp g % Warps, and every
// warp streams its own groups through its own ring of Stages shared-memory stages (filled by
// cp.async or TMA, pa_decode_warp_feed.cuh), Stages - 1 groups ahead of the one it computes. No
// warp waits for another inside the loop, and a warp holds one stage while it computes, so
// Stages - 1 of its stages are in flight all the time
// (the block-step kernel, pa_decode_kernel.cuh, has half its ring in flight at best and joins its
// warps at every step). The block shares Q, the row bounds and the epilogue (pa_decode_block.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "fly/arch/copy_sm90.hpp"
#include "pa_decode_block.cuh"
#include "pa_decode_load.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_tile.cuh"
#include "pa_decode_warp.cuh"
#include "pa_decode_warp_n8.cuh"
#include "pa_decode_warp_feed.cuh"

namespace fly::kernels::pa {

// One warp's stage: the shapes the loaders and the warp's MMA fragments take, with Q's fragments
// held in registers or read from shared memory at every group. A TMA-fed stage holds each tile as
// its 128-byte parts, one box each ([part][16 rows][128 bytes]), in the tensor map's 128-byte
// swizzle: chunk c of a row sits at (c % 8) ^ (row % 8) within its part.
template <int HeadDim, KvKind Kind, bool VDimMajor, bool QInRegisters, bool Tma, int Rows = 16>
struct WarpStep : Tile<HeadDim, Kind, VDimMajor, 16, 1, 2, Rows> {
  using Base = Tile<HeadDim, Kind, VDimMajor, 16, 1, 2, Rows>;
  static constexpr bool q_in_registers = QInRegisters;
  __device__ static int kv_chunk(int row, int c) {
    if constexpr (Tma) {
      return (c >> 3) * (16 * 8) + row * 8 + ((c & 7) ^ (row & 7));
    } else {
      return Base::kv_chunk(row, c);
    }
  }
};

// The consumer state of a step's rows: the m16 products for 16 query rows (pa_decode_warp.cuh), the
// transposed n8 ones for 8 (pa_decode_warp_n8.cuh).
template <class Step>
using WarpStateOf = std::conditional_t<Step::rows == 8, WarpStateN8<Step>, WarpState<Step>>;

// What every block of 16-token groups shares, however its stages are fed (WarpTile: a ring per
// warp; RingTile: one ring and a producer warp): one group's stage, Q's staging and the epilogue's
// pitch.
template <int HeadDim, KvKind Kind, bool VDimMajor, int Rows = 16>
struct GroupShape {
  using Shape = Tile<HeadDim, Kind, VDimMajor, 16, 1, 2, Rows>;
  static constexpr int head_dim = HeadDim;
  static constexpr KvKind kind = Kind;
  static constexpr bool v_dim_major = VDimMajor;
  static constexpr int rows = Shape::rows;
  static constexpr int q_pitch = Shape::q_pitch;
  static constexpr int q_bytes = Shape::q_bytes;
  static constexpr int o_pitch = Shape::o_pitch;
  static constexpr int stage_bytes = Shape::stage_bytes;
};

// ... with `Warps` computing warps: the block as Q's staging and the epilogue see it (pa_decode_block.cuh).
template <int HeadDim, KvKind Kind, bool VDimMajor, int Warps, int Rows = 16>
struct GroupBlock : GroupShape<HeadDim, Kind, VDimMajor, Rows> {
  using Group = GroupShape<HeadDim, Kind, VDimMajor, Rows>;
  static constexpr int warps = Warps;
  static constexpr int threads = 32 * Warps;
  static constexpr int epilogue_bytes = Warps * Group::rows * (Group::o_pitch + 2) * 4;
};

// A block of Warps warps, each with a ring of Stages stages of one 16-token group (K and V tiles),
// filled by cp.async or (Tma) by TMA boxes (pa_decode_warp_feed.cuh), computing Rows query rows:
// 16 (Q K^T with the rows as the MMA's M, pa_decode_warp.cuh) or 8 (K Q^T with the tokens as M and
// the rows as N: half the MMAs and softmax work, pa_decode_warp_n8.cuh).
template <int HeadDim, KvKind Kind, bool VDimMajor, int Warps, int Stages, bool Tma = false, int Rows = 16>
struct WarpTile : GroupBlock<HeadDim, Kind, VDimMajor, Warps, Rows> {
  using Block = GroupBlock<HeadDim, Kind, VDimMajor, Warps, Rows>;
  static constexpr bool tma = Tma;
  static constexpr int stages = Stages;
  static constexpr int tokens = 16 * Warps;  // a block step: one group per warp (the split plan's unit)
  static constexpr int warp_ring_bytes = Stages * Block::stage_bytes;
  static constexpr int ring_bytes =
      Warps * warp_ring_bytes > Block::epilogue_bytes ? Warps * warp_ring_bytes : Block::epilogue_bytes;
  // shared memory: Q, the ring (TMA: aligned up to the swizzle's 1024 bytes at run time, as the
  // runtime promises less for dynamic shared memory), then TMA's barriers, one per warp and stage
  static constexpr int ring_align = Tma ? 1024 : 16;
  static constexpr int barrier_bytes = Tma ? Warps * Stages * 8 : 0;
  static constexpr int smem_bytes = Block::q_bytes + (ring_align - 16) + ring_bytes + barrier_bytes;
  static constexpr int min_blocks = resident_blocks(smem_bytes, Block::threads, HeadDim);
  // Q in registers (32 for d128) where shared memory already limits the SM to two blocks, so the
  // registers are there (reading Q from shared memory costs 32 loads per group); with three blocks
  // the 168-register budget would spill. The 8-row state always holds its 16.
  static constexpr bool q_in_registers = Rows == 8 || min_blocks <= 2;
  using Step = WarpStep<HeadDim, Kind, VDimMajor, q_in_registers, Tma, Rows>;
  using State = WarpStateOf<Step>;

  static_assert(Stages >= 2, "a warp's pipeline keeps at least one stage loading");
  static_assert(!Tma || !VDimMajor, "TMA feeds token-major tiles (NHD, HND); vLLM's cache takes cp.async");
  static_assert(smem_bytes <= 232448, "the block exceeds sm_90a's 227 KB of shared memory");
};

template <class T>
struct WarpKernel {
  using Step = typename T::Step;
  static constexpr int S = T::stages;
  using Feed = std::conditional_t<T::tma, TmaFeed<T>, CpAsyncFeed<T>>;

  // Before the previous grid completes: each warp's first Stages - 1 groups towards L2.
  __device__ static void warm_l2(const PaDecodeParams& p, int block, int tid) {
    if (p.warm_l2) warm_groups_l2<Step, S - 1>(p, BlockWork::at(p, block), T::tokens, 16 * (tid >> 5), T::tokens, tid & 31);
  }

  // kmap, vmap: the TMA tensor maps (TMA-fed tiles only)
  __device__ static void run(const PaDecodeParams& p, unsigned char* smem, int block, int tid,
                             const CUtensorMap* kmap = nullptr, const CUtensorMap* vmap = nullptr) {
    const int lane = tid & 31, warp = tid >> 5;
    // The block table is read while the sequence's length loads: without a window the split's
    // tokens do not depend on the length, so the prologue's lookups are bounded by max_len (the
    // table's row covers it) and only the copies wait for the length (one latency fewer).
    BlockWork w = BlockWork::at(p, block);
    const int32_t stored_len = __ldg(p.seq_lens + w.seq);
    if (p.window == 0) {
      w.bound(p, p.max_len, T::tokens);
    } else {
      w.bound(p, stored_len, T::tokens);
    }
    const RowMap rows{w.rc * T::rows, p.group * p.q_len, p.group};
    // this warp's groups: i = 0, 1, ... starting at token lo + 16 (warp + Warps i); n is set once
    // the length is known
    const int32_t first = w.lo + 16 * warp;
    int n = 0;
    auto tok0 = [&](int i) { return first + i * T::tokens; };

    uint16_t* qs = reinterpret_cast<uint16_t*>(smem);
    const uint32_t ring_base = fly::detail::smem_u32(smem + T::q_bytes);
    const uint32_t ring_start = (ring_base + T::ring_align - 1) / T::ring_align * T::ring_align;
    unsigned char* ring_ptr = smem + T::q_bytes + (ring_start - ring_base);
    const uint32_t ring = ring_start + warp * T::warp_ring_bytes;
    Feed feed;
    if constexpr (T::tma) feed.set_maps(kmap, vmap);
    feed.init(p,
              PageWalk{p.block_tables + int64_t(w.seq) * p.block_table_stride, p.num_blocks, p.block_size_log2, w.hi,
                       w.kv_head},
              ring_ptr + T::ring_bytes + warp * S * 8, lane);
    auto slot = [&](int i) { return GroupSlot{tok0(i), w.hi - tok0(i), ring + (i % S) * T::stage_bytes, w.kv_head}; };
    auto lookup = [&](int i) { return feed.lookup(p, tok0(i), lane); };

    // ---- prologue: the first Stages - 1 groups in flight (their lookups issued together), then Q.
    // The table is read two groups ahead of the copies it addresses: a lookup has two iterations
    // of compute to land, not one.
    typename Feed::Entry entry[S + 1];
#pragma unroll
    for (int st = 0; st <= S; ++st) entry[st] = lookup(st);
    w.bound(p, stored_len, T::tokens);  // lo is unchanged (no window), or was already final
    feed.walk.end = w.hi;
    n = w.hi > first ? (w.hi - first + T::tokens - 1) / T::tokens : 0;
#pragma unroll
    for (int st = 0; st < S - 1; ++st) {
      if (st < n) feed.fill(p, st, entry[st], slot(st), lane);
      feed.commit();
    }
    typename Feed::Entry pending[2] = {entry[S - 1], entry[S]};  // filled in iterations 0 and 1
    stage_q<T>(p, qs, rows, w.seq, w.kv_head, tid);
    __syncthreads();

    typename T::State ws;
    ws.init();
    ws.load_q(qs, lane);
    set_row_bounds(ws, p, rows, w.len, lane);
    const float k_scale = (p.k_scale != nullptr ? __ldg(p.k_scale) : 1.f) * p.k_dequant;
    const float scale = p.scale * k_scale;

    // ---- main loop: wait for group i, refill the stage group i - 1 freed, compute group i
    auto main_loop = [&](auto fnuz, auto capped) {
      constexpr bool kFnuz = decltype(fnuz)::value;
      for (int i = 0; i < n; ++i) {
        const GroupSlot g = slot(i);
        feed.acquire(i, g, lane);
        const int next = i + S - 1;
        if (next < n) feed.fill(p, next, pending[0], slot(next), lane);
        feed.commit();
        pending[0] = pending[1];
        if (next + 2 < n) pending[1] = lookup(next + 2);
        typename T::State::Scores s;
        ws.template qk<kFnuz>(s, qs, g.stage, 0, lane);
        ws.template softmax<decltype(capped)::value>(s, g.tok0, scale, p.softcap, lane);
        ws.template pv<kFnuz>(s, g.stage + Step::tile_bytes, 0, lane);
      }
    };
    for_loop_options<T::kind>(p, main_loop);
    finish<T>(p, ws, rows, smem + T::q_bytes, w, tid);
  }
};

}  // namespace fly::kernels::pa
