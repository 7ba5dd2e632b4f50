// GEMM tuning tables: which entry applies (target, dtypes, factor 2, nearest in log2 space), when
// its variant runs and when the heuristic takes over (with the reason), the handle's decision
// cache over tuned choices, and the tables committed in src/dispatch/tuning.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <tuple>

#include "fly/fly.h"
#include "fake_problem.hpp"
#include "gemm/gemm_registry.hpp"
#include "gemm/gemm_tuning.hpp"
#include "handle.hpp"
#include "platform.hpp"

namespace {

using fly::dispatch::GemmProblem;
using fly::dispatch::GemmTuning;
using fly::dispatch::GemmVariant;
using fly::dispatch::Target;

constexpr fly_dtype_t fn8 = FLY_DTYPE_E4M3FN;
constexpr fly_dtype_t bf16 = FLY_DTYPE_BF16;

using fly_test::ok_launch;

// name, target, ab, d, bm, bn, bk, align, launch. For 16 x N x K with N, K multiples of 128 the
// heuristic picks small_16x64x128 (no padding): a tuned choice is visible as a different name.
const GemmVariant k_variants[] = {
    {"small_16x64x128", Target::sm90a, fn8, bf16, 16, 64, 128, 16, ok_launch},
    {"mid_64x64x128", Target::sm90a, fn8, bf16, 64, 64, 128, 16, ok_launch},
    {"big_128x128x128", Target::sm90a, fn8, bf16, 128, 128, 128, 16, ok_launch},
    {"any_64x64x64_a1", Target::sm90a, fn8, bf16, 64, 64, 64, 1, ok_launch},
    {"f16_64x64x128", Target::sm90a, fn8, FLY_DTYPE_F16, 64, 64, 128, 16, ok_launch},
    {"nolaunch_64x64x128", Target::sm90a, fn8, bf16, 64, 64, 128, 16, nullptr},
    {"gfx_64x64x128", Target::gfx942, FLY_DTYPE_E4M3FNUZ, bf16, 64, 64, 128, 16, ok_launch},
};

using fly_test::fake_problem;

const char* pick(std::span<const GemmTuning> tuning, const GemmProblem& p, std::string* why = nullptr) {
  const GemmVariant* v = fly::dispatch::select_gemm_variant(k_variants, tuning, p, Target::sm90a, why);
  return v != nullptr ? v->name : "none";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The variant picked for p under `tuning`, and the reason given.
void expect_pick(std::span<const GemmTuning> tuning, const GemmProblem& p, const char* name, const std::string& why) {
  std::string got;
  EXPECT_STREQ(pick(tuning, p, &got), name);
  EXPECT_EQ(got, why);
}

// As expect_pick, for a reason known by its start.
void expect_pick_starting(std::span<const GemmTuning> tuning, const GemmProblem& p, const char* name,
                          const std::string& why_start) {
  std::string got;
  EXPECT_STREQ(pick(tuning, p, &got), name);
  EXPECT_TRUE(starts_with(got, why_start)) << got;
}

TEST(GemmTuned, ExactEntryIsChosen) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"}};
  EXPECT_STREQ(pick({}, fake_problem(16, 8192, 8192)), "small_16x64x128");  // the heuristic alone
  // 6 sm90a variants; 4 compute e4m3fn -> bf16 with a launch function and fit the alignment.
  expect_pick(tuning, fake_problem(16, 8192, 8192), "mid_64x64x128",
              "tuned: fastest measured at 16x8192x8192 (this shape) among 4 eligible of 6 sm90a variants");
}

TEST(GemmTuned, NearestEntryAmongSeveral) {
  const GemmTuning tuning[] = {
      {Target::sm90a, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"},
      {Target::sm90a, fn8, bf16, 32, 8192, 8192, "any_64x64x64_a1"},
      {Target::sm90a, fn8, bf16, 128, 8192, 8192, "big_128x128x128"},
      {Target::sm90a, fn8, bf16, 16, 4096, 8192, "big_128x128x128"},
  };
  std::string why;
  // m = 20: log2(20/16) = 0.32 beats log2(32/20) = 0.68.
  EXPECT_STREQ(pick(tuning, fake_problem(20, 8192, 8192), &why), "mid_64x64x128");
  EXPECT_EQ(why, "tuned: fastest measured at 16x8192x8192 (nearest tuned shape) among 4 eligible of 6 sm90a variants");
  // m = 24: log2(32/24) = 0.42 beats log2(24/16) = 0.58.
  expect_pick_starting(tuning, fake_problem(24, 8192, 8192), "any_64x64x64_a1",
                       "tuned: fastest measured at 32x8192x8192 (nearest tuned shape)");
  // m = 100: only 128 is within a factor 2.
  EXPECT_STREQ(pick(tuning, fake_problem(100, 8192, 8192)), "big_128x128x128");
  // m = 64: 32 and 128 are both exactly 1 away: the first listed.
  EXPECT_STREQ(pick(tuning, fake_problem(64, 8192, 8192)), "any_64x64x64_a1");
  // The distance sums over n and k too: 6144 is nearer 8192 (0.42) than 4096 (0.58).
  EXPECT_STREQ(pick(tuning, fake_problem(16, 6144, 8192)), "mid_64x64x128");
  EXPECT_STREQ(pick(tuning, fake_problem(16, 5000, 8192)), "big_128x128x128");
  const GemmTuning far{Target::sm90a, fn8, bf16, 32, 4096, 8192, "x"};
  EXPECT_DOUBLE_EQ(fly::dispatch::gemm_tuning_distance(far, fake_problem(16, 8192, 8192)), 2.0);
  EXPECT_DOUBLE_EQ(fly::dispatch::gemm_tuning_distance(far, fake_problem(32, 4096, 8192)), 0.0);
}

TEST(GemmTuned, EntryBeyondFactorTwoIsIgnored) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"}};
  // The bounds are inclusive: 8 and 32 rows, 4096 and 16384 columns still use the entry ...
  EXPECT_STREQ(pick(tuning, fake_problem(32, 8192, 8192)), "mid_64x64x128");
  EXPECT_STREQ(pick(tuning, fake_problem(8, 8192, 8192)), "mid_64x64x128");
  expect_pick_starting(tuning, fake_problem(16, 16384, 4096), "mid_64x64x128",
                       "tuned: fastest measured at 16x8192x8192 (nearest tuned shape)");
  // ... one past them in m does not: the heuristic, and no word about tuning.
  expect_pick_starting(tuning, fake_problem(33, 8192, 8192), "small_16x64x128", "least padding (M 33->48");
  expect_pick_starting(tuning, fake_problem(7, 8192, 8192), "small_16x64x128", "least padding (M 7->16");
  EXPECT_EQ(fly::dispatch::nearest_gemm_tuning(tuning, fake_problem(16, 8192, 16512), Target::sm90a), nullptr);
  // ... and one past them in n or k leaves only the farther reaches (here by m and m x n), whose
  // mid_64x64x128 pads M = 16 to 64 (4x): refused, the heuristic.
  expect_pick_starting(tuning, fake_problem(16, 16512, 8192), "small_16x64x128",
                       "tuned variant mid_64x64x128 (nearest M and M x N, at 16x8192x8192) pads this call to 4x");
  EXPECT_STREQ(pick(tuning, fake_problem(16, 8192, 3968)), "small_16x64x128");
}

// Past a factor 2 in n or k: the nearest entry with m within a factor 2 and m x n within a factor 4
// (the second reach); failing that, for decode rows (m <= 32), the nearest by m alone (the third).
TEST(GemmTuned, FartherReachesFollowMAndTheOutputSize) {
  const GemmTuning tuning[] = {
      {Target::sm90a, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"},
      {Target::sm90a, fn8, bf16, 64, 8192, 8192, "any_64x64x64_a1"},
  };
  // m = 60, n = 16512: m x n is 1.89x the 64-row entry's; every tile pads M to 64 (1.07x), and the
  // heuristic's tie-break would take mid_64x64x128.
  expect_pick(tuning, fake_problem(60, 16512, 8192), "any_64x64x64_a1",
              "tuned: fastest measured at 64x8192x8192 (nearest tuned M and M x N; N or K beyond a factor 2) among 4 "
              "eligible of 6 sm90a variants");
  // The m x n bound is inclusive on both sides: against the 64 x 8192 entry, 64 x 2048 (a quarter)
  // and 64 x 32768 (four times) reach it ...
  auto by_output = [&](int64_t n) {
    return fly::dispatch::nearest_gemm_tuning_by_output(tuning, fake_problem(64, n, 1024), Target::sm90a);
  };
  EXPECT_NE(by_output(2048), nullptr);
  EXPECT_NE(by_output(32768), nullptr);
  EXPECT_EQ(by_output(32769), nullptr);
  // ... one column fewer than a quarter does not; m = 64 is no decode row, so no third reach: the heuristic.
  EXPECT_EQ(by_output(2047), nullptr);
  const GemmProblem wide = fake_problem(64, 2047, 1024);
  expect_pick_starting(tuning, wide, pick({}, wide), "least padding");
  // m = 32 is within a factor 2 of both entries and equally far from each (n and k match both): the
  // first listed.
  const GemmTuning* both = fly::dispatch::nearest_gemm_tuning_by_m(tuning, fake_problem(32, 1024, 1024), Target::sm90a);
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->m, 16);
  EXPECT_EQ(fly::dispatch::nearest_gemm_tuning_by_m(tuning, fake_problem(129, 64, 64), Target::sm90a), nullptr);
  EXPECT_EQ(fly::dispatch::nearest_gemm_tuning_by_m(tuning, fake_problem(7, 8192, 8192), Target::sm90a), nullptr);
}

// Decode rows past the output reach: the nearest entry by m alone.
TEST(GemmTuned, DecodeRowsReachTheNearestTunedM) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "small_16x64x128"}};
  // 16 x 1024 x 512: m x n is 1/8 of the entry's, so only the third reach applies.
  const GemmProblem p = fake_problem(16, 1024, 512);
  EXPECT_EQ(fly::dispatch::nearest_gemm_tuning_by_output(tuning, p, Target::sm90a), nullptr);
  expect_pick(tuning, p, "small_16x64x128",
              "tuned: fastest measured at 16x8192x8192 (nearest tuned M; N beyond a factor 2) among 4 eligible of 6 "
              "sm90a variants");
}

// The decode bound is the call's m, not the entry's: a 64-row entry reaches a 32-row call, not a
// 33-row one (its small_16x64x128 is also the heuristic's pick: the reason tells them apart).
TEST(GemmTuned, DecodeBoundIsTheCallsRows) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 64, 8192, 8192, "small_16x64x128"}};
  expect_pick_starting(tuning, fake_problem(32, 1024, 512), "small_16x64x128",
                       "tuned: fastest measured at 64x8192x8192 (nearest tuned M; N beyond a factor 2)");
  const GemmProblem past = fake_problem(33, 1024, 512);
  ASSERT_NE(fly::dispatch::nearest_gemm_tuning_by_m(tuning, past, Target::sm90a), nullptr);  // m alone would reach
  expect_pick_starting(tuning, past, pick({}, past), "least padding");
}

// The output reach comes first even where an entry reached by m alone is nearer in log2 space, and a
// refused output-reach variant does not fall through to the third reach.
TEST(GemmTuned, OutputReachComesBeforeTheNearestM) {
  const GemmTuning tuning[] = {
      {Target::sm90a, fn8, bf16, 32, 1024, 8192, "mid_64x64x128"},    // m x n 1/16 of the call's; distance 4
      {Target::sm90a, fn8, bf16, 32, 8192, 512, "small_16x64x128"},  // m x n 1/2; distance 1 + 4 = 5
  };
  expect_pick_starting(tuning, fake_problem(32, 16384, 8192), "small_16x64x128",
                       "tuned: fastest measured at 32x8192x512 (nearest tuned M and M x N");
  // A 16-row call the output entry's 64-row tile pads 4x: refused, and the heuristic decides (not
  // the m-alone entry, whose small_16x64x128 is also the heuristic's pick: the reason tells them apart).
  const GemmTuning refused[] = {
      {Target::sm90a, fn8, bf16, 16, 1024, 8192, "small_16x64x128"},
      {Target::sm90a, fn8, bf16, 16, 8192, 512, "mid_64x64x128"},
  };
  expect_pick_starting(refused, fake_problem(16, 16384, 8192), "small_16x64x128",
                       "tuned variant mid_64x64x128 (nearest M and M x N, at 16x8192x512) pads this call to 4x");
}

// Reached by m alone, a tile that pads the call much more is refused too.
TEST(GemmTuned, DecodeReachRefusesATileThatPadsTheCallMuchMore) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"}};
  expect_pick(tuning, fake_problem(16, 1024, 512), "small_16x64x128",
              "tuned variant mid_64x64x128 (nearest M, at 16x8192x8192) pads this call to 4x the work, the least "
              "padded 1x; heuristic: least padding (M 16->16, N 1024->1024, K 512->512: 1x the work) among 4 eligible "
              "of 6 sm90a variants");
}

// Reached beyond a factor 2, a variant that pads the call over 1.25x the least padded one's work is refused.
TEST(GemmTuned, FartherReachRefusesATileThatPadsTheCallMuchMore) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 128, 8192, 8192, "big_128x128x128"}};
  // 80 x 4096 x 128 (m x n 3.2x below the entry's): big_128x128x128 pads M to 128 (1.6x the work);
  // small_16x64x128 tiles it exactly.
  expect_pick_starting(tuning, fake_problem(80, 4096, 128), "small_16x64x128",
                       "tuned variant big_128x128x128 (nearest M and M x N, at 128x8192x8192) pads this call "
                       "to 1.6x the work, the least padded 1x; heuristic: least padding (M 80->80");
  // 128 x 4000 x 128: 4096 / 4000 for big, 4032 / 4000 for the 64-wide tiles: within the slack.
  EXPECT_STREQ(pick(tuning, fake_problem(128, 4000, 128)), "big_128x128x128");
}

TEST(GemmTuned, MissingVariantFallsBackToTheHeuristicAndSaysSo) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "gone_16x64x512"}};
  expect_pick(tuning, fake_problem(16, 8192, 8192), "small_16x64x128",
              "tuned variant gone_16x64x512 is not compiled in (FLY_GEMM_FILTER, or renamed since it was measured?); "
              "heuristic: least padding (M 16->16, N 8192->8192, K 8192->8192: 1x the work) among 4 eligible of 6 "
              "sm90a variants");
}

TEST(GemmTuned, IneligibleVariantFallsBackToTheHeuristic) {
  const GemmTuning tuning[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"}};
  GemmProblem p = fake_problem(16, 8192, 8196);  // K, lda, ldb = 8196: 4-element alignment; mid needs 16
  ASSERT_EQ(fly::dispatch::gemm_alignment_elems(p), 4);
  expect_pick_starting(tuning, p, "any_64x64x64_a1",
                       "tuned variant mid_64x64x128 is not eligible: it needs lda, ldb, A and B aligned to "
                       "16 elements, this call's alignment is 4; heuristic: least padding (M 16->64");
  p = fake_problem(16, 8192, 8192);
  p.B = reinterpret_cast<const void*>(uintptr_t{0x20008});  // an 8-byte aligned pointer is enough to refuse
  expect_pick_starting(tuning, p, "any_64x64x64_a1", "tuned variant mid_64x64x128 is not eligible");
}

TEST(GemmTuned, VariantThatDoesNotComputeTheCallIsPassedOver) {
  // A table naming a variant of other dtypes, without a launch function, or of another target:
  // never run it.
  const GemmTuning other_d[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "f16_64x64x128"}};
  const GemmTuning no_launch[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "nolaunch_64x64x128"}};
  const GemmTuning other_target[] = {{Target::sm90a, fn8, bf16, 16, 8192, 8192, "gfx_64x64x128"}};
  expect_pick_starting(other_d, fake_problem(16, 8192, 8192), "small_16x64x128",
                       "tuned variant f16_64x64x128 does not compute e4m3fn x e4m3fn -> bf16 (it computes "
                       "e4m3fn -> f16); heuristic: ");
  expect_pick_starting(no_launch, fake_problem(16, 8192, 8192), "small_16x64x128",
                       "tuned variant nolaunch_64x64x128 does not compute e4m3fn x e4m3fn -> bf16 (it computes "
                       "e4m3fn -> bf16, without a launch function)");
  expect_pick_starting(other_target, fake_problem(16, 8192, 8192), "small_16x64x128",
                       "tuned variant gfx_64x64x128 is a gfx942 variant; heuristic: ");
}

TEST(GemmTuned, OtherDtypesAndTargetsAreIgnored) {
  const GemmTuning tuning[] = {
      {Target::sm90a, fn8, FLY_DTYPE_F16, 16, 8192, 8192, "mid_64x64x128"},     // other D
      {Target::sm90a, FLY_DTYPE_F32, bf16, 16, 8192, 8192, "mid_64x64x128"},    // other A/B
      {Target::gfx942, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"},             // other target
  };
  expect_pick_starting(tuning, fake_problem(16, 8192, 8192), "small_16x64x128", "least padding");
  EXPECT_EQ(fly::dispatch::nearest_gemm_tuning(tuning, fake_problem(16, 8192, 8192), Target::sm90a), nullptr);
  // The f16 entry applies to an f16 call: it names a bf16 variant, so the heuristic runs, saying so.
  EXPECT_EQ(fly::dispatch::nearest_gemm_tuning(tuning, fake_problem(16, 8192, 8192, fn8, FLY_DTYPE_F16), Target::sm90a),
            &tuning[0]);
  expect_pick_starting(tuning, fake_problem(16, 8192, 8192, fn8, FLY_DTYPE_F16), "f16_64x64x128",
                       "tuned variant mid_64x64x128 does not compute e4m3fn x e4m3fn -> f16");
}

// ---- through a handle: the decision cache keys on the exact shape ----------------------------------

fly::platform::DeviceInfo fake_h200() {
  fly::platform::DeviceInfo d;
  d.backend = FLY_BACKEND_CUDA;
  d.device = 0;
  d.name = "Fake H200";
  d.arch = "sm_90";
  d.target = Target::sm90a;
  d.has_kernels = true;
  return d;
}

fly_gemm_args args_for(int64_t m, int64_t n, int64_t k) {
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = m;
  args.n = n;
  args.k = k;
  args.a_type = args.b_type = fn8;
  args.c_type = args.d_type = bf16;
  args.a = reinterpret_cast<const void*>(uintptr_t{1} << 32);
  args.b = reinterpret_cast<const void*>(uintptr_t{2} << 32);
  args.d = reinterpret_cast<void*>(uintptr_t{4} << 32);
  args.lda = args.ldb = k;
  args.ldd = n;
  return args;
}

std::string explain(fly_handle_t h, int64_t m, int64_t n, int64_t k) {
  fly_gemm_args args = args_for(m, n, k);
  char line[FLY_GEMM_EXPLAIN_BYTES];
  EXPECT_EQ(fly_gemm_explain(h, &args, line, sizeof line), FLY_STATUS_SUCCESS) << fly_last_error();
  return line;
}

TEST(GemmTuned, HandleCachesEachShapesTunedChoice) {
  const GemmTuning tuning[] = {
      {Target::sm90a, fn8, bf16, 16, 8192, 8192, "mid_64x64x128"},
      {Target::sm90a, fn8, bf16, 32, 8192, 8192, "any_64x64x64_a1"},
  };
  fly_handle_t h = fly::dispatch::make_handle(fake_h200(), k_variants, tuning);
  // 20 and 24 rows fall on either side of the boundary between the two entries: a cache keyed
  // coarser than the exact shape would answer both alike.
  EXPECT_TRUE(starts_with(explain(h, 20, 8192, 8192), "mid_64x64x128: tuned: fastest measured at 16x8192x8192"));
  EXPECT_TRUE(starts_with(explain(h, 24, 8192, 8192), "any_64x64x64_a1: tuned: fastest measured at 32x8192x8192"));
  EXPECT_TRUE(starts_with(explain(h, 20, 8192, 8192), "mid_64x64x128: tuned"));    // from the cache
  EXPECT_TRUE(starts_with(explain(h, 65, 8192, 8192), "small_16x64x128: least padding"));  // beyond 2 x 32
  // The alignment class is part of the key: K = 8208 is 16-aligned (mid runs), 8196 only 4-aligned.
  EXPECT_TRUE(starts_with(explain(h, 16, 8192, 8208), "mid_64x64x128: tuned"));
  EXPECT_TRUE(starts_with(explain(h, 16, 8192, 8196), "any_64x64x64_a1: tuned variant mid_64x64x128 is not eligible"));
  EXPECT_EQ(h->cached_decisions(), 5u);
  fly_destroy(h);
  // Handles made for tests without tables take the heuristic; fly_create's consult the library's
  // tables and cost model.
  fly_handle_t plain = fly::dispatch::make_handle(fake_h200(), k_variants);
  EXPECT_TRUE(starts_with(explain(plain, 20, 8192, 8192), "small_16x64x128: least padding"));
  fly_destroy(plain);
  fly_handle_t created = nullptr;
  ASSERT_EQ(fly_create_host(&created), FLY_STATUS_SUCCESS);
  EXPECT_EQ(created->tuning.data(), fly::dispatch::gemm_tuning().data());
  EXPECT_EQ(created->tuning.size(), fly::dispatch::gemm_tuning().size());
  EXPECT_EQ(created->model.data(), fly::dispatch::gemm_cost_model().data());
  EXPECT_EQ(created->model.size(), fly::dispatch::gemm_cost_model().size());
  fly_destroy(created);
}

TEST(GemmTuned, LongestReasonFitsTheExplainBuffer) {
  // Realistic names, the longest reason (a tuned variant refused for alignment, then the heuristic).
  const GemmVariant long_names[] = {
      {"gemm_sm90a_e4m3fn_bf16_16x64x512_w1x4_cpasync128_s4", Target::sm90a, fn8, bf16, 16, 64, 512, 16, ok_launch},
      {"gemm_sm90a_e4m3fn_bf16_128x128x128_w2x4_cpasync32_s1", Target::sm90a, fn8, bf16, 128, 128, 128, 1, ok_launch},
      {"gemm_sm90a_e4m3fn_bf16_128x256x128_w2x4_cpasync32_s1", Target::sm90a, fn8, bf16, 128, 256, 128, 1, ok_launch},
  };
  const GemmTuning tuning[] = {
      {Target::sm90a, fn8, bf16, 16, 8192, 8192, "gemm_sm90a_e4m3fn_bf16_16x64x512_w1x4_cpasync128_s4"}};
  fly_handle_t h = fly::dispatch::make_handle(fake_h200(), long_names, tuning);
  std::string const line = explain(h, 17, 12345, 12343);
  EXPECT_TRUE(starts_with(line, "gemm_sm90a_e4m3fn_bf16_128x128x128_w2x4_cpasync32_s1: tuned variant")) << line;
  EXPECT_LT(line.size() + 40, size_t{FLY_GEMM_EXPLAIN_BYTES}) << line;  // with room for longer names
  fly_destroy(h);
  // The other long one: reached by m and m x n, refused for its padding.
  const GemmTuning far[] = {
      {Target::sm90a, fn8, bf16, 128, 8192, 8192, "gemm_sm90a_e4m3fn_bf16_128x256x128_w2x4_cpasync32_s1"}};
  h = fly::dispatch::make_handle(fake_h200(), long_names, far);
  std::string const padded = explain(h, 80, 4096, 2048);
  EXPECT_TRUE(starts_with(padded, "gemm_sm90a_e4m3fn_bf16_16x64x512_w1x4_cpasync128_s4: tuned variant")) << padded;
  EXPECT_NE(padded.find("(nearest M and M x N, at 128x8192x8192) pads this call"), std::string::npos) << padded;
  EXPECT_LT(padded.size() + 40, size_t{FLY_GEMM_EXPLAIN_BYTES}) << padded;
  fly_destroy(h);
}

// ---- the committed tables (src/dispatch/tuning/*.tsv, generated at configure time) ----------------

TEST(GemmTuningTable, CommittedTablesAreWellFormed) {
  std::set<std::tuple<int, int, int, int64_t, int64_t, int64_t>> seen;
  for (const GemmTuning& e : fly::dispatch::gemm_tuning()) {
    ASSERT_NE(e.variant, nullptr);
    std::string const name = e.variant;
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
              std::string::npos)
        << name;
    EXPECT_NE(e.target, Target::host) << name;
    fly_dtype_t const fp8 = e.target == Target::gfx942 ? FLY_DTYPE_E4M3FNUZ : FLY_DTYPE_E4M3FN;
    EXPECT_TRUE(e.ab_type == fp8 || e.ab_type == FLY_DTYPE_F32) << name << ": " << fly_dtype_string(e.ab_type);
    EXPECT_TRUE(e.d_type == FLY_DTYPE_BF16 || e.d_type == FLY_DTYPE_F16 || e.d_type == FLY_DTYPE_F32) << name;
    EXPECT_GE(e.m, 1);
    EXPECT_GE(e.n, 1);
    EXPECT_GE(e.k, 1);
    EXPECT_TRUE(seen.emplace(int(e.target), int(e.ab_type), int(e.d_type), e.m, e.n, e.k).second)
        << "two entries for one problem: " << name;
  }
}

TEST(GemmTuningTable, CommittedEntriesNameCompiledVariants) {
  // Only meaningful where a target's whole grid is compiled (a GPU preset without FLY_GEMM_FILTER):
  // an entry naming no variant means the grid was renamed or shrunk since the table was measured.
  if (FLY_TEST_FULL_GEMM_GRID == 0) GTEST_SKIP() << "FLY_GEMM_FILTER narrows the grid";
  auto const variants = fly::dispatch::gemm_variants();
  int checked = 0;
  for (const GemmTuning& e : fly::dispatch::gemm_tuning()) {
    bool target_compiled = false;
    const GemmVariant* named = nullptr;
    for (const GemmVariant& v : variants) {
      target_compiled = target_compiled || v.target == e.target;
      if (std::strcmp(v.name, e.variant) == 0) named = &v;
    }
    if (!target_compiled) continue;  // e.g. the host build: the tables are data without kernels
    ASSERT_NE(named, nullptr) << e.variant << " (" << fly::dispatch::target_name(e.target)
                              << ") is not a compiled variant: re-run fly_bench --tune";
    EXPECT_EQ(named->ab_type, e.ab_type) << e.variant;
    EXPECT_EQ(named->d_type, e.d_type) << e.variant;
    ++checked;
  }
  // a build with no GPU target (the host build) has tables but no kernels to check them against
  if (checked == 0) GTEST_SKIP() << "no target of the committed tuning tables is compiled in this build";
}

}  // namespace
