// The C boundary of every entry point: clears the last error, runs the body, and turns any
// exception into FLY_STATUS_INTERNAL_ERROR with a message naming the entry point.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "fly/fly.h"
#include "status_internal.hpp"

namespace fly::detail {

inline fly_status_t internal_error(const char* fn, const std::exception* e) {
  std::string msg = std::string(fn) + ": ";
  if (dynamic_cast<const std::bad_alloc*>(e) != nullptr) {
    msg += "out of memory";
  } else {
    msg += "unexpected exception";
    if (e != nullptr) msg += std::string(" (") + e->what() + ")";
  }
  return fail(FLY_STATUS_INTERNAL_ERROR, msg);
}

// Runs `body` (returning a status), turning any exception into FLY_STATUS_INTERNAL_ERROR.
template <class Body>
fly_status_t guarded(const char* fn, Body&& body) noexcept {
  clear_error();
  try {
    return body();
  } catch (const std::exception& e) {
    try {
      return internal_error(fn, &e);
    } catch (...) {
      return FLY_STATUS_INTERNAL_ERROR;
    }
  } catch (...) {
    try {
      return internal_error(fn, nullptr);
    } catch (...) {
      return FLY_STATUS_INTERNAL_ERROR;
    }
  }
}

}  // namespace fly::detail
