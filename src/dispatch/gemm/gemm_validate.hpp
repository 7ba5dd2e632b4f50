// Argument validation of the GEMM entry points: every check with a message naming the argument.
#pragma once

#include "fly/fly.h"
#include "gemm_registry.hpp"

namespace fly::dispatch {

// Checks `args` for a GEMM computed by `target`'s kernels (the host backend: Target::host) and, on
// success, fills `out` (C normalised to null when beta == 0). `fn` starts every message, e.g.
// "fly_gemm: lda (7) must be >= k (8)". Invalid arguments are reported before unsupported ones:
// FLY_STATUS_INVALID_ARGUMENT (null pointers, sizes, leading dimensions, struct_size, overlaps),
// then FLY_STATUS_NOT_SUPPORTED (dtype combinations this target does not compute). On failure
// fly_last_error() holds the message. May throw std::bad_alloc (callers catch at the C boundary).
fly_status_t validate_gemm_args(const char* fn, const fly_gemm_args* args, Target target, GemmProblem* out);

}  // namespace fly::dispatch
