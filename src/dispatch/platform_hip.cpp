// The HIP runtime calls of the dispatcher (HIP builds without CUDA; links libamdhip64). Which AMD
// device is current, its name, architecture and compute units; fly_create's FLY_BACKEND=hip.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1  // the host compiler includes HIP's runtime API for AMD devices
#endif
#include <hip/hip_runtime_api.h>

#include <string>

#include "platform.hpp"
#include "status_internal.hpp"

namespace fly::platform {

unsigned runtime_backend() noexcept { return FLY_BACKEND_HIP; }

fly_status_t current_device(DeviceInfo* info, bool* found) {
  *info = DeviceInfo{};
  *found = false;
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  // no device, no driver (/dev/kfd): the host backend, as for CUDA
  if (err == hipErrorNoDevice || err == hipErrorInsufficientDriver || err == hipErrorNotInitialized ||
      (err == hipSuccess && count == 0)) {
    (void)hipGetLastError();
    return FLY_STATUS_SUCCESS;
  }
  if (err != hipSuccess) {
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_create: hipGetDeviceCount failed: ") + hipGetErrorString(err));
  }
  int device = 0;
  err = hipGetDevice(&device);
  if (err != hipSuccess) {
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_create: hipGetDevice failed: ") + hipGetErrorString(err));
  }
  hipDeviceProp_t prop{};
  err = hipGetDeviceProperties(&prop, device);
  if (err != hipSuccess) {
    return detail::fail(FLY_STATUS_DEVICE_ERROR,
                        std::string("fly_create: hipGetDeviceProperties failed: ") + hipGetErrorString(err));
  }
  info->backend = FLY_BACKEND_HIP;
  info->device = device;
  info->name = prop.name;
  info->arch = prop.gcnArchName;  // e.g. "gfx942:sramecc+:xnack-"
  info->multiprocessors = prop.multiProcessorCount;
  info->target = dispatch::Target::gfx942;
  info->has_kernels = info->arch.rfind("gfx942", 0) == 0;  // gfx942 code objects run on gfx942 only
  *found = true;
  return FLY_STATUS_SUCCESS;
}

fly_status_t stream_capturing(void* stream, bool* capturing) {
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  hipError_t err = hipStreamIsCapturing(static_cast<hipStream_t>(stream), &status);
  if (err != hipSuccess)
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("hipStreamIsCapturing failed: ") + hipGetErrorString(err));
  *capturing = status != hipStreamCaptureStatusNone;
  return FLY_STATUS_SUCCESS;
}

fly_status_t copy_rows_to_host(void* dst, const void* src, size_t width, size_t rows, size_t src_pitch, void* stream) {
  auto s = static_cast<hipStream_t>(stream);
  hipError_t err = hipMemcpy2DAsync(dst, width, src, src_pitch, width, rows, hipMemcpyDeviceToHost, s);
  if (err == hipErrorInvalidPitchValue || err == hipErrorInvalidValue) {  // a pitch past the 2D copy's limit: row by row
    (void)hipGetLastError();
    err = hipSuccess;
    for (size_t r = 0; r < rows && err == hipSuccess; ++r)
      err = hipMemcpyAsync(static_cast<char*>(dst) + r * width, static_cast<const char*>(src) + r * src_pitch, width, hipMemcpyDeviceToHost, s);
  }
  if (err == hipSuccess) err = hipStreamSynchronize(s);
  if (err != hipSuccess) {
    (void)hipGetLastError();  // reported here: not left for the caller's next call
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("copying to the host failed: ") + hipGetErrorString(err));
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::platform
