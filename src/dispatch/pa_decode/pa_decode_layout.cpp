// The paged cache layouts: fly_kv_layout_string and the within-block strides (pa_decode_problem.hpp).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dtype.hpp"
#include "pa_decode_problem.hpp"

extern "C" const char* fly_kv_layout_string(fly_kv_layout_t layout) {
  // A C caller may store any int in the field: read the bytes, never the C++ enum.
  std::underlying_type_t<fly_kv_layout_t> raw;
  static_assert(sizeof raw == sizeof layout);
  std::memcpy(&raw, &layout, sizeof raw);
  switch (static_cast<int64_t>(raw)) {
    case FLY_KV_LAYOUT_VLLM: return "vllm";
    case FLY_KV_LAYOUT_NHD: return "nhd";
    case FLY_KV_LAYOUT_HND: return "hnd";
  }
  return "unknown";
}

namespace fly::dispatch {
namespace {

// x: the elements in 16 bytes, the vLLM K layout's innermost group and the token-major chunk.
int64_t x_elems(const PaDecodeProblem& p) noexcept { return 16 / dtype_bytes(p.kv_type); }

// NHD and HND store K and V alike, token-major with the head dimension contiguous.
KvBlockStrides token_major(const PaDecodeProblem& p) noexcept {
  if (p.layout == FLY_KV_LAYOUT_NHD) return {p.head_dim, p.num_kv_heads * p.head_dim, x_elems(p), 0, false};
  return {p.block_size * p.head_dim, p.head_dim, x_elems(p), 0, false};  // HND
}

}  // namespace

KvBlockStrides k_block_strides(const PaDecodeProblem& p) noexcept {
  if (p.layout == FLY_KV_LAYOUT_VLLM) {
    int64_t const x = x_elems(p);  // K [heads][head_dim / x][block_size][x]
    return {p.head_dim * p.block_size, x, p.block_size * x, 0, false};
  }
  return token_major(p);
}

KvBlockStrides v_block_strides(const PaDecodeProblem& p) noexcept {
  if (p.layout == FLY_KV_LAYOUT_VLLM) return {p.head_dim * p.block_size, 1, 0, p.block_size, true};  // [heads][head_dim][block_size]
  return token_major(p);
}

int64_t kv_block_elems(const PaDecodeProblem& p) noexcept { return p.num_kv_heads * p.block_size * p.head_dim; }

}  // namespace fly::dispatch
