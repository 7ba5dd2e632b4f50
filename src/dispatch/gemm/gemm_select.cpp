// GEMM variant selection: a tuned entry (gemm_tuning.hpp) at the call's shape when its variant can
// run the call, else the cost model's least predicted time (gemm_cost_model.hpp), else the tuning
// tables' reaches, else the heuristic: eligibility (target, dtypes, alignment), least padding
// waste, the largest tile.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "gemm_cost_model.hpp"
#include "gemm_registry.hpp"
#include "gemm_tuning.hpp"

namespace fly::dispatch {

int gemm_alignment_elems(const GemmProblem& p) noexcept {
  auto const esize = static_cast<uint64_t>(dtype_bytes(p.a));
  auto const a_addr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p.A));
  auto const b_addr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p.B));
  auto const lda = static_cast<uint64_t>(p.lda);
  auto const ldb = static_cast<uint64_t>(p.ldb);
  auto const k = static_cast<uint64_t>(p.k);  // the kernels' vectors run along K: no vector straddles its end
  int align = 256;
  while (align > 1) {
    auto const e = static_cast<uint64_t>(align);
    if (k % e == 0 && lda % e == 0 && ldb % e == 0 && a_addr % (e * esize) == 0 && b_addr % (e * esize) == 0) break;
    align /= 2;
  }
  return align;
}

namespace {

int64_t round_up(int64_t x, int64_t tile) { return (x + tile - 1) / tile * tile; }

bool aligned_for(const GemmVariant& v, int problem_align) {
  if (v.align_elems <= 1) return true;
  // align_elems is documented as a power of two; check divisibility so that any value is safe.
  return problem_align % v.align_elems == 0;
}

// Padded volume over real volume (>= 1); a ratio in double so that huge shapes cannot overflow.
double padded_ratio(const GemmVariant& v, const GemmProblem& p) {
  auto ratio = [](int64_t x, int tile) {
    return static_cast<double>(round_up(x, tile)) / static_cast<double>(x);
  };
  return ratio(p.m, v.bm) * ratio(p.n, v.bn) * ratio(p.k, v.bk);
}

bool same_ratio(double x, double y) { return std::fabs(x - y) <= 1e-12 * std::fmax(x, y); }

// The heuristic's pick and the counts its reasons quote.
struct Heuristic {
  const GemmVariant* best = nullptr;
  double best_ratio = 0.0;
  int on_target = 0;
  int typed = 0;     // on target with the problem's dtypes
  int eligible = 0;  // ... and aligned
  int tied = 0;      // eligible with the best ratio
  int typed_min_align = 0;
};

bool computes(const GemmVariant& v, const GemmProblem& p) {
  return v.ab_type == p.a && v.ab_type == p.b && v.d_type == p.d && v.launch != nullptr &&
         v.bm >= 1 && v.bn >= 1 && v.bk >= 1;  // a malformed table entry never runs
}

// lds_only: among the LDS-pipelined variants alone (counted on target like the others).
Heuristic run_heuristic(std::span<const GemmVariant> variants, const GemmProblem& p, Target target, int problem_align,
                        bool lds_only = false) {
  Heuristic h;
  for (const GemmVariant& v : variants) {
    if (v.target != target) continue;
    ++h.on_target;
    if (lds_only && !v.lds_pipeline) continue;
    if (!computes(v, p)) continue;
    ++h.typed;
    if (h.typed_min_align == 0 || v.align_elems < h.typed_min_align) h.typed_min_align = v.align_elems;
    if (!aligned_for(v, problem_align)) continue;
    ++h.eligible;
    double const r = padded_ratio(v, p);
    if (h.best == nullptr || (r < h.best_ratio && !same_ratio(r, h.best_ratio))) {
      h.best = &v;
      h.best_ratio = r;
      h.tied = 1;
      continue;
    }
    if (!same_ratio(r, h.best_ratio)) continue;
    ++h.tied;
    int64_t const area = int64_t{v.bm} * v.bn;
    int64_t const best_area = int64_t{h.best->bm} * h.best->bn;
    if (area > best_area || (area == best_area && v.bk > h.best->bk)) h.best = &v;
  }
  return h;
}

std::string dtypes_text(const GemmProblem& p) {
  return std::string(fly_dtype_string(p.a)) + " x " + fly_dtype_string(p.b) + " -> " + fly_dtype_string(p.d);
}

std::string heuristic_why(const Heuristic& h, const GemmProblem& p, Target target, int problem_align) {
  std::string const tname = target_name(target);
  if (h.best == nullptr) {
    if (h.on_target == 0) return "no GEMM variant is compiled for " + tname;
    if (h.typed == 0) {
      return "none of the " + std::to_string(h.on_target) + " " + tname + " variants computes " + dtypes_text(p);
    }
    return "the " + std::to_string(h.typed) + " " + tname + " variants for " + dtypes_text(p) +
           " need lda, ldb, A and B aligned to >= " + std::to_string(h.typed_min_align) +
           " elements; this call's alignment is " + std::to_string(problem_align);
  }
  auto padded = [](const char* dim, int64_t x, int tile) {
    return std::string(dim) + " " + std::to_string(x) + "->" + std::to_string(round_up(x, tile));
  };
  char work[32];
  std::snprintf(work, sizeof work, "%.3g", h.best_ratio);
  std::string why = "least padding (" + padded("M", p.m, h.best->bm) + ", " + padded("N", p.n, h.best->bn) + ", " +
                    padded("K", p.k, h.best->bk) + ": " + work + "x the work) among " + std::to_string(h.eligible) +
                    " eligible of " + std::to_string(h.on_target) + " " + tname + " variants";
  if (h.tied > 1) why += ", largest tile of " + std::to_string(h.tied) + " tied";
  return why;
}

const GemmVariant* find_variant(std::span<const GemmVariant> variants, const char* name) {
  for (const GemmVariant& v : variants) {
    if (v.name != nullptr && std::strcmp(v.name, name) == 0) return &v;
  }
  return nullptr;
}

// Why `v` cannot run `p` on `target` ("is not eligible: ..."), or "" when it can: the heuristic's
// eligibility, spelled out for a tuned variant that was passed over.
std::string refusal(const GemmVariant& v, const GemmProblem& p, Target target, int problem_align) {
  if (v.target != target) return std::string("is a ") + target_name(v.target) + " variant";
  if (!computes(v, p)) {
    return std::string("does not compute ") + dtypes_text(p) + " (it computes " + fly_dtype_string(v.ab_type) + " -> " +
           fly_dtype_string(v.d_type) + (v.launch == nullptr ? ", without a launch function)" : ")");
  }
  if (!aligned_for(v, problem_align)) {
    return "is not eligible: it needs lda, ldb, A and B aligned to " + std::to_string(v.align_elems) +
           " elements, this call's alignment is " + std::to_string(problem_align);
  }
  return "";
}

std::string shape_text(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

}  // namespace

// ---- gfx942 LDS pipeline preference ----
// An LDS-pipelined variant (GemmLdsBlock) reads each operand tile once per block and shares it
// among the block's waves from LDS, where the direct-load kernel reads it once per wave: the
// heuristic takes the least padded LDS variant whenever it pads the call at most this much more
// than the least padded variant of all.
constexpr double kLdsPaddingSlack = 1.25;

namespace {
bool prefer_lds(const Heuristic& all, const Heuristic& lds) {
  if (lds.best == nullptr || all.best == nullptr || all.best->lds_pipeline) return false;
  return lds.best_ratio <= kLdsPaddingSlack * all.best_ratio || same_ratio(lds.best_ratio, kLdsPaddingSlack * all.best_ratio);
}

std::string lds_why(const Heuristic& all, const Heuristic& lds, const GemmProblem& p, Target target, int problem_align) {
  char work[96];
  std::snprintf(work, sizeof work, "LDS pipeline preferred (%.3gx the work, within %.3gx of the least padded %.3gx): ",
                lds.best_ratio, kLdsPaddingSlack, all.best_ratio);
  return work + heuristic_why(lds, p, target, problem_align);
}
}  // namespace
// ---- end gfx942 LDS pipeline preference ----

// A tuned variant reached beyond a factor 2 (by m and m x n, or by m alone) may pad this call at
// most this much more than the least padded eligible variant: it was measured on shapes it tiles
// exactly.
constexpr double kBeyondPaddingSlack = 1.25;

// How far the tuning entry that applies lies from the call (gemm_tuning.hpp's reaches).
enum class Reach { shape, output, rows };

namespace {

// The cost model's pick among the eligible variants with a row, and the runner-up for the
// explanation. No padding bound: the model counts padded tiles itself (ceil in its tile and k-tile
// counts), and at M = 48, 96 or 192 the least padded tiles (16 or 32 rows, 64 rows) are the slow
// ones where the next power of two's 64- and 128-row tiles run in two thirds of their time.
struct ModelPick {
  const GemmVariant* best = nullptr;
  const GemmVariant* next = nullptr;
  double best_us = 0.0, next_us = 0.0;
};

ModelPick pick_by_model(std::span<const GemmVariant> variants, const GemmTables& tables, const GemmProblem& p,
                        Target target, int problem_align, const Heuristic& h) {
  ModelPick pick;
  if (tables.model.empty() || h.best == nullptr) return pick;
  bool const indexed = tables.model_rows.size() == variants.size();
  for (size_t i = 0; i < variants.size(); ++i) {
    const GemmVariant& v = variants[i];
    if (v.target != target || !computes(v, p) || !aligned_for(v, problem_align)) continue;
    const GemmCostModel* row = indexed ? tables.model_rows[i] : find_gemm_cost_model(tables.model, target, v.name);
    if (row == nullptr) continue;
    double const us = gemm_model_us(*row, v, p, tables.multiprocessors);
    if (!std::isfinite(us)) continue;
    if (pick.best == nullptr || us < pick.best_us) {
      pick.next = pick.best;
      pick.next_us = pick.best_us;
      pick.best = &v;
      pick.best_us = us;
    } else if (pick.next == nullptr || us < pick.next_us) {
      pick.next = &v;
      pick.next_us = us;
    }
  }
  return pick;
}

// `refused`: the entry at the call's shape names a variant that was passed over (the reason says so
// before this).
std::string model_why(const ModelPick& pick, const Heuristic& h, Target target, bool refused = false) {
  char text[160];
  std::snprintf(text, sizeof text, "cost model: %.3g us predicted", pick.best_us);
  std::string why = text;
  if (pick.next != nullptr) {
    std::snprintf(text, sizeof text, " (next %.3g us: ", pick.next_us);
    why += text + std::string(pick.next->name) + ")";
  }
  return why + (refused ? "; among " : ", no tuned entry at this shape; among ") + std::to_string(h.eligible) + " eligible of " +
         std::to_string(h.on_target) + " " + target_name(target) + " variants";
}

// The model is fitted to the tuning listing's shapes (tools/gemm_cost_model.py), and beyond the
// least N and K tuned for the target it extrapolates: on 2026-12-06 (H200) it picked, at the
// origin's 64 x 16 x 128, a 16x64 cell of byte copies running 7.5 us where the heuristic's exact
// 64x16 tile runs 4.7. So it predicts only where N and K reach those; empty tables (a test's
// model alone) put no bound. Returns the bound that excludes the call, or "".
std::string beyond_model_reach(std::span<const GemmTuning> tuning, const GemmProblem& p, Target target) {
  int64_t least_n = 0, least_k = 0;
  for (const GemmTuning& t : tuning) {
    if (t.target != target) continue;
    least_n = least_n == 0 ? t.n : std::min(least_n, t.n);
    least_k = least_k == 0 ? t.k : std::min(least_k, t.k);
  }
  if (p.n >= least_n && p.k >= least_k) return {};
  return "no cost model below the least tuned N and K (" + std::to_string(least_n) + ", " + std::to_string(least_k) +
         ")";
}

}  // namespace

std::string gemm_kernel_size_rejection(const GemmProblem& p) {
  if (p.m <= kGemmKernelMaxDim && p.n <= kGemmKernelMaxDim && p.k <= kGemmKernelMaxDim) return {};
  return "the GPU kernels take M, N and K of at most 2^31 - 4097 (32-bit counts with a tile's reach past the end): " +
         shape_text(p.m, p.n, p.k);
}

const GemmVariant* select_gemm_variant(std::span<const GemmVariant> variants, const GemmTables& tables,
                                       const GemmProblem& p, Target target, std::string* why) {
  std::span<const GemmTuning> const tuning = tables.tuning;
  if (target != Target::host) {
    if (std::string too_large = gemm_kernel_size_rejection(p); !too_large.empty()) {
      if (why != nullptr) *why = too_large;
      return nullptr;
    }
  }
  int const problem_align = gemm_alignment_elems(p);
  if (tables.forced != nullptr) {  // a measuring run: this variant or none
    const GemmVariant* forced = find_variant(variants, tables.forced);
    std::string const refused = forced == nullptr ? "names no compiled variant" : refusal(*forced, p, target, problem_align);
    if (why != nullptr) {
      *why = "FLY_GEMM_VARIANT=" + std::string(tables.forced) + (refused.empty() ? " (forced; no table or model consulted)" : " " + refused);
    }
    return refused.empty() ? forced : nullptr;
  }
  Heuristic const h = run_heuristic(variants, p, target, problem_align);
  Reach reach = Reach::shape;
  const GemmTuning* tuned = nearest_gemm_tuning(tuning, p, target);
  if (tuned == nullptr) {
    reach = Reach::output;
    tuned = nearest_gemm_tuning_by_output(tuning, p, target);
  }
  if (tuned == nullptr && p.m <= kTuningDecodeRows) {
    reach = Reach::rows;
    tuned = nearest_gemm_tuning_by_m(tuning, p, target);
  }
  char const* const reached = reach == Reach::rows ? "nearest M" : "nearest M and M x N";
  const GemmVariant* v = nullptr;
  std::string passed_over;  // why the tuned entry's variant does not run this call
  bool exact = false;       // the entry is at the call's own shape
  if (tuned != nullptr) {
    v = find_variant(variants, tuned->variant);
    passed_over = v == nullptr ? "is not compiled in (FLY_GEMM_FILTER, or renamed since it was measured?)"
                               : refusal(*v, p, target, problem_align);
    double const slack = h.best != nullptr ? kBeyondPaddingSlack * h.best_ratio : 0.0;
    if (passed_over.empty() && reach != Reach::shape && h.best != nullptr && padded_ratio(*v, p) > slack &&
        !same_ratio(padded_ratio(*v, p), slack)) {
      char work[64];
      std::snprintf(work, sizeof work, "%.3gx the work, the least padded %.3gx", padded_ratio(*v, p), h.best_ratio);
      passed_over = std::string("(") + reached + ", at " + shape_text(tuned->m, tuned->n, tuned->k) +
                    ") pads this call to " + work;
    }
    exact = reach == Reach::shape && tuned->m == p.m && tuned->n == p.n && tuned->k == p.k;
  }
  bool const tuned_runs = tuned != nullptr && passed_over.empty();
  // A measurement at the call's own shape decides; anywhere else within its reach the model
  // predicts better than the nearest entry.
  std::string const unmodelled = beyond_model_reach(tuning, p, target);
  if (!(tuned_runs && exact) && unmodelled.empty()) {
    if (ModelPick const pick = pick_by_model(variants, tables, p, target, problem_align, h); pick.best != nullptr) {
      if (why != nullptr) {
        *why = model_why(pick, h, target, exact);  // exact here: that entry's variant was refused
        if (exact) *why = "tuned variant " + std::string(tuned->variant) + " " + passed_over + "; " + *why;
      }
      return pick.best;
    }
  }
  if (tuned_runs) {
    if (why != nullptr) {
      *why = "tuned: fastest measured at " + shape_text(tuned->m, tuned->n, tuned->k) +
             (exact                   ? " (this shape)"
              : reach == Reach::shape  ? " (nearest tuned shape)"
              : reach == Reach::output ? " (nearest tuned M and M x N; N or K beyond a factor 2)"
                                       : " (nearest tuned M; N beyond a factor 2)") +
             " among " + std::to_string(h.eligible) + " eligible of " + std::to_string(h.on_target) + " " +
             target_name(target) + " variants";
    }
    return v;
  }
  Heuristic const lds = run_heuristic(variants, p, target, problem_align, true);
  bool const use_lds = prefer_lds(h, lds);
  if (why != nullptr) {
    *why = use_lds ? lds_why(h, lds, p, target, problem_align) : heuristic_why(h, p, target, problem_align);
    if (tuned != nullptr) *why = "tuned variant " + std::string(tuned->variant) + " " + passed_over + "; heuristic: " + *why;
    bool const target_modelled =
        std::any_of(tables.model.begin(), tables.model.end(), [&](const GemmCostModel& row) { return row.target == target; });
    if (!unmodelled.empty() && target_modelled) *why = unmodelled + "; " + *why;
  }
  return use_lds ? lds.best : h.best;
}

const GemmVariant* select_gemm_variant(std::span<const GemmVariant> variants, std::span<const GemmTuning> tuning,
                                       const GemmProblem& problem, Target target, std::string* why) {
  return select_gemm_variant(variants, GemmTables{tuning, {}, 0}, problem, target, why);
}

const GemmVariant* select_gemm_variant(std::span<const GemmVariant> variants, const GemmProblem& problem,
                                       Target target, std::string* why) {
  return select_gemm_variant(variants, GemmTables{}, problem, target, why);
}

const GemmVariant* select_gemm_variant(const GemmProblem& problem, Target target, std::string* why) {
  return select_gemm_variant(gemm_variants(), GemmTables{gemm_tuning(), gemm_cost_model(), 0}, problem, target, why);
}

}  // namespace fly::dispatch
