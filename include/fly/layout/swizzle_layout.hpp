// A swizzle composed with a layout (CuTe's ComposedLayout of a Swizzle and a Layout), and the
// pointer that applies the swizzle at the access: shared-memory tiles whose writers and readers
// index through one object.
#pragma once

#include <cstdint>

#include "fly/layout/layout.hpp"
#include "fly/layout/swizzle.hpp"

namespace fly {

// c -> Swz(L(c)): a layout followed by a swizzle of its offsets.
template <class Swz, class L>
struct ComposedLayout {
  Swz swizzle;
  L layout;
  FLY_HD auto shape() const { return layout.shape(); }
  template <class Crd>
  FLY_HD auto operator()(Crd const& c) const {
    return swizzle(layout(c));
  }
};

template <int B, int M, int S, class Sh, class St>
FLY_HD auto composition(Swizzle<B, M, S> const& s, Layout<Sh, St> const& l) {
  return ComposedLayout<Swizzle<B, M, S>, Layout<Sh, St>>{s, l};
}

// A position in a swizzled buffer: the buffer's start and an unswizzled element offset. Tiles of
// a ComposedLayout are tensors over it with the plain layout: partitioning adds to `offset`, and
// the copy atom that reads or writes the buffer applies the swizzle to the whole offset at the end
// (the swizzle is not linear, so it cannot be folded into a partition's strides).
template <class T, class Swz>
struct swizzle_ptr {
  using value_type = T;
  using swizzle_type = Swz;
  T* base = nullptr;
  int32_t offset = 0;
  template <class I>
  FLY_HD swizzle_ptr operator+(I i) const {
    swizzle_ptr p = *this;
    p.offset += int32_t(i);
    return p;
  }
  FLY_HD T* get() const { return base + Swz{}(offset); }
};

}  // namespace fly
