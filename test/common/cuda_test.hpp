// What every GPU test needs: whether a CUDA device is present (a test without one skips, and CTest
// reports it skipped; with FLY_REQUIRE_GPU=1 in the environment, as tools/h200_check.sh sets it, a
// missing GPU fails instead), and an assertion that names the failing CUDA call.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace fly_test {
inline bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
inline bool gpu_required() {
  const char* v = std::getenv("FLY_REQUIRE_GPU");
  return v != nullptr && std::strcmp(v, "1") == 0;
}
// FLY_TEST_SANITIZER_SWEEP=1 (tools/h200_check.sh's SANITIZE=1 sets it under compute-sanitizer):
// the per-variant sweeps run every variant on their small cases with edges and tails only, so
// that every kernel runs under each tool within the device's time; the shapes whose point is size
// (K = 8192 and 16384, the 2 GiB and 4 GiB operands) stay in the plain run.
inline bool sanitizer_sweep() {
  const char* v = std::getenv("FLY_TEST_SANITIZER_SWEEP");
  return v != nullptr && std::strcmp(v, "1") == 0;
}
}  // namespace fly_test

#define FLY_SKIP_WITHOUT_GPU()                                                                                \
  if (!fly_test::have_gpu()) {                                                                                \
    if (fly_test::gpu_required()) GTEST_FAIL() << "FLY_REQUIRE_GPU=1 but no CUDA device is usable";          \
    GTEST_SKIP() << "no CUDA device on this machine: run on a GPU machine (tools/h200_check.sh)";           \
  }

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())
