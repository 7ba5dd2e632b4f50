// The driver's tensor-map encoder (cuTensorMapEncodeTiled), shared by every op whose kernels take
// TMA descriptors. It is reached through the runtime (cudaGetDriverEntryPointByVersion), so libfly
// links no libcuda; encoding touches no device and no stream, so graph capture sees only the kernel.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

namespace fly::dispatch {

// Null when the driver has no encoder (older than CUDA 12).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 const encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      fn = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

}  // namespace fly::dispatch
