// What a variant's code runs on, for every op's registry. host: the CPU (the host backends);
// sm90a: NVIDIA compute capability 9.0; gfx942: AMD MI300.
#pragma once

namespace fly::dispatch {

enum class Target { host, sm90a, gfx942 };

// "host", "sm90a", "gfx942".
inline const char* target_name(Target target) noexcept {
  switch (target) {
    case Target::host: return "host";
    case Target::sm90a: return "sm90a";
    case Target::gfx942: return "gfx942";
  }
  return "unknown";
}

}  // namespace fly::dispatch
