// fly::copy(atom, src, dst[, pred]): move a partition of values with the widest accesses the
// atom's instruction family allows on these layouts.
//
// The vector is the longest run of logical elements that is contiguous in both tensors (CuTe's
// max_common_layout), capped at the atom's width. A narrower run than the atom's width splits the
// copy into the widest legal accesses of the same family (e.g. a 128-bit buffer load over 8-byte
// runs becomes 64-bit buffer loads); a run narrower than the family's minimum width is rejected at
// compile time by a static_assert naming the atom, the element type and the layouts.
// Dynamic strides of the memory side are assumed to be multiples of the vector width (the
// dispatcher checks leading dimensions before choosing a vectorised variant).
#pragma once

#include "fly/atom/copy_atom.hpp"
#include "fly/tensor/tensor.hpp"

namespace fly {

namespace detail {

// Number of leading elements of `common` (a static-b offset -> a offset map) that are contiguous.
template <class L>
FLY_HOST_DEVICE constexpr int contiguous_run() {
  using S0 = std::remove_cvref_t<decltype(get<0>(flatten_to_tuple(std::declval<L>().shape())))>;
  using D0 = std::remove_cvref_t<decltype(get<0>(flatten_to_tuple(std::declval<L>().stride())))>;
  if constexpr (is_static_v<S0> && is_constant_v<1, D0>) {
    return int(S0::value);
  } else {
    return 1;  // a dynamic extent or stride proves no run
  }
}

FLY_HOST_DEVICE constexpr int largest_pow2_dividing(int n, int cap) {
  int v = 1;
  while (v * 2 <= cap && n % (v * 2) == 0) v *= 2;
  return v;
}

// Every leaf stride of a static layout is a multiple of vec (a dynamic stride is trusted).
template <class D>
FLY_HOST_DEVICE constexpr bool strides_multiple_of(int vec) {
  bool ok = true;
  for_each_leaf(D{}, [&](auto d) {
    if constexpr (is_static_v<decltype(d)>) ok = ok && (int(d) % vec == 0);
  });
  return ok;
}

template <class Op, class T, class StaticL, class OtherL>
struct copy_plan {
  static constexpr int elem_bits = sizeof_bits_v<T>;
  using inv_type = decltype(right_inverse(std::declval<StaticL>()));
  using common_type = decltype(coalesce(composition(std::declval<OtherL>(), std::declval<inv_type>())));
  static constexpr int run = contiguous_run<common_type>();
  static constexpr int full = int(decltype(size(std::declval<StaticL>()))::value);
  static constexpr int cap = Op::bits / elem_bits;
  static constexpr int vec0 = largest_pow2_dividing(run < full ? run : full, cap);
  // alignment: each vector must start on a multiple of its width on both sides
  template <int V>
  FLY_HOST_DEVICE static constexpr bool aligned() {
    using VL = decltype(composition(std::declval<inv_type>(), make_layout(Int<V>{})));
    using SD = decltype(logical_divide(std::declval<StaticL>(), std::declval<VL>()));
    using OD = decltype(logical_divide(std::declval<OtherL>(), std::declval<VL>()));
    return strides_multiple_of<std::remove_cvref_t<decltype(get<1>(std::declval<SD>()).stride())>>(V) &&
           strides_multiple_of<std::remove_cvref_t<decltype(get<1>(std::declval<OD>()).stride())>>(V);
  }
  // the widest V <= vec0 at which both sides are aligned (only feasible widths are instantiated)
  template <int V>
  FLY_HOST_DEVICE static constexpr int pick() {
    if constexpr (V <= 1) {
      return 1;
    } else if constexpr (aligned<V>()) {
      return V;
    } else {
      return pick<V / 2>();
    }
  }
  static constexpr int vec = pick<vec0>();
  static constexpr int vec_bits = vec * elem_bits;
};

namespace diagnose {
template <class Atom, class ElementType, class SrcLayout, class DstLayout>
struct copy_operands {
  template <bool WideEnough>
  FLY_HOST_DEVICE static constexpr bool run_must_fit_the_atom() {
    static_assert(WideEnough,
                  "fly::copy(atom, src, dst): the longest run of elements contiguous (and aligned) in both src and "
                  "dst is narrower than the smallest access of the atom's instruction family. The atom, element "
                  "type and layouts are the template arguments of fly::diagnose::copy_operands above; use a "
                  "narrower atom (e.g. UniversalCopy) or a layout with longer contiguous runs.");
    return true;
  }
};
}  // namespace diagnose

// A predicate sees a vector's first logical index, or, as an offset predicate, its source offset
// (from which a kernel recovers row and column for tails).
template <class Pred>
struct offset_predicate {
  Pred pred;
};
template <class Pred, class Off>
FLY_HD bool copy_site_enabled(Pred const& pred, int logical, Off const&) {
  return pred(logical);
}
template <class Pred, class Off>
FLY_HD bool copy_site_enabled(offset_predicate<Pred> const& p, int, Off const& src_offset) {
  return p.pred(src_offset);
}

// A predicate whose false vectors are zero-filled (Op::copy_zfill) instead of left untouched.
template <class Pred>
struct zfill_predicate {
  Pred pred;
};

template <class Op, class Pred, class S, class D, class Off>
FLY_HD void copy_site(Pred const& pred, int logical, S src, D dst, Off const& src_offset) {
  if (copy_site_enabled(pred, logical, src_offset)) Op::copy(src, dst);
}
template <class Op, class Pred, class S, class D, class Off>
FLY_HD void copy_site(zfill_predicate<Pred> const& p, int logical, S src, D dst, Off const&) {
  Op::copy_zfill(src, dst, p.pred(logical));
}

template <class Atom, class SrcT, class DstT, class Pred>
FLY_HD void copy_impl(SrcT const& src, DstT&& dst, Pred const& pred) {
  using T = typename Atom::value_type;
  using SL = std::remove_cvref_t<decltype(src.layout())>;
  using DL = std::remove_cvref_t<decltype(dst.layout())>;
  static_assert(is_static_v<SL> || is_static_v<DL>,
                "fly::copy: at least one side (registers or shared memory) must have a static layout");
  constexpr bool dst_drives = is_static_v<DL>;
  using StaticL = std::conditional_t<dst_drives, DL, SL>;
  using OtherL = std::conditional_t<dst_drives, SL, DL>;
  using Plan = copy_plan<typename Atom::op_type, T, StaticL, OtherL>;
  static_assert(diagnose::copy_operands<Atom, T, SL, DL>::template run_must_fit_the_atom<
                (Plan::vec_bits >= Atom::op_type::min_bits)>());
  using Op = typename Atom::op_type::template with_bits<Plan::vec_bits>;

  StaticL const& sl = [&]() -> StaticL const& {
    if constexpr (dst_drives) { return dst.layout(); } else { return src.layout(); }
  }();
  auto vec_layout = composition(right_inverse(sl), make_layout(Int<Plan::vec>{}));
  auto s = logical_divide(src.layout(), vec_layout);
  auto d = logical_divide(dst.layout(), vec_layout);
  auto logical = logical_divide(make_layout(size(sl)), vec_layout);
  constexpr int n = int(decltype(size<1>(d))::value);
  [&]<int... I>(seq<I...>) {
    (copy_site<Op>(pred, int(logical(0, I)), src.data() + s(0, I), dst.data() + d(0, I), s(0, I)), ...);
  }(make_seq<n>{});
}

struct always_true {
  FLY_HD bool operator()(int) const { return true; }
};

}  // namespace detail

template <class Op, class T, class SE, class SL, class DE, class DL>
FLY_HD void copy(Copy_Atom<Op, T> const&, Tensor<SE, SL> const& src, Tensor<DE, DL>&& dst) {
  detail::copy_impl<Copy_Atom<Op, T>>(src, dst, detail::always_true{});
}
template <class Op, class T, class SE, class SL, class DE, class DL>
FLY_HD void copy(Copy_Atom<Op, T> const&, Tensor<SE, SL> const& src, Tensor<DE, DL>& dst) {
  detail::copy_impl<Copy_Atom<Op, T>>(src, dst, detail::always_true{});
}
// With a predicate: pred(i) for the logical index i of each vector's first element; a false
// predicate leaves that vector of dst untouched.
template <class Op, class T, class SE, class SL, class DE, class DL, class Pred>
FLY_HD void copy(Copy_Atom<Op, T> const&, Tensor<SE, SL> const& src, Tensor<DE, DL>& dst, Pred const& pred) {
  detail::copy_impl<Copy_Atom<Op, T>>(src, dst, pred);
}

// copy_if_src(atom, pred, src, dst): pred(offset) with the source offset (in elements, relative to
// src.data()) of each vector's first element; a false predicate leaves that vector of dst untouched.
template <class Op, class T, class Pred, class SE, class SL, class DE, class DL>
FLY_HD void copy_if_src(Copy_Atom<Op, T> const&, Pred const& pred, Tensor<SE, SL> const& src, Tensor<DE, DL>& dst) {
  detail::copy_impl<Copy_Atom<Op, T>>(src, dst, detail::offset_predicate<Pred>{pred});
}
template <class Op, class T, class Pred, class SE, class SL, class DE, class DL>
FLY_HD void copy_if_src(Copy_Atom<Op, T> const& atom, Pred const& pred, Tensor<SE, SL> const& src, Tensor<DE, DL>&& dst) {
  copy_if_src(atom, pred, src, dst);
}

// copy_zfill(atom, pred, src, dst): like copy with a predicate, but a vector whose pred(i) is false
// is zero-filled and its source not read (cp.async with src-size 0): staging edge tiles in shared
// memory, where stale values of an earlier tile must not leak into the product.
template <class Op, class T, class Pred, class SE, class SL, class DE, class DL>
FLY_HD void copy_zfill(Copy_Atom<Op, T> const&, Pred const& pred, Tensor<SE, SL> const& src, Tensor<DE, DL>& dst) {
  detail::copy_impl<Copy_Atom<Op, T>>(src, dst, detail::zfill_predicate<Pred>{pred});
}
template <class Op, class T, class Pred, class SE, class SL, class DE, class DL>
FLY_HD void copy_zfill(Copy_Atom<Op, T> const& atom, Pred const& pred, Tensor<SE, SL> const& src, Tensor<DE, DL>&& dst) {
  copy_zfill(atom, pred, src, dst);
}

}  // namespace fly
