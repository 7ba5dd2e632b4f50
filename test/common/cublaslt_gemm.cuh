// cuBLASLt's D = A B^T for fly's GEMM convention (A [M,K], B [N,K], D [M,N], all row-major and
// packed), computed as the column-major D^T[N,M] = B[N,K] x A^T ("TN", the layout cuBLASLt's fp8
// kernels take). The peer fly_bench times and checks against, and the accuracy yardstick of the
// fp8 GEMM tests (test/gemm/test_gemm_fp8_accuracy_cuda.cu).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "fly/fly.h"

namespace fly_test {

struct LtMatmul {
  static constexpr int kMaxAlgos = 8;
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t algos[kMaxAlgos];
  int found = 0;
  cublasStatus_t heuristic = CUBLAS_STATUS_NOT_INITIALIZED;
  size_t ws_bytes = 64ull << 20;
  void* ws = nullptr;

  // ab: FLY_DTYPE_E4M3FN or FLY_DTYPE_F32; fast_accum (fp8 only): accumulate in the tensor cores'
  // own precision instead of promoting partial sums to fp32 (cuBLASLt's default).
  LtMatmul(int64_t m, int64_t n, int64_t k, fly_dtype_t ab, fly_dtype_t d, bool fast_accum) {
    const cudaDataType_t in = ab == FLY_DTYPE_F32 ? CUDA_R_32F : CUDA_R_8F_E4M3;
    const cudaDataType_t out = d == FLY_DTYPE_F32 ? CUDA_R_32F : d == FLY_DTYPE_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    cublasLtCreate(&lt);
    cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
    const int8_t fast = fast_accum ? 1 : 0;
    if (ab != FLY_DTYPE_F32) cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast));
    // No A/B scale pointers: with them, cuBLASLt 13.1 on the H200 answers CUBLAS_STATUS_NOT_SUPPORTED
    // for every algorithm its heuristic offers (seen 2026-11-29). Callers use unit scales.
    cublasLtMatrixLayoutCreate(&la, in, uint64_t(k), uint64_t(n), k);
    cublasLtMatrixLayoutCreate(&lb, in, uint64_t(k), uint64_t(m), k);
    cublasLtMatrixLayoutCreate(&lc, out, uint64_t(n), uint64_t(m), n);
    cudaMalloc(&ws, ws_bytes);
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof(ws_bytes));
    heuristic = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, kMaxAlgos, algos, &found);
  }
  ~LtMatmul() {
    cudaFree(ws);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
    cublasLtDestroy(lt);
  }
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  cublasStatus_t run(int algo, const void* a, const void* b, void* d, cudaStream_t stream) const {
    const float alpha = 1.f, beta = 0.f;
    return cublasLtMatmul(lt, op, &alpha, b, la, a, lb, &beta, d, lc, d, lc, &algos[algo].algo, ws, ws_bytes, stream);
  }
  // The first of the heuristic's algorithms that runs; its status otherwise.
  cublasStatus_t run_any(const void* a, const void* b, void* d, cudaStream_t stream) const {
    cublasStatus_t st = CUBLAS_STATUS_NOT_SUPPORTED;
    for (int i = 0; i < found && st != CUBLAS_STATUS_SUCCESS; ++i) st = run(i, a, b, d, stream);
    return st;
  }
};

}  // namespace fly_test
