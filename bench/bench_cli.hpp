// fly_bench's own command line (fly_bench.cpp): shapes a user can type. `--op pa_decode --batch 64
// --ctx 4096 --hq 32 --hkv 8 --kv fp8` or `--op gemm --m 16 --n 8192 --k 8192 [--dtype f32]` runs
// just that problem (on the GPU beside its peer when one is present, else on the host backend);
// Google Benchmark's flags (--benchmark_out=<file> --benchmark_out_format=json, ...) still apply.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fly/fly.h"

namespace fly::bench {

struct CliRequest {
  std::string op;  // "", "gemm" or "pa_decode"
  int64_t m = 0, n = 0, k = 0;
  fly_dtype_t gemm_dtype = FLY_DTYPE_E4M3FN;  // A and B; D is bf16 for fp8, f32 for f32
  int64_t batch = 0, ctx = 0, hq = 32, hkv = 8, q_len = 1;
  fly_dtype_t kv = FLY_DTYPE_BF16;
};

// Parses and removes fly_bench's flags from argv (Google Benchmark's stay). Returns false with a
// message in *error on a bad flag; *help is set by --help.
bool parse_cli(int* argc, char** argv, CliRequest* request, bool* help, std::string* error);

// Registers the request's rows; their names go to *names (the filter fly_bench then runs).
// Host rows always; GPU rows (with their peers) in CUDA builds with a GPU present.
void register_host_cli_rows(const CliRequest& request, std::vector<std::string>* names);
bool register_cuda_cli_rows(const CliRequest& request, std::vector<std::string>* names);  // false: no GPU

// Each op's part of the above, beside its rows: bench_pa_decode_host.cpp, bench_gemm_host.cpp,
// bench_pa_decode_cuda.cu (false: no GPU).
void register_host_pa_decode_row(const CliRequest& request, std::vector<std::string>* names);
void register_host_gemm_row(const CliRequest& request, std::vector<std::string>* names);
bool register_cuda_pa_decode_row(const CliRequest& request, std::vector<std::string>* names);

}  // namespace fly::bench
