// MMA_Traits of the sm_90 instructions of fly/arch/mma_sm90.hpp.
//
// Source of the lane formulas: NVIDIA PTX ISA, "Warp-level matrix multiply-accumulate
// instructions": "Matrix Fragments for mma.m16n8k32" (.e4m3) and "Matrix Fragments for
// mma.m16n8k16 with floating point type" (.f16/.bf16); and "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate", "Register Fragments and Shared Memory Matrix Layouts", wgmma .m64nNk32
// "Matrix D". With groupID = laneid >> 2 and threadID_in_group = laneid % 4 (t0 below; groupID t1):
//
//   m16n8k32 e4m3  A a_i (i < 16):  row = groupID + 8 if 4 <= i < 8 or i >= 12, else groupID
//                                   col = 4*threadID_in_group + (i & 3) (+ 16 if i >= 8)
//                  B b_i (i < 8):   row(k) = 4*threadID_in_group + (i & 3) (+ 16 if i >= 4)
//                                   col(n) = groupID
//   m16n8k16 16b   A a_i (i < 8):   row = groupID (+ 8 if i in {2,3,6,7})
//                                   col = 2*threadID_in_group + (i & 1) (+ 8 if i >= 4)
//                  B b_i (i < 4):   row(k) = 2*threadID_in_group + (i & 1) (+ 8 if i >= 2)
//                                   col(n) = groupID
//   C/D c_i (i < 4):                row = groupID (+ 8 if i >= 2), col = 2*threadID_in_group + (i & 1)
//   wgmma m64nN f32 D d_i:          row = 16*warp_in_warpgroup + groupID (+ 8 if i % 4 >= 2)
//                                   col = 8*(i / 4) + 2*threadID_in_group + (i & 1)
//
// As CuTe layouts, thread = (t0, t1[, warp]) : (4, 8[, 4]) and value v split by the formulas, e.g.
// m16n8k32 A: m = t1 + 8*v1, k = 4*t0 + v0 + 16*v2 with v = (v0, v1, v2) : (4, 2, 2), offset m + 16k.
// These equal CuTe's SM80/SM89 16x8xK and SM90 GMMA 64xN accumulator layouts.
#pragma once

#include "fly/arch/mma_sm90.hpp"
#include "fly/atom/mma_traits.hpp"
#include "fly/atom/mma_traits_host.hpp"

namespace fly {
namespace detail {
// C/D of m16n8kK: (thread, value) -> m + 16*n.
using sm90_c16x8_layout = Layout<Shape<Shape<_4, _8>, Shape<_2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8>>>;
// A and B of m16n8k16 with 16-bit inputs.
using sm90_a16x16_16b_layout =
    Layout<Shape<Shape<_4, _8>, Shape<_2, _2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8, _128>>>;
using sm90_b8x16_16b_layout = Layout<Shape<Shape<_4, _8>, Shape<_2, _2>>, Stride<Stride<_16, _1>, Stride<_8, _64>>>;
}  // namespace detail

template <>
struct MMA_Traits<SM90_16x8x32_F32E4M3E4M3F32_TN> {
  using ValTypeD = float;
  using ValTypeA = float8_e4m3fn;
  using ValTypeB = float8_e4m3fn;
  using ValTypeC = float;

  using Shape_MNK = Shape<_16, _8, _32>;
  using ThrID = Layout<_32>;
  using ALayout = Layout<Shape<Shape<_4, _8>, Shape<_4, _2, _2>>, Stride<Stride<_64, _1>, Stride<_16, _8, _256>>>;
  using BLayout = Layout<Shape<Shape<_4, _8>, Shape<_4, _2>>, Stride<Stride<_32, _1>, Stride<_8, _128>>>;
  using CLayout = detail::sm90_c16x8_layout;
};

namespace detail {
// m16n8k16 with 16-bit inputs T (bf16 or f16) and f32 accumulation: the layouts do not depend on T.
template <class T>
struct sm90_16x8x16_traits {
  using ValTypeD = float;
  using ValTypeA = T;
  using ValTypeB = T;
  using ValTypeC = float;

  using Shape_MNK = Shape<_16, _8, _16>;
  using ThrID = Layout<_32>;
  using ALayout = sm90_a16x16_16b_layout;
  using BLayout = sm90_b8x16_16b_layout;
  using CLayout = sm90_c16x8_layout;
};
}  // namespace detail

template <>
struct MMA_Traits<SM90_16x8x16_F32BF16BF16F32_TN> : detail::sm90_16x8x16_traits<bfloat16> {};
template <>
struct MMA_Traits<SM90_16x8x16_F32F16F16F32_TN> : detail::sm90_16x8x16_traits<half> {};

// One thread, 1x1x1 (CuTe's UniversalFMA).
template <>
struct MMA_Traits<SM90_FMA_F32> : ScalarFmaTraits<float> {};

// wgmma m64n64k32 e4m3, A and B from shared memory: every thread of the warpgroup "holds" the whole
// A and B tiles through the descriptors (thread stride 0, CuTe's GMMA::ABLayout); only the
// accumulator is distributed over the 128 threads.
template <>
struct MMA_Traits<SM90_WGMMA_64x64x32_F32E4M3E4M3_SS> {
  using ValTypeD = float;
  using ValTypeA = float8_e4m3fn;
  using ValTypeB = float8_e4m3fn;
  using ValTypeC = float;

  using Shape_MNK = Shape<_64, _64, _32>;
  using ThrID = Layout<_128>;
  using ALayout = Layout<Shape<_128, Shape<_64, _32>>, Stride<_0, Stride<_1, _64>>>;
  using BLayout = Layout<Shape<_128, Shape<_64, _32>>, Stride<_0, Stride<_1, _64>>>;
  // thread = (t0, t1, warp) : (4, 8, 4), value = (v0, v1, v2) : (2, 2, 8):
  // m = t1 + 16*warp + 8*v1, n = 2*t0 + v0 + 8*v2, offset m + 64*n.
  using CLayout =
      Layout<Shape<Shape<_4, _8, _4>, Shape<_2, _2, _8>>, Stride<Stride<_128, _1, _16>, Stride<_64, _8, _512>>>;
};

}  // namespace fly
