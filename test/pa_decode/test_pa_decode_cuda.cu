// Every compiled sm_90a paged-decode variant against the independent double-precision reference
// (pa_decode_case.hpp) on fresh random cases, through the C API on the caller's stream: outputs
// poisoned, every element checked, and nothing outside the results written. Plus a cache beyond
// 4 GiB, CUDA-graph capture replayed with changed lengths, tables, scales and data, and one handle
// shared by 8 threads on 8 streams.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/cuda_test.hpp"
#include "common/late_writer.cuh"
#include "fly/fly.h"
#include "pa_decode/pa_decode_registry.hpp"
#include "pa_decode/pa_decode_validate.hpp"
#include "pa_decode_case.hpp"

namespace {

using fly_test::PaDecodeCase;
using fly_test::PaDecodeConfig;

// The GPU computes P (the softmax weights) in the MMA's 16-bit type before P V, which the fp32
// reference bound does not cover: up to half an ulp of P per weight, i.e. 2^-9 (bf16) / 2^-12 (f16)
// of sum p |v| / sum p <= max |v|. Doubled, times the largest |V| a case holds (pa_decode_case.hpp).
double p_rounding_bound(const PaDecodeConfig& c) {
  const bool fp8 = c.kv_type == FLY_DTYPE_E4M3FN || c.kv_type == FLY_DTYPE_E4M3FNUZ;
  const double vmax = fp8 ? 4.0 * (c.scales ? c.v_scale : 1.0) : 2.0;
  const double p_half_ulp = c.kv_type == FLY_DTYPE_BF16 ? std::ldexp(1.0, -9) : std::ldexp(1.0, -12);
  return 2 * p_half_ulp * vmax;
}

// +inf or -inf in a 16-bit cache type.
uint16_t pa_encode_inf(fly_dtype_t t, bool negative) {
  const uint16_t pos = t == FLY_DTYPE_BF16 ? 0x7F80 : 0x7C00;
  return negative ? uint16_t(pos | 0x8000) : pos;
}

template <class T>
T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  if (v.empty()) return nullptr;
  if (cudaMalloc(&d, v.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

// The case's vectors on the device, and the way back for out and lse.
struct DeviceCase {
  uint16_t *q = nullptr, *out = nullptr;
  float* lse = nullptr;
  uint8_t *k = nullptr, *v = nullptr;
  int32_t *tables = nullptr, *lens = nullptr;
  float *scales = nullptr, *sinks = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;

  explicit DeviceCase(const PaDecodeCase& c) {
    q = to_device(c.q);
    out = to_device(c.out);
    lse = to_device(c.lse);
    k = to_device(c.k_bytes);
    v = to_device(c.v_bytes);
    tables = to_device(c.block_tables);
    lens = to_device(c.seq_lens);
    scales = to_device(c.scales);
    sinks = to_device(c.sinks);
    cudaDeviceSynchronize();  // as upload's copies, landed before any stream's launch
  }
  ~DeviceCase() {
    for (void* p : {(void*)q, (void*)out, (void*)lse, (void*)k, (void*)v, (void*)tables, (void*)lens, (void*)scales,
                    (void*)sinks, workspace})
      cudaFree(p);
  }
  fly_test::PaDecodeBuffers buffers() const { return {q, out, lse, k, v, tables, lens, scales, sinks}; }
  // Refreshes every input from `c` (same sizes) and re-poisons the outputs.
  void upload(const PaDecodeCase& c) {
    cudaMemcpy(q, c.q.data(), c.q.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(out, c.out.data(), c.out.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(lse, c.lse.data(), c.lse.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(k, c.k_bytes.data(), c.k_bytes.size(), cudaMemcpyHostToDevice);
    if (v != nullptr) cudaMemcpy(v, c.v_bytes.data(), c.v_bytes.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(tables, c.block_tables.data(), c.block_tables.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(lens, c.seq_lens.data(), c.seq_lens.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(scales, c.scales.data(), c.scales.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(sinks, c.sinks.data(), c.sinks.size() * 4, cudaMemcpyHostToDevice);
    // A copy from pageable memory may return before its device write lands, and the tests launch
    // on non-blocking streams, which do not wait for the legacy stream's copies.
    cudaDeviceSynchronize();
  }
  void download(PaDecodeCase& c) const {
    cudaMemcpy(c.out.data(), out, c.out.size() * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(c.lse.data(), lse, c.lse.size() * 4, cudaMemcpyDeviceToHost);
  }
};

struct Handle {
  fly_handle_t h = nullptr;
  Handle() { fly_create(&h); }
  ~Handle() { fly_destroy(h); }
};

std::string explain(fly_handle_t h, const fly_pa_decode_args& a) {
  char line[FLY_PA_DECODE_EXPLAIN_BYTES];
  if (fly_pa_decode_explain(h, &a, line, sizeof line) != FLY_STATUS_SUCCESS) return std::string("error: ") + fly_last_error();
  return line;
}

// Runs variant `v` on the device buffers `d`, which hold the inputs of `on` (its own plan, the
// workspace the library sizes, filled with random bytes), on stream `s` right after `before(s)`
// enqueues whatever it likes there, and checks the outputs against `expect`'s reference; returns
// the plan as text.
template <class Before>
std::string run_and_check(const fly::dispatch::PaDecodeVariant& v, DeviceCase& d, const PaDecodeCase& on,
                          PaDecodeCase& expect, int sms, cudaStream_t s, Before before) {
  EXPECT_NE(d.q, nullptr);
  const fly_pa_decode_args a = fly_test::pa_decode_args(on, d.buffers());
  fly::dispatch::PaDecodeProblem p{};
  EXPECT_EQ(fly::dispatch::validate_pa_decode_args("test", &a, fly::dispatch::Target::sm90a, &p), FLY_STATUS_SUCCESS)
      << fly_last_error();
  fly::dispatch::PaDecodePlan plan;
  std::string why;
  const auto* chosen = fly::dispatch::select_pa_decode_variant(std::span(&v, 1), p, fly::dispatch::Target::sm90a, sms, &plan, &why);
  EXPECT_EQ(chosen, &v) << why;
  if (chosen == nullptr) return why;
  const size_t ws = fly::dispatch::pa_decode_workspace_bytes(p);
  if (ws > 0) {
    // the workspace holds garbage, as the caller's does: the splits' counters need no initial value
    EXPECT_EQ(cudaMalloc(&d.workspace, ws), cudaSuccess);
    std::vector<uint8_t> garbage(ws);
    std::mt19937 rng{uint32_t(ws)};
    for (uint8_t& b : garbage) b = uint8_t(rng());
    EXPECT_EQ(cudaMemcpy(d.workspace, garbage.data(), ws, cudaMemcpyHostToDevice), cudaSuccess);
  }
  plan.workspace = d.workspace;
  // the legacy stream's copies (the garbage, the caller's poison) land before a launch on `s`,
  // which may be non-blocking
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  before(s);
  EXPECT_EQ(v.launch(p, plan, s), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  d.download(expect);
  const double extra = p_rounding_bound(expect.c);
  for (double& t : expect.tol_out) t += extra;
  const std::string err = fly_test::check_pa_decode(expect);
  EXPECT_EQ(err, "") << v.name << ": " << fly_test::describe(expect.c) << "\n" << why;
  return why;
}

// ... `c` alone, on the default stream.
std::string run_and_check(const fly::dispatch::PaDecodeVariant& v, PaDecodeCase& c, int sms) {
  DeviceCase d(c);
  return run_and_check(v, d, c, c, sms, nullptr, [](cudaStream_t) {});
}

// The current device's SMs, for the split plans the tests make.
int device_sms() {
  int sms = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  return sms;
}

// A spread of cases for one variant: every axis value appears, edges of the context included.
std::vector<PaDecodeConfig> cases_for(const fly::dispatch::PaDecodeVariant& v, uint64_t seed) {
  std::vector<PaDecodeConfig> out;
  const int64_t blocks[] = {16, 32, 64};
  const struct {
    int64_t hq, hkv, q_len;
  } groups[] = {{4, 4, 1}, {10, 2, 2}, {8, 1, 3}, {32, 2, 1}, {16, 1, 4}, {5, 1, 4}};
  for (int n = 0; n < 6; ++n) {
    PaDecodeConfig c;
    c.seed = seed * 100 + n;
    c.head_dim = v.head_dim;
    c.block_size = blocks[n % 3];
    c.num_q_heads = groups[n].hq;
    c.num_kv_heads = groups[n].hkv;
    c.q_len = groups[n].q_len;
    c.layout = v.v_dim_major ? FLY_KV_LAYOUT_VLLM : (n % 2 == 0 ? FLY_KV_LAYOUT_NHD : FLY_KV_LAYOUT_HND);
    if (v.kv_class != FLY_DTYPE_E4M3FN) c.q_type = c.kv_type = v.kv_class;
    if (v.kv_class == FLY_DTYPE_E4M3FN) {
      c.kv_type = n % 2 == 0 ? FLY_DTYPE_E4M3FN : FLY_DTYPE_E4M3FNUZ;
      c.q_type = n % 3 == 0 ? FLY_DTYPE_F16 : FLY_DTYPE_BF16;
      c.scales = n != 1;
    }
    const int32_t bs = int32_t(c.block_size);
    // short contexts (one split), then long ones (split-K and the reduction)
    if (n < 3) {
      c.seq_lens = {0, 1, bs - 1, bs + 1, 3 * bs + 5, 200};
    } else {
      c.seq_lens = {1537, 2 * bs, 4000 + n, 777};
    }
    c.num_seqs = int64_t(c.seq_lens.size());
    c.interleave_kv = n == 2 || n == 5;
    c.q_strides = n == 1 ? fly_test::StrideMode::padded : fly_test::StrideMode::contiguous;
    c.out_strides = n == 4 ? fly_test::StrideMode::head_major : n == 2 ? fly_test::StrideMode::padded
                                                                       : fly_test::StrideMode::contiguous;
    c.logit_softcap = n == 3 ? 30.f : 0.f;
    c.sliding_window = n == 4 ? 300 : n == 1 ? 7 : 0;
    c.sinks = n == 0 || n == 5;
    c.lse = n != 2;
    c.bad_block_ids = n == 5 ? 3 : 0;
    out.push_back(c);
  }
  return out;
}

TEST(PaDecodeCuda, EveryVariantMatchesTheReference) {
  FLY_SKIP_WITHOUT_GPU();
  const auto variants = fly::dispatch::pa_decode_variants();
  ASSERT_FALSE(variants.empty()) << "a CUDA build must compile the sm_90a paged-decode grid";
  const int sms = device_sms();
  uint64_t seed = 1;
  for (const auto& v : variants) {
    const auto cases = cases_for(v, seed++);
    for (size_t n = 0; n < cases.size(); ++n) {
      // a sanitizer sweep: the short-context case (context edges, sinks) and the long one with
      // splits, an interleaved cache and bad block ids
      if (fly_test::sanitizer_sweep() && n != 0 && n != 5) continue;
      PaDecodeCase k = fly_test::make_pa_decode_case(cases[n]);
      run_and_check(v, k, sms);
    }
  }
}

// A case `v` computes, 8 query heads over 2 kv heads: v's head_dim and cache class, the token-major
// layout `tok` (or vLLM's where v reads V dim-major), `fp8` for an fp8 cache with bf16 q.
PaDecodeConfig eight_heads_over_two(const fly::dispatch::PaDecodeVariant& v, uint64_t seed, fly_kv_layout_t tok,
                                    fly_dtype_t fp8) {
  PaDecodeConfig c;
  c.seed = seed;
  c.head_dim = v.head_dim;
  c.layout = v.v_dim_major ? FLY_KV_LAYOUT_VLLM : tok;
  if (v.kv_class != FLY_DTYPE_E4M3FN) c.q_type = c.kv_type = v.kv_class;
  if (v.kv_class == FLY_DTYPE_E4M3FN) c.kv_type = fp8;
  c.num_q_heads = 8;
  c.num_kv_heads = 2;
  return c;
}

// Device data past what the host arguments promise, and windows past the kernels' 32-bit range:
// stored lengths negative, above max_seq_len and above the block table's max_blocks_per_seq
// columns (the table's padding columns hold -7: a kernel reading past the valid columns would
// read zeros where the reference reads its blocks), a window of 2^32 + 5 (which must not act as 5)
// and one of 2^31 - 1 with q_len 4 (whose start must not wrap). Every variant, against the
// reference, which clamps and windows in int64.
TEST(PaDecodeCuda, LengthsPastTheBoundsAndHugeWindowsMatchTheReference) {
  FLY_SKIP_WITHOUT_GPU();
  const int sms = device_sms();
  uint64_t seed = 700;
  for (const auto& v : fly::dispatch::pa_decode_variants()) {
    for (int n = 0; n < 2; ++n) {
      PaDecodeConfig c = eight_heads_over_two(v, seed++, FLY_KV_LAYOUT_NHD, FLY_DTYPE_E4M3FN);
      if (n == 0) {
        c.q_len = 2;
        c.seq_lens = {-5, 5000, 40, 900, 1000};
        c.max_seq_len = 1000;
        c.max_blocks_per_seq = 50;  // 800 tokens of table: lengths 900 and 1000 see 800
        c.sliding_window = (int64_t{1} << 32) + 5;
      } else {
        c.q_len = 4;
        c.seq_lens = {1, 2, 3, 700};
        c.sliding_window = INT32_MAX;
      }
      c.num_seqs = int64_t(c.seq_lens.size());
      PaDecodeCase k = fly_test::make_pa_decode_case(c);
      run_and_check(v, k, sms);
      if (HasFatalFailure()) return;
    }
  }
}

// Logits all -inf (q = (-inf, 0, ...) against a K of ones, for the first query head of every kv
// head) give no token a weight: out 0 and lse -inf, sinks or not (fly.h), as the reference has it;
// the other heads are ordinary rows. Every variant, one short and one split context.
TEST(PaDecodeCuda, LogitsAllMinusInfinityAreARowThatSeesNoToken) {
  FLY_SKIP_WITHOUT_GPU();
  const int sms = device_sms();
  uint64_t seed = 800;
  for (const auto& v : fly::dispatch::pa_decode_variants()) {
    PaDecodeConfig c = eight_heads_over_two(v, seed++, FLY_KV_LAYOUT_HND, FLY_DTYPE_E4M3FNUZ);
    c.seq_lens = {37, 3000};
    c.num_seqs = 2;
    c.sinks = true;
    PaDecodeCase k = fly_test::make_pa_decode_case(c);
    const uint16_t one16 = c.kv_type == FLY_DTYPE_F16 ? 0x3C00 : 0x3F80;
    const uint8_t one8 = c.kv_type == FLY_DTYPE_E4M3FNUZ ? 0x40 : 0x38;
    const int64_t es = fly_test::pa_esize(c.kv_type);
    for (size_t b = 0; b + es <= k.k_bytes.size(); b += size_t(es)) {
      if (es == 2) std::memcpy(&k.k_bytes[b], &one16, 2);
      else k.k_bytes[b] = one8;
    }
    const uint16_t minus_inf = c.q_type == FLY_DTYPE_F16 ? 0xFC00 : 0xFF80, zero = 0;
    for (int64_t s = 0; s < c.num_seqs; ++s)
      for (int64_t h = 0; h < c.num_q_heads; h += c.num_q_heads / c.num_kv_heads)
        for (int64_t d = 0; d < c.head_dim; ++d)
          std::memcpy(&k.q[size_t(fly_test::pa_row_offset(k.q_stride, s, 0, h) + d)], d == 0 ? &minus_inf : &zero, 2);
    fly_test::pa_reference(k);
    for (int64_t s = 0; s < c.num_seqs; ++s) {
      ASSERT_EQ(k.ref_lse[size_t(s * c.num_q_heads)], -std::numeric_limits<double>::infinity()) << "the reference's row";
      ASSERT_TRUE(std::isfinite(k.ref_lse[size_t(s * c.num_q_heads + 1)]));
    }
    run_and_check(v, k, sms);
    if (HasFatalFailure()) return;
  }
}

// A workspace that overlaps an argument is refused before anything runs: the kernels write it
// while they read the arguments.
TEST(PaDecodeCuda, AWorkspaceOverlappingAnArgumentIsRefused) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  ASSERT_NE(h.h, nullptr);
  PaDecodeConfig c;
  c.layout = FLY_KV_LAYOUT_NHD;
  c.head_dim = 128;
  c.num_q_heads = 8;
  c.num_kv_heads = 1;
  c.seq_lens = {8000};
  c.num_seqs = 1;
  PaDecodeCase k = fly_test::make_pa_decode_case(c);
  DeviceCase d(k);
  fly_pa_decode_args a = fly_test::pa_decode_args(k, d.buffers());
  size_t ws = 0;
  ASSERT_EQ(fly_pa_decode_workspace_size(h.h, &a, &ws), FLY_STATUS_SUCCESS) << fly_last_error();
  ASSERT_GT(ws, 0u) << "one long sequence splits";
  void* on_k = const_cast<void*>(a.k_cache);
  EXPECT_EQ(fly_pa_decode(h.h, &a, on_k, ws, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fly_last_error()).find("overlap k_cache"), std::string::npos) << fly_last_error();
  CUDA_OK(cudaDeviceSynchronize());
}

// A persistent variant's warps take unit after unit: planned for one SM and for three (a grid of a
// few blocks), every warp walks many units of different lengths (empty ones included), its ring
// running on across them, and with split plans of its own.
TEST(PaDecodeCuda, PersistentVariantsTakeUnitAfterUnit) {
  FLY_SKIP_WITHOUT_GPU();
  int persistent = 0;
  uint64_t seed = 900;
  for (const auto& v : fly::dispatch::pa_decode_variants()) {
    if (!v.persistent) continue;
    ++persistent;
    for (int sms : {1, 3}) {
      const auto cases = cases_for(v, seed++);
      for (size_t n = 0; n < cases.size(); ++n) {
        if (fly_test::sanitizer_sweep() && n != 0 && n != 5) continue;
        PaDecodeCase k = fly_test::make_pa_decode_case(cases[n]);
        const std::string why = run_and_check(v, k, sms);
        EXPECT_NE(why.find("persistent blocks"), std::string::npos) << why;
      }
    }
  }
  if (persistent == 0) GTEST_SKIP() << "SKIPPED: no persistent paged-decode variant is compiled in (FLY_PA_DECODE_FILTER)";
}

// The C API's own choice, on the library's handle, for every layout and kv type.
TEST(PaDecodeCuda, DispatchedCallsMatchTheReference) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  ASSERT_NE(h.h, nullptr);
  int n = 0;
  for (fly_kv_layout_t layout : {FLY_KV_LAYOUT_VLLM, FLY_KV_LAYOUT_NHD, FLY_KV_LAYOUT_HND})
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_F16, FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ}) {
      PaDecodeConfig c;
      c.seed = 500 + n++;
      c.layout = layout;
      c.kv_type = kv;
      c.q_type = kv == FLY_DTYPE_F16 ? FLY_DTYPE_F16 : FLY_DTYPE_BF16;
      c.scales = kv == FLY_DTYPE_E4M3FN || kv == FLY_DTYPE_E4M3FNUZ;
      c.head_dim = 128;
      c.num_q_heads = 12;
      c.num_kv_heads = 2;
      c.seq_lens = {3000, 0, 65, 700};
      c.num_seqs = 4;
      PaDecodeCase k = fly_test::make_pa_decode_case(c);
      DeviceCase d(k);
      fly_pa_decode_args a = fly_test::pa_decode_args(k, d.buffers());
      size_t ws = 0;
      ASSERT_EQ(fly_pa_decode_workspace_size(h.h, &a, &ws), FLY_STATUS_SUCCESS) << fly_last_error();
      if (ws > 0) CUDA_OK(cudaMalloc(&d.workspace, ws));
      ASSERT_EQ(fly_pa_decode(h.h, &a, d.workspace, ws, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
      CUDA_OK(cudaDeviceSynchronize());
      d.download(k);
      for (double& t : k.tol_out) t += p_rounding_bound(k.c);
      EXPECT_EQ(fly_test::check_pa_decode(k), "") << fly_test::describe(k.c) << "\n" << explain(h.h, a);
    }
}

// Block ids address a cache past 4 GiB: the case's blocks are copied to the end of a larger
// allocation and the table is shifted, so 32-bit offset arithmetic would read the wrong bytes.
TEST(PaDecodeCuda, CacheBeyondFourGiB) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  PaDecodeConfig c;
  c.head_dim = 128;
  c.block_size = 16;
  c.num_q_heads = 8;
  c.num_kv_heads = 2;
  c.layout = FLY_KV_LAYOUT_HND;
  c.interleave_kv = true;
  c.seq_lens = {300, 1200, 17};
  c.num_seqs = 3;
  PaDecodeCase k = fly_test::make_pa_decode_case(c);
  const int64_t stride_bytes = k.k_block_stride * 2;
  const int64_t shift = (int64_t(5) << 30) / stride_bytes + 1;  // the first block past 5 GiB
  const size_t bytes = size_t(shift) * size_t(stride_bytes) + k.k_bytes.size();
  uint8_t* big = nullptr;
  CUDA_OK(cudaMalloc(&big, bytes));
  CUDA_OK(cudaMemset(big, 0xFF, size_t(shift) * size_t(stride_bytes)));  // NaN below the real blocks
  CUDA_OK(cudaMemcpy(big + size_t(shift) * size_t(stride_bytes), k.k_bytes.data(), k.k_bytes.size(), cudaMemcpyHostToDevice));
  std::vector<int32_t> tables = k.block_tables;
  for (size_t i = 0; i < tables.size(); ++i)
    if (int64_t(i % size_t(k.block_table_stride)) < k.max_blocks_per_seq) tables[i] += int32_t(shift);
  DeviceCase d(k);
  CUDA_OK(cudaMemcpy(d.tables, tables.data(), tables.size() * 4, cudaMemcpyHostToDevice));
  fly_pa_decode_args a = fly_test::pa_decode_args(k, d.buffers());
  a.k_cache = big;
  a.v_cache = big + k.v_offset;
  a.num_blocks = shift + k.num_blocks;
  size_t ws = 0;
  ASSERT_EQ(fly_pa_decode_workspace_size(h.h, &a, &ws), FLY_STATUS_SUCCESS) << fly_last_error();
  if (ws > 0) CUDA_OK(cudaMalloc(&d.workspace, ws));
  ASSERT_EQ(fly_pa_decode(h.h, &a, d.workspace, ws, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  CUDA_OK(cudaDeviceSynchronize());
  d.download(k);
  cudaFree(big);
  for (double& t : k.tol_out) t += p_rounding_bound(k.c);
  EXPECT_EQ(fly_test::check_pa_decode(k), "") << explain(h.h, a);
}

// One capture, replayed with new lengths, tables, scales, sinks and data in the same buffers.
// The checked mode on the GPU: the first bad id the call would read (ids past a sequence's length
// are not read) is named and nothing is written; a clean table decodes as unchecked; a capturing
// stream is refused (the check waits for the stream).
TEST(PaDecodeCuda, CheckedCallsNameTheFirstBadIdAndRefuseCapture) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  PaDecodeConfig c;
  c.seed = 901;
  c.head_dim = 128;
  c.layout = FLY_KV_LAYOUT_NHD;
  c.num_q_heads = 8;
  c.num_kv_heads = 2;
  c.seq_lens = {300, 0, 45};
  c.num_seqs = 3;
  PaDecodeCase k = fly_test::make_pa_decode_case(c);
  k.block_tables[1 * k.block_table_stride + 0] = -7;  // sequence 1 reads nothing
  const int32_t n = static_cast<int32_t>(k.num_blocks);
  k.block_tables[2 * k.block_table_stride + 2] = n + 3;  // (2, 2): the first bad id read
  fly_test::poison_outputs(k);
  DeviceCase d(k);
  fly_pa_decode_args a = fly_test::pa_decode_args(k, d.buffers());
  a.flags = FLY_PA_DECODE_CHECK_BLOCK_TABLES;
  size_t ws = 0;
  ASSERT_EQ(fly_pa_decode_workspace_size(h.h, &a, &ws), FLY_STATUS_SUCCESS) << fly_last_error();
  if (ws > 0) CUDA_OK(cudaMalloc(&d.workspace, ws));
  ASSERT_EQ(fly_pa_decode(h.h, &a, d.workspace, ws, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(fly_last_error()), "fly_pa_decode: block_tables[2][2] = " + std::to_string(n + 3) +
                                               " is outside [0, num_blocks = " + std::to_string(n) + ")");
  const std::vector<uint16_t> poisoned = k.out;
  CUDA_OK(cudaDeviceSynchronize());
  d.download(k);
  EXPECT_EQ(k.out, poisoned) << "a refused checked call writes nothing";

  // a clean table: the checked call decodes as the reference says
  k.block_tables[2 * k.block_table_stride + 2] = 0;
  fly_test::pa_reference(k);
  fly_test::poison_outputs(k);
  d.upload(k);
  ASSERT_EQ(fly_pa_decode(h.h, &a, d.workspace, ws, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  CUDA_OK(cudaDeviceSynchronize());
  d.download(k);
  for (double& t : k.tol_out) t += p_rounding_bound(k.c);
  EXPECT_EQ(fly_test::check_pa_decode(k), "") << fly_test::describe(k.c);

  // a capturing stream is refused before anything is enqueued
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  EXPECT_EQ(fly_pa_decode(h.h, &a, d.workspace, ws, s), FLY_STATUS_NOT_SUPPORTED);
  EXPECT_NE(std::string(fly_last_error()).find("capturing"), std::string::npos) << fly_last_error();
  cudaGraph_t g = nullptr;
  CUDA_OK(cudaStreamEndCapture(s, &g));
  if (g != nullptr) CUDA_OK(cudaGraphDestroy(g));
  CUDA_OK(cudaStreamDestroy(s));
}

// Two cases of one shape (the same sizes, so one's device buffers take the other's inputs): `c`
// with the lengths `lens`, then with `next_lens`, another seed and other scales; max_seq_len the
// longest of both, num_blocks pages in the cache.
std::pair<PaDecodeCase, PaDecodeCase> cases_of_one_shape(PaDecodeConfig c, std::vector<int32_t> lens,
                                                         std::vector<int32_t> next_lens, int64_t num_blocks,
                                                         uint64_t seed) {
  c.num_seqs = int64_t(lens.size());
  c.max_seq_len = std::max(*std::max_element(lens.begin(), lens.end()), *std::max_element(next_lens.begin(), next_lens.end()));
  c.num_blocks = num_blocks;
  c.seq_lens = std::move(lens);
  PaDecodeCase first = fly_test::make_pa_decode_case(c);
  c.seed = seed;
  c.seq_lens = std::move(next_lens);
  c.k_scale = 0.75f;
  c.v_scale = 0.5f;
  return {std::move(first), fly_test::make_pa_decode_case(c)};
}

TEST(PaDecodeCuda, GraphReplaySeesNewInputs) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN}) {
    PaDecodeConfig c;
    c.head_dim = 128;
    c.num_q_heads = 16;
    c.num_kv_heads = 4;
    c.q_len = 2;
    c.kv_type = kv;
    c.scales = kv == FLY_DTYPE_E4M3FN;
    c.sinks = true;
    c.layout = FLY_KV_LAYOUT_NHD;
    auto [first, second] = cases_of_one_shape(c, {900, 33, 2048, 5}, {2000, 1, 17, 1024}, 200, 99);
    ASSERT_EQ(first.k_bytes.size(), second.k_bytes.size());
    DeviceCase d(first);
    fly_pa_decode_args a = fly_test::pa_decode_args(first, d.buffers());
    size_t ws = 0;
    ASSERT_EQ(fly_pa_decode_workspace_size(h.h, &a, &ws), FLY_STATUS_SUCCESS) << fly_last_error();
    if (ws > 0) CUDA_OK(cudaMalloc(&d.workspace, ws));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ASSERT_EQ(fly_pa_decode(h.h, &a, d.workspace, ws, s), FLY_STATUS_SUCCESS) << fly_last_error();
    CUDA_OK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, g, 0));
    for (PaDecodeCase* k : {&first, &second}) {
      d.upload(*k);
      CUDA_OK(cudaGraphLaunch(exec, s));
      CUDA_OK(cudaStreamSynchronize(s));
      d.download(*k);
      for (double& t : k->tol_out) t += p_rounding_bound(k->c);
      EXPECT_EQ(fly_test::check_pa_decode(*k), "") << fly_test::describe(k->c);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
  }
}

// Every variant launched behind a kernel that rewrites its lengths, tables, cache, q and scales
// after the decode's blocks are resident: the results are those of the new inputs (the reference
// of the second case), whatever the blocks guessed from the old ones before the wait.
TEST(PaDecodeCuda, InputsTheKernelBeforeWritesAreTheOnesRead) {
  FLY_SKIP_WITHOUT_GPU();
  const int sms = device_sms();
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  uint64_t seed = 700;
  for (const auto& v : fly::dispatch::pa_decode_variants()) {
    PaDecodeConfig c;
    c.head_dim = v.head_dim;
    c.num_q_heads = 8;
    c.num_kv_heads = 2;
    c.layout = v.v_dim_major ? FLY_KV_LAYOUT_VLLM : FLY_KV_LAYOUT_NHD;
    c.kv_type = c.q_type = v.kv_class;
    if (v.kv_class == FLY_DTYPE_E4M3FN) {
      c.q_type = FLY_DTYPE_BF16;
      c.scales = true;
    }
    c.seed = seed++;
    auto [before, after] = cases_of_one_shape(c, {2000, 300, 1, 1500}, {700, 2048, 64, 1000}, 300, seed++);
    ASSERT_EQ(before.k_bytes.size(), after.k_bytes.size());
    ASSERT_EQ(before.block_tables.size(), after.block_tables.size());
    DeviceCase d(before), next(after);
    CUDA_OK(cudaMemcpy(d.out, after.out.data(), after.out.size() * 2, cudaMemcpyHostToDevice));  // poisoned
    CUDA_OK(cudaMemcpy(d.lse, after.lse.data(), after.lse.size() * 4, cudaMemcpyHostToDevice));
    fly_test::LateCopies late{{{d.q, next.q, after.q.size() * 2},
                     {d.k, next.k, after.k_bytes.size()},
                     {d.v, next.v, after.v_bytes.size()},
                     {d.tables, next.tables, after.block_tables.size() * 4},
                     {d.lens, next.lens, after.seq_lens.size() * 4},
                     {d.scales, next.scales, after.scales.size() * 4}},
                    6,
                    200'000};
    run_and_check(v, d, before, after, sms, s, [&](cudaStream_t on) { fly_test::late_writer<<<1, 256, 0, on>>>(late); });
  }
  cudaStreamDestroy(s);
}

// One handle, 8 threads, each on its own stream with its own case (every kv type and layout, so the
// threads' first calls race to fill the handle's lazy state), 3 calls each: every result matches
// the reference.
TEST(PaDecodeCuda, OneHandleEightThreadsEightStreams) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  constexpr int kThreads = 8;
  const fly_dtype_t kvs[] = {FLY_DTYPE_BF16, FLY_DTYPE_F16, FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ};
  const fly_kv_layout_t layouts[] = {FLY_KV_LAYOUT_NHD, FLY_KV_LAYOUT_HND, FLY_KV_LAYOUT_VLLM};
  std::vector<PaDecodeCase> cases;
  std::vector<std::unique_ptr<DeviceCase>> devs;
  std::vector<fly_pa_decode_args> args;
  std::vector<size_t> ws(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    PaDecodeConfig c;
    c.seed = 900 + t;
    c.kv_type = kvs[t % 4];
    c.q_type = c.kv_type == FLY_DTYPE_F16 ? FLY_DTYPE_F16 : FLY_DTYPE_BF16;
    c.scales = c.kv_type == FLY_DTYPE_E4M3FN || c.kv_type == FLY_DTYPE_E4M3FNUZ;
    c.layout = layouts[t % 3];
    c.head_dim = t % 2 == 0 ? 128 : 64;
    c.num_q_heads = 8 * (1 + t % 2);
    c.num_kv_heads = 2;
    c.q_len = 1 + t % 3;
    c.seq_lens = {1500 + 100 * t, 40, 0, 700};
    c.num_seqs = 4;
    cases.push_back(fly_test::make_pa_decode_case(c));
  }
  for (int t = 0; t < kThreads; ++t) {
    devs.push_back(std::make_unique<DeviceCase>(cases[size_t(t)]));
    args.push_back(fly_test::pa_decode_args(cases[size_t(t)], devs.back()->buffers()));
    ASSERT_EQ(fly_pa_decode_workspace_size(h.h, &args.back(), &ws[size_t(t)]), FLY_STATUS_SUCCESS) << fly_last_error();
    if (ws[size_t(t)] > 0) CUDA_OK(cudaMalloc(&devs.back()->workspace, ws[size_t(t)]));
  }
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const size_t i = size_t(t);
      cudaStream_t s;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        ++failures[i];
        return;
      }
      for (int call = 0; call < 3; ++call)
        if (fly_pa_decode(h.h, &args[i], devs[i]->workspace, ws[i], s) != FLY_STATUS_SUCCESS) ++failures[i];
      if (cudaStreamSynchronize(s) != cudaSuccess) ++failures[i];
      cudaStreamDestroy(s);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t;
    PaDecodeCase& k = cases[size_t(t)];
    devs[size_t(t)]->download(k);
    for (double& tol : k.tol_out) tol += p_rounding_bound(k.c);
    EXPECT_EQ(fly_test::check_pa_decode(k), "") << "thread " << t << ": " << fly_test::describe(k.c);
  }
}

// Every (sequence, page) its own block id, so that what a test writes into one page reaches one
// sequence only.
void give_every_page_its_own_block(PaDecodeCase& k) {
  for (int64_t s = 0; s < k.c.num_seqs; ++s)
    for (int64_t j = 0; j < k.max_blocks_per_seq; ++j)
      k.block_tables[size_t(s * k.block_table_stride + j)] = int32_t(s * k.max_blocks_per_seq + j);
  ASSERT_LE(k.c.num_seqs * k.max_blocks_per_seq, k.num_blocks);
}

// `x` through fly_pa_decode on the handle's GPU (the variant the dispatcher picks, the workspace
// the library sizes), its outputs downloaded into x.
void run_dispatched(fly_handle_t h, PaDecodeCase& x) {
  DeviceCase d(x);
  const fly_pa_decode_args a = fly_test::pa_decode_args(x, d.buffers());
  size_t ws = 0;
  ASSERT_EQ(fly_pa_decode_workspace_size(h, &a, &ws), FLY_STATUS_SUCCESS) << fly_last_error();
  if (ws > 0) CUDA_OK(cudaMalloc(&d.workspace, ws));
  ASSERT_EQ(fly_pa_decode(h, &a, d.workspace, ws, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  CUDA_OK(cudaDeviceSynchronize());
  d.download(x);
}

}  // namespace

// An fp8 cache's NaN codes in the slots past a sequence's end (inside its last page) change
// nothing, bit for bit against the clean run, through the dispatched kernels: the TMA-fed cells load
// those slots as they are (cp.async zero-fills them), mask their logits and zero their V rows, and
// rows past the group x q_len (which see every token) keep what they read to themselves. Groups 2,
// 5 and 8 (8-row cells) and 12 (16-row), one split and several.
TEST(PaDecodeCuda, Fp8NanPastTheEndChangesNothing) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  for (fly_kv_layout_t layout : {FLY_KV_LAYOUT_NHD, FLY_KV_LAYOUT_HND})
    for (fly_dtype_t kv : {FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ})
      for (int64_t group : {2, 5, 8, 12}) {
        PaDecodeConfig c;
        c.seed = 1300 + int(layout) * 16 + (kv == FLY_DTYPE_E4M3FNUZ) * 8 + int(group);
        c.layout = layout;
        c.kv_type = kv;
        c.q_type = FLY_DTYPE_BF16;
        c.head_dim = 128;
        c.seq_lens = {40, 1000};
        c.num_seqs = 2;
        c.num_q_heads = 2 * group;
        c.num_kv_heads = 2;
        c.num_blocks = 2 * ((1000 + 15) / 16);
        PaDecodeCase k = fly_test::make_pa_decode_case(c);
        ASSERT_NO_FATAL_FAILURE(give_every_page_its_own_block(k));
        run_dispatched(h.h, k);
        PaDecodeCase x = k;
        const uint8_t nan8 = kv == FLY_DTYPE_E4M3FNUZ ? 0x80 : 0x7F;
        for (int64_t s = 0; s < 2; ++s) {  // every K and V element of every slot past the end, both kv heads
          const int64_t len = c.seq_lens[size_t(s)];
          for (int64_t t = len; t < (len + 15) / 16 * 16; ++t) {
            const int64_t b = x.block_tables[size_t(s * x.block_table_stride + t / 16)];
            for (int64_t g = 0; g < 2; ++g)
              for (int64_t d = 0; d < c.head_dim; ++d) {
                x.k_bytes[size_t(b * x.k_block_stride + fly_test::pa_in_block(x, false, g, t % 16, d))] = nan8;
                x.v_bytes[size_t(x.v_offset + b * x.v_block_stride + fly_test::pa_in_block(x, true, g, t % 16, d))] = nan8;
              }
          }
        }
        run_dispatched(h.h, x);
        EXPECT_TRUE(x.out == k.out) << fly_test::describe(c) << ": NaN past the end changed out";
        EXPECT_EQ(std::memcmp(x.lse.data(), k.lse.data(), x.lse.size() * 4), 0) << fly_test::describe(c);
      }
}

// NaN and infinity through the dispatched GPU kernels of 16-bit caches, every layout (the host
// backend's test: PaDecodeHostNan). q_len 1, so every row of a kv head sees every token of its
// sequence: a NaN in q makes its row NaN; in K, every dim of the rows of that kv head; in V, that
// dim of them; no other row changes, bit for bit against the clean GPU run. A NaN past a
// sequence's end (inside its last page) changes nothing. +inf / -inf in K give the NaN pattern the
// host backend gives for the same data. (fp8 NaN codes are not preserved on the GPU, fly.h.)
TEST(PaDecodeCuda, NanAndInfinityReachTheRowsThatSeeThemAndNoOther) {
  FLY_SKIP_WITHOUT_GPU();
  Handle h;
  fly_handle_t host = nullptr;
  ASSERT_EQ(fly_create_host(&host), FLY_STATUS_SUCCESS);
  for (fly_kv_layout_t layout : {FLY_KV_LAYOUT_VLLM, FLY_KV_LAYOUT_NHD, FLY_KV_LAYOUT_HND})
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_F16}) {
      PaDecodeConfig c;
      c.seed = 1200 + int(layout) * 2 + (kv == FLY_DTYPE_F16);
      c.layout = layout;
      c.q_type = c.kv_type = kv;
      c.head_dim = 128;
      c.seq_lens = {40, 300};  // one split and several: NaN through the reduction too
      c.num_seqs = 2;
      c.num_q_heads = 4;
      c.num_kv_heads = 2;
      c.num_blocks = 2 * ((300 + 15) / 16);
      PaDecodeCase k = fly_test::make_pa_decode_case(c);
      ASSERT_NO_FATAL_FAILURE(give_every_page_its_own_block(k));  // a NaN reaches one sequence only
      auto run_gpu = [&](PaDecodeCase& x) { run_dispatched(h.h, x); };
      // the cache element (sequence s, kv head 0, token t, dim 3) of K or V
      auto cache_elem = [&](PaDecodeCase& x, bool is_v, int64_t s, int64_t t) -> uint8_t* {
        const int64_t b = x.block_tables[size_t(s * x.block_table_stride + t / c.block_size)];
        const int64_t in = fly_test::pa_in_block(x, is_v, 0, t % c.block_size, 3);
        if (!is_v) return &x.k_bytes[size_t((b * x.k_block_stride + in) * 2)];
        return &x.v_bytes[size_t(x.v_offset + (b * x.v_block_stride + in) * 2)];
      };
      auto out_at = [&](const PaDecodeCase& x, int64_t s, int64_t hq, int64_t d) {
        return size_t(fly_test::pa_row_offset(x.out_stride, s, 0, hq) + d);
      };
      auto value = [&](const PaDecodeCase& x, size_t at) {
        return float(fly_test::pa_decode_value(kv, reinterpret_cast<const uint8_t*>(&x.out[at])));
      };
      run_gpu(k);
      const std::vector<uint16_t> clean = k.out;
      const std::vector<float> clean_lse = k.lse;
      const uint16_t nan16 = 0x7FFF;
      for (int64_t s = 0; s < 2; ++s)
        for (int what = 0; what < 3; ++what) {
          PaDecodeCase x = k;
          if (what == 0) std::memcpy(&x.q[size_t(fly_test::pa_row_offset(x.q_stride, s, 0, 0) + 5)], &nan16, 2);
          if (what == 1) std::memcpy(cache_elem(x, false, s, 7), &nan16, 2);
          if (what == 2) std::memcpy(cache_elem(x, true, s, 7), &nan16, 2);
          run_gpu(x);
          SCOPED_TRACE(fly_test::describe(c) + " sequence " + std::to_string(s) +
                       (what == 0 ? " NaN in q" : what == 1 ? " NaN in K" : " NaN in V"));
          for (int64_t s2 = 0; s2 < 2; ++s2)
            for (int64_t hq = 0; hq < 4; ++hq) {
              const bool hit = s2 == s && (what == 0 ? hq == 0 : hq < 2);
              for (int64_t d = 0; d < c.head_dim; ++d) {
                const size_t at = out_at(x, s2, hq, d);
                if (hit && (what != 2 || d == 3)) {
                  EXPECT_TRUE(std::isnan(value(x, at))) << "out[" << s2 << "][" << hq << "][" << d << "]";
                } else {
                  EXPECT_EQ(x.out[at], clean[at]) << "out[" << s2 << "][" << hq << "][" << d << "]";
                }
              }
              const size_t row = size_t(s2 * 4 + hq);
              if (hit && what != 2) {
                EXPECT_TRUE(std::isnan(x.lse[row])) << "lse row " << row;
              } else {
                EXPECT_EQ(std::memcmp(&x.lse[row], &clean_lse[row], 4), 0) << "lse row " << row;
              }
            }
        }
      {  // NaN in K and V past sequence 0's end (token 45 of 40, inside its last block)
        PaDecodeCase x = k;
        std::memcpy(cache_elem(x, false, 0, 45), &nan16, 2);
        std::memcpy(cache_elem(x, true, 0, 45), &nan16, 2);
        run_gpu(x);
        EXPECT_TRUE(x.out == clean) << fly_test::describe(c) << ": NaN past the end changed out";
        EXPECT_EQ(std::memcmp(x.lse.data(), clean_lse.data(), x.lse.size() * 4), 0) << fly_test::describe(c);
      }
      for (uint16_t inf : {pa_encode_inf(kv, false), pa_encode_inf(kv, true)}) {  // +inf, -inf in K
        PaDecodeCase x = k;
        std::memcpy(cache_elem(x, false, 1, 100), &inf, 2);
        PaDecodeCase on_host = x;
        run_gpu(x);
        const fly_pa_decode_args a = fly_test::pa_decode_args(on_host, fly_test::host_buffers(on_host));
        ASSERT_EQ(fly_pa_decode(host, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
        for (int64_t s2 = 0; s2 < 2; ++s2)
          for (int64_t hq = 0; hq < 4; ++hq) {
            const size_t row = size_t(s2 * 4 + hq);
            EXPECT_EQ(std::isnan(x.lse[row]), std::isnan(on_host.lse[row]))
                << fly_test::describe(c) << " inf " << inf << " lse row " << row;
            for (int64_t d = 0; d < c.head_dim; ++d) {
              const size_t at = out_at(x, s2, hq, d);
              EXPECT_EQ(std::isnan(value(x, at)), std::isnan(value(on_host, at)))
                  << fly_test::describe(c) << " inf " << inf << " out[" << s2 << "][" << hq << "][" << d << "]";
              if (s2 == 0 || hq >= 2) EXPECT_EQ(x.out[at], clean[at]) << "a row that does not see the infinity changed";
            }
          }
      }
    }
  fly_destroy(host);
}
