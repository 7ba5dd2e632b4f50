// CuTe's Swizzle<B, M, S> and its composition with a layout: the map, its bijectivity on aligned
// blocks, the low bits it keeps, composition(Swizzle, Layout) as swizzle after layout, and
// printing in CuTe's notation (Sw<B,M,S>, and "Sw<B,M,S> o _0 o layout" for the composition).
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <vector>

#include "fly/layout.hpp"
#include "fly/layout/print.hpp"

namespace {

using namespace fly;

// o ^ ((o >> S) & (((1 << B) - 1) << M)), written out bit by bit
template <int B, int M, int S>
uint32_t by_bits(uint32_t o) {
  uint32_t r = o;
  for (int b = 0; b < B; ++b) r ^= ((o >> (M + S + b)) & 1u) << (M + b);
  return r;
}

template <int B, int M, int S>
void check_swizzle() {
  const Swizzle<B, M, S> swizzle;
  SCOPED_TRACE(to_string(swizzle));
  constexpr uint32_t block = 1u << (M + B + S), lanes = 1u << M;
  for (uint32_t base : {0u, block, 7 * block}) {
    std::vector<int> hits(block, 0);
    for (uint32_t o = base; o < base + block; ++o) {
      const uint32_t s = Swizzle<B, M, S>{}(o);
      ASSERT_EQ(s, (by_bits<B, M, S>(o))) << o;
      ASSERT_EQ(s % lanes, o % lanes) << "the low M bits are kept: " << o;
      ASSERT_GE(s, base) << "stays in its aligned block: " << o;
      ASSERT_LT(s, base + block) << "stays in its aligned block: " << o;
      ++hits[s - base];
    }
    for (uint32_t i = 0; i < block; ++i) ASSERT_EQ(hits[i], 1) << "a bijection of the block: " << i;
  }
}

TEST(Swizzle, IsTheXorOfItsShiftedBitsAndABijectionOfEachBlock) {
  check_swizzle<3, 4, 3>();  // the 128-byte swizzle of TMA and wgmma, on bytes
  check_swizzle<3, 0, 3>();  // the same on 16-byte chunks of 128-byte rows
  check_swizzle<3, 0, 4>();  // chunks of 256-byte rows
  check_swizzle<2, 0, 3>();  // 64-byte rows: rows sharing a 128-byte line
  check_swizzle<1, 0, 3>();
  check_swizzle<2, 1, 3>();
  check_swizzle<0, 0, 0>();  // the identity
  static_assert(Swizzle<3, 4, 3>{}(0x3F0) == (0x3F0 ^ 0x70), "constant-evaluated too");
}

TEST(Swizzle, TheTmaSwizzleMovesChunkCOfRowRToCXorRMod8) {
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 128; ++c)
      EXPECT_EQ((Swizzle<3, 4, 3>{}(r * 128 + c)), r * 128 + ((c / 16) ^ (r % 8)) * 16 + c % 16) << r << ", " << c;
}

TEST(Swizzle, CompositionIsTheSwizzleOfTheLayoutsOffset) {
  const auto l = make_layout(make_shape(Int<8>{}, Int<16>{}), make_stride(Int<16>{}, Int<1>{}));
  const auto composed = composition(Swizzle<3, 0, 4>{}, l);
  EXPECT_EQ(to_string(composed.shape()), "(_8,_16)");
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) EXPECT_EQ(composed(make_coord(i, j)), (Swizzle<3, 0, 4>{}(int(l(make_coord(i, j))))));
}

TEST(Swizzle, PrintsAsCuTe) {
  EXPECT_EQ(to_string(Swizzle<3, 4, 3>{}), "Sw<3,4,3>");
  const auto l = make_layout(make_shape(Int<8>{}, Int<64>{}), make_stride(Int<64>{}, Int<1>{}));
  EXPECT_EQ(to_string(composition(Swizzle<3, 4, 3>{}, l)), "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)");
  std::ostringstream os;
  os << Swizzle<2, 0, 3>{};
  EXPECT_EQ(os.str(), "Sw<2,0,3>");
}

}  // namespace
