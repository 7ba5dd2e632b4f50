// The consumer side of the decode pipeline for at most 8 query rows (a kv head's group x q_len <= 8,
// the common GQA decode): the products run transposed, with the 16 tokens of a group as
// mma.sync's M and the rows as its N = 8,
//   S^T (16 tokens x 8 rows)   = K (16 x head_dim) . Q^T          head_dim / 16 MMAs
//   O^T (head_dim x 8 rows)   += V^T (head_dim x 16 tokens) . P^T  head_dim / 16 MMAs
// where the m16 form (pa_decode_warp.cuh) spends 2 x head_dim / 8 MMAs on 16 rows of which a group
// of 4 or 8 fills a quarter or a half. Per group a lane holds 4 logits instead of 8 and 32 output
// floats instead of 64 (d128), so the softmax, the rescale and the registers halve too.
//
// Fragments (m16n8k16, lane = 4 g + t): S^T's C gives lane tokens g, g + 8 of rows 2t, 2t + 1, so a
// lane's two row slots are rows 2t and 2t + 1 (row_of) and a row's max reduces over g (xor 4, 8,
// 16). P^T as the PV's B operand wants tokens 2t, 2t + 1 of row g: the transpose of S^T's 8 x 8
// halves, one movmatrix (SM75_U16x8_MOVM_T) each. Q^T's B fragment is Q's row g, held in
// registers (16 for d128). K's A fragment is ldmatrix (token rows, as stored); V^T's is
// ldmatrix.trans of the token-major V tile. fp8 tiles hold 16 elements a chunk: QK's k order is
// the chunk's 4t .. 4t + 3 (Q read to match), V^T's m-tile of chunk c holds d = 16 c + 2 g (row g)
// and 16 c + 2 g + 1 (row g + 8).
#pragma once

#include <cstdint>

#include "pa_decode_fragments.cuh"

namespace fly::kernels::pa {

template <class T>
struct WarpStateN8 {
  static constexpr int kd = T::head_dim / 16;  // k-steps of S^T (16 of head_dim each)
  static constexpr int md = T::head_dim / 16;  // m-tiles of O^T (16 of head_dim each)
  static_assert(T::rows == 8, "the transposed products compute 8 query rows (mma's N)");
  static_assert(T::warp_tokens == 16, "a warp computes one 16-token group (mma's M) at a time");
  static_assert(!T::v_dim_major, "V^T's fragments are built for token-major V (NHD, HND)");

  using Scores = float[4];  // S^T, then P^T: tokens g, g + 8 (e >> 1) of rows 2t, 2t + 1 (e & 1)

  float o[md][4];  // O^T: head_dim index d_of(2 mt + (e >> 1), g) of query row 2t + (e & 1)
  float m[2];      // running max of rows 2t, 2t + 1, log2 units
  float l[2];      // running sum (this lane's tokens; summed over g at the end)
  int32_t lo[2], hi[2];  // the tokens each row sees: lo <= t <= hi (set_row_bounds)
  uint32_t qb[kd][2];    // Q^T's B fragment of each k-step (load_q)

  __device__ static int row_of(int rh, int lane) { return 2 * (lane & 3) + rh; }

  __device__ void init() {
#pragma unroll
    for (int mt = 0; mt < md; ++mt)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[mt][e] = 0.f;
    m[0] = m[1] = -INFINITY;
    l[0] = l[1] = 0.f;
  }

  // Q^T's B fragments: row g, k slots 2t and 2t + 8 in the k order of K's A fragments, which is
  // the m16 state's (q_col; fp8: d = 16 kk + 4t .. 4t + 3).
  __device__ void load_q(const uint16_t* qs, int lane) {
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int kk = 0; kk < kd; ++kk) {
      qb[kk][0] = *reinterpret_cast<const uint32_t*>(qs + g * T::q_pitch + q_col<T::kind>(kk, 2 * t));
      qb[kk][1] = *reinterpret_cast<const uint32_t*>(qs + g * T::q_pitch + q_col<T::kind>(kk, 2 * t + 8));
    }
  }

  // S^T = K Q^T over the 16 tokens [base, base + 16) of the stage's K tile, in two independent
  // accumulation chains (even and odd k-steps) to halve the MMAs' dependent latency.
  template <bool Fnuz>
  __device__ __forceinline__ void qk(float (&s)[4], const uint16_t*, uint32_t ktile, int base, int lane) const {
    float acc[2][4];
#pragma unroll
    for (int c = 0; c < 2; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[c][e] = 0.f;
    const int mi = lane >> 3, r = lane & 7;
    const int row = base + r + 8 * (mi & 1);  // matrices: tokens 0-7 | 8-15 of chunk c | c + 1
    if constexpr (T::kind == KvKind::fp8) {
#pragma unroll
      for (int kk2 = 0; kk2 < kd / 2; ++kk2) {
        uint32_t d[4];
        SM75_U32x4_LDSM_N::copy(ktile + 16 * T::kv_chunk(row, 2 * kk2 + (mi >> 1)), d[0], d[1], d[2], d[3]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint32_t lo = d[2 * h], hi = d[2 * h + 1];  // tokens g | g + 8, d = 4t .. 4t + 3 of the chunk
          const uint32_t a[4] = {fp8x2_to_f16x2<Fnuz, BytePair::b01>(lo), fp8x2_to_f16x2<Fnuz, BytePair::b01>(hi),
                                 fp8x2_to_f16x2<Fnuz, BytePair::b23>(lo), fp8x2_to_f16x2<Fnuz, BytePair::b23>(hi)};
          mma<T::kind>(acc[h], a, qb[2 * kk2 + h][0], qb[2 * kk2 + h][1]);
        }
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < kd; ++kk) {
        uint32_t a[4];
        SM75_U32x4_LDSM_N::copy(ktile + 16 * T::kv_chunk(row, 2 * kk + (mi >> 1)), a[0], a[1], a[2], a[3]);
        mma<T::kind>(acc[kk & 1], a, qb[kk][0], qb[kk][1]);
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) s[e] = acc[0][e] + acc[1][e];
  }

  // Scales (and soft-caps, when Capped) and masks S^T (tokens from tok0), updates the running max
  // and sum, rescales O^T, and leaves P^T in s.
  template <bool Capped>
  __device__ __forceinline__ void softmax(float (&s)[4], int32_t tok0, float scale, float softcap, int lane) {
    const int g = lane >> 2;
    const bool inside = tok0 >= max(lo[0], lo[1]) && tok0 + 15 <= min(hi[0], hi[1]);
    const float scale_log2 = Capped ? scale : scale * kLog2e;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int rh = e & 1;
      float x = s[e] * scale_log2;
      if constexpr (Capped) x = softcap * tanhf(x / softcap) * kLog2e;
      if (!inside) {
        const int32_t tok = tok0 + tok_of<T::kind, false>(e >> 1, g);
        x = (tok >= lo[rh] && tok <= hi[rh]) ? x : -INFINITY;
      }
      s[e] = x;
    }
    float mx[2] = {fmax_nan(s[0], s[2]), fmax_nan(s[1], s[3])};
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
#pragma unroll
      for (int x = 4; x < 32; x <<= 1) mx[rh] = fmax_nan(mx[rh], __shfl_xor_sync(0xffffffffu, mx[rh], x));
      float corr;
      mx[rh] = advance_row(m[rh], l[rh], mx[rh], corr);
      if (__any_sync(0xffffffffu, corr != 1.f)) {
#pragma unroll
        for (int mt = 0; mt < md; ++mt) {
          o[mt][rh] *= corr;
          o[mt][rh + 2] *= corr;
        }
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float p = exp2_ftz(s[e] - mx[e & 1]);
      s[e] = p;
      l[e & 1] += p;
    }
  }

  // O^T += V^T P^T over the 16 tokens [base, base + 16) of the stage's (token-major) V tile.
  template <bool Fnuz>
  __device__ __forceinline__ void pv(const float (&s)[4], uint32_t vtile, int base, int lane) {
    // P^T's B fragment: tokens 2t, 2t + 1 (b0) and 8 + 2t, 8 + 2t + 1 (b1) of row g
    const uint32_t b0 = SM75_U16x8_MOVM_T::transpose(pack2<T::kind>(s[0], s[1]));
    const uint32_t b1 = SM75_U16x8_MOVM_T::transpose(pack2<T::kind>(s[2], s[3]));
    const int mi = lane >> 3, r = lane & 7;
    if constexpr (T::kind == KvKind::fp8) {
      // matrices: tokens 0-7 | 8-15 of chunk c | c + 1; each u32 holds tokens 2t, 2t + 1 x d 2g, 2g + 1
      const int row = base + r + 8 * (mi & 1);
#pragma unroll
      for (int cp = 0; cp < md; cp += 2) {
        uint32_t d[4];
        SM75_U16x8x4_LDSM_T::copy(vtile + 16 * T::kv_chunk(row, cp + (mi >> 1)), d[0], d[1], d[2], d[3]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint32_t lo = d[2 * h], hi = d[2 * h + 1];  // tokens 2t, 2t + 1 | 8 + 2t, 9 + 2t
          const uint32_t a[4] = {fp8x2_to_f16x2<Fnuz, BytePair::b02>(lo), fp8x2_to_f16x2<Fnuz, BytePair::b13>(lo),
                                 fp8x2_to_f16x2<Fnuz, BytePair::b02>(hi), fp8x2_to_f16x2<Fnuz, BytePair::b13>(hi)};
          mma<T::kind>(o[cp + h], a, b0, b1);
        }
      }
    } else {
      // matrices: tokens 0-7 of chunk 2mt | 2mt + 1, then tokens 8-15 of them
      const int row = base + r + 8 * (mi >> 1);
#pragma unroll
      for (int mt = 0; mt < md; ++mt) {
        uint32_t a[4];
        SM75_U16x8x4_LDSM_T::copy(vtile + 16 * T::kv_chunk(row, 2 * mt + (mi & 1)), a[0], a[1], a[2], a[3]);
        mma<T::kind>(o[mt], a, b0, b1);
      }
    }
  }

  // A finished row's readers, as WarpState's: the row's sum over g, written by the lanes g = 0.
  __device__ float row_sum(int rh) const {
    float x = l[rh];
#pragma unroll
    for (int m = 4; m < 32; m <<= 1) x += __shfl_xor_sync(0xffffffffu, x, m);
    return x;
  }
  __device__ static bool row_leader(int lane) { return lane < 4; }
  template <class F>
  __device__ __forceinline__ void for_each_o(int rh, int lane, F&& f) const {
    const int g = lane >> 2;
#pragma unroll
    for (int mt = 0; mt < md; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) f(d_of<T::kind, false>(2 * mt + half, g), o[mt][rh + 2 * half]);
  }
};

}  // namespace fly::kernels::pa
