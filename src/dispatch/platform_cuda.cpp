// The CUDA runtime calls of the dispatcher (compiled only when FLY_CUDA_ENABLED; links CUDA::cudart).
#include <cuda_runtime_api.h>

#include <string>

#include "platform.hpp"
#include "status_internal.hpp"

namespace fly::platform {

unsigned runtime_backend() noexcept { return FLY_BACKEND_CUDA; }

fly_status_t current_device(DeviceInfo* info, bool* found) {
  *info = DeviceInfo{};
  *found = false;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || err == cudaErrorInitializationError ||
      (err == cudaSuccess && count == 0)) {
    (void)cudaGetLastError();  // not sticky, but leave no error behind for the caller's next check
    return FLY_STATUS_SUCCESS;
  }
  if (err != cudaSuccess) {
    return detail::fail(FLY_STATUS_DEVICE_ERROR,
                        std::string("fly_create: cudaGetDeviceCount failed: ") + cudaGetErrorString(err));
  }
  int device = 0;
  err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("fly_create: cudaGetDevice failed: ") + cudaGetErrorString(err));
  }
  cudaDeviceProp prop{};
  err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess) {
    return detail::fail(FLY_STATUS_DEVICE_ERROR,
                        std::string("fly_create: cudaGetDeviceProperties failed: ") + cudaGetErrorString(err));
  }
  info->backend = FLY_BACKEND_CUDA;
  info->device = device;
  info->name = prop.name;
  info->arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  info->multiprocessors = prop.multiProcessorCount;
  info->target = dispatch::Target::sm90a;
  info->has_kernels = prop.major == 9 && prop.minor == 0;  // sm_90a code runs on compute capability 9.0 only
  *found = true;
  return FLY_STATUS_SUCCESS;
}

fly_status_t stream_capturing(void* stream, bool* capturing) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status);
  if (err != cudaSuccess)
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("cudaStreamIsCapturing failed: ") + cudaGetErrorString(err));
  *capturing = status != cudaStreamCaptureStatusNone;
  return FLY_STATUS_SUCCESS;
}

fly_status_t copy_rows_to_host(void* dst, const void* src, size_t width, size_t rows, size_t src_pitch, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  cudaError_t err = cudaMemcpy2DAsync(dst, width, src, src_pitch, width, rows, cudaMemcpyDeviceToHost, s);
  if (err == cudaErrorInvalidPitchValue || err == cudaErrorInvalidValue) {  // a pitch past the 2D copy's limit: row by row
    (void)cudaGetLastError();
    err = cudaSuccess;
    for (size_t r = 0; r < rows && err == cudaSuccess; ++r)
      err = cudaMemcpyAsync(static_cast<char*>(dst) + r * width, static_cast<const char*>(src) + r * src_pitch, width, cudaMemcpyDeviceToHost, s);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // reported here: not left for the caller's next call
    return detail::fail(FLY_STATUS_DEVICE_ERROR, std::string("copying to the host failed: ") + cudaGetErrorString(err));
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::platform
