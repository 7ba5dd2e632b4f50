// fly_bench's paged-decode tuning mode: `fly_bench --tune-pa=<table.tsv>` (CUDA builds, on an sm_90a GPU).
#pragma once

#include <string>

namespace fly::bench {

// Measures every compiled sm90a paged-decode variant the dispatcher can run on every bench shape
// (pa_decode_shapes.hpp) in the NHD, HND and vLLM layouts, writes the fastest per shape to `path`
// as a tuning table (the format of src/dispatch/tuning/pa_decode_sm90a.tsv; `command` goes into its
// header) and prints a summary beside the ranking's pick. Returns the process exit status: 0 when
// the table was written.
int run_pa_decode_tuning(const std::string& path, const std::string& command);

}  // namespace fly::bench
