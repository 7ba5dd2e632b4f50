// The producer side of the decode pipeline: one stage's K and V tiles, TokensPerStep context
// tokens from their pages, as 16-byte cp.async copies into the swizzled shared-memory tiles.
// Tokens past the block's end (or whose block id is outside the cache) are zero-filled and never
// read, so a bad table or length cannot make the kernel read outside the caller's cache.
//
// The copies are what the kernel spends most instructions on, so their addressing is split into
// what is fixed for the whole loop (each thread's offsets inside a 16-token group, computed once)
// and what changes per step: one address per group, looked up in a small shared table. A step whose
// groups are all valid and inside the context takes the fast path, with no per-copy checks.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fly/arch/copy_sm90.hpp"
#include "pa_decode_params.hpp"
#include "pa_decode_tile.cuh"

namespace fly::kernels::pa {

// A stage's table: the address of each 16-token group's first token (K's groups, then V's), null
// when the group starts past the end or its block id is outside the cache; `invalid` has bit i set
// for each null entry i.
template <class T>
struct StageTable {
  static constexpr int groups = T::tokens / 16;
  const unsigned char* ptr[2 * groups];
  uint32_t invalid;
};

// Where one block's tokens live: the sequence's row of the block table and the kv head. Each
// 16-token group of a step lies in one cache block (block_size >= 16).
struct PageWalk {
  const int32_t* table;  // the sequence's block ids
  int32_t num_blocks, block_size_log2;
  int32_t end;           // first token not loaded
  int32_t kv_head;

  template <int ElemBytes>
  __device__ __forceinline__ const unsigned char* group_ptr(const PagedCacheView& c, int32_t t) const {
    if (t >= end) return nullptr;
    return page_ptr<ElemBytes>(c, __ldg(table + (t >> block_size_log2)), t);
  }
  // token t's address in page b (null for a block id outside the cache)
  template <int ElemBytes>
  __device__ __forceinline__ const unsigned char* page_ptr(const PagedCacheView& c, int32_t b, int32_t t) const {
    if (b < 0 || b >= num_blocks) return nullptr;
    const int32_t slot = t & ((1 << block_size_log2) - 1);
    const int64_t elem = int64_t(b) * c.block + int64_t(kv_head) * c.head + int64_t(slot) * c.slot;
    return static_cast<const unsigned char*>(c.base) + elem * ElemBytes;
  }
};

// Thread i < 2 * groups (all in warp 0) owns entry i of every stage's table. The main loop looks an
// entry up one iteration before it stores it (group_entry into a register, then store_group_entry),
// so no warp waits on the block table's latency in the step it computes.
template <class T>
__device__ __forceinline__ const unsigned char* group_entry(const PaDecodeParams& p, const PageWalk& w, int32_t tok0,
                                                            int tid) {
  constexpr int groups = T::tokens / 16;
  if (tid >= 2 * groups) return nullptr;
  return w.group_ptr<T::elem_bytes>(tid < groups ? p.k : p.v, tok0 + 16 * (tid % groups));
}

// Called by every thread of the block (warp 0 votes the invalid mask).
template <class T>
__device__ __forceinline__ void store_group_entry(const unsigned char* entry, StageTable<T>* tab, int tid) {
  constexpr int entries = 2 * StageTable<T>::groups;
  static_assert(entries <= 32, "one warp owns the table");
  if (tid < 32) {
    const uint32_t invalid = __ballot_sync(0xffffffffu, tid < entries && entry == nullptr);
    if (tid < entries) tab->ptr[tid] = entry;
    if (tid == 0) tab->invalid = invalid;
  }
}

__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

// What a fast-path copy of a tile issues: the copy into its stage, or only a prefetch of its
// source into L2 (warm_groups_l2: no data reaches the block, so it may run before the previous
// grid's writes are visible).
enum class Issue { copy, prefetch_l2 };

template <Issue I>
__device__ __forceinline__ void issue_16(uint32_t dst, const void* src) {
  if constexpr (I == Issue::copy) {
    cp_async_16(dst, src);
  } else {
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(src));
  }
}

// The address of a step that is one 16-token group (a warp's own step): every index names it.
struct OneGroup {
  const unsigned char* ptr;
  __device__ __forceinline__ const unsigned char* operator[](int) const { return ptr; }
};

// A thread's part of one token-major tile (K, or V in NHD/HND): tile row = token, chunk c =
// elements [c x, c x + x). Copy i of the thread is token tok(i), chunk ch(i); its source is the
// group's address plus off(i), fixed for the whole loop.
template <class T>
struct TokenMajorCopies {
  static constexpr int RC = T::row_chunks;
  static constexpr int per_thread = T::tile_chunks / T::threads;
  int tok0, ch0;     // the thread's first copy
  int64_t off0;      // its byte offset from its group's address
  int64_t step_off;  // the byte offset between successive copies inside one group (see off)
  bool token_fast;   // vLLM's K: consecutive copies of a thread step through chunks, not tokens

  __device__ void init(const PagedCacheView& c, int tid) {
    token_fast = c.token_fast;
    const int64_t slot_b = c.slot * T::elem_bytes, chunk_b = c.chunk * T::elem_bytes;
    if (token_fast) {  // tok = idx % tokens, ch = idx / tokens
      static_assert(T::threads % T::tokens == 0, "a vLLM K tile's tokens fit in one pass of the threads");
      tok0 = tid % T::tokens;
      ch0 = tid / T::tokens;
      step_off = (T::threads / T::tokens) * chunk_b;
    } else {  // tok = idx / RC, ch = idx % RC
      static_assert(T::threads % RC == 0, "the threads cover whole token rows");
      tok0 = tid / RC;
      ch0 = tid % RC;
      step_off = (T::threads / RC) * slot_b;
    }
    off0 = (tok0 & 15) * slot_b + ch0 * chunk_b;
  }
  // TokenFast: c.token_fast, a template argument so that the unrolled copies carry no branch
  template <bool TokenFast>
  __device__ __forceinline__ int tok(int i) const {
    return TokenFast ? tok0 : tok0 + i * (T::threads / RC);
  }
  template <bool TokenFast>
  __device__ __forceinline__ int ch(int i) const {
    return TokenFast ? ch0 + i * (T::threads / T::tokens) : ch0;
  }
  // copy i's byte offset from the address of its group (tok(i) / 16)
  template <bool TokenFast>
  __device__ __forceinline__ int64_t off(int i) const {
    constexpr int tp = T::threads / RC;  // tokens per pass
    if constexpr (TokenFast) {
      return off0 + i * step_off;
    } else if constexpr (tp % 16 == 0) {
      return off0;  // every copy is at the same place in its own group
    } else {
      static_assert(16 % tp == 0, "passes tile the 16-token groups");
      return off0 + ((i * tp) & 15) / tp * step_off;
    }
  }
};

// Groups: the step's group addresses, indexable by group (an array, or OneGroup).
template <class T, bool Fast, bool TokenFast, Issue I = Issue::copy, class Groups>
__device__ __forceinline__ void load_token_major(const PagedCacheView& c, const TokenMajorCopies<T>& m,
                                                 const Groups& groups, int32_t left, uint32_t tile) {
#pragma unroll
  for (int i = 0; i < m.per_thread; ++i) {
    const int tok = m.template tok<TokenFast>(i), ch = m.template ch<TokenFast>(i);
    const unsigned char* g = groups[tok >> 4];
    const uint32_t dst = tile + 16 * swizzled_chunk<T::row_chunks>(tok, ch);
    if constexpr (Fast) {
      issue_16<I>(dst, g + m.template off<TokenFast>(i));
    } else {
      const bool valid = g != nullptr && tok < left;
      cp_async_16(dst, valid ? static_cast<const void*>(g + m.template off<TokenFast>(i)) : c.base, valid ? 16 : 0);
    }
  }
}

// A thread's part of a dim-major tile (V in the vLLM layout): tile row = head_dim index d, chunk =
// x consecutive tokens of one page. All of a thread's copies share one chunk (so one group) and
// step through d.
template <class T>
struct DimMajorCopies {
  static constexpr int VRC = T::vrow_chunks;
  static constexpr int per_thread = T::tile_chunks / T::threads;
  static_assert(T::threads % VRC == 0, "the threads cover whole dim rows");
  int ch, d0;
  int64_t off0, step_off;

  __device__ void init(const PagedCacheView& c, int tid) {
    ch = tid % VRC;
    d0 = tid / VRC;
    const int tok = ch * T::chunk_elems;
    off0 = (int64_t(tok & 15) * c.slot + int64_t(d0) * c.dim) * T::elem_bytes;
    step_off = int64_t(T::threads / VRC) * c.dim * T::elem_bytes;
  }
  __device__ __forceinline__ int tok() const { return ch * T::chunk_elems; }
  __device__ __forceinline__ int d(int i) const { return d0 + i * (T::threads / VRC); }
};

// A chunk that straddles the end keeps its valid tokens and zero-fills the rest (the slots past a
// sequence's end may hold anything, NaN included, and P = 0 does not cancel NaN).
template <class T, bool Fast, Issue I = Issue::copy, class Groups>
__device__ __forceinline__ void load_dim_major(const PagedCacheView& c, const DimMajorCopies<T>& m,
                                               const Groups& groups, int32_t left, uint32_t tile) {
  const unsigned char* g = groups[m.tok() >> 4];
  int bytes = 16;
  if constexpr (!Fast) bytes = g == nullptr ? 0 : max(0, min(T::chunk_elems, left - m.tok())) * T::elem_bytes;
#pragma unroll
  for (int i = 0; i < m.per_thread; ++i) {
    const uint32_t dst = tile + 16 * swizzled_chunk<T::vrow_chunks>(m.d(i), m.ch);
    if constexpr (Fast) {
      issue_16<I>(dst, g + m.off0 + i * m.step_off);
    } else {
      cp_async_16(dst, bytes != 0 ? static_cast<const void*>(g + m.off0 + i * m.step_off) : c.base, bytes);
    }
  }
}

template <class T>
struct StageCopies {
  TokenMajorCopies<T> k;
  std::conditional_t<T::v_dim_major, DimMajorCopies<T>, TokenMajorCopies<T>> v;
  __device__ void init(const PaDecodeParams& p, int tid) {
    k.init(p.k, tid);
    v.init(p.v, tid);
  }
};

// Issues a step's K and V tiles (the groups' addresses in k_groups and v_groups, indexable by
// group) whose first token is `left` tokens before the block's end into the stage at shared
// address `stage`. fast: every group is valid and the step lies inside the context (no per-copy
// checks). Issue::prefetch_l2 takes the fast path only (the caller passes whole, valid groups).
template <class T, Issue I = Issue::copy, class Groups>
__device__ __forceinline__ void load_groups(const PaDecodeParams& p, const StageCopies<T>& m, const Groups& k_groups,
                                            const Groups& v_groups, bool fast, int32_t left, uint32_t stage) {
  auto issue = [&](auto fast_path, auto k_token_fast) {
    constexpr bool kFast = decltype(fast_path)::value;
    load_token_major<T, kFast, decltype(k_token_fast)::value, I>(p.k, m.k, k_groups, left, stage);
    if constexpr (T::v_dim_major) {
      load_dim_major<T, kFast, I>(p.v, m.v, v_groups, left, stage + T::tile_bytes);
    } else {
      load_token_major<T, kFast, false, I>(p.v, m.v, v_groups, left, stage + T::tile_bytes);
    }
  };
  if constexpr (I == Issue::prefetch_l2) {
    m.k.token_fast ? issue(std::true_type{}, std::true_type{}) : issue(std::true_type{}, std::false_type{});
  } else if (m.k.token_fast) {  // only K takes vLLM's token-fast layout (V is dim-major there)
    fast ? issue(std::true_type{}, std::true_type{}) : issue(std::false_type{}, std::true_type{});
  } else {
    fast ? issue(std::true_type{}, std::false_type{}) : issue(std::false_type{}, std::false_type{});
  }
}

// Issues the step whose first token is `left` tokens before the block's end into the stage at
// shared address `stage`; tab: its group table.
template <class T>
__device__ __forceinline__ void load_stage(const PaDecodeParams& p, const StageCopies<T>& m, const StageTable<T>* tab,
                                           int32_t left, uint32_t stage) {
  const unsigned char* const* groups = tab->ptr;
  load_groups<T>(p, m, groups, groups + StageTable<T>::groups, tab->invalid == 0 && left >= T::tokens, left, stage);
}

}  // namespace fly::kernels::pa
