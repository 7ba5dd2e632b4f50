#include "gpu_timer.cuh"

#include <cstdint>

namespace fly::bench {
namespace {

constexpr uint64_t kHoldLimitNs = 1000000000ull;  // 1 s

__global__ void hold_stream(volatile int* flag) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (flag[0] != 0) return;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < kHoldLimitNs);
  flag[1] = 1;
}

}  // namespace

GpuTimer::GpuTimer(cudaStream_t stream) : stream_(stream) {
  void* host = nullptr;
  ok_ = cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped) == cudaSuccess &&
        cudaHostGetDevicePointer(reinterpret_cast<void**>(&flag_device_), host, 0) == cudaSuccess &&
        cudaEventCreate(&start_) == cudaSuccess && cudaEventCreate(&stop_) == cudaSuccess;
  flag_ = static_cast<volatile int*>(host);
}

GpuTimer::~GpuTimer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (flag_) cudaFreeHost(const_cast<int*>(flag_));
}

bool GpuTimer::hold() {
  if (!ok_) return false;
  flag_[0] = 0;
  flag_[1] = 0;
  hold_stream<<<1, 1, 0, stream_>>>(flag_device_);
  return cudaGetLastError() == cudaSuccess && cudaEventRecord(start_, stream_) == cudaSuccess;
}

float GpuTimer::release() {
  const bool recorded = cudaEventRecord(stop_, stream_) == cudaSuccess;
  flag_[0] = 1;
  float ms = -1.f;
  if (cudaEventSynchronize(stop_) != cudaSuccess || !recorded || flag_[1] != 0) return -1.f;
  if (cudaEventElapsedTime(&ms, start_, stop_) != cudaSuccess) return -1.f;
  return ms;
}

}  // namespace fly::bench
