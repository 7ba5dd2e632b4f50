// The wgmma GEMM block (sm_90a):
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]   (fp32 accumulate)
// computed as its transpose, D^T = B x A^T: a warpgroup's wgmma is 64 rows tall, which a decode
// GEMM's M (1..128) cannot fill but its N (the weight's rows) can. So each of the block's
// BN / 64 warpgroups along N takes 64 rows of B as wgmma's A operand, all of them the block's BM
// (16..128) rows of A as wgmma's N (one A tile in shared memory feeds them all), and the epilogue
// writes D^T's fragments transposed into D.
// The pipeline is GemmCpAsyncBlock's: cp.async streams BK-deep tiles of both operands into a ring
// of `Stages` shared-memory buffers, zero-filling past the matrix, while one wgmma batch stays in
// flight behind the one being issued. The buffers hold wgmma's K-major layout with the 128-byte
// swizzle (the layout TMA writes too): each row's 128 bytes of K stay one contiguous line, chunks
// permuted by row % 8. cp.async into that runs at full bandwidth; into the no-swizzle canonical
// layout (16-byte chunks 128+ bytes apart) the same loads took 41 us instead of 23 for 64 MB
// (docs/gemm.md).
// KGroups sets of warpgroups split each tile's k-steps; the epilogue (gemm_wgmma_epilogue.hpp) sums
// their accumulators while it turns D^T's fragments into coalesced rows of D through shared memory.
//
// Preconditions checked by the dispatcher: K, lda and ldb multiples of 16, A and B 16-byte aligned.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fly/arch/copy_sm90.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "fly/layout/swizzle.hpp"
#include "fly/tiled.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_staging.hpp"
#include "gemm_wgmma_epilogue.hpp"
#include "gemm_wgmma_tile.hpp"

namespace fly::kernels {

template <int BM_, int BN_, int BK_, int Stages_, int KGroups, class TD>
struct GemmWgmmaBlock {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, Stages = Stages_, k_groups = KGroups;
  using TA = float8_e4m3fn;
  using Mma = WgmmaTile<BM>;  // wgmma's N is the block's M
  static_assert(BN % 64 == 0, "GemmWgmmaBlock: each warpgroup along N covers 64 rows of B");
  static_assert(BK % 32 == 0 && (BK / 32) % KGroups == 0, "GemmWgmmaBlock: k-steps of 32 split among the k-groups");
  static_assert(Stages >= 3, "GemmWgmmaBlock: the pipeline keeps a tile in the MMA and one loading: three stages at least");
  static constexpr int group_threads = 128, groups_n = BN / 64;
  static constexpr int threads = group_threads * groups_n * KGroups;
  static constexpr int acc_size = Mma::acc_size;
  static_assert(Mma::fits_registers(threads),
                "the promoted accumulators (3 x BM/2 floats per thread) and 32 more registers exceed what the block's "
                "threads leave (the generator's check_wgmma rejects such cells)");

  // (row, k) -> byte of one operand tile before the swizzle: K in 128-byte atoms, atom a holding
  // Rows x 128 bytes at a * Rows * 128, row r at r * 128; 8-row groups 1024 bytes apart (wgmma's
  // stride byte offset). The swizzle then moves 16-byte chunk c of row r to chunk c ^ (r % 8).
  static_assert(BK % 128 == 0, "GemmWgmmaBlock: K tiles are whole 128-byte swizzle atoms (BK % 128 == 0)");
  static constexpr int k_vecs = BK / 16, k_atoms = BK / 128, atom_row_bytes = 128;
  template <int Rows>
  using SmemShape = Shape<Shape<_8, Int<Rows / 8>>, Shape<_16, _8, Int<k_atoms>>>;
  template <int Rows>
  using SmemLayout = Layout<SmemShape<Rows>, Stride<Stride<_128, _1024>, Stride<_1, _16, Int<Rows * 128>>>>;
  // the same shape read row-major (offset r * BK + k): each value's (row, k) for edge predicates
  template <int Rows>
  using CoordLayout = Layout<SmemShape<Rows>, Stride<Stride<Int<BK>, Int<BK * 8>>, Stride<_1, _16, _128>>>;
  template <int Rows>
  static constexpr int tile_bytes = Rows * BK;
  static constexpr int stage_bytes = tile_bytes<BM> + tile_bytes<BN>;
  static constexpr int swizzle_align = 1024;  // atoms 1024-byte aligned: run() aligns its buffer up
  static constexpr int smem_bytes = Stages * stage_bytes + swizzle_align;

  using LoadAtom = Copy_Atom<SM90_CpAsync<128>, TA>;

  // global -> shared: threads over (rows, 16-byte vectors of a row), one vector each per pass
  template <int Rows>
  struct Loader {
    using Passes = StagingPasses<Rows, k_vecs, threads>;
    static_assert(Passes::rows_per_pass % 8 == 0,
                  "GemmWgmmaBlock: a thread's vectors must share row % 8 (its swizzle is one offset)");
    using ThrLayout = Layout<Shape<Int<Passes::rows_per_pass>, Int<k_vecs>>, Stride<Int<k_vecs>, _1>>;
    using ValLayout = Layout<Shape<_1, _16>>;
    using Copy = decltype(make_tiled_copy(LoadAtom{}, ThrLayout{}, ValLayout{}));
  };

  // The swizzle (CuTe's Swizzle<3,4,3> on bytes) as one offset per thread: thread thr copies chunk
  // c = thr % 8 of rows r with r % 8 = (thr / k_vecs) % 8 in every pass, and (c ^ (r % 8)) * 16 -
  // c * 16 moves each of them (what the Swizzle moves the thread's first byte by: checked below).
  FLY_HOST_DEVICE static constexpr int swizzle_offset(int thr) {
    const int c = thr % 8, r = (thr / k_vecs) % 8;
    return ((c ^ r) - c) * 16;
  }
  static constexpr bool swizzle_offset_is_the_swizzle() {
    for (int thr = 0; thr < threads; ++thr) {
      const int first = (thr / k_vecs) % 8 * atom_row_bytes + thr % 8 * 16;
      if (swizzle_offset(thr) != Swizzle<3, 4, 3>{}(first) - first) return false;
    }
    return true;
  }
  static_assert(swizzle_offset_is_the_swizzle(), "GemmWgmmaBlock: the per-thread offset is CuTe's Swizzle<3,4,3>");

  // smem: the tile's 1024-byte aligned buffer
  template <int Rows>
  FLY_HD static void load_tile(TA const* g, int64_t ld, TA* smem, int rows_left, int k_left, int thr) {
    using L = Loader<Rows>;
    stage_tile<typename L::Copy, L::Passes::used, threads, Rows, BK>(
        make_tensor(g, make_layout(SmemShape<Rows>{},
                                   make_stride(make_stride(ld, 8 * ld), make_stride(_1{}, _16{}, _128{})))),
        make_tensor(smem + swizzle_offset(thr), SmemLayout<Rows>{}), CoordLayout<Rows>{}, rows_left, k_left, thr);
  }

  // smem: smem_bytes of dynamic shared memory, 16-byte aligned.
  FLY_HD static void run(GemmParams const& p, TA* smem_in, int block_m, int block_n, int thr) {
    TA* smem = smem_in + (swizzle_align - detail::smem_u32(smem_in) % swizzle_align) % swizzle_align;
    const int m0 = block_m * BM, n0 = block_n * BN;
    const int m_left = p.m - m0, n_left = p.n - n0;
    TA const* A = static_cast<TA const*>(p.a) + int64_t(m0) * p.lda;
    TA const* B = static_cast<TA const*>(p.b) + int64_t(n0) * p.ldb;
    const int k_tiles = (p.k + BK - 1) / BK;
    auto stage_a = [&](int s) { return smem + s * stage_bytes; };
    auto stage_b = [&](int s) { return smem + s * stage_bytes + tile_bytes<BM>; };
    auto load = [&](int kt) {
      const int s = kt % Stages, k0 = kt * BK;
      load_tile<BM>(A + k0, p.lda, stage_a(s), m_left, p.k - k0, thr);
      load_tile<BN>(B + k0, p.ldb, stage_b(s), n_left, p.k - k0, thr);
      if (kt == k_tiles - 1 && p.let_next_start) launch_next_grid();  // the block's last loads are issued
    };
    // Stages - 2 tiles in flight ahead of the tile being multiplied: the wgmma batch of tile kt
    // stays in flight while tile kt + 1's batch issues, so a stage is refilled only two tiles
    // after it was multiplied.
    for (int kt = 0; kt < Stages - 2; ++kt) issue_tile_group(load, kt, k_tiles);

    // warpgroup g: rows 64 (g % groups_n) of the B tile, k-steps of k-group g / groups_n
    const int group = thr / group_threads, b_rows = (group % groups_n) * 64 * atom_row_bytes;
    const int k_group = group / groups_n;
    typename Mma::Accumulator acc;  // fp32 total and two partials, promoted every 128 of K
    acc.clear();
    constexpr int steps = BK / 32 / KGroups;  // a warpgroup's k-steps of a tile: k_group, k_group + KGroups, ...
    auto tile = [&](int kt, auto phase) {
      cp_async_wait<Stages - 3>();  // tile kt has landed (for this thread)
      gmma::fence_async_shared();    // ... before the async proxy (wgmma) reads it
      sync_threads();                // ... for every thread; every batch up to kt - 2 is complete
      issue_tile_group(load, kt + Stages - 2, k_tiles);  // into tile kt - 2's stage
      // D^T += B_tile x A_tile^T: wgmma's A is the B tile, its B the A tile
      const uint32_t addr_b = detail::smem_u32(stage_b(kt % Stages)), addr_a = detail::smem_u32(stage_a(kt % Stages));
      // tile kt - 1's batches are done after the first chunk's wait; tile kt's last runs on
      Mma::template issue_promoted<BN, steps, KGroups, decltype(phase)::value>(addr_b + b_rows, addr_a, k_group, acc,
                                                                               [] {});
    };
    // two tiles per iteration: a tile of an odd number of chunks starts on the other partial
    for (int kt = 0; kt < k_tiles; kt += 2) {
      tile(kt, std::integral_constant<int, 0>{});
      if (kt + 1 < k_tiles) tile(kt + 1, std::integral_constant<int, Mma::template next_phase<steps, 0>>{});
    }
    Mma::template finish<steps>(acc, k_tiles);
    store_through_smem(acc.total, p, m0, n0, reinterpret_cast<float*>(smem), thr);
  }

  using Epilogue = WgmmaEpilogue<BM, BN, KGroups>;
  static_assert(Epilogue::bytes <= Stages * stage_bytes,
                "GemmWgmmaBlock: the k-groups' epilogue tiles do not fit in the pipeline's shared memory");
  FLY_HD static void store_through_smem(float const (&acc)[acc_size], GemmParams const& p, int m0, int n0, float* tile,
                                        int thr) {
    cp_async_wait<0>();
    sync_threads();  // every copy has landed and every warpgroup is done with the stages
    Epilogue::template store<TD>(acc, p, m0, n0, tile, thr, [] { sync_threads(); });
  }
};

}  // namespace fly::kernels
