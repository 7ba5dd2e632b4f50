// Picking a paged-decode variant and its split plan (pa_decode_registry.hpp): a tuned entry
// (pa_decode_tuning.hpp) when its variant can run the call, else the ranking below.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>

#include "pa_decode_registry.hpp"
#include "pa_decode_tma.hpp"
#include "pa_decode_tuning.hpp"

namespace fly::dispatch {
namespace {

// A split shorter than this costs more in partial results and reduction than it gains in blocks.
constexpr int64_t kMinSplitTokens = 256;
constexpr int kMaxSplits = 64;
// The wave model of the split plan, in pipeline steps: a block costs its steps plus its prologue
// (the first stages' latency) and epilogue; a split plan pays the reduction once.
constexpr int64_t kBlockOverheadSteps = 2;
constexpr int64_t kReduceSteps = 2;

// max_seq_len's margin below 2^31 (pa_decode_kernel_size_rejection): the split plan's rounding (up
// to kMaxSplits steps past the context) and the lookups ahead of a block's end.
constexpr int64_t kMaxKernelSeqLen = INT32_MAX - (int64_t{1} << 16);

const char* layout_text(bool dim_major) { return dim_major ? "dim-major (vllm)" : "token-major (nhd/hnd)"; }

// Whether `v` can run `p` on `target`; when it cannot and `reason` is not null, why ("is a gfx942
// variant", ...). The one definition of eligibility: the ranking's, and the reason a tuned variant
// was passed over. The reason is spelled only when asked: this runs for every variant of every call.
bool eligible(const PaDecodeVariant& v, const PaDecodeProblem& p, Target target, std::string* reason = nullptr) {
  auto refuse = [&](auto&& spell) {
    if (reason != nullptr) *reason = spell();
    return false;
  };
  if (v.target != target) return refuse([&] { return std::string("is a ") + target_name(v.target) + " variant"; });
  if (v.launch == nullptr) return refuse([] { return std::string("has no launch function"); });
  const bool fp8 = p.kv_type == FLY_DTYPE_E4M3FN || p.kv_type == FLY_DTYPE_E4M3FNUZ;
  const fly_dtype_t kv_class = fp8 ? FLY_DTYPE_E4M3FN : p.kv_type;
  if (v.kv_class != kv_class) {
    return refuse([&] {
      return std::string("reads a ") + (v.kv_class == FLY_DTYPE_E4M3FN ? "fp8" : fly_dtype_string(v.kv_class)) +
             " cache, not " + fly_dtype_string(p.kv_type);
    });
  }
  if (v.head_dim != p.head_dim) {
    return refuse([&] { return "is for head_dim " + std::to_string(v.head_dim) + ", not " + std::to_string(p.head_dim); });
  }
  const bool dim_major = p.layout == FLY_KV_LAYOUT_VLLM;
  if (v.v_dim_major != dim_major) {
    return refuse([&] {
      return std::string("reads V ") + layout_text(v.v_dim_major) + ", this cache's V is " + layout_text(dim_major);
    });
  }
  if (v.tma) {  // its cp.async twin takes the call
    if (std::string no_tma = pa_decode_tma_rejection(p); !no_tma.empty()) {
      return refuse([&] { return "is TMA-fed and this cache is not a TMA tensor: " + no_tma; });
    }
  }
  return true;
}

const PaDecodeVariant* find_variant(std::span<const PaDecodeVariant> variants, const char* name) {
  for (const PaDecodeVariant& v : variants) {
    if (v.name != nullptr && std::strcmp(v.name, name) == 0) return &v;
  }
  return nullptr;
}

// Tuning switches read once per process (docs/pa-decode.md): FLY_PA_DECODE_VARIANT=<name> restricts
// the choice to one variant; FLY_PA_DECODE_BLOCKS_PER_SM=<n> replaces the measured resident
// blocks per SM in the split plan.
const char* forced_variant() {
  static const char* name = std::getenv("FLY_PA_DECODE_VARIANT");
  return name != nullptr && name[0] != '\0' ? name : nullptr;
}
int64_t blocks_per_sm(const PaDecodeVariant& v) {
  static const int64_t forced = [] {
    const char* s = std::getenv("FLY_PA_DECODE_BLOCKS_PER_SM");
    const long x = s != nullptr ? std::strtol(s, nullptr, 10) : 0;
    return x >= 1 && x <= 64 ? int64_t(x) : 0;
  }();
  if (forced > 0) return forced;
  return v.blocks_per_sm != nullptr ? std::max(1, v.blocks_per_sm()) : 1;
}

// The plan's slots for `v`: SMs x resident blocks, or, for a persistent variant (whose warps are the
// plan's blocks, each taking unit after unit), SMs x resident blocks x warps.
int64_t plan_slots(const PaDecodeVariant& v, int multiprocessors) {
  return std::max<int64_t>(1, multiprocessors) * blocks_per_sm(v) * (v.persistent ? v.warps : 1);
}

// The split count that finishes soonest when blocks run in waves of `slots` (SMs x resident
// blocks): each (sequence, kv head, row chunk) splits its `steps` into equal runs. One wave of
// short blocks beats a long wave plus a tail; ties keep fewer splits (less partial traffic).
PaDecodePlan plan_splits(int64_t base_blocks, int64_t steps, int64_t step_tokens, int64_t slots, int max_splits) {
  PaDecodePlan best;
  int64_t best_cost = INT64_MAX;
  const int64_t most = std::clamp<int64_t>(max_splits, 1, steps);
  for (int64_t s = 1; s <= most; ++s) {
    const int64_t run = (steps + s - 1) / s;
    const int64_t splits = (steps + run - 1) / run;  // equal runs: s may round down
    if (splits != s) continue;
    const int64_t waves = (base_blocks * splits + slots - 1) / slots;
    const int64_t cost = waves * (run + kBlockOverheadSteps) + (splits > 1 ? kReduceSteps : 0);
    if (cost < best_cost) {
      best_cost = cost;
      best.splits = int(splits);
      best.split_tokens = run * step_tokens;
    }
  }
  return best;
}

}  // namespace

std::string pa_decode_kernel_size_rejection(const PaDecodeProblem& p) {
  if (p.num_blocks > INT32_MAX) return "num_blocks (" + std::to_string(p.num_blocks) + ") is above the kernels' 2^31 - 1";
  if (p.max_seq_len > kMaxKernelSeqLen)
    return "max_seq_len (" + std::to_string(p.max_seq_len) + ") is above the kernels' 2^31 - 2^16";
  int64_t rows = 0;
  if (__builtin_mul_overflow(p.num_seqs, p.q_len, &rows) || __builtin_mul_overflow(rows, p.num_q_heads, &rows) ||
      rows > INT32_MAX)
    return "num_seqs x q_len x num_q_heads query rows are above the kernels' 2^31 - 1";
  return {};
}

int pa_decode_max_splits(int64_t max_seq_len) noexcept {
  const int64_t by_len = max_seq_len / kMinSplitTokens + (max_seq_len % kMinSplitTokens != 0);  // no overflow near INT64_MAX
  return int(std::clamp<int64_t>(by_len, 1, kMaxSplits));
}

size_t pa_decode_workspace_bytes(const PaDecodeProblem& p) noexcept {
  const int splits = pa_decode_max_splits(p.max_seq_len);
  if (splits <= 1) return 0;
  // per split and query row: head_dim partial outputs, then (max, sum); then the splits' counters, a
  // 64-bit word per query row at most (pa_decode_split_counters). Saturates instead of wrapping (a
  // problem that large fails its allocation, not its arithmetic).
  size_t rows = 1;
  for (int64_t f : {p.num_seqs, p.q_len, p.num_q_heads}) {
    if (f > 0 && rows > SIZE_MAX / size_t(f)) return SIZE_MAX;
    rows *= size_t(f);
  }
  const size_t per_row = sizeof(float) * size_t(splits) * size_t(p.head_dim + 2) + sizeof(uint64_t);
  return rows > SIZE_MAX / per_row ? SIZE_MAX : rows * per_row;
}

const PaDecodeVariant* select_pa_decode_variant(std::span<const PaDecodeVariant> variants,
                                                std::span<const PaDecodeTuning> tuning, const PaDecodeProblem& p,
                                                Target target, int multiprocessors, PaDecodePlan* plan,
                                                std::string* why) {
  if (std::string too_large = pa_decode_kernel_size_rejection(p); !too_large.empty()) {
    if (why != nullptr) *why = too_large;
    return nullptr;
  }
  const PaDecodeVariant* best = nullptr;
  int on_target = 0, eligible_count = 0;
  const int64_t rows = p.rows_per_kv_head();
  // blocks along a kv head's query rows; each re-reads its share of the cache
  auto chunks = [&](const PaDecodeVariant& x) { return (rows + x.rows_per_block - 1) / x.rows_per_block; };
  for (const PaDecodeVariant& v : variants) {
    if (v.target == target) ++on_target;
    if (!eligible(v, p, target)) continue;
    if (forced_variant() != nullptr && std::string(v.name) != forced_variant()) continue;
    ++eligible_count;
    // fewest row chunks (each re-reads the cache, from L2 at best), then the fewest rows computed
    // (an 8-row variant where group x q_len <= 8: half the MMAs), then per-warp pipelines (more
    // of the ring in flight, docs/pa-decode.md), among them the persistent ones where the batch
    // alone gives most warps a unit (no block prologue or merge between units; with fewer units
    // they must split contexts, and lose to blocks of warps: docs/pa-decode.md, "Persistent
    // warps"), then TMA feeds (fewer instructions per token), then the deepest pipeline, then
    // (gfx942) the widest buffer loads (fewer load instructions per row). The shared-ring cell
    // comes last: it wins only some long-context fp8 shapes (docs/pa-decode.md, "Shared ring"),
    // which the tuning table names.
    auto persistent_fit = [&](const PaDecodeVariant& x) {
      if (!x.persistent) return 0;
      const int64_t units = p.num_seqs * p.num_kv_heads * chunks(x);
      return 4 * units >= 3 * plan_slots(x, multiprocessors) ? 1 : -1;
    };
    auto rank = [&](const PaDecodeVariant& x) {
      return std::make_tuple(-chunks(x), -chunks(x) * x.rows_per_block, x.ring ? 0 : 1, x.per_warp ? 1 : 0,
                             persistent_fit(x), x.tma ? 1 : 0, int64_t(x.tokens_per_step) * x.stages, x.load_bits);
    };
    if (best == nullptr || rank(v) > rank(*best)) best = &v;
  }
  if (best == nullptr) {
    if (why != nullptr)
      *why = "no compiled " + std::string(target_name(target)) + " variant for head_dim " + std::to_string(p.head_dim) +
             ", kv " + fly_dtype_string(p.kv_type) + (p.kv_type == p.q_type ? "" : std::string(" with q ") + fly_dtype_string(p.q_type)) +
             ", V " + layout_text(p.layout == FLY_KV_LAYOUT_VLLM);
    return nullptr;
  }
  // The table, unless FLY_PA_DECODE_VARIANT already decided (a measuring run).
  const PaDecodeTuning* tuned = forced_variant() == nullptr ? nearest_pa_decode_tuning(tuning, p, target) : nullptr;
  std::string choice;  // why `best`, ahead of the plan in the explanation; empty: the ranking, unremarked
  if (tuned != nullptr) {
    const PaDecodeVariant* v = find_variant(variants, tuned->variant);
    std::string passed_over;
    if (v == nullptr) passed_over = "is not compiled in (FLY_PA_DECODE_FILTER, or renamed since it was measured?)";
    bool usable = v != nullptr && eligible(*v, p, target, &passed_over);
    // an entry serves calls within a factor 2 of its rows: one measured at 8 rows must not send 16
    // to an 8-row variant, whose two chunks would each re-read the cache
    if (usable && chunks(*v) > chunks(*best)) {
      usable = false;
      passed_over = "computes " + std::to_string(v->rows_per_block) + " query rows a block, so this call's " +
                    std::to_string(rows) + " rows take " + std::to_string(chunks(*v)) +
                    " chunks (each re-reads the cache) where the ranking's pick takes " + std::to_string(chunks(*best));
    }
    if (usable) {
      best = v;
      const bool exact = tuned->num_seqs == p.num_seqs && tuned->rows == rows && tuned->num_kv_heads == p.num_kv_heads &&
                         tuned->max_seq_len == p.max_seq_len;
      choice = "tuned: fastest measured at " + pa_decode_tuning_shape(*tuned) +
               (exact ? " (this shape)" : " (nearest tuned shape)") + " among " + std::to_string(eligible_count) +
               " eligible of " + std::to_string(on_target) + " " + target_name(target) + " variants; ";
    } else {
      choice = "tuned variant " + std::string(tuned->variant) + " " + passed_over + "; heuristic: ";
    }
  }
  const int row_chunks = int(chunks(*best));
  const int64_t step = best->tokens_per_step;
  const int64_t steps = std::max<int64_t>(1, (p.max_seq_len + step - 1) / step);
  const int64_t base_blocks = p.num_seqs * p.num_kv_heads * row_chunks;
  const int64_t resident = blocks_per_sm(*best);
  const int64_t sms = std::max<int64_t>(1, multiprocessors);
  PaDecodePlan pl =
      plan_splits(base_blocks, steps, step, plan_slots(*best, multiprocessors), pa_decode_max_splits(p.max_seq_len));
  pl.row_chunks = row_chunks;
  const int64_t units = pa_decode_units(p, pl);
  if (units > INT32_MAX) {
    if (why != nullptr)
      *why = std::string(best->name) + " would take " + std::to_string(units) +
             " units of work (sequences x kv heads x row chunks x splits), above the grid's 2^31 - 1";
    return nullptr;
  }
  if (best->persistent) pl.grid_blocks = std::min(sms * resident, (units + best->warps - 1) / best->warps);
  *plan = pl;
  if (why != nullptr) {
    const std::string work = std::to_string(base_blocks) + (best->persistent ? " units" : " blocks") + " of (sequence, kv head, " +
                             std::to_string(best->rows_per_block) + " query rows) x " + std::to_string(pl.splits) +
                             " splits of " + std::to_string(pl.split_tokens) + " tokens for ";
    *why = choice + work +
           (best->persistent ? std::to_string(pl.grid_blocks) + " persistent blocks of " + std::to_string(best->warps) +
                                   " warps (" + std::to_string(multiprocessors) + " SMs x " + std::to_string(resident) +
                                   " resident blocks), a warp per unit in turn"
                             : std::to_string(multiprocessors) + " SMs x " + std::to_string(resident) + " resident blocks");
  }
  return best;
}

const PaDecodeVariant* select_pa_decode_variant(std::span<const PaDecodeVariant> variants, const PaDecodeProblem& p,
                                                Target target, int multiprocessors, PaDecodePlan* plan,
                                                std::string* why) {
  return select_pa_decode_variant(variants, {}, p, target, multiprocessors, plan, why);
}

}  // namespace fly::dispatch
