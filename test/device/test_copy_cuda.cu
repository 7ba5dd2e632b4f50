// Copy atoms on sm_90a: cp.async (4, 8, 16 bytes) global -> shared through a tiled copy, then
// universal copies shared -> registers -> global. The output must equal the input exactly.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "common/cuda_test.hpp"
#include "fly/arch/copy_sm90.hpp"
#include "fly/tiled.hpp"

namespace {
using namespace fly;

constexpr int kRows = 32, kCols = 64;  // floats; 128 threads

template <class CpOp>
__global__ void __launch_bounds__(128) roundtrip_kernel(float const* in, float* out) {
  __shared__ alignas(16) float smem[kRows * kCols];
  auto layout = make_layout(make_shape(Int<kRows>{}, Int<kCols>{}), make_stride(Int<kCols>{}, _1{}));
  auto g_in = make_tensor(in, layout);
  auto s = make_tensor(smem, layout);
  auto g_out = make_tensor(out, layout);
  constexpr int vec = CpOp::bits / 32;
  auto tc = make_tiled_copy(Copy_Atom<CpOp, float>{}, make_layout(make_shape(_8{}, _16{}), make_stride(_16{}, _1{})),
                            make_layout(make_shape(_1{}, Int<vec>{})));
  auto thr = tc.get_slice(int(threadIdx.x));
  copy(tc, thr.partition_S(g_in), thr.partition_D(s));
  cp_async_wait_all();
  __syncthreads();
  // read back a different thread's part, so the copy must have landed in shared memory
  auto other = tc.get_slice(int((threadIdx.x + 37) % 128));
  auto frag = make_fragment_like(other.partition_S(s));
  copy(Copy_Atom<UniversalCopy32b, float>{}, other.partition_S(s), frag);
  copy(Copy_Atom<UniversalCopy32b, float>{}, frag, other.partition_D(g_out));
}

template <class CpOp>
void roundtrip() {
  FLY_SKIP_WITHOUT_GPU();
  std::mt19937 rng(CpOp::bits);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> in(kRows * kCols), out(kRows * kCols);
  for (auto& x : in) x = dist(rng);
  float *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_in, in.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_out, out.size() * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out, 0xFF, out.size() * sizeof(float)));  // NaN poison
  roundtrip_kernel<CpOp><<<1, 128>>>(d_in, d_out);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_out));
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i]) << "element " << i;
}

TEST(CopyCuda, CpAsync32b) { roundtrip<CpAsync32b>(); }
TEST(CopyCuda, CpAsync64b) { roundtrip<CpAsync64b>(); }
TEST(CopyCuda, CpAsync128b) { roundtrip<CpAsync128b>(); }
}  // namespace
