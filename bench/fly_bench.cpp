// fly_bench: libfly's benchmark binary (Google Benchmark). Today it measures the host layout
// algebra; the GEMM and pa_decode suites, with their peers, register here as they land.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "fly/fly.h"

int main(int argc, char** argv) {
  std::printf("fly_bench: libfly %s, backends:%s%s%s\n", FLY_VERSION_STRING,
              (fly_compiled_backends() & FLY_BACKEND_HOST) ? " host" : "",
              (fly_compiled_backends() & FLY_BACKEND_CUDA) ? " cuda" : "",
              (fly_compiled_backends() & FLY_BACKEND_HIP) ? " hip" : "");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
