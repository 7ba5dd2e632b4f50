// How a GEMM kernel takes part in programmatic dependent launch (src/dispatch/cuda_dependent_launch.hpp):
// its blocks may be resident while the kernel before it on the stream finishes. Before they may
// read anything (griddepcontrol.wait) they start the first k-tiles of their B rows towards L2: a
// decode GEMM streams its weights from HBM, which would otherwise idle through the predecessor's
// tail and this kernel's first loads. A prefetch brings nothing into the block, so it is correct
// even where the predecessor writes B. Once a block has issued its last load it lets the next
// kernel be scheduled (fly::launch_next_grid, fly/arch/grid_dependency_sm90.hpp): what remains of
// it is arithmetic and the epilogue.
#pragma once

#include <cstdint>

#include "fly/arch/grid_dependency_sm90.hpp"
#include "fly/layout/config.hpp"
#include "gemm_epilogue.hpp"

namespace fly::kernels {

#if defined(__CUDACC__)
// k_elems elements (of `elem` bytes) from column k0 of B's rows [n0, n0 + rows) (none for n0 < 0),
// prefetched into L2 by the block's `threads` threads, one 128-byte line each, where p.warm_b asks
// for it; then the wait for the previous grid (its writes visible). Without a predecessor the
// wait returns at once.
__device__ inline void warm_b_then_wait(GemmParams const& p, int64_t n0, int64_t k0, int rows, int k_elems, int elem,
                                        int thr, int threads) {
  if (p.warm_b && n0 >= 0 && n0 < p.n && k0 < p.k) {
    rows = int(p.n - n0 < rows ? p.n - n0 : rows);
    const int64_t row_bytes = int64_t(k_elems < p.k - k0 ? k_elems : p.k - k0) * elem;
    const int lines = int((row_bytes + 127) / 128);
    const auto* b = static_cast<const unsigned char*>(p.b) + (n0 * p.ldb + k0) * elem;
    for (int i = thr; i < rows * lines; i += threads) {
      const int64_t at = int64_t(i % lines) * 128;  // inside the row: its last byte at most
      const unsigned char* line = b + int64_t(i / lines) * p.ldb * elem + (at < row_bytes ? at : row_bytes - 1);
      asm volatile("prefetch.global.L2 [%0];\n" ::"l"(line));
    }
  }
  wait_for_previous_grid();
}

// The same for a block type: its BN rows of B from column k0 (a split of K: the block's first
// k-tile), as many k-elements as its pipeline's stages hold (BK x Stages; BK for a block without
// stages), in its B operand's width, over its threads.
template <class Block>
__device__ inline void warm_b_then_wait(GemmParams const& p, int64_t n0, int thr, int64_t k0 = 0) {
  constexpr int stages = [] {
    if constexpr (requires { Block::Stages; }) return int(Block::Stages);
    else return 1;
  }();
  constexpr int elem = [] {
    if constexpr (requires { typename Block::TB; }) return int(sizeof(typename Block::TB));
    else return int(sizeof(typename Block::TA));
  }();
  warm_b_then_wait(p, n0, k0, Block::BN, Block::BK * stages, elem, thr, Block::threads);
}
#endif

}  // namespace fly::kernels
