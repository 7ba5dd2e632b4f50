// The GPU side of fly_bench's GEMM runs: device buffers for a problem (rotated over copies that
// together span twice the 60 MB L2) and CUDA-event timing. Shared by the rows beside cuBLASLt
// (bench_gemm_cuda.cu) and the tuning mode (bench_gemm_tune.cu). Three clocks: GPU time of one
// call (the bench's and the tuner's figure), per call of a back-to-back batch, and per call with
// the host's enqueue cost.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"
#include "gemm_shapes.hpp"
#include "gpu_timer.cuh"

namespace fly::bench {

inline bool check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "fly_bench: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

// Device buffers for `sets` copies of one problem, filled with random representable values
// (uniform in [-1, 1), rounded to e4m3 for fp8). The copies together span at least four times
// the H200's 60 MB L2 (kRotateBytes, 240 MiB), so every call reads its inputs from HBM however
// small the problem: copies are carved from one allocation per operand, filled from one host set.
inline constexpr int64_t kRotateBytes = 240ll << 20;

struct Problem {
  Shape s;
  fly_dtype_t ab, d;
  int sets = 1;
  std::vector<void*> a, b, dd;
  float* scales = nullptr;
  bool ok = true;

  Problem(Shape shape, fly_dtype_t ab_type, fly_dtype_t d_type) : s(shape), ab(ab_type), d(d_type) {
    const int64_t esize = ab == FLY_DTYPE_F32 ? 4 : 1, dsize = d == FLY_DTYPE_F32 ? 4 : 2;
    auto padded = [](int64_t bytes) { return (bytes + 255) / 256 * 256; };  // every copy 256-byte aligned
    const int64_t a_bytes = padded(s.m * s.k * esize), b_bytes = padded(s.n * s.k * esize), d_bytes = padded(s.m * s.n * dsize);
    const int64_t set_bytes = a_bytes + b_bytes + d_bytes;
    sets = int(std::max<int64_t>(1, (kRotateBytes + set_bytes - 1) / set_bytes));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    auto host_operand = [&](int64_t n) {
      std::vector<unsigned char> host(size_t(n * esize));
      for (int64_t i = 0; i < n; ++i) {
        float v = dist(rng);
        if (ab == FLY_DTYPE_F32) {
          std::memcpy(&host[size_t(i * 4)], &v, 4);
        } else {
          host[size_t(i)] = fly::float8_e4m3fn(v).bits();
        }
      }
      return host;
    };
    // one arena per operand; copy i of it at i * bytes, all holding the same host values
    auto arena = [&](void** base, int64_t bytes, const std::vector<unsigned char>* host, std::vector<void*>& copies) {
      ok = ok && check(cudaMalloc(base, size_t(bytes * sets)), "cudaMalloc");
      for (int i = 0; i < sets && ok; ++i) {
        void* copy = static_cast<unsigned char*>(*base) + int64_t(i) * bytes;
        if (host != nullptr) ok = check(cudaMemcpy(copy, host->data(), host->size(), cudaMemcpyHostToDevice), "cudaMemcpy");
        copies.push_back(copy);
      }
    };
    const std::vector<unsigned char> host_a = host_operand(s.m * s.k), host_b = host_operand(s.n * s.k);
    arena(&arena_a, a_bytes, &host_a, a);
    arena(&arena_b, b_bytes, &host_b, b);
    arena(&arena_d, d_bytes, nullptr, dd);
    const float host_scales[2] = {1.f, 1.f};
    ok = ok && check(cudaMalloc(&scales, sizeof(host_scales)), "cudaMalloc") &&
         check(cudaMemcpy(scales, host_scales, sizeof(host_scales), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~Problem() {
    for (void* p : {arena_a, arena_b, arena_d}) cudaFree(p);
    cudaFree(scales);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
  double flops() const { return 2.0 * double(s.m) * double(s.n) * double(s.k); }
  double bytes() const {
    const double esize = ab == FLY_DTYPE_F32 ? 4 : 1, dsize = d == FLY_DTYPE_F32 ? 4 : 2;
    return (double(s.m) * double(s.k) + double(s.n) * double(s.k)) * esize + double(s.m) * double(s.n) * dsize;
  }

 private:
  void *arena_a = nullptr, *arena_b = nullptr, *arena_d = nullptr;
};

// The median of `reps` values of `sample()` that succeeded (non-negative), in seconds from
// milliseconds; negative when none did.
template <class Sample>
double median_ms_as_seconds(int reps, Sample sample) {
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    const float t = sample(i);
    if (t >= 0) ms.push_back(t);
  }
  if (ms.empty()) return -1.0;
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return double(ms[ms.size() / 2]) * 1e-3;
}

// GPU time of one `call(set)` (gpu_timer.cuh: the host's enqueue cost is not in it): `warmup`
// untimed calls, then the median of `reps` timed ones, input sets rotated.
template <class Call>
double gpu_seconds(Problem& p, GpuTimer& timer, int reps, Call call, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) call(i % p.sets);
  return median_ms_as_seconds(reps, [&](int i) { return timer.measure([&] { call(i % p.sets); }); });
}

// GPU time per call of `calls` calls back to back, input sets rotated (median of 3): what a
// replayed graph of such calls takes per call, launch gaps included.
template <class Call>
double batch_seconds(Problem& p, GpuTimer& timer, int calls, Call call) {
  const double batch = median_ms_as_seconds(3, [&](int) {
    return timer.measure([&] {
      for (int i = 0; i < calls; ++i) call(i % p.sets);
    });
  });
  return batch < 0 ? batch : batch / calls;
}

// Events around each call on an idle stream (median of `reps`): the host's enqueue cost (launch
// latency, a library's host path) is in it, as it is for an engine launching eagerly.
template <class Call>
double call_seconds(Problem& p, cudaStream_t stream, int reps, Call call) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const double t = median_ms_as_seconds(reps, [&](int i) {
    cudaEventRecord(start, stream);
    call(i % p.sets);
    cudaEventRecord(stop, stream);
    float ms = -1.f;
    if (cudaEventSynchronize(stop) != cudaSuccess || cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) return -1.f;
    return ms;
  });
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return t;
}

}  // namespace fly::bench
