// How a per-warp pipeline (pa_decode_warp_kernel.cuh) fills its ring: group i (16 tokens of one
// page) lands in stage i % Stages. Two feeds with one interface:
//  - CpAsyncFeed: every lane copies its share of the group with 16-byte cp.async (about 16 copies
//    and their addressing per lane per group); any cache layout.
//  - TmaFeed: lane 0 issues one TMA box for the group's K tile and one for its V tile (NHD and HND,
//    whose rows are token-major), and the warp waits on the stage's mbarrier. The copies and their
//    addressing leave the lanes' instruction stream, which is what bounds the kernel.
// Interface (all lanes call each): lookup(i) reads group i's page from the block table (a register
// of lane 0, or lanes 0 and 1); fill(i, entry) starts group i's copies into its stage; acquire(i)
// returns once group i is in its stage and every lane is done with the stage it refills next.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "fly/arch/copy_sm90_tma.hpp"
#include "pa_decode_load.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_work.hpp"

namespace fly::kernels {

// A TMA-fed paged-decode kernel's argument: the parameters and the K and V tensor maps the launcher
// encodes per call (src/dispatch/pa_decode/pa_decode_tma_cuda.hpp) as the 5D tensors
// (element, slot, 128-byte part, kv head, block) with boxes of (128 bytes, 16, parts, 1, 1).
struct PaDecodeTmaArgs {
  CUtensorMap k, v;  // 64-byte aligned by CUtensorMap's own alignment
  PaDecodeParams p;
};

}  // namespace fly::kernels

namespace fly::kernels::pa {

// What group i's copies need: its first token, the tokens of its run left from there, its stage
// and its kv head.
struct GroupSlot {
  int32_t tok0, left;
  uint32_t stage;  // shared address
  int32_t kv_head;
};

// One group's K and V boxes (16 slots of kv head `kv_head` in page `block`, from slot `slot`) into
// the stage at shared address `stage`, counted by the mbarrier at `bar`.
template <class Step>
__device__ __forceinline__ void load_group_boxes(const CUtensorMap* kmap, const CUtensorMap* vmap, uint32_t bar,
                                                 uint32_t stage, int32_t slot, int32_t kv_head, int32_t block) {
  fly::SM90_TMA_LOAD_5D::copy(kmap, bar, stage, 0, slot, 0, kv_head, block);
  fly::SM90_TMA_LOAD_5D::copy(vmap, bar, stage + Step::tile_bytes, 0, slot, 0, kv_head, block);
}

// The tokens past the block's end in a TMA-filled stage (left < 16 of them are the block's): the
// page's slots there may hold anything, NaN included, and a masked P = 0 does not cancel NaN in
// P V; their V rows become zeros (K needs nothing: masked logits are set, not scaled). Only a
// block's last group has a tail, so no TMA refills the stage after these generic-proxy stores; the
// fence would order them before one.
template <class Step>
__device__ void zero_v_tail(uint32_t stage, int32_t left, int lane) {
  const int chunks = (16 - left) * Step::row_chunks;
  for (int idx = lane; idx < chunks; idx += 32) {
    const int row = left + idx / Step::row_chunks, c = idx % Step::row_chunks;
    const uint32_t at = stage + Step::tile_bytes + 16 * Step::kv_chunk(row, c);
    asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" ::"r"(at), "r"(0) : "memory");
  }
  fly::fence_proxy_async_shared();
}

// A per-warp pipeline's first groups towards L2 before the kernel may read anything: the block is
// resident while the grid before it finishes (a programmatic dependent launch: the previous call's
// reduce, or in an engine the kernel that wrote q and the cache), and HBM would idle through that
// tail and through the prologue's dependent loads after the wait. The warp guesses its work from
// the length and the block table as they are now (read through L2 only, ld.global.cg: the reads
// leave no line in L1 that the real lookups after the wait could hit), and prefetches Groups whole
// groups of it, the first at token lo + offset, `stride` tokens apart.
// A prefetch brings nothing into the block, so a guess made stale by the previous grid's writes
// costs bandwidth, never a result; the pipeline loads every group again after the wait.
// w: the block's (or the warp's first unit's) coordinates, bounded here with `step` as its kernel
// bounds them. Without a window the table is read beside the length (the tokens' start does not
// depend on it), as the kernels' own prologues do.
template <class Step, int Groups>
__device__ void warm_groups_l2(const PaDecodeParams& p, BlockWork w, int32_t step, int32_t offset, int32_t stride,
                               int lane) {
  const int32_t len = __ldcg(p.seq_lens + w.seq);
  const int32_t* table = p.block_tables + int64_t(w.seq) * p.block_table_stride;
  int32_t page[Groups];  // every lookup in flight at once
  auto look_up = [&] {
#pragma unroll
    for (int i = 0; i < Groups; ++i) {
      const int32_t t = w.lo + offset + i * stride;
      page[i] = t < w.hi ? __ldcg(table + (t >> p.block_size_log2)) : -1;
    }
  };
  if (p.window == 0) {
    w.bound(p, p.max_len, step);
    look_up();
    w.bound(p, len, step);
  } else {
    w.bound(p, len, step);
    look_up();
  }
  const PageWalk walk{table, p.num_blocks, p.block_size_log2, w.hi, w.kv_head};
  StageCopies<Step> copies;
  copies.init(p, lane);
#pragma unroll
  for (int i = 0; i < Groups; ++i) {
    const int32_t t = w.lo + offset + i * stride;
    const OneGroup k{walk.page_ptr<Step::elem_bytes>(p.k, page[i], t)}, v{walk.page_ptr<Step::elem_bytes>(p.v, page[i], t)};
    if (w.hi - t >= 16 && k.ptr != nullptr && v.ptr != nullptr)
      load_groups<Step, Issue::prefetch_l2>(p, copies, k, v, true, 16, 0);
  }
}

template <class T>
struct CpAsyncFeed {
  using Step = typename T::Step;
  using Entry = const unsigned char*;
  StageCopies<Step> copies;
  PageWalk walk;

  __device__ void init(const PaDecodeParams& p, const PageWalk& w, unsigned char*, int lane) {
    walk = w;
    copies.init(p, lane);
  }
  // Lane 0 looks up the group's K address, lane 1 its V address (null past the end or for a block
  // id outside the cache); fill shares them with every lane.
  __device__ Entry lookup(const PaDecodeParams& p, int32_t tok0, int lane) const { return lookup_in(p, walk, tok0, lane); }
  __device__ static Entry lookup_in(const PaDecodeParams& p, const PageWalk& w, int32_t tok0, int lane) {
    return group_entry<Step>(p, w, tok0, lane);
  }
  __device__ void fill(const PaDecodeParams& p, int, Entry entry, const GroupSlot& g, int) {
    const OneGroup k{reinterpret_cast<const unsigned char*>(__shfl_sync(0xffffffffu, uintptr_t(entry), 0))};
    const OneGroup v{reinterpret_cast<const unsigned char*>(__shfl_sync(0xffffffffu, uintptr_t(entry), 1))};
    const bool fast = k.ptr != nullptr && v.ptr != nullptr && g.left >= 16;
    load_groups<Step>(p, copies, k, v, fast, g.left, g.stage);
  }
  // cp.async counts groups per thread: one commit per fill slot, issued or not
  __device__ void commit() { fly::cp_async_fence(); }
  __device__ void acquire(int, const GroupSlot&, int) {
    fly::cp_async_wait<T::stages - 2>();
    __syncwarp();  // every lane's copies of group i landed; every lane finished group i - 1
  }
};

template <class T>
struct TmaFeed {
  using Step = typename T::Step;
  using Entry = int32_t;  // lane 0: the group's block id
  static_assert(Step::row_chunks % 8 == 0, "a TMA-fed tile's rows are whole 128-byte swizzle spans");
  static_assert(Step::tile_bytes == (Step::row_chunks / 8) * 16 * 128, "a tile is one box: [part][16 rows][128 bytes]");

  const CUtensorMap* kmap;
  const CUtensorMap* vmap;
  PageWalk walk;
  uint64_t* bars;  // this warp's barrier per stage (one arrival: lane 0's expect_tx)

  __device__ void set_maps(const CUtensorMap* k, const CUtensorMap* v) {
    kmap = k;
    vmap = v;
  }
  __device__ void init(const PaDecodeParams&, const PageWalk& w, unsigned char* warp_bars, int lane) {
    walk = w;
    bars = reinterpret_cast<uint64_t*>(warp_bars);
    if (lane == 0) {
      for (int s = 0; s < T::stages; ++s) fly::mbarrier::init(bars + s, 1);
      fly::mbarrier::fence_init();
    }
    __syncwarp();
  }
  // Lane 0 reads the block id (any int32: an id outside [0, num_blocks) is outside the tensor map,
  // so its box is zero-filled, as the cp.async feed and the host reference treat it).
  __device__ Entry lookup(const PaDecodeParams& p, int32_t tok0, int lane) const { return lookup_in(p, walk, tok0, lane); }
  __device__ static Entry lookup_in(const PaDecodeParams&, const PageWalk& w, int32_t tok0, int lane) {
    if (lane != 0 || tok0 >= w.end) return -1;
    return __ldg(w.table + (tok0 >> w.block_size_log2));
  }
  __device__ void fill(const PaDecodeParams& p, int i, Entry block, const GroupSlot& g, int lane) {
    if (lane != 0) return;
    uint64_t* bar = bars + i % T::stages;
    fly::mbarrier::arrive_expect_tx(bar, Step::stage_bytes);
    const int32_t slot = g.tok0 & ((1 << p.block_size_log2) - 1);
    load_group_boxes<Step>(kmap, vmap, fly::detail::smem_u32(bar), g.stage, slot, g.kv_head, block);
  }
  __device__ void commit() {}
  // The stage refilled next (group i - 1's) is free once every lane passed the __syncwarp: its
  // ldmatrix reads completed into registers that group i - 1's MMAs consumed (CUTLASS's TMA
  // pipelines release a stage the same way, with no proxy fence for reads).
  __device__ void acquire(int i, const GroupSlot& g, int lane) {
    fly::mbarrier::wait(bars + i % T::stages, uint32_t(i / T::stages) & 1u);
    if (g.left < 16) zero_v_tail<Step>(g.stage, g.left, lane);
    __syncwarp();
  }
};

}  // namespace fly::kernels::pa
