// fly_bench: libfly's benchmark binary (Google Benchmark). It measures the host layout algebra and
// fly_gemm on the host backend; with CUDA and a GPU, fly_gemm beside cuBLASLt. With
// --tune=<table.tsv> (CUDA builds) it runs the GEMM tuning mode instead (gemm_tune.hpp).
// fly_pa_decode likewise: host rows, and on a GPU rows verified against the host backend.
// Exit status: non-zero when a row failed through fail_row() (bench_failures.hpp: a verification
// mismatch or a failed library call), and, with FLY_REQUIRE_GPU=1 in the environment, when no GPU
// is present (or this fly_bench lacks CUDA): the GPU rows are then not silently left out.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_failures.hpp"
#include "fly/fly.h"
#if defined(FLY_BENCH_CUDA)
#include <cuda_runtime.h>

#include "gemm_tune.hpp"
#endif

namespace {

// FLY_REQUIRE_GPU=1: true when a GPU is usable, else prints why and returns false.
bool required_gpu_present() {
  const char* env = std::getenv("FLY_REQUIRE_GPU");
  if (env == nullptr || std::strcmp(env, "1") != 0) return true;
#if defined(FLY_BENCH_CUDA)
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n > 0) return true;
  std::fprintf(stderr, "fly_bench: FLY_REQUIRE_GPU=1 but no CUDA GPU is present (%s, %d devices): the GPU rows "
                       "would be left out\n", e == cudaSuccess ? "no error" : cudaGetErrorString(e), n);
#else
  std::fprintf(stderr, "fly_bench: FLY_REQUIRE_GPU=1 but this fly_bench is built without CUDA (use the cuda preset)\n");
#endif
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // --tune=<path> is ours: take it out of argv before Google Benchmark rejects it as unknown.
  std::string tune_path;
  bool tune = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--tune=", 7) == 0) {
      tune = true;
      tune_path = argv[i] + 7;
    } else if (std::strcmp(argv[i], "--tune") == 0) {
      tune = true;  // without a path: the usage message below
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;

  std::printf("fly_bench: libfly %s, backends:%s%s%s\n", FLY_VERSION_STRING,
              (fly_compiled_backends() & FLY_BACKEND_HOST) ? " host" : "",
              (fly_compiled_backends() & FLY_BACKEND_CUDA) ? " cuda" : "",
              (fly_compiled_backends() & FLY_BACKEND_HIP) ? " hip" : "");
  if (!required_gpu_present()) return 3;
  if (tune) {
    if (tune_path.empty() || argc > 1) {
      std::fprintf(stderr, "usage: fly_bench --tune=<table.tsv>   (no other arguments; e.g. "
                           "--tune=src/dispatch/tuning/sm90a.tsv)\n");
      return 2;
    }
#if defined(FLY_BENCH_CUDA)
    return fly::bench::run_gemm_tuning(tune_path, std::string(argv[0]) + " --tune=" + tune_path);
#else
    std::fprintf(stderr, "fly_bench --tune: this fly_bench is built without CUDA (use the cuda preset)\n");
    return 2;
#endif
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (const int failed = fly::bench::row_failures().load(); failed > 0) {
    std::fprintf(stderr, "fly_bench: %d row%s FAILED (wrong results or failed calls; see above)\n", failed,
                 failed == 1 ? "" : "s");
    return 1;
  }
  return 0;
}
