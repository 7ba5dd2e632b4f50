// Which tuning entry applies to a problem: same target and dtypes, within a factor 2 per
// dimension (or, the farther reaches, in m and m x n, or in m alone), nearest in log2 space.
#include "gemm_tuning.hpp"

#include "tuning_reach.hpp"

namespace fly::dispatch {

double gemm_tuning_distance(const GemmTuning& e, const GemmProblem& p) {
  return log2_ratio(p.m, e.m) + log2_ratio(p.n, e.n) + log2_ratio(p.k, e.k);
}

namespace {

// The nearest entry of the target and dtypes among those `reach` accepts.
template <class Reach>
const GemmTuning* nearest_within(std::span<const GemmTuning> tuning, const GemmProblem& p, Target target, Reach reach) {
  const GemmTuning* best = nullptr;
  double best_distance = 0.0;
  for (const GemmTuning& e : tuning) {
    if (e.target != target || e.ab_type != p.a || e.d_type != p.d || e.variant == nullptr) continue;
    if (e.m < 1 || e.n < 1 || e.k < 1) continue;  // a malformed entry never applies
    if (!reach(e)) continue;
    double const d = gemm_tuning_distance(e, p);
    if (best == nullptr || d < best_distance - kTuningTie) {  // a tie (to rounding) keeps the first listed
      best = &e;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace

const GemmTuning* nearest_gemm_tuning(std::span<const GemmTuning> tuning, const GemmProblem& p, Target target) {
  return nearest_within(tuning, p, target, [&](const GemmTuning& e) {
    return within_factor_2(p.m, e.m) && within_factor_2(p.n, e.n) && within_factor_2(p.k, e.k);
  });
}

const GemmTuning* nearest_gemm_tuning_by_output(std::span<const GemmTuning> tuning, const GemmProblem& p,
                                                Target target) {
  return nearest_within(tuning, p, target, [&](const GemmTuning& e) {
    // m x n within a factor 4, in doubles: the products may pass int64 only for absurd shapes
    double const out = static_cast<double>(p.m) * static_cast<double>(p.n);
    double const entry_out = static_cast<double>(e.m) * static_cast<double>(e.n);
    return within_factor_2(p.m, e.m) && out <= 4.0 * entry_out && entry_out <= 4.0 * out;
  });
}

const GemmTuning* nearest_gemm_tuning_by_m(std::span<const GemmTuning> tuning, const GemmProblem& p, Target target) {
  return nearest_within(tuning, p, target, [&](const GemmTuning& e) { return within_factor_2(p.m, e.m); });
}

}  // namespace fly::dispatch
