// The layout algebra inside a CUDA kernel: every value computed on the device equals the host's.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <vector>

#include "common/cuda_test.hpp"
#include "layout_cases.hpp"

namespace {

__global__ void eval_static_kernel(int* out) { fly_test::eval_cases(out, int(threadIdx.x), int(blockDim.x)); }

__global__ void eval_dynamic_kernel(int* out, int rows, int cols) {
  int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < rows * cols) out[i] = fly_test::eval_dynamic(rows, cols, i);
}

constexpr int kPoison = -0x5A5A5A5A;

TEST(LayoutCuda, StaticLayoutsMatchHost) {
  FLY_SKIP_WITHOUT_GPU();
  const int n = fly_test::device_case_values();
  std::vector<int> expect(n, kPoison), got(n, kPoison);
  fly_test::eval_cases(expect.data(), 0, 1);
  int* d = nullptr;
  CUDA_OK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_OK(cudaMemcpy(d, got.data(), n * sizeof(int), cudaMemcpyHostToDevice));  // poisoned
  eval_static_kernel<<<1, 128>>>(d);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(got.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d));
  for (int i = 0; i < n; ++i) {
    ASSERT_NE(got[i], kPoison) << "value " << i << " never written";
    ASSERT_EQ(got[i], expect[i]) << "value " << i;
  }
}

TEST(LayoutCuda, DynamicLayoutMatchesHost) {
  FLY_SKIP_WITHOUT_GPU();
  for (auto [rows, cols] : {std::pair{6, 12}, std::pair{2, 4}, std::pair{10, 40}}) {
    const int n = rows * cols;
    std::vector<int> got(n, kPoison);
    int* d = nullptr;
    CUDA_OK(cudaMalloc(&d, n * sizeof(int)));
    CUDA_OK(cudaMemcpy(d, got.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    eval_dynamic_kernel<<<(n + 127) / 128, 128>>>(d, rows, cols);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(got.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(d));
    std::vector<bool> seen(n, false);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], fly_test::eval_dynamic(rows, cols, i)) << rows << "x" << cols << " value " << i;
      seen.at(got[i]) = true;  // a tiling of a compact layout is a bijection
    }
    for (int i = 0; i < n; ++i) EXPECT_TRUE(seen[i]) << "offset " << i << " missed";
  }
}

}  // namespace
