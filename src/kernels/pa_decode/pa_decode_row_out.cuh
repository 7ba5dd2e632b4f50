// What a finished query row writes, whichever kernel finished it (a block's epilogue, a persistent
// warp, the split-K merge or the reduce kernel): the sink joined to the softmax's denominator, the
// log-sum-exp, and out's element in the query's type.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "pa_decode_fragments.cuh"  // fmax_nan
#include "pa_decode_params.hpp"

namespace fly::kernels::pa {

__device__ __forceinline__ void store_out_elem(void* out, int64_t i, float v, bool bf16) {
  if (bf16) {
    static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(v);
  } else {
    static_cast<__half*>(out)[i] = __float2half_rn(v);
  }
}

// A finished row's softmax (running max m in log2 units, sum l, both of the visible tokens; m
// finite) with query head h's attention sink joined to the denominator: m and l updated, and the
// factor returned that the row's O takes with them (1 without sinks).
__device__ __forceinline__ float join_sink(const PaDecodeParams& p, int32_t h, float& m, float& l) {
  if (p.sinks == nullptr) return 1.f;
  const float sink = __ldg(p.sinks + h) * kLog2e;
  const float m2 = fmax_nan(m, sink);
  const float c = exp2f(m - m2);
  l = l * c + exp2f(sink - m2);
  m = m2;
  return c;
}

// The natural log-sum-exp of a row from its max (log2 units) and sum.
__device__ __forceinline__ float row_lse(float m, float l) { return (m + log2f(l)) * 0.6931471805599453f; }

}  // namespace fly::kernels::pa
