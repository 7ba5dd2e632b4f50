// Register budgets: the file format, and checking kernels against it.
//
// One rule per line; '#' starts a comment; blank lines are ignored.
//
//   [<stem>]     the rules below apply to inputs whose file name, up to its first '.', is <stem>
//                (layout_eval.gfx942.s and layout_eval.cubin both have the stem layout_eval).
//                A rule of a named section whose target has such an input must match a kernel
//                in it: a kernel that disappeared fails the check.
//   [*]          (the start of the file) the rules below apply to every input of their target and
//                may match nothing, e.g. `gfx942 .* scratch<=0` for all kernels of any file.
//
//   gfx942 <kernel-regex> <key><=N ... <key>>=N ...
//   sm90   <kernel-regex> <key><=N ... [block=<threads>]
//   compare <gfx942|sm90> <regex-A> <= <regex-B> [keys=<key>,...]
//
// <kernel-regex> is an ECMAScript regex matched against the whole mangled name (a plain mangled
// name matches itself). Keys:
//   gfx942: vgpr (arch VGPRs), agpr, vgpr_total (allocated: arch+acc), sgpr, spill (VGPRs+SGPRs
//           spilled), vgpr_spill, sgpr_spill, lds (bytes), scratch (bytes), waves (per SIMD)
//   sm90:   reg, spill (bytes stored+loaded; needs the ptxas log), spill_stores, spill_loads,
//           smem (static, bytes), stack (bytes, cumulative), frame (bytes), warps (per SM)
//   block=<threads> (sm90) makes `warps` and the printed occupancy account for whole blocks and
//   shared memory.
// `compare` requires the one kernel matching A to use no more than the one matching B of:
// gfx942 vgpr_total, sgpr, spill, scratch; sm90 reg, spill, stack (keys=: a subset of them, for a
// pair whose known difference the budget file states beside the rule). Each regex must match exactly
// one kernel of the inputs in scope (zero matches of both is skipped only in [*]).
#pragma once

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "report.hpp"

namespace fly::regreport {

struct Constraint {
  std::string key;
  bool at_most = true;  // <= (else >=)
  std::int64_t limit = 0;
};

struct BudgetRule {
  std::string file;
  std::size_t line = 0;
  Target target = Target::gfx942;
  std::string scope = "*";
  std::string pattern;
  std::regex re;
  std::vector<Constraint> constraints;
  std::int64_t block = 0;  // sm90: threads per block, 0 when not given
};

struct CompareRule {
  std::string origin;  // "file:line" or "--compare"
  Target target = Target::gfx942;
  std::string scope = "*";
  std::string a, b;
  std::regex ra, rb;
  std::vector<std::string> keys;  // compared keys; empty: every key of the target
};

struct Budgets {
  std::vector<BudgetRule> rules;
  std::vector<CompareRule> compares;
};

// Throws InputError naming file:line on a malformed line.
[[nodiscard]] Budgets parse_budgets(const std::string& text, const std::string& file);

// A `--compare A B` from the command line: checked on every target where either regex matches,
// and an error when neither matches anywhere.
[[nodiscard]] CompareRule make_cli_compare(Target target, const std::string& a, const std::string& b);

struct Evaluation {
  std::vector<std::vector<std::string>> failures;  // per kernel (same order as the input)
  std::vector<bool> budgeted;                      // per kernel: some rule matched it
  std::vector<std::int64_t> block;                 // per kernel: block size from a rule, 0 if none
  std::vector<std::string> problems;               // rules that matched nothing, failed compares
  std::vector<std::string> notes;                  // compares that passed
};

[[nodiscard]] Evaluation evaluate(const Budgets& budgets, const std::vector<KernelReport>& kernels);

// A kernel's value for a budget key (empty when unknown); throws std::out_of_range on an unknown key.
[[nodiscard]] std::optional<std::int64_t> budget_value(const KernelReport& k, const std::string& key,
                                                       std::int64_t block);

}  // namespace fly::regreport
