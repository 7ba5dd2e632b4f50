// The size rule behind fly_gemm's programmatic launch (src/dispatch/gemm/gemm_launch_common.hpp):
// a launch may overlap the kernel before it below 2^39 FLOP, where the few microseconds it saves
// still count; at and above it (8192^3 is 2^40) the CUDA launcher launches plainly.
#include <gtest/gtest.h>

#include <cstdint>

#include "gemm/gemm_launch_common.hpp"

namespace {
using fly::kernels::gemm_overlap_pays;

TEST(GemmLaunchRules, OverlapPaysBelowTwoToTheThirtyNineFlop) {
  EXPECT_TRUE(gemm_overlap_pays(1, 1, 1));
  EXPECT_TRUE(gemm_overlap_pays(64, 8192, 8192));     // decode: the overlap saves 10% there
  EXPECT_TRUE(gemm_overlap_pays(2048, 8192, 8192));   // 2^38 FLOP
  EXPECT_TRUE(gemm_overlap_pays(4095, 8192, 8192));   // just under 2^39
  EXPECT_FALSE(gemm_overlap_pays(4096, 8192, 8192));  // 2^39 itself
  EXPECT_FALSE(gemm_overlap_pays(8192, 8192, 8192));  // measured 7% slower with it
}

TEST(GemmLaunchRules, SizesPastThirtyTwoBitsDoNotWrap) {
  // the product in 64-bit integers would overflow here; a wrapped (small or negative) product
  // would turn the overlap back on for the largest problems
  EXPECT_FALSE(gemm_overlap_pays(int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 31));
  EXPECT_FALSE(gemm_overlap_pays(int64_t(1) << 40, 1, 1));
}
}  // namespace
