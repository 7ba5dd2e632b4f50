// fly_regreport: per-kernel register / spill / memory / occupancy report for gfx942 ISA and sm_90a
// cubins, checked against budgets kept in the repository. See --help and budgets.hpp.
//
// Exit status: 0 all kernels within budget; 1 a budget exceeded, a budgeted kernel missing, a
// compare failed, or a kernel unusable (gfx942 call / dynamic stack, stale ptxas log);
// 2 bad usage or bad input (the message names the file and line).
#include <cxxabi.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "budgets.hpp"
#include "cubin.hpp"
#include "gfx942_isa.hpp"
#include "report.hpp"

namespace {

using namespace fly::regreport;

constexpr const char* kUsage = R"(usage: fly_regreport [--budgets <file>]... [--gfx942 <file.s>]...
                     [--sm90 <file.cubin> [--ptxas-log <file>]]... [--compare <regex-A> <regex-B>]...
                     [--require-budget] [--demangle]

Prints one row per kernel and checks the kernels against the budget file(s).
  --gfx942 <file.s>     ISA from clang++-19 -x hip --offload-arch=gfx942 --offload-device-only -S
  --sm90 <file.cubin>   cubin from nvcc -cubin -gencode=arch=compute_90a,code=sm_90a
  --ptxas-log <file>    the -Xptxas -v output of the preceding --sm90 cubin (spills)
  --budgets <file>      budget rules (format: tools/regreport/budgets.hpp, test/register_budgets.txt)
  --compare <A> <B>     the kernel matching regex A must use no more registers, spills and scratch
                        than the one matching B (on each target where they are found)
  --require-budget      a kernel that no budget rule matches fails
  --demangle            print demangled names
Columns: VGPR (gfx942 arch VGPRs; sm90 registers per thread), AGPR, SGPR, spill (gfx942 VGPRs/SGPRs
spilled; sm90 bytes stored/loaded, ? without a ptxas log), LDS/SMEM and scratch/stack in bytes,
occupancy (gfx942 waves per SIMD by VGPRs; sm90 warps per SM by registers, and by blocks and shared
memory when a rule gives block=).
Exit status: 0 ok, 1 a check failed, 2 bad usage or input.
)";

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

std::string num(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); }

struct Options {
  std::vector<std::string> budgets, gfx942;
  struct Cubin {
    std::string file, log;
  };
  std::vector<Cubin> sm90;
  std::vector<std::pair<std::string, std::string>> compares;
  bool require_budget = false, demangle = false;
};

Options parse_args(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw InputError(std::string(argv[i]) + " needs an argument\n" + kUsage);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--budgets") {
      o.budgets.push_back(value(i));
    } else if (a == "--gfx942") {
      o.gfx942.push_back(value(i));
    } else if (a == "--sm90") {
      o.sm90.push_back({value(i), {}});
    } else if (a == "--ptxas-log") {
      if (o.sm90.empty() || !o.sm90.back().log.empty())
        throw InputError("--ptxas-log must follow the --sm90 <file.cubin> it belongs to");
      o.sm90.back().log = value(i);
    } else if (a == "--compare") {
      std::string x = value(i);
      o.compares.emplace_back(x, value(i));
    } else if (a == "--require-budget") {
      o.require_budget = true;
    } else if (a == "--demangle") {
      o.demangle = true;
    } else {
      throw InputError("unknown argument '" + a + "'\n" + kUsage);
    }
  }
  if (o.gfx942.empty() && o.sm90.empty()) throw InputError(std::string("no input (--gfx942 or --sm90)\n") + kUsage);
  return o;
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      const bool last = c + 1 == r.size();
      const bool right = c >= 2 && c + 2 < r.size();  // numbers right-aligned
      std::string cell = r[c];
      const std::string pad(width[c] - cell.size(), ' ');
      line += right ? pad + cell : (last ? cell : cell + pad);
      if (!last) line += "  ";
    }
    std::cout << line << '\n';
  }
}

int run(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);

  Budgets budgets;
  for (const std::string& f : opt.budgets) {
    Budgets b = parse_budgets(read_file(f), f);
    for (auto& r : b.rules) budgets.rules.push_back(std::move(r));
    for (auto& c : b.compares) budgets.compares.push_back(std::move(c));
  }

  std::vector<KernelReport> kernels;
  for (const std::string& f : opt.gfx942)
    for (auto& k : parse_gfx942_isa(read_file(f), f)) kernels.push_back(std::move(k));
  for (const auto& c : opt.sm90) {
    auto ks = parse_cubin(read_file(c.file), c.file);
    if (!c.log.empty()) apply_ptxas_log(ks, parse_ptxas_log(read_file(c.log), c.log), c.log);
    for (auto& k : ks) kernels.push_back(std::move(k));
  }

  std::vector<std::string> cli_problems;
  for (const auto& [a, b] : opt.compares) {
    bool found = false;
    for (const Target t : {Target::gfx942, Target::sm90}) {
      const CompareRule rule = make_cli_compare(t, a, b);
      bool here = false;
      for (const auto& k : kernels)
        if (k.target == t && (std::regex_match(k.name, rule.ra) || std::regex_match(k.name, rule.rb))) here = true;
      if (here) {
        budgets.compares.push_back(rule);
        found = true;
      }
    }
    if (!found) cli_problems.push_back("--compare " + a + " " + b + ": no kernel matches either regex");
  }

  const Evaluation ev = evaluate(budgets, kernels);

  bool failed = false;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"target", "kernel", "VGPR", "AGPR", "SGPR", "spill", "LDS/SMEM", "scratch/stack", "occupancy", "verdict"});
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelReport& k = kernels[i];
    std::vector<std::string> r;
    r.push_back(target_name(k.target));
    r.push_back(opt.demangle ? demangle(k.name) : k.name);
    r.push_back(num(k.vgpr));
    if (k.target == Target::gfx942) {
      r.push_back(num(k.agpr));
      r.push_back(num(k.sgpr));
      r.push_back(num(k.vgpr_spill) + "/" + num(k.sgpr_spill));
      r.push_back(std::to_string(k.lds));
      r.push_back(std::to_string(k.scratch));
      r.push_back(k.vgpr_total ? std::to_string(gfx942_waves_per_simd(*k.vgpr_total)) + " waves/SIMD" : "?");
    } else {
      r.push_back("-");
      r.push_back("-");
      r.push_back(k.spill_stores ? num(k.spill_stores) + "/" + num(k.spill_loads) + "B" : "?");
      r.push_back(std::to_string(k.lds));
      r.push_back(std::to_string(k.scratch));
      r.push_back(k.vgpr ? std::to_string(sm90_warps_per_sm(*k.vgpr, k.lds, ev.block[i])) + " warps/SM" : "?");
    }
    std::string verdict;
    for (const auto& e : k.errors) verdict += (verdict.empty() ? "ERROR: " : "; ") + e;
    for (const auto& f : ev.failures[i]) verdict += (verdict.empty() ? "FAIL: " : "; ") + f;
    if (verdict.empty() && !ev.budgeted[i] && opt.require_budget) verdict = "FAIL: no budget rule matches";
    if (!verdict.empty()) failed = true;
    if (verdict.empty()) verdict = ev.budgeted[i] ? "ok" : "no budget";
    r.push_back(verdict);
    rows.push_back(std::move(r));
  }
  print_table(rows);
  for (const auto& n : ev.notes) std::cout << n << '\n';
  for (const auto& p : ev.problems) {
    std::cout << "FAIL: " << p << '\n';
    failed = true;
  }
  for (const auto& p : cli_problems) {
    std::cout << "FAIL: " << p << '\n';
    failed = true;
  }
  std::cout << (failed ? "fly_regreport: FAILED\n" : "fly_regreport: ok\n");
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const InputError& e) {
    std::cerr << "fly_regreport: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fly_regreport: internal error: " << e.what() << '\n';
    return 2;
  }
}
