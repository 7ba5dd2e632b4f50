// Paged-decode tuning tables: which entry applies (target, dtypes, head_dim, block_size, layout,
// factor 2 in each work size, nearest in log2 space), when its variant runs and when the ranking
// takes over (with the reason), through a handle's fly_pa_decode_explain, and the committed tables
// in src/dispatch/tuning.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "fly/fly.h"
#include "handle.hpp"
#include "pa_decode/pa_decode_registry.hpp"
#include "pa_decode/pa_decode_tuning.hpp"
#include "platform.hpp"

namespace {

using fly::dispatch::PaDecodePlan;
using fly::dispatch::PaDecodeProblem;
using fly::dispatch::PaDecodeTuning;
using fly::dispatch::PaDecodeVariant;
using fly::dispatch::Target;

constexpr fly_dtype_t fp8 = FLY_DTYPE_E4M3FN;
constexpr fly_dtype_t bf16 = FLY_DTYPE_BF16;
constexpr fly_kv_layout_t nhd = FLY_KV_LAYOUT_NHD;

fly_status_t ok_launch(const PaDecodeProblem&, const PaDecodePlan&, void*) { return FLY_STATUS_SUCCESS; }
int one_per_sm() { return 1; }
int three_per_sm() { return 3; }

// name, target, kv class, head_dim, V dim-major, rows per block, tokens per step, warps, stages,
// per_warp, tma, ring, launch, blocks_per_sm, load_bits. For an fp8 d128 NHD call the ranking picks
// fp8_tma (per-warp, TMA-fed): a tuned choice is visible as another name.
const PaDecodeVariant k_variants[] = {
    {"fp8_ring", Target::sm90a, fp8, 128, false, 16, 16, 6, 24, true, true, true, ok_launch, one_per_sm, 0, false},
    {"fp8_tma", Target::sm90a, fp8, 128, false, 16, 16, 4, 4, true, true, false, ok_launch, three_per_sm, 0, false},
    {"fp8_cpasync", Target::sm90a, fp8, 128, false, 16, 16, 4, 4, true, false, false, ok_launch, three_per_sm, 0, false},
    {"bf16_cpasync", Target::sm90a, bf16, 128, false, 16, 16, 4, 3, true, false, false, ok_launch, three_per_sm, 0, false},
    {"fp8_d64", Target::sm90a, fp8, 64, false, 16, 64, 4, 4, false, false, false, ok_launch, three_per_sm, 0, false},
    {"fp8_vllm", Target::sm90a, fp8, 128, true, 16, 16, 4, 4, true, false, false, ok_launch, three_per_sm, 0, false},
    {"fp8_nolaunch", Target::sm90a, fp8, 128, false, 16, 16, 4, 8, true, false, false, nullptr, three_per_sm, 0, false},
    {"gfx_fp8", Target::gfx942, fp8, 128, false, 16, 64, 4, 1, false, false, false, ok_launch, three_per_sm, 128, false},
};
// 7 sm90a variants; for an fp8 d128 NHD call fp8_ring, fp8_tma and fp8_cpasync are eligible.

// seqs sequences of ctx tokens, hq / hkv heads, q_len new tokens: a validated-looking call over
// fake, 16-byte aligned device addresses (never dereferenced), blocks of 16, NHD, bf16 queries.
PaDecodeProblem problem(int64_t seqs, int64_t ctx, int64_t hq = 32, int64_t hkv = 8, int64_t q_len = 1,
                        fly_dtype_t kv = fp8) {
  PaDecodeProblem p{};
  p.num_seqs = seqs;
  p.q_len = q_len;
  p.num_q_heads = hq;
  p.num_kv_heads = hkv;
  p.head_dim = 128;
  p.q_type = bf16;
  p.kv_type = kv;
  p.layout = nhd;
  p.block_size = 16;
  p.max_seq_len = ctx;
  p.max_blocks_per_seq = p.block_table_stride = (ctx + 15) / 16;
  p.num_blocks = seqs * p.max_blocks_per_seq;
  p.k_block_stride = p.v_block_stride = 16 * hkv * 128;
  p.k_cache = reinterpret_cast<const void*>(uintptr_t{1} << 32);
  p.v_cache = reinterpret_cast<const void*>(uintptr_t{3} << 32);
  return p;
}

// An fp8 / bf16 entry for the problem() defaults at seqs x ctx with `rows` query rows per kv head.
PaDecodeTuning entry(int64_t seqs, int64_t ctx, int64_t rows, const char* variant, int64_t hkv = 8) {
  return {Target::sm90a, fp8, bf16, 128, 16, nhd, seqs, rows, hkv, ctx, variant};
}

struct Pick {
  std::string name, why;
  PaDecodePlan plan;
};

Pick pick(std::span<const PaDecodeTuning> tuning, const PaDecodeProblem& p) {
  Pick r;
  const PaDecodeVariant* v = fly::dispatch::select_pa_decode_variant(k_variants, tuning, p, Target::sm90a, 132, &r.plan, &r.why);
  r.name = v != nullptr ? v->name : "none";
  return r;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(PaDecodeTuned, ExactEntryIsChosen) {
  const PaDecodeTuning tuning[] = {entry(64, 4096, 4, "fp8_ring")};
  const Pick ranked = pick({}, problem(64, 4096));
  EXPECT_EQ(ranked.name, "fp8_tma");  // the ranking alone
  EXPECT_TRUE(starts_with(ranked.why, "512 blocks of (sequence, kv head, 16 query rows)")) << ranked.why;
  const Pick tuned = pick(tuning, problem(64, 4096));
  EXPECT_EQ(tuned.name, "fp8_ring");
  EXPECT_TRUE(starts_with(tuned.why, "tuned: fastest measured at 64 seqs x 4096 tokens, 8 kv heads x 4 rows (this shape) "
                                     "among 3 eligible of 7 sm90a variants; 512 blocks of (sequence, kv head, 16 query "
                                     "rows) x "))
      << tuned.why;
  // The split plan is the tuned variant's own: one resident ring block per SM, not three.
  EXPECT_TRUE(contains(tuned.why, "for 132 SMs x 1 resident blocks")) << tuned.why;
  EXPECT_TRUE(contains(ranked.why, "for 132 SMs x 3 resident blocks")) << ranked.why;
  EXPECT_GE(tuned.plan.splits, 1);
  EXPECT_EQ(tuned.plan.row_chunks, 1);
}

TEST(PaDecodeTuned, NearestEntryAmongSeveral) {
  const PaDecodeTuning tuning[] = {
      entry(64, 4096, 4, "fp8_ring"),
      entry(128, 4096, 4, "fp8_cpasync"),
      entry(64, 8192, 4, "fp8_tma"),
      entry(16, 16384, 8, "fp8_ring"),
      entry(16, 16384, 4, "fp8_cpasync"),
  };
  // 80 seqs: log2(80/64) = 0.32 beats log2(128/80) = 0.68.
  Pick p = pick(tuning, problem(80, 4096));
  EXPECT_EQ(p.name, "fp8_ring");
  EXPECT_TRUE(starts_with(p.why, "tuned: fastest measured at 64 seqs x 4096 tokens, 8 kv heads x 4 rows (nearest tuned "
                                 "shape)"))
      << p.why;
  // 100 seqs: log2(128/100) = 0.36 beats log2(100/64) = 0.64.
  EXPECT_EQ(pick(tuning, problem(100, 4096)).name, "fp8_cpasync");
  // ctx 6144: 0.42 from 8192 beats 0.58 from 4096.
  EXPECT_EQ(pick(tuning, problem(64, 6144)).name, "fp8_tma");
  EXPECT_EQ(pick(tuning, problem(64, 5000)).name, "fp8_ring");
  // rows decide between the two 16 x 16384 entries: 64 / 8 heads = 8 rows, 32 / 8 = 4; 48 / 8 = 6
  // rows is nearer 8 (0.42) than 4 (0.58); q_len counts: 32 / 8 x 2 tokens = 8 rows.
  EXPECT_EQ(pick(tuning, problem(16, 16384, 64)).name, "fp8_ring");
  EXPECT_EQ(pick(tuning, problem(16, 16384, 32)).name, "fp8_cpasync");
  EXPECT_EQ(pick(tuning, problem(16, 16384, 48)).name, "fp8_ring");
  EXPECT_EQ(pick(tuning, problem(16, 16384, 32, 8, 2)).name, "fp8_ring");
  // A tie keeps the first listed: ctx 8192 is exactly 1 from both 4096 and 16384.
  const PaDecodeTuning tie[] = {entry(64, 4096, 4, "fp8_ring"), entry(64, 16384, 4, "fp8_cpasync")};
  const PaDecodeTuning tie_reversed[] = {tie[1], tie[0]};
  EXPECT_EQ(pick(tie, problem(64, 8192)).name, "fp8_ring");
  EXPECT_EQ(pick(tie_reversed, problem(64, 8192)).name, "fp8_cpasync");
  const PaDecodeTuning far = entry(32, 8192, 8, "x", 4);
  EXPECT_DOUBLE_EQ(fly::dispatch::pa_decode_tuning_distance(far, problem(64, 4096, 32, 8)), 1.0 + 1.0 + 1.0 + 1.0);
  EXPECT_DOUBLE_EQ(fly::dispatch::pa_decode_tuning_distance(far, problem(32, 8192, 32, 4)), 0.0);
}

TEST(PaDecodeTuned, EntryBeyondFactorTwoIsIgnored) {
  const PaDecodeTuning tuning[] = {entry(64, 4096, 4, "fp8_ring")};
  // The bounds are inclusive in each of the four sizes ...
  for (const PaDecodeProblem& p : {problem(32, 4096), problem(128, 4096), problem(64, 2048), problem(64, 8192),
                                   problem(64, 4096, 16), problem(64, 4096, 64), problem(64, 4096, 16, 4),
                                   problem(64, 4096, 64, 16), problem(128, 8192, 64, 16)}) {
    EXPECT_EQ(pick(tuning, p).name, "fp8_ring") << p.num_seqs << " x " << p.max_seq_len << " " << p.num_q_heads << "/"
                                                << p.num_kv_heads;
  }
  // ... one past them in any is not: the ranking, and no word about tuning.
  for (const PaDecodeProblem& p : {problem(31, 4096), problem(129, 4096), problem(64, 2047), problem(64, 8193),
                                   problem(64, 4096, 6, 2), problem(64, 4096, 72, 8), problem(64, 4096, 8, 2),
                                   problem(64, 4096, 34, 17)}) {
    const Pick r = pick(tuning, p);
    EXPECT_EQ(r.name, "fp8_tma") << p.num_seqs << " x " << p.max_seq_len << " " << p.num_q_heads << "/" << p.num_kv_heads;
    EXPECT_FALSE(contains(r.why, "tuned")) << r.why;
  }
  EXPECT_EQ(fly::dispatch::nearest_pa_decode_tuning(tuning, problem(64, 8193), Target::sm90a), nullptr);
  EXPECT_EQ(fly::dispatch::nearest_pa_decode_tuning(tuning, problem(64, 8192), Target::sm90a), &tuning[0]);
}

TEST(PaDecodeTuned, EveryOtherKeyMustMatch) {
  PaDecodeTuning q_f16 = entry(64, 4096, 4, "fp8_ring");
  q_f16.q_type = FLY_DTYPE_F16;
  PaDecodeTuning fnuz = entry(64, 4096, 4, "fp8_ring");
  fnuz.kv_type = FLY_DTYPE_E4M3FNUZ;
  PaDecodeTuning d64 = entry(64, 4096, 4, "fp8_ring");
  d64.head_dim = 64;
  PaDecodeTuning block32 = entry(64, 4096, 4, "fp8_ring");
  block32.block_size = 32;
  PaDecodeTuning hnd = entry(64, 4096, 4, "fp8_ring");
  hnd.layout = FLY_KV_LAYOUT_HND;
  PaDecodeTuning gfx = entry(64, 4096, 4, "fp8_ring");
  gfx.target = Target::gfx942;
  const PaDecodeTuning others[] = {q_f16, fnuz, d64, block32, hnd, gfx};
  EXPECT_EQ(fly::dispatch::nearest_pa_decode_tuning(others, problem(64, 4096), Target::sm90a), nullptr);
  const Pick r = pick(others, problem(64, 4096));
  EXPECT_EQ(r.name, "fp8_tma");
  EXPECT_FALSE(contains(r.why, "tuned")) << r.why;
  // Each applies to its own kind of call: an e4m3fnuz cache, an HND cache, a gfx942 device.
  PaDecodeProblem p = problem(64, 4096);
  p.kv_type = FLY_DTYPE_E4M3FNUZ;
  EXPECT_EQ(fly::dispatch::nearest_pa_decode_tuning(others, p, Target::sm90a), &others[1]);
  EXPECT_EQ(pick(others, p).name, "fp8_ring");  // the fp8 variants read both fp8 formats
  p = problem(64, 4096);
  p.layout = FLY_KV_LAYOUT_HND;
  EXPECT_EQ(fly::dispatch::nearest_pa_decode_tuning(others, p, Target::sm90a), &others[4]);
  EXPECT_EQ(fly::dispatch::nearest_pa_decode_tuning(others, problem(64, 4096), Target::gfx942), &others[5]);
}

TEST(PaDecodeTuned, MissingVariantFallsBackAndSaysSo) {
  const PaDecodeTuning tuning[] = {entry(64, 4096, 4, "pa_decode_sm90a_d128_fp8_vtok_t16w8s32ring")};
  const Pick r = pick(tuning, problem(64, 4096));
  EXPECT_EQ(r.name, "fp8_tma");
  EXPECT_TRUE(starts_with(r.why, "tuned variant pa_decode_sm90a_d128_fp8_vtok_t16w8s32ring is not compiled in "
                                 "(FLY_PA_DECODE_FILTER, or renamed since it was measured?); heuristic: 512 blocks of "
                                 "(sequence, kv head, 16 query rows) x "))
      << r.why;
}

TEST(PaDecodeTuned, IneligibleVariantFallsBackAndSaysWhy) {
  auto expect_refused = [](const char* variant, const PaDecodeProblem& p, const std::string& why) {
    const PaDecodeTuning tuning[] = {entry(64, 4096, 4, variant)};
    const Pick r = pick(tuning, p);
    EXPECT_EQ(r.name, "fp8_tma") << variant;
    EXPECT_TRUE(starts_with(r.why, "tuned variant " + std::string(variant) + " " + why + "; heuristic: 512 blocks")) << r.why;
  };
  expect_refused("bf16_cpasync", problem(64, 4096), "reads a bf16 cache, not e4m3fn");
  expect_refused("fp8_d64", problem(64, 4096), "is for head_dim 64, not 128");
  expect_refused("fp8_vllm", problem(64, 4096), "reads V dim-major (vllm), this cache's V is token-major (nhd/hnd)");
  expect_refused("fp8_nolaunch", problem(64, 4096), "has no launch function");
  expect_refused("gfx_fp8", problem(64, 4096), "is a gfx942 variant");
  // The ring is TMA-fed: a cache that is not a TMA tensor goes to the cp.async variant, as it
  // would without a table, and the reason names what TMA lacks.
  PaDecodeProblem unaligned = problem(64, 4096);
  unaligned.v_cache = reinterpret_cast<const void*>((uintptr_t{3} << 32) + 8);
  const PaDecodeTuning tuning[] = {entry(64, 4096, 4, "fp8_ring")};
  const Pick r = pick(tuning, unaligned);
  EXPECT_EQ(r.name, "fp8_cpasync");
  EXPECT_TRUE(starts_with(r.why, "tuned variant fp8_ring is TMA-fed and this cache is not a TMA tensor: v_cache is not "
                                 "16-byte aligned; heuristic: "))
      << r.why;
}

TEST(PaDecodeTuned, AnEightRowEntryDoesNotTakeCallsOfMoreRows) {
  // An entry measured at 8 rows per kv head serves calls of 4 to 16 rows; its 8-row variant runs
  // those of at most 8, and the ranking takes the others (16 rows in one 16-row chunk, where the
  // 8-row variant would take two, each re-reading the cache).
  const PaDecodeVariant variants[] = {
      {"fp8_rows16", Target::sm90a, fp8, 128, false, 16, 16, 4, 4, true, true, false, ok_launch, three_per_sm, 0, false},
      {"fp8_rows8", Target::sm90a, fp8, 128, false, 8, 16, 4, 4, true, true, false, ok_launch, three_per_sm, 0, false},
  };
  const PaDecodeTuning tuning[] = {entry(16, 16384, 8, "fp8_rows8")};
  auto pick_rows = [&](int64_t hq, int64_t q_len) {
    Pick r;
    const PaDecodeVariant* v = fly::dispatch::select_pa_decode_variant(variants, tuning, problem(16, 16384, hq, 8, q_len),
                                                                       Target::sm90a, 132, &r.plan, &r.why);
    r.name = v != nullptr ? v->name : "none";
    return r;
  };
  for (const auto& [hq, q_len] : {std::pair<int64_t, int64_t>{64, 1}, {32, 1}, {40, 1}, {32, 2}}) {  // 8, 4, 5, 8 rows
    const Pick r = pick_rows(hq, q_len);
    EXPECT_EQ(r.name, "fp8_rows8") << hq << " heads, q_len " << q_len << ": " << r.why;
    EXPECT_TRUE(starts_with(r.why, "tuned: fastest measured at")) << r.why;
    EXPECT_EQ(r.plan.row_chunks, 1);
  }
  for (const auto& [hq, q_len] : {std::pair<int64_t, int64_t>{128, 1}, {64, 2}, {96, 1}}) {  // 16, 16, 12 rows
    const Pick r = pick_rows(hq, q_len);
    EXPECT_EQ(r.name, "fp8_rows16") << hq << " heads, q_len " << q_len << ": " << r.why;
    EXPECT_TRUE(starts_with(r.why, "tuned variant fp8_rows8 computes 8 query rows a block, so this call's " +
                                       std::to_string(hq / 8 * q_len) +
                                       " rows take 2 chunks (each re-reads the cache) where the ranking's pick takes 1; "
                                       "heuristic: "))
        << r.why;
    EXPECT_EQ(r.plan.row_chunks, 1);
  }
}

// ---- through a handle: fly_pa_decode_explain --------------------------------------------------

fly::platform::DeviceInfo fake_h200() {
  fly::platform::DeviceInfo d;
  d.backend = FLY_BACKEND_CUDA;
  d.device = 0;
  d.name = "Fake H200";
  d.arch = "sm_90";
  d.multiprocessors = 132;
  d.target = Target::sm90a;
  d.has_kernels = true;
  return d;
}

// The C arguments of problem(seqs, ctx, hq, 8): bf16 queries, an e4m3fn NHD cache, fake device pointers.
fly_pa_decode_args args_for(int64_t seqs, int64_t ctx, int64_t hq) {
  const PaDecodeProblem p = problem(seqs, ctx, hq);
  fly_pa_decode_args a = FLY_PA_DECODE_ARGS_INIT;
  a.num_seqs = seqs;
  a.q_len = 1;
  a.num_q_heads = hq;
  a.num_kv_heads = 8;
  a.head_dim = 128;
  a.q_type = bf16;
  a.kv_type = fp8;
  a.kv_layout = nhd;
  // below the caches (problem(): from 4 GiB up), so that no output overlaps an input
  a.q = reinterpret_cast<const void*>(uintptr_t{0x10000000});
  a.q_stride_seq = a.q_stride_token = hq * 128;
  a.q_stride_head = 128;
  a.out = reinterpret_cast<void*>(uintptr_t{0x20000000});
  a.out_stride_seq = a.out_stride_token = hq * 128;
  a.out_stride_head = 128;
  a.k_cache = p.k_cache;
  a.v_cache = p.v_cache;
  a.num_blocks = p.num_blocks;
  a.block_size = 16;
  a.k_block_stride = a.v_block_stride = p.k_block_stride;
  a.block_tables = reinterpret_cast<const int32_t*>(uintptr_t{0x30000000});
  a.block_table_stride = a.max_blocks_per_seq = p.max_blocks_per_seq;
  a.seq_lens = reinterpret_cast<const int32_t*>(uintptr_t{0x38000000});
  a.max_seq_len = ctx;
  a.scale = 0.088f;
  return a;
}

std::string explain(fly_handle_t h, int64_t seqs, int64_t ctx, int64_t hq) {
  const fly_pa_decode_args a = args_for(seqs, ctx, hq);
  char line[FLY_PA_DECODE_EXPLAIN_BYTES];
  EXPECT_EQ(fly_pa_decode_explain(h, &a, line, sizeof line), FLY_STATUS_SUCCESS) << fly_last_error();
  return line;
}

TEST(PaDecodeTuned, ExplainSaysWhyThroughAHandle) {
  const PaDecodeTuning tuning[] = {entry(64, 4096, 4, "fp8_ring"), entry(16, 16384, 8, "gone_ring")};
  fly_handle_t h = fly::dispatch::make_handle(fake_h200(), {});
  h->pa_decode_variants = k_variants;
  h->pa_decode_tuning = tuning;
  std::string line = explain(h, 64, 4096, 32);
  EXPECT_TRUE(starts_with(line, "fp8_ring splits=")) << line;
  EXPECT_TRUE(contains(line, ": tuned: fastest measured at 64 seqs x 4096 tokens, 8 kv heads x 4 rows (this shape)")) << line;
  line = explain(h, 16, 16384, 64);
  EXPECT_TRUE(starts_with(line, "fp8_tma splits=")) << line;
  EXPECT_TRUE(contains(line, ": tuned variant gone_ring is not compiled in")) << line;
  line = explain(h, 256, 1024, 32);  // beyond every entry: the ranking, unremarked
  EXPECT_TRUE(starts_with(line, "fp8_tma splits=")) << line;
  EXPECT_TRUE(contains(line, ": 2048 blocks of (sequence, kv head, 16 query rows)")) << line;
  EXPECT_FALSE(contains(line, "tuned")) << line;
  fly_destroy(h);
  // Handles consult the library's table unless a test substitutes its own.
  fly_handle_t created = nullptr;
  ASSERT_EQ(fly_create_host(&created), FLY_STATUS_SUCCESS);
  EXPECT_EQ(created->pa_decode_tuning.data(), fly::dispatch::pa_decode_tuning().data());
  EXPECT_EQ(created->pa_decode_tuning.size(), fly::dispatch::pa_decode_tuning().size());
  fly_destroy(created);
}

TEST(PaDecodeTuned, LongestReasonFitsTheExplainBuffer) {
  // Realistic names; the longest reason: a tuned variant refused for its TMA feed, then the plan.
  const PaDecodeVariant long_names[] = {
      {"pa_decode_sm90a_d128_fp8_vtok_t16w6s24ring", Target::sm90a, fp8, 128, false, 16, 16, 6, 24, true, true, true,
       ok_launch, one_per_sm, 0, false},
      {"pa_decode_sm90a_d128_fp8_vtok_t16w4s4pw", Target::sm90a, fp8, 128, false, 16, 16, 4, 4, true, false, false,
       ok_launch, three_per_sm, 0, false},
  };
  const PaDecodeTuning tuning[] = {entry(64, 4096, 4, "pa_decode_sm90a_d128_fp8_vtok_t16w6s24ring")};
  fly_handle_t h = fly::dispatch::make_handle(fake_h200(), {});
  h->pa_decode_variants = long_names;
  h->pa_decode_tuning = tuning;
  fly_pa_decode_args a = args_for(64, 4096, 32);
  a.k_block_stride = a.v_block_stride = int64_t{1} << 40;  // blocks 2^40 bytes apart: beyond a TMA stride
  char buf[FLY_PA_DECODE_EXPLAIN_BYTES];
  ASSERT_EQ(fly_pa_decode_explain(h, &a, buf, sizeof buf), FLY_STATUS_SUCCESS) << fly_last_error();
  const std::string line = buf;
  EXPECT_TRUE(starts_with(line, "pa_decode_sm90a_d128_fp8_vtok_t16w4s4pw splits=")) << line;
  EXPECT_TRUE(contains(line, "is TMA-fed and this cache is not a TMA tensor: k_cache: a stride of")) << line;
  EXPECT_LT(line.size() + 60, size_t{FLY_PA_DECODE_EXPLAIN_BYTES}) << line;  // with room for longer names
  fly_destroy(h);
}

// ---- the committed tables (src/dispatch/tuning/pa_decode_*.tsv, generated at configure time) ------

TEST(PaDecodeTuningTable, CommittedTablesAreWellFormed) {
  std::set<std::tuple<int, int, int, int64_t, int64_t, int, int64_t, int64_t, int64_t, int64_t>> seen;
  for (const PaDecodeTuning& e : fly::dispatch::pa_decode_tuning()) {
    ASSERT_NE(e.variant, nullptr);
    const std::string name = e.variant;
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"), std::string::npos)
        << name;
    EXPECT_NE(e.target, Target::host) << name;
    const bool fp8_cache = e.kv_type == FLY_DTYPE_E4M3FN || e.kv_type == FLY_DTYPE_E4M3FNUZ;
    EXPECT_TRUE(fp8_cache || e.kv_type == bf16 || e.kv_type == FLY_DTYPE_F16) << name;
    EXPECT_TRUE(e.q_type == bf16 || e.q_type == FLY_DTYPE_F16) << name;
    if (!fp8_cache) {
      EXPECT_EQ(e.q_type, e.kv_type) << name;
    }
    EXPECT_TRUE(e.head_dim == 64 || e.head_dim == 128 || e.head_dim == 256) << name;
    EXPECT_TRUE(e.block_size == 16 || e.block_size == 32 || e.block_size == 64) << name;
    EXPECT_GE(e.num_seqs, 1);
    EXPECT_GE(e.rows, 1);
    EXPECT_GE(e.num_kv_heads, 1);
    EXPECT_GE(e.max_seq_len, 1);
    // The generator's names spell target, head_dim, kv class and V layout (pa_decode_generator.cpp):
    // an entry naming another kind of variant could never run.
    const std::string kind = "pa_decode_" + std::string(fly::dispatch::target_name(e.target)) + "_d" +
                             std::to_string(e.head_dim) + "_" + (fp8_cache ? "fp8" : fly_dtype_string(e.kv_type)) +
                             (e.layout == FLY_KV_LAYOUT_VLLM ? "_vdim_" : "_vtok_");
    EXPECT_TRUE(starts_with(name, kind)) << name << " for a " << kind << "* entry";
    EXPECT_TRUE(seen.emplace(int(e.target), int(e.kv_type), int(e.q_type), e.head_dim, e.block_size, int(e.layout),
                             e.num_seqs, e.rows, e.num_kv_heads, e.max_seq_len)
                    .second)
        << "two entries for one problem: " << name;
  }
}

// A problem of the entry's own shape (one query token per sequence: rows = the group).
PaDecodeProblem problem_of(const PaDecodeTuning& e) {
  PaDecodeProblem p = problem(e.num_seqs, e.max_seq_len, e.num_kv_heads * e.rows, e.num_kv_heads, 1, e.kv_type);
  p.q_type = e.q_type;
  p.head_dim = e.head_dim;
  p.block_size = e.block_size;
  p.layout = e.layout;
  p.max_blocks_per_seq = p.block_table_stride = (e.max_seq_len + e.block_size - 1) / e.block_size;
  p.num_blocks = e.num_seqs * p.max_blocks_per_seq;
  p.k_block_stride = p.v_block_stride = e.block_size * e.num_kv_heads * e.head_dim;
  return p;
}

TEST(PaDecodeTuningTable, CommittedEntriesRunWhereTheWholeGridIsCompiled) {
  // Only meaningful where a target's whole grid is compiled (a GPU preset without
  // FLY_PA_DECODE_FILTER): an entry naming no variant means the grid was renamed or shrunk since
  // the table was measured. Each entry's own shape must then run the named variant, tuned.
  if (FLY_TEST_FULL_PA_DECODE_GRID == 0) GTEST_SKIP() << "FLY_PA_DECODE_FILTER narrows the grid";
  const auto variants = fly::dispatch::pa_decode_variants();
  int checked = 0;
  for (const PaDecodeTuning& e : fly::dispatch::pa_decode_tuning()) {
    bool target_compiled = false;
    for (const PaDecodeVariant& v : variants) target_compiled = target_compiled || v.target == e.target;
    if (!target_compiled) continue;  // e.g. the host build: the tables are data without kernels
    PaDecodePlan plan;
    std::string why;
    const PaDecodeVariant* v = fly::dispatch::select_pa_decode_variant(variants, fly::dispatch::pa_decode_tuning(),
                                                                       problem_of(e), e.target, 132, &plan, &why);
    ASSERT_NE(v, nullptr) << e.variant << ": " << why;
    EXPECT_STREQ(v->name, e.variant) << why << " (re-run fly_bench --tune-pa)";
    EXPECT_TRUE(starts_with(why, "tuned: fastest measured at ")) << why;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no target of the committed paged-decode tuning tables is compiled in this build";
}

}  // namespace
