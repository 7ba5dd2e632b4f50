// What every GPU test needs: whether a CUDA device is present (a test without one skips, and CTest
// reports it skipped), and an assertion that names the failing CUDA call.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace fly_test {
inline bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
}  // namespace fly_test

#define FLY_SKIP_WITHOUT_GPU()  \
  if (!fly_test::have_gpu())    \
  GTEST_SKIP() << "no CUDA device on this machine: run on a GPU machine (tools/h200_check.sh)"

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())
