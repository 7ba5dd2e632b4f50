// The paged-decode problem shapes fly_bench measures on the GPU, in one place: the rows beside
// cuDNN SDPA (bench_pa_decode_cuda.cu) and the shapes `fly_bench --tune-pa` measures every variant
// on (bench_pa_decode_tune.cpp, one tuning-table line each).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fly/fly.h"

namespace fly::bench {

// What every row shares: head_dim 128, blocks of 16 tokens, bf16 queries.
inline constexpr int64_t kPaHeadDim = 128, kPaBlock = 16;
// The cache layout of the rows: NHD unless FLY_BENCH_PA_LAYOUT says vllm or hnd.
inline fly_kv_layout_t pa_bench_layout() {
  const char* v = std::getenv("FLY_BENCH_PA_LAYOUT");
  const std::string name = v != nullptr ? v : "";
  return name == "vllm" ? FLY_KV_LAYOUT_VLLM : name == "hnd" ? FLY_KV_LAYOUT_HND : FLY_KV_LAYOUT_NHD;
}

struct PaShape {
  int64_t seqs, ctx, q_heads, kv_heads, q_len;
  fly_dtype_t kv;                              // BF16 or E4M3FN; q and out are bf16
  fly_kv_layout_t layout = pa_bench_layout();  // --tune-pa measures each layout
};

// Llama-3-8B-like (32 / 8) and 70B-like (64 / 8) heads at a fixed 256K or 64K-128K tokens in
// flight, for a bf16 and an e4m3fn cache; then bf16 at group 5 (not a power of two) and with 4 new
// tokens (speculative decoding).
inline std::vector<PaShape> pa_bench_shapes() {
  struct Row {
    int64_t seqs, ctx, q_heads, kv_heads, q_len;
  };
  const Row rows[] = {{1, 32768, 32, 8, 1}, {8, 8192, 32, 8, 1},  {64, 4096, 32, 8, 1},
                      {256, 1024, 32, 8, 1}, {16, 16384, 64, 8, 1}, {128, 2048, 64, 8, 1}};
  std::vector<PaShape> shapes;
  for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN})
    for (const Row& r : rows) shapes.push_back({r.seqs, r.ctx, r.q_heads, r.kv_heads, r.q_len, kv});
  shapes.push_back({8, 8192, 40, 8, 1, FLY_DTYPE_BF16});
  shapes.push_back({64, 4096, 32, 8, 4, FLY_DTYPE_BF16});
  return shapes;
}

}  // namespace fly::bench
