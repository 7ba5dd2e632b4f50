// TMA on sm_90: a 2D box of an fp8-sized matrix copied into shared memory through a tensor map
// (src/dispatch/gemm/tma_desc_cuda.hpp) lands byte for byte where the host model of the 128-byte swizzle
// (kernels::swizzle128_offset) puts it, the part of the box outside the matrix zero-filled, and its
// mbarrier completes; with .multicast::cluster both CTAs of a cluster of two receive the box.
// A wait that never completes ends the kernel with a flag instead of hanging the test.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <random>
#include <vector>

#include "common/cuda_test.hpp"
#include "fly/arch/copy_sm90_tma.hpp"
#include "gemm/tma_desc_cuda.hpp"

namespace {
using namespace fly;

constexpr int kRows = 200, kCols = 300, kLd = 320;  // bytes; ld a multiple of 16
constexpr int kBoxRows = 64, kBoxCols = 128, kBoxBytes = kBoxRows * kBoxCols;
constexpr int kSmemBytes = kBoxBytes + 1024 + 16;  // the box (1024-byte aligned) and its barrier

__device__ bool wait_bounded(uint64_t* bar) {
  for (int i = 0; i < (1 << 22); ++i)
    if (mbarrier::try_wait(bar, 0)) return true;
  return false;
}

// One CTA (or a cluster of `multicast` CTAs): rank 0's thread 0 issues the box at (x, y); every CTA
// writes its shared-memory box to out + rank * kBoxBytes, or sets *timed_out.
__global__ void __launch_bounds__(128) tma_box_kernel(const __grid_constant__ CUtensorMap map, int x, int y,
                                                      int multicast, uint8_t* out, int* timed_out) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t addr = detail::smem_u32(smem_raw);
  uint8_t* box = smem_raw + (1024 - addr % 1024) % 1024;
  auto* bar = reinterpret_cast<uint64_t*>(box + kBoxBytes);
  const uint32_t rank = multicast > 1 ? cluster::block_rank() : 0;
  if (threadIdx.x == 0) {
    mbarrier::init(bar, 1);
    mbarrier::fence_init();
  }
  if (multicast > 1) {
    cluster::sync();  // every CTA's barrier exists before rank 0's copy can land in it
  } else {
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    mbarrier::arrive_expect_tx(bar, kBoxBytes);
    if (multicast > 1 && rank == 0) {
      SM90_TMA_LOAD_2D_MULTICAST::copy(&map, bar, uint16_t((1u << multicast) - 1), box, x, y);
    } else if (multicast <= 1) {
      SM90_TMA_LOAD_2D::copy(&map, bar, box, x, y);
    }
  }
  const bool landed = wait_bounded(bar);
  if (!landed && threadIdx.x == 0) atomicExch(timed_out, 1);
  if (landed)
    for (int i = int(threadIdx.x); i < kBoxBytes; i += int(blockDim.x)) out[rank * kBoxBytes + i] = box[i];
  if (multicast > 1) cluster::sync();  // no CTA leaves while the cluster still works on its memory
}

struct Matrix {
  std::vector<uint8_t> host = std::vector<uint8_t>(size_t(kRows) * kLd);
  uint8_t* dev = nullptr;
};

// Runs the kernel for the box at (x, y) over `ctas` CTAs (a cluster when ctas > 1) and checks every
// byte every CTA received against the host model.
void check_box(int x, int y, int ctas) {
  FLY_SKIP_WITHOUT_GPU();
  std::mt19937 rng(uint32_t(x * 1000 + y + ctas));
  Matrix m;
  for (auto& b : m.host) b = uint8_t(rng() % 255 + 1);  // never zero: a zero-fill is visible
  CUDA_OK(cudaMalloc(&m.dev, m.host.size()));
  CUDA_OK(cudaMemcpy(m.dev, m.host.data(), m.host.size(), cudaMemcpyHostToDevice));
  CUtensorMap map;
  ASSERT_EQ(kernels::make_tma_desc_2d(&map, {m.dev, kRows, kCols, kLd, kBoxRows, kBoxCols}), FLY_STATUS_SUCCESS)
      << fly_last_error();
  uint8_t* out = nullptr;
  int* timed_out = nullptr;
  CUDA_OK(cudaMalloc(&out, size_t(ctas) * kBoxBytes));
  CUDA_OK(cudaMemset(out, 0xEE, size_t(ctas) * kBoxBytes));
  CUDA_OK(cudaMalloc(&timed_out, sizeof(int)));
  CUDA_OK(cudaMemset(timed_out, 0, sizeof(int)));
  CUDA_OK(cudaFuncSetAttribute(tma_box_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned(ctas));
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = kSmemBytes;
  cudaLaunchAttribute cluster_dims;
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim.x = unsigned(ctas);
  cluster_dims.val.clusterDim.y = 1;
  cluster_dims.val.clusterDim.z = 1;
  config.attrs = &cluster_dims;
  config.numAttrs = ctas > 1 ? 1 : 0;
  CUDA_OK(cudaLaunchKernelEx(&config, tma_box_kernel, map, x, y, ctas, out, timed_out));
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<uint8_t> got(size_t(ctas) * kBoxBytes);
  int flag = 0;
  CUDA_OK(cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(&flag, timed_out, sizeof(int), cudaMemcpyDeviceToHost));
  for (void* p : {static_cast<void*>(m.dev), static_cast<void*>(out), static_cast<void*>(timed_out)})
    CUDA_OK(cudaFree(p));
  ASSERT_EQ(flag, 0) << "the mbarrier never completed";
  for (int cta = 0; cta < ctas; ++cta)
    for (int r = 0; r < kBoxRows; ++r)
      for (int c = 0; c < kBoxCols; ++c) {
        const int gr = y + r, gc = x + c;
        const uint8_t want = gr < kRows && gc < kCols ? m.host[size_t(gr) * kLd + gc] : 0;
        ASSERT_EQ(got[size_t(cta) * kBoxBytes + size_t(kernels::swizzle128_offset(r, c))], want)
            << "CTA " << cta << ", box byte (" << r << ", " << c << ") of the box at (" << x << ", " << y << ")";
      }
}

TEST(TmaCuda, BoxLandsSwizzled) { check_box(128, 64, 1); }
TEST(TmaCuda, BoxPastTheEdgesIsZeroFilled) { check_box(256, 160, 1); }
TEST(TmaCuda, MulticastReachesBothCtasOfTheCluster) { check_box(0, 96, 2); }

// Rejected before the driver is asked: runs without a GPU too.
TEST(TmaCuda, EncoderRejectsAMisalignedPitch) {
  CUtensorMap map;
  alignas(16) static uint8_t host[64];
  EXPECT_EQ(kernels::make_tma_desc_2d(&map, {host, 2, 16, 24, 2, 16}), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_NE(std::string(fly_last_error()).find("row pitch 24"), std::string::npos) << fly_last_error();
}
}  // namespace
