// The GPU side of fly_bench's GEMM runs: device buffers for a problem (rotated over several copies
// when one set fits in the 60 MB L2) and CUDA-event timing. Shared by the rows beside cuBLASLt
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

// Device buffers for `sets` copies of one problem, filled with random representable values.
struct Problem {
  Shape s;
  fly_dtype_t ab, d;
  int sets = 1;
  std::vector<void*> a, b, dd;
  float* scales = nullptr;
  bool ok = true;

  Problem(Shape shape, fly_dtype_t ab_type, fly_dtype_t d_type) : s(shape), ab(ab_type), d(d_type) {
    const int64_t esize = ab == FLY_DTYPE_F32 ? 4 : 1, dsize = d == FLY_DTYPE_F32 ? 4 : 2;
    const int64_t bytes = (s.m * s.k + s.n * s.k) * esize + s.m * s.n * dsize;
    sets = bytes < (120ll << 20) ? int(std::min<int64_t>(8, (240ll << 20) / std::max<int64_t>(bytes, 1))) : 1;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    auto fill = [&](int64_t n) {
      std::vector<unsigned char> host(size_t(n * esize));
      for (int64_t i = 0; i < n; ++i) {
        float v = dist(rng);
        if (ab == FLY_DTYPE_F32) {
          std::memcpy(&host[size_t(i * 4)], &v, 4);
        } else {
          host[size_t(i)] = fly::float8_e4m3fn(v).bits();
        }
      }
      void* dev = nullptr;
      ok = ok && check(cudaMalloc(&dev, host.size()), "cudaMalloc") &&
           check(cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
      return dev;
    };
    for (int i = 0; i < sets && ok; ++i) {
      a.push_back(fill(s.m * s.k));
      b.push_back(fill(s.n * s.k));
      void* out = nullptr;
      ok = ok && check(cudaMalloc(&out, size_t(s.m * s.n * dsize)), "cudaMalloc");
      dd.push_back(out);
    }
    const float host_scales[2] = {1.f, 1.f};
    ok = ok && check(cudaMalloc(&scales, sizeof(host_scales)), "cudaMalloc") &&
         check(cudaMemcpy(scales, host_scales, sizeof(host_scales), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~Problem() {
    for (auto* p : a) cudaFree(p);
    for (auto* p : b) cudaFree(p);
    for (auto* p : dd) cudaFree(p);
    cudaFree(scales);
  }
  double flops() const { return 2.0 * double(s.m) * double(s.n) * double(s.k); }
  double bytes() const {
    const double esize = ab == FLY_DTYPE_F32 ? 4 : 1, dsize = d == FLY_DTYPE_F32 ? 4 : 2;
    return (double(s.m) * double(s.k) + double(s.n) * double(s.k)) * esize + double(s.m) * double(s.n) * dsize;
  }
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
