// MMA_Traits of the gfx942 (CDNA3) MFMA instructions of fly/arch/mma_gfx942.hpp.
//
// Source of the lane formulas: AMD Instinct MI300 (CDNA3) Instruction Set Architecture reference,
// chapter 7 "Matrix Arithmetic Instructions" (the dense MFMA operand layouts), as printed by AMD's
// Matrix Instruction Calculator (github.com/ROCm/amd_matrix_instruction_calculator,
// `--detail-instruction`, "Matrix element to register mapping with no modifiers"; CBSZ = ABID =
// BLGP = 0). For a single-block MxNxK instruction on a 64-lane wave, with KL = K*M/64 elements of
// A (and of B) per lane:
//
//   A[i][k]: lane M*floor(k/KL) + i, element k % KL of the lane's operand registers
//   B[k][j]: lane N*floor(k/KL) + j, element k % KL
//   C/D[i][j], M = N = 16: lane 16*floor(i/4) + j,        register i % 4
//   C/D[i][j], M = N = 32: lane (32*floor(i/4)) % 64 + j, register 4*floor(i/8) + i % 4
//
// e.g. v_mfma_f32_16x16x32_fp8_fp8 (KL = 8): A[i][k] in lane 16*(k/8) + i, byte k%8 of its 8-byte
// operand; C[i][j] in lane 16*(i/4) + j, register i%4.
//
// As CuTe layouts, lane = (i, g) with i in [0, M) and g the lane group (64/M of them):
//   A: ((M, 64/M), KL) : ((1, M*KL), M)      since m = i, k = KL*g + v
//   C, 16x16: ((16, 4), 4) : ((16, 4), 1)    since m = 4*g + v, n = j
//   C, 32x32: ((32, 2), (4, 4)) : ((32, 4), (1, 8))   since m = 8*v1 + 4*g + v0, n = j
#pragma once

#include "fly/arch/mma_gfx942.hpp"
#include "fly/atom/mma_traits.hpp"

namespace fly {
namespace detail {

// A (or B) of a single-block MxNxK MFMA: (lane, value) -> i + M*k.
template <int M, int KL>
using gfx942_ab_layout =
    Layout<Shape<Shape<Int<M>, Int<64 / M>>, Int<KL>>, Stride<Stride<_1, Int<M * KL>>, Int<M>>>;
// C/D of the 16x16 and 32x32 forms: (lane, register) -> i + M*j.
using gfx942_c16x16_layout = Layout<Shape<Shape<_16, _4>, _4>, Stride<Stride<_16, _4>, _1>>;
using gfx942_c32x32_layout =
    Layout<Shape<Shape<_32, _2>, Shape<_4, _4>>, Stride<Stride<_32, _4>, Stride<_1, _8>>>;

template <class TAB, int M, int N, int K>
struct gfx942_mfma_traits {
  static_assert(M == N && (M == 16 || M == 32));
  using ValTypeD = float;
  using ValTypeA = TAB;
  using ValTypeB = TAB;
  using ValTypeC = float;

  using Shape_MNK = Shape<Int<M>, Int<N>, Int<K>>;
  using ThrID = Layout<_64>;
  using ALayout = gfx942_ab_layout<M, K * M / 64>;
  using BLayout = gfx942_ab_layout<N, K * N / 64>;
  using CLayout = std::conditional_t<M == 16, gfx942_c16x16_layout, gfx942_c32x32_layout>;
};

}  // namespace detail

// v_mfma_f32_16x16x32_fp8_fp8: 8 e4m3fnuz per lane; A ((16,4),8):((1,128),16).
template <>
struct MMA_Traits<GFX942_MFMA_F32_16x16x32_F8> : detail::gfx942_mfma_traits<float8_e4m3fnuz, 16, 16, 32> {};
// v_mfma_f32_32x32x16_fp8_fp8: 8 e4m3fnuz per lane; A ((32,2),8):((1,256),32).
template <>
struct MMA_Traits<GFX942_MFMA_F32_32x32x16_F8> : detail::gfx942_mfma_traits<float8_e4m3fnuz, 32, 32, 16> {};
// v_mfma_f32_16x16x16_bf16: 4 bf16 per lane; A ((16,4),4):((1,64),16).
template <>
struct MMA_Traits<GFX942_MFMA_F32_16x16x16_BF16> : detail::gfx942_mfma_traits<bfloat16, 16, 16, 16> {};
// v_mfma_f32_32x32x8_bf16: 4 bf16 per lane; A ((32,2),4):((1,128),32).
template <>
struct MMA_Traits<GFX942_MFMA_F32_32x32x8_BF16> : detail::gfx942_mfma_traits<bfloat16, 32, 32, 8> {};
// v_mfma_f32_16x16x16_f16: 4 halves per lane.
template <>
struct MMA_Traits<GFX942_MFMA_F32_16x16x16_F16> : detail::gfx942_mfma_traits<half, 16, 16, 16> {};
// v_mfma_f32_32x32x8_f16: 4 halves per lane.
template <>
struct MMA_Traits<GFX942_MFMA_F32_32x32x8_F16> : detail::gfx942_mfma_traits<half, 32, 32, 8> {};
// v_mfma_f32_16x16x4_f32: 1 float per lane; A ((16,4),1):((1,16),16), k = lane group.
template <>
struct MMA_Traits<GFX942_MFMA_F32_16x16x4_F32> : detail::gfx942_mfma_traits<float, 16, 16, 4> {};
// v_mfma_f32_32x32x2_f32: 1 float per lane; A ((32,2),1):((1,32),32).
template <>
struct MMA_Traits<GFX942_MFMA_F32_32x32x2_F32> : detail::gfx942_mfma_traits<float, 32, 32, 2> {};

}  // namespace fly
