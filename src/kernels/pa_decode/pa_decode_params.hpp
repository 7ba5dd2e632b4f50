// What a paged-decode kernel reads: a view of the paged cache (FlashInfer's paged_kv_t idea), the
// query/output views, the masking options and the split plan. Plain data, filled on the host by
// the launcher (src/dispatch/pa_decode); kernels know nothing else of the dispatcher.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

namespace fly::kernels {

// One cache (K or V): block b, kv head g, token slot j, element d at
//   base + b * block + g * head + j * slot + (d / x) * chunk + d % x     (token-major, x = 16 bytes)
//   base + b * block + g * head + d * dim + j                            (dim-major: vLLM's V)
struct PagedCacheView {
  const void* base;
  int64_t block, head, slot, chunk, dim;  // elements
  bool token_fast;                        // consecutive tokens' 16-byte chunks are adjacent (vLLM K)
};

struct PaDecodeParams {
  // queries and outputs [seq][token][head][head_dim], head_dim contiguous; strides in elements
  const void* q;
  int64_t q_seq, q_token, q_head;
  void* out;
  int64_t out_seq, out_token, out_head;
  float* lse;  // [seq][token][q head] or null
  bool q_bf16;  // fp8 kernels: q and out are bf16 (else f16); 16-bit kernels know their type

  PagedCacheView k, v;
  const int32_t* block_tables;
  int64_t block_table_stride;
  int32_t num_blocks;
  int32_t block_size_log2;
  int32_t max_len;  // min(max_seq_len, max_blocks_per_seq * block_size): seq_lens are clamped to it
  const int32_t* seq_lens;

  int32_t num_seqs, num_kv_heads, group, q_len;
  const float* k_scale;  // null = 1
  const float* v_scale;
  bool fnuz;                   // the fp8 cache is e4m3fnuz (else e4m3fn)
  float k_dequant, v_dequant;  // constant factors of the fp8 widening (2^7 for e4m3fnuz), else 1
  float scale;                 // softmax scale
  float softcap;               // 0 = off
  int32_t window;              // 0 = off
  const float* sinks;          // [q heads] or null

  int32_t row_chunks, splits, split_tokens;
  float* partial_o;   // splits > 1: [split][query row][head_dim]
  float* partial_ml;  // splits > 1: [split][query row][2] (max in log2 units, sum)
  // splits > 1: the last split merges (pa_decode_work.hpp, split_counter_claimed) when these are set, else
  // a reduce kernel does; [seq][kv head][row chunk] words in the workspace, and the launch's epoch
  uint64_t* split_counters;
  uint32_t epoch;
  // the per-warp and persistent kernels prefetch their first groups into L2 before the previous
  // grid completes (pa_decode_warp_feed.cuh, warm_groups_l2)
  bool warm_l2;
};

// The query row (sequence s, token i, q head h) in [0, num_seqs * q_len * num_q_heads).
FLY_HOST_DEVICE inline int64_t pa_query_row(int64_t s, int64_t i, int64_t h, int64_t q_len, int64_t q_heads) {
  return (s * q_len + i) * q_heads + h;
}

}  // namespace fly::kernels
