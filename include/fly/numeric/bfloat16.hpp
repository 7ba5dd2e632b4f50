// fly::bfloat16: the upper 16 bits of an IEEE binary32 (1 sign, 8 exponent, 7 mantissa bits).
// Conversion from float rounds to nearest, ties to even; overflow becomes +-infinity; NaN stays a
// (quiet) NaN. Conversion to float is exact.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"
#include "fly/numeric/minifloat.hpp"

namespace fly {

struct bfloat16 {
  uint16_t storage;

  bfloat16() = default;
  FLY_HOST_DEVICE constexpr explicit bfloat16(float x) : storage(encode(x)) {}

  FLY_HOST_DEVICE static constexpr bfloat16 from_bits(uint16_t bits) {
    bfloat16 r{};
    r.storage = bits;
    return r;
  }
  FLY_HOST_DEVICE constexpr uint16_t bits() const { return storage; }
  FLY_HOST_DEVICE constexpr bool is_nan() const { return (storage & 0x7FFFu) > 0x7F80u; }

  FLY_HOST_DEVICE constexpr explicit operator float() const {
    return detail::bits_to_float(uint32_t(storage) << 16);
  }

  FLY_HOST_DEVICE static constexpr bfloat16 max() { return from_bits(0x7F7F); }
  FLY_HOST_DEVICE static constexpr bfloat16 lowest() { return from_bits(0xFF7F); }
  FLY_HOST_DEVICE static constexpr bfloat16 infinity() { return from_bits(0x7F80); }
  FLY_HOST_DEVICE static constexpr bfloat16 quiet_NaN() { return from_bits(0x7FC0); }

 private:
  FLY_HOST_DEVICE static constexpr uint16_t encode(float x) {
    uint32_t const u = detail::float_to_bits(x);
    bool const nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
    uint16_t const nan_bits = static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet, sign and top payload kept
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800  // cvt.rn.bf16.f32: sm_80 and up
    // the hardware conversion (round to nearest even, overflow to infinity, as below), the NaN
    // chosen after it without a branch, as fly::half does: the integer rounding below is ~8
    // instructions a value, and the GEMM epilogues convert every accumulator (docs/gemm.md,
    // "Fifteenth session": 540 of the 812 instructions of a 128x128 tile's bf16 epilogue)
    if (!__builtin_is_constant_evaluated()) {
      uint16_t h;
      asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
      return nan ? nan_bits : h;
    }
#endif
    if (nan) return nan_bits;
    // Round to nearest even on the low 16 bits; a carry propagates into the exponent, and past
    // the largest finite value it lands exactly on infinity.
    uint32_t const rounded = u + 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(rounded >> 16);
  }
};

static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2);

}  // namespace fly
