// GEMM variant selection: eligibility (target, dtypes, alignment), then least padding waste, then
// the largest tile.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "gemm_registry.hpp"

namespace fly::dispatch {

const char* target_name(Target target) noexcept {
  switch (target) {
    case Target::host: return "host";
    case Target::sm90a: return "sm90a";
    case Target::gfx942: return "gfx942";
  }
  return "unknown";
}

int64_t dtype_bytes(fly_dtype_t dtype) noexcept {
  switch (dtype) {
    case FLY_DTYPE_F32: return 4;
    case FLY_DTYPE_F16:
    case FLY_DTYPE_BF16: return 2;
    case FLY_DTYPE_E4M3FN:
    case FLY_DTYPE_E4M3FNUZ: return 1;
  }
  return 0;
}

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

}  // namespace

const GemmVariant* select_gemm_variant(std::span<const GemmVariant> variants, const GemmProblem& p,
                                       Target target, std::string* why) {
  int const problem_align = gemm_alignment_elems(p);
  const GemmVariant* best = nullptr;
  double best_ratio = 0.0;
  int on_target = 0;
  int typed = 0;     // on target with the problem's dtypes
  int eligible = 0;  // ... and aligned
  int tied = 0;      // eligible with the best ratio
  int typed_min_align = 0;
  for (const GemmVariant& v : variants) {
    if (v.target != target) continue;
    ++on_target;
    if (v.ab_type != p.a || v.ab_type != p.b || v.d_type != p.d || v.launch == nullptr) continue;
    if (v.bm < 1 || v.bn < 1 || v.bk < 1) continue;  // a malformed table entry never runs
    ++typed;
    if (typed_min_align == 0 || v.align_elems < typed_min_align) typed_min_align = v.align_elems;
    if (!aligned_for(v, problem_align)) continue;
    ++eligible;
    double const r = padded_ratio(v, p);
    if (best == nullptr || (r < best_ratio && !same_ratio(r, best_ratio))) {
      best = &v;
      best_ratio = r;
      tied = 1;
      continue;
    }
    if (!same_ratio(r, best_ratio)) continue;
    ++tied;
    int64_t const area = int64_t{v.bm} * v.bn;
    int64_t const best_area = int64_t{best->bm} * best->bn;
    if (area > best_area || (area == best_area && v.bk > best->bk)) best = &v;
  }
  if (why == nullptr) return best;
  std::string const dtypes =
      std::string(fly_dtype_string(p.a)) + " x " + fly_dtype_string(p.b) + " -> " + fly_dtype_string(p.d);
  std::string const tname = target_name(target);
  if (best == nullptr) {
    if (on_target == 0) {
      *why = "no GEMM variant is compiled for " + tname;
    } else if (typed == 0) {
      *why = "none of the " + std::to_string(on_target) + " " + tname + " variants computes " + dtypes;
    } else {
      *why = "the " + std::to_string(typed) + " " + tname + " variants for " + dtypes +
             " need lda, ldb, A and B aligned to >= " + std::to_string(typed_min_align) +
             " elements; this call's alignment is " + std::to_string(problem_align);
    }
    return nullptr;
  }
  auto padded = [](const char* dim, int64_t x, int tile) {
    return std::string(dim) + " " + std::to_string(x) + "->" + std::to_string(round_up(x, tile));
  };
  char work[32];
  std::snprintf(work, sizeof work, "%.3g", best_ratio);
  *why = "least padding (" + padded("M", p.m, best->bm) + ", " + padded("N", p.n, best->bn) + ", " +
         padded("K", p.k, best->bk) + ": " + work + "x the work) among " + std::to_string(eligible) +
         " eligible of " + std::to_string(on_target) + " " + tname + " variants";
  if (tied > 1) *why += ", largest tile of " + std::to_string(tied) + " tied";
  return best;
}

const GemmVariant* select_gemm_variant(const GemmProblem& problem, Target target, std::string* why) {
  return select_gemm_variant(gemm_variants(), problem, target, why);
}

}  // namespace fly::dispatch
