// Whether a TMA-store GEMM block (GemmWgmmaWsBlock's `:st` cells) may write D through TMA boxes:
// plain C++ beside the CUDA launcher (gemm_launch_tma_cuda.hpp), so the host tests check the rule.
#pragma once

#include "gemm_registry.hpp"
#include "tma_box.hpp"

namespace fly::kernels {

// Boxes of box_rows x box_bytes over D's elements of `elem` bytes may carry D where beta = 0 (the
// boxes carry no C) and the TMA takes the box (tma_box.hpp: a 16-byte aligned base and rows,
// extents within 2^32 elements). True, with `box` filled in, where they may; otherwise the block
// stores D directly.
inline bool gemm_store_box(const fly::dispatch::GemmProblem& p, int box_rows, int box_bytes, int elem, TmaBox2d& box) {
  box = {p.D, p.m, p.n * elem, p.ldd * elem, box_rows, box_bytes, elem};
  return p.beta == 0.f && tma_box_rejection(box).empty();
}

}  // namespace fly::kernels
