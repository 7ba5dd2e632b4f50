// fly_gemm on the GPU beside cuBLASLt, same problems, same run. Each row reports TFLOP/s and, as a
// fraction of the card's ceilings, the compute rate (`of_peak`: datasheet dense rates of the H100
// and H200 SXM, which share them: fp8 1979 TFLOP/s, fp32 67 TFLOP/s; cuBLAS's own sgemm reaches
// about 51) and the bandwidth of reading A and B once and writing D (`of_hbm`: over `read_TBs`, the
// read-streaming rate this run measured on this card, read_ceiling.cuh): skinny decode GEMMs are
// bound by the latter. Inputs rotate over copies spanning twice the L2, so no row is L2-resident.
// cuBLASLt runs in its default mode (fp8 partial sums promoted to fp32: `cublaslt`) and, for fp8,
// with fast accumulation (`cublaslt_fastaccum`, the tensor cores' own accumulator, as fly's fp8
// variants accumulate until they promote): compare fly with the mode of equal accuracy.
// Every row's D is checked against cuBLASLt's promoting fp32 result before it is reported
// (gemm_check.cuh); a mismatch fails the row and fly_bench.
// Timing (gemm_cuda_problem.cuh, gpu_timer.cuh): the row's time is the GPU time of one call behind
// a held stream (median after warm-up), as nvbench measures; `batch_us` is per call of 20 back to
// back (a replayed graph; FLY_BENCH_BATCH_CALLS=<n> makes it n, up to 500: sustained load
// for tools/h200_check.sh's CLOCK_ROWS), `call_us` per call with the host's enqueue cost (an eager
// engine; cuBLASLt's host path is 10-20 us of it on the H200). Decode shapes (M <= 128 against a
// weight of 16M elements or more) have one more row, `read`: a plain read of the same A and B, the
// floor any kernel streaming them has.
#include <benchmark/benchmark.h>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "bench_failures.hpp"
#include "fly/fly.h"
#include "gemm_check.cuh"
#include "gemm_cuda_problem.cuh"
#include "gemm_shapes.hpp"
#include "read_ceiling.cuh"

namespace {

using fly::bench::batch_seconds;
using fly::bench::fail_row;
using fly::bench::GemmReference;
using fly::bench::LtMatmul;
using fly::bench::call_seconds;
using fly::bench::GpuTimer;
using fly::bench::gpu_seconds;
using fly::bench::Problem;
using fly::bench::Shape;

constexpr double kFp8PeakTflops = 1979.0;  // datasheet, dense
constexpr double kFp32PeakTflops = 67.0;   // datasheet (H100 and H200 SXM), non-tensor fp32

// Calls in a `batch_us` batch: 20, or FLY_BENCH_BATCH_CALLS (1 to 500). The batch is enqueued
// behind the held stream, whose hold gives up after a second: past the driver's queue of pending
// launches (cuBLASLt's 1000-call batches failed on the H200, 400 ran) the enqueue would wait on it.
int batch_calls() {
  static const int calls = [] {
    const char* v = std::getenv("FLY_BENCH_BATCH_CALLS");
    if (v == nullptr) return 20;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end == v || *end != '\0' || n < 1 || n > 500) {
      std::fprintf(stderr, "fly_bench: FLY_BENCH_BATCH_CALLS=%s is not a count from 1 to 500; batches of 20\n", v);
      return 20;
    }
    return static_cast<int>(n);
  }();
  return calls;
}

struct Times {
  double gpu, batch, call;  // seconds per call (gemm_cuda_problem.cuh)
};

// Each of a call's three times, `call(set)` enqueueing it on `stream`.
template <class Call>
Times measure(Problem& p, cudaStream_t stream, GpuTimer& timer, int reps, Call call) {
  return {gpu_seconds(p, timer, reps, call), batch_seconds(p, timer, batch_calls(), call),
          call_seconds(p, stream, reps, call)};
}

// What every GPU row of this file reports: its three times, and the bandwidth of moving `bytes` in
// one call's GPU time.
void report_times(benchmark::State& state, Times t, double bytes) {
  for (auto _s : state) state.SetIterationTime(t.gpu);
  const double tbs = bytes / t.gpu * 1e-12;
  state.counters["TBs"] = tbs;
  fly::bench::set_hbm_counters(state.counters, tbs);
  state.counters["us"] = t.gpu * 1e6;
  state.counters["batch_us"] = t.batch * 1e6;
  state.counters["batch_calls"] = batch_calls();
  state.counters["call_us"] = t.call * 1e6;
}

void report(benchmark::State& state, Problem const& p, Times t, const std::string& label, double norm_err) {
  report_times(state, t, p.bytes());
  const double tflops = p.flops() / t.gpu * 1e-12;
  state.counters["TFLOPs"] = tflops;
  state.counters["of_peak"] = tflops / (p.ab == FLY_DTYPE_F32 ? kFp32PeakTflops : kFp8PeakTflops);
  state.counters["err"] = norm_err;  // ||D - ref|| / ||ref|| against cuBLASLt's promoting fp32 result
  state.SetLabel(label);
}

void bench_fly(benchmark::State& state, Shape s, fly_dtype_t ab, fly_dtype_t d, std::string row) {
  Problem p(s, ab, d);
  fly_handle_t h = nullptr;
  if (!p.ok || fly_create(&h) != FLY_STATUS_SUCCESS) {
    fail_row(state, row, p.ok ? fly_last_error() : "allocation failed");
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
    fail_row(state, row, fly_last_error());
  } else {
    bool failed = false;
    GpuTimer timer(stream);
    const Times t = measure(p, stream, timer, 50, [&](int i) {
      args.a = p.a[size_t(i)]; args.b = p.b[size_t(i)]; args.d = p.dd[size_t(i)];
      failed = failed || fly_gemm(h, &args, nullptr, 0, stream) != FLY_STATUS_SUCCESS;
    });
    // set 0 once more, then its D against the reference
    args.a = p.a[0]; args.b = p.b[0]; args.d = p.dd[0];
    failed = failed || fly_gemm(h, &args, nullptr, 0, stream) != FLY_STATUS_SUCCESS;
    if (failed) {
      fail_row(state, row, fly_last_error());
    } else if (t.gpu < 0 || t.batch < 0 || t.call < 0) {
      fail_row(state, row, "a timing failed (a CUDA error, or the stream hold gave up)");
    } else {
      const GemmReference ref(p, stream);
      double norm = 0;
      if (const std::string wrong = ref.verify(p.dd[0], stream, &norm); !wrong.empty()) {
        fail_row(state, row, std::string(why) + ": " + wrong);
      } else {
        report(state, p, t, why, norm);
      }
    }
  }
  cudaStreamDestroy(stream);
  fly_destroy(h);
}

// cuBLASLt on the same problem, the fastest of its heuristic's algorithms on the GPU.
void bench_cublaslt(benchmark::State& state, Shape s, fly_dtype_t ab, fly_dtype_t d, bool fast_accum, std::string row) {
  Problem p(s, ab, d);
  if (!p.ok) {
    fail_row(state, row, "allocation failed");
    return;
  }
  const LtMatmul lt(s.m, s.n, s.k, ab, d, fast_accum);
  cublasStatus_t last = CUBLAS_STATUS_SUCCESS;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  GpuTimer timer(stream);
  int best = -1;
  double best_gpu = 0;
  bool failed = false;
  auto run = [&](int a) {
    return [&, a](int i) {
      if (failed) return;
      last = lt.run(a, p.a[size_t(i)], p.b[size_t(i)], p.dd[size_t(i)], stream);
      failed = last != CUBLAS_STATUS_SUCCESS;
    };
  };
  for (int a = 0; a < lt.found; ++a) {  // the fastest on the GPU, then its three times
    failed = false;
    const double t = gpu_seconds(p, timer, 20, run(a));
    if (!failed && t > 0 && (best < 0 || t < best_gpu)) {
      best = a;
      best_gpu = t;
    }
  }
  failed = false;
  const Times t = best < 0 ? Times{-1, -1, -1} : measure(p, stream, timer, 20, run(best));
  if (best >= 0 && !failed) run(best)(0);  // set 0 once more for the check
  if (best < 0 || failed || t.gpu < 0 || t.batch < 0 || t.call < 0) {
    fail_row(state, row, "cuBLASLt: heuristic status " + std::to_string(int(lt.heuristic)) + ", " + std::to_string(lt.found) +
                             " algorithms, last matmul status " + std::to_string(int(last)));
  } else {
    const GemmReference ref(p, stream);
    double norm = 0;
    if (const std::string wrong = ref.verify(p.dd[0], stream, &norm); !wrong.empty()) {
      fail_row(state, row, "cuBLASLt: " + wrong);
    } else {
      report(state, p, t, std::string("cuBLASLt") + (fast_accum ? " fast accumulation" : "") + ", best of " +
                              std::to_string(lt.found) + " heuristics", norm);
    }
  }
  cudaStreamDestroy(stream);
}

// The floor of a streaming-bound row (decode shapes): a plain read of the same A and B copies the
// GEMM rows rotate through (read_ceiling.cuh), timed by the same three clocks; no D, no arithmetic.
// The row's TB/s and of_hbm count A and B only, its us is the time any kernel needs to stream them.
void bench_plain_read(benchmark::State& state, Shape s, fly_dtype_t ab, fly_dtype_t d, std::string row) {
  Problem p(s, ab, d);
  if (!p.ok || !fly::bench::read_ceiling_measured()) {
    fail_row(state, row, p.ok ? "the read-streaming ceiling could not be measured" : "allocation failed");
    return;
  }
  const size_t esize = ab == FLY_DTYPE_F32 ? 4 : 1;
  const size_t a_bytes = size_t(s.m * s.k) * esize, b_bytes = size_t(s.n * s.k) * esize;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  GpuTimer timer(stream);
  const Times t = measure(p, stream, timer, 50, [&](int i) {
    fly::bench::enqueue_plain_read(p.a[size_t(i)], a_bytes, p.b[size_t(i)], b_bytes, stream);
  });
  if (t.gpu < 0 || t.batch < 0 || t.call < 0 || cudaGetLastError() != cudaSuccess) {
    fail_row(state, row, "a timing failed (a CUDA error, or the stream hold gave up)");
  } else {
    report_times(state, t, double(a_bytes + b_bytes));
    state.SetLabel("plain read of A and B");
  }
  cudaStreamDestroy(stream);
}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// fly and its peers (cuBLASLt, and for fp8 its fast-accumulation mode) side by side for one problem.
void register_rows(Shape s, fly_dtype_t ab, fly_dtype_t d, const char* type_name, std::vector<std::string>* names) {
  const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  const std::string base = "gemm/" + std::string(type_name) + "/" + shape;
  benchmark::RegisterBenchmark((base + "/fly").c_str(), bench_fly, s, ab, d, base + "/fly")
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
  for (bool fast : {false, true}) {
    if (fast && ab == FLY_DTYPE_F32) continue;  // fast accumulation is an fp8 mode
    const std::string row = base + (fast ? "/cublaslt_fastaccum" : "/cublaslt");
    benchmark::RegisterBenchmark(row.c_str(), bench_cublaslt, s, ab, d, fast, row)
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
  if (s.m <= 128 && s.n * s.k >= (int64_t{1} << 24)) {  // decode shapes: the streaming floor beside them
    benchmark::RegisterBenchmark((base + "/read").c_str(), bench_plain_read, s, ab, d, base + "/read")
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
  if (names != nullptr) names->push_back(base);
}

// Registered at start-up when a GPU is present.
const int registered = [] {
  if (!have_gpu()) return 0;
  for (Shape const& s : fly::bench::kBenchShapes) register_rows(s, FLY_DTYPE_E4M3FN, FLY_DTYPE_BF16, "e4m3_bf16", nullptr);
  for (Shape const& s : fly::bench::kFp8BenchShapes) register_rows(s, FLY_DTYPE_E4M3FN, FLY_DTYPE_BF16, "e4m3_bf16", nullptr);
  for (Shape const& s : fly::bench::kBenchShapes)
    if (!fly::bench::skip_shape(FLY_DTYPE_F32, s)) register_rows(s, FLY_DTYPE_F32, FLY_DTYPE_F32, "f32_f32", nullptr);
  for (Shape const& s : fly::bench::kF32OddKBenchShapes) register_rows(s, FLY_DTYPE_F32, FLY_DTYPE_F32, "f32_f32", nullptr);
  return 1;
}();

}  // namespace

namespace fly::bench {

// fly_bench --op ... on the GPU (bench_cli.hpp).
bool register_cuda_cli_rows(const CliRequest& r, std::vector<std::string>* names) {
  if (!have_gpu()) return false;
  if (r.op == "gemm") {
    const bool fp8 = r.gemm_dtype == FLY_DTYPE_E4M3FN;
    register_rows({r.m, r.n, r.k}, r.gemm_dtype, fp8 ? FLY_DTYPE_BF16 : FLY_DTYPE_F32, fp8 ? "e4m3_bf16" : "f32_f32",
                  names);
    return true;
  }
  return register_cuda_pa_decode_row(r, names);
}

}  // namespace fly::bench
