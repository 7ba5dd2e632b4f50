// The gfx942 paged-decode block (pa_decode_gfx942_tile.hpp for its shape). One block per
// (sequence, kv head, row chunk, split), the grid order of the sm_90a kernels; every wave runs its
// own online softmax over its 16 tokens of each step and the waves merge in the epilogue.
//
// Lane roles, lane = 16 g + i (i = lane % 16, g = lane / 16):
//   loads     K (and token-major V) row of token i, elements [g D/4, (g+1) D/4)
//   QK        A = K rows, B = Q^T: every k-step takes 8 bytes of both spans (the order over
//             head_dim is free as long as both operands use it); all query rows of the kv head
//             share every K load
//   softmax   C = S^T: lane 16 g + j holds tokens 4g .. 4g+3 of query row j; a row's statistics
//             reduce over xor 16 and xor 32
//   PV        O^T = V^T P^T: P's B operand is S^T's C registers as they are; V^T's A operand
//             wants four consecutive tokens of one dim per lane: direct 32/64-bit loads for the
//             dim-major vLLM V, an LDS stage for token-major V
//   output    O^T's C: lane 16 g + j holds dims 16 c + 4 g .. + 3 of row j (the softmax's lanes)
//
// Addresses: a block's K / V base is 64-bit pointer arithmetic on wave-uniform values; the
// buffer descriptor covers one block (a bad block id gets an empty descriptor, so its K and V
// read as zeros, as the host reference and the sm_90a kernels read them).
#pragma once

#include <cmath>
#include <cstdint>

#include "pa_decode_gfx942_convert.hpp"
#include "pa_decode_gfx942_tile.hpp"
#include "pa_decode_gfx942_wave.hpp"
#include "pa_decode_params.hpp"
#include "pa_decode_work.hpp"

namespace fly::kernels::pa::gfx942 {

inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr float kNegInf = -__builtin_huge_valf();

// 2^x as one v_exp_f32 on the GPU (results below 2^-126 flush to zero: negligible beside a softmax
// sum of at least 1); exp2f on the host.
FLY_HOST_DEVICE inline float fast_exp2(float x) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_exp2f(x);
#else
  return exp2f(x);
#endif
}

// One block's work (pa_decode_work.hpp, as in the sm_90a kernels), with the query rows of its chunk.
struct Work : BlockWork {
  int32_t first_row, row_count;  // the chunk's first query row; the kv head's query rows (group x q_len)

  template <int Step>
  FLY_HOST_DEVICE static Work of(const PaDecodeParams& p, int block) {
    const BlockWork coords = BlockWork::at(p, block);
    Work w{coords, coords.rc * 16, p.group * p.q_len};
    w.bound(p, p.seq_lens[w.seq], Step);
    return w;
  }
};

template <class T>
struct Kernel {
  static constexpr int D = T::head_dim;
  using Op = typename T::QkOp;

  // The running softmax of one lane: row j = lane % 16, tokens of this wave only.
  struct State {
    float o[T::dchunks][4];
    float m, l;
  };

  // Q's B operand words: the lane's span of row j (lane % 16), in the MMA type; for fp8 two
  // e4m3fnuz terms (hi, lo / 16) and the row's power-of-two scale.
  struct QFrag {
    alignas(16) uint32_t hi[T::span_words];
    alignas(16) uint32_t lo[T::fp8 ? T::span_words : 1];
    float scale;
  };

  FLY_HOST_DEVICE static float q_elem(const void* q, int64_t at, bool bf16) {
    const uint16_t b = static_cast<const uint16_t*>(q)[at];
    return bf16 ? bf16_value(b) : f16_value(b);
  }

  FLY_HOST_DEVICE static void load_q(const PaDecodeParams& p, const Work& w, int lane, QFrag& f) {
    const int j = lane % 16, g = lane / 16;
    const int r = w.first_row + j;
    const bool valid = r < w.row_count;
    int64_t at = 0;
    if (valid) {
      const int64_t token = r / p.group, head = int64_t(w.kv_head) * p.group + r % p.group;
      at = int64_t(w.seq) * p.q_seq + token * p.q_token + head * p.q_head + int64_t(g) * T::span;
    }
    if constexpr (!T::fp8) {
      const uint32_t* src = reinterpret_cast<const uint32_t*>(static_cast<const uint16_t*>(p.q) + at);
      FLY_UNROLL
      for (int k = 0; k < T::span_words; ++k) f.hi[k] = valid ? src[k] : 0u;
      f.scale = 1.f;
    } else {
      float x[T::span];
      float amax = 0.f;
      FLY_UNROLL
      for (int e = 0; e < T::span; ++e) {
        x[e] = valid ? q_elem(p.q, at + e, p.q_bf16) : 0.f;
        amax = fmaxf(amax, fabsf(x[e]));
      }
      amax = fmaxf(amax, xor_lanes(amax, lane, 16));
      amax = fmaxf(amax, xor_lanes(amax, lane, 32));
      // s = 2^(floor(log2 amax) - 6): |q / s| < 128, exact scaling
      int ex = amax > 0.f ? int((float_bits(amax) >> 23) & 0xFF) - 127 - 6 : 0;
      ex = ex < -120 ? -120 : ex > 120 ? 120 : ex;  // subnormal or huge rows: keep 2^ex and 2^-ex normal
      const float inv = bits_float(uint32_t(127 - ex) << 23);
      f.scale = bits_float(uint32_t(127 + ex) << 23);
      FLY_UNROLL
      for (int k = 0; k < T::span_words; ++k) {
        const float v0 = x[4 * k] * inv, v1 = x[4 * k + 1] * inv, v2 = x[4 * k + 2] * inv, v3 = x[4 * k + 3] * inv;
        const uint32_t h = pack_fnuz4(v0, v1, v2, v3);
        const uint32_t l = pack_fnuz4((v0 - fnuz_byte<0>(h)) * 16.f, (v1 - fnuz_byte<1>(h)) * 16.f,
                                      (v2 - fnuz_byte<2>(h)) * 16.f, (v3 - fnuz_byte<3>(h)) * 16.f);
        f.hi[k] = h;
        f.lo[k] = l;
      }
    }
  }

  // The id of the cache block holding tokens [t, t + 16) (one block: block sizes are multiples of
  // 16), wave-uniform.
  FLY_HOST_DEVICE static int32_t block_id(const PaDecodeParams& p, buffer_ptr<int32_t> table, int32_t t) {
    alignas(16) int32_t id[1];
    BufferCopy32b::copy(table + (t >> p.block_size_log2), id);
    return uniform(id[0]);
  }

  // Cache block b as a buffer of bytes; empty for a bad block id (its K and V read as zeros).
  FLY_HOST_DEVICE static buffer_ptr<uint8_t> block_buffer(const PaDecodeParams& p, const PagedCacheView& c, int32_t b) {
    const bool ok = b >= 0 && b < p.num_blocks;
    const auto* base = static_cast<const uint8_t*>(c.base) + (ok ? int64_t(b) * c.block * T::esize : 0);
    return make_buffer_ptr(base, ok ? uint32_t(c.block * T::esize) : 0u);
  }

  // Byte offset of (slot j, element d) of kv head h in a token-major block (vLLM's K included).
  FLY_HOST_DEVICE static int32_t row_offset(const PagedCacheView& c, int h, int j, int d) {
    constexpr int x = 16 / T::esize;
    return int32_t((int64_t(h) * c.head + int64_t(j) * c.slot + int64_t(d / x) * c.chunk + d % x) * T::esize);
  }

  // The lane's span of token i's row: BufferCopy<LoadBits> loads, zeros for a token outside [0, valid).
  FLY_HOST_DEVICE static void load_row(buffer_ptr<uint8_t> buf, const PagedCacheView& c, int h, int j, int g,
                                       uint32_t (&w)[T::span_words]) {
    constexpr int x = 16 / T::esize, per = T::load_bytes / T::esize;
    FLY_UNROLL
    for (int n = 0; n < T::loads; ++n) {
      const int d = g * T::span + n * per;
      (void)x;
      T::Load::copy(buf + row_offset(c, h, j, d), &w[n * T::load_bytes / 4]);
    }
  }

  // V^T's A operand of dim chunk c as loaded: four tokens of dim 16 c + i, one word of fp8 bytes
  // (widened at the MFMA) or two of 16-bit elements.
  static constexpr int vwords = T::fp8 ? 1 : 2;

  // ... for the dim-major vLLM V: one 64-bit (16-bit V) or 32-bit (fp8 V) load per chunk.
  FLY_HOST_DEVICE static void load_v_dim_major(buffer_ptr<uint8_t> buf, const PagedCacheView& c, int h, int j0, int i,
                                               uint32_t (&v)[T::dchunks][vwords]) {
    FLY_UNROLL
    for (int ch = 0; ch < T::dchunks; ++ch) {
      const int32_t at = int32_t((int64_t(h) * c.head + int64_t(16 * ch + i) * c.dim + j0) * T::esize);
      if constexpr (T::fp8) {
        alignas(16) uint32_t w[1];
        BufferCopy32b::copy(buf + at, w);
        v[ch][0] = w[0];
      } else {
        alignas(16) uint32_t w[2];
        BufferCopy64b::copy(buf + at, w);
        v[ch][0] = w[0];
        v[ch][1] = w[1];
      }
    }
  }

  // Token-major V: the wave's 16 rows through its LDS stage, written transposed ([dim][token]) so
  // that a lane reads its four tokens of one dim as one 32-bit (fp8) or 64-bit (16-bit) word.
  FLY_HOST_DEVICE static void stage_v(unsigned char* stage, const uint32_t (&w)[T::span_words], int lane,
                                      uint32_t (&v)[T::dchunks][vwords]) {
    const int i = lane % 16, g = lane / 16;
    FLY_UNROLL
    for (int e = 0; e < T::span; ++e) {
      unsigned char* at = stage + (g * T::span + e) * T::stage_pitch + i * T::esize;
      if constexpr (T::fp8) {
        *at = uint8_t(w[e / 4] >> (8 * (e % 4)));
      } else {
        *reinterpret_cast<uint16_t*>(at) = uint16_t(w[e / 2] >> (16 * (e % 2)));
      }
    }
    wave_sync();
    FLY_UNROLL
    for (int ch = 0; ch < T::dchunks; ++ch) {
      const unsigned char* at = stage + (16 * ch + i) * T::stage_pitch + 4 * g * T::esize;
      if constexpr (T::fp8) {
        v[ch][0] = *reinterpret_cast<const uint32_t*>(at);
      } else {
        v[ch][0] = reinterpret_cast<const uint32_t*>(at)[0];
        v[ch][1] = reinterpret_cast<const uint32_t*>(at)[1];
      }
    }
  }

  // S^T for the wave's 16 tokens at t: K rows loaded, QK on the MFMA, in raw units.
  FLY_HOST_DEVICE static void qk(const uint32_t (&kw)[T::span_words], const QFrag& q, float (&s)[4], bool fnuz) {
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    if constexpr (T::fp8) {
      float lo[4] = {0.f, 0.f, 0.f, 0.f};
      FLY_UNROLL
      for (int k = 0; k < T::ksteps; ++k) {
        uint32_t k0 = kw[2 * k], k1 = kw[2 * k + 1];
        if (!fnuz) {
          k0 = fn_as_fnuz(k0);
          k1 = fn_as_fnuz(k1);
        }
        const uint64_t a[1] = {uint64_t(k0) | (uint64_t(k1) << 32)};
        const uint64_t bh[1] = {uint64_t(q.hi[2 * k]) | (uint64_t(q.hi[2 * k + 1]) << 32)};
        const uint64_t bl[1] = {uint64_t(q.lo[2 * k]) | (uint64_t(q.lo[2 * k + 1]) << 32)};
        mfma<Op>(acc, a, bh, acc);
        mfma<Op>(lo, a, bl, lo);
      }
      FLY_UNROLL
      for (int r = 0; r < 4; ++r) s[r] = acc[r] + lo[r] * 0.0625f;
    } else {
      (void)fnuz;
      FLY_UNROLL
      for (int k = 0; k < T::ksteps; ++k) {
        const uint32_t a[2] = {kw[2 * k], kw[2 * k + 1]};
        const uint32_t b[2] = {q.hi[2 * k], q.hi[2 * k + 1]};
        mfma<Op>(acc, a, b, acc);
      }
      FLY_UNROLL
      for (int r = 0; r < 4; ++r) s[r] = acc[r];
    }
  }

  // One wave's online-softmax step over tokens [t, t + 16) (t < w.hi).
  FLY_HOST_DEVICE static void step(const PaDecodeParams& p, const Work& w, buffer_ptr<int32_t> table, const QFrag& q,
                                   float qk_scale, int32_t row_lo, int32_t row_hi, unsigned char* stage, int lane,
                                   int32_t t, State& st) {
    const int i = lane % 16, g = lane / 16;
    const int bs_mask = (1 << p.block_size_log2) - 1;
    const int32_t id = block_id(p, table, t);
    const buffer_ptr<uint8_t> kb = block_buffer(p, p.k, id);
    const buffer_ptr<uint8_t> vb = block_buffer(p, p.v, id);
    const bool row_valid = t + i < w.hi;  // loading lane's token (i)
    alignas(16) uint32_t kw[T::span_words];
    load_row(kb, p.k, w.kv_head, (t + i) & bs_mask, g, kw);
    float s[4];
    qk(kw, q, s, p.fnuz);
    // V after QK: K's registers are free again (occupancy hides the load latency)
    uint32_t v[T::dchunks][vwords];
    alignas(16) uint32_t vw[T::v_dim_major ? 1 : T::span_words];
    if constexpr (T::v_dim_major) {
      load_v_dim_major(vb, p.v, w.kv_head, (t + 4 * g) & bs_mask, i, v);
    } else {
      load_row(vb, p.v, w.kv_head, (t + i) & bs_mask, g, vw);
    }
    float mx = kNegInf;
    FLY_UNROLL
    for (int r = 0; r < 4; ++r) {
      const int32_t tok = t + 4 * g + r;
      float x = s[r] * qk_scale;
      if (p.softcap > 0.f) x = p.softcap * tanhf(x * (1.f / p.softcap));  // the reciprocal leaves the loop
      x *= kLog2e;
      s[r] = tok < w.hi && tok >= row_lo && tok <= row_hi ? x : kNegInf;
      mx = fmaxf(mx, s[r]);
    }
    mx = fmaxf(mx, xor_lanes(mx, lane, 16));
    mx = fmaxf(mx, xor_lanes(mx, lane, 32));
    const float m_new = fmaxf(st.m, mx);
    const float base = m_new == kNegInf ? 0.f : m_new;  // a row that has seen nothing keeps zeros
    const float alpha = fast_exp2(st.m - base);
    float pr[4];
    float sum = 0.f;
    FLY_UNROLL
    for (int r = 0; r < 4; ++r) {
      pr[r] = fast_exp2(s[r] - base);
      sum += pr[r];
    }
    st.l = st.l * alpha + sum;
    st.m = m_new;
    // P^T's B operand: S^T's C registers as they are, rounded to the PV MFMA's type
    uint32_t pb[2];
    if constexpr (T::kind == Kv::bf16) {
      pb[0] = to_bf16x2(pr[0], pr[1]);
      pb[1] = to_bf16x2(pr[2], pr[3]);
    } else {
      pb[0] = to_f16x2(pr[0], pr[1]);
      pb[1] = to_f16x2(pr[2], pr[3]);
    }

    if constexpr (!T::v_dim_major) {
      if (!row_valid) {
        FLY_UNROLL
        for (int k = 0; k < T::span_words; ++k) vw[k] = 0u;  // past the context: may be any bits
      }
      stage_v(stage, vw, lane, v);
    } else {
      // the dim-major V operand holds tokens 4g .. 4g+3: zero those past the context
      FLY_UNROLL
      for (int e = 0; e < 4; ++e) {
        if (t + 4 * g + e >= w.hi) {
          FLY_UNROLL
          for (int ch = 0; ch < T::dchunks; ++ch) {
            if constexpr (T::fp8) {
              v[ch][0] &= ~(0xFFu << (8 * e));
            } else {
              v[ch][e / 2] &= ~(0xFFFFu << (16 * (e % 2)));
            }
          }
        }
      }
    }
    FLY_UNROLL
    for (int ch = 0; ch < T::dchunks; ++ch) {
      FLY_UNROLL
      for (int r = 0; r < 4; ++r) st.o[ch][r] *= alpha;
      uint32_t a[2];
      if constexpr (T::fp8) {
        widen_fp8x4(v[ch][0], a[0], a[1]);
      } else {
        a[0] = v[ch][0];
        a[1] = v[ch][1];
      }
      mfma<typename T::PvOp>(st.o[ch], a, pb, st.o[ch]);
    }
    if constexpr (!T::v_dim_major) wave_sync();  // every lane read the V stage before the next step writes it
  }

  FLY_HOST_DEVICE static void store16(void* out, int64_t at, float x, bool bf16) {
    static_cast<uint16_t*>(out)[at] = bf16 ? to_bf16(x) : to_f16(x);
  }

  // Merges the waves' (O, m, l) into wave 0, one wave at a time through one wave's worth of LDS
  // (a buffer for every wave at once would take the LDS of two more blocks per CU).
  FLY_HOST_DEVICE static void epilogue(const PaDecodeParams& p, const Work& w, State& st, unsigned char* smem, int wave,
                                       int lane) {
    float* os = reinterpret_cast<float*>(smem);  // [chunk][lane][4]
    float* ml = os + T::dchunks * 64 * 4;        // [lane][2]
    float m = st.m, l = st.l;
    for (int x = 1; x < T::waves; ++x) {
      block_sync();  // the buffer is free (x = 1: every wave is done with its V stage)
      if (wave == x) {
        FLY_UNROLL
        for (int ch = 0; ch < T::dchunks; ++ch)
          FLY_UNROLL
          for (int r = 0; r < 4; ++r) os[(ch * 64 + lane) * 4 + r] = st.o[ch][r];
        ml[lane * 2] = st.m;
        ml[lane * 2 + 1] = st.l;
      }
      block_sync();
      if (wave == 0) {
        const float mx = ml[lane * 2];
        if (mx == kNegInf) continue;  // wave x saw nothing for this row
        const float mm = fmaxf(m, mx);
        const float a = fast_exp2(m - mm), b = fast_exp2(mx - mm);  // m = -inf: a = 0
        l = l * a + ml[lane * 2 + 1] * b;
        FLY_UNROLL
        for (int ch = 0; ch < T::dchunks; ++ch)
          FLY_UNROLL
          for (int r = 0; r < 4; ++r) st.o[ch][r] = st.o[ch][r] * a + os[(ch * 64 + lane) * 4 + r] * b;
        m = mm;
      }
    }
    if (wave != 0) return;
    const int j = lane % 16, g = lane / 16;
    const int32_t r = w.first_row + j;
    if (r >= w.row_count) return;
    const int64_t token = r / p.group, head = int64_t(w.kv_head) * p.group + r % p.group;
    const int64_t q_heads = int64_t(p.num_kv_heads) * p.group;
    const int64_t qrow = pa_query_row(w.seq, token, head, p.q_len, q_heads);
    if (p.splits > 1) {
      const int64_t at = int64_t(w.split) * p.num_seqs * p.q_len * q_heads + qrow;
      FLY_UNROLL
      for (int ch = 0; ch < T::dchunks; ++ch)
        FLY_UNROLL
        for (int e = 0; e < 4; ++e) p.partial_o[at * D + 16 * ch + 4 * g + e] = st.o[ch][e];
      if (g == 0) {
        p.partial_ml[at * 2] = m;
        p.partial_ml[at * 2 + 1] = l;
      }
      return;
    }
    float scale = 0.f, lse = kNegInf;
    if (m != kNegInf) {
      if (p.sinks != nullptr) {  // the sink joins the denominator only
        const float sink = p.sinks[head] * kLog2e;
        const float m2 = fmaxf(m, sink);
        const float c = fast_exp2(m - m2);
        l = l * c + fast_exp2(sink - m2);
        FLY_UNROLL
        for (int ch = 0; ch < T::dchunks; ++ch)
          FLY_UNROLL
          for (int e = 0; e < 4; ++e) st.o[ch][e] *= c;
        m = m2;
      }
      scale = (p.v_scale != nullptr ? *p.v_scale : 1.f) * p.v_dequant / l;
      lse = (m + log2f(l)) * 0.6931471805599453f;
    }
    const bool out_bf16 = T::fp8 ? p.q_bf16 : T::kind == Kv::bf16;
    const int64_t out_at = int64_t(w.seq) * p.out_seq + token * p.out_token + head * p.out_head;
    FLY_UNROLL
    for (int ch = 0; ch < T::dchunks; ++ch)
      FLY_UNROLL
      for (int e = 0; e < 4; ++e) store16(p.out, out_at + 16 * ch + 4 * g + e, st.o[ch][e] * scale, out_bf16);
    if (p.lse != nullptr && g == 0) p.lse[qrow] = lse;
  }

  // The whole block, for thread `tid` of `block`.
  FLY_HOST_DEVICE static void run(const PaDecodeParams& p, unsigned char* smem, int block, int tid) {
    const int wave = uniform(tid / 64), lane = tid % 64;
    const Work w = Work::template of<T::tokens>(p, block);
    QFrag q;
    load_q(p, w, lane, q);
    const float k_scale = T::fp8 && p.k_scale != nullptr ? *p.k_scale : 1.f;
    const float qk_scale = p.scale * k_scale * (T::fp8 ? p.k_dequant : 1.f) * q.scale;
    // row j's visible tokens [row_lo, row_hi]: causal up to its own position, the window
    const int j = lane % 16;
    int32_t row_lo = 0, row_hi = -1;
    if (w.first_row + j < w.row_count) {
      const RowTokens seen = row_tokens(p, w.len, (w.first_row + j) / p.group);
      row_lo = seen.lo;
      row_hi = seen.hi;
    }
    const int32_t entries = (p.max_len + (1 << p.block_size_log2) - 1) >> p.block_size_log2;
    const buffer_ptr<int32_t> table = make_buffer_ptr(p.block_tables + int64_t(w.seq) * p.block_table_stride, uint32_t(entries));
    State st;
    FLY_UNROLL
    for (int ch = 0; ch < T::dchunks; ++ch)
      FLY_UNROLL
      for (int r = 0; r < 4; ++r) st.o[ch][r] = 0.f;
    st.m = kNegInf;
    st.l = 0.f;
    unsigned char* stage = smem + (T::v_dim_major ? 0 : wave * T::head_dim * T::stage_pitch);
    for (int32_t t0 = w.lo; t0 < w.hi; t0 += T::tokens) {
      const int32_t t = t0 + 16 * wave;
      if (t >= w.hi) break;  // wave-uniform: this wave's tokens are past the context
      step(p, w, table, q, qk_scale, row_lo, row_hi, stage, lane, t, st);
    }
    st.l += xor_lanes(st.l, lane, 16);
    st.l += xor_lanes(st.l, lane, 32);
    epilogue(p, w, st, smem, wave, lane);
  }
};

}  // namespace fly::kernels::pa::gfx942
