// Compiled with -nogpulib on purpose: HIP 5.2's threadIdx/blockIdx/__syncthreads then become calls
// (s_swappc, dynamic stack), which fly_regreport must reject (test regreport.nogpulib_call).
#include <hip/hip_runtime.h>

__global__ void fly_regreport_call_kernel(int* p) {
  __shared__ int s[64];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x + blockIdx.x] = s[63 - threadIdx.x];
}
