// MMA_Traits of the host scalar FMA (fly/arch/mma_host.hpp): one thread, 1x1x1.
#pragma once

#include "fly/arch/mma_host.hpp"
#include "fly/atom/mma_traits.hpp"

namespace fly {

// The traits of any one-thread scalar multiply-add (the host's and sm_90's FMA atoms).
template <class T>
struct ScalarFmaTraits {
  using ValTypeD = T;
  using ValTypeA = T;
  using ValTypeB = T;
  using ValTypeC = T;

  using Shape_MNK = Shape<_1, _1, _1>;
  using ThrID = Layout<_1>;
  using ALayout = Layout<Shape<_1, _1>, Stride<_0, _0>>;
  using BLayout = Layout<Shape<_1, _1>, Stride<_0, _0>>;
  using CLayout = Layout<Shape<_1, _1>, Stride<_0, _0>>;
};

template <>
struct MMA_Traits<HOST_FMA> : ScalarFmaTraits<float> {};

}  // namespace fly
