#include "budgets.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace fly::regreport {
namespace {

// What `compare` checks on each target (all of them unless the rule names a subset).
std::vector<std::string> compare_keys(Target target) {
  return target == Target::gfx942 ? std::vector<std::string>{"vgpr_total", "sgpr", "spill", "scratch"}
                                  : std::vector<std::string>{"reg", "spill", "stack"};
}

constexpr std::array<std::string_view, 10> kGfx942Keys = {"vgpr", "agpr", "vgpr_total", "sgpr", "spill",
                                                          "vgpr_spill", "sgpr_spill", "lds", "scratch", "waves"};
constexpr std::array<std::string_view, 8> kSm90Keys = {"reg",   "spill", "spill_stores", "spill_loads",
                                                       "smem",  "stack", "frame",        "warps"};

bool valid_key(Target t, std::string_view key) {
  if (t == Target::gfx942) return std::find(kGfx942Keys.begin(), kGfx942Keys.end(), key) != kGfx942Keys.end();
  return std::find(kSm90Keys.begin(), kSm90Keys.end(), key) != kSm90Keys.end();
}

std::string key_list(Target t) {
  std::string s;
  auto add = [&](auto const& keys) {
    for (auto k : keys) s += (s.empty() ? "" : ", ") + std::string(k);
  };
  if (t == Target::gfx942) add(kGfx942Keys);
  else add(kSm90Keys);
  return s;
}

std::regex compile(const std::string& pattern, const std::string& origin) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError(origin + ": bad regex '" + pattern + "': " + e.what());
  }
}

bool parse_target(std::string_view s, Target& t) {
  if (s == "gfx942") t = Target::gfx942;
  else if (s == "sm90") t = Target::sm90;
  else return false;
  return true;
}

std::int64_t parse_number(std::string_view v, const std::string& origin, std::string_view token) {
  std::int64_t out = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc{} || p != v.data() + v.size() || out < 0)
    throw InputError(origin + ": expected a non-negative integer in '" + std::string(token) + "'");
  return out;
}

bool in_scope(const std::string& scope, const KernelReport& k) { return scope == "*" || scope == k.stem; }

std::string fmt(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); }

}  // namespace

Budgets parse_budgets(const std::string& text, const std::string& file) {
  Budgets out;
  std::string scope = "*";
  std::istringstream in(text);
  std::string raw;
  std::size_t ln = 0;
  while (std::getline(in, raw)) {
    ++ln;
    const std::string origin = where(file, ln);
    if (const auto hash = raw.find('#'); hash != std::string::npos) raw.erase(hash);
    std::istringstream words(raw);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    if (tok.empty()) continue;

    if (tok[0].front() == '[') {
      if (tok.size() != 1 || tok[0].size() < 3 || tok[0].back() != ']')
        throw InputError(origin + ": expected a section header '[<file stem>]' or '[*]'");
      scope = tok[0].substr(1, tok[0].size() - 2);
      continue;
    }
    if (tok[0] == "compare") {
      CompareRule c;
      c.origin = origin;
      c.scope = scope;
      if ((tok.size() != 5 && tok.size() != 6) || tok[3] != "<=" || !parse_target(tok[1], c.target))
        throw InputError(origin + ": expected 'compare <gfx942|sm90> <regex-A> <= <regex-B> [keys=<key>,...]'");
      if (tok.size() == 6) {
        if (tok[5].rfind("keys=", 0) != 0) throw InputError(origin + ": expected keys=<key>,... after the regexes");
        const std::vector<std::string> all = compare_keys(c.target);
        std::stringstream list(tok[5].substr(5));
        for (std::string key; std::getline(list, key, ',');) {
          if (std::find(all.begin(), all.end(), key) == all.end())
            throw InputError(origin + ": '" + key + "' is not a compare key of " + target_name(c.target));
          c.keys.push_back(key);
        }
        if (c.keys.empty()) throw InputError(origin + ": keys= names no key");
      }
      c.a = tok[2];
      c.b = tok[4];
      c.ra = compile(c.a, origin);
      c.rb = compile(c.b, origin);
      out.compares.push_back(std::move(c));
      continue;
    }
    BudgetRule r;
    r.file = file;
    r.line = ln;
    r.scope = scope;
    if (!parse_target(tok[0], r.target))
      throw InputError(origin + ": unknown rule '" + tok[0] + "' (expected gfx942, sm90, compare or [section])");
    if (tok.size() < 2) throw InputError(origin + ": missing the kernel name or regex");
    r.pattern = tok[1];
    r.re = compile(r.pattern, origin);
    std::set<std::string> seen;
    for (std::size_t i = 2; i < tok.size(); ++i) {
      const std::string_view t = tok[i];
      const auto le = t.find("<="), ge = t.find(">=");
      if (t.starts_with("block=")) {
        if (r.target != Target::sm90) throw InputError(origin + ": block= applies to sm90 rules only");
        r.block = parse_number(t.substr(6), origin, t);
        if (r.block == 0 || r.block > 1024) throw InputError(origin + ": block must be 1..1024 threads");
        continue;
      }
      const auto at = le != std::string_view::npos ? le : ge;
      if (at == std::string_view::npos || at == 0)
        throw InputError(origin + ": expected <key><=N or <key>>=N, got '" + std::string(t) + "'");
      Constraint c;
      c.key = std::string(t.substr(0, at));
      c.at_most = at == le;
      c.limit = parse_number(t.substr(at + 2), origin, t);
      if (!valid_key(r.target, c.key))
        throw InputError(origin + ": unknown " + target_name(r.target) + " key '" + c.key + "' (keys: " +
                         key_list(r.target) + ")");
      if (!seen.insert(c.key + (c.at_most ? "<=" : ">=")).second)
        throw InputError(origin + ": '" + c.key + "' bounded twice");
      r.constraints.push_back(std::move(c));
    }
    out.rules.push_back(std::move(r));
  }
  return out;
}

CompareRule make_cli_compare(Target target, const std::string& a, const std::string& b) {
  CompareRule c;
  c.origin = "--compare";
  c.target = target;
  c.a = a;
  c.b = b;
  c.ra = compile(a, "--compare");
  c.rb = compile(b, "--compare");
  return c;
}

std::optional<std::int64_t> budget_value(const KernelReport& k, const std::string& key, std::int64_t block) {
  if (key == "spill") return k.spill_total();
  if (k.target == Target::gfx942) {
    if (key == "vgpr") return k.vgpr;
    if (key == "agpr") return k.agpr;
    if (key == "vgpr_total") return k.vgpr_total;
    if (key == "sgpr") return k.sgpr;
    if (key == "vgpr_spill") return k.vgpr_spill;
    if (key == "sgpr_spill") return k.sgpr_spill;
    if (key == "lds") return k.lds;
    if (key == "scratch") return k.scratch;
    if (key == "waves") {
      if (!k.vgpr_total) return std::nullopt;
      return gfx942_waves_per_simd(*k.vgpr_total);
    }
  } else {
    if (key == "reg") return k.vgpr;
    if (key == "spill_stores") return k.spill_stores;
    if (key == "spill_loads") return k.spill_loads;
    if (key == "smem") return k.lds;
    if (key == "stack") return k.scratch;
    if (key == "frame") return k.frame;
    if (key == "warps") {
      if (!k.vgpr) return std::nullopt;
      return sm90_warps_per_sm(*k.vgpr, k.lds, block);
    }
  }
  throw std::out_of_range("unknown budget key " + key);
}

Evaluation evaluate(const Budgets& budgets, const std::vector<KernelReport>& kernels) {
  Evaluation ev;
  ev.failures.resize(kernels.size());
  ev.budgeted.assign(kernels.size(), false);
  ev.block.assign(kernels.size(), 0);

  for (const BudgetRule& r : budgets.rules) {
    bool any_input = false, matched = false;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const KernelReport& k = kernels[i];
      if (k.target != r.target || !in_scope(r.scope, k)) continue;
      any_input = true;
      if (!std::regex_match(k.name, r.re)) continue;
      matched = true;
      ev.budgeted[i] = true;
      if (r.block != 0) ev.block[i] = r.block;
      for (const Constraint& c : r.constraints) {
        const auto v = budget_value(k, c.key, r.block);
        if (!v) {
          ev.failures[i].push_back(c.key + " unknown" +
                                   (c.key.starts_with("spill") ? std::string(" (no --ptxas-log for this cubin)") : "") +
                                   " [" + where(r.file, r.line) + "]");
        } else if (c.at_most ? *v > c.limit : *v < c.limit) {
          ev.failures[i].push_back(c.key + " " + std::to_string(*v) + (c.at_most ? " > " : " < ") +
                                   std::to_string(c.limit) + " [" + where(r.file, r.line) + "]");
        }
      }
    }
    if (r.scope != "*" && any_input && !matched)
      ev.problems.push_back(where(r.file, r.line) + ": " + target_name(r.target) + " kernel '" + r.pattern +
                            "' not found in the [" + r.scope + "] input");
  }

  for (const CompareRule& c : budgets.compares) {
    std::vector<std::size_t> as, bs;
    bool any_input = false;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const KernelReport& k = kernels[i];
      if (k.target != c.target || !in_scope(c.scope, k)) continue;
      any_input = true;
      if (std::regex_match(k.name, c.ra)) as.push_back(i);
      if (std::regex_match(k.name, c.rb)) bs.push_back(i);
    }
    const std::string what = std::string("compare ") + target_name(c.target) + " " + c.a + " <= " + c.b;
    if (as.empty() && bs.empty()) {
      if (c.scope != "*" && any_input)
        ev.problems.push_back(c.origin + ": " + what + ": neither kernel found in the [" + c.scope + "] input");
      continue;
    }
    if (as.size() != 1 || bs.size() != 1) {
      ev.problems.push_back(c.origin + ": " + what + ": A matches " + std::to_string(as.size()) + " kernel(s), B " +
                            std::to_string(bs.size()) + "; each must match exactly one");
      continue;
    }
    const KernelReport& ka = kernels[as[0]];
    const KernelReport& kb = kernels[bs[0]];
    const std::vector<std::string> keys = c.keys.empty() ? compare_keys(c.target) : c.keys;
    std::string detail, bad;
    for (const std::string& key : keys) {
      const auto va = budget_value(ka, key, 0), vb = budget_value(kb, key, 0);
      const bool ok = va && vb && *va <= *vb;
      const std::string item = key + " " + fmt(va) + (ok ? " <= " : (va && vb ? " > " : " vs ")) + fmt(vb);
      detail += (detail.empty() ? "" : ", ") + item;
      if (!ok) bad += (bad.empty() ? "" : ", ") + item;
    }
    if (bad.empty()) ev.notes.push_back(what + ": ok (" + detail + ")");
    else ev.problems.push_back(c.origin + ": " + what + ": FAIL (" + bad + ")");
  }
  return ev;
}

}  // namespace fly::regreport
