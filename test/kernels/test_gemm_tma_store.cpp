// The TMA-store epilogue's staging layout (gemm_tma_store.hpp) against what the wgmma fragment
// holds and what the TMA reads: every value of a warpgroup's 64-row x 128-byte chunk is written
// once, at the place the 128-byte swizzle maps D's (row, column) to, each pair in its own aligned
// bytes; and each warp's store instruction takes the fewest shared-memory wavefronts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "fly/numeric/numeric.hpp"
#include "gemm_tma_store.hpp"

namespace {

using fly::kernels::TmaStoreChunk;

// What the TMA reads from a 128-byte swizzled box, written out from the PTX ISA's bit formula
// (address bits [4, 7) ^= bits [7, 10)), not through fly::Swizzle: the linear offset of byte `at`.
int64_t unswizzle(int64_t at) { return at ^ (((at >> 7) & 7) << 4); }

template <class TD, int Rows = 64>
void expect_every_value_lands_where_the_tma_reads_it() {
  using Chunk = TmaStoreChunk<TD, Rows>;
  constexpr int elem = int(sizeof(TD));
  std::vector<int> writes(Chunk::bytes, 0);
  for (int t = 0; t < 2 * Rows; ++t)  // a warpgroup's threads, or (16 rows) a warp's lanes
    for (int jj = 0; jj < Chunk::pairs_per_row; ++jj)
      for (int h = 0; h < 2; ++h) {
        const int at = Chunk::pair_offset(t, jj, h);
        ASSERT_EQ(at % (2 * elem), 0) << "thread " << t << " pair (" << jj << ", " << h << ") is not aligned";
        // wgmma's D fragment (PTX ISA, "wgmma 64xNxK register fragment"): row and column of the pair
        const int row = 16 * (t / 32) + (t % 32) / 4 + 8 * h, col = 8 * jj + 2 * (t % 4);
        for (int v = 0; v < 2; ++v) {
          const int64_t linear = unswizzle(at + v * elem);
          EXPECT_EQ(linear / Chunk::row_bytes, row) << "thread " << t << " value " << v;
          EXPECT_EQ(linear % Chunk::row_bytes, (col + v) * elem) << "thread " << t << " value " << v;
        }
        for (int b = 0; b < 2 * elem; ++b) ++writes[size_t(at + b)];
      }
  for (int b = 0; b < Chunk::bytes; ++b) EXPECT_EQ(writes[size_t(b)], 1) << "byte " << b;
}

// The wavefronts one warp's store of pair (jj, h) takes: the 32 lanes' bytes grouped by 4-byte bank;
// a bank touched at k different words needs k wavefronts.
template <class TD, int Rows = 64>
int wavefronts(int warp, int jj, int h) {
  using Chunk = TmaStoreChunk<TD, Rows>;
  std::vector<std::set<int>> words(32);
  for (int lane = 0; lane < 32; ++lane) {
    const int at = Chunk::pair_offset(32 * warp + lane, jj, h);
    for (int b = 0; b < 2 * int(sizeof(TD)); b += 4) words[size_t((at + b) / 4 % 32)].insert((at + b) / 4);
  }
  size_t most = 0;
  for (const auto& w : words) most = std::max(most, w.size());
  return int(most);
}

TEST(GemmTmaStore, ChunksHoldOneBoxOfD) {
  EXPECT_EQ(TmaStoreChunk<fly::bfloat16>::cols, 64);
  EXPECT_EQ(TmaStoreChunk<fly::half>::cols, 64);
  EXPECT_EQ(TmaStoreChunk<float>::cols, 32);
  EXPECT_EQ(TmaStoreChunk<float>::bytes, 64 * 128);
}

TEST(GemmTmaStore, EveryValueLandsWhereTheTmaReadsIt) {
  expect_every_value_lands_where_the_tma_reads_it<fly::bfloat16>();
  expect_every_value_lands_where_the_tma_reads_it<fly::half>();
  expect_every_value_lands_where_the_tma_reads_it<float>();
}

TEST(GemmTmaStore, EachWarpStoreTakesTheFewestWavefronts) {
  for (int warp = 0; warp < 4; ++warp)
    for (int h = 0; h < 2; ++h) {
      for (int jj = 0; jj < TmaStoreChunk<fly::bfloat16>::pairs_per_row; ++jj)
        EXPECT_EQ(wavefronts<fly::bfloat16>(warp, jj, h), 1) << "warp " << warp << " pair " << jj << ", " << h;
      for (int jj = 0; jj < TmaStoreChunk<float>::pairs_per_row; ++jj)  // 256 bytes: two at least
        EXPECT_EQ(wavefronts<float>(warp, jj, h), 2) << "warp " << warp << " pair " << jj << ", " << h;
    }
}

// The `:stw` cells' chunks: one warp's 16 rows, its lanes as t.
TEST(GemmTmaStore, WarpChunksHoldTheWarpsSixteenRowsOnceAndTakeTheFewestWavefronts) {
  EXPECT_EQ((TmaStoreChunk<fly::bfloat16, 16>::bytes), 16 * 128);
  expect_every_value_lands_where_the_tma_reads_it<fly::bfloat16, 16>();
  expect_every_value_lands_where_the_tma_reads_it<fly::half, 16>();
  expect_every_value_lands_where_the_tma_reads_it<float, 16>();
  for (int h = 0; h < 2; ++h) {
    for (int jj = 0; jj < TmaStoreChunk<fly::bfloat16, 16>::pairs_per_row; ++jj)
      EXPECT_EQ((wavefronts<fly::bfloat16, 16>(0, jj, h)), 1) << "pair " << jj << ", " << h;
    for (int jj = 0; jj < TmaStoreChunk<float, 16>::pairs_per_row; ++jj)
      EXPECT_EQ((wavefronts<float, 16>(0, jj, h)), 2) << "pair " << jj << ", " << h;
  }
}

}  // namespace
