// fly_pa_decode on the host backend (the reference every GPU variant is checked against): a few
// small decode problems, so the default backend's fly_bench measures the C API end to end (and
// `fly_bench --op pa_decode ...` on a machine without a GPU). Full contexts, heads of 128, blocks of
// 16 tokens scattered by a fixed-seed permutation, NHD layout; bf16 q with a bf16 or an e4m3fn cache. The rate counter is the
// KV bytes read per second (every token's K and V row of every kv head, once).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "bench_failures.hpp"
#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"

namespace {

constexpr int64_t kHeadDim = 128, kBlock = 16;

struct HostShape {
  int64_t seqs, ctx, q_heads, kv_heads, q_len;
  fly_dtype_t kv;
};

void BM_HostPaDecode(benchmark::State& state, HostShape shape) {
  const int64_t seqs = shape.seqs, ctx = shape.ctx, q_heads = shape.q_heads, kv_heads = shape.kv_heads;
  const int64_t q_len = shape.q_len;
  const fly_dtype_t kv = shape.kv;
  const std::string row = std::string("BM_HostPaDecode/") + fly_dtype_string(kv) + "/" + std::to_string(seqs) + "x" +
                          std::to_string(ctx);
  const bool fp8 = kv == FLY_DTYPE_E4M3FN;
  const int64_t blocks_per_seq = (ctx + kBlock - 1) / kBlock, num_blocks = seqs * blocks_per_seq;
  const int64_t block_elems = kBlock * kv_heads * kHeadDim;  // NHD: [block][kv head][dim]
  const size_t cache_elems = size_t(num_blocks * block_elems), q_elems = size_t(seqs * q_len * q_heads * kHeadDim);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<uint16_t> q(q_elems), out(q_elems);
  for (auto& x : q) x = fly::bfloat16(dist(rng)).bits();
  // bf16: uniform in [-1, 1); e4m3fn: random finite codes (0x7F / 0xFF are NaN), scaled by 1/128.
  std::vector<uint16_t> k16, v16;
  std::vector<uint8_t> k8, v8;
  if (fp8) {
    std::uniform_int_distribution<int> byte(0, 255);
    auto code = [&] {
      const int c = byte(rng);
      return uint8_t((c & 0x7F) == 0x7F ? c ^ 1 : c);
    };
    k8.resize(cache_elems);
    v8.resize(cache_elems);
    for (auto& x : k8) x = code();
    for (auto& x : v8) x = code();
  } else {
    k16.resize(cache_elems);
    v16.resize(cache_elems);
    for (auto& x : k16) x = fly::bfloat16(dist(rng)).bits();
    for (auto& x : v16) x = fly::bfloat16(dist(rng)).bits();
  }
  std::vector<int32_t> table(static_cast<size_t>(num_blocks)), lens(static_cast<size_t>(seqs), static_cast<int32_t>(ctx));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), std::mt19937(5));
  const float kv_scale = 1.f / 128.f;

  fly_handle_t h = nullptr;
  if (fly_create_host(&h) != FLY_STATUS_SUCCESS) {
    fly::bench::fail_row(state, row, fly_last_error());
    return;
  }
  fly_pa_decode_args a = FLY_PA_DECODE_ARGS_INIT;
  a.num_seqs = seqs; a.q_len = q_len; a.num_q_heads = q_heads; a.num_kv_heads = kv_heads; a.head_dim = kHeadDim;
  a.q_type = FLY_DTYPE_BF16; a.kv_type = kv; a.kv_layout = FLY_KV_LAYOUT_NHD;
  a.q = q.data(); a.q_stride_seq = q_len * q_heads * kHeadDim; a.q_stride_token = q_heads * kHeadDim; a.q_stride_head = kHeadDim;
  a.out = out.data(); a.out_stride_seq = a.q_stride_seq; a.out_stride_token = a.q_stride_token; a.out_stride_head = kHeadDim;
  a.k_cache = fp8 ? static_cast<const void*>(k8.data()) : static_cast<const void*>(k16.data());
  a.v_cache = fp8 ? static_cast<const void*>(v8.data()) : static_cast<const void*>(v16.data());
  a.num_blocks = num_blocks; a.block_size = kBlock; a.k_block_stride = a.v_block_stride = block_elems;
  a.block_tables = table.data(); a.block_table_stride = a.max_blocks_per_seq = blocks_per_seq;
  a.seq_lens = lens.data(); a.max_seq_len = ctx;
  a.k_scale = a.v_scale = fp8 ? &kv_scale : nullptr;  // host backend: host pointers
  a.scale = 1.f / std::sqrt(float(kHeadDim));
  size_t ws_bytes = 0;
  if (fly_pa_decode_workspace_size(h, &a, &ws_bytes) != FLY_STATUS_SUCCESS) {
    fly::bench::fail_row(state, row, fly_last_error());
    fly_destroy(h);
    return;
  }
  std::vector<unsigned char> ws(ws_bytes);
  bool failed = false;
  for (auto _s : state) {
    if (fly_pa_decode(h, &a, ws.empty() ? nullptr : ws.data(), ws.size(), nullptr) != FLY_STATUS_SUCCESS) {
      failed = true;
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  if (failed) {
    fly::bench::fail_row(state, row, fly_last_error());
  } else if (!std::all_of(out.begin(), out.end(), [](uint16_t b) { return std::isfinite(float(fly::bfloat16::from_bits(b))); })) {
    fly::bench::fail_row(state, row, "fly_pa_decode wrote a non-finite output");
  } else {
    const double kv_bytes = double(seqs * ctx * kv_heads * kHeadDim) * 2.0 * (fp8 ? 1.0 : 2.0);  // K and V
    state.counters["KV_bytes"] = benchmark::Counter(kv_bytes, benchmark::Counter::kIsIterationInvariantRate,
                                                    benchmark::Counter::OneK::kIs1000);
  }
  fly_destroy(h);
}

// One sequence, 32 query heads over 8 kv heads: small enough for the default run on any machine.
const int registered = [] {
  for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN})
    for (int64_t ctx : {512, 4096})
      benchmark::RegisterBenchmark(
          (std::string("BM_HostPaDecode/") + fly_dtype_string(kv) + "/1x" + std::to_string(ctx)).c_str(),
          BM_HostPaDecode, HostShape{1, ctx, 32, 8, 1, kv})
          ->Unit(benchmark::kMicrosecond);
  return 1;
}();

}  // namespace

namespace fly::bench {

// fly_bench --op pa_decode on the host backend (bench_cli.hpp).
void register_host_pa_decode_row(const CliRequest& r, std::vector<std::string>* names) {
  const std::string name = std::string("host/pa_decode/") + fly_dtype_string(r.kv) + "/" + std::to_string(r.batch) +
                           "x" + std::to_string(r.ctx) + "/h" + std::to_string(r.hq) + "-" + std::to_string(r.hkv) +
                           "/q" + std::to_string(r.q_len);
  benchmark::RegisterBenchmark(name.c_str(), BM_HostPaDecode, HostShape{r.batch, r.ctx, r.hq, r.hkv, r.q_len, r.kv})
      ->Unit(benchmark::kMicrosecond);
  names->push_back(name);
}

}  // namespace fly::bench
