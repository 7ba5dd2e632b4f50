// The GEMM block kernel, one body for every target, written on the tiled API:
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]   (fp32 accumulate)
// A, B, C, D row-major with leading dimensions. A block computes one BM x BN tile of D, stepping
// over K by BK; each k-step loads this thread's A and B values straight from global memory into
// the MMA's registers with the tile's copy atoms (decode GEMMs read every weight once, so there is
// no reuse for shared memory to buy), and runs the TiledMMA. Tiles on the M/N edges and the last
// K step use predicated copies into zeroed fragments; the others run unpredicated.
//
// Preconditions checked by the dispatcher (src/dispatch): lda, ldb and K are multiples of the
// copy atoms' vector width in elements, and A, B are aligned to it.
#pragma once

#include <cstdint>

#include "fly/arch/copy_gfx942.hpp"
#include "fly/numeric/numeric.hpp"
#include "fly/tiled.hpp"
#include "gemm_epilogue.hpp"

namespace fly::kernels {

template <class MmaOp, class WarpLayout, class Permutation, int BM_, int BN_, int BK_, class CopyOpA, class CopyOpB,
          class TD>
struct GemmBlock {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  using Mma = TiledMMA<MmaOp, WarpLayout, Permutation>;
  using TA = typename Mma::ValTypeA;
  using TB = typename Mma::ValTypeB;
  using Acc = typename Mma::ValTypeC;
  static constexpr int threads = Mma::num_threads;

  // Where a copy atom reads from: a pointer, or for gfx942 buffer loads a buffer descriptor over
  // the `elems` elements from p on (reads past them return zero).
  template <class CopyOp, class T>
  FLY_HD static auto source(T const* p, int64_t elems) {
    if constexpr (is_buffer_load<CopyOp>::value) {
      return make_buffer_ptr(p, uint32_t(elems));
    } else {
      (void)elems;
      return p;
    }
  }
  template <class Op>
  struct is_buffer_load : std::false_type {};
  template <int Bits>
  struct is_buffer_load<GFX942_BufferLoad<Bits>> : std::true_type {};

  // The zero of an element type (fp8/bf16/half by bits; float plainly).
  template <class T>
  FLY_HD static T zero() {
    if constexpr (std::is_same_v<T, float>) {
      return 0.f;
    } else {
      return T::from_bits(0);
    }
  }

  FLY_HD static void run(GemmParams const& p, int block_m, int block_n, int thr) {
    auto thr_mma = Mma{}.get_slice(thr);
    const int m0 = block_m * BM, n0 = block_n * BN;
    const int m_left = p.m - m0, n_left = p.n - n0;
    const bool full_mn = m_left >= BM && n_left >= BN;
    // the block's own rows (a gfx942 launch keeps a tile's span below 2^31 bytes)
    auto A = source<CopyOpA>(static_cast<TA const*>(p.a) + int64_t(m0) * p.lda,
                             int64_t((m_left < BM ? m_left : BM) - 1) * p.lda + p.k);
    auto B = source<CopyOpB>(static_cast<TB const*>(p.b) + int64_t(n0) * p.ldb,
                             int64_t((n_left < BN ? n_left : BN) - 1) * p.ldb + p.k);

    // (row, k) of every value this thread owns, from a static row-major coordinate layout
    auto [coord_a, coord_a0] = thr_mma.partition_layout_A(make_layout(make_shape(Int<BM>{}, Int<BK>{}), make_stride(Int<BK>{}, _1{})));
    auto [coord_b, coord_b0] = thr_mma.partition_layout_B(make_layout(make_shape(Int<BN>{}, Int<BK>{}), make_stride(Int<BK>{}, _1{})));
    // this thread's base (row, k) once; each value adds a compile-time (row, k) to it
    const int ra0 = int(coord_a0) / BK, ca0 = int(coord_a0) % BK;
    const int rb0 = int(coord_b0) / BK, cb0 = int(coord_b0) % BK;
    auto shape_a = make_shape(Int<BM>{}, Int<BK>{});
    auto shape_b = make_shape(Int<BN>{}, Int<BK>{});

    auto gD0 = make_tensor(static_cast<TD*>(p.d), make_layout(make_shape(Int<BM>{}, Int<BN>{}), make_stride(p.ldd, _1{})));
    auto acc = thr_mma.partition_fragment_C(gD0);
    fill(acc, Acc(0));

    for (int k0 = 0; k0 < p.k; k0 += BK) {
      const int k_left = p.k - k0;
      auto gA = make_tensor(A + k0, make_layout(shape_a, make_stride(p.lda, _1{})));
      auto gB = make_tensor(B + k0, make_layout(shape_b, make_stride(p.ldb, _1{})));
      auto tA = thr_mma.partition_A(gA);
      auto tB = thr_mma.partition_B(gB);
      auto fA = thr_mma.make_fragment_A(tA);
      auto fB = thr_mma.make_fragment_B(tB);
      if (full_mn && k_left >= BK) {
        copy(Copy_Atom<CopyOpA, TA>{}, tA, fA);
        copy(Copy_Atom<CopyOpB, TB>{}, tB, fB);
      } else {
        fill(fA, zero<TA>());
        fill(fB, zero<TB>());
        copy(Copy_Atom<CopyOpA, TA>{}, tA, fA, [&](int i) {
          const int at = int(coord_a(i));  // a constant once unrolled
          return ra0 + at / BK < m_left && ca0 + at % BK < k_left;
        });
        copy(Copy_Atom<CopyOpB, TB>{}, tB, fB, [&](int i) {
          const int at = int(coord_b(i));
          return rb0 + at / BK < n_left && cb0 + at % BK < k_left;
        });
      }
      gemm(Mma{}, acc, fA, fB, acc);
    }

    store_tile<TD, BM, BN>(thr_mma, acc, p, m0, n0);
  }
};

}  // namespace fly::kernels
