// fly::Layout<Shape, Stride>: a function from coordinates (or 1-D indices) to indices,
// index = sum_i coord_i * stride_i. With static shape and stride it is an empty type.
#pragma once

#include "fly/layout/basis.hpp"
#include "fly/layout/int_tuple.hpp"

namespace fly {

// The stride defaults to the compact column-major one of the shape, as CuTe's Layout<Shape>.
template <class Shape, class Stride = decltype(compact_col_major(std::declval<Shape>()))>
struct Layout;

template <class T>
struct is_layout : std::false_type {};
template <class S, class D>
struct is_layout<Layout<S, D>> : std::true_type {};
template <class T>
inline constexpr bool is_layout_v = is_layout<std::remove_cvref_t<T>>::value;

template <class Crd>
inline constexpr bool has_underscore_v = [] {
  if constexpr (is_tuple_v<Crd>) {
    return []<int... I>(seq<I...>) {
      return (has_underscore_v<std::remove_cvref_t<decltype(get<I>(std::declval<Crd>()))>> || ...);
    }(make_seq<rank_v<Crd>>{});
  } else {
    return is_underscore_v<Crd>;
  }
}();

template <class Crd, class L>
FLY_HD auto slice(Crd const& coord, L const& layout);

template <class Shape, class Stride>
struct Layout : private tuple<Shape, Stride> {
  using layout_tag = void;
  using shape_type = Shape;
  using stride_type = Stride;
  static constexpr int rank = rank_v<Shape>;

  FLY_HOST_DEVICE constexpr Layout(Shape const& shape = {}, Stride const& stride = {})
      : tuple<Shape, Stride>(shape, stride) {}

  FLY_HD decltype(auto) shape() const { return get<0>(static_cast<tuple<Shape, Stride> const&>(*this)); }
  FLY_HD decltype(auto) stride() const { return get<1>(static_cast<tuple<Shape, Stride> const&>(*this)); }

  // layout(coord): the index of a coordinate; a coordinate holding `_` slices instead.
  template <class Crd>
  FLY_HD auto operator()(Crd const& coord) const {
    if constexpr (has_underscore_v<Crd>) {
      return slice(coord, *this);
    } else {
      return crd2idx(coord, shape(), stride());
    }
  }
  template <class C0, class C1, class... Cs>
  FLY_HD auto operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }
};

template <class S, class D>
Layout(S const&, D const&) -> Layout<S, D>;

// ---- construction ----------------------------------------------------------------------------

// make_layout(shape, stride); make_layout(shape) is column-major and compact.
template <class S, class D, std::enable_if_t<!is_layout_v<S>, int> = 0>
FLY_HD auto make_layout(S const& shape, D const& stride) {
  static_assert(congruent_v<S, D>, "fly::make_layout(shape, stride): shape and stride must be congruent");
  return Layout<S, D>(shape, stride);
}
template <class S, std::enable_if_t<!is_layout_v<S>, int> = 0>
FLY_HD auto make_layout(S const& shape) {
  return make_layout(shape, compact_col_major(shape));
}
// make_layout(layouts...): one layout whose modes are the given layouts.
template <class... S, class... D>
FLY_HD auto make_layout(Layout<S, D> const&... layouts) {
  return make_layout(make_shape(layouts.shape()...), make_stride(layouts.stride()...));
}

namespace detail {
template <class T>
FLY_HOST_DEVICE constexpr long long static_value() {
  return std::remove_cvref_t<T>::value;
}
// Mode J comes before mode I in the order (ties: the leftmost first).
template <class FlatOrder, int J, int I>
FLY_HOST_DEVICE constexpr bool ordered_before() {
  constexpr long long oj = static_value<decltype(get<J>(std::declval<FlatOrder>()))>();
  constexpr long long oi = static_value<decltype(get<I>(std::declval<FlatOrder>()))>();
  return oj < oi || (oj == oi && J < I);
}
template <bool Keep, class X>
FLY_HD auto factor_if(X const& x) {
  if constexpr (Keep) {
    return x;
  } else {
    return Int<1>{};
  }
}
// The stride of flat mode I: the product of the shapes of the modes before it in the order.
template <int I, class FlatOrder, class FS>
FLY_HD auto ordered_stride(FS const& fs) {
  if constexpr (is_constant_v<1, decltype(get<I>(fs))>) {
    return Int<0>{};  // a size-1 mode is never stepped (as compact_col_major)
  } else {
    return [&]<int... J>(seq<J...>) {
      return (Int<1>{} * ... * factor_if<ordered_before<FlatOrder, J, I>()>(get<J>(fs)));
    }(make_seq<rank_v<FS>>{});
  }
}
}  // namespace detail

// Compact layout whose modes are laid out in increasing `order` (ties: leftmost first).
template <class S, class O>
FLY_HD auto make_ordered_layout(S const& shape, O const&) {
  using FS = decltype(flatten_to_tuple(shape));
  using FO = decltype(flatten_to_tuple(std::declval<O>()));
  static_assert(rank_v<FS> == rank_v<FO>, "fly::make_ordered_layout: order must be congruent to shape");
  static_assert(is_static_v<FO>, "fly::make_ordered_layout: the order must be static");
  auto fs = flatten_to_tuple(shape);
  auto flat_stride = [&]<int... I>(seq<I...>) {
    return make_tuple(detail::ordered_stride<I, FO>(fs)...);
  }(make_seq<rank_v<FS>>{});
  return make_layout(shape, unflatten_like(flat_stride, shape));
}

// ---- queries ---------------------------------------------------------------------------------

template <int... Is, class S, class D>
FLY_HD decltype(auto) shape(Layout<S, D> const& l) {
  if constexpr (sizeof...(Is) == 0) {
    return l.shape();
  } else {
    return get<Is...>(l.shape());
  }
}
template <int... Is, class S, class D>
FLY_HD decltype(auto) stride(Layout<S, D> const& l) {
  if constexpr (sizeof...(Is) == 0) {
    return l.stride();
  } else {
    return get<Is...>(l.stride());
  }
}
template <int... Is, class S, std::enable_if_t<!is_layout_v<S>, int> = 0>
FLY_HD auto shape(S const& s) {
  if constexpr (sizeof...(Is) == 0) {
    return s;
  } else {
    return get<Is...>(s);
  }
}

// get<I...>(layout): the sub-layout of mode I (then J...).
template <int I, int... Is, class S, class D>
FLY_HD auto get(Layout<S, D> const& l) {
  return make_layout(get<I, Is...>(l.shape()), get<I, Is...>(l.stride()));
}
template <int... Is, class S, class D>
FLY_HD auto layout(Layout<S, D> const& l) {
  if constexpr (sizeof...(Is) == 0) {
    return l;
  } else {
    return get<Is...>(l);
  }
}

template <int... Is, class T>
FLY_HD auto size(T const& t) {
  if constexpr (is_layout_v<T>) {
    return size<Is...>(t.shape());
  } else if constexpr (sizeof...(Is) == 0) {
    return product(t);
  } else {
    return product(get<Is...>(t));
  }
}
template <int... Is, class S, class D>
FLY_HD auto rank(Layout<S, D> const& l) {
  return rank<Is...>(l.shape());
}
template <int... Is, class S, class D>
FLY_HD auto depth(Layout<S, D> const& l) {
  return depth<Is...>(l.shape());
}

// cosize: one past the largest index the layout reaches (for non-negative strides).
template <int... Is, class S, class D>
FLY_HD auto cosize(Layout<S, D> const& l) {
  if constexpr (sizeof...(Is) == 0) {
    auto last = transform_leaf(l.shape(), l.stride(), [](auto const& s, auto const& d) {
      return (s - Int<1>{}) * fly::abs(d);
    });
    return sum(last) + Int<1>{};
  } else {
    return cosize(get<Is...>(l));
  }
}

// ---- slicing ---------------------------------------------------------------------------------

namespace detail {
// CuTe's slicing: the parts of t whose coordinate is `_` (Keep) or is not (dice). Kept modes are
// gathered at the top level; the nesting inside each kept mode is preserved.
template <bool Keep, class Crd, class T>
FLY_HD auto lift_pick(Crd const& c, T const& t);

template <bool Keep, class Crd, class T>
FLY_HD auto filter_pick(Crd const& c, T const& t) {
  static_assert(is_tuple_v<T> && rank_v<Crd> == rank_v<T>, "fly::slice/dice: coordinate not congruent to layout");
  return [&]<int... I>(seq<I...>) {
    return tuple_cat(tuple<>{}, lift_pick<Keep>(get<I>(c), get<I>(t))...);
  }(make_seq<rank_v<Crd>>{});
}

template <bool Keep, class Crd, class T>
FLY_HD auto lift_pick(Crd const& c, T const& t) {
  if constexpr (is_tuple_v<Crd>) {
    return filter_pick<Keep>(c, t);
  } else if constexpr (is_underscore_v<Crd> == Keep) {
    return make_tuple(t);
  } else {
    return tuple<>{};
  }
}

template <bool Keep, class Crd, class T>
FLY_HD auto pick(Crd const& c, T const& t) {
  if constexpr (is_tuple_v<Crd>) {
    return filter_pick<Keep>(c, t);
  } else if constexpr (is_underscore_v<Crd> == Keep) {
    return t;
  } else {
    return tuple<>{};
  }
}
}  // namespace detail

// slice(coord, t): keep the modes where coord is `_`.
template <class Crd, class T>
FLY_HD auto slice(Crd const& coord, T const& t) {
  if constexpr (is_layout_v<T>) {
    return make_layout(detail::pick<true>(coord, t.shape()), detail::pick<true>(coord, t.stride()));
  } else {
    return detail::pick<true>(coord, t);
  }
}
// dice(coord, t): keep the modes where coord is not `_`.
template <class Crd, class T>
FLY_HD auto dice(Crd const& coord, T const& t) {
  if constexpr (is_layout_v<T>) {
    return make_layout(detail::pick<false>(coord, t.shape()), detail::pick<false>(coord, t.stride()));
  } else {
    return detail::pick<false>(coord, t);
  }
}
// slice_and_offset(coord, layout) = (slice(coord, layout), layout(coord with `_` read as 0)).
template <class Crd, class S, class D>
FLY_HD auto slice_and_offset(Crd const& coord, Layout<S, D> const& l) {
  auto zeros = transform_leaf(coord, [](auto const& c) {
    if constexpr (is_underscore_v<decltype(c)>) {
      return Int<0>{};
    } else {
      return c;
    }
  });
  return make_tuple(slice(coord, l), crd2idx(zeros, l.shape(), l.stride()));
}

// ---- re-shaping the modes --------------------------------------------------------------------

template <int... I, class S, class D>
FLY_HD auto select(Layout<S, D> const& l) {
  return make_layout(select<I...>(l.shape()), select<I...>(l.stride()));
}
template <int B, int E, class S, class D>
FLY_HD auto take(Layout<S, D> const& l) {
  return make_layout(take<B, E>(l.shape()), take<B, E>(l.stride()));
}
template <int B, int E, class S, class D>
FLY_HD auto group(Layout<S, D> const& l) {
  return make_layout(group<B, E>(l.shape()), group<B, E>(l.stride()));
}
template <class S, class D>
FLY_HD auto flatten(Layout<S, D> const& l) {
  return make_layout(flatten(l.shape()), flatten(l.stride()));
}
template <class S, class D, class S2 = Int<1>, class D2 = Int<0>>
FLY_HD auto append(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(append(l.shape(), x.shape()), append(l.stride(), x.stride()));
}
template <int N, class S, class D, class S2 = Int<1>, class D2 = Int<0>>
FLY_HD auto append(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(append<N>(l.shape(), x.shape()), append<N>(l.stride(), x.stride()));
}
template <class S, class D, class S2 = Int<1>, class D2 = Int<0>>
FLY_HD auto prepend(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(prepend(l.shape(), x.shape()), prepend(l.stride(), x.stride()));
}
template <int N, class S, class D, class S2 = Int<1>, class D2 = Int<0>>
FLY_HD auto prepend(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(prepend<N>(l.shape(), x.shape()), prepend<N>(l.stride(), x.stride()));
}
template <int N, class S, class D, class S2, class D2>
FLY_HD auto replace(Layout<S, D> const& l, Layout<S2, D2> const& x) {
  return make_layout(replace<N>(l.shape(), x.shape()), replace<N>(l.stride(), x.stride()));
}
template <class S, class D>
FLY_HD auto zip(Layout<S, D> const& l) {
  return make_layout(zip(l.shape()), zip(l.stride()));
}
template <class S0, class D0, class S1, class D1>
FLY_HD auto zip(Layout<S0, D0> const& a, Layout<S1, D1> const& b) {
  return make_layout(zip(a.shape(), b.shape()), zip(a.stride(), b.stride()));
}

// Apply f to each mode of one (or, by mode, of two) layouts and concatenate the results; modes of
// the longer operand past the shorter one's rank are passed through unchanged.
template <class L, class F>
FLY_HD auto transform_layout(L const& l, F&& f) {
  return [&]<int... I>(seq<I...>) { return make_layout(f(get<I>(l))...); }(make_seq<rank_v<typename L::shape_type>>{});
}
template <class L, class T, class F>
FLY_HD auto transform_layout(L const& l, T const& t, F&& f) {
  constexpr int RL = rank_v<typename L::shape_type>;
  constexpr int RT = rank_v<T>;
  static_assert(RT <= RL, "fly: the tiler has more modes than the layout");
  return [&]<int... I, int... J>(seq<I...>, seq<J...>) {
    return make_layout(f(get<I>(l), get<I>(t))..., get<J>(l)...);
  }(make_seq<RT>{}, make_range<RT, RL>{});
}

// make_identity_layout(shape): maps each coordinate to itself, (i, j) -> (i, j).
template <class S>
FLY_HD auto make_identity_layout(S const& shape) {
  return make_layout(shape, make_basis_like(shape));
}

}  // namespace fly
