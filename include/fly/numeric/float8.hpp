// 8-bit floating point: fly::float8_e4m3fn (OCP FP8 E4M3, Hopper and gfx950) and
// fly::float8_e4m3fnuz (the E4M3 variant gfx942's MFMA instructions compute in).
//
//                 bias  max finite  NaN            infinity  -0
//   e4m3fn          7     448       0x7F, 0xFF     none      0x80
//   e4m3fnuz        8     240       0x80 only      none      none (0x80 is the NaN)
//
// Conversion from float rounds to nearest, ties to even, and saturates: a finite value (or an
// infinity) beyond the largest finite value becomes +-max; NaN stays NaN. Conversion to float is
// exact. Both are trivial 1-byte types (sizeof == 1, sizeof_bits_v == 8).
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"
#include "fly/numeric/minifloat.hpp"

namespace fly {

struct float8_e4m3fn {
  uint8_t storage;

  float8_e4m3fn() = default;
  FLY_HOST_DEVICE constexpr explicit float8_e4m3fn(float x)
      : storage(static_cast<uint8_t>(detail::minifloat_encode<detail::e4m3fn_format>(x))) {}

  FLY_HOST_DEVICE static constexpr float8_e4m3fn from_bits(uint8_t bits) {
    float8_e4m3fn r{};
    r.storage = bits;
    return r;
  }
  FLY_HOST_DEVICE constexpr uint8_t bits() const { return storage; }
  FLY_HOST_DEVICE constexpr bool is_nan() const { return (storage & 0x7Fu) == 0x7Fu; }

  FLY_HOST_DEVICE constexpr explicit operator float() const {
    if (is_nan()) return detail::bits_to_float((uint32_t(storage >> 7) << 31) | 0x7FC00000u);
    return detail::minifloat_decode<detail::e4m3fn_format>(storage);
  }

  FLY_HOST_DEVICE static constexpr float8_e4m3fn max() { return from_bits(0x7E); }     // 448
  FLY_HOST_DEVICE static constexpr float8_e4m3fn lowest() { return from_bits(0xFE); }  // -448
  FLY_HOST_DEVICE static constexpr float8_e4m3fn quiet_NaN() { return from_bits(0x7F); }
};

struct float8_e4m3fnuz {
  uint8_t storage;

  float8_e4m3fnuz() = default;
  FLY_HOST_DEVICE constexpr explicit float8_e4m3fnuz(float x)
      : storage(static_cast<uint8_t>(detail::minifloat_encode<detail::e4m3fnuz_format>(x))) {}

  FLY_HOST_DEVICE static constexpr float8_e4m3fnuz from_bits(uint8_t bits) {
    float8_e4m3fnuz r{};
    r.storage = bits;
    return r;
  }
  FLY_HOST_DEVICE constexpr uint8_t bits() const { return storage; }
  FLY_HOST_DEVICE constexpr bool is_nan() const { return storage == 0x80u; }

  FLY_HOST_DEVICE constexpr explicit operator float() const {
    if (is_nan()) return detail::bits_to_float(0x7FC00000u);
    return detail::minifloat_decode<detail::e4m3fnuz_format>(storage);
  }

  FLY_HOST_DEVICE static constexpr float8_e4m3fnuz max() { return from_bits(0x7F); }     // 240
  FLY_HOST_DEVICE static constexpr float8_e4m3fnuz lowest() { return from_bits(0xFF); }  // -240
  FLY_HOST_DEVICE static constexpr float8_e4m3fnuz quiet_NaN() { return from_bits(0x80); }
};

static_assert(sizeof(float8_e4m3fn) == 1 && alignof(float8_e4m3fn) == 1);
static_assert(sizeof(float8_e4m3fnuz) == 1 && alignof(float8_e4m3fnuz) == 1);

}  // namespace fly
