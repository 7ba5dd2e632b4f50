// fly_gemm on the GPU beside cuBLASLt, same problems, same run. Each row reports TFLOP/s and, as a
// fraction of the H200's measured ceilings (docs/h200-runs.md), the compute rate (fp8 dense 1979
// TFLOP/s datasheet; fp32 51 TFLOP/s measured sgemm) and the bandwidth of reading A and B once and
// writing D (4.57 TB/s read streaming): skinny decode GEMMs are bound by the latter.
// Timing (gemm_cuda_problem.cuh, gpu_timer.cuh): the row's time is the GPU time of one call behind
// a held stream (median after warm-up, inputs rotated over several copies when one set fits in the
// 60 MB L2), as nvbench measures; `batch_us` is per call of 20 back to back (a replayed graph),
// `call_us` per call with the host's enqueue cost (an eager engine; cuBLASLt's host path is
// 10-20 us of it on the H200).
#include <benchmark/benchmark.h>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "fly/fly.h"
#include "gemm_cuda_problem.cuh"
#include "gemm_shapes.hpp"

namespace {

using fly::bench::batch_seconds;
using fly::bench::call_seconds;
using fly::bench::GpuTimer;
using fly::bench::gpu_seconds;
using fly::bench::Problem;
using fly::bench::Shape;

constexpr double kFp8PeakTflops = 1979.0;  // datasheet, dense
constexpr double kFp32PeakTflops = 51.0;   // cuBLAS sgemm, measured on the H200
constexpr double kReadTBs = 4.57;          // read-only streaming, measured

constexpr int kBatchCalls = 20;

struct Times {
  double gpu, batch, call;  // seconds per call (gemm_cuda_problem.cuh)
};

// Each of a call's three times, `call(set)` enqueueing it on `stream`.
template <class Call>
Times measure(Problem& p, cudaStream_t stream, GpuTimer& timer, int reps, Call call) {
  return {gpu_seconds(p, timer, reps, call), batch_seconds(p, timer, kBatchCalls, call),
          call_seconds(p, stream, reps, call)};
}

void report(benchmark::State& state, Problem const& p, Times t, const std::string& label) {
  const double seconds = t.gpu;
  for (auto _s : state) state.SetIterationTime(seconds);
  const double tflops = p.flops() / seconds * 1e-12;
  const double tbs = p.bytes() / seconds * 1e-12;
  state.counters["TFLOPs"] = tflops;
  state.counters["of_peak"] = tflops / (p.ab == FLY_DTYPE_F32 ? kFp32PeakTflops : kFp8PeakTflops);
  state.counters["TBs"] = tbs;
  state.counters["of_hbm"] = tbs / kReadTBs;
  state.counters["us"] = seconds * 1e6;
  state.counters["batch_us"] = t.batch * 1e6;
  state.counters["call_us"] = t.call * 1e6;
  state.SetLabel(label);
}

void bench_fly(benchmark::State& state, Shape s, fly_dtype_t ab, fly_dtype_t d) {
  Problem p(s, ab, d);
  fly_handle_t h = nullptr;
  if (!p.ok || fly_create(&h) != FLY_STATUS_SUCCESS) {
    state.SkipWithError(fly_last_error());
    return;
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = s.m; args.n = s.n; args.k = s.k;
  args.a_type = args.b_type = ab;
  args.c_type = args.d_type = d;
  args.lda = s.k; args.ldb = s.k; args.ldd = s.n;
  args.scale_a = p.scales; args.scale_b = p.scales + 1;
  char why[FLY_GEMM_EXPLAIN_BYTES] = "";
  args.a = p.a[0]; args.b = p.b[0]; args.d = p.dd[0];
  if (fly_gemm_explain(h, &args, why, sizeof(why)) != FLY_STATUS_SUCCESS) {
    state.SkipWithError(fly_last_error());
  } else {
    bool failed = false;
    GpuTimer timer(stream);
    const Times t = measure(p, stream, timer, 50, [&](int i) {
      args.a = p.a[size_t(i)]; args.b = p.b[size_t(i)]; args.d = p.dd[size_t(i)];
      failed = failed || fly_gemm(h, &args, nullptr, 0, stream) != FLY_STATUS_SUCCESS;
    });
    if (failed) state.SkipWithError(fly_last_error());
    else if (t.gpu < 0 || t.batch < 0 || t.call < 0)
      state.SkipWithError("fly_bench: a timing failed (a CUDA error, or the stream hold gave up)");
    else report(state, p, t, why);
  }
  cudaStreamDestroy(stream);
  fly_destroy(h);
}

// cuBLASLt on the same problem: column-major D^T[N,M] = B[N,K] x A^T, i.e. "TN" with A := B.
void bench_cublaslt(benchmark::State& state, Shape s, fly_dtype_t ab, fly_dtype_t d) {
  Problem p(s, ab, d);
  if (!p.ok) {
    state.SkipWithError("allocation failed");
    return;
  }
  cublasLtHandle_t lt;
  cublasLtCreate(&lt);
  const bool fp8 = ab != FLY_DTYPE_F32;
  const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_32F;
  const cudaDataType_t out = d == FLY_DTYPE_F32 ? CUDA_R_32F : d == FLY_DTYPE_BF16 ? CUDA_R_16BF : CUDA_R_16F;
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
  // No A/B scale pointers: with them, cuBLASLt 13.1 on the H200 answers CUBLAS_STATUS_NOT_SUPPORTED for
  // every algorithm its heuristic offers (seen 2026-11-29, with and without an explicit scalar scale
  // mode). The bench's scales are 1, so cuBLASLt computes the same product fly does.
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, in, uint64_t(s.k), uint64_t(s.n), s.k);
  cublasLtMatrixLayoutCreate(&lb, in, uint64_t(s.k), uint64_t(s.m), s.k);
  cublasLtMatrixLayoutCreate(&lc, out, uint64_t(s.n), uint64_t(s.m), s.n);
  size_t ws_bytes = 64ull << 20;
  void* ws = nullptr;
  cudaMalloc(&ws, ws_bytes);
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof(ws_bytes));
  cublasLtMatmulHeuristicResult_t algos[8];
  int found = 0;
  const cublasStatus_t heuristic = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, algos, &found);
  cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const float alpha = 1.f, beta = 0.f;
  GpuTimer timer(stream);
  int best = -1;
  double best_gpu = 0;
  bool failed = false;
  auto run = [&](int a) {
    return [&, a](int i) {
      if (failed) return;
      last = cublasLtMatmul(lt, op, &alpha, p.b[size_t(i)], la, p.a[size_t(i)], lb, &beta, p.dd[size_t(i)], lc,
                            p.dd[size_t(i)], lc, &algos[a].algo, ws, ws_bytes, stream);
      failed = last != CUBLAS_STATUS_SUCCESS;
    };
  };
  for (int a = 0; a < found; ++a) {  // the fastest on the GPU, then its three times
    failed = false;
    const double t = gpu_seconds(p, timer, 20, run(a));
    if (!failed && t > 0 && (best < 0 || t < best_gpu)) {
      best = a;
      best_gpu = t;
    }
  }
  failed = false;
  const Times t = best < 0 ? Times{-1, -1, -1} : measure(p, stream, timer, 20, run(best));
  if (best < 0 || failed || t.gpu < 0 || t.batch < 0 || t.call < 0) {
    const std::string why = "cuBLASLt: heuristic status " + std::to_string(int(heuristic)) + ", " + std::to_string(found) +
                            " algorithms, last matmul status " + std::to_string(int(last));
    state.SkipWithError(why.c_str());
  } else {
    report(state, p, t, "cuBLASLt best of " + std::to_string(found) + " heuristics");
  }
  cudaStreamDestroy(stream);
  cudaFree(ws);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);
}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// Registered at start-up when a GPU is present: fly and its peer side by side per problem.
const int registered = [] {
  if (!have_gpu()) return 0;
  struct Types {
    fly_dtype_t ab, d;
    const char* name;
  };
  const Types types[] = {{FLY_DTYPE_E4M3FN, FLY_DTYPE_BF16, "e4m3_bf16"}, {FLY_DTYPE_F32, FLY_DTYPE_F32, "f32_f32"}};
  for (auto const& t : types)
    for (Shape const& s : fly::bench::kBenchShapes) {
      if (fly::bench::skip_shape(t.ab, s)) continue;
      const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
      benchmark::RegisterBenchmark(("gemm/" + std::string(t.name) + "/" + shape + "/fly").c_str(), bench_fly, s, t.ab, t.d)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("gemm/" + std::string(t.name) + "/" + shape + "/cublaslt").c_str(), bench_cublaslt, s,
                                   t.ab, t.d)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  return 1;
}();

}  // namespace
