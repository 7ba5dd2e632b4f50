// The layout algebra, CuTe semantics: static and dynamic integers, IntTuples, layouts, and the
// algebra on them. Host, CUDA and HIP code alike. Printing (host only) comes with fly/layout/print.hpp.
#pragma once

#include "fly/layout/algebra.hpp"
#include "fly/layout/basis.hpp"
#include "fly/layout/int_tuple.hpp"
#include "fly/layout/integral.hpp"
#include "fly/layout/layout.hpp"
#include "fly/layout/swizzle.hpp"
#include "fly/layout/swizzle_layout.hpp"
#include "fly/layout/tuple.hpp"

#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include "fly/layout/print.hpp"
#endif
