// A block-tile GEMM written only with the tiled API: C(M,N) = A(M,K) * B(N,K)^T, fp32 accumulate.
// A and B are row-major (K contiguous), loaded with make_tiled_copy_A/B of a copy atom into the
// TiledMMA's fragments; C is written with the TiledMMA's partition of C. The same body is the
// device kernel (HIP and CUDA) and, thread by thread, the host functional model's partitioning.
#pragma once

#include "fly/arch/copy_gfx942.hpp"
#include "fly/tiled.hpp"

namespace fly_test {

using namespace fly;

template <class MmaOp, class WarpLayout, class Permutation, int M_, int N_, int K_, class CopyOpA, class CopyOpB>
struct GemmTile {
  static constexpr int M = M_;
  static constexpr int N = N_;
  static constexpr int K = K_;
  using Mma = TiledMMA<MmaOp, WarpLayout, Permutation>;
  using TA = typename Mma::ValTypeA;
  using TB = typename Mma::ValTypeB;
  using TC = typename Mma::ValTypeC;
  static constexpr int threads = Mma::num_threads;

  FLY_HD static auto layout_a() { return make_layout(make_shape(Int<M>{}, Int<K>{}), make_stride(Int<K>{}, _1{})); }
  FLY_HD static auto layout_b() { return make_layout(make_shape(Int<N>{}, Int<K>{}), make_stride(Int<K>{}, _1{})); }
  FLY_HD static auto layout_c() { return make_layout(make_shape(Int<M>{}, Int<N>{}), make_stride(Int<N>{}, _1{})); }

  // This thread's A values, in the registers the MMA reads them from. `a` is a pointer or a
  // buffer_ptr (for buffer loads).
  template <class ItA>
  FLY_HD static auto load_a(int thr, ItA a) {
    auto gA = make_tensor(a, layout_a());
    auto copy_a = make_tiled_copy_A(Copy_Atom<CopyOpA, TA>{}, Mma{});
    auto thr_copy = copy_a.get_slice(thr);
    auto fA = Mma{}.get_slice(thr).partition_fragment_A(gA);
    copy(copy_a, thr_copy.partition_S(gA), thr_copy.retile_D(fA));
    return fA;
  }
  template <class ItB>
  FLY_HD static auto load_b(int thr, ItB b) {
    auto gB = make_tensor(b, layout_b());
    auto copy_b = make_tiled_copy_B(Copy_Atom<CopyOpB, TB>{}, Mma{});
    auto thr_copy = copy_b.get_slice(thr);
    auto fB = Mma{}.get_slice(thr).partition_fragment_B(gB);
    copy(copy_b, thr_copy.partition_S(gB), thr_copy.retile_D(fB));
    return fB;
  }
  FLY_HD static auto make_c(int thr, TC* c) {
    auto gC = make_tensor(c, layout_c());
    auto fC = Mma{}.get_slice(thr).partition_fragment_C(gC);
    fill(fC, TC(0));
    return fC;
  }
  template <class FragC>
  FLY_HD static void store_c(int thr, FragC& fC, TC* c) {
    auto gC = make_tensor(c, layout_c());
    auto copy_c = make_tiled_copy_C(Copy_Atom<UniversalCopy32b, TC>{}, Mma{});
    auto thr_copy = copy_c.get_slice(thr);
    copy(copy_c, thr_copy.retile_S(fC), thr_copy.partition_D(gC));
  }

  // The whole kernel body for one thread (device only: the MMA is a wave/warp instruction).
  template <class ItA, class ItB>
  FLY_HD static void run(int thr, ItA a, ItB b, TC* c) {
    auto fA = load_a(thr, a);
    auto fB = load_b(thr, b);
    auto fC = make_c(thr, c);
    gemm(Mma{}, fC, fA, fB, fC);
    store_c(thr, fC, c);
  }
};

}  // namespace fly_test
