// Argument validation of the paged-decode entry points: every check with a message naming the argument.
#pragma once

#include <array>
#include <cstdint>

#include "fly/fly.h"
#include "target.hpp"
#include "pa_decode_problem.hpp"

namespace fly::dispatch {

// Checks `args` for a decode computed by `target`'s kernels (the host backend: Target::host) and, on
// success, fills `out` (see PaDecodeProblem's guarantees). `fn` starts every message, e.g.
// "fly_pa_decode: num_seqs (0) must be >= 1". Invalid arguments are reported before unsupported ones:
// FLY_STATUS_INVALID_ARGUMENT (struct_size, sizes, enums, null or misaligned pointers, strides, spans
// past 2^63 bytes, overlaps of what is written), then FLY_STATUS_NOT_SUPPORTED (dtypes, head_dim,
// block_size, q_len the kernels do not compute; on GPU targets, pointers and strides that are not
// 16-byte multiples). On failure fly_last_error() holds the message. May throw std::bad_alloc
// (callers catch at the C boundary).
fly_status_t validate_pa_decode_args(const char* fn, const fly_pa_decode_args* args, Target target, PaDecodeProblem* out);

// One buffer of a call: where it starts, the bytes from its first to past its last element (0 for
// an optional one that is null, -1 past INT64_MAX), and whether the call writes it. Arithmetic
// only: validation computes them on every call.
struct PaDecodeBuffer {
  const char* name;
  const void* base;
  int64_t bytes;
  bool written;
};
struct PaDecodeBuffers {
  enum { q, k_cache, v_cache, block_tables, seq_lens, k_scale, v_scale, sinks, out, lse, count };
  std::array<PaDecodeBuffer, count> all;
};

// The buffers of `a`, whose sizes are >= 1 (validation's first checks).
PaDecodeBuffers pa_decode_buffers(const fly_pa_decode_args& a);

// The name of the first buffer of a validated `a` that [p, p + bytes) overlaps, or null: the
// workspace must alias none (the kernels write it while they read the others).
const char* pa_decode_buffer_overlapping(const fly_pa_decode_args& a, const void* p, int64_t bytes);

}  // namespace fly::dispatch
