// The paged-decode kernel: grid mapping, Q staging, the pipelined loop over the block's context
// tokens (pa_decode_load.cuh produces, pa_decode_warp.cuh consumes) and the epilogue that merges
// the warps' partial softmaxes. One block per (sequence, kv head, 16-row chunk of the group's
// query heads x new tokens, context split): every query head of the group shares each K/V load.
// With one split the block writes out (and lse); with several it writes its unnormalised partial
// output and (max, sum) to the workspace for pa_decode_reduce.cuh.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "fly/arch/copy_sm90.hpp"
#include "pa_decode_load.cuh"
#include "pa_decode_params.hpp"
#include "pa_decode_warp.cuh"

namespace fly::kernels::pa {

__device__ __forceinline__ float load_q_elem(const void* q, int64_t i, bool bf16) {
  return bf16 ? __bfloat162float(static_cast<const __nv_bfloat16*>(q)[i]) : __half2float(static_cast<const __half*>(q)[i]);
}

__device__ __forceinline__ void store_out_elem(void* out, int64_t i, float v, bool bf16) {
  if (bf16) {
    static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(v);
  } else {
    static_cast<__half*>(out)[i] = __float2half_rn(v);
  }
}

// Where a block's query rows come from: row r of the chunk is query row rc * 16 + r of the kv
// head's group x q_len rows, i.e. new token i = row / group, query head kv_head * group + row % group.
struct RowMap {
  int32_t first, count, group;  // the chunk's first row, and the rows of the kv head
  __device__ __forceinline__ bool valid(int r) const { return first + r < count; }
  __device__ __forceinline__ int32_t token(int r) const { return (first + r) / group; }
  __device__ __forceinline__ int32_t head(int r, int32_t kv_head) const { return kv_head * group + (first + r) % group; }
};

template <class T>
struct Kernel {
  static constexpr bool bf16_mma = T::kind == KvKind::bf16;

  __device__ static void run(const PaDecodeParams& p, unsigned char* smem, int block, int tid) {
    const int lane = tid & 31, warp = tid >> 5;
    // ---- grid mapping: row chunk fastest, so the chunks of one kv head run side by side (L2)
    const int rc = block % p.row_chunks;
    int rest = block / p.row_chunks;
    const int split = rest % p.splits;
    rest /= p.splits;
    const int kv_head = rest % p.num_kv_heads;
    const int seq = rest / p.num_kv_heads;
    const RowMap rows{rc * T::rows, p.group * p.q_len, p.group};

    const int32_t len = min(max(__ldg(p.seq_lens + seq), 0), p.max_len);
    const int32_t split_begin = split * p.split_tokens;
    // the tokens any row of this block may see: causal end len - 1, window start of the first token
    int32_t lo = split_begin;
    if (p.window > 0) lo = max(lo, (len - p.q_len + 1 - p.window) / T::tokens * T::tokens);
    const int32_t hi = min(len, split_begin + p.split_tokens);
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
    const bool q_bf16 = T::kind == KvKind::fp8 ? p.q_bf16 : bf16_mma;
    for (int idx = tid; idx < T::rows * T::head_dim; idx += T::threads) {
      const int r = idx / T::head_dim, d = idx % T::head_dim;
      float x = 0.f;
      if (rows.valid(r)) {
        const int64_t at = int64_t(seq) * p.q_seq + int64_t(rows.token(r)) * p.q_token +
                           int64_t(rows.head(r, kv_head)) * p.q_head + d;
        x = load_q_elem(p.q, at, q_bf16);
      }
      if constexpr (bf16_mma) {
        __nv_bfloat16 v = __float2bfloat16_rn(x);
        qs[r * T::q_pitch + d] = *reinterpret_cast<uint16_t*>(&v);
      } else {
        __half v = __float2half_rn(x);
        qs[r * T::q_pitch + d] = *reinterpret_cast<uint16_t*>(&v);
      }
    }
    __syncthreads();

    WarpState<T> ws;
    ws.init();
    ws.load_q(qs, lane);
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
      const int r = (lane >> 2) + 8 * rh;
      if (rows.valid(r)) {
        ws.hi[rh] = len - p.q_len + rows.token(r);  // causal: the sequence up to the query itself
        ws.lo[rh] = p.window > 0 ? ws.hi[rh] - p.window + 1 : 0;
      } else {
        ws.hi[rh] = -1;
        ws.lo[rh] = 0;
      }
    }
    const float k_scale = (p.k_scale != nullptr ? __ldg(p.k_scale) : 1.f) * p.k_dequant;
    const float scale = p.scale * k_scale;

    // ---- main loop: wait for stage it, refill the stage freed last iteration, compute stage it.
    // fp8 caches: compiled once per format (e4m3fnuz widens differently, pa_decode_fragments.cuh).
    auto main_loop = [&](auto fnuz) {
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
          float s[WarpState<T>::nj][4];
          ws.template qk<kFnuz>(s, qs, stage, base, lane);
          ws.softmax(s, tok0 + base, scale, p.softcap, lane);
          ws.template pv<kFnuz>(s, stage + T::tile_bytes, base, lane);
        }
      }
    };
    if (T::kind == KvKind::fp8 && p.fnuz) {
      main_loop(std::true_type{});
    } else {
      main_loop(std::false_type{});
    }
    fly::cp_async_wait_all();
    // the reduce (a programmatic dependent launch) may be scheduled now; it waits for this grid's
    // completion before it reads the partials
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
    __syncthreads();  // the ring becomes the epilogue's scratch
    epilogue(p, ws, rows, smem + T::q_bytes, seq, kv_head, split, tid);
  }

  // Merges the warps' (max, sum, O) per row, then writes out + lse, or the split's partials.
  __device__ static void epilogue(const PaDecodeParams& p, WarpState<T>& ws, const RowMap& rows, unsigned char* scratch,
                                  int seq, int kv_head, int split, int tid) {
    const int lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
    float* os = reinterpret_cast<float*>(scratch);                        // [warp][row][o_pitch]
    float* ml = os + T::warps * T::rows * T::o_pitch;                     // [warp][row][2]
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
      ws.l[rh] += __shfl_xor_sync(0xffffffffu, ws.l[rh], 1);
      ws.l[rh] += __shfl_xor_sync(0xffffffffu, ws.l[rh], 2);
      const int r = g + 8 * rh;
      if (t == 0) {
        ml[(warp * T::rows + r) * 2] = ws.m[rh];
        ml[(warp * T::rows + r) * 2 + 1] = ws.l[rh];
      }
#pragma unroll
      for (int dj = 0; dj < WarpState<T>::nd; ++dj)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          os[(warp * T::rows + r) * T::o_pitch + d_of<T::kind, T::v_dim_major>(dj, 2 * t + e)] = ws.o[dj][2 * rh + e];
    }
    __syncthreads();
    const float v_scale = (p.v_scale != nullptr ? __ldg(p.v_scale) : 1.f) * p.v_dequant;
    const bool out_bf16 = T::kind == KvKind::fp8 ? p.q_bf16 : bf16_mma;
    const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
    for (int idx = tid; idx < T::rows * T::head_dim; idx += T::threads) {
      const int r = idx / T::head_dim, d = idx % T::head_dim;
      if (!rows.valid(r)) continue;
      float m = -INFINITY;
#pragma unroll
      for (int w = 0; w < T::warps; ++w) m = fmaxf(m, ml[(w * T::rows + r) * 2]);
      float l = 0.f, o = 0.f;
      if (m != -INFINITY) {
#pragma unroll
        for (int w = 0; w < T::warps; ++w) {
          const float mw = ml[(w * T::rows + r) * 2];
          if (mw == -INFINITY) continue;
          const float c = exp2f(mw - m);
          l += ml[(w * T::rows + r) * 2 + 1] * c;
          o += os[(w * T::rows + r) * T::o_pitch + d] * c;
        }
      }
      const int32_t i = rows.token(r), h = rows.head(r, kv_head);
      const int64_t qrow = pa_query_row(seq, i, h, p.q_len, q_heads);
      if (p.splits > 1) {
        const int64_t at = int64_t(split) * p.num_seqs * p.q_len * q_heads + qrow;
        p.partial_o[at * T::head_dim + d] = o;
        if (d == 0) {
          p.partial_ml[at * 2] = m;
          p.partial_ml[at * 2 + 1] = l;
        }
        continue;
      }
      // one split: the sink joins the denominator, then normalise
      float lse = -INFINITY, value = 0.f;
      if (m != -INFINITY) {
        if (p.sinks != nullptr) {
          const float sink = __ldg(p.sinks + h) * WarpState<T>::log2e;
          const float m2 = fmaxf(m, sink);
          const float c = exp2f(m - m2);
          l = l * c + exp2f(sink - m2);
          o *= c;
          m = m2;
        }
        value = o / l * v_scale;
        lse = (m + log2f(l)) * 0.6931471805599453f;
      }
      store_out_elem(p.out, int64_t(seq) * p.out_seq + int64_t(i) * p.out_token + int64_t(h) * p.out_head + d, value,
                     out_bf16);
      if (p.lse != nullptr && d == 0) p.lse[qrow] = lse;
    }
  }
};

}  // namespace fly::kernels::pa
