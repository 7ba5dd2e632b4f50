// The gfx942 paged-decode kernel body executed on the host: every lane of every wavefront of every
// block is a host thread (gfx942_wave_model.hpp), the MFMAs run through their lane-by-lane models,
// the buffer loads through theirs, with the dispatcher's own parameters and split plan. Each case
// has fresh random inputs and poisoned outputs; every element is compared with the independent
// double-precision reference (pa_decode_case.hpp) within its dtype-derived bound, widened by P's
// rounding to the PV MFMA type (f16 for fp8 and f16 caches, bf16 for bf16 ones).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gfx942_wave_model.hpp"
#include "pa_decode/pa_decode_case.hpp"
#include "pa_decode_gfx942_kernel.hpp"
#include "pa_decode_gfx942_reduce.hpp"
#include "pa_decode_launch_common.hpp"
#include "pa_decode_validate.hpp"
#include "status_internal.hpp"

namespace {

using fly::dispatch::PaDecodePlan;
using fly::dispatch::PaDecodeProblem;
using fly::dispatch::PaDecodeVariant;
using fly::dispatch::Target;
using fly::kernels::pa::gfx942::Kv;
using fly_test::PaDecodeConfig;
using fly_test::PaDecodeCase;

constexpr int kMi300xCus = 304;

fly_status_t no_launch(const PaDecodeProblem&, const PaDecodePlan&, void*) { return FLY_STATUS_SUCCESS; }

double p_rounding_bound(const PaDecodeConfig& c) {
  const bool fp8 = c.kv_type == FLY_DTYPE_E4M3FN || c.kv_type == FLY_DTYPE_E4M3FNUZ;
  const double vmax = fp8 ? 4.0 * (c.scales ? c.v_scale : 1.0) : 2.0;
  const double p_half_ulp = c.kv_type == FLY_DTYPE_BF16 ? std::ldexp(1.0, -9) : std::ldexp(1.0, -12);
  return 2 * p_half_ulp * vmax;
}

// Runs `config` through Tile's kernel body on the host; returns the plan's split count.
template <class Tile>
int run_case(const PaDecodeConfig& config) {
  using Kernel = fly::kernels::pa::gfx942::Kernel<Tile>;
  using Reduce = fly::kernels::pa::gfx942::Reduce<Tile::head_dim>;
  PaDecodeCase k = fly_test::make_pa_decode_case(config);
  const fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  PaDecodeProblem p{};
  EXPECT_EQ(fly::dispatch::validate_pa_decode_args("test", &a, Target::gfx942, &p), FLY_STATUS_SUCCESS) << fly_last_error();
  const fly_dtype_t kv_class = Tile::fp8 ? FLY_DTYPE_E4M3FN : Tile::kind == Kv::bf16 ? FLY_DTYPE_BF16 : FLY_DTYPE_F16;
  const PaDecodeVariant v = {"host_model", Target::gfx942, kv_class, Tile::head_dim, Tile::v_dim_major, Tile::rows,
                             Tile::tokens, Tile::waves, 1, false, false, false, no_launch, nullptr, Tile::load_bytes * 8, false};
  PaDecodePlan plan;
  std::string why;
  const PaDecodeVariant* chosen =
      fly::dispatch::select_pa_decode_variant(std::span(&v, 1), p, Target::gfx942, kMi300xCus, &plan, &why);
  EXPECT_EQ(chosen, &v) << why;
  if (chosen == nullptr) return 0;
  // the workspace as the C API sizes it, poisoned
  std::vector<float> workspace((fly::dispatch::pa_decode_workspace_bytes(p) + 3) / 4, std::nanf(""));
  plan.workspace = workspace.empty() ? nullptr : workspace.data();
  const fly::kernels::PaDecodeParams params = fly::dispatch::pa_decode_params_gfx942(p, plan);

  const int64_t blocks = p.num_seqs * p.num_kv_heads * plan.row_chunks * plan.splits;
  for (int64_t b = 0; b < blocks; ++b) {
    std::vector<unsigned char> smem(Tile::smem_bytes, 0xA5);  // LDS starts as garbage
    fly_test::Gfx942BlockModel model(Tile::threads);
    model.run([&](int tid) { Kernel::run(params, smem.data(), int(b), tid); });
  }
  if (plan.splits > 1) {
    const int64_t rows = p.num_seqs * p.q_len * p.num_q_heads;
    for (int64_t r = 0; r < rows; ++r)
      for (int t = 0; t < Reduce::threads; ++t) Reduce::run(params, p.q_type == FLY_DTYPE_BF16, r, t);
  }
  for (double& t : k.tol_out) t += p_rounding_bound(k.c);
  EXPECT_EQ(fly_test::check_pa_decode(k), "") << fly_test::describe(k.c) << "\n" << why;
  return plan.splits;
}

template <int D, Kv K, bool VDim, int Bits>
using Tile = fly::kernels::pa::gfx942::Tile<D, K, VDim, 4, Bits>;

// The key cell: fp8 (e4m3fnuz) K/V, 64 tokens x 16 query heads x head_dim 128 on four wavefronts,
// NHD, bf16 q, group 8, k/v scales, one split.
TEST(PaDecodeGfx942Host, Fp8FnuzNhdGroup8Buf128) {
  PaDecodeConfig c;
  c.num_seqs = 2;
  c.num_q_heads = 8;
  c.num_kv_heads = 1;
  c.head_dim = 128;
  c.kv_type = FLY_DTYPE_E4M3FNUZ;
  c.layout = FLY_KV_LAYOUT_NHD;
  c.seq_lens = {77, 130};
  c.scales = true;
  c.seed = 11;
  EXPECT_EQ((run_case<Tile<128, Kv::fp8, false, 128>>(c)), 1);
}

// e4m3fn through the fnuz MFMA, the vLLM layout (dim-major V), f16 q, q_len 2, a group of 5, a
// sequence of length 0, and a context long enough for the dispatcher to split it (buf32 loads).
TEST(PaDecodeGfx942Host, Fp8FnVllmQlen2Group5SplitBuf32) {
  PaDecodeConfig c;
  c.num_seqs = 2;
  c.q_len = 2;
  c.num_q_heads = 5;
  c.num_kv_heads = 1;
  c.head_dim = 128;
  c.q_type = FLY_DTYPE_F16;
  c.kv_type = FLY_DTYPE_E4M3FN;
  c.layout = FLY_KV_LAYOUT_VLLM;
  c.block_size = 32;
  c.seq_lens = {600, 0};
  c.scales = true;
  c.seed = 12;
  EXPECT_GT((run_case<Tile<128, Kv::fp8, true, 32>>(c)), 1);
}

// bf16 K/V, HND, head_dim 64, q_len 2 and group 3 (6 rows of 16), soft-cap, window and sinks.
TEST(PaDecodeGfx942Host, Bf16HndSoftcapWindowSinks) {
  PaDecodeConfig c;
  c.num_seqs = 2;
  c.q_len = 2;
  c.num_q_heads = 6;
  c.num_kv_heads = 2;
  c.head_dim = 64;
  c.kv_type = c.q_type = FLY_DTYPE_BF16;
  c.layout = FLY_KV_LAYOUT_HND;
  c.block_size = 64;
  c.seq_lens = {150, 45};
  c.logit_softcap = 5.0f;
  c.sliding_window = 70;
  c.sinks = true;
  c.seed = 13;
  EXPECT_EQ((run_case<Tile<64, Kv::bf16, false, 128>>(c)), 1);
}

// bf16, the vLLM layout, q_len 4 x group 4 (16 rows: one chunk), split, an out-of-range block id.
TEST(PaDecodeGfx942Host, Bf16VllmQlen4SplitBadBlock) {
  PaDecodeConfig c;
  c.num_seqs = 1;
  c.q_len = 4;
  c.num_q_heads = 4;
  c.num_kv_heads = 1;
  c.head_dim = 128;
  c.kv_type = c.q_type = FLY_DTYPE_BF16;
  c.layout = FLY_KV_LAYOUT_VLLM;
  c.seq_lens = {530};
  c.bad_block_ids = 1;
  c.seed = 14;
  EXPECT_GT((run_case<Tile<128, Kv::bf16, true, 128>>(c)), 1);
}

// f16, NHD, group 10 x q_len 2 = 20 rows: two row chunks; fp8 HND with buf64 loads.
TEST(PaDecodeGfx942Host, F16NhdTwoRowChunks) {
  PaDecodeConfig c;
  c.num_seqs = 1;
  c.q_len = 2;
  c.num_q_heads = 10;
  c.num_kv_heads = 1;
  c.head_dim = 64;
  c.kv_type = c.q_type = FLY_DTYPE_F16;
  c.layout = FLY_KV_LAYOUT_NHD;
  c.seq_lens = {90};
  c.seed = 15;
  EXPECT_EQ((run_case<Tile<64, Kv::f16, false, 128>>(c)), 1);
}

TEST(PaDecodeGfx942Host, Fp8FnuzHndBuf64) {
  PaDecodeConfig c;
  c.num_seqs = 1;
  c.num_q_heads = 4;
  c.num_kv_heads = 2;
  c.head_dim = 128;
  c.kv_type = FLY_DTYPE_E4M3FNUZ;
  c.layout = FLY_KV_LAYOUT_HND;
  c.seq_lens = {33};
  c.seed = 16;
  EXPECT_EQ((run_case<Tile<128, Kv::fp8, false, 64>>(c)), 1);
}

// head_dim 256: fp8 e4m3fnuz with the vLLM V, q_len 3, a group of 5 (15 rows), block size 16.
TEST(PaDecodeGfx942Host, Fp8FnuzVllmD256Qlen3) {
  PaDecodeConfig c;
  c.num_seqs = 2;
  c.q_len = 3;
  c.num_q_heads = 5;
  c.num_kv_heads = 1;
  c.head_dim = 256;
  c.kv_type = FLY_DTYPE_E4M3FNUZ;
  c.layout = FLY_KV_LAYOUT_VLLM;
  c.block_size = 16;
  c.seq_lens = {70, 3};
  c.scales = true;
  c.seed = 17;
  EXPECT_EQ((run_case<Tile<256, Kv::fp8, true, 128>>(c)), 1);
}

// f16 NHD head_dim 128, K and V interleaved in one allocation, padded q / out strides.
TEST(PaDecodeGfx942Host, F16NhdInterleavedPadded) {
  PaDecodeConfig c;
  c.num_seqs = 3;
  c.num_q_heads = 8;
  c.num_kv_heads = 4;
  c.head_dim = 128;
  c.kv_type = c.q_type = FLY_DTYPE_F16;
  c.layout = FLY_KV_LAYOUT_NHD;
  c.block_size = 32;
  c.seq_lens = {1, 64, 97};
  c.interleave_kv = true;
  c.q_strides = c.out_strides = fly_test::StrideMode::padded;
  c.seed = 18;
  EXPECT_EQ((run_case<Tile<128, Kv::f16, false, 128>>(c)), 1);
}

}  // namespace
