// The only door to a GPU runtime: platform_cuda.cpp (CUDA builds), platform_hip.cpp (HIP builds)
// or platform_none.cpp (host-only builds) defines these. Keep runtime calls out of every other file, so that a build without
// the runtime library still links.
#pragma once

#include "fly/fly.h"
#include "gemm/gemm_registry.hpp"

#include <string>

namespace fly::platform {

struct DeviceInfo {
  unsigned backend = FLY_BACKEND_HOST;  // FLY_BACKEND_CUDA or FLY_BACKEND_HIP for a device
  int device = -1;                      // the runtime's device ordinal
  std::string name;                     // e.g. "NVIDIA H200"
  std::string arch;                     // e.g. "sm_90", "gfx942"
  int multiprocessors = 0;
  bool has_kernels = false;             // libfly has kernels for this architecture ...
  dispatch::Target target = dispatch::Target::host;  // ... of this target family
};

// The GPU backend this build has a runtime for (FLY_BACKEND_CUDA or FLY_BACKEND_HIP), or 0.
unsigned runtime_backend() noexcept;

// The current device of the runtime. *found = false (and success) when the build has no runtime,
// there is no device or no usable driver; an error status (with fly_last_error set) when the
// runtime fails otherwise. May throw std::bad_alloc.
fly_status_t current_device(DeviceInfo* info, bool* found);

// For the checked modes, which may wait for the device (never the default path of a call):
// whether `stream` is capturing a graph, and a copy of `rows` rows of `width` bytes, `src_pitch`
// bytes apart in device memory, into dst (packed) on `stream`, waited for. Builds without a
// runtime return FLY_STATUS_NOT_SUPPORTED.
fly_status_t stream_capturing(void* stream, bool* capturing);
fly_status_t copy_rows_to_host(void* dst, const void* src, size_t width, size_t rows, size_t src_pitch, void* stream);

}  // namespace fly::platform
