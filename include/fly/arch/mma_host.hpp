// The host's matrix "instruction": one scalar fp32 fused multiply-add by one thread (1x1x1), the
// atom the host implementation of every operation is tiled from. Its traits are in
// fly/atom/mma_traits_host.hpp.
#pragma once

#include "fly/layout/config.hpp"

namespace fly {

struct HOST_FMA {
  using DRegisters = float[1];
  using ARegisters = float[1];
  using BRegisters = float[1];
  using CRegisters = float[1];

  FLY_HOST_DEVICE static constexpr void fma(float& d, float const& a, float const& b, float const& c) {
    d = a * b + c;
  }
};

}  // namespace fly
