// Bit-exact conversions between float and narrow binary floating-point formats (fp8, half),
// shared by fly::float8_e4m3fn, fly::float8_e4m3fnuz and fly::half. Host and device, constexpr,
// no dependency on CUDA or HIP headers.
//
// A format is described by a traits type (see the formats below): exponent and mantissa widths, the
// exponent bias, the largest finite magnitude code, what a NaN is and what an overflow becomes. The
// traits are types with scalar static members, not objects, so that device code (nvcc) may use
// them. Encoding rounds to
// nearest, ties to even, on the exact value of the float (no double rounding).
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

namespace fly::detail {

FLY_HOST_DEVICE constexpr uint32_t float_to_bits(float f) { return __builtin_bit_cast(uint32_t, f); }
FLY_HOST_DEVICE constexpr float bits_to_float(uint32_t u) { return __builtin_bit_cast(float, u); }

// template <...> struct MinifloatFormat, members:
//   exp_bits       width of the exponent field
//   man_bits       width of the mantissa field
//   bias           exponent bias: value = 2^(e - bias) * 1.m, subnormals 2^(1 - bias) * 0.m
//   max_code       largest finite magnitude code (sign bit clear)
//   saturate       overflow (and infinity) -> +-max_code; otherwise -> +-inf_code
//   inf_code       magnitude code of infinity (used when !saturate)
//   nan_code       the code a NaN input encodes to
//   negative_zero  false: a result of magnitude 0 is +0 whatever the sign (fnuz)
template <int ExpBits, int ManBits, int Bias, uint32_t MaxCode, bool Saturate, uint32_t InfCode,
          uint32_t NanCode, bool NegativeZero>
struct MinifloatFormat {
  static constexpr int exp_bits = ExpBits;
  static constexpr int man_bits = ManBits;
  static constexpr int bias = Bias;
  static constexpr uint32_t max_code = MaxCode;
  static constexpr bool saturate = Saturate;
  static constexpr uint32_t inf_code = InfCode;
  static constexpr uint32_t nan_code = NanCode;
  static constexpr bool negative_zero = NegativeZero;
};

//                               exp man bias max    sat    inf     nan     -0
using e4m3fn_format = MinifloatFormat<4, 3, 7, 0x7Eu, true, 0u, 0x7Fu, true>;
using e4m3fnuz_format = MinifloatFormat<4, 3, 8, 0x7Fu, true, 0u, 0x80u, false>;
using binary16_format = MinifloatFormat<5, 10, 15, 0x7BFFu, false, 0x7C00u, 0x7E00u, true>;

// The format's code for float x (the low 1 + exp_bits + man_bits bits).
template <class F>
FLY_HOST_DEVICE constexpr uint32_t minifloat_encode(float x) {
  uint32_t const u = float_to_bits(x);
  uint32_t const sign = (u >> 31) << (F::exp_bits + F::man_bits);
  uint32_t const a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return F::nan_code;
  uint32_t const overflow = sign | (F::saturate ? F::max_code : F::inf_code);
  if (a == 0x7F800000u) return overflow;
  int const float_exp = int(a >> 23);
  if (float_exp == 0) {  // float zero or float subnormal: far below every narrow format's range
    return F::negative_zero ? sign : 0u;
  }
  int const e = float_exp - 127;  // x = 1.m * 2^e
  int const emin = 1 - F::bias;    // exponent of the smallest normal
  int const emax = (1 << F::exp_bits) - 1 - F::bias + 1;  // beyond any finite code
  if (e > emax) return overflow;
  uint32_t const mant = (a & 0x7FFFFFu) | 0x800000u;  // 24 significant bits
  // Number of low bits of `mant` dropped: to man_bits below the leading one for normals, more for
  // subnormals (whose quantum is fixed at 2^(emin - man_bits)).
  int const shift = 23 - F::man_bits + (e < emin ? emin - e : 0);
  uint32_t r = 0;
  if (shift <= 24) {
    r = mant >> shift;
    uint32_t const rem = mant & ((1u << shift) - 1u);
    uint32_t const halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
  }  // else: below half the smallest subnormal, rounds to 0
  // Normal: r holds the implicit one (r in [2^m, 2^(m+1)]); adding it to (e + bias - 1) << m sets
  // the exponent field, and a carry out of the mantissa moves to the next binade by itself.
  // Subnormal: r is the code (r == 2^m is the smallest normal, which is exactly right).
  uint32_t const mag = e >= emin ? (uint32_t(e + F::bias - 1) << F::man_bits) + r : r;
  if (mag > F::max_code) return overflow;
  if (mag == 0 && !F::negative_zero) return 0u;
  return sign | mag;
}

// The float value of a code; the caller has handled its NaN codes. Exact: every finite value of
// these formats is a float.
template <class F>
FLY_HOST_DEVICE constexpr float minifloat_decode(uint32_t code) {
  uint32_t const sign = (code >> (F::exp_bits + F::man_bits)) & 1u;
  uint32_t const exp = (code >> F::man_bits) & ((1u << F::exp_bits) - 1u);
  uint32_t const man = code & ((1u << F::man_bits) - 1u);
  uint32_t bits = 0;
  if (!F::saturate && exp == (1u << F::exp_bits) - 1u) {  // IEEE-style infinity (NaNs handled before)
    bits = 0x7F800000u;
  } else if (exp != 0) {
    bits = (uint32_t(int(exp) - F::bias + 127) << 23) | (man << (23 - F::man_bits));
  } else if (man != 0) {  // subnormal: normalise into a float
    int e = 1 - F::bias - F::man_bits;  // value = man * 2^e
    uint32_t m = man;
    while (m < (1u << 23)) {
      m <<= 1;
      --e;
    }
    // now value = m * 2^e with m in [2^23, 2^24): float exponent e + 23
    bits = (uint32_t(e + 23 + 127) << 23) | (m & 0x7FFFFFu);
  }
  return bits_to_float((sign << 31) | bits);
}

}  // namespace fly::detail
