// A build without a GPU runtime (host-only, and HIP builds: no AMD runtime is linked yet).
#include "platform.hpp"

namespace fly::platform {

unsigned runtime_backend() noexcept { return 0; }

fly_status_t current_device(DeviceInfo* info, bool* found) {
  *info = DeviceInfo{};
  *found = false;
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::platform
