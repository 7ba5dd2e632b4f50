// fly::half's device conversion from float (the hardware cvt.rn.f16.f32) against the software
// encoder that the host uses and test/atom/test_numeric.cpp checks: every one of the 2^32 float
// bit patterns must give the same 16 bits (rounding, ties, subnormals, overflow, infinities, NaN).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>

#include "common/cuda_test.hpp"
#include "fly/numeric/half.hpp"

namespace {

// The host's rule, spelled out here so the device cannot take the hardware path for it.
__device__ uint16_t software_half(float x) {
  const uint32_t u = __float_as_uint(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t(((u >> 16) & 0x8000u) | 0x7E00u | ((u >> 13) & 0x3FFu));
  return uint16_t(fly::detail::minifloat_encode<fly::detail::binary16_format>(x));
}

// Every pattern, grid-stride; counts the mismatches and keeps the smallest mismatching pattern.
__global__ void compare_all(unsigned long long* mismatches, unsigned* first) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (uint64_t(1) << 32); i += stride) {
    const float x = __uint_as_float(uint32_t(i));
    if (fly::half(x).bits() != software_half(x)) {
      ++bad;
      atomicMin(first, uint32_t(i));
    }
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

TEST(NumericCuda, HalfFromFloatMatchesTheSoftwareEncoderForEveryFloat) {
  FLY_SKIP_WITHOUT_GPU();
  unsigned long long* d_bad = nullptr;
  unsigned* d_first = nullptr;
  CUDA_OK(cudaMalloc(&d_bad, sizeof(*d_bad)));
  CUDA_OK(cudaMalloc(&d_first, sizeof(*d_first)));
  CUDA_OK(cudaMemset(d_bad, 0, sizeof(*d_bad)));
  CUDA_OK(cudaMemset(d_first, 0xFF, sizeof(*d_first)));
  compare_all<<<1024, 256>>>(d_bad, d_first);
  CUDA_OK(cudaGetLastError());
  unsigned long long bad = 0;
  unsigned first = 0;
  CUDA_OK(cudaMemcpy(&bad, d_bad, sizeof(bad), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(&first, d_first, sizeof(first), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d_bad));
  CUDA_OK(cudaFree(d_first));
  EXPECT_EQ(bad, 0u) << "first mismatching float bits 0x" << std::hex << first;
}

}  // namespace
