// One validated fly_pa_decode call, as the dispatcher, the host reference and the launchers see
// it. Internal (C++), not part of the C API; fly.h's fly_pa_decode_args documents every field.
#pragma once

#include <cstdint>

#include "fly/fly.h"

namespace fly::dispatch {

// Guarantees when a launcher or host_pa_decode sees it (validate_pa_decode_args):
//  - num_seqs, q_len (1..4), num_q_heads, num_kv_heads >= 1, num_q_heads % num_kv_heads == 0;
//    head_dim in {64, 128, 256}; block_size in {16, 32, 64}; num_blocks >= 1;
//    max_blocks_per_seq >= 1, block_table_stride >= max_blocks_per_seq; max_seq_len >= 1.
//  - q_type BF16 or F16; kv_type == q_type, or E4M3FN / E4M3FNUZ.
//  - q, out, k_cache, v_cache, block_tables, seq_lens are not null; lse, k_scale, v_scale, sinks
//    may be null. Strides are >= 0 and every span fits in int64 bytes.
//  - sliding_window >= 0 (0 = off); logit_softcap >= 0 (0 = off); scale is finite.
struct PaDecodeProblem {
  int64_t num_seqs, q_len, num_q_heads, num_kv_heads, head_dim;
  fly_dtype_t q_type, kv_type;
  fly_kv_layout_t layout;
  const void* q;
  int64_t q_stride_seq, q_stride_token, q_stride_head;  // elements
  void* out;
  int64_t out_stride_seq, out_stride_token, out_stride_head;
  float* lse;  // [num_seqs][q_len][num_q_heads] or null
  const void* k_cache;
  const void* v_cache;
  int64_t num_blocks, block_size, k_block_stride, v_block_stride;  // elements
  const int32_t* block_tables;
  int64_t block_table_stride, max_blocks_per_seq;
  const int32_t* seq_lens;
  int64_t max_seq_len;
  const float* k_scale;
  const float* v_scale;
  float scale, logit_softcap;
  int64_t sliding_window;
  const float* sinks;
  bool check_block_tables;  // FLY_PA_DECODE_CHECK_BLOCK_TABLES

  int64_t group() const { return num_q_heads / num_kv_heads; }
  // Query rows that share one kv head: every query head of the group, for every new token.
  int64_t rows_per_kv_head() const { return group() * q_len; }
  // The tokens sequence s's queries may see (fly.h's L): its seq_lens entry `len` clamped to
  // [0, min(max_seq_len, max_blocks_per_seq * block_size)].
  int64_t visible_len(int32_t len) const {
    int64_t cap = INT64_MAX;
    if (max_blocks_per_seq <= cap / block_size) cap = max_blocks_per_seq * block_size;
    if (max_seq_len < cap) cap = max_seq_len;
    return len < 0 ? 0 : int64_t(len) < cap ? int64_t(len) : cap;
  }
};

// Element strides inside one cache block (fly.h, kv_layout), so that element d of token slot j of
// kv head g is at block_base + g * head + j * slot + (d / x) * chunk + d % x, with x = 16 bytes of
// elements (chunk = x when the head dimension is contiguous). For V in the vLLM layout the head
// dimension is not contiguous: element (j, d) is at g * head + d * dim + j (`dim_major`).
struct KvBlockStrides {
  int64_t head, slot, chunk, dim;
  bool dim_major;
};
KvBlockStrides k_block_strides(const PaDecodeProblem& p) noexcept;
KvBlockStrides v_block_strides(const PaDecodeProblem& p) noexcept;

// The number of elements of one block of the K (or V) cache for this layout.
int64_t kv_block_elems(const PaDecodeProblem& p) noexcept;

}  // namespace fly::dispatch
