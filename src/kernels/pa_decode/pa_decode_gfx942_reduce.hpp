// The gfx942 split-K reduction, the sm_90a one's semantics (pa_decode_reduce.cuh): one block of
// one wavefront per query row merges the splits' unnormalised partials with the sink, normalises
// and writes out and lse. Each lane owns head_dim / 64 dims and reads their partials directly.
#pragma once

#include <cmath>
#include <cstdint>

#include "pa_decode_gfx942_convert.hpp"
#include "pa_decode_params.hpp"

namespace fly::kernels::pa::gfx942 {

template <int HeadDim>
struct Reduce {
  static constexpr int threads = 64;
  static_assert(HeadDim % threads == 0);

  FLY_HOST_DEVICE static void run(const PaDecodeParams& p, bool out_bf16, int64_t row, int tid) {
    constexpr float log2e = 1.4426950408889634f, neg_inf = -__builtin_huge_valf();
    const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
    const int64_t rows = int64_t(p.num_seqs) * p.q_len * q_heads;
    const int64_t h = row % q_heads, i = (row / q_heads) % p.q_len, seq = row / (q_heads * p.q_len);
    float m = neg_inf;
    for (int s = 0; s < p.splits; ++s) m = fmaxf(m, p.partial_ml[(s * rows + row) * 2]);
    const float sink = p.sinks != nullptr ? p.sinks[h] * log2e : neg_inf;
    if (m != neg_inf) m = fmaxf(m, sink);  // no visible token: out 0, lse -inf, sink or not
    float l = 0.f;
    float o[HeadDim / threads] = {};
    if (m != neg_inf) {
      for (int s = 0; s < p.splits; ++s) {
        const float ms = p.partial_ml[(s * rows + row) * 2];
        if (ms == neg_inf) continue;  // a split that saw nothing wrote zeros
        const float wgt = exp2f(ms - m);
        l += wgt * p.partial_ml[(s * rows + row) * 2 + 1];
        const float* part = p.partial_o + (s * rows + row) * HeadDim;
        FLY_UNROLL
        for (int k = 0; k < HeadDim / threads; ++k) o[k] += wgt * part[tid + k * threads];
      }
      if (sink != neg_inf) l += exp2f(sink - m);
    }
    const float scale = m != neg_inf ? (p.v_scale != nullptr ? *p.v_scale : 1.f) * p.v_dequant / l : 0.f;
    auto* out = static_cast<uint16_t*>(p.out) + seq * p.out_seq + i * p.out_token + h * p.out_head;
    FLY_UNROLL
    for (int k = 0; k < HeadDim / threads; ++k) {
      const float x = o[k] * scale;
      out[tid + k * threads] = out_bf16 ? to_bf16(x) : to_f16(x);
    }
    if (p.lse != nullptr && tid == 0) p.lse[row] = m == neg_inf ? neg_inf : (m + log2f(l)) * 0.6931471805599453f;
  }
};

}  // namespace fly::kernels::pa::gfx942
