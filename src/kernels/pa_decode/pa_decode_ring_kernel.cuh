// The paged-decode kernel with one shared ring per block, fed by a producer warp: the block's
// context tokens are 16-token groups (one cache page each), group g computed by consumer warp
// g % Consumers as in the per-warp kernel (pa_decode_warp_kernel.cuh), but every group's K and V
// arrive by TMA into stage g % Stages of a ring the consumers share, issued in order by one
// producer warp that also reads the block table. The ring's depth no longer multiplies by the
// consumers (a per-warp ring holds Stages per warp), so shared memory holds more consumer warps per
// SM, and the copies and table reads leave the consumers' instruction stream entirely.
//
// Per stage two mbarriers: full (one arrival, the producer's expect_tx, plus the boxes' bytes) and
// empty (one arrival, the consumer that read the stage). Token-major caches only (NHD, HND): the
// boxes of pa_decode_tma.hpp.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "fly/arch/copy_sm90_tma.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "pa_decode_block.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_tile.cuh"
#include "pa_decode_warp.cuh"
#include "pa_decode_warp_feed.cuh"
#include "pa_decode_warp_kernel.cuh"

namespace fly::kernels::pa {

template <int HeadDim, KvKind Kind, int Consumers, int Stages>
struct RingTile : GroupShape<HeadDim, Kind, false> {
  using Group = GroupShape<HeadDim, Kind, false>;
  // What the epilogue and Q's staging see: the consumer warps alone.
  struct Compute : GroupBlock<HeadDim, Kind, false, Consumers> {};
  static constexpr bool tma = true;
  static constexpr int consumers = Consumers;
  static constexpr int threads = 32 * (Consumers + 1);  // the launch: consumers, then the producer warp
  static constexpr int stages = Stages;
  static constexpr int tokens = 16 * Consumers;  // one group per consumer: the split plan's unit
  static constexpr int ring_bytes = Stages * Group::stage_bytes > Compute::epilogue_bytes ? Stages * Group::stage_bytes
                                                                                         : Compute::epilogue_bytes;
  // shared memory: Q, the ring (aligned up to the swizzle's 1024 bytes at run time), full[], empty[]
  static constexpr int ring_align = 1024;
  static constexpr int smem_bytes = Group::q_bytes + (ring_align - 16) + ring_bytes + 2 * Stages * 8;
  // As many blocks per SM as shared memory holds, within 16 warps per SM: each of the SM's four
  // schedulers has 16K registers, so four warps of 128 registers a thread (a consumer needs them:
  // O alone holds 64 for d128) is its most. Q's fragments are read from shared memory per group.
  static constexpr int smem_blocks_per_sm = smem_fit_blocks(smem_bytes);
  static constexpr int reg_blocks_per_sm = 16 / (Consumers + 1);
  static constexpr int fit_blocks = smem_blocks_per_sm < reg_blocks_per_sm ? smem_blocks_per_sm : reg_blocks_per_sm;
  static constexpr int min_blocks = fit_blocks < 1 ? 1 : fit_blocks;
  static constexpr bool q_in_registers = false;
  using Step = WarpStep<HeadDim, Kind, false, q_in_registers, true>;

  static_assert(Stages >= 2 * Consumers, "every consumer has a group in flight while it computes one");
  static_assert(Group::Shape::row_chunks % 8 == 0, "a TMA-fed tile's rows are whole 128-byte swizzle spans");
  static_assert(smem_bytes <= 232448, "the block exceeds sm_90a's 227 KB of shared memory");
  static_assert(Consumers + 1 <= 16, "a block of at most 16 warps of 128 registers");
};

template <class T>
struct RingKernel {
  using Step = typename T::Step;
  static constexpr int C = T::consumers;
  static constexpr int S = T::stages;

  __device__ static void run(const PaDecodeParams& p, unsigned char* smem, int block, int tid, const CUtensorMap* kmap,
                             const CUtensorMap* vmap) {
    const int lane = tid & 31, warp = tid >> 5;
    const BlockWork w = block_work(p, block, T::tokens);
    const RowMap rows{w.rc * T::rows, p.group * p.q_len, p.group};
    const int groups = w.hi > w.lo ? (w.hi - w.lo + 15) / 16 : 0;

    uint16_t* qs = reinterpret_cast<uint16_t*>(smem);
    const uint32_t ring_base = fly::detail::smem_u32(smem + T::q_bytes);
    const uint32_t ring = (ring_base + T::ring_align - 1) / T::ring_align * T::ring_align;
    unsigned char* ring_ptr = smem + T::q_bytes + (ring - ring_base);
    uint64_t* full = reinterpret_cast<uint64_t*>(ring_ptr + T::ring_bytes);
    uint64_t* empty = full + S;
    if (warp < C) {
      stage_q<typename T::Compute>(p, qs, rows, w.seq, w.kv_head, tid);
    } else if (lane == 0) {
      for (int s = 0; s < 2 * S; ++s) fly::mbarrier::init(full + s, 1);
      fly::mbarrier::fence_init();
    }
    __syncthreads();  // Q staged, barriers initialised; the last whole-block barrier

    if (warp == C) {
      produce(p, w, groups, ring, full, empty, kmap, vmap, lane);
      return;
    }
    consume(p, w, rows, groups, qs, ring, full, empty, ring_ptr, tid);
  }

 private:
  // The producer warp: the block table read 32 groups at a time (one entry a lane, the next 32
  // loaded while these are issued), then lane 0 issues each group's boxes once its stage is free.
  __device__ static void produce(const PaDecodeParams& p, const BlockWork& w, int groups, uint32_t ring, uint64_t* full,
                                 uint64_t* empty, const CUtensorMap* kmap, const CUtensorMap* vmap, int lane) {
    const int32_t* table = p.block_tables + int64_t(w.seq) * p.block_table_stride;
    const int log2 = p.block_size_log2;
    auto id_of = [&](int g) {  // any int32: an id outside the tensor map's blocks is zero-filled
      return g < groups ? __ldg(table + ((w.lo + 16 * g) >> log2)) : -1;
    };
    int32_t ids = id_of(lane);
    int stage = 0;
    uint32_t phase = 0;
    for (int base = 0; base < groups; base += 32) {
      const int32_t next = id_of(base + 32 + lane);
      const int count = groups - base < 32 ? groups - base : 32;
      for (int j = 0; j < count; ++j) {
        const int32_t id = __shfl_sync(0xffffffffu, ids, j);
        if (lane == 0) {
          // parity phase ^ 1: on the first pass, the phase "before 0" of a fresh barrier, complete
          fly::mbarrier::wait(empty + stage, phase ^ 1u);
          fly::mbarrier::arrive_expect_tx(full + stage, Step::stage_bytes);
          const int32_t tok0 = w.lo + 16 * (base + j);
          load_group_boxes<Step>(kmap, vmap, fly::detail::smem_u32(full + stage), ring + stage * Step::stage_bytes,
                                 tok0 & ((1 << log2) - 1), w.kv_head, id);
        }
        if (++stage == S) {
          stage = 0;
          phase ^= 1u;
        }
      }
      ids = next;
    }
  }

  // Consumer warp `warp`: groups warp, warp + C, ... each from its stage once full, released after.
  __device__ static void consume(const PaDecodeParams& p, const BlockWork& w, const RowMap& rows, int groups,
                                 const uint16_t* qs, uint32_t ring, uint64_t* full, uint64_t* empty, unsigned char* scratch,
                                 int tid) {
    const int lane = tid & 31, warp = tid >> 5;
    WarpState<Step> ws;
    ws.init();
    ws.load_q(qs, lane);
    set_row_bounds(ws, p, rows, w.len, lane);
    const float k_scale = (p.k_scale != nullptr ? __ldg(p.k_scale) : 1.f) * p.k_dequant;
    const float scale = p.scale * k_scale;
    auto main_loop = [&](auto fnuz, auto capped) {
      constexpr bool kFnuz = decltype(fnuz)::value;
      int stage = warp;
      uint32_t phase = 0;
      for (int g = warp; g < groups; g += C) {
        const uint32_t at = ring + stage * Step::stage_bytes;
        const int32_t tok0 = w.lo + 16 * g;
        fly::mbarrier::wait(full + stage, phase);
        if (w.hi - tok0 < 16) zero_v_tail<Step>(at, w.hi - tok0, lane);
        __syncwarp();
        typename WarpState<Step>::Scores s;
        ws.template qk<kFnuz>(s, qs, at, 0, lane);
        ws.template softmax<decltype(capped)::value>(s, tok0, scale, p.softcap, lane);
        ws.template pv<kFnuz>(s, at + Step::tile_bytes, 0, lane);
        // every lane's ldmatrix reads of the stage are in registers the MMAs consumed: free it
        __syncwarp();
        if (lane == 0) fly::mbarrier::arrive(empty + stage);
        stage += C;
        if (stage >= S) {
          stage -= S;
          phase ^= 1u;
        }
      }
    };
    for_loop_options<T::kind>(p, main_loop);
    fly::launch_next_grid();
    sync_compute<typename T::Compute>();  // every consumer done with the ring: it becomes the scratch
    epilogue<typename T::Compute>(p, ws, rows, scratch, w, tid);
  }
};

}  // namespace fly::kernels::pa
