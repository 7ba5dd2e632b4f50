// fly_gemm on the host backend (the reference every GPU variant is checked against): its rate on
// decode-like and square shapes, so the default backend's fly_bench measures the C API end to end.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"

namespace {

void BM_HostGemm(benchmark::State& state, fly_dtype_t ab, fly_dtype_t d) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const size_t esize = ab == FLY_DTYPE_F32 ? 4 : 1, dsize = d == FLY_DTYPE_F32 ? 4 : 2;
  std::vector<unsigned char> a(size_t(m * k) * esize), b(size_t(n * k) * esize), out(size_t(m * n) * dsize);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  auto fill = [&](std::vector<unsigned char>& v) {
    for (size_t i = 0; i < v.size() / esize; ++i) {
      const float x = dist(rng);
      if (ab == FLY_DTYPE_F32) {
        std::memcpy(&v[i * 4], &x, 4);
      } else {
        v[i] = fly::float8_e4m3fn(x).bits();
      }
    }
  };
  fill(a);
  fill(b);
  fly_handle_t h = nullptr;
  if (fly_create_host(&h) != FLY_STATUS_SUCCESS) {
    state.SkipWithError(fly_last_error());
    return;
  }
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = m; args.n = n; args.k = k;
  args.a_type = args.b_type = ab;
  args.c_type = args.d_type = d;
  args.a = a.data(); args.lda = k;
  args.b = b.data(); args.ldb = k;
  args.d = out.data(); args.ldd = n;
  for (auto _s : state) {
    if (fly_gemm(h, &args, nullptr, 0, nullptr) != FLY_STATUS_SUCCESS) {
      state.SkipWithError(fly_last_error());
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["FLOPs"] = benchmark::Counter(2.0 * double(m) * double(n) * double(k),
                                               benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1000);
  fly_destroy(h);
}

BENCHMARK_CAPTURE(BM_HostGemm, e4m3_bf16, FLY_DTYPE_E4M3FN, FLY_DTYPE_BF16)
    ->Args({16, 1024, 1024})
    ->Args({256, 256, 256})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HostGemm, f32_f32, FLY_DTYPE_F32, FLY_DTYPE_F32)
    ->Args({16, 1024, 1024})
    ->Args({256, 256, 256})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

namespace fly::bench {

// fly_bench --op gemm on the host backend (bench_cli.hpp).
void register_host_gemm_row(const CliRequest& r, std::vector<std::string>* names) {
  const bool fp8 = r.gemm_dtype == FLY_DTYPE_E4M3FN;
  const std::string name = std::string("host/gemm/") + (fp8 ? "e4m3_bf16" : "f32_f32");
  benchmark::RegisterBenchmark(name.c_str(), BM_HostGemm, r.gemm_dtype, fp8 ? FLY_DTYPE_BF16 : FLY_DTYPE_F32)
      ->Args({r.m, r.n, r.k})
      ->Unit(benchmark::kMicrosecond);
  names->push_back(name);
}

}  // namespace fly::bench
