// The paged cache as TMA sees it: what a TMA-fed paged-decode variant's launcher encodes into a
// tensor map for K and for V (pa_decode_tma_cuda.hpp), and when a problem's cache cannot be one.
// Plain C++: the host tests check it without a GPU.
//
// A token-major cache (NHD, HND) is the 5D tensor, innermost first, (element within a 128-byte
// part of a row, slot, part, kv head, block id), and one group of 16 tokens of a kv head is one box
// (128 bytes, 16, parts, 1, 1): parts x 16 rows of 128 bytes, each part in the 128-byte swizzle
// (the slot before the part, so that the swizzle's row index is the slot). A block id outside
// [0, num_blocks) is outside the tensor: its box is zero-filled, never read.
#pragma once

#include <cstdint>
#include <string>

#include "pa_decode_problem.hpp"

namespace fly::dispatch {

struct PaDecodeTmaTensor {
  const void* base;
  int elem_bytes;
  uint64_t dims[5];     // elements per part, block_size, parts, kv heads, num_blocks
  uint64_t strides[4];  // bytes between successive indices of dims 1..4
  uint32_t box[5];
};

// K (v = false) or V of a token-major problem.
PaDecodeTmaTensor pa_decode_tma_tensor(const PaDecodeProblem& p, bool v) noexcept;

// Empty when both caches can be encoded (a token-major layout, rows of whole 128-byte parts,
// 16-byte aligned bases and strides below 2^40 bytes, extents within 2^32), else the reason.
std::string pa_decode_tma_rejection(const PaDecodeProblem& p);

}  // namespace fly::dispatch
