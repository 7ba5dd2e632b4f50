// The fp32 SIMT block (sm_90a CUDA cores, fp32 FMA, no tensor cores):
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]
// laid out as cuBLAS's sgemm lays out two K-major operands. A block computes one BM x BN tile of
// D, 8 x 8 outputs a thread. Each BK-deep k-tile of A and B is loaded from global memory in
// 16-byte vectors along K into registers and stored transposed into shared memory, M-major
// ([k][m]) and N-major ([k][n]); a thread owns its rows and columns in runs of four (an M and N
// permutation of the tiled MMA), so that at each k one 16-byte shared load gives it four rows and
// a k step is 4 LDS.128 for 64 FFMA, k-outer. The K-major cp.async block (gemm_cpasync_kernel.hpp)
// reads four k of one row per LDS.128 instead, which holds 64 operand registers per chunk of K
// where this block holds 16 per k (docs/gemm-log.md, "Seventeenth session").
//
// Stages: the k-tiles between a k-tile's global load and its multiply. Two shared buffers and one
// barrier a k-tile whatever the stages: the k-tile being multiplied is in one buffer, the next is
// stored into the other once the multiply is done, and Stages - 1 k-tiles wait in registers, their
// loads in flight. At Stages = 2 a load has one multiply to land, which a second block on the SM
// covers; at 3 it has two, for a block that is alone on its SM (small M, split-K).
//
// LoadBits = 32 (cells spelled `simt32`): the same staging loads 4 bytes at a time (a warp reads 2
// rows x 16 k of a BK = 16 tile, two 64-byte runs), four times the loads of `simt128` into the same
// registers, for calls whose K or leading dimensions are not multiples of four floats.
//
// WarpLayout lays out the WM x WN threads (the FMA atom's one-thread "warps"): compact, a hardware
// warp is 16 x 2 of them, whose LDS.128 of A read 16 runs of four rows (two shared wavefronts);
// with strides (cells `:l4x8`, TiledMMA reading the layout as CuTe does) it is 4 x 8, and each
// LDS.128 of A or B one wavefront (docs/gemm-log.md, "Twenty-fourth session").
//
// A variant fed by 4-byte cp.async straight into shared memory was tried and dropped: slower than
// `simt32` at every fp32 tuning shape (docs/gemm-log.md, "Twenty-third session").
//
// PrefetchFrags (cells `:pf`): the k-loop reads each k-step's fragments during the step before and
// meets the k-tile's barrier before the last k-step's FMAs (run_prefetching), as cuBLAS's sgemm
// loop does: 2-5% for a block alone on its SM, nothing where a second block covers the barrier
// (docs/gemm-log.md, "Twenty-seventh session").
//
// SplitK (2 or 4): the blocks of a cluster of SplitK (consecutive blockIdx.x) share one tile,
// each multiplying an even share of its k-tiles (gemm_split_k.hpp); then each stores the slices
// of its accumulators that the others finish into their shared memory, and finishes its own slice
// with their copies added in rank order (the same sum every call) -- for the shapes whose tiles
// are fewer than the SMs (M = 64-128 x 8192^2: 64 tiles of 128 x 128).
//
// Preconditions checked by the dispatcher: K, lda and ldb are multiples of 4 elements, and A and
// B are 16-byte aligned (none for 4-byte loads: `simt32`).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "fly/arch/copy.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "fly/atom/mma_traits_sm90.hpp"
#include "fly/tiled.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_split_k.hpp"
#include "gemm_staging.hpp"

namespace fly::kernels {

// The positions of a mode of extent E shared by W threads, permuted so that thread t owns
// 4t + j + 4W i (j < 4): with the plain tiling it would own t + W i, no two of them adjacent.
template <int W, int E>
using RunsOfFour = Layout<Shape<Int<W>, _4, Int<E / (4 * W)>>, Stride<_4, _1, Int<4 * W>>>;

template <class WarpLayout, int BM_, int BN_, int BK_, class TD, int Stages_ = 2, int SplitK_ = 1, int LoadBits_ = 128,
          bool PrefetchFrags_ = false>
struct GemmSimtBlock {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int stages = Stages_, split_k = SplitK_;
  static constexpr bool prefetch_frags = PrefetchFrags_;  // next k-tile's first fragments read under the last k-step
  static constexpr int load_bits = LoadBits_;  // register staging's global loads: 16 or 4 bytes
  static_assert(load_bits == 128 || load_bits == 32, "GemmSimtBlock: the staging loads 16 or 4 bytes at a time");
  static constexpr int reg_stages = stages - 1;  // k-tiles waiting in registers
  static_assert(stages == 2 || stages == 3, "GemmSimtBlock: stages must be 2 or 3 (k-tiles from load to multiply)");
  static constexpr int WM = int(decltype(size<0>(WarpLayout{}))::value);
  static constexpr int WN = int(decltype(size<1>(WarpLayout{}))::value);
  static_assert(int(decltype(size<2>(WarpLayout{}))::value) == 1, "GemmSimtBlock: no k-groups");
  static_assert(BM % (4 * WM) == 0 && BN % (4 * WN) == 0,
                "GemmSimtBlock: each thread's rows and columns come in whole runs of four");
  using Mma = TiledMMA<SM90_FMA_F32, WarpLayout, Tile<RunsOfFour<WM, BM>, RunsOfFour<WN, BN>, Underscore>>;
  using TA = float;
  using Acc = float;
  static constexpr int threads = Mma::num_threads;
  static constexpr int vec = load_bits / 32;  // floats in one global load of the register staging
  static_assert(BK % 4 == 0, "GemmSimtBlock: BK must be a whole number of 16-byte vectors");

  // [k][m] and [k][n], rows padded by four floats, and each group of eight k after the first
  // shifted by eight floats more. A warp's transposed stores write 16 rows at 2 vectors of K (BK =
  // 8: k and k + 4, 16 banks apart under the padding) or 8 rows at 4 vectors (BK = 16: k, k + 4,
  // k + 8, k + 12); k + 8 would share k's banks, and the shift moves it to the 8 banks between
  // (at BK = 32, 4 rows at 8 vectors, it halves a 4-way conflict to 2). Each row stays 16-byte
  // aligned, and the shift is a compile-time offset of each k.
  static constexpr int k_group = BK < 8 ? BK : 8;
  static_assert(BK % k_group == 0, "GemmSimtBlock: BK must be 4 or a multiple of 8 (groups of eight k)");
  static constexpr int group_shift = 8;
  static constexpr int ld_a = BM + 4, ld_b = BN + 4;
  template <int Ld>
  static constexpr int tile_elems = BK * Ld + group_shift * (BK / k_group - 1);
  static constexpr int buffer_elems = tile_elems<ld_a> + tile_elems<ld_b>;
  static constexpr int frag_floats = BM * BN / threads;  // a thread's accumulators
  using Split = SplitKExchange<frag_floats, split_k, threads>;
  // the two buffers, and after the k-loop the other blocks' copies of this block's slices
  static constexpr int pipeline_bytes = 2 * buffer_elems * int(sizeof(float));
  static constexpr int smem_bytes = pipeline_bytes > Split::buffer_bytes ? pipeline_bytes : Split::buffer_bytes;
  template <int Rows, int Ld>
  using SmemLayout = Layout<Shape<Int<Rows>, Shape<Int<k_group>, Int<BK / k_group>>>,
                            Stride<_1, Stride<Int<Ld>, Int<k_group * Ld + group_shift>>>>;

  using LoadAtom = Copy_Atom<std::conditional_t<load_bits == 128, UniversalCopy128b, UniversalCopy32b>, float>;  // global -> registers, along K
  using StoreAtom = Copy_Atom<UniversalCopy32b, float>;   // registers -> shared, one k a value
  using FragAtom = Copy_Atom<UniversalCopy128b, float>;   // shared -> fragments, four rows at one k

  // global -> registers for a Rows x BK operand tile: threads over (rows, 16-byte vectors of a
  // row), one vector each per pass; a tile with fewer vectors than threads uses the first ones.
  template <int Rows>
  using Loader = VectorLoader<LoadAtom, Rows, BK, vec, threads>;

  // One operand's staging: this thread's vectors of a k-tile, in registers between the global
  // load and the transposed store. rows_left rows of the tile lie inside the matrix.
  template <int Rows, int Ld>
  struct Stage {
    using L = Loader<Rows>;
    using Global = decltype(make_tensor(static_cast<float const*>(nullptr),
                                        make_layout(make_shape(Int<Rows>{}, Int<BK>{}), make_stride(int64_t{}, _1{}))));
    using Part = decltype(typename L::Copy{}.get_slice(0).partition_S(std::declval<Global&>()));
    decltype(make_tensor<float>(make_layout(std::declval<Part>().shape()))) regs;

    FLY_HD void load(float const* g, int64_t ld, int rows_left, int k_left, int thr) {
      if (!L::takes_part(thr)) return;
      auto thr_copy = typename L::Copy{}.get_slice(thr);
      auto shape = make_shape(Int<Rows>{}, Int<BK>{});
      auto src = thr_copy.partition_S(make_tensor(g, make_layout(shape, make_stride(ld, _1{}))));
      if (rows_left >= Rows && k_left >= BK) {
        copy(LoadAtom{}, src, regs);
      } else {
        fill(regs, 0.f);
        copy(LoadAtom{}, src, regs,
             vectors_inside<BK>(thr_copy, make_layout(shape, make_stride(Int<BK>{}, _1{})), rows_left, k_left));
      }
    }
    template <class Smem>
    FLY_HD void store(Smem smem, int thr) const {
      if (!L::takes_part(thr)) return;
      auto dst = typename L::Copy{}.get_slice(thr).partition_D(smem);
      copy(StoreAtom{}, regs, dst);
    }
  };

  // smem: smem_bytes of dynamic shared memory, 16-byte aligned. block_x: the tile's row of blocks,
  // times split_k plus the block's rank in its cluster.
  FLY_HD static void run(GemmParams const& p, float* smem, int block_x, int block_n, int thr) {
    auto thr_mma = Mma{}.get_slice(thr);
    const int rank = split_k > 1 ? split_rank() : 0;
    const int m0 = (block_x / split_k) * BM, n0 = block_n * BN;
    const int m_left = p.m - m0, n_left = p.n - n0;
    float const* A = static_cast<float const*>(p.a) + int64_t(m0) * p.lda;
    float const* B = static_cast<float const*>(p.b) + int64_t(n0) * p.ldb;
    const int all_k_tiles = (p.k + BK - 1) / BK;
    const int k_first = Split::k_begin(all_k_tiles, rank);            // this block's share
    const int k_tiles = Split::k_begin(all_k_tiles, rank + 1) - k_first;

    auto smem_a = [&](int buf) { return make_tensor(smem + buf * buffer_elems, SmemLayout<BM, ld_a>{}); };
    auto smem_b = [&](int buf) { return make_tensor(smem + buf * buffer_elems + tile_elems<ld_a>, SmemLayout<BN, ld_b>{}); };
    Stage<BM, ld_a> stage_a[reg_stages];  // k-tile j waits in stage j % reg_stages
    Stage<BN, ld_b> stage_b[reg_stages];
    auto load = [&](int j, auto r) {
      const int k0 = (k_first + j) * BK;
      stage_a[r].load(A + k0, p.lda, m_left, p.k - k0, thr);
      stage_b[r].load(B + k0, p.ldb, n_left, p.k - k0, thr);
      if (j == k_tiles - 1 && p.let_next_start) launch_next_grid();  // the block's last loads are issued
    };
    auto store = [&](auto r, int buf) {
      stage_a[r].store(smem_a(buf), thr);
      stage_b[r].store(smem_b(buf), thr);
    };

    auto acc = thr_mma.partition_fragment_C(make_tensor(static_cast<TD*>(p.d), make_shape(Int<BM>{}, Int<BN>{})));
    fill(acc, Acc(0));
    auto multiply = [&](int buf) {  // the k-tile in buffer buf
      auto tA = thr_mma.partition_A(smem_a(buf));
      auto tB = thr_mma.partition_B(smem_b(buf));
      auto fA = thr_mma.make_fragment_A(tA);
      auto fB = thr_mma.make_fragment_B(tB);
      copy(FragAtom{}, tA, fA);
      copy(FragAtom{}, tB, fB);
      gemm(Mma{}, acc, fA, fB, acc);  // k-outer (fly::gemm's order)
    };
    if (k_tiles > 0) {
      load(0, Int<0>{});
      store(Int<0>{}, Int<0>{});
    }
    if constexpr (reg_stages == 2) {
      if (k_tiles > 1) load(1, Int<1>{});
    }
    sync_threads();
    // At k-tile j: k-tile j + reg_stages is loaded into the stage that k-tile j left (in flight
    // while j is multiplied), then k-tile j + 1 is stored from its stage into the buffer that k-tile
    // j - 1 was read from, and a barrier: tile j + 1 stored, and everyone done with tile j before
    // it is overwritten.
    if constexpr (prefetch_frags) {
      run_prefetching(load, store, smem_a, smem_b, acc, thr_mma, k_tiles);
    } else if constexpr (reg_stages == 1) {
      for (int j = 0; j < k_tiles; ++j) {
        if (j + 1 < k_tiles) load(j + 1, Int<0>{});
        // multiply(j) spelled out: through the lambda nvcc 13 spills 16 bytes at :b2's 128 registers
        auto tA = thr_mma.partition_A(smem_a(j % 2));
        auto tB = thr_mma.partition_B(smem_b(j % 2));
        auto fA = thr_mma.make_fragment_A(tA);
        auto fB = thr_mma.make_fragment_B(tB);
        copy(FragAtom{}, tA, fA);
        copy(FragAtom{}, tB, fB);
        gemm(Mma{}, acc, fA, fB, acc);
        if (j + 1 < k_tiles) store(Int<0>{}, (j + 1) % 2);
        sync_threads();
      }
    } else {  // unrolled by two, so that the stages are compile-time indices (they stay in registers)
      for (int j = 0; j < k_tiles; j += 2) {
        if (j + 2 < k_tiles) load(j + 2, Int<0>{});
        multiply(j % 2);
        if (j + 1 < k_tiles) store(Int<1>{}, 1);
        sync_threads();
        if (j + 1 == k_tiles) break;
        if (j + 3 < k_tiles) load(j + 3, Int<1>{});
        multiply((j + 1) % 2);
        if (j + 2 < k_tiles) store(Int<0>{}, 0);
        sync_threads();
      }
    }
    if constexpr (split_k > 1) {
      exchange(acc, smem, rank, thr);
      store_tile<TD, BM, BN>(thr_mma, acc, p, m0, n0, [rank](int i) { return Split::owner(i) == rank; });
    } else {
      store_tile<TD, BM, BN>(thr_mma, acc, p, m0, n0);
    }
  }

  // The k-loop with the fragments one k-step ahead (cells `:pf`, as cuBLAS's and CUTLASS's SIMT
  // mainloops): a k-step's FMAs run on fragments read from shared memory during the step before,
  // and at a k-tile's last step the next k-tile is stored, the barrier met and its first fragments
  // read before that step's FMAs, so the FMAs cover the barrier and the shared loads' latency that
  // the plain loop leaves to the other warps. The same buffers and stages as the plain loop: every
  // read of a buffer (the last k-step's included) is issued before the barrier after which the
  // buffer is overwritten.
  template <class Load, class Store, class SmemA, class SmemB, class AccTensor, class ThrMma>
  FLY_HD static void run_prefetching(Load& load, Store& store, SmemA& smem_a, SmemB& smem_b, AccTensor& acc,
                                     ThrMma& thr_mma, int k_tiles) {
    auto fA = thr_mma.make_fragment_A(thr_mma.partition_A(smem_a(0)));
    auto fB = thr_mma.make_fragment_B(thr_mma.partition_B(smem_b(0)));
    constexpr int k_steps = int(decltype(size<2>(fA))::value);
    auto read_frags = [&](int buf, auto k) {
      copy(FragAtom{}, thr_mma.partition_A(smem_a(buf))(_, _, k), fA(_, _, k));
      copy(FragAtom{}, thr_mma.partition_B(smem_b(buf))(_, _, k), fB(_, _, k));
    };
    // k-tile j, in buffer buf: k-tile j + reg_stages is loaded into stage `into`, and k-tile j + 1
    // stored from stage `from` into the other buffer at the last k-step
    auto tile = [&](int j, int buf, auto into, auto from) {
      if (j + reg_stages < k_tiles) load(j + reg_stages, into);
      for_each_index<k_steps>([&](auto k) {
        if constexpr (int(k) + 1 < k_steps) {
          read_frags(buf, Int<int(k) + 1>{});
        } else {
          if (j + 1 < k_tiles) store(from, buf ^ 1);
          sync_threads();
          // after the last k-tile a read of the idle buffer, unused: a branch around it cost :b2's
          // 128-register cells a 16-byte spill
          read_frags(buf ^ 1, Int<0>{});
        }
        gemm(Mma{}, acc, fA(_, _, k), fB(_, _, k), acc);
      });
    };
    if (k_tiles > 0) read_frags(0, Int<0>{});
    if constexpr (reg_stages == 1) {
      for (int j = 0; j < k_tiles; ++j) tile(j, j % 2, Int<0>{}, Int<0>{});
    } else {  // unrolled by two, so that the stages are compile-time indices (they stay in registers)
      for (int j = 0; j < k_tiles; j += 2) {
        tile(j, 0, Int<0>{}, Int<1>{});
        if (j + 1 == k_tiles) break;
        tile(j + 1, 1, Int<1>{}, Int<0>{});
      }
    }
  }

  // Split-K: every block of the cluster has left its k-loop (its buffers are free) before any
  // copy lands; then each stores the others' slices of its accumulators into their buffers (slot
  // `rank` there, gemm_split_k.hpp), meets them again, and adds the copies of its own slice in
  // rank order.
  template <class AccTensor>
  FLY_HD static void exchange(AccTensor& acc, float* smem, int rank, int thr) {
    split_sync();
    for_each_index<frag_floats / 4>([&](auto q4) {
      constexpr int f = 4 * int(q4);
      const int to = Split::owner(f);
      if (to != rank)
        store_to_block(smem, int(Split::offset(Split::slot(rank, to), (f % Split::slice_floats) / 4, thr) / 4), to,
                       acc[Int<f>{}], acc[Int<f + 1>{}], acc[Int<f + 2>{}], acc[Int<f + 3>{}]);
    });
    split_sync();
    for (int from = 0; from < split_k; ++from) {
      if (from == rank) continue;
      for_each_index<frag_floats / 4>([&](auto q4) {
        constexpr int f = 4 * int(q4);
        if (Split::owner(f) != rank) return;
        float const* copy4 = smem + Split::offset(Split::slot(from, rank), (f % Split::slice_floats) / 4, thr) / 4;
        acc[Int<f>{}] += copy4[0];
        acc[Int<f + 1>{}] += copy4[1];
        acc[Int<f + 2>{}] += copy4[2];
        acc[Int<f + 3>{}] += copy4[3];
      });
    }
  }
};

}  // namespace fly::kernels
