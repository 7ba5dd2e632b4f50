// The element types of libfly's kernels: fp8 (e4m3fn, e4m3fnuz), bfloat16, half. Each is a
// trivial struct holding its raw bits, host and device, with exact conversion to float and
// round-to-nearest-even conversion from float. sizeof(T) * 8 is the width, so fly::sizeof_bits_v
// (fly/layout/algebra.hpp) needs no specialisation.
#pragma once

#include "fly/numeric/bfloat16.hpp"
#include "fly/numeric/float8.hpp"
#include "fly/numeric/half.hpp"
