// Split-K over a cluster (gemm_split_k.hpp) on a host model of the cluster: the k-tile shares
// cover a tile's K once, every accumulator float is finished by one block with the other blocks'
// copies of it, no two copies share a byte of the receiver's buffer, and the sum a block finishes
// is the same whatever order the copies arrive in (the receiver adds them in rank order).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gemm_split_k.hpp"

namespace {

using fly::kernels::SplitKExchange;

template <int FragFloats, int SplitK>
void expect_shares_cover_every_k_tile_once() {
  using Split = SplitKExchange<FragFloats, SplitK>;
  for (int k_tiles = 0; k_tiles <= 67; ++k_tiles) {
    EXPECT_EQ(Split::k_begin(k_tiles, 0), 0);
    EXPECT_EQ(Split::k_begin(k_tiles, SplitK), k_tiles);
    for (int s = 0; s < SplitK; ++s) {
      const int length = Split::k_begin(k_tiles, s + 1) - Split::k_begin(k_tiles, s);
      // even shares: k_tiles / SplitK each, the remainder spread one k-tile a share
      EXPECT_GE(length, k_tiles / SplitK) << k_tiles << " k-tiles, share " << s;
      EXPECT_LE(length, (k_tiles + SplitK - 1) / SplitK) << k_tiles << " k-tiles, share " << s;
    }
  }
}

template <int FragFloats, int SplitK>
void expect_each_float_has_one_owner_per_float4() {
  using Split = SplitKExchange<FragFloats, SplitK>;
  std::vector<int> owned(SplitK, 0);
  for (int f = 0; f < FragFloats; ++f) {
    const int owner = Split::owner(f);
    ASSERT_GE(owner, 0);
    ASSERT_LT(owner, SplitK);
    ++owned[size_t(owner)];
    EXPECT_EQ(owner, Split::owner(f - f % 4)) << "float " << f << " leaves its float4's block";
  }
  for (int r = 0; r < SplitK; ++r) EXPECT_EQ(owned[size_t(r)], FragFloats / SplitK) << "block " << r;
}

// Every (sender, float4, thread) a receiver takes gets 16 bytes of its own inside the buffer, and a
// warp's 32 float4s of one (slot, quad) are 512 contiguous bytes.
template <int FragFloats, int SplitK>
void expect_copies_fill_the_buffer_without_overlap() {
  using Split = SplitKExchange<FragFloats, SplitK>;
  for (int receiver = 0; receiver < SplitK; ++receiver) {
    std::vector<int> bytes(size_t(Split::buffer_bytes), 0);
    for (int sender = 0; sender < SplitK; ++sender) {
      if (sender == receiver) continue;
      const int slot = Split::slot(sender, receiver);
      ASSERT_GE(slot, 0);
      ASSERT_LT(slot, SplitK - 1);
      for (int q = 0; q < Split::quads; ++q)
        for (int t = 0; t < 128; ++t) {
          const uint32_t at = Split::offset(slot, q, t);
          ASSERT_EQ(at % 16, 0u);
          ASSERT_LE(at + 16, uint32_t(Split::buffer_bytes));
          if (t % 32 != 0) {
            EXPECT_EQ(at, Split::offset(slot, q, t - 1) + 16);
          }
          for (uint32_t b = at; b < at + 16; ++b) ++bytes[b];
        }
    }
    for (size_t b = 0; b < bytes.size(); ++b) ASSERT_EQ(bytes[b], 1) << "receiver " << receiver << " byte " << b;
  }
}

// The kernel's exchange on the host: each block's thread t holds its k-share's totals; a block
// stores each float4 that another block owns into that block's buffer, then finishes its own floats
// by adding the copies in rank order. Every float of the tile is finished once, to the float sum
// the kernel computes, and the sends may come in any order.
template <int FragFloats, int SplitK>
void expect_exchange_finishes_every_float_once() {
  using Split = SplitKExchange<FragFloats, SplitK>;
  std::mt19937 rng(FragFloats * 10 + SplitK);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> totals(SplitK, std::vector<float>(static_cast<size_t>(FragFloats) * 128));
  for (auto& block : totals)
    for (float& x : block) x = normal(rng);
  std::vector<std::vector<float>> buffers(SplitK, std::vector<float>(size_t(Split::buffer_bytes) / 4, NAN));
  std::vector<int> senders(SplitK);
  for (int r = 0; r < SplitK; ++r) senders[size_t(r)] = SplitK - 1 - r;  // last rank's stores land first
  // (one block sends nothing; without the test GCC 13 warns of buffers[1] in the dead stores)
  if constexpr (SplitK > 1) {
    for (int rank : senders)
      for (int t = 0; t < 128; ++t)
        for (int f = 0; f < FragFloats; f += 4) {
          const int j = Split::owner(f);
          if (j == rank) continue;
          const uint32_t at = Split::offset(Split::slot(rank, j), (f % Split::slice_floats) / 4, t);
          for (int v = 0; v < 4; ++v) buffers[size_t(j)][at / 4 + size_t(v)] = totals[size_t(rank)][size_t(t) * FragFloats + f + v];
        }
  }
  std::vector<int> finished(static_cast<size_t>(FragFloats) * 128, 0);
  for (int rank = 0; rank < SplitK; ++rank)
    for (int t = 0; t < 128; ++t)
      for (int f = 0; f < FragFloats; ++f) {
        if (Split::owner(f) != rank) continue;
        ++finished[size_t(t) * FragFloats + f];
        float sum = totals[size_t(rank)][size_t(t) * FragFloats + f];
        for (int from = 0; from < SplitK; ++from) {
          if (from == rank) continue;
          const uint32_t at = Split::offset(Split::slot(from, rank), (f % Split::slice_floats) / 4, t);
          sum += buffers[size_t(rank)][at / 4 + size_t(f % 4)];
        }
        // the kernel's order: its own share first, then the others' in rank order
        float expected = totals[size_t(rank)][size_t(t) * FragFloats + f];
        for (int from = 0; from < SplitK; ++from)
          if (from != rank) expected += totals[size_t(from)][size_t(t) * FragFloats + f];
        ASSERT_EQ(sum, expected) << "block " << rank << " thread " << t << " float " << f;
      }
  for (size_t i = 0; i < finished.size(); ++i) ASSERT_EQ(finished[i], 1) << "thread " << i / FragFloats << " float " << i % FragFloats;
}

// One consumer thread's floats in the trial cells, BN = 128 (64) and BN = 256 (two sub-tiles of
// 64), split over 2 or 4 blocks; and no split, as every other persistent cell runs.
template <int FragFloats, int SplitK>
struct Cell {
  static constexpr int frag_floats = FragFloats, split_k = SplitK;
};
template <class C>
class GemmSplitK : public ::testing::Test {};
using Cells = ::testing::Types<Cell<64, 1>, Cell<64, 2>, Cell<64, 4>, Cell<128, 2>, Cell<128, 4>>;
TYPED_TEST_SUITE(GemmSplitK, Cells);

TYPED_TEST(GemmSplitK, SharesCoverEveryKTileOnce) {
  expect_shares_cover_every_k_tile_once<TypeParam::frag_floats, TypeParam::split_k>();
}

TYPED_TEST(GemmSplitK, EachFloatHasOneOwnerAFloat4) {
  expect_each_float_has_one_owner_per_float4<TypeParam::frag_floats, TypeParam::split_k>();
}

TYPED_TEST(GemmSplitK, CopiesFillTheReceiversBufferWithoutOverlap) {
  expect_copies_fill_the_buffer_without_overlap<TypeParam::frag_floats, TypeParam::split_k>();
}

TYPED_TEST(GemmSplitK, ExchangeFinishesEveryFloatOnceInRankOrder) {
  expect_exchange_finishes_every_float_once<TypeParam::frag_floats, TypeParam::split_k>();
}

}  // namespace
