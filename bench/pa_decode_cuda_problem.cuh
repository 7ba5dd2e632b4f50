// The GPU side of fly_bench's paged-decode rows (bench_pa_decode_cuda.cu): one problem's device
// buffers, rotated over several input sets when one set fits in the H200's 60 MB L2, filled on the
// GPU with random values, and the fly_pa_decode_args of a set.
//
// A problem: num_seqs sequences, each a full context of ctx tokens (seq_lens = ctx), q_len new
// query tokens per sequence (the last q_len of the context), head_dim 128, blocks of 16 tokens, NHD
// layout unless the shape says otherwise (FLY_BENCH_PA_LAYOUT=vllm or hnd, pa_decode_shapes.hpp; the same bytes,
// other access patterns). The
// pool holds exactly the blocks the sequences use; each set's block table scatters them by a
// fixed-seed random permutation of the pool (FLY_BENCH_PA_ORDER=sequential keeps them in order:
// what a fresh allocator hands out, and the access pattern closest to a contiguous cache). q is bf16 uniform in [-1, 1); the cache is bf16
// uniform in [-1, 1), or e4m3fn random finite codes (every code but the NaNs 0x7F / 0xFF) with
// k_scale = v_scale = 1/128 read from device memory.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"
#include "pa_decode_shapes.hpp"

namespace fly::bench {

// Block tables in pool order instead of scattered (FLY_BENCH_PA_ORDER=sequential).
inline bool pa_bench_sequential_blocks() {
  const char* v = std::getenv("FLY_BENCH_PA_ORDER");
  return v != nullptr && std::string(v) == "sequential";
}

inline constexpr float kPaFp8Scale = 1.f / 128.f;  // a power of two: the scaled values stay exact

// Random bf16 in [-1, 1) (kind 0) or random finite e4m3fn codes (kind 1), from a counter hash
// (splitmix64) of (seed, index): the same on every run, no host generation of gigabytes.
// Static: this header is included by one translation unit.
static __global__ void pa_fill_random(void* dst, int64_t n, uint64_t seed, int kind) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + uint64_t(i) + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    if (kind == 0) {
      const float f = float(uint32_t(z >> 40)) * (1.f / 8388608.f) - 1.f;  // 24 bits -> [-1, 1)
      static_cast<uint16_t*>(dst)[i] = fly::bfloat16(f).bits();
    } else {
      uint32_t c = uint32_t(z >> 56);
      if ((c & 0x7Fu) == 0x7Fu) c ^= 1u;  // NaN -> +-448
      static_cast<uint8_t*>(dst)[i] = uint8_t(c);
    }
  }
}

struct PaProblem {
  struct Set {
    void *q = nullptr, *out = nullptr, *k = nullptr, *v = nullptr;
    int32_t *tables = nullptr, *lens = nullptr;
  };

  PaShape s;
  int64_t blocks_per_seq, num_blocks, block_elems, q_elems;
  int sets = 1;
  std::vector<Set> set;
  float* scales = nullptr;  // device [k_scale, v_scale]
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  std::string error;  // empty when every allocation and fill succeeded

  bool fp8() const { return s.kv == FLY_DTYPE_E4M3FN; }
  int64_t kv_esize() const { return fp8() ? 1 : 2; }
  // The bytes a call must read from the cache: every token's K and V row of every kv head, once.
  double kv_bytes() const {
    return double(s.seqs) * double(s.ctx) * double(s.kv_heads) * double(kPaHeadDim) * 2.0 * double(kv_esize());
  }
  double set_bytes() const {
    return kv_bytes() + double(q_elems) * 2.0 * 2.0 + double(num_blocks + s.seqs) * 4.0;
  }

  explicit PaProblem(PaShape shape) : s(shape) {
    blocks_per_seq = (s.ctx + kPaBlock - 1) / kPaBlock;
    num_blocks = s.seqs * blocks_per_seq;
    block_elems = kPaBlock * s.kv_heads * kPaHeadDim;  // NHD: [block][kv head][dim]
    q_elems = s.seqs * s.q_len * s.q_heads * kPaHeadDim;
    // Not L2-resident: a set under 120 MB (2x the 60 MB L2) is rotated with copies up to >= 240 MB.
    // Of fly_bench's shapes only 1 x 32768 with an e4m3fn cache (67 MB) is rotated (4 sets); every
    // other set is 134 MB to 1.07 GB and is read once per call from HBM.
    const double one = set_bytes(), limit = 120.0 * (1 << 20);
    sets = one < limit ? int(std::min(16.0, std::ceil(2.0 * limit / one))) : 1;
    std::mt19937 rng(7);
    for (int i = 0; i < sets && error.empty(); ++i) {
      Set st;
      std::vector<int32_t> table(static_cast<size_t>(num_blocks));
      std::iota(table.begin(), table.end(), 0);
      if (!pa_bench_sequential_blocks()) std::shuffle(table.begin(), table.end(), rng);
      const std::vector<int32_t> lens(static_cast<size_t>(s.seqs), static_cast<int32_t>(s.ctx));
      const size_t cache_bytes = size_t(num_blocks * block_elems * kv_esize());
      const uint64_t seed = 1000ull * uint64_t(i + 1);
      alloc(&st.q, size_t(q_elems) * 2) && alloc(&st.out, size_t(q_elems) * 2) && alloc(&st.k, cache_bytes) &&
          alloc(&st.v, cache_bytes) && alloc(reinterpret_cast<void**>(&st.tables), table.size() * 4) &&
          alloc(reinterpret_cast<void**>(&st.lens), lens.size() * 4) && fill(st.q, q_elems, seed + 1, 0) &&
          fill(st.k, num_blocks * block_elems, seed + 2, fp8() ? 1 : 0) &&
          fill(st.v, num_blocks * block_elems, seed + 3, fp8() ? 1 : 0) &&
          ok(cudaMemcpy(st.tables, table.data(), table.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy tables") &&
          ok(cudaMemcpy(st.lens, lens.data(), lens.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy seq_lens");
      set.push_back(st);  // freed by the destructor even when a step failed
    }
    const float host_scales[2] = {kPaFp8Scale, kPaFp8Scale};
    if (error.empty() && alloc(reinterpret_cast<void**>(&scales), sizeof(host_scales)))
      ok(cudaMemcpy(scales, host_scales, sizeof(host_scales), cudaMemcpyHostToDevice), "cudaMemcpy scales");
    if (error.empty()) ok(cudaDeviceSynchronize(), "filling the inputs");
  }
  ~PaProblem() {
    for (Set& st : set)
      for (void* p : {st.q, st.out, st.k, st.v, static_cast<void*>(st.tables), static_cast<void*>(st.lens)}) cudaFree(p);
    cudaFree(scales);
    cudaFree(workspace);
  }
  PaProblem(const PaProblem&) = delete;
  PaProblem& operator=(const PaProblem&) = delete;

  // The call on set i (device pointers; workspace as sized by fly_pa_decode_workspace_size).
  fly_pa_decode_args args(int i) const {
    const Set& st = set[size_t(i)];
    fly_pa_decode_args a = FLY_PA_DECODE_ARGS_INIT;
    a.num_seqs = s.seqs; a.q_len = s.q_len; a.num_q_heads = s.q_heads; a.num_kv_heads = s.kv_heads;
    a.head_dim = kPaHeadDim;
    a.q_type = FLY_DTYPE_BF16; a.kv_type = s.kv; a.kv_layout = s.layout;
    a.q = st.q;
    a.q_stride_seq = s.q_len * s.q_heads * kPaHeadDim; a.q_stride_token = s.q_heads * kPaHeadDim;
    a.q_stride_head = kPaHeadDim;
    a.out = st.out;
    a.out_stride_seq = a.q_stride_seq; a.out_stride_token = a.q_stride_token; a.out_stride_head = kPaHeadDim;
    a.k_cache = st.k; a.v_cache = st.v;
    a.num_blocks = num_blocks; a.block_size = kPaBlock; a.k_block_stride = a.v_block_stride = block_elems;
    a.block_tables = st.tables; a.block_table_stride = a.max_blocks_per_seq = blocks_per_seq;
    a.seq_lens = st.lens; a.max_seq_len = s.ctx;
    a.k_scale = fp8() ? scales : nullptr; a.v_scale = fp8() ? scales + 1 : nullptr;
    a.scale = 1.f / std::sqrt(float(kPaHeadDim));
    return a;
  }

  // Allocates the workspace `handle` asks for on set 0's arguments.
  bool make_workspace(fly_handle_t handle) {
    const fly_pa_decode_args a = args(0);
    if (fly_pa_decode_workspace_size(handle, &a, &workspace_bytes) != FLY_STATUS_SUCCESS) {
      error = fly_last_error();
      return false;
    }
    return workspace_bytes == 0 || alloc(&workspace, workspace_bytes);
  }

  bool ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess && error.empty()) error = std::string(what) + ": " + cudaGetErrorString(e);
    return e == cudaSuccess;
  }

 private:
  bool alloc(void** p, size_t bytes) { return ok(cudaMalloc(p, bytes), "cudaMalloc"); }
  bool fill(void* p, int64_t n, uint64_t seed, int kind) {
    pa_fill_random<<<1024, 256>>>(p, n, seed, kind);
    return ok(cudaGetLastError(), "pa_fill_random");
  }
};

}  // namespace fly::bench
