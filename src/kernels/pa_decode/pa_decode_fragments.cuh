// Register fragments of the decode's two products on mma.sync m16n8k16 (f32 accumulation):
// S = Q K^T (query rows x tokens) and O += P V (query rows x head_dim), read from the shared-memory
// tiles with ldmatrix. fp8 caches are widened in registers to f16 (exactly: e4m3fn by the hardware
// conversion, e4m3fnuz by a shift whose factor 2^7 is folded into the scales).
//
// Both products sum over an index whose order is free: QK^T over head_dim, PV over tokens. fp8
// tiles hold 16 elements per ldmatrix row instead of 8, so a lane receives four consecutive ones;
// instead of shuffling them into mma's order, the other operand is permuted to match:
//  - QK^T: Q's A fragment takes d = 16 kk + 4 t + {0, 1} | {2, 3} for the k slots 2t | 2t + 8.
//  - fp8 V, token-major: ldmatrix.trans gives two tokens x two dims per lane; output tile dj
//    holds d = 16 (dj / 2) + 2 n + dj % 2 (d_of).
//  - fp8 V, dim-major (vLLM): a lane gets four consecutive tokens of one d; S's columns are
//    permuted (tok_of) so that P's k slots 2t, 2t+1, 2t+8, 2t+9 are tokens 4t .. 4t+3.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "fly/arch/ldmatrix_sm90.hpp"
#include "fly/arch/mma_sm90.hpp"
#include "fly/layout/swizzle.hpp"

namespace fly::kernels::pa {

enum class KvKind { bf16, f16, fp8 };

// The swizzle of a tile of rows of RC 16-byte chunks, on chunk indices (row * RC + chunk), so that
// the eight rows one ldmatrix phase reads fall in different banks: RC >= 8 XORs a row's low three
// chunk bits with row % 8 (CuTe's Swizzle<3,4,3> on bytes, for 128-byte rows); narrower rows swizzle
// the rows they share a 128-byte line with (chunk bits [0, log2 RC) with the line's row bits
// [3, 3 + log2 RC)); one-chunk rows are contiguous, so eight of them fill a line without conflict.
template <int RC>
struct ChunkSwizzleOf {
  static constexpr int log2_rc = [] {
    int n = 0;
    while ((1 << n) < RC) ++n;
    return n;
  }();
  static_assert(RC >= 1 && (1 << log2_rc) == RC, "tile rows are a power of two of 16-byte chunks");
  using type = std::conditional_t<(RC >= 8), Swizzle<3, 0, log2_rc>, Swizzle<log2_rc, 0, (RC > 1 ? 3 : 0)>>;
};
template <int RC>
using ChunkSwizzle = typename ChunkSwizzleOf<RC>::type;

// The 16-byte chunk index of (row, chunk) in such a tile. Written out per row width rather than
// as ChunkSwizzle<RC>{}(row * RC + c): the same values (checked below at compile time), and the
// form whose SASS the H200 measurements were taken with (the swizzle applied to the recombined
// index moved the main loops' instruction mix: 2026-12-04, fifth session).
template <int RC>
__host__ __device__ __forceinline__ constexpr int swizzled_chunk(int row, int c) {
  if constexpr (RC >= 8) {
    return row * RC + (c ^ (row & 7));
  } else if constexpr (RC == 4) {
    return row * RC + (c ^ ((row >> 1) & 3));
  } else if constexpr (RC == 2) {
    return row * RC + (c ^ ((row >> 2) & 1));
  } else {
    static_assert(RC == 1, "tile rows are 1, 2, 4 or a multiple of 8 chunks");
    return row + c;
  }
}

template <int RC>
constexpr bool swizzled_chunk_is_the_chunk_swizzle() {
  for (int row = 0; row < 64; ++row)
    for (int c = 0; c < RC; ++c)
      if (swizzled_chunk<RC>(row, c) != ChunkSwizzle<RC>{}(row * RC + c)) return false;
  return true;
}
static_assert(swizzled_chunk_is_the_chunk_swizzle<1>() && swizzled_chunk_is_the_chunk_swizzle<2>() &&
                  swizzled_chunk_is_the_chunk_swizzle<4>() && swizzled_chunk_is_the_chunk_swizzle<8>() &&
                  swizzled_chunk_is_the_chunk_swizzle<16>() && swizzled_chunk_is_the_chunk_swizzle<32>(),
              "the decode's tile swizzle is ChunkSwizzle<RC> (CuTe's Swizzle) for every row width it uses");

// Two fp8 e4m3 bytes of `w` as f16x2 (the first named byte in the low half). Bytes01 and Bytes23
// are w's 16-bit halves; Bytes02 and Bytes13 interleave them.
enum class BytePair { b01, b23, b02, b13 };

// e4m3fn: the hardware conversion (cvt.rn.f16x2.e4m3x2), exact (every e4m3fn value is an f16).
// e4m3fnuz: its exponent bias is 8, and 0x7F / 0xFF are +-240 (NaN to the conversion above), so
// the bytes are widened with a shift instead: the sign stays, the 7 exponent and mantissa bits move
// into the f16 one place down, which holds value * 2^-7 (the factor is folded into the scales).
// NaN encodings are not preserved by either.
template <bool Fnuz, BytePair Pair>
__device__ __forceinline__ uint32_t fp8x2_to_f16x2(uint32_t w) {
  if constexpr (Fnuz) {
    constexpr uint32_t sel = Pair == BytePair::b01   ? 0x1404u
                             : Pair == BytePair::b23 ? 0x3424u
                             : Pair == BytePair::b02 ? 0x2404u
                                                     : 0x3414u;
    const uint32_t spread = __byte_perm(w, 0u, sel);
    return ((spread >> 1) & 0x3F803F80u) | (spread & 0x80008000u);
  } else {
    uint16_t pair;
    if constexpr (Pair == BytePair::b01) {
      pair = uint16_t(w);
    } else if constexpr (Pair == BytePair::b23) {
      pair = uint16_t(w >> 16);
    } else {
      pair = uint16_t(__byte_perm(w, 0u, Pair == BytePair::b02 ? 0x0020u : 0x0031u));
    }
    uint32_t d;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(d) : "h"(pair));
    return d;
  }
}

template <KvKind Kind>
struct Mma;
template <>
struct Mma<KvKind::bf16> {
  using Op = fly::SM90_16x8x16_F32BF16BF16F32_TN;
};
template <>
struct Mma<KvKind::f16> {
  using Op = fly::SM90_16x8x16_F32F16F16F32_TN;
};
template <>
struct Mma<KvKind::fp8> {
  using Op = fly::SM90_16x8x16_F32F16F16F32_TN;
};

template <KvKind Kind>
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  Mma<Kind>::Op::fma(d[0], d[1], d[2], d[3], a[0], a[1], a[2], a[3], b0, b1, d[0], d[1], d[2], d[3]);
}

// Two floats as the MMA's 16-bit pair (lowest first).
template <KvKind Kind>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (Kind == KvKind::bf16) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  } else {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
}

constexpr float kLog2e = 1.4426950408889634f;  // the softmax runs in log2 units

// 2^x in one MUFU.EX2 (exp2f adds a range fix-up around it for results below 2^-126): the softmax
// only takes arguments <= 0, whose results that small vanish beside a row sum >= 1 anyway.
__device__ __forceinline__ float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// The larger of a and b, NaN when either is (max.NaN): fmaxf ignores a NaN operand, which would let
// a row whose logits are all NaN (a NaN in q) pass for a row that sees no token, and write zeros.
__device__ __forceinline__ float fmax_nan(float a, float b) {
  float y;
  asm("max.NaN.f32 %0, %1, %2;\n" : "=f"(y) : "f"(a), "f"(b));
  return y;
}

// One row's online-softmax step (FlashAttention-2's recurrence, log2 units), shared by the warp
// states: step_max is the row's largest logit of the step (over every lane holding the row); the
// running max m moves, the running sum l takes the correction, which corr returns for the row's O.
// Returns the base the step's logits subtract before exp2 (0 while the row has seen only -inf).
__device__ __forceinline__ float advance_row(float& m, float& l, float step_max, float& corr) {
  const float m_new = fmax_nan(m, step_max);
  const float base = m_new == -INFINITY ? 0.f : m_new;
  corr = exp2_ftz(m - base);
  m = m_new;
  l *= corr;
  return base;
}

// The token (within a warp's slice) of column n of S tile j.
template <KvKind Kind, bool VDimMajor>
__device__ __forceinline__ constexpr int tok_of(int j, int n) {
  if constexpr (Kind == KvKind::fp8 && VDimMajor) {
    return 16 * (j >> 1) + 4 * (n >> 1) + 2 * (j & 1) + (n & 1);
  } else {
    return 8 * j + n;
  }
}

// The head_dim index of column n of output tile dj (for the 8-row state, pa_decode_warp_n8.cuh, of
// row n of O^T half-tile dj: the same indices, transposed).
template <KvKind Kind, bool VDimMajor>
__device__ __forceinline__ constexpr int d_of(int dj, int n) {
  if constexpr (Kind == KvKind::fp8 && !VDimMajor) {
    return 16 * (dj >> 1) + 2 * n + (dj & 1);
  } else {
    return 8 * dj + n;
  }
}

// The head_dim index of k slot `slot` (0..15) of Q's A fragment for k-step kk.
template <KvKind Kind>
__device__ __forceinline__ constexpr int q_col(int kk, int slot) {
  if constexpr (Kind == KvKind::fp8) {
    const int t = (slot & 7) >> 1;
    return 16 * kk + 4 * t + 2 * (slot >> 3) + (slot & 1);
  } else {
    return 16 * kk + slot;
  }
}

}  // namespace fly::kernels::pa
