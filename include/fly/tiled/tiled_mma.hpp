// TiledMMA: an MMA atom repeated over a layout of warps (wavefronts), optionally over a permuted
// tile. It partitions tensors among threads exactly as the instruction distributes values:
//   partition_A(gA): (MMA_V, MMA_M, MMA_K) - this thread's values of A, atom by atom
//   partition_B(gB): (MMA_V, MMA_N, MMA_K)
//   partition_C(gC): (MMA_V, MMA_M, MMA_N)
// with MMA_V the atom's values per thread, and make_fragment_* the matching register tensors.
#pragma once

#include "fly/atom/mma_atom.hpp"
#include "fly/tensor/tensor.hpp"

namespace fly {

template <class Op, class WarpLayout = Layout<Shape<_1, _1, _1>>, class Permutation = Tile<Underscore, Underscore, Underscore>>
struct TiledMMA {
  using Atom = MMA_Atom<Op>;
  using Traits = MMA_Traits<Op>;
  using ValTypeA = typename Atom::ValTypeA;
  using ValTypeB = typename Atom::ValTypeB;
  using ValTypeC = typename Atom::ValTypeC;
  using ValTypeD = typename Atom::ValTypeD;

  static constexpr int AtomM = int(decltype(size<0>(typename Atom::Shape_MNK{}))::value);
  static constexpr int AtomN = int(decltype(size<1>(typename Atom::Shape_MNK{}))::value);
  static constexpr int AtomK = int(decltype(size<2>(typename Atom::Shape_MNK{}))::value);
  static constexpr int AtomThreads = int(decltype(size(typename Atom::ThrID{}))::value);
  static constexpr int WarpsM = int(decltype(size<0>(WarpLayout{}))::value);
  static constexpr int WarpsN = int(decltype(size<1>(WarpLayout{}))::value);
  static constexpr int WarpsK = int(decltype(size<2>(WarpLayout{}))::value);
  static constexpr int num_threads = AtomThreads * WarpsM * WarpsN * WarpsK;
  static_assert(rank_v<typename WarpLayout::shape_type> == 3, "fly::TiledMMA: the warp layout is (M, N, K)");

  // Warp w's coordinate in mode I of the warp layout, as CuTe's TiledMMA reads its thread layout:
  // the layout maps a warp's (m, n, k) to its index, so each leaf of the mode is (w / stride) %
  // shape, and a mode's leaves flatten colexicographically. The default compact layout is plain
  // idx2crd over the shape; other strides place the warps otherwise (e.g. the fp32 FMA atom's
  // one-thread "warps" as 4 x 8 lanes of each hardware warp).
  template <int I>
  FLY_HD static int warp_coord(int w) {
    using S = decltype(flatten_to_tuple(get<I>(typename WarpLayout::shape_type{})));
    using D = decltype(flatten_to_tuple(get<I>(typename WarpLayout::stride_type{})));
    return [w]<int... L>(seq<L...>) {
      constexpr int extent[] = {int(std::tuple_element_t<L, S>::value)...};
      constexpr int step[] = {int(std::tuple_element_t<L, D>::value)...};
      int coord = 0, scale = 1;
      for (int l = 0; l < int(sizeof...(L)); ++l) {
        if (step[l] != 0) coord += w / step[l] % extent[l] * scale;
        scale *= extent[l];
      }
      return coord;
    }(make_seq<rank_v<S>>{});
  }

  // (atom thread, warp m, warp n, warp k) of a thread index. A compact layout of three integer
  // modes (every grid cell but the SIMT block's lane cells) keeps idx2crd's arithmetic, which
  // warp_coord equals there: its kernels' SASS stays as it was.
  FLY_HD static auto thread_coord(int thr) {
    const int w = thr / AtomThreads;
    using S = typename WarpLayout::shape_type;
    if constexpr (std::is_same_v<WarpLayout, Layout<S>> && decltype(depth(S{}))::value == 1) {
      auto c = idx2crd(w, S{});
      return make_tuple(thr % AtomThreads, int(get<0>(c)), int(get<1>(c)), int(get<2>(c)));
    } else {
      return make_tuple(thr % AtomThreads, warp_coord<0>(w), warp_coord<1>(w), warp_coord<2>(w));
    }
  }

  // ((AtomThr, AtomVal), ((Warps0, Rest0), (Warps1, Rest1))) for an operand tile (X, Y).
  template <class L, class AtomTV, int AX, int AY, int W0, int W1, class P0, class P1>
  FLY_HD static auto thrfrg(L const& l, AtomTV const& tv, P0 const& p0, P1 const& p1) {
    auto permuted = logical_divide(l, make_tile(p0, p1));
    auto tiled = zipped_divide(permuted, make_shape(Int<AX>{}, Int<AY>{}));
    auto atoms = make_layout(composition(get<0>(tiled), tv), get<1>(tiled));
    return make_layout(get<0>(atoms), logical_divide(get<1>(atoms), make_tile(Int<W0>{}, Int<W1>{})));
  }
  template <class L>
  FLY_HD static auto thrfrg_A(L const& l) {
    return thrfrg<L, typename Atom::ALayout, AtomM, AtomK, WarpsM, WarpsK>(l, typename Atom::ALayout{}, get<0>(Permutation{}),
                                                                           get<2>(Permutation{}));
  }
  template <class L>
  FLY_HD static auto thrfrg_B(L const& l) {
    return thrfrg<L, typename Atom::BLayout, AtomN, AtomK, WarpsN, WarpsK>(l, typename Atom::BLayout{}, get<1>(Permutation{}),
                                                                           get<2>(Permutation{}));
  }
  template <class L>
  FLY_HD static auto thrfrg_C(L const& l) {
    return thrfrg<L, typename Atom::CLayout, AtomM, AtomN, WarpsM, WarpsN>(l, typename Atom::CLayout{}, get<0>(Permutation{}),
                                                                           get<1>(Permutation{}));
  }

  template <class E, class L, class Frg>
  FLY_HD static auto partition_by(Tensor<E, L>& t, Frg const& frg, int atom_thr, int w0, int w1) {
    auto [sub, off] = slice_and_offset(make_coord(make_coord(atom_thr, _), make_coord(make_coord(w0, _), make_coord(w1, _))), frg);
    return make_tensor(t.data() + off, sub);
  }

  // (sub-layout, offset) of this thread's part of a layout: what partition_* does to a tensor.
  // Kernels partition a static coordinate layout with it to find each value's (row, column).
  template <class L, class Frg>
  FLY_HD static auto partition_layout_by(L const&, Frg const& frg, int atom_thr, int w0, int w1) {
    return slice_and_offset(make_coord(make_coord(atom_thr, _), make_coord(make_coord(w0, _), make_coord(w1, _))), frg);
  }

  struct ThrMMA {
    int thr;
    template <class L>
    FLY_HD auto partition_layout_A(L const& l) const {
      auto c = thread_coord(thr);
      return partition_layout_by(l, thrfrg_A(l), get<0>(c), get<1>(c), get<3>(c));
    }
    template <class L>
    FLY_HD auto partition_layout_B(L const& l) const {
      auto c = thread_coord(thr);
      return partition_layout_by(l, thrfrg_B(l), get<0>(c), get<2>(c), get<3>(c));
    }
    template <class L>
    FLY_HD auto partition_layout_C(L const& l) const {
      auto c = thread_coord(thr);
      return partition_layout_by(l, thrfrg_C(l), get<0>(c), get<1>(c), get<2>(c));
    }
    template <class E, class L>
    FLY_HD auto partition_A(Tensor<E, L>& a) const {
      auto c = thread_coord(thr);
      return partition_by(a, thrfrg_A(a.layout()), get<0>(c), get<1>(c), get<3>(c));
    }
    template <class E, class L>
    FLY_HD auto partition_B(Tensor<E, L>& b) const {
      auto c = thread_coord(thr);
      return partition_by(b, thrfrg_B(b.layout()), get<0>(c), get<2>(c), get<3>(c));
    }
    template <class E, class L>
    FLY_HD auto partition_C(Tensor<E, L>& cc) const {
      auto c = thread_coord(thr);
      return partition_by(cc, thrfrg_C(cc.layout()), get<0>(c), get<1>(c), get<2>(c));
    }
    template <class T>
    FLY_HD auto partition_A(T&& a) const { return partition_A(a); }
    template <class T>
    FLY_HD auto partition_B(T&& b) const { return partition_B(b); }
    template <class T>
    FLY_HD auto partition_C(T&& c) const { return partition_C(c); }

    // Register tensors for this thread's partitions: values of one atom contiguous, then M/N/K.
    template <class T>
    FLY_HD auto partition_fragment_A(T&& a) const { return make_fragment_A(partition_A(a)); }
    template <class T>
    FLY_HD auto partition_fragment_B(T&& b) const { return make_fragment_B(partition_B(b)); }
    template <class T>
    FLY_HD auto partition_fragment_C(T&& c) const { return make_fragment_C(partition_C(c)); }
    template <class T>
    FLY_HD auto make_fragment_A(T const& part) const { return make_tensor<ValTypeA>(make_layout(part.shape())); }
    template <class T>
    FLY_HD auto make_fragment_B(T const& part) const { return make_tensor<ValTypeB>(make_layout(part.shape())); }
    template <class T>
    FLY_HD auto make_fragment_C(T const& part) const { return make_tensor<ValTypeC>(make_layout(part.shape())); }
  };

  FLY_HD ThrMMA get_slice(int thr) const { return ThrMMA{thr}; }
  FLY_HD ThrMMA get_thread_slice(int thr) const { return ThrMMA{thr}; }
};

// make_tiled_mma(atom, warp_layout[, permutation])
template <class Op, class WarpLayout = Layout<Shape<_1, _1, _1>>, class Permutation = Tile<Underscore, Underscore, Underscore>>
FLY_HD auto make_tiled_mma(MMA_Atom<Op> const&, WarpLayout const& = {}, Permutation const& = {}) {
  return TiledMMA<Op, WarpLayout, Permutation>{};
}
template <class Op, class WarpLayout = Layout<Shape<_1, _1, _1>>, class Permutation = Tile<Underscore, Underscore, Underscore>,
          std::enable_if_t<!is_layout_v<Op>, int> = 0>
FLY_HD auto make_tiled_mma(Op const&, WarpLayout const& = {}, Permutation const& = {}) {
  return TiledMMA<Op, WarpLayout, Permutation>{};
}

namespace detail {
// One atom of the k-outer, m, n loop: the first k step (First) reads C, later ones accumulate into D.
template <class Op, bool First, class TD, class TA, class TB, class TC>
FLY_HD void gemm_step(TD& d, TA const& a, TB const& b, TC const& c, int m, int n, int k) {
  if constexpr (First) {
    MMA_Atom<Op>::call(d(_, m, n), a(_, m, k), b(_, n, k), c(_, m, n));
  } else {
    MMA_Atom<Op>::call(d(_, m, n), a(_, m, k), b(_, n, k), d(_, m, n));
  }
}

// D = A * B^T + C over (MMA_V, MMA_M, MMA_K) fragments, k-outer.
template <class Op, class W, class P, class TD, class TA, class TB, class TC>
FLY_HD void gemm_k_steps(TiledMMA<Op, W, P> const&, TD&& d, TA const& a, TB const& b, TC const& c) {
  constexpr int M = int(decltype(size<1>(a))::value);
  constexpr int N = int(decltype(size<1>(b))::value);
  constexpr int K = int(decltype(size<2>(a))::value);
  static_assert(int(decltype(size<2>(b))::value) == K, "fly::gemm: A and B fragments differ in K");
  static_assert(int(decltype(size<1>(d))::value) == M && int(decltype(size<2>(d))::value) == N,
                "fly::gemm: the C/D fragment is not (MMA_V, MMA_M, MMA_N) of A and B");
  if constexpr (M * N * K <= 256) {
    [&]<int... I>(seq<I...>) {
      (gemm_step<Op, (I < M * N)>(d, a, b, c, (I / N) % M, I % N, I / (M * N)), ...);
    }(make_seq<M * N * K>{});
  } else {
    // Unrolled loops, as CuTe's gemm: every index is a constant once unrolled, so the SASS of the
    // MMA loop is the same as the fold's, and nvcc's optimiser takes 7 s on the 1024-FMA SIMT tile,
    // not 23 (one fold that size took 8 s of it). Small fragments keep the fold: on the direct-load
    // cells a loop moved 13-16 integer instructions into the k-loop.
    FLY_UNROLL
    for (int k = 0; k < K; ++k) {
      FLY_UNROLL
      for (int m = 0; m < M; ++m) {
        FLY_UNROLL
        for (int n = 0; n < N; ++n) {
          if (k == 0) {
            gemm_step<Op, true>(d, a, b, c, m, n, k);
          } else {
            gemm_step<Op, false>(d, a, b, c, m, n, k);
          }
        }
      }
    }
  }
}
}  // namespace detail

// gemm(mma, D, A, B, C): D = A * B^T + C over register fragments (MMA_V, MMA_M, MMA_K) etc.;
// fragments of one k-step, (MMA_V, MMA_M) and (MMA_V, MMA_N), are a K of 1 (as CuTe's gemm).
template <class Op, class W, class P, class TD, class TA, class TB, class TC>
FLY_HD void gemm(TiledMMA<Op, W, P> const& mma, TD&& d, TA const& a, TB const& b, TC const& c) {
  if constexpr (decltype(rank(a.layout()))::value == 2) {
    static_assert(decltype(rank(b.layout()))::value == 2, "fly::gemm: A is one k-step's fragment, B is not");
    gemm(mma, d, make_tensor(a.data(), append<3>(a.layout())), make_tensor(b.data(), append<3>(b.layout())), c);
  } else {
    detail::gemm_k_steps(mma, d, a, b, c);
  }
}

// gemm(mma, A, B, C): C += A * B^T
template <class Op, class W, class P, class TA, class TB, class TC>
FLY_HD void gemm(TiledMMA<Op, W, P> const& mma, TA const& a, TB const& b, TC&& c) {
  gemm(mma, c, a, b, c);
}

}  // namespace fly
