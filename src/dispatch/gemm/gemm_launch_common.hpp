// What every GEMM launcher computes the same way whatever the runtime (gemm_launch_cuda.hpp,
// gemm_launch_hip.hpp): the kernel's parameters from a validated problem, a Block's dynamic shared
// memory, and the grid's column-block limit.
#pragma once

#include <cstdint>
#include <string>

#include "gemm_epilogue.hpp"
#include "gemm_registry.hpp"
#include "status_internal.hpp"

namespace fly::kernels {

inline GemmParams gemm_params(const fly::dispatch::GemmProblem& p) {
  GemmParams g{};
  g.m = int(p.m);
  g.n = int(p.n);
  g.k = int(p.k);
  g.lda = p.lda;
  g.ldb = p.ldb;
  g.ldc = p.ldc;
  g.ldd = p.ldd;
  g.a = p.A;
  g.b = p.B;
  g.c = p.C;
  g.d = p.D;
  g.alpha = p.alpha;
  g.beta = p.beta;
  g.scale_a = p.scale_a;
  g.scale_b = p.scale_b;
  return g;
}

template <class Block>
constexpr int dynamic_smem_bytes() {
  if constexpr (requires { Block::smem_bytes; }) {
    return Block::smem_bytes;
  } else {
    return 0;
  }
}

// Whether overlapping a launch with the kernel before it (programmatic dependent launch, CUDA)
// can pay for a problem of this size. What it saves is fixed, a few microseconds a call (a block's
// prologue and the previous kernel's tail: 64 x 8192^2 fp8 27.0 against 30.5 us back to back on an
// H100, 2026-12-05), under 1% of a call of 2^39 FLOP (about 400 us) or more; at 8192^3 the same
// run measured it 7% slower back to back (930 against 866 us, 128x192:s5), so larger problems
// launch plainly (docs/gemm.md, "Programmatic dependent launch").
inline constexpr double kGemmOverlapMaxFlop = 549755813888.0;  // 2^39
inline bool gemm_overlap_pays(int64_t m, int64_t n, int64_t k) {
  return 2.0 * double(m) * double(n) * double(k) < kGemmOverlapMaxFlop;
}

// M, N and K within the kernels' 32-bit counts (gemm_registry.hpp: selection checks it first).
inline fly_status_t check_kernel_size(const fly::dispatch::GemmProblem& p) {
  if (std::string why = fly::dispatch::gemm_kernel_size_rejection(p); !why.empty())
    return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: " + why);
  return FLY_STATUS_SUCCESS;
}

// A grid's y extent (column blocks, or clusters x their size) is at most 65535.
inline fly_status_t check_grid_y(uint64_t blocks_y, int64_t n, int bn) {
  if (blocks_y <= 65535u) return FLY_STATUS_SUCCESS;
  return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: N = " + std::to_string(n) +
                                                         " needs more than 65535 column blocks of " + std::to_string(bn));
}

}  // namespace fly::kernels
