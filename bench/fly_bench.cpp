// fly_bench: libfly's benchmark binary (Google Benchmark). It measures the host layout algebra and
// fly_gemm on the host backend; with CUDA and a GPU, fly_gemm beside cuBLASLt. With
// --tune=<table.tsv> (CUDA builds) it runs the GEMM tuning mode instead (gemm_tune.hpp), with
// --tune-pa=<table.tsv> the paged-decode one (pa_decode_tune.hpp).
// fly_pa_decode likewise: host rows, and on a GPU rows verified against the host backend.
// Exit status: non-zero when a row failed through fail_row() (bench_failures.hpp: a verification
// mismatch or a failed library call), and, with FLY_REQUIRE_GPU=1 in the environment, when no GPU
// is present (or this fly_bench lacks CUDA): the GPU rows are then not silently left out.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "bench_failures.hpp"
#include "fly/fly.h"
#if defined(FLY_BENCH_CUDA)
#include <cuda_runtime.h>

#include "gemm_tune.hpp"
#include "pa_decode_tune.hpp"
#include "read_ceiling.cuh"
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

const char* kUsage =
    "usage: fly_bench [--op pa_decode --batch B --ctx T [--hq 32 --hkv 8 --q-len 1 --kv bf16|fp8]]\n"
    "                 [--op gemm --m M --n N --k K [--dtype fp8|f32]] [--tune=<table.tsv>] [--tune-pa=<table.tsv>]\n"
    "                 [Google Benchmark flags: --benchmark_filter=<regex> --benchmark_out=<file>\n"
    "                  --benchmark_out_format=json --benchmark_min_time=<s> ...]\n"
    "Without --op: the default rows (the layout algebra, fly_gemm and fly_pa_decode on the host backend\n"
    "on small shapes; with a CUDA GPU, the GPU rows beside cuBLASLt). With --op: that one problem, on\n"
    "the GPU beside its peer when one is present, else on the host backend. Rows print as they finish.\n";

bool gpu_present() {
#if defined(FLY_BENCH_CUDA)
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
#else
  return false;
#endif
}

// "^(a|b)/": the rows whose names start with one of `names` (regex characters escaped)
std::string filter_for(const std::vector<std::string>& names) {
  std::string f = "^(";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) f += "|";
    for (char c : names[i]) {
      if (std::strchr(".^$|()[]{}*+?\\", c) != nullptr) f += '\\';
      f += c;
    }
  }
  return f + ")(/|$)";
}

}  // namespace

int main(int argc, char** argv) {
  fly::bench::CliRequest request;
  bool help = false;
  std::string error;
  if (!fly::bench::parse_cli(&argc, argv, &request, &help, &error)) {
    std::fprintf(stderr, "fly_bench: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  if (help) {
    std::printf("%s", kUsage);
    return 0;
  }
  // --tune=<path> and --tune-pa=<path> are ours: take them out of argv before Google Benchmark
  // rejects them as unknown.
  std::string tune_path, tune_flag;
  int tunes = 0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const char* eq = std::strchr(argv[i], '=');
    const std::string flag = eq != nullptr ? std::string(argv[i], size_t(eq - argv[i])) : std::string(argv[i]);
    if (flag == "--tune" || flag == "--tune-pa") {
      ++tunes;
      tune_flag = flag;
      tune_path = eq != nullptr ? eq + 1 : "";  // without a path: the usage message below
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
  const bool gpu = gpu_present();
  if (!gpu)
    std::printf("fly_bench: no GPU rows (%s): the host backend on small shapes\n",
                (fly_compiled_backends() & FLY_BACKEND_CUDA) ? "no CUDA GPU present" : "a build without CUDA");
#if defined(FLY_BENCH_CUDA)
  // the read ceiling every GPU row's of_hbm divides by, before any row holds device memory
  if (gpu && tune_flag != "--tune") fly::bench::read_ceiling_tbs();
#endif
  std::vector<std::string> rows;
  std::string filter_flag;
  if (!request.op.empty()) {  // just the asked problem: its GPU rows if any, else the host row
    if (!fly::bench::register_cuda_cli_rows(request, &rows)) fly::bench::register_host_cli_rows(request, &rows);
    filter_flag = "--benchmark_filter=" + filter_for(rows);
  }
  if (tunes > 0) {
    if (tune_path.empty() || argc > 1 || tunes > 1) {
      std::fprintf(stderr, "usage: fly_bench --tune=<table.tsv> | --tune-pa=<table.tsv>   (no other arguments; e.g. "
                           "--tune=src/dispatch/tuning/sm90a.tsv, --tune-pa=src/dispatch/tuning/pa_decode_sm90a.tsv)\n");
      return 2;
    }
#if defined(FLY_BENCH_CUDA)
    const std::string command = std::string(argv[0]) + " " + tune_flag + "=" + tune_path;
    return tune_flag == "--tune" ? fly::bench::run_gemm_tuning(tune_path, command)
                                 : fly::bench::run_pa_decode_tuning(tune_path, command);
#else
    std::fprintf(stderr, "fly_bench %s: this fly_bench is built without CUDA (use the cuda preset)\n", tune_flag.c_str());
    return 2;
#endif
  }
  // the asked rows' filter ahead of any --benchmark_filter the user gave (Google Benchmark keeps the last)
  std::vector<char*> args(argv, argv + argc);
  if (!filter_flag.empty()) args.insert(args.begin() + 1, filter_flag.data());
  int n = int(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (const int failed = fly::bench::row_failures().load(); failed > 0) {
    std::fprintf(stderr, "fly_bench: %d row%s FAILED (wrong results or failed calls; see above)\n", failed,
                 failed == 1 ? "" : "s");
    return 1;
  }
  return 0;
}
