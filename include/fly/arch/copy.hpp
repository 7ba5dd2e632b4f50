// Universal copies: one plain load/store of 8..128 bits through ordinary pointers, on every target.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fly/layout/config.hpp"

namespace fly {

// A 128-bit register value that every compiler treats as a plain aggregate.
struct alignas(16) uint128_v {
  uint32_t w[4];
};

template <class Vec>
struct UniversalCopy {
  using value_type = Vec;
  static constexpr int bits = int(sizeof(Vec) * 8);
  static constexpr const char* name = "UniversalCopy";
  // The same instruction family at another width, for splitting a copy into legal accesses.
  template <int Bits>
  using with_bits = UniversalCopy<
      std::conditional_t<Bits == 8, uint8_t,
      std::conditional_t<Bits == 16, uint16_t,
      std::conditional_t<Bits == 32, uint32_t, std::conditional_t<Bits == 64, uint64_t, uint128_v>>>>>;
  static constexpr int min_bits = 8;

  template <class SrcIt, class DstIt>
  FLY_HOST_DEVICE static void copy(SrcIt src, DstIt dst) {
    *reinterpret_cast<Vec*>(&*dst) = *reinterpret_cast<Vec const*>(&*src);
  }
  // valid == false: write zeros, read nothing.
  template <class SrcIt, class DstIt>
  FLY_HOST_DEVICE static void copy_zfill(SrcIt src, DstIt dst, bool valid) {
    if (valid) {
      copy(src, dst);
    } else {
      *reinterpret_cast<Vec*>(&*dst) = Vec{};
    }
  }
};

using UniversalCopy8b = UniversalCopy<uint8_t>;
using UniversalCopy16b = UniversalCopy<uint16_t>;
using UniversalCopy32b = UniversalCopy<uint32_t>;
using UniversalCopy64b = UniversalCopy<uint64_t>;
using UniversalCopy128b = UniversalCopy<uint128_v>;

}  // namespace fly
