// The epilogue of the wgmma blocks (D^T = B A^T): through shared memory, idle once the main loop
// is done. Each warpgroup writes its D^T fragments as rows of D, then all of the block's consumer
// threads sum the k-groups and store D row by row, consecutive threads on consecutive columns.
// Stored straight from the fragments, one warp store would scatter 2-element runs over 4 rows
// (about 1 us slower at M = 128 on the H200). Rows tile_ld = BN + 4 floats apart: a fragment
// store's 32 lanes (2 (lane % 4) rows, lane / 4 columns) fall in distinct banks.
#pragma once

#include "fly/tiled.hpp"
#include "gemm_epilogue.hpp"

namespace fly::kernels {

template <int BM, int BN, int KGroups>
struct WgmmaEpilogue {
  static constexpr int groups_n = BN / 64, threads = 128 * groups_n * KGroups, acc_size = BM / 2;
  static constexpr int tile_ld = BN + 4;
  static constexpr int bytes = KGroups * BM * tile_ld * 4;

  // thr in [0, threads): warpgroup thr / 128 holds rows 64 (g % groups_n) of D^T for k-group
  // g / groups_n; acc[4j + 2h + c] is D^T(64 (g % groups_n) + 16 warp + lane/4 + 8h,
  // 8j + 2(lane%4) + c), i.e. D(m, n) with m the column. `sync` is a barrier over the `threads`.
  template <class TD, class Sync>
  FLY_HD static void store(float const (&acc)[acc_size], GemmParams const& p, int m0, int n0, float* tile, int thr,
                           Sync sync) {
    const int lane = thr % 32, warp = (thr % 128) / 32, group = thr / 128;
    float* mine = tile + (group / groups_n) * BM * tile_ld + (group % groups_n) * 64;
FLY_UNROLL
    for (int i = 0; i < acc_size; ++i) {
      const int j = i / 4, h = (i / 2) % 2, c = i % 2;
      mine[(8 * j + 2 * (lane % 4) + c) * tile_ld + 16 * warp + lane / 4 + 8 * h] = acc[i];
    }
    sync();
    const int m_left = p.m - m0, n_left = p.n - n0;
    const float scale = epilogue_scale(p);
    for (int at = thr; at < BM * BN; at += threads) {
      const int m = at / BN, n = at % BN;
      if (m >= m_left) break;  // rows only grow with `at`
      if (n >= n_left) continue;
      float v = tile[m * tile_ld + n];
FLY_UNROLL
      for (int g = 1; g < KGroups; ++g) v += tile[(g * BM + m) * tile_ld + n];
      store_value<TD>(p, scale, m0 + m, n0 + n, v);
    }
  }
};

}  // namespace fly::kernels
