// fly_gemm's C API: argument validation (status and message for every bad argument), struct_size,
// handles, introspection, FLY_LOG_DISPATCH, and the GPU dispatch path over a fake registry
// (selection, the decision cache, NOT_SUPPORTED messages).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <thread>
#include <vector>

#include "fly/fly.h"
#include "fake_problem.hpp"
#include "gemm/gemm_registry.hpp"
#include "handle.hpp"
#include "platform.hpp"
#include "gemm/gemm_validate.hpp"

extern "C" int fly_test_c99_gemm(float a, float b, float* out);
extern "C" int fly_test_c99_gemm_init(void);
extern "C" const char* fly_test_c99_dtype_string(int value);
extern "C" int fly_test_c99_a_type_status(fly_handle_t handle, int value);

namespace {

using fly::dispatch::GemmProblem;
using fly::dispatch::GemmVariant;
using fly::dispatch::Target;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Sets an environment variable for one scope (restoring the previous value).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// A valid 2x3x4 f32 GEMM on host buffers, with C, to be broken one field at a time.
struct Buffers {
  std::vector<float> a = std::vector<float>(2 * 4, 1.0f);
  std::vector<float> b = std::vector<float>(3 * 4, 1.0f);
  std::vector<float> c = std::vector<float>(2 * 3, 1.0f);
  std::vector<float> d = std::vector<float>(2 * 3, -7.0f);
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  Buffers() {
    args.m = 2;
    args.n = 3;
    args.k = 4;
    args.a = a.data();
    args.lda = 4;
    args.b = b.data();
    args.ldb = 4;
    args.c = c.data();
    args.ldc = 3;
    args.d = d.data();
    args.ldd = 3;
    args.beta = 1.0f;
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  bool d_untouched() const {
    for (float x : d) {
      if (x != -7.0f) return false;
    }
    return true;
  }
};

class GemmApi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(fly_create_host(&handle_), FLY_STATUS_SUCCESS) << fly_last_error(); }
  void TearDown() override { EXPECT_EQ(fly_destroy(handle_), FLY_STATUS_SUCCESS); }
  fly_handle_t handle_ = nullptr;
};

// ---- the valid baseline -------------------------------------------------------------------------

TEST_F(GemmApi, BaselineIsValidAndClearsTheLastError) {
  Buffers buf;
  EXPECT_EQ(fly_gemm(handle_, nullptr, nullptr, 0, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STRNE(fly_last_error(), "");
  EXPECT_EQ(fly_gemm(handle_, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_STREQ(fly_last_error(), "");
  for (float x : buf.d) EXPECT_EQ(x, 5.0f);  // 4 * 1 * 1 + 1 * 1
  size_t bytes = 123;
  EXPECT_EQ(fly_gemm_workspace_size(handle_, &buf.args, &bytes), FLY_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 0u);
}

TEST(GemmArgsInit, GivesTheDocumentedDefaults) {
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  EXPECT_EQ(args.struct_size, sizeof(fly_gemm_args));
  EXPECT_EQ(args.m, 0);
  EXPECT_EQ(args.n, 0);
  EXPECT_EQ(args.k, 0);
  EXPECT_EQ(args.alpha, 1.0f);
  EXPECT_EQ(args.beta, 0.0f);
  EXPECT_EQ(args.a, nullptr);
  EXPECT_EQ(args.b, nullptr);
  EXPECT_EQ(args.c, nullptr);
  EXPECT_EQ(args.d, nullptr);
  EXPECT_EQ(args.scale_a, nullptr);
  EXPECT_EQ(args.scale_b, nullptr);
  EXPECT_EQ(args.lda, 0);
  EXPECT_EQ(args.ldd, 0);
  EXPECT_EQ(fly_test_c99_gemm_init(), 1);
}

TEST(GemmC99, CallsFromCWork) {
  float d = 0.0f;
  EXPECT_EQ(fly_test_c99_gemm(3.0f, -2.5f, &d), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(d, -7.5f);
}

TEST(Dtype, Strings) {
  EXPECT_STREQ(fly_dtype_string(FLY_DTYPE_F32), "f32");
  EXPECT_STREQ(fly_dtype_string(FLY_DTYPE_F16), "f16");
  EXPECT_STREQ(fly_dtype_string(FLY_DTYPE_BF16), "bf16");
  EXPECT_STREQ(fly_dtype_string(FLY_DTYPE_E4M3FN), "e4m3fn");
  EXPECT_STREQ(fly_dtype_string(FLY_DTYPE_E4M3FNUZ), "e4m3fnuz");
  EXPECT_STREQ(fly_dtype_string(static_cast<fly_dtype_t>(7)), "unknown");
  EXPECT_STREQ(fly_test_c99_dtype_string(42), "unknown");  // any int, from C
  EXPECT_STREQ(fly_test_c99_dtype_string(-1), "unknown");
}

// ---- one case per bad argument -------------------------------------------------------------------

struct BadCase {
  const char* name;
  std::function<void(Buffers&)> mutate;
  fly_status_t status;
  const char* message;  // fly_last_error() is "<fn>: <message...>"
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

const float k_nan = std::numeric_limits<float>::quiet_NaN();

// m = k = 1 with fp8 A and B, n = ldc = ldd = 2^62: A and B fit, f32 C and D do not.
void one_row_of_2_62(Buffers& b) {
  b.args.a_type = b.args.b_type = FLY_DTYPE_E4M3FN;
  b.args.m = b.args.k = b.args.lda = b.args.ldb = 1;
  b.args.n = b.args.ldc = b.args.ldd = int64_t{1} << 62;
}

std::vector<BadCase> bad_cases() {
  constexpr int64_t big = std::numeric_limits<int64_t>::max();
  return {
      {"StructSizeZero", [](Buffers& b) { b.args.struct_size = 0; }, FLY_STATUS_INVALID_ARGUMENT,
       "args->struct_size (0) is smaller than sizeof(fly_gemm_args)"},
      {"StructSizeOneFieldShort", [](Buffers& b) { b.args.struct_size = sizeof(fly_gemm_args) - sizeof(void*); },
       FLY_STATUS_INVALID_ARGUMENT, "is smaller than sizeof(fly_gemm_args)"},
      {"StructSizeGarbage", [](Buffers& b) { b.args.struct_size = size_t{1} << 40; }, FLY_STATUS_INVALID_ARGUMENT,
       "is implausibly large"},
      {"MZero", [](Buffers& b) { b.args.m = 0; }, FLY_STATUS_INVALID_ARGUMENT, "m (0) must be >= 1"},
      {"NZero", [](Buffers& b) { b.args.n = 0; }, FLY_STATUS_INVALID_ARGUMENT, "n (0) must be >= 1"},
      {"KZero", [](Buffers& b) { b.args.k = 0; }, FLY_STATUS_INVALID_ARGUMENT, "k (0) must be >= 1"},
      {"MNegative", [](Buffers& b) { b.args.m = -5; }, FLY_STATUS_INVALID_ARGUMENT, "m (-5) must be >= 1"},
      {"KNegative", [](Buffers& b) { b.args.k = std::numeric_limits<int64_t>::min(); }, FLY_STATUS_INVALID_ARGUMENT,
       "k (-9223372036854775808) must be >= 1"},
      {"ATypeNotADtype", [](Buffers& b) { b.args.a_type = static_cast<fly_dtype_t>(7); }, FLY_STATUS_INVALID_ARGUMENT,
       "a_type (7) is not a fly_dtype_t"},
      {"BTypeNotADtype", [](Buffers& b) { b.args.b_type = static_cast<fly_dtype_t>(6); }, FLY_STATUS_INVALID_ARGUMENT,
       "b_type (6) is not a fly_dtype_t"},
      {"DTypeNotADtype", [](Buffers& b) { b.args.d_type = static_cast<fly_dtype_t>(5); }, FLY_STATUS_INVALID_ARGUMENT,
       "d_type (5) is not a fly_dtype_t"},
      {"CTypeNotADtype", [](Buffers& b) { b.args.c_type = static_cast<fly_dtype_t>(7); }, FLY_STATUS_INVALID_ARGUMENT,
       "c_type (7) is not a fly_dtype_t"},
      {"ANull", [](Buffers& b) { b.args.a = nullptr; }, FLY_STATUS_INVALID_ARGUMENT, "a is null"},
      {"BNull", [](Buffers& b) { b.args.b = nullptr; }, FLY_STATUS_INVALID_ARGUMENT, "b is null"},
      {"DNull", [](Buffers& b) { b.args.d = nullptr; }, FLY_STATUS_INVALID_ARGUMENT, "d is null"},
      {"CNullWithBeta", [](Buffers& b) { b.args.c = nullptr; b.args.beta = 0.5f; }, FLY_STATUS_INVALID_ARGUMENT,
       "c is null but beta (0.5) is not 0"},
      {"CNullWithNanBeta", [](Buffers& b) { b.args.c = nullptr; b.args.beta = k_nan; }, FLY_STATUS_INVALID_ARGUMENT,
       "c is null but beta (nan) is not 0"},
      {"LdaBelowK", [](Buffers& b) { b.args.lda = 3; }, FLY_STATUS_INVALID_ARGUMENT, "lda (3) must be >= k (4)"},
      {"LdbBelowK", [](Buffers& b) { b.args.ldb = 0; }, FLY_STATUS_INVALID_ARGUMENT, "ldb (0) must be >= k (4)"},
      {"LdcBelowN", [](Buffers& b) { b.args.ldc = 2; }, FLY_STATUS_INVALID_ARGUMENT, "ldc (2) must be >= n (3)"},
      {"LddBelowN", [](Buffers& b) { b.args.ldd = -3; }, FLY_STATUS_INVALID_ARGUMENT, "ldd (-3) must be >= n (3)"},
      {"LdaOverflows", [](Buffers& b) { b.args.lda = big; }, FLY_STATUS_INVALID_ARGUMENT,
       "A (m 2 x lda 9223372036854775807) spans more than 2^63 bytes"},
      {"LdbOverflows", [](Buffers& b) { b.args.ldb = big / 3; }, FLY_STATUS_INVALID_ARGUMENT, "B (n 3 x ldb"},
      {"LdcOverflows", [](Buffers& b) { b.args.ldc = big / 2; }, FLY_STATUS_INVALID_ARGUMENT, "C (m 2 x ldc"},
      {"LddOverflows", [](Buffers& b) { b.args.ldd = big / 4; }, FLY_STATUS_INVALID_ARGUMENT, "D (m 2 x ldd"},
      // one row of 2^62 f32 elements: the span itself exceeds 2^63 bytes (no division may hide it)
      {"OneRowOfKOverflowsA", [](Buffers& b) { b.args.m = 1; b.args.k = b.args.lda = b.args.ldb = int64_t{1} << 62; },
       FLY_STATUS_INVALID_ARGUMENT, "A (m 1 x lda 4611686018427387904) spans more than 2^63 bytes"},
      // C and D rows of 2^62 f32 behind an fp8 B of 2^62 bytes (which fits)
      {"OneRowOfNOverflowsC", [](Buffers& b) { one_row_of_2_62(b); },
       FLY_STATUS_INVALID_ARGUMENT, "C (m 1 x ldc 4611686018427387904) spans more than 2^63 bytes"},
      {"OneRowOfNOverflowsD", [](Buffers& b) { one_row_of_2_62(b); b.args.beta = 0.0f; },
       FLY_STATUS_INVALID_ARGUMENT, "D (m 1 x ldd 4611686018427387904) spans more than 2^63 bytes"},
      {"MaxRowsOverflowA", [](Buffers& b) { b.args.m = big; }, FLY_STATUS_INVALID_ARGUMENT, "A (m 9223372036854775807 x lda 4)"},
      {"MaxRowsOverflowB", [](Buffers& b) { b.args.n = b.args.ldc = b.args.ldd = big; },
       FLY_STATUS_INVALID_ARGUMENT, "B (n 9223372036854775807 x ldb 4)"},
      // every pointer aligned to its element size: a 2-byte offset into f32 data
      {"AMisaligned", [](Buffers& b) { b.args.a = reinterpret_cast<const char*>(b.a.data()) + 2; },
       FLY_STATUS_INVALID_ARGUMENT, "must be aligned to its element size (4 bytes)"},
      {"BMisaligned", [](Buffers& b) { b.args.b = reinterpret_cast<const char*>(b.b.data()) + 1; },
       FLY_STATUS_INVALID_ARGUMENT, "must be aligned to its element size (4 bytes)"},
      {"CMisaligned", [](Buffers& b) { b.args.c = reinterpret_cast<const char*>(b.c.data()) + 2; },
       FLY_STATUS_INVALID_ARGUMENT, "must be aligned to its element size (4 bytes)"},
      {"DMisaligned", [](Buffers& b) { b.args.d = reinterpret_cast<char*>(b.d.data()) + 2; },
       FLY_STATUS_INVALID_ARGUMENT, "must be aligned to its element size (4 bytes)"},
      {"DBf16AtAnOddAddress", [](Buffers& b) {
         b.args.d_type = b.args.c_type = FLY_DTYPE_BF16; b.args.d = reinterpret_cast<char*>(b.d.data()) + 1; },
       FLY_STATUS_INVALID_ARGUMENT, "must be aligned to its element size (2 bytes)"},
      {"ScaleAMisaligned", [](Buffers& b) {
         b.args.scale_a = reinterpret_cast<const float*>(reinterpret_cast<const char*>(b.c.data()) + 1); },
       FLY_STATUS_INVALID_ARGUMENT, "scale_a ("},
      {"ScaleBMisaligned", [](Buffers& b) {
         b.args.scale_b = reinterpret_cast<const float*>(reinterpret_cast<const char*>(b.c.data()) + 3); },
       FLY_STATUS_INVALID_ARGUMENT, "scale_b ("},
      {"DOverlapsA", [](Buffers& b) { b.args.a = b.d.data() + 1; b.args.lda = 4; b.args.m = 1; }, FLY_STATUS_INVALID_ARGUMENT,
       "d overlaps a"},
      {"DOverlapsB", [](Buffers& b) { b.args.b = b.d.data(); b.args.k = 2; b.args.lda = 2; b.args.ldb = 2; },
       FLY_STATUS_INVALID_ARGUMENT, "d overlaps b"},
      {"COverlapsDShifted", [](Buffers& b) { b.args.c = b.d.data() + 1; b.args.m = 1; }, FLY_STATUS_INVALID_ARGUMENT,
       "c overlaps d"},
      {"CIsDWithOtherLd", [](Buffers& b) { b.args.c = b.d.data(); b.args.m = 1; b.args.ldc = 4; },
       FLY_STATUS_INVALID_ARGUMENT, "c overlaps d"},
      // every GPU block reads the scales after others may have stored D: they may not lie in it
      {"ScaleAInD", [](Buffers& b) { b.args.scale_a = b.d.data() + 3; }, FLY_STATUS_INVALID_ARGUMENT,
       "d overlaps scale_a"},
      {"ScaleBInD", [](Buffers& b) { b.args.scale_b = b.d.data(); }, FLY_STATUS_INVALID_ARGUMENT, "d overlaps scale_b"},
      {"MixedABTypes", [](Buffers& b) { b.args.b_type = FLY_DTYPE_E4M3FN; }, FLY_STATUS_NOT_SUPPORTED,
       "a_type (f32) and b_type (e4m3fn) must be the same"},
      {"ABf16Inputs", [](Buffers& b) { b.args.a_type = b.args.b_type = FLY_DTYPE_BF16; }, FLY_STATUS_NOT_SUPPORTED,
       "a_type bf16 is not supported: A and B must be e4m3fn, e4m3fnuz or f32"},
      {"AF16Inputs", [](Buffers& b) { b.args.a_type = b.args.b_type = FLY_DTYPE_F16; }, FLY_STATUS_NOT_SUPPORTED,
       "a_type f16 is not supported"},
      {"DFp8", [](Buffers& b) { b.args.d_type = b.args.c_type = FLY_DTYPE_E4M3FN; }, FLY_STATUS_NOT_SUPPORTED,
       "d_type e4m3fn is not supported: D must be f32, f16 or bf16"},
      {"CTypeDiffersFromD", [](Buffers& b) { b.args.c_type = FLY_DTYPE_BF16; }, FLY_STATUS_NOT_SUPPORTED,
       "c_type (bf16) must equal d_type (f32) when C is read"},
  };
}

class GemmBadArgument : public GemmApi, public ::testing::WithParamInterface<BadCase> {};

TEST_P(GemmBadArgument, EveryEntryRejectsIt) {
  const BadCase& bad = GetParam();
  Buffers buf;
  bad.mutate(buf);
  char line[FLY_GEMM_EXPLAIN_BYTES];
  size_t bytes = 99;
  struct Entry {
    const char* fn;
    std::function<fly_status_t()> call;
  };
  const Entry entries[] = {
      {"fly_gemm", [&] { return fly_gemm(handle_, &buf.args, nullptr, 0, nullptr); }},
      {"fly_gemm_workspace_size", [&] { return fly_gemm_workspace_size(handle_, &buf.args, &bytes); }},
      {"fly_gemm_explain", [&] { return fly_gemm_explain(handle_, &buf.args, line, sizeof line); }},
  };
  for (const Entry& e : entries) {
    SCOPED_TRACE(e.fn);
    std::strcpy(line, "stale");
    EXPECT_EQ(e.call(), bad.status) << fly_last_error();
    std::string const expected_prefix = std::string(e.fn) + ": ";
    std::string const msg = fly_last_error();
    EXPECT_EQ(msg.rfind(expected_prefix, 0), 0u) << msg;
    EXPECT_TRUE(contains(msg, bad.message)) << "message: " << msg << "\nexpected to contain: " << bad.message;
    EXPECT_TRUE(buf.d_untouched());
  }
  EXPECT_EQ(bytes, 99u);     // an output is not written on failure
  EXPECT_STREQ(line, "");  // explain clears its buffer on failure
}

INSTANTIATE_TEST_SUITE_P(Validation, GemmBadArgument, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& param_info) { return std::string(param_info.param.name); });

TEST_F(GemmApi, DtypeOutsideTheEnumFromC) {
  // C lets a caller store any int in a fly_dtype_t field; the library reads it as an int.
  EXPECT_EQ(fly_test_c99_a_type_status(handle_, 17), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_workspace_size: a_type (17) is not a fly_dtype_t");
  EXPECT_EQ(fly_test_c99_a_type_status(handle_, -1), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_workspace_size: a_type (-1) is not a fly_dtype_t");
  EXPECT_EQ(fly_test_c99_a_type_status(handle_, FLY_DTYPE_F32), FLY_STATUS_SUCCESS) << fly_last_error();
}

// ---- arguments that are fine although they look odd ---------------------------------------------

TEST_F(GemmApi, BetaZeroIgnoresCAndItsFields) {
  Buffers buf;
  buf.args.beta = 0.0f;
  buf.args.c_type = static_cast<fly_dtype_t>(6);  // not read
  buf.args.ldc = -1;                               // not read
  buf.c.assign(buf.c.size(), k_nan);               // not read: NaN must not reach D
  EXPECT_EQ(fly_gemm(handle_, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  for (float x : buf.d) EXPECT_EQ(x, 4.0f);
  buf.args.c = nullptr;
  EXPECT_EQ(fly_gemm(handle_, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  buf.args.c = buf.d.data() + 1;  // overlapping D is harmless when C is not read
  EXPECT_EQ(fly_gemm(handle_, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
}

TEST_F(GemmApi, CMayBeDInPlace) {
  Buffers buf;
  buf.args.c = buf.d.data();
  buf.d.assign(buf.d.size(), 2.0f);
  buf.args.beta = 0.5f;
  EXPECT_EQ(fly_gemm(handle_, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  for (float x : buf.d) EXPECT_EQ(x, 5.0f);  // 4 + 0.5 * 2
}

TEST_F(GemmApi, LargerStructWithZeroTailIsAccepted) {
  Buffers buf;
  struct Newer {
    fly_gemm_args base;
    int64_t future_field;
  } newer{};
  newer.base = buf.args;
  newer.base.struct_size = sizeof(Newer);
  newer.future_field = 0;
  EXPECT_EQ(fly_gemm(handle_, &newer.base, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  for (float x : buf.d) EXPECT_EQ(x, 5.0f);
}

TEST_F(GemmApi, LargerStructWithFieldSetIsNotSupported) {
  Buffers buf;
  struct Newer {
    fly_gemm_args base;
    int64_t future_field;
  } newer{};
  newer.base = buf.args;
  newer.base.struct_size = sizeof(Newer);
  newer.future_field = 3;
  EXPECT_EQ(fly_gemm(handle_, &newer.base, nullptr, 0, nullptr), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_TRUE(contains(fly_last_error(), "args->struct_size (" + std::to_string(sizeof(Newer)) + ") is larger"))
      << fly_last_error();
  EXPECT_TRUE(contains(fly_last_error(), "byte " + std::to_string(sizeof(fly_gemm_args)))) << fly_last_error();
  EXPECT_TRUE(buf.d_untouched());
}

TEST_F(GemmApi, WorkspaceIsOptional) {
  Buffers buf;
  unsigned char ws[64];
  EXPECT_EQ(fly_gemm(handle_, &buf.args, ws, sizeof ws, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(fly_gemm(handle_, &buf.args, ws, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
}

// ---- the remaining bad arguments: handle, args, outputs, workspace, stream -------------------------

TEST_F(GemmApi, NullHandle) {
  Buffers buf;
  size_t bytes = 0;
  char line[64];
  EXPECT_EQ(fly_gemm(nullptr, &buf.args, nullptr, 0, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm: handle is null");
  EXPECT_EQ(fly_gemm_workspace_size(nullptr, &buf.args, &bytes), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_workspace_size: handle is null");
  EXPECT_EQ(fly_gemm_explain(nullptr, &buf.args, line, sizeof line), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_explain: handle is null");
  EXPECT_TRUE(buf.d_untouched());
}

TEST_F(GemmApi, NullArgs) {
  size_t bytes = 0;
  char line[64];
  EXPECT_EQ(fly_gemm(handle_, nullptr, nullptr, 0, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm: args is null");
  EXPECT_EQ(fly_gemm_workspace_size(handle_, nullptr, &bytes), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_workspace_size: args is null");
  EXPECT_EQ(fly_gemm_explain(handle_, nullptr, line, sizeof line), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_explain: args is null");
}

TEST_F(GemmApi, WorkspaceSizeNullOutput) {
  Buffers buf;
  EXPECT_EQ(fly_gemm_workspace_size(handle_, &buf.args, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_workspace_size: bytes is null");
}

TEST_F(GemmApi, WorkspaceNullWithBytes) {
  Buffers buf;
  EXPECT_EQ(fly_gemm(handle_, &buf.args, nullptr, 256, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm: workspace is null but workspace_bytes (256) is not 0");
  EXPECT_TRUE(buf.d_untouched());
}

TEST_F(GemmApi, StreamOnHostBackend) {
  Buffers buf;
  int not_a_stream = 0;
  EXPECT_EQ(fly_gemm(handle_, &buf.args, nullptr, 0, &not_a_stream), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "fly_gemm: stream must be null on the host backend")) << fly_last_error();
  EXPECT_TRUE(buf.d_untouched());
}

TEST_F(GemmApi, ExplainNullBuffer) {
  Buffers buf;
  EXPECT_EQ(fly_gemm_explain(handle_, &buf.args, nullptr, 64), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_explain: buffer is null");
}

TEST_F(GemmApi, ExplainZeroBytes) {
  Buffers buf;
  char line[4] = "abc";
  EXPECT_EQ(fly_gemm_explain(handle_, &buf.args, line, 0), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_gemm_explain: buffer_bytes is 0");
  EXPECT_STREQ(line, "abc");  // zero bytes: nothing written
}

TEST_F(GemmApi, ExplainTruncates) {
  Buffers buf;
  char line[8];
  EXPECT_EQ(fly_gemm_explain(handle_, &buf.args, line, sizeof line), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(line, "host_re");
  EXPECT_STREQ(fly_last_error(), "fly_gemm_explain: buffer_bytes (8) is too small: the line needs 29");
}

TEST_F(GemmApi, ExplainOnHost) {
  Buffers buf;
  char line[FLY_GEMM_EXPLAIN_BYTES];
  EXPECT_EQ(fly_gemm_explain(handle_, &buf.args, line, sizeof line), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_STREQ(line, "host_reference: host backend");
  EXPECT_TRUE(buf.d_untouched());  // explain computes nothing
}

TEST(GemmValidate, Fp8FormatsFollowTheTarget) {
  std::vector<uint8_t> a(8), b(12);
  std::vector<float> d(6);
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = 2;
  args.n = 3;
  args.k = 4;
  args.a = a.data();
  args.b = b.data();
  args.d = d.data();
  args.lda = args.ldb = 4;
  args.ldd = 3;
  GemmProblem p{};
  args.a_type = args.b_type = FLY_DTYPE_E4M3FNUZ;
  EXPECT_EQ(fly::dispatch::validate_gemm_args("f", &args, Target::sm90a, &p), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_TRUE(contains(fly_last_error(), "f: a_type e4m3fnuz is computed only on gfx942")) << fly_last_error();
  EXPECT_EQ(fly::dispatch::validate_gemm_args("f", &args, Target::gfx942, &p), FLY_STATUS_SUCCESS);
  EXPECT_EQ(fly::dispatch::validate_gemm_args("f", &args, Target::host, &p), FLY_STATUS_SUCCESS);
  args.a_type = args.b_type = FLY_DTYPE_E4M3FN;
  EXPECT_EQ(fly::dispatch::validate_gemm_args("f", &args, Target::gfx942, &p), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_TRUE(contains(fly_last_error(), "f: a_type e4m3fn is not computed on gfx942")) << fly_last_error();
  EXPECT_EQ(fly::dispatch::validate_gemm_args("f", &args, Target::sm90a, &p), FLY_STATUS_SUCCESS);
  EXPECT_EQ(fly::dispatch::validate_gemm_args("f", &args, Target::host, &p), FLY_STATUS_SUCCESS);
  // The problem handed to kernels: C null when beta == 0.
  float c = 1.0f;
  args.c = &c;
  EXPECT_EQ(fly::dispatch::validate_gemm_args("f", &args, Target::sm90a, &p), FLY_STATUS_SUCCESS);
  EXPECT_EQ(p.C, nullptr);
  EXPECT_EQ(p.m, 2);
  EXPECT_EQ(p.A, a.data());
  EXPECT_EQ(p.D, d.data());
}

// ---- handles -----------------------------------------------------------------------------------------

TEST(GemmHandle, CreateHostAndDestroy) {
  fly_handle_t h = nullptr;
  ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);
  ASSERT_NE(h, nullptr);
  unsigned backend = 0;
  EXPECT_EQ(fly_handle_backend(h, &backend), FLY_STATUS_SUCCESS);
  EXPECT_EQ(backend, unsigned{FLY_BACKEND_HOST});
  EXPECT_EQ(fly_destroy(h), FLY_STATUS_SUCCESS);
  EXPECT_EQ(fly_destroy(nullptr), FLY_STATUS_SUCCESS);
}

TEST(GemmHandle, NullOutputs) {
  EXPECT_EQ(fly_create(nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_create: out is null");
  EXPECT_EQ(fly_create_host(nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_create_host: out is null");
  EXPECT_EQ(fly_handle_backend(nullptr, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_handle_backend: handle is null");
  fly_handle_t h = nullptr;
  ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);
  EXPECT_EQ(fly_handle_backend(h, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(fly_last_error(), "fly_handle_backend: backend is null");
  fly_destroy(h);
}

TEST(GemmHandle, CreatePicksACompiledBackend) {
  ScopedEnv env("FLY_BACKEND", nullptr);
  fly_handle_t h = nullptr;
  ASSERT_EQ(fly_create(&h), FLY_STATUS_SUCCESS) << fly_last_error();
  unsigned backend = 0;
  EXPECT_EQ(fly_handle_backend(h, &backend), FLY_STATUS_SUCCESS);
  EXPECT_TRUE(backend == FLY_BACKEND_HOST || backend == FLY_BACKEND_CUDA || backend == FLY_BACKEND_HIP);
  EXPECT_NE(backend & fly_compiled_backends(), 0u);
  if (fly::platform::runtime_backend() == 0) {
    EXPECT_EQ(backend, unsigned{FLY_BACKEND_HOST});
  }
  fly_destroy(h);
}

TEST(GemmHandle, EnvForcesHost) {
  ScopedEnv env("FLY_BACKEND", "host");
  fly_handle_t h = nullptr;
  ASSERT_EQ(fly_create(&h), FLY_STATUS_SUCCESS) << fly_last_error();
  unsigned backend = 0;
  EXPECT_EQ(fly_handle_backend(h, &backend), FLY_STATUS_SUCCESS);
  EXPECT_EQ(backend, unsigned{FLY_BACKEND_HOST});
  fly_destroy(h);
}

TEST(GemmHandle, EnvUnknownValue) {
  ScopedEnv env("FLY_BACKEND", "tpu");
  fly_handle_t h = reinterpret_cast<fly_handle_t>(&h);  // must be reset to null
  EXPECT_EQ(fly_create(&h), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  EXPECT_STREQ(fly_last_error(), "fly_create: FLY_BACKEND=tpu is not one of host, cuda, hip, auto");
  ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);  // fly_create_host ignores the environment
  fly_destroy(h);
}

TEST(GemmHandle, EnvRequiresAMissingRuntime) {
  fly_handle_t h = nullptr;
  if (fly::platform::runtime_backend() != FLY_BACKEND_HIP) {
    ScopedEnv env("FLY_BACKEND", "hip");
    EXPECT_EQ(fly_create(&h), FLY_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(h, nullptr);
    EXPECT_TRUE(contains(fly_last_error(), "fly_create: FLY_BACKEND=hip but this libfly has no hip runtime support"))
        << fly_last_error();
  }
  if (fly::platform::runtime_backend() != FLY_BACKEND_CUDA) {
    ScopedEnv cuda("FLY_BACKEND", "cuda");
    EXPECT_EQ(fly_create(&h), FLY_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(contains(fly_last_error(), "FLY_BACKEND=cuda but this libfly has no cuda runtime support"))
        << fly_last_error();
  }
}

// A HIP build links the AMD runtime: FLY_BACKEND=hip asks it for a device; where there is none (CI,
// any machine without an AMD GPU) the status says so, and the automatic choice is the host backend.
TEST(GemmHandle, HipBuildWithoutAnAmdGpu) {
  if (fly::platform::runtime_backend() != FLY_BACKEND_HIP) GTEST_SKIP() << "SKIPPED: not a HIP build";
  EXPECT_NE(fly_compiled_backends() & FLY_BACKEND_HIP, 0u);
  fly::platform::DeviceInfo device;
  bool found = true;
  ASSERT_EQ(fly::platform::current_device(&device, &found), FLY_STATUS_SUCCESS) << fly_last_error();
  if (found) GTEST_SKIP() << "SKIPPED: an AMD GPU is present (" << device.name << ", " << device.arch << ")";
  fly_handle_t h = nullptr;
  {
    ScopedEnv env("FLY_BACKEND", "hip");
    EXPECT_EQ(fly_create(&h), FLY_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(h, nullptr);
    EXPECT_STREQ(fly_last_error(), "fly_create: FLY_BACKEND=hip but no hip device is present");
  }
  ScopedEnv env("FLY_BACKEND", nullptr);
  ASSERT_EQ(fly_create(&h), FLY_STATUS_SUCCESS) << fly_last_error();
  unsigned backend = 0;
  EXPECT_EQ(fly_handle_backend(h, &backend), FLY_STATUS_SUCCESS);
  EXPECT_EQ(backend, unsigned{FLY_BACKEND_HOST});
  fly_destroy(h);
}

// The gfx942 launchers refuse, before launching anything (no AMD GPU needed: the pointers are
// never read), what their 32-bit arithmetic cannot address: M, N or K past 2^31 - 4097, and a tile
// of A or B whose rows span 2 GiB or more (the buffer loads' byte range and offsets are 32-bit;
// a wider one read zeros for a band of D, with success).
TEST(GemmHip, LaunchersRefuseWhatTheirThirtyTwoBitBuffersCannotAddress) {
  int checked = 0;
  for (const GemmVariant& v : fly::dispatch::gemm_variants()) {
    if (v.target != Target::gfx942) continue;
    SCOPED_TRACE(v.name);
    const int64_t esize = fly::dispatch::dtype_bytes(v.ab_type);
    const int64_t two_gib = (int64_t{1} << 31) / esize;  // elements
    GemmProblem p = fly_test::fake_problem(2 * v.bm, 2 * v.bn, 4 * v.bk, v.ab_type, v.d_type);
    p.lda = two_gib + 4 * v.bk;  // a tile's second row starts 2 GiB in
    EXPECT_EQ(v.launch(p, nullptr), FLY_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fly_last_error()).find("tile of A"), std::string::npos) << fly_last_error();
    p = fly_test::fake_problem(2 * v.bm, 2 * v.bn, 4 * v.bk, v.ab_type, v.d_type);
    p.ldb = two_gib + 4 * v.bk;
    EXPECT_EQ(v.launch(p, nullptr), FLY_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fly_last_error()).find("tile of B"), std::string::npos) << fly_last_error();
    p = fly_test::fake_problem(16, 16, fly::dispatch::kGemmKernelMaxDim + 1 - (fly::dispatch::kGemmKernelMaxDim + 1) % 256,
                     v.ab_type, v.d_type);
    EXPECT_EQ(v.launch(p, nullptr), FLY_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fly_last_error()).find("at most 2^31 - 4097"), std::string::npos) << fly_last_error();
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "SKIPPED: no gfx942 GEMM variant is linked (the rocm preset links them)";
}

// ---- introspection and logging ---------------------------------------------------------------------

TEST(GemmVariants, ListingStartsWithTheHostReference) {
  int const count = fly_gemm_variant_count();
  ASSERT_EQ(count, 1 + static_cast<int>(fly::dispatch::gemm_variants().size()));
  EXPECT_STREQ(fly_gemm_variant_name(0), "host_reference");
  EXPECT_EQ(fly_gemm_variant_name(-1), nullptr);
  EXPECT_EQ(fly_gemm_variant_name(count), nullptr);
  std::set<std::string> names;
  for (int i = 0; i < count; ++i) {
    ASSERT_NE(fly_gemm_variant_name(i), nullptr) << i;
    names.insert(fly_gemm_variant_name(i));
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(count)) << "variant names must be unique";
}

TEST(GemmLog, EnvPrintsTheDecisionOnEveryCall) {
  Buffers buf;
  fly_handle_t h = nullptr;
  {
    ScopedEnv env("FLY_LOG_DISPATCH", "1");
    ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);
  }
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(fly_gemm(h, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS);
  EXPECT_EQ(fly_gemm(h, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS);
  std::string const log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(log,
            "fly_gemm m=2 n=3 k=4 f32 x f32 -> f32: host_reference: host backend\n"
            "fly_gemm m=2 n=3 k=4 f32 x f32 -> f32: host_reference: host backend\n");
  fly_destroy(h);
}

TEST(GemmLog, SilentByDefault) {
  Buffers buf;
  fly_handle_t h = nullptr;
  {
    ScopedEnv env("FLY_LOG_DISPATCH", "0");
    ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);
  }
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(fly_gemm(h, &buf.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  fly_destroy(h);
}

// ---- selection over a fake registry ------------------------------------------------------------------

std::atomic<int> g_launches{0};
GemmProblem g_last_problem{};
void* g_last_stream = nullptr;

fly_status_t fake_launch(const GemmProblem& p, void* stream) {
  g_last_problem = p;
  g_last_stream = stream;
  ++g_launches;
  return FLY_STATUS_SUCCESS;
}
fly_status_t counting_launch(const GemmProblem&, void*) {
  ++g_launches;
  return FLY_STATUS_SUCCESS;
}
fly_status_t failing_launch(const GemmProblem&, void*) { return FLY_STATUS_DEVICE_ERROR; }

constexpr fly_dtype_t fn8 = FLY_DTYPE_E4M3FN;
constexpr fly_dtype_t bf16 = FLY_DTYPE_BF16;

// name, target, ab, d, bm, bn, bk, align, launch
const GemmVariant k_fake[] = {
    {"v64x64x128", Target::sm90a, fn8, bf16, 64, 64, 128, 16, fake_launch},
    {"v128x128x128", Target::sm90a, fn8, bf16, 128, 128, 128, 16, fake_launch},
    {"v128x256x64", Target::sm90a, fn8, bf16, 128, 256, 64, 16, fake_launch},
    {"v64x256x128", Target::sm90a, fn8, bf16, 64, 256, 128, 16, fake_launch},
    {"v64x64x64_a1", Target::sm90a, fn8, bf16, 64, 64, 64, 1, fake_launch},
    {"gfx_128x128x64", Target::gfx942, FLY_DTYPE_E4M3FNUZ, bf16, 128, 128, 64, 16, fake_launch},
    {"v_f16_128x128x128", Target::sm90a, fn8, FLY_DTYPE_F16, 128, 128, 128, 16, fake_launch},
    {"v_nolaunch_256x256x256", Target::sm90a, fn8, bf16, 256, 256, 256, 16, nullptr},
};

using fly_test::fake_problem;

const char* pick(const GemmProblem& p, Target t = Target::sm90a, std::string* why = nullptr) {
  const GemmVariant* v = fly::dispatch::select_gemm_variant(k_fake, p, t, why);
  return v != nullptr ? v->name : "none";
}

TEST(GemmSelect, LeastPaddingThenLargestTile) {
  // M=100: every tile pads M to 128; N, K exact for all: the largest tile (bm*bn) wins.
  std::string why;
  EXPECT_STREQ(pick(fake_problem(100, 4096, 4096), Target::sm90a, &why), "v128x256x64");
  EXPECT_EQ(why, "least padding (M 100->128, N 4096->4096, K 4096->4096: 1.28x the work) among 5 eligible of 7 "
                 "sm90a variants, largest tile of 5 tied");
  // M=64: bm=64 pads nothing, bm=128 doubles M; among the 64-row tiles, the larger one.
  EXPECT_STREQ(pick(fake_problem(64, 4096, 4096)), "v64x256x128");
  // N=64: bn=64 is exact, bn=256 pads 4x.
  EXPECT_STREQ(pick(fake_problem(4096, 64, 4096)), "v64x64x128");
  // K=64: bk=64 exact.
  EXPECT_STREQ(pick(fake_problem(4096, 4096, 64)), "v128x256x64");
  // A tiny odd problem: the smallest tile wastes least.
  EXPECT_STREQ(pick(fake_problem(1, 1, 1)), "v64x64x64_a1");
  EXPECT_STREQ(pick(fake_problem(17, 31, 7)), "v64x64x64_a1");
}

TEST(GemmSelect, AlignmentExcludesVariants) {
  GemmProblem p = fake_problem(128, 256, 4100);  // lda = ldb = 4100: 4-element alignment
  EXPECT_EQ(fly::dispatch::gemm_alignment_elems(p), 4);
  EXPECT_STREQ(pick(p), "v64x64x64_a1");
  p.lda = p.ldb = 4096;
  EXPECT_EQ(fly::dispatch::gemm_alignment_elems(p), 4);  // K = 4100 still limits: vectors run along K
  p.k = 4096;
  EXPECT_EQ(fly::dispatch::gemm_alignment_elems(p), 256);
  EXPECT_STREQ(pick(p), "v128x256x64");
  p.A = reinterpret_cast<const void*>(uintptr_t{0x10008});  // 8-byte aligned fp8 pointer
  EXPECT_EQ(fly::dispatch::gemm_alignment_elems(p), 8);
  EXPECT_STREQ(pick(p), "v64x64x64_a1");
  p.a = p.b = FLY_DTYPE_F32;  // 8 bytes = 2 f32 elements
  EXPECT_EQ(fly::dispatch::gemm_alignment_elems(p), 2);
}

TEST(GemmSelect, FiltersTargetDtypesAndLaunch) {
  EXPECT_STREQ(pick(fake_problem(128, 128, 64, FLY_DTYPE_E4M3FNUZ), Target::gfx942), "gfx_128x128x64");
  EXPECT_STREQ(pick(fake_problem(128, 128, 128, fn8, FLY_DTYPE_F16)), "v_f16_128x128x128");
  // 256x256x256 fits v_nolaunch exactly, but it has no launch function.
  EXPECT_STREQ(pick(fake_problem(256, 256, 256)), "v128x256x64");
}

TEST(GemmSelect, NoneExplainsWhy) {
  std::string why;
  EXPECT_STREQ(pick(fake_problem(8, 8, 8, FLY_DTYPE_F32, FLY_DTYPE_F32), Target::sm90a, &why), "none");
  EXPECT_EQ(why, "none of the 7 sm90a variants computes f32 x f32 -> f32");
  EXPECT_STREQ(pick(fake_problem(8, 8, 8, FLY_DTYPE_E4M3FN), Target::gfx942, &why), "none");
  EXPECT_EQ(why, "none of the 1 gfx942 variants computes e4m3fn x e4m3fn -> bf16");
  EXPECT_EQ(fly::dispatch::select_gemm_variant({}, fake_problem(8, 8, 8), Target::sm90a, &why), nullptr);
  EXPECT_EQ(why, "no GEMM variant is compiled for sm90a");
  GemmProblem p = fake_problem(8, 8, 8, fn8, FLY_DTYPE_F16);
  p.lda = 9;  // only aligned variants compute -> f16
  EXPECT_STREQ(pick(p, Target::sm90a, &why), "none");
  EXPECT_EQ(why, "the 1 sm90a variants for e4m3fn x e4m3fn -> f16 need lda, ldb, A and B aligned to >= 16 elements; "
                 "this call's alignment is 1");
}

TEST(GemmSelect, IdenticalTilesKeepTheFirst) {
  const GemmVariant twins[] = {
      {"first", Target::sm90a, fn8, bf16, 64, 64, 64, 1, fake_launch},
      {"second", Target::sm90a, fn8, bf16, 64, 64, 64, 1, fake_launch},
  };
  EXPECT_STREQ(fly::dispatch::select_gemm_variant(twins, fake_problem(100, 100, 100), Target::sm90a, nullptr)->name,
               "first");
}

// M, N or K past the GPU kernels' 32-bit counts (2^31 - 4097 with a tile's reach past the end):
// no GPU variant is chosen, whatever the table or the heuristic would pick, so fly_gemm_explain
// says NOT_SUPPORTED as fly_gemm does; 2^31 - 4097 itself is chosen.
TEST(GemmSelect, SizesPastTheKernelsThirtyTwoBitCountsChooseNothing) {
  const int64_t largest = fly::dispatch::kGemmKernelMaxDim;
  EXPECT_EQ(largest, (int64_t{1} << 31) - 4097);
  std::string why;
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{largest + 1, 64, 64}, {64, largest + 1, 64},
                                {64, 64, largest + 1}, {int64_t{1} << 40, 64, 64}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    for (Target t : {Target::sm90a, Target::gfx942}) {
      EXPECT_STREQ(pick(fake_problem(m, n, k), t, &why), "none");
      EXPECT_NE(why.find("the GPU kernels take M, N and K of at most 2^31 - 4097"), std::string::npos) << why;
    }
  }
  EXPECT_STRNE(pick(fake_problem(largest, 64, 64), Target::sm90a, &why), "none") << why;
  EXPECT_STRNE(pick(fake_problem(64, 64, largest - largest % 64), Target::sm90a, &why), "none") << why;
}

TEST(GemmSelect, BuiltInRegistryMatchesTheListing) {
  // Host builds have no generated kernels: nothing to select; with kernels, only named entries.
  for (const GemmVariant& v : fly::dispatch::gemm_variants()) {
    ASSERT_NE(v.name, nullptr);
    EXPECT_GE(v.bm, 1);
    EXPECT_GE(v.align_elems, 1);
    EXPECT_EQ(v.align_elems & (v.align_elems - 1), 0) << v.name << ": align_elems must be a power of two";
    // the split the cost model counts is the one the name spells (`_k2`, `_k4`; none: 1)
    std::cmatch k;
    const bool spelled = std::regex_search(v.name, k, std::regex("_k([0-9]+)(_|$)"));
    EXPECT_EQ(v.split_k, spelled ? std::stoi(k[1].str()) : 1) << v.name;
  }
}

// ---- the GPU dispatch path, with a fake sm90a device and the fake registry ---------------------------

fly::platform::DeviceInfo fake_device(bool has_kernels = true) {
  fly::platform::DeviceInfo d;
  d.backend = FLY_BACKEND_CUDA;
  d.device = 0;
  d.name = "Fake H200";
  d.arch = has_kernels ? "sm_90" : "sm_80";
  d.target = Target::sm90a;
  d.has_kernels = has_kernels;
  return d;
}

fly_gemm_args fake_args(int64_t m, int64_t n, int64_t k, fly_dtype_t ab = fn8) {
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = m;
  args.n = n;
  args.k = k;
  args.a_type = args.b_type = ab;
  args.c_type = args.d_type = bf16;
  args.a = reinterpret_cast<const void*>(uintptr_t{1} << 32);
  args.b = reinterpret_cast<const void*>(uintptr_t{2} << 32);
  args.c = reinterpret_cast<const void*>(uintptr_t{3} << 32);
  args.d = reinterpret_cast<void*>(uintptr_t{4} << 32);
  args.lda = args.ldb = k;
  args.ldc = args.ldd = n;
  return args;
}

TEST(GemmDispatch, LaunchesTheSelectedVariantOnTheCallersStream) {
  fly_handle_t h = fly::dispatch::make_handle(fake_device(), k_fake);
  unsigned backend = 0;
  EXPECT_EQ(fly_handle_backend(h, &backend), FLY_STATUS_SUCCESS);
  EXPECT_EQ(backend, unsigned{FLY_BACKEND_CUDA});
  fly_gemm_args args = fake_args(64, 4096, 4096);
  float scale = 2.0f;
  args.scale_a = &scale;
  int stream_token = 0;
  int const before = g_launches.load();
  ASSERT_EQ(fly_gemm(h, &args, nullptr, 0, &stream_token), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(g_launches.load(), before + 1);
  EXPECT_EQ(g_last_stream, &stream_token);
  EXPECT_EQ(g_last_problem.m, 64);
  EXPECT_EQ(g_last_problem.ldd, 4096);
  EXPECT_EQ(g_last_problem.C, nullptr);  // beta == 0: C is not handed to the kernel
  EXPECT_EQ(g_last_problem.scale_a, &scale);
  EXPECT_EQ(g_last_problem.scale_b, nullptr);
  char line[FLY_GEMM_EXPLAIN_BYTES];
  EXPECT_EQ(fly_gemm_explain(h, &args, line, sizeof line), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(std::string(line).rfind("v64x256x128: least padding (M 64->64", 0), 0u) << line;
  args.beta = 1.0f;
  ASSERT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(g_last_problem.C, args.c);
  EXPECT_EQ(g_last_problem.beta, 1.0f);
  fly_destroy(h);
}

TEST(GemmDispatch, CachesOneDecisionPerShape) {
  fly_handle_t h = fly::dispatch::make_handle(fake_device(), k_fake);
  fly_gemm_args args = fake_args(100, 4096, 4096);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS);
  EXPECT_EQ(h->cached_decisions(), 1u);
  args.m = 101;
  ASSERT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS);
  EXPECT_EQ(h->cached_decisions(), 2u);
  args.lda = 4100;  // another alignment class, another decision
  ASSERT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS);
  EXPECT_EQ(h->cached_decisions(), 3u);
  char line[FLY_GEMM_EXPLAIN_BYTES];
  ASSERT_EQ(fly_gemm_explain(h, &args, line, sizeof line), FLY_STATUS_SUCCESS);
  EXPECT_EQ(std::string(line).rfind("v64x64x64_a1: ", 0), 0u) << line;
  fly_destroy(h);
}

TEST(GemmDispatch, ThreadsShareOneHandle) {
  fly_handle_t h = fly::dispatch::make_handle(fake_device(), k_fake);
  const GemmVariant counting[] = {{"count", Target::sm90a, fn8, bf16, 64, 64, 64, 1, counting_launch}};
  fly_handle_t hc = fly::dispatch::make_handle(fake_device(), counting);
  int const before = g_launches.load();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        fly_gemm_args args = fake_args(1 + (i + t) % 37, 64, 128);
        if (fly_gemm(hc, &args, nullptr, 0, nullptr) != FLY_STATUS_SUCCESS) ++failures;
        char line[FLY_GEMM_EXPLAIN_BYTES];
        if (fly_gemm_explain(h, &args, line, sizeof line) != FLY_STATUS_SUCCESS) ++failures;
        if (std::strncmp(line, "v64x64x128: ", 12) != 0) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(g_launches.load() - before, 800);
  EXPECT_EQ(hc->cached_decisions(), 37u);
  fly_destroy(h);
  fly_destroy(hc);
}

TEST(GemmDispatch, NoVariantIsNotSupported) {
  fly_handle_t h = fly::dispatch::make_handle(fake_device(), k_fake);
  fly_gemm_args args = fake_args(17, 31, 7, FLY_DTYPE_F32);
  EXPECT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(std::string(fly_last_error()),
            "fly_gemm: no sm90a GEMM kernel for m=17 n=31 k=7 f32 x f32 -> bf16 (lda=7 ldb=7): none of the 7 sm90a "
            "variants computes f32 x f32 -> bf16");
  char line[FLY_GEMM_EXPLAIN_BYTES];
  EXPECT_EQ(fly_gemm_explain(h, &args, line, sizeof line), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_STREQ(line, "none: none of the 7 sm90a variants computes f32 x f32 -> bf16");
  args.a_type = args.b_type = FLY_DTYPE_E4M3FNUZ;
  EXPECT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_TRUE(contains(fly_last_error(), "fly_gemm: a_type e4m3fnuz is computed only on gfx942")) << fly_last_error();
  fly_destroy(h);
}

TEST(GemmDispatch, DeviceWithoutKernels) {
  fly_handle_t h = fly::dispatch::make_handle(fake_device(false), k_fake);
  fly_gemm_args args = fake_args(128, 128, 128);
  EXPECT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_TRUE(contains(fly_last_error(), "device Fake H200 (sm_80) has no libfly GEMM kernels")) << fly_last_error();
  fly_destroy(h);
}

TEST(GemmDispatch, LaunchFailureIsReported) {
  const GemmVariant failing[] = {{"broken", Target::sm90a, fn8, bf16, 64, 64, 64, 1, failing_launch}};
  fly_handle_t h = fly::dispatch::make_handle(fake_device(), failing);
  fly_gemm_args args = fake_args(64, 64, 64);
  EXPECT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_DEVICE_ERROR);
  EXPECT_STREQ(fly_last_error(), "fly_gemm: broken failed to launch");
  fly_destroy(h);
}

TEST(GemmDispatch, LogNamesTheVariant) {
  fly_handle_t h = nullptr;
  {
    ScopedEnv env("FLY_LOG_DISPATCH", "1");
    h = fly::dispatch::make_handle(fake_device(), k_fake);
  }
  fly_gemm_args args = fake_args(64, 64, 4096);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(fly_gemm(h, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS);
  std::string const log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.rfind("fly_gemm m=64 n=64 k=4096 e4m3fn x e4m3fn -> bf16: v64x64x128: least padding", 0), 0u) << log;
  fly_destroy(h);
}

}  // namespace
