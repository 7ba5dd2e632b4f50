// One paged-decode problem measured through several handles (bench_pa_decode_cuda.cu): what
// `fly_bench --tune-pa` (bench_pa_decode_tune.cpp) runs per shape, each handle restricted to one
// variant. The same buffers, host reference, check and graph timing as fly_bench's rows.
#pragma once

#include <string>
#include <vector>

#include "fly/fly.h"
#include "pa_decode_shapes.hpp"

namespace fly::bench {

struct PaHandleResult {
  bool eligible = false;  // the handle's dispatcher can run the shape (fly_pa_decode_explain succeeded)
  std::string line;       // its explanation: "<variant> splits=N: why" (or why not)
  std::string error;      // eligible: a wrong output, a failed call or a failed timing; empty when measured
  double seconds = -1;    // GPU seconds per call in a replayed graph of 20 calls (when measured)
  double max_err = 0;     // the largest |gpu - host| over the checked elements
};

// Builds the problem of `shape` (pa_decode_cuda_problem.cuh) and explains it through every handle;
// then, when at least `min_eligible` of the first `timed` handles can run it, computes the host
// reference once and, for each of those that can, checks the output of one call against it (every
// element of the verified sequences) and, when right, times it as fly_bench's rows do. The handles
// past `timed` are only explained (e.g. the whole registry's pick). One result per handle.
// Returns false with *error set when the problem itself could not be built (allocation, host
// reference) or the CUDA context was lost: the results are then incomplete.
bool measure_pa_decode(const PaShape& shape, const std::vector<fly_handle_t>& handles, size_t timed,
                       size_t min_eligible, std::vector<PaHandleResult>* results, std::string* error);

}  // namespace fly::bench
