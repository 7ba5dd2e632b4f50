// Static integers (fly::C<v>, fly::Int<N>, fly::_N) and the traits that tell static from dynamic.
//
// A static integer is an empty type whose value lives in the type, so layouts made of them occupy
// no registers. Arithmetic between static integers stays static; with a dynamic integer it becomes
// dynamic, except where the result is known regardless (0 * x == 0, 0 / x == 0, x % 1 == 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "fly/layout/config.hpp"

namespace fly {

template <auto v>
struct C {
  using type = C;
  using value_type = decltype(v);
  static constexpr value_type value = v;
  FLY_HOST_DEVICE constexpr operator value_type() const noexcept { return value; }
  FLY_HOST_DEVICE constexpr value_type operator()() const noexcept { return value; }
};

template <int v>
using Int = C<v>;
template <bool b>
using bool_constant = C<b>;
using true_type = C<true>;
using false_type = C<false>;

// ---- traits ----------------------------------------------------------------------------------

template <class T>
struct is_constant_type : std::false_type {};
template <auto v>
struct is_constant_type<C<v>> : std::true_type {};

// A static value carries everything in its type: CuTe's rule, which makes tuples and layouts of
// static integers static as well.
template <class T>
struct is_static : std::bool_constant<std::is_empty_v<std::remove_cvref_t<T>>> {};
template <class T>
inline constexpr bool is_static_v = is_static<T>::value;

template <class T>
struct is_integral
    : std::bool_constant<std::is_integral_v<std::remove_cvref_t<T>> ||
                         is_constant_type<std::remove_cvref_t<T>>::value> {};
template <class T>
inline constexpr bool is_integral_v = is_integral<T>::value;

template <class T>
inline constexpr bool is_std_integral_v = std::is_integral_v<std::remove_cvref_t<T>>;

// is_constant<n, T>: T is a static integer equal to n.
template <auto n, class T>
struct is_constant : std::false_type {};
template <auto n, auto v>
struct is_constant<n, C<v>> : std::bool_constant<v == n> {};
template <auto n, class T>
struct is_constant<n, T const> : is_constant<n, T> {};
template <auto n, class T>
struct is_constant<n, T&> : is_constant<n, T> {};
template <auto n, class T>
struct is_constant<n, T const&> : is_constant<n, T> {};
template <auto n, class T>
inline constexpr bool is_constant_v = is_constant<n, T>::value;

// ---- arithmetic between static integers ---------------------------------------------------------

#define FLY_BINARY_OP(OP)                                          \
  template <auto a, auto b>                                        \
  FLY_HD C<(a OP b)> operator OP(C<a>, C<b>) noexcept { return {}; }
FLY_BINARY_OP(+)
FLY_BINARY_OP(-)
FLY_BINARY_OP(*)
FLY_BINARY_OP(/)
FLY_BINARY_OP(%)
FLY_BINARY_OP(&)
FLY_BINARY_OP(|)
FLY_BINARY_OP(<<)
FLY_BINARY_OP(>>)
FLY_BINARY_OP(==)
FLY_BINARY_OP(!=)
FLY_BINARY_OP(<)
FLY_BINARY_OP(>)
FLY_BINARY_OP(<=)
FLY_BINARY_OP(>=)
FLY_BINARY_OP(&&)
FLY_BINARY_OP(||)
#undef FLY_BINARY_OP

template <auto a>
FLY_HD C<(-a)> operator-(C<a>) noexcept { return {}; }
template <auto a>
FLY_HD C<(!a)> operator!(C<a>) noexcept { return {}; }

// Results known whatever the dynamic operand is: keep them static.
template <auto t, class U, std::enable_if_t<is_std_integral_v<U> && t == 0, int> = 0>
FLY_HD C<t> operator*(C<t>, U) noexcept { return {}; }
template <class U, auto t, std::enable_if_t<is_std_integral_v<U> && t == 0, int> = 0>
FLY_HD C<t> operator*(U, C<t>) noexcept { return {}; }
template <auto t, class U, std::enable_if_t<is_std_integral_v<U> && t == 0, int> = 0>
FLY_HD C<t> operator/(C<t>, U) noexcept { return {}; }
template <class U, auto t, std::enable_if_t<is_std_integral_v<U> && (t == 1 || t == -1), int> = 0>
FLY_HD C<0> operator%(U, C<t>) noexcept { return {}; }
template <auto t, class U, std::enable_if_t<is_std_integral_v<U> && t == 0, int> = 0>
FLY_HD C<t> operator%(C<t>, U) noexcept { return {}; }

// ---- integer helpers that keep static values static ---------------------------------------------

template <class A, class B>
FLY_HD auto min(A const& a, B const& b) {
  if constexpr (is_static_v<A> && is_static_v<B>) {
    return C<(A::value < B::value ? A::value : B::value)>{};
  } else {
    return a < b ? a : b;
  }
}
template <class A, class B>
FLY_HD auto max(A const& a, B const& b) {
  if constexpr (is_static_v<A> && is_static_v<B>) {
    return C<(A::value < B::value ? B::value : A::value)>{};
  } else {
    return a < b ? b : a;
  }
}
template <class A>
FLY_HD auto abs(A const& a) {
  if constexpr (is_static_v<A>) {
    return C<(A::value < 0 ? -A::value : A::value)>{};
  } else {
    return a < 0 ? -a : a;
  }
}
template <class A>
FLY_HD auto signum(A const& a) {
  if constexpr (is_static_v<A>) {
    return C<((A::value > 0) - (A::value < 0))>{};
  } else {
    return (a > 0) - (a < 0);
  }
}
namespace detail {
FLY_HD long long gcd_value(long long a, long long b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}
}  // namespace detail
template <class A, class B>
FLY_HD auto gcd(A const& a, B const& b) {
  if constexpr (is_static_v<A> && is_static_v<B>) {
    return C<static_cast<decltype(A::value * B::value)>(detail::gcd_value(A::value, B::value))>{};
  } else {
    return static_cast<decltype(a * b)>(detail::gcd_value(a, b));
  }
}

// ---- shorthands: fly::_0 ... fly::_N -----------------------------------------------------------

using _m1 = Int<-1>;
using _0 = Int<0>;
using _1 = Int<1>;
using _2 = Int<2>;
using _3 = Int<3>;
using _4 = Int<4>;
using _5 = Int<5>;
using _6 = Int<6>;
using _7 = Int<7>;
using _8 = Int<8>;
using _9 = Int<9>;
using _10 = Int<10>;
using _11 = Int<11>;
using _12 = Int<12>;
using _13 = Int<13>;
using _14 = Int<14>;
using _15 = Int<15>;
using _16 = Int<16>;
using _20 = Int<20>;
using _24 = Int<24>;
using _32 = Int<32>;
using _48 = Int<48>;
using _64 = Int<64>;
using _96 = Int<96>;
using _128 = Int<128>;
using _192 = Int<192>;
using _256 = Int<256>;
using _512 = Int<512>;
using _1024 = Int<1024>;
using _2048 = Int<2048>;
using _4096 = Int<4096>;
using _8192 = Int<8192>;

}  // namespace fly
