// The paged-decode kernel with block steps: the pipelined loop over the block's context tokens
// (pa_decode_load.cuh produces, pa_decode_warp.cuh consumes), every stage of `tokens` tokens shared
// by the block's warps, which join at every step. One block per (sequence, kv head, 16-row chunk of
// the group's query heads x new tokens, context split): every query head of the group shares each
// K/V load. Grid mapping, Q staging and the epilogue: pa_decode_block.cuh.
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "pa_decode_block.cuh"
#include "pa_decode_load.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_warp.cuh"

namespace fly::kernels::pa {

template <class T>
struct Kernel {
  __device__ static void run(const PaDecodeParams& p, unsigned char* smem, int block, int tid) {
    const int lane = tid & 31, warp = tid >> 5;
    const BlockWork w = block_work(p, block, T::tokens);
    const int seq = w.seq, kv_head = w.kv_head;
    const int32_t len = w.len, lo = w.lo, hi = w.hi;
    const RowMap rows{w.rc * T::rows, p.group * p.q_len, p.group};
    const int steps = hi > lo ? (hi - lo + T::tokens - 1) / T::tokens : 0;

    uint16_t* qs = reinterpret_cast<uint16_t*>(smem);
    const uint32_t ring = fly::detail::smem_u32(smem + T::q_bytes);
    const PageWalk walk{p.block_tables + int64_t(seq) * p.block_table_stride, p.num_blocks, p.block_size_log2, hi, kv_head};

    // ---- prologue: the group tables of the first stages, those stages in flight, then Q (converted
    // to the MMA type) while they land
    static_assert(sizeof(StageTable<T>) * T::stages <= T::table_bytes, "Tile::table_bytes holds the tables");
    auto* tables = reinterpret_cast<StageTable<T>*>(smem + T::q_bytes + T::ring_bytes);  // [stage]
    StageCopies<T> copies;
    copies.init(p, tid);
#pragma unroll
    for (int st = 0; st < T::stages; ++st)
      if (st < steps) store_group_entry<T>(group_entry<T>(p, walk, lo + st * T::tokens, tid), tables + st, tid);
    // the entry of step `stages`, stored in iteration 0 (group_entry is null past the end)
    const unsigned char* pending = group_entry<T>(p, walk, lo + T::stages * T::tokens, tid);
    __syncthreads();
#pragma unroll
    for (int st = 0; st < T::stages - 1; ++st) {
      if (st < steps) load_stage<T>(p, copies, tables + st, hi - (lo + st * T::tokens), ring + st * T::stage_bytes);
      fly::cp_async_fence();
    }
    stage_q<T>(p, qs, rows, seq, kv_head, tid);
    __syncthreads();

    WarpState<T> ws;
    ws.init();
    ws.load_q(qs, lane);
    set_row_bounds(ws, p, rows, len, lane);
    const float k_scale = (p.k_scale != nullptr ? __ldg(p.k_scale) : 1.f) * p.k_dequant;
    const float scale = p.scale * k_scale;

    // ---- main loop: wait for stage it, refill the stage freed last iteration, compute stage it.
    auto main_loop = [&](auto fnuz, auto capped) {
      constexpr bool kFnuz = decltype(fnuz)::value;
      for (int it = 0; it < steps; ++it) {
        fly::cp_async_wait<T::stages - 2>();
        __syncthreads();
        const int next = it + T::stages - 1;
        if (next < steps)
          load_stage<T>(p, copies, tables + next % T::stages, hi - (lo + next * T::tokens),
                        ring + (next % T::stages) * T::stage_bytes);
        fly::cp_async_fence();
        // the table of step it + stages takes the slot of step it (its copies were issued an
        // iteration ago); the entry looked up last iteration is stored, the next one looked up
        if (it + T::stages < steps) {
          store_group_entry<T>(pending, tables + it % T::stages, tid);
          pending = group_entry<T>(p, walk, lo + (it + T::stages + 1) * T::tokens, tid);
        }
        const int32_t tok0 = lo + it * T::tokens;
        const int base = warp * T::warp_tokens;
        if (tok0 + base < hi) {  // a warp whose tokens are all past the end has nothing to add
          const uint32_t stage = ring + (it % T::stages) * T::stage_bytes;
          typename WarpState<T>::Scores s;
          ws.template qk<kFnuz>(s, qs, stage, base, lane);
          ws.template softmax<decltype(capped)::value>(s, tok0 + base, scale, p.softcap, lane);
          ws.template pv<kFnuz>(s, stage + T::tile_bytes, base, lane);
        }
      }
    };
    for_loop_options<T::kind>(p, main_loop);
    finish<T>(p, ws, rows, smem + T::q_bytes, w, tid);
  }
};

}  // namespace fly::kernels::pa
