// Element sizes of the C API's dtypes, for every op's validation and launch glue.
#pragma once

#include <cstdint>

#include "fly/fly.h"

namespace fly::dispatch {

// Size in bytes of one element (1 for the fp8 types; 0 for a value outside fly_dtype_t).
inline int64_t dtype_bytes(fly_dtype_t dtype) noexcept {
  switch (dtype) {
    case FLY_DTYPE_F32: return 4;
    case FLY_DTYPE_F16:
    case FLY_DTYPE_BF16: return 2;
    case FLY_DTYPE_E4M3FN:
    case FLY_DTYPE_E4M3FNUZ: return 1;
  }
  return 0;
}

}  // namespace fly::dispatch
