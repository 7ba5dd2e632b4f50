// The LDS tile of GemmLdsBlock: Rows x BK elements, row-major, composed with an XOR swizzle of its
// 16-byte chunks. The global -> LDS writer and the MFMA-fragment reader both index through this
// one ComposedLayout (as tensors over a swizzle_ptr), so they cannot disagree.
//
// Why it is conflict-free (gfx942: 32 banks x 4 bytes; a ds_*_b128 is serviced 8 lanes at a time,
// b64 16 lanes, b32 32 lanes, each phase touching 128 bytes at most). A 16-byte chunk covers banks
// 4q..4q+3 with q = byte-address bits [4, 7), so a b128 phase is conflict-free when its 8 lanes'
// q differ. Let R = BK * sizeof(T) (bytes per row, a power of two >= 32) and c a chunk's index in
// its row. The swizzle XORs c's low min(3, log2(R/16)) bits with the row bits just above the
// 128-byte line:
//   R >= 128: q = (c % 8) ^ (row % 8)                                  Swizzle<3, M, log2(R/16)>
//   R =   64: q = 4 (row % 2) + ((c ^ (row / 2)) % 4)                  Swizzle<2, M, 3>
//   R =   32: q = 2 (row % 4) + ((c ^ (row / 4)) % 2)                  Swizzle<1, M, 3>
// (M = log2 of the elements in 16 bytes: offsets are in elements.)
// - Reader: the MFMA fragments (K permuted so that a lane's values for consecutive k-steps are one
//   16-byte chunk) put rows r..r+7 (r % 8 == 0) of one chunk c in lanes 8j..8j+7 of every ds_read:
//   in each case above the 8 rows give 8 distinct q.
// - Writer: a thread covers one chunk (or half of one, 64-bit loads) and consecutive threads the
//   consecutive chunks of a row, then the next row: 8 lanes of a b128 phase are 8 consecutive
//   chunks of one row (R >= 128: c % 8 takes 8 values, XORed with one row) or of 2 / 4 consecutive
//   rows (R = 64 / 32: the row bits of q differ); a b64 phase's 16 lanes are the 16 half-chunks of
//   128 bytes, split the same way with the low 8-byte bit untouched.
// test/kernels/test_gemm_lds_host.cpp counts conflicts of every ds instruction under this model.
#pragma once

#include "fly/layout.hpp"
#include "fly/layout/swizzle_layout.hpp"
#include "fly/tensor.hpp"

namespace fly::kernels {

constexpr int lds_log2(int x) { return x <= 1 ? 0 : 1 + lds_log2(x / 2); }

template <int Rows, int BK, class T>
struct LdsTile {
  static constexpr int row_bytes = BK * int(sizeof(T));
  static_assert(row_bytes >= 32 && (row_bytes & (row_bytes - 1)) == 0,
                "fly::kernels::LdsTile: the swizzle needs rows of 2^n >= 32 bytes (BK * sizeof(T))");
  static constexpr int chunks = row_bytes / 16;  // 16-byte chunks per row
  static constexpr int m = lds_log2(16 / int(sizeof(T)));
  static constexpr int b = lds_log2(chunks) < 3 ? lds_log2(chunks) : 3;
  static constexpr int s = lds_log2(chunks) > 3 ? lds_log2(chunks) : 3;
  using Swz = Swizzle<b, m, s>;
  using Plain = Layout<Shape<Int<Rows>, Int<BK>>, Stride<Int<BK>, _1>>;
  static constexpr int elems = Rows * BK;

  FLY_HD static auto layout() { return composition(Swz{}, Plain{}); }
  // The tile at p as a tensor: the plain layout over a pointer that applies the swizzle.
  FLY_HD static auto view(T* p) { return make_tensor(swizzle_ptr<T, Swz>{p, 0}, layout().layout); }
};

}  // namespace fly::kernels
