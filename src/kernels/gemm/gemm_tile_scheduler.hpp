// Which output tiles a persistent GEMM block computes, and in what order: block b of a grid of G
// takes tiles b, b + G, b + 2G, ... of one raster over the (tiles_m x tiles_n) tiles of D. The
// raster walks the M-tiles of a group of `group_m` rows first, then the group's next N-tile, so
// the ~132 tiles in flight at once (one per SM) read group_m panels of A and about 132 / group_m
// panels of B: both stay in L2 while the group moves along K (CUTLASS's swizzled raster,
// DeepGEMM's grouped order). The last group may be narrower.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

namespace fly::kernels {

struct GemmTileScheduler {
  int64_t tiles_m, tiles_n;
  int64_t group_m;

  FLY_HOST_DEVICE GemmTileScheduler(int64_t m, int64_t n, int bm, int bn, int group)
      : tiles_m((m + bm - 1) / bm), tiles_n((n + bn - 1) / bn), group_m(group) {}

  FLY_HOST_DEVICE int64_t tiles() const { return tiles_m * tiles_n; }

  // Tile t of the raster as (M-tile, N-tile).
  FLY_HOST_DEVICE void coord(int64_t t, int64_t& tm, int64_t& tn) const {
    const int64_t per_group = group_m * tiles_n;
    const int64_t g = t / per_group, first_m = g * group_m;
    const int64_t rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
    const int64_t r = t - g * per_group;
    tm = first_m + r % rows;
    tn = r / rows;
  }
};

}  // namespace fly::kernels
