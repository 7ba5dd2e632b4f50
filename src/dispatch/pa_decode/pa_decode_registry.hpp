// The paged-decode variant registry and the dispatcher's plan: which compiled kernel runs a
// problem, with how many context splits. Internal (C++), not part of the C API.
//
// The generated sm_90a and gfx942 kernels define pa_decode_variants() (pa_decode/variants.txt); a build without
// them links pa_decode_registry_host.cpp, an empty list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "fly/fly.h"
#include "target.hpp"
#include "pa_decode_problem.hpp"

namespace fly::dispatch {

// How one launch covers a problem: each (sequence, kv head, row chunk, split) is one unit of work,
// a block of the kernel (or, persistent variants, a warp's turn); splits > 1 writes partial
// results to the workspace and a reduce kernel combines them.
struct PaDecodePlan {
  int splits = 1;              // context splits per (sequence, kv head)
  int64_t split_tokens = 0;    // tokens per split, a multiple of the variant's tokens per step
  int row_chunks = 1;          // blocks along the group x q_len query rows, rows_per_block each
  void* workspace = nullptr;   // splits > 1: partial outputs (pa_decode_workspace_bytes)
  int64_t grid_blocks = 0;     // persistent variants: the blocks launched (their warps take the
                               // units in turn); 0: one block per unit
};

struct PaDecodeVariant {
  const char* name;       // e.g. "pa_decode_sm90a_d128_bf16_vtok_t64w4s4"
  Target target;
  fly_dtype_t kv_class;   // BF16 or F16 (q_type == kv_type), or E4M3FN for both fp8 types (either q type)
  int head_dim;
  bool v_dim_major;       // V stored [head_dim][block_size] (the vLLM layout) rather than token-major
  int rows_per_block;     // query rows (group x q_len) one block computes
  int tokens_per_step;    // context tokens a block step covers (the split plan's unit)
  int warps, stages;
  bool per_warp;          // each warp pipelines its own 16-token groups (stages per warp), else the
                          // block's warps share each step's stage
  bool tma;               // per-warp pipelines fed by TMA boxes (token-major caches whose tensor maps
                          // encode: pa_decode_tma_rejection), else by cp.async
  bool ring;              // TMA-fed from one ring per block by a producer warp (warps: the consumers)
  // Enqueues the decode (and the reduce when plan.splits > 1) on the caller's stream.
  fly_status_t (*launch)(const PaDecodeProblem&, const PaDecodePlan&, void* stream);
  // Blocks of the kernel one SM holds at once on the current device (registers, shared memory),
  // for the split plan; null: 1.
  int (*blocks_per_sm)();
  int load_bits;          // gfx942: the BufferCopy width of the K / V row loads (32, 64, 128); else 0
  bool persistent;        // per-warp pipelines in a persistent grid: each warp takes unit after
                          // unit (sequence, kv head, row chunk, split); the plan's block is a warp
};

// Every variant compiled into the library (empty without generated GPU kernels).
std::span<const PaDecodeVariant> pa_decode_variants();

// The most splits a call may use for max_seq_len: what the workspace is sized for.
int pa_decode_max_splits(int64_t max_seq_len) noexcept;

// The kernels count tokens, block ids and query rows in 32 bits on every target: empty when `p` is
// within that (num_blocks and query rows up to 2^31 - 1, max_seq_len up to 2^31 - 2^16: room for
// the split plan's rounding and the lookups ahead of a block's end), else why not. Selection checks
// it before planning (so explain agrees with the call), the launchers again.
std::string pa_decode_kernel_size_rejection(const PaDecodeProblem& p);

// A plan's units of work, (sequence, kv head, row chunk, split): a block each, or a persistent
// grid's warps' turns.
inline int64_t pa_decode_units(const PaDecodeProblem& p, const PaDecodePlan& plan) {
  return p.num_seqs * p.num_kv_heads * plan.row_chunks * plan.splits;
}

// Workspace bytes for a problem (depends only on num_seqs, q_len, num_q_heads, head_dim and
// max_seq_len): partial fp32 outputs and (max, sum) pairs for pa_decode_max_splits splits.
size_t pa_decode_workspace_bytes(const PaDecodeProblem& p) noexcept;

// The workspace's layout for a plan: the partial outputs [split][query row][head_dim], the
// statistics [split][query row][2] (floats), then, at this byte offset, the splits' counters: a
// 64-bit word per (sequence, kv head, row chunk), within pa_decode_workspace_bytes (which sizes a
// word per query row behind the most splits' partials).
inline int64_t pa_decode_split_counters_offset(const PaDecodeProblem& p, const PaDecodePlan& plan) {
  const int64_t rows = p.num_seqs * p.q_len * p.num_q_heads;
  return int64_t(sizeof(float)) * plan.splits * rows * (p.head_dim + 2);
}

struct PaDecodeTuning;  // pa_decode_tuning.hpp

// The variant and plan for `problem` on a `target` device with `multiprocessors` SMs, or null
// when none fits; `why` (if not null) gets a one-line reason for fly_pa_decode_explain. The entry
// of `tuning` that applies (nearest_pa_decode_tuning) names the variant when that variant is in
// `variants` and eligible for the call; otherwise, or without an entry, the ranking picks (the
// reason says why a tuned variant was passed over). FLY_PA_DECODE_VARIANT set: no table.
const PaDecodeVariant* select_pa_decode_variant(std::span<const PaDecodeVariant> variants,
                                                std::span<const PaDecodeTuning> tuning, const PaDecodeProblem& problem,
                                                Target target, int multiprocessors, PaDecodePlan* plan, std::string* why);
// The same without a table: the ranking alone.
const PaDecodeVariant* select_pa_decode_variant(std::span<const PaDecodeVariant> variants, const PaDecodeProblem& problem,
                                                Target target, int multiprocessors, PaDecodePlan* plan, std::string* why);

}  // namespace fly::dispatch
