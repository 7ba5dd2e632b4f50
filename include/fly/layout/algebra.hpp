// The layout algebra: coalesce, composition, complement, inverses, divides and products, with
// CuTe's semantics. With static operands every result is a static type; where an operation needs
// a static value to decide the result's type, a static_assert names the operation and the operand.
#pragma once

#include "fly/layout/layout.hpp"

namespace fly {

// ---- coalesce --------------------------------------------------------------------------------

namespace detail {

// Walk the flat modes right to left, building the result at its front:
//   _1:d        -> skipped
//   front _1:d  -> replaced by the mode
//   s:d with s*d == front stride (provably, i.e. statically) -> merged into the front mode
//   otherwise   -> prepended
template <int I, class OldS, class OldD, class NewS, class NewD>
FLY_HD auto bw_coalesce(OldS const& old_s, OldD const& old_d, NewS const& new_s, NewD const& new_d) {
  if constexpr (I == -1) {
    if constexpr (is_constant_v<1, NewS>) {
      return Layout<Int<1>, Int<0>>{};
    } else {
      return Layout<NewS, NewD>(new_s, new_d);
    }
  } else if constexpr (is_constant_v<1, decltype(get<I>(old_s))>) {
    return bw_coalesce<I - 1>(old_s, old_d, new_s, new_d);
  } else if constexpr (is_constant_v<1, NewS>) {
    return bw_coalesce<I - 1>(old_s, old_d, get<I>(old_s), get<I>(old_d));
  } else if constexpr (is_static_v<decltype(get<0>(new_s))> &&
                       is_constant_v<true, decltype(get<I>(old_s) * get<I>(old_d) == get<0>(new_d))>) {
    return bw_coalesce<I - 1>(old_s, old_d, replace_front(new_s, get<I>(old_s) * get<0>(new_s)),
                              replace_front(new_d, get<I>(old_d)));
  } else {
    return bw_coalesce<I - 1>(old_s, old_d, prepend(new_s, get<I>(old_s)), prepend(new_d, get<I>(old_d)));
  }
}

}  // namespace detail

// coalesce(layout): the same function on [0, size) with the fewest modes; depth <= 1.
template <class S, class D>
FLY_HD auto coalesce(Layout<S, D> const& l) {
  auto fs = flatten_to_tuple(l.shape());
  auto fd = flatten_to_tuple(l.stride());
  constexpr int R = rank_v<decltype(fs)>;
  return detail::bw_coalesce<R - 2>(fs, fd, get<R - 1>(fs), get<R - 1>(fd));
}
// coalesce(layout, profile): coalesce each mode at the leaves of profile, keeping the outer modes.
template <class S, class D, class P>
FLY_HD auto coalesce(Layout<S, D> const& l, P const& profile) {
  if constexpr (is_tuple_v<P>) {
    return transform_layout(l, profile, [](auto const& m, auto const& p) { return coalesce(m, p); });
  } else {
    return coalesce(l);
  }
}

// filter_zeros: stride-0 modes get size 1. filter: and then coalesce (drops them and size-1 modes).
template <class S, class D>
FLY_HD auto filter_zeros(Layout<S, D> const& l) {
  auto s = transform_leaf(l.shape(), l.stride(), [](auto const& si, auto const& di) {
    if constexpr (is_constant_v<0, decltype(di)>) {
      return Int<1>{};
    } else {
      return si;
    }
  });
  return make_layout(s, l.stride());
}
template <class S, class D>
FLY_HD auto filter(Layout<S, D> const& l) {
  return coalesce(filter_zeros(l));
}

// ---- composition -----------------------------------------------------------------------------

namespace detail {

template <class LS, class LD, class RS, class RD>
FLY_HD auto composition_impl(LS const& ls, LD const& ld, RS const& rs, RD const& rd) {
  if constexpr (is_tuple_v<RS>) {
    // composition distributes over the modes of the right operand
    return [&]<int... I>(seq<I...>) {
      return make_layout(composition_impl(ls, ld, get<I>(rs), get<I>(rd))...);
    }(make_seq<rank_v<RS>>{});
  } else if constexpr (is_constant_v<0, RD>) {
    return Layout<RS, RD>(rs, rd);
  } else if constexpr (!is_tuple_v<LS>) {
    return make_layout(rs, rd * ld);
  } else {
    constexpr int R = rank_v<LS>;
    auto shape0 = take<0, R - 1>(ls);
    auto stride0 = take<0, R - 1>(ld);
    // 1. divide the right stride out of the left shape, mode by mode
    auto [shape1, rest_stride] = fold(shape0, make_tuple(tuple<>{}, rd), [](auto const& acc, auto const& si) {
      return make_tuple(append(get<0>(acc), shape_div(si, get<1>(acc))), shape_div(get<1>(acc), si));
    });
    auto stride1 = elem_scale(stride0, shape_div(shape0, shape1));
    // 2. keep only as much of the left shape as the right shape covers
    auto [shape2, rest_shape] = fold(shape1, make_tuple(tuple<>{}, rs), [](auto const& acc, auto const& si) {
      return make_tuple(append(get<0>(acc), shape_min(fly::abs(si), get<1>(acc))), shape_div(get<1>(acc), fly::abs(si)));
    });
    // 3. the left's last mode is unbounded: it takes the rest; then drop size-1 modes and merge
    return bw_coalesce<R - 2>(shape2, stride1, rest_shape, rest_stride * get<R - 1>(ld));
  }
}

// coalesce keeping the function outside the domain too: a trailing size-1 mode keeps its stride.
template <class S, class D>
FLY_HD auto coalesce_x(Layout<S, D> const& l) {
  auto fs = flatten_to_tuple(l.shape());
  auto fd = flatten_to_tuple(l.stride());
  constexpr int R = rank_v<decltype(fs)>;
  if constexpr (is_constant_v<1, decltype(get<R - 1>(fs))>) {
    return bw_coalesce<R - 2>(fs, fd, Int<2>{}, get<R - 1>(fd));
  } else {
    return bw_coalesce<R - 2>(fs, fd, get<R - 1>(fs), get<R - 1>(fd));
  }
}

}  // namespace detail

// composition(A, B) = A o B: R(c) == A(B(c)) for every c in B's domain; R has B's shape.
template <class LS, class LD, class RS, class RD>
FLY_HD auto composition(Layout<LS, LD> const& a, Layout<RS, RD> const& b) {
  auto flat_a = detail::coalesce_x(a);
  return detail::composition_impl(flat_a.shape(), flat_a.stride(), b.shape(), b.stride());
}
// composition(A, tiler): by mode for a tuple tiler (`_` keeps a mode), an integer N means N:1.
template <class LS, class LD, class T, std::enable_if_t<!is_layout_v<T>, int> = 0>
FLY_HD auto composition(Layout<LS, LD> const& a, T const& tiler) {
  if constexpr (is_tuple_v<T>) {
    static_assert(rank_v<T> <= rank_v<LS>, "fly::composition(layout, tiler): the tiler has more modes than the layout");
    // as CuTe: the modes of A that the tiler does not reach are dropped
    return [&]<int... I>(seq<I...>) { return make_layout(composition(get<I>(a), get<I>(tiler))...); }(make_seq<rank_v<T>>{});
  } else if constexpr (is_underscore_v<T>) {
    return a;
  } else {
    static_assert(is_integral_v<T>, "fly::composition: a tiler is a layout, an integer, `_` or a tuple of those");
    auto flat_a = detail::coalesce_x(a);
    return detail::composition_impl(flat_a.shape(), flat_a.stride(), tiler, Int<1>{});
  }
}

// ---- complement ------------------------------------------------------------------------------

namespace diagnose {
template <class Layout>
struct complement_operand {
  template <bool StridesAreStatic>
  FLY_HOST_DEVICE static constexpr bool strides_must_be_static() {
    static_assert(StridesAreStatic,
                  "fly::complement(layout, cotarget): the layout has rank > 1 after filtering, so its strides "
                  "must be static (fly::Int<N>): the modes are ordered by stride at compile time. "
                  "The layout is the template argument of fly::diagnose::complement_operand above; "
                  "use fly::dyn::complement on the host for run-time strides.");
    return true;
  }
};
template <class Layout>
struct right_inverse_operand {
  template <bool StridesAreStatic>
  FLY_HOST_DEVICE static constexpr bool strides_must_be_static() {
    static_assert(StridesAreStatic,
                  "fly::right_inverse(layout) / left_inverse(layout): the strides of the layout must be static "
                  "(fly::Int<N>) to find the stride-1 chain at compile time. The layout is the template argument of "
                  "fly::diagnose::right_inverse_operand above; use fly::dyn::right_inverse on the host otherwise.");
    return true;
  }
};
}  // namespace diagnose

namespace detail {

template <class T>
FLY_HOST_DEVICE constexpr long long static_or_zero() {
  if constexpr (is_static_v<T>) {
    return std::remove_cvref_t<T>::value;
  } else {
    return 0;
  }
}

// Index of the smallest |stride| (ties: smaller static shape, then leftmost) among flat modes.
template <class S, class D>
FLY_HOST_DEVICE constexpr int min_stride_index() {
  return []<int... I>(seq<I...>) {
    constexpr long long d[] = {static_or_zero<decltype(fly::abs(get<I>(std::declval<D>())))>()...};
    constexpr long long s[] = {static_or_zero<decltype(get<I>(std::declval<S>()))>()...};
    int best = 0;
    for (int i = 1; i < int(sizeof...(I)); ++i) {
      if (d[i] < d[best] || (d[i] == d[best] && s[i] < s[best])) best = i;
    }
    return best;
  }(make_seq<rank_v<D>>{});
}

// @pre shape/stride are flat and filtered (no stride-0 mode, no size-1 mode)
template <class S, class D, class CoTarget>
FLY_HD auto complement_impl(S const& shape, D const& stride, CoTarget const& cotarget) {
  if constexpr (is_constant_v<0, D>) {
    return make_layout(cotarget);
  } else if constexpr (!is_tuple_v<S>) {
    // rank 1: [d, s*d) is covered, so the complement is (d):(1) then the rest up to the cotarget
    auto rest_stride = shape * stride;
    return coalesce(make_layout(make_shape(stride, ceil_div(cotarget, rest_stride)), make_stride(Int<1>{}, rest_stride)));
  } else {
    static_assert(diagnose::complement_operand<Layout<S, D>>::template strides_must_be_static<is_static_v<D>>());
    // take modes in increasing stride order; each gap between covered strides becomes a mode
    auto step = [](auto const& acc, auto) {
      auto const& cur_s = get<0>(acc);
      auto const& cur_d = get<1>(acc);
      constexpr int m = min_stride_index<std::remove_cvref_t<decltype(cur_s)>, std::remove_cvref_t<decltype(cur_d)>>();
      auto min_d = get<m>(cur_d);
      auto new_shape = min_d / get<2>(acc);
      static_assert(!is_constant_v<0, decltype(new_shape)>,
                    "fly::complement: the layout is not injective (two modes overlap)");
      return make_tuple(remove<m>(cur_s), remove<m>(cur_d), get<m>(cur_s) * min_d,
                        append(get<3>(acc), new_shape), append(get<4>(acc), get<2>(acc)));
    };
    constexpr int R = rank_v<S>;
    auto r = fold(tuple_repeat<R - 1>(Int<0>{}), make_tuple(shape, stride, Int<1>{}, tuple<>{}, tuple<>{}), step);
    auto last_s = get<0>(get<0>(r));
    auto last_d = get<0>(get<1>(r));
    auto new_shape = last_d / get<2>(r);
    static_assert(!is_constant_v<0, decltype(new_shape)>, "fly::complement: the layout is not injective (two modes overlap)");
    auto rest_stride = last_s * last_d;
    auto result_shape = append(append(get<3>(r), new_shape), ceil_div(cotarget, rest_stride));
    auto result_stride = append(append(get<4>(r), get<2>(r)), rest_stride);
    return coalesce(make_layout(result_shape, result_stride));
  }
}

}  // namespace detail

// complement(A, cotarget): the layout of what A does not cover in [0, cotarget), ordered.
template <class S, class D, class CoTarget>
FLY_HD auto complement(Layout<S, D> const& a, CoTarget const& cotarget) {
  auto f = filter(a);
  return detail::complement_impl(f.shape(), f.stride(), product(cotarget));
}
template <class S, class D>
FLY_HD auto complement(Layout<S, D> const& a) {
  return complement(a, cosize(a));
}

// ---- inverses --------------------------------------------------------------------------------

namespace detail {
// The first flat mode with |stride| == Next that is not in Found, or -1.
template <long long Next, class D, int... Found>
FLY_HOST_DEVICE constexpr int find_stride(seq<Found...>) {
  return []<int... I>(seq<I...>) {
    constexpr long long d[] = {static_or_zero<decltype(fly::abs(get<I>(std::declval<D>())))>()...};
    constexpr int found[] = {Found..., -1};
    for (int i = 0; i < int(sizeof...(I)); ++i) {
      bool used = false;
      for (int f : found) used = used || f == i;
      if (!used && d[i] == Next) return i;
    }
    return -1;
  }(make_seq<rank_v<D>>{});
}

// Follow the chain of strides 1, s_i*d_i, ... through the flat modes; returns their indices.
template <long long Next, class S, class D, int... Found>
FLY_HOST_DEVICE constexpr auto inverse_seq(seq<Found...>) {
  constexpr int hit = find_stride<Next, D>(seq<Found...>{});
  if constexpr (hit < 0) {
    return seq<Found...>{};
  } else {
    using SH = decltype(get<hit>(std::declval<S>()));
    if constexpr (!is_static_v<SH>) {
      return seq<Found..., hit>{};  // a dynamic extent ends the chain: nothing past it is known
    } else {
      constexpr long long next = std::remove_cvref_t<SH>::value * Next;
      return inverse_seq<next, S, D>(seq<Found..., hit>{});
    }
  }
}
}  // namespace detail

// right_inverse(L): R with L(R(i)) == i for i < size(R), as large as possible.
template <class S, class D>
FLY_HD auto right_inverse(Layout<S, D> const& l) {
  auto flat = coalesce(l);
  auto fs = flatten_to_tuple(flat.shape());
  auto fd = flatten_to_tuple(flat.stride());
  static_assert(diagnose::right_inverse_operand<Layout<S, D>>::template strides_must_be_static<is_static_v<decltype(fd)>>());
  using FS = decltype(fs);
  using FD = decltype(fd);
  constexpr auto iseq = detail::inverse_seq<1, FS, FD>(seq<>{});
  if constexpr (seq_size_v<std::remove_cv_t<decltype(iseq)>> == 0) {
    return Layout<Int<1>, Int<0>>{};
  } else {
    auto rstride = compact_col_major(fs);
    return [&]<int... I>(seq<I...>) {
      return make_layout(unwrap(make_tuple(get<I>(fs)...)), unwrap(make_tuple((signum(get<I>(fd)) * get<I>(rstride))...)));
    }(iseq);
  }
}
namespace detail {
// The flat mode that comes K-th when the modes are ordered by increasing stride (ties: leftmost
// first), CuTe's SortByKey on the strides.
template <class D>
FLY_HOST_DEVICE constexpr int kth_by_stride(int k) {
  return []<int... I>(int kk, seq<I...>) {
    constexpr long long d[] = {static_or_zero<decltype(get<I>(std::declval<D>()))>()...};
    for (int i = 0; i < int(sizeof...(I)); ++i) {
      int before = 0;  // modes that sort before mode i
      for (int j = 0; j < int(sizeof...(I)); ++j) before += d[j] < d[i] || (d[j] == d[i] && j < i);
      if (before == kk) return i;
    }
    return 0;
  }(k, make_seq<rank_v<D>>{});
}
template <class D, int... K>
FLY_HOST_DEVICE constexpr auto by_stride_seq(seq<K...>) {
  return seq<kth_by_stride<D>(K)...>{};
}

// Visit the modes by increasing stride d. The inverse's modes split an offset k by the strides:
// a first mode of extent d_first (stride 0: offsets below the smallest stride are not reached),
// then for each mode a mode of extent d_next/d, the coordinate of that mode, whose stride is the
// mode's prefix product (its weight in L's domain index). Stride-0 modes are left out; n is the
// stride of the mode visited last (1 at the start), which must divide the next one.
template <class FS, class FD, class Pre, class RS, class RD, class N>
FLY_HD auto left_inverse_fold(seq<>, FS const&, FD const&, Pre const&, RS const& rs, RD const& rd, N const&) {
  return make_tuple(rs, rd);
}
template <int I, int... Is, class FS, class FD, class Pre, class RS, class RD, class N>
FLY_HD auto left_inverse_fold(seq<I, Is...>, FS const& fs, FD const& fd, Pre const& pre, RS const& rs, RD const& rd,
                              N const& n) {
  auto d = get<I>(fd);
  if constexpr (is_constant_v<0, decltype(d)>) {
    return left_inverse_fold(seq<Is...>{}, fs, fd, pre, rs, rd, n);
  } else {
    if constexpr (is_static_v<N>) {
      static_assert(decltype(d)::value % N::value == 0,
                    "fly::left_inverse: a stride is not a multiple of the next smaller stride");
    }
    auto gap = d / n;
    return left_inverse_fold(seq<Is...>{}, fs, fd, pre, append(rs, gap), append(rd, get<I>(pre)), d);
  }
}

template <class D>
FLY_HOST_DEVICE constexpr bool any_negative_stride() {
  bool neg = false;
  for_each_leaf(D{}, [&](auto di) { neg = neg || di < 0; });
  return neg;
}
}  // namespace detail

// left_inverse(L): R with R(L(i)) == i for every i, L injective. As CuTe's: modes by increasing
// stride, one gap mode each, then the last mode's extent; the points L does not reach map where
// CuTe's do (a stride-0 mode first when the smallest stride is above 1). Negative strides, where CuTe
// gives no inverse, take the inverse of (L, complement(L)) instead.
template <class S, class D>
FLY_HD auto left_inverse(Layout<S, D> const& l) {
  auto flat = coalesce(l);
  auto fs = flatten_to_tuple(flat.shape());
  auto fd = flatten_to_tuple(flat.stride());
  static_assert(diagnose::right_inverse_operand<Layout<S, D>>::template strides_must_be_static<is_static_v<decltype(fd)>>());
  if constexpr (detail::any_negative_stride<decltype(fd)>()) {
    return right_inverse(make_layout(l, complement(l)));
  } else {
    using FD = decltype(fd);
    constexpr int R = rank_v<FD>;
    constexpr auto order = detail::by_stride_seq<FD>(make_seq<R>{});
    auto pre = compact_col_major(fs);  // prefix products of the shape: where each mode's coordinate counts
    auto r = detail::left_inverse_fold(order, fs, fd, pre, tuple<>{}, make_tuple(Int<0>{}), Int<1>{});
    constexpr int last = detail::kth_by_stride<FD>(R - 1);
    return coalesce(make_layout(append(get<0>(r), get<last>(fs)), get<1>(r)));
  }
}

// ---- divides ---------------------------------------------------------------------------------

// logical_divide(A, B) = A o (B, B*): mode 0 is the tile B, mode 1 enumerates the tiles.
template <class LS, class LD, class TS, class TD>
FLY_HD auto logical_divide(Layout<LS, LD> const& a, Layout<TS, TD> const& tiler) {
  return composition(a, make_layout(tiler, complement(tiler, size(a))));
}
template <class LS, class LD, class T, std::enable_if_t<!is_layout_v<T>, int> = 0>
FLY_HD auto logical_divide(Layout<LS, LD> const& a, T const& tiler) {
  if constexpr (is_tuple_v<T>) {
    static_assert(rank_v<T> <= rank_v<LS>, "fly::logical_divide: the tiler has more modes than the layout");
    return transform_layout(a, tiler, [](auto const& l, auto const& t) { return logical_divide(l, t); });
  } else if constexpr (is_underscore_v<T>) {
    return a;
  } else {
    return logical_divide(a, make_layout(tiler));
  }
}

namespace detail {
// zip2_by(t, guide): at the leaves of guide, t's rank-2 modes (x, y) are split; the x parts are
// gathered into the first result mode and the y parts, then t's remaining modes, into the second.
template <class T, class G>
FLY_HD auto zip2_by(T const& t, G const& guide) {
  if constexpr (is_tuple_v<G>) {
    constexpr int RG = rank_v<G>;
    constexpr int RT = rank_v<T>;
    auto split = [&]<int... I>(seq<I...>) {
      return make_tuple(zip2_by(get<I>(t), get<I>(guide))...);
    }(make_seq<RG>{});
    auto firsts = transform(split, [](auto const& x) { return get<0>(x); });
    auto seconds = transform(split, [](auto const& x) { return get<1>(x); });
    return make_tuple(firsts, tuple_cat(seconds, take<RG, RT>(t)));
  } else {
    static_assert(rank_v<T> == 2, "fly: tile_unzip expects rank-2 modes at the tiler's leaves");
    return t;
  }
}
}  // namespace detail

template <class S, class D, class T>
FLY_HD auto tile_unzip(Layout<S, D> const& l, T const& tiler) {
  return make_layout(detail::zip2_by(l.shape(), tiler), detail::zip2_by(l.stride(), tiler));
}

// zipped_divide: ((tile modes...), (rest modes...)).
template <class S, class D, class T>
FLY_HD auto zipped_divide(Layout<S, D> const& a, T const& tiler) {
  return tile_unzip(logical_divide(a, tiler), tiler);
}
namespace detail {
// The modes of a mode with rank > 1 become modes of their own; a rank-1 mode stays as it is
// (CuTe's result(_, repeat<R>(_)) with repeat<1>(_) == _).
template <class T>
FLY_HD auto unpack_mode(T const& m) {
  if constexpr (rank_v<T> > 1) {
    return m;
  } else {
    return make_tuple(m);
  }
}
// (m0, (m1, m2)) -> (m0, m1, m2)
template <class S, class D>
FLY_HD auto unpack_second(Layout<S, D> const& z) {
  return make_layout(prepend(unpack_mode(get<1>(z.shape())), get<0>(z.shape())),
                     prepend(unpack_mode(get<1>(z.stride())), get<0>(z.stride())));
}
// ((m0, m1), (m2, m3)) -> (m0, m1, m2, m3)
template <class S, class D>
FLY_HD auto unpack_both(Layout<S, D> const& z) {
  return make_layout(tuple_cat(unpack_mode(get<0>(z.shape())), unpack_mode(get<1>(z.shape()))),
                     tuple_cat(unpack_mode(get<0>(z.stride())), unpack_mode(get<1>(z.stride()))));
}
}  // namespace detail

// tiled_divide: ((tile modes...), rest0, rest1, ...).
template <class S, class D, class T>
FLY_HD auto tiled_divide(Layout<S, D> const& a, T const& tiler) {
  return detail::unpack_second(zipped_divide(a, tiler));
}
// flat_divide: (tile0, tile1, ..., rest0, rest1, ...).
template <class S, class D, class T>
FLY_HD auto flat_divide(Layout<S, D> const& a, T const& tiler) {
  return detail::unpack_both(zipped_divide(a, tiler));
}

// ---- products --------------------------------------------------------------------------------

// logical_product(A, B) = (A, A* o B): mode 0 is A, mode 1 repeats it as B says.
template <class LS, class LD, class TS, class TD>
FLY_HD auto logical_product(Layout<LS, LD> const& block, Layout<TS, TD> const& tiler) {
  return make_layout(block, composition(complement(block, size(block) * cosize(tiler)), tiler));
}
template <class LS, class LD, class T, std::enable_if_t<!is_layout_v<T>, int> = 0>
FLY_HD auto logical_product(Layout<LS, LD> const& block, T const& tiler) {
  if constexpr (is_tuple_v<T>) {
    static_assert(rank_v<T> <= rank_v<LS>, "fly::logical_product: the tiler has more modes than the layout");
    return transform_layout(block, tiler, [](auto const& l, auto const& t) { return logical_product(l, t); });
  } else if constexpr (is_underscore_v<T>) {
    return block;
  } else {
    return logical_product(block, make_layout(tiler));
  }
}
template <class S, class D, class T>
FLY_HD auto zipped_product(Layout<S, D> const& block, T const& tiler) {
  return tile_unzip(logical_product(block, tiler), tiler);
}
template <class S, class D, class T>
FLY_HD auto tiled_product(Layout<S, D> const& block, T const& tiler) {
  return detail::unpack_second(zipped_product(block, tiler));
}
template <class S, class D, class T>
FLY_HD auto flat_product(Layout<S, D> const& block, T const& tiler) {
  return detail::unpack_both(zipped_product(block, tiler));
}

// blocked_product: mode i is (block_i, tiler_i): whole blocks laid out as the tiler says.
template <class BS, class BD, class TS, class TD>
FLY_HD auto blocked_product(Layout<BS, BD> const& block, Layout<TS, TD> const& tiler) {
  constexpr int R = rank_v<BS> > rank_v<TS> ? rank_v<BS> : rank_v<TS>;
  auto r = logical_product(append<R>(block), append<R>(tiler));
  // not coalesced (CuTe): mode i keeps block_i and tiler_i apart, size-1 padding modes included
  return zip(get<0>(r), get<1>(r));
}
// raked_product: mode i is (tiler_i, block_i): the blocks' elements interleaved.
template <class BS, class BD, class TS, class TD>
FLY_HD auto raked_product(Layout<BS, BD> const& block, Layout<TS, TD> const& tiler) {
  constexpr int R = rank_v<BS> > rank_v<TS> ? rank_v<BS> : rank_v<TS>;
  auto r = logical_product(append<R>(block), append<R>(tiler));
  return zip(get<1>(r), get<0>(r));  // not coalesced, as blocked_product
}

// tile_to_shape: repeat block (in the mode order `order`, column-major by default) to fill target.
template <class S, class D, class T, class O>
FLY_HD auto tile_to_shape(Layout<S, D> const& block, T const& target, O const& order) {
  constexpr int R = rank_v<T>;
  static_assert(rank_v<S> <= R, "fly::tile_to_shape: the block has more modes than the target shape");
  auto padded = append<R>(block);
  auto block_shape = product_each(padded.shape());
  auto target_shape = product_each(target);
  if constexpr (is_static_v<decltype(target_shape)> && is_static_v<decltype(block_shape)>) {
    static_assert(decltype(equal(transform(target_shape, block_shape, [](auto t, auto b) { return t % b; }),
                                 repeat_like(target_shape, Int<0>{})))::value,
                  "fly::tile_to_shape: the block's shape does not divide the target shape");
  }
  auto product_shape = ceil_div(target_shape, block_shape);
  // mode i is (block_i, repetitions_i), not coalesced (CuTe)
  return blocked_product(padded, make_ordered_layout(product_shape, order));
}
template <class S, class D, class T>
FLY_HD auto tile_to_shape(Layout<S, D> const& block, T const& target) {
  return tile_to_shape(block, target, [&]<int... I>(seq<I...>) { return make_tuple(Int<I>{}...); }(make_seq<rank_v<T>>{}));
}

// ---- changing the element width ----------------------------------------------------------------

namespace detail {
template <class S, class D, class F>
FLY_HD auto transform_modes(S const& s, D const& d, F&& f) {
  if constexpr (is_tuple_v<S>) {
    return [&]<int... I>(seq<I...>) { return make_layout(transform_modes(get<I>(s), get<I>(d), f)...); }(make_seq<rank_v<S>>{});
  } else {
    return f(s, d);
  }
}
}  // namespace detail

// upcast<N>: view N consecutive elements as one (the stride-1 mode shrinks, other strides divide).
template <int N, class S, class D>
FLY_HD auto upcast(Layout<S, D> const& l) {
  return detail::transform_modes(l.shape(), l.stride(), [](auto const& s, auto const& d) {
    if constexpr (is_constant_v<0, decltype(d)>) {
      return make_layout(s, d);
    } else if constexpr (is_static_v<decltype(d)>) {
      return make_layout(shape_div(s, shape_div(Int<N>{}, fly::abs(d))), shape_div(d, Int<N>{}));
    } else {
      return make_layout(s, d / Int<N>{});
    }
  });
}
// downcast<N>: view each element as N consecutive ones (the stride-1 mode grows, strides scale).
template <int N, class S, class D>
FLY_HD auto downcast(Layout<S, D> const& l) {
  static_assert(!is_static_v<D> || [] {
    bool unit = false;
    for_each_leaf(D{}, [&](auto d) { unit = unit || d == 1 || d == -1; });
    return unit;
  }(), "fly::downcast<N>(layout): the layout has no stride-1 mode, so its elements are not adjacent and cannot "
       "be split into N narrower ones");
  return detail::transform_modes(l.shape(), l.stride(), [](auto const& s, auto const& d) {
    if constexpr (is_constant_v<1, decltype(d)> || is_constant_v<-1, decltype(d)>) {
      return make_layout(s * Int<N>{}, d);
    } else {
      return make_layout(s, d * Int<N>{});
    }
  });
}

template <class T>
inline constexpr int sizeof_bits_v = int(sizeof(T) * 8);

// recast_layout<From, To>(l): the layout of the same memory seen as elements of type To.
template <class From, class To, class S, class D>
FLY_HD auto recast_layout(Layout<S, D> const& l) {
  constexpr int from = sizeof_bits_v<From>;
  constexpr int to = sizeof_bits_v<To>;
  if constexpr (from == to) {
    return l;
  } else if constexpr (to > from) {
    static_assert(to % from == 0, "fly::recast_layout: element widths must divide one another");
    return upcast<to / from>(l);
  } else {
    static_assert(from % to == 0, "fly::recast_layout: element widths must divide one another");
    return downcast<from / to>(l);
  }
}

// ---- layouts for register fragments ------------------------------------------------------------

// make_layout_like: compact, same shape, strides in the same order as l's; static-0 strides stay 0.
template <class S, class D>
FLY_HD auto make_layout_like(Layout<S, D> const& l) {
  if constexpr (is_static_v<D>) {
    auto counted = filter_zeros(l).shape();  // stride-0 modes take no space
    auto ordered = make_ordered_layout(counted, l.stride());
    auto st = transform_leaf(ordered.stride(), l.stride(), [](auto const& od, auto const& d) {
      if constexpr (is_constant_v<0, decltype(d)>) {
        return Int<0>{};
      } else {
        return od;
      }
    });
    return make_layout(l.shape(), st);
  } else {
    return make_layout(l.shape());
  }
}
// make_fragment_like: a register layout for a partition; mode 0 (the values of one access) keeps its
// stride order, the remaining modes follow column-major.
template <class S, class D>
FLY_HD auto make_fragment_like(Layout<S, D> const& l) {
  constexpr int R = rank_v<S>;
  if constexpr (R > 1 && is_static_v<S>) {
    auto m0 = make_layout_like(get<0>(l));
    auto rest_shape = take<1, R>(l.shape());
    auto rest = make_layout(rest_shape, compact_col_major(rest_shape, cosize(m0)));
    return make_layout(prepend(rest.shape(), m0.shape()), prepend(rest.stride(), m0.stride()));
  } else {
    return make_layout_like(l);
  }
}

}  // namespace fly
