// What every paged-decode launcher computes the same way whatever the runtime
// (pa_decode_launch_cuda.hpp, pa_decode_launch_hip.hpp): the kernels' parameters from a validated
// problem and its plan. No runtime header: the gfx942 host-execution test builds them too.
#pragma once

#include <cstdint>

#include "pa_decode_params.hpp"
#include "pa_decode_registry.hpp"

namespace fly::dispatch {

inline kernels::PagedCacheView cache_view(const void* base, int64_t block_stride, const KvBlockStrides& s) {
  // vLLM's K keeps a block's tokens adjacent within each 16-byte group of the head dimension
  return {base, block_stride, s.head, s.slot, s.chunk, s.dim, !s.dim_major && s.chunk > s.slot};
}

inline kernels::PaDecodeParams pa_decode_params(const PaDecodeProblem& p, const PaDecodePlan& plan) {
  kernels::PaDecodeParams k{};
  k.q = p.q;
  k.q_seq = p.q_stride_seq;
  k.q_token = p.q_stride_token;
  k.q_head = p.q_stride_head;
  k.out = p.out;
  k.out_seq = p.out_stride_seq;
  k.out_token = p.out_stride_token;
  k.out_head = p.out_stride_head;
  k.lse = p.lse;
  k.q_bf16 = p.q_type == FLY_DTYPE_BF16;
  k.k = cache_view(p.k_cache, p.k_block_stride, k_block_strides(p));
  k.v = cache_view(p.v_cache, p.v_block_stride, v_block_strides(p));
  k.block_tables = p.block_tables;
  k.block_table_stride = p.block_table_stride;
  k.num_blocks = int32_t(p.num_blocks);
  int log2 = 0;
  while ((int64_t{1} << log2) < p.block_size) ++log2;
  k.block_size_log2 = log2;
  const int64_t table_tokens = p.max_blocks_per_seq * p.block_size;
  k.max_len = int32_t(p.max_seq_len < table_tokens ? p.max_seq_len : table_tokens);
  k.seq_lens = p.seq_lens;
  k.num_seqs = int32_t(p.num_seqs);
  k.num_kv_heads = int32_t(p.num_kv_heads);
  k.group = int32_t(p.group());
  k.q_len = int32_t(p.q_len);
  const bool fp8 = p.kv_type == FLY_DTYPE_E4M3FN || p.kv_type == FLY_DTYPE_E4M3FNUZ;
  k.k_scale = fp8 ? p.k_scale : nullptr;  // the scales dequantise fp8 caches only
  k.v_scale = fp8 ? p.v_scale : nullptr;
  k.fnuz = p.kv_type == FLY_DTYPE_E4M3FNUZ;
  k.k_dequant = k.v_dequant = k.fnuz ? 128.f : 1.f;  // e4m3fnuz's shift leaves value * 2^-7
  k.scale = p.scale;
  k.softcap = p.logit_softcap;
  // A window as long as the longest visible context hides nothing: off, so that the kernels' 32-bit
  // window arithmetic never sees a value past max_len (an int64 window of 2^32 + 5 is not 5).
  k.window = p.sliding_window < k.max_len ? int32_t(p.sliding_window) : 0;
  k.sinks = p.sinks;
  k.row_chunks = plan.row_chunks;
  k.splits = plan.splits;
  k.split_tokens = int32_t(plan.split_tokens);
  const int64_t rows = p.num_seqs * p.q_len * p.num_q_heads;
  k.partial_o = static_cast<float*>(plan.workspace);
  k.partial_ml = plan.splits > 1 ? k.partial_o + int64_t(plan.splits) * rows * p.head_dim : nullptr;
  return k;
}

// Where the splits of a plan count themselves in (pa_decode_work.hpp, split_counter_claimed).
inline uint64_t* pa_decode_split_counters(const PaDecodeProblem& p, const PaDecodePlan& plan) {
  return reinterpret_cast<uint64_t*>(static_cast<char*>(plan.workspace) + pa_decode_split_counters_offset(p, plan));
}

// The gfx942 kernels' parameters: fp8 K reaches the e4m3fnuz MFMA as its own bytes (an e4m3fn
// byte read as e4m3fnuz is half its value) and fp8 V widens to f16 by a shift (value * 2^-7 for
// e4m3fnuz, 2^-8 for e4m3fn): pa_decode_gfx942_convert.hpp.
inline kernels::PaDecodeParams pa_decode_params_gfx942(const PaDecodeProblem& p, const PaDecodePlan& plan) {
  kernels::PaDecodeParams k = pa_decode_params(p, plan);
  const bool fp8 = p.kv_type == FLY_DTYPE_E4M3FN || p.kv_type == FLY_DTYPE_E4M3FNUZ;
  k.k_dequant = fp8 && !k.fnuz ? 2.f : 1.f;
  k.v_dequant = !fp8 ? 1.f : k.fnuz ? 128.f : 256.f;
  return k;
}

}  // namespace fly::dispatch
