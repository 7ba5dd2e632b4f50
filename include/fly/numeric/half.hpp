// fly::half: IEEE 754 binary16 (1 sign, 5 exponent, 10 mantissa bits, bias 15), as raw bits.
// Conversion from float rounds to nearest, ties to even; overflow becomes +-infinity (IEEE);
// NaN stays NaN (quiet, sign and the top payload bits kept). Conversion to float is exact.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"
#include "fly/numeric/minifloat.hpp"

namespace fly {

struct half {
  uint16_t storage;

  half() = default;
  FLY_HOST_DEVICE constexpr explicit half(float x) : storage(encode(x)) {}

  FLY_HOST_DEVICE static constexpr half from_bits(uint16_t bits) {
    half r{};
    r.storage = bits;
    return r;
  }
  FLY_HOST_DEVICE constexpr uint16_t bits() const { return storage; }
  FLY_HOST_DEVICE constexpr bool is_nan() const { return (storage & 0x7FFFu) > 0x7C00u; }

  FLY_HOST_DEVICE constexpr explicit operator float() const {
    const float nan = detail::bits_to_float((uint32_t(storage >> 15) << 31) | 0x7FC00000u |
                                            (uint32_t(storage & 0x3FFu) << 13));
#if defined(__CUDA_ARCH__)
    // the hardware conversion (exact, as the decoder below), the NaN chosen after it without a
    // branch: the GEMM epilogues read C through this, a value per accumulator
    if (!__builtin_is_constant_evaluated()) {
      float f;
      asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(storage));
      return is_nan() ? nan : f;
    }
#endif
    if (is_nan()) return nan;
    return detail::minifloat_decode<detail::binary16_format>(storage);
  }

  FLY_HOST_DEVICE static constexpr half max() { return from_bits(0x7BFF); }  // 65504
  FLY_HOST_DEVICE static constexpr half lowest() { return from_bits(0xFBFF); }
  FLY_HOST_DEVICE static constexpr half infinity() { return from_bits(0x7C00); }
  FLY_HOST_DEVICE static constexpr half quiet_NaN() { return from_bits(0x7E00); }

 private:
  FLY_HOST_DEVICE static constexpr uint16_t encode(float x) {
    uint32_t const u = detail::float_to_bits(x);
    // NaN: keep the sign and the top payload bits, quiet
    bool const nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
    uint16_t const nan_bits = static_cast<uint16_t>(((u >> 16) & 0x8000u) | 0x7E00u | ((u >> 13) & 0x3FFu));
#if defined(__CUDA_ARCH__)
    // the hardware conversion (same rounding, overflow and subnormals as the encoder below), the
    // NaN chosen after it without a branch: the software encoder is ~20 instructions a value, and a
    // branch around each conversion doubled the f16 GEMM epilogue's code (docs/gemm.md)
    if (!__builtin_is_constant_evaluated()) {
      uint16_t h;
      asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
      return nan ? nan_bits : h;
    }
#endif
    if (nan) return nan_bits;
    return static_cast<uint16_t>(detail::minifloat_encode<detail::binary16_format>(x));
  }
};

static_assert(sizeof(half) == 2 && alignof(half) == 2);

}  // namespace fly
