// Tiled copies: which thread moves which values of a tile.
//  - make_tiled_copy(atom, thr_layout, val_layout): threads laid out by thr_layout, each moving the
//    values of val_layout (CuTe's raked thread-value arrangement).
//  - make_tiled_copy_A/B/C(atom, tiled_mma): exactly the values the MMA's threads own, so a copy
//    lands each value in the register the instruction reads it from (retile is then the identity).
// get_slice(thr).partition_S(src) / partition_D(dst) give a thread's view; fly::copy moves it.
#pragma once

#include "fly/tiled/copy.hpp"
#include "fly/tiled/tiled_mma.hpp"

namespace fly {

template <class Atom, class LayoutTV, class Tiler>
struct TiledCopy {
  using atom_type = Atom;
  static constexpr int num_threads = int(decltype(size<0>(LayoutTV{}))::value);

  // (sub-layout, offset) of thread thr's part of a layout: what partition_S/D does to a tensor.
  // Kernels partition a static coordinate layout with it to find each value's (row, column).
  template <class L>
  FLY_HD static auto partition_layout(L const& l, int thr) {
    auto z = zipped_divide(l, Tiler{});
    auto tv = make_layout(composition(get<0>(z), LayoutTV{}), get<1>(z));
    using Rest = std::remove_cvref_t<decltype(get<1>(z).shape())>;
    auto rest_coord = [] {
      if constexpr (is_tuple_v<Rest>) {
        return tuple_repeat<rank_v<Rest>>(_);
      } else {
        return _;
      }
    }();
    return slice_and_offset(make_coord(make_coord(thr, _), rest_coord), tv);
  }

  template <class E, class L>
  FLY_HD static auto partition(Tensor<E, L>& t, int thr) {
    auto [sub, off] = partition_layout(t.layout(), thr);
    return make_tensor(t.data() + off, sub);
  }

  struct ThrCopy {
    int thr;
    template <class T>
    FLY_HD auto partition_S(T&& src) const { return partition(src, thr); }
    template <class T>
    FLY_HD auto partition_D(T&& dst) const { return partition(dst, thr); }
    template <class L>
    FLY_HD auto partition_layout(L const& l) const { return TiledCopy::partition_layout(l, thr); }
    template <class T>
    FLY_HD auto retile_S(T&& t) const { return make_view(t, t.layout()); }
    template <class T>
    FLY_HD auto retile_D(T&& t) const { return make_view(t, t.layout()); }
  };
  FLY_HD ThrCopy get_slice(int thr) const { return ThrCopy{thr}; }
  FLY_HD ThrCopy get_thread_slice(int thr) const { return ThrCopy{thr}; }
};

template <class Op, class T, class TL, class VL>
FLY_HD auto make_tiled_copy(Copy_Atom<Op, T> const&, TL const& thr_layout, VL const& val_layout = {}) {
  auto layout_mn = raked_product(thr_layout, val_layout);
  auto layout_tv = composition(right_inverse(layout_mn), make_layout(make_shape(size(thr_layout), size(val_layout))));
  auto tiler = product_each(layout_mn.shape());
  return TiledCopy<Copy_Atom<Op, T>, decltype(layout_tv), decltype(tiler)>{};
}

enum class MmaOperand { A, B, C };

// A copy that follows a TiledMMA's partitioning of one operand.
template <class Atom, class TiledMma, MmaOperand Which>
struct TiledCopyMMA {
  using atom_type = Atom;
  static constexpr int num_threads = TiledMma::num_threads;

  struct ThrCopy {
    typename TiledMma::ThrMMA mma;
    template <class T>
    FLY_HD auto partition(T&& t) const {
      if constexpr (Which == MmaOperand::A) {
        return mma.partition_A(t);
      } else if constexpr (Which == MmaOperand::B) {
        return mma.partition_B(t);
      } else {
        return mma.partition_C(t);
      }
    }
    template <class T>
    FLY_HD auto partition_S(T&& src) const { return partition(src); }
    template <class T>
    FLY_HD auto partition_D(T&& dst) const { return partition(dst); }
    // A fragment made by the TiledMMA already has the copy's value order.
    template <class T>
    FLY_HD auto retile(T&& frag) const { return make_view(frag, frag.layout()); }
    template <class T>
    FLY_HD auto retile_S(T&& frag) const { return retile(frag); }
    template <class T>
    FLY_HD auto retile_D(T&& frag) const { return retile(frag); }
  };
  FLY_HD ThrCopy get_slice(int thr) const { return ThrCopy{TiledMma{}.get_slice(thr)}; }
  FLY_HD ThrCopy get_thread_slice(int thr) const { return get_slice(thr); }
};

template <class Op, class T, class MOp, class W, class P>
FLY_HD auto make_tiled_copy_A(Copy_Atom<Op, T> const&, TiledMMA<MOp, W, P> const&) {
  return TiledCopyMMA<Copy_Atom<Op, T>, TiledMMA<MOp, W, P>, MmaOperand::A>{};
}
template <class Op, class T, class MOp, class W, class P>
FLY_HD auto make_tiled_copy_B(Copy_Atom<Op, T> const&, TiledMMA<MOp, W, P> const&) {
  return TiledCopyMMA<Copy_Atom<Op, T>, TiledMMA<MOp, W, P>, MmaOperand::B>{};
}
template <class Op, class T, class MOp, class W, class P>
FLY_HD auto make_tiled_copy_C(Copy_Atom<Op, T> const&, TiledMMA<MOp, W, P> const&) {
  return TiledCopyMMA<Copy_Atom<Op, T>, TiledMMA<MOp, W, P>, MmaOperand::C>{};
}

// copy(tiled_copy, src, dst): the atom of the tiled copy applied to a thread's partitions.
template <class Atom, class TM, MmaOperand W, class Src, class Dst>
FLY_HD void copy(TiledCopyMMA<Atom, TM, W> const&, Src const& src, Dst&& dst) {
  copy(Atom{}, src, dst);
}
template <class Atom, class TV, class Tl, class Src, class Dst>
FLY_HD void copy(TiledCopy<Atom, TV, Tl> const&, Src const& src, Dst&& dst) {
  copy(Atom{}, src, dst);
}

}  // namespace fly
