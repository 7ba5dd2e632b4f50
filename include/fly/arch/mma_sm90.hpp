// sm_90 (NVIDIA Hopper) matrix instructions: one struct per instruction, each wrapping its inline
// PTX. Only the raw instruction lives here; the thread-value layouts are in
// fly/atom/mma_traits_sm90.hpp and host functional models in fly/atom/mma_model.hpp.
//
//   SM90_16x8x32_F32E4M3E4M3F32_TN      mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
//   SM90_16x8x16_F32BF16BF16F32_TN      mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//   SM90_16x8x16_F32F16F16F32_TN        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//   SM90_FMA_F32                        one fp32 fused multiply-add per thread
//   SM90_WGMMA_64x64x32_F32E4M3E4M3_SS  wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
//                                       (A and B from shared-memory matrix descriptors; sm_90a)
//
// As CuTe's arch structs: DRegisters/ARegisters/BRegisters/CRegisters and a static fma taking the
// registers as separate scalar references. 8- and 16-bit elements are packed in 32-bit registers
// lowest bits first (element 0 in bits [0, w)). "TN": A is row-major (K contiguous) and B is
// column-major (K contiguous), the only form mma.sync has for these types.
//
// The PTX is compiled only for sm_90 and later (mma.sync) or with the sm_90a feature set (wgmma);
// anywhere else fma traps: host code never calls it (use MMA_Model<Op> on the host).
#pragma once

#include <cstdint>

#include "fly/layout/config.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#  define FLY_ARCH_MMA_SM90_ENABLED 1
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#  define FLY_ARCH_WGMMA_SM90A_ENABLED 1
#endif

namespace fly {
namespace detail {
// Marks every operand used and traps: the instruction does not exist in this compilation.
template <class... T>
FLY_HOST_DEVICE inline void arch_unavailable_sm90(T const&...) {
#if defined(__CUDA_ARCH__)
  __trap();
#else
  __builtin_trap();
#endif
}
}  // namespace detail

// ---- mma.sync (warp of 32 threads) ------------------------------------------------------------

// D(16x8, f32) = A(16x32, e4m3) * B(32x8, e4m3) + C. A: 16 fp8 in 4 registers, B: 8 fp8 in 2.
struct SM90_16x8x32_F32E4M3E4M3F32_TN {
  using DRegisters = float[4];
  using ARegisters = uint32_t[4];
  using BRegisters = uint32_t[2];
  using CRegisters = float[4];

  FLY_HOST_DEVICE static void fma(float& d0, float& d1, float& d2, float& d3, uint32_t const& a0,
                                  uint32_t const& a1, uint32_t const& a2, uint32_t const& a3,
                                  uint32_t const& b0, uint32_t const& b1, float const& c0,
                                  float const& c1, float const& c2, float const& c3) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
#else
    detail::arch_unavailable_sm90(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
#endif
  }
};

// D(16x8, f32) = A(16x16, bf16) * B(16x8, bf16) + C. A: 8 bf16 in 4 registers, B: 4 bf16 in 2.
struct SM90_16x8x16_F32BF16BF16F32_TN {
  using DRegisters = float[4];
  using ARegisters = uint32_t[4];
  using BRegisters = uint32_t[2];
  using CRegisters = float[4];

  FLY_HOST_DEVICE static void fma(float& d0, float& d1, float& d2, float& d3, uint32_t const& a0,
                                  uint32_t const& a1, uint32_t const& a2, uint32_t const& a3,
                                  uint32_t const& b0, uint32_t const& b1, float const& c0,
                                  float const& c1, float const& c2, float const& c3) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
#else
    detail::arch_unavailable_sm90(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
#endif
  }
};

// D(16x8, f32) = A(16x16, f16) * B(16x8, f16) + C. A: 8 halves in 4 registers, B: 4 in 2.
struct SM90_16x8x16_F32F16F16F32_TN {
  using DRegisters = float[4];
  using ARegisters = uint32_t[4];
  using BRegisters = uint32_t[2];
  using CRegisters = float[4];

  FLY_HOST_DEVICE static void fma(float& d0, float& d1, float& d2, float& d3, uint32_t const& a0,
                                  uint32_t const& a1, uint32_t const& a2, uint32_t const& a3,
                                  uint32_t const& b0, uint32_t const& b1, float const& c0,
                                  float const& c1, float const& c2, float const& c3) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
#else
    detail::arch_unavailable_sm90(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
#endif
  }
};

// ---- scalar fp32 FMA (one thread, 1x1x1) --------------------------------------------------------

struct SM90_FMA_F32 {
  using DRegisters = float[1];
  using ARegisters = float[1];
  using BRegisters = float[1];
  using CRegisters = float[1];

  FLY_HOST_DEVICE static void fma(float& d, float const& a, float const& b, float const& c) {
#if defined(__CUDA_ARCH__)
    d = __fmaf_rn(a, b, c);
#else
    d = a * b + c;
#endif
  }
};

// ---- wgmma (warpgroup of 128 threads, sm_90a) -------------------------------------------------

namespace gmma {
// scale-d: One accumulates into D (D = A*B + D), Zero overwrites it (D = A*B).
enum class ScaleOut : int32_t { Zero = 0, One = 1 };

// The fences and groups every wgmma needs around it (PTX ISA "wgmma.fence",
// "wgmma.commit_group", "wgmma.wait_group").
FLY_HOST_DEVICE inline void warpgroup_arrive() {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
FLY_HOST_DEVICE inline void warpgroup_commit_batch() {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N>
FLY_HOST_DEVICE inline void warpgroup_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
// Warp specialisation (PTX ISA "setmaxnreg"): every warp of a warpgroup moves its per-thread
// register count to N (a multiple of 8 in [24, 256]); a producer warpgroup that only issues TMA
// gives registers back (dealloc) so that the consumer warpgroups holding accumulators can take
// them (alloc). The block's registers at launch bound what the allocations may add up to.
template <int N>
FLY_HOST_DEVICE inline void warpgroup_reg_dealloc() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N>
FLY_HOST_DEVICE inline void warpgroup_reg_alloc() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
// Keeps the compiler from moving accesses to an accumulator register across the fences.
FLY_HOST_DEVICE inline void warpgroup_fence_operand(float& reg) {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
  asm volatile("" : "+f"(reg)::"memory");
#else
  (void)reg;
#endif
}
}  // namespace gmma

// D(64x64, f32) (+)= A(64x32, e4m3) * B(64x32, e4m3)^T, A and B K-major in shared memory, given
// by 64-bit matrix descriptors (PTX ISA "Matrix Descriptor Format"). D: 32 floats per thread.
// Asynchronous: surround with gmma::warpgroup_arrive / warpgroup_commit_batch / warpgroup_wait.
// fp8 wgmma has no transpose and no negate immediates; imm-scale-a = imm-scale-b = 1.
struct SM90_WGMMA_64x64x32_F32E4M3E4M3_SS {
  using DRegisters = void;
  using ARegisters = uint64_t[1];
  using BRegisters = uint64_t[1];
  using CRegisters = float[32];

  FLY_HOST_DEVICE static void fma(
      uint64_t const& desc_a, uint64_t const& desc_b, float& d00, float& d01, float& d02,
      float& d03, float& d04, float& d05, float& d06, float& d07, float& d08, float& d09,
      float& d10, float& d11, float& d12, float& d13, float& d14, float& d15, float& d16,
      float& d17, float& d18, float& d19, float& d20, float& d21, float& d22, float& d23,
      float& d24, float& d25, float& d26, float& d27, float& d28, float& d29, float& d30,
      float& d31, gmma::ScaleOut const scale_D = gmma::ScaleOut::One) {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
        "{%0, %1, %2, %3, %4, %5, %6, %7,"
        " %8, %9, %10, %11, %12, %13, %14, %15,"
        " %16, %17, %18, %19, %20, %21, %22, %23,"
        " %24, %25, %26, %27, %28, %29, %30, %31},"
        " %32, %33, p, 1, 1;\n"
        "}\n"
        : "+f"(d00), "+f"(d01), "+f"(d02), "+f"(d03), "+f"(d04), "+f"(d05), "+f"(d06), "+f"(d07),
          "+f"(d08), "+f"(d09), "+f"(d10), "+f"(d11), "+f"(d12), "+f"(d13), "+f"(d14), "+f"(d15),
          "+f"(d16), "+f"(d17), "+f"(d18), "+f"(d19), "+f"(d20), "+f"(d21), "+f"(d22), "+f"(d23),
          "+f"(d24), "+f"(d25), "+f"(d26), "+f"(d27), "+f"(d28), "+f"(d29), "+f"(d30), "+f"(d31)
        : "l"(desc_a), "l"(desc_b), "r"(int32_t(scale_D)));
#else
    detail::arch_unavailable_sm90(
        desc_a, desc_b, d00, d01, d02, d03, d04, d05, d06, d07, d08, d09, d10, d11, d12, d13, d14,
        d15, d16, d17, d18, d19, d20, d21, d22, d23, d24, d25, d26, d27, d28, d29, d30, d31,
        scale_D);
#endif
  }
};

}  // namespace fly
