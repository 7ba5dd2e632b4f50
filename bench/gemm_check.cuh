// cuBLASLt beside fly in fly_bench, twice over: as the timed peer (LtMatmul, with or without fast
// accumulation) and as the reference every timed GEMM configuration is checked against before its
// row is reported or tuned (GemmReference: cuBLASLt in its default, promoting mode with an fp32 D).
//
// The check, on the GPU over every element of D (set 0 of the Problem):
//  - elementwise, |D - ref| <= 2 (k + 3) u k max|a| max|b| + 2 u_D |ref| + 2^-24, u = 2^-24: the
//    worst case of two fp32 accumulations over k products of inputs in [-1, 1] and D's rounding;
//  - normwise, ||D - ref|| / ||ref|| <= 2^-6 (16-bit D) or 2^-7 (f32 D): far above what a correct
//    variant shows (bf16 rounding alone is about 2^-9), far below a wrong variant's O(1).
// Either failing fails the row (bench_failures.hpp) or drops the variant from a tuning table.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/cublaslt_gemm.cuh"
#include "gemm_cuda_problem.cuh"

namespace fly::bench {

using fly_test::LtMatmul;

// counts[0]: elements beyond the elementwise bound; sums[0]: sum of (D - ref)^2, sums[1]: of ref^2.
static __global__ void gemm_compare(const void* d, int d_type, const float* ref, int64_t n, double abs_tol,
                                    double rel_tol, unsigned long long* counts, double* sums) {
  double err2 = 0, ref2 = 0;
  unsigned long long bad = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float got;
    if (d_type == FLY_DTYPE_F32) {
      got = static_cast<const float*>(d)[i];
    } else {
      const unsigned short bits = static_cast<const unsigned short*>(d)[i];
      got = d_type == FLY_DTYPE_BF16 ? __uint_as_float(unsigned(bits) << 16) : __half2float(__ushort_as_half(bits));
    }
    const double r = ref[i], e = double(got) - r;
    if (!(std::fabs(e) <= abs_tol + rel_tol * std::fabs(r))) ++bad;  // NaN counts as bad
    err2 += e * e;
    ref2 += r * r;
  }
  atomicAdd(counts, bad);
  atomicAdd(&sums[0], err2);
  atomicAdd(&sums[1], ref2);
}

// cuBLASLt's promoting fp32 result for a Problem's set 0, and the check of a D against it.
struct GemmReference {
  const Problem& p;
  float* ref = nullptr;
  unsigned long long* counts = nullptr;
  double* sums = nullptr;
  std::string error;  // set when the reference could not be computed

  GemmReference(const Problem& problem, cudaStream_t stream) : p(problem) {
    LtMatmul lt(p.s.m, p.s.n, p.s.k, p.ab, FLY_DTYPE_F32, /*fast_accum=*/false);
    if (!check(cudaMalloc(&ref, size_t(p.s.m * p.s.n) * 4), "cudaMalloc") ||
        !check(cudaMalloc(&counts, sizeof(unsigned long long)), "cudaMalloc") ||
        !check(cudaMalloc(&sums, 2 * sizeof(double)), "cudaMalloc")) {
      error = "cannot allocate the reference";
      return;
    }
    const cublasStatus_t st = lt.run_any(p.a[0], p.b[0], ref, stream);
    if (st != CUBLAS_STATUS_SUCCESS || cudaStreamSynchronize(stream) != cudaSuccess) {
      error = "cuBLASLt reference failed (heuristic status " + std::to_string(int(lt.heuristic)) + ", " +
              std::to_string(lt.found) + " algorithms, status " + std::to_string(int(st)) + ")";
    }
  }
  ~GemmReference() {
    cudaFree(ref);
    cudaFree(counts);
    cudaFree(sums);
  }
  GemmReference(const GemmReference&) = delete;
  GemmReference& operator=(const GemmReference&) = delete;

  // "" when `d` (set 0's D, of the Problem's d type) is within both bounds; else why not. `norm`
  // receives ||D - ref|| / ||ref||.
  std::string verify(const void* d, cudaStream_t stream, double* norm = nullptr) const {
    if (!error.empty()) return error;
    const double u = std::ldexp(1.0, -24);
    const double ud = p.d == FLY_DTYPE_F32 ? u : p.d == FLY_DTYPE_BF16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
    const double k = double(p.s.k);
    const double abs_tol = 2.0 * (k + 3.0) * u * k + u;  // inputs in [-1, 1]
    const int64_t n = p.s.m * p.s.n;
    cudaMemsetAsync(counts, 0, sizeof(unsigned long long), stream);
    cudaMemsetAsync(sums, 0, 2 * sizeof(double), stream);
    gemm_compare<<<264, 256, 0, stream>>>(d, int(p.d), ref, n, abs_tol, 2.0 * ud, counts, sums);
    unsigned long long bad = 0;
    double host_sums[2] = {0, 0};
    if (cudaMemcpyAsync(&bad, counts, sizeof bad, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
        cudaMemcpyAsync(host_sums, sums, sizeof host_sums, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
        cudaStreamSynchronize(stream) != cudaSuccess) {
      return "the comparison failed: " + std::string(cudaGetErrorString(cudaGetLastError()));
    }
    const double rel = host_sums[1] > 0 ? std::sqrt(host_sums[0] / host_sums[1]) : std::sqrt(host_sums[0]);
    if (norm != nullptr) *norm = rel;
    const double rel_limit = p.d == FLY_DTYPE_F32 ? std::ldexp(1.0, -7) : std::ldexp(1.0, -6);
    if (bad == 0 && rel <= rel_limit) return "";
    char buf[160];
    std::snprintf(buf, sizeof buf, "wrong result: %llu of %lld elements beyond the bound, normwise error %.3g (limit %.3g)",
                  bad, (long long)n, rel, rel_limit);
    return buf;
  }
};

}  // namespace fly::bench
