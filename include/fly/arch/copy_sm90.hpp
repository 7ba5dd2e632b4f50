// sm_90a cp.async: global -> shared copies of 4, 8 or 16 bytes that bypass registers, completed by
// cp.async.wait_group. On the host the functional model copies immediately.
#pragma once

#include <cstdint>
#include <cstring>

#include "fly/arch/copy.hpp"

namespace fly {

template <int Bits>
struct SM90_CpAsync {
  static_assert(Bits == 32 || Bits == 64 || Bits == 128, "cp.async copies 4, 8 or 16 bytes");
  using value_type = std::conditional_t<Bits == 32, uint32_t, std::conditional_t<Bits == 64, uint64_t, uint128_v>>;
  static constexpr int bits = Bits;
  static constexpr const char* name = "SM90_CpAsync";
  template <int B>
  using with_bits = SM90_CpAsync<B>;
  static constexpr int min_bits = 32;

  template <class SrcIt, class DstIt>
  FLY_HOST_DEVICE static void copy(SrcIt src, DstIt dst) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    auto smem = static_cast<uint32_t>(__cvta_generic_to_shared(&*dst));
    if constexpr (Bits == 128) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(&*src));
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(smem), "l"(&*src), "n"(Bits / 8));
    }
#else
    std::memcpy(&*dst, &*src, Bits / 8);
#endif
  }
};

// Make every cp.async issued so far by this thread visible in shared memory.
FLY_HOST_DEVICE inline void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

using CpAsync32b = SM90_CpAsync<32>;
using CpAsync64b = SM90_CpAsync<64>;
using CpAsync128b = SM90_CpAsync<128>;

}  // namespace fly
