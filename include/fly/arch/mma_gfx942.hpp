// gfx942 (AMD CDNA3, MI300) matrix instructions: one struct per MFMA instruction, each wrapping its
// clang builtin. Only the raw instruction lives here; the thread-value layouts of A, B, C are in
// fly/atom/mma_traits_gfx942.hpp and a host functional model in fly/atom/mma_model.hpp.
//
// Every struct gives, as CuTe's arch structs do:
//   DRegisters, ARegisters, BRegisters, CRegisters   the per-lane register arrays of each operand
//   static void fma(d..., a..., b..., c...)          the registers as separate scalar references
// Registers hold their elements packed lowest bits first: element v of a lane is bits
// [w*v, w*(v+1)) of the concatenation reg0, reg1, ... (w = the element width).
//
// The builtins exist only for the device (clang -x hip, __HIP_DEVICE_COMPILE__); in any other
// compilation fma traps: host code never calls it (use MMA_Model<Op> on the host). The fp8 forms
// compute in e4m3fnuz (bias 8), gfx942's fp8 format. The builtins are called with CBSZ = ABID =
// BLGP = 0 (no broadcast, no lane swizzle), the only form the layouts describe.
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

namespace fly {
namespace detail {

// Marks every operand used and traps: the instruction does not exist in this compilation.
template <class... T>
FLY_HOST_DEVICE inline void arch_unavailable_gfx942(T const&...) {
#if defined(__CUDA_ARCH__)
  __trap();
#else
  __builtin_trap();
#endif
}

#if defined(__HIP_DEVICE_COMPILE__)
typedef float gfx942_floatx4 __attribute__((ext_vector_type(4)));
typedef float gfx942_floatx16 __attribute__((ext_vector_type(16)));
typedef short gfx942_shortx4 __attribute__((ext_vector_type(4)));
typedef _Float16 gfx942_halfx4 __attribute__((ext_vector_type(4)));

// Two 32-bit VGPRs (lo, hi) as the 4 x 16-bit vector operand the builtins take: element 0 is the
// low half of lo.
__device__ inline gfx942_shortx4 gfx942_bf16x4(uint32_t lo, uint32_t hi) {
  return __builtin_bit_cast(gfx942_shortx4, (uint64_t(hi) << 32) | lo);
}
__device__ inline gfx942_halfx4 gfx942_f16x4(uint32_t lo, uint32_t hi) {
  return __builtin_bit_cast(gfx942_halfx4, (uint64_t(hi) << 32) | lo);
}
#endif

}  // namespace detail

// v_mfma_f32_16x16x32_fp8_fp8: D(16x16, f32) = A(16x32, e4m3fnuz) * B(32x16, e4m3fnuz) + C.
// A, B: 8 fp8 bytes per lane (one 64-bit VGPR pair); C, D: 4 floats per lane.
struct GFX942_MFMA_F32_16x16x32_F8 {
  using DRegisters = float[4];
  using ARegisters = uint64_t[1];
  using BRegisters = uint64_t[1];
  using CRegisters = float[4];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, uint64_t const& a0, uint64_t const& b0,
      float const& c0, float const& c1, float const& c2, float const& c3) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx4 const c = {c0, c1, c2, c3};
    detail::gfx942_floatx4 const d =
        __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(static_cast<long>(a0), static_cast<long>(b0), c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, a0, b0, c0, c1, c2, c3);
#endif
  }
};

// v_mfma_f32_32x32x16_fp8_fp8: D(32x32, f32) = A(32x16, e4m3fnuz) * B(16x32, e4m3fnuz) + C.
// A, B: 8 fp8 bytes per lane; C, D: 16 floats per lane.
struct GFX942_MFMA_F32_32x32x16_F8 {
  using DRegisters = float[16];
  using ARegisters = uint64_t[1];
  using BRegisters = uint64_t[1];
  using CRegisters = float[16];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, float& d4, float& d5, float& d6, float& d7,
      float& d8, float& d9, float& d10, float& d11, float& d12, float& d13, float& d14, float& d15,
      uint64_t const& a0, uint64_t const& b0, float const& c0, float const& c1, float const& c2,
      float const& c3, float const& c4, float const& c5, float const& c6, float const& c7,
      float const& c8, float const& c9, float const& c10, float const& c11, float const& c12,
      float const& c13, float const& c14, float const& c15) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx16 const c = {c0, c1, c2, c3, c4, c5, c6, c7,
                                         c8, c9, c10, c11, c12, c13, c14, c15};
    detail::gfx942_floatx16 const d =
        __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(static_cast<long>(a0), static_cast<long>(b0), c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3]; d4 = d[4]; d5 = d[5]; d6 = d[6]; d7 = d[7];
    d8 = d[8]; d9 = d[9]; d10 = d[10]; d11 = d[11]; d12 = d[12]; d13 = d[13]; d14 = d[14]; d15 = d[15];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, a0, b0, c0, c1, c2,
        c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15);
#endif
  }
};

// v_mfma_f32_16x16x16_bf16 (the gfx90a+ "_1k" form): D(16x16, f32) = A(16x16, bf16) * B(16x16, bf16) + C.
// A, B: 4 bf16 per lane in two 32-bit VGPRs; C, D: 4 floats per lane.
struct GFX942_MFMA_F32_16x16x16_BF16 {
  using DRegisters = float[4];
  using ARegisters = uint32_t[2];
  using BRegisters = uint32_t[2];
  using CRegisters = float[4];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, uint32_t const& a0, uint32_t const& a1,
      uint32_t const& b0, uint32_t const& b1, float const& c0, float const& c1, float const& c2,
      float const& c3) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx4 const c = {c0, c1, c2, c3};
    detail::gfx942_floatx4 const d = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(
        detail::gfx942_bf16x4(a0, a1), detail::gfx942_bf16x4(b0, b1),
        c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, a0, a1, b0, b1, c0, c1, c2, c3);
#endif
  }
};

// v_mfma_f32_32x32x8_bf16 (the gfx90a+ "_1k" form): D(32x32, f32) = A(32x8, bf16) * B(8x32, bf16) + C.
// A, B: 4 bf16 per lane in two 32-bit VGPRs; C, D: 16 floats per lane.
struct GFX942_MFMA_F32_32x32x8_BF16 {
  using DRegisters = float[16];
  using ARegisters = uint32_t[2];
  using BRegisters = uint32_t[2];
  using CRegisters = float[16];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, float& d4, float& d5, float& d6, float& d7,
      float& d8, float& d9, float& d10, float& d11, float& d12, float& d13, float& d14, float& d15,
      uint32_t const& a0, uint32_t const& a1, uint32_t const& b0, uint32_t const& b1,
      float const& c0, float const& c1, float const& c2, float const& c3, float const& c4,
      float const& c5, float const& c6, float const& c7, float const& c8, float const& c9,
      float const& c10, float const& c11, float const& c12, float const& c13, float const& c14,
      float const& c15) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx16 const c = {c0, c1, c2, c3, c4, c5, c6, c7,
                                         c8, c9, c10, c11, c12, c13, c14, c15};
    detail::gfx942_floatx16 const d = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(
        detail::gfx942_bf16x4(a0, a1), detail::gfx942_bf16x4(b0, b1),
        c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3]; d4 = d[4]; d5 = d[5]; d6 = d[6]; d7 = d[7];
    d8 = d[8]; d9 = d[9]; d10 = d[10]; d11 = d[11]; d12 = d[12]; d13 = d[13]; d14 = d[14]; d15 = d[15];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, a0, a1, b0, b1, c0,
        c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15);
#endif
  }
};

// v_mfma_f32_16x16x16_f16: D(16x16, f32) = A(16x16, f16) * B(16x16, f16) + C.
// A, B: 4 halves per lane in two 32-bit VGPRs; C, D: 4 floats per lane.
struct GFX942_MFMA_F32_16x16x16_F16 {
  using DRegisters = float[4];
  using ARegisters = uint32_t[2];
  using BRegisters = uint32_t[2];
  using CRegisters = float[4];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, uint32_t const& a0, uint32_t const& a1,
      uint32_t const& b0, uint32_t const& b1, float const& c0, float const& c1, float const& c2,
      float const& c3) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx4 const c = {c0, c1, c2, c3};
    detail::gfx942_floatx4 const d = __builtin_amdgcn_mfma_f32_16x16x16f16(
        detail::gfx942_f16x4(a0, a1), detail::gfx942_f16x4(b0, b1),
        c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, a0, a1, b0, b1, c0, c1, c2, c3);
#endif
  }
};

// v_mfma_f32_32x32x8_f16: D(32x32, f32) = A(32x8, f16) * B(8x32, f16) + C.
// A, B: 4 halves per lane in two 32-bit VGPRs; C, D: 16 floats per lane.
struct GFX942_MFMA_F32_32x32x8_F16 {
  using DRegisters = float[16];
  using ARegisters = uint32_t[2];
  using BRegisters = uint32_t[2];
  using CRegisters = float[16];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, float& d4, float& d5, float& d6, float& d7,
      float& d8, float& d9, float& d10, float& d11, float& d12, float& d13, float& d14, float& d15,
      uint32_t const& a0, uint32_t const& a1, uint32_t const& b0, uint32_t const& b1,
      float const& c0, float const& c1, float const& c2, float const& c3, float const& c4,
      float const& c5, float const& c6, float const& c7, float const& c8, float const& c9,
      float const& c10, float const& c11, float const& c12, float const& c13, float const& c14,
      float const& c15) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx16 const c = {c0, c1, c2, c3, c4, c5, c6, c7,
                                         c8, c9, c10, c11, c12, c13, c14, c15};
    detail::gfx942_floatx16 const d = __builtin_amdgcn_mfma_f32_32x32x8f16(
        detail::gfx942_f16x4(a0, a1), detail::gfx942_f16x4(b0, b1),
        c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3]; d4 = d[4]; d5 = d[5]; d6 = d[6]; d7 = d[7];
    d8 = d[8]; d9 = d[9]; d10 = d[10]; d11 = d[11]; d12 = d[12]; d13 = d[13]; d14 = d[14]; d15 = d[15];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, a0, a1, b0, b1, c0,
        c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15);
#endif
  }
};

// v_mfma_f32_16x16x4_f32 (single block): D(16x16, f32) = A(16x4, f32) * B(4x16, f32) + C.
// A, B: 1 float per lane; C, D: 4 floats per lane.
struct GFX942_MFMA_F32_16x16x4_F32 {
  using DRegisters = float[4];
  using ARegisters = float[1];
  using BRegisters = float[1];
  using CRegisters = float[4];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, float const& a0, float const& b0,
      float const& c0, float const& c1, float const& c2, float const& c3) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx4 const c = {c0, c1, c2, c3};
    detail::gfx942_floatx4 const d = __builtin_amdgcn_mfma_f32_16x16x4f32(a0, b0, c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, a0, b0, c0, c1, c2, c3);
#endif
  }
};

// v_mfma_f32_32x32x2_f32 (single block): D(32x32, f32) = A(32x2, f32) * B(2x32, f32) + C.
// A, B: 1 float per lane; C, D: 16 floats per lane.
struct GFX942_MFMA_F32_32x32x2_F32 {
  using DRegisters = float[16];
  using ARegisters = float[1];
  using BRegisters = float[1];
  using CRegisters = float[16];

  FLY_HOST_DEVICE static void fma(
      float& d0, float& d1, float& d2, float& d3, float& d4, float& d5, float& d6, float& d7,
      float& d8, float& d9, float& d10, float& d11, float& d12, float& d13, float& d14, float& d15,
      float const& a0, float const& b0, float const& c0, float const& c1, float const& c2,
      float const& c3, float const& c4, float const& c5, float const& c6, float const& c7,
      float const& c8, float const& c9, float const& c10, float const& c11, float const& c12,
      float const& c13, float const& c14, float const& c15) {
#if defined(__HIP_DEVICE_COMPILE__)
    detail::gfx942_floatx16 const c = {c0, c1, c2, c3, c4, c5, c6, c7,
                                         c8, c9, c10, c11, c12, c13, c14, c15};
    detail::gfx942_floatx16 const d = __builtin_amdgcn_mfma_f32_32x32x2f32(a0, b0, c, 0, 0, 0);
    d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3]; d4 = d[4]; d5 = d[5]; d6 = d[6]; d7 = d[7];
    d8 = d[8]; d9 = d[9]; d10 = d[10]; d11 = d[11]; d12 = d[12]; d13 = d[13]; d14 = d[14]; d15 = d[15];
#else
    detail::arch_unavailable_gfx942(
        d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, a0, b0, c0, c1, c2,
        c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15);
#endif
  }
};

}  // namespace fly
