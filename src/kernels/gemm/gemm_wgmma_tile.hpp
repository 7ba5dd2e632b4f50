// The MMA half shared by the wgmma GEMM blocks (GemmWgmmaBlock, fed by cp.async; GemmWgmmaTmaBlock,
// fed by TMA): one k-tile of D^T += B_tile x A_tile^T on a warpgroup, wgmma's A the B tile (64 of
// its rows), its B the block's A tile (BM rows: wgmma's N). Both tiles sit in shared memory in the
// 128-byte swizzled K-major layout: K in 128-byte atoms of Rows x 128 bytes each, 8-row groups
// 1024 bytes apart (the descriptors' stride byte offset), 16-byte chunk c of row r at c ^ (r % 8).
//
// Accumulation in true fp32: Hopper's fp8 tensor cores add each wgmma's products into the
// accumulator with fewer bits than fp32 (about 14; DeepSeek-V3's report, section 3.3.2), so one
// accumulator run over all of K loses accuracy as K grows (1.3e-3 normwise at K = 4096 where
// cuBLASLt keeps 1.3e-4). A warpgroup therefore runs its k-steps in chunks of `promote_steps` (128
// of K) into one of two partial accumulators, each chunk's first wgmma overwriting its partial
// (scale-d = 0), and adds the finished chunk into the fp32 total with ordinary adds while the next
// chunk runs on the tensor cores: cuBLASLt's default scheme, and CUTLASS's and DeepGEMM's.
// GemmWgmmaBlock runs it through issue_promoted; GemmWgmmaTmaBlock keeps its partials away from
// compiler fences instead (issue_unfenced, gmma::AddAccumulators), as GemmWgmmaWsBlock does: with
// two or more chunks a k-tile the fences made ptxas serialise its wgmmas (C7515).
// test/gemm/test_gemm_fp8_accuracy_cuda.cu holds every variant to 1.5x cuBLASLt's error.
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
  // already offset to this warpgroup's 64) and addr_a as one committed batch. ScaleD = 0: the
  // first k-step overwrites acc instead of adding to it.
  template <int BRows, int Steps, int Stride = 1, int ScaleD = 1>
  FLY_HD static void issue(uint32_t addr_b, uint32_t addr_a, int first, float (&acc)[acc_size]) {
    fence(acc);
    issue_unfenced<BRows, Steps, Stride, ScaleD>(addr_b, addr_a, first, acc);
  }

  // The same without the compiler fence on acc: for an accumulator that only wgmma defines and
  // only asm statements read (gmma::AddAccumulators), which stay in order without one. A fence
  // counts as a definition, and ptxas serialises wgmmas whose accumulators something else defines
  // while batches are in flight (C7515).
  template <int BRows, int Steps, int Stride = 1, int ScaleD = 1>
  FLY_HD static void issue_unfenced(uint32_t addr_b, uint32_t addr_a, int first, float (&acc)[acc_size]) {
    // encoded once; each k-step's descriptors are offsets from these (gmma::smem_desc_plus)
    const uint64_t base_b = gmma::make_smem_desc(addr_b, 16, row_group_bytes, gmma::SmemSwizzle::b128);
    const uint64_t base_a = gmma::make_smem_desc(addr_a, 16, row_group_bytes, gmma::SmemSwizzle::b128);
    gmma::warpgroup_arrive();
FLY_UNROLL
    for (int j = 0; j < Steps; ++j) {
      const int step = first + Stride * j;
      const uint64_t desc_b = gmma::smem_desc_plus(base_b, k_step_offset(BRows, step));
      const uint64_t desc_a = gmma::smem_desc_plus(base_a, k_step_offset(BM, step));
      if (j == 0) {
        Wgmma::template fma<ScaleD>(desc_b, desc_a, acc);
      } else {
        Wgmma::fma(desc_b, desc_a, acc);
      }
    }
    gmma::warpgroup_commit_batch();
  }

  // The promoted accumulator (see the top of the file): the fp32 total and two partials.
  static constexpr int promote_steps = 4;  // k-steps of 32 per chunk: 128 of K
  struct Accumulator {
    float total[acc_size];
    float part[2][acc_size];
    // zero partials too: the very first chunk adds its zero "previous" one
    FLY_HD void clear() {
FLY_UNROLL
      for (int i = 0; i < acc_size; ++i) total[i] = part[0][i] = part[1][i] = 0.f;
    }
  };

  // The total and both partials, with 32 registers for everything else, within the registers a
  // block of `threads` leaves each (ptxas allocates in units of 8, at most 255).
  FLY_HOST_DEVICE static constexpr bool fits_registers(int threads) {
    const int regs = 65536 / threads / 8 * 8;
    return 3 * acc_size + 32 <= (regs < 255 ? regs : 255);
  }

  // Chunks per tile; the Phase (the partial its first chunk writes) of the tile after one of Phase.
  template <int Steps>
  static constexpr int chunks = Steps < promote_steps ? 1 : Steps / promote_steps;
  template <int Steps, int Phase>
  static constexpr int next_phase = (Phase + chunks<Steps>) % 2;

  // A tile's k-steps first, first + Stride, ... (Steps of them) in chunks: each chunk issued into
  // a partial, then the previous chunk (the other partial) waited for and added to the total.
  // after_first_wait() runs once every batch before this tile's is complete (the TMA block frees
  // the previous tile's stage there). Phase: which partial the tile starts with (next_phase).
  template <int BRows, int Steps, int Stride, int Phase, class AfterFirstWait>
  FLY_HD static void issue_promoted(uint32_t addr_b, uint32_t addr_a, int first, Accumulator& acc,
                                    AfterFirstWait&& after_first_wait) {
    constexpr int chunk = Steps < promote_steps ? Steps : promote_steps;
    static_assert(Steps % chunk == 0, "WgmmaTile: a tile's k-steps are whole promotion chunks");
FLY_UNROLL
    for (int c = 0; c < chunks<Steps>; ++c) {
      float(&cur)[acc_size] = acc.part[(Phase + c) % 2];
      float(&prev)[acc_size] = acc.part[(Phase + c + 1) % 2];
      issue<BRows, chunk, Stride, 0>(addr_b, addr_a, first + c * chunk * Stride, cur);
      wait<1>(prev);  // the previous chunk is done; this one runs on
      add(acc.total, prev);
      if (c == 0) after_first_wait();
    }
  }

  // After the last of k_tiles tiles (phases 0, next_phase, ...): its last chunk waited for and added.
  template <int Steps>
  FLY_HD static void finish(Accumulator& acc, int k_tiles) {
    const int last_phase = chunks<Steps> % 2 == 0 ? 0 : (k_tiles - 1) % 2;
    if ((last_phase + chunks<Steps> - 1) % 2 == 0) {
      wait<0>(acc.part[0]);
      add(acc.total, acc.part[0]);
    } else {
      wait<0>(acc.part[1]);
      add(acc.total, acc.part[1]);
    }
  }

  FLY_HD static void add(float (&total)[acc_size], float (&part)[acc_size]) {
FLY_UNROLL
    for (int i = 0; i < acc_size; ++i) total[i] += part[i];
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
