// The persistent paged-decode kernel: every warp is a decoder of its own. The work is the units
// (sequence, kv head, row chunk, split) of pa_decode_work.hpp; warp k of the grid's W takes units
// k, k + W, k + 2W, ... and streams all their 16-token groups through one ring of Stages stages
// (cp.async or TMA, pa_decode_warp_feed.cuh) that never drains between units: the block table is
// read two groups ahead of the copies, the copies Stages - 1 groups ahead of the compute, across
// unit boundaries. A unit's end writes its rows from the warp's registers (out + lse, or the split's
// partials for the reduce); no warp waits for another, and no block merges warps.
//
// Against pa_decode_warp_kernel.cuh (a block of warps per unit, merged at its end): a block's
// prologue (sequence length, page table, first copies: three dependent latencies) and epilogue
// (the merge through shared memory, then the stores) leave its SM's other block alone to keep the
// bytes in flight; here they happen once per warp, and a unit change costs the warp one load of Q.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fly/arch/copy_sm90.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "pa_decode_block.cuh"
#include "pa_decode_load.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_warp.cuh"
#include "pa_decode_warp_feed.cuh"
#include "pa_decode_warp_kernel.cuh"

namespace fly::kernels::pa {

// A persistent block: Warps independent warps, each with a ring of Stages one-group stages and its
// own Q tile. Shared memory: the rings (TMA: aligned to the swizzle's 1024 bytes at run time), the
// warps' Q tiles, then the TMA barriers (one per warp and stage).
template <int HeadDim, KvKind Kind, bool VDimMajor, int Warps, int Stages, bool Tma = false, int Rows = 16>
struct StreamTile : GroupBlock<HeadDim, Kind, VDimMajor, Warps, Rows> {
  using Block = GroupBlock<HeadDim, Kind, VDimMajor, Warps, Rows>;
  static constexpr bool tma = Tma;
  static constexpr int stages = Stages;
  static constexpr int tokens = 16;  // the split plan's unit: one group (a warp is the plan's block)
  static constexpr int warp_ring_bytes = Stages * Block::stage_bytes;
  static constexpr int ring_bytes = Warps * warp_ring_bytes;
  static constexpr int ring_align = Tma ? 1024 : 16;
  static constexpr int barrier_bytes = Tma ? Warps * Stages * 8 : 0;
  static constexpr int smem_bytes = (ring_align - 16) + ring_bytes + Warps * Block::q_bytes + barrier_bytes;
  static constexpr int min_blocks = resident_blocks(smem_bytes, Block::threads, HeadDim);
  // Q's fragments in registers (32 for d128, read from shared memory at every group otherwise)
  // where the resident blocks leave a thread all 255 registers; the 8-row state always holds its 16
  static constexpr bool q_in_registers = Rows == 8 || 65536 / (min_blocks * Block::threads) >= 256;
  using Step = WarpStep<HeadDim, Kind, VDimMajor, q_in_registers, Tma, Rows>;
  using State = WarpStateOf<Step>;

  static_assert(Stages >= 2, "a warp's pipeline keeps at least one stage loading");
  static_assert(!Tma || !VDimMajor, "TMA feeds token-major tiles (NHD, HND); vLLM's cache takes cp.async");
  static_assert(smem_bytes <= 232448, "the block exceeds sm_90a's 227 KB of shared memory");
};

// One warp's rows of a finished unit, straight from its registers: out and lse (one split: the
// sink joins the denominator, then normalise) or the split's partial O and (max, sum), merged with
// the other splits' by the reduce kernel or, with FLY_PA_DECODE_FOLD=1, by the warp of the last
// split to finish (pa_decode_merge.cuh).
template <class Block, class Warp>
__device__ void write_unit(const PaDecodeParams& p, Warp& ws, const RowMap& rows, const BlockWork& w, int lane) {
  const float v_scale = (p.v_scale != nullptr ? __ldg(p.v_scale) : 1.f) * p.v_dequant;
  const bool out_bf16 = Block::kind == KvKind::fp8 ? p.q_bf16 : Block::kind == KvKind::bf16;
  const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) {
    float l = ws.row_sum(rh);
    const int r = Warp::row_of(rh, lane);
    if (!rows.valid(r)) continue;
    float m = ws.m[rh];
    const int32_t i = rows.token(r), h = rows.head(r, w.kv_head);
    const int64_t qrow = pa_query_row(w.seq, i, h, p.q_len, q_heads);
    if (p.splits > 1) {
      const int64_t at = int64_t(w.split) * p.num_seqs * p.q_len * q_heads + qrow;
      float* po = p.partial_o + at * Block::head_dim;
      ws.for_each_o(rh, lane, [&](int d, float v) { po[d] = v; });
      if (Warp::row_leader(lane)) {
        p.partial_ml[at * 2] = m;
        p.partial_ml[at * 2 + 1] = l;
      }
      continue;
    }
    float c = 0.f, lse = -INFINITY;
    if (m != -INFINITY) {
      c = join_sink(p, h, m, l);
      lse = row_lse(m, l);
      c = c / l * v_scale;
    }
    const int64_t base = int64_t(w.seq) * p.out_seq + int64_t(i) * p.out_token + int64_t(h) * p.out_head;
    ws.for_each_o(rh, lane, [&](int d, float v) { store_out_elem(p.out, base + d, v * c, out_bf16); });
    if (p.lse != nullptr && Warp::row_leader(lane)) p.lse[qrow] = lse;
  }
  if (p.splits > 1 && p.split_counters != nullptr) {
    __syncwarp();  // the warp's partials are written
    bool last = false;
    if (lane == 0) last = last_split_arrives(p, split_counter(p, w));
    if (__shfl_sync(0xffffffffu, last, 0)) {
      for (int r = 0; r < Block::rows && rows.valid(r); ++r)
        merge_split_row<Block::head_dim>(p, w.seq, rows.token(r), rows.head(r, w.kv_head), out_bf16, lane);
    }
  }
}

template <class T>
struct StreamKernel {
  using Step = typename T::Step;
  static constexpr int S = T::stages;
  using Feed = std::conditional_t<T::tma, TmaFeed<T>, CpAsyncFeed<T>>;
  using Entry = typename Feed::Entry;

  // A group on its way through the pipeline: looked up (entry), then filled, then computed.
  // left <= 0: no group (the warp's units are done).
  struct Group {
    Entry entry;
    int32_t tok0, left, kv_head;
  };

  // Walks the warp's groups in the order they are computed: the tokens [lo, hi) of each of its
  // units, 16 at a time, skipping units with no token to visit. The next unit's sequence length
  // is loaded while the current one is walked, so entering it waits for nothing.
  struct Walker {
    int unit, stride, units;
    int32_t next_len;  // seq_lens of unit + stride (when there is one)
    BlockWork w{};
    PageWalk walk{};
    int32_t tok = 0;

    __device__ int32_t len_of(const PaDecodeParams& p, int u) const {
      return u < units ? __ldg(p.seq_lens + BlockWork::at(p, u).seq) : 0;
    }
    // Enter `unit` (its length in next_len) or the first unit after it with tokens to visit.
    __device__ void enter(const PaDecodeParams& p) {
      for (; unit < units; unit += stride) {
        const int32_t len = next_len;
        next_len = len_of(p, unit + stride);
        w = BlockWork::at(p, unit);
        w.bound(p, len, 16);
        if (w.hi > w.lo) {
          walk = PageWalk{p.block_tables + int64_t(w.seq) * p.block_table_stride, p.num_blocks, p.block_size_log2, w.hi,
                          w.kv_head};
          tok = w.lo;
          return;
        }
      }
    }
    __device__ void init(const PaDecodeParams& p, int first, int stride_, int units_) {
      unit = first;
      stride = stride_;
      units = units_;
      next_len = len_of(p, first);
      enter(p);
    }
    // The next group, looked up (its page read from the block table), and the walk moved past it.
    __device__ Group next(const PaDecodeParams& p, int lane) {
      if (unit >= units) return Group{Entry{}, 0, 0, 0};
      const Group g{Feed::lookup_in(p, walk, tok, lane), tok, w.hi - tok, w.kv_head};
      tok += 16;
      if (tok >= w.hi) {
        unit += stride;
        enter(p);
      }
      return g;
    }
  };

  // The units the warps take in turn: (sequence, kv head, row chunk, split); < 2^31, the launcher checks.
  __device__ static int units_of(const PaDecodeParams& p) { return p.num_seqs * p.num_kv_heads * p.row_chunks * p.splits; }

  // Before the previous grid completes: the first Stages - 1 groups of each warp's first unit towards L2.
  __device__ static void warm_l2(const PaDecodeParams& p, int block, int tid) {
    const int units = units_of(p), first = block * T::warps + (tid >> 5);
    if (p.warm_l2 && first < units) warm_groups_l2<Step, S - 1>(p, BlockWork::at(p, first), 16, 0, 16, tid & 31);
  }

  __device__ static void run(const PaDecodeParams& p, unsigned char* smem, int block, int tid,
                             const CUtensorMap* kmap = nullptr, const CUtensorMap* vmap = nullptr) {
    const int lane = tid & 31, warp = tid >> 5;
    const int units = units_of(p);
    const int first = block * T::warps + warp, stride = int(gridDim.x) * T::warps;
    if (first >= units) return;  // no barrier spans the block's warps

    const uint32_t ring_base = fly::detail::smem_u32(smem);
    const uint32_t ring_start = (ring_base + T::ring_align - 1) / T::ring_align * T::ring_align;
    unsigned char* ring_ptr = smem + (ring_start - ring_base);
    const uint32_t ring = ring_start + warp * T::warp_ring_bytes;
    uint16_t* qs = reinterpret_cast<uint16_t*>(ring_ptr + T::ring_bytes + warp * T::q_bytes);
    Feed feed;
    if constexpr (T::tma) feed.set_maps(kmap, vmap);
    Walker walker;
    walker.init(p, first, stride, units);
    feed.init(p, walker.walk, ring_ptr + T::ring_bytes + T::warps * T::q_bytes + warp * S * 8, lane);
    auto stage = [&](int i) { return ring + (i % S) * T::stage_bytes; };
    auto fill = [&](int i, const Group& g) {
      if (g.left > 0) feed.fill(p, i, g.entry, GroupSlot{g.tok0, g.left, stage(i), g.kv_head}, lane);
      feed.commit();
    };

    // ---- prologue: the first Stages - 1 groups in flight; lookups run two groups ahead of fills
    Group pending[2];
    {
      Group g[S + 1];
#pragma unroll
      for (int st = 0; st <= S; ++st) g[st] = walker.next(p, lane);
#pragma unroll
      for (int st = 0; st < S - 1; ++st) fill(st, g[st]);
      pending[0] = g[S - 1];
      pending[1] = g[S];
    }
    const float k_scale = (p.k_scale != nullptr ? __ldg(p.k_scale) : 1.f) * p.k_dequant;
    const float scale = p.scale * k_scale;

    // ---- the units: Q, then their groups (ring index i runs on across units), then their rows
    int i = 0;
    auto units_loop = [&](auto fnuz, auto capped) {
      constexpr bool kFnuz = decltype(fnuz)::value;
      for (int u = first; u < units; u += stride) {
        BlockWork w = BlockWork::at(p, u);
        const RowMap rows{w.rc * T::rows, p.group * p.q_len, p.group};
        w.bound(p, __ldg(p.seq_lens + w.seq), 16);
        typename T::State ws;
        ws.init();
        const int n = w.hi > w.lo ? (w.hi - w.lo + 15) / 16 : 0;
        if (n > 0) {
          __syncwarp();  // every lane is done with the previous unit's Q
          stage_q<T, 32>(p, qs, rows, w.seq, w.kv_head, lane);
          __syncwarp();
          ws.load_q(qs, lane);
          set_row_bounds(ws, p, rows, w.len, lane);
        }
        for (int k = 0; k < n; ++k, ++i) {
          const int32_t tok0 = w.lo + 16 * k;
          const GroupSlot g{tok0, w.hi - tok0, stage(i), w.kv_head};
          feed.acquire(i, g, lane);
          fill(i + S - 1, pending[0]);
          pending[0] = pending[1];
          pending[1] = walker.next(p, lane);
          typename T::State::Scores s;
          ws.template qk<kFnuz>(s, qs, g.stage, 0, lane);
          ws.template softmax<decltype(capped)::value>(s, tok0, scale, p.softcap, lane);
          ws.template pv<kFnuz>(s, g.stage + Step::tile_bytes, 0, lane);
        }
        if (u + stride >= units) fly::launch_next_grid();
        write_unit<T>(p, ws, rows, w, lane);
      }
    };
    for_loop_options<T::kind>(p, units_loop);
    fly::cp_async_wait_all();
  }
};

}  // namespace fly::kernels::pa
