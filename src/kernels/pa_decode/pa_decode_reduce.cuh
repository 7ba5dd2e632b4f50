// The split-K reduction kernel, where the splits do not merge themselves (pa_decode_merge.cuh; the
// gfx942 path, and sm_90a unless FLY_PA_DECODE_FOLD=1): one block per query row merges the splits' partial outputs (unnormalised,
// each relative to its own running max) with the sink, normalises, and writes out and lse.
//
// Its cost is latency, not bytes (a row's partials are splits x head_dim floats, most still in L2),
// so every load of a row is issued at once: thread (g, v) of the block sums the float4 v of the
// splits g, g + G, ... (G = threads / (head_dim / 4) groups), and the groups' sums meet in shared
// memory. A loop over the splits per thread would wait for one load latency per split.
#pragma once

#include <cstdint>

#include "fly/arch/grid_dependency_sm90.hpp"
#include "pa_decode_params.hpp"
#include "pa_decode_row_out.cuh"

namespace fly::kernels::pa {

template <int HeadDim>
struct Reduce {
  static constexpr int threads = 256;
  static constexpr int max_splits = 64;             // pa_decode_max_splits
  static constexpr int vecs = HeadDim / 4;          // float4 per row
  static constexpr int groups = threads / vecs;     // splits summed side by side
  static_assert(HeadDim % 4 == 0 && threads % vecs == 0 && groups >= 1, "a row's float4 fill whole passes of the block");
  static_assert(max_splits == 64, "a warp's lanes hold two splits each");

  // block = query row (seq, token, q head) in pa_query_row order
  __device__ static void run(const PaDecodeParams& p, bool out_bf16, int64_t block, int tid) {
    // launched as a programmatic dependent of the decode kernel: wait for its partials. The next
    // call's decode (itself a programmatic dependent) may be scheduled at once: it waits for this
    // grid's completion before it reads anything, and every block of this grid is resident by then.
    fly::launch_next_grid();
    fly::wait_for_previous_grid();
    const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
    const int64_t rows = int64_t(p.num_seqs) * p.q_len * q_heads;
    const int64_t h = block % q_heads, i = (block / q_heads) % p.q_len, seq = block / (q_heads * p.q_len);
    __shared__ float weight[max_splits];  // split s's factor exp2(m_s - max), 0 for a split that saw nothing
    __shared__ float stat[2][max_splits];
    __shared__ float4 sum[groups][vecs];
    const int splits = min(p.splits, max_splits);
    // every load the row needs is issued here, before any is used: the sink and v_scale too
    const float sink_raw = p.sinks != nullptr ? __ldg(p.sinks + h) : -INFINITY;
    const float v_scale_raw = p.v_scale != nullptr ? __ldg(p.v_scale) : 1.f;
    if (tid < splits) {
      stat[0][tid] = p.partial_ml[(tid * rows + block) * 2];
      stat[1][tid] = p.partial_ml[(tid * rows + block) * 2 + 1];
    }
    // every split's float4 of this thread
    const int g = tid / vecs, v = tid % vecs;
    constexpr int per_thread = (max_splits + groups - 1) / groups;
    float4 part[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int s = g + j * groups;
      part[j] = s < splits ? reinterpret_cast<const float4*>(p.partial_o + (s * rows + block) * HeadDim)[v]
                           : make_float4(0.f, 0.f, 0.f, 0.f);
    }
    __syncthreads();
    // The max over the splits (and the sink), the weights and their sum: every warp computes them
    // with lane k holding splits k and k + 32 (shuffles, not a loop over the splits per thread).
    const int lane = tid & 31;
    float ms[2], ls[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int s = lane + 32 * k;
      ms[k] = s < splits ? stat[0][s] : -INFINITY;
      ls[k] = s < splits ? stat[1][s] : 0.f;
    }
    float m = fmax_nan(ms[0], ms[1]);  // a NaN split makes the row NaN
#pragma unroll
    for (int x = 16; x >= 1; x /= 2) m = fmax_nan(m, __shfl_xor_sync(0xffffffffu, m, x));
    const float sink = sink_raw * kLog2e;
    if (m != -INFINITY) m = fmax_nan(m, sink);  // no visible token: out 0, lse -inf, sink or not
    float l = 0.f;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const float w = ms[k] == -INFINITY ? 0.f : exp2f(ms[k] - m);
      if (tid < 32) weight[lane + 32 * k] = w;
      l += w * ls[k];
    }
#pragma unroll
    for (int x = 16; x >= 1; x /= 2) l += __shfl_xor_sync(0xffffffffu, l, x);
    if (m != -INFINITY && sink != -INFINITY) l += exp2f(sink - m);
    __syncthreads();
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int s = g + j * groups;
      const float w = s < splits ? weight[s] : 0.f;
      if (w != 0.f) {  // a split that saw nothing wrote zeros; skipping it also skips 0 * inf
        acc.x += w * part[j].x;
        acc.y += w * part[j].y;
        acc.z += w * part[j].z;
        acc.w += w * part[j].w;
      }
    }
    sum[g][v] = acc;
    __syncthreads();
    const float v_scale = v_scale_raw * p.v_dequant;
    for (int d = tid; d < HeadDim; d += threads) {
      float o = 0.f;
      if (m != -INFINITY) {
#pragma unroll
        for (int k = 0; k < groups; ++k) o += reinterpret_cast<const float*>(&sum[k][d / 4])[d % 4];
        o = o / l * v_scale;
      }
      store_out_elem(p.out, seq * p.out_seq + i * p.out_token + h * p.out_head + d, o, out_bf16);
    }
    if (p.lse != nullptr && tid == 0) p.lse[block] = m == -INFINITY ? -INFINITY : row_lse(m, l);
  }
};

}  // namespace fly::kernels::pa
