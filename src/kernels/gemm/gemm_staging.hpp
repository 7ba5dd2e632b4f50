// What the shared-memory pipelined GEMM blocks (GemmCpAsyncBlock, GemmWgmmaBlock, GemmSimtBlock)
// share: how threads cover an operand tile with 16-byte copies, issuing one cp.async tile
// (zero-filling what lies past the matrix), and summing K-groups' accumulators through shared
// memory.
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "fly/tiled.hpp"

namespace fly::kernels {

#if !defined(__CUDA_ARCH__)
// A host test that runs a block's threads as host threads sets this, in each of them, to their
// barrier (test/kernels/test_gemm_simt.cpp); otherwise the host has one thread and no barrier.
inline thread_local void (*host_sync_threads)() = nullptr;
#endif

FLY_HOST_DEVICE inline void sync_threads() {
#if defined(__CUDA_ARCH__)
  __syncthreads();
#else
  if (host_sync_threads != nullptr) host_sync_threads();
#endif
}

// Threads over a Rows x VecsPerRow tile of 16-byte vectors, one vector each per pass; a tile with
// fewer vectors than threads uses the first `used` threads.
template <int Rows, int VecsPerRow, int Threads>
struct StagingPasses {
  static constexpr int used = Rows * VecsPerRow < Threads ? Rows * VecsPerRow : Threads;
  static constexpr int rows_per_pass = used / VecsPerRow;
  static_assert(used % VecsPerRow == 0 && rows_per_pass > 0 && Rows % rows_per_pass == 0,
                "fly::kernels::StagingPasses: the threads cannot cover the operand tile in whole rows");
};

// Threads over a Rows x BK operand tile in vectors of Vec elements (Atom's width), one vector each
// per pass, rows first: the copy that stages an operand tile of the pipelined blocks.
template <class Atom, int Rows, int BK, int Vec, int Threads>
struct VectorLoader {
  using Passes = StagingPasses<Rows, BK / Vec, Threads>;
  using ThrLayout = Layout<Shape<Int<Passes::rows_per_pass>, Int<BK / Vec>>, Stride<Int<BK / Vec>, _1>>;
  using ValLayout = Layout<Shape<_1, Int<Vec>>>;
  using Copy = decltype(make_tiled_copy(Atom{}, ThrLayout{}, ValLayout{}));
  FLY_HD static bool takes_part(int thr) { return Passes::used == Threads || thr < Passes::used; }
};

// Commits one cp.async group: tile kt's copies through load(kt), or an empty group past the last
// tile, so that every pipeline step commits exactly one group and cp_async_wait<N> always means
// "all but the newest N tiles have landed".
template <class Load>
FLY_HD void issue_tile_group(Load&& load, int kt, int k_tiles) {
  if (kt < k_tiles) load(kt);
  cp_async_fence();
}

// The edge tiles' predicate over thr_copy's part of an operand tile: whether the vector at
// logical index i lies inside rows_left rows and k_left columns of the matrix. `coords` has the
// tile's shape and maps each element to row * BK + k; each vector's (row, k) is this thread's base
// plus a compile-time offset.
template <int BK, class ThrCopy, class Coords>
FLY_HD auto vectors_inside(ThrCopy const& thr_copy, Coords const& coords, int rows_left, int k_left) {
  auto [coord, coord0] = thr_copy.partition_layout(coords);
  const int r0 = int(coord0) / BK, c0 = int(coord0) % BK;
  return [=](int i) {
    const int at = int(coord(i));
    return r0 + at / BK < rows_left && c0 + at % BK < k_left;
  };
}

// Issues thread thr's cp.async of one operand tile, global -> shared, through the tiled copy
// `Copy` (its first `Used` of `Threads` threads take part). `coords` has the shared tile's shape and
// maps each element to row * BK + k; rows_left rows and k_left columns of the tile lie inside the
// matrix, the rest is zero-filled. Full tiles take the unpredicated copy.
template <class Copy, int Used, int Threads, int Rows, int BK, class Global, class Shared, class Coords>
FLY_HD void stage_tile(Global global, Shared shared, Coords const& coords, int rows_left, int k_left, int thr) {
  using Atom = typename Copy::atom_type;
  if (Used < Threads && thr >= Used) return;
  auto thr_copy = Copy{}.get_slice(thr);
  auto src = thr_copy.partition_S(global);
  auto dst = thr_copy.partition_D(shared);
  if (rows_left >= Rows && k_left >= BK) {
    copy(Atom{}, src, dst);
  } else {
    copy_zfill(Atom{}, vectors_inside<BK>(thr_copy, coords, rows_left, k_left), src, dst);
  }
}

// Sums the V accumulators of KGroups groups of GroupThreads threads (group = thr / GroupThreads)
// into group 0 through `partial` (the pipeline's shared memory, idle once every copy has landed).
// True for the threads of group 0, which then hold the sums.
template <int KGroups, int GroupThreads, int V, class Acc>
FLY_HD bool reduce_k_groups(Acc& acc, float* partial, int thr) {
  const int group = thr / GroupThreads, lane = thr % GroupThreads;
  cp_async_wait<0>();
  sync_threads();
  if (group > 0) {
    for_each_index<V>([&](auto i) { partial[((group - 1) * V + i) * GroupThreads + lane] = acc[i]; });
  }
  sync_threads();
  if (group > 0) return false;
  for (int g = 1; g < KGroups; ++g) {
    for_each_index<V>([&](auto i) { acc[i] += partial[((g - 1) * V + i) * GroupThreads + lane]; });
  }
  return true;
}

}  // namespace fly::kernels
