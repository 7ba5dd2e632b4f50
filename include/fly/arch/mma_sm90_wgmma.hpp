// wgmma m64nNk32 e4m3 with both operands in shared memory, for the N the GEMM grid uses:
//   D(64 x N, f32) += A(64 x 32, e4m3) * B(N x 32, e4m3)^T
// A and B are K-major, given by matrix descriptors (gmma::make_smem_desc). D is N/2 floats per
// thread: d[4j + 2h + c] is row 16*warp + lane/4 + 8h, column 8j + 2*(lane%4) + c (PTX ISA,
// "wgmma 64xNxK register fragment"). ScaleD = 1 (the default) accumulates into D; ScaleD = 0
// overwrites it with A * B (scale-d: no zeroing of D before a fresh sum).
// Asynchronous: surround with gmma::warpgroup_arrive / warpgroup_commit_batch / warpgroup_wait.
#pragma once

#include <cstdint>

#include "fly/arch/mma_sm90.hpp"

namespace fly {

namespace gmma {
// Shared-memory layouts a wgmma descriptor names (PTX ISA "Matrix Descriptor Format", bits 62-63).
// With b128, 8-row x 128-byte atoms (1024-byte aligned) hold each row's eight 16-byte chunks at
// chunk ^ (row % 8).
enum class SmemSwizzle : uint32_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

// A K-major matrix descriptor: start address; `leading_bytes` between core matrices along K (no
// swizzle; unused by swizzled K-major layouts whose K fits one atom row); `stride_bytes` between
// 8-row groups along M/N. Offsets in 16-byte units; base offset 0 (atoms 1024-byte aligned).
FLY_HOST_DEVICE inline uint64_t make_smem_desc(uint32_t smem_addr, uint32_t leading_bytes, uint32_t stride_bytes,
                                               SmemSwizzle swizzle = SmemSwizzle::none) {
  uint64_t desc = 0;
  desc |= uint64_t((smem_addr >> 4) & 0x3FFF);
  desc |= uint64_t((leading_bytes >> 4) & 0x3FFF) << 16;
  desc |= uint64_t((stride_bytes >> 4) & 0x3FFF) << 32;
  desc |= uint64_t(swizzle) << 62;
  return desc;
}

// The descriptor `desc` with its start address moved on by `bytes` (a multiple of 16, the result
// still inside shared memory). The address is the low 14 bits, in 16-byte units, and no
// shared-memory address (< 256 KB) carries out of them, so one 32-bit add of the low word does it
// where make_smem_desc would encode the whole descriptor again (CuTe's GmmaDescriptor iterator):
// a k-tile's wgmmas then cost an add each, not a shift, two masks and a move per operand.
FLY_HOST_DEVICE constexpr uint64_t smem_desc_plus(uint64_t desc, uint32_t bytes) {
  return (desc & 0xFFFFFFFF00000000ull) | uint32_t(uint32_t(desc) + (bytes >> 4));
}

// Orders this thread's ordinary shared-memory writes (cp.async included) before later reads by
// the tensor cores' async proxy; each writing thread fences, then the block synchronises.
FLY_HOST_DEVICE inline void fence_async_shared() {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
}  // namespace gmma

template <int N>
struct SM90_WGMMA_64xNx32_F32E4M3E4M3_SS {
  static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 192,
                "fly::SM90_WGMMA_64xNx32_F32E4M3E4M3_SS: N is one of 16, 32, 64, 128, 192 (add a specialization)");
};

// The specializations differ in N and in their operand lists alone: inline asm names each of the
// N/2 accumulators literally (a parameter pack cannot expand there), so one macro writes each.
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
#define FLY_WGMMA_E4M3_ISSUE(N_, ACCS, DESCS, ...)                                                      \
  asm volatile("wgmma.mma_async.sync.aligned.m64n" #N_ "k32.f32.e4m3.e4m3 {" ACCS "}, " DESCS ", 1, 1;\n" \
               : __VA_ARGS__                                                                            \
               : "l"(desc_a), "l"(desc_b), "n"(ScaleD))
#else
#define FLY_WGMMA_E4M3_ISSUE(N_, ACCS, DESCS, ...) detail::arch_unavailable_sm90(desc_a, desc_b, d)
#endif
// ACCS: "%0, ..., %(N/2 - 1)"; DESCS: the three operands after them; then the accumulators' "+f" list.
#define FLY_WGMMA_64xNx32_E4M3(N_, ACCS, DESCS, ...)                                          \
  template <>                                                                                 \
  struct SM90_WGMMA_64xNx32_F32E4M3E4M3_SS<N_> {                                              \
    static constexpr int N = N_;                                                              \
    template <int ScaleD = 1>                                                                 \
    FLY_HOST_DEVICE static void fma(uint64_t desc_a, uint64_t desc_b, float (&d)[N_ / 2]) { \
      FLY_WGMMA_E4M3_ISSUE(N_, ACCS, DESCS, __VA_ARGS__);                                     \
    }                                                                                         \
  };

FLY_WGMMA_64xNx32_E4M3(16, "%0, %1, %2, %3, %4, %5, %6, %7",
                       "%8, %9, %10",
                       "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]))

FLY_WGMMA_64xNx32_E4M3(32, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15",
                       "%16, %17, %18",
                       "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]))

FLY_WGMMA_64xNx32_E4M3(64, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31",
                       "%32, %33, %34",
                       "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]))

FLY_WGMMA_64xNx32_E4M3(128, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63",
                       "%64, %65, %66",
                       "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]))

FLY_WGMMA_64xNx32_E4M3(192, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95",
                       "%96, %97, %98",
                       "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]))

#undef FLY_WGMMA_64xNx32_E4M3
#undef FLY_WGMMA_E4M3_ISSUE

}  // namespace fly
