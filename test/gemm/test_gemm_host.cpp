// The host backend's fly_gemm against a double-precision reference: random shapes (1x1x1, primes,
// large K), every A/B and C/D dtype, alpha/beta/scales, padded leading dimensions whose padding is
// poisoned (NaN: reading it would show) and must stay untouched, poisoned D.
//
// Tolerances. "Exact" cases draw values (multiples of 1/8 in [-2, 2], C multiples of 1/4 in [-8, 8],
// power-of-two alpha/beta/scales) for which the fp32 accumulation and epilogue are exact, so D must
// equal the double reference rounded once to D's type (round to nearest even), bit for bit.
// "General" cases (random f32 in [-1, 1], any scales) allow the fp32 rounding of a k-term dot
// product: |D - ref| <= (k + 3) u (|s| sum|a b| + |beta c|) + one ULP of D's type, u = 2^-24.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"
#include "gemm/host_gemm.hpp"

namespace {

const double k_nan = std::numeric_limits<double>::quiet_NaN();

// ---- independent element codecs (not the library's numeric types) ----------------------------------

double decode_fp8(uint8_t code, bool fnuz) {
  int const bias = fnuz ? 8 : 7;
  if (fnuz ? code == 0x80 : (code & 0x7F) == 0x7F) return k_nan;
  int const e = (code >> 3) & 15;
  int const m = code & 7;
  double const v = e == 0 ? std::ldexp(m, 1 - bias - 3) : std::ldexp(8 + m, e - bias - 3);
  return (code & 0x80) != 0 ? -v : v;
}

// x rounded to nearest even with `man` mantissa bits and minimum normal exponent `emin`
// (bf16: 7, -126; f16: 10, -14); beyond `max` it becomes infinity (both formats are IEEE-like).
double round_to(double x, int man, int emin, double max) {
  if (x == 0.0 || std::isnan(x)) return x;
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  int const exp = std::max(e - 1, emin);
  double const quantum = std::ldexp(1.0, exp - man);
  double const r = std::nearbyint(x / quantum) * quantum;  // default rounding mode: to nearest even
  if (std::fabs(r) > max) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

double ulp_of(double x, fly_dtype_t t) {
  int e = 0;
  std::frexp(x, &e);
  switch (t) {
    case FLY_DTYPE_BF16: return std::ldexp(1.0, std::max(e - 1, -126) - 7);
    case FLY_DTYPE_F16: return std::ldexp(1.0, std::max(e - 1, -14) - 10);
    default: return std::ldexp(1.0, std::max(e - 1, -126) - 23);
  }
}

double round_to_type(double x, fly_dtype_t t) {
  switch (t) {
    case FLY_DTYPE_BF16: return round_to(x, 7, -126, 0x1.FEp127);
    case FLY_DTYPE_F16: return round_to(x, 10, -14, 65504.0);
    default: return round_to(x, 23, -126, 0x1.FFFFFEp127);
  }
}

size_t esize(fly_dtype_t t) {
  switch (t) {
    case FLY_DTYPE_F32: return 4;
    case FLY_DTYPE_F16:
    case FLY_DTYPE_BF16: return 2;
    default: return 1;
  }
}

// A matrix of `rows` x `ld` elements of type t as raw bytes.
struct Matrix {
  fly_dtype_t type = FLY_DTYPE_F32;
  int64_t rows = 0, cols = 0, ld = 0;
  std::vector<unsigned char> bytes;

  Matrix(fly_dtype_t t, int64_t r, int64_t c, int64_t l) : type(t), rows(r), cols(c), ld(l) {
    bytes.resize(static_cast<size_t>(r * l) * esize(t));
  }
  unsigned char* at(int64_t i, int64_t j) { return bytes.data() + static_cast<size_t>(i * ld + j) * esize(type); }
  const unsigned char* at(int64_t i, int64_t j) const {
    return bytes.data() + static_cast<size_t>(i * ld + j) * esize(type);
  }
  bool padding(int64_t j) const { return j >= cols; }

  // The exact value of element (i, j).
  double get(int64_t i, int64_t j) const {
    const unsigned char* p = at(i, j);
    switch (type) {
      case FLY_DTYPE_E4M3FN: return decode_fp8(*p, false);
      case FLY_DTYPE_E4M3FNUZ: return decode_fp8(*p, true);
      case FLY_DTYPE_F32: {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      }
      case FLY_DTYPE_BF16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        uint32_t const u = uint32_t{h} << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
      }
      case FLY_DTYPE_F16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        int const e = (h >> 10) & 31;
        int const m = h & 1023;
        double v = e == 31 ? (m != 0 ? k_nan : std::numeric_limits<double>::infinity())
                           : (e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25));
        return (h & 0x8000) != 0 ? -v : v;
      }
    }
    return k_nan;
  }

  // Stores v, which must be exactly representable in the type (f16/bf16/f32 stores go through
  // float; fp8 stores take the code).
  void set(int64_t i, int64_t j, double v) {
    unsigned char* p = at(i, j);
    float const f = static_cast<float>(v);
    switch (type) {
      case FLY_DTYPE_F32: std::memcpy(p, &f, 4); break;
      case FLY_DTYPE_BF16: {
        uint16_t const h = fly::bfloat16(f).bits();
        std::memcpy(p, &h, 2);
        break;
      }
      case FLY_DTYPE_F16: {
        uint16_t const h = fly::half(f).bits();
        std::memcpy(p, &h, 2);
        break;
      }
      default: ADD_FAILURE() << "set on fp8"; break;
    }
    ASSERT_EQ(get(i, j), v) << "test bug: value not representable";
  }
  void set_code(int64_t i, int64_t j, uint8_t code) { *at(i, j) = code; }

  // Every element to a NaN of the type (the poison).
  void poison() {
    switch (type) {
      case FLY_DTYPE_E4M3FN: std::fill(bytes.begin(), bytes.end(), 0x7F); break;
      case FLY_DTYPE_E4M3FNUZ: std::fill(bytes.begin(), bytes.end(), 0x80); break;
      default: std::fill(bytes.begin(), bytes.end(), 0xFF); break;  // NaN in f32, f16 and bf16
    }
  }
};

// fp8 codes whose value is a multiple of 1/8 in [-2, 2] (sums of k products stay exact in fp32).
std::vector<uint8_t> exact_fp8_codes(bool fnuz) {
  std::vector<uint8_t> codes;
  for (unsigned c = 0; c < 256; ++c) {
    double const v = decode_fp8(static_cast<uint8_t>(c), fnuz);
    if (!std::isnan(v) && std::fabs(v) <= 2.0 && v * 8 == std::floor(v * 8)) codes.push_back(static_cast<uint8_t>(c));
  }
  return codes;
}

enum class Values { exact, general };

struct Case {
  int64_t m, n, k;
  fly_dtype_t ab, d;
  bool with_c = false;
  int64_t pad = 0;  // added to every leading dimension (with distinct offsets per matrix)
  float alpha = 1.0f, beta = 0.0f;
  float scale_a = 0.0f, scale_b = 0.0f;  // 0: pass null
  Values values = Values::exact;

  std::string str() const {
    std::ostringstream os;
    os << m << "x" << n << "x" << k << " " << fly_dtype_string(ab) << "->" << fly_dtype_string(d) << " C=" << with_c
       << " pad=" << pad << " alpha=" << alpha << " beta=" << beta << " sa=" << scale_a << " sb=" << scale_b
       << (values == Values::exact ? " exact" : " general");
    return os.str();
  }
};

void fill_ab(Matrix& x, std::mt19937_64& rng, Values values) {
  x.poison();
  if (x.type == FLY_DTYPE_F32) {
    std::uniform_int_distribution<int> exact(-16, 16);
    std::uniform_real_distribution<float> general(-1.0f, 1.0f);
    for (int64_t i = 0; i < x.rows; ++i) {
      for (int64_t j = 0; j < x.cols; ++j) {
        x.set(i, j, values == Values::exact ? exact(rng) / 8.0 : double(general(rng)));
      }
    }
    return;
  }
  static const std::vector<uint8_t> fn_codes = exact_fp8_codes(false);
  static const std::vector<uint8_t> fnuz_codes = exact_fp8_codes(true);
  const std::vector<uint8_t>& codes = x.type == FLY_DTYPE_E4M3FNUZ ? fnuz_codes : fn_codes;
  std::uniform_int_distribution<size_t> pick(0, codes.size() - 1);
  std::uniform_int_distribution<int> any_code(0, 255);
  for (int64_t i = 0; i < x.rows; ++i) {
    for (int64_t j = 0; j < x.cols; ++j) {
      if (values == Values::exact) {
        x.set_code(i, j, codes[pick(rng)]);
      } else {  // any finite code, full range
        uint8_t code = 0;
        do code = static_cast<uint8_t>(any_code(rng));
        while (std::isnan(decode_fp8(code, x.type == FLY_DTYPE_E4M3FNUZ)));
        x.set_code(i, j, code);
      }
    }
  }
}

// Runs one case through fly_gemm and checks every element and every padding byte.
void run_case(fly_handle_t handle, const Case& tc, uint64_t seed) {
  SCOPED_TRACE(tc.str());
  std::mt19937_64 rng(seed);
  Matrix A(tc.ab, tc.m, tc.k, tc.k + tc.pad);
  Matrix B(tc.ab, tc.n, tc.k, tc.k + (tc.pad != 0 ? tc.pad + 2 : 0));
  Matrix C(tc.d, tc.m, tc.n, tc.n + (tc.pad != 0 ? tc.pad + 1 : 0));
  Matrix D(tc.d, tc.m, tc.n, tc.n + (tc.pad != 0 ? tc.pad + 3 : 0));
  fill_ab(A, rng, tc.values);
  fill_ab(B, rng, tc.values);
  C.poison();
  if (tc.with_c) {
    std::uniform_int_distribution<int> cv(-32, 32);
    for (int64_t i = 0; i < tc.m; ++i) {
      for (int64_t j = 0; j < tc.n; ++j) C.set(i, j, cv(rng) / 4.0);
    }
  }
  D.poison();
  std::vector<unsigned char> const a_before = A.bytes, b_before = B.bytes, c_before = C.bytes;

  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = tc.m;
  args.n = tc.n;
  args.k = tc.k;
  args.a_type = args.b_type = tc.ab;
  args.c_type = args.d_type = tc.d;
  args.a = A.bytes.data();
  args.lda = A.ld;
  args.b = B.bytes.data();
  args.ldb = B.ld;
  args.c = tc.with_c ? C.bytes.data() : nullptr;
  args.ldc = C.ld;
  args.d = D.bytes.data();
  args.ldd = D.ld;
  args.alpha = tc.alpha;
  args.beta = tc.with_c ? tc.beta : 0.0f;
  args.scale_a = tc.scale_a != 0.0f ? &tc.scale_a : nullptr;
  args.scale_b = tc.scale_b != 0.0f ? &tc.scale_b : nullptr;
  ASSERT_EQ(fly_gemm(handle, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();

  EXPECT_EQ(A.bytes, a_before);
  EXPECT_EQ(B.bytes, b_before);
  EXPECT_EQ(C.bytes, c_before);
  double const s = double(tc.alpha) * (tc.scale_a != 0.0f ? tc.scale_a : 1.0) * (tc.scale_b != 0.0f ? tc.scale_b : 1.0);
  int failures = 0;
  for (int64_t i = 0; i < tc.m && failures < 10; ++i) {
    for (int64_t j = 0; j < D.ld && failures < 10; ++j) {
      if (D.padding(j)) {
        for (size_t b = 0; b < esize(tc.d); ++b) {
          if (D.at(i, j)[b] != 0xFF) {
            ADD_FAILURE() << "D padding written at (" << i << ", " << j << ")";
            ++failures;
            break;
          }
        }
        continue;
      }
      double dot = 0.0, mag = 0.0;
      for (int64_t q = 0; q < tc.k; ++q) {
        double const prod = A.get(i, q) * B.get(j, q);
        dot += prod;
        mag += std::fabs(prod);
      }
      double ref = s * dot;
      double cterm = 0.0;
      if (tc.with_c) {
        cterm = double(tc.beta) * C.get(i, j);
        ref += cterm;
      }
      double const out = D.get(i, j);
      if (tc.values == Values::exact) {
        double const expected = round_to_type(ref, tc.d);
        if (!(out == expected)) {
          ADD_FAILURE() << "D(" << i << ", " << j << ") = " << out << ", expected exactly " << expected
                        << " (reference " << ref << ")";
          ++failures;
        }
      } else {
        double const tol = double(tc.k + 3) * std::ldexp(1.0, -24) * (std::fabs(s) * mag + std::fabs(cterm)) * 1.01 +
                           ulp_of(ref, tc.d);
        if (!(std::fabs(out - ref) <= tol)) {
          ADD_FAILURE() << "D(" << i << ", " << j << ") = " << out << ", reference " << ref << ", tolerance " << tol;
          ++failures;
        }
      }
    }
  }
}

struct Shape {
  int64_t m, n, k;
};

std::vector<Shape> shapes() {
  std::vector<Shape> v = {{1, 1, 1}, {2, 3, 4}, {17, 31, 7}, {3, 5, 4099}, {13, 1, 5}, {1, 29, 64},
                          {7, 11, 257}, {31, 17, 130}, {5, 37, 1}};
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int64_t> mn(1, 40), k(1, 300);
  for (int i = 0; i < 4; ++i) v.push_back({mn(rng), mn(rng), k(rng)});
  return v;
}

const fly_dtype_t k_ab_types[] = {FLY_DTYPE_F32, FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ};
const fly_dtype_t k_d_types[] = {FLY_DTYPE_F32, FLY_DTYPE_F16, FLY_DTYPE_BF16};

class GemmHost : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(fly_create_host(&handle_), FLY_STATUS_SUCCESS) << fly_last_error(); }
  void TearDown() override { fly_destroy(handle_); }
  fly_handle_t handle_ = nullptr;
};

// ---- the sweep ----------------------------------------------------------------------------------

TEST_F(GemmHost, ExactPlainProduct) {
  uint64_t seed = 1;
  for (Shape sh : shapes()) {
    for (fly_dtype_t ab : k_ab_types) {
      for (fly_dtype_t d : k_d_types) run_case(handle_, {sh.m, sh.n, sh.k, ab, d}, seed++);
    }
  }
}

TEST_F(GemmHost, ExactWithCScalesAndPadding) {
  uint64_t seed = 1000;
  for (Shape sh : shapes()) {
    for (fly_dtype_t ab : k_ab_types) {
      for (fly_dtype_t d : k_d_types) {
        Case tc{sh.m, sh.n, sh.k, ab, d};
        tc.with_c = true;
        tc.pad = 3;
        tc.alpha = 0.5f;
        tc.beta = 2.0f;
        tc.scale_a = 4.0f;
        tc.scale_b = 0.25f;
        run_case(handle_, tc, seed++);
        tc.alpha = -2.0f;
        tc.beta = -0.5f;
        tc.scale_a = 0.0f;  // null
        tc.scale_b = 0.5f;
        tc.pad = 1;
        run_case(handle_, tc, seed++);
      }
    }
  }
}

TEST_F(GemmHost, ExactScalesWithoutC) {
  uint64_t seed = 2000;
  for (fly_dtype_t ab : k_ab_types) {
    for (fly_dtype_t d : k_d_types) {
      Case tc{17, 31, 7, ab, d};
      tc.pad = 5;
      tc.scale_a = 0.125f;
      tc.scale_b = 8.0f;
      tc.alpha = 4.0f;
      run_case(handle_, tc, seed++);
      tc.alpha = 0.0f;  // D = 0 (and C not read)
      run_case(handle_, tc, seed++);
    }
  }
}

TEST_F(GemmHost, GeneralValuesWithinTheFp32Bound) {
  uint64_t seed = 3000;
  for (Shape sh : shapes()) {
    for (fly_dtype_t ab : k_ab_types) {
      for (fly_dtype_t d : k_d_types) {
        Case tc{sh.m, sh.n, sh.k, ab, d};
        tc.values = Values::general;
        tc.with_c = true;
        tc.pad = 2;
        tc.alpha = 0.3f;
        tc.beta = -1.7f;
        tc.scale_a = 1.1f;
        tc.scale_b = ab == FLY_DTYPE_F32 ? 0.9f : 1e-4f;  // full-range fp8 products reach 2e5: keep f16 finite
        run_case(handle_, tc, seed++);
      }
    }
  }
}

TEST_F(GemmHost, LargeProblemsRunThreaded) {
  // 96 x 80 x 600 = 4.6M multiply-adds: above the threading threshold.
  EXPECT_EQ(fly::dispatch::host_gemm_threads(96, 80, 600),
            std::min<int>(std::max(1u, std::thread::hardware_concurrency()), 2));
  EXPECT_EQ(fly::dispatch::host_gemm_threads(17, 31, 7), 1);
  EXPECT_EQ(fly::dispatch::host_gemm_threads(1, 1 << 20, 1 << 20), 1);  // one row: one thread
  uint64_t seed = 4000;
  for (fly_dtype_t ab : {FLY_DTYPE_F32, FLY_DTYPE_E4M3FN}) {
    Case tc{96, 80, 600, ab, FLY_DTYPE_BF16};
    tc.with_c = true;
    tc.pad = 4;
    tc.beta = 1.0f;
    run_case(handle_, tc, seed++);
    tc = Case{131, 67, 523, ab, FLY_DTYPE_F32};
    run_case(handle_, tc, seed++);
  }
}

// ---- conversions ----------------------------------------------------------------------------------

// K = 1 over every pair of fp8 codes: D = a * b is exact in fp32 (NaN codes give NaN).
void every_fp8_product(fly_handle_t handle, fly_dtype_t type) {
  bool const fnuz = type == FLY_DTYPE_E4M3FNUZ;
  std::vector<uint8_t> codes(256);
  for (unsigned c = 0; c < 256; ++c) codes[c] = static_cast<uint8_t>(c);
  std::vector<float> d(256 * 256, -1.0f);
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = args.n = 256;
  args.k = 1;
  args.a_type = args.b_type = type;
  args.d_type = FLY_DTYPE_F32;
  args.a = args.b = codes.data();
  args.lda = args.ldb = 1;
  args.d = d.data();
  args.ldd = 256;
  ASSERT_EQ(fly_gemm(handle, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  int failures = 0;
  for (int i = 0; i < 256 && failures < 10; ++i) {
    for (int j = 0; j < 256 && failures < 10; ++j) {
      double const ref = decode_fp8(static_cast<uint8_t>(i), fnuz) * decode_fp8(static_cast<uint8_t>(j), fnuz);
      float const out = d[static_cast<size_t>(i * 256 + j)];
      bool const ok = std::isnan(ref) ? std::isnan(out) : double(out) == ref;
      if (!ok) {
        ADD_FAILURE() << fly_dtype_string(type) << " codes " << i << " * " << j << ": " << out << " != " << ref;
        ++failures;
      }
    }
  }
}

TEST_F(GemmHost, EveryE4m3fnProductIsExact) { every_fp8_product(handle_, FLY_DTYPE_E4M3FN); }
TEST_F(GemmHost, EveryE4m3fnuzProductIsExact) { every_fp8_product(handle_, FLY_DTYPE_E4M3FNUZ); }

// 1x1x1 f32 GEMM returning D's bits as a double.
double one(fly_handle_t handle, float a, float b, fly_dtype_t d_type) {
  Matrix D(d_type, 1, 1, 1);
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = args.n = args.k = 1;
  args.a = &a;
  args.b = &b;
  args.lda = args.ldb = args.ldd = 1;
  args.d_type = d_type;
  args.d = D.bytes.data();
  EXPECT_EQ(fly_gemm(handle, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  return D.get(0, 0);
}

TEST_F(GemmHost, OutputRoundsToNearestEven) {
  // bf16 spacing at 1 is 2^-7: 1 + 2^-8 is a tie (to the even 1), 1 + 3 * 2^-8 a tie (to the even 1 + 2^-6).
  EXPECT_EQ(one(handle_, 1.0f, 1.0f + 0x1p-8f, FLY_DTYPE_BF16), 1.0);
  EXPECT_EQ(one(handle_, 1.0f, 1.0f + 3 * 0x1p-8f, FLY_DTYPE_BF16), 1.0 + 0x1p-6);
  EXPECT_EQ(one(handle_, 1.0f, 1.0f + 0x1p-8f + 0x1p-20f, FLY_DTYPE_BF16), 1.0 + 0x1p-7);  // above the tie
  EXPECT_EQ(one(handle_, -1.0f, 1.0f + 0x1p-8f, FLY_DTYPE_BF16), -1.0);
  // f16 spacing at 1 is 2^-10.
  EXPECT_EQ(one(handle_, 1.0f, 1.0f + 0x1p-11f, FLY_DTYPE_F16), 1.0);
  EXPECT_EQ(one(handle_, 1.0f, 1.0f + 3 * 0x1p-11f, FLY_DTYPE_F16), 1.0 + 0x1p-9);
  EXPECT_EQ(one(handle_, 1.0f, 0x1p-24f, FLY_DTYPE_F16), 0x1p-24);  // smallest f16 subnormal
  EXPECT_EQ(one(handle_, 1.0f, 0x1p-25f, FLY_DTYPE_F16), 0.0);      // tie to even zero
  // Overflow of the output type is IEEE infinity.
  EXPECT_EQ(one(handle_, 256.0f, 256.0f, FLY_DTYPE_F16), std::numeric_limits<double>::infinity());
  EXPECT_EQ(one(handle_, 0x1p100f, -0x1p100f, FLY_DTYPE_BF16), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(one(handle_, 0x1p100f, 0x1p27f, FLY_DTYPE_F32), 0x1p127);
}

TEST_F(GemmHost, AccumulatesInFp32InKOrder) {
  // 2^24 + 1 - 2^24 in fp32, in k order: (2^24 + 1) rounds to 2^24, then 0; a wider accumulator gives 1.
  float const a[3] = {0x1p24f, 1.0f, -0x1p24f};
  float const b[3] = {1.0f, 1.0f, 1.0f};
  float d = -1.0f;
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = args.n = 1;
  args.k = 3;
  args.a = a;
  args.b = b;
  args.lda = args.ldb = 3;
  args.ldd = 1;
  args.d = &d;
  ASSERT_EQ(fly_gemm(handle_, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(d, 0.0f);
}

TEST_F(GemmHost, ScalesAreReadAtEachCall) {
  float const a[2] = {1.0f, 2.0f};
  float const b[2] = {3.0f, 4.0f};
  float d = 0.0f;
  float sa = 2.0f;
  float sb = 0.5f;
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = args.n = 1;
  args.k = 2;
  args.a = a;
  args.b = b;
  args.lda = args.ldb = 2;
  args.ldd = 1;
  args.d = &d;
  args.scale_a = &sa;
  args.scale_b = &sb;
  args.alpha = 3.0f;
  ASSERT_EQ(fly_gemm(handle_, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(d, 33.0f);  // 3 * 2 * 0.5 * 11
  sa = -1.0f;
  ASSERT_EQ(fly_gemm(handle_, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(d, -16.5f);
}

}  // namespace

// NaN and infinity in A and B reach D as IEEE arithmetic says (the double reference's own sums):
// a NaN operand, Inf x 0 and Inf - Inf give NaN, Inf x finite gives a signed infinity, and the
// other elements are untouched by them; in every D type. fp8's NaN codes (e4m3fn 0x7F, e4m3fnuz
// 0x80) give NaN too.
TEST_F(GemmHost, NanAndInfinityPropagateAsIeee) {
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  constexpr int64_t m = 4, n = 3, k = 4;
  const float a[m * k] = {1, nan, 1, 1, /**/ 1, inf, 1, 1, /**/ 1, 1, 1, 1, /**/ inf, inf, 0, 0};
  const float b[n * k] = {1, 1, 1, 1, /**/ 1, -2, 1, 1, /**/ 1, 0, 1, 1};
  for (fly_dtype_t d_type : k_d_types) {
    SCOPED_TRACE(fly_dtype_string(d_type));
    Matrix d(d_type, m, n, n);
    fly_gemm_args args = FLY_GEMM_ARGS_INIT;
    args.m = m; args.n = n; args.k = k;
    args.a = a; args.b = b; args.d = d.bytes.data();
    args.lda = args.ldb = k;
    args.ldd = n;
    args.d_type = d_type;
    ASSERT_EQ(fly_gemm(handle_, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t kk = 0; kk < k; ++kk) ref += double(a[i * k + kk]) * double(b[j * k + kk]);
        const double got = d.get(i, j);
        if (std::isnan(ref)) {
          EXPECT_TRUE(std::isnan(got)) << "D(" << i << ", " << j << ") = " << got;
        } else {
          EXPECT_EQ(got, ref) << "D(" << i << ", " << j << ")";
        }
      }
  }
  for (fly_dtype_t ab : {FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ}) {
    const uint8_t nan_code = ab == FLY_DTYPE_E4M3FN ? 0x7F : 0x80, one = ab == FLY_DTYPE_E4M3FN ? 0x38 : 0x40;
    const uint8_t a8[2] = {one, nan_code}, b8[2] = {one, one};
    float d = 0;
    fly_gemm_args args = FLY_GEMM_ARGS_INIT;
    args.m = args.n = 1;
    args.k = 2;
    args.a_type = args.b_type = ab;
    args.a = a8; args.b = b8; args.d = &d;
    args.lda = args.ldb = 2;
    args.ldd = 1;
    ASSERT_EQ(fly_gemm(handle_, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
    EXPECT_TRUE(std::isnan(d)) << fly_dtype_string(ab) << ": " << d;
  }
}
