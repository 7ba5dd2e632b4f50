// sm_90 grid dependency control, for kernels that are programmatic dependent launches: the kernel
// may start while the one before it on the stream is still running, so it waits for it
// (griddepcontrol.wait: that grid completed and its writes are visible) before it reads anything
// that grid may have written, and it lets the next kernel be scheduled once it is far enough
// along (griddepcontrol.launch_dependents; the first call in a block counts, repeats do nothing).
// Without a programmatic launch of this kernel the wait returns at once; the trigger concerns the
// next kernel: if that one is a programmatic launch, it may start once every block of this grid
// triggered or exited, whether or not this kernel was one. On the host (the functional models)
// both are no-ops.
#pragma once

#include "fly/layout/config.hpp"

namespace fly {

FLY_HOST_DEVICE inline void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

FLY_HOST_DEVICE inline void launch_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

}  // namespace fly
