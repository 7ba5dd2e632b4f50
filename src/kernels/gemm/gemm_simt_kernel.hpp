// The fp32 SIMT block (sm_90a CUDA cores, fp32 FMA, no tensor cores):
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]
// laid out as cuBLAS's sgemm lays out two K-major operands. A block computes one BM x BN tile of
// D, 8 x 8 outputs a thread. Each BK-deep k-tile of A and B is loaded from global memory in
// 16-byte vectors along K into registers and stored transposed into shared memory, M-major
// ([k][m]) and N-major ([k][n]); a thread owns its rows and columns in runs of four (an M and N
// permutation of the tiled MMA), so that at each k one 16-byte shared load gives it four rows and
// a k step is 4 LDS.128 for 64 FFMA, k-outer. Two shared buffers: the next k-tile's global loads
// are in flight while the current one is multiplied, then stored into the other buffer; one
// barrier a k-tile. The K-major cp.async block (gemm_cpasync_kernel.hpp) reads four k of one row
// per LDS.128 instead, which holds 64 operand registers per chunk of K where this block holds 16
// per k (docs/gemm-log.md, "Seventeenth session").
//
// Preconditions checked by the dispatcher: K, lda and ldb are multiples of 4 elements, and A and
// B are 16-byte aligned.
#pragma once

#include <cstdint>
#include <utility>

#include "fly/arch/copy.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "fly/atom/mma_traits_sm90.hpp"
#include "fly/tiled.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_staging.hpp"

namespace fly::kernels {

// The positions of a mode of extent E shared by W threads, permuted so that thread t owns
// 4t + j + 4W i (j < 4): with the plain tiling it would own t + W i, no two of them adjacent.
template <int W, int E>
using RunsOfFour = Layout<Shape<Int<W>, _4, Int<E / (4 * W)>>, Stride<_4, _1, Int<4 * W>>>;

template <class WarpLayout, int BM_, int BN_, int BK_, class TD>
struct GemmSimtBlock {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WM = int(decltype(size<0>(WarpLayout{}))::value);
  static constexpr int WN = int(decltype(size<1>(WarpLayout{}))::value);
  static_assert(int(decltype(size<2>(WarpLayout{}))::value) == 1, "GemmSimtBlock: no k-groups");
  static_assert(BM % (4 * WM) == 0 && BN % (4 * WN) == 0,
                "GemmSimtBlock: each thread's rows and columns come in whole runs of four");
  using Mma = TiledMMA<SM90_FMA_F32, WarpLayout, Tile<RunsOfFour<WM, BM>, RunsOfFour<WN, BN>, Underscore>>;
  using TA = float;
  using Acc = float;
  static constexpr int threads = Mma::num_threads;
  static constexpr int vec = 4;  // floats in a 16-byte load
  static_assert(BK % vec == 0, "GemmSimtBlock: BK must be a whole number of 16-byte vectors");

  // [k][m] and [k][n], rows padded by four floats: a warp's transposed stores (16 rows by 2
  // vectors of K at BK = 8) then land in 32 different banks, and each row stays 16-byte aligned.
  // At BK = 16 (8 rows by 4 vectors) vectors 0 and 2 share banks: 2-way, on 16 stores a k-tile.
  static constexpr int ld_a = BM + 4, ld_b = BN + 4;
  static constexpr int buffer_elems = BK * (ld_a + ld_b);
  static constexpr int smem_bytes = 2 * buffer_elems * int(sizeof(float));
  template <int Rows, int Ld>
  using SmemLayout = Layout<Shape<Int<Rows>, Int<BK>>, Stride<_1, Int<Ld>>>;

  using LoadAtom = Copy_Atom<UniversalCopy128b, float>;   // global -> registers, along K
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

  // smem: smem_bytes of dynamic shared memory, 16-byte aligned.
  FLY_HD static void run(GemmParams const& p, float* smem, int block_m, int block_n, int thr) {
    auto thr_mma = Mma{}.get_slice(thr);
    const int m0 = block_m * BM, n0 = block_n * BN;
    const int m_left = p.m - m0, n_left = p.n - n0;
    float const* A = static_cast<float const*>(p.a) + int64_t(m0) * p.lda;
    float const* B = static_cast<float const*>(p.b) + int64_t(n0) * p.ldb;
    const int k_tiles = (p.k + BK - 1) / BK;

    auto smem_a = [&](int buf) { return make_tensor(smem + buf * buffer_elems, SmemLayout<BM, ld_a>{}); };
    auto smem_b = [&](int buf) { return make_tensor(smem + buf * buffer_elems + BK * ld_a, SmemLayout<BN, ld_b>{}); };
    Stage<BM, ld_a> stage_a;
    Stage<BN, ld_b> stage_b;
    auto load = [&](int kt) {
      stage_a.load(A + kt * BK, p.lda, m_left, p.k - kt * BK, thr);
      stage_b.load(B + kt * BK, p.ldb, n_left, p.k - kt * BK, thr);
      if (kt == k_tiles - 1 && p.let_next_start) launch_next_grid();  // the block's last loads are issued
    };
    auto store = [&](int buf) {
      stage_a.store(smem_a(buf), thr);
      stage_b.store(smem_b(buf), thr);
    };

    auto acc = thr_mma.partition_fragment_C(make_tensor(static_cast<TD*>(p.d), make_shape(Int<BM>{}, Int<BN>{})));
    fill(acc, Acc(0));
    if (k_tiles > 0) {
      load(0);
      store(0);
    }
    sync_threads();
    for (int kt = 0; kt < k_tiles; ++kt) {
      if (kt + 1 < k_tiles) load(kt + 1);  // in flight while tile kt is multiplied
      auto tA = thr_mma.partition_A(smem_a(kt % 2));
      auto tB = thr_mma.partition_B(smem_b(kt % 2));
      auto fA = thr_mma.make_fragment_A(tA);
      auto fB = thr_mma.make_fragment_B(tB);
      copy(FragAtom{}, tA, fA);
      copy(FragAtom{}, tB, fB);
      gemm(Mma{}, acc, fA, fB, acc);  // k-outer (fly::gemm's order)
      if (kt + 1 < k_tiles) store((kt + 1) % 2);  // the buffer tile kt - 1 was read from
      sync_threads();  // tile kt + 1 stored, and everyone done with tile kt before it is overwritten
    }
    store_tile<TD, BM, BN>(thr_mma, acc, p, m0, n0);
  }
};

}  // namespace fly::kernels
