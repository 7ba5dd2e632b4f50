// The shared-memory staging of the pipelined GEMM blocks, run on the host through the cp.async
// functional model (a thread's copies land when it waits for them): over all threads, load_tile
// writes every element of a stage exactly where the block's layout puts it, as A/B hold it, zeroes
// what lies past the matrix's rows or K (edge tiles), and writes no other byte (the row padding);
// and the K-group reduction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "fly/atom/mma_traits_sm90.hpp"
#include "gemm_cpasync_kernel.hpp"
#include "gemm_wgmma_kernel.hpp"
#include "tma_box.hpp"

namespace {
using namespace fly;

// Fills one Rows x BK stage of stage_elems elements (U: an unsigned integer of the element's size)
// through load(global, ld, stage, thr) for every thread, from random nonzero elements, and checks
// the element of each (row, k) at offset(row, k): A/B's inside rows_left x k_left, zero outside;
// every other element of the stage keeps its poison. ld: the global rows' pitch, BK + ld_pad.
template <int Rows, int BK, class U = uint8_t, class Load, class Offset>
void check_stage_elements(size_t stage_elems, int threads, int rows_left, int k_left, Load load, Offset offset,
                       int ld_pad = 48) {
  const int64_t ld = BK + ld_pad;
  const U poison = U(0xEEEEEEEEu);
  std::mt19937 rng(uint32_t(rows_left * 131 + k_left));
  std::vector<U> global(size_t(Rows * ld));
  for (auto& b : global) b = U(rng() % 255 + 1);  // never zero: a zero-fill is visible
  std::vector<U> smem(stage_elems, poison);
  for (int thr = 0; thr < threads; ++thr) load(global.data(), ld, smem.data(), thr);
  std::vector<bool> element(stage_elems, false);
  for (int r = 0; r < Rows; ++r)
    for (int k = 0; k < BK; ++k) {
      const size_t at = offset(r, k);
      element[at] = true;
      const U want = r < rows_left && k < k_left ? global[size_t(r * ld + k)] : U(0);
      ASSERT_EQ(smem[at], want) << "row " << r << " k " << k << " of " << rows_left << "x" << k_left;
    }
  for (size_t i = 0; i < stage_elems; ++i) {
    if (!element[i]) {
      ASSERT_EQ(smem[i], poison) << "element " << i << " is no element's, yet was written";
    }
  }
}

// GemmCpAsyncBlock: row-major rows padded to ld_smem elements; global rows ld_pad past BK.
template <class Block, int Rows>
void check_stage(int rows_left, int k_left, int ld_pad = 48) {
  using T = typename Block::TA;
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>;
  constexpr int BK = Block::BK, ld_smem = Block::ld_smem;
  check_stage_elements<Rows, BK, U>(
      size_t(Rows * ld_smem), Block::threads, rows_left, k_left,
      [&](U const* g, int64_t ld, U* stage, int thr) {
        Block::template load_tile<Rows>(reinterpret_cast<T const*>(g), ld,
                                        make_tensor(reinterpret_cast<T*>(stage), typename Block::template SmemLayout<Rows>{}),
                                        rows_left, k_left, thr);
        cp_async_wait_all();  // the host model lands a thread's copies when it waits
      },
      [](int r, int k) { return size_t(r * ld_smem + k); }, ld_pad);
}

using Decode = kernels::GemmCpAsyncBlock<SM90_16x8x32_F32E4M3E4M3F32_TN, Layout<Shape<_1, _4, _1>>, 16, 64, 128, 4, bfloat16>;
using Square = kernels::GemmCpAsyncBlock<SM90_16x8x32_F32E4M3E4M3F32_TN, Layout<Shape<_2, _2, _1>>, 64, 64, 128, 4, float>;
using DeepK = kernels::GemmCpAsyncBlock<SM90_16x8x32_F32E4M3E4M3F32_TN, Layout<Shape<_1, _2, _1>>, 16, 32, 256, 4, half>;

TEST(GemmStaging, FullTilesCopyEveryElement) {
  check_stage<Decode, 16>(16, 128);
  check_stage<Decode, 64>(64, 128);
  check_stage<Square, 64>(64, 128);
  check_stage<DeepK, 16>(16, 256);
  check_stage<DeepK, 32>(32, 256);
}

TEST(GemmStaging, EdgeTilesZeroFillPastTheMatrix) {
  for (int rows : {1, 7, 15}) check_stage<Decode, 16>(rows, 128);
  for (int k : {16, 48, 112}) check_stage<Decode, 64>(64, k);
  check_stage<Decode, 64>(33, 80);
  check_stage<Square, 64>(1, 16);
  check_stage<DeepK, 32>(9, 144);
}

// 4-byte copies (cpasync32): any K and any row pitch. An fp32 decode tile (a warp copies 32
// consecutive k of a row) and an fp8 tile (four elements a copy).
using F32Copy4 = kernels::GemmCpAsyncBlock<SM90_FMA_F32, Layout<Shape<_1, _32, _8>>, 16, 32, 64, 4, float, 32>;
using Fp8Copy4 = kernels::GemmCpAsyncBlock<SM90_16x8x32_F32E4M3E4M3F32_TN, Layout<Shape<_1, _4, _1>>, 16, 64, 128, 4, bfloat16, 32>;

TEST(GemmStaging, FourByteCopiesTakeAnyKAndRowPitch) {
  static_assert(F32Copy4::copy_vec == 1 && Fp8Copy4::copy_vec == 4);
  static_assert(F32Copy4::ld_smem == 64 + 4 && F32Copy4::smem_bytes == 4 * (16 + 32) * (64 + 4) * 4,
                "the shared tile is the 16-byte copies' (same padding, same fragments)");
  for (int pad : {48, 1, 3}) {  // row pitches of 112, 65 and 67 floats
    check_stage<F32Copy4, 16>(16, 64, pad);
    check_stage<F32Copy4, 32>(32, 64, pad);
    for (int k : {1, 3, 37, 63}) check_stage<F32Copy4, 32>(32, k, pad);
    check_stage<F32Copy4, 16>(5, 29, pad);
  }
  check_stage<Fp8Copy4, 16>(16, 128, 4);
  check_stage<Fp8Copy4, 64>(64, 128, 4);
  for (int k : {4, 36, 124}) check_stage<Fp8Copy4, 64>(33, k, 4);
}

// A warp's copies of a full fp32 tile: 32 consecutive k of one row, so one 128-byte run of global
// memory and 32 banks of shared memory an instruction.
TEST(GemmStaging, FourByteCopiesOfAWarpReadOneRunOfARow) {
  using L = F32Copy4::Loader<32>;
  std::vector<float> tile(32 * 64);
  auto part = [&](int thr) {  // the offset of thread thr's first copy in the 32 x 64 tile
    auto src = typename L::Copy{}.get_slice(thr).partition_S(
        make_tensor(static_cast<float const*>(tile.data()), make_layout(make_shape(_32{}, _64{}), make_stride(_64{}, _1{}))));
    return int(&src(0) - tile.data());
  };
  for (int warp = 0; warp < F32Copy4::threads / 32; ++warp) {
    const int first = part(32 * warp);
    EXPECT_EQ(first % 32, 0) << "warp " << warp;
    for (int lane = 1; lane < 32; ++lane) EXPECT_EQ(part(32 * warp + lane), first + lane) << "warp " << warp;
  }
}

TEST(GemmStaging, SharedMemoryFitsAndRowsStayAligned) {
  static_assert(Decode::ld_smem * sizeof(Decode::TA) % 16 == 0);
  EXPECT_EQ(Decode::smem_bytes, 4 * (16 + 64) * (128 + 16));
  EXPECT_EQ(DeepK::smem_bytes, 4 * (16 + 32) * (256 + 16));
}

// GemmWgmmaBlock's staging: every byte of a stage lands where wgmma's K-major layout with the
// 128-byte swizzle expects it (PTX ISA "Shared memory matrix layout": K in 128-byte atoms, each
// Rows x 128 bytes, row r at r * 128; 16-byte chunk c of a row stored at chunk c ^ (r % 8): the model
// kernels::swizzle128_offset, which the TMA writes too), edges zero-filled.
template <class Block, int Rows>
void check_swizzled_stage(int rows_left, int k_left) {
  constexpr int BK = Block::BK;
  check_stage_elements<Rows, BK>(
      size_t(Rows * BK), Block::threads, rows_left, k_left,
      [&](uint8_t const* g, int64_t ld, uint8_t* stage, int thr) {
        Block::template load_tile<Rows>(reinterpret_cast<float8_e4m3fn const*>(g), ld,
                                        reinterpret_cast<float8_e4m3fn*>(stage), rows_left, k_left, thr);
        cp_async_wait_all();
      },
      [](int r, int k) { return size_t((k / 128) * Rows * 128 + kernels::swizzle128_offset(r, k % 128)); });
}

using WgDecode = kernels::GemmWgmmaBlock<16, 64, 128, 4, 1, bfloat16>;
using WgSplit = kernels::GemmWgmmaBlock<128, 64, 256, 4, 2, float>;
using WgNarrow = kernels::GemmWgmmaBlock<32, 64, 128, 3, 1, half>;
using WgWide = kernels::GemmWgmmaBlock<64, 128, 128, 3, 2, bfloat16>;  // 2 warpgroups along N, 2 k-groups

// Block's full tiles of its A (BM rows) and B (BN rows) operands.
template <class Block>
void check_swizzled_full_tiles() {
  check_swizzled_stage<Block, Block::BM>(Block::BM, Block::BK);
  check_swizzled_stage<Block, Block::BN>(Block::BN, Block::BK);
}

TEST(GemmStaging, WgmmaTilesLandInTheSwizzledLayout) {
  check_swizzled_full_tiles<WgDecode>();
  check_swizzled_full_tiles<WgSplit>();
  check_swizzled_full_tiles<WgNarrow>();
  check_swizzled_full_tiles<WgWide>();
}

// Each thread's first 16-byte write of a tile, one quarter-warp (8 threads, one shared-memory
// wavefront for 16-byte stores) at a time: the eight land in distinct 16-byte bank slots.
template <class Block, int Rows>
void check_quarter_warps_conflict_free() {
  constexpr int BK = Block::BK;
  constexpr size_t bytes = Rows * BK;
  std::vector<uint8_t> global(size_t(Rows * BK), 1), smem(bytes);
  for (int q = 0; q < Block::threads / 8; ++q) {
    std::vector<bool> slot_used(8, false);
    for (int thr = 8 * q; thr < 8 * q + 8; ++thr) {
      std::fill(smem.begin(), smem.end(), 0);
      Block::template load_tile<Rows>(reinterpret_cast<float8_e4m3fn const*>(global.data()), BK,
                                      reinterpret_cast<float8_e4m3fn*>(smem.data()), Rows, BK, thr);
      cp_async_wait_all();
      size_t first = bytes;
      for (size_t i = 0; i < bytes && first == bytes; ++i)
        if (smem[i] != 0) first = i;
      if (first == bytes) continue;  // a thread with no vector of this tile
      // first written byte = first vector: rows_per_pass >= 8, so a later pass lies in a later row group
      const size_t slot = first / 16 % 8;
      EXPECT_FALSE(slot_used[slot]) << "quarter-warp " << q << ": thread " << thr << " shares bank slot " << slot;
      slot_used[slot] = true;
    }
  }
}

TEST(GemmStaging, WgmmaQuarterWarpWritesHitDistinctBanks) {
  check_quarter_warps_conflict_free<WgDecode, 64>();
  check_quarter_warps_conflict_free<WgDecode, 16>();
  check_quarter_warps_conflict_free<WgSplit, 128>();
  check_quarter_warps_conflict_free<WgNarrow, 64>();
  check_quarter_warps_conflict_free<WgWide, 128>();
}

TEST(GemmStaging, WgmmaEdgeTilesZeroFill) {
  check_swizzled_stage<WgDecode, 16>(1, 128);
  check_swizzled_stage<WgDecode, 64>(37, 48);
  check_swizzled_stage<WgSplit, 128>(100, 240);
  check_swizzled_stage<WgWide, 128>(77, 112);
}

// reduce_k_groups (both staged blocks): group 0's threads end with the sum over every group of
// each accumulator. On the host its barriers are no-ops, so the threads of groups 1.. run (and
// write their partial sums) before group 0's, which is the order the barriers enforce.
TEST(GemmStaging, KGroupReductionSumsIntoGroupZero) {
  constexpr int groups = 3, group_threads = 4, V = 5;
  float acc[groups * group_threads][V];
  float want[group_threads][V] = {};
  for (int t = 0; t < groups * group_threads; ++t)
    for (int i = 0; i < V; ++i) {
      acc[t][i] = float(t * 8 + i) * 0.25f;
      want[t % group_threads][i] += acc[t][i];
    }
  std::vector<float> partial((groups - 1) * group_threads * V, -1.f);
  for (int t = group_threads; t < groups * group_threads; ++t)
    EXPECT_FALSE((kernels::reduce_k_groups<groups, group_threads, V>(acc[t], partial.data(), t))) << t;
  for (int t = 0; t < group_threads; ++t) {
    EXPECT_TRUE((kernels::reduce_k_groups<groups, group_threads, V>(acc[t], partial.data(), t)));
    for (int i = 0; i < V; ++i) EXPECT_EQ(acc[t][i], want[t][i]) << "thread " << t << " value " << i;
  }
}

// The descriptor's fields (PTX ISA "Matrix Descriptor Format"): address, leading and stride byte
// offsets in 16-byte units at bits 0, 16 and 32; the swizzle mode at bits 62-63 (128-byte: 1).
TEST(GemmStaging, WgmmaDescriptorFields) {
  const uint64_t d = gmma::make_smem_desc(0x1230, 128, 2048);
  EXPECT_EQ(d & 0x3FFF, 0x123u);
  EXPECT_EQ((d >> 16) & 0x3FFF, 8u);
  EXPECT_EQ((d >> 32) & 0x3FFF, 128u);
  EXPECT_EQ(d >> 62, 0u);
  const uint64_t s = gmma::make_smem_desc(0x2400 + 64, 16, 1024, gmma::SmemSwizzle::b128);
  EXPECT_EQ(s & 0x3FFF, 0x244u);
  EXPECT_EQ((s >> 16) & 0x3FFF, 1u);
  EXPECT_EQ((s >> 32) & 0x3FFF, 64u);
  EXPECT_EQ(s >> 62, 1u);
}

// The kernels encode a tile's descriptor once and move it with smem_desc_plus: for 16-byte
// addresses across the 228 KB a block can have (every 37th) and offsets that stay inside it (every
// 101st), the moved descriptor is the one encoded at the sum, every other field untouched.
TEST(GemmStaging, WgmmaDescriptorPlusIsTheDescriptorAtTheSum) {
  constexpr uint32_t smem_limit = 228 * 1024;
  int checked = 0;
  for (uint32_t addr = 0; addr < smem_limit; addr += 16 * 37) {
    for (uint32_t offset = 0; addr + offset < smem_limit; offset += 16 * 101) {
      for (auto swizzle : {gmma::SmemSwizzle::none, gmma::SmemSwizzle::b128}) {
        const uint64_t base = gmma::make_smem_desc(addr, 16, 1024, swizzle);
        ASSERT_EQ(gmma::smem_desc_plus(base, offset), gmma::make_smem_desc(addr + offset, 16, 1024, swizzle))
            << "address " << addr << " + " << offset;
        ++checked;
      }
    }
  }
  // the largest address and the ring's last k-step, exactly
  const uint64_t last = gmma::make_smem_desc(0, 16, 1024, gmma::SmemSwizzle::b128);
  EXPECT_EQ(gmma::smem_desc_plus(last, smem_limit - 16), gmma::make_smem_desc(smem_limit - 16, 16, 1024, gmma::SmemSwizzle::b128));
  EXPECT_GT(checked, 50000);
}

// k-step j of a tile (32 bytes of K): atom j / 4, then 32 bytes per step inside the atom's rows.
TEST(GemmStaging, WgmmaKStepOffsets) {
  using Tile = kernels::WgmmaTile<64>;
  EXPECT_EQ(Tile::k_step_offset(128, 0), 0u);
  EXPECT_EQ(Tile::k_step_offset(128, 3), 96u);
  EXPECT_EQ(Tile::k_step_offset(128, 4), 128u * 128u);
  EXPECT_EQ(Tile::k_step_offset(64, 7), 64u * 128u + 96u);
}

// Scalar FMA cells (CpAsyncTiling): every (m, k) of an A tile is read by exactly one thread of each
// warp column, each thread's values of one row are a contiguous run of K in shared memory, k-group g
// owns columns [g * BK / W, (g + 1) * BK / W), and the fragment is K-major, so the fragment copy
// moves 16-byte vectors. Without the K permutation the k-groups interleave (k = g, g + W, ...) and
// every fragment value is a scalar LDS.
template <class Block>
void check_fma_a_partition() {
  using Mma = typename Block::Mma;
  constexpr int BM = Block::BM, BK = Block::BK, W = Mma::WarpsK;
  constexpr int ld = Block::ld_smem;
  static_assert(Block::Tiling::scalar_fma);
  typename Block::template SmemLayout<BM> smem_layout{};
  std::vector<int> reads(size_t(BM * BK), 0);
  for (int thr = 0; thr < Mma::num_threads; ++thr) {
    const auto c = Mma::thread_coord(thr);
    if (get<2>(c) != 0) continue;  // the warps of one N column
    auto [part, base] = Mma{}.get_slice(thr).partition_layout_A(smem_layout);
    const int g = get<3>(c);
    constexpr int MN = int(decltype(size<1>(part))::value), K = int(decltype(size<2>(part))::value);
    ASSERT_EQ(K, BK / W);
    for (int i = 0; i < MN; ++i)
      for (int k = 0; k < K; ++k) {
        const int off = int(base) + int(part(0, i, k));
        const int m = off / ld, kk = off % ld;
        ASSERT_LT(m, BM);
        ASSERT_EQ(kk, g * K + k) << "thread " << thr << " row slot " << i << " k " << k;
        ++reads[size_t(m * BK + kk)];
      }
  }
  for (int m = 0; m < BM; ++m)
    for (int k = 0; k < BK; ++k) EXPECT_EQ(reads[size_t(m * BK + k)], 1) << "m " << m << " k " << k;
  using Frag = decltype(Block::make_fragment(Mma{}.get_slice(0).partition_A(
      std::declval<decltype(make_tensor(static_cast<float*>(nullptr), smem_layout))&>())));
  EXPECT_EQ(int(decltype(stride<2>(std::declval<Frag>().layout()))::value), 1) << "the fragment is K-major";
}

TEST(GemmStaging, FmaKGroupsReadContiguousRunsOfK) {
  check_fma_a_partition<kernels::GemmCpAsyncBlock<SM90_FMA_F32, Layout<Shape<_8, _8, _2>>, 64, 64, 32, 4, float>>();
  check_fma_a_partition<kernels::GemmCpAsyncBlock<SM90_FMA_F32, Layout<Shape<_8, _8, _4>>, 64, 64, 32, 4, float>>();
  check_fma_a_partition<kernels::GemmCpAsyncBlock<SM90_FMA_F32, Layout<Shape<_1, _16, _16>>, 16, 16, 128, 3, float>>();
  check_fma_a_partition<kernels::GemmCpAsyncBlock<SM90_FMA_F32, Layout<Shape<_16, _8, _1>>, 128, 64, 16, 4, float>>();
}
}  // namespace
