// The wgmma GEMM block fed by TMA (sm_90a), for decode shapes first:
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]   (fp32 accumulate)
// The math is GemmWgmmaBlock's (D^T = B A^T: BN / 64 consumer warpgroups, each 64 rows of B as
// wgmma's M, the block's BM rows of A as wgmma's N; the same 128-byte swizzled K-major tiles). The
// loads are not: one thread of a producer warpgroup issues TMA boxes (one per 128 bytes of K and
// operand) into a ring of `Stages` stages; a "full" mbarrier per stage counts the bytes landing,
// an "empty" one counts the consumer warpgroups done with it. Tails need no predicates: the TMA
// zero-fills what lies past the matrix.
// With ClusterN > 1 the blocks of a cluster (consecutive along N, so they share their A tile) each
// load 1/ClusterN of the A tile's rows and multicast it to all of them: A is read from L2 once per
// cluster instead of once per block (at M = 128 the re-reads were 128 MB beside B's 64 MB). A
// stage is then free only when every block of the cluster is done with it: the consumers arrive
// on their own block's empty barrier, and a relay warp of the producer warpgroup forwards each
// completed phase to every block's cluster_empty barrier, which the producer waits on. The remote
// arrivals are off the consumers' path: made by the consumers themselves, they cost 150-200 ns
// per k-tile on the H200 (64x64x128 s12 at M = 64: 35.5 us with clusters of 2, 27.1 relayed).
//
// Measured on the H200 (docs/h200-runs.md, 2026-11-30): without clusters it runs decode shapes as
// fast as GemmWgmmaBlock (M <= 64) or 6% faster (M = 128 with 64x128 tiles); relayed clusters of
// 2 tie with no cluster at M = 64 and lose at M = 128 (32 us against 27), so the grid (variants.txt,
// copy `tma`) has ClusterN = 1 and the multicast stays tested, not dispatched.
//
// Preconditions (the launcher's): K, lda, ldb multiples of 16; A, B 16-byte aligned; BM / ClusterN
// a multiple of 8 (a multicast slice is whole swizzle atoms); gridDim.y a multiple of ClusterN.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "fly/arch/barrier_sm90.hpp"
#include "fly/arch/copy_sm90_tma.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "fly/arch/mma_sm90_accumulate.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_promoted_pairs.hpp"
#include "gemm_tma_ring.hpp"
#include "gemm_wgmma_epilogue.hpp"
#include "gemm_wgmma_tile.hpp"

namespace fly::kernels {

template <int BM_, int BN_, int BK_, int Stages_, int ClusterN_, class TD>
struct GemmWgmmaTmaBlock {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, Stages = Stages_, cluster_n = ClusterN_;
  using TA = float8_e4m3fn;
  using Mma = WgmmaTile<BM>;
  using Epilogue = WgmmaEpilogue<BM, BN, 1>;
  static_assert(BN % 64 == 0 && BN <= 256, "GemmWgmmaTmaBlock: each consumer warpgroup covers 64 rows of B (a box <= 256)");
  static_assert(BK % 128 == 0, "GemmWgmmaTmaBlock: K tiles are whole 128-byte swizzle atoms (one box each)");
  static_assert(Stages >= 2, "GemmWgmmaTmaBlock: a ring needs two stages");
  static_assert(BM % cluster_n == 0 && (BM / cluster_n) % 8 == 0,
                "GemmWgmmaTmaBlock: each block's multicast slice of A is whole 8-row swizzle atoms");
  static constexpr int groups_n = BN / 64;
  static constexpr int consumer_threads = 128 * groups_n;
  static constexpr int threads = consumer_threads + 128;  // + the producer warpgroup
  static constexpr int acc_size = Mma::acc_size;
  static_assert(Mma::fits_registers(threads),
                "the promoted accumulators (3 x BM/2 floats per thread) and 32 more registers exceed what the block's "
                "threads leave (the generator's check_wgmma rejects such cells)");
  static constexpr int k_atoms = BK / 128, a_slice_rows = BM / cluster_n;
  static constexpr int a_bytes = BM * BK, b_bytes = BN * BK, stage_bytes = a_bytes + b_bytes;
  static constexpr int swizzle_align = 1024;
  static constexpr int barriers = cluster_n > 1 ? 3 * Stages : 2 * Stages;  // full, empty[, cluster_empty]
  static constexpr int smem_bytes = Stages * stage_bytes + barriers * 8 + swizzle_align;
  static_assert(Epilogue::bytes <= Stages * stage_bytes,
                "GemmWgmmaTmaBlock: the epilogue tile does not fit in the pipeline's shared memory");

  // What the launcher encodes (tma_desc_cuda.hpp): A as M x K bytes with boxes of a_slice_rows x
  // 128, B as N x K with boxes of BN x 128.
  static constexpr int a_box_rows = a_slice_rows, b_box_rows = BN, box_cols = 128;

#if defined(__CUDACC__)
  // With a cluster, the relay warp's lane c tells block c (its cluster_empty barrier) once this
  // block's consumers are done with a stage, off the consumers' path.
  using Ring = TmaRing<Stages, cluster_n>;

  __device__ static void consumers_sync() { named_barrier::sync<1, consumer_threads>(); }

  // smem: smem_bytes of dynamic shared memory. Every thread of the block calls run.
  __device__ static void run(CUtensorMap const& map_a, CUtensorMap const& map_b, GemmParams const& p,
                             unsigned char* smem_in, int block_m, int block_n, int thr) {
    const uint32_t base = detail::smem_u32(smem_in);
    unsigned char* smem = smem_in + (swizzle_align - base % swizzle_align) % swizzle_align;
    auto* full = reinterpret_cast<uint64_t*>(smem + Stages * stage_bytes);
    uint64_t* empty = full + Stages;
    uint64_t* cluster_empty = empty + Stages;  // cluster_n > 1 only
    const uint32_t rank = cluster_n > 1 ? cluster::block_rank() : 0;
    if (thr == 0) Ring::init(full, groups_n);  // empty: this block's consumer warpgroups
    Ring::sync_after_init();
    const int m0 = block_m * BM, n0 = block_n * BN;
    const int k_tiles = (p.k + BK - 1) / BK;
    if (thr >= consumer_threads) {
      if (thr == consumer_threads) {
        produce(map_a, map_b, smem, full, cluster_n > 1 ? cluster_empty : empty, m0, n0, k_tiles, rank,
                p.let_next_start);
      } else if constexpr (cluster_n > 1) {
        const int lane = thr - consumer_threads - 32;  // the producer warpgroup's second warp
        if (lane >= 0 && lane < cluster_n) Ring::relay(empty, cluster_empty, k_tiles, lane);
      }
    } else {
      consume(p, smem, full, empty, m0, n0, k_tiles, thr);
    }
    if constexpr (cluster_n > 1) {
      __syncwarp();     // the producer warp reconverged (one lane ran produce) before the .aligned barrier
      cluster::sync();  // no block leaves while its cluster still uses it
    }
  }

  __device__ static void produce(CUtensorMap const& map_a, CUtensorMap const& map_b, unsigned char* smem,
                                 uint64_t* full, uint64_t* empty, int m0, int n0, int k_tiles, uint32_t rank,
                                 bool let_next_start) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int s = kt % Stages;
      if (kt >= Stages) mbarrier::wait(&empty[s], uint32_t(kt / Stages - 1) & 1);  // tile kt - Stages is done
      mbarrier::arrive_expect_tx(&full[s], stage_bytes);  // all of A (every block's slice) and this B
      unsigned char* a = smem + s * stage_bytes;
      unsigned char* b = a + a_bytes;
      for (int at = 0; at < k_atoms; ++at) {
        const int x = kt * BK + at * 128;
        unsigned char* a_slice = a + at * BM * 128 + int(rank) * a_slice_rows * 128;
        if constexpr (cluster_n > 1) {
          SM90_TMA_LOAD_2D_MULTICAST::copy(&map_a, &full[s], uint16_t((1u << cluster_n) - 1), a_slice, x,
                                           m0 + int(rank) * a_slice_rows);
        } else {
          SM90_TMA_LOAD_2D::copy(&map_a, &full[s], a_slice, x, m0);
        }
        SM90_TMA_LOAD_2D::copy(&map_b, &full[s], b + at * BN * 128, x, n0);
      }
    }
    if (let_next_start) launch_next_grid();  // the block's last loads are issued
  }

  // Promotion over chunks (128 of K each, 1, 2 or 4 a k-tile) by run_promoted_pairs, as
  // GemmWgmmaWsBlock::mainloop_overlapped runs it over k-tiles: nothing but wgmma defines a partial
  // (WgmmaTile::issue_promoted's fences made ptxas serialise the wgmmas, C7515, in the cells of
  // two or more chunks a k-tile).
  __device__ static void consume(GemmParams const& p, unsigned char* smem, uint64_t* full, uint64_t* empty, int m0,
                                 int n0, int k_tiles, int thr) {
    const int group = thr / 128;
    const uint32_t b_rows = uint32_t(group * 64 * 128);
    constexpr int chunk_steps = Mma::promote_steps;   // 128 of K: BK is whole 128-byte atoms
    constexpr int chunks = BK / 32 / chunk_steps;     // a k-tile's
    float total[acc_size];
FLY_UNROLL
    for (int i = 0; i < acc_size; ++i) total[i] = 0.f;
    // Left undefined: each chunk's first wgmma overwrites its partial (scale-d = 0); zeroed, the
    // compiler would define them outside wgmma (C7514, GemmWgmmaWsBlock::consume).
    float part[2][acc_size];
    uint32_t addr_a = 0, addr_b = 0;  // the current k-tile's stage
    const int n = k_tiles * chunks;
    run_promoted_pairs(
        n, total, part,
        [&](int g, float(&cur)[acc_size]) {  // chunk g, waiting for its k-tile's stage at the tile's first
          const int kt = g / chunks, c = g % chunks;
          if (c == 0) {
            const int s = kt % Stages;
            mbarrier::wait(&full[s], uint32_t(kt / Stages) & 1);
            addr_a = detail::smem_u32(smem + s * stage_bytes);
            addr_b = addr_a + a_bytes;
          }
          Mma::template issue_unfenced<BN, chunk_steps, 1, 0>(addr_b + b_rows, addr_a, c * chunk_steps, cur);
        },
        [&](int h) {  // chunk h - 1 is done: where it ended k-tile h / chunks - 1, one arrival per
                      // warpgroup frees that tile's stage (relay() forwards it); never the last
                      // tile's, which is not refilled
          if (h % chunks == 0 && h < n && thr % 128 == 0) mbarrier::arrive(&empty[(h / chunks - 1) % Stages]);
        });
    consumers_sync();  // every consumer is done with the stages: the epilogue reuses them
    Epilogue::template store<TD>(total, p, m0, n0, reinterpret_cast<float*>(smem), thr, [] { consumers_sync(); });
  }

#endif
};

}  // namespace fly::kernels
