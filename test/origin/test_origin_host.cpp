// The host functional model of every test tile: each thread's partitioning and copies run as the
// kernel runs them (buffer loads through their host model), the MMA instruction through its
// lane-by-lane model (fly/atom/mma_model.hpp), and C is compared with a plain matrix product.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "common/exact_values.hpp"
#include "common/mma_lane_model.hpp"
#include "tile_configs.hpp"

namespace {
using namespace fly;
using namespace fly_test;

template <class Cfg, bool Buffer>
void check_tile(unsigned seed) {
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  std::mt19937 rng(seed);
  auto A = random_exact_operand<TA>(Cfg::M * Cfg::K, rng);
  auto B = random_exact_operand<TB>(Cfg::N * Cfg::K, rng);
  std::vector<float> C(size_t(Cfg::M * Cfg::N), std::nanf(""));  // poisoned
  auto a_it = [&] {
    if constexpr (Buffer) {
      return make_buffer_ptr(A.data(), uint32_t(A.size()));
    } else {
      return static_cast<TA const*>(A.data());
    }
  }();
  auto b_it = [&] {
    if constexpr (Buffer) {
      return make_buffer_ptr(B.data(), uint32_t(B.size()));
    } else {
      return static_cast<TB const*>(B.data());
    }
  }();
  using FA = decltype(Cfg::load_a(0, a_it));
  using FB = decltype(Cfg::load_b(0, b_it));
  using FC = decltype(Cfg::make_c(0, C.data()));
  std::vector<FA> fa;
  std::vector<FB> fb;
  std::vector<FC> fc;
  for (int t = 0; t < Cfg::threads; ++t) {
    fa.push_back(Cfg::load_a(t, a_it));
    fb.push_back(Cfg::load_b(t, b_it));
    fc.push_back(Cfg::make_c(t, C.data()));
  }
  fly_test::mma_on_lane_model<typename Cfg::Mma>(
      Cfg::threads, [&](int t) -> auto& { return fa[size_t(t)]; }, [&](int t) -> auto& { return fb[size_t(t)]; },
      [&](int t) -> auto& { return fc[size_t(t)]; });
  for (int t = 0; t < Cfg::threads; ++t) Cfg::store_c(t, fc[size_t(t)], C.data());

  for (int m = 0; m < Cfg::M; ++m)
    for (int n = 0; n < Cfg::N; ++n) {
      double ref = 0;
      for (int k = 0; k < Cfg::K; ++k)
        ref += double(float(A[size_t(m * Cfg::K + k)])) * double(float(B[size_t(n * Cfg::K + k)]));
      ASSERT_EQ(double(C[size_t(m * Cfg::N + n)]), ref) << "C(" << m << "," << n << ")";
    }
}

// The origin case with every copy atom for A and B.
TEST(OriginGfx942Host, UniversalCopy32b) { check_tile<Gfx942Origin<UniversalCopy32b>, false>(1); }
TEST(OriginGfx942Host, UniversalCopy64b) { check_tile<Gfx942Origin<UniversalCopy64b>, false>(2); }
TEST(OriginGfx942Host, UniversalCopy128b) { check_tile<Gfx942Origin<UniversalCopy128b>, false>(3); }
TEST(OriginGfx942Host, BufferCopy32b) { check_tile<Gfx942Origin<BufferCopy32b>, true>(4); }
TEST(OriginGfx942Host, BufferCopy64b) { check_tile<Gfx942Origin<BufferCopy64b>, true>(5); }
TEST(OriginGfx942Host, BufferCopy128b) { check_tile<Gfx942Origin<BufferCopy128b>, true>(6); }

TEST(TilesGfx942Host, Tile64x64x128Warps4) { check_tile<Gfx942_64x64x128_w4<BufferCopy128b>, true>(7); }
TEST(TilesGfx942Host, Tile64x64x128Warps8) { check_tile<Gfx942_64x64x128_w8<UniversalCopy128b>, false>(8); }
TEST(TilesGfx942Host, Tile128x128x64Warps4) { check_tile<Gfx942_128x128x64_w4<UniversalCopy64b>, false>(9); }
TEST(TilesGfx942Host, Tile128x128x64Warps8) { check_tile<Gfx942_128x128x64_w8<BufferCopy64b>, true>(10); }

TEST(OriginSm90Host, UniversalCopy32b) { check_tile<Sm90Origin<UniversalCopy32b>, false>(11); }
TEST(OriginSm90Host, UniversalCopy64b) { check_tile<Sm90Origin<UniversalCopy64b>, false>(12); }
TEST(OriginSm90Host, UniversalCopy128b) { check_tile<Sm90Origin<UniversalCopy128b>, false>(13); }

TEST(TilesSm90Host, Tile64x64x128Warps4) { check_tile<Sm90_64x64x128_w4<UniversalCopy32b>, false>(14); }
TEST(TilesSm90Host, Tile64x64x128Warps8) { check_tile<Sm90_64x64x128_w8<UniversalCopy128b>, false>(15); }
TEST(TilesSm90Host, Tile128x128x64Warps4) { check_tile<Sm90_128x128x64_w4<UniversalCopy64b>, false>(16); }
TEST(TilesSm90Host, Tile128x128x64Warps8) { check_tile<Sm90_128x128x64_w8<UniversalCopy32b>, false>(17); }
}  // namespace
