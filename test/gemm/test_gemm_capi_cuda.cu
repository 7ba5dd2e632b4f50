// fly_gemm through the C API on a GPU: every dtype combination against the host backend, one
// handle shared by threads and streams, a call captured in a CUDA graph and replayed with new
// inputs, and an operand larger than 2 GiB. Exact-value data (fly_test::random_exact_value): D must
// equal the host backend's bit for bit.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/cuda_test.hpp"
#include "common/exact_values.hpp"
#include "common/gemm_buffer.hpp"
#include "fly/fly.h"

namespace {
using fly_test::Buffer;

constexpr int64_t kGuardRows = 2;  // rows of D past the last one, poisoned, that must stay so

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
  // The threads' streams are non-blocking: the legacy stream's copies and memsets land first.
  CUDA_OK(cudaDeviceSynchronize());
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

// A call captured in a CUDA graph reads its inputs when the graph runs: replayed after A, B and the
// scales changed in place, D is the product of the new values.
TEST(GemmCApiCuda, GraphReplaySeesNewInputs) {
  FLY_SKIP_WITHOUT_GPU();
  fly_handle_t gpu = nullptr, host = nullptr;
  ASSERT_EQ(fly_create(&gpu), FLY_STATUS_SUCCESS) << fly_last_error();
  ASSERT_EQ(fly_create_host(&host), FLY_STATUS_SUCCESS) << fly_last_error();
  for (fly_dtype_t ab : {FLY_DTYPE_E4M3FN, FLY_DTYPE_F32}) {
    const int64_t m = 64, n = 512, k = 1024;
    const fly_dtype_t d = FLY_DTYPE_BF16;
    SCOPED_TRACE(fly_dtype_string(ab));
    void *dA, *dB, *dD;
    float* dscale;
    CUDA_OK(cudaMalloc(&dA, size_t(m * k) * size_t(fly::dispatch::dtype_bytes(ab))));
    CUDA_OK(cudaMalloc(&dB, size_t(n * k) * size_t(fly::dispatch::dtype_bytes(ab))));
    CUDA_OK(cudaMalloc(&dD, size_t(m * n) * 2));
    CUDA_OK(cudaMalloc(&dscale, 2 * sizeof(float)));
    fly_gemm_args args = FLY_GEMM_ARGS_INIT;
    args.m = m; args.n = n; args.k = k;
    args.a_type = args.b_type = ab;
    args.c_type = args.d_type = d;
    args.lda = k; args.ldb = k; args.ldc = n; args.ldd = n;
    args.a = dA; args.b = dB; args.d = dD;
    args.scale_a = dscale; args.scale_b = dscale + 1;
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    char why[FLY_GEMM_EXPLAIN_BYTES];
    ASSERT_EQ(fly_gemm_explain(gpu, &args, why, sizeof(why)), FLY_STATUS_SUCCESS) << fly_last_error();
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    ASSERT_EQ(fly_gemm(gpu, &args, nullptr, 0, stream), FLY_STATUS_SUCCESS) << fly_last_error();
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<unsigned char> previous;
    for (int round = 0; round < 2; ++round) {
      std::mt19937 rng(700 + unsigned(round) + (ab == FLY_DTYPE_F32 ? 10u : 0u));
      Buffer A(ab, m * k), B(ab, n * k), Dh(d, m * n), Dg(d, m * n);
      for (int64_t i = 0; i < A.elems; ++i) A.set(i, fly_test::random_exact_value(rng));
      for (int64_t i = 0; i < B.elems; ++i) B.set(i, fly_test::random_exact_value(rng));
      const float scales[2] = {round == 0 ? 0.5f : 2.f, round == 0 ? 4.f : 0.25f};
      // On the replay's own stream: it is non-blocking, so copies and a memset on the legacy
      // stream (which return before their device writes land) would race with the replay.
      CUDA_OK(cudaMemcpyAsync(dA, A.bytes.data(), A.bytes.size(), cudaMemcpyHostToDevice, stream));
      CUDA_OK(cudaMemcpyAsync(dB, B.bytes.data(), B.bytes.size(), cudaMemcpyHostToDevice, stream));
      CUDA_OK(cudaMemcpyAsync(dscale, scales, sizeof(scales), cudaMemcpyHostToDevice, stream));
      CUDA_OK(cudaMemsetAsync(dD, 0xFF, Dg.bytes.size(), stream));
      CUDA_OK(cudaGraphLaunch(exec, stream));
      CUDA_OK(cudaStreamSynchronize(stream));
      CUDA_OK(cudaMemcpy(Dg.bytes.data(), dD, Dg.bytes.size(), cudaMemcpyDeviceToHost));
      fly_gemm_args h = args;
      h.a = A.bytes.data(); h.b = B.bytes.data(); h.d = Dh.bytes.data();
      h.scale_a = &scales[0]; h.scale_b = &scales[1];
      ASSERT_EQ(fly_gemm(host, &h, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
      int64_t differ = 0, poisoned = 0;  // D's elements the replay got wrong, and those it never wrote
      for (int64_t i = 0; i < m * n; ++i) {
        const bool same = Dg.bytes[size_t(2 * i)] == Dh.bytes[size_t(2 * i)] && Dg.bytes[size_t(2 * i + 1)] == Dh.bytes[size_t(2 * i + 1)];
        differ += same ? 0 : 1;
        poisoned += (!same && Dg.bytes[size_t(2 * i)] == 0xFF && Dg.bytes[size_t(2 * i + 1)] == 0xFF) ? 1 : 0;
      }
      EXPECT_EQ(differ, 0) << "replay " << round << " differs from the host backend (" << poisoned
                           << " of them still the poison); variant: " << why;
      EXPECT_TRUE(Dh.bytes != previous) << "the two rounds' data must give different products";
      previous = Dh.bytes;
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
    CUDA_OK(cudaStreamDestroy(stream));
    for (void* ptr : {dA, dB, dD, static_cast<void*>(dscale)}) CUDA_OK(cudaFree(ptr));
  }
  fly_destroy(gpu);
  fly_destroy(host);
}

// A is M x K fp8 bytes with M x K above 2^31 (64-bit offsets in every address): the rows at both
// ends hold data and must equal the host backend's; every row between is zero and so must D be.
TEST(GemmCApiCuda, OperandBeyondTwoGiB) {
  FLY_SKIP_WITHOUT_GPU();
  fly_handle_t gpu = nullptr, host = nullptr;
  ASSERT_EQ(fly_create(&gpu), FLY_STATUS_SUCCESS) << fly_last_error();
  ASSERT_EQ(fly_create_host(&host), FLY_STATUS_SUCCESS) << fly_last_error();
  const int64_t k = 2048, m = (int64_t{1} << 31) / k + 80, n = 16, edge = 64;  // 2 GiB + 160 KB of A
  const fly_dtype_t ab = FLY_DTYPE_E4M3FN, d = FLY_DTYPE_BF16;
  unsigned char *dA = nullptr, *dB = nullptr, *dD = nullptr;
  if (cudaMalloc(&dA, size_t(m * k)) != cudaSuccess) GTEST_SKIP() << "SKIPPED: no 2 GiB of device memory";
  CUDA_OK(cudaMalloc(&dB, size_t(n * k)));
  CUDA_OK(cudaMalloc(&dD, size_t(m * n) * 2));
  CUDA_OK(cudaMemset(dA, 0, size_t(m * k)));
  CUDA_OK(cudaMemset(dD, 0xFF, size_t(m * n) * 2));
  std::mt19937 rng(2024);
  Buffer B(ab, n * k), first(ab, edge * k), last(ab, edge * k);
  for (Buffer* x : {&B, &first, &last})
    for (int64_t i = 0; i < x->elems; ++i) x->set(i, fly_test::random_exact_value(rng));
  CUDA_OK(cudaMemcpy(dB, B.bytes.data(), B.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dA, first.bytes.data(), first.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dA + (m - edge) * k, last.bytes.data(), last.bytes.size(), cudaMemcpyHostToDevice));
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = m; args.n = n; args.k = k;
  args.a_type = args.b_type = ab;
  args.c_type = args.d_type = d;
  args.lda = k; args.ldb = k; args.ldc = n; args.ldd = n;
  args.a = dA; args.b = dB; args.d = dD;
  char why[FLY_GEMM_EXPLAIN_BYTES];
  ASSERT_EQ(fly_gemm_explain(gpu, &args, why, sizeof why), FLY_STATUS_SUCCESS) << fly_last_error();
  ASSERT_EQ(fly_gemm(gpu, &args, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  CUDA_OK(cudaDeviceSynchronize());
  Buffer D(d, m * n);
  CUDA_OK(cudaMemcpy(D.bytes.data(), dD, D.bytes.size(), cudaMemcpyDeviceToHost));
  for (const auto& [rows, at] : {std::pair{&first, int64_t{0}}, std::pair{&last, m - edge}}) {
    Buffer expect(d, edge * n);
    fly_gemm_args h = args;
    h.m = edge;
    h.a = rows->bytes.data(); h.b = B.bytes.data(); h.d = expect.bytes.data();
    ASSERT_EQ(fly_gemm(host, &h, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
    EXPECT_TRUE(std::equal(expect.bytes.begin(), expect.bytes.end(), D.bytes.begin() + std::ptrdiff_t(at * n * 2)))
        << "rows " << at << ".. differ from the host backend; variant: " << why;
  }
  const auto middle_begin = D.bytes.begin() + std::ptrdiff_t(edge * n * 2), middle_end = D.bytes.end() - std::ptrdiff_t(edge * n * 2);
  EXPECT_TRUE(std::all_of(middle_begin, middle_end, [](unsigned char x) { return x == 0; }))
      << "a zero row of A gave a non-zero row of D; variant: " << why;
  for (void* ptr : {static_cast<void*>(dA), static_cast<void*>(dB), static_cast<void*>(dD)}) CUDA_OK(cudaFree(ptr));
  fly_destroy(gpu);
  fly_destroy(host);
}
}  // namespace
