// Paged-decode tuning tables: per target, dtypes, head_dim, block_size and cache layout, the variant
// measured fastest at a work shape. Internal (C++), not part of the C API.
//
// The data lives in src/dispatch/tuning/pa_decode_<target>.tsv (committed; written on the target by
// `fly_bench --tune-pa`). cmake/fly_tuning.cmake turns it into C++ at configure time, in every
// build: a host-only build has the table but no variant it names, so it never applies there.
// select_pa_decode_variant (pa_decode_registry.hpp) consults it before its ranking.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "fly/fly.h"
#include "pa_decode_problem.hpp"
#include "target.hpp"

namespace fly::dispatch {

// One measured line of a table: on `target`, for a kv_type cache read by q_type queries, head_dim,
// block_size and layout, at num_seqs sequences of max_seq_len tokens with `rows` query rows
// (q_len x group) per each of num_kv_heads kv heads, the variant named `variant` was the fastest
// (each variant with the dispatcher's own split plan).
struct PaDecodeTuning {
  Target target;
  fly_dtype_t kv_type, q_type;
  int64_t head_dim, block_size;
  fly_kv_layout_t layout;
  int64_t num_seqs, rows, num_kv_heads, max_seq_len;
  const char* variant;
};

// Every entry of every committed table (generated; may be empty).
std::span<const PaDecodeTuning> pa_decode_tuning();

// The entry that applies to `problem` on `target`: same target, kv_type, q_type, head_dim,
// block_size and layout; each of num_seqs, rows (q_len x group), num_kv_heads and max_seq_len
// within a factor 2 of the entry's (inclusive); among those the nearest in log2 space (the sum of
// the four |log2(call / entry)|), the first listed on a tie. Null when none applies.
const PaDecodeTuning* nearest_pa_decode_tuning(std::span<const PaDecodeTuning> tuning, const PaDecodeProblem& problem,
                                               Target target);

// sum over num_seqs, rows, num_kv_heads, max_seq_len of |log2(problem / entry)|: 0 for the entry's
// own shape.
double pa_decode_tuning_distance(const PaDecodeTuning& entry, const PaDecodeProblem& problem);

// "64 seqs x 4096 tokens, 8 kv heads x 4 rows": an entry's work shape, for explanations.
std::string pa_decode_tuning_shape(const PaDecodeTuning& entry);

}  // namespace fly::dispatch
