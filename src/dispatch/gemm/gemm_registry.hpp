// The GEMM variant registry: what a compiled GEMM kernel tells the dispatcher about itself, and
// the heuristic that picks one for a problem. Internal (C++), not part of the C API.
//
// The generated GPU kernels define gemm_variants() (one static table for the whole library, built
// from the variant grid). Without generated kernels, gemm_registry_host.cpp defines it as an empty
// list; src/dispatch/CMakeLists.txt drops that file when the target property
// FLY_GEMM_GENERATED_REGISTRY is set on `fly` (set it where the generated table is added).
#pragma once

#include "fly/fly.h"
#include "dtype.hpp"
#include "target.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace fly::dispatch {


// One validated GEMM call (see fly_gemm_args in fly.h): D = alpha * scale_a * scale_b * A B^T + beta C.
// Guarantees when a launch function sees it: m, n, k >= 1; lda, ldb >= k; ldd >= n; a == b's dtype;
// C is null iff beta == 0 (do not read C then), and when not null c == d's dtype and ldc >= n;
// scale_a / scale_b may be null (meaning 1); every extent fits in int64 bytes.
struct GemmProblem {
  int64_t m, n, k, lda, ldb, ldc, ldd;
  fly_dtype_t a, b, c, d;
  float alpha, beta;
  const void* A;
  const void* B;
  const void* C;
  void* D;
  const float* scale_a;
  const float* scale_b;
};

struct GemmVariant {
  const char* name;      // unique, e.g. "gemm_sm90a_e4m3fn_bf16_64x64x128_w2x2_u32_s1"
  Target target;
  fly_dtype_t ab_type;   // A and B element type
  fly_dtype_t d_type;    // D (and C) element type
  int bm, bn, bk;        // block tile, each >= 1
  int align_elems;       // a power of two: K, lda and ldb must be multiples, and A and B aligned to
                         // align_elems * sizeof(ab_type) bytes
  // Enqueues the GEMM on the caller's stream (a cudaStream_t / hipStream_t): no host
  // synchronisation, no allocation. Must handle any m, n, k >= 1 (partial tiles) and any ldc/ldd.
  fly_status_t (*launch)(const GemmProblem&, void* stream);
  // gfx942 GemmLdsBlock (global -> LDS -> MFMA): the heuristic prefers these (select_gemm_variant).
  bool lds_pipeline = false;
  // Blocks a tile's K is split over (the `:kN` cells, a cluster of N): the cost model counts blocks.
  int split_k = 1;
};

// Every variant compiled into the library (empty without generated GPU kernels).
std::span<const GemmVariant> gemm_variants();

struct GemmTuning;  // gemm_tuning.hpp: one measured entry of a tuning table
struct GemmTables;  // gemm_tuning.hpp: the tuning entries, the cost model and the SM count

// The variant to run `problem` on a `target` device, among `variants`.
// A tuning entry at the problem's own shape (m, n, k, dtypes, target) names the variant when it is
// in `variants` and eligible. Otherwise the cost model (tables.model, gemm_cost_model.hpp), when
// it has a row for an eligible variant: among those, the least predicted time (the first listed on
// a tie). Failing that,
// the tuning tables' reaches: the entry of `tuning` nearest to the problem (nearest_gemm_tuning in
// gemm_tuning.hpp: same target and dtypes, each of m, n, k within a factor 2; failing that,
// nearest_gemm_tuning_by_output: m within a factor 2 and m x n within 4; failing that and for m <= 32,
// nearest_gemm_tuning_by_m: m alone within a factor 2) names a variant; it runs when it is in
// `variants` and eligible (and, reached beyond a factor 2, pads the call at most 1.25x as much as the
// least padded eligible variant). Otherwise the heuristic. Eligible: same target,
// ab_type == problem.a, d_type == problem.d, a launch function, and lda, ldb, A, B aligned to
// align_elems. Among the eligible: the smallest padded volume ceil(m/bm)bm * ceil(n/bn)bn *
// ceil(k/bk)bk (least padding waste), then the largest tile (bm*bn, then bk), then the first in the
// list. Returns null when none is eligible. When `why` is not null it receives a one-line reason
// (for fly_gemm_explain and FLY_LOG_DISPATCH), without the variant's name: "tuned: ...", or the
// heuristic's reason, prefixed with why a tuned entry that applied was passed over; "cost model:
// ..." for the model's pick. tables.forced (FLY_GEMM_VARIANT) replaces all of this: that variant
// when it can run the call, else null, `why` saying which and why not.
// Overloads: with `tuning` alone, no cost model; without `tuning`, the heuristic alone (a caller's
// own variant list has no tables); without `variants` either, the library's own: gemm_variants(),
// gemm_tuning() and gemm_cost_model().
const GemmVariant* select_gemm_variant(std::span<const GemmVariant> variants, const GemmTables& tables,
                                       const GemmProblem& problem, Target target, std::string* why);
const GemmVariant* select_gemm_variant(std::span<const GemmVariant> variants, std::span<const GemmTuning> tuning,
                                       const GemmProblem& problem, Target target, std::string* why);

// The GPU kernels (every target's) count rows, columns and K in 32 bits, with tile and cluster
// offsets of up to 4096 past the ends (k-tile counts, a cluster's tiles past N): M, N and K must be
// at most kGemmKernelMaxDim. Empty when the problem is within it, else why not (selection refuses
// such a problem on a GPU target, so fly_gemm_explain and fly_gemm agree; the launchers check it
// too).
constexpr int64_t kGemmKernelMaxDim = int64_t{2147483647} - 4096;
std::string gemm_kernel_size_rejection(const GemmProblem& problem);
const GemmVariant* select_gemm_variant(std::span<const GemmVariant> variants, const GemmProblem& problem,
                                       Target target, std::string* why);
const GemmVariant* select_gemm_variant(const GemmProblem& problem, Target target, std::string* why);

// The largest power of two p <= 256 such that K, lda and ldb are multiples of p and A and B are
// aligned to p * sizeof(a) bytes: a variant with align_elems <= p (a power of two) can run.
int gemm_alignment_elems(const GemmProblem& problem) noexcept;


}  // namespace fly::dispatch
