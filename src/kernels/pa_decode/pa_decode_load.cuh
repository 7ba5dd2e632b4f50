// The producer side of the decode pipeline: one stage's K and V tiles, TokensPerStep context
// tokens from their pages, as 16-byte cp.async copies into the swizzled shared-memory tiles.
// Tokens past the block's end (or whose block id is outside the cache) are zero-filled and never
// read, so a bad table or length cannot make the kernel read outside the caller's cache.
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "pa_decode_params.hpp"
#include "pa_decode_tile.cuh"

namespace fly::kernels::pa {

// Where one block's tokens live: the sequence's row of the block table and the kv head. Each
// 16-token group of a step lies in one cache block (block_size >= 16); its base offset (block and
// kv head, in elements) is looked up once per group, a stage ahead, into a small shared table
// (-1: past the end or an id outside the cache), so the copies issue without waiting on the table.
struct PageWalk {
  const int32_t* table;  // the sequence's block ids
  int32_t num_blocks, block_size_log2;
  int32_t end;           // first token not loaded
  int32_t kv_head;

  __device__ __forceinline__ int64_t group_base(const PagedCacheView& c, int32_t t) const {
    if (t >= end) return -1;
    const int32_t b = __ldg(table + (t >> block_size_log2));
    return (b >= 0 && b < num_blocks) ? int64_t(b) * c.block + int64_t(kv_head) * c.head : -1;
  }
  __device__ __forceinline__ int32_t slot(int32_t t) const { return t & ((1 << block_size_log2) - 1); }
};

// Thread i < 2 * groups fills entry i of a stage's table: K's group bases, then V's.
template <class T>
__device__ __forceinline__ void fill_group_table(const PaDecodeParams& p, const PageWalk& w, int32_t tok0, int64_t* tab,
                                                 int tid) {
  constexpr int groups = T::tokens / 16;
  if (tid < 2 * groups) tab[tid] = w.group_base(tid < groups ? p.k : p.v, tok0 + 16 * (tid % groups));
}

__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

template <class T>
__device__ __forceinline__ const unsigned char* element(const PagedCacheView& c, int64_t offset_elems) {
  return static_cast<const unsigned char*>(c.base) + offset_elems * T::elem_bytes;
}

// A token-major tile (K, or V in NHD/HND): tile row = token, chunk c = elements [c x, c x + x).
template <class T>
__device__ __forceinline__ void load_token_major(const PagedCacheView& c, const PageWalk& w, const int64_t* groups,
                                                 int32_t tok0, uint32_t tile, int tid) {
#pragma unroll
  for (int i = 0; i < T::tile_chunks / T::threads; ++i) {
    const int idx = tid + i * T::threads;
    const int tok = c.token_fast ? idx % T::tokens : idx / T::row_chunks;
    const int ch = c.token_fast ? idx / T::tokens : idx % T::row_chunks;
    const int32_t t = tok0 + tok;
    const int64_t base = groups[tok >> 4];
    const bool valid = base >= 0 && t < w.end;
    const int64_t off = base + int64_t(w.slot(t)) * c.slot + int64_t(ch) * c.chunk;
    cp_async_16(tile + 16 * swizzled_chunk<T::row_chunks>(tok, ch), element<T>(c, valid ? off : 0), valid ? 16 : 0);
  }
}

// A dim-major tile (V in the vLLM layout): tile row = head_dim index, chunk = x consecutive tokens
// of one page. A chunk that straddles the end keeps its valid tokens and zero-fills the rest (the
// slots past a sequence's end may hold anything, NaN included, and P = 0 does not cancel NaN).
template <class T>
__device__ __forceinline__ void load_dim_major(const PagedCacheView& c, const PageWalk& w, const int64_t* groups,
                                               int32_t tok0, uint32_t tile, int tid) {
#pragma unroll
  for (int i = 0; i < T::tile_chunks / T::threads; ++i) {
    const int idx = tid + i * T::threads;
    const int ch = idx % T::vrow_chunks;
    const int d = idx / T::vrow_chunks;
    const int tok = ch * T::chunk_elems;
    const int32_t t = tok0 + tok;
    const int64_t base = groups[tok >> 4];
    const int32_t valid = base < 0 ? 0 : max(0, min(T::chunk_elems, w.end - t));
    const int64_t off = base + int64_t(d) * c.dim + w.slot(t);
    cp_async_16(tile + 16 * swizzled_chunk<T::vrow_chunks>(d, ch), element<T>(c, valid == 0 ? 0 : off),
                valid * T::elem_bytes);
  }
}

// Issues the step starting at tok0 into the stage at shared address `stage`; tab: its group table.
template <class T>
__device__ __forceinline__ void load_stage(const PaDecodeParams& p, const PageWalk& w, const int64_t* tab, int32_t tok0,
                                           uint32_t stage, int tid) {
  constexpr int groups = T::tokens / 16;
  load_token_major<T>(p.k, w, tab, tok0, stage, tid);
  if constexpr (T::v_dim_major) {
    load_dim_major<T>(p.v, w, tab + groups, tok0, stage + T::tile_bytes, tid);
  } else {
    load_token_major<T>(p.v, w, tab + groups, tok0, stage + T::tile_bytes, tid);
  }
}

}  // namespace fly::kernels::pa
