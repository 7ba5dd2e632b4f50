// fly::copy: vector width from the layouts, automatic splitting into legal accesses, predicates,
// and the gfx942 buffer-load host model (out-of-range reads return zero).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "fly/arch/copy_gfx942.hpp"
#include "fly/arch/copy_sm90.hpp"
#include "fly/tiled/copy.hpp"

namespace {
using namespace fly;

// A copy family that records the width of every access it is asked to make.
std::vector<int> g_widths;
template <int Bits>
struct RecordingCopy {
  static constexpr int bits = Bits;
  static constexpr int min_bits = 8;
  static constexpr const char* name = "RecordingCopy";
  template <int B>
  using with_bits = RecordingCopy<B>;
  template <class S, class D>
  static void copy(S src, D dst) {
    g_widths.push_back(Bits);
    std::memcpy(&*dst, &*src, Bits / 8);
  }
};

std::vector<uint8_t> random_bytes(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

TEST(Copy, ContiguousRunsUseTheWidestAccess) {
  auto mem = random_bytes(64, 1);
  auto src = make_tensor(mem.data(), make_layout(make_shape(_4{}, _16{}), make_stride(_16{}, _1{})));  // row-major
  auto dst = make_tensor<uint8_t>(make_layout(make_shape(_4{}, _16{}), make_stride(_16{}, _1{})));
  fill(dst, uint8_t(0xEE));
  g_widths.clear();
  copy(Copy_Atom<RecordingCopy<128>, uint8_t>{}, src, dst);
  EXPECT_EQ(g_widths, std::vector<int>(4, 128));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) EXPECT_EQ(dst(i, j), mem[size_t(16 * i + j)]);
}

TEST(Copy, ShortRunsSplitIntoNarrowerAccesses) {
  // each row holds 8 contiguous bytes of the tile, rows 32 bytes apart: a 128-bit atom must split
  std::vector<uint8_t> mem = random_bytes(128, 2);
  auto src = make_tensor(mem.data(), make_layout(make_shape(_8{}, _4{}), make_stride(_1{}, _32{})));
  auto dst = make_tensor<uint8_t>(make_layout(make_shape(_8{}, _4{})));
  fill(dst, uint8_t(0xEE));
  g_widths.clear();
  copy(Copy_Atom<RecordingCopy<128>, uint8_t>{}, src, dst);
  EXPECT_EQ(g_widths, std::vector<int>(4, 64));
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(dst(i, j), mem[size_t(i + 32 * j)]);
}

TEST(Copy, MisalignedRunsSplitFurther) {
  // 8 contiguous bytes per row but rows 4 bytes apart from a 16-byte boundary: only 32-bit accesses align
  std::vector<uint8_t> mem = random_bytes(256, 3);
  auto src = make_tensor(mem.data(), make_layout(make_shape(_8{}, _4{}), make_stride(_1{}, _12{})));
  auto dst = make_tensor<uint8_t>(make_layout(make_shape(_8{}, _4{})));
  g_widths.clear();
  copy(Copy_Atom<RecordingCopy<128>, uint8_t>{}, src, dst);
  EXPECT_EQ(g_widths, std::vector<int>(8, 32));
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(dst(i, j), mem[size_t(i + 12 * j)]);
}

TEST(Copy, RegistersToMemoryAndPredicate) {
  auto frag = make_tensor<float>(make_layout(make_shape(_4{}, _4{})));
  for (int i = 0; i < 16; ++i) frag[i] = float(i) + 0.5f;
  std::vector<float> mem(32, -1.0f);
  auto dst = make_tensor(mem.data(), make_layout(make_shape(_4{}, _4{}), make_stride(_1{}, _8{})));
  g_widths.clear();
  // only the vectors whose first logical index is below 8 are written
  copy(Copy_Atom<RecordingCopy<128>, float>{}, frag, dst, [](int i) { return i < 8; });
  EXPECT_EQ(g_widths, std::vector<int>(2, 128));
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i) EXPECT_EQ(mem[size_t(i + 8 * j)], j < 2 ? float(i + 4 * j) + 0.5f : -1.0f);
  for (int j = 0; j < 4; ++j)
    for (int i = 4; i < 8; ++i) EXPECT_EQ(mem[size_t(i + 8 * j)], -1.0f) << "written outside the tensor";
}

// copy_zfill: vectors whose predicate is false become zeros (and their source is not read), the
// others are copied; for UniversalCopy and for cp.async's host model alike.
template <class Op>
void check_zfill() {
  auto mem = random_bytes(64, 9);
  for (auto& b : mem) b = uint8_t(b | 1);  // no zero bytes: a zero in dst must come from the fill
  auto src = make_tensor(mem.data(), make_layout(_64{}));
  std::vector<uint8_t> out(64, 0xEE);
  auto dst = make_tensor(out.data(), make_layout(_64{}));
  copy_zfill(Copy_Atom<Op, uint8_t>{}, [](int i) { return i < 16 || i >= 48; }, src, dst);
  cp_async_wait_all();  // cp.async's host model copies when its group completes
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[size_t(i)], i < 16 || i >= 48 ? mem[size_t(i)] : 0) << i;
}
TEST(Copy, ZeroFillReplacesDisabledVectorsWithZeros) {
  check_zfill<UniversalCopy128b>();
  check_zfill<SM90_CpAsync<128>>();
  check_zfill<SM90_CpAsync<32>>();
}

// cp.async's host model: a copy lands only when a wait completes its group (so that a pipeline run
// on host threads that reads a stage before waiting for it reads stale data, as a GPU might), and
// wait<N> leaves the newest N groups in flight.
TEST(Copy, CpAsyncHostModelLandsAGroupWhenAWaitCompletesIt) {
  auto mem = random_bytes(48, 5);
  for (auto& b : mem) b = uint8_t(b | 1);
  std::vector<uint8_t> out(48, 0);
  auto group = [&](int g) {
    copy(Copy_Atom<SM90_CpAsync<128>, uint8_t>{}, make_tensor(mem.data() + 16 * g, make_layout(_16{})),
         make_tensor(out.data() + 16 * g, make_layout(_16{})));
    cp_async_fence();
  };
  auto landed = [&](int g) { return std::equal(out.begin() + 16 * g, out.begin() + 16 * (g + 1), mem.begin() + 16 * g); };
  group(0);
  group(1);
  group(2);
  EXPECT_FALSE(landed(0)) << "a copy landed before any wait";
  cp_async_wait<2>();
  EXPECT_TRUE(landed(0));
  EXPECT_FALSE(landed(1));
  cp_async_wait<0>();
  EXPECT_TRUE(landed(1));
  EXPECT_TRUE(landed(2));
}

TEST(Copy, UniversalCopyMovesTheBytes) {
  auto mem = random_bytes(32, 4);
  auto src = make_tensor(mem.data(), make_layout(_32{}));
  auto dst = make_tensor<uint8_t>(make_layout(_32{}));
  copy(Copy_Atom<UniversalCopy128b, uint8_t>{}, src, dst);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(dst[i], mem[size_t(i)]);
}

TEST(BufferCopy, HostModelReturnsZeroPastTheEnd) {
  std::vector<uint8_t> mem = random_bytes(64, 5);
  // a buffer of 40 bytes: the 16-byte loads at 32 and 48 read partly and wholly past it
  auto src = make_tensor(make_buffer_ptr(mem.data(), 40u), make_layout(_64{}));
  auto dst = make_tensor<uint8_t>(make_layout(_64{}));
  fill(dst, uint8_t(0xEE));
  copy(Copy_Atom<BufferCopy128b, uint8_t>{}, src, dst);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(dst[i], i < 40 ? mem[size_t(i)] : 0) << i;
}

TEST(BufferCopy, SplitsLikeUniversalCopy) {
  std::vector<uint8_t> mem = random_bytes(128, 6);
  auto src = make_tensor(make_buffer_ptr(mem.data(), 128u), make_layout(make_shape(_8{}, _4{}), make_stride(_1{}, _32{})));
  auto dst = make_tensor<uint8_t>(make_layout(make_shape(_8{}, _4{})));
  copy(Copy_Atom<BufferCopy128b, uint8_t>{}, src, dst);  // becomes 64-bit buffer loads
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(dst(i, j), mem[size_t(i + 32 * j)]);
}
}  // namespace
