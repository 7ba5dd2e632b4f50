// The fp32 SIMT block's layouts (gemm_simt_kernel.hpp), on the host: its staging loads 16-byte
// vectors along K and stores them transposed, so that over all threads every (row, k) of a k-tile
// lands at k * ld + row (zero past the matrix's rows or K) and no padding byte is written; its
// tiled MMA gives each thread rows and columns in runs of four that one 16-byte shared load reads
// at one k, every (row, k) read by one thread of each warp column; its epilogue's partition
// covers the D tile once; and the whole block, its threads run as host threads meeting at its
// barriers, computes D against a float64 reference with M, N and K off the tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "fly/atom/mma_traits_sm90.hpp"
#include "gemm_simt_kernel.hpp"

namespace {
using namespace fly;

using Wide = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 128, 128, 8, float>;
using Deep = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 128, 128, 16, float>;
using Tall = kernels::GemmSimtBlock<Layout<Shape<_16, _8, _1>>, 128, 64, 8, float>;
using Small = kernels::GemmSimtBlock<Layout<Shape<_8, _8, _1>>, 64, 64, 8, float>;
using Flat = kernels::GemmSimtBlock<Layout<Shape<_8, _16, _1>>, 64, 128, 8, float>;
// three k-tiles from load to multiply (two waiting in registers), and split-K over 2 and 4 blocks
using Deep3 = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 128, 128, 16, float, 3>;
using Split2 = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 128, 128, 16, float, 3, 2>;
using Split4 = kernels::GemmSimtBlock<Layout<Shape<_8, _16, _1>>, 64, 128, 16, float, 3, 4>;
using SmallSplit2 = kernels::GemmSimtBlock<Layout<Shape<_8, _8, _1>>, 64, 64, 8, float, 2, 2>;
using FlatSplit4 = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 64, 128, 16, float, 3, 4>;  // 4 x 8 a thread
// each warp's 32 threads as 4 x 8 of the 16 x 16 (:l4x8), alone and split over a cluster of 2
using Lanes4x8 = Layout<Shape<Shape<_4, _4>, Shape<_8, _2>, _1>, Stride<Stride<_1, _32>, Stride<_4, _128>, _0>>;
using Lanes = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 16, float>;
using LanesSplit2 = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 16, float, 3, 2>;
// the grid's 64x128 split lane tile (4 x 8 outputs a thread) and its lane tile at BK = 32
using NarrowLanesSplit2 = kernels::GemmSimtBlock<Lanes4x8, 64, 128, 16, float, 3, 2>;
using LanesDeep = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 32, float>;
// the twenty-sixth session's trial tiles: BK = 32 in both split lane tiles, the 64x128 lane tile
// over a cluster of 4, and the lanes in the 4-byte split cells
using NarrowLanesDeepSplit2 = kernels::GemmSimtBlock<Lanes4x8, 64, 128, 32, float, 3, 2>;
using LanesDeepSplit2 = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 32, float, 3, 2>;
using NarrowLanesSplit4 = kernels::GemmSimtBlock<Lanes4x8, 64, 128, 16, float, 3, 4>;
using Load4LanesSplit2 = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 16, float, 2, 2, 32>;
using Load4NarrowLanesSplit2 = kernels::GemmSimtBlock<Lanes4x8, 64, 128, 16, float, 3, 2, 32>;
// 64 x 256 tiles of 8 x 32 threads (8 x 8 outputs each), lanes 4 x 8, split over a cluster of 4
using Lanes8x32 = Layout<Shape<Shape<_4, _2>, Shape<_8, _4>, _1>, Stride<Stride<_1, _32>, Stride<_4, _64>, _0>>;
using WideLanesSplit4 = kernels::GemmSimtBlock<Lanes8x32, 64, 256, 16, float, 3, 4>;
// the fragments one k-step ahead across the k-tile's barrier (:pf): two and three stages, split
// over 2 and 4, 4-byte loads
using LanesPf = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 16, float, 2, 1, 128, true>;
using Lanes3Pf = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 16, float, 3, 1, 128, true>;
using LanesSplit2Pf = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 16, float, 3, 2, 128, true>;
using NarrowLanesSplit4Pf = kernels::GemmSimtBlock<Lanes4x8, 64, 128, 16, float, 3, 4, 128, true>;
using Load4LanesPf = kernels::GemmSimtBlock<Lanes4x8, 128, 128, 16, float, 2, 1, 32, true>;
using WidePf = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 128, 128, 8, float, 2, 1, 128, true>;
// staging by 4-byte loads (simt32)
using Load4 = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 128, 128, 16, float, 2, 1, 32>;
using Load4Split2 = kernels::GemmSimtBlock<Layout<Shape<_16, _16, _1>>, 128, 128, 16, float, 3, 2, 32>;

// Where (row, k) of a k-tile lies in a shared tile of row pitch Ld: rows padded to Ld floats, and
// each group of eight k after the first eight floats further on (BK = 16: k + 8 in the banks
// that k leaves free).
template <int Ld>
int smem_offset(int row, int k) {
  return k * Ld + (k / 8) * 8 + row;
}
// The (row, k) at each offset of a Rows x BK tile, (-1, -1) for padding.
template <int Rows, int BK, int Ld>
std::vector<std::pair<int, int>> smem_places(int elems) {
  std::vector<std::pair<int, int>> place(size_t(elems), {-1, -1});
  for (int k = 0; k < BK; ++k)
    for (int r = 0; r < Rows; ++r) place.at(size_t(smem_offset<Ld>(r, k))) = {r, k};
  return place;
}

// Runs every thread's load and store of one operand's Rows x BK k-tile into a poisoned shared
// buffer and checks each element's place and value.
template <class Block, int Rows, int Ld>
void check_staging(int rows_left, int k_left, int64_t ld_pad = 12) {
  constexpr int BK = Block::BK;
  const int64_t ld = BK + ld_pad;  // a padded global leading dimension (a multiple of 4 for 16-byte loads)
  std::mt19937 rng(uint32_t(rows_left * 977 + k_left));
  std::uniform_real_distribution<float> value(1.f, 2.f);  // never 0: a zero-fill is visible
  std::vector<float> global(size_t(Rows * ld));
  for (float& x : global) x = value(rng);
  constexpr int elems = Block::template tile_elems<Ld>;
  std::vector<float> smem(size_t(elems), -1.f);
  auto tile = make_tensor(smem.data(), typename Block::template SmemLayout<Rows, Ld>{});
  for (int thr = 0; thr < Block::threads; ++thr) {
    typename Block::template Stage<Rows, Ld> stage;
    stage.load(global.data(), ld, rows_left, k_left, thr);
    stage.store(tile, thr);
  }
  const auto place = smem_places<Rows, BK, Ld>(elems);
  for (int off = 0; off < elems; ++off) {
    const float got = smem[size_t(off)];
    const auto [r, k] = place[size_t(off)];
    if (r < 0) {
      ASSERT_EQ(got, -1.f) << "padding (offset " << off << ") was written";
    } else {
      const float want = r < rows_left && k < k_left ? global[size_t(r * ld + k)] : 0.f;
      ASSERT_EQ(got, want) << "row " << r << " k " << k << " of " << rows_left << "x" << k_left;
    }
  }
}

TEST(GemmSimt, StagingStoresEveryElementTransposed) {
  check_staging<Wide, 128, Wide::ld_a>(128, 8);
  check_staging<Wide, 128, Wide::ld_a>(77, 8);   // M cuts the tile
  check_staging<Wide, 128, Wide::ld_a>(128, 4);  // K ends inside the k-tile
  check_staging<Deep, 128, Deep::ld_b>(5, 12);
  check_staging<Tall, 128, Tall::ld_a>(128, 8);  // two vectors a thread
  check_staging<Tall, 64, Tall::ld_b>(33, 4);    // one vector a thread
  check_staging<Small, 64, Small::ld_a>(64, 8);  // 64 threads, two vectors each
  // 4-byte loads: any K, any row pitch
  check_staging<Load4, 128, Load4::ld_a>(128, 16, 3);
  check_staging<Load4, 128, Load4::ld_b>(77, 13, 5);
  check_staging<Load4, 128, Load4::ld_a>(1, 1, 1);
}

// A warp's 4-byte loads of a BK = 16 k-tile: 16 consecutive k of each of two rows.
TEST(GemmSimt, FourByteLoadsOfAWarpReadRunsOfARow) {
  using L = Load4::Loader<128>;
  static_assert(Load4::vec == 1 && Load4::reg_stages == 1);
  std::vector<float> tile(128 * 16);
  auto first = [&](int thr) {  // the offset of thread thr's first load in the 128 x 16 tile
    auto src = typename L::Copy{}.get_slice(thr).partition_S(
        make_tensor(static_cast<float const*>(tile.data()), make_layout(make_shape(_128{}, _16{}), make_stride(_16{}, _1{}))));
    return int(&src(0) - tile.data());
  };
  for (int warp = 0; warp < Load4::threads / 32; ++warp)
    for (int lane = 0; lane < 32; ++lane)
      EXPECT_EQ(first(32 * warp + lane), 32 * warp + lane) << "warp " << warp << " lane " << lane;
}

// Thread thr's fragment of operand A (Operand 0) or B (1) in the block's shared tile: the
// (sub-layout, offset) of partition_layout_A / _B.
template <class Block, int Operand>
auto fragment_layout(int thr) {
  auto slice = typename Block::Mma{}.get_slice(thr);
  if constexpr (Operand == 0) {
    return slice.partition_layout_A(typename Block::template SmemLayout<Block::BM, Block::ld_a>{});
  } else {
    return slice.partition_layout_B(typename Block::template SmemLayout<Block::BN, Block::ld_b>{});
  }
}

// For operand A (m, at index 0) or B (n, at index 1): every (row, k) read by exactly one thread of
// each warp column (row), and each thread's rows at one k in runs of four adjacent floats.
template <class Block, int Operand>
void check_fragments() {
  using Mma = typename Block::Mma;
  constexpr int Rows = Operand == 0 ? Block::BM : Block::BN, Ld = Operand == 0 ? Block::ld_a : Block::ld_b;
  constexpr int BK = Block::BK;
  std::vector<int> reads(size_t(Rows * BK), 0);
  const auto place = smem_places<Rows, BK, Ld>(Block::template tile_elems<Ld>);
  for (int thr = 0; thr < Mma::num_threads; ++thr) {
    const auto c = Mma::thread_coord(thr);
    if ((Operand == 0 ? get<2>(c) : get<1>(c)) != 0) continue;  // the threads of one column (row)
    auto [part, base] = fragment_layout<Block, Operand>(thr);
    constexpr int MN = int(decltype(size<1>(part))::value), K = int(decltype(size<2>(part))::value);
    ASSERT_EQ(K, BK);
    ASSERT_EQ(MN % 4, 0);
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < MN; ++i) {
        const int off = int(base) + int(part(0, i, k));
        ASSERT_LT(off, int(place.size())) << "thread " << thr << " value " << i;
        const auto [row, at_k] = place[size_t(off)];
        ASSERT_EQ(at_k, k) << "thread " << thr << " value " << i;
        ASSERT_GE(row, 0);
        if (i % 4 != 0) {
          ASSERT_EQ(off, int(base) + int(part(0, i - 1, k)) + 1) << "thread " << thr << ": rows not in runs of four";
        } else {
          ASSERT_EQ(off % 4, 0) << "thread " << thr << ": a run not 16-byte aligned";
        }
        ++reads[size_t(row * BK + k)];
      }
  }
  for (int r = 0; r < Rows; ++r)
    for (int k = 0; k < BK; ++k) EXPECT_EQ(reads[size_t(r * BK + k)], 1) << "row " << r << " k " << k;
}

TEST(GemmSimt, FragmentsAreRunsOfFourReadOnce) {
  check_fragments<Wide, 0>();
  check_fragments<Wide, 1>();
  check_fragments<Tall, 0>();
  check_fragments<Tall, 1>();
  check_fragments<Small, 0>();
  check_fragments<Deep, 1>();
  check_fragments<Flat, 0>();
  check_fragments<Flat, 1>();
  check_fragments<Lanes, 0>();
  check_fragments<Lanes, 1>();
  check_fragments<WideLanesSplit4, 0>();
  check_fragments<NarrowLanesSplit2, 0>();
  check_fragments<LanesDeep, 1>();
  check_fragments<WideLanesSplit4, 1>();
}

// A k step's LDS.128 of one operand, warp by warp: the distinct 16-byte runs its 32 threads read
// at k = 0, fragment value 0. Shared memory serves 128 bytes a wavefront, so up to 8 runs of one
// 128-byte row are one wavefront. The column-major 16 x 16 warp is 16 x 2 threads (16 runs of A,
// 2 of B); :l4x8 makes it 4 x 8 (4 and 8: one wavefront each).
template <class Block, int Operand>
std::vector<int> runs_a_warp_reads() {
  using Mma = typename Block::Mma;
  std::vector<int> runs;
  for (int warp = 0; warp < Mma::num_threads / 32; ++warp) {
    std::set<int> distinct;
    for (int thr = 32 * warp; thr < 32 * warp + 32; ++thr) {
      auto [part, base] = fragment_layout<Block, Operand>(thr);
      distinct.insert((int(base) + int(part(0, 0, 0))) / 4);
    }
    runs.push_back(int(distinct.size()));
  }
  return runs;
}

TEST(GemmSimt, LaneLayoutSetsTheRunsAWarpReads) {
  EXPECT_EQ((runs_a_warp_reads<Deep, 0>()), std::vector<int>(8, 16));
  EXPECT_EQ((runs_a_warp_reads<Deep, 1>()), std::vector<int>(8, 2));
  EXPECT_EQ((runs_a_warp_reads<Lanes, 0>()), std::vector<int>(8, 4));
  EXPECT_EQ((runs_a_warp_reads<Lanes, 1>()), std::vector<int>(8, 8));
  EXPECT_EQ((runs_a_warp_reads<WideLanesSplit4, 0>()), std::vector<int>(8, 4));  // 8 x 32 threads: the same lanes
  EXPECT_EQ((runs_a_warp_reads<WideLanesSplit4, 1>()), std::vector<int>(8, 8));
}

// The accumulators' (row, column) over all threads: each of the BM x BN outputs once, and each
// thread's outputs exactly the products of the A rows and B columns it reads.
template <class Block>
void check_outputs() {
  using Mma = typename Block::Mma;
  constexpr int BM = Block::BM, BN = Block::BN;
  std::vector<int> owners(size_t(BM * BN), 0);
  auto rowmajor = make_layout(make_shape(Int<BM>{}, Int<BN>{}), make_stride(Int<BN>{}, _1{}));
  typename Block::template SmemLayout<BM, Block::ld_a> smem_a{};
  typename Block::template SmemLayout<BN, Block::ld_b> smem_b{};
  for (int thr = 0; thr < Mma::num_threads; ++thr) {
    auto slice = Mma{}.get_slice(thr);
    auto [part, base] = slice.partition_layout_C(rowmajor);
    constexpr int V = int(decltype(size(part))::value);
    ASSERT_EQ(V, (BM * BN) / Block::threads);
    // the rows and columns this thread multiplies, at k = 0
    std::vector<int> rows, cols;
    auto [pa, ba] = slice.partition_layout_A(smem_a);
    auto [pb, bb] = slice.partition_layout_B(smem_b);
    for (int i = 0; i < int(decltype(size<1>(pa))::value); ++i) rows.push_back(int(ba) + int(pa(0, i, 0)));
    for (int j = 0; j < int(decltype(size<1>(pb))::value); ++j) cols.push_back(int(bb) + int(pb(0, j, 0)));
    ASSERT_EQ(int(rows.size() * cols.size()), V);
    std::vector<int> products;
    for (int r : rows)
      for (int c : cols) products.push_back(r * BN + c);
    std::vector<int> outputs;
    for (int i = 0; i < V; ++i) outputs.push_back(int(base) + int(part(i)));
    std::sort(products.begin(), products.end());
    std::sort(outputs.begin(), outputs.end());
    ASSERT_EQ(outputs, products) << "thread " << thr << " stores outputs it does not compute";
    for (int at : outputs) ++owners[size_t(at)];
  }
  for (size_t i = 0; i < owners.size(); ++i) EXPECT_EQ(owners[i], 1) << "output " << i;
}

TEST(GemmSimt, EveryOutputHasOneOwner) {
  check_outputs<Wide>();
  check_outputs<Tall>();
  check_outputs<Small>();
  check_outputs<Flat>();
  check_outputs<Lanes>();
}

TEST(GemmSimt, SharedMemoryHoldsTwoBuffers) {
  EXPECT_EQ(Wide::smem_bytes, 2 * 8 * (132 + 132) * 4);
  EXPECT_EQ(Tall::smem_bytes, 2 * 8 * (132 + 68) * 4);
  // BK = 16: each operand's second group of eight k 8 floats further on; the third stage waits
  // in registers
  EXPECT_EQ(Deep3::smem_bytes, 2 * (16 * 132 + 8 + 16 * 132 + 8) * 4);
  // split-K: the buffers hold the other blocks' copies of a block's slice after the k-loop (one
  // slot of 32 floats a thread for 2 blocks; three of 8 for 4), or more where the copies need it
  EXPECT_EQ(Split2::smem_bytes, std::max(2 * (16 * 132 + 8 + 16 * 132 + 8) * 4, 1 * 32 * 256 * 4));
  EXPECT_EQ(Split4::smem_bytes, std::max(2 * (16 * 68 + 8 + 16 * 132 + 8) * 4, 3 * 16 * 128 * 4));
  // a row of the [k][m] tile stays 16-byte aligned
  for (int ld : {Wide::ld_a, Tall::ld_b, Small::ld_a, Deep::ld_a}) EXPECT_EQ(ld % 4, 0);
}

// The wavefronts of each of a warp's transposed staging stores (one 4-byte store per value a
// thread holds): the most distinct words any of shared memory's 32 banks serves. 16-byte loads
// give a warp 16 rows at 2 vectors of K (BK = 8) or 8 rows at 4 (BK = 16); under the padding k
// and k + 4 are 16 banks apart, and the shift of the second group of eight k puts k + 8 and k +
// 12 in the banks between: one wavefront each. 4-byte loads (simt32) give a warp 2 rows at 16 k,
// whose k and k + 8 share a bank: two.
template <class Block, int Operand>
int staging_store_wavefronts() {
  constexpr int Rows = Operand == 0 ? Block::BM : Block::BN, Ld = Operand == 0 ? Block::ld_a : Block::ld_b;
  using L = typename Block::template Loader<Rows>;
  std::vector<float> smem(size_t(Block::template tile_elems<Ld>));
  auto tile = make_tensor(smem.data(), typename Block::template SmemLayout<Rows, Ld>{});
  int worst = 0;
  for (int warp = 0; warp < Block::threads / 32; ++warp) {
    std::vector<std::vector<int>> offsets;  // [lane][value]
    for (int thr = 32 * warp; thr < 32 * warp + 32; ++thr) {
      if (!L::takes_part(thr)) continue;
      auto dst = typename L::Copy{}.get_slice(thr).partition_D(tile);
      std::vector<int> mine;
      for (int v = 0; v < int(size(dst)); ++v) mine.push_back(int(&dst(v) - smem.data()));
      offsets.push_back(mine);
    }
    if (offsets.empty()) continue;
    for (size_t v = 0; v < offsets[0].size(); ++v) {
      std::set<int> words[32];
      for (auto const& lane : offsets) words[lane[v] % 32].insert(lane[v]);
      for (auto const& bank : words) worst = std::max(worst, int(bank.size()));
    }
  }
  return worst;
}

// cuBLAS's sgemm tiling (128 threads, 8 x 16 outputs each) at BK = 8 and 16
using Wide128 = kernels::GemmSimtBlock<Layout<Shape<_16, _8, _1>>, 128, 128, 8, float>;
using Deep128 = kernels::GemmSimtBlock<Layout<Shape<_16, _8, _1>>, 128, 128, 16, float>;

TEST(GemmSimt, StagingStoresOfAWarpAreOneWavefront) {
  // 16-byte staging at BK = 8 and 16, each operand of the 256- and 128-thread blocks
  const std::vector<int> one_each = {
      staging_store_wavefronts<Wide, 0>(),       staging_store_wavefronts<Deep, 0>(),
      staging_store_wavefronts<Deep, 1>(),       staging_store_wavefronts<Lanes, 1>(),
      staging_store_wavefronts<Tall, 1>(),       staging_store_wavefronts<Small, 0>(),
      staging_store_wavefronts<Wide128, 0>(),    staging_store_wavefronts<Deep128, 1>(),
      staging_store_wavefronts<WideLanesSplit4, 0>(), staging_store_wavefronts<WideLanesSplit4, 1>(),
      staging_store_wavefronts<NarrowLanesSplit2, 0>(), staging_store_wavefronts<NarrowLanesSplit4, 1>()};
  EXPECT_EQ(one_each, std::vector<int>(one_each.size(), 1));
  // BK = 32: a warp writes 4 rows at 8 vectors of K, and the groups of eight k fall on 4 places
  // for 8 vectors: two wavefronts (four without the shift)
  EXPECT_EQ((staging_store_wavefronts<LanesDeep, 0>()), 2);
  EXPECT_EQ((staging_store_wavefronts<Load4, 0>()), 2);
  EXPECT_EQ((staging_store_wavefronts<NarrowLanesDeepSplit2, 0>()), 2);
  EXPECT_EQ((staging_store_wavefronts<LanesDeepSplit2, 1>()), 2);
}

// Every block of the grid with its threads as host threads (one std::barrier standing for
// __syncthreads, and for split-K one across the cluster's blocks, each with its own shared
// memory), so the buffers, the register stages, the k-loop, the split-K exchange and the epilogue
// run as on the GPU. D is poisoned past N in each row (ldd > N) and must keep it; inside it must
// match the float64 product within the fp32 accumulation bound.
template <class Block>
void check_block(int m, int n, int k, float beta) {
  constexpr int split_k = Block::split_k;
  const int64_t lda = k + 4, ldb = k + 8, ldc = n + 3, ldd = n + 5;
  std::mt19937 rng(uint32_t(m * 7919 + n * 31 + k));
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  std::vector<float> A(size_t(m * lda)), B(size_t(n * ldb)), C(size_t(m * ldc)), D(size_t(m * ldd), -777.f);
  for (float& x : A) x = value(rng);
  for (float& x : B) x = value(rng);
  for (float& x : C) x = value(rng);
  const float scale_a = 0.5f, scale_b = 1.5f;
  kernels::GemmParams p{};
  p.m = m; p.n = n; p.k = k;
  p.lda = lda; p.ldb = ldb; p.ldc = ldc; p.ldd = ldd;
  p.a = A.data(); p.b = B.data(); p.c = C.data(); p.d = D.data();
  p.alpha = 2.f; p.beta = beta;
  p.scale_a = &scale_a; p.scale_b = &scale_b;
  // each block's shared memory, poisoned: a copy read before it lands shows in D
  static std::vector<float>* smem = nullptr;
  std::vector<float> smem_of[split_k];
  smem = smem_of;
  for (int bm = 0; bm * Block::BM < m; ++bm)
    for (int bn = 0; bn * Block::BN < n; ++bn) {
      for (auto& buffer : smem_of) buffer.assign(size_t(Block::smem_bytes) / sizeof(float), std::nanf(""));
      static std::barrier<>* block_barrier[split_k] = {};
      static std::barrier<>* cluster_barrier = nullptr;
      std::vector<std::unique_ptr<std::barrier<>>> meet;
      for (int r = 0; r < split_k; ++r) {
        meet.push_back(std::make_unique<std::barrier<>>(Block::threads));
        block_barrier[r] = meet.back().get();
      }
      std::barrier<> cluster(split_k * Block::threads);
      cluster_barrier = &cluster;
      std::vector<std::thread> threads;
      for (int r = 0; r < split_k; ++r)
        for (int t = 0; t < Block::threads; ++t)
          threads.emplace_back([&, r, t] {
            static thread_local int my_rank = 0;
            my_rank = r;
            kernels::host_sync_threads = [] { block_barrier[my_rank]->arrive_and_wait(); };
            kernels::host_cluster_rank = r;
            kernels::host_cluster_sync = [] { cluster_barrier->arrive_and_wait(); };
            kernels::host_cluster_smem = [](int rank) { return smem[rank].data(); };
            Block::run(p, smem_of[r].data(), bm * split_k + r, bn, t);
          });
      for (auto& th : threads) th.join();
    }
  const double s = 2.0 * scale_a * scale_b;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (int kk = 0; kk < k; ++kk) {
        exact += double(A[size_t(i * lda + kk)]) * double(B[size_t(j * ldb + kk)]);
        magnitude += std::abs(double(A[size_t(i * lda + kk)]) * double(B[size_t(j * ldb + kk)]));
      }
      const double want = s * exact + double(beta) * C[size_t(i * ldc + j)];
      // fp32 products summed in any order (split-K's shares then their sum): at most k roundings
      // of a running sum, and the epilogue's
      const double bound = (k + 4) * 0x1p-24 * (s * magnitude + std::abs(double(beta) * C[size_t(i * ldc + j)])) + 1e-30;
      ASSERT_LE(std::abs(double(D[size_t(i * ldd + j)]) - want), bound) << "D(" << i << ", " << j << ") of " << m << "x" << n << "x" << k;
    }
    for (int64_t j = n; j < ldd; ++j) ASSERT_EQ(D[size_t(i * ldd + j)], -777.f) << "D(" << i << ", " << j << ") past N written";
  }
}

TEST(GemmSimt, WholeBlocksOnHostThreadsMatchTheReference) {
  check_block<Wide>(128, 128, 64, 0.f);    // whole tiles, 8 k-tiles
  check_block<Wide>(100, 70, 36, 1.f);     // M, N and K off the tiles (K ends inside a k-tile)
  check_block<Tall>(130, 64, 8, 0.5f);     // one k-tile, a second row of blocks with 2 rows
  check_block<Deep>(64, 200, 20, 0.f);     // BK = 16: one whole k-tile and one of 4
  check_block<Small>(64, 64, 4, 0.f);      // K = 4: one k-tile, its second vector of each row past K
  check_block<Flat>(65, 129, 48, -1.f);    // one row and one column past a tile, beta = -1
}

TEST(GemmSimt, ThreeStagesMatchTheReference) {
  // 1, 2, 3 and 7 k-tiles (odd and even counts, K inside the last); one tile of blocks, as each
  // block is 256 host threads (slow under the sanitizers)
  for (int k : {4, 20, 48, 100}) check_block<Deep3>(70, 100, k, 0.5f);
}

// The staging's 4-byte loads (simt32): K and leading dimensions not multiples of 4.
TEST(GemmSimt, FourByteLoadsMatchTheReference) {
  check_block<Load4>(100, 70, 37, 1.f);      // M, N off the tile; K = 37, odd leading dimensions
  check_block<Load4>(128, 128, 3, 0.f);      // one k-tile of 3
  check_block<Load4Split2>(100, 70, 85, -1.f);  // three stages, 6 k-tiles over 2 blocks, the last of 5
}

TEST(GemmSimt, LaneLayoutMatchesTheReference) {
  check_block<Lanes>(128, 128, 64, 0.f);    // whole tiles, 4 k-tiles
  check_block<Lanes>(100, 70, 36, 1.f);     // M, N and K off the tiles
  check_block<Lanes>(256, 200, 48, 0.5f);   // 2 x 2 blocks, the last column of them partial
  check_block<LanesSplit2>(100, 70, 84, -1.f);  // split over a cluster of 2
  check_block<WideLanesSplit4>(64, 300, 100, 0.5f);  // 64 x 256 tiles over a cluster of 4, N off the tile
  check_block<NarrowLanesSplit2>(70, 130, 84, 1.f);   // 64 x 128 tiles over a cluster of 2, M and N off the tile
  check_block<LanesDeep>(128, 100, 72, 0.f);          // BK = 32: two whole k-tiles and one of 8
}

TEST(GemmSimt, SplitKOverAClusterMatchesTheReference) {
  check_block<Split2>(128, 128, 160, 0.f);  // 10 k-tiles, 5 a block
  check_block<Split2>(100, 70, 84, 1.f);    // 6 k-tiles (the last of 4), M and N off the tile
  check_block<Split2>(40, 100, 12, 0.f);    // one k-tile: the second block's share is empty
  check_block<Split4>(64, 128, 112, 0.5f);  // 7 k-tiles over 4 blocks: shares of 1 and 2
  check_block<Split4>(60, 120, 36, -1.f);   // 3 k-tiles: one block without a share
  check_block<SmallSplit2>(64, 60, 44, 0.f);   // two stages, 6 k-tiles (the last of 4)
  check_block<FlatSplit4>(64, 100, 100, 1.f);  // 4 x 8 outputs a thread: slices of 8 floats
}

// The trial tiles for M = 48-256 and unaligned K (variants_trial.txt, twenty-sixth session).
TEST(GemmSimt, TrialSplitLaneTilesMatchTheReference) {
  check_block<NarrowLanesDeepSplit2>(50, 130, 200, 0.5f);  // BK = 32: 7 k-tiles over 2 (4 and 3), the last of 8
  check_block<LanesDeepSplit2>(100, 70, 72, 1.f);          // 3 k-tiles: shares of 2 and 1, M and N off the tile
  check_block<NarrowLanesSplit4>(64, 128, 80, -1.f);       // 5 k-tiles over a cluster of 4
  check_block<Load4LanesSplit2>(100, 70, 85, 0.f);         // 4-byte loads, K = 85 and odd pitches
  check_block<Load4NarrowLanesSplit2>(60, 129, 37, 1.f);   // 4-byte loads, 3 k-tiles (the last of 5)
}

// The k-loop with the fragments one k-step ahead: every k-tile count from one (the loop's prologue
// and its last, idle read) to odd and even counts of the unrolled three-stage loop, tails in M, N, K.
TEST(GemmSimt, PrefetchedFragmentsMatchTheReference) {
  check_block<LanesPf>(128, 128, 16, 0.f);       // one k-tile
  check_block<LanesPf>(100, 70, 36, 1.f);        // 3 k-tiles, the last of 4, M and N off the tile
  check_block<LanesPf>(256, 200, 64, 0.5f);      // 2 x 2 blocks, 4 k-tiles
  check_block<WidePf>(65, 129, 44, -1.f);        // BK = 8 (8 k-steps a tile), compact warps, 6 k-tiles
  for (int k : {4, 20, 48, 100}) check_block<Lanes3Pf>(70, 100, k, 0.5f);  // 1, 2, 3 and 7 k-tiles
  check_block<LanesSplit2Pf>(100, 70, 84, -1.f);  // 6 k-tiles over 2 (3 and 3)
  check_block<LanesSplit2Pf>(40, 100, 12, 0.f);   // one k-tile: the second block's share is empty
  check_block<NarrowLanesSplit4Pf>(64, 128, 80, 1.f);  // 5 k-tiles over a cluster of 4
  check_block<Load4LanesPf>(100, 70, 37, 1.f);    // 4-byte loads, K = 37, odd pitches
}
}  // namespace
