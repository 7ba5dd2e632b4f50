// The persistent warp-specialised block's epilogue (GemmWgmmaWsBlock, gemm_wgmma_ws_kernel.hpp): a
// consumer warpgroup's fp32 totals, scaled, rounded to D's type and stored, either through shared
// memory by TMA boxes (the `:st` and `:stw` cells, a tile wholly inside D) or directly, a pair of
// adjacent columns a store where D's alignment allows and nothing outside D. `Block` gives the
// tile's shape (BN, its sub-tiles and their accumulator size), the chunk layout of the boxes
// (StoreChunk, warp_store), where a fragment's values land (fragment_position) and, split over
// K, which slice this block finishes.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <cstring>

#include "fly/arch/barrier_sm90.hpp"
#include "fly/arch/copy_sm90_tma.hpp"
#include "fly/numeric/pack2.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_tma_store.hpp"

namespace fly::kernels {

#if defined(__CUDACC__)
template <class Block>
struct GemmWsEpilogue {
  using TD = typename Block::D;
  using StoreChunk = typename Block::StoreChunk;
  static constexpr int BN = Block::BN, sub_n = Block::sub_n, subs = Block::subs, acc_size = Block::acc_size;
  static constexpr bool warp_store = Block::warp_store;

  // Two adjacent columns of D, stored as one 4- or 8-byte access by both epilogues. Of 16-bit
  // types through fly::pack2: one paired hardware conversion where TD(float) each took one
  // conversion and a NaN select apiece (the 128x128 tile's bf16 epilogue was 540 integer
  // instructions of 812 before the hardware conversions; docs/gemm-log.md, "Fifteenth session").
  struct alignas(2 * sizeof(TD)) Pair {
    TD x, y;
    __device__ static Pair of(float a, float b) {
      if constexpr (sizeof(TD) == 2) {
        const uint32_t bits = pack2<TD>(a, b);
        Pair pair;
        memcpy(&pair, &bits, sizeof(pair));
        return pair;
      } else {
        return Pair{TD(a), TD(b)};
      }
    }
  };

  // The TMA-store epilogue (beta = 0; a tile wholly inside D, which the block checks: by_boxes): the warpgroup's
  // 64 x BN scaled totals into D from row m0, column n0, one chunk of StoreChunk::cols columns at a time through the warpgroup's two buffers
  // at `buffers`, alternating over all of its tiles (`stored`: chunks so far, advanced). Thread 0 of
  // the warpgroup issues the boxes; before a buffer is refilled, the box stored from it two chunks
  // earlier (this tile's or the previous one's) has been read. With warp_store the same per warp:
  // 16-row chunks through the warp's own two buffers, issued by its lane 0.
  // scale: epilogue_scale (beta is 0: the launcher gives no map otherwise).
  __device__ static void store_by_tma(float const (&total)[subs][acc_size], float scale, CUtensorMap const* map_d,
                                      unsigned char* buffers, uint32_t& stored, int m0, int n0, int t, int group) {
    // the chunk's writers: the warpgroup, or (warp_store) this thread's warp, whose 16 rows start
    // 16 (t / 32) rows down and whose two buffers follow the warps' before it
    const int writer = warp_store ? t % 32 : t, row0 = warp_store ? m0 + 16 * (t / 32) : m0;
    if constexpr (warp_store) buffers += (t / 32) * 2 * StoreChunk::bytes;
FLY_UNROLL
    for (int c = 0; c < BN / StoreChunk::cols; ++c, ++stored) {
      unsigned char* buf = buffers + (stored % 2) * StoreChunk::bytes;
      tma_store_wait_read_if<1>(writer == 0);  // predicated, no branch (copy_commit_if)
      sync_writers(group);                     // buf is free
      const int sub = c * StoreChunk::cols / sub_n, j0 = (c * StoreChunk::cols % sub_n) / 8;
FLY_UNROLL
      for (int jj = 0; jj < StoreChunk::pairs_per_row; ++jj)
FLY_UNROLL
        for (int h = 0; h < 2; ++h) {
          const int i = 4 * (j0 + jj) + 2 * h;  // wgmma's D fragment: total[sub][4j + 2h + {0, 1}]
          *reinterpret_cast<Pair*>(buf + StoreChunk::pair_offset(writer, jj, h)) =
              Pair::of(scale * total[sub][i], scale * total[sub][i + 1]);
        }
      fence_proxy_async_shared();  // the writes, visible to the TMA
      sync_writers(group);         // ... from every writer of the chunk
      SM90_TMA_STORE_2D::copy_commit_if(writer == 0, map_d, buf, n0 + c * StoreChunk::cols, row0);
    }
  }

  // The writers of one TMA-store chunk meet: the consumer warpgroup, or (warp_store) the warp.
  __device__ static void sync_writers(int group) {
    if constexpr (warp_store) {
      __syncwarp();
    } else {
      Block::sync_warpgroup(group);
    }
  }

  // The warpgroup's 64 x BN totals into D from row m0, column n0, each where fragment_position puts
  // it. Split over K, only the slice this block (rank) finished.
  __device__ static void store(float const (&total)[subs][acc_size], GemmParams const& p, float scale, int m0, int n0,
                               int t, int rank) {
    const bool pairs = pairs_fit(p);
FLY_UNROLL
    for (int sub = 0; sub < subs; ++sub) {
FLY_UNROLL
      for (int i = 0; i < acc_size; i += 2) {
        int row, col;  // of total[sub][i]; total[sub][i + 1] is the next column
        Block::fragment_position(t, sub, i, row, col);
        row += m0;
        col += n0;
        if (row >= p.m || col >= p.n || (Block::split_k > 1 && Block::Split::owner(sub * acc_size + i) != rank)) continue;
        if (col + 1 < p.n) {
          store_pair(p, scale, pairs, row, col, total[sub][i], total[sub][i + 1]);
        } else {
          store_value<TD>(p, scale, row, col, total[sub][i]);
        }
      }
    }
  }

  // The same stores for 64 rows x BN columns wholly inside D (the block checks, with no split of
  // K): no per-thread bounds checks, so no branch in it depends on the thread (`pairs` and beta
  // are the call's), and the next tile's first batch may stay in flight across it (:nb without
  // the TMA store).
  __device__ static void store_inside(float const (&total)[subs][acc_size], GemmParams const& p, float scale, int m0,
                                      int n0, int t) {
    static_assert(Block::split_k == 1, "GemmWsEpilogue::store_inside: a split tile stores only its slice (store)");
    const bool pairs = pairs_fit(p);
FLY_UNROLL
    for (int sub = 0; sub < subs; ++sub) {
FLY_UNROLL
      for (int i = 0; i < acc_size; i += 2) {
        int row, col;
        Block::fragment_position(t, sub, i, row, col);
        store_pair(p, scale, pairs, m0 + row, n0 + col, total[sub][i], total[sub][i + 1]);
      }
    }
  }

  // Whether two adjacent columns of D go as one store: beta = 0 (no C to read beside them) and
  // D's rows and pointer aligned to a Pair.
  __device__ static bool pairs_fit(GemmParams const& p) {
    return p.beta == 0.f && p.ldd % 2 == 0 && reinterpret_cast<uintptr_t>(p.d) % sizeof(Pair) == 0;
  }

  // D(row, col) and D(row, col + 1), both inside D.
  __device__ static void store_pair(GemmParams const& p, float scale, bool pairs, int row, int col, float a, float b) {
    if (pairs) {
      *reinterpret_cast<Pair*>(static_cast<TD*>(p.d) + int64_t(row) * p.ldd + col) = Pair::of(scale * a, scale * b);
    } else {
      store_value<TD>(p, scale, row, col, a);
      store_value<TD>(p, scale, row, col + 1, b);
    }
  }
};
#endif

}  // namespace fly::kernels
