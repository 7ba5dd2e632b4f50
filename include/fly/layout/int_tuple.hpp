// IntTuples: an integer (static or dynamic) or a tuple of IntTuples. Shapes, strides and
// coordinates are IntTuples. This header holds the tuple algorithms the layout algebra is made of.
#pragma once

#include "fly/layout/integral.hpp"
#include "fly/layout/tuple.hpp"

namespace fly {

// The slicing marker: a coordinate mode `_` keeps that mode (CuTe's Underscore).
struct Underscore {};
FLY_INLINE_CONSTANT Underscore _{};

template <class T>
inline constexpr bool is_underscore_v = std::is_same_v<std::remove_cvref_t<T>, Underscore>;

template <class... T>
using Shape = tuple<T...>;
template <class... T>
using Stride = tuple<T...>;
template <class... T>
using Coord = tuple<T...>;
template <class... T>
using Step = tuple<T...>;
template <class... T>
using Tile = tuple<T...>;

template <class... T>
FLY_HD Shape<T...> make_shape(T const&... t) { return {t...}; }
template <class... T>
FLY_HD Stride<T...> make_stride(T const&... t) { return {t...}; }
template <class... T>
FLY_HD Coord<T...> make_coord(T const&... t) { return {t...}; }
template <class... T>
FLY_HD Step<T...> make_step(T const&... t) { return {t...}; }
template <class... T>
FLY_HD Tile<T...> make_tile(T const&... t) { return {t...}; }

// ---- rank, get, depth -------------------------------------------------------------------------

template <class T>
inline constexpr int rank_v = [] {
  if constexpr (is_tuple_v<T>) {
    return tuple_size_v<T>;
  } else {
    return 1;
  }
}();

// get<I, J...>(t): the I-th mode of t, then its J-th, ... An integer is its own only mode.
namespace detail {
// Layouts have their own get<I...> (sub-layouts); this one must not take them.
template <class T, class = void>
struct is_layout_type : std::false_type {};
template <class T>
struct is_layout_type<T, std::void_t<typename std::remove_cvref_t<T>::layout_tag>> : std::true_type {};
}  // namespace detail

template <int I, int... Is, class T, std::enable_if_t<!detail::is_layout_type<T>::value, int> = 0>
FLY_HD decltype(auto) get(T&& t) {
  if constexpr (is_tuple_like_v<T>) {
    if constexpr (sizeof...(Is) == 0) {
      return detail::tuple_get<std::size_t(I)>(t);
    } else {
      return get<Is...>(detail::tuple_get<std::size_t(I)>(t));
    }
  } else {
    static_assert(I == 0, "fly::get<I>: an integer has only mode 0");
    if constexpr (sizeof...(Is) == 0) {
      return static_cast<T&&>(t);
    } else {
      return get<Is...>(static_cast<T&&>(t));
    }
  }
}

template <int... Is, class T>
FLY_HD auto rank(T const& t) {
  if constexpr (sizeof...(Is) == 0) {
    return Int<rank_v<T>>{};
  } else {
    return rank(get<Is...>(t));
  }
}

namespace detail {
template <class T>
struct depth_impl : std::integral_constant<int, 0> {};
template <class... T>
struct depth_impl<tuple<T...>> {
  static constexpr int value = [] {
    int d = 0;
    ((d = d < depth_impl<T>::value ? depth_impl<T>::value : d), ...);
    return d + 1;
  }();
};
}  // namespace detail

template <int... Is, class T>
FLY_HD auto depth(T const& t) {
  if constexpr (sizeof...(Is) == 0) {
    return Int<detail::depth_impl<std::remove_cvref_t<T>>::value>{};
  } else {
    return depth(get<Is...>(t));
  }
}

// ---- transform, for_each, fold ------------------------------------------------------------------

namespace detail {
template <class T, class F, int... I>
FLY_HD auto transform_impl(T const& t, F&& f, seq<I...>) {
  return make_tuple(f(get<I>(t))...);
}
template <class T0, class T1, class F, int... I>
FLY_HD auto transform_impl(T0 const& t0, T1 const& t1, F&& f, seq<I...>) {
  return make_tuple(f(get<I>(t0), get<I>(t1))...);
}
template <class T0, class T1, class T2, class F, int... I>
FLY_HD auto transform_impl(T0 const& t0, T1 const& t1, T2 const& t2, F&& f, seq<I...>) {
  return make_tuple(f(get<I>(t0), get<I>(t1), get<I>(t2))...);
}
}  // namespace detail

// transform(t, f): f applied to each top mode; an integer is treated as its own only mode.
template <class T, class F>
FLY_HD auto transform(T const& t, F&& f) {
  if constexpr (is_tuple_v<T>) {
    return detail::transform_impl(t, f, make_seq<rank_v<T>>{});
  } else {
    return f(t);
  }
}
template <class T0, class T1, class F>
FLY_HD auto transform(T0 const& t0, T1 const& t1, F&& f) {
  if constexpr (is_tuple_v<T0>) {
    static_assert(rank_v<T0> == rank_v<T1>, "fly::transform: mismatched ranks");
    return detail::transform_impl(t0, t1, f, make_seq<rank_v<T0>>{});
  } else {
    return f(t0, t1);
  }
}
template <class T0, class T1, class T2, class F>
FLY_HD auto transform(T0 const& t0, T1 const& t1, T2 const& t2, F&& f) {
  if constexpr (is_tuple_v<T0>) {
    return detail::transform_impl(t0, t1, t2, f, make_seq<rank_v<T0>>{});
  } else {
    return f(t0, t1, t2);
  }
}

template <class T, class F>
FLY_HD auto transform_leaf(T const& t, F&& f) {
  if constexpr (is_tuple_v<T>) {
    return transform(t, [&](auto const& a) { return transform_leaf(a, f); });
  } else {
    return f(t);
  }
}
template <class T0, class T1, class F>
FLY_HD auto transform_leaf(T0 const& t0, T1 const& t1, F&& f) {
  if constexpr (is_tuple_v<T0>) {
    return transform(t0, t1, [&](auto const& a, auto const& b) { return transform_leaf(a, b, f); });
  } else {
    return f(t0, t1);
  }
}

template <class T, class F>
FLY_HD void for_each(T&& t, F&& f) {
  if constexpr (is_tuple_v<T>) {
    [&]<int... I>(seq<I...>) { (f(get<I>(t)), ...); }(make_seq<rank_v<std::remove_cvref_t<T>>>{});
  } else {
    f(t);
  }
}
template <class T, class F>
FLY_HD void for_each_leaf(T&& t, F&& f) {
  if constexpr (is_tuple_v<T>) {
    for_each(t, [&](auto&& a) { for_each_leaf(a, f); });
  } else {
    f(t);
  }
}

namespace detail {
template <int I, int N, class T, class V, class F>
FLY_HD auto fold_impl(T const& t, V const& v, F&& f) {
  if constexpr (I == N) {
    return v;
  } else {
    return fold_impl<I + 1, N>(t, f(v, get<I>(t)), f);
  }
}
}  // namespace detail

// fold(t, v, f) = f(...f(f(v, t0), t1)..., tn); the accumulator may change type at each step.
template <class T, class V, class F>
FLY_HD auto fold(T const& t, V const& v, F&& f) {
  if constexpr (is_tuple_v<T>) {
    return detail::fold_impl<0, rank_v<T>>(t, v, f);
  } else {
    return f(v, t);
  }
}
template <class T, class F>
FLY_HD auto fold_first(T const& t, F&& f) {
  if constexpr (is_tuple_v<T>) {
    return detail::fold_impl<1, rank_v<T>>(t, get<0>(t), f);
  } else {
    return t;
  }
}

// ---- building tuples -------------------------------------------------------------------------

template <class... T, class X>
FLY_HD auto append(tuple<T...> const& t, X const& x) {
  return [&]<int... I>(seq<I...>) { return make_tuple(get<I>(t)..., x); }(make_seq<sizeof...(T)>{});
}
template <class T, class X>
FLY_HD auto append(T const& t, X const& x) {
  return make_tuple(t, x);
}
// append<N>(t, x): pad t with x up to rank N.
template <int N, class T, class X>
FLY_HD auto append(T const& t, X const& x) {
  if constexpr (rank_v<T> >= N) {
    static_assert(rank_v<T> == N || !is_tuple_v<T>, "fly::append<N>: tuple already longer than N");
    if constexpr (is_tuple_v<T>) {
      return t;
    } else {
      return make_tuple(t);
    }
  } else if constexpr (is_tuple_v<T>) {
    return append<N>(append(t, x), x);
  } else {
    return append<N>(make_tuple(t), x);
  }
}
template <class... T, class X>
FLY_HD auto prepend(tuple<T...> const& t, X const& x) {
  return [&]<int... I>(seq<I...>) { return make_tuple(x, get<I>(t)...); }(make_seq<sizeof...(T)>{});
}
template <class T, class X>
FLY_HD auto prepend(T const& t, X const& x) {
  return make_tuple(x, t);
}
template <int N, class T, class X>
FLY_HD auto prepend(T const& t, X const& x) {
  if constexpr (rank_v<T> >= N) {
    if constexpr (is_tuple_v<T>) {
      return t;
    } else {
      return make_tuple(t);
    }
  } else if constexpr (is_tuple_v<T>) {
    return prepend<N>(prepend(t, x), x);
  } else {
    return prepend<N>(make_tuple(t), x);
  }
}

// take<B, E>(t): modes [B, E) of t.
template <int B, int E, class T>
FLY_HD auto take(T const& t) {
  static_assert(0 <= B && B <= E && E <= rank_v<T>, "fly::take<B,E>: range out of bounds");
  return [&]<int... I>(seq<I...>) { return make_tuple(get<I>(t)...); }(make_range<B, E>{});
}
template <int... I, class T>
FLY_HD auto select(T const& t) {
  return make_tuple(get<I>(t)...);
}

template <class... A, class... B>
FLY_HD auto tuple_cat(tuple<A...> const& a, tuple<B...> const& b) {
  return [&]<int... I, int... J>(seq<I...>, seq<J...>) {
    return make_tuple(get<I>(a)..., get<J>(b)...);
  }(make_seq<sizeof...(A)>{}, make_seq<sizeof...(B)>{});
}
template <class A, class B, class C0, class... Rest>
FLY_HD auto tuple_cat(A const& a, B const& b, C0 const& c, Rest const&... rest) {
  return tuple_cat(tuple_cat(a, b), c, rest...);
}
template <class A>
FLY_HD auto tuple_cat(A const& a) {
  return a;
}
FLY_HD tuple<> tuple_cat() { return {}; }

namespace detail {
template <bool Hit, class A, class X>
FLY_HD auto replace_if(A const& a, X const& x) {
  if constexpr (Hit) {
    return x;
  } else {
    return a;
  }
}
}  // namespace detail

template <int N, class T, class X>
FLY_HD auto replace(T const& t, X const& x) {
  if constexpr (is_tuple_v<T>) {
    return [&]<int... I>(seq<I...>) {
      return make_tuple(detail::replace_if<I == N>(get<I>(t), x)...);
    }(make_seq<rank_v<T>>{});
  } else {
    static_assert(N == 0, "fly::replace<N>: an integer has only mode 0");
    return x;
  }
}
template <class T, class X>
FLY_HD auto replace_front(T const& t, X const& x) {
  return replace<0>(t, x);
}
template <class T, class X>
FLY_HD auto replace_back(T const& t, X const& x) {
  return replace<rank_v<T> - 1>(t, x);
}
template <int N, class T>
FLY_HD auto remove(T const& t) {
  return tuple_cat(take<0, N>(t), take<N + 1, rank_v<T>>(t));
}

// group<B, E>(t): modes [B, E) gathered into one mode.
template <int B, int E, class T>
FLY_HD auto group(T const& t) {
  if constexpr (is_tuple_v<T>) {
    constexpr int R = rank_v<T>;
    constexpr int E2 = E < 0 ? R : E;
    return tuple_cat(take<0, B>(t), make_tuple(take<B, E2>(t)), take<E2, R>(t));
  } else {
    return t;
  }
}

template <class T>
FLY_HD auto wrap(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return t;
  } else {
    return make_tuple(t);
  }
}
// unwrap: strip 1-tuples, ((x)) -> x.
template <class T>
FLY_HD auto unwrap(T const& t) {
  if constexpr (is_tuple_v<T> && rank_v<T> == 1) {
    return unwrap(get<0>(t));
  } else {
    return t;
  }
}

template <int N, class X>
FLY_HD auto repeat(X const& x) {
  if constexpr (N == 1) {
    return x;
  } else {
    return [&]<int... I>(seq<I...>) { return make_tuple(((void)I, x)...); }(make_seq<N>{});
  }
}
template <int N, class X>
FLY_HD auto tuple_repeat(X const& x) {
  return [&]<int... I>(seq<I...>) { return make_tuple(((void)I, x)...); }(make_seq<N>{});
}
// repeat_like(t, x): an IntTuple congruent to t with every leaf x.
template <class T, class X>
FLY_HD auto repeat_like(T const& t, X const& x) {
  if constexpr (is_tuple_v<T>) {
    return transform(t, [&](auto const& a) { return repeat_like(a, x); });
  } else {
    return x;
  }
}

template <class T>
FLY_HD auto flatten(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, tuple<>{}, [](auto const& acc, auto const& a) { return tuple_cat(acc, wrap(flatten(a))); });
  } else {
    return t;
  }
}
// flatten_to_tuple: like flatten, but an integer becomes a 1-tuple.
template <class T>
FLY_HD auto flatten_to_tuple(T const& t) {
  return wrap(flatten(t));
}

template <class T>
FLY_HD auto reverse(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return [&]<int... I>(seq<I...>) { return make_tuple(get<rank_v<T> - 1 - I>(t)...); }(make_seq<rank_v<T>>{});
  } else {
    return t;
  }
}

namespace detail {
template <int J>
struct get_mode {
  template <class T>
  FLY_HD auto operator()(T const& t) const {
    return get<J>(t);
  }
};
// (get<J>(t0), get<J>(t1), ...)
template <int J, class T>
FLY_HD auto column(T const& t) {
  return transform(t, get_mode<J>{});
}
}  // namespace detail

// zip((a0,a1),(b0,b1)) = ((a0,b0),(a1,b1)); zip of one tuple of tuples transposes it.
template <class T>
FLY_HD auto zip(T const& t) {
  if constexpr (is_tuple_v<T> && is_tuple_v<decltype(get<0>(t))>) {
    constexpr int N = rank_v<std::remove_cvref_t<decltype(get<0>(t))>>;
    return [&]<int... J>(seq<J...>) { return make_tuple(detail::column<J>(t)...); }(make_seq<N>{});
  } else {
    return t;
  }
}
template <class A, class B>
FLY_HD auto zip(A const& a, B const& b) {
  return zip(make_tuple(a, b));
}

// unflatten_like(flat, profile): the leaves of flat, nested like profile.
template <class T>
inline constexpr int leaf_count_v = [] {
  if constexpr (is_tuple_v<T>) {
    return []<int... I>(seq<I...>) {
      return (0 + ... + leaf_count_v<std::remove_cvref_t<decltype(get<I>(std::declval<T>()))>>);
    }(make_seq<rank_v<T>>{});
  } else {
    return 1;
  }
}();
namespace detail {
template <int Offset, class Flat, class P>
FLY_HD auto unflatten_at(Flat const& flat, P const& profile) {
  if constexpr (is_tuple_v<P>) {
    return [&]<int... I>(seq<I...>) {
      return make_tuple(unflatten_at<Offset + leaf_count_v<decltype(take<0, I>(profile))>>(flat, get<I>(profile))...);
    }(make_seq<rank_v<P>>{});
  } else {
    return get<Offset>(flat);
  }
}
}  // namespace detail
template <class Flat, class P>
FLY_HD auto unflatten_like(Flat const& flat, P const& profile) {
  static_assert(leaf_count_v<Flat> == leaf_count_v<P> || !is_tuple_v<Flat>, "fly::unflatten_like: leaf counts differ");
  return detail::unflatten_at<0>(wrap(flat), profile);
}

// ---- reductions ----------------------------------------------------------------------------------

template <class T>
FLY_HD auto product(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, Int<1>{}, [](auto const& acc, auto const& a) { return acc * product(a); });
  } else if constexpr (is_underscore_v<T>) {
    return Int<1>{};
  } else {
    return t;
  }
}
// product_each((a,(b,c))) = (a, b*c)
template <class T>
FLY_HD auto product_each(T const& t) {
  return transform(wrap(t), [](auto const& a) { return product(a); });
}
template <class T>
FLY_HD auto sum(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, Int<0>{}, [](auto const& acc, auto const& a) { return acc + sum(a); });
  } else {
    return t;
  }
}
template <class A, class B>
FLY_HD auto inner_product(A const& a, B const& b) {
  if constexpr (is_tuple_v<A>) {
    static_assert(rank_v<A> == rank_v<B>, "fly::inner_product: mismatched ranks");
    return [&]<int... I>(seq<I...>) {
      return (Int<0>{} + ... + inner_product(get<I>(a), get<I>(b)));
    }(make_seq<rank_v<A>>{});
  } else {
    return a * b;
  }
}

template <class T>
FLY_HD auto max_leaf(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold_first(transform(t, [](auto const& a) { return max_leaf(a); }),
                      [](auto const& a, auto const& b) { return fly::max(a, b); });
  } else {
    return t;
  }
}
template <class T>
FLY_HD auto min_leaf(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold_first(transform(t, [](auto const& a) { return min_leaf(a); }),
                      [](auto const& a, auto const& b) { return fly::min(a, b); });
  } else {
    return t;
  }
}

// ---- elementwise arithmetic ----------------------------------------------------------------------

template <class A, class B>
FLY_HD auto elem_scale(A const& a, B const& b) {
  if constexpr (is_tuple_v<A>) {
    return transform(a, b, [](auto const& x, auto const& y) { return elem_scale(x, y); });
  } else {
    return a * product(b);
  }
}

namespace diagnose {
// Named so that the compiler's instantiation trace shows both operands.
template <long long A, long long B>
struct shape_div_operands {
  static_assert(A % B == 0 || B % A == 0,
                "fly::shape_div(a, b): static shapes must divide one another (a % b == 0 or b % a == 0); "
                "a composition, divide or product whose operands fail this is not admissible");
  static constexpr bool ok = true;
};
}  // namespace diagnose

// shape_div(a, b): a / b where b divides a, else the sign when a divides b (CuTe's definition).
template <class A, class B>
FLY_HD auto shape_div(A const& a, B const& b) {
  if constexpr (is_tuple_v<A>) {
    if constexpr (is_tuple_v<B>) {
      static_assert(rank_v<A> == rank_v<B>, "fly::shape_div: mismatched ranks");
      return transform(a, b, [](auto const& x, auto const& y) { return shape_div(x, y); });
    } else {
      // Divide b out of a's modes in order, carrying what remains of b.
      auto r = fold(a, make_tuple(tuple<>{}, b), [](auto const& acc, auto const& ai) {
        return make_tuple(append(get<0>(acc), shape_div(ai, get<1>(acc))), shape_div(get<1>(acc), ai));
      });
      return get<0>(r);
    }
  } else if constexpr (is_tuple_v<B>) {
    return shape_div(a, product(b));
  } else if constexpr (is_static_v<A> && is_static_v<B>) {
    static_assert(diagnose::shape_div_operands<A::value, B::value>::ok);
    return C<(A::value / B::value != 0 ? A::value / B::value
                                       : (A::value > 0) - (A::value < 0)) * ((B::value > 0) - (B::value < 0))>{};
  } else {
    return a / b != 0 ? a / b : signum(a) * signum(b);
  }
}

// shape_min(a, b) for the composition's "mod out" step.
template <class A, class B>
FLY_HD auto shape_min(A const& a, B const& b) {
  if constexpr (is_tuple_v<A> || is_tuple_v<B>) {
    static_assert(!is_tuple_v<A> && !is_tuple_v<B>, "fly::shape_min: integer operands only");
  } else {
    return fly::min(a, b);
  }
}

// ceil_div for integers and, by mode, for tuples.
template <class A, class B>
FLY_HD auto ceil_div(A const& a, B const& b) {
  if constexpr (is_tuple_v<A> && is_tuple_v<B>) {
    return transform(a, b, [](auto const& x, auto const& y) { return ceil_div(x, y); });
  } else if constexpr (is_tuple_v<A>) {
    // divide b out of a's modes in order, as shape_div does, rounding up
    auto r = fold(a, make_tuple(tuple<>{}, b), [](auto const& acc, auto const& ai) {
      auto rest = get<1>(acc);
      return make_tuple(append(get<0>(acc), ceil_div(ai, rest)), ceil_div(rest, ai));
    });
    return get<0>(r);
  } else if constexpr (is_tuple_v<B>) {
    return ceil_div(a, product(b));
  } else {
    return (a + b - Int<1>{}) / b;
  }
}

// ---- congruence and comparison ---------------------------------------------------------------

template <class A, class B>
inline constexpr bool congruent_v = [] {
  if constexpr (is_tuple_v<A> && is_tuple_v<B>) {
    if constexpr (rank_v<A> != rank_v<B>) {
      return false;
    } else {
      return []<int... I>(seq<I...>) {
        return (congruent_v<std::remove_cvref_t<decltype(get<I>(std::declval<A>()))>,
                            std::remove_cvref_t<decltype(get<I>(std::declval<B>()))>> && ...);
      }(make_seq<rank_v<A>>{});
    }
  } else {
    return !is_tuple_v<A> && !is_tuple_v<B>;
  }
}();
template <class A, class B>
FLY_HD auto congruent(A const&, B const&) {
  return bool_constant<congruent_v<A, B>>{};
}

// weakly_congruent(a, b): a's profile is a coarsening of b's (an integer in a stands for any subtree).
template <class A, class B>
inline constexpr bool weakly_congruent_v = [] {
  if constexpr (!is_tuple_v<A>) {
    return true;
  } else if constexpr (!is_tuple_v<B>) {
    return false;
  } else if constexpr (rank_v<A> != rank_v<B>) {
    return false;
  } else {
    return []<int... I>(seq<I...>) {
      return (weakly_congruent_v<std::remove_cvref_t<decltype(get<I>(std::declval<A>()))>,
                                 std::remove_cvref_t<decltype(get<I>(std::declval<B>()))>> && ...);
    }(make_seq<rank_v<A>>{});
  }
}();

// Equality of IntTuples: static when both sides are static.
template <class A, class B>
FLY_HD auto equal(A const& a, B const& b) {
  if constexpr (is_tuple_v<A> && is_tuple_v<B>) {
    if constexpr (rank_v<A> != rank_v<B>) {
      return false_type{};
    } else {
      return [&]<int... I>(seq<I...>) {
        if constexpr (is_static_v<A> && is_static_v<B>) {
          return bool_constant<(decltype(equal(get<I>(a), get<I>(b)))::value && ...)>{};
        } else {
          return (bool(equal(get<I>(a), get<I>(b))) && ...);
        }
      }(make_seq<rank_v<A>>{});
    }
  } else if constexpr (is_tuple_v<A> || is_tuple_v<B>) {
    return false_type{};
  } else {
    return a == b;
  }
}
template <class... A, class... B>
FLY_HD auto operator==(tuple<A...> const& a, tuple<B...> const& b) {
  return equal(a, b);
}
template <class... A, class... B>
FLY_HD auto operator!=(tuple<A...> const& a, tuple<B...> const& b) {
  return !equal(a, b);
}

// ---- compact strides -------------------------------------------------------------------------

// compact_col_major(shape, current): exclusive prefix products, leftmost mode fastest.
template <class S, class Cur = Int<1>>
FLY_HD auto compact_col_major(S const& shape, Cur const& current = {}) {
  if constexpr (is_tuple_v<S>) {
    auto r = fold(shape, make_tuple(tuple<>{}, current), [](auto const& acc, auto const& s) {
      return make_tuple(append(get<0>(acc), compact_col_major(s, get<1>(acc))), get<1>(acc) * product(s));
    });
    return get<0>(r);
  } else if constexpr (is_constant_v<1, S>) {
    return Int<0>{};  // a size-1 mode is never stepped: stride 0 keeps it out of coalescing decisions
  } else {
    return current;
  }
}
template <class S, class Cur = Int<1>>
FLY_HD auto compact_row_major(S const& shape, Cur const& current = {}) {
  return reverse(compact_col_major(reverse(shape), current));
}

// ---- coordinates -----------------------------------------------------------------------------

// idx2crd(idx, shape): the colexicographic coordinate of a 1-D index in shape (every mode wraps).
template <class Idx, class S>
FLY_HD auto idx2crd(Idx const& idx, S const& shape) {
  if constexpr (is_tuple_v<Idx>) {
    static_assert(is_tuple_v<S> && rank_v<Idx> == rank_v<S>, "fly::idx2crd: coordinate not congruent to shape");
    return transform(idx, shape, [](auto const& i, auto const& s) { return idx2crd(i, s); });
  } else if constexpr (is_tuple_v<S>) {
    auto r = fold(shape, make_tuple(tuple<>{}, idx), [](auto const& acc, auto const& s) {
      auto const& rest = get<1>(acc);
      return make_tuple(append(get<0>(acc), idx2crd(rest % product(s), s)), rest / product(s));
    });
    return get<0>(r);
  } else {
    return idx;
  }
}

template <class Crd, class S, class D>
FLY_HD auto crd2idx(Crd const& coord, S const& shape, D const& stride);

namespace detail {
// An integer coordinate of a tuple shape is split colexicographically; the last mode is left
// unbounded, so indices past size(shape) continue along it (composition relies on this).
template <int I, int R, class Idx, class S, class D>
FLY_HD auto crd2idx_split(Idx const& idx, S const& shape, D const& stride) {
  if constexpr (I == R - 1) {
    return crd2idx(idx, get<I>(shape), get<I>(stride));
  } else {
    auto s = product(get<I>(shape));
    return crd2idx(idx % s, get<I>(shape), get<I>(stride)) + crd2idx_split<I + 1, R>(idx / s, shape, stride);
  }
}
}  // namespace detail

// crd2idx(coord, shape, stride): the index of a (possibly coarser-than-shape) coordinate.
template <class Crd, class S, class D>
FLY_HD auto crd2idx(Crd const& coord, S const& shape, D const& stride) {
  if constexpr (is_tuple_v<Crd>) {
    static_assert(is_tuple_v<S> && rank_v<Crd> == rank_v<S>, "fly::crd2idx: coordinate not congruent to shape");
    return [&]<int... I>(seq<I...>) {
      return (Int<0>{} + ... + crd2idx(get<I>(coord), get<I>(shape), get<I>(stride)));
    }(make_seq<rank_v<Crd>>{});
  } else if constexpr (is_tuple_v<S>) {
    return detail::crd2idx_split<0, rank_v<S>>(coord, shape, stride);
  } else {
    return coord * stride;
  }
}

}  // namespace fly
