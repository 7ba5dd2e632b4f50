// The heuristic's preference for gfx942's LDS-pipelined variants (GemmLdsBlock) over a fake
// registry: taken when it pads the call at most 1.25x as much as the least padded variant.
#include <gtest/gtest.h>

#include <string>

#include "gemm/gemm_registry.hpp"
#include "fake_problem.hpp"

namespace {
using fly::dispatch::GemmProblem;
using fly::dispatch::GemmVariant;
using fly::dispatch::Target;

constexpr fly_dtype_t fnuz = FLY_DTYPE_E4M3FNUZ;
constexpr fly_dtype_t bf16 = FLY_DTYPE_BF16;
using fly_test::ok_launch;

const GemmVariant k_gfx942[] = {
    {"direct_64x16x128", Target::gfx942, fnuz, bf16, 64, 16, 128, 16, ok_launch},
    {"direct_64x64x128", Target::gfx942, fnuz, bf16, 64, 64, 128, 16, ok_launch},
    {"lds_16x128x128", Target::gfx942, fnuz, bf16, 16, 128, 128, 16, ok_launch, true},
    {"lds_128x128x64", Target::gfx942, fnuz, bf16, 128, 128, 64, 16, ok_launch, true},
};

std::string pick(int64_t m, int64_t n, int64_t k, std::string* why = nullptr) {
  const GemmProblem p = fly_test::fake_problem(m, n, k, fnuz, bf16);
  const GemmVariant* v = fly::dispatch::select_gemm_variant(k_gfx942, p, Target::gfx942, why);
  return v != nullptr ? v->name : "none";
}

TEST(GemmSelectLds, DecodeShapeTakesTheLdsDecodeTile) {
  std::string why;
  EXPECT_EQ(pick(16, 4096, 4096, &why), "lds_16x128x128");
  EXPECT_EQ(why.rfind("least padding", 0), 0u) << why;  // the plain heuristic's pick already
}
TEST(GemmSelectLds, LargeShapeTakesTheLargestLdsTile) { EXPECT_EQ(pick(4096, 4096, 4096), "lds_128x128x64"); }
TEST(GemmSelectLds, LdsTileBeatsALargerDirectTileOfEqualPadding) {
  // M = 64: direct 64x64 and lds 16x128 both pad nothing; the larger tile alone would be direct
  EXPECT_EQ(pick(64, 4096, 4096), "lds_16x128x128");
}
TEST(GemmSelectLds, LdsTileWithinTheSlackWins) {
  // N = 112: lds pads N to 128 (1.14x), the direct 64x16 tile pads nothing
  std::string why;
  EXPECT_EQ(pick(64, 112, 4096, &why), "lds_16x128x128");
  EXPECT_EQ(why.rfind("LDS pipeline preferred (1.14x the work, within 1.25x of the least padded 1x)", 0), 0u) << why;
}
TEST(GemmSelectLds, DirectTileWhenEveryLdsTilePadsTooMuch) {
  // N = 16: every lds tile pads N 8x; the direct 64x16 tile pads nothing
  std::string why;
  EXPECT_EQ(pick(64, 16, 4096, &why), "direct_64x16x128");
  EXPECT_EQ(why.rfind("least padding", 0), 0u) << why;
}
}  // namespace
