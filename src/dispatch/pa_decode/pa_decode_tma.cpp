// The paged cache as TMA tensors (pa_decode_tma.hpp).
#include "pa_decode_tma.hpp"

#include "dtype.hpp"

namespace fly::dispatch {

PaDecodeTmaTensor pa_decode_tma_tensor(const PaDecodeProblem& p, bool v) noexcept {
  const KvBlockStrides s = v ? v_block_strides(p) : k_block_strides(p);
  const int eb = int(dtype_bytes(p.kv_type));
  PaDecodeTmaTensor t{};
  t.base = v ? p.v_cache : p.k_cache;
  t.elem_bytes = eb;
  const uint64_t part = 128 / eb;
  t.dims[0] = part;
  t.dims[1] = uint64_t(p.block_size);
  t.dims[2] = uint64_t(p.head_dim) / part;
  t.dims[3] = uint64_t(p.num_kv_heads);
  t.dims[4] = uint64_t(p.num_blocks);
  t.strides[0] = uint64_t(s.slot * eb);
  t.strides[1] = 128;
  t.strides[2] = uint64_t(s.head * eb);
  t.strides[3] = uint64_t((v ? p.v_block_stride : p.k_block_stride) * eb);
  t.box[0] = uint32_t(part);
  t.box[1] = 16;
  t.box[2] = uint32_t(t.dims[2]);
  t.box[3] = t.box[4] = 1;
  return t;
}

std::string pa_decode_tma_rejection(const PaDecodeProblem& p) {
  if (p.layout == FLY_KV_LAYOUT_VLLM) return "the vLLM layout's K is not token-major";
  const int64_t eb = dtype_bytes(p.kv_type);
  if (p.head_dim * eb % 128 != 0)
    return "a row of " + std::to_string(p.head_dim * eb) + " bytes is not whole 128-byte parts";
  if (p.block_size < 16) return "a page holds fewer than the box's 16 tokens";
  for (bool v : {false, true}) {
    const PaDecodeTmaTensor t = pa_decode_tma_tensor(p, v);
    const std::string name = v ? "v_cache" : "k_cache";
    if (reinterpret_cast<uintptr_t>(t.base) % 16 != 0) return name + " is not 16-byte aligned";
    for (uint64_t stride : t.strides)
      if (stride % 16 != 0 || stride >= (uint64_t{1} << 40))
        return name + ": a stride of " + std::to_string(stride) + " bytes is not a multiple of 16 below 2^40";
    for (uint64_t dim : t.dims)
      if (dim < 1 || dim > (uint64_t{1} << 32)) return name + ": an extent of " + std::to_string(dim) + " is outside [1, 2^32]";
  }
  return {};
}

}  // namespace fly::dispatch
