// Launch glue shared by every op on CUDA: a kernel's opt-in to more than 48 KB of dynamic shared
// memory, done once per device.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

namespace fly::dispatch {

// cudaFuncSetAttribute for a kernel over 48 KB of dynamic shared memory on the current device,
// once per device (bit d of `done`, which the caller keeps per kernel; devices past 63 every time).
template <class Kernel>
cudaError_t allow_dynamic_smem(Kernel kernel, int bytes, std::atomic<uint64_t>& done) {
  if (bytes <= 48 * 1024) return cudaSuccess;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  const uint64_t bit = device < 64 ? uint64_t{1} << device : 0;
  if (bit != 0 && (done.load(std::memory_order_acquire) & bit)) return cudaSuccess;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e == cudaSuccess) done.fetch_or(bit, std::memory_order_acq_rel);
  return e;
}

}  // namespace fly::dispatch
