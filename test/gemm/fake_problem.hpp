// A validated-looking GEMM problem over fake device pointers, for dispatch tests that select a
// variant but never launch a real one.
#pragma once

#include <cstdint>

#include "gemm/gemm_registry.hpp"

namespace fly_test {

// m x n x k, dense leading dimensions, A/B/D at 256-byte aligned fake addresses (never dereferenced).
inline fly::dispatch::GemmProblem fake_problem(int64_t m, int64_t n, int64_t k, fly_dtype_t ab = FLY_DTYPE_E4M3FN,
                                               fly_dtype_t d = FLY_DTYPE_BF16) {
  fly::dispatch::GemmProblem p{};
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = p.ldb = k;
  p.ldd = n;
  p.a = p.b = ab;
  p.c = p.d = d;
  p.alpha = 1.0f;
  p.A = reinterpret_cast<const void*>(uintptr_t{0x10000});
  p.B = reinterpret_cast<const void*>(uintptr_t{0x20000});
  p.D = reinterpret_cast<void*>(uintptr_t{0x30000});
  return p;
}

// A launch function that enqueues nothing: what a fake registry's variants carry.
inline fly_status_t ok_launch(const fly::dispatch::GemmProblem&, void*) { return FLY_STATUS_SUCCESS; }

}  // namespace fly_test
