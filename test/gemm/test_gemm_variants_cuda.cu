// Every sm_90a GEMM variant compiled into libfly, launched directly, against a host reference, in
// two kinds of data: values whose products and sums are exact in fp32 (D must match bit for bit),
// and random full-range values (fp8: normal samples rounded to e4m3; f32: uniform), judged against
// a float64 reference with the worst-case bound of fp32 accumulation over K that the host tests
// use (plus the tensor cores' narrower accumulator for fp8), K = 8192 included. Shapes with tails in M, N and K, leading dimensions above the minimum,
// poisoned D with two guard rows past the last row and padded columns (all must stay poisoned),
// alpha, scales and beta*C.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

// the TMA blocks' barrier waits: a phase that never completes traps instead of hanging the test
#define FLY_MBARRIER_TRAP_AFTER_NS 2000000000ull  // 2 s

#include "common/cuda_test.hpp"
#include "common/exact_values.hpp"
#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"
#include "gemm/gemm_launch_tma_cuda.hpp"
#include "gemm/gemm_registry.hpp"
#include "gemm_wgmma_tma_kernel.hpp"

namespace {
using fly::dispatch::GemmProblem;
using fly::dispatch::GemmVariant;

// Host storage of one element type, filled with exact values, readable as float.
struct Buffer {
  fly_dtype_t type;
  std::vector<unsigned char> bytes;
  int64_t elems;
  Buffer(fly_dtype_t t, int64_t n) : type(t), bytes(size_t(n) * size_t(fly::dispatch::dtype_bytes(t))), elems(n) {}
  float get(int64_t i) const {
    switch (type) {
      case FLY_DTYPE_F32: { float v; std::memcpy(&v, &bytes[size_t(i) * 4], 4); return v; }
      case FLY_DTYPE_BF16: { uint16_t b; std::memcpy(&b, &bytes[size_t(i) * 2], 2); return float(fly::bfloat16::from_bits(b)); }
      case FLY_DTYPE_F16: { uint16_t b; std::memcpy(&b, &bytes[size_t(i) * 2], 2); return float(fly::half::from_bits(b)); }
      case FLY_DTYPE_E4M3FN: return float(fly::float8_e4m3fn::from_bits(bytes[size_t(i)]));
      default: return float(fly::float8_e4m3fnuz::from_bits(bytes[size_t(i)]));
    }
  }
  void set(int64_t i, float v) {
    switch (type) {
      case FLY_DTYPE_F32: std::memcpy(&bytes[size_t(i) * 4], &v, 4); break;
      case FLY_DTYPE_BF16: { uint16_t b = fly::bfloat16(v).bits(); std::memcpy(&bytes[size_t(i) * 2], &b, 2); break; }
      case FLY_DTYPE_F16: { uint16_t b = fly::half(v).bits(); std::memcpy(&bytes[size_t(i) * 2], &b, 2); break; }
      case FLY_DTYPE_E4M3FN: bytes[size_t(i)] = fly::float8_e4m3fn(v).bits(); break;
      default: bytes[size_t(i)] = fly::float8_e4m3fnuz(v).bits(); break;
    }
  }
};

enum class Data { exact, random };

// The relative rounding error of one conversion to `t` (round to nearest even).
double unit_roundoff(fly_dtype_t t) {
  return t == FLY_DTYPE_BF16 ? std::ldexp(1.0, -8) : t == FLY_DTYPE_F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
}

constexpr int64_t kGuardRows = 2;  // rows of D past the last one, poisoned, that must stay so

void run_variant(const GemmVariant& v, int64_t m, int64_t n, int64_t k, unsigned seed, Data data = Data::exact) {
  SCOPED_TRACE(std::string(v.name) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
               (data == Data::exact ? " exact" : " random"));
  std::mt19937 rng(seed);
  const int64_t lda = k + v.align_elems * 2, ldb = k + v.align_elems, ldc = n + 3, ldd = n + 5;
  Buffer A(v.ab_type, m * lda), B(v.ab_type, n * ldb), C(v.d_type, m * ldc), D(v.d_type, (m + kGuardRows) * ldd);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  auto operand = [&] {
    if (data == Data::exact) return fly_test::random_exact_value(rng);
    return v.ab_type == FLY_DTYPE_F32 ? uniform(rng) : normal(rng);  // Buffer::set rounds to e4m3
  };
  for (int64_t i = 0; i < A.elems; ++i) A.set(i, operand());
  for (int64_t i = 0; i < B.elems; ++i) B.set(i, operand());
  for (int64_t i = 0; i < C.elems; ++i) C.set(i, data == Data::exact ? fly_test::random_exact_value(rng) : uniform(rng));
  std::memset(D.bytes.data(), 0xFF, D.bytes.size());  // poison: NaN in f32, bf16 and f16
  const float alpha = 0.5f, beta = 2.f, sa = 2.f, sb = 0.25f;

  void *dA, *dB, *dC, *dD;
  float *dsa, *dsb;
  CUDA_OK(cudaMalloc(&dA, A.bytes.size()));
  CUDA_OK(cudaMalloc(&dB, B.bytes.size()));
  CUDA_OK(cudaMalloc(&dC, C.bytes.size()));
  CUDA_OK(cudaMalloc(&dD, D.bytes.size()));
  CUDA_OK(cudaMalloc(&dsa, sizeof(float)));
  CUDA_OK(cudaMalloc(&dsb, sizeof(float)));
  CUDA_OK(cudaMemcpy(dA, A.bytes.data(), A.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dB, B.bytes.data(), B.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dC, C.bytes.data(), C.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dD, D.bytes.data(), D.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dsa, &sa, sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dsb, &sb, sizeof(float), cudaMemcpyHostToDevice));
  GemmProblem p{m, n, k, lda, ldb, ldc, ldd, v.ab_type, v.ab_type, v.d_type, v.d_type, alpha, beta, dA, dB, dC, dD, dsa, dsb};
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  ASSERT_EQ(v.launch(p, stream), FLY_STATUS_SUCCESS);
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaStreamDestroy(stream));
  CUDA_OK(cudaMemcpy(D.bytes.data(), dD, D.bytes.size(), cudaMemcpyDeviceToHost));
  for (void* ptr : {dA, dB, dC, dD}) CUDA_OK(cudaFree(ptr));
  CUDA_OK(cudaFree(dsa));
  CUDA_OK(cudaFree(dsb));

  Buffer expect(v.d_type, 1);
  const double s = double(alpha) * sa * sb;
  for (int64_t i = 0; i < m + kGuardRows; ++i)
    for (int64_t j = 0; j < ldd; ++j) {
      const float got = D.get(i * ldd + j);
      if (i >= m || j >= n) {
        ASSERT_TRUE(std::isnan(got)) << (i >= m ? "guard row" : "padding") << " D(" << i << "," << j << ") was written";
        continue;
      }
      double acc = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double ab = double(A.get(i * lda + kk)) * double(B.get(j * ldb + kk));
        acc += ab;
        mag += std::fabs(ab);
      }
      const double cterm = double(beta) * C.get(i * ldc + j);
      const double ref = s * acc + cterm;
      if (data == Data::exact) {
        expect.set(0, float(ref));
        ASSERT_EQ(got, expect.get(0)) << "D(" << i << "," << j << ")";
      } else {
        // fp32 accumulation over k products and the epilogue's two operations, then D's rounding.
        // fp8 products are summed by the tensor cores, which keep fewer bits than fp32 inside an
        // MMA chain (measured: 2^-15 of sum |a b| at K = 128, and no more at K = 8192): 2^-12 of
        // sum |a b| more for them. Whether fp8 partial sums are promoted to fp32 (cuBLASLt's
        // accuracy) is test_gemm_fp8_accuracy_cuda.cu's normwise test, not this per-element bound.
        const double tensor_core = v.ab_type == FLY_DTYPE_F32 ? 0.0 : std::ldexp(1.0, -12) * std::fabs(s) * mag;
        const double tol = double(k + 3) * std::ldexp(1.0, -24) * (std::fabs(s) * mag + std::fabs(cterm)) * 1.01 +
                           tensor_core + unit_roundoff(v.d_type) * std::fabs(ref) + 1e-30;
        ASSERT_LE(std::fabs(double(got) - ref), tol) << "D(" << i << "," << j << ") = " << got << ", reference " << ref;
      }
    }
}

TEST(GemmVariantsCuda, EveryVariantMatchesTheHostReference) {
  FLY_SKIP_WITHOUT_GPU();
  auto variants = fly::dispatch::gemm_variants();
  ASSERT_GT(variants.size(), 0u) << "no sm_90a variant compiled in";
  unsigned seed = 1;
  for (const auto& v : variants) {
    if (v.target != fly::dispatch::Target::sm90a) continue;
    const int64_t a = v.align_elems;
    // a full tile, tails in every dimension, and a skinny decode shape
    run_variant(v, v.bm, v.bn, v.bk, seed++);
    run_variant(v, v.bm * 2 + 3, v.bn + 5, v.bk + 2 * a, seed++);
    run_variant(v, 1, 3 * v.bn - 1, a, seed++);
    run_variant(v, 17, 31, 4 * v.bk + a, seed++);
    if (HasFatalFailure()) return;
  }
}

// Random full-range data, where truncation to a narrower type, an unpromoted accumulator or a wrong
// K-group order shows: the same shapes, and K = 8192 for every variant.
TEST(GemmVariantsCuda, EveryVariantOnRandomDataStaysWithinTheBound) {
  FLY_SKIP_WITHOUT_GPU();
  auto variants = fly::dispatch::gemm_variants();
  ASSERT_GT(variants.size(), 0u) << "no sm_90a variant compiled in";
  unsigned seed = 7001;
  for (const auto& v : variants) {
    if (v.target != fly::dispatch::Target::sm90a) continue;
    const int64_t a = v.align_elems;
    run_variant(v, v.bm, v.bn, v.bk, seed++, Data::random);
    run_variant(v, v.bm * 2 + 3, v.bn + 5, v.bk + 2 * a, seed++, Data::random);
    run_variant(v, 17, 31, 8192, seed++, Data::random);
    if (HasFatalFailure()) return;
  }
}
// A grid needing more than 65535 column blocks is refused before anything is launched or read,
// by every launcher (the direct, staged, wgmma and TMA ones): the pointers are never dereferenced.
TEST(GemmVariantsCuda, TooManyColumnBlocksIsNotSupported) {
  FLY_SKIP_WITHOUT_GPU();
  void* buffer = nullptr;
  CUDA_OK(cudaMalloc(&buffer, 1024));
  int checked = 0;
  for (const auto& v : fly::dispatch::gemm_variants()) {
    if (v.target != fly::dispatch::Target::sm90a) continue;
    SCOPED_TRACE(v.name);
    const int64_t m = 16, n = 65536 * v.bn + 1, k = 4 * v.bk;
    GemmProblem p{m, n, k, k, k, n, n, v.ab_type, v.ab_type, v.d_type, v.d_type, 1.f, 0.f,
                  buffer, buffer, nullptr, buffer, nullptr, nullptr};
    EXPECT_EQ(v.launch(p, nullptr), FLY_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fly_last_error()).find("65535 column blocks"), std::string::npos) << fly_last_error();
    ++checked;
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CUDA_OK(cudaFree(buffer));
  EXPECT_GT(checked, 0);
}

// The TMA-fed wgmma block with A multicast over clusters of 2 and 4 blocks (outside the grid, whose
// `tma` cells have no cluster), on the shapes every generated variant runs.
template <class Block>
fly_status_t launch_tma_block(const GemmProblem& problem, void* stream) {
  return fly::kernels::launch_tma_cuda<Block>(fly::kernels::gemm_wgmma_tma_kernel<Block>, problem, stream);
}

template <class Block>
GemmVariant tma_variant(const char* name, fly_dtype_t d) {
  return {name, fly::dispatch::Target::sm90a, FLY_DTYPE_E4M3FN, d, Block::BM, Block::BN, Block::BK, 16,
          &launch_tma_block<Block>};
}

TEST(GemmWgmmaTmaCuda, MulticastClustersMatchTheHostReference) {
  FLY_SKIP_WITHOUT_GPU();
  using fly::kernels::GemmWgmmaTmaBlock;
  const GemmVariant variants[] = {
      tma_variant<GemmWgmmaTmaBlock<128, 64, 128, 4, 2, fly::bfloat16>>("tma_128x64x128_s4_c2", FLY_DTYPE_BF16),
      tma_variant<GemmWgmmaTmaBlock<16, 128, 128, 4, 2, fly::half>>("tma_16x128x128_s4_c2", FLY_DTYPE_F16),
      tma_variant<GemmWgmmaTmaBlock<32, 64, 256, 3, 4, float>>("tma_32x64x256_s3_c4", FLY_DTYPE_F32),
      tma_variant<GemmWgmmaTmaBlock<64, 128, 128, 3, 4, fly::bfloat16>>("tma_64x128x128_s3_c4", FLY_DTYPE_BF16),
  };
  unsigned seed = 500;
  for (const auto& v : variants) {
    run_variant(v, v.bm, v.bn, v.bk, seed++);
    run_variant(v, v.bm * 2 + 3, v.bn + 5, v.bk + 32, seed++);
    run_variant(v, 1, 3 * v.bn - 1, 16, seed++);
    run_variant(v, 17, 31, 4 * v.bk + 16, seed++);
    if (HasFatalFailure()) return;
  }
}

// End to end from the C API: a CUDA handle dispatches to a compiled variant on the caller's stream
// and matches the host backend bit for bit, for every dtype combination.
TEST(GemmCApiCuda, EveryDtypeCombinationMatchesTheHostBackend) {
  FLY_SKIP_WITHOUT_GPU();
  fly_handle_t gpu = nullptr, host = nullptr;
  ASSERT_EQ(fly_create(&gpu), FLY_STATUS_SUCCESS) << fly_last_error();
  ASSERT_EQ(fly_create_host(&host), FLY_STATUS_SUCCESS) << fly_last_error();
  unsigned backend = 0;
  ASSERT_EQ(fly_handle_backend(gpu, &backend), FLY_STATUS_SUCCESS);
  ASSERT_EQ(backend, unsigned(FLY_BACKEND_CUDA));
  const fly_dtype_t abs[] = {FLY_DTYPE_E4M3FN, FLY_DTYPE_F32};
  const fly_dtype_t ds[] = {FLY_DTYPE_BF16, FLY_DTYPE_F16, FLY_DTYPE_F32};
  const int64_t shapes[][3] = {{1, 512, 256}, {16, 1024, 512}, {100, 96, 64}, {128, 256, 128}};
  unsigned seed = 100;
  for (fly_dtype_t ab : abs)
    for (fly_dtype_t d : ds)
      for (auto const& shape : shapes) {
        const int64_t m = shape[0], n = shape[1], k = shape[2];
        SCOPED_TRACE(std::string(fly_dtype_string(ab)) + " -> " + fly_dtype_string(d) + " " + std::to_string(m) + "x" +
                     std::to_string(n) + "x" + std::to_string(k));
        std::mt19937 rng(seed++);
        Buffer A(ab, m * k), B(ab, n * k), C(d, m * n), Dh(d, m * n), Dg(d, (m + kGuardRows) * n);
        for (int64_t i = 0; i < A.elems; ++i) A.set(i, fly_test::random_exact_value(rng));
        for (int64_t i = 0; i < B.elems; ++i) B.set(i, fly_test::random_exact_value(rng));
        for (int64_t i = 0; i < C.elems; ++i) C.set(i, fly_test::random_exact_value(rng));
        std::memset(Dh.bytes.data(), 0xFF, Dh.bytes.size());
        const float sa = 0.5f, sb = 4.f;
        fly_gemm_args args = FLY_GEMM_ARGS_INIT;
        args.m = m; args.n = n; args.k = k;
        args.a_type = args.b_type = ab;
        args.c_type = args.d_type = d;
        args.lda = k; args.ldb = k; args.ldc = n; args.ldd = n;
        args.alpha = 0.25f; args.beta = -1.f;
        // host reference
        args.a = A.bytes.data(); args.b = B.bytes.data(); args.c = C.bytes.data(); args.d = Dh.bytes.data();
        args.scale_a = &sa; args.scale_b = &sb;
        ASSERT_EQ(fly_gemm(host, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
        // the GPU, on a stream of ours
        void *dA, *dB, *dC, *dD;
        float* dscale;
        CUDA_OK(cudaMalloc(&dA, A.bytes.size()));
        CUDA_OK(cudaMalloc(&dB, B.bytes.size()));
        CUDA_OK(cudaMalloc(&dC, C.bytes.size()));
        CUDA_OK(cudaMalloc(&dD, Dg.bytes.size()));
        CUDA_OK(cudaMalloc(&dscale, 2 * sizeof(float)));
        const float scales[2] = {sa, sb};
        CUDA_OK(cudaMemcpy(dA, A.bytes.data(), A.bytes.size(), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(dB, B.bytes.data(), B.bytes.size(), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(dC, C.bytes.data(), C.bytes.size(), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(dD, 0xFF, Dg.bytes.size()));
        CUDA_OK(cudaMemcpy(dscale, scales, sizeof(scales), cudaMemcpyHostToDevice));
        args.a = dA; args.b = dB; args.c = dC; args.d = dD;
        args.scale_a = dscale; args.scale_b = dscale + 1;
        cudaStream_t stream;
        CUDA_OK(cudaStreamCreate(&stream));
        char why[FLY_GEMM_EXPLAIN_BYTES];
        ASSERT_EQ(fly_gemm_explain(gpu, &args, why, sizeof(why)), FLY_STATUS_SUCCESS) << fly_last_error();
        ASSERT_EQ(fly_gemm(gpu, &args, nullptr, 0, stream), FLY_STATUS_SUCCESS) << fly_last_error();
        CUDA_OK(cudaStreamSynchronize(stream));
        CUDA_OK(cudaStreamDestroy(stream));
        CUDA_OK(cudaMemcpy(Dg.bytes.data(), dD, Dg.bytes.size(), cudaMemcpyDeviceToHost));
        for (void* ptr : {dA, dB, dC, dD}) CUDA_OK(cudaFree(ptr));
        CUDA_OK(cudaFree(dscale));
        const size_t d_bytes = Dh.bytes.size();
        ASSERT_TRUE(std::equal(Dh.bytes.begin(), Dh.bytes.end(), Dg.bytes.begin())) << "variant: " << why;
        ASSERT_TRUE(std::all_of(Dg.bytes.begin() + std::ptrdiff_t(d_bytes), Dg.bytes.end(), [](unsigned char x) { return x == 0xFF; }))
            << "a guard row past D was written; variant: " << why;
      }
  fly_destroy(gpu);
  fly_destroy(host);
}
// One CUDA handle shared by 8 threads, each on its own stream with its own dtypes and shape (the
// threads' first calls race to fill the dispatch cache), 3 calls each: every D equals the host
// backend's bit for bit (exact-value data).
TEST(GemmCApiCuda, OneHandleEightThreadsEightStreams) {
  FLY_SKIP_WITHOUT_GPU();
  fly_handle_t gpu = nullptr, host = nullptr;
  ASSERT_EQ(fly_create(&gpu), FLY_STATUS_SUCCESS) << fly_last_error();
  ASSERT_EQ(fly_create_host(&host), FLY_STATUS_SUCCESS) << fly_last_error();
  constexpr int kThreads = 8;
  struct Work {
    fly_gemm_args args = FLY_GEMM_ARGS_INIT;
    std::vector<unsigned char> expect;
    void *a = nullptr, *b = nullptr, *d = nullptr;
    int failures = 0;
  };
  std::vector<Work> work(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    Work& w = work[size_t(t)];
    const fly_dtype_t ab = t % 2 == 0 ? FLY_DTYPE_E4M3FN : FLY_DTYPE_F32;
    const fly_dtype_t d = t % 3 == 0 ? FLY_DTYPE_BF16 : t % 3 == 1 ? FLY_DTYPE_F16 : FLY_DTYPE_F32;
    const int64_t m = 1 + 37 * t, n = 256 + 64 * t, k = 512;
    std::mt19937 rng(3000 + unsigned(t));
    Buffer A(ab, m * k), B(ab, n * k), D(d, m * n);
    for (int64_t i = 0; i < A.elems; ++i) A.set(i, fly_test::random_exact_value(rng));
    for (int64_t i = 0; i < B.elems; ++i) B.set(i, fly_test::random_exact_value(rng));
    w.args.m = m; w.args.n = n; w.args.k = k;
    w.args.a_type = w.args.b_type = ab;
    w.args.c_type = w.args.d_type = d;
    w.args.lda = k; w.args.ldb = k; w.args.ldc = n; w.args.ldd = n;
    w.args.a = A.bytes.data(); w.args.b = B.bytes.data(); w.args.d = D.bytes.data();
    ASSERT_EQ(fly_gemm(host, &w.args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
    w.expect = D.bytes;
    CUDA_OK(cudaMalloc(&w.a, A.bytes.size()));
    CUDA_OK(cudaMalloc(&w.b, B.bytes.size()));
    CUDA_OK(cudaMalloc(&w.d, D.bytes.size()));
    CUDA_OK(cudaMemcpy(w.a, A.bytes.data(), A.bytes.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(w.b, B.bytes.data(), B.bytes.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(w.d, 0xFF, D.bytes.size()));
    w.args.a = w.a; w.args.b = w.b; w.args.d = w.d;
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Work& w = work[size_t(t)];
      cudaStream_t s;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        ++w.failures;
        return;
      }
      for (int call = 0; call < 3; ++call)
        if (fly_gemm(gpu, &w.args, nullptr, 0, s) != FLY_STATUS_SUCCESS) ++w.failures;
      if (cudaStreamSynchronize(s) != cudaSuccess) ++w.failures;
      cudaStreamDestroy(s);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    Work& w = work[size_t(t)];
    EXPECT_EQ(w.failures, 0) << "thread " << t;
    std::vector<unsigned char> got(w.expect.size());
    CUDA_OK(cudaMemcpy(got.data(), w.d, got.size(), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(got == w.expect) << "thread " << t << ": " << fly_dtype_string(w.args.a_type) << " -> "
                                 << fly_dtype_string(w.args.d_type) << " " << w.args.m << "x" << w.args.n;
    for (void* ptr : {w.a, w.b, w.d}) CUDA_OK(cudaFree(ptr));
  }
  fly_destroy(gpu);
  fly_destroy(host);
}
}  // namespace
