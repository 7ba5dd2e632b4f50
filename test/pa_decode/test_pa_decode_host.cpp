// The host backend's fly_pa_decode against the independent double reference of pa_decode_case.hpp:
// every layout x cache dtype (both q types for fp8) x head_dim x block_size, sequence lengths at the
// block edges and long ones, GQA groups, q_len 1..4 with causal masking, sliding windows, softcap,
// sinks, lse, out-of-range block ids, clamped seq_lens, strided q / out, interleaved K/V. Outputs
// start as NaN; every result element is checked and every other element must stay NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fly/fly.h"
#include "pa_decode_case.hpp"
#include "pa_decode/pa_decode_problem.hpp"

namespace {

using fly_test::PaDecodeCase;
using fly_test::PaDecodeConfig;
using fly_test::StrideMode;

constexpr fly_kv_layout_t kLayouts[] = {FLY_KV_LAYOUT_VLLM, FLY_KV_LAYOUT_NHD, FLY_KV_LAYOUT_HND};
struct Types {
  fly_dtype_t q, kv;
};
constexpr Types kTypes[] = {{FLY_DTYPE_BF16, FLY_DTYPE_BF16},   {FLY_DTYPE_F16, FLY_DTYPE_F16},
                            {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN}, {FLY_DTYPE_F16, FLY_DTYPE_E4M3FN},
                            {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FNUZ}, {FLY_DTYPE_F16, FLY_DTYPE_E4M3FNUZ}};
constexpr int64_t kDims[] = {64, 128, 256};
constexpr int64_t kBlocks[] = {16, 32, 64};

class PaDecodeHost : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(fly_create_host(&handle_), FLY_STATUS_SUCCESS); }
  void TearDown() override { fly_destroy(handle_); }

  // Builds the case, runs it through the C API, and returns "" or what went wrong.
  std::string run(const PaDecodeConfig& config) {
    PaDecodeCase k = fly_test::make_pa_decode_case(config);
    fly_pa_decode_args const args = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
    fly_status_t const st = fly_pa_decode(handle_, &args, nullptr, 0, nullptr);
    std::string err = st == FLY_STATUS_SUCCESS ? fly_test::check_pa_decode(k)
                                               : std::string(fly_status_string(st)) + ": " + fly_last_error();
    return err.empty() ? err : fly_test::describe(k.c) + "\n" + err;
  }

  fly_handle_t handle_ = nullptr;
};

#define EXPECT_CASE(config) EXPECT_EQ(run(config), "")

// Random values for every axis the sweep does not fix.
PaDecodeConfig random_config(std::mt19937_64& rng, uint64_t seed) {
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  PaDecodeConfig c;
  c.seed = seed;
  c.num_seqs = uni(1, 2);
  c.q_len = uni(1, 4);
  c.num_kv_heads = uni(1, 2);
  int64_t const groups[] = {1, 2, 4, 5};
  c.num_q_heads = c.num_kv_heads * groups[uni(0, 3)];
  c.interleave_kv = uni(0, 2) == 0;
  c.block_padding = uni(0, 1);
  c.q_strides = static_cast<StrideMode>(uni(0, 2));
  c.out_strides = static_cast<StrideMode>(uni(0, 2));
  c.lse = uni(0, 1) == 1;
  c.sinks = uni(0, 2) == 0;
  c.scales = uni(0, 1) == 1;
  c.logit_softcap = uni(0, 2) == 0 ? static_cast<float>(uni(2, 30)) : 0.0f;
  c.sliding_window = uni(0, 2) == 0 ? uni(1, 80) : 0;
  c.bad_block_ids = uni(0, 3) == 0 ? 1 : 0;
  return c;
}

// Every dtype pair x head_dim x block_size (54 cases) for one layout, other axes random.
class PaDecodeSweep : public PaDecodeHost {
 protected:
  void sweep(fly_kv_layout_t layout) {
    std::mt19937_64 rng(static_cast<uint64_t>(layout) + 11);
    uint64_t seed = 100 * static_cast<uint64_t>(layout);
    for (Types const& types : kTypes)
      for (int64_t d : kDims)
        for (int64_t b : kBlocks) {
          PaDecodeConfig c = random_config(rng, ++seed);
          c.layout = layout;
          c.q_type = types.q;
          c.kv_type = types.kv;
          c.head_dim = d;
          c.block_size = b;
          for (int64_t s = 0; s < c.num_seqs; ++s) c.seq_lens.push_back(static_cast<int32_t>(rng() % (2 * b + 5)));
          EXPECT_CASE(c);
        }
  }
};

TEST_F(PaDecodeSweep, VllmLayoutEveryDtypeHeadDimBlockSize) { sweep(FLY_KV_LAYOUT_VLLM); }
TEST_F(PaDecodeSweep, NhdLayoutEveryDtypeHeadDimBlockSize) { sweep(FLY_KV_LAYOUT_NHD); }
TEST_F(PaDecodeSweep, HndLayoutEveryDtypeHeadDimBlockSize) { sweep(FLY_KV_LAYOUT_HND); }

// Lengths 0, 1, block edges and a long one, for every q_len (L < q_len leaves early queries empty).
TEST_F(PaDecodeHost, SequenceLengthEdgesAndQLen) {
  int n = 0;
  for (fly_kv_layout_t layout : kLayouts)
    for (int64_t q_len = 1; q_len <= 4; ++q_len) {
      PaDecodeConfig c;
      c.seed = static_cast<uint64_t>(++n);
      c.layout = layout;
      c.q_len = q_len;
      c.kv_type = n % 2 == 0 ? FLY_DTYPE_BF16 : FLY_DTYPE_E4M3FN;
      c.head_dim = kDims[n % 3];
      c.block_size = kBlocks[(n / 3) % 3];
      int32_t const b = static_cast<int32_t>(c.block_size);
      c.seq_lens = {0, 1, b - 1, b, b + 1, n % 3 == 0 ? 1500 : 3, 2};
      c.num_seqs = static_cast<int64_t>(c.seq_lens.size());
      c.num_q_heads = 2;
      c.num_kv_heads = 1;
      EXPECT_CASE(c);
    }
}

TEST_F(PaDecodeHost, GqaGroups) {
  int n = 0;
  for (int64_t group : {1, 5, 8, 16, 32}) {
    PaDecodeConfig c;
    c.seed = static_cast<uint64_t>(++n);
    c.layout = kLayouts[n % 3];
    c.kv_type = kTypes[n].kv;
    c.q_type = kTypes[n].q;
    c.num_kv_heads = 2;
    c.num_q_heads = 2 * group;
    c.q_len = n % 4 + 1;
    c.head_dim = 128;
    c.seq_lens = {150, 37};
    c.num_seqs = 2;
    EXPECT_CASE(c);
  }
}

TEST_F(PaDecodeHost, SlidingWindowWithQLen) {
  int n = 0;
  for (int64_t q_len = 1; q_len <= 4; ++q_len)
    for (int64_t window : {int64_t(1), int64_t(3), int64_t(17), int64_t(200), int64_t(1) << 40}) {
      PaDecodeConfig c;
      c.seed = static_cast<uint64_t>(++n);
      c.layout = kLayouts[n % 3];
      c.q_len = q_len;
      c.sliding_window = window;
      c.sinks = n % 2 == 0;
      c.seq_lens = {0, 2, 40, 130};
      c.num_seqs = 4;
      EXPECT_CASE(c);
    }
}

// softcap x sinks x lse, on a 16-bit and an fp8 cache.
TEST_F(PaDecodeHost, SoftcapSinksLse) {
  int n = 0;
  for (fly_dtype_t kv : {FLY_DTYPE_F16, FLY_DTYPE_E4M3FNUZ})
    for (float cap : {0.0f, 5.0f})
      for (bool sinks : {false, true})
        for (bool lse : {false, true}) {
          PaDecodeConfig c;
          c.seed = static_cast<uint64_t>(++n);
          c.layout = kLayouts[n % 3];
          c.q_type = FLY_DTYPE_F16;
          c.kv_type = kv;
          c.scale = 0.5f;  // large logits: the cap matters
          c.logit_softcap = cap;
          c.sinks = sinks;
          c.lse = lse;
          c.q_len = 2;
          c.seq_lens = {77, 1};
          EXPECT_CASE(c);
        }
}

// Out-of-range ids (negative, num_blocks, INT32_MIN/MAX) read K and V as zeros; the token counts.
TEST_F(PaDecodeHost, OutOfRangeBlockIdsReadZeros) {
  int n = 0;
  for (fly_kv_layout_t layout : kLayouts)
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN}) {
      PaDecodeConfig c;
      c.seed = static_cast<uint64_t>(++n);
      c.layout = layout;
      c.kv_type = kv;
      c.bad_block_ids = 5;
      c.seq_lens = {20, 50, 3};
      c.num_seqs = 3;
      c.sinks = n % 2 == 0;
      EXPECT_CASE(c);
    }
}

// seq_lens past max_seq_len, past max_blocks_per_seq * block_size, or negative are clamped.
TEST_F(PaDecodeHost, SeqLensClamped) {
  PaDecodeConfig c;
  c.max_seq_len = 100;
  c.seq_lens = {300, -5, 100, 99, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()};
  c.num_seqs = 6;
  c.q_len = 3;
  EXPECT_CASE(c);
  c.seed = 2;
  c.layout = FLY_KV_LAYOUT_HND;
  c.max_seq_len = 1000;
  c.max_blocks_per_seq = 4;  // 64 tokens
  c.seq_lens = {1000, 70, 64, 10};
  c.num_seqs = 4;
  EXPECT_CASE(c);
}

// q and out with padded rows or heads outside tokens; the padding stays NaN.
TEST_F(PaDecodeHost, StridedQAndOut) {
  int n = 0;
  for (StrideMode qs : {StrideMode::contiguous, StrideMode::padded, StrideMode::head_major})
    for (StrideMode os : {StrideMode::contiguous, StrideMode::padded, StrideMode::head_major}) {
      PaDecodeConfig c;
      c.seed = static_cast<uint64_t>(++n);
      c.layout = kLayouts[n % 3];
      c.q_strides = qs;
      c.out_strides = os;
      c.q_len = 2;
      c.num_seqs = 3;
      c.num_q_heads = 6;
      c.num_kv_heads = 3;
      EXPECT_CASE(c);
    }
}

TEST_F(PaDecodeHost, InterleavedKvWithBlockPadding) {
  int n = 0;
  for (fly_kv_layout_t layout : kLayouts)
    for (fly_dtype_t kv : {FLY_DTYPE_F16, FLY_DTYPE_E4M3FN}) {
      PaDecodeConfig c;
      c.seed = static_cast<uint64_t>(++n);
      c.layout = layout;
      c.q_type = FLY_DTYPE_F16;
      c.kv_type = kv;
      c.interleave_kv = true;
      c.block_padding = 2;
      c.scales = true;
      EXPECT_CASE(c);
    }
}

// k_scale / v_scale dequantise fp8 caches; 16-bit caches ignore them (fly.h: "fp8 K scale").
TEST_F(PaDecodeHost, ScalesApplyToFp8CachesOnly) {
  for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ}) {
    PaDecodeConfig c;
    c.kv_type = kv;
    c.scales = true;
    c.k_scale = 0.0625f;
    c.v_scale = 3.0f;
    EXPECT_CASE(c);
  }
}

// Long sequences: several threads' worth of work.
TEST_F(PaDecodeHost, LongSequences) {
  PaDecodeConfig c;
  c.layout = FLY_KV_LAYOUT_VLLM;
  c.kv_type = FLY_DTYPE_E4M3FN;
  c.head_dim = 128;
  c.num_kv_heads = 2;
  c.num_q_heads = 8;
  c.seq_lens = {1999, 1200, 700};
  c.num_seqs = 3;
  c.sinks = true;
  EXPECT_CASE(c);
}

// Each sequence run alone gives bit-identical results to the batch: the work split does not matter.
TEST_F(PaDecodeHost, ResultIndependentOfWorkSplit) {
  PaDecodeConfig c;
  c.layout = FLY_KV_LAYOUT_NHD;
  c.num_seqs = 5;
  c.num_kv_heads = 4;
  c.num_q_heads = 8;
  c.q_len = 2;
  c.seq_lens = {900, 10, 700, 0, 333};
  PaDecodeCase k = fly_test::make_pa_decode_case(c);
  fly_pa_decode_args args = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  ASSERT_EQ(fly_pa_decode(handle_, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  std::vector<uint16_t> const batch_out = k.out;
  std::vector<float> const batch_lse = k.lse;
  fly_test::poison_outputs(k);
  for (int64_t s = 0; s < c.num_seqs; ++s) {
    fly_pa_decode_args one = args;
    one.num_seqs = 1;
    one.q = k.q.data() + s * k.q_stride[0];
    one.out = k.out.data() + s * k.out_stride[0];
    one.lse = k.lse.data() + s * c.q_len * c.num_q_heads;
    one.block_tables = k.block_tables.data() + s * k.block_table_stride;
    one.seq_lens = k.seq_lens.data() + s;
    ASSERT_EQ(fly_pa_decode(handle_, &one, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  }
  EXPECT_EQ(std::memcmp(batch_out.data(), k.out.data(), batch_out.size() * 2), 0);
  EXPECT_EQ(std::memcmp(batch_lse.data(), k.lse.data(), batch_lse.size() * 4), 0);
  EXPECT_EQ(fly_test::check_pa_decode(k), "");
}

// The library's KvBlockStrides address every element where fly.h's layout table puts it.
TEST(PaDecodeLayout, BlockStridesMatchFlyH) {
  for (fly_kv_layout_t layout : kLayouts)
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN})
      for (int64_t d : kDims) {
        PaDecodeCase k;
        k.c.layout = layout;
        k.c.kv_type = kv;
        k.c.head_dim = d;
        k.c.block_size = 32;
        k.c.num_kv_heads = 3;
        fly::dispatch::PaDecodeProblem p{};
        p.layout = layout;
        p.kv_type = kv;
        p.q_type = FLY_DTYPE_BF16;
        p.head_dim = d;
        p.block_size = 32;
        p.num_kv_heads = 3;
        p.num_q_heads = 3;
        ASSERT_EQ(fly::dispatch::kv_block_elems(p), 3 * 32 * d);
        int64_t const x = 16 / fly_test::pa_esize(kv);
        for (bool is_v : {false, true}) {
          auto const st = is_v ? fly::dispatch::v_block_strides(p) : fly::dispatch::k_block_strides(p);
          EXPECT_EQ(st.dim_major, is_v && layout == FLY_KV_LAYOUT_VLLM);
          std::vector<char> seen(static_cast<size_t>(3 * 32 * d), 0);
          for (int64_t g = 0; g < 3; ++g)
            for (int64_t j = 0; j < 32; ++j)
              for (int64_t e = 0; e < d; ++e) {
                int64_t const at = st.dim_major ? g * st.head + e * st.dim + j : g * st.head + j * st.slot + (e / x) * st.chunk + e % x;
                ASSERT_EQ(at, fly_test::pa_in_block(k, is_v, g, j, e))
                    << fly_kv_layout_string(layout) << (is_v ? " V" : " K") << " g=" << g << " j=" << j << " d=" << e;
                seen[static_cast<size_t>(at)] = 1;
              }
          EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 3 * 32 * d);  // a bijection onto the block
        }
      }
}

}  // namespace

// NaN in the cache or in q, as IEEE arithmetic gives it: a NaN that a query row sees makes that
// row's output and lse NaN and touches no other row; a NaN in a slot no row may see (past the
// sequence's end) changes nothing, bit for bit. Every block has its own id, so a NaN reaches one
// sequence only.
TEST(PaDecodeHostNan, NanReachesTheRowsThatSeeItAndNoOther) {
  fly_handle_t h = nullptr;
  ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);
  for (fly_kv_layout_t layout : kLayouts)
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_F16}) {
      PaDecodeConfig c;
      c.layout = layout;
      c.q_type = c.kv_type = kv;
      c.seq_lens = {40, 33};
      c.num_seqs = 2;
      c.num_q_heads = 4;
      c.num_kv_heads = 2;
      c.num_blocks = 6;
      PaDecodeCase k = fly_test::make_pa_decode_case(c);
      for (int64_t s = 0; s < 2; ++s)
        for (int64_t j = 0; j < k.max_blocks_per_seq; ++j)
          k.block_tables[size_t(s * k.block_table_stride + j)] = int32_t(s * k.max_blocks_per_seq + j);
      ASSERT_LE(2 * k.max_blocks_per_seq, k.num_blocks);
      auto run = [&](PaDecodeCase& x) {
        fly_pa_decode_args const a = fly_test::pa_decode_args(x, fly_test::host_buffers(x));
        EXPECT_EQ(fly_pa_decode(h, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
      };
      // the cache element (sequence 0, kv head 0, token t, dim 3) of K or V
      auto cache_elem = [&](PaDecodeCase& x, bool is_v, int64_t t) -> uint8_t* {
        const int64_t b = x.block_tables[size_t(t / c.block_size)], in = fly_test::pa_in_block(x, is_v, 0, t % c.block_size, 3);
        if (!is_v) return &x.k_bytes[size_t((b * x.k_block_stride + in) * 2)];
        return &x.v_bytes[size_t(x.v_offset + (b * x.v_block_stride + in) * 2)];
      };
      const uint16_t nan16 = 0x7FFF;
      run(k);
      const std::vector<uint16_t> clean = k.out;
      const std::vector<float> clean_lse = k.lse;
      // q row (seq 0, token 0, head 0) and a visible K element of sequence 0, kv head 0 (heads 0, 1)
      for (int what = 0; what < 3; ++what) {
        PaDecodeCase x = k;
        if (what == 0) std::memcpy(&x.q[size_t(fly_test::pa_row_offset(x.q_stride, 0, 0, 0) + 5)], &nan16, 2);
        if (what == 1) std::memcpy(cache_elem(x, false, 7), &nan16, 2);
        if (what == 2) std::memcpy(cache_elem(x, true, 7), &nan16, 2);
        run(x);
        SCOPED_TRACE(fly_test::describe(c) + (what == 0 ? " NaN in q" : what == 1 ? " NaN in K" : " NaN in V"));
        for (int64_t s = 0; s < 2; ++s)
          for (int64_t hq = 0; hq < 4; ++hq) {
            // q NaN: row (0, 0, 0) only; K NaN: every dim of heads 0, 1 of sequence 0; V NaN: dim 3 of them
            const bool hit = s == 0 && (what == 0 ? hq == 0 : hq < 2);
            for (int64_t d = 0; d < c.head_dim; ++d) {
              const size_t at = size_t(fly_test::pa_row_offset(x.out_stride, s, 0, hq) + d);
              const bool want_nan = hit && (what != 2 || d == 3);
              const float got = float(fly_test::pa_decode_value(kv, reinterpret_cast<const uint8_t*>(&x.out[at])));
              if (want_nan) {
                EXPECT_TRUE(std::isnan(got)) << "out[" << s << "][" << hq << "][" << d << "]";
              } else {
                EXPECT_EQ(x.out[at], clean[at]) << "out[" << s << "][" << hq << "][" << d << "]";
              }
            }
            const size_t row = size_t(s * 4 + hq);
            if (hit && what != 2) {
              EXPECT_TRUE(std::isnan(x.lse[row])) << "lse row " << row;
            } else {
              EXPECT_EQ(x.lse[row], clean_lse[row]) << "lse row " << row;
            }
          }
      }
      // NaN in K and V past sequence 0's end (token 45 of 40, inside its last block): nothing changes
      PaDecodeCase x = k;
      std::memcpy(cache_elem(x, false, 45), &nan16, 2);
      std::memcpy(cache_elem(x, true, 45), &nan16, 2);
      run(x);
      EXPECT_TRUE(x.out == clean) << fly_test::describe(c);
      EXPECT_TRUE(std::memcmp(x.lse.data(), clean_lse.data(), x.lse.size() * 4) == 0) << fly_test::describe(c);
    }
  fly_destroy(h);
}

// Logits that are all -inf give no token a weight: the row is one that sees no token (fly.h: out
// 0, lse -inf, sinks or not), as the GPU kernels treat it; a NaN among them makes the row NaN.
// Head 0's q is (-inf, 0, ...) against a K of ones; head 1 keeps its random q. Each result is
// also the independent reference's, recomputed on the changed data.
TEST(PaDecodeHostInfinity, LogitsAllMinusInfinityAreARowThatSeesNoToken) {
  fly_handle_t h = nullptr;
  ASSERT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS);
  for (bool sinks : {false, true})
    for (bool nan : {false, true}) {
      PaDecodeConfig c;
      c.layout = FLY_KV_LAYOUT_NHD;
      c.seq_lens = {40};
      c.num_seqs = 1;
      c.num_q_heads = 2;
      c.num_kv_heads = 1;
      c.sinks = sinks;
      PaDecodeCase k = fly_test::make_pa_decode_case(c);
      SCOPED_TRACE(fly_test::describe(c) + (nan ? " with a NaN in q" : ""));
      const uint16_t one = 0x3F80, minus_inf = 0xFF80, zero = 0, qnan = 0x7FC0;
      for (size_t b = 0; b + 1 < k.k_bytes.size(); b += 2) std::memcpy(&k.k_bytes[b], &one, 2);
      for (int64_t d = 0; d < c.head_dim; ++d) {
        const uint16_t v = d == 0 ? minus_inf : d == 1 && nan ? qnan : zero;
        std::memcpy(&k.q[size_t(fly_test::pa_row_offset(k.q_stride, 0, 0, 0) + d)], &v, 2);
      }
      fly_test::pa_reference(k);
      fly_pa_decode_args const a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
      ASSERT_EQ(fly_pa_decode(h, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
      for (int64_t d = 0; d < c.head_dim; ++d) {
        const float got = float(fly_test::pa_decode_value(
            c.q_type, reinterpret_cast<const uint8_t*>(&k.out[size_t(fly_test::pa_row_offset(k.out_stride, 0, 0, 0) + d)])));
        if (nan) {
          EXPECT_TRUE(std::isnan(got)) << "out[" << d << "]";
          EXPECT_TRUE(std::isnan(k.ref_out[size_t(d)])) << "reference out[" << d << "]";
        } else {
          EXPECT_EQ(got, 0.0f) << "out[" << d << "]";
          EXPECT_EQ(k.ref_out[size_t(d)], 0.0) << "reference out[" << d << "]";
        }
      }
      if (nan) {
        EXPECT_TRUE(std::isnan(k.lse[0]));
      } else {
        EXPECT_EQ(k.lse[0], -std::numeric_limits<float>::infinity());
        EXPECT_EQ(k.ref_lse[0], -std::numeric_limits<double>::infinity());
      }
      // head 1 is an ordinary row: finite, and the reference's within its bound
      EXPECT_TRUE(std::isfinite(k.lse[1]));
      EXPECT_LE(std::fabs(double(k.lse[1]) - k.ref_lse[1]), k.tol_lse[1]);
    }
  fly_destroy(h);
}
