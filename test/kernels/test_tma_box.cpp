// What a TMA box must satisfy before a tensor map is encoded (each rule rejected with its reason),
// and the host model of the 128-byte swizzle that the TMA and the cp.async GEMM loader both write.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "tma_box.hpp"

namespace {
using fly::kernels::swizzle128_offset;
using fly::kernels::tma_box_rejection;
using fly::kernels::TmaBox2d;

alignas(16) uint8_t g_matrix[64];

void expect_rejected(const TmaBox2d& b, const std::string& reason) {
  const std::string why = tma_box_rejection(b);
  EXPECT_NE(why.find(reason), std::string::npos) << "got: \"" << why << "\", want it to name \"" << reason << "\"";
}

TEST(TmaBox, AValidBoxPasses) {
  EXPECT_EQ(tma_box_rejection({g_matrix, 8192, 8192, 8192, 64, 128}), "");
  EXPECT_EQ(tma_box_rejection({g_matrix, 1, 16, 16, 256, 16}), "");  // a box larger than the matrix
}

TEST(TmaBox, EachRuleRejectsWithItsReason) {
  expect_rejected({g_matrix + 8, 64, 64, 64, 8, 64}, "not 16-byte aligned");
  expect_rejected({g_matrix, 0, 64, 64, 8, 64}, "outside [1, 2^32]");
  expect_rejected({g_matrix, 64, (int64_t{1} << 32) + 1, int64_t{1} << 33, 8, 64}, "outside [1, 2^32]");
  expect_rejected({g_matrix, 64, 64, 48, 8, 64}, "row pitch 48 is below the row's 64 bytes");
  expect_rejected({g_matrix, 64, 64, 72, 8, 64}, "row pitch 72 is not a multiple of 16");
  expect_rejected({g_matrix, 64, 64, 64, 257, 64}, "outside [1, 256]");
  expect_rejected({g_matrix, 64, 64, 64, 8, 0}, "outside [1, 256]");
  expect_rejected({g_matrix, 64, 64, 64, 8, 40}, "40 bytes is not a multiple of 16");
  expect_rejected({g_matrix, 64, 256, 256, 8, 144}, "exceeds the 128-byte swizzle span");
}

// The TMA-store epilogue's boxes: D of 2- or 4-byte elements, 64 rows x 128 bytes, extents counted
// in elements (an f32 D may be 2^32 columns: 2^34 bytes).
TEST(TmaBox, WiderElementsCountExtentsInElements) {
  EXPECT_EQ(tma_box_rejection({g_matrix, 64, 8192 * 2, 8192 * 2, 64, 128, 2}), "");
  EXPECT_EQ(tma_box_rejection({g_matrix, 64, int64_t{1} << 34, int64_t{1} << 34, 64, 128, 4}), "");
  expect_rejected({g_matrix, 64, (int64_t{1} << 34) + 4, (int64_t{1} << 34) + 16, 64, 128, 4}, "outside [1, 2^32]");
  expect_rejected({g_matrix, 64, 66, 80, 64, 128, 4}, "not whole 4-byte elements");
  expect_rejected({g_matrix, 64, 64, 64, 64, 128, 3}, "elements of 3 bytes");
  expect_rejected({g_matrix, 64, 64, 64, 300, 128, 2}, "300 x 64 elements is outside [1, 256]");
}

// PTX ISA, 128-byte swizzle: address bits [4, 7) ^= bits [7, 10); rows of 128 bytes, so a row's
// 16-byte chunk index is XORed with row % 8.
TEST(TmaBox, SwizzleModelMatchesTheIsaBitFormula) {
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 128; ++c) {
      const int64_t linear = r * 128 + c;
      EXPECT_EQ(swizzle128_offset(r, c), linear ^ (((linear >> 7) & 7) << 4)) << r << ", " << c;
    }
  EXPECT_EQ(swizzle128_offset(1, 0), 144);
  EXPECT_EQ(swizzle128_offset(3, 35), 403);
}

TEST(TmaBox, SwizzleIsAPermutationOfEachAtom) {
  std::set<int64_t> seen;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 128; ++c) {
      const int64_t at = swizzle128_offset(r, c);
      EXPECT_GE(at, r * 128);
      EXPECT_LT(at, r * 128 + 128);  // a row stays in its 128-byte line
      seen.insert(at);
    }
  EXPECT_EQ(seen.size(), 1024u);
}
}  // namespace
