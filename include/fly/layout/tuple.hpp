// fly::tuple: a device-friendly tuple whose empty members (static integers) take no storage,
// so a tuple of static integers is itself empty and therefore static.
#pragma once

#include <cstddef>
#include <tuple>  // std::tuple_size / std::tuple_element specialisations for structured bindings
#include <type_traits>
#include <utility>

#include "fly/layout/config.hpp"
#include "fly/layout/integral.hpp"

namespace fly {

template <int... I>
using seq = std::integer_sequence<int, I...>;
template <int N>
using make_seq = std::make_integer_sequence<int, N>;

template <class S>
inline constexpr int seq_size_v = 0;
template <int... I>
inline constexpr int seq_size_v<seq<I...>> = int(sizeof...(I));

namespace detail {
template <int B, class S>
struct offset_seq;
template <int B, int... I>
struct offset_seq<B, seq<I...>> {
  using type = seq<(B + I)...>;
};
}  // namespace detail
// make_range<B, E> = seq<B, B+1, ..., E-1>
template <int B, int E>
using make_range = typename detail::offset_seq<B, make_seq<(E > B ? E - B : 0)>>::type;

namespace detail {

// One member of a tuple. Empty members are not stored; reading one default-constructs it.
template <std::size_t I, class T, bool Empty = std::is_empty_v<T>>
struct EBO;

template <std::size_t I, class T>
struct EBO<I, T, true> {
  FLY_HOST_DEVICE constexpr EBO() {}
  FLY_HOST_DEVICE constexpr EBO(T const&) {}
};

template <std::size_t I, class T>
struct EBO<I, T, false> {
  FLY_HOST_DEVICE constexpr EBO() : t_{} {}
  FLY_HOST_DEVICE constexpr EBO(T const& t) : t_{t} {}
  T t_;
};

template <std::size_t I, class T>
FLY_HD T getv(EBO<I, T, true> const&) { return {}; }
template <std::size_t I, class T>
FLY_HD T const& getv(EBO<I, T, false> const& x) { return x.t_; }
template <std::size_t I, class T>
FLY_HD T& getv(EBO<I, T, false>& x) { return x.t_; }

template <class IndexSeq, class... T>
struct TupleBase;

template <std::size_t... I, class... T>
struct TupleBase<std::index_sequence<I...>, T...> : EBO<I, T>... {
  FLY_HOST_DEVICE constexpr TupleBase() {}
  template <class... U>
  FLY_HOST_DEVICE constexpr explicit TupleBase(U const&... u) : EBO<I, T>(u)... {}
};

}  // namespace detail

template <class... T>
struct tuple : detail::TupleBase<std::make_index_sequence<sizeof...(T)>, T...> {
  using base = detail::TupleBase<std::make_index_sequence<sizeof...(T)>, T...>;
  FLY_HOST_DEVICE constexpr tuple() {}
  template <class... U, std::enable_if_t<sizeof...(U) == sizeof...(T) && (sizeof...(T) > 0), int> = 0>
  FLY_HOST_DEVICE constexpr tuple(U const&... u) : base(static_cast<T>(u)...) {}
};

template <class T>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<tuple<T...>> : std::true_type {};
template <class T>
inline constexpr bool is_tuple_v = is_tuple<std::remove_cvref_t<T>>::value;

// Tuple-like types that fly::get<I> indexes: fly::tuple and types derived from it that opt in.
template <class T>
struct is_tuple_like : is_tuple<T> {};
template <class T>
inline constexpr bool is_tuple_like_v = is_tuple_like<std::remove_cvref_t<T>>::value;

template <class T>
struct tuple_size;
template <class... T>
struct tuple_size<tuple<T...>> : std::integral_constant<int, sizeof...(T)> {};
template <class T>
inline constexpr int tuple_size_v = tuple_size<std::remove_cvref_t<T>>::value;

namespace detail {
template <std::size_t I, class... T>
FLY_HD decltype(auto) tuple_get(tuple<T...> const& t) {
  static_assert(I < sizeof...(T), "fly::get<I>(tuple): index out of range");
  return getv<I, std::tuple_element_t<I, std::tuple<T...>>>(t);
}
template <std::size_t I, class... T>
FLY_HD decltype(auto) tuple_get(tuple<T...>& t) {
  static_assert(I < sizeof...(T), "fly::get<I>(tuple): index out of range");
  return getv<I, std::tuple_element_t<I, std::tuple<T...>>>(t);
}
}  // namespace detail

// Element access for structured bindings; fly::get<I...>(x) in int_tuple.hpp is the general form.
template <std::size_t I, class... T>
FLY_HD decltype(auto) get(tuple<T...> const& t) {
  return detail::tuple_get<I>(t);
}
template <std::size_t I, class... T>
FLY_HD decltype(auto) get(tuple<T...>& t) {
  return detail::tuple_get<I>(t);
}
template <std::size_t I, class... T>
FLY_HD auto get(tuple<T...>&& t) {
  return std::tuple_element_t<I, std::tuple<T...>>(detail::tuple_get<I>(t));
}

template <class... T>
FLY_HD tuple<T...> make_tuple(T const&... t) {
  return {t...};
}

}  // namespace fly

// Structured bindings: auto [a, b] = some_fly_tuple;
template <class... T>
struct std::tuple_size<fly::tuple<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};
template <std::size_t I, class... T>
struct std::tuple_element<I, fly::tuple<T...>> : std::tuple_element<I, std::tuple<T...>> {};
