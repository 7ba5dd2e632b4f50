// The dispatcher's split plan (pa_decode_select.cpp) on made-up variants: the plan must cover the
// context exactly once, stay within the workspace the library sized, fill the machine when one
// (sequence, kv head) pair is all there is, and leave large batches unsplit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "pa_decode/pa_decode_launch_common.hpp"
#include "pa_decode/pa_decode_registry.hpp"
#include "pa_decode/pa_decode_tuning.hpp"

namespace {

using fly::dispatch::PaDecodePlan;
using fly::dispatch::PaDecodeProblem;
using fly::dispatch::PaDecodeTuning;
using fly::dispatch::PaDecodeVariant;
using fly::dispatch::Target;

fly_status_t no_launch(const PaDecodeProblem&, const PaDecodePlan&, void*) { return FLY_STATUS_INTERNAL_ERROR; }
int three_per_sm() { return 3; }

PaDecodeVariant variant(int tokens_per_step) {
  return {"plan_test", Target::sm90a, FLY_DTYPE_BF16, 128, false, 16, tokens_per_step, 4, 2, false, false, false, no_launch, three_per_sm, 0, false};
}

PaDecodeProblem problem(int64_t seqs, int64_t max_seq_len, int64_t hq = 32, int64_t hkv = 8, int64_t q_len = 1) {
  PaDecodeProblem p{};
  p.num_seqs = seqs;
  p.q_len = q_len;
  p.num_q_heads = hq;
  p.num_kv_heads = hkv;
  p.head_dim = 128;
  p.block_size = 16;
  p.max_seq_len = max_seq_len;
  p.q_type = p.kv_type = FLY_DTYPE_BF16;
  p.layout = FLY_KV_LAYOUT_NHD;
  return p;
}

PaDecodePlan plan_for(const PaDecodeVariant& v, const PaDecodeProblem& p, int sms, std::string* why = nullptr) {
  PaDecodePlan plan;
  std::string line;
  EXPECT_EQ(fly::dispatch::select_pa_decode_variant(std::span(&v, 1), p, Target::sm90a, sms, &plan, &line), &v) << line;
  if (why != nullptr) *why = line;
  return plan;
}

}  // namespace

TEST(PaDecodePlan, CoversTheContextOnceWithinTheWorkspace) {
  const PaDecodeVariant v = variant(64);
  for (int64_t seqs : {1, 3, 8, 64, 256, 1000})
    for (int64_t len : {1, 63, 64, 65, 257, 1024, 4096, 32768, 100000})
      for (int sms : {1, 16, 132}) {
        const PaDecodeProblem p = problem(seqs, len);
        const PaDecodePlan plan = plan_for(v, p, sms);
        SCOPED_TRACE("seqs " + std::to_string(seqs) + " len " + std::to_string(len) + " sms " + std::to_string(sms));
        ASSERT_GE(plan.splits, 1);
        ASSERT_LE(plan.splits, fly::dispatch::pa_decode_max_splits(len));
        EXPECT_EQ(plan.split_tokens % 64, 0);
        // every token in exactly one split: the last split starts inside the context
        EXPECT_GE(plan.split_tokens * plan.splits, len);
        EXPECT_LT(plan.split_tokens * (plan.splits - 1), len);
        if (plan.splits > 1) {
          // the partials, then a counter per (sequence, kv head, row chunk), all inside the workspace
          const int64_t counters = seqs * p.num_kv_heads * plan.row_chunks;
          const int64_t end = fly::dispatch::pa_decode_split_counters_offset(p, plan) + 8 * counters;
          EXPECT_EQ(fly::dispatch::pa_decode_split_counters_offset(p, plan) % 8, 0);
          EXPECT_LE(size_t(end), fly::dispatch::pa_decode_workspace_bytes(p));
        }
      }
}

TEST(PaDecodePlan, OneSequenceFillsEverySlot) {
  // B = 1, 8 kv heads, 32768 tokens on 132 SMs x 3 blocks: the splits fill most of the 396 slots
  // in one wave rather than 264 or a second wave
  std::string why;
  const PaDecodePlan plan = plan_for(variant(64), problem(1, 32768), 132, &why);
  const int64_t blocks = 8 * int64_t(plan.splits);
  EXPECT_LE(blocks, 132 * 3) << why;
  EXPECT_GE(blocks, 132 * 3 * 3 / 4) << why;
  EXPECT_NE(why.find("3 resident blocks"), std::string::npos) << why;
}

TEST(PaDecodePlan, LargeBatchesAvoidAShortLastWave) {
  // 512 (sequence, kv head) blocks of 64 steps on 396 slots: one split leaves a second wave of 116
  // blocks as long as the first; three splits make four even waves
  const PaDecodePlan split = plan_for(variant(64), problem(64, 4096), 132);
  EXPECT_GT(split.splits, 1);
  // 2048 short blocks: splitting further only adds partials
  const PaDecodePlan whole = plan_for(variant(64), problem(256, 1024), 132);
  EXPECT_EQ(whole.splits, 1);
  EXPECT_EQ(whole.split_tokens, 1024);
}

TEST(PaDecodePlan, QueryRowsBeyondOneBlockAddRowChunks) {
  // group 32 x q_len 4 = 128 query rows per kv head: 8 chunks of 16
  const PaDecodePlan plan = plan_for(variant(64), problem(2, 2048, 64, 2, 4), 132);
  EXPECT_EQ(plan.row_chunks, 8);
}

TEST(PaDecodePlan, PerWarpPipelinesWinOverDeeperBlockSteps) {
  // both eligible: the per-warp variant is chosen although the block-step one is deeper, and the
  // split plan counts its block step (one 16-token group per warp)
  PaDecodeVariant block_step = variant(64);
  block_step.stages = 4;  // 256 tokens deep
  PaDecodeVariant per_warp = variant(64);
  per_warp.name = "plan_test_per_warp";
  per_warp.stages = 3;  // 192 tokens deep
  per_warp.per_warp = true;
  const PaDecodeVariant both[] = {block_step, per_warp};
  PaDecodePlan plan;
  std::string why;
  const PaDecodeVariant* chosen = fly::dispatch::select_pa_decode_variant(both, problem(8, 8192), Target::sm90a, 132, &plan, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_STREQ(chosen->name, "plan_test_per_warp");
  EXPECT_EQ(plan.split_tokens % 64, 0);
}

TEST(PaDecodePlan, TheSharedRingIsChosenOnlyWhenNamedOrAlone) {
  // the ring cell lost to the per-warp feeds on most rows (docs/pa-decode.md, "Shared ring"): it
  // ranks below them however deep its ring, yet serves a problem nothing else is compiled for, and
  // runs where a tuning table names it (the shapes it won; test_pa_decode_tuning.cpp has the rule)
  PaDecodeVariant per_warp = variant(64);
  per_warp.name = "plan_test_per_warp";
  per_warp.stages = 3;
  per_warp.per_warp = true;
  PaDecodeVariant ring = per_warp;
  ring.name = "plan_test_ring";
  ring.stages = 24;
  ring.ring = true;
  const PaDecodeVariant both[] = {ring, per_warp};
  PaDecodePlan plan;
  std::string why;
  const PaDecodeVariant* chosen = fly::dispatch::select_pa_decode_variant(both, problem(8, 8192), Target::sm90a, 132, &plan, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_STREQ(chosen->name, "plan_test_per_warp");
  const PaDecodeVariant alone[] = {ring};
  chosen = fly::dispatch::select_pa_decode_variant(alone, problem(8, 8192), Target::sm90a, 132, &plan, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_STREQ(chosen->name, "plan_test_ring");
  // named by a tuning entry at this shape (8 seqs x 8192 tokens, 8 kv heads x 4 query rows)
  const PaDecodeTuning tuning[] = {
      {Target::sm90a, FLY_DTYPE_BF16, FLY_DTYPE_BF16, 128, 16, FLY_KV_LAYOUT_NHD, 8, 4, 8, 8192, "plan_test_ring"}};
  chosen = fly::dispatch::select_pa_decode_variant(both, tuning, problem(8, 8192), Target::sm90a, 132, &plan, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_STREQ(chosen->name, "plan_test_ring");
  EXPECT_EQ(why.rfind("tuned: fastest measured at 8 seqs x 8192 tokens, 8 kv heads x 4 rows (this shape)", 0), 0u) << why;
  // ... and only there: a shape beyond a factor 2 of the entry keeps the ranking's per-warp pick
  chosen = fly::dispatch::select_pa_decode_variant(both, tuning, problem(64, 8192), Target::sm90a, 132, &plan, &why);
  ASSERT_NE(chosen, nullptr) << why;
  EXPECT_STREQ(chosen->name, "plan_test_per_warp");
}

TEST(PaDecodePlan, PersistentVariantsLaunchAtMostOneWaveOfBlocks) {
  // a persistent variant's warps are the plan's blocks (132 SMs x 3 blocks x 4 warps = 1584 slots):
  // the grid never exceeds one wave of blocks, covers every unit with its warps, and its splits
  // are planned over the warps (one 16-token group per step)
  PaDecodeVariant v = variant(16);
  v.per_warp = v.persistent = true;
  for (int64_t seqs : {1, 8, 64, 256})
    for (int64_t len : {1, 1024, 4096, 32768}) {
      const PaDecodeProblem p = problem(seqs, len);
      std::string why;
      const PaDecodePlan plan = plan_for(v, p, 132, &why);
      SCOPED_TRACE(why);
      const int64_t units = seqs * 8 * plan.row_chunks * plan.splits;
      EXPECT_GE(plan.grid_blocks, 1);
      EXPECT_LE(plan.grid_blocks, 132 * 3);
      EXPECT_GE(plan.grid_blocks * v.warps, std::min<int64_t>(units, 132 * 3 * v.warps));
      EXPECT_LE((plan.grid_blocks - 1) * v.warps, units);  // no block without a unit
      EXPECT_EQ(plan.split_tokens % 16, 0);
      EXPECT_GE(plan.split_tokens * plan.splits, len);
      EXPECT_NE(why.find("persistent blocks of 4 warps"), std::string::npos);
    }
  // a non-persistent variant launches a block per unit
  EXPECT_EQ(plan_for(variant(64), problem(8, 8192), 132).grid_blocks, 0);
}

TEST(PaDecodePlan, PersistentVariantsRankFirstWhereTheBatchGivesMostWarpsAUnit) {
  // 132 SMs x 3 blocks x 4 warps = 1584 warps: (sequence, kv head) units of at least 3/4 of that
  // (the measured rule, docs/pa-decode.md "Persistent warps") take the persistent variant; fewer
  // take blocks of warps, which split the contexts among more warps
  PaDecodeVariant per_warp = variant(64);
  per_warp.name = "plan_test_per_warp";
  per_warp.per_warp = true;
  PaDecodeVariant persistent = variant(16);
  persistent.name = "plan_test_persistent";
  persistent.per_warp = persistent.persistent = true;
  const PaDecodeVariant both[] = {per_warp, persistent};
  const struct {
    int64_t seqs, len;
    const char* pick;
  } cases[] = {{256, 1024, "plan_test_persistent"}, {149, 2048, "plan_test_persistent"},
               {148, 2048, "plan_test_per_warp"},   {64, 4096, "plan_test_per_warp"},
               {1, 32768, "plan_test_per_warp"}};
  for (const auto& c : cases) {
    PaDecodePlan plan;
    std::string why;
    const PaDecodeVariant* chosen =
        fly::dispatch::select_pa_decode_variant(both, problem(c.seqs, c.len), Target::sm90a, 132, &plan, &why);
    ASSERT_NE(chosen, nullptr) << why;
    EXPECT_STREQ(chosen->name, c.pick) << c.seqs << " x " << c.len << ": " << why;
  }
}

TEST(PaDecodePlan, EightRowVariantsServeGroupsOfAtMostEightRows) {
  // fewest row chunks first, then fewest rows computed: an 8-row (n8) variant where a kv head's
  // group x q_len fits it (GQA 32/8, 64/8, group 5), the 16-row one where it would take more
  // chunks (q_len 4, group 12, group 8 x q_len 3)
  PaDecodeVariant rows16 = variant(64);
  rows16.name = "plan_test_rows16";
  rows16.per_warp = true;
  PaDecodeVariant rows8 = rows16;
  rows8.name = "plan_test_rows8";
  rows8.rows_per_block = 8;
  const struct {
    int64_t hq, hkv, q_len;
    const char* pick;
    int chunks;
  } cases[] = {{32, 8, 1, "plan_test_rows8", 1},  {64, 8, 1, "plan_test_rows8", 1},   {40, 8, 1, "plan_test_rows8", 1},
               {8, 8, 1, "plan_test_rows8", 1},   {32, 8, 4, "plan_test_rows16", 1}, {96, 8, 1, "plan_test_rows16", 1},
               {64, 8, 3, "plan_test_rows16", 2}, {64, 8, 4, "plan_test_rows16", 2}};
  for (const PaDecodeVariant* first : {&rows16, &rows8}) {  // the order of the registry does not matter
    const PaDecodeVariant both[] = {*first, first == &rows16 ? rows8 : rows16};
    for (const auto& c : cases) {
      PaDecodePlan plan;
      std::string why;
      const PaDecodeVariant* chosen = fly::dispatch::select_pa_decode_variant(
          both, problem(8, 8192, c.hq, c.hkv, c.q_len), Target::sm90a, 132, &plan, &why);
      ASSERT_NE(chosen, nullptr) << why;
      EXPECT_STREQ(chosen->name, c.pick) << c.hq << "/" << c.hkv << " q_len " << c.q_len << ": " << why;
      EXPECT_EQ(plan.row_chunks, c.chunks) << c.hq << "/" << c.hkv << " q_len " << c.q_len;
    }
  }
}

// Sizes past the kernels' 32-bit token, block and row arithmetic are refused before any planning
// (NOT_SUPPORTED through fly_pa_decode, its explain line alike), and the largest accepted context
// plans splits whose last token stays below 2^31.
TEST(PaDecodePlan, SizesPastTheKernels32BitArithmeticAreRefusedBeforePlanning) {
  const PaDecodeVariant v = variant(64);
  auto refusal = [&](const PaDecodeProblem& p) {
    PaDecodePlan plan;
    std::string why;
    EXPECT_EQ(fly::dispatch::select_pa_decode_variant(std::span(&v, 1), p, Target::sm90a, 132, &plan, &why), nullptr);
    return why;
  };
  const int64_t longest = INT32_MAX - (int64_t{1} << 16);
  EXPECT_NE(refusal(problem(1, longest + 1)).find("max_seq_len (2147418112) is above the kernels' 2^31 - 2^16"),
            std::string::npos);
  EXPECT_NE(refusal(problem(1, INT64_MAX)).find("max_seq_len"), std::string::npos);
  PaDecodeProblem many_blocks = problem(1, 4096);
  many_blocks.num_blocks = int64_t{1} << 31;
  EXPECT_NE(refusal(many_blocks).find("num_blocks (2147483648)"), std::string::npos);
  EXPECT_NE(refusal(problem(int64_t{1} << 26, 1024)).find("query rows"), std::string::npos);  // 2^26 x 32 rows
  for (int64_t step : {16, 64, 96}) {
    SCOPED_TRACE("step " + std::to_string(step));
    const PaDecodeVariant s = variant(int(step));
    const PaDecodePlan plan = plan_for(s, problem(1, longest), 132);
    EXPECT_GE(plan.split_tokens * plan.splits, longest);
    EXPECT_LE(plan.split_tokens * plan.splits + 64 * step, int64_t{INT32_MAX}) << "room for the lookups ahead";
  }
  // the workspace's size asks nothing of the kernels and must not overflow either
  EXPECT_EQ(fly::dispatch::pa_decode_max_splits(INT64_MAX), 64);
  EXPECT_GT(fly::dispatch::pa_decode_workspace_bytes(problem(1, INT64_MAX)), 0u);
}

// A window at least as long as the longest visible context (max_seq_len, or the block table's
// tokens when fewer) hides nothing: the kernels get it as off, so their 32-bit window arithmetic
// never sees a larger value (an int64 window of 2^32 + 5 must not become 5).
TEST(PaDecodePlan, AWindowAsLongAsTheContextReachesTheKernelsAsOff) {
  PaDecodeProblem p = problem(1, 1000);
  p.max_blocks_per_seq = 100;  // 1600 table tokens: max_seq_len bounds the context
  PaDecodePlan plan;
  plan.splits = 1;
  plan.row_chunks = 1;
  plan.split_tokens = 1024;
  const std::pair<int64_t, int32_t> cases[] = {{0, 0},          {5, 5}, {999, 999}, {1000, 0}, {INT32_MAX, 0},
                                               {(int64_t{1} << 32) + 5, 0}, {INT64_MAX, 0}};
  for (const auto& [window, seen] : cases) {
    p.sliding_window = window;
    EXPECT_EQ(fly::dispatch::pa_decode_params(p, plan).window, seen) << "window " << window;
  }
  p.max_blocks_per_seq = 10;  // 160 table tokens now bound it
  p.sliding_window = 500;
  EXPECT_EQ(fly::dispatch::pa_decode_params(p, plan).window, 0);
  p.sliding_window = 159;
  EXPECT_EQ(fly::dispatch::pa_decode_params(p, plan).window, 159);
}
