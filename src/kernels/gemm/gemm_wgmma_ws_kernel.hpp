// The persistent, warp-specialised wgmma GEMM block (sm_90a), for decode, medium and large shapes:
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]   (fp32 accumulate)
// One block per SM computes a sequence of BM x BN tiles of D (GemmTileScheduler's order).
//
// Warp specialisation: warpgroup 0 is the producer. One of its threads issues two TMA boxes (BM
// and BN rows x 128 bytes of K) per k-tile of every tile into a ring of Stages stages: a "full"
// mbarrier per stage counts the bytes landing, an "empty" one the consumer warpgroups done with
// it. The producer runs on into the next tile while the consumers store the last one. Warpgroups
// 1 .. BM/64 are the consumers: consumer w computes rows 64 w .. 64 w + 63 of the tile with wgmma
// m64nNk32 (A's rows as wgmma's M, B's rows as its N: N = BN for BN = 64, 128 or 192, else two
// sub-tiles of 128), both operands read from the 128-byte swizzled K-major stages. With two
// consumers (BM = 128) the producer gives most of its registers to them (setmaxnreg); with one
// (BM = 64, decode shapes: no 128-row tile is half empty) each of the 256 threads has up to 255
// already.
//
// fp32 accumulation: each sub-tile's k-tile (128 of K, four k-steps) runs into a partial
// accumulator (its first wgmma overwrites it, scale-d = 0) that is then added into the sub-tile's
// fp32 total. With one sub-tile of BN <= 128 there are two partials: k-tile kt's batch is issued,
// then k-tile kt - 1's (wait_group 1) is added while kt runs, so a warpgroup always has tensor
// work queued. With two (BN = 256), or one of 192, the totals leave room for one partial only:
// each batch is drained (wait_group 0) and added, and the other consumer warpgroup's batch covers
// the drain (DeepGEMM's scheme). Either way nothing but wgmma defines a partial and every read of
// one is an asm statement (gmma::AddAccumulators), so ptxas keeps the wgmmas asynchronous (no
// C7515, unlike the fenced promotion of gemm_wgmma_tile.hpp). Registers per consumer thread: BN / 2 floats of
// totals and 64, 96 or 2 x 32..64 of partials.
//
// Clusters of two or four blocks: along M (ClusterM > 1) the blocks take consecutive M-tiles of
// the same N-tile and share its B tile: each loads 1 / ClusterM of B's rows and multicasts them to
// all, dividing B's L2 reads by ClusterM (large shapes). Along N (ClusterN > 1) they take
// consecutive N-tiles of one M-tile and share A the same way (decode shapes: one M-tile, A re-read
// by every block; cuBLASLt's M = 64 kernel multicasts A over four). A stage is then
// free only when every block's consumers are done with it:
// the consumers arrive on their own block's empty barrier and a relay warp of the producer
// warpgroup forwards each completed phase to every block's cluster_empty barrier, which the
// producer waits on (remote arrivals stay off the consumers' path; GemmWgmmaTmaBlock measured them).
//
// Split-K over a cluster (SplitK = 2 or 4, cells spelled `:k2`, `:k4`; no multicast): the blocks
// of a cluster compute the same tile, each over an even share of its k-tiles, so that tiles wider
// in N (A re-read by fewer blocks: L2 bytes N K (1 + M / BN) in all) still give every SM work on
// decode and medium shapes. Then each block finishes 1 / SplitK of the tile: the consumer threads
// send the other blocks their slices through distributed shared memory (remote stores, then one
// release.cluster arrival a warpgroup on the receiver's mbarrier), add to their own what they
// received, in rank order, and store their slice of D; no workspace, no atomics, the same sums on
// every call.
//
// Epilogue (gemm_ws_epilogue.hpp): straight from the totals to D (alpha * scales, beta * C, RNE to
// D's type), a pair of adjacent columns as one store where D's alignment allows, nothing outside D.
// With TmaStore (cells spelled `:st`) and a tensor map for D from the launcher (beta = 0, D's rows
// 16-byte aligned), the scaled tile goes through shared memory instead (gemm_tma_store.hpp): the
// warpgroup fills a 64-row x 128-byte chunk, one thread stores it with a TMA box, and the warpgroup
// fills the other of its two chunk buffers meanwhile, then runs the next tile's k-tiles while the
// last boxes are written: whole 128-byte lines, where the direct stores write 8- or 16-byte pieces
// of eight rows per instruction.
// Only tiles wholly inside D go by boxes (the TMA wrote past D's last column where it had to clip);
// the edge tiles store directly.
//
// The next tile's first batch under the epilogue (NextBatch, cells spelled `:nb`): once a tile's
// totals are complete, the consumer warpgroup issues the next tile's first k-tile into the free
// partial and only then scales and stores the totals, so the tensor cores are not idle through
// the epilogue. ptxas keeps the wgmmas asynchronous only where no code is reached both with a
// batch in flight and without, and no divergent branch lies under one: the first batch of a tile
// is issued before its loop (`FirstIssued`), the walk leaves the loop before the last tile's
// epilogue (which has nothing in flight), and the epilogue under a batch is a tile wholly inside
// D (the edge tiles' direct stores branch per thread: those drain first), stored by the TMA,
// whose one issuing thread stores and waits through predicated instructions (copy_commit_if), or
// by direct stores without bounds checks (no TMA store, or beta != 0, where a `:st` cell has no
// map for D). The cost: the epilogue starts only once the next tile's first stage has landed, so
// where loads lag (a streaming-bound walk) the store waits for them; the tune decides where that
// pays.
//
// Preconditions (the launcher's): K, lda, ldb multiples of 16; A, B 16-byte aligned; a 1-D grid
// of at most one block per SM, a multiple of the cluster size, launched in such clusters.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <cstring>

#include "fly/arch/barrier_sm90.hpp"
#include "fly/arch/copy_sm90_tma.hpp"
#include "fly/arch/grid_dependency_sm90.hpp"
#include "fly/arch/mma_sm90_accumulate.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_promoted_pairs.hpp"
#include "gemm_tma_ring.hpp"
#include "gemm_split_k.hpp"
#include "gemm_tma_store.hpp"
#include "gemm_tile_scheduler.hpp"
#include "gemm_wgmma_tile.hpp"
#include "gemm_ws_epilogue.hpp"

namespace fly::kernels {

template <int BM_, int BN_, int Stages_, int ClusterM_, int ClusterN_, class TD, bool TmaStore_ = false, int SplitK_ = 1,
          bool WarpStore_ = false, bool NextBatch_ = false>
struct GemmWgmmaWsBlock {
  static constexpr int BM = BM_, BN = BN_, BK = 128, Stages = Stages_, cluster_m = ClusterM_, cluster_n = ClusterN_;
  static constexpr int split_k = SplitK_;
  static constexpr int multicast = cluster_m * cluster_n;  // blocks sharing each other's loads
  static constexpr int cluster = multicast * split_k;      // blocks launched together
  static constexpr bool tma_store = TmaStore_;
  // With the TMA store, each warp stores its own 16 rows through its own two buffers, a __syncwarp
  // where a warpgroup's chunk takes two warpgroup barriers (cells spelled `:stw`; on trial), as
  // cuBLASLt's epilogue does.
  static constexpr bool warp_store = WarpStore_;
  static_assert(!warp_store || tma_store, "GemmWgmmaWsBlock: warp stores (:stw) are a form of the TMA store");
  using D = TD;  // D's element type
  // The next tile's first batch issued before this tile's epilogue (cells spelled `:nb`).
  static constexpr bool next_batch = NextBatch_;
  static_assert(!next_batch || SplitK_ == 1, "GemmWgmmaWsBlock: the next tile's batch goes under a whole tile's epilogue, without split-K");
  using TA = float8_e4m3fn;
  // one wgmma N up to 192 (N = 192: 96 totals and one partial fit beside each other), else 128-wide sub-tiles
  static constexpr int sub_n = BN <= 128 || BN == 192 ? BN : 128, subs = BN / sub_n;
  using Mma = WgmmaTile<sub_n>;
  static constexpr int acc_size = Mma::acc_size;
  static_assert(BM == 64 || BM == 128, "GemmWgmmaWsBlock: one or two consumer warpgroups of 64 rows of A (BM = 64 or 128)");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256,
                "GemmWgmmaWsBlock: BN is 64, 128, 192 (one wgmma N) or 256 (two N = 128 sub-tiles; a box <= 256 rows)");
  static_assert(Stages >= 2, "GemmWgmmaWsBlock: a ring needs two stages");
  static_assert((multicast == 1 || multicast == 2 || multicast == 4) && (cluster_m == 1 || cluster_n == 1),
                "GemmWgmmaWsBlock: clusters of 2 or 4 blocks along M or along N, or none");
  static_assert(split_k == 1 || ((split_k == 2 || split_k == 4) && multicast == 1 && !tma_store),
                "GemmWgmmaWsBlock: a tile's K split over a cluster of 2 or 4 blocks, without multicast or the TMA store");
  static_assert((BN / cluster_m) % 8 == 0 && (BM / cluster_n) % 8 == 0,
                "GemmWgmmaWsBlock: each block's multicast slice is whole 8-row swizzle atoms");
  static constexpr int consumers = BM / 64;
  static constexpr int threads = 128 * (consumers + 1);
  // CUTLASS's split for one producer and two consumer warpgroups: 40 + 2 x 232 registers a thread
  // add up to the 168 each of the 384 threads gets at launch (65536 / 384, in units of 8). With one
  // consumer the 256 threads get 255 each at launch, above 232: no reallocation (setmaxnreg.inc
  // may not lower a count).
  static constexpr bool moves_registers = consumers > 1;
  static constexpr int producer_regs = 40, consumer_regs = moves_registers ? 232 : 255;
  static_assert(!moves_registers ||
                    128 * producer_regs + consumers * 128 * consumer_regs <= threads * (65536 / threads / 8 * 8),
                "GemmWgmmaWsBlock: the warpgroups' registers exceed the block's");
  // one sub-tile whose two partials fit beside the totals: one batch always in flight
  // (mainloop_overlapped); else one partial, drained (two sub-tiles, or N = 192)
  static constexpr bool overlapped = subs == 1 && 3 * acc_size + 32 <= consumer_regs;
  static_assert(subs * acc_size + (overlapped ? 2 : 1) * acc_size + 32 <= consumer_regs,
                "GemmWgmmaWsBlock: the totals, the partials and 32 more registers exceed a consumer's");
  static constexpr int a_bytes = BM * BK, b_bytes = BN * BK, stage_bytes = a_bytes + b_bytes;
  static constexpr int swizzle_align = 1024;
  // Split-K (split_k > 1): each consumer thread's fragment of the tile, flattened (subs x
  // acc_size floats), is cut into split_k slices; block r of the cluster finishes slice r. Each
  // block receives the other blocks' copies of its slice into its exchange buffer: per consumer
  // warpgroup, split_k - 1 slots (one per sender) of `slice` floats x 128 threads, as float4s
  // with consecutive threads adjacent.
  static constexpr int frag_floats = subs * acc_size;
  using Split = SplitKExchange<frag_floats, split_k>;  // gemm_split_k.hpp
  static constexpr int exchange_bytes = consumers * Split::buffer_bytes;
  // full, empty[, cluster_empty] per stage[, received and read per consumer warpgroup]
  static constexpr int barriers = (multicast > 1 ? 3 * Stages : 2 * Stages) + (split_k > 1 ? 2 * consumers : 0);
  // TmaStore: two chunk buffers per consumer warpgroup after the ring (1024-byte aligned: stages are
  // whole 8-row swizzle atoms), then the barriers
  using StoreChunk = TmaStoreChunk<TD, warp_store ? 16 : 64>;
  static constexpr int store_owners = warp_store ? 4 : 1;  // a consumer warpgroup's chunk writers
  static constexpr int group_store_bytes = store_owners * 2 * StoreChunk::bytes;  // 16 KB either way
  static constexpr int store_bytes = tma_store ? consumers * group_store_bytes : 0;
  static_assert(!tma_store || (BN % StoreChunk::cols == 0 && sub_n % StoreChunk::cols == 0),
                "GemmWgmmaWsBlock: the TMA-store chunks split the tile's sub-tiles evenly");
  static constexpr int smem_bytes = Stages * stage_bytes + store_bytes + exchange_bytes + barriers * 8 + swizzle_align;
  // What the launcher encodes (tma_desc_cuda.hpp): A as M x K bytes in boxes of BM / ClusterN x
  // 128, B as N x K in boxes of BN / ClusterM x 128 (a block's multicast slice, or the whole tile).
  static constexpr int a_slice_rows = BM / cluster_n, b_slice_rows = BN / cluster_m;
  static constexpr int a_box_rows = a_slice_rows, b_box_rows = b_slice_rows, box_cols = 128;
  // The edge map's box (the launcher's, where M is not a whole number of A slices): the rows of A
  // past the last whole slice, in whole 8-row swizzle atoms. A slice that M cuts is loaded with it
  // instead of a full box whose rows past M the TMA would zero-fill (nearly as slow as loading them:
  // 128x128:s6:st ran M = 192 x 8192^2 in 43.4 us so, 34.5 with the edge box; docs/gemm.md
  // "Thirteenth session"); the smem rows after it keep stale bytes, which only reach D's rows past
  // M, never stored.
  FLY_HOST_DEVICE static constexpr int edge_box_rows(int64_t m) { return int((m % a_slice_rows + 7) / 8 * 8); }
  // The rows of A that the block of cluster rank `rank` loads for a tile at row m0 (its slice of
  // the shared tile; the whole tile without a cluster along N): a whole box for a slice inside M;
  // for the slice M cuts, the edge box (edge_map: the launcher made one) or a whole box the TMA
  // zero-fills past M; none for a slice wholly past M.
  FLY_HOST_DEVICE static constexpr int slice_box_rows(int64_t m, int64_t m0, int rank, bool edge_map) {
    const int64_t left = m - (m0 + int64_t(cluster_n > 1 ? rank : 0) * a_slice_rows);  // the slice's rows inside M
    return left >= a_slice_rows ? a_slice_rows : left <= 0 ? 0 : edge_map ? edge_box_rows(m) : a_slice_rows;
  }
  // A's rows that land in each block's stage for a tile at row m0: every block's slice.
  FLY_HOST_DEVICE static constexpr int a_rows_landing(int64_t m, int64_t m0, bool edge_map) {
    int rows = 0;
    for (int j = 0; j < cluster_n; ++j) rows += slice_box_rows(m, m0, j, edge_map);
    return rows;
  }
  static constexpr int group_m = 8;  // GemmTileScheduler's group of M-tiles

  // Where consumer thread t's total[sub][i] lands in its warpgroup's 64 x BN tile of D (row and
  // column from the warpgroup's first): wgmma's D fragment puts i = 4j + 2h + c at row 16 warp +
  // lane / 4 + 8h, column 8j + 2 (lane % 4) + c of sub-tile `sub`.
  FLY_HOST_DEVICE static constexpr void fragment_position(int t, int sub, int i, int& row, int& col) {
    const int warp = t / 32, lane = t % 32;
    row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    col = sub * sub_n + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
  }

#if defined(__CUDACC__)
  using Ring = TmaRing<Stages, multicast>;  // full, empty[, cluster_empty] per stage
  using Epilogue = GemmWsEpilogue<GemmWgmmaWsBlock>;  // the totals into D (gemm_ws_epilogue.hpp)

  // smem: smem_bytes of dynamic shared memory. Every thread of the block calls run; the grid is
  // `blocks` blocks, this one `block`. map_d: D's tensor map for the TMA-store epilogue, or null
  // (the direct stores; always null without TmaStore).
  // map_a_edge: A in boxes of edge_box_rows(M) rows for the slice M cuts, or null (that slice in a
  // whole box, the TMA zero-filling its rows past M). A slice wholly past M is never loaded.
  __device__ static void run(CUtensorMap const& map_a, CUtensorMap const* map_a_edge, CUtensorMap const& map_b,
                             CUtensorMap const* map_d, GemmParams const& p, unsigned char* smem_in, int block,
                             int blocks, int thr) {
    const uint32_t base = detail::smem_u32(smem_in);
    unsigned char* smem = smem_in + (swizzle_align - base % swizzle_align) % swizzle_align;
    auto* full = reinterpret_cast<uint64_t*>(smem + Stages * stage_bytes + store_bytes + exchange_bytes);
    uint64_t* empty = full + Stages;
    uint64_t* cluster_empty = empty + Stages;                                  // multicast only
    uint64_t* received = full + (multicast > 1 ? 3 : 2) * Stages;              // split-K only
    uint64_t* read = received + consumers;                                     // split-K only
    if (thr == 0) {
      prefetch_tma_descriptor(&map_a);
      prefetch_tma_descriptor(&map_b);
      if constexpr (tma_store) {
        if (map_d != nullptr) prefetch_tma_descriptor(map_d);
      }
      if (map_a_edge != nullptr) prefetch_tma_descriptor(map_a_edge);
      if constexpr (split_k > 1) {
        for (int g = 0; g < consumers; ++g) {  // one arrival from each other block's same warpgroup a tile
          mbarrier::init(&received[g], split_k - 1);
          mbarrier::init(&read[g], split_k - 1);
        }
      }
      Ring::init(full, consumers);  // empty: one arrival per consumer warpgroup (and the fence for all)
    }
    if constexpr (split_k > 1) {
      cluster::sync_after_barrier_init();  // the exchange barriers exist before any other block arrives on them
    } else {
      Ring::sync_after_init();
    }
    const Work work = make_work(p, block, blocks);
    if (thr < 128) {
      if constexpr (moves_registers) gmma::warpgroup_reg_dealloc<producer_regs>();
      if (thr == 0) {
        produce(map_a, map_a_edge, map_b, smem, full, multicast > 1 ? cluster_empty : empty, work, p.m,
                p.let_next_start);
      } else if constexpr (multicast > 1) {
        const int lane = thr - 32;  // the producer warpgroup's second warp
        if (lane >= 0 && lane < multicast) Ring::relay(empty, cluster_empty, work.count() * work.k_tiles, lane);
      }
    } else {
      if constexpr (moves_registers) gmma::warpgroup_reg_alloc<consumer_regs>();
      consume(p, tma_store ? map_d : nullptr, smem, full, empty, received, read, work, thr - 128);
    }
    if constexpr (cluster > 1) {
      __syncwarp();     // the producer warps reconverged (one lane each ran produce / relay) before the .aligned barrier
      cluster::sync();  // no block leaves while its cluster may still multicast into it or arrive on its barriers
    }
  }

  // Where block `block` of `blocks` starts: its first tile's N offset (run's Work), for the L2
  // warm-up before the wait; -1 without a tile. Each block of a cluster warms its own B rows.
  __device__ static int64_t first_n0(GemmParams const& p, int block, int blocks) {
    const Work work = make_work(p, block, blocks);
    if (work.count() == 0) return -1;
    int m0, n0;
    work.coord(0, m0, n0);
    return n0;
  }

  // ... and the first column of K it reads (split over K: its share's first k-tile).
  __device__ static int64_t first_k0(GemmParams const& p) { return int64_t(k_share(p, 0)) * BK; }

  // Split over K, the first k-tile of this block's share (`end` 1: of the next block's, where its
  // own ends); the shares are even, the last ones a k-tile longer where they do not divide.
  __device__ static int k_share(GemmParams const& p, int end) {
    return Split::k_begin((p.k + BK - 1) / BK, (split_k > 1 ? int(cluster::block_rank()) : 0) + end);
  }

  // A block's share of the cluster's tiles: cluster tiles first, first + step, ...; of each, M-tile
  // cluster_m tm + rank (clusters along M) or N-tile cluster_n tn + rank (along N), or with
  // split-K the whole tile over k-tiles [k_begin, k_begin + k_tiles), the rank-th of split_k even shares.
  struct Work {
    GemmTileScheduler tiles;
    int first, step, rank, k_begin, k_tiles;
    __device__ int64_t count() const { return first < tiles.tiles() ? (tiles.tiles() - 1 - first) / step + 1 : 0; }
    __device__ void coord(int64_t i, int& m0, int& n0) const {
      int64_t tm, tn;
      tiles.coord(first + i * step, tm, tn);
      m0 = int((tm * cluster_m + (cluster_m > 1 ? rank : 0)) * BM);
      n0 = int((tn * cluster_n + (cluster_n > 1 ? rank : 0)) * BN);
    }
  };

  // The cluster walks tiles of cluster_m BM x cluster_n BN; this block takes one BM x BN of each
  // (or, split over K, its share of every k-tile range).
  __device__ static Work make_work(GemmParams const& p, int block, int blocks) {
    const int k_begin = k_share(p, 0);
    return Work{GemmTileScheduler(p.m, p.n, BM * cluster_m, BN * cluster_n, group_m / cluster_m), block / cluster,
                blocks / cluster, cluster > 1 ? int(cluster::block_rank()) : 0, k_begin, k_share(p, 1) - k_begin};
  }

  // With a cluster: once this block's consumers are done with a stage, lane c tells block c (its
  // cluster_empty barrier). Only the k-tiles the producers wait for: the last Stages are never refilled.
  // empty: the barrier that frees a stage (cluster_empty with a cluster: every block's consumers).
  // map_a_edge (or null): the edge box's map, for the slice of A that M cuts (edge_box_rows).
  __device__ static void produce(CUtensorMap const& map_a, CUtensorMap const* map_a_edge, CUtensorMap const& map_b,
                                 unsigned char* smem, uint64_t* full, uint64_t* empty, Work const& work, int m,
                                 bool let_next_start) {
    uint32_t it = 0;  // k-tiles issued so far, over all of this block's tiles: the ring position
    for (int64_t i = 0; i < work.count(); ++i) {
      int m0, n0;
      work.coord(i, m0, n0);
      // this block's slice of A (slice_box_rows): a whole box, the edge box, or nothing past M
      const bool edge_map = map_a_edge != nullptr;
      const int slice = cluster_n > 1 ? work.rank * a_slice_rows : 0;
      const int a_rows = slice_box_rows(m, m0, work.rank, edge_map);
      const bool a_load = a_rows > 0;
      CUtensorMap const* a_map = a_rows == a_slice_rows ? &map_a : map_a_edge;
      // the A rows every block of the cluster lands (all BM of a tile inside M), and B; boxes past
      // N and K count in full
      const uint32_t bytes = uint32_t(a_rows_landing(m, m0, edge_map)) * BK + b_bytes;
      for (int kt = 0; kt < work.k_tiles; ++kt, ++it) {
        const uint32_t s = it % Stages;
        if (it >= Stages) mbarrier::wait(&empty[s], (it / Stages - 1) & 1);  // k-tile it - Stages is consumed
        mbarrier::arrive_expect_tx(&full[s], bytes);
        unsigned char* a = smem + s * stage_bytes;
        constexpr auto everyone = uint16_t((1u << multicast) - 1);
        if constexpr (cluster_n > 1) {  // this block's slice of the shared A tile, to every block
          if (a_load) SM90_TMA_LOAD_2D_MULTICAST::copy(a_map, &full[s], everyone, a + slice * 128, kt * BK, m0 + slice);
        } else if (a_load) {
          SM90_TMA_LOAD_2D::copy(a_map, &full[s], a, (work.k_begin + kt) * BK, m0);
        }
        if constexpr (cluster_m > 1) {  // likewise the shared B tile
          const int slice = work.rank * b_slice_rows;
          SM90_TMA_LOAD_2D_MULTICAST::copy(&map_b, &full[s], everyone, a + a_bytes + slice * 128, kt * BK, n0 + slice);
        } else {
          SM90_TMA_LOAD_2D::copy(&map_b, &full[s], a + a_bytes, (work.k_begin + kt) * BK, n0);
        }
      }
    }
    if (let_next_start) launch_next_grid();  // the block's last loads are issued
  }

  // thr in [0, consumers * 128): consumer warpgroup thr / 128. map_d: null for the direct stores.
  __device__ static void consume(GemmParams const& p, CUtensorMap const* map_d, unsigned char* smem, uint64_t* full,
                                 uint64_t* empty, uint64_t* received, uint64_t* read, Work const& work, int thr) {
    // through a shuffle, so that the compiler knows it warp-uniform and keeps the descriptors
    // built from it in uniform registers (wgmma reads them there)
    const int group = __shfl_sync(0xffffffff, thr / 128, 0);
    const uint32_t ring = detail::smem_u32(smem);
    const StageZero desc{gmma::make_smem_desc(ring + group * 64 * 128, 16, Mma::row_group_bytes, gmma::SmemSwizzle::b128),
                         gmma::make_smem_desc(ring + a_bytes, 16, Mma::row_group_bytes, gmma::SmemSwizzle::b128)};
    // Left undefined: every k-tile's first wgmma overwrites its partial (scale-d = 0). Zeroed here,
    // the compiler shares one zero register among the partials and later reads it as 0.0 (for
    // the totals), a non-wgmma read of an accumulator in flight (C7514, serialised wgmmas).
    float part[overlapped ? 2 : 1][acc_size];
    uint32_t it = 0;      // as the producer's
    uint32_t stored = 0;  // TMA-store chunks issued by this warpgroup: which buffer is next
    // alpha * the scales, read once: loaded in every tile's epilogue, their global latency stood
    // between each tile's last wgmma and its first store (the tensor cores idle; ncu, 2026-12-06)
    const float scale = epilogue_scale(p);
    const int64_t tiles = work.count();
    unsigned char* store_buffers = smem + Stages * stage_bytes + group * group_store_bytes;
    // The warpgroup's 64 rows of the tile at (m0, n0) into D, by boxes or directly (nothing in flight).
    auto epilogue = [&](float const (&total)[subs][acc_size], int m0, int n0) {
      const int rows0 = m0 + group * 64;
      if constexpr (tma_store) {
        if (by_boxes(p, map_d, rows0, n0)) {
          Epilogue::store_by_tma(total, scale, map_d, store_buffers, stored, rows0, n0, thr % 128, group);
          return;
        }
      }
      Epilogue::store(total, p, scale, rows0, n0, thr % 128, work.rank);
    };
    if constexpr (next_batch) {
      // Tile i + 1's first batch goes in before tile i's epilogue (the header says how ptxas wants
      // it): the loop is entered and re-entered with a batch in flight, and left before the last
      // tile's epilogue; an edge tile drains first (its direct stores branch per thread).
      // (no loop test: the back edge, taken with a batch in flight, may not reach an exit)
      if (tiles == 0) return;  // no store to wait for
      issue_first(desc, full, it, part[0]);
      for (int64_t i = 0;; ++i) {
        int m0, n0;
        work.coord(i, m0, n0);
        float total[subs][acc_size];
        zero(total);
        if constexpr (overlapped) {
          mainloop_overlapped<true>(total[0], part, desc, full, empty, work.k_tiles, it, thr);
        } else {
          mainloop_drained<true>(total, part[0], desc, full, empty, work.k_tiles, it, thr);
        }
        const int rows0 = m0 + group * 64;
        if (i + 1 < tiles && inside(p, rows0, n0)) {
          issue_first(desc, full, it, part[0]);
          if constexpr (tma_store) {
            if (map_d != nullptr) {
              Epilogue::store_by_tma(total, scale, map_d, store_buffers, stored, rows0, n0, thr % 128, group);
              continue;
            }
          }
          Epilogue::store_inside(total, p, scale, rows0, n0, thr % 128);  // beta != 0, or no :st
          continue;
        }
        epilogue(total, m0, n0);
        if (i + 1 == tiles) break;
        issue_first(desc, full, it, part[0]);
      }
    } else {
      for (int64_t i = 0; i < tiles; ++i) {
        int m0, n0;
        work.coord(i, m0, n0);
        float total[subs][acc_size];
        zero(total);
        if constexpr (overlapped) {
          mainloop_overlapped(total[0], part, desc, full, empty, work.k_tiles, it, thr);
        } else {
          mainloop_drained(total, part[0], desc, full, empty, work.k_tiles, it, thr);
        }
        if constexpr (split_k > 1) {  // every warpgroup of every tile, in or past D: the peers wait for it
          exchange(total, detail::smem_u32(smem + Stages * stage_bytes + store_bytes) + group * Split::buffer_bytes,
                   received + group, read + group, i, i + 1 == tiles, work.rank, group, thr % 128);
        }
        epilogue(total, m0, n0);
      }
    }
    // The chunk buffers stay in use until the TMA has read them. Only the read is waited for (as
    // CUTLASS's epilogue does): the grid's completion makes D's bulk writes visible to the next
    // kernel, and waiting for the writes too held every block's exit for their global latency
    // (an L1 invalidate, 3% of the 2048^3 cell's stall samples, ncu 2026-12-06).
    if constexpr (tma_store) {
      if (map_d != nullptr && thr % (warp_store ? 32 : 128) == 0) tma_store_wait_read<0>();  // each issuer's own
    }
  }

  // Whether the warpgroup's 64 rows of the tile at (rows0, n0) go to D by TMA boxes: with the TMA
  // store and D's map, and only for a tile wholly inside D; the edge tiles store directly. The TMA
  // wrote past D's last column where a box straddled it (the H100, 2026-12-05: D(0, 261) of a
  // 261-column D with 272-element rows), so the boxes are never left to clip.
  __device__ static bool by_boxes(GemmParams const& p, CUtensorMap const* map_d, int rows0, int n0) {
    return map_d != nullptr && inside(p, rows0, n0);
  }
  // Whether the warpgroup's 64 rows of the tile at (rows0, n0) lie wholly inside D.
  __device__ static bool inside(GemmParams const& p, int rows0, int n0) { return rows0 + 64 <= p.m && n0 + BN <= p.n; }

  __device__ static void zero(float (&total)[subs][acc_size]) {
FLY_UNROLL
    for (int s = 0; s < subs; ++s)
FLY_UNROLL
      for (int i = 0; i < acc_size; ++i) total[s][i] = 0.f;
  }

  // The wgmma descriptors of stage 0's tiles: a, wgmma's M side (the consumer warpgroup's 64 rows
  // of A), and b, its N side (B's first row). Every other stage and k-step is an offset from them
  // (gmma::smem_desc_plus): a wgmma's operands cost an add each instead of an encoding (a shift,
  // two masks and a move per operand).
  struct StageZero {
    uint64_t a, b;
  };

  // NextBatch: the first batch of the tile whose k-tiles start at ring position `it` (sub-tile 0
  // of its first k-tile) into `part`, once its stage has landed.
  __device__ static void issue_first(StageZero const& desc, uint64_t* full, uint32_t it, float (&part)[acc_size]) {
    const uint32_t s = it % Stages;
    mbarrier::wait(&full[s], (it / Stages) & 1);
    issue(desc, s * stage_bytes, 0, part);
  }

  // One k-tile's four k-steps of sub-tile `sub` from the stage `stage` bytes into the ring, into
  // `part`, overwriting it (scale-d = 0). No compiler fences on `part` (they would count as
  // definitions, C7515): every access to it is an asm statement (wgmma here, AddAccumulators),
  // which the compiler keeps in order.
  __device__ static void issue(StageZero const& desc, uint32_t stage, int sub, float (&part)[acc_size]) {
    gmma::warpgroup_arrive();
FLY_UNROLL
    for (int j = 0; j < Mma::promote_steps; ++j) {
      // wgmma's M side: the warpgroup's rows of A; its N side: sub_n rows of B; k-step j 32 bytes on
      const uint64_t desc_a = gmma::smem_desc_plus(desc.a, stage + j * 32);
      const uint64_t desc_b = gmma::smem_desc_plus(desc.b, stage + sub * sub_n * 128 + j * 32);
      if (j == 0) {
        Mma::Wgmma::template fma<0>(desc_a, desc_b, part);
      } else {
        Mma::Wgmma::fma(desc_a, desc_b, part);
      }
    }
    gmma::warpgroup_commit_batch();
  }

  // BN = sub_n: two partials, one k-tile's batch in flight while the previous one (done:
  // wait_group 1) is added into the total (run_promoted_pairs), so the warpgroup always has tensor
  // work queued; a stage is released one k-tile later than its batch was issued. `it`: the ring
  // position, advanced.
  // FirstIssued: batch 0 is in flight into part[0] already (issue_first).
  template <bool FirstIssued = false>
  __device__ static void mainloop_overlapped(float (&total)[acc_size], float (&part)[2][acc_size], StageZero const& desc,
                                             uint64_t* full, uint64_t* empty, int k_tiles, uint32_t& it, int thr) {
    const uint32_t first = it;
    run_promoted_pairs<FirstIssued>(
        k_tiles, total, part,
        [&](int g, float(&cur)[acc_size]) {
          const uint32_t s = (first + g) % Stages;
          mbarrier::wait(&full[s], ((first + g) / Stages) & 1);
          issue(desc, s * stage_bytes, 0, cur);
        },
        [&](int h) {  // k-tile h - 1 is read: its stage is free
          if (thr % 128 == 0) mbarrier::arrive(&empty[(first + h - 1) % Stages]);
        });
    it += uint32_t(k_tiles);
  }

  // Two sub-tiles (BN = 256) or one of 192: each sub-tile's k-tile drained (wait_group 0) and added
  // before the next is issued (two partials and the totals would not fit a consumer's registers).
  // FirstIssued: k-tile 0's sub-tile 0 is in flight into `part` already (issue_first); that k-tile
  // is peeled off, so that no code is reached both with a batch in flight and without.
  template <bool FirstIssued = false>
  __device__ static void mainloop_drained(float (&total)[subs][acc_size], float (&part)[acc_size], StageZero const& desc,
                                          uint64_t* full, uint64_t* empty, int k_tiles, uint32_t& it, int thr) {
    // the k-tile in stage s, sub-tile by sub-tile (sub-tile 0 issued already where `issued`)
    auto drain = [&](uint32_t s, bool issued) {
FLY_UNROLL
      for (int sub = 0; sub < subs; ++sub) {
        if (sub > 0 || !issued) issue(desc, s * stage_bytes, sub, part);
        gmma::warpgroup_wait<0>();
        if (sub == subs - 1 && thr % 128 == 0) mbarrier::arrive(&empty[s]);  // the stage is read
        gmma::AddAccumulators<acc_size>::add(total[sub], part);
      }
    };
    int kt = 0;
    if constexpr (FirstIssued) {
      drain(it % Stages, true);
      ++kt;
      ++it;
    }
    for (; kt < k_tiles; ++kt, ++it) {
      const uint32_t s = it % Stages;
      mbarrier::wait(&full[s], (it / Stages) & 1);
      drain(s, false);
    }
  }

  // The consumer warpgroup's 128 threads: named barriers 1 and 2 (0 is __syncthreads'), as immediates.
  __device__ static void sync_warpgroup(int group) {
    if (group == 0) {
      named_barrier::sync<1, 128>();
    } else {
      named_barrier::sync<2, 128>();
    }
  }

  // Split-K: the exchange of tile `tile` (this block's tile count so far; `last`: its last) among
  // the cluster's blocks, for consumer thread t of warpgroup `group`. This block (rank) stores each
  // other block j's slice of its totals into j's buffer (slot `rank` there, counted without j);
  // once the whole warpgroup has, one thread arrives on j's `received`, releasing the stores at
  // cluster scope (one fence a block, not one a thread). Then it waits for its own `received`, adds
  // the others' copies of its slice to its own in rank order (the same order every call: no
  // run-to-run variation) and, unless this is its last tile, tells them through their `read` that their slot
  // is free again, which they wait for before the next tile's stores. `buffer`: this warpgroup's
  // split_k - 1 slots in this block; `received`, `read`: its two barriers.
  __device__ static void exchange(float (&total)[subs][acc_size], uint32_t buffer, uint64_t* received, uint64_t* read,
                                  int64_t tile, bool last, int rank, int group, int t) {
    constexpr int slice_floats = Split::slice_floats;
    auto at = [&](int from, int to, int f) { return buffer + Split::offset(Split::slot(from, to), (f % slice_floats) / 4, t); };
    auto arrive_on_the_others = [&](uint64_t* bar) {
      sync_warpgroup(group);  // every thread's stores (or reads) come before the one arrival
      if (t < split_k && t != rank) mbarrier::arrive_cluster<true>(bar, uint32_t(t));  // thread j: block j's
    };
    if (tile > 0) mbarrier::wait_cluster(read, uint32_t(tile - 1) & 1);
FLY_UNROLL
    for (int f = 0; f < frag_floats; f += 4) {
      const int j = Split::owner(f), sub = f / acc_size, i = f % acc_size;  // j: the block that finishes them
      if (j != rank)
        cluster::store_remote(at(rank, j, f), uint32_t(j), total[sub][i],
                              total[sub][i + 1], total[sub][i + 2], total[sub][i + 3]);
    }
    arrive_on_the_others(received);
    mbarrier::wait_cluster(received, uint32_t(tile) & 1);
FLY_UNROLL
    for (int from = 0; from < split_k; ++from) {
FLY_UNROLL
      for (int f = 0; f < frag_floats; f += 4) {
        const int sub = f / acc_size, i = f % acc_size;
        if (from != rank && Split::owner(f) == rank) {
          float x, y, z, w;
          asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                       : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                       : "r"(at(from, rank, f))
                       : "memory");
          total[sub][i] += x;
          total[sub][i + 1] += y;
          total[sub][i + 2] += z;
          total[sub][i + 3] += w;
        }
      }
    }
    if (!last) arrive_on_the_others(read);  // nobody waits on the last tile's
  }

#endif
};

}  // namespace fly::kernels
