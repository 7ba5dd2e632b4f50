// GemmLdsBlock (gfx942 global -> LDS -> MFMA) executed on the host: the kernel's own body with a
// team of every thread of the block (LDS a host array, each barrier a phase boundary, the MFMA
// through its lane model, buffer loads and ds_read/ds_write through their host models), on small
// random problems with edges in M, N and K, against a float64 reference. And the LDS bank conflicts
// of every ds instruction, from the accesses the same body makes.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "common/mma_lane_model.hpp"
#include "fly/atom/mma_traits_gfx942.hpp"
#include "gemm_lds_kernel.hpp"

namespace {
using namespace fly;
using namespace fly::kernels;

// K permutations that make a lane's values for consecutive k-steps one 16-byte chunk.
using PermF8x16 = Tile<Underscore, Underscore, Layout<Shape<_8, _4, _2>, Stride<_1, _16, _8>>>;  // 16x16x32
using PermF8x32 = Tile<Underscore, Underscore, Layout<Shape<_8, _2, _2>, Stride<_1, _16, _8>>>;  // 32x32x16
using PermF32 = Tile<Underscore, Underscore, Layout<Shape<_4, _4>, Stride<_4, _1>>>;               // 16x16x4

// Every thread of a block; `mma` runs each wave's MFMAs through the instruction's lane model.
template <class Block>
struct HostTeam {
  template <class State>
  std::vector<State> make_states() const {
    return std::vector<State>(size_t(Block::threads));
  }
  template <class F>
  void each(F&& f) const {
    for (int t = 0; t < Block::threads; ++t) f(t);
  }
  int barriers = 0;
  void sync() { ++barriers; }
  template <class States>
  void mma(States& states) const {
    fly_test::mma_on_lane_model<typename Block::Mma>(
        Block::threads, [&](int t) -> auto& { return states[size_t(t)].fa; },
        [&](int t) -> auto& { return states[size_t(t)].fb; }, [&](int t) -> auto& { return states[size_t(t)].acc; });
  }
};

template <class T>
T random_value(std::mt19937& rng) {
  if constexpr (std::is_same_v<T, float>) {
    return std::uniform_real_distribution<float>(-1.f, 1.f)(rng);
  } else {
    // normal e4m3fnuz values: any bits but 0x80 (NaN) and the zero's sign twin
    for (;;) {
      uint8_t b = uint8_t(rng());
      if (b != 0x80) return T::from_bits(b);
    }
  }
}

// Runs the block over every tile of an m x n x k problem and checks D against float64.
template <class Block, class TD = float>
void check_problem(int m, int n, int k, float beta, unsigned seed) {
  using TA = typename Block::TA;
  ASSERT_EQ(k % Block::vec, 0) << "the dispatcher's precondition: K a multiple of the load vector";
  std::mt19937 rng(seed);
  const int64_t lda = k + 16, ldb = k + 32, ldc = n + 3, ldd = n + 5;  // padded leading dimensions
  std::vector<TA> A(size_t(m * lda)), B(size_t(n * ldb));
  for (auto& x : A) x = random_value<TA>(rng);
  for (auto& x : B) x = random_value<TA>(rng);
  std::vector<TD> C(size_t(m * ldc)), D(size_t(m * ldd), TD(std::nanf("")));
  for (auto& x : C) x = TD(std::uniform_real_distribution<float>(-1.f, 1.f)(rng));
  const float scale_a = 0.75f, scale_b = 1.5f;
  GemmParams p{m, n, k, lda, ldb, ldc, ldd, A.data(), B.data(), beta != 0.f ? C.data() : nullptr, D.data(),
               0.5f, beta, &scale_a, &scale_b, false, false};
  std::vector<TA> lds(size_t(Block::lds_bytes / int(sizeof(TA))));
  int barriers = -1;
  for (int bm = 0; bm * Block::BM < m; ++bm)
    for (int bn = 0; bn * Block::BN < n; ++bn) {
      // a new block's LDS holds the previous block's bytes: stale data must not leak in
      HostTeam<Block> team;
      Block::run(team, p, lds.data(), bm, bn);
      barriers = team.barriers;
    }
  const int k_tiles = (k + Block::BK - 1) / Block::BK;
  EXPECT_EQ(barriers, k_tiles) << "one barrier before the first k-step, then one per k-step but the last";
  const double scale = 0.5 * scale_a * scale_b;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int kk = 0; kk < k; ++kk) {
        double prod = double(float(A[size_t(i * lda + kk)])) * double(float(B[size_t(j * ldb + kk)]));
        ref += prod;
        mag += std::fabs(prod);
      }
      const double c = beta != 0.f ? double(float(C[size_t(i * ldc + j)])) : 0.0;
      const double want = scale * ref + double(beta) * c;
      // fp32 accumulation over k terms (products exact in fp32 for fp8; one rounding for f32),
      // the scale and beta products, and D's own rounding
      const double d_eps = std::is_same_v<TD, float> ? 0x1p-23 : 0x1p-8;  // D's rounding: half an ulp or more
      const double bound = scale * mag * (k + 2) * 0x1p-24 + std::fabs(beta * c) * 0x1p-23 + (std::fabs(want) + 1e-30) * d_eps;
      ASSERT_NEAR(double(float(D[size_t(i * ldd + j)])), want, bound) << "D(" << i << "," << j << ") of " << m << "x" << n << "x" << k;
    }
  for (int i = 0; i < m; ++i)  // nothing written outside D's n columns
    for (int j = n; j < ldd; ++j) ASSERT_TRUE(std::isnan(float(D[size_t(i * ldd + j)])));
}

// The grid's cells (variants.txt; D in f32 here), and two more row lengths of the swizzle.
using F8x16_16x128_bf16 = GemmLdsBlock<GFX942_MFMA_F32_16x16x32_F8, Layout<Shape<_1, _4, _1>>, PermF8x16, 16, 128, 64, 128, bfloat16>;
using F8x16_16x128 = GemmLdsBlock<GFX942_MFMA_F32_16x16x32_F8, Layout<Shape<_1, _4, _1>>, PermF8x16, 16, 128, 64, 128, float>;
using F8x16_16x128_b64 = GemmLdsBlock<GFX942_MFMA_F32_16x16x32_F8, Layout<Shape<_1, _4, _1>>, PermF8x16, 16, 128, 64, 64, float>;
using F8x32_32x128 = GemmLdsBlock<GFX942_MFMA_F32_32x32x16_F8, Layout<Shape<_1, _4, _1>>, PermF8x32, 32, 128, 64, 128, float>;
using F8x16_64x64 = GemmLdsBlock<GFX942_MFMA_F32_16x16x32_F8, Layout<Shape<_2, _2, _1>>, PermF8x16, 64, 64, 64, 128, float>;
using F8x32_128x128 = GemmLdsBlock<GFX942_MFMA_F32_32x32x16_F8, Layout<Shape<_2, _2, _1>>, PermF8x32, 128, 128, 64, 128, float>;
using F8x32_256x128 = GemmLdsBlock<GFX942_MFMA_F32_32x32x16_F8, Layout<Shape<_4, _2, _1>>, PermF8x32, 256, 128, 32, 128, float>;
using F32_16x128 = GemmLdsBlock<GFX942_MFMA_F32_16x16x4_F32, Layout<Shape<_1, _4, _1>>, PermF32, 16, 128, 16, 128, float>;
using F32_64x64 = GemmLdsBlock<GFX942_MFMA_F32_16x16x4_F32, Layout<Shape<_2, _2, _1>>, PermF32, 64, 64, 16, 128, float>;
using F8x16_64x64_k128 = GemmLdsBlock<GFX942_MFMA_F32_16x16x32_F8, Layout<Shape<_2, _2, _1>>, PermF8x16, 64, 64, 128, 128, float>;
using F32_32x64_k32 = GemmLdsBlock<GFX942_MFMA_F32_16x16x4_F32, Layout<Shape<_2, _2, _1>>, PermF32, 32, 64, 32, 128, float>;

TEST(GemmLdsHost, Fp8Mfma16_Decode16x128) { check_problem<F8x16_16x128>(5, 200, 336, 1.f, 1); }
TEST(GemmLdsHost, Fp8Mfma16_Decode16x128Bf16) { check_problem<F8x16_16x128_bf16, bfloat16>(9, 130, 96, 0.5f, 13); }
TEST(GemmLdsHost, Fp8Mfma16_Decode16x128Load64) { check_problem<F8x16_16x128_b64>(16, 129, 72, 0.f, 2); }
TEST(GemmLdsHost, Fp8Mfma32_Decode32x128) { check_problem<F8x32_32x128>(17, 129, 144, 0.f, 3); }
TEST(GemmLdsHost, Fp8Mfma16_64x64) {
  check_problem<F8x16_64x64>(64, 64, 256, 0.f, 4);
  check_problem<F8x16_64x64>(77, 45, 208, 0.5f, 5);  // edges in M, N and a partial last k-tile
}
TEST(GemmLdsHost, Fp8Mfma32_128x128) { check_problem<F8x32_128x128>(130, 131, 80, 0.25f, 6); }
TEST(GemmLdsHost, Fp8Mfma32_256x128) { check_problem<F8x32_256x128>(260, 120, 112, 0.5f, 7); }
TEST(GemmLdsHost, F32Mfma16_Decode16x128) { check_problem<F32_16x128>(3, 150, 36, 0.f, 8); }
TEST(GemmLdsHost, F32Mfma16_64x64) {
  check_problem<F32_64x64>(64, 64, 48, 0.f, 9);
  check_problem<F32_64x64>(70, 33, 44, -1.f, 10);
}
TEST(GemmLdsHost, Fp8Mfma16_64x64Bk128) { check_problem<F8x16_64x64_k128>(65, 64, 240, 0.f, 11); }  // 128-byte rows; K a multiple of the 16-byte vector
TEST(GemmLdsHost, F32Mfma16_32x64Bk32) { check_problem<F32_32x64_k32>(31, 65, 100, 0.5f, 12); }

// Bank conflicts under gfx942's model: 32 banks of 4 bytes; a ds instruction of B bytes per lane
// is serviced 128 / B lanes at a time; lanes of one phase reading different dwords of one bank
// conflict (the same dword is a broadcast). Returns the extra cycles of one wave's instruction.
int conflicts(const std::vector<std::pair<uint32_t, int>>& lanes) {
  const int bytes = lanes.front().second, per_phase = 128 / bytes;
  int extra = 0;
  for (size_t p0 = 0; p0 < lanes.size(); p0 += size_t(per_phase)) {
    std::map<int, std::set<uint32_t>> bank;
    for (size_t l = p0; l < p0 + size_t(per_phase) && l < lanes.size(); ++l)
      for (int dw = 0; dw < bytes / 4; ++dw) {
        const uint32_t dword = lanes[l].first / 4 + uint32_t(dw);
        bank[int(dword % 32)].insert(dword);
      }
    int worst = 1;
    for (auto& [b, dwords] : bank) worst = std::max(worst, int(dwords.size()));
    extra += worst - 1;
  }
  return extra;
}

// Records every LDS access of every thread in one k-step of the body (the writes of a tile, the
// fragment reads), groups the i-th access of the 64 lanes of each wave into one instruction, and
// counts its conflicts.
template <class Block>
void check_conflicts() {
  using TA = typename Block::TA;
  std::vector<TA> lds(size_t(Block::lds_bytes / int(sizeof(TA))));
  std::vector<TA> A(size_t(Block::BM * Block::BK), TA(1.f)), B(size_t(Block::BN * Block::BK), TA(1.f));
  const auto a = make_buffer_ptr(static_cast<TA const*>(A.data()), uint32_t(A.size()));
  const auto b = make_buffer_ptr(static_cast<TA const*>(B.data()), uint32_t(B.size()));
  std::vector<std::vector<LdsAccess>> trace(size_t(Block::threads));
  int instructions = 0, writes = 0;
  for (int t = 0; t < Block::threads; ++t) {
    typename Block::State st;
    lds_trace = &trace[size_t(t)];
    Block::template load_tile<Block::BM>(st.ra, a, Block::BK, Block::BK, t);
    Block::template load_tile<Block::BN>(st.rb, b, Block::BK, Block::BK, t);
    Block::template write_tile<Block::BM>(st.ra, Block::TileA::view(Block::buffer_a(lds.data(), 1)), t);
    Block::template write_tile<Block::BN>(st.rb, Block::TileB::view(Block::buffer_b(lds.data(), 1)), t);
    Block::read_fragments(st, lds.data(), 1, t);
    lds_trace = nullptr;
  }
  // every byte of both tiles written exactly once
  std::map<const void*, int> written;
  for (auto& tr : trace)
    for (auto& acc : tr)
      if (acc.write)
        for (int i = 0; i < acc.bytes; ++i) ++written[static_cast<const unsigned char*>(acc.address) + i];
  EXPECT_EQ(written.size(), size_t(Block::stage_elems * int(sizeof(TA))));
  for (auto& [at, times] : written) ASSERT_EQ(times, 1);
  const auto* base = reinterpret_cast<const unsigned char*>(lds.data());
  for (int w = 0; w < Block::threads / 64; ++w) {
    // a wave's lanes take part in the same instructions; lanes past a loader's `used` threads skip
    // the tile's writes, so group by (write or read, position among this lane's such accesses)
    std::map<std::pair<bool, int>, std::vector<std::pair<uint32_t, int>>> inst;
    for (int l = 0; l < 64; ++l) {
      int n_w = 0, n_r = 0;
      for (auto& acc : trace[size_t(w * 64 + l)]) {
        const int i = acc.write ? n_w++ : n_r++;
        inst[{acc.write, i}].push_back({uint32_t(static_cast<const unsigned char*>(acc.address) - base), acc.bytes});
      }
    }
    for (auto& [key, lanes] : inst) {
      ++instructions;
      writes += key.first;
      if (!key.first) {
        EXPECT_EQ(lanes.front().second, 16) << "the fragments are read with ds_read_b128";
      }
      EXPECT_EQ(conflicts(lanes), 0) << (key.first ? "ds_write" : "ds_read") << " #" << key.second << " of wave " << w
                                     << ": " << lanes.size() << " lanes of " << lanes.front().second << " bytes";
    }
  }
  EXPECT_GT(instructions - writes, 0);
  EXPECT_GT(writes, 0);
}

TEST(GemmLdsBankConflicts, Fp8Mfma16_Decode16x128) { check_conflicts<F8x16_16x128>(); }
TEST(GemmLdsBankConflicts, Fp8Mfma16_Decode16x128Load64) { check_conflicts<F8x16_16x128_b64>(); }
TEST(GemmLdsBankConflicts, Fp8Mfma32_Decode32x128) { check_conflicts<F8x32_32x128>(); }
TEST(GemmLdsBankConflicts, Fp8Mfma16_64x64) { check_conflicts<F8x16_64x64>(); }
TEST(GemmLdsBankConflicts, Fp8Mfma32_128x128) { check_conflicts<F8x32_128x128>(); }
TEST(GemmLdsBankConflicts, Fp8Mfma32_256x128) { check_conflicts<F8x32_256x128>(); }
TEST(GemmLdsBankConflicts, F32Mfma16_Decode16x128) { check_conflicts<F32_16x128>(); }
TEST(GemmLdsBankConflicts, F32Mfma16_64x64) { check_conflicts<F32_64x64>(); }
TEST(GemmLdsBankConflicts, Fp8Mfma16_64x64Bk128) { check_conflicts<F8x16_64x64_k128>(); }
TEST(GemmLdsBankConflicts, F32Mfma16_32x64Bk32) { check_conflicts<F32_32x64_k32>(); }

// The swizzled tile is a permutation of the tile's offsets that moves 16-byte chunks whole.
template <int Rows, int BK, class T>
void check_swizzle_bijection() {
  using Tile = LdsTile<Rows, BK, T>;
  constexpr int vec = 16 / int(sizeof(T));
  std::vector<int> hits(size_t(Rows * BK), 0);
  for (int r = 0; r < Rows; ++r)
    for (int k = 0; k < BK; ++k) {
      const int at = int(Tile::layout()(make_coord(r, k)));
      ASSERT_GE(at, 0);
      ASSERT_LT(at, Rows * BK);
      ++hits[size_t(at)];
      ASSERT_EQ(at % vec, k % vec) << "a chunk's elements keep their order";
      ASSERT_EQ(at - k % vec, int(Tile::layout()(make_coord(r, k - k % vec)))) << "a chunk moves whole";
    }
  for (int h : hits) ASSERT_EQ(h, 1);
}
TEST(GemmLdsSwizzle, BijectionKeepingChunks) {
  check_swizzle_bijection<16, 32, float8_e4m3fnuz>();   // 32-byte rows
  check_swizzle_bijection<32, 64, float8_e4m3fnuz>();   // 64
  check_swizzle_bijection<64, 128, float8_e4m3fnuz>();  // 128
  check_swizzle_bijection<16, 256, float8_e4m3fnuz>();  // 256
  check_swizzle_bijection<64, 16, float>();             // 64
  check_swizzle_bijection<16, 64, float>();             // 256
}

// The model itself: 8 lanes of a ds_read_b128 reading the same chunk of 8 consecutive 128-byte
// rows (unswizzled) is an 8-way conflict; the swizzled tile spreads them over all 32 banks.
TEST(GemmLdsBankConflicts, ModelSeesTheUnswizzledConflict) {
  std::vector<std::pair<uint32_t, int>> plain, swizzled;
  using Tile = LdsTile<8, 128, float8_e4m3fnuz>;
  for (int r = 0; r < 8; ++r) {
    plain.push_back({uint32_t(r * 128), 16});
    swizzled.push_back({uint32_t(Tile::layout()(make_coord(r, 0))), 16});
  }
  EXPECT_EQ(conflicts(plain), 7);
  EXPECT_EQ(conflicts(swizzled), 0);
}

}  // namespace
