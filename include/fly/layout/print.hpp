// Printing in CuTe's notation: static integers `_N`, dynamic ones plain, tuples `(a,b)` without
// spaces, layouts `shape:stride`, scaled bases `v@i`, swizzles `Sw<B,M,S>` and a swizzle composed
// with a layout `Sw<B,M,S> o _0 o shape:stride` (CuTe's ComposedLayout has an offset between the
// two, _0 for composition(Swizzle, Layout)). Host only.
#pragma once

#include <ostream>
#include <sstream>
#include <string>

#include "fly/layout/layout.hpp"
#include "fly/layout/swizzle_layout.hpp"

namespace fly {

template <class T, int... Ns>
std::ostream& print_tagged_basis(std::ostream& os, ScaledBasis<T, Ns...> const& b);

template <class T>
inline constexpr bool is_swizzle_v = false;
template <int B, int M, int S>
inline constexpr bool is_swizzle_v<Swizzle<B, M, S>> = true;
template <class T>
inline constexpr bool is_composed_layout_v = false;
template <class Swz, class L>
inline constexpr bool is_composed_layout_v<ComposedLayout<Swz, L>> = true;

template <class T>
std::ostream& print_to(std::ostream& os, T const& t) {
  if constexpr (is_tuple_v<T> || is_arithmetic_tuple_v<T>) {
    os << '(';
    [&]<int... I>(seq<I...>) { ((os << (I == 0 ? "" : ","), print_to(os, get<I>(t))), ...); }(
        make_seq<int(std::tuple_size<std::remove_cvref_t<T>>::value)>{});
    return os << ')';
  } else if constexpr (is_scaled_basis_v<T>) {
    return print_tagged_basis(os, t);
  } else if constexpr (is_layout_v<T>) {
    print_to(os, t.shape());
    os << ':';
    return print_to(os, t.stride());
  } else if constexpr (is_swizzle_v<T>) {
    return os << "Sw<" << T::bits << ',' << T::base << ',' << T::shift << '>';
  } else if constexpr (is_composed_layout_v<T>) {
    print_to(os, t.swizzle);
    os << " o _0 o ";
    return print_to(os, t.layout);
  } else if constexpr (is_underscore_v<T>) {
    return os << '_';
  } else if constexpr (is_constant_type<std::remove_cvref_t<T>>::value) {
    if constexpr (std::is_same_v<typename T::value_type, bool>) {
      return os << '_' << (T::value ? "true" : "false");
    } else {
      return os << '_' << static_cast<long long>(T::value);
    }
  } else if constexpr (std::is_same_v<std::remove_cvref_t<T>, bool>) {
    return os << (t ? "true" : "false");
  } else if constexpr (std::is_integral_v<std::remove_cvref_t<T>>) {
    return os << static_cast<long long>(t);
  } else {
    return os << t;
  }
}

template <class T, int... Ns>
std::ostream& print_tagged_basis(std::ostream& os, ScaledBasis<T, Ns...> const& b) {
  print_to(os, b.value());
  ((os << '@' << Ns), ...);
  return os;
}

template <class T>
std::string to_string(T const& t) {
  std::ostringstream os;
  print_to(os, t);
  return os.str();
}

template <auto v>
std::ostream& operator<<(std::ostream& os, C<v> const& c) {
  return print_to(os, c);
}
template <class... T>
std::ostream& operator<<(std::ostream& os, tuple<T...> const& t) {
  return print_to(os, t);
}
template <class S, class D>
std::ostream& operator<<(std::ostream& os, Layout<S, D> const& l) {
  return print_to(os, l);
}
template <class T, int... Ns>
std::ostream& operator<<(std::ostream& os, ScaledBasis<T, Ns...> const& b) {
  return print_to(os, b);
}
template <int B, int M, int S>
std::ostream& operator<<(std::ostream& os, Swizzle<B, M, S> const& s) {
  return print_to(os, s);
}
template <class Swz, class L>
std::ostream& operator<<(std::ostream& os, ComposedLayout<Swz, L> const& l) {
  return print_to(os, l);
}
template <class... T>
std::ostream& operator<<(std::ostream& os, ArithmeticTuple<T...> const& t) {
  return print_to(os, t);
}

}  // namespace fly
