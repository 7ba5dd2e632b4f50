// The host paged-attention decode (see pa_decode_host.hpp).
#include "pa_decode_host.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "fly/numeric/numeric.hpp"
#include "host_threads.hpp"
#include "status_internal.hpp"

namespace fly::dispatch {
namespace {

constexpr int64_t kMaxHeadDim = 256;  // validated: head_dim is 64, 128 or 256

// The float value of every fp8 code, so the inner loop is one load per element.
template <class F8>
const std::array<float, 256>& fp8_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (unsigned code = 0; code < 256; ++code) t[code] = static_cast<float>(F8::from_bits(static_cast<uint8_t>(code)));
    return t;
  }();
  return table;
}

// Element i (in elements from base) of a cache as float.
template <class T>
struct Reader {
  const T* base;
  float operator()(int64_t i) const { return static_cast<float>(base[i]); }
};
struct Fp8Reader {
  const uint8_t* base;
  const float* table;
  float operator()(int64_t i) const { return table[base[i]]; }
};

float load_q(const void* q, fly_dtype_t type, int64_t i) {
  if (type == FLY_DTYPE_BF16) return static_cast<float>(static_cast<const fly::bfloat16*>(q)[i]);
  return static_cast<float>(static_cast<const fly::half*>(q)[i]);
}

void store_out(void* out, fly_dtype_t type, int64_t i, float v) {
  if (type == FLY_DTYPE_BF16) {
    static_cast<fly::bfloat16*>(out)[i] = fly::bfloat16(v);
  } else {
    static_cast<fly::half*>(out)[i] = fly::half(v);
  }
}

// Per-thread buffers, sized for one work item: rows = group x q_len query rows.
struct Scratch {
  std::vector<float> q;       // [rows][head_dim]
  std::vector<float> acc;     // [rows][head_dim]
  std::vector<float> logits;  // [rows][tokens of the item's visible span]
  std::vector<float> max, sum;
  std::vector<int64_t> lo, hi;  // each row's visible tokens [lo, hi)
};

// The tokens sequence s's queries may see: L of the header comment.
int64_t visible_len(const PaDecodeProblem& p, int64_t s) { return p.visible_len(p.seq_lens[s]); }

// Decodes K or V row (token slot j of kv head g in block b, or zeros for a bad b) into row[0, head_dim).
template <class Read>
void load_row(const PaDecodeProblem& p, Read read, int64_t block_stride, const KvBlockStrides& st, int64_t x, int64_t b,
              int64_t g, int64_t j, float scale, float* row) {
  if (b < 0 || b >= p.num_blocks) {
    std::fill(row, row + p.head_dim, 0.0f);
    return;
  }
  int64_t const base = b * block_stride + g * st.head;
  for (int64_t d = 0; d < p.head_dim; ++d) {
    int64_t const at = st.dim_major ? base + d * st.dim + j : base + j * st.slot + (d / x) * st.chunk + d % x;
    row[d] = read(at) * scale;
  }
}

// One work item: every query row of kv head g of sequence s.
template <class Read>
void decode_item(const PaDecodeProblem& p, Read k_read, Read v_read, float k_scale, float v_scale, int64_t s, int64_t g,
                 Scratch& sc) {
  int64_t const D = p.head_dim;
  int64_t const group = p.group();
  int64_t const rows = p.rows_per_kv_head();
  int64_t const x = 16 / (p.kv_type == FLY_DTYPE_BF16 || p.kv_type == FLY_DTYPE_F16 ? 2 : 1);
  KvBlockStrides const ks = k_block_strides(p);
  KvBlockStrides const vs = v_block_strides(p);
  int64_t const L = visible_len(p, s);
  // row r = hh * q_len + i: query head g * group + hh, new token i
  int64_t t_begin = L, t_end = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t const i = r % p.q_len;
    int64_t const end = L - p.q_len + i + 1;  // causal: t <= L - q_len + i
    int64_t const begin = p.sliding_window > 0 && p.sliding_window < end ? end - p.sliding_window : 0;
    sc.lo[r] = begin;
    sc.hi[r] = std::max(begin, end);
    if (begin < end) {
      t_begin = std::min(t_begin, begin);
      t_end = std::max(t_end, end);
    }
    int64_t const h = g * group + r / p.q_len;
    int64_t const q_at = s * p.q_stride_seq + i * p.q_stride_token + h * p.q_stride_head;
    for (int64_t d = 0; d < D; ++d) sc.q[r * D + d] = load_q(p.q, p.q_type, q_at + d);
  }
  int64_t const span = std::max<int64_t>(t_end - t_begin, 0);
  sc.logits.resize(static_cast<size_t>(rows * span));  // capacity reserved by the caller
  const int32_t* table = p.block_tables + s * p.block_table_stride;
  float row[kMaxHeadDim];
  // logits: one K row decode per token, dotted with every row that sees it
  for (int64_t t = t_begin; t < t_end; ++t) {
    load_row(p, k_read, p.k_block_stride, ks, x, table[t / p.block_size], g, t % p.block_size, k_scale, row);
    for (int64_t r = 0; r < rows; ++r) {
      if (t < sc.lo[r] || t >= sc.hi[r]) continue;
      float dot = 0.0f;
      for (int64_t d = 0; d < D; ++d) dot += sc.q[r * D + d] * row[d];
      float logit = p.scale * dot;
      if (p.logit_softcap > 0.0f) logit = p.logit_softcap * std::tanh(logit / p.logit_softcap);
      sc.logits[r * span + (t - t_begin)] = logit;
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t t = sc.lo[r]; t < sc.hi[r]; ++t) {
      float const l = sc.logits[r * span + (t - t_begin)];
      if (l > m || std::isnan(l)) m = l;  // a NaN logit makes the row NaN, and stays
      if (std::isnan(m)) break;
    }
    // logits all -inf give no token a weight: the row is one that sees none (fly.h), sink or not
    if (m == -std::numeric_limits<float>::infinity()) sc.hi[r] = sc.lo[r];
    if (p.sinks != nullptr && sc.lo[r] < sc.hi[r]) m = std::max(m, p.sinks[g * group + r / p.q_len]);
    sc.max[r] = m;
    sc.sum[r] = 0.0f;
    std::fill(sc.acc.begin() + r * D, sc.acc.begin() + (r + 1) * D, 0.0f);
  }
  // p_t = exp(logit - m), accumulated with V in token order
  for (int64_t t = t_begin; t < t_end; ++t) {
    load_row(p, v_read, p.v_block_stride, vs, x, table[t / p.block_size], g, t % p.block_size, v_scale, row);
    for (int64_t r = 0; r < rows; ++r) {
      if (t < sc.lo[r] || t >= sc.hi[r]) continue;
      float const pt = std::exp(sc.logits[r * span + (t - t_begin)] - sc.max[r]);
      sc.sum[r] += pt;
      for (int64_t d = 0; d < D; ++d) sc.acc[r * D + d] += pt * row[d];
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    int64_t const i = r % p.q_len;
    int64_t const h = g * group + r / p.q_len;
    bool const empty = sc.lo[r] >= sc.hi[r];
    float denom = sc.sum[r];
    if (p.sinks != nullptr && !empty) denom += std::exp(p.sinks[h] - sc.max[r]);
    int64_t const out_at = s * p.out_stride_seq + i * p.out_stride_token + h * p.out_stride_head;
    for (int64_t d = 0; d < D; ++d) store_out(p.out, p.q_type, out_at + d, empty ? 0.0f : sc.acc[r * D + d] / denom);
    if (p.lse != nullptr) {
      p.lse[(s * p.q_len + i) * p.num_q_heads + h] = empty ? -std::numeric_limits<float>::infinity() : sc.max[r] + std::log(denom);
    }
  }
}

// Items [begin, end) of the (sequence, kv head) list on one thread; false when scratch memory fails.
template <class Read>
bool decode_items(const PaDecodeProblem& p, Read k_read, Read v_read, float k_scale, float v_scale, int64_t begin,
                  int64_t end) noexcept {
  Scratch sc;
  try {
    auto const rows = static_cast<size_t>(p.rows_per_kv_head());
    int64_t longest = 0;
    for (int64_t it = begin; it < end; ++it) longest = std::max(longest, visible_len(p, it / p.num_kv_heads));
    sc.q.resize(rows * static_cast<size_t>(p.head_dim));
    sc.acc.resize(rows * static_cast<size_t>(p.head_dim));
    sc.logits.reserve(rows * static_cast<size_t>(longest));
    sc.max.resize(rows);
    sc.sum.resize(rows);
    sc.lo.resize(rows);
    sc.hi.resize(rows);
  } catch (...) {
    return false;
  }
  for (int64_t it = begin; it < end; ++it) decode_item(p, k_read, v_read, k_scale, v_scale, it / p.num_kv_heads, it % p.num_kv_heads, sc);
  return true;
}

// The thread count for a problem: one thread under ~1M multiply-adds, at most one per work item.
int threads_for(const PaDecodeProblem& p, int64_t items) {
  double const tokens = std::min(static_cast<double>(p.max_seq_len), static_cast<double>(p.max_blocks_per_seq) * static_cast<double>(p.block_size));
  double const work = static_cast<double>(p.num_seqs * p.num_q_heads * p.q_len) * tokens * static_cast<double>(p.head_dim) * 2.0;
  unsigned const hw = std::thread::hardware_concurrency();
  double const limit = std::min({static_cast<double>(hw == 0 ? 1u : hw), 64.0, static_cast<double>(items), work / double(1 << 20)});
  return std::max(1, static_cast<int>(limit));
}

// Splits the items over threads (host_threads.hpp).
template <class Read>
fly_status_t run(const PaDecodeProblem& p, Read k_read, Read v_read, float k_scale, float v_scale) noexcept {
  int64_t const items = p.num_seqs * p.num_kv_heads;
  std::atomic<bool> ok{true};
  run_on_threads(threads_for(p, items), [&](int t, int n) {
    int64_t const per = (items + n - 1) / n;
    int64_t const begin = std::min(items, per * t);
    if (!decode_items(p, k_read, v_read, k_scale, v_scale, begin, std::min(items, begin + per))) ok = false;
  });
  return ok ? FLY_STATUS_SUCCESS : detail::fail(FLY_STATUS_INTERNAL_ERROR, "host_pa_decode: out of memory for scratch buffers");
}

}  // namespace

fly_status_t host_pa_decode(const PaDecodeProblem& p) noexcept {
  if (p.q_type != FLY_DTYPE_BF16 && p.q_type != FLY_DTYPE_F16) {
    return detail::fail(FLY_STATUS_INTERNAL_ERROR, "host_pa_decode: unsupported q dtype");
  }
  bool const fp8 = p.kv_type == FLY_DTYPE_E4M3FN || p.kv_type == FLY_DTYPE_E4M3FNUZ;
  // the scales dequantise fp8 caches only (fly.h); 16-bit caches ignore them
  float const ks = fp8 && p.k_scale != nullptr ? *p.k_scale : 1.0f;
  float const vs = fp8 && p.v_scale != nullptr ? *p.v_scale : 1.0f;
  switch (p.kv_type) {
    case FLY_DTYPE_BF16:
      return run(p, Reader<fly::bfloat16>{static_cast<const fly::bfloat16*>(p.k_cache)},
                 Reader<fly::bfloat16>{static_cast<const fly::bfloat16*>(p.v_cache)}, ks, vs);
    case FLY_DTYPE_F16:
      return run(p, Reader<fly::half>{static_cast<const fly::half*>(p.k_cache)},
                 Reader<fly::half>{static_cast<const fly::half*>(p.v_cache)}, ks, vs);
    case FLY_DTYPE_E4M3FN: {
      const float* table = fp8_table<fly::float8_e4m3fn>().data();
      return run(p, Fp8Reader{static_cast<const uint8_t*>(p.k_cache), table}, Fp8Reader{static_cast<const uint8_t*>(p.v_cache), table}, ks, vs);
    }
    case FLY_DTYPE_E4M3FNUZ: {
      const float* table = fp8_table<fly::float8_e4m3fnuz>().data();
      return run(p, Fp8Reader{static_cast<const uint8_t*>(p.k_cache), table}, Fp8Reader{static_cast<const uint8_t*>(p.v_cache), table}, ks, vs);
    }
    default: break;
  }
  return detail::fail(FLY_STATUS_INTERNAL_ERROR, "host_pa_decode: unsupported kv dtype");
}

}  // namespace fly::dispatch
