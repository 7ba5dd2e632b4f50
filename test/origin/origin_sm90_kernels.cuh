// The sm_90a kernels of the test tiles: the generic tiled kernel (one per tile and copy atom) and the
// origin case's raw mma.sync twin. Included by test_origin_cuda.cu (run on a GPU) and by
// origin_sm90_cubin.cu (compiled to a cubin whose registers fly_regreport compares).
#pragma once

#include <cstdint>

#include "tile_configs.hpp"

template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads) tile_kernel(typename Cfg::TA const* a, typename Cfg::TB const* b, float* c) {
  Cfg::run(int(threadIdx.x), a, b, c);
}

using OriginSm90U32 = fly_test::Sm90Origin<fly::UniversalCopy32b>;
using OriginSm90U64 = fly_test::Sm90Origin<fly::UniversalCopy64b>;
using OriginSm90U128 = fly_test::Sm90Origin<fly::UniversalCopy128b>;

#define FLY_ORIGIN_SM90_KERNEL(name, Cfg)                                                              \
  extern "C" __global__ void __launch_bounds__(Cfg::threads) name(Cfg::TA const* a, Cfg::TB const* b, float* c) { \
    Cfg::run(int(threadIdx.x), a, b, c);                                                               \
  }
FLY_ORIGIN_SM90_KERNEL(origin_sm90_universal32, OriginSm90U32)
FLY_ORIGIN_SM90_KERNEL(origin_sm90_universal64, OriginSm90U64)
FLY_ORIGIN_SM90_KERNEL(origin_sm90_universal128, OriginSm90U128)
#undef FLY_ORIGIN_SM90_KERNEL

// The origin case by hand: mma.sync m16n8k32 e4m3 with hand-indexed 32-bit loads (PTX ISA,
// "Matrix Fragments for mma.m16n8k32": a lane holds A rows g and g+8, columns 4t..4t+3 and
// 16+4t..16+4t+3; B columns (= our rows of B) g, k rows 4t..4t+3 and 16+4t..; C rows g and g+8,
// columns 2t, 2t+1).
extern "C" __global__ void __launch_bounds__(128) origin_sm90_twin(void const* a_, void const* b_, float* c) {
  auto const* a = static_cast<uint8_t const*>(a_);
  auto const* b = static_cast<uint8_t const*>(b_);
  constexpr int K = 128, N = 16;
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  float acc[2][4] = {};
#pragma unroll
  for (int ks = 0; ks < K / 32; ++ks) {
    uint8_t const* ar = a + (warp * 16 + g) * K + ks * 32 + t * 4;
    uint32_t a0 = *reinterpret_cast<uint32_t const*>(ar);
    uint32_t a1 = *reinterpret_cast<uint32_t const*>(ar + 8 * K);
    uint32_t a2 = *reinterpret_cast<uint32_t const*>(ar + 16);
    uint32_t a3 = *reinterpret_cast<uint32_t const*>(ar + 8 * K + 16);
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
      uint8_t const* br = b + (nt * 8 + g) * K + ks * 32 + t * 4;
      uint32_t b0 = *reinterpret_cast<uint32_t const*>(br);
      uint32_t b1 = *reinterpret_cast<uint32_t const*>(br + 16);
      float* d = acc[nt];
      asm volatile(
          "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
#pragma unroll
  for (int nt = 0; nt < 2; ++nt) {
    int col = nt * 8 + 2 * t;
    c[(warp * 16 + g) * N + col] = acc[nt][0];
    c[(warp * 16 + g) * N + col + 1] = acc[nt][1];
    c[(warp * 16 + g + 8) * N + col] = acc[nt][2];
    c[(warp * 16 + g + 8) * N + col + 1] = acc[nt][3];
  }
}

