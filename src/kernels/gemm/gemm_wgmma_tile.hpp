// The MMA half shared by the wgmma GEMM blocks (GemmWgmmaBlock, fed by cp.async; GemmWgmmaTmaBlock,
// fed by TMA): one k-tile of D^T += B_tile x A_tile^T on a warpgroup, wgmma's A the B tile (64 of
// its rows), its B the block's A tile (BM rows: wgmma's N). Both tiles sit in shared memory in the
// 128-byte swizzled K-major layout: K in 128-byte atoms of Rows x 128 bytes each, 8-row groups
// 1024 bytes apart (the descriptors' stride byte offset), 16-byte chunk c of row r at c ^ (r % 8).
#pragma once

#include <cstdint>

#include "fly/arch/mma_sm90_wgmma.hpp"

namespace fly::kernels {

template <int BM>
struct WgmmaTile {
  using Wgmma = SM90_WGMMA_64xNx32_F32E4M3E4M3_SS<BM>;
  static constexpr int acc_size = BM / 2;
  static constexpr int row_group_bytes = 1024;

  // Byte offset of k-step j (32 bytes of K) in a Rows-row tile: its atom, then 32 j bytes into the
  // atom row (the hardware applies the swizzle to the address it forms).
  FLY_HOST_DEVICE static constexpr uint32_t k_step_offset(int rows, int j) {
    return uint32_t((j / 4) * rows * 128 + (j % 4) * 32);
  }

  // Issues k-steps first, first + Stride, ... (Steps of them) of the tiles at addr_b (BRows rows,
  // already offset to this warpgroup's 64) and addr_a as one committed batch.
  template <int BRows, int Steps, int Stride = 1>
  FLY_HD static void issue(uint32_t addr_b, uint32_t addr_a, int first, float (&acc)[acc_size]) {
    fence(acc);
    gmma::warpgroup_arrive();
FLY_UNROLL
    for (int j = 0; j < Steps; ++j) {
      const int step = first + Stride * j;
      Wgmma::fma(gmma::make_smem_desc(addr_b + k_step_offset(BRows, step), 16, row_group_bytes, gmma::SmemSwizzle::b128),
                 gmma::make_smem_desc(addr_a + k_step_offset(BM, step), 16, row_group_bytes, gmma::SmemSwizzle::b128),
                 acc);
    }
    gmma::warpgroup_commit_batch();
  }

  // Waits until at most Pending batches are in flight; acc is then safe to read or to feed again.
  template <int Pending>
  FLY_HD static void wait(float (&acc)[acc_size]) {
    gmma::warpgroup_wait<Pending>();
    fence(acc);
  }

  FLY_HD static void fence(float (&acc)[acc_size]) {
FLY_UNROLL
    for (int i = 0; i < acc_size; ++i) gmma::warpgroup_fence_operand(acc[i]);
  }
};

}  // namespace fly::kernels
