// The host backend's GEMM: the reference every GPU variant is checked against.
#pragma once

#include "fly/fly.h"
#include "gemm_registry.hpp"

namespace fly::dispatch {

// D = alpha * scale_a * scale_b * (A x B^T) + beta * C on host memory, for a validated problem
// (A/B f32, e4m3fn or e4m3fnuz; C/D f32, f16 or bf16). Each element converts A and B exactly to
// float, accumulates the float products in k order starting from 0, then computes
// (alpha * scale_a * scale_b) * acc, adds beta * C when C is read, and rounds once to D's type
// (round to nearest even). Padding past the m x n / m x k / n x k windows is neither read nor
// written. Large problems run on several threads (over blocks of rows); the result does not depend
// on the thread count. Never throws; fails only for a dtype outside the validated set.
fly_status_t host_gemm(const GemmProblem& problem) noexcept;

// The thread count host_gemm uses for an m x n x k problem (1 for small ones).
int host_gemm_threads(int64_t m, int64_t n, int64_t k) noexcept;

}  // namespace fly::dispatch
