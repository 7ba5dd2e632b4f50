// A build without a GPU runtime (host-only, and HIP builds: no AMD runtime is linked yet).
#include "platform.hpp"
#include "status_internal.hpp"

namespace fly::platform {

unsigned runtime_backend() noexcept { return 0; }

fly_status_t current_device(DeviceInfo* info, bool* found) {
  *info = DeviceInfo{};
  *found = false;
  return FLY_STATUS_SUCCESS;
}

fly_status_t stream_capturing(void*, bool* capturing) {
  *capturing = false;
  return detail::fail(FLY_STATUS_NOT_SUPPORTED, "this build has no GPU runtime");
}

fly_status_t copy_rows_to_host(void*, const void*, size_t, size_t, size_t, void*) {
  return detail::fail(FLY_STATUS_NOT_SUPPORTED, "this build has no GPU runtime");
}

}  // namespace fly::platform
