// The persistent GEMM blocks' tile order (src/kernels/gemm/gemm_tile_scheduler.hpp): over the
// blocks of a grid, every tile of D exactly once; inside a group the M-tiles first; the tiles in
// flight together (one per block) span at most group_m panels of A.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "gemm/gemm_tile_scheduler.hpp"

namespace {
using fly::kernels::GemmTileScheduler;

TEST(GemmTileScheduler, EveryTileExactlyOnceOverTheBlocks) {
  struct Case {
    int64_t m, n;
    int bm, bn, group, blocks;
  };
  const Case cases[] = {{8192, 8192, 128, 256, 8, 132}, {4096, 4096, 128, 128, 8, 132}, {131, 18173, 128, 256, 8, 132},
                        {1, 1, 128, 128, 8, 1},         {3000, 700, 128, 128, 8, 7},    {1000, 129, 128, 128, 3, 132},
                        {129 * 128, 3 * 256, 128, 256, 8, 5}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + " tile " + std::to_string(c.bm) + "x" +
                 std::to_string(c.bn) + " group " + std::to_string(c.group) + " blocks " + std::to_string(c.blocks));
    const GemmTileScheduler tiles(c.m, c.n, c.bm, c.bn, c.group);
    ASSERT_EQ(tiles.tiles_m, (c.m + c.bm - 1) / c.bm);
    ASSERT_EQ(tiles.tiles_n, (c.n + c.bn - 1) / c.bn);
    std::vector<int> seen(size_t(tiles.tiles()), 0);
    for (int b = 0; b < c.blocks; ++b)
      for (int64_t t = b; t < tiles.tiles(); t += c.blocks) {
        int64_t tm = -1, tn = -1;
        tiles.coord(t, tm, tn);
        ASSERT_GE(tm, 0);
        ASSERT_LT(tm, tiles.tiles_m);
        ASSERT_GE(tn, 0);
        ASSERT_LT(tn, tiles.tiles_n);
        ++seen[size_t(tm * tiles.tiles_n + tn)];
      }
    for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "tile " << i;
  }
}

TEST(GemmTileScheduler, TilesInFlightTogetherShareAPanels) {
  // 8192^3 with 128x256 tiles on 132 SMs: each wave of 132 consecutive tiles touches group_m (8)
  // or, across a group boundary, at most 2 x 8 M-panels, and walks M first inside a group
  const GemmTileScheduler tiles(8192, 8192, 128, 256, 8);
  for (int64_t first = 0; first + 132 <= tiles.tiles(); first += 132) {
    std::set<int64_t> panels;
    for (int64_t t = first; t < first + 132; ++t) {
      int64_t tm, tn;
      tiles.coord(t, tm, tn);
      panels.insert(tm);
    }
    ASSERT_LE(panels.size(), 16u) << "wave from tile " << first;
  }
  int64_t tm0, tn0, tm1, tn1;
  tiles.coord(0, tm0, tn0);
  tiles.coord(1, tm1, tn1);
  EXPECT_EQ(tm0, 0);
  EXPECT_EQ(tn0, 0);
  EXPECT_EQ(tm1, 1);  // M first
  EXPECT_EQ(tn1, 0);
  tiles.coord(8, tm1, tn1);
  EXPECT_EQ(tm1, 0);  // after the group's 8 M-tiles, its next N-tile
  EXPECT_EQ(tn1, 1);
}

}  // namespace
