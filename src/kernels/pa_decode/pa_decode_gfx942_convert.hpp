// Element conversions of the gfx942 paged decode, the same on the GPU and the host model.
//  - fp8 V is widened to f16 by a shift: e4m3fnuz (bias 8) lands as value * 2^-7, OCP e4m3fn
//    (bias 7) as value * 2^-8, subnormals included, exactly; the factor joins v_dequant. NaN codes
//    are not preserved (0x80 of e4m3fnuz becomes -0).
//  - fp8 K feeds the fp8 MFMA, which reads e4m3fnuz. An e4m3fn byte read as e4m3fnuz is its value
//    / 2 (k_dequant 2), except 0x80 (-0 in e4m3fn, NaN in e4m3fnuz), which is cleared to +0.
//  - Q of an fp8 cache becomes two e4m3fnuz terms per element, q / s = hi + lo / 16 with s a power
//    of two per row (|q / s| < 128): the QK product keeps 8 significant bits of q, as bf16 does.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

namespace fly::kernels::pa::gfx942 {

FLY_HOST_DEVICE inline uint32_t float_bits(float x) {
  uint32_t u;
  __builtin_memcpy(&u, &x, 4);
  return u;
}
FLY_HOST_DEVICE inline float bits_float(uint32_t u) {
  float x;
  __builtin_memcpy(&x, &u, 4);
  return x;
}

// Four fp8 bytes (w) as four f16 (two words, element 0 in the low half of the first).
FLY_HOST_DEVICE inline void widen_fp8x4(uint32_t w, uint32_t& lo, uint32_t& hi) {
  auto pair = [](uint32_t b) {  // bytes 0 and 1 of b
    return ((b & 0x80u) << 8) | ((b & 0x7Fu) << 7) | ((b & 0x8000u) << 16) | ((b & 0x7F00u) << 15);
  };
  lo = pair(w);
  hi = pair(w >> 16);
}

// Eight e4m3fn bytes as the e4m3fnuz bytes of half their values: 0x80 (-0) cleared.
FLY_HOST_DEVICE inline uint32_t fn_as_fnuz(uint32_t w) {
  const uint32_t t = w ^ 0x80808080u;  // zero bytes where w had 0x80
  const uint32_t zero = ~(((t & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | t | 0x7F7F7F7Fu);  // 0x80 in those bytes
  return w & ~(zero | (zero >> 7) * 0xFFu);  // exact: 0x80 bytes become 0x00
}

// Round-to-nearest-even float -> e4m3fnuz for |x| < 240 (no saturation needed by the callers).
FLY_HOST_DEVICE inline uint8_t to_fnuz(float x) {
  const uint32_t u = float_bits(x);
  const uint32_t sign = (u >> 24) & 0x80u;
  const float a = bits_float(u & 0x7FFFFFFFu);
  uint32_t code;
  if (a < 0.0078125f) {  // below 2^-7: subnormal steps of 2^-10
    code = uint32_t(__builtin_rintf(a * 1024.f));  // 8 rounds up to the smallest normal, 0x08
  } else {
    int e = int((float_bits(a) >> 23) & 0xFF) - 127;  // a is a normal float
    uint32_t q = uint32_t(__builtin_rintf(a * bits_float(uint32_t(127 + 3 - e) << 23)));  // [8, 16]
    if (q == 16) {
      q = 8;
      ++e;
    }
    code = (uint32_t(e + 8) << 3) | (q - 8);
  }
  return uint8_t(code == 0 ? 0 : code | sign);  // no -0: 0x80 is NaN
}

// The value of an e4m3fnuz code (not 0x80).
FLY_HOST_DEVICE inline float fnuz_value(uint8_t c) {
  const int e = (c >> 3) & 15, m = c & 7;
  const float v = e == 0 ? float(m) * 0.0009765625f : float(8 + m) * bits_float(uint32_t(127 + e - 11) << 23);
  return (c & 0x80) != 0 ? -v : v;
}

// Four floats (|x| < 240) as four e4m3fnuz bytes, element 0 in the low byte: the hardware's
// v_cvt_pk_fp8_f32 (round to nearest even) on the GPU, to_fnuz on the host.
FLY_HOST_DEVICE inline uint32_t pack_fnuz4(float a, float b, float c, float d) {
#if defined(__HIP_DEVICE_COMPILE__)
  const int lo = __builtin_amdgcn_cvt_pk_fp8_f32(a, b, 0, false);
  return uint32_t(__builtin_amdgcn_cvt_pk_fp8_f32(c, d, lo, true));
#else
  return uint32_t(to_fnuz(a)) | (uint32_t(to_fnuz(b)) << 8) | (uint32_t(to_fnuz(c)) << 16) | (uint32_t(to_fnuz(d)) << 24);
#endif
}

// The value of byte `sel` of four e4m3fnuz bytes (v_cvt_f32_fp8 on the GPU).
template <int Sel>
FLY_HOST_DEVICE inline float fnuz_byte(uint32_t w) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_cvt_f32_fp8(int(w), Sel);
#else
  return fnuz_value(uint8_t(w >> (8 * Sel)));
#endif
}

// Round-to-nearest-even to bf16 / f16 bits (finite inputs).
FLY_HOST_DEVICE inline uint16_t to_bf16(float x) {
  const uint32_t u = float_bits(x);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
FLY_HOST_DEVICE inline uint16_t to_f16(float x) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(uint16_t, static_cast<_Float16>(x));
#else
  // host: through the same rounding, written out (finite inputs, RNE, subnormals kept)
  const uint32_t u = float_bits(x);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // rounds past 65504: inf
  if (a < 0x38800000u) {                                   // below 2^-14: subnormal, steps of 2^-24
    const float f = bits_float(a) * 16777216.f;             // exact scaling
    return uint16_t(sign | uint32_t(__builtin_rintf(f)));
  }
  const uint32_t r = a + 0xFFFu + ((a >> 13) & 1u);
  return uint16_t(sign | ((r - 0x38000000u) >> 13));
#endif
}
// Two floats as one word of two f16 (a in the low half).
FLY_HOST_DEVICE inline uint32_t to_f16x2(float a, float b) {
#if defined(__HIP_DEVICE_COMPILE__)
  typedef _Float16 half2_t __attribute__((ext_vector_type(2)));
  return __builtin_bit_cast(uint32_t, half2_t{static_cast<_Float16>(a), static_cast<_Float16>(b)});
#else
  return uint32_t(to_f16(a)) | (uint32_t(to_f16(b)) << 16);
#endif
}
FLY_HOST_DEVICE inline uint32_t to_bf16x2(float a, float b) { return uint32_t(to_bf16(a)) | (uint32_t(to_bf16(b)) << 16); }

FLY_HOST_DEVICE inline float bf16_value(uint16_t b) { return bits_float(uint32_t(b) << 16); }
FLY_HOST_DEVICE inline float f16_value(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 31, m = h & 1023;
  if (e == 0) return bits_float(sign | float_bits(float(m) * 5.9604644775390625e-8f));
  if (e == 31) return bits_float(sign | 0x7F800000u | (m << 13));
  return bits_float(sign | ((e + 112) << 23) | (m << 13));
}

}  // namespace fly::kernels::pa::gfx942
