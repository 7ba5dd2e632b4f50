// MMA_Traits of the host scalar FMA (fly/arch/mma_host.hpp): one thread, 1x1x1.
#pragma once

#include "fly/arch/mma_host.hpp"
#include "fly/atom/mma_traits.hpp"

namespace fly {

template <>
struct MMA_Traits<HOST_FMA> {
  using ValTypeD = float;
  using ValTypeA = float;
  using ValTypeB = float;
  using ValTypeC = float;

  using Shape_MNK = Shape<_1, _1, _1>;
  using ThrID = Layout<_1>;
  using ALayout = Layout<Shape<_1, _1>, Stride<_0, _0>>;
  using BLayout = Layout<Shape<_1, _1>, Stride<_0, _0>>;
  using CLayout = Layout<Shape<_1, _1>, Stride<_0, _0>>;
};

}  // namespace fly
