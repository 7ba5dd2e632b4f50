// make_tiled_copy(atom, thr_layout, val_layout): every element of the tile is moved by exactly one
// thread, each thread's values are the val_layout block at its thr_layout position, and copying
// all threads' partitions reproduces the tensor.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "fly/atom/mma_traits_host.hpp"
#include "fly/tiled.hpp"

namespace {
using namespace fly;

TEST(TiledCopy, ThreadsCoverTheTileOnce) {
  // 32 threads as 8x4 (m-major), each moving a 1x4 row vector: a 8x16 tile of a 16x32 matrix
  auto tc = make_tiled_copy(Copy_Atom<UniversalCopy128b, float>{}, make_layout(make_shape(_8{}, _4{})),
                            make_layout(make_shape(_1{}, _4{})));
  std::vector<float> mem(16 * 32);
  std::iota(mem.begin(), mem.end(), 0.f);
  auto g = make_tensor(mem.data(), make_layout(make_shape(_16{}, _32{}), make_stride(_32{}, _1{})));
  std::vector<int> hits(mem.size(), 0);
  for (int t = 0; t < 32; ++t) {
    auto part = tc.get_slice(t).partition_S(g);
    EXPECT_EQ(int(size(part)), 16 * 32 / 32) << "thread " << t;
    for (int i = 0; i < int(size(part)); ++i) ++hits[size_t(&part[i] - mem.data())];
    // thread t's first vector: row t % 8, columns 4 * (t / 8) .. + 3
    for (int v = 0; v < 4; ++v) EXPECT_EQ(part[v], mem[size_t((t % 8) * 32 + 4 * (t / 8) + v)]) << t;
  }
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i], 1) << "element " << i;
}

TEST(TiledCopy, CopyingEveryPartitionReproducesTheTensor) {
  auto tc = make_tiled_copy(Copy_Atom<UniversalCopy64b, uint16_t>{}, make_layout(make_shape(_4{}, _8{}), make_stride(_8{}, _1{})),
                            make_layout(make_shape(_2{}, _4{})));
  std::vector<uint16_t> src(32 * 64), dst(32 * 64, 0xFFFF);
  std::iota(src.begin(), src.end(), uint16_t(1));
  auto s = make_tensor(src.data(), make_layout(make_shape(_32{}, _64{})));
  auto d = make_tensor(dst.data(), make_layout(make_shape(_32{}, _64{})));
  for (int t = 0; t < 32; ++t) {
    auto frag = make_fragment_like(tc.get_slice(t).partition_S(s));
    copy(tc, tc.get_slice(t).partition_S(s), frag);
    copy(tc, frag, tc.get_slice(t).partition_D(d));
  }
  EXPECT_EQ(dst, src);
}

// partition_layout is partition_S on a layout alone: kernels partition a coordinate layout with it
// to find each vector's (row, column) for edge predicates.
TEST(TiledCopy, PartitionLayoutMatchesPartition) {
  auto tc = make_tiled_copy(Copy_Atom<UniversalCopy128b, float>{}, make_layout(make_shape(_8{}, _4{})),
                            make_layout(make_shape(_1{}, _4{})));
  std::vector<float> mem(16 * 32);
  auto g = make_tensor(mem.data(), make_layout(make_shape(_16{}, _32{}), make_stride(_32{}, _1{})));
  for (int t = 0; t < 32; ++t) {
    auto part = tc.get_slice(t).partition_S(g);
    auto [sub, off] = tc.get_slice(t).partition_layout(g.layout());
    ASSERT_EQ(int(size(sub)), int(size(part)));
    for (int i = 0; i < int(size(part)); ++i) EXPECT_EQ(int(off) + int(sub(i)), int(&part[i] - mem.data())) << t << " " << i;
  }
}
}  // namespace

namespace {
using namespace fly;
// partition_layout_* is partition_* on a layout alone: the same offsets, so kernels can find the
// (row, column) of each value from a static coordinate layout.
TEST(TiledMma, PartitionLayoutMatchesPartition) {
  using Mma = TiledMMA<HOST_FMA, Layout<Shape<_4, _2, _1>>>;
  std::vector<float> mem(8 * 6);
  auto g = make_tensor(mem.data(), make_layout(make_shape(_8{}, _6{}), make_stride(_6{}, _1{})));
  for (int t = 0; t < Mma::num_threads; ++t) {
    auto part = Mma{}.get_slice(t).partition_A(g);
    auto [sub, off] = Mma{}.get_slice(t).partition_layout_A(g.layout());
    ASSERT_EQ(int(size(sub)), int(size(part)));
    for (int i = 0; i < int(size(part)); ++i) EXPECT_EQ(&part[i], mem.data() + off + sub(i)) << t << " " << i;
  }
}
}  // namespace

namespace {
using namespace fly;
// The warp layout maps a warp's (m, n, k) to its index, as CuTe's thread layout does: warp t owns
// the (m, n) whose layout value is t. Compact layouts give idx2crd over the shape; strides put a
// hardware warp's 32 lanes on a 4 x 8 block of a 16 x 16 grid of one-thread FMA "warps".
template <class Mma, class WarpLayout>
void expect_owner_is_layout_inverse(WarpLayout warps) {
  constexpr int WM = Mma::WarpsM, WN = Mma::WarpsN;
  std::vector<float> mem(WM * WN);
  auto c = make_tensor(mem.data(), make_layout(make_shape(Int<WM>{}, Int<WN>{}), make_stride(Int<WN>{}, _1{})));
  std::vector<int> owner(WM * WN, -1);
  for (int t = 0; t < Mma::num_threads; ++t) {
    auto part = Mma{}.get_slice(t).partition_C(c);
    ASSERT_EQ(int(size(part)), 1) << "one output a thread";
    const int at = int(&part[0] - mem.data()), m = at / WN, n = at % WN;
    EXPECT_EQ(owner[at], -1) << "(" << m << ", " << n << ") owned twice";
    owner[at] = t;
    EXPECT_EQ(int(warps(make_coord(m, n, 0))), t) << "thread " << t << " owns (" << m << ", " << n << ")";
  }
}

TEST(TiledMma, WarpLayoutStridesPlaceTheWarps) {
  using Compact = Layout<Shape<_16, _16, _1>>;
  expect_owner_is_layout_inverse<TiledMMA<HOST_FMA, Compact>>(Compact{});
  using Lanes4x8 = Layout<Shape<Shape<_4, _4>, Shape<_8, _2>, _1>, Stride<Stride<_1, _32>, Stride<_4, _128>, _0>>;
  expect_owner_is_layout_inverse<TiledMMA<HOST_FMA, Lanes4x8>>(Lanes4x8{});
  using RowMajor = Layout<Shape<_4, _8, _1>, Stride<_8, _1, _0>>;
  expect_owner_is_layout_inverse<TiledMMA<HOST_FMA, RowMajor>>(RowMajor{});
  // the first hardware warp of Lanes4x8 is rows 0-3 by columns 0-7
  for (int t = 0; t < 32; ++t) {
    auto [v, m, n, k] = TiledMMA<HOST_FMA, Lanes4x8>::thread_coord(t);
    EXPECT_EQ(m, t % 4);
    EXPECT_EQ(n, t / 4);
  }
}
}  // namespace
