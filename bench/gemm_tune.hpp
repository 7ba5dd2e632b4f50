// fly_bench's tuning mode: `fly_bench --tune=<table.tsv>` (CUDA builds, on an sm_90a GPU).
#pragma once

#include <string>

namespace fly::bench {

// Measures every compiled sm90a GEMM variant on every tuning shape (gemm_shapes.hpp) for every
// (ab, d) pair the variants compute, writes the fastest per (ab, d, shape) to `path` as a tuning
// table (the format of src/dispatch/tuning/sm90a.tsv; `command` goes into its header) and prints a
// summary. Returns the process exit status: 0 when the table was written.
int run_gemm_tuning(const std::string& path, const std::string& command);

}  // namespace fly::bench
