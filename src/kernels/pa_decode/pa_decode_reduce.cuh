// The split-K reduction: one block per query row merges the splits' partial outputs (unnormalised,
// each relative to its own running max) with the sink, normalises, and writes out and lse.
#pragma once

#include <cstdint>

#include "pa_decode_block.cuh"  // load/store helpers
#include "pa_decode_params.hpp"

namespace fly::kernels::pa {

template <int HeadDim>
struct Reduce {
  static constexpr int threads = 64;

  // block = query row (seq, token, q head) in pa_query_row order
  __device__ static void run(const PaDecodeParams& p, bool out_bf16, int64_t block, int tid) {
    // launched as a programmatic dependent of the decode kernel: wait for its partials
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
    const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
    const int64_t rows = int64_t(p.num_seqs) * p.q_len * q_heads;
    const int64_t h = block % q_heads, i = (block / q_heads) % p.q_len, seq = block / (q_heads * p.q_len);
    constexpr float log2e = 1.4426950408889634f;
    __shared__ float weight[64];  // split s's factor exp2(m_s - max); splits <= 64 (pa_decode_max_splits)
    __shared__ float part[2][threads / 32];
    // one split per thread: the max over the splits (and the sink), then the weights and their sum
    const float ms = tid < p.splits ? p.partial_ml[(tid * rows + block) * 2] : -INFINITY;
    const float ls = tid < p.splits ? p.partial_ml[(tid * rows + block) * 2 + 1] : 0.f;
    float m = ms;
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((tid & 31) == 0) part[0][tid >> 5] = m;
    __syncthreads();
    m = -INFINITY;
    for (int w = 0; w < threads / 32; ++w) m = fmaxf(m, part[0][w]);
    const float sink = p.sinks != nullptr ? __ldg(p.sinks + h) * log2e : -INFINITY;
    if (m != -INFINITY) m = fmaxf(m, sink);  // no visible token: out 0, lse -inf, sink or not
    const float w_s = ms == -INFINITY ? 0.f : exp2f(ms - m);
    if (tid < 64) weight[tid] = w_s;
    float l = w_s == 0.f ? 0.f : w_s * ls;
    for (int o = 16; o > 0; o >>= 1) l += __shfl_xor_sync(0xffffffffu, l, o);
    if ((tid & 31) == 0) part[1][tid >> 5] = l;
    __syncthreads();
    l = 0.f;
    for (int w = 0; w < threads / 32; ++w) l += part[1][w];
    if (m != -INFINITY && sink != -INFINITY) l += exp2f(sink - m);
    const float lse = m == -INFINITY ? -INFINITY : (m + log2f(l)) * 0.6931471805599453f;
    const float v_scale = (p.v_scale != nullptr ? __ldg(p.v_scale) : 1.f) * p.v_dequant;
    for (int d = tid; d < HeadDim; d += threads) {
      float o = 0.f;
      if (m != -INFINITY) {
#pragma unroll 8
        for (int s = 0; s < p.splits; ++s)
          if (weight[s] != 0.f) o += weight[s] * p.partial_o[(s * rows + block) * HeadDim + d];
        o = o / l * v_scale;
      }
      store_out_elem(p.out, seq * p.out_seq + i * p.out_token + h * p.out_head + d, o, out_bf16);
    }
    if (p.lse != nullptr && tid == 0) p.lse[block] = lse;
  }
};

}  // namespace fly::kernels::pa
