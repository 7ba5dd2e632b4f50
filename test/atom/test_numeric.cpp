// fly::float8_e4m3fn, fly::float8_e4m3fnuz, fly::half, fly::bfloat16: every code decodes to the
// value an independent formula gives; encoding is checked against an independent reference (the
// nearest code found by search over the decoded values, ties to the even code), exhaustively on the
// round trip and on a large sample of floats; midpoints, saturation, overflow and NaN explicitly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "fly/layout.hpp"
#include "fly/numeric/numeric.hpp"
#include "fly/numeric/pack2.hpp"

namespace {

using fly::bfloat16;
using fly::float8_e4m3fn;
using fly::float8_e4m3fnuz;
using fly::half;

static_assert(fly::sizeof_bits_v<float8_e4m3fn> == 8 && fly::sizeof_bits_v<float8_e4m3fnuz> == 8);
static_assert(fly::sizeof_bits_v<half> == 16 && fly::sizeof_bits_v<bfloat16> == 16);
static_assert(std::is_trivially_copyable_v<float8_e4m3fn> && std::is_trivial_v<float8_e4m3fnuz>);
static_assert(std::is_trivial_v<half> && std::is_trivial_v<bfloat16>);
// Conversions are usable in constant expressions.
static_assert(float(float8_e4m3fn(448.0f)) == 448.0f && float8_e4m3fn(1000.0f).bits() == 0x7E);
static_assert(float(float8_e4m3fnuz(240.0f)) == 240.0f && float8_e4m3fnuz(-1000.0f).bits() == 0xFF);
static_assert(half(1.0f).bits() == 0x3C00 && float(half::from_bits(0x0001)) == 0x1p-24f);
static_assert(bfloat16(1.0f).bits() == 0x3F80 && float(bfloat16::from_bits(0xC000)) == -2.0f);
static_assert(!std::is_convertible_v<float, half> && !std::is_convertible_v<half, float>);  // explicit

float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
bool same_value(double a, double b) {  // equal, and the same sign for zeros
  return a == b && std::signbit(a) == std::signbit(b);
}

// ---- independent decoders: value = (-1)^s * 2^(e - bias) * 1.m, subnormal 2^(1 - bias) * 0.m ----

// A generic binary format (E exponent bits, M mantissa bits) read straight from its definition.
// Returns NaN for the codes the caller says are NaN.
double formula(uint32_t code, int E, int M, int bias) {
  uint32_t const s = code >> (E + M);
  uint32_t const e = (code >> M) & ((1u << E) - 1);
  uint32_t const m = code & ((1u << M) - 1);
  double const mag =
      e == 0 ? std::ldexp(double(m), 1 - bias - M) : std::ldexp(double((1u << M) + m), int(e) - bias - M);
  return s ? -mag : mag;
}
double e4m3fn_formula(uint32_t c) {
  if ((c & 0x7F) == 0x7F) return std::numeric_limits<double>::quiet_NaN();  // S.1111.111
  return formula(c, 4, 3, 7);
}
double e4m3fnuz_formula(uint32_t c) {
  if (c == 0x80) return std::numeric_limits<double>::quiet_NaN();  // "negative zero" is the NaN
  return formula(c, 4, 3, 8);
}
double binary16_formula(uint32_t c) {
  if (((c >> 10) & 0x1F) == 0x1F) {
    if (c & 0x3FF) return std::numeric_limits<double>::quiet_NaN();
    return (c & 0x8000) ? -HUGE_VAL : HUGE_VAL;
  }
  return formula(c, 5, 10, 15);
}
double bfloat16_formula(uint32_t c) {
  if (((c >> 7) & 0xFF) == 0xFF) {
    if (c & 0x7F) return std::numeric_limits<double>::quiet_NaN();
    return (c & 0x8000) ? -HUGE_VAL : HUGE_VAL;
  }
  return formula(c, 8, 7, 127);
}

// ---- independent reference encoder ----------------------------------------------------------------
// Search the magnitude codes [0, max_code] (their values increase with the code) for the last one
// <= |x|, then pick the nearer of it and the next one, ties to the even code. Past max_code the
// "next value" is `beyond` (2^(emax+1), where IEEE rounding puts infinity); what an overflow
// becomes is `overflow_code` (max_code when saturating, the infinity code otherwise).
struct Reference {
  double (*decode)(uint32_t);
  int width;               // 8 or 16
  uint32_t max_code;       // largest finite magnitude code
  double beyond;           // the value one step above max_code
  uint32_t overflow_code;  // magnitude code of an overflowed result
  bool negative_zero;      // -0 exists
  uint32_t nan_code;       // what NaN encodes to (checked as "a NaN code" by the caller)

  uint32_t encode(float xf) const {
    double const x = xf;
    uint32_t const sign = std::signbit(x) ? (1u << (width - 1)) : 0u;
    double const ax = std::fabs(x);
    uint32_t mag;
    if (ax >= beyond) {
      mag = overflow_code;
    } else {
      uint32_t lo = 0, hi = max_code;  // last code with value <= ax
      while (lo < hi) {
        uint32_t const mid = (lo + hi + 1) / 2;
        if (decode(mid) <= ax)
          lo = mid;
        else
          hi = mid - 1;
      }
      double const vlo = decode(lo);
      double const vhi = lo == max_code ? beyond : decode(lo + 1);
      uint32_t const chi = lo == max_code ? overflow_code : lo + 1;
      double const dlo = ax - vlo, dhi = vhi - ax;
      mag = dlo < dhi ? lo : dhi < dlo ? chi : ((lo & 1u) ? chi : lo);
      if (lo == max_code && mag == chi) mag = overflow_code;
    }
    if (mag == 0 && !negative_zero) return 0;
    return sign | mag;
  }
};

Reference const e4m3fn_ref{e4m3fn_formula, 8, 0x7E, 480.0, 0x7E, true, 0x7F};       // saturating
Reference const e4m3fnuz_ref{e4m3fnuz_formula, 8, 0x7F, 256.0, 0x7F, false, 0x80};  // saturating
Reference const binary16_ref{binary16_formula, 16, 0x7BFF, 65536.0, 0x7C00, true, 0x7E00};
Reference const bfloat16_ref{bfloat16_formula, 16, 0x7F7F, std::ldexp(1.0, 128), 0x7F80, true, 0x7FC0};

// Floats to try: random bit patterns (every exponent), plus each code's value, its float
// neighbours, the midpoints to the next code and their neighbours.
std::vector<float> sample_floats(double (*decode)(uint32_t), uint32_t ncodes, int random_count) {
  std::vector<float> xs;
  std::mt19937 rng(12345);
  for (int i = 0; i < random_count; ++i) {
    float const f = bits_to_float(uint32_t(rng()));
    if (std::isfinite(f)) xs.push_back(f);
  }
  for (uint32_t c = 0; c + 1 < ncodes; ++c) {
    double const v = decode(c), w = decode(c + 1);
    if (!std::isfinite(v) || !std::isfinite(w) || std::signbit(v) != std::signbit(w)) continue;
    for (double p : {v, (v + w) / 2}) {
      float const f = float(p);
      EXPECT_EQ(double(f), p) << "sample point not a float";
      xs.push_back(f);
      xs.push_back(std::nextafter(f, HUGE_VALF));
      xs.push_back(std::nextafter(f, -HUGE_VALF));
    }
  }
  return xs;
}

// ---- fp8 ------------------------------------------------------------------------------------------

template <class T>
void check_decode_all(double (*formula_of)(uint32_t)) {
  for (uint32_t c = 0; c < 256; ++c) {
    double const expect = formula_of(c);
    float const got = float(T::from_bits(uint8_t(c)));
    if (std::isnan(expect)) {
      EXPECT_TRUE(std::isnan(got)) << "code " << c;
      EXPECT_TRUE(T::from_bits(uint8_t(c)).is_nan());
    } else {
      EXPECT_TRUE(same_value(double(got), expect)) << "code " << c << " got " << got << " expected " << expect;
      EXPECT_FALSE(T::from_bits(uint8_t(c)).is_nan());
    }
  }
}

TEST(Float8E4M3FN, DecodesEveryCodeByFormula) {
  check_decode_all<float8_e4m3fn>(e4m3fn_formula);
  // A few anchors of the formula itself.
  EXPECT_EQ(e4m3fn_formula(0x7E), 448.0);
  EXPECT_EQ(e4m3fn_formula(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(e4m3fn_formula(0x08), std::ldexp(1.0, -6));
  EXPECT_EQ(e4m3fn_formula(0x38), 1.0);
  EXPECT_TRUE(std::signbit(float(float8_e4m3fn::from_bits(0x80))));
  EXPECT_TRUE(std::isnan(float(float8_e4m3fn::from_bits(0x7F))) && std::isnan(float(float8_e4m3fn::from_bits(0xFF))));
}

TEST(Float8E4M3FNUZ, DecodesEveryCodeByFormula) {
  check_decode_all<float8_e4m3fnuz>(e4m3fnuz_formula);
  EXPECT_EQ(e4m3fnuz_formula(0x7F), 240.0);
  EXPECT_EQ(e4m3fnuz_formula(0x01), std::ldexp(1.0, -10));
  EXPECT_EQ(e4m3fnuz_formula(0x40), 1.0);
  EXPECT_EQ(e4m3fnuz_formula(0xFF), -240.0);
  int nans = 0, zeros = 0;
  for (uint32_t c = 0; c < 256; ++c) {
    float const f = float(float8_e4m3fnuz::from_bits(uint8_t(c)));
    nans += std::isnan(f);
    zeros += f == 0.0f;
  }
  EXPECT_EQ(nans, 1);   // only 0x80
  EXPECT_EQ(zeros, 1);  // no -0
}

template <class T>
void check_round_trip_8() {
  int checked = 0;
  for (uint32_t c = 0; c < 256; ++c) {
    T const t = T::from_bits(uint8_t(c));
    if (t.is_nan()) continue;
    EXPECT_EQ(T(float(t)).bits(), c) << "code " << c;
    ++checked;
  }
  EXPECT_GE(checked, 254);
}
TEST(Float8E4M3FN, RoundTripsEveryNonNaNCode) { check_round_trip_8<float8_e4m3fn>(); }
TEST(Float8E4M3FNUZ, RoundTripsEveryNonNaNCode) { check_round_trip_8<float8_e4m3fnuz>(); }

// Each pair of neighbouring codes of the same sign: the midpoint goes to the even code, the floats
// just inside it to the nearer code. (fnuz has no -0: the pair -0/-min does not exist; the
// negative tie at -min/2 is checked in SaturatesAndKeepsNaN.)
template <class T>
void check_midpoints_8(double (*formula_of)(uint32_t), uint32_t max_code, bool has_negative_zero) {
  int checked = 0;
  for (uint32_t c = 0; c < max_code; ++c) {
    for (uint32_t sign : {0u, 0x80u}) {
      if (sign && c == 0 && !has_negative_zero) continue;
      uint32_t const lo = sign | c, hi = sign | (c + 1);
      double const mid_exact = (formula_of(lo) + formula_of(hi)) / 2;
      float const mid = float(mid_exact);
      ASSERT_EQ(double(mid), mid_exact);
      uint32_t const even = (lo & 1u) ? hi : lo;
      EXPECT_EQ(T(mid).bits(), even) << "midpoint of codes " << lo << " and " << hi << " = " << mid;
      float const toward_hi = std::nextafter(mid, sign ? -HUGE_VALF : HUGE_VALF);
      float const toward_lo = std::nextafter(mid, sign ? HUGE_VALF : -HUGE_VALF);
      EXPECT_EQ(T(toward_hi).bits(), hi) << mid;
      EXPECT_EQ(T(toward_lo).bits(), lo) << mid;
      ++checked;
    }
  }
  EXPECT_EQ(checked, int(2 * max_code) - (has_negative_zero ? 0 : 1));
}
TEST(Float8E4M3FN, MidpointsRoundToEven) { check_midpoints_8<float8_e4m3fn>(e4m3fn_formula, 0x7E, true); }
TEST(Float8E4M3FNUZ, MidpointsRoundToEven) { check_midpoints_8<float8_e4m3fnuz>(e4m3fnuz_formula, 0x7F, false); }

TEST(Float8E4M3FN, SaturatesAndKeepsNaN) {
  for (float x : {448.0f, 449.0f, 464.0f, 465.0f, 480.0f, 512.0f, 1e6f, 3.4e38f, HUGE_VALF}) {
    EXPECT_EQ(float8_e4m3fn(x).bits(), 0x7E) << x;
    EXPECT_EQ(float8_e4m3fn(-x).bits(), 0xFE) << x;
  }
  EXPECT_EQ(float(float8_e4m3fn(1e30f)), 448.0f);
  EXPECT_EQ(float8_e4m3fn(432.0f).bits(), 0x7E);  // midpoint 416|448 -> 448 (even mantissa 110)
  EXPECT_EQ(float8_e4m3fn(416.0f).bits(), 0x7D);
  EXPECT_TRUE(float8_e4m3fn(std::numeric_limits<float>::quiet_NaN()).is_nan());
  EXPECT_TRUE(float8_e4m3fn(-std::numeric_limits<float>::quiet_NaN()).is_nan());
  EXPECT_TRUE(float8_e4m3fn(std::numeric_limits<float>::signaling_NaN()).is_nan());
  EXPECT_EQ(float8_e4m3fn(-0.0f).bits(), 0x80);
  EXPECT_EQ(float8_e4m3fn(-1e-30f).bits(), 0x80);   // underflow keeps the sign
  EXPECT_EQ(float8_e4m3fn(0x1p-10f).bits(), 0x00);  // half the smallest subnormal: tie to 0
  EXPECT_EQ(float8_e4m3fn(0x1.000002p-10f).bits(), 0x01);
}

TEST(Float8E4M3FNUZ, SaturatesAndKeepsNaN) {
  for (float x : {240.0f, 241.0f, 247.0f, 248.0f, 256.0f, 448.0f, 1e6f, 3.4e38f, HUGE_VALF}) {
    EXPECT_EQ(float8_e4m3fnuz(x).bits(), 0x7F) << x;
    EXPECT_EQ(float8_e4m3fnuz(-x).bits(), 0xFF) << x;
  }
  EXPECT_EQ(float8_e4m3fnuz(232.0f).bits(), 0x7E);  // midpoint 224|240 -> 224 (even)
  EXPECT_EQ(float8_e4m3fnuz(std::numeric_limits<float>::quiet_NaN()).bits(), 0x80);
  EXPECT_EQ(float8_e4m3fnuz(-std::numeric_limits<float>::quiet_NaN()).bits(), 0x80);
  EXPECT_EQ(float8_e4m3fnuz(-0.0f).bits(), 0x00);  // no -0: it would be the NaN
  EXPECT_EQ(float8_e4m3fnuz(-1e-30f).bits(), 0x00);
  EXPECT_EQ(float8_e4m3fnuz(-0x1p-11f).bits(), 0x00);
  EXPECT_EQ(float8_e4m3fnuz(-0x1.000002p-11f).bits(), 0x81);
}

void check_against_reference(Reference const& ref, uint32_t (*encode)(float), int random_count) {
  uint32_t const ncodes = 1u << ref.width;
  auto xs = sample_floats(ref.decode, ncodes, random_count);
  for (float x : {HUGE_VALF, -HUGE_VALF, 0.0f, -0.0f, std::numeric_limits<float>::denorm_min(),
                  -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()}) {
    xs.push_back(x);
  }
  int mismatches = 0;
  for (float x : xs) {
    uint32_t const want = ref.encode(x), got = encode(x);
    if (want != got && ++mismatches <= 10) {
      ADD_FAILURE() << "x = " << x << " (bits 0x" << std::hex << float_to_bits(x) << "): got 0x" << got
                    << ", reference 0x" << want << std::dec;
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << xs.size();
  EXPECT_GT(xs.size(), size_t(random_count) / 2);
}

TEST(Float8E4M3FN, EncodesLikeTheReferenceOnSampledFloats) {
  check_against_reference(
      e4m3fn_ref, [](float x) -> uint32_t { return float8_e4m3fn(x).bits(); }, 200000);
}
TEST(Float8E4M3FNUZ, EncodesLikeTheReferenceOnSampledFloats) {
  check_against_reference(
      e4m3fnuz_ref, [](float x) -> uint32_t { return float8_e4m3fnuz(x).bits(); }, 200000);
}

// ---- half and bfloat16 ----------------------------------------------------------------------------

template <class T>
void check_all_16(double (*formula_of)(uint32_t)) {
  int checked = 0;
  for (uint32_t c = 0; c < 65536; ++c) {
    T const t = T::from_bits(uint16_t(c));
    double const expect = formula_of(c);
    float const got = float(t);
    if (std::isnan(expect)) {
      EXPECT_TRUE(std::isnan(got) && t.is_nan()) << c;
      EXPECT_TRUE(T(got).is_nan()) << c;
      continue;
    }
    EXPECT_TRUE(same_value(double(got), expect)) << "code " << c << " got " << got << " expected " << expect;
    EXPECT_EQ(T(got).bits(), c) << "round trip of code " << c;
    ++checked;
  }
  EXPECT_GT(checked, 63000);
}
TEST(Half, DecodesAndRoundTripsEveryCode) { check_all_16<half>(binary16_formula); }
TEST(BFloat16, DecodesAndRoundTripsEveryCode) { check_all_16<bfloat16>(bfloat16_formula); }

TEST(Half, RoundsToNearestEvenAndOverflowsToInfinity) {
  EXPECT_EQ(half(1.0f + 0x1p-11f).bits(), 0x3C00);      // tie between 0x3C00 and 0x3C01 -> even
  EXPECT_EQ(half(1.0f + 3 * 0x1p-11f).bits(), 0x3C02);  // tie between 0x3C01 and 0x3C02 -> even
  EXPECT_EQ(half(1.0f + 0x1p-11f + 0x1p-20f).bits(), 0x3C01);
  EXPECT_EQ(half(0x1p-25f).bits(), 0x0000);  // half the smallest subnormal -> 0
  EXPECT_EQ(half(3 * 0x1p-25f).bits(), 0x0002);
  EXPECT_EQ(half(-3 * 0x1p-25f).bits(), 0x8002);
  EXPECT_EQ(half(65504.0f).bits(), 0x7BFF);
  EXPECT_EQ(half(65519.0f).bits(), 0x7BFF);
  EXPECT_EQ(half(65520.0f).bits(), 0x7C00);  // tie to the even "next" value: infinity
  EXPECT_EQ(half(-1e10f).bits(), 0xFC00);
  EXPECT_EQ(half(HUGE_VALF).bits(), 0x7C00);
  EXPECT_EQ(half(-0.0f).bits(), 0x8000);
  EXPECT_TRUE(half(std::numeric_limits<float>::quiet_NaN()).is_nan());
  EXPECT_TRUE(std::isinf(float(half::from_bits(0x7C00))));
}

TEST(BFloat16, RoundsToNearestEvenAndOverflowsToInfinity) {
  EXPECT_EQ(bfloat16(bits_to_float(0x3F808000)).bits(), 0x3F80);  // tie -> even
  EXPECT_EQ(bfloat16(bits_to_float(0x3F818000)).bits(), 0x3F82);  // tie -> even
  EXPECT_EQ(bfloat16(bits_to_float(0x3F808001)).bits(), 0x3F81);
  EXPECT_EQ(bfloat16(bits_to_float(0x3F807FFF)).bits(), 0x3F80);
  EXPECT_EQ(bfloat16(bits_to_float(0x7F7F8000)).bits(), 0x7F80);  // tie past the max -> infinity
  EXPECT_EQ(bfloat16(bits_to_float(0x7F7F7FFF)).bits(), 0x7F7F);
  EXPECT_EQ(bfloat16(bits_to_float(0x00008000)).bits(), 0x0000);  // subnormals round too
  EXPECT_EQ(bfloat16(bits_to_float(0x00018000)).bits(), 0x0002);
  EXPECT_EQ(bfloat16(-0.0f).bits(), 0x8000);
  EXPECT_TRUE(bfloat16(std::numeric_limits<float>::quiet_NaN()).is_nan());
  EXPECT_TRUE(bfloat16(bits_to_float(0x7F800001)).is_nan());  // a NaN whose payload is in the low bits
  EXPECT_TRUE(bfloat16(bits_to_float(0xFF800001)).is_nan());
}

TEST(Half, EncodesLikeTheReferenceOnSampledFloats) {
  check_against_reference(
      binary16_ref, [](float x) -> uint32_t { return half(x).bits(); }, 200000);
}
TEST(BFloat16, EncodesLikeTheReferenceOnSampledFloats) {
  check_against_reference(
      bfloat16_ref, [](float x) -> uint32_t { return bfloat16(x).bits(); }, 200000);
}

#if defined(__FLT16_MAX__) && !defined(__CUDACC__)
// The compiler's own float -> _Float16 conversion is a third, independent implementation.
TEST(Half, EncodesLikeTheCompilersFloat16) {
  std::mt19937 rng(777);
  int mismatches = 0;
  for (int i = 0; i < 300000; ++i) {
    float const x = bits_to_float(uint32_t(rng()));
    if (std::isnan(x)) continue;
    _Float16 const h = static_cast<_Float16>(x);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    if (half(x).bits() != want && ++mismatches <= 10) ADD_FAILURE() << x;
  }
  EXPECT_EQ(mismatches, 0);
}
#endif

// fly::pack2 on the host: the first value's bits in the low half (the lower address when stored),
// each rounded as the scalar conversion rounds it (the device's paired conversion is checked
// against the scalar one for every float in test/device/test_numeric_cuda.cu).
TEST(Pack2, PutsTheFirstValueInTheLowHalfRoundedAsTheScalarConversion) {
  const float x = 1.00390625f, y = -3.0e38f;  // x: a tie of bfloat16's rounding, y: past half's range
  EXPECT_EQ(fly::pack2<bfloat16>(x, y), uint32_t(bfloat16(x).bits()) | uint32_t(bfloat16(y).bits()) << 16);
  EXPECT_EQ(fly::pack2<half>(x, y), uint32_t(half(x).bits()) | uint32_t(half(y).bits()) << 16);
  EXPECT_EQ(fly::pack2<bfloat16>(1.0f, 2.0f), 0x40003F80u);
  EXPECT_EQ(fly::pack2<half>(1.0f, -2.0f), 0xC0003C00u);
}

}  // namespace
