// fly_bench's command line (bench_cli.hpp).
#include "bench_cli.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

namespace fly::bench {
namespace {

bool to_int(const char* text, int64_t lo, int64_t* out) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < lo) return false;
  *out = v;
  return true;
}

}  // namespace

bool parse_cli(int* argc, char** argv, CliRequest* r, bool* help, std::string* error) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      continue;
    }
    struct Int {
      const char* flag;
      int64_t* field;
      int64_t lo;
    };
    const Int ints[] = {{"--m", &r->m, 1},           {"--n", &r->n, 1},     {"--k", &r->k, 1},
                        {"--batch", &r->batch, 1},   {"--ctx", &r->ctx, 1}, {"--hq", &r->hq, 1},
                        {"--hkv", &r->hkv, 1},       {"--q-len", &r->q_len, 1}};
    bool known = false;
    for (const Int& f : ints)
      if (arg == f.flag) {
        known = true;
        if (i + 1 >= *argc || !to_int(argv[i + 1], f.lo, f.field)) {
          *error = std::string(f.flag) + " takes an integer >= " + std::to_string(f.lo);
          return false;
        }
        ++i;
      }
    if (known) continue;
    if (arg == "--op" || arg == "--kv" || arg == "--dtype") {
      if (i + 1 >= *argc) {
        *error = arg + " takes a value";
        return false;
      }
      const std::string v = argv[++i];
      if (arg == "--op") {
        if (v != "gemm" && v != "pa_decode") {
          *error = "--op is gemm or pa_decode, not " + v;
          return false;
        }
        r->op = v;
      } else if (arg == "--kv") {
        if (v != "bf16" && v != "fp8") {
          *error = "--kv is bf16 or fp8 (e4m3fn), not " + v;
          return false;
        }
        r->kv = v == "fp8" ? FLY_DTYPE_E4M3FN : FLY_DTYPE_BF16;
      } else {
        if (v != "fp8" && v != "f32") {
          *error = "--dtype is fp8 (e4m3fn, bf16 out) or f32, not " + v;
          return false;
        }
        r->gemm_dtype = v == "fp8" ? FLY_DTYPE_E4M3FN : FLY_DTYPE_F32;
      }
      continue;
    }
    argv[kept++] = argv[i];  // Google Benchmark's, or unknown: benchmark::Initialize reports it
  }
  *argc = kept;
  argv[kept] = nullptr;
  if (r->op == "gemm" && (r->m == 0 || r->n == 0 || r->k == 0)) {
    *error = "--op gemm needs --m, --n and --k";
    return false;
  }
  if (r->op == "pa_decode" && (r->batch == 0 || r->ctx == 0)) {
    *error = "--op pa_decode needs --batch and --ctx (and takes --hq, --hkv, --q-len, --kv)";
    return false;
  }
  if (r->op.empty() && (r->m || r->n || r->k || r->batch || r->ctx)) {
    *error = "shape flags need --op gemm or --op pa_decode";
    return false;
  }
  return true;
}

void register_host_cli_rows(const CliRequest& r, std::vector<std::string>* names) {
  if (r.op == "pa_decode") register_host_pa_decode_row(r, names);
  if (r.op == "gemm") register_host_gemm_row(r, names);
}

#if !defined(FLY_BENCH_CUDA)
bool register_cuda_cli_rows(const CliRequest&, std::vector<std::string>*) { return false; }
#endif

}  // namespace fly::bench
