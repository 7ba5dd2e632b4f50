// Where a warpgroup's wgmma results wait for the TMA store (GemmWgmmaWsBlock's TmaStore epilogue):
// the warpgroup's 64 x BN tile of D leaves in chunks of 64 rows x 128 bytes (128 / sizeof(TD)
// columns), one TMA box each, staged in shared memory in the box's 128-byte swizzle (CuTe's
// Swizzle<3,4,3> of the row-major byte offset, the layout the TMA reads: 1024-byte aligned). A
// thread writes its fragment's two adjacent columns as one 4- or 8-byte store; under the swizzle
// the eight rows a warp writes per instruction fall in different 16-byte chunks, so bf16 and f16
// pairs take one shared-memory wavefront and f32 pairs two (the least for 256 bytes).
// Plain C++ beside the kernel: test/kernels/test_gemm_tma_store.cpp checks the layout on the host.
#pragma once

#include "fly/layout/config.hpp"
#include "fly/layout/swizzle.hpp"

namespace fly::kernels {

// Rows 64: a warpgroup's chunk (t its thread, 0-127); Rows 16: one warp's (t its lane, 0-31; the
// `:stw` cells, each warp storing its own 16 rows with no warpgroup barrier).
template <class TD, int Rows = 64>
struct TmaStoreChunk {
  static_assert(Rows == 64 || Rows == 16, "TmaStoreChunk: a warpgroup's 64 rows or a warp's 16");
  static constexpr int rows = Rows, row_bytes = 128, bytes = rows * row_bytes;
  static constexpr int elem_bytes = int(sizeof(TD));
  static constexpr int cols = row_bytes / elem_bytes;  // columns of D a chunk holds
  static constexpr int pairs_per_row = cols / 8;             // a thread's column pairs per fragment row

  // Byte offset in the chunk of thread t's pair (jj, h), t in [0, Rows * 2): its wgmma D fragment puts the
  // pair at row 16 (t / 32) + (t % 32) / 4 + 8 h and columns 8 jj + 2 (t % 4) + {0, 1} of the chunk.
  // The swizzle is taken of the thread's part only and pair jj's 8 jj columns XORed in after it:
  // their bytes (bits 4-6 of the offset for 16-bit D, 5-6 for f32) share no bit with the thread's
  // 2 (t % 4) columns (bits 2-3, 3-4) nor with the row (bits 7 up), so adding them is XORing them,
  // and the swizzle (bits 4-6 ^= bits 7-9) commutes with that XOR. A tile's chunks then cost one
  // LOP3 a pair, where the swizzle of each pair's whole offset cost three (ptxas, 2026-12-06).
  FLY_HD static int pair_offset(int t, int jj, int h) {
    const int row = 16 * (t / 32) + (t % 32) / 4 + 8 * h;
    return Swizzle<3, 4, 3>{}(row * row_bytes + 2 * (t % 4) * elem_bytes) ^ (8 * jj * elem_bytes);
  }
};

}  // namespace fly::kernels
