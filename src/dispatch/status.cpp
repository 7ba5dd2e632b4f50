// Status strings and the thread-local detail message behind fly_last_error().
#include "fly/fly.h"
#include "status_internal.hpp"

#include <string>

namespace fly::detail {
namespace {
thread_local std::string last_error;
}

fly_status_t fail(fly_status_t status, std::string message) noexcept {
  try {
    last_error = std::move(message);
  } catch (...) {
    last_error.clear();  // out of memory for the message: the status still says what happened
  }
  return status;
}

void clear_error() noexcept { last_error.clear(); }

}  // namespace fly::detail

extern "C" const char* fly_status_string(fly_status_t status) {
  switch (status) {
    case FLY_STATUS_SUCCESS: return "FLY_STATUS_SUCCESS";
    case FLY_STATUS_INVALID_ARGUMENT: return "FLY_STATUS_INVALID_ARGUMENT";
    case FLY_STATUS_NOT_SUPPORTED: return "FLY_STATUS_NOT_SUPPORTED";
    case FLY_STATUS_INSUFFICIENT_WORKSPACE: return "FLY_STATUS_INSUFFICIENT_WORKSPACE";
    case FLY_STATUS_DEVICE_ERROR: return "FLY_STATUS_DEVICE_ERROR";
    case FLY_STATUS_INTERNAL_ERROR: return "FLY_STATUS_INTERNAL_ERROR";
  }
  return "FLY_STATUS_UNKNOWN";
}

extern "C" const char* fly_last_error(void) { return fly::detail::last_error.c_str(); }
