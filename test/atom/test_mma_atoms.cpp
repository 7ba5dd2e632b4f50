// MMA atoms: the thread-value layouts of MMA_Traits<Op> against the host models MMA_Model<Op>,
// which are written from the vendors' lane formulas independently of the layouts.
//
// For each atom: random A (MxK), B (NxK), C (MxN) of values exact in the input type and small
// enough that every float sum is exact; distributed into per-lane registers with the traits'
// ALayout/BLayout/CLayout (value v of thread t gets the element at offset Layout(t, v), packed
// lowest bits first); the model runs; D is gathered with CLayout and compared, element by element,
// with a double-precision A*B^T + C. Each layout must also be a bijection onto its tile, and its
// value count must fill the operand registers exactly. Deliberately wrong layouts (still
// bijections) must be caught.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "fly/atom/mma_model.hpp"
#include "fly/atom/mma_traits_gfx942.hpp"
#include "fly/atom/mma_traits_host.hpp"
#include "fly/atom/mma_traits_sm90.hpp"

namespace {

using namespace fly;

template <class T>
constexpr int static_int = int(std::remove_cvref_t<T>::value);

template <class Op>
struct Dims {
  using Traits = MMA_Traits<Op>;
  using MNK = typename Traits::Shape_MNK;
  static constexpr int M = static_int<decltype(get<0>(MNK{}))>;
  static constexpr int N = static_int<decltype(get<1>(MNK{}))>;
  static constexpr int K = static_int<decltype(get<2>(MNK{}))>;
  static constexpr int threads = static_int<decltype(size(typename Traits::ThrID{}))>;
};

// ---- bijection ------------------------------------------------------------------------------------

// Empty string if `layout` maps (thread, value) with thread < threads, value < values one-to-one
// onto [0, extent); otherwise what is wrong.
template <class L>
std::string bijection_error(L const& layout, int threads, int values, int extent) {
  std::ostringstream err;
  if (int(size<0>(layout)) != threads) err << "size<0> " << int(size<0>(layout)) << " != threads " << threads << "; ";
  if (int(size<1>(layout)) != values) err << "size<1> " << int(size<1>(layout)) << " != values " << values << "; ";
  if (int(size(layout)) != extent) err << "size " << int(size(layout)) << " != extent " << extent << "; ";
  if (!err.str().empty()) return err.str();
  std::vector<int> hits(std::size_t(extent), 0);
  for (int t = 0; t < threads; ++t)
    for (int v = 0; v < values; ++v) {
      int const off = int(layout(t, v));
      if (off < 0 || off >= extent) return "offset " + std::to_string(off) + " out of range";
      ++hits[std::size_t(off)];
    }
  for (int i = 0; i < extent; ++i)
    if (hits[std::size_t(i)] != 1)
      return "offset " + std::to_string(i) + " hit " + std::to_string(hits[std::size_t(i)]) + " times";
  return {};
}

// ---- random exact data ----------------------------------------------------------------------------

// n * 2^s, n in [-lim, lim], s in [-2, 1]: exact in every input type here (at most 3 significant
// bits, within fp8 e4m3fnuz's range), and sums of up to 32 products stay exact in float.
double draw(std::mt19937& rng, int lim) {
  int const n = int(rng() % unsigned(2 * lim + 1)) - lim;
  int const s = int(rng() % 4u) - 2;
  return std::ldexp(double(n), s);
}

template <class T>
uint64_t encode_exact(double x) {
  if constexpr (std::is_same_v<T, float>) {
    float const f = float(x);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  } else {
    T const t(static_cast<float>(x));
    if (double(float(t)) != x) throw std::logic_error("test value not exact in the input type");
    return t.bits();
  }
}

struct Problem {
  int M, N, K;
  std::vector<double> A, B, C;  // A[m + M*k], B[n + N*k], C[m + M*n] (column-major, as the layouts)
  double a(int m, int k) const { return A[std::size_t(m + M * k)]; }
  double b(int n, int k) const { return B[std::size_t(n + N * k)]; }
  double c(int m, int n) const { return C[std::size_t(m + M * n)]; }
  double reference(int m, int n) const {
    double acc = c(m, n);
    for (int k = 0; k < K; ++k) acc += a(m, k) * b(n, k);
    return acc;
  }
};

Problem random_problem(int M, int N, int K, unsigned seed) {
  std::mt19937 rng(seed);
  Problem p{M, N, K, {}, {}, {}};
  for (int i = 0; i < M * K; ++i) p.A.push_back(draw(rng, 4));
  for (int i = 0; i < N * K; ++i) p.B.push_back(draw(rng, 4));
  for (int i = 0; i < M * N; ++i) p.C.push_back(draw(rng, 8));
  return p;
}

// ---- the check ------------------------------------------------------------------------------------

// Runs MMA_Model<Op> on `p` distributed with the given layouts; returns the number of D elements
// that differ from the double reference (every element when D could not be gathered).
template <class Op, class AL, class BL, class CL>
int mismatches(Problem const& p, AL const& al, BL const& bl, CL const& cl, std::string* first = nullptr) {
  using Traits = MMA_Traits<Op>;
  using Model = MMA_Model<Op>;
  using D = Dims<Op>;
  constexpr int T = D::threads;
  static_assert(Model::kLanes == T, "the model and ThrID disagree on the thread count");
  constexpr int wa = model::bits_of<typename Traits::ValTypeA>;
  constexpr int wb = model::bits_of<typename Traits::ValTypeB>;
  constexpr int wc = model::bits_of<typename Traits::ValTypeC>;

  typename Model::ARegs a{};
  typename Model::BRegs b{};
  typename Model::CRegs c{};
  typename Model::DRegs d{};
  for (auto& lane : d)
    for (auto& r : lane) r = std::nanf("");  // anything the model does not write is a mismatch

  for (int t = 0; t < T; ++t) {
    for (int v = 0; v < int(size<1>(al)); ++v) {
      int const off = int(al(t, v));
      model::set_element(a[std::size_t(t)], v, wa,
                         encode_exact<typename Traits::ValTypeA>(p.a(off % D::M, off / D::M)));
    }
    for (int v = 0; v < int(size<1>(bl)); ++v) {
      int const off = int(bl(t, v));
      model::set_element(b[std::size_t(t)], v, wb,
                         encode_exact<typename Traits::ValTypeB>(p.b(off % D::N, off / D::N)));
    }
    for (int v = 0; v < int(size<1>(cl)); ++v) {
      int const off = int(cl(t, v));
      model::set_element(c[std::size_t(t)], v, wc,
                         encode_exact<typename Traits::ValTypeC>(p.c(off % D::M, off / D::M)));
    }
  }

  Model::execute(d, a, b, c);

  std::vector<double> got(std::size_t(D::M * D::N), std::nan(""));
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < int(size<1>(cl)); ++v) {
      int const off = int(cl(t, v));
      got[std::size_t(off)] = double(d[std::size_t(t)][std::size_t(v)]);
    }
  int bad = 0;
  for (int n = 0; n < D::N; ++n)
    for (int m = 0; m < D::M; ++m) {
      double const want = p.reference(m, n), have = got[std::size_t(m + D::M * n)];
      if (!(want == have)) {
        if (bad == 0 && first) {
          *first = "D(" + std::to_string(m) + "," + std::to_string(n) + ") = " + std::to_string(have) + ", reference " +
                   std::to_string(want);
        }
        ++bad;
      }
    }
  return bad;
}

// ---- per-atom tests -------------------------------------------------------------------------------

template <class Op>
class MmaAtom : public ::testing::Test {};

using Atoms = ::testing::Types<GFX942_MFMA_F32_16x16x32_F8, GFX942_MFMA_F32_32x32x16_F8, GFX942_MFMA_F32_16x16x16_BF16,
                               GFX942_MFMA_F32_32x32x8_BF16, GFX942_MFMA_F32_16x16x16_F16, GFX942_MFMA_F32_32x32x8_F16,
                               GFX942_MFMA_F32_16x16x4_F32, GFX942_MFMA_F32_32x32x2_F32, SM90_16x8x32_F32E4M3E4M3F32_TN,
                               SM90_16x8x16_F32BF16BF16F32_TN, SM90_16x8x16_F32F16F16F32_TN, SM90_FMA_F32, HOST_FMA>;

class AtomNames {
 public:
  template <class Op>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_16x16x32_F8>) return "GFX942_MFMA_F32_16x16x32_F8";
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_32x32x16_F8>) return "GFX942_MFMA_F32_32x32x16_F8";
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_16x16x16_BF16>) return "GFX942_MFMA_F32_16x16x16_BF16";
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_32x32x8_BF16>) return "GFX942_MFMA_F32_32x32x8_BF16";
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_16x16x16_F16>) return "GFX942_MFMA_F32_16x16x16_F16";
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_32x32x8_F16>) return "GFX942_MFMA_F32_32x32x8_F16";
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_16x16x4_F32>) return "GFX942_MFMA_F32_16x16x4_F32";
    if constexpr (std::is_same_v<Op, GFX942_MFMA_F32_32x32x2_F32>) return "GFX942_MFMA_F32_32x32x2_F32";
    if constexpr (std::is_same_v<Op, SM90_16x8x32_F32E4M3E4M3F32_TN>) return "SM90_16x8x32_F32E4M3E4M3F32_TN";
    if constexpr (std::is_same_v<Op, SM90_16x8x16_F32BF16BF16F32_TN>) return "SM90_16x8x16_F32BF16BF16F32_TN";
    if constexpr (std::is_same_v<Op, SM90_16x8x16_F32F16F16F32_TN>) return "SM90_16x8x16_F32F16F16F32_TN";
    if constexpr (std::is_same_v<Op, SM90_FMA_F32>) return "SM90_FMA_F32";
    if constexpr (std::is_same_v<Op, HOST_FMA>) return "HOST_FMA";
    return "unnamed";
  }
};

TYPED_TEST_SUITE(MmaAtom, Atoms, AtomNames);

// Each layout is a bijection from (thread, value) onto its tile, with ThrID's thread count.
TYPED_TEST(MmaAtom, LayoutsAreBijectionsOntoTheirTiles) {
  using Op = TypeParam;
  using Traits = MMA_Traits<Op>;
  using D = Dims<Op>;
  typename Traits::ALayout al;
  typename Traits::BLayout bl;
  typename Traits::CLayout cl;
  EXPECT_EQ(bijection_error(al, D::threads, D::M * D::K / D::threads, D::M * D::K), "");
  EXPECT_EQ(bijection_error(bl, D::threads, D::N * D::K / D::threads, D::N * D::K), "");
  EXPECT_EQ(bijection_error(cl, D::threads, D::M * D::N / D::threads, D::M * D::N), "");
  EXPECT_EQ(int(size(typename Traits::ThrID{})), D::threads);
}

// The values of a thread fill its registers exactly: size<1>(Layout) * element width == register bits.
TYPED_TEST(MmaAtom, ValueCountsFillTheRegisters) {
  using Op = TypeParam;
  using Traits = MMA_Traits<Op>;
  EXPECT_EQ(int(size<1>(typename Traits::ALayout{})) * model::bits_of<typename Traits::ValTypeA>,
            int(sizeof(typename Op::ARegisters)) * 8);
  EXPECT_EQ(int(size<1>(typename Traits::BLayout{})) * model::bits_of<typename Traits::ValTypeB>,
            int(sizeof(typename Op::BRegisters)) * 8);
  EXPECT_EQ(int(size<1>(typename Traits::CLayout{})) * model::bits_of<typename Traits::ValTypeC>,
            int(sizeof(typename Op::CRegisters)) * 8);
  EXPECT_EQ(sizeof(typename Op::DRegisters), sizeof(typename Op::CRegisters));
  static_assert(std::is_same_v<typename Traits::ValTypeC, float> && std::is_same_v<typename Traits::ValTypeD, float>);
}

// Traits layouts + model == A*B^T + C, on several random problems.
TYPED_TEST(MmaAtom, TraitsLayoutsAgreeWithTheVendorLaneFormulas) {
  using Op = TypeParam;
  using Traits = MMA_Traits<Op>;
  using D = Dims<Op>;
  for (unsigned seed = 1; seed <= 8; ++seed) {
    Problem const p = random_problem(D::M, D::N, D::K, seed * 7919u);
    std::string first;
    EXPECT_EQ(
        (mismatches<Op>(p, typename Traits::ALayout{}, typename Traits::BLayout{}, typename Traits::CLayout{}, &first)),
        0)
        << "seed " << seed << ": " << first;
  }
}

TEST(MmaAtomTypes, ValueTypes) {
  static_assert(std::is_same_v<MMA_Traits<GFX942_MFMA_F32_16x16x32_F8>::ValTypeA, float8_e4m3fnuz>);
  static_assert(std::is_same_v<MMA_Traits<GFX942_MFMA_F32_32x32x16_F8>::ValTypeB, float8_e4m3fnuz>);
  static_assert(std::is_same_v<MMA_Traits<GFX942_MFMA_F32_16x16x16_BF16>::ValTypeA, bfloat16>);
  static_assert(std::is_same_v<MMA_Traits<GFX942_MFMA_F32_32x32x8_F16>::ValTypeA, half>);
  static_assert(std::is_same_v<MMA_Traits<GFX942_MFMA_F32_16x16x4_F32>::ValTypeA, float>);
  static_assert(std::is_same_v<MMA_Traits<SM90_16x8x32_F32E4M3E4M3F32_TN>::ValTypeA, float8_e4m3fn>);
  static_assert(std::is_same_v<MMA_Traits<SM90_WGMMA_64x64x32_F32E4M3E4M3_SS>::ValTypeB, float8_e4m3fn>);
  static_assert(std::is_same_v<MMA_Traits<SM90_16x8x16_F32BF16BF16F32_TN>::ValTypeB, bfloat16>);
  static_assert(std::is_same_v<MMA_Traits<SM90_16x8x16_F32F16F16F32_TN>::ValTypeB, half>);
  static_assert(Dims<GFX942_MFMA_F32_16x16x32_F8>::threads == 64 &&
                Dims<SM90_16x8x32_F32E4M3E4M3F32_TN>::threads == 32);
  static_assert(Dims<SM90_WGMMA_64x64x32_F32E4M3E4M3_SS>::threads == 128 && Dims<HOST_FMA>::threads == 1);
  SUCCEED();
}

// The example ARCHITECTURE.md quotes from the CDNA3 ISA, read straight off the traits:
// v_mfma_f32_16x16x32_fp8_fp8 A[i][k] in lane 16*(k/8)+i, byte k%8; C[i][j] in lane 16*(i/4)+j,
// register i%4.
TEST(MmaAtomGfx942, SixteenBySixteenFp8MatchesTheIsaExample) {
  using Traits = MMA_Traits<GFX942_MFMA_F32_16x16x32_F8>;
  typename Traits::ALayout al;
  typename Traits::CLayout cl;
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 32; ++k) EXPECT_EQ(int(al(16 * (k / 8) + i, k % 8)), i + 16 * k);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) EXPECT_EQ(int(cl(16 * (i / 4) + j, i % 4)), i + 16 * j);
}

// ---- the checks can fail --------------------------------------------------------------------------

// Wrong layouts that are still bijections (so only the functional check can see them) must give
// mismatches.
TEST(MmaAtomNegative, WrongMfmaLayoutsAreCaught) {
  using Op = GFX942_MFMA_F32_16x16x32_F8;
  using Traits = MMA_Traits<Op>;
  Problem const p = random_problem(16, 16, 32, 42);
  // k = g + 4*v instead of 8*g + v: lane groups and bytes swapped.
  auto const wrong_a =
      make_layout(make_shape(make_shape(_16{}, _4{}), _8{}), make_stride(make_stride(_1{}, _16{}), _64{}));
  // C transposed: lane holds a row instead of a column.
  auto const wrong_c =
      make_layout(make_shape(make_shape(_16{}, _4{}), _4{}), make_stride(make_stride(_1{}, _64{}), _16{}));
  ASSERT_EQ(bijection_error(wrong_a, 64, 8, 512), "");
  ASSERT_EQ(bijection_error(wrong_c, 64, 4, 256), "");
  EXPECT_GT((mismatches<Op>(p, wrong_a, typename Traits::BLayout{}, typename Traits::CLayout{})), 0);
  EXPECT_GT((mismatches<Op>(p, typename Traits::ALayout{}, wrong_a, typename Traits::CLayout{})), 0);
  EXPECT_GT((mismatches<Op>(p, typename Traits::ALayout{}, typename Traits::BLayout{}, wrong_c)), 0);
  // 32x32: the C register split (4,4):(1,8) written (4,4):(8,1).
  using Op32 = GFX942_MFMA_F32_32x32x16_F8;
  using Traits32 = MMA_Traits<Op32>;
  auto const wrong_c32 = make_layout(make_shape(make_shape(_32{}, _2{}), make_shape(_4{}, _4{})),
                                     make_stride(make_stride(_32{}, _4{}), make_stride(_8{}, _1{})));
  ASSERT_EQ(bijection_error(wrong_c32, 64, 16, 1024), "");
  EXPECT_GT((mismatches<Op32>(random_problem(32, 32, 16, 43), typename Traits32::ALayout{},
                              typename Traits32::BLayout{}, wrong_c32)),
            0);
}

TEST(MmaAtomNegative, WrongMmaSyncLayoutsAreCaught) {
  using Op = SM90_16x8x32_F32E4M3E4M3F32_TN;
  using Traits = MMA_Traits<Op>;
  Problem const p = random_problem(16, 8, 32, 44);
  // C values (v0, v1) strides swapped: (2,2):(8,16) instead of (16,8).
  auto const wrong_c = make_layout(make_shape(make_shape(_4{}, _8{}), make_shape(_2{}, _2{})),
                                   make_stride(make_stride(_32{}, _1{}), make_stride(_8{}, _16{})));
  // A: the two k halves and the row halves swapped, (4,2,2):(16,256,8).
  auto const wrong_a = make_layout(make_shape(make_shape(_4{}, _8{}), make_shape(_4{}, _2{}, _2{})),
                                   make_stride(make_stride(_64{}, _1{}), make_stride(_16{}, _256{}, _8{})));
  ASSERT_EQ(bijection_error(wrong_c, 32, 4, 128), "");
  ASSERT_EQ(bijection_error(wrong_a, 32, 16, 512), "");
  EXPECT_GT((mismatches<Op>(p, typename Traits::ALayout{}, typename Traits::BLayout{}, wrong_c)), 0);
  EXPECT_GT((mismatches<Op>(p, wrong_a, typename Traits::BLayout{}, typename Traits::CLayout{})), 0);
}

// A layout that is not a bijection is reported.
TEST(MmaAtomNegative, NonBijectionsAreReported) {
  auto const overlapping =
      make_layout(make_shape(make_shape(_16{}, _4{}), _4{}), make_stride(make_stride(_16{}, _4{}), _2{}));
  EXPECT_NE(bijection_error(overlapping, 64, 4, 256), "");
  EXPECT_NE(bijection_error(make_layout(make_shape(_32{}, _4{})), 64, 4, 256), "");  // wrong thread count
}

// ---- wgmma ----------------------------------------------------------------------------------------

// CLayout against the PTX accumulator formula, element by element.
TEST(MmaAtomWgmma, AccumulatorLayoutMatchesThePtxFragment) {
  using Traits = MMA_Traits<SM90_WGMMA_64x64x32_F32E4M3E4M3_SS>;
  typename Traits::CLayout cl;
  EXPECT_EQ(bijection_error(cl, 128, 32, 64 * 64), "");
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 32; ++i) {
      // PTX ISA, wgmma .m64nNk32 Matrix D fragment, written out again here:
      int const warp = t / 32, groupID = (t % 32) >> 2, tig = t % 4;
      int const row = 16 * warp + groupID + ((i % 4) < 2 ? 0 : 8);
      int const col = (i / 4) * 8 + tig * 2 + (i & 0x1);
      ASSERT_EQ(int(cl(t, i)), row + 64 * col) << "thread " << t << " d" << i;
    }
  // A and B come whole from shared memory: every thread sees the 64x32 tile.
  EXPECT_EQ(int(size<0>(Traits::ALayout{})), 128);
  EXPECT_EQ(int(cosize(Traits::ALayout{})), 64 * 32);
  EXPECT_EQ(int(cosize(Traits::BLayout{})), 64 * 32);
}

// The wgmma model with D distributed and gathered through CLayout.
TEST(MmaAtomWgmma, ModelThroughCLayoutComputesTheProduct) {
  using Op = SM90_WGMMA_64x64x32_F32E4M3E4M3_SS;
  using Traits = MMA_Traits<Op>;
  using Model = MMA_Model<Op>;
  typename Traits::CLayout cl;
  Problem const p = random_problem(64, 64, 32, 99);
  Model::AMatrix a{};
  Model::BMatrix b{};
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 32; ++k) a[std::size_t(m)][std::size_t(k)] = float8_e4m3fn(float(p.a(m, k)));
  for (int n = 0; n < 64; ++n)
    for (int k = 0; k < 32; ++k) b[std::size_t(n)][std::size_t(k)] = float8_e4m3fn(float(p.b(n, k)));
  for (bool scale_d : {true, false}) {
    Model::DRegs d{};
    for (int t = 0; t < 128; ++t)
      for (int v = 0; v < 32; ++v) {
        int const off = int(cl(t, v));
        d[std::size_t(t)][std::size_t(v)] = float(p.c(off % 64, off / 64));
      }
    Model::execute(d, a, b, scale_d);
    int bad = 0;
    for (int t = 0; t < 128; ++t)
      for (int v = 0; v < 32; ++v) {
        int const off = int(cl(t, v));
        int const m = off % 64, n = off / 64;
        double const want = p.reference(m, n) - (scale_d ? 0.0 : p.c(m, n));
        bad += double(d[std::size_t(t)][std::size_t(v)]) != want;
      }
    EXPECT_EQ(bad, 0) << "scale_d " << scale_d;
  }
}

}  // namespace
