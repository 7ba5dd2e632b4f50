// A random fly_pa_decode test case on host memory, its independent double-precision reference and
// a checker. Plain header-only C++ (no GoogleTest), so host and GPU tests share it: a GPU test copies
// the vectors to device memory, calls pa_decode_args with the device pointers, copies out and lse
// back into the case's vectors and calls check_pa_decode.
//
// The data: q (bf16/f16 multiples of 2^-6), a paged K/V cache in the chosen layout (16-bit values
// multiples of 2^-6 in [-2, 2], or fp8 codes of magnitude < 4), block ids drawn at random from
// fewer blocks than the sequences use (scattered and repeated), block table padding columns holding
// garbage, optional K/V interleaving in one allocation, optional lse / sinks / softcap / window /
// fp8 scales / out-of-range block ids / padded or permuted q and out strides. Every element no
// correct implementation reads (stride and block padding) holds NaN, and out / lse start as NaN.
//
// The reference decodes each element's address from fly.h's layout description (not the library's
// KvBlockStrides) and its value with its own codecs, then computes in double. Tolerance per query
// row, u = 2^-24 (fp32): a logit errs by dl <= (D + 3) u scale sum|q k| + 4 u (|logit| + cap); the
// weights by e <= 2 dl + u |logit - max| + 4 u; out before rounding by (2 e + 2 (L + 4) u) max|v|,
// then rounding to q's type adds 2^-8 (bf16) or 2^-11 (f16) of |out| (half an ulp) and a subnormal
// step; lse errs by dl + u |logit - max| + (L + 6) u + 2 u |lse|. Both are doubled for safety.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"  // encoding exact values only; the reference has its own decoders

namespace fly_test {

// q / out element strides: contiguous [seq][token][head][d], padded rows, or heads outside tokens.
enum class StrideMode { contiguous, padded, head_major };

struct PaDecodeConfig {
  int64_t num_seqs = 2, q_len = 1, num_q_heads = 4, num_kv_heads = 2, head_dim = 64, block_size = 16;
  fly_dtype_t q_type = FLY_DTYPE_BF16, kv_type = FLY_DTYPE_BF16;
  fly_kv_layout_t layout = FLY_KV_LAYOUT_VLLM;
  std::vector<int32_t> seq_lens;   // as stored (may exceed max_seq_len or be negative); empty: random 1..100
  int64_t max_seq_len = 0;         // 0: the largest stored seq_len (at least 1)
  int64_t max_blocks_per_seq = 0;  // 0: enough blocks for max_seq_len
  int64_t table_padding = 3;       // block table columns past max_blocks_per_seq (garbage)
  int64_t num_blocks = 0;          // 0: about 2/3 of the blocks the sequences use, so ids repeat
  int64_t block_padding = 0;       // extra 16-byte groups between blocks (NaN)
  bool interleave_kv = false;      // K and V blocks alternate in one allocation
  StrideMode q_strides = StrideMode::contiguous, out_strides = StrideMode::contiguous;
  bool lse = true, sinks = false, scales = false;  // scales: k_scale / v_scale pointers, else null
  float k_scale = 0.375f, v_scale = 1.25f;
  float logit_softcap = 0.0f;
  int64_t sliding_window = 0;
  int bad_block_ids = 0;  // used block table entries set outside [0, num_blocks)
  float scale = 0.0f;     // 0: 2 / sqrt(head_dim)
  uint64_t seed = 1;
};

// Where a test's copies of the case's vectors live (host: the case's own; GPU: device copies).
struct PaDecodeBuffers {
  const void* q;
  void* out;
  float* lse;
  const void* k_bytes;
  const void* v_bytes;  // ignored when K and V are interleaved
  const int32_t* block_tables;
  const int32_t* seq_lens;
  const float* scales;  // {k_scale, v_scale}
  const float* sinks;
};

struct PaDecodeCase {
  PaDecodeConfig c;
  int64_t max_seq_len = 0, max_blocks_per_seq = 0, block_table_stride = 0, num_blocks = 0;
  int64_t block_elems = 0, k_block_stride = 0, v_block_stride = 0, v_offset = 0;  // v_offset: bytes
  int64_t q_stride[3] = {}, out_stride[3] = {};                                     // seq, token, head
  std::vector<uint16_t> q, out;  // out: span + guard, poisoned
  std::vector<float> lse;        // rows + guard, poisoned
  std::vector<uint8_t> k_bytes, v_bytes;  // v_bytes empty when interleaved
  std::vector<int32_t> block_tables, seq_lens;
  std::vector<float> scales, sinks;
  std::vector<char> out_window;  // 1 where out holds a result element
  std::vector<double> ref_out, tol_out, ref_lse, tol_lse;  // ref_out [row][d], rows (s, i, h)
};

constexpr uint16_t kPoison16 = 0x7FFF;      // NaN in bf16 and f16
constexpr uint32_t kPoison32 = 0x7FC0DEADu;  // an fp32 NaN
constexpr int64_t kGuard = 16;               // poisoned elements past out and lse

// ---- independent codecs ------------------------------------------------------------------------

inline int64_t pa_esize(fly_dtype_t t) { return t == FLY_DTYPE_BF16 || t == FLY_DTYPE_F16 ? 2 : 1; }
inline bool pa_fp8(fly_dtype_t t) { return t == FLY_DTYPE_E4M3FN || t == FLY_DTYPE_E4M3FNUZ; }

inline double pa_decode_value(fly_dtype_t t, const uint8_t* p) {
  if (pa_fp8(t)) {
    uint8_t const code = *p;
    bool const fnuz = t == FLY_DTYPE_E4M3FNUZ;
    if (fnuz ? code == 0x80 : (code & 0x7F) == 0x7F) return std::numeric_limits<double>::quiet_NaN();
    int const bias = fnuz ? 8 : 7, e = (code >> 3) & 15, m = code & 7;
    double const v = e == 0 ? std::ldexp(m, 1 - bias - 3) : std::ldexp(8 + m, e - bias - 3);
    return (code & 0x80) != 0 ? -v : v;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  if (t == FLY_DTYPE_BF16) {
    uint32_t const u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  int const e = (bits >> 10) & 31, m = bits & 1023;
  double const v = e == 31 ? (m != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity())
                   : e == 0 ? std::ldexp(m, -24)
                            : std::ldexp(1024 + m, e - 25);
  return (bits & 0x8000) != 0 ? -v : v;
}

// bits of an exactly representable value in a 16-bit type (library encoders: exact, so unambiguous).
inline uint16_t pa_encode16(fly_dtype_t t, float v) {
  return t == FLY_DTYPE_BF16 ? fly::bfloat16(v).bits() : fly::half(v).bits();
}

// Element offset of (kv head g, token slot j, dim d) inside one block, from fly.h's layout table.
inline int64_t pa_in_block(const PaDecodeCase& k, bool is_v, int64_t g, int64_t j, int64_t d) {
  const PaDecodeConfig& c = k.c;
  int64_t const H = c.num_kv_heads, D = c.head_dim, B = c.block_size, x = 16 / pa_esize(c.kv_type);
  switch (c.layout) {
    case FLY_KV_LAYOUT_VLLM:
      return is_v ? (g * D + d) * B + j                   // V [H][D][B]
                  : ((g * (D / x) + d / x) * B + j) * x + d % x;  // K [H][D/x][B][x]
    case FLY_KV_LAYOUT_NHD: return (j * H + g) * D + d;  // [B][H][D]
    default: return (g * B + j) * D + d;                  // HND [H][B][D]
  }
}

// ---- the case -----------------------------------------------------------------------------------

inline void pa_set_strides(StrideMode m, const PaDecodeConfig& c, int64_t* st) {
  int64_t const D = c.head_dim, H = c.num_q_heads, T = c.q_len;
  switch (m) {
    case StrideMode::contiguous: st[2] = D, st[1] = H * D, st[0] = T * H * D; break;
    case StrideMode::padded: st[2] = D + 8, st[1] = H * (D + 8) + 16, st[0] = T * st[1] + 24; break;
    case StrideMode::head_major: st[1] = D + 8, st[2] = T * (D + 8), st[0] = H * st[2] + 8; break;
  }
}

inline int64_t pa_span(const PaDecodeConfig& c, const int64_t* st) {
  return (c.num_seqs - 1) * st[0] + (c.q_len - 1) * st[1] + (c.num_q_heads - 1) * st[2] + c.head_dim;
}

inline int64_t pa_row_offset(const int64_t* st, int64_t s, int64_t i, int64_t h) { return s * st[0] + i * st[1] + h * st[2]; }

inline void pa_reference(PaDecodeCase& k);

// Outputs back to NaN (before a call).
inline void poison_outputs(PaDecodeCase& k) {
  std::fill(k.out.begin(), k.out.end(), kPoison16);
  float nan;
  std::memcpy(&nan, &kPoison32, 4);
  std::fill(k.lse.begin(), k.lse.end(), nan);
}

inline PaDecodeCase make_pa_decode_case(const PaDecodeConfig& config) {
  PaDecodeCase k;
  k.c = config;
  PaDecodeConfig& c = k.c;
  std::mt19937_64 rng(c.seed);
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  if (c.seq_lens.empty()) {
    for (int64_t s = 0; s < c.num_seqs; ++s) c.seq_lens.push_back(static_cast<int32_t>(uni(1, 100)));
  }
  c.seq_lens.resize(static_cast<size_t>(c.num_seqs), 1);
  if (c.scale == 0.0f) c.scale = 2.0f / std::sqrt(static_cast<float>(c.head_dim));
  int64_t const D = c.head_dim, B = c.block_size, kv_es = pa_esize(c.kv_type);
  // sizes
  k.max_seq_len = c.max_seq_len;
  if (k.max_seq_len == 0) k.max_seq_len = std::max<int64_t>(1, *std::max_element(c.seq_lens.begin(), c.seq_lens.end()));
  k.max_blocks_per_seq = c.max_blocks_per_seq != 0 ? c.max_blocks_per_seq : (k.max_seq_len + B - 1) / B;
  k.block_table_stride = k.max_blocks_per_seq + c.table_padding;
  int64_t used = 0;
  for (int32_t len : c.seq_lens) used += (std::clamp<int64_t>(len, 0, std::min(k.max_seq_len, k.max_blocks_per_seq * B)) + B - 1) / B;
  k.num_blocks = c.num_blocks != 0 ? c.num_blocks : std::max<int64_t>(2, used * 2 / 3 + 1);
  k.block_elems = c.num_kv_heads * B * D;
  int64_t const pad = c.block_padding * (16 / kv_es);
  k.k_block_stride = k.v_block_stride = (c.interleave_kv ? 2 : 1) * k.block_elems + pad;
  k.v_offset = c.interleave_kv ? k.block_elems * kv_es : 0;
  // q, out (poisoned padding)
  pa_set_strides(c.q_strides, c, k.q_stride);
  pa_set_strides(c.out_strides, c, k.out_stride);
  k.q.assign(static_cast<size_t>(pa_span(c, k.q_stride)), kPoison16);
  k.out.assign(static_cast<size_t>(pa_span(c, k.out_stride) + kGuard), kPoison16);
  k.out_window.assign(k.out.size(), 0);
  for (int64_t s = 0; s < c.num_seqs; ++s)
    for (int64_t i = 0; i < c.q_len; ++i)
      for (int64_t h = 0; h < c.num_q_heads; ++h)
        for (int64_t d = 0; d < D; ++d) {
          k.q[pa_row_offset(k.q_stride, s, i, h) + d] = pa_encode16(c.q_type, static_cast<float>(uni(-64, 64)) / 64.0f);
          k.out_window[pa_row_offset(k.out_stride, s, i, h) + d] = 1;
        }
  k.lse.assign(static_cast<size_t>(c.num_seqs * c.q_len * c.num_q_heads + kGuard), 0.0f);
  // caches: every element NaN, then each block's K and V values
  uint8_t const nan8 = c.kv_type == FLY_DTYPE_E4M3FNUZ ? 0x80 : 0x7F;
  auto fill_nan = [&](std::vector<uint8_t>& v, int64_t bytes) {
    v.resize(static_cast<size_t>(bytes));
    for (size_t i = 0; i < v.size(); ++i) v[i] = kv_es == 1 ? nan8 : (i % 2 == 0 ? 0xFF : 0x7F);  // 0x7FFF little-endian
  };
  fill_nan(k.k_bytes, k.num_blocks * k.k_block_stride * kv_es);
  if (!c.interleave_kv) fill_nan(k.v_bytes, k.num_blocks * k.v_block_stride * kv_es);
  auto random_element = [&](uint8_t* p) {
    if (pa_fp8(c.kv_type)) {
      int const bias = c.kv_type == FLY_DTYPE_E4M3FNUZ ? 8 : 7;
      auto code = static_cast<uint8_t>((uni(0, 1) << 7) | (uni(0, bias + 1) << 3) | uni(0, 7));  // |v| < 4
      if (code == 0x80) code = 0;  // e4m3fnuz's NaN
      *p = code;
    } else {
      uint16_t const bits = pa_encode16(c.kv_type, static_cast<float>(uni(-128, 128)) / 64.0f);
      std::memcpy(p, &bits, 2);
    }
  };
  for (int64_t b = 0; b < k.num_blocks; ++b) {
    for (int64_t e = 0; e < k.block_elems; ++e) {
      random_element(&k.k_bytes[(b * k.k_block_stride + e) * kv_es]);
      std::vector<uint8_t>& v = c.interleave_kv ? k.k_bytes : k.v_bytes;
      random_element(&v[k.v_offset + (b * k.v_block_stride + e) * kv_es]);
    }
  }
  // block tables: random ids in the used columns, garbage in the padding
  k.block_tables.assign(static_cast<size_t>(c.num_seqs * k.block_table_stride), -7);
  for (int64_t s = 0; s < c.num_seqs; ++s)
    for (int64_t j = 0; j < k.max_blocks_per_seq; ++j) k.block_tables[s * k.block_table_stride + j] = static_cast<int32_t>(uni(0, k.num_blocks - 1));
  for (int n = 0; n < c.bad_block_ids; ++n) {
    int64_t const s = uni(0, c.num_seqs - 1);
    int64_t const len = std::clamp<int64_t>(c.seq_lens[s], 0, std::min(k.max_seq_len, k.max_blocks_per_seq * B));
    int64_t const col = len > 0 ? uni(0, (len - 1) / B) : 0;
    int32_t const bad[] = {-1, static_cast<int32_t>(k.num_blocks), static_cast<int32_t>(k.num_blocks + 5),
                           std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    k.block_tables[s * k.block_table_stride + col] = bad[n % 5];
  }
  k.seq_lens = c.seq_lens;
  k.scales = {c.k_scale, c.v_scale};
  for (int64_t h = 0; h < c.num_q_heads; ++h) k.sinks.push_back(static_cast<float>(uni(-16, 24)) / 8.0f);
  pa_reference(k);
  poison_outputs(k);
  return k;
}
inline PaDecodeBuffers host_buffers(PaDecodeCase& k) {
  return {k.q.data(),       k.out.data(),          k.lse.data(),    k.k_bytes.data(), k.v_bytes.data(),
          k.block_tables.data(), k.seq_lens.data(), k.scales.data(), k.sinks.data()};
}

// The call's arguments with the case's data at `b`.
inline fly_pa_decode_args pa_decode_args(const PaDecodeCase& k, const PaDecodeBuffers& b) {
  const PaDecodeConfig& c = k.c;
  fly_pa_decode_args a = FLY_PA_DECODE_ARGS_INIT;
  a.num_seqs = c.num_seqs;
  a.q_len = c.q_len;
  a.num_q_heads = c.num_q_heads;
  a.num_kv_heads = c.num_kv_heads;
  a.head_dim = c.head_dim;
  a.q_type = c.q_type;
  a.kv_type = c.kv_type;
  a.kv_layout = c.layout;
  a.q = b.q;
  a.q_stride_seq = k.q_stride[0], a.q_stride_token = k.q_stride[1], a.q_stride_head = k.q_stride[2];
  a.out = b.out;
  a.out_stride_seq = k.out_stride[0], a.out_stride_token = k.out_stride[1], a.out_stride_head = k.out_stride[2];
  a.lse = c.lse ? b.lse : nullptr;
  a.k_cache = b.k_bytes;
  a.v_cache = static_cast<const uint8_t*>(c.interleave_kv ? b.k_bytes : b.v_bytes) + k.v_offset;
  a.num_blocks = k.num_blocks;
  a.block_size = c.block_size;
  a.k_block_stride = k.k_block_stride;
  a.v_block_stride = k.v_block_stride;
  a.block_tables = b.block_tables;
  a.block_table_stride = k.block_table_stride;
  a.max_blocks_per_seq = k.max_blocks_per_seq;
  a.seq_lens = b.seq_lens;
  a.max_seq_len = k.max_seq_len;
  a.k_scale = c.scales ? b.scales : nullptr;
  a.v_scale = c.scales ? b.scales + 1 : nullptr;
  a.scale = c.scale;
  a.logit_softcap = c.logit_softcap;
  a.sliding_window = c.sliding_window;
  a.sinks = c.sinks ? b.sinks : nullptr;
  return a;
}

// ---- the reference ------------------------------------------------------------------------------

inline void pa_reference(PaDecodeCase& k) {
  const PaDecodeConfig& c = k.c;
  int64_t const D = c.head_dim, B = c.block_size, es = pa_esize(c.kv_type), G = c.num_q_heads / c.num_kv_heads;
  double const u = std::ldexp(1.0, -24);
  double const cap = c.logit_softcap;
  double const ks = pa_fp8(c.kv_type) && c.scales ? c.k_scale : 1.0;  // the scales dequantise fp8 only
  double const vs = pa_fp8(c.kv_type) && c.scales ? c.v_scale : 1.0;
  const std::vector<uint8_t>& vbuf = c.interleave_kv ? k.k_bytes : k.v_bytes;
  int64_t const rows = c.num_seqs * c.q_len * c.num_q_heads;
  k.ref_out.assign(static_cast<size_t>(rows * D), 0.0);
  k.tol_out.assign(static_cast<size_t>(rows), 0.0);
  k.ref_lse.assign(static_cast<size_t>(rows), -std::numeric_limits<double>::infinity());
  k.tol_lse.assign(static_cast<size_t>(rows), 0.0);
  std::vector<double> qv(static_cast<size_t>(D)), logit, abs_dot;
  for (int64_t s = 0; s < c.num_seqs; ++s) {
    int64_t const L = std::clamp<int64_t>(c.seq_lens[s], 0, std::min(k.max_seq_len, k.max_blocks_per_seq * B));
    auto elem = [&](bool is_v, int64_t t, int64_t g, int64_t d) {
      int64_t const b = k.block_tables[s * k.block_table_stride + t / B];
      if (b < 0 || b >= k.num_blocks) return 0.0;  // an out-of-range block reads zeros
      int64_t const at = b * (is_v ? k.v_block_stride : k.k_block_stride) + pa_in_block(k, is_v, g, t % B, d);
      return is_v ? pa_decode_value(c.kv_type, &vbuf[k.v_offset + at * es]) * vs : pa_decode_value(c.kv_type, &k.k_bytes[at * es]) * ks;
    };
    for (int64_t i = 0; i < c.q_len; ++i) {
      int64_t const hi = L - c.q_len + i + 1;  // causal: t <= L - q_len + i
      int64_t const lo = c.sliding_window > 0 ? std::max<int64_t>(0, hi - c.sliding_window) : 0;
      for (int64_t h = 0; h < c.num_q_heads; ++h) {
        int64_t const row = (s * c.q_len + i) * c.num_q_heads + h, g = h / G;
        if (hi <= lo) continue;  // sees nothing: out 0, lse -inf
        for (int64_t d = 0; d < D; ++d) {
          auto const* p = reinterpret_cast<const uint8_t*>(&k.q[pa_row_offset(k.q_stride, s, i, h) + d]);
          qv[d] = pa_decode_value(c.q_type, p);
        }
        logit.clear();
        abs_dot.clear();
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t t = lo; t < hi; ++t) {
          double dot = 0, adot = 0;
          for (int64_t d = 0; d < D; ++d) {
            double const kd = elem(false, t, g, d);
            dot += qv[d] * kd;
            adot += std::fabs(qv[d] * kd);
          }
          double l = c.scale * dot;
          if (cap > 0) l = cap * std::tanh(l / cap);
          logit.push_back(l);
          abs_dot.push_back(std::fabs(c.scale) * adot);
          m = std::isnan(m) || std::isnan(l) ? std::numeric_limits<double>::quiet_NaN() : std::max(m, l);
        }
        if (m == -std::numeric_limits<double>::infinity()) continue;  // no token has weight: as if none were seen
        if (c.sinks) m = std::max(m, double(k.sinks[h]));
        double denom = c.sinks ? std::exp(k.sinks[h] - m) : 0.0, vmax = 0, dl = 0, spread = 0;
        double* out = &k.ref_out[row * D];
        for (int64_t t = lo; t < hi; ++t) {
          double const l = logit[t - lo], p = std::exp(l - m);
          denom += p;
          dl = std::max(dl, static_cast<double>(D + 3) * u * abs_dot[t - lo] + 4 * u * (std::fabs(l) + cap));
          spread = std::max(spread, std::fabs(l - m));
          for (int64_t d = 0; d < D; ++d) {
            double const v = elem(true, t, g, d);
            out[d] += p * v;
            vmax = std::max(vmax, std::fabs(v));
          }
        }
        double omax = 0;
        for (int64_t d = 0; d < D; ++d) omax = std::max(omax, std::fabs(out[d] /= denom));
        double const n = static_cast<double>(hi - lo);
        double const e = 2 * dl + u * spread + 4 * u;
        double const pre = (2 * e + 2 * (n + 4) * u) * vmax;
        double const half_ulp = c.q_type == FLY_DTYPE_BF16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
        double const sub = c.q_type == FLY_DTYPE_BF16 ? std::ldexp(1.0, -133) : std::ldexp(1.0, -24);
        k.tol_out[row] = 2 * (pre + half_ulp * (omax + pre) + sub);  // omax: the rounding of the largest
        k.ref_lse[row] = m + std::log(denom);
        k.tol_lse[row] = 2 * (dl + u * spread + (n + 6) * u + 2 * u * std::fabs(k.ref_lse[row]));
      }
    }
  }
}

// ---- the check ------------------------------------------------------------------------------------

// "" when k.out / k.lse hold the reference within tolerance and every element outside the result
// windows is still poisoned; otherwise the first few mismatches.
inline std::string check_pa_decode(const PaDecodeCase& k) {
  const PaDecodeConfig& c = k.c;
  std::string err;
  int bad = 0;
  auto report = [&](const std::string& what) {
    if (++bad <= 8) err += what + "\n";
  };
  char buf[256];
  for (int64_t s = 0; s < c.num_seqs; ++s)
    for (int64_t i = 0; i < c.q_len; ++i)
      for (int64_t h = 0; h < c.num_q_heads; ++h) {
        int64_t const row = (s * c.q_len + i) * c.num_q_heads + h;
        for (int64_t d = 0; d < c.head_dim; ++d) {
          int64_t const at = pa_row_offset(k.out_stride, s, i, h) + d;
          double const got = pa_decode_value(c.q_type, reinterpret_cast<const uint8_t*>(&k.out[at]));
          double const want = k.ref_out[row * c.head_dim + d];
          if (!(std::fabs(got - want) <= k.tol_out[row])) {
            std::snprintf(buf, sizeof buf, "out[s=%lld i=%lld h=%lld d=%lld] = %.9g, want %.9g +- %.3g", (long long)s,
                          (long long)i, (long long)h, (long long)d, got, want, k.tol_out[row]);
            report(buf);
          }
        }
        if (c.lse) {
          double const got = k.lse[row], want = k.ref_lse[row];
          bool const ok = std::isinf(want) ? got == want : std::fabs(got - want) <= k.tol_lse[row];
          if (!ok) {
            std::snprintf(buf, sizeof buf, "lse[s=%lld i=%lld h=%lld] = %.9g, want %.9g +- %.3g", (long long)s, (long long)i,
                          (long long)h, got, want, k.tol_lse[row]);
            report(buf);
          }
        }
      }
  for (size_t e = 0; e < k.out.size(); ++e) {
    if (k.out_window[e] == 0 && k.out[e] != kPoison16) report("out element " + std::to_string(e) + " outside the result was written");
  }
  size_t const lse_rows = c.lse ? static_cast<size_t>(c.num_seqs * c.q_len * c.num_q_heads) : 0;
  for (size_t e = lse_rows; e < k.lse.size(); ++e) {
    uint32_t bits;
    std::memcpy(&bits, &k.lse[e], 4);
    if (bits != kPoison32) report("lse element " + std::to_string(e) + " past the result was written");
  }
  if (bad > 8) err += std::to_string(bad - 8) + " more\n";
  return err;
}

// A one-line description for failure messages.
inline std::string describe(const PaDecodeConfig& c) {
  std::string s = "seqs=" + std::to_string(c.num_seqs) + " q_len=" + std::to_string(c.q_len) + " heads=" +
                  std::to_string(c.num_q_heads) + "/" + std::to_string(c.num_kv_heads) + " d=" + std::to_string(c.head_dim) +
                  " block=" + std::to_string(c.block_size) + " q=" + fly_dtype_string(c.q_type) + " kv=" +
                  fly_dtype_string(c.kv_type) + " " + fly_kv_layout_string(c.layout) + " lens=";
  for (int32_t l : c.seq_lens) s += std::to_string(l) + ",";
  s += " softcap=" + std::to_string(c.logit_softcap) + " window=" + std::to_string(c.sliding_window) +
       (c.sinks ? " sinks" : "") + (c.lse ? " lse" : "") + (c.scales ? " scales" : "") + (c.interleave_kv ? " interleaved" : "") +
       " seed=" + std::to_string(c.seed);
  return s;
}

}  // namespace fly_test
