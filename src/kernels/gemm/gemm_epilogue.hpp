// What every GEMM kernel shares: the parameters of one call, and the epilogue that turns a block's
// fp32 accumulators into D = scale * acc + beta * C (scale = alpha * scale_a * scale_b, read from
// device memory so a captured graph can change it), rounding to D's type, storing only inside D.
#pragma once

#include <cstdint>

#include "fly/numeric/numeric.hpp"
#include "fly/tiled.hpp"

namespace fly::kernels {

struct GemmParams {
  int m, n, k;
  int64_t lda, ldb, ldc, ldd;
  void const* a;
  void const* b;
  void const* c;
  void* d;
  float alpha, beta;
  float const* scale_a;
  float const* scale_b;
  bool warm_b;  // sm_90a: prefetch the first k-tiles of B into L2 before the wait (gemm_dependent_launch.hpp)
  // sm_90a: once a block has issued its last load, let the next kernel on the stream be scheduled
  // (griddepcontrol.launch_dependents). Only where this launch is programmatic too (the launcher's
  // choice): the trigger acts on whatever programmatic launch comes next (a paged decode).
  bool let_next_start;
};

// alpha * scale_a * scale_b: what every accumulator is multiplied by.
FLY_HD float epilogue_scale(GemmParams const& p) {
  return p.alpha * (p.scale_a ? *p.scale_a : 1.f) * (p.scale_b ? *p.scale_b : 1.f);
}

// D(row, col) = scale * acc + beta * C(row, col), rounded to TD (C is not read when beta is 0).
template <class TD>
FLY_HD void store_value(GemmParams const& p, float scale, int64_t row, int64_t col, float acc) {
  float v = scale * acc;
  if (p.beta != 0.f) v += p.beta * float(static_cast<TD const*>(p.c)[row * p.ldc + col]);
  static_cast<TD*>(p.d)[row * p.ldd + col] = TD(v);
}

struct KeepEveryValue {
  FLY_HD bool operator()(int) const { return true; }
};

// Stores this thread's accumulators of the BM x BN tile at (m0, n0), those whose index `keep`
// takes (a split-K block stores the slice it finished). A value's (row, column) is a per-thread
// base plus a compile-time offset from partitioning a static coordinate layout.
template <class TD, int BM, int BN, class ThrMma, class Acc, class Keep = KeepEveryValue>
FLY_HD void store_tile(ThrMma const& thr_mma, Acc const& acc, GemmParams const& p, int m0, int n0, Keep keep = {}) {
  const int m_left = p.m - m0, n_left = p.n - n0;
  const bool full_mn = m_left >= BM && n_left >= BN;
  const float scale = epilogue_scale(p);
  auto [coord_c, coord_c0] =
      thr_mma.partition_layout_C(make_layout(make_shape(Int<BM>{}, Int<BN>{}), make_stride(Int<BN>{}, _1{})));
  const int rc0 = int(coord_c0) / BN, cc0 = int(coord_c0) % BN;
  for_each_index<int(decltype(size(acc))::value)>([&](auto i) {
    const int at = int(coord_c(i));
    const int r = rc0 + at / BN, c = cc0 + at % BN;
    if (keep(int(i)) && (full_mn || (r < m_left && c < n_left))) store_value<TD>(p, scale, m0 + r, n0 + c, float(acc[i]));
  });
}

}  // namespace fly::kernels
