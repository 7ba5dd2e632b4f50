// The layout algebra in a gfx942 kernel. Built with --offload-device-only -S; the ISA check
// (check_isa.cmake) requires that it compiled to straight-line code: no calls, no scratch.
#include <hip/hip_runtime.h>

#include "layout_cases.hpp"

__global__ void __launch_bounds__(256) fly_layout_eval_static(int* out) {
  fly_test::eval_cases(out, int(threadIdx.x), int(blockDim.x));
}

__global__ void __launch_bounds__(256) fly_layout_eval_dynamic(int* out, int rows, int cols) {
  int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < rows * cols) out[i] = fly_test::eval_dynamic(rows, cols, i);
}
