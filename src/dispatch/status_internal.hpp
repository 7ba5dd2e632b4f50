// Internal helpers every C entry point uses to report a failure.
#pragma once
#include "fly/fly.h"

#include <string>

namespace fly::detail {

// Records `message` as this thread's fly_last_error() and returns `status`.
fly_status_t fail(fly_status_t status, std::string message) noexcept;

// Called on entry by every C function that succeeds, so a stale message never lingers.
void clear_error() noexcept;

}  // namespace fly::detail
