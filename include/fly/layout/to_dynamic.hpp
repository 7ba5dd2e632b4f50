// Bridges the compile-time algebra to the run-time one: a static or mixed fly::Layout becomes a
// fly::dyn::Layout with the same values and static marks. Host only.
#pragma once

#include <utility>
#include <vector>

#include "fly/layout/dynamic.hpp"
#include "fly/layout/layout.hpp"

namespace fly::dyn {

template <class T>
IntTuple to_dynamic(T const& t) {
  if constexpr (fly::is_tuple_v<T>) {
    std::vector<IntTuple> modes;
    fly::for_each(t, [&](auto const& m) { modes.push_back(to_dynamic(m)); });
    return IntTuple::tuple(std::move(modes));
  } else {
    return IntTuple(static_cast<int64_t>(t), fly::is_static_v<T>);
  }
}

template <class S, class D>
Layout to_dynamic(fly::Layout<S, D> const& l) {
  return Layout{to_dynamic(l.shape()), to_dynamic(l.stride())};
}

}  // namespace fly::dyn
