// fly::Tensor<Engine, Layout>: a layout over an engine. The engine is either a view (an iterator:
// a pointer into global or shared memory) or an owning register array (a fragment, whose layout
// must be static). Indexing goes through the layout; a coordinate holding `_` slices a sub-tensor.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fly/layout.hpp"

namespace fly {

// ---- engines ---------------------------------------------------------------------------------

namespace detail {
// The element type of an iterator: its value_type member (buffer pointers), else what it points to.
template <class It, class = void>
struct iter_value {
  using type = std::remove_cvref_t<decltype(*std::declval<It>())>;
};
template <class It>
struct iter_value<It, std::void_t<typename It::value_type>> {
  using type = typename It::value_type;
};
}  // namespace detail

template <class Iterator>
struct ViewEngine {
  using iterator = Iterator;
  using value_type = typename detail::iter_value<Iterator>::type;
  Iterator it;
  FLY_HD iterator begin() const { return it; }
};

// Registers: N values held by value, indexed only with compile-time offsets once unrolled.
// Values narrower than 32 bits (fp8, bf16) are stored as 32-bit words: copies and instruction
// operands access fragments in 32..128-bit words, and an array of bytes would let the compiler
// promote the fragment to a byte vector and shuffle bytes between those accesses.
template <class T, int N>
struct ArrayEngine {
  using value_type = T;
  using iterator = T*;
  static constexpr bool packed = sizeof(T) < 4 && (N * sizeof(T)) % 4 == 0;
  using word_type = std::conditional_t<packed, uint32_t, T>;
  static constexpr int num_words = packed ? int(N * sizeof(T) / 4) : N;
  alignas(16) word_type storage[num_words > 0 ? num_words : 1];
  FLY_HD T* begin() { return reinterpret_cast<T*>(storage); }
  FLY_HD T const* begin() const { return reinterpret_cast<T const*>(storage); }
};

template <class T>
struct is_array_engine : std::false_type {};
template <class T, int N>
struct is_array_engine<ArrayEngine<T, N>> : std::true_type {};

// ---- tensor ----------------------------------------------------------------------------------

template <class Engine, class Layout_>
struct Tensor {
  using engine_type = Engine;
  using layout_type = Layout_;
  using value_type = typename Engine::value_type;

  Engine engine_;
  Layout_ layout_;

  FLY_HD auto data() const { return engine_.begin(); }
  FLY_HD auto data() { return engine_.begin(); }
  FLY_HD Layout_ const& layout() const { return layout_; }
  FLY_HD decltype(auto) shape() const { return layout_.shape(); }
  FLY_HD decltype(auto) stride() const { return layout_.stride(); }

  template <class Crd>
  FLY_HD decltype(auto) operator()(Crd const& c) {
    if constexpr (has_underscore_v<Crd>) {
      auto [sub, off] = slice_and_offset(c, layout_);
      return Tensor<ViewEngine<decltype(data() + off)>, decltype(sub)>{{data() + off}, sub};
    } else {
      return data()[layout_(c)];
    }
  }
  template <class Crd>
  FLY_HD decltype(auto) operator()(Crd const& c) const {
    if constexpr (has_underscore_v<Crd>) {
      auto [sub, off] = slice_and_offset(c, layout_);
      return Tensor<ViewEngine<decltype(data() + off)>, decltype(sub)>{{data() + off}, sub};
    } else {
      return data()[layout_(c)];
    }
  }
  template <class C0, class C1, class... Cs>
  FLY_HD decltype(auto) operator()(C0 const& c0, C1 const& c1, Cs const&... cs) {
    return (*this)(make_coord(c0, c1, cs...));
  }
  template <class C0, class C1, class... Cs>
  FLY_HD decltype(auto) operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }
  template <class I>
  FLY_HD decltype(auto) operator[](I const& i) {
    return data()[layout_(i)];
  }
  template <class I>
  FLY_HD decltype(auto) operator[](I const& i) const {
    return data()[layout_(i)];
  }
};

template <class T>
struct is_tensor : std::false_type {};
template <class E, class L>
struct is_tensor<Tensor<E, L>> : std::true_type {};
template <class T>
inline constexpr bool is_tensor_v = is_tensor<std::remove_cvref_t<T>>::value;

// make_tensor(iterator, layout): a view. make_tensor<T>(layout): registers (static layout).
template <class Iterator, class S, class D>
FLY_HD auto make_tensor(Iterator it, Layout<S, D> const& l) {
  return Tensor<ViewEngine<Iterator>, Layout<S, D>>{{it}, l};
}
template <class Iterator, class Shape, class... Rest, std::enable_if_t<!is_layout_v<Shape>, int> = 0>
FLY_HD auto make_tensor(Iterator it, Shape const& shape, Rest const&... rest) {
  return make_tensor(it, make_layout(shape, rest...));
}
template <class T, class S, class D>
FLY_HD auto make_tensor(Layout<S, D> const& l) {
  static_assert(is_static_v<Layout<S, D>>, "fly::make_tensor<T>(layout): a register tensor needs a static layout");
  Tensor<ArrayEngine<T, int(decltype(cosize(l))::value)>, Layout<S, D>> t;  // registers start undefined, as in CuTe
  t.layout_ = l;
  return t;
}
// A register tensor shaped like `t` (compact, same stride order for mode 0).
template <class T, class E, class L>
FLY_HD auto make_fragment_like(Tensor<E, L> const& t) {
  return make_tensor<T>(make_fragment_like(t.layout()));
}
template <class E, class L>
FLY_HD auto make_fragment_like(Tensor<E, L> const& t) {
  return make_fragment_like<typename E::value_type>(t);
}

template <class E, class L>
FLY_HD auto size(Tensor<E, L> const& t) {
  return size(t.layout());
}
template <int I, int... Is, class E, class L>
FLY_HD auto size(Tensor<E, L> const& t) {
  return size<I, Is...>(t.layout());
}
template <int... Is, class E, class L>
FLY_HD auto rank(Tensor<E, L> const& t) {
  return rank<Is...>(t.layout());
}

// A view of t with another layout over the same data.
template <class E, class L, class NewLayout>
FLY_HD auto make_view(Tensor<E, L>& t, NewLayout const& l) {
  return make_tensor(t.data(), l);
}
template <class E, class L, class NewLayout>
FLY_HD auto make_view(Tensor<E, L> const& t, NewLayout const& l) {
  return make_tensor(t.data(), l);
}

// ---- tensor algebra: the layout algebra applied to a tensor's layout --------------------------

template <class E, class L, class T>
FLY_HD auto zipped_divide(Tensor<E, L>& t, T const& tiler) {
  return make_view(t, zipped_divide(t.layout(), tiler));
}
template <class E, class L, class T>
FLY_HD auto logical_divide(Tensor<E, L>& t, T const& tiler) {
  return make_view(t, logical_divide(t.layout(), tiler));
}
template <class E, class L>
FLY_HD auto flatten(Tensor<E, L>& t) {
  return make_view(t, flatten(t.layout()));
}
template <class E, class L>
FLY_HD auto coalesce(Tensor<E, L>& t) {
  return make_view(t, coalesce(t.layout()));
}

// local_tile(t, tiler, coord): the tile at coord of t divided by tiler.
template <class E, class L, class T, class Crd>
FLY_HD auto local_tile(Tensor<E, L>& t, T const& tiler, Crd const& coord) {
  auto z = zipped_divide(t, tiler);
  return z(_, coord);  // keep the whole tile mode, pick the rest coordinate
}

// recast<NewT>(t): the same bytes seen as elements of NewT (the layout is recast accordingly).
template <class NewT, class E, class L>
FLY_HD auto recast(Tensor<E, L>& t) {
  using OldT = typename E::value_type;
  auto it = reinterpret_cast<NewT*>(t.data());
  return make_tensor(it, recast_layout<OldT, NewT>(t.layout()));
}
template <class NewT, class E, class L>
FLY_HD auto recast(Tensor<E, L> const& t) {
  using OldT = typename E::value_type;
  auto it = reinterpret_cast<NewT const*>(t.data());
  return make_tensor(it, recast_layout<OldT, NewT>(t.layout()));
}

// Fill every element (registers or memory).
// for_each_index<N>(f): f(Int<0>{}), ..., f(Int<N-1>{}), fully unrolled, so register tensors are
// only ever indexed with compile-time offsets.
template <int N, class F>
FLY_HD void for_each_index(F&& f) {
  [&]<int... I>(seq<I...>) { (f(Int<I>{}), ...); }(make_seq<N>{});
}

template <class E, class L, class V>
FLY_HD void fill(Tensor<E, L>& t, V const& v) {
  if constexpr (is_static_v<decltype(size(t))>) {
    for_each_index<int(decltype(size(t))::value)>([&](auto i) { t[i] = v; });
  } else {
    for (int i = 0; i < int(size(t)); ++i) t[i] = v;
  }
}

}  // namespace fly
