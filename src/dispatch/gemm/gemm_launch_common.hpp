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
