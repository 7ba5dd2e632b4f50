// The accuracy of every sm_90a fp8 GEMM variant on random data, measured the way an engine feels
// it: the normwise relative error ||D - ref|| / ||ref|| against a float64 reference, beside
// cuBLASLt's on the same inputs and output type (its default mode, which promotes the tensor cores'
// partial sums to fp32). Hopper's fp8 tensor cores keep fewer bits than fp32 in their accumulator,
// so a variant that lets one accumulator run over all of K loses accuracy as K grows (1e-3 and
// more at K = 4096 with an f32 D, where cuBLASLt stays near 1.3e-4); fly's variants promote every
// 128 of K (src/kernels/gemm). Each variant must stay within 1.5x cuBLASLt's error at K = 1024,
// 8192 and 16384, on a shape with tails in M and N.
//
// The inputs are normal samples rounded to e4m3 (the exact-value tests of
// test_gemm_variants_cuda.cu cannot see accumulation error: their partial sums are all exact). The
// reference decodes the same bytes with CUDA's own fp8 conversion and sums in double on the GPU.
#include <gtest/gtest.h>

#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cublaslt_gemm.cuh"
#include "common/cuda_test.hpp"
#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"
#include "gemm/gemm_registry.hpp"

namespace {
using fly::dispatch::GemmProblem;
using fly::dispatch::GemmVariant;

__device__ double e4m3_to_double(unsigned char bits) {
  return double(__half2float(__half(__nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(bits), __NV_E4M3))));
}

// ref[i, j] = sum_k A[i, k] B[j, k] in double, one thread per element (A [m, k], B [n, k] packed).
__global__ void reference_f64(const unsigned char* a, const unsigned char* b, int64_t m, int64_t n, int64_t k,
                              double* ref) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, i = int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  double acc = 0;
  for (int64_t kk = 0; kk < k; ++kk) acc += e4m3_to_double(a[i * k + kk]) * e4m3_to_double(b[j * k + kk]);
  ref[i * n + j] = acc;
}

double to_double(const std::vector<unsigned char>& d, fly_dtype_t type, int64_t i) {
  if (type == FLY_DTYPE_F32) {
    float v;
    std::memcpy(&v, &d[size_t(i) * 4], 4);
    return v;
  }
  uint16_t bits;
  std::memcpy(&bits, &d[size_t(i) * 2], 2);
  return type == FLY_DTYPE_BF16 ? double(float(fly::bfloat16::from_bits(bits))) : double(float(fly::half::from_bits(bits)));
}

// CUDA_OK for places that cannot return early (constructors, functions returning a value).
#define CUDA_EXPECT(call) EXPECT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

// One random problem on the device with its float64 reference, and D buffers to judge.
struct Fp8Problem {
  int64_t m, n, k;
  unsigned char *a = nullptr, *b = nullptr;
  void* d = nullptr;  // room for an f32 D
  std::vector<double> ref;
  double ref_norm2 = 0;

  Fp8Problem(int64_t m_, int64_t n_, int64_t k_, unsigned seed) : m(m_), n(n_), k(k_), ref(size_t(m_ * n_)) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.f, 1.f);
    std::vector<unsigned char> ha(size_t(m * k)), hb(size_t(n * k));
    for (auto& x : ha) x = fly::float8_e4m3fn(normal(rng)).bits();
    for (auto& x : hb) x = fly::float8_e4m3fn(normal(rng)).bits();
    double* dref = nullptr;
    CUDA_EXPECT(cudaMalloc(&a, ha.size()));
    CUDA_EXPECT(cudaMalloc(&b, hb.size()));
    CUDA_EXPECT(cudaMalloc(&d, size_t(m * n * 4)));
    CUDA_EXPECT(cudaMalloc(&dref, ref.size() * sizeof(double)));
    CUDA_EXPECT(cudaMemcpy(a, ha.data(), ha.size(), cudaMemcpyHostToDevice));
    CUDA_EXPECT(cudaMemcpy(b, hb.data(), hb.size(), cudaMemcpyHostToDevice));
    reference_f64<<<dim3(unsigned((n + 31) / 32), unsigned((m + 7) / 8)), dim3(32, 8)>>>(a, b, m, n, k, dref);
    CUDA_EXPECT(cudaGetLastError());
    CUDA_EXPECT(cudaMemcpy(ref.data(), dref, ref.size() * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_EXPECT(cudaFree(dref));
    for (double r : ref) ref_norm2 += r * r;
  }
  ~Fp8Problem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
  }
  Fp8Problem(const Fp8Problem&) = delete;
  Fp8Problem& operator=(const Fp8Problem&) = delete;

  void poison_d() { CUDA_EXPECT(cudaMemset(d, 0xFF, size_t(m * n * 4))); }  // NaN in every output type

  // ||D - ref|| / ||ref|| of the D on the device (NaN if any element is NaN: unwritten or wrong).
  double normwise_error(fly_dtype_t type) const {
    std::vector<unsigned char> host(size_t(m * n * fly::dispatch::dtype_bytes(type)));
    CUDA_EXPECT(cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost));
    double err2 = 0;
    for (int64_t i = 0; i < m * n; ++i) {
      const double e = to_double(host, type, i) - ref[size_t(i)];
      err2 += e * e;
    }
    return std::sqrt(err2 / ref_norm2);
  }
};

TEST(GemmFp8AccuracyCuda, EveryVariantIsWithinOneAndAHalfTimesCublasLtError) {
  FLY_SKIP_WITHOUT_GPU();
  std::vector<GemmVariant> fp8;
  for (const auto& v : fly::dispatch::gemm_variants())
    if (v.target == fly::dispatch::Target::sm90a && v.ab_type == FLY_DTYPE_E4M3FN) fp8.push_back(v);
  ASSERT_GT(fp8.size(), 0u) << "no sm_90a fp8 variant compiled in";
  // M and N multiples of 16 (cuBLASLt's fp8 kernels want them) but not of the block tiles
  const int64_t m = 208, n = 336;
  const fly_dtype_t d_types[] = {FLY_DTYPE_F32, FLY_DTYPE_BF16, FLY_DTYPE_F16};
  for (int64_t k : {int64_t(1024), int64_t(8192), int64_t(16384)}) {
    if (k > 1024 && fly_test::sanitizer_sweep()) break;
    Fp8Problem prob(m, n, k, unsigned(k));
    double lt_err[3];
    for (int t = 0; t < 3; ++t) {
      const fly_test::LtMatmul lt(m, n, k, FLY_DTYPE_E4M3FN, d_types[t], /*fast_accum=*/false);
      prob.poison_d();
      ASSERT_EQ(lt.run_any(prob.a, prob.b, prob.d, nullptr), CUBLAS_STATUS_SUCCESS)
          << "cuBLASLt (heuristic status " << int(lt.heuristic) << ", " << lt.found << " algorithms)";
      CUDA_OK(cudaDeviceSynchronize());
      lt_err[t] = prob.normwise_error(d_types[t]);
      ASSERT_TRUE(std::isfinite(lt_err[t]));
      std::printf("K = %lld cublaslt -> %s: normwise error %.3e\n", (long long)k, fly_dtype_string(d_types[t]), lt_err[t]);
    }
    for (const auto& v : fp8) {
      const int t = v.d_type == FLY_DTYPE_F32 ? 0 : v.d_type == FLY_DTYPE_BF16 ? 1 : 2;
      SCOPED_TRACE(std::string(v.name) + " K = " + std::to_string(k));
      const GemmProblem p{m, n, k, k, k, n, n, v.ab_type, v.ab_type, v.d_type, v.d_type, 1.f, 0.f,
                          prob.a, prob.b, nullptr, prob.d, nullptr, nullptr};
      prob.poison_d();
      ASSERT_EQ(v.launch(p, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
      CUDA_OK(cudaDeviceSynchronize());
      const double err = prob.normwise_error(v.d_type);
      std::printf("K = %lld %s: normwise error %.3e (%.2fx cublaslt)\n", (long long)k, v.name, err, err / lt_err[t]);
      EXPECT_LE(err, 1.5 * lt_err[t]) << "cuBLASLt's error: " << lt_err[t];  // NaN fails too
    }
  }
}

}  // namespace
