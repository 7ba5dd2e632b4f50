// XOR swizzles: CuTe's Swizzle<B, M, S> (its composition with a layout: swizzle_layout.hpp).
//
// Swizzle<B, M, S> maps an offset o to o ^ ((o >> S) & mask), mask = bits [M, M + B): the B bits
// S above them are XORed into bits [M, M + B). It is a bijection of every aligned block of
// 2^(M + B + S) offsets, and leaves the low M bits alone, so a vector of 2^M elements that starts
// on a multiple of 2^M stays contiguous. This header is the functor alone (no layout algebra, no
// fly::min / fly::max), so kernels that index shared memory through it include nothing else.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

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

}  // namespace fly
