// The paged cache as the TMA-fed variants' tensor maps describe it (pa_decode_tma.hpp), checked
// against the layouts' element formulas (fly.h), and when the dispatcher must keep a call on the
// cp.async twin. The GPU side (every TMA variant against the reference) is in test_pa_decode_cuda.cu.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>

#include "pa_decode/pa_decode_registry.hpp"
#include "pa_decode/pa_decode_tma.hpp"

namespace {

using fly::dispatch::PaDecodeProblem;
using fly::dispatch::PaDecodeTmaTensor;

PaDecodeProblem cache(fly_kv_layout_t layout, fly_dtype_t kv, int64_t head_dim) {
  PaDecodeProblem p{};
  p.num_seqs = 2;
  p.q_len = 1;
  p.num_q_heads = 8;
  p.num_kv_heads = 4;
  p.head_dim = head_dim;
  p.q_type = FLY_DTYPE_BF16;
  p.kv_type = kv;
  p.layout = layout;
  p.block_size = 32;
  p.num_blocks = 100;
  p.k_cache = reinterpret_cast<const void*>(uintptr_t{1} << 20);
  p.v_cache = reinterpret_cast<const void*>(uintptr_t{3} << 20);
  p.k_block_stride = p.v_block_stride = 2 * p.num_kv_heads * p.block_size * head_dim;  // K and V interleaved
  p.max_seq_len = 1000;
  return p;
}

// The byte offset of element d of slot j of kv head g in block b, from the layouts' definitions.
int64_t layout_offset(const PaDecodeProblem& p, int64_t b, int64_t g, int64_t j, int64_t d) {
  const int64_t eb = p.kv_type == FLY_DTYPE_BF16 || p.kv_type == FLY_DTYPE_F16 ? 2 : 1;
  const int64_t in_block = p.layout == FLY_KV_LAYOUT_NHD ? (j * p.num_kv_heads + g) * p.head_dim + d
                                                         : (g * p.block_size + j) * p.head_dim + d;
  return (b * p.k_block_stride + in_block) * eb;
}

// The byte offset the tensor's dims and strides give the same element.
int64_t tensor_offset(const PaDecodeTmaTensor& t, int64_t b, int64_t g, int64_t j, int64_t d) {
  const int64_t part = d / int64_t(t.dims[0]), within = d % int64_t(t.dims[0]);
  return within * t.elem_bytes + j * int64_t(t.strides[0]) + part * int64_t(t.strides[1]) + g * int64_t(t.strides[2]) +
         b * int64_t(t.strides[3]);
}

}  // namespace

TEST(PaDecodeTma, TensorsAddressEveryElementAsTheLayoutsDo) {
  for (fly_kv_layout_t layout : {FLY_KV_LAYOUT_NHD, FLY_KV_LAYOUT_HND})
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN})
      for (int64_t d : {128, 256}) {
        const PaDecodeProblem p = cache(layout, kv, d);
        ASSERT_EQ(fly::dispatch::pa_decode_tma_rejection(p), "");
        const PaDecodeTmaTensor k = fly::dispatch::pa_decode_tma_tensor(p, false);
        const PaDecodeTmaTensor v = fly::dispatch::pa_decode_tma_tensor(p, true);
        EXPECT_EQ(k.base, p.k_cache);
        EXPECT_EQ(v.base, p.v_cache);
        EXPECT_EQ(k.dims[0] * k.elem_bytes, 128u);  // one 128-byte swizzle span per box row
        EXPECT_EQ(k.dims[0] * k.dims[2], uint64_t(d));
        EXPECT_EQ(k.dims[1], 32u);
        EXPECT_EQ(k.dims[3], 4u);
        EXPECT_EQ(k.dims[4], 100u);
        EXPECT_EQ(k.box[1], 16u);  // a 16-token group, every part of its rows: one box per tile
        EXPECT_EQ(k.box[0], k.dims[0]);
        EXPECT_EQ(k.box[2], k.dims[2]);
        EXPECT_EQ(k.box[3] * k.box[4], 1u);
        for (int64_t b : {0, 7, 99})
          for (int64_t g : {0, 3})
            for (int64_t j : {0, 17, 31})
              for (int64_t e : {int64_t{0}, int64_t{1}, d / 2 + 3, d - 1}) {
                EXPECT_EQ(tensor_offset(k, b, g, j, e), layout_offset(p, b, g, j, e))
                    << fly_kv_layout_string(layout) << " d" << d << " b" << b << " g" << g << " j" << j << " e" << e;
                EXPECT_EQ(tensor_offset(v, b, g, j, e), tensor_offset(k, b, g, j, e));
              }
      }
}

TEST(PaDecodeTma, CachesATensorMapCannotNameAreRejectedWithTheReason) {
  PaDecodeProblem p = cache(FLY_KV_LAYOUT_VLLM, FLY_DTYPE_BF16, 128);
  EXPECT_NE(fly::dispatch::pa_decode_tma_rejection(p).find("vLLM"), std::string::npos);
  p = cache(FLY_KV_LAYOUT_NHD, FLY_DTYPE_E4M3FN, 64);  // 64-byte rows
  EXPECT_NE(fly::dispatch::pa_decode_tma_rejection(p).find("64 bytes"), std::string::npos);
  p = cache(FLY_KV_LAYOUT_NHD, FLY_DTYPE_BF16, 128);
  p.v_block_stride = int64_t{1} << 40;  // 2^41 bytes
  EXPECT_NE(fly::dispatch::pa_decode_tma_rejection(p).find("v_cache: a stride of 2199023255552 bytes"), std::string::npos)
      << fly::dispatch::pa_decode_tma_rejection(p);
  p = cache(FLY_KV_LAYOUT_HND, FLY_DTYPE_BF16, 128);
  p.k_cache = reinterpret_cast<const void*>(uintptr_t{1} << 20 | 8);
  EXPECT_NE(fly::dispatch::pa_decode_tma_rejection(p).find("k_cache is not 16-byte aligned"), std::string::npos);
}

namespace {
fly_status_t no_launch(const PaDecodeProblem&, const fly::dispatch::PaDecodePlan&, void*) {
  return FLY_STATUS_INTERNAL_ERROR;
}
int two_per_sm() { return 2; }
}  // namespace

TEST(PaDecodeTma, DispatcherPrefersTmaWhereTheCacheIsATensorElseItsCpAsyncTwin) {
  using fly::dispatch::PaDecodeVariant;
  const PaDecodeVariant cp = {"tma_test_cp_async", fly::dispatch::Target::sm90a, FLY_DTYPE_BF16, 128, false, 16, 64, 4, 3,
                              true, false, false, no_launch, two_per_sm, 0, false};
  PaDecodeVariant tma = cp;
  tma.name = "tma_test_tma";
  tma.tma = true;
  const PaDecodeVariant both[] = {cp, tma};
  fly::dispatch::PaDecodePlan plan;
  std::string why;
  PaDecodeProblem p = cache(FLY_KV_LAYOUT_NHD, FLY_DTYPE_BF16, 128);
  const PaDecodeVariant* chosen = fly::dispatch::select_pa_decode_variant(both, p, fly::dispatch::Target::sm90a, 132, &plan, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_STREQ(chosen->name, "tma_test_tma");
  p.k_block_stride = int64_t{1} << 40;  // no tensor map for this K: the cp.async twin runs it
  chosen = fly::dispatch::select_pa_decode_variant(both, p, fly::dispatch::Target::sm90a, 132, &plan, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_STREQ(chosen->name, "tma_test_cp_async");
}
