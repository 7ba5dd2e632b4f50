// The shape of a gfx942 paged-decode cell: a block of `Waves` wavefronts (64 lanes) takes the 16
// query rows of a row chunk (the N of every MFMA) and steps through the context 16 tokens per
// wave (the M of the QK MFMA), so a step of the key cell (fp8, head_dim 128, 4 waves) is the
// M = 64 tokens x N = 16 query heads x K = 128 tile. K rows (and token-major V rows) are read
// with BufferCopy<LoadBits> (fly/arch/copy_gfx942.hpp): lane (i, g) = (lane % 16, lane / 16)
// holds head_dim / 4 contiguous elements [g * head_dim / 4, ...) of token i's row.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fly/arch/copy_gfx942.hpp"
#include "fly/arch/mma_gfx942.hpp"

namespace fly::kernels::pa::gfx942 {

enum class Kv { bf16, f16, fp8 };

template <int HeadDim, Kv Kind, bool VDimMajor, int Waves, int LoadBits>
struct Tile {
  static constexpr int head_dim = HeadDim;
  static constexpr Kv kind = Kind;
  static constexpr bool v_dim_major = VDimMajor;  // V stored [head_dim][block_size] (vLLM)
  static constexpr int waves = Waves, threads = 64 * Waves;
  static constexpr int tokens = 16 * Waves;       // a block step; the split plan's unit
  static constexpr int rows = 16;                 // query rows of a block
  static constexpr int stages = 1;
  static constexpr bool fp8 = Kind == Kv::fp8;
  static constexpr int esize = fp8 ? 1 : 2;
  static constexpr int span = HeadDim / 4;             // elements of a row in one lane
  static constexpr int span_words = span * esize / 4;  // ... as 32-bit words
  static constexpr int ksteps = span * esize / 8;      // QK MFMAs: 8 bytes of the span each
  static constexpr int dchunks = HeadDim / 16;         // PV MFMAs: 16 dims of O each
  // Waves per SIMD the compiler must fit (HIP's __launch_bounds__ second argument): with a bound
  // the MFMA accumulators stay in arch VGPRs (no AGPR copies around the softmax rescale).
  // (what fits without spills today, test/register_budgets.txt)
  static constexpr int min_waves_per_eu = HeadDim >= 256 ? 2 : HeadDim <= 64 || (fp8 && !VDimMajor) ? 5 : 4;
  static constexpr int load_bytes = LoadBits / 8;
  static constexpr int loads = span * esize / load_bytes;

  // QK: S^T (tokens x rows) = K (tokens x head_dim) Q^T; PV: O^T (dims x rows) = V^T P^T, in f16
  // for fp8 caches (their V widens exactly to f16).
  using QkOp = std::conditional_t<fp8, GFX942_MFMA_F32_16x16x32_F8,
                                  std::conditional_t<Kind == Kv::bf16, GFX942_MFMA_F32_16x16x16_BF16, GFX942_MFMA_F32_16x16x16_F16>>;
  using PvOp = std::conditional_t<Kind == Kv::bf16, GFX942_MFMA_F32_16x16x16_BF16, GFX942_MFMA_F32_16x16x16_F16>;
  using Load = GFX942_BufferLoad<LoadBits>;

  // LDS: token-major V goes through a per-wave stage, transposed to [head_dim][16 tokens] to reach
  // the MFMA's 4-tokens-per-lane operand (one 32-bit fp8 or 64-bit 16-bit read per chunk; fp8 rows
  // get 4 bytes of padding against bank conflicts, 16-bit rows none: their stage would otherwise
  // cost a block per CU); the epilogue reuses it for one wave's (O, max, sum) at a time.
  static constexpr int stage_pitch = fp8 ? 20 : 32;
  static constexpr int stage_bytes = VDimMajor ? 0 : Waves * HeadDim * stage_pitch;
  static constexpr int merge_bytes = (HeadDim * 16 + 2 * 64) * 4;  // one wave's (O, m, l)
  static constexpr int smem_bytes = stage_bytes > merge_bytes ? stage_bytes : merge_bytes;

  static_assert(HeadDim % 64 == 0, "head_dim is a multiple of 64: four lane groups of whole 16-byte chunks");
  static_assert(LoadBits == 32 || LoadBits == 64 || LoadBits == 128, "BufferCopy32b, 64b or 128b");
  static_assert(span * esize % load_bytes == 0, "a lane's row span is whole loads");
  static_assert(Waves >= 1 && Waves <= 16, "1 to 16 wavefronts");
  static_assert(smem_bytes <= 65536, "gfx942 gives a workgroup at most 64 KB of LDS");
};

}  // namespace fly::kernels::pa::gfx942
