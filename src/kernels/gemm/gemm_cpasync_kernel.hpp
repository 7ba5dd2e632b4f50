// The shared-memory pipelined GEMM block (sm_90a cp.async, mma.sync):
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]   (fp32 accumulate)
// A block computes one BM x BN tile of D. K is cut into BK-deep tiles that cp.async streams into
// a ring of `Stages` shared-memory buffers, Stages - 1 tiles ahead of the MMA: the bytes in flight
// per SM are what a decode GEMM's bandwidth needs, and no register holds a value in transit.
// Each step waits for its tile, refills the buffer the previous step finished with, and runs the
// TiledMMA from shared memory. Edge tiles zero-fill what lies outside A and B (cp.async with
// src-size 0), so the product needs no predicates. A warp layout with K > 1 splits each tile's
// k-steps among warp groups (shorter chains of dependent MMAs, more warps to hide latency); the
// groups' accumulators are summed through shared memory before the epilogue.
//
// CopyBits: the width of one cp.async, 128 (cells spelled `cpasync128`) or 32 (`cpasync32`: four
// times the copies, for calls whose K or leading dimensions are not multiples of 16 bytes; the
// shared tile and its 16-byte fragment loads are the same).
//
// Preconditions checked by the dispatcher: K, lda and ldb are multiples of CopyBits / 8 bytes'
// worth of elements, and A and B are aligned to as many bytes.
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "fly/tiled.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_staging.hpp"

namespace fly::kernels {

// A scalar FMA atom (1x1x1, one thread) reads its operands from shared memory itself. Tiled plainly,
// k-group g of W takes k = g, g + W, ...: no two of a thread's values are adjacent, so every
// fragment value is a scalar LDS. Permuting K gives each k-group a contiguous run of BK / W, and
// K-major fragments (below) then load 16 bytes at a time (LDS.128). Tensor-core atoms keep the
// plain tiling: their fragments follow the instruction's register layout.
template <class MmaOp, class WarpLayout, int BK>
struct CpAsyncTiling {
  using Atom = MMA_Atom<MmaOp>;
  static constexpr bool scalar_fma =
      int(decltype(size(typename Atom::Shape_MNK{}))::value) == 1 && int(decltype(size(typename Atom::ThrID{}))::value) == 1;
  static constexpr int warps_k = int(decltype(size<2>(WarpLayout{}))::value);
  using KRuns = Layout<Shape<Int<warps_k>, Int<BK / warps_k>>, Stride<Int<BK / warps_k>, _1>>;
  using Mma = std::conditional_t<scalar_fma, TiledMMA<MmaOp, WarpLayout, Tile<Underscore, Underscore, KRuns>>,
                                 TiledMMA<MmaOp, WarpLayout>>;
};

template <class MmaOp, class WarpLayout, int BM_, int BN_, int BK_, int Stages_, class TD, int CopyBits_ = 128>
struct GemmCpAsyncBlock {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, Stages = Stages_;
  using Tiling = CpAsyncTiling<MmaOp, WarpLayout, BK>;
  using Mma = typename Tiling::Mma;
  using TA = typename Mma::ValTypeA;
  using Acc = typename Mma::ValTypeC;
  static_assert(std::is_same_v<TA, typename Mma::ValTypeB>, "GemmCpAsyncBlock: A and B share one element type");
  static_assert(Stages >= 2, "GemmCpAsyncBlock: a pipeline needs at least two stages");
  static constexpr int threads = Mma::num_threads;
  static constexpr int k_groups = Mma::WarpsK;
  static constexpr int group_threads = threads / k_groups;
  static constexpr int vec = 16 / int(sizeof(TA));  // elements per 16-byte vector (padding, fragments)
  static_assert(BK % vec == 0, "GemmCpAsyncBlock: BK must be a whole number of 16-byte vectors");
  static constexpr int copy_bits = CopyBits_;
  static_assert(copy_bits == 128 || copy_bits == 32, "GemmCpAsyncBlock: cp.async copies 16 or 4 bytes");
  static constexpr int copy_vec = copy_bits / 8 / int(sizeof(TA));  // elements per cp.async
  static_assert(copy_vec >= 1, "GemmCpAsyncBlock: a cp.async moves at least one element");

  // Shared-memory rows are padded by one vector: the eight rows an MMA fragment load touches then
  // start in different banks (conflict-free), and every row stays 16-byte aligned for cp.async.
  static constexpr int ld_smem = BK + vec;
  template <int Rows>
  using SmemLayout = Layout<Shape<Int<Rows>, Int<BK>>, Stride<Int<ld_smem>, _1>>;
  static constexpr int stage_elems = (BM + BN) * ld_smem;
  static constexpr int smem_bytes = Stages * stage_elems * int(sizeof(TA));

  using LoadAtom = Copy_Atom<SM90_CpAsync<copy_bits>, TA>;
  using FragAtom = Copy_Atom<UniversalCopy128b, TA>;

  // global -> shared for a Rows x BK operand tile: threads over (rows, copies of a row), one copy
  // each per pass.
  template <int Rows>
  using Loader = VectorLoader<LoadAtom, Rows, BK, copy_vec, threads>;

  // Issues this thread's cp.async for one operand tile (rows_left rows and k_left columns of it
  // lie inside the matrix; the rest is zero-filled).
  template <int Rows, class SmemTensor>
  FLY_HD static void load_tile(TA const* g, int64_t ld, SmemTensor smem, int rows_left, int k_left, int thr) {
    using L = Loader<Rows>;
    auto shape = make_shape(Int<Rows>{}, Int<BK>{});
    stage_tile<typename L::Copy, L::Passes::used, threads, Rows, BK>(
        make_tensor(g, make_layout(shape, make_stride(ld, _1{}))), smem, make_layout(shape, make_stride(Int<BK>{}, _1{})),
        rows_left, k_left, thr);
  }

  // Registers for a thread's (V, MN, K) operand partition: the MMA's own order, or K-major for a
  // scalar FMA atom, whose K runs are then contiguous in both shared memory and registers.
  template <class Part>
  FLY_HD static auto make_fragment(Part const& part) {
    if constexpr (Tiling::scalar_fma) {
      constexpr int V = int(decltype(size<0>(part))::value), MN = int(decltype(size<1>(part))::value),
                    K = int(decltype(size<2>(part))::value);
      return make_tensor<TA>(make_layout(make_shape(Int<V>{}, Int<MN>{}, Int<K>{}),
                                         make_stride(Int<MN * K>{}, Int<K>{}, _1{})));
    } else {
      return make_tensor<TA>(make_layout(part.shape()));
    }
  }

  // smem: smem_bytes of dynamic shared memory, 16-byte aligned.
  FLY_HD static void run(GemmParams const& p, TA* smem, int block_m, int block_n, int thr) {
    auto thr_mma = Mma{}.get_slice(thr);
    const int m0 = block_m * BM, n0 = block_n * BN;
    const int m_left = p.m - m0, n_left = p.n - n0;
    TA const* A = static_cast<TA const*>(p.a) + int64_t(m0) * p.lda;
    TA const* B = static_cast<TA const*>(p.b) + int64_t(n0) * p.ldb;
    const int k_tiles = (p.k + BK - 1) / BK;

    auto smem_a = [&](int s) { return make_tensor(smem + s * stage_elems, SmemLayout<BM>{}); };
    auto smem_b = [&](int s) { return make_tensor(smem + s * stage_elems + BM * ld_smem, SmemLayout<BN>{}); };
    auto load = [&](int kt) {
      const int s = kt % Stages, k0 = kt * BK;
      load_tile<BM>(A + k0, p.lda, smem_a(s), m_left, p.k - k0, thr);
      load_tile<BN>(B + k0, p.ldb, smem_b(s), n_left, p.k - k0, thr);
      if (kt == k_tiles - 1 && p.let_next_start) launch_next_grid();  // the block's last loads are issued
    };

    // prologue: Stages - 1 tiles in flight, one cp.async group each
    for (int kt = 0; kt < Stages - 1; ++kt) issue_tile_group(load, kt, k_tiles);

    auto acc = thr_mma.partition_fragment_C(make_tensor(static_cast<TD*>(p.d), make_shape(Int<BM>{}, Int<BN>{})));
    fill(acc, Acc(0));
    for (int kt = 0; kt < k_tiles; ++kt) {
      cp_async_wait<Stages - 2>();  // tile kt has landed (for this thread) ...
      sync_threads();               // ... for every thread, and everyone is done with tile kt - 1's buffer
      issue_tile_group(load, kt + Stages - 1, k_tiles);
      auto tA = thr_mma.partition_A(smem_a(kt % Stages));
      auto tB = thr_mma.partition_B(smem_b(kt % Stages));
      auto fA = make_fragment(tA);
      auto fB = make_fragment(tB);
      copy(FragAtom{}, tA, fA);
      copy(FragAtom{}, tB, fB);
      gemm(Mma{}, acc, fA, fB, acc);
    }
    if constexpr (k_groups > 1) {
      constexpr int V = int(decltype(size(acc))::value);
      static_assert((k_groups - 1) * group_threads * V * 4 <= smem_bytes,
                    "GemmCpAsyncBlock: the k-group reduction does not fit in the pipeline's shared memory");
      // warps are (M, N, K) column-major: the k-group of thread thr is thr / group_threads
      if (!reduce_k_groups<k_groups, group_threads, V>(acc, reinterpret_cast<float*>(smem), thr)) return;
    }
    store_tile<TD, BM, BN>(thr_mma, acc, p, m0, n0);
  }

};

}  // namespace fly::kernels
