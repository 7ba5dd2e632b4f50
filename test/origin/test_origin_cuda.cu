// The test tiles on sm_90a: the generic tiled kernels (each copy atom) and the raw mma.sync twin of
// the origin case run on the GPU and must match the host's exact result on random fp8 data.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/exact_values.hpp"
#include "common/cuda_test.hpp"
#include "origin_sm90_kernels.cuh"

namespace {
using namespace fly;
using namespace fly_test;

template <class Cfg, class Launch>
void check_on_gpu(unsigned seed, Launch launch) {
  FLY_SKIP_WITHOUT_GPU();
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  for (int round = 0; round < 3; ++round) {  // fresh inputs each round
    std::mt19937 rng(seed * 7919u + unsigned(round));
    auto A = random_exact_operand<TA>(Cfg::M * Cfg::K, rng);
    auto B = random_exact_operand<TB>(Cfg::N * Cfg::K, rng);
    std::vector<float> C(size_t(Cfg::M * Cfg::N));
    TA* dA = nullptr;
    TB* dB = nullptr;
    float* dC = nullptr;
    CUDA_OK(cudaMalloc(&dA, A.size() * sizeof(TA)));
    CUDA_OK(cudaMalloc(&dB, B.size() * sizeof(TB)));
    CUDA_OK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(dA, A.data(), A.size() * sizeof(TA), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, B.data(), B.size() * sizeof(TB), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dC, 0xFF, C.size() * sizeof(float)));  // NaN poison
    launch(dA, dB, dC);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dB));
    CUDA_OK(cudaFree(dC));
    for (int m = 0; m < Cfg::M; ++m)
      for (int n = 0; n < Cfg::N; ++n) {
        double ref = 0;
        for (int k = 0; k < Cfg::K; ++k)
          ref += double(float(A[size_t(m * Cfg::K + k)])) * double(float(B[size_t(n * Cfg::K + k)]));
        ASSERT_EQ(double(C[size_t(m * Cfg::N + n)]), ref) << "C(" << m << "," << n << ") round " << round;
      }
  }
}

template <class Cfg>
void check_generic(unsigned seed) {
  check_on_gpu<Cfg>(seed, [](auto a, auto b, float* c) { tile_kernel<Cfg><<<1, Cfg::threads>>>(a, b, c); });
}

// The origin kernels are the extern "C" ones whose registers test/register_budgets.txt compares.
template <class Cfg, class Kernel>
void check_origin(unsigned seed, Kernel kernel) {
  check_on_gpu<Cfg>(seed, [&](auto a, auto b, float* c) { kernel<<<1, Cfg::threads>>>(a, b, c); });
}
TEST(OriginSm90, UniversalCopy32b) { check_origin<OriginSm90U32>(1, origin_sm90_universal32); }
TEST(OriginSm90, UniversalCopy64b) { check_origin<OriginSm90U64>(2, origin_sm90_universal64); }
TEST(OriginSm90, UniversalCopy128b) { check_origin<OriginSm90U128>(3, origin_sm90_universal128); }
TEST(OriginSm90, RawTwin) {
  check_on_gpu<Sm90Origin<UniversalCopy32b>>(4, [](auto a, auto b, float* c) {
    origin_sm90_twin<<<1, 128>>>(a, b, c);
  });
}
TEST(TilesSm90, Tile64x64x128Warps4) { check_generic<Sm90_64x64x128_w4<UniversalCopy32b>>(5); }
TEST(TilesSm90, Tile64x64x128Warps8) { check_generic<Sm90_64x64x128_w8<UniversalCopy128b>>(6); }
TEST(TilesSm90, Tile128x128x64Warps4) { check_generic<Sm90_128x128x64_w4<UniversalCopy64b>>(7); }
TEST(TilesSm90, Tile128x128x64Warps8) { check_generic<Sm90_128x128x64_w8<UniversalCopy32b>>(8); }
}  // namespace
