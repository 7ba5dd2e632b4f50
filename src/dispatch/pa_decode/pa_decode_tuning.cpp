// Which paged-decode tuning entry applies to a problem: same target, dtypes, head_dim, block_size
// and layout, within a factor 2 in each of the four work sizes, nearest in log2 space.
#include "pa_decode_tuning.hpp"

#include "tuning_reach.hpp"

namespace fly::dispatch {

double pa_decode_tuning_distance(const PaDecodeTuning& e, const PaDecodeProblem& p) {
  return log2_ratio(p.num_seqs, e.num_seqs) + log2_ratio(p.rows_per_kv_head(), e.rows) +
         log2_ratio(p.num_kv_heads, e.num_kv_heads) + log2_ratio(p.max_seq_len, e.max_seq_len);
}

const PaDecodeTuning* nearest_pa_decode_tuning(std::span<const PaDecodeTuning> tuning, const PaDecodeProblem& p,
                                               Target target) {
  const PaDecodeTuning* best = nullptr;
  double best_distance = 0.0;
  for (const PaDecodeTuning& e : tuning) {
    if (e.target != target || e.kv_type != p.kv_type || e.q_type != p.q_type || e.head_dim != p.head_dim ||
        e.block_size != p.block_size || e.layout != p.layout || e.variant == nullptr)
      continue;
    if (e.num_seqs < 1 || e.rows < 1 || e.num_kv_heads < 1 || e.max_seq_len < 1) continue;  // malformed: never applies
    if (!within_factor_2(p.num_seqs, e.num_seqs) || !within_factor_2(p.rows_per_kv_head(), e.rows) ||
        !within_factor_2(p.num_kv_heads, e.num_kv_heads) || !within_factor_2(p.max_seq_len, e.max_seq_len))
      continue;
    const double d = pa_decode_tuning_distance(e, p);
    if (best == nullptr || d < best_distance - kTuningTie) {  // a tie (to rounding) keeps the first listed
      best = &e;
      best_distance = d;
    }
  }
  return best;
}

std::string pa_decode_tuning_shape(const PaDecodeTuning& e) {
  return std::to_string(e.num_seqs) + " seqs x " + std::to_string(e.max_seq_len) + " tokens, " +
         std::to_string(e.num_kv_heads) + " kv heads x " + std::to_string(e.rows) + " rows";
}

}  // namespace fly::dispatch
