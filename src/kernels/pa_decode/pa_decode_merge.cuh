// Split-K's merge folded into the decode (FLY_PA_DECODE_FOLD=1; off by default, slower at batch 1:
// docs/pa-decode.md): the split that finishes a (sequence, kv head, row chunk)
// last reads every split's partials of its rows (still in L2) and writes out and lse, so no reduce
// kernel waits for the whole grid (pa_decode_work.hpp, split_counter_claimed, says how the count works on
// a workspace nothing initialises). A warp merges one query row: lane k holds the statistics of
// splits k and k + 32 and the head_dim / 32 elements [k * head_dim / 32, ...) of every split.
#pragma once

#include <cstdint>
#include <type_traits>

#include "pa_decode_params.hpp"
#include "pa_decode_row_out.cuh"
#include "pa_decode_work.hpp"

namespace fly::kernels::pa {

constexpr int kMaxMergedSplits = 64;  // pa_decode_max_splits: a warp's lanes hold two splits each

// Counts the calling split in on `counter`; true for the split that completes the count, which
// then owns every split's partials. Called by one thread after its block's (or warp's) threads
// wrote their partials and met at a barrier: the fence before the count releases their writes,
// the one after it orders the merge's reads behind every other split's release.
__device__ __forceinline__ bool last_split_arrives(const PaDecodeParams& p, int64_t counter) {
  auto* word = reinterpret_cast<unsigned long long*>(p.split_counters + counter);
  __threadfence();
  unsigned long long seen = *reinterpret_cast<volatile unsigned long long*>(word);
  // another launch's word: claim it (at most one round lost)
  for (unsigned long long claimed; (claimed = split_counter_claimed(seen, p.epoch)) != seen;) {
    const unsigned long long was = atomicCAS(word, seen, claimed);
    seen = was == seen ? claimed : was;
  }
  const bool last = split_arrivals(atomicAdd(word, 1ull)) + 1 == uint32_t(p.splits);
  if (last) *reinterpret_cast<volatile unsigned long long*>(word) = 0;  // no other split of this launch comes
  __threadfence();
  return last;
}

// Merges query row `qrow` (sequence seq, new token i, q head h) from the splits' partials into
// out and lse; called by a whole warp. The partials are read through L2 (ld.global.cg): other
// blocks wrote them during this kernel, so neither L1 nor the read-only path may hold them.
template <int HeadDim>
__device__ void merge_split_row(const PaDecodeParams& p, int32_t seq, int32_t i, int32_t h, bool out_bf16, int lane) {
  constexpr int E = HeadDim / 32;        // a lane's elements of a row
  constexpr int C = E >= 8 ? 8 : 64 / E;  // splits whose elements a lane loads at once (64 registers)
  static_assert(HeadDim % 64 == 0, "a lane's elements are whole float2s");
  using Vec = std::conditional_t<E % 4 == 0, float4, float2>;
  constexpr int V = E * 4 / int(sizeof(Vec));
  const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
  const int64_t rows = int64_t(p.num_seqs) * p.q_len * q_heads;
  const int64_t qrow = pa_query_row(seq, i, h, p.q_len, q_heads);
  const int splits = p.splits < kMaxMergedSplits ? p.splits : kMaxMergedSplits;
  auto part_at = [&](int s) { return reinterpret_cast<const Vec*>(p.partial_o + (s * rows + qrow) * HeadDim) + lane * V; };

  // every load the first pass needs, issued before any is used
  const float sink_raw = p.sinks != nullptr ? __ldg(p.sinks + h) : -INFINITY;
  const float v_scale_raw = p.v_scale != nullptr ? __ldg(p.v_scale) : 1.f;
  float ms[2], ls[2];
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const int s = lane + 32 * k;
    ms[k] = s < splits ? __ldcg(p.partial_ml + (s * rows + qrow) * 2) : -INFINITY;
    ls[k] = s < splits ? __ldcg(p.partial_ml + (s * rows + qrow) * 2 + 1) : 0.f;
  }
  Vec part[C][V];
  auto load = [&](int first) {
#pragma unroll
    for (int j = 0; j < C; ++j)
#pragma unroll
      for (int v = 0; v < V; ++v) part[j][v] = first + j < splits ? __ldcg(part_at(first + j) + v) : Vec{};
  };
  load(0);

  // the max over the splits and the sink, each split's weight exp2(m_s - max) and the sum
  float m = fmax_nan(ms[0], ms[1]);  // a NaN split makes the row NaN
#pragma unroll
  for (int x = 16; x >= 1; x /= 2) m = fmax_nan(m, __shfl_xor_sync(0xffffffffu, m, x));
  const float sink = sink_raw * kLog2e;
  if (m != -INFINITY) m = fmax_nan(m, sink);  // no visible token: out 0, lse -inf, sink or not
  float w[2], l = 0.f;
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    w[k] = ms[k] == -INFINITY ? 0.f : exp2f(ms[k] - m);
    l += w[k] * ls[k];
  }
#pragma unroll
  for (int x = 16; x >= 1; x /= 2) l += __shfl_xor_sync(0xffffffffu, l, x);
  if (m != -INFINITY && sink != -INFINITY) l += exp2f(sink - m);

  float acc[E] = {};
  for (int first = 0; first < splits; first += C) {
    if (first > 0) load(first);
#pragma unroll
    for (int j = 0; j < C; ++j) {
      const int s = first + j;  // the same on every lane
      if (s >= splits) break;
      const float ws = __shfl_sync(0xffffffffu, s < 32 ? w[0] : w[1], s & 31);
      if (ws == 0.f) continue;  // a split that saw nothing wrote zeros; skipping it also skips 0 * inf
      const float* x = reinterpret_cast<const float*>(part[j]);
#pragma unroll
      for (int e = 0; e < E; ++e) acc[e] += ws * x[e];
    }
  }
  const float v_scale = v_scale_raw * p.v_dequant;
  const int64_t out_at = int64_t(seq) * p.out_seq + int64_t(i) * p.out_token + int64_t(h) * p.out_head + lane * E;
#pragma unroll
  for (int e = 0; e < E; ++e) store_out_elem(p.out, out_at + e, m == -INFINITY ? 0.f : acc[e] / l * v_scale, out_bf16);
  if (p.lse != nullptr && lane == 0) p.lse[qrow] = m == -INFINITY ? -INFINITY : row_lse(m, l);
}

}  // namespace fly::kernels::pa
