// The promotion loop that GemmWgmmaTmaBlock::consume and GemmWgmmaWsBlock::mainloop_overlapped
// share: n batches of wgmma run into two partial accumulators in turn, batch g into part[g % 2]
// (its first wgmma overwrites it, scale-d = 0) while batch g - 1, done (wait_group 1), is added
// into the fp32 total. The blocks differ only in what a batch issues and which ring stage a
// finished batch frees, the two callables:
//   issue(g, part): commits batch g (waiting for its stage first where it needs to);
//   done(h):        batch h - 1 has finished (h = 1 .. n; h = n after the last batch).
// FirstIssued: batch 0 is already in flight into part[0] (the caller issued it, e.g. before the
// previous tile's epilogue), so the loop starts at batch 1.
// Straight-line pairs with the partials fixed at compile time and no "is there a previous batch"
// tests: ptxas proves the partial a step adds finished on every path only when every step is
// issue + wait_group 1 + add, and nothing but wgmma defines a partial and only AddAccumulators (an
// asm statement) reads one, so no compiler fence makes it serialise the wgmmas (C7514/C7515).
#pragma once

#include "fly/arch/mma_sm90.hpp"
#include "fly/arch/mma_sm90_accumulate.hpp"

namespace fly::kernels {

template <bool FirstIssued = false, int N, class Issue, class Done>
FLY_HOST_DEVICE void run_promoted_pairs(int n, float (&total)[N], float (&part)[2][N], Issue&& issue, Done&& done) {
  if constexpr (!FirstIssued) {
    if (n <= 0) return;
  }  // (else n >= 1: batch 0 is in flight, and an early return would leave it so)
  auto step = [&](int g, float(&cur)[N], float(&prev)[N]) {
    issue(g, cur);
    gmma::warpgroup_wait<1>();  // prev's batch (g - 1) is done, cur's runs on
    done(g);
    gmma::AddAccumulators<N>::add(total, prev);
  };
  if constexpr (!FirstIssued) issue(0, part[0]);
  int g = 1;
  for (; g + 1 < n; g += 2) {
    step(g, part[1], part[0]);
    step(g + 1, part[0], part[1]);
  }
  auto finish = [&](float(&last)[N]) {
    gmma::warpgroup_wait<0>();
    done(n);
    gmma::AddAccumulators<N>::add(total, last);
  };
  // two tails, each naming its partial (a partial picked at run time would go to local memory)
  if (g < n) {
    step(g, part[1], part[0]);
    finish(part[1]);
  } else {
    finish(part[0]);
  }
}

}  // namespace fly::kernels
