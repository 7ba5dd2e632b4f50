// The paged-decode kernel with a pipeline per warp: the block's context tokens are dealt out in
// 16-token groups (one cache page each, block_size >= 16), group g to warp g % Warps, and every
// warp streams its own groups through its own ring of Stages shared-memory stages with cp.async,
// Stages - 1 groups ahead of the one it computes. No warp waits for another inside the loop, and a
// warp holds one stage while it computes, so Stages - 1 of its stages are in flight all the time
// (the block-step kernel, pa_decode_kernel.cuh, has half its ring in flight at best and joins its
// warps at every step). The block shares Q, the row bounds and the epilogue (pa_decode_block.cuh).
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "pa_decode_block.cuh"
#include "pa_decode_load.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_tile.cuh"
#include "pa_decode_warp.cuh"

namespace fly::kernels::pa {

// One warp's stage: the shapes the loaders and the warp's MMA fragments take, with Q's fragments
// held in registers or read from shared memory at every group.
template <int HeadDim, KvKind Kind, bool VDimMajor, bool QInRegisters>
struct WarpStep : Tile<HeadDim, Kind, VDimMajor, 16, 1, 2> {
  static constexpr bool q_in_registers = QInRegisters;
};

// A block of Warps warps, each with a ring of Stages stages of one 16-token group (K and V tiles).
template <int HeadDim, KvKind Kind, bool VDimMajor, int Warps, int Stages>
struct WarpTile {
  using Shape = Tile<HeadDim, Kind, VDimMajor, 16, 1, 2>;
  static constexpr int head_dim = HeadDim;
  static constexpr KvKind kind = Kind;
  static constexpr bool v_dim_major = VDimMajor;
  static constexpr int rows = Shape::rows;
  static constexpr int warps = Warps;
  static constexpr int threads = 32 * Warps;
  static constexpr int stages = Stages;
  static constexpr int tokens = 16 * Warps;  // a block step: one group per warp (the split plan's unit)
  static constexpr int q_pitch = Shape::q_pitch;
  static constexpr int q_bytes = Shape::q_bytes;
  static constexpr int o_pitch = Shape::o_pitch;
  static constexpr int stage_bytes = Shape::stage_bytes;
  static constexpr int warp_ring_bytes = Stages * stage_bytes;
  static constexpr int epilogue_bytes = Warps * rows * (o_pitch + 2) * 4;
  static constexpr int ring_bytes = Warps * warp_ring_bytes > epilogue_bytes ? Warps * warp_ring_bytes : epilogue_bytes;
  static constexpr int smem_bytes = q_bytes + ring_bytes;
  // as many blocks per SM as shared memory holds (at most 4), registers permitting (Tile's rule)
  static constexpr int smem_blocks_per_sm = 233472 / (smem_bytes + 1024);
  static constexpr int reg_blocks_per_sm = 65536 / (threads * (HeadDim <= 64 ? 128 : 168));
  static constexpr int fit_blocks = smem_blocks_per_sm < reg_blocks_per_sm ? smem_blocks_per_sm : reg_blocks_per_sm;
  static constexpr int min_blocks = fit_blocks < 1 ? 1 : fit_blocks > 4 ? 4 : fit_blocks;
  // Q in registers (32 for d128) where shared memory already limits the SM to two blocks, so the
  // registers are there (reading Q from shared memory costs 32 loads per group); with three blocks
  // the 168-register budget would spill.
  static constexpr bool q_in_registers = min_blocks <= 2;
  using Step = WarpStep<HeadDim, Kind, VDimMajor, q_in_registers>;

  static_assert(Stages >= 2, "a warp's pipeline keeps at least one stage loading");
  static_assert(smem_bytes <= 232448, "the block exceeds sm_90a's 227 KB of shared memory");
};

template <class T>
struct WarpKernel {
  using Step = typename T::Step;
  static constexpr int S = T::stages;

  __device__ static void run(const PaDecodeParams& p, unsigned char* smem, int block, int tid) {
    const int lane = tid & 31, warp = tid >> 5;
    const BlockWork w = BlockWork::of(p, block, T::tokens);
    const RowMap rows{w.rc * T::rows, p.group * p.q_len, p.group};
    // this warp's groups: i = 0, 1, ... starting at token lo + 16 (warp + Warps i)
    const int32_t first = w.lo + 16 * warp;
    const int n = w.hi > first ? (w.hi - first + T::tokens - 1) / T::tokens : 0;
    auto tok0 = [&](int i) { return first + i * T::tokens; };

    uint16_t* qs = reinterpret_cast<uint16_t*>(smem);
    const uint32_t ring = fly::detail::smem_u32(smem + T::q_bytes) + warp * T::warp_ring_bytes;
    const PageWalk walk{p.block_tables + int64_t(w.seq) * p.block_table_stride, p.num_blocks, p.block_size_log2, w.hi,
                        w.kv_head};
    StageCopies<Step> copies;
    copies.init(p, lane);

    // Lane 0 looks up group i's K address, lane 1 its V address (null past the end or for a block
    // id outside the cache); every lane takes both when the group's copies are issued.
    auto lookup = [&](int i) { return group_entry<Step>(p, walk, tok0(i), lane); };
    auto issue = [&](int i, const unsigned char* entry) {
      const OneGroup k{reinterpret_cast<const unsigned char*>(__shfl_sync(0xffffffffu, uintptr_t(entry), 0))};
      const OneGroup v{reinterpret_cast<const unsigned char*>(__shfl_sync(0xffffffffu, uintptr_t(entry), 1))};
      const int32_t left = w.hi - tok0(i);
      const uint32_t stage = ring + (i % S) * T::stage_bytes;
      const bool fast = k.ptr != nullptr && v.ptr != nullptr && left >= 16;
      load_groups<Step>(p, copies, k, v, fast, left, stage);
    };

    // ---- prologue: the first Stages - 1 groups in flight (their lookups issued together), then Q.
    // The table is read two groups ahead of the copies it addresses: a lookup has two iterations
    // of compute to land, not one.
    const unsigned char* entry[S + 1];
#pragma unroll
    for (int st = 0; st <= S; ++st) entry[st] = lookup(st);
#pragma unroll
    for (int st = 0; st < S - 1; ++st) {
      if (st < n) issue(st, entry[st]);
      fly::cp_async_fence();
    }
    const unsigned char* pending[2] = {entry[S - 1], entry[S]};  // issued in iterations 0 and 1
    stage_q<T>(p, qs, rows, w.seq, w.kv_head, tid);
    __syncthreads();

    WarpState<Step> ws;
    ws.init();
    ws.load_q(qs, lane);
    set_row_bounds(ws, p, rows, w.len, lane);
    const float k_scale = (p.k_scale != nullptr ? __ldg(p.k_scale) : 1.f) * p.k_dequant;
    const float scale = p.scale * k_scale;

    // ---- main loop: wait for group i, refill the stage group i - 1 freed, compute group i
    auto main_loop = [&](auto fnuz, auto capped) {
      constexpr bool kFnuz = decltype(fnuz)::value;
      for (int i = 0; i < n; ++i) {
        fly::cp_async_wait<S - 2>();
        __syncwarp();  // every lane's copies of group i landed; every lane finished group i - 1
        const int next = i + S - 1;
        if (next < n) issue(next, pending[0]);
        fly::cp_async_fence();
        pending[0] = pending[1];
        if (next + 2 < n) pending[1] = lookup(next + 2);
        const uint32_t stage = ring + (i % S) * T::stage_bytes;
        float s[WarpState<Step>::nj][4];
        ws.template qk<kFnuz>(s, qs, stage, 0, lane);
        ws.template softmax<decltype(capped)::value>(s, tok0(i), scale, p.softcap, lane);
        ws.template pv<kFnuz>(s, stage + Step::tile_bytes, 0, lane);
      }
    };
    for_loop_options<T::kind>(p, main_loop);
    finish<T>(p, ws, rows, smem + T::q_bytes, w, tid);
  }
};

}  // namespace fly::kernels::pa
