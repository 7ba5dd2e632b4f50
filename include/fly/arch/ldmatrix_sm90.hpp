// ldmatrix (sm_75+): a warp loads four 8x8 matrices of 16-bit elements from shared memory, lane l
// giving the address of row l % 8 of matrix l / 8. Without .trans lane l receives row l / 4,
// elements 2 (l % 4) and 2 (l % 4) + 1 of each matrix (in one 32-bit register, lowest first): the
// A/B fragment of mma.sync m16n8k16. With .trans it receives column l / 4, rows 2 (l % 4) and
// 2 (l % 4) + 1. Names follow CuTe's SM75_U32x4_LDSM_N / _T. movmatrix (sm_75+) is the same
// transpose applied to a matrix already in registers.
#pragma once

#include <cstdint>

#include "fly/arch/mma_sm90.hpp"  // FLY_ARCH_MMA_SM90_ENABLED, arch_unavailable_sm90

namespace fly {

struct SM75_U32x4_LDSM_N {
  FLY_HOST_DEVICE static void copy(uint32_t smem_addr, uint32_t& d0, uint32_t& d1, uint32_t& d2, uint32_t& d3) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                 : "r"(smem_addr));
#else
    detail::arch_unavailable_sm90(smem_addr, d0, d1, d2, d3);
#endif
  }
};

struct SM75_U16x8x4_LDSM_T {
  FLY_HOST_DEVICE static void copy(uint32_t smem_addr, uint32_t& d0, uint32_t& d1, uint32_t& d2, uint32_t& d3) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile("ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                 : "r"(smem_addr));
#else
    detail::arch_unavailable_sm90(smem_addr, d0, d1, d2, d3);
#endif
  }
};

// movmatrix.trans: lane l holds row l / 4, elements 2 (l % 4), 2 (l % 4) + 1 of an 8x8 matrix of
// 16-bit elements; afterwards it holds column l / 4, rows 2 (l % 4), 2 (l % 4) + 1 (the
// accumulator of one mma.sync m16n8 half, transposed into the B operand's layout).
struct SM75_U16x8_MOVM_T {
  FLY_HOST_DEVICE static uint32_t transpose(uint32_t x) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    uint32_t y;
    asm("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
    return y;
#else
    detail::arch_unavailable_sm90(x);
    return x;
#endif
  }
};

}  // namespace fly
