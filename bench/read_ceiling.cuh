// The card's read-streaming ceiling, measured in the run that reports against it, and the plain
// read that gives a streaming-bound row its floor.
//
// Every `of_hbm` fraction fly_bench prints divides a row's bytes a second by this: the rate a plain
// kernel reads a buffer far larger than the L2 once, behind a held stream (gpu_timer.cuh), the best
// of a few grid shapes. A constant measured on one card would misstate the fraction on another
// (an H100 streams about two thirds of an H200's 4.57 TB/s), so each run measures its own.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace fly::bench {

// TB/s, measured once per process on the current device (fly_bench's main measures it before any
// row allocates); every GPU row carries it as `read_TBs`. When it cannot be measured (no GPU, an
// allocation or launch failed) it is kFallbackReadTBs, the H200's figure (docs/h200-runs.md), the
// rows carry no `read_TBs`, and read_ceiling_measured() says so.
inline constexpr double kFallbackReadTBs = 4.57;
double read_ceiling_tbs();
bool read_ceiling_measured();

// A GPU row's bandwidth counters (Google Benchmark's counter map): of_hbm for `tbs` TB/s, and the
// ceiling it divides by as read_TBs when this run measured it (bench/report.py reads that).
template <class Counters>
void set_hbm_counters(Counters& counters, double tbs) {
  counters["of_hbm"] = tbs / read_ceiling_tbs();
  if (read_ceiling_measured()) counters["read_TBs"] = read_ceiling_tbs();
}

// Enqueues the plain read of two buffers (their whole 16-byte vectors; a tail of under 16 bytes
// is not read) on `stream`, with the grid shape that measured the ceiling fastest: what a kernel
// that only streams those bytes takes, the floor of a streaming-bound GEMM of them.
void enqueue_plain_read(const void* a, size_t a_bytes, const void* b, size_t b_bytes, cudaStream_t stream);

}  // namespace fly::bench
