// GPU time of work enqueued on a stream, without the host's cost of enqueuing it.
//
// Events recorded around a call on an idle stream also time the host between them: the launch
// latency of a kernel, and all of a library's host path (cuBLASLt's is 10-20 us per call on the
// H200, comparable to a decode GEMM's kernel). An engine replaying a CUDA graph pays neither. So, as
// nvbench does, the stream is first held by a kernel spinning on a host-mapped flag; the events
// and the work are enqueued behind it, and only then is the flag released: the interval is the
// work's time on the GPU. The spinning kernel gives up after a second, and the measurement is then
// reported as not held (the host took that long to enqueue), never waited on forever.
#pragma once

#include <cuda_runtime.h>

namespace fly::bench {

class GpuTimer {
 public:
  explicit GpuTimer(cudaStream_t stream);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // Milliseconds the GPU spent on what `enqueue()` puts on the stream; negative when the hold gave
  // up before `enqueue` returned or a CUDA call failed.
  template <class Enqueue>
  float measure(Enqueue&& enqueue) {
    if (!hold()) return -1.f;
    enqueue();
    return release();
  }

 private:
  bool hold();       // the spinning kernel, then the start event
  float release();   // the stop event, the flag, then waits for the stop event

  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  volatile int* flag_ = nullptr;  // host-mapped: [0] release, [1] the hold gave up
  int* flag_device_ = nullptr;
  bool ok_ = false;
};

}  // namespace fly::bench
