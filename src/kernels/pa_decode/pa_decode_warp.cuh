// The consumer side of the decode pipeline: one warp's online softmax over its slice of each
// stage (FlashAttention-2's recurrence on mma.sync), 16 query rows x warp_tokens tokens per step.
// A lane holds rows g = lane / 4 and g + 8, and columns 2t, 2t + 1 (t = lane % 4) of each 8-column
// tile of S and O (pa_decode_fragments.cuh explains the fp8 permutations).
#pragma once

#include <cstdint>

#include "pa_decode_fragments.cuh"

namespace fly::kernels::pa {

template <class T>
struct WarpState {
  static constexpr int kd = T::head_dim / 16;       // k-steps of QK^T
  static constexpr int nj = T::warp_tokens / 8;     // S tiles
  static constexpr int nd = T::head_dim / 8;        // O tiles
  static_assert(T::rows == 16, "the m16 products compute 16 query rows (8: WarpStateN8)");

  using Scores = float[nj][4];  // S, then P, of one group

  float o[nd][4];
  float m[2];   // running max of each row, log2 units
  float l[2];   // running sum (this lane's columns; summed over the quad at the end)
  int32_t lo[2], hi[2];  // the tokens each row sees: lo <= t <= hi (hi < lo: none)
  uint32_t qa[T::q_in_registers ? kd : 1][4];

  // The query row (of the block's 16) of a lane's row slot rh.
  __device__ static int row_of(int rh, int lane) { return (lane >> 2) + 8 * rh; }

  __device__ void init() {
#pragma unroll
    for (int dj = 0; dj < nd; ++dj)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[dj][e] = 0.f;
    m[0] = m[1] = -INFINITY;
    l[0] = l[1] = 0.f;
  }

  // Q's A fragment for k-step kk from the shared Q tile (16 rows, pitch q_pitch elements).
  __device__ __forceinline__ void q_fragment(const uint16_t* qs, int kk, int lane, uint32_t (&a)[4]) const {
    const int g = lane >> 2, t = lane & 3;
    const int c0 = q_col<T::kind>(kk, 2 * t), c1 = q_col<T::kind>(kk, 2 * t + 8);
    a[0] = *reinterpret_cast<const uint32_t*>(qs + g * T::q_pitch + c0);
    a[1] = *reinterpret_cast<const uint32_t*>(qs + (g + 8) * T::q_pitch + c0);
    a[2] = *reinterpret_cast<const uint32_t*>(qs + g * T::q_pitch + c1);
    a[3] = *reinterpret_cast<const uint32_t*>(qs + (g + 8) * T::q_pitch + c1);
  }

  __device__ void load_q(const uint16_t* qs, int lane) {
    if constexpr (T::q_in_registers) {
#pragma unroll
      for (int kk = 0; kk < kd; ++kk) q_fragment(qs, kk, lane, qa[kk]);
    }
  }

  __device__ __forceinline__ void q_at(const uint16_t* qs, int kk, int lane, uint32_t (&a)[4]) const {
    if constexpr (T::q_in_registers) {
#pragma unroll
      for (int e = 0; e < 4; ++e) a[e] = qa[kk][e];
    } else {
      q_fragment(qs, kk, lane, a);
    }
  }

  // S = Q K^T over the warp's tokens [base, base + warp_tokens) of the stage's K tile.
  template <bool Fnuz>
  __device__ __forceinline__ void qk(float (&s)[nj][4], const uint16_t* qs, uint32_t ktile, int base, int lane) const {
#pragma unroll
    for (int j = 0; j < nj; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[j][e] = 0.f;
    const int mi = lane >> 3, r = lane & 7;
#pragma unroll
    for (int jp = 0; jp < nj / 2; ++jp) {
      const int j = 2 * jp + (mi >> 1);
      const int row = base + tok_of<T::kind, T::v_dim_major>(j, r);
      if constexpr (T::kind == KvKind::fp8) {
#pragma unroll
        for (int kk2 = 0; kk2 < kd / 2; ++kk2) {
          uint32_t d[4];
          SM75_U32x4_LDSM_N::copy(ktile + 16 * T::kv_chunk(row, 2 * kk2 + (mi & 1)), d[0], d[1], d[2], d[3]);
          uint32_t a[4];
          q_at(qs, 2 * kk2, lane, a);
          mma<T::kind>(s[2 * jp], a, fp8x2_to_f16x2<Fnuz, BytePair::b01>(d[0]), fp8x2_to_f16x2<Fnuz, BytePair::b23>(d[0]));
          mma<T::kind>(s[2 * jp + 1], a, fp8x2_to_f16x2<Fnuz, BytePair::b01>(d[2]), fp8x2_to_f16x2<Fnuz, BytePair::b23>(d[2]));
          q_at(qs, 2 * kk2 + 1, lane, a);
          mma<T::kind>(s[2 * jp], a, fp8x2_to_f16x2<Fnuz, BytePair::b01>(d[1]), fp8x2_to_f16x2<Fnuz, BytePair::b23>(d[1]));
          mma<T::kind>(s[2 * jp + 1], a, fp8x2_to_f16x2<Fnuz, BytePair::b01>(d[3]), fp8x2_to_f16x2<Fnuz, BytePair::b23>(d[3]));
        }
      } else {
#pragma unroll
        for (int kk = 0; kk < kd; ++kk) {
          uint32_t d[4];
          SM75_U32x4_LDSM_N::copy(ktile + 16 * T::kv_chunk(row, 2 * kk + (mi & 1)), d[0], d[1], d[2], d[3]);
          uint32_t a[4];
          q_at(qs, kk, lane, a);
          mma<T::kind>(s[2 * jp], a, d[0], d[1]);
          mma<T::kind>(s[2 * jp + 1], a, d[2], d[3]);
        }
      }
    }
  }

  // Scales (and soft-caps, when Capped) and masks S (tokens from tok0), updates the running max and
  // sum, rescales O, and leaves P (unnormalised probabilities) in s.
  template <bool Capped>
  __device__ __forceinline__ void softmax(float (&s)[nj][4], int32_t tok0, float scale, float softcap, int lane) {
    const int t = lane & 3;
    float mx[2] = {-INFINITY, -INFINITY};
    // most steps lie wholly inside both of the lane's rows' visible ranges: no per-token mask
    const bool inside = tok0 >= max(lo[0], lo[1]) && tok0 + T::warp_tokens - 1 <= min(hi[0], hi[1]);
    const float scale_log2 = Capped ? scale : scale * kLog2e;  // uncapped: one multiply per logit
#pragma unroll
    for (int j = 0; j < nj; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int rh = e >> 1;
        float x = s[j][e] * scale_log2;
        if constexpr (Capped) x = softcap * tanhf(x / softcap) * kLog2e;
        if (!inside) {
          const int32_t tok = tok0 + tok_of<T::kind, T::v_dim_major>(j, 2 * t + (e & 1));
          x = (tok >= lo[rh] && tok <= hi[rh]) ? x : -INFINITY;
        }
        s[j][e] = x;
        mx[rh] = fmax_nan(mx[rh], x);
      }
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
      mx[rh] = fmax_nan(mx[rh], __shfl_xor_sync(0xffffffffu, mx[rh], 1));
      mx[rh] = fmax_nan(mx[rh], __shfl_xor_sync(0xffffffffu, mx[rh], 2));
      float corr;
      mx[rh] = advance_row(m[rh], l[rh], mx[rh], corr);
      // once the running max settles most steps leave it unchanged: skip the 2 x nd multiplies
      if (__any_sync(0xffffffffu, corr != 1.f)) {
#pragma unroll
        for (int dj = 0; dj < nd; ++dj) {
          o[dj][2 * rh] *= corr;
          o[dj][2 * rh + 1] *= corr;
        }
      }
    }
#pragma unroll
    for (int j = 0; j < nj; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float p = exp2_ftz(s[j][e] - mx[e >> 1]);
        s[j][e] = p;
        l[e >> 1] += p;
      }
  }

  // O += P V over the warp's tokens [base, base + warp_tokens) of the stage's V tile.
  template <bool Fnuz>
  __device__ __forceinline__ void pv(const float (&s)[nj][4], uint32_t vtile, int base, int lane) {
    const int mi = lane >> 3, r = lane & 7;
#pragma unroll
    for (int kk = 0; kk < T::warp_tokens / 16; ++kk) {
      const uint32_t a[4] = {pack2<T::kind>(s[2 * kk][0], s[2 * kk][1]), pack2<T::kind>(s[2 * kk][2], s[2 * kk][3]),
                             pack2<T::kind>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                             pack2<T::kind>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
      const int tok = base + 16 * kk;  // first token of the k-step within the tile
      if constexpr (T::kind != KvKind::fp8 && !T::v_dim_major) {
#pragma unroll
        for (int djp = 0; djp < nd / 2; ++djp) {
          uint32_t d[4];
          SM75_U16x8x4_LDSM_T::copy(vtile + 16 * T::kv_chunk(tok + 8 * (mi & 1) + r, 2 * djp + (mi >> 1)),
                                    d[0], d[1], d[2], d[3]);
          mma<T::kind>(o[2 * djp], a, d[0], d[1]);
          mma<T::kind>(o[2 * djp + 1], a, d[2], d[3]);
        }
      } else if constexpr (T::kind != KvKind::fp8) {  // dim-major: rows are d, chunks 8 tokens
#pragma unroll
        for (int djp = 0; djp < nd / 2; ++djp) {
          uint32_t d[4];
          SM75_U32x4_LDSM_N::copy(
              vtile + 16 * swizzled_chunk<T::vrow_chunks>(8 * (2 * djp + (mi >> 1)) + r, tok / 8 + (mi & 1)), d[0], d[1],
              d[2], d[3]);
          mma<T::kind>(o[2 * djp], a, d[0], d[1]);
          mma<T::kind>(o[2 * djp + 1], a, d[2], d[3]);
        }
      } else if constexpr (!T::v_dim_major) {  // fp8, token-major: chunks of 16 d, two tiles each
#pragma unroll
        for (int cp = 0; cp < nd / 2; cp += 2) {
          uint32_t d[4];
          SM75_U16x8x4_LDSM_T::copy(vtile + 16 * T::kv_chunk(tok + 8 * (mi & 1) + r, cp + (mi >> 1)),
                                    d[0], d[1], d[2], d[3]);
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const uint32_t lo_tok = d[2 * h], hi_tok = d[2 * h + 1];
            mma<T::kind>(o[2 * (cp + h)], a, fp8x2_to_f16x2<Fnuz, BytePair::b02>(lo_tok), fp8x2_to_f16x2<Fnuz, BytePair::b02>(hi_tok));
            mma<T::kind>(o[2 * (cp + h) + 1], a, fp8x2_to_f16x2<Fnuz, BytePair::b13>(lo_tok), fp8x2_to_f16x2<Fnuz, BytePair::b13>(hi_tok));
          }
        }
      } else {  // fp8, dim-major: rows are d, one chunk = the k-step's 16 tokens
#pragma unroll
        for (int dq = 0; dq < nd / 4; ++dq) {
          uint32_t d[4];
          SM75_U32x4_LDSM_N::copy(vtile + 16 * swizzled_chunk<T::vrow_chunks>(8 * (4 * dq + mi) + r, tok / 16), d[0], d[1],
                                  d[2], d[3]);
#pragma unroll
          for (int q = 0; q < 4; ++q)
            mma<T::kind>(o[4 * dq + q], a, fp8x2_to_f16x2<Fnuz, BytePair::b01>(d[q]), fp8x2_to_f16x2<Fnuz, BytePair::b23>(d[q]));
        }
      }
    }
  }

  // What a finished row's writers read (the block epilogue, a persistent warp): row slot rh's sum
  // over the lanes that share the row (a quad), which lane writes the row's statistics, and the
  // lane's elements of the row's O as f(d, value).
  __device__ float row_sum(int rh) const {
    float x = l[rh];
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    x += __shfl_xor_sync(0xffffffffu, x, 2);
    return x;
  }
  __device__ static bool row_leader(int lane) { return (lane & 3) == 0; }
  template <class F>
  __device__ __forceinline__ void for_each_o(int rh, int lane, F&& f) const {
    const int t = lane & 3;
#pragma unroll
    for (int dj = 0; dj < nd; ++dj)
#pragma unroll
      for (int e = 0; e < 2; ++e) f(d_of<T::kind, T::v_dim_major>(dj, 2 * t + e), o[dj][2 * rh + e]);
  }
};

}  // namespace fly::kernels::pa
