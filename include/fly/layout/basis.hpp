// Scaled basis strides (E<0>, E<1>, E<0,1>...) and arithmetic tuples: the codomain of identity
// layouts, whose value at a coordinate is the coordinate itself (used for predicates and tails).
#pragma once

#include "fly/layout/int_tuple.hpp"

namespace fly {

// value * e_{N0,N1,...}: a unit vector along the (hierarchical) mode N0, N1, ... scaled by value.
template <class T, int... Ns>
struct ScaledBasis : private tuple<T> {
  FLY_HOST_DEVICE constexpr ScaledBasis(T const& t = {}) : tuple<T>(t) {}
  FLY_HD decltype(auto) value() const { return get<0>(static_cast<tuple<T> const&>(*this)); }
};
template <int... Ns>
using E = ScaledBasis<Int<1>, Ns...>;

template <class T>
struct is_scaled_basis : std::false_type {};
template <class T, int... Ns>
struct is_scaled_basis<ScaledBasis<T, Ns...>> : std::true_type {};
template <class T>
inline constexpr bool is_scaled_basis_v = is_scaled_basis<std::remove_cvref_t<T>>::value;

// An element of Z^n (nested): the sum of scaled bases.
template <class... T>
struct ArithmeticTuple : tuple<T...> {
  FLY_HOST_DEVICE constexpr ArithmeticTuple() {}
  FLY_HOST_DEVICE constexpr ArithmeticTuple(tuple<T...> const& t) : tuple<T...>(t) {}
  template <class... U, std::enable_if_t<sizeof...(U) == sizeof...(T) && (sizeof...(T) > 0), int> = 0>
  FLY_HOST_DEVICE constexpr ArithmeticTuple(U const&... u) : tuple<T...>(u...) {}
};
template <class T>
struct is_arithmetic_tuple : std::false_type {};
template <class... T>
struct is_arithmetic_tuple<ArithmeticTuple<T...>> : std::true_type {};
template <class T>
inline constexpr bool is_arithmetic_tuple_v = is_arithmetic_tuple<std::remove_cvref_t<T>>::value;
template <class... T>
struct is_tuple_like<ArithmeticTuple<T...>> : std::true_type {};

template <class... T>
FLY_HD auto make_arithmetic_tuple(T const&... t) {
  return ArithmeticTuple<T...>(t...);
}
template <class... T>
FLY_HD auto as_tuple(ArithmeticTuple<T...> const& t) {
  return static_cast<tuple<T...> const&>(t);
}

template <int I, int... Is, class T>
FLY_HD auto basis_prepend(ScaledBasis<T, Is...> const& b) {
  return ScaledBasis<T, I, Is...>(b.value());
}

// The arithmetic tuple a scaled basis stands for: value at position (N0, N1, ...), zeros elsewhere.
template <class T, int N, int... Ns>
FLY_HD auto as_arithmetic_tuple(ScaledBasis<T, N, Ns...> const& b) {
  auto inner = [&] {
    if constexpr (sizeof...(Ns) == 0) {
      return b.value();
    } else {
      return as_arithmetic_tuple(ScaledBasis<T, Ns...>(b.value()));
    }
  }();
  return ArithmeticTuple(append(tuple_repeat<N>(Int<0>{}), inner));
}
template <class... T>
FLY_HD auto as_arithmetic_tuple(ArithmeticTuple<T...> const& t) {
  return t;
}

// ---- scaling ---------------------------------------------------------------------------------

template <class T, int... Ns, class U, std::enable_if_t<is_integral_v<U>, int> = 0>
FLY_HD auto operator*(ScaledBasis<T, Ns...> const& b, U const& u) {
  auto v = b.value() * u;
  return ScaledBasis<decltype(v), Ns...>(v);
}
template <class U, class T, int... Ns, std::enable_if_t<is_integral_v<U>, int> = 0>
FLY_HD auto operator*(U const& u, ScaledBasis<T, Ns...> const& b) {
  return b * u;
}
template <class T, int... Ns, class U, std::enable_if_t<is_integral_v<U>, int> = 0>
FLY_HD auto operator/(ScaledBasis<T, Ns...> const& b, U const& u) {
  auto v = b.value() / u;
  return ScaledBasis<decltype(v), Ns...>(v);
}

// ---- addition --------------------------------------------------------------------------------

namespace detail {
template <class A, class B>
FLY_HD auto arith_add(A const& a, B const& b) {
  if constexpr (is_arithmetic_tuple_v<A> || is_arithmetic_tuple_v<B>) {
    auto ta = [&] {
      if constexpr (is_arithmetic_tuple_v<A>) { return as_tuple(a); } else { return make_tuple(a); }
    }();
    auto tb = [&] {
      if constexpr (is_arithmetic_tuple_v<B>) { return as_tuple(b); } else { return make_tuple(b); }
    }();
    constexpr int R = rank_v<decltype(ta)> > rank_v<decltype(tb)> ? rank_v<decltype(ta)> : rank_v<decltype(tb)>;
    auto pa = append<R>(ta, Int<0>{});
    auto pb = append<R>(tb, Int<0>{});
    return ArithmeticTuple(transform(pa, pb, [](auto const& x, auto const& y) { return arith_add(x, y); }));
  } else {
    return a + b;
  }
}
}  // namespace detail

template <class... A, class... B>
FLY_HD auto operator+(ArithmeticTuple<A...> const& a, ArithmeticTuple<B...> const& b) {
  return detail::arith_add(a, b);
}
template <class... A, class T, int... Ns>
FLY_HD auto operator+(ArithmeticTuple<A...> const& a, ScaledBasis<T, Ns...> const& b) {
  return detail::arith_add(a, as_arithmetic_tuple(b));
}
template <class T, int... Ns, class... B>
FLY_HD auto operator+(ScaledBasis<T, Ns...> const& a, ArithmeticTuple<B...> const& b) {
  return detail::arith_add(as_arithmetic_tuple(a), b);
}
template <class T, int... Ns, class U, int... Ms>
FLY_HD auto operator+(ScaledBasis<T, Ns...> const& a, ScaledBasis<U, Ms...> const& b) {
  return detail::arith_add(as_arithmetic_tuple(a), as_arithmetic_tuple(b));
}
// Zero is the additive identity of both, which keeps static-zero sums out of the codomain.
template <class T, int... Ns>
FLY_HD auto operator+(C<0>, ScaledBasis<T, Ns...> const& b) { return b; }
template <class T, int... Ns>
FLY_HD auto operator+(ScaledBasis<T, Ns...> const& b, C<0>) { return b; }
template <class... A>
FLY_HD auto operator+(C<0>, ArithmeticTuple<A...> const& a) { return a; }
template <class... A>
FLY_HD auto operator+(ArithmeticTuple<A...> const& a, C<0>) { return a; }

// ---- comparison (coalesce asks whether s * d == d') ---------------------------------------------

template <class T, int... Ns, class U, int... Ms>
FLY_HD auto operator==(ScaledBasis<T, Ns...> const& a, ScaledBasis<U, Ms...> const& b) {
  if constexpr (!std::is_same_v<seq<Ns...>, seq<Ms...>>) {
    return false_type{};
  } else {
    return a.value() == b.value();
  }
}
template <class T, int... Ns, class U, std::enable_if_t<is_integral_v<U>, int> = 0>
FLY_HD auto operator==(ScaledBasis<T, Ns...> const&, U const&) { return false_type{}; }
template <class U, class T, int... Ns, std::enable_if_t<is_integral_v<U>, int> = 0>
FLY_HD auto operator==(U const&, ScaledBasis<T, Ns...> const&) { return false_type{}; }

template <class S>
FLY_HD auto make_basis_like(S const& shape);

namespace detail {
template <int I>
struct prepend_basis_index {
  template <class T, int... Ns>
  FLY_HD auto operator()(ScaledBasis<T, Ns...> const& e) const {
    return basis_prepend<I>(e);
  }
};
// The strides of mode I: E<I> for an integer mode, E<I, ...> at the leaves of a tuple mode.
template <int I, class M>
FLY_HD auto basis_of_mode(M const& mode) {
  if constexpr (is_tuple_v<M>) {
    return transform_leaf(make_basis_like(mode), prepend_basis_index<I>{});
  } else {
    return E<I>{};
  }
}
}  // namespace detail

// make_basis_like(shape): the strides of the identity layout of shape.
template <class S>
FLY_HD auto make_basis_like(S const& shape) {
  if constexpr (is_tuple_v<S>) {
    return [&]<int... I>(seq<I...>) { return make_tuple(detail::basis_of_mode<I>(get<I>(shape))...); }(
        make_seq<rank_v<S>>{});
  } else {
    return Int<1>{};
  }
}

}  // namespace fly

template <class... T>
struct std::tuple_size<fly::ArithmeticTuple<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <std::size_t I, class... T>
struct std::tuple_element<I, fly::ArithmeticTuple<T...>> : std::tuple_element<I, std::tuple<T...>> {};
