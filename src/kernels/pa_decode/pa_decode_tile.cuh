// The shape of one paged-decode block (a cell of pa_decode/variants.txt): Rows query rows (16: one
// m16 MMA tile; 8: the n8 of the token-major products, pa_decode_warp_n8.cuh) of the group's query
// heads x new tokens of one kv head, TokensPerStep context tokens per pipeline stage split
// among Warps warps, Stages stages of K and V tiles in shared memory.
#pragma once

#include <cstdint>

#include "pa_decode_fragments.cuh"

namespace fly::kernels::pa {

// Blocks per SM that shared memory allows: 228 KB an SM, 1 KB of it reserved per block.
constexpr int smem_fit_blocks(int smem_bytes) { return 233472 / (smem_bytes + 1024); }

// The blocks per SM a kernel's __launch_bounds__ asks ptxas to fit: as many as shared memory holds,
// at most 4, and no more than leave each thread the registers its head_dim needs without spilling
// (128 for d64, 168 beyond; otherwise a d128 block takes ~200 registers and 2 blocks fit where
// shared memory holds 3).
constexpr int resident_blocks(int smem_bytes, int threads, int head_dim) {
  const int by_smem = smem_fit_blocks(smem_bytes);
  const int by_registers = 65536 / (threads * (head_dim <= 64 ? 128 : 168));
  const int fit = by_smem < by_registers ? by_smem : by_registers;
  return fit < 1 ? 1 : fit > 4 ? 4 : fit;
}

template <int HeadDim, KvKind Kind, bool VDimMajor, int TokensPerStep, int Warps, int Stages, int Rows = 16>
struct Tile {
  static constexpr int head_dim = HeadDim;
  static constexpr KvKind kind = Kind;
  static constexpr bool v_dim_major = VDimMajor;
  static constexpr int rows = Rows;  // query rows: one m16 MMA row tile, or (8) the n8 of S^T and O^T
  static constexpr int tokens = TokensPerStep;
  static constexpr int warps = Warps;
  static constexpr int threads = 32 * Warps;
  static constexpr int stages = Stages;
  static constexpr int warp_tokens = TokensPerStep / Warps;  // a warp's slice of each step

  static constexpr int elem_bytes = Kind == KvKind::fp8 ? 1 : 2;
  static constexpr int chunk_elems = 16 / elem_bytes;  // x: elements per 16-byte load
  // K (and token-major V) tiles: a row per token of head_dim elements
  static constexpr int row_chunks = HeadDim * elem_bytes / 16;
  // dim-major V tiles: a row per head_dim index of TokensPerStep tokens
  static constexpr int vrow_chunks = TokensPerStep * elem_bytes / 16;
  static constexpr int tile_chunks = TokensPerStep * row_chunks;  // K or V, 16-byte chunks
  static constexpr int tile_bytes = 16 * tile_chunks;
  static constexpr int stage_bytes = 2 * tile_bytes;
  static constexpr bool q_in_registers = HeadDim <= 64;
  // The 16-byte chunk of (row, c) in a token-major K or V tile: the bank swizzle of
  // pa_decode_fragments.cuh (a TMA-fed tile places its chunks as the tensor map's swizzle does).
  __device__ static int kv_chunk(int row, int c) { return swizzled_chunk<row_chunks>(row, c); }

  // shared memory: Q (`rows` rows of head_dim MMA elements, padded so fragment reads spread over banks),
  // then the ring of stages; the epilogue's per-warp partial outputs reuse the ring.
  static constexpr int q_pitch = HeadDim + 8;  // elements
  static constexpr int q_bytes = rows * q_pitch * 2;
  static constexpr int o_pitch = HeadDim + 4;  // floats
  static constexpr int epilogue_bytes = Warps * rows * (o_pitch + 2) * 4;
  static constexpr int ring_bytes = Stages * stage_bytes > epilogue_bytes ? Stages * stage_bytes : epilogue_bytes;
  // a StageTable per stage (pa_decode_load.cuh): 2 x groups addresses and the invalid mask
  static constexpr int table_bytes = Stages * (2 * (TokensPerStep / 16) * 8 + 8);
  static constexpr int smem_bytes = q_bytes + ring_bytes + table_bytes;
  static constexpr int min_blocks = resident_blocks(smem_bytes, threads, HeadDim);

  static_assert(Rows == 16 || Rows == 8, "a block computes 16 query rows (m16) or 8 (n8)");
  static_assert(HeadDim % 64 == 0, "head_dim is a multiple of 64 (64, 128, 256)");
  static_assert(warp_tokens % 16 == 0 && warp_tokens * Warps == TokensPerStep,
                "every warp takes a multiple of 16 tokens of each step");
  static_assert(tile_chunks % threads == 0, "the block's threads load whole tiles");
  static_assert(Stages >= 2, "a pipeline keeps at least one stage loading");
  static_assert(smem_bytes <= 232448, "the block exceeds sm_90a's 227 KB of shared memory");
  static_assert(!VDimMajor || vrow_chunks == 1 || vrow_chunks == 2 || vrow_chunks == 4 || vrow_chunks % 8 == 0,
                "dim-major V rows are 1, 2, 4 or a multiple of 8 chunks");
};

}  // namespace fly::kernels::pa
