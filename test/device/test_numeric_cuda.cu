// fly::half's and fly::bfloat16's device conversions (the hardware cvt.rn.f16.f32, cvt.rn.bf16.f32
// and cvt.f32.f16) against the software ones that the host uses and test/atom/test_numeric.cpp
// checks: every one of the 2^32 float bit patterns must give the same 16 bits (rounding, ties,
// subnormals, overflow, infinities, NaN), and every one of the 2^16 half patterns the same float
// bits. fly::pack2 (the paired hardware conversion of the GEMM epilogues) must give each half what
// the scalar conversion gives, but any NaN for a NaN.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "common/cuda_test.hpp"
#include "fly/numeric/half.hpp"
#include "fly/numeric/bfloat16.hpp"
#include "fly/numeric/pack2.hpp"

namespace {

// The host's rule, spelled out here so the device cannot take the hardware path for it.
__device__ uint16_t software_half(float x) {
  const uint32_t u = __float_as_uint(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t(((u >> 16) & 0x8000u) | 0x7E00u | ((u >> 13) & 0x3FFu));
  return uint16_t(fly::detail::minifloat_encode<fly::detail::binary16_format>(x));
}

__device__ uint16_t software_bfloat16(float x) {
  const uint32_t u = __float_as_uint(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((u >> 16) | 0x0040u);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// What each float pattern must satisfy: the device's conversion gives the software's bits.
struct HalfMatches {
  __device__ bool operator()(float x) const { return fly::half(x).bits() == software_half(x); }
};
struct BfloatMatches {
  __device__ bool operator()(float x) const { return fly::bfloat16(x).bits() == software_bfloat16(x); }
};
// pack2<T>(x, y), y a scrambled other pattern: x's bits in the low half, y's in the high, each
// what T(float) gives, or for a NaN input any NaN of T.
template <class T>
struct Pack2Matches {
  __device__ static bool same(uint16_t got, float v) { return v != v ? T::from_bits(got).is_nan() : got == T(v).bits(); }
  __device__ bool operator()(float x) const {
    const float y = __uint_as_float(__brev(__float_as_uint(x)) ^ 0x80000001u);
    const uint32_t packed = fly::pack2<T>(x, y);
    return same(uint16_t(packed & 0xFFFFu), x) && same(uint16_t(packed >> 16), y);
  }
};

// Every float pattern, grid-stride; counts those `matches` refuses and keeps the smallest.
template <class Matches>
__global__ void compare_all(Matches matches, unsigned long long* mismatches, unsigned* first) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (uint64_t(1) << 32); i += stride) {
    if (!matches(__uint_as_float(uint32_t(i)))) {
      ++bad;
      atomicMin(first, uint32_t(i));
    }
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

// The host's decoder, spelled out likewise; every half pattern, one a thread.
__device__ uint32_t software_float_bits(uint16_t h) {
  if ((h & 0x7FFFu) > 0x7C00u) return (uint32_t(h >> 15) << 31) | 0x7FC00000u | (uint32_t(h & 0x3FFu) << 13);
  return __float_as_uint(fly::detail::minifloat_decode<fly::detail::binary16_format>(h));
}

__global__ void compare_all_halves(unsigned long long* mismatches, unsigned* first) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << 16)) return;
  const uint16_t h = uint16_t(i);
  if (__float_as_uint(float(fly::half::from_bits(h))) != software_float_bits(h)) {
    atomicAdd(mismatches, 1ull);
    atomicMin(first, i);
  }
}

// Runs `launch(mismatches, first)` on zeroed counters; returns (mismatches, smallest mismatching pattern).
template <class Launch>
std::pair<unsigned long long, unsigned> mismatches(Launch launch) {
  unsigned long long* d_bad = nullptr;
  unsigned* d_first = nullptr;
  unsigned long long bad = ~0ull;
  unsigned first = 0;
  if (cudaMalloc(&d_bad, sizeof(*d_bad)) == cudaSuccess && cudaMalloc(&d_first, sizeof(*d_first)) == cudaSuccess &&
      cudaMemset(d_bad, 0, sizeof(*d_bad)) == cudaSuccess && cudaMemset(d_first, 0xFF, sizeof(*d_first)) == cudaSuccess) {
    launch(d_bad, d_first);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(&bad, d_bad, sizeof(bad), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(&first, d_first, sizeof(first), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  cudaFree(d_bad);
  cudaFree(d_first);
  return {bad, first};
}

TEST(NumericCuda, HalfToFloatMatchesTheSoftwareDecoderForEveryHalf) {
  FLY_SKIP_WITHOUT_GPU();
  const auto [bad, first] = mismatches([](unsigned long long* b, unsigned* f) { compare_all_halves<<<256, 256>>>(b, f); });
  EXPECT_EQ(bad, 0u) << "first mismatching half bits 0x" << std::hex << first;
}

TEST(NumericCuda, HalfFromFloatMatchesTheSoftwareEncoderForEveryFloat) {
  FLY_SKIP_WITHOUT_GPU();
  const auto [bad, first] = mismatches([](unsigned long long* b, unsigned* f) { compare_all<<<1024, 256>>>(HalfMatches{}, b, f); });
  EXPECT_EQ(bad, 0u) << "first mismatching float bits 0x" << std::hex << first;
}

TEST(NumericCuda, BfloatFromFloatMatchesTheSoftwareEncoderForEveryFloat) {
  FLY_SKIP_WITHOUT_GPU();
  const auto [bad, first] = mismatches([](unsigned long long* b, unsigned* f) { compare_all<<<1024, 256>>>(BfloatMatches{}, b, f); });
  EXPECT_EQ(bad, 0u) << "first mismatching float bits 0x" << std::hex << first;
}

TEST(NumericCuda, PairedConversionsMatchTheScalarOnesForEveryFloat) {
  FLY_SKIP_WITHOUT_GPU();
  const auto [bf16, first_bf16] =
      mismatches([](unsigned long long* b, unsigned* f) { compare_all<<<1024, 256>>>(Pack2Matches<fly::bfloat16>{}, b, f); });
  EXPECT_EQ(bf16, 0u) << "bfloat16: first mismatching float bits 0x" << std::hex << first_bf16;
  const auto [f16, first_f16] =
      mismatches([](unsigned long long* b, unsigned* f) { compare_all<<<1024, 256>>>(Pack2Matches<fly::half>{}, b, f); });
  EXPECT_EQ(f16, 0u) << "half: first mismatching float bits 0x" << std::hex << first_f16;
}

}  // namespace
