// fly_bench: libfly's benchmark binary (Google Benchmark). It measures the host layout algebra and
// fly_gemm on the host backend; with CUDA and a GPU, fly_gemm beside cuBLASLt. With
// --tune=<table.tsv> (CUDA builds) it runs the GEMM tuning mode instead (gemm_tune.hpp).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "fly/fly.h"
#if defined(FLY_BENCH_CUDA)
#include "gemm_tune.hpp"
#endif

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
  return 0;
}
