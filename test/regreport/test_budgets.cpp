// Budget file parsing and evaluation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "budgets.hpp"

namespace fly::regreport {
namespace {

KernelReport gfx(const std::string& stem, const std::string& name, std::int64_t vgpr, std::int64_t agpr,
                 std::int64_t sgpr, std::int64_t spill = 0) {
  KernelReport k;
  k.target = Target::gfx942;
  k.input = stem + ".gfx942.s";
  k.stem = stem;
  k.name = name;
  k.vgpr = vgpr;
  k.agpr = agpr;
  k.vgpr_total = agpr > 0 ? (vgpr + 3) / 4 * 4 + agpr : vgpr;
  k.sgpr = sgpr;
  k.vgpr_spill = spill;
  k.sgpr_spill = 0;
  return k;
}

KernelReport sm(const std::string& stem, const std::string& name, std::int64_t regs,
                std::optional<std::int64_t> spill = std::nullopt) {
  KernelReport k;
  k.target = Target::sm90;
  k.input = stem + ".cubin";
  k.stem = stem;
  k.name = name;
  k.vgpr = regs;
  if (spill) {
    k.spill_stores = *spill;
    k.spill_loads = *spill;
  }
  return k;
}

void expect_parse_error(const std::string& text, const std::string& needle) {
  try {
    (void)parse_budgets(text, "b.txt");
    ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Budgets, Parse) {
  const Budgets b = parse_budgets(
      "# comment\n\n"
      "gfx942 .* spill<=0   # trailing comment\n"
      "[gemm]\n"
      "gfx942 _Z4gemmv vgpr<=128 agpr<=64 sgpr<=100 waves>=2\n"
      "sm90 _Z4gemmv reg<=168 spill<=0 block=256 warps>=8\n"
      "compare gfx942 _Z4gemmv <= _Z3rawv\n",
      "b.txt");
  ASSERT_EQ(b.rules.size(), 3u);
  EXPECT_EQ(b.rules[0].scope, "*");
  EXPECT_EQ(b.rules[1].scope, "gemm");
  EXPECT_EQ(b.rules[1].line, 5u);
  ASSERT_EQ(b.rules[1].constraints.size(), 4u);
  EXPECT_EQ(b.rules[1].constraints[3].key, "waves");
  EXPECT_FALSE(b.rules[1].constraints[3].at_most);
  EXPECT_EQ(b.rules[2].block, 256);
  ASSERT_EQ(b.compares.size(), 1u);
  EXPECT_EQ(b.compares[0].origin, "b.txt:7");
  EXPECT_EQ(b.compares[0].scope, "gemm");
}

TEST(Budgets, MalformedLinesNameFileAndLine) {
  expect_parse_error("\n\nrdna3 _Z1kv vgpr<=1\n", "b.txt:3: unknown rule 'rdna3'");
  expect_parse_error("gfx942\n", "b.txt:1: missing the kernel");
  expect_parse_error("gfx942 _Z1kv vgpr<32\n", "b.txt:1: expected <key><=N");
  expect_parse_error("gfx942 _Z1kv vgpr<=x\n", "b.txt:1: expected a non-negative integer");
  expect_parse_error("gfx942 _Z1kv vgpr<=-1\n", "non-negative");
  expect_parse_error("gfx942 _Z1kv reg<=32\n", "unknown gfx942 key 'reg'");
  expect_parse_error("sm90 _Z1kv vgpr<=32\n", "unknown sm90 key 'vgpr'");
  expect_parse_error("gfx942 _Z1kv vgpr<=32 vgpr<=30\n", "bounded twice");
  expect_parse_error("gfx942 _Z1kv block=128\n", "sm90 rules only");
  expect_parse_error("sm90 _Z1kv block=4096\n", "1..1024");
  expect_parse_error("gfx942 _Z1k(v vgpr<=1\n", "b.txt:1: bad regex");
  expect_parse_error("[a b]\n", "section header");
  expect_parse_error("compare gfx942 a b\n", "expected 'compare");
  expect_parse_error("compare gfx942 a < b\n", "expected 'compare");
}

TEST(Budgets, WithinAndOverBudget) {
  const Budgets b = parse_budgets(
      "[k]\n"
      "gfx942 _Z1av vgpr<=32 sgpr<=32 spill<=0 waves>=8\n"
      "gfx942 _Z1bv vgpr<=32 agpr<=0\n",
      "b.txt");
  const std::vector<KernelReport> ks = {gfx("k", "_Z1av", 32, 0, 20), gfx("k", "_Z1bv", 40, 8, 20, 2),
                                        gfx("k", "_Z1cv", 1, 0, 1)};
  const Evaluation ev = evaluate(b, ks);
  EXPECT_TRUE(ev.failures[0].empty());
  ASSERT_EQ(ev.failures[1].size(), 2u);
  EXPECT_EQ(ev.failures[1][0], "vgpr 40 > 32 [b.txt:3]");
  EXPECT_EQ(ev.failures[1][1], "agpr 8 > 0 [b.txt:3]");
  EXPECT_TRUE(ev.budgeted[0]);
  EXPECT_TRUE(ev.budgeted[1]);
  EXPECT_FALSE(ev.budgeted[2]);
  EXPECT_TRUE(ev.problems.empty());
}

TEST(Budgets, OccupancyFloor) {
  const Budgets b = parse_budgets("gfx942 .* waves>=8\n", "b.txt");
  const Evaluation ev = evaluate(b, {gfx("k", "_Z1av", 64, 0, 10), gfx("k", "_Z1bv", 65, 0, 10)});
  EXPECT_TRUE(ev.failures[0].empty());
  ASSERT_EQ(ev.failures[1].size(), 1u);
  EXPECT_EQ(ev.failures[1][0], "waves 7 < 8 [b.txt:1]");
}

TEST(Budgets, MissingKernelFailsOnlyInANamedSectionWhoseInputIsGiven) {
  const Budgets b = parse_budgets(
      "gfx942 _Z4gonev vgpr<=1\n"  // [*]: may match nothing
      "[k]\n"
      "gfx942 _Z4gonev vgpr<=1\n"
      "sm90 _Z4gonev reg<=1\n"     // no sm90 input of stem k: not checked
      "[other]\n"
      "gfx942 _Z4gonev vgpr<=1\n",  // no input of stem other: not checked
      "b.txt");
  const Evaluation ev = evaluate(b, {gfx("k", "_Z1av", 8, 0, 8)});
  ASSERT_EQ(ev.problems.size(), 1u);
  EXPECT_NE(ev.problems[0].find("b.txt:3: gfx942 kernel '_Z4gonev' not found in the [k] input"), std::string::npos);
}

TEST(Budgets, RegexMatchesTheWholeName) {
  const Budgets b = parse_budgets("[k]\ngfx942 _Z1a.* vgpr<=8\ngfx942 _Z1 vgpr<=8\n", "b.txt");
  const Evaluation ev = evaluate(b, {gfx("k", "_Z1av", 16, 0, 8)});
  ASSERT_EQ(ev.failures[0].size(), 1u);  // only the first rule applies
  ASSERT_EQ(ev.problems.size(), 1u);     // "_Z1" is not the whole name
}

TEST(Budgets, SpillsUnknownWithoutPtxasLog) {
  const Budgets b = parse_budgets("sm90 .* reg<=64 spill<=0\n", "b.txt");
  const Evaluation ev = evaluate(b, {sm("k", "_Z1av", 32), sm("k", "_Z1bv", 32, 0), sm("k", "_Z1cv", 32, 8)});
  ASSERT_EQ(ev.failures[0].size(), 1u);
  EXPECT_NE(ev.failures[0][0].find("spill unknown (no --ptxas-log"), std::string::npos);
  EXPECT_TRUE(ev.failures[1].empty());
  ASSERT_EQ(ev.failures[2].size(), 1u);
  EXPECT_EQ(ev.failures[2][0], "spill 16 > 0 [b.txt:1]");
}

TEST(Budgets, Sm90BlockSizeFeedsWarps) {
  const Budgets b = parse_budgets("sm90 .* block=256 warps>=64\n", "b.txt");
  const Evaluation ev = evaluate(b, {sm("k", "_Z1av", 32), sm("k", "_Z1bv", 40)});
  EXPECT_TRUE(ev.failures[0].empty());
  EXPECT_EQ(ev.block[0], 256);
  ASSERT_EQ(ev.failures[1].size(), 1u);
  EXPECT_EQ(ev.failures[1][0], "warps 48 < 64 [b.txt:1]");
}

TEST(Budgets, CompareGenericWithTwin) {
  const Budgets b = parse_budgets(
      "[k]\n"
      "compare gfx942 _Z7genericv <= _Z3rawv\n"
      "compare gfx942 _Z3rawv <= _Z7genericv\n"
      "compare gfx942 _Z7genericv <= _Z5twin.*\n"
      "compare gfx942 _Z4nonev <= _Z5nonexv\n"
      "compare sm90 _Z7genericv <= _Z3rawv\n",  // no sm90 input: skipped
      "b.txt");
  const std::vector<KernelReport> ks = {gfx("k", "_Z7genericv", 40, 0, 20), gfx("k", "_Z3rawv", 44, 0, 18),
                                        gfx("k", "_Z5twinav", 1, 0, 1), gfx("k", "_Z5twinbv", 1, 0, 1)};
  const Evaluation ev = evaluate(b, ks);
  ASSERT_EQ(ev.problems.size(), 4u);
  // generic <= raw: more SGPRs than the twin.
  EXPECT_NE(ev.problems[0].find("b.txt:2"), std::string::npos);
  EXPECT_NE(ev.problems[0].find("sgpr 20 > 18"), std::string::npos) << ev.problems[0];
  // raw <= generic: more VGPRs.
  EXPECT_NE(ev.problems[1].find("vgpr_total 44 > 40"), std::string::npos) << ev.problems[1];
  // ambiguous twin.
  EXPECT_NE(ev.problems[2].find("B 2"), std::string::npos) << ev.problems[2];
  // neither found.
  EXPECT_NE(ev.problems[3].find("neither kernel found"), std::string::npos) << ev.problems[3];
  EXPECT_TRUE(ev.notes.empty());

  const Evaluation ok = evaluate(parse_budgets("compare gfx942 _Z5twinav <= _Z5twinbv\n", "c.txt"), ks);
  EXPECT_TRUE(ok.problems.empty());
  ASSERT_EQ(ok.notes.size(), 1u);
  EXPECT_NE(ok.notes[0].find(": ok (vgpr_total 1 <= 1, sgpr 1 <= 1, spill 0 <= 0, scratch 0 <= 0)"),
            std::string::npos)
      << ok.notes[0];
}

// keys= narrows a compare to the keys it names (a known difference stated beside the rule); the
// other keys are not checked, unknown keys are an input error.
TEST(Budgets, CompareKeysSubset) {
  const std::vector<KernelReport> ks = {gfx("k", "_Z7genericv", 40, 0, 20), gfx("k", "_Z3rawv", 40, 0, 18)};
  const Evaluation narrowed =
      evaluate(parse_budgets("compare gfx942 _Z7genericv <= _Z3rawv keys=vgpr_total,spill,scratch\n", "b.txt"), ks);
  EXPECT_TRUE(narrowed.problems.empty());
  ASSERT_EQ(narrowed.notes.size(), 1u);
  EXPECT_EQ(narrowed.notes[0].find("sgpr"), std::string::npos) << narrowed.notes[0];
  const Evaluation all = evaluate(parse_budgets("compare gfx942 _Z7genericv <= _Z3rawv keys=sgpr\n", "b.txt"), ks);
  ASSERT_EQ(all.problems.size(), 1u);
  EXPECT_NE(all.problems[0].find("sgpr 20 > 18"), std::string::npos) << all.problems[0];
  EXPECT_THROW((void)parse_budgets("compare gfx942 _Z1av <= _Z1bv keys=reg\n", "b.txt"), InputError);
  EXPECT_THROW((void)parse_budgets("compare gfx942 _Z1av <= _Z1bv sgpr\n", "b.txt"), InputError);
}

TEST(Budgets, CompareSm90NeedsSpills) {
  const std::vector<KernelReport> ks = {sm("k", "_Z1av", 32), sm("k", "_Z1bv", 32)};
  const Evaluation ev = evaluate(parse_budgets("compare sm90 _Z1av <= _Z1bv\n", "b.txt"), ks);
  ASSERT_EQ(ev.problems.size(), 1u);
  EXPECT_NE(ev.problems[0].find("spill ? vs ?"), std::string::npos) << ev.problems[0];
}

}  // namespace
}  // namespace fly::regreport
