// Where the TMA-store GEMM cells (`:st`) write D through TMA boxes and where they store directly
// (src/dispatch/gemm/gemm_store_box.hpp): beta = 0 with a 16-byte aligned D and rows only. The
// GPU side (the driver encodes the map exactly there) is GemmVariantsCuda.TmaStoreMapIsMadeWhereTheRuleAllows.
#include <gtest/gtest.h>

#include <cstdint>

#include "fake_problem.hpp"
#include "gemm/gemm_store_box.hpp"

namespace {
using fly::dispatch::GemmProblem;
using fly::kernels::gemm_store_box;
using fly::kernels::TmaBox2d;

alignas(256) unsigned char g_d[64];

// m x n over D = d with row pitch ldd (fake_problem's other fields; nothing is dereferenced)
GemmProblem problem(int64_t m, int64_t n, int64_t ldd, float beta, void* d) {
  GemmProblem p = fly_test::fake_problem(m, n, 128);
  p.ldd = ldd;
  p.beta = beta;
  p.D = d;
  return p;
}

TEST(GemmStoreBox, BetaZeroWithSixteenByteRowsGoesThroughBoxes) {
  TmaBox2d box;
  ASSERT_TRUE(gemm_store_box(problem(300, 1000, 1000, 0.f, g_d), 64, 128, 2, box));
  EXPECT_EQ(box.base, g_d);
  EXPECT_EQ(box.rows, 300);
  EXPECT_EQ(box.cols, 2000);  // bytes of a row of D, 2-byte elements
  EXPECT_EQ(box.ld, 2000);
  EXPECT_EQ(box.box_rows, 64);
  EXPECT_EQ(box.box_cols, 128);
  EXPECT_EQ(box.elem_bytes, 2);
  EXPECT_TRUE(gemm_store_box(problem(1, 3, 4, 0.f, g_d), 64, 128, 4, box));  // f32: 16-byte rows at ldd 4
}

TEST(GemmStoreBox, EveryOtherCallStoresDirectly) {
  TmaBox2d box;
  EXPECT_FALSE(gemm_store_box(problem(300, 1000, 1000, 2.f, g_d), 64, 128, 2, box)) << "beta != 0: the boxes carry no C";
  EXPECT_FALSE(gemm_store_box(problem(300, 1000, 1000, -0.5f, g_d), 64, 128, 2, box));
  EXPECT_FALSE(gemm_store_box(problem(300, 1000, 1005, 0.f, g_d), 64, 128, 2, box)) << "rows of 2010 bytes";
  EXPECT_FALSE(gemm_store_box(problem(300, 1000, 1002, 0.f, g_d), 64, 128, 4, box)) << "rows of 4008 bytes";
  EXPECT_FALSE(gemm_store_box(problem(300, 1000, 1000, 0.f, g_d + 2), 64, 128, 2, box)) << "D 2 bytes past 16";
  EXPECT_FALSE(gemm_store_box(problem(300, int64_t{1} << 33, int64_t{1} << 33, 0.f, g_d), 64, 128, 2, box))
      << "2^33 columns: past the TMA's 2^32";
}
}  // namespace
