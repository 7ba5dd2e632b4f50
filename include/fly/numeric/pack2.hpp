// Two floats as two adjacent 16-bit values in one 32-bit word (x in the low half: the lower
// address), as the GEMM epilogues store a pair of D's columns: fly::pack2<bfloat16>(x, y).
// On the device it is the hardware's paired conversion (cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32:
// one instruction for both values, round to nearest even, overflow to infinity, as T(float)); a
// NaN then comes out as the hardware's canonical NaN, where T(float) keeps its sign and top
// payload bits (the tensor cores' NaNs are canonical already). Elsewhere, T(float) of each.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fly/numeric/bfloat16.hpp"
#include "fly/numeric/half.hpp"

namespace fly {

template <class T>
FLY_HOST_DEVICE inline uint32_t pack2(float x, float y) {
  static_assert(sizeof(T) == 2, "fly::pack2: a 16-bit type (bfloat16, half)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t bits;
  if constexpr (std::is_same_v<T, bfloat16>) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(bits) : "f"(y), "f"(x));  // the first source is the high half
    return bits;
  } else if constexpr (std::is_same_v<T, half>) {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(bits) : "f"(y), "f"(x));
    return bits;
  }
#endif
  return uint32_t(T(x).bits()) | uint32_t(T(y).bits()) << 16;
}

}  // namespace fly
