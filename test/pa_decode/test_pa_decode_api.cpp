// fly_pa_decode's C API: every bad argument gives its status and a message naming it (through
// fly_pa_decode, fly_pa_decode_workspace_size and fly_pa_decode_explain alike), struct_size, GPU-only
// alignment rules, introspection and fly_kv_layout_string.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "fly/fly.h"
#include "pa_decode_case.hpp"
#include "pa_decode/pa_decode_validate.hpp"

extern "C" size_t fly_test_c99_pa_decode_init(void);
extern "C" const char* fly_test_c99_kv_layout_string(int value);
extern "C" int fly_test_c99_pa_decode_default_status(fly_handle_t handle);

namespace {

using fly_test::PaDecodeCase;
using fly_test::PaDecodeConfig;

// Stores any int in an enum field, as a C caller may (a C++ cast to the enum would be unspecified).
template <class Enum>
void set_raw(Enum& field, int value) {
  static_assert(sizeof field == sizeof value);
  std::memcpy(&field, &value, sizeof value);
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

constexpr int64_t kBig = int64_t(1) << 62;
const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// A valid call (2 sequences, 2 new tokens, 4/2 heads, d 64, block 16, bf16, NHD) to break one field at a time.
class PaDecodeApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(fly_create_host(&handle_), FLY_STATUS_SUCCESS);
    PaDecodeConfig c;
    c.layout = FLY_KV_LAYOUT_NHD;
    c.q_len = 2;
    c.seq_lens = {20, 40};
    c.sinks = true;
    c.scales = true;
    k_ = fly_test::make_pa_decode_case(c);
    args_ = fly_test::pa_decode_args(k_, fly_test::host_buffers(k_));
  }
  void TearDown() override { fly_destroy(handle_); }

  // Each entry point gives `want` and a message with `name` (and its own name) for `args`.
  void expect(const fly_pa_decode_args* args, fly_status_t want, const std::string& name) {
    std::vector<uint16_t> const before = k_.out;
    EXPECT_EQ(fly_pa_decode(handle_, args, nullptr, 0, nullptr), want) << name;
    std::string const msg = fly_last_error();
    EXPECT_TRUE(contains(msg, "fly_pa_decode: ") && contains(msg, name)) << "message: " << msg << "\nwanted: " << name;
    EXPECT_EQ(k_.out, before) << "a rejected call wrote out";
    size_t bytes = 7;
    EXPECT_EQ(fly_pa_decode_workspace_size(handle_, args, &bytes), want) << name;
    EXPECT_TRUE(contains(fly_last_error(), "fly_pa_decode_workspace_size: ") && contains(fly_last_error(), name)) << fly_last_error();
    char buf[FLY_PA_DECODE_EXPLAIN_BYTES] = "x";
    EXPECT_EQ(fly_pa_decode_explain(handle_, args, buf, sizeof buf), want) << name;
    EXPECT_TRUE(contains(fly_last_error(), "fly_pa_decode_explain: ") && contains(fly_last_error(), name)) << fly_last_error();
    EXPECT_STREQ(buf, "");
  }

  // args_ with one change.
  void expect_with(const std::function<void(fly_pa_decode_args&)>& change, fly_status_t want, const std::string& name) {
    fly_pa_decode_args a = args_;
    change(a);
    SCOPED_TRACE(name);
    expect(&a, want, name);
  }

  fly_handle_t handle_ = nullptr;
  PaDecodeCase k_;
  fly_pa_decode_args args_{};
};

TEST_F(PaDecodeApi, ValidCallSucceeds) {
  EXPECT_EQ(fly_pa_decode(handle_, &args_, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_STREQ(fly_last_error(), "");
  EXPECT_EQ(fly_test::check_pa_decode(k_), "");
}

TEST_F(PaDecodeApi, NullHandleAndArgs) {
  size_t bytes = 0;
  char buf[64];
  EXPECT_EQ(fly_pa_decode(nullptr, &args_, nullptr, 0, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "handle is null")) << fly_last_error();
  EXPECT_EQ(fly_pa_decode_workspace_size(nullptr, &args_, &bytes), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "handle is null")) << fly_last_error();
  EXPECT_EQ(fly_pa_decode_explain(nullptr, &args_, buf, sizeof buf), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "handle is null")) << fly_last_error();
  expect(nullptr, FLY_STATUS_INVALID_ARGUMENT, "args is null");
}

TEST_F(PaDecodeApi, StructSize) {
  expect_with([](auto& a) { a.struct_size = sizeof(fly_pa_decode_args) - 8; }, FLY_STATUS_INVALID_ARGUMENT, "struct_size");
  expect_with([](auto& a) { a.struct_size = 0; }, FLY_STATUS_INVALID_ARGUMENT, "struct_size");
  expect_with([](auto& a) { a.struct_size = 5000; }, FLY_STATUS_INVALID_ARGUMENT, "struct_size");
  // a newer caller's struct: accepted when the fields this library does not know are zero
  struct Newer {
    fly_pa_decode_args args;
    unsigned char more[24];
  } newer;
  std::memset(&newer, 0, sizeof newer);
  newer.args = args_;
  newer.args.struct_size = sizeof newer;
  EXPECT_EQ(fly_pa_decode(handle_, &newer.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  newer.more[13] = 1;
  expect(&newer.args, FLY_STATUS_NOT_SUPPORTED, "struct_size");
}

TEST_F(PaDecodeApi, Sizes) {
  auto const I = FLY_STATUS_INVALID_ARGUMENT;
  expect_with([](auto& a) { a.num_seqs = 0; }, I, "num_seqs (0) must be >= 1");
  expect_with([](auto& a) { a.num_seqs = -3; }, I, "num_seqs (-3)");
  expect_with([](auto& a) { a.q_len = 0; }, I, "q_len (0)");
  expect_with([](auto& a) { a.num_q_heads = 0; }, I, "num_q_heads (0)");
  expect_with([](auto& a) { a.num_kv_heads = -1; }, I, "num_kv_heads (-1)");
  expect_with([](auto& a) { a.num_q_heads = 3; }, I, "num_q_heads (3) must be a multiple of num_kv_heads (2)");
  expect_with([](auto& a) { a.head_dim = 0; }, I, "head_dim (0)");
  expect_with([](auto& a) { a.num_blocks = 0; }, I, "num_blocks (0)");
  expect_with([](auto& a) { a.block_size = -16; }, I, "block_size (-16)");
  expect_with([](auto& a) { a.max_blocks_per_seq = 0; }, I, "max_blocks_per_seq (0)");
  expect_with([](auto& a) { a.block_table_stride = a.max_blocks_per_seq - 1; }, I, "block_table_stride");
  expect_with([](auto& a) { a.max_seq_len = 0; }, I, "max_seq_len (0)");
  expect_with([](auto& a) { a.sliding_window = -1; }, I, "sliding_window (-1)");
}

TEST_F(PaDecodeApi, EnumsAndScalars) {
  auto const I = FLY_STATUS_INVALID_ARGUMENT;
  expect_with([](auto& a) { set_raw(a.q_type, 99); }, I, "q_type (99) is not a fly_dtype_t");
  expect_with([](auto& a) { set_raw(a.kv_type, -3); }, I, "kv_type (-3) is not a fly_dtype_t");
  expect_with([](auto& a) { set_raw(a.kv_layout, 3); }, I, "kv_layout (3) is not a fly_kv_layout_t");
  expect_with([](auto& a) { set_raw(a.kv_layout, -1); }, I, "kv_layout (-1)");
  expect_with([](auto& a) { a.scale = kNan; }, I, "scale (nan) must be finite");
  expect_with([](auto& a) { a.scale = -kInf; }, I, "scale (-inf) must be finite");
  expect_with([](auto& a) { a.logit_softcap = -1.0f; }, I, "logit_softcap");
  expect_with([](auto& a) { a.logit_softcap = kNan; }, I, "logit_softcap");
  expect_with([](auto& a) { a.logit_softcap = kInf; }, I, "logit_softcap");
}

TEST_F(PaDecodeApi, NullPointers) {
  auto const I = FLY_STATUS_INVALID_ARGUMENT;
  expect_with([](auto& a) { a.q = nullptr; }, I, "q is null");
  expect_with([](auto& a) { a.out = nullptr; }, I, "out is null");
  expect_with([](auto& a) { a.k_cache = nullptr; }, I, "k_cache is null");
  expect_with([](auto& a) { a.v_cache = nullptr; }, I, "v_cache is null");
  expect_with([](auto& a) { a.block_tables = nullptr; }, I, "block_tables is null");
  expect_with([](auto& a) { a.seq_lens = nullptr; }, I, "seq_lens is null");
  // the optional ones may be null
  fly_pa_decode_args a = args_;
  a.lse = nullptr;
  a.sinks = nullptr;
  a.k_scale = a.v_scale = nullptr;
  EXPECT_EQ(fly_pa_decode(handle_, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
}

TEST_F(PaDecodeApi, Strides) {
  auto const I = FLY_STATUS_INVALID_ARGUMENT;
  expect_with([](auto& a) { a.q_stride_seq = -1; }, I, "q_stride_seq (-1)");
  expect_with([](auto& a) { a.q_stride_token = -1; }, I, "q_stride_token (-1)");
  expect_with([](auto& a) { a.q_stride_head = -64; }, I, "q_stride_head (-64)");
  expect_with([](auto& a) { a.out_stride_seq = -1; }, I, "out_stride_seq (-1)");
  expect_with([](auto& a) { a.out_stride_token = -1; }, I, "out_stride_token (-1)");
  expect_with([](auto& a) { a.out_stride_head = -1; }, I, "out_stride_head (-1)");
  expect_with([](auto& a) { a.k_block_stride -= 1; }, I, "k_block_stride");
  expect_with([](auto& a) { a.v_block_stride = 0; }, I, "v_block_stride (0)");
  // out's rows must be distinct: a zero head stride writes one row twice
  expect_with([](auto& a) { a.out_stride_head = 0; }, I, "out's strides");
  expect_with([](auto& a) { a.out_stride_token = 32; }, I, "out's strides");
}

// Rows interleaved without overlapping (strides not nested) are accepted.
TEST_F(PaDecodeApi, NonNestedOutStridesWithoutOverlap) {
  PaDecodeConfig c;
  c.num_seqs = 2;  // rows at seq * 3d + token * 2d: {0, 2, 4, 3, 5, 7} x d
  c.q_len = 3;
  c.num_q_heads = c.num_kv_heads = 1;
  PaDecodeCase k = fly_test::make_pa_decode_case(c);
  int64_t const d = c.head_dim;
  k.out_stride[0] = 3 * d;
  k.out_stride[1] = 2 * d;
  k.out.assign(static_cast<size_t>(8 * d + fly_test::kGuard), fly_test::kPoison16);
  k.out_window.assign(k.out.size(), 0);
  for (int64_t s = 0; s < 2; ++s)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t e = 0; e < d; ++e) k.out_window[s * k.out_stride[0] + i * k.out_stride[1] + e] = 1;
  fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  ASSERT_EQ(fly_pa_decode(handle_, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(fly_test::check_pa_decode(k), "");
  a.out_stride_seq = 2 * d;  // rows {0, 2, 4, 2, 4, 6}: rows 2 and 4 twice
  expect(&a, FLY_STATUS_INVALID_ARGUMENT, "out's strides");
}

// Spans past 2^63 bytes, with int64 edge values.
TEST_F(PaDecodeApi, SpanOverflow) {
  auto const I = FLY_STATUS_INVALID_ARGUMENT;
  expect_with([](auto& a) { a.num_blocks = kBig; }, I, "k_cache (num_blocks");
  expect_with([](auto& a) { a.num_blocks = std::numeric_limits<int64_t>::max(); }, I, "spans more than 2^63 bytes");
  expect_with([](auto& a) { a.v_block_stride = kBig; }, I, "v_cache");
  expect_with([](auto& a) { a.q_stride_seq = std::numeric_limits<int64_t>::max(); }, I, "q (num_seqs");
  expect_with([](auto& a) { a.out_stride_token = kBig; }, I, "out (num_seqs");
  expect_with([](auto& a) { a.block_table_stride = kBig; }, I, "block_tables");
  expect_with(
      [](auto& a) {
        a.num_kv_heads = kBig;
        a.num_q_heads = kBig;
      },
      I, "one cache block");
  expect_with(
      [](auto& a) {
        a.num_seqs = kBig;
        a.q_stride_seq = a.out_stride_seq = 0;
      },
      I, "spans more than 2^63 bytes");
}

TEST_F(PaDecodeApi, MisalignedPointers) {
  auto const I = FLY_STATUS_INVALID_ARGUMENT;
  auto shift = [](const void* p, int bytes) { return static_cast<const char*>(p) + bytes; };
  expect_with([&](auto& a) { a.q = shift(a.q, 1); }, I, "q (");
  expect_with([&](auto& a) { a.out = const_cast<char*>(shift(a.out, 1)); }, I, "out (");
  expect_with([&](auto& a) { a.k_cache = shift(a.k_cache, 1); }, I, "k_cache (");
  expect_with([&](auto& a) { a.v_cache = shift(a.v_cache, 1); }, I, "v_cache (");
  expect_with([&](auto& a) { a.lse = reinterpret_cast<float*>(const_cast<char*>(shift(a.lse, 2))); }, I, "lse (");
  expect_with([&](auto& a) { a.k_scale = reinterpret_cast<const float*>(shift(a.k_scale, 1)); }, I, "k_scale (");
  expect_with([&](auto& a) { a.v_scale = reinterpret_cast<const float*>(shift(a.v_scale, 3)); }, I, "v_scale (");
  expect_with([&](auto& a) { a.sinks = reinterpret_cast<const float*>(shift(a.sinks, 2)); }, I, "sinks (");
  expect_with([&](auto& a) { a.block_tables = reinterpret_cast<const int32_t*>(shift(a.block_tables, 2)); }, I, "block_tables (");
  expect_with([&](auto& a) { a.seq_lens = reinterpret_cast<const int32_t*>(shift(a.seq_lens, 1)); }, I, "seq_lens (");
}

TEST_F(PaDecodeApi, OutputsMustNotOverlapInputs) {
  auto const I = FLY_STATUS_INVALID_ARGUMENT;
  expect_with([](auto& a) { a.out = const_cast<void*>(a.q); }, I, "out overlaps q");
  expect_with([](auto& a) { a.out = const_cast<void*>(a.k_cache); }, I, "out overlaps k_cache");
  expect_with([](auto& a) { a.out = const_cast<void*>(a.v_cache); }, I, "out overlaps v_cache");
  expect_with([](auto& a) { a.out = const_cast<int32_t*>(a.block_tables); }, I, "out overlaps block_tables");
  expect_with([](auto& a) { a.lse = static_cast<float*>(a.out) + 4; }, I, "out overlaps lse");
  // sinks and lse in one buffer of the test's own: lse's span (16 floats) is longer than the
  // sinks' (4), so pointing lse at the case's sinks would reach whatever the heap put next to them
  std::vector<float> shared(64, 0.f);
  expect_with(
      [&](auto& a) {
        a.sinks = shared.data();
        a.lse = shared.data();
      },
      I, "lse overlaps sinks");
  expect_with([](auto& a) { a.lse = static_cast<float*>(const_cast<void*>(a.k_cache)); }, I, "lse overlaps k_cache");
}

// fly_pa_decode refuses a workspace that overlaps any argument (INVALID_ARGUMENT; the host backend
// needs no workspace, so this is the check itself): every buffer, its first and last byte, and
// the bytes just outside it.
TEST_F(PaDecodeApi, TheWorkspaceMustNotOverlapAnArgument) {
  const fly::dispatch::PaDecodeBuffers buffers = fly::dispatch::pa_decode_buffers(args_);
  int checked = 0;
  for (const auto& b : buffers.all) {
    SCOPED_TRACE(b.name);
    ASSERT_GT(b.bytes, 0) << "the test's call has every buffer";
    auto const* base = static_cast<const char*>(b.base);
    const char* hit = fly::dispatch::pa_decode_buffer_overlapping(args_, base, 1);
    ASSERT_NE(hit, nullptr);
    EXPECT_STREQ(hit, b.name);
    hit = fly::dispatch::pa_decode_buffer_overlapping(args_, base + b.bytes - 1, 1);
    ASSERT_NE(hit, nullptr);
    EXPECT_STREQ(hit, b.name);
    EXPECT_NE(fly::dispatch::pa_decode_buffer_overlapping(args_, base - 8, 9), nullptr) << "a range ending in it";
    ++checked;
  }
  EXPECT_EQ(checked, int(fly::dispatch::PaDecodeBuffers::count));
  std::vector<char> elsewhere(256);
  EXPECT_EQ(fly::dispatch::pa_decode_buffer_overlapping(args_, elsewhere.data(), int64_t(elsewhere.size())), nullptr);
  EXPECT_EQ(fly::dispatch::pa_decode_buffer_overlapping(args_, args_.q, 0), nullptr) << "no bytes, no overlap";
}

TEST_F(PaDecodeApi, UnsupportedRequests) {
  auto const N = FLY_STATUS_NOT_SUPPORTED;
  expect_with(
      [](auto& a) {
        a.q_type = FLY_DTYPE_F32;
        a.num_seqs = 1;  // q's fp32 span stays inside its buffer
      },
      N, "q_type f32");
  expect_with([](auto& a) { a.q_type = FLY_DTYPE_E4M3FN; }, N, "q_type e4m3fn");
  expect_with([](auto& a) { a.kv_type = FLY_DTYPE_F16; }, N, "kv_type f16 is not supported with q_type bf16");
  expect_with([](auto& a) { a.head_dim = 32; }, N, "head_dim (32)");
  expect_with([](auto& a) { a.block_size = 8; }, N, "block_size (8)");
  // invalid arguments are reported before unsupported ones
  expect_with(
      [](auto& a) {
        a.head_dim = 32;
        a.seq_lens = nullptr;
      },
      FLY_STATUS_INVALID_ARGUMENT, "seq_lens is null");
  // q_len 5 (speculative decoding beyond 4 tokens) on a case sized for it
  PaDecodeConfig c;
  c.q_len = 5;
  PaDecodeCase k = fly_test::make_pa_decode_case(c);
  fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  expect(&a, N, "q_len (5)");
}

// fp8 caches with either q type; 16-bit caches only with the same q type.
TEST_F(PaDecodeApi, DtypeCombinations) {
  for (fly_dtype_t q : {FLY_DTYPE_BF16, FLY_DTYPE_F16})
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_F16, FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ}) {
      PaDecodeConfig c;
      c.q_type = q;
      c.kv_type = kv;
      PaDecodeCase k = fly_test::make_pa_decode_case(c);
      fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
      bool const ok = kv == q || kv == FLY_DTYPE_E4M3FN || kv == FLY_DTYPE_E4M3FNUZ;
      EXPECT_EQ(fly_pa_decode(handle_, &a, nullptr, 0, nullptr), ok ? FLY_STATUS_SUCCESS : FLY_STATUS_NOT_SUPPORTED)
          << fly_dtype_string(q) << " " << fly_dtype_string(kv) << ": " << fly_last_error();
    }
}

// GPU targets load 16-byte vectors: bases and used strides must be 16-byte multiples (the host does not care).
TEST_F(PaDecodeApi, GpuAlignmentRules) {
  using fly::dispatch::Target;
  auto check = [&](const std::function<void(fly_pa_decode_args&)>& change, const std::string& name) {
    fly_pa_decode_args a = args_;
    change(a);
    fly::dispatch::PaDecodeProblem p{};
    EXPECT_EQ(fly::dispatch::validate_pa_decode_args("fly_pa_decode", &a, Target::host, &p), FLY_STATUS_SUCCESS)
        << name << ": " << fly_last_error();
    EXPECT_EQ(fly::dispatch::validate_pa_decode_args("fly_pa_decode", &a, Target::sm90a, &p), FLY_STATUS_NOT_SUPPORTED) << name;
    EXPECT_TRUE(contains(fly_last_error(), name)) << fly_last_error();
  };
  auto shift = [](const void* p, int bytes) { return static_cast<const char*>(p) + bytes; };
  check([&](auto& a) { a.q = shift(a.q, 2); }, "q (");
  check([&](auto& a) { a.out = const_cast<char*>(shift(a.out, 8)); }, "out (");
  check([&](auto& a) { a.k_cache = shift(a.k_cache, 2); }, "k_cache (");
  check([&](auto& a) { a.v_cache = shift(a.v_cache, 4); }, "v_cache (");
  check([](auto& a) { a.q_stride_head += 1; }, "q_stride_head");
  check([](auto& a) { a.q_stride_token += 2; }, "q_stride_token");
  check([](auto& a) { a.q_stride_seq += 4; }, "q_stride_seq");
  check([](auto& a) { a.out_stride_seq += 1; }, "out_stride_seq");
  // two blocks: the cache span stays inside its buffer
  check([](auto& a) { a.num_blocks = 2, a.k_block_stride += 1; }, "k_block_stride");
  check([](auto& a) { a.num_blocks = 2, a.v_block_stride += 3; }, "v_block_stride");
  // a stride along an extent of 1 is never used
  fly_pa_decode_args a = args_;
  a.num_seqs = 1;
  a.q_stride_seq = a.out_stride_seq = 1;
  fly::dispatch::PaDecodeProblem p{};
  EXPECT_EQ(fly::dispatch::validate_pa_decode_args("fly_pa_decode", &a, Target::sm90a, &p), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(p.num_seqs, 1);
  EXPECT_EQ(p.q, a.q);
  EXPECT_EQ(p.sinks, a.sinks);
  EXPECT_EQ(p.max_seq_len, a.max_seq_len);
}

TEST_F(PaDecodeApi, StreamAndWorkspace) {
  int stream = 0;
  EXPECT_EQ(fly_pa_decode(handle_, &args_, nullptr, 0, &stream), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "stream")) << fly_last_error();
  EXPECT_EQ(fly_pa_decode(handle_, &args_, nullptr, 16, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "workspace")) << fly_last_error();
  alignas(16) char ws[64];
  EXPECT_EQ(fly_pa_decode(handle_, &args_, ws + 4, sizeof ws - 4, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "workspace is not aligned to 16 bytes")) << fly_last_error();
  EXPECT_EQ(fly_pa_decode(handle_, &args_, ws, sizeof ws, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  size_t bytes = 99;
  EXPECT_EQ(fly_pa_decode_workspace_size(handle_, &args_, &bytes), FLY_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(fly_pa_decode_workspace_size(handle_, &args_, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "bytes is null")) << fly_last_error();
}

TEST_F(PaDecodeApi, Explain) {
  char buf[FLY_PA_DECODE_EXPLAIN_BYTES];
  EXPECT_EQ(fly_pa_decode_explain(handle_, &args_, buf, sizeof buf), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_STREQ(buf, "host_reference: host backend");
  char small[8];
  EXPECT_EQ(fly_pa_decode_explain(handle_, &args_, small, sizeof small), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(small, "host_re");
  EXPECT_EQ(fly_pa_decode_explain(handle_, &args_, nullptr, 16), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "buffer is null")) << fly_last_error();
  EXPECT_EQ(fly_pa_decode_explain(handle_, &args_, buf, 0), FLY_STATUS_INVALID_ARGUMENT);
}

TEST(PaDecodeIntrospection, Variants) {
  int const n = fly_pa_decode_variant_count();
  ASSERT_GE(n, 1);
  EXPECT_STREQ(fly_pa_decode_variant_name(0), "host_reference");
  EXPECT_EQ(fly_pa_decode_variant_name(-1), nullptr);
  EXPECT_EQ(fly_pa_decode_variant_name(n), nullptr);
  for (int i = 1; i < n; ++i) EXPECT_NE(fly_pa_decode_variant_name(i), nullptr) << i;
}

TEST(PaDecodeIntrospection, KvLayoutString) {
  EXPECT_STREQ(fly_kv_layout_string(FLY_KV_LAYOUT_VLLM), "vllm");
  EXPECT_STREQ(fly_kv_layout_string(FLY_KV_LAYOUT_NHD), "nhd");
  EXPECT_STREQ(fly_kv_layout_string(FLY_KV_LAYOUT_HND), "hnd");
  for (int v : {3, -1, 1000, std::numeric_limits<int>::min()}) EXPECT_STREQ(fly_test_c99_kv_layout_string(v), "unknown") << v;
  EXPECT_STREQ(fly_test_c99_kv_layout_string(2), "hnd");
}

TEST(PaDecodeC99, ArgsInitAndCall) {
  EXPECT_EQ(fly_test_c99_pa_decode_init(), sizeof(fly_pa_decode_args));
  fly_handle_t h = nullptr;
  ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);
  EXPECT_EQ(fly_test_c99_pa_decode_default_status(h), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(fly_last_error(), "num_seqs (0)")) << fly_last_error();
  fly_destroy(h);
}

}  // namespace
