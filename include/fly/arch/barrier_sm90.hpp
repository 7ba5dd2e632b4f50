// A named barrier (bar.sync Id, Threads): the Threads threads (a multiple of 32) that reach it with
// the same Id (1..15; 0 is __syncthreads') wait for each other, so that one group of warps (a
// warpgroup, a block's computing warps without its producer) synchronises without the rest of the
// block. Id and Threads are immediates: ptxas then reserves only the barriers a kernel names.
#pragma once

#include <cstdint>

#include "fly/arch/mma_sm90.hpp"

namespace fly::named_barrier {

template <uint32_t Id, uint32_t Threads>
FLY_HOST_DEVICE inline void sync() {
  static_assert(Id >= 1 && Id <= 15 && Threads % 32 == 0, "fly::named_barrier::sync: Id in 1..15, whole warps");
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("bar.sync %0, %1;\n" ::"n"(Id), "n"(Threads) : "memory");
#else
  detail::arch_unavailable_sm90();
#endif
}

}  // namespace fly::named_barrier
