// XOR swizzles (CuTe's Swizzle<B, M, S>) and their composition with a layout.
//
// Swizzle<B, M, S> maps an offset o to o ^ ((o >> S) & mask), mask = bits [M, M + B): the B bits
// S above them are XORed into bits [M, M + B). It is a bijection of every aligned block of
// 2^(M + B + S) offsets, and leaves the low M bits alone, so a vector of 2^M elements that starts
// on a multiple of 2^M stays contiguous. composition(Swizzle, Layout) is the layout
// c -> swizzle(L(c)): shared-memory tiles whose writers and readers index through one object.
#pragma once

#include <cstdint>

#include "fly/layout/layout.hpp"

namespace fly {

template <int B, int M, int S>
struct Swizzle {
  static_assert(B >= 0 && M >= 0 && S >= B, "fly::Swizzle<B, M, S>: the source bits must not overlap the target bits");
  static constexpr int bits = B, base = M, shift = S;
  static constexpr uint32_t mask = ((1u << B) - 1u) << M;
  template <class I>
  FLY_HD I operator()(I o) const {
    return I(uint32_t(o) ^ ((uint32_t(o) >> S) & mask));
  }
};

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
