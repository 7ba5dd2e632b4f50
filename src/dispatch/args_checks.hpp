// What every op's argument validation uses: reading enum fields as the caller stored them, the
// struct_size ABI rule, number and pointer text for messages, alignment and address ranges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "fly/fly.h"
#include "status_internal.hpp"

namespace fly::dispatch {

// An enum field as the int the caller stored: a C caller may store any int, which need not be a
// value of the C++ enum, so read the bytes, never the enum.
template <class Enum>
int raw_enum(const Enum& field) {
  std::underlying_type_t<Enum> v;
  static_assert(sizeof v == sizeof field);
  std::memcpy(&v, &field, sizeof v);
  return static_cast<int>(v);
}

inline bool known_dtype(const fly_dtype_t& t) { return raw_enum(t) >= FLY_DTYPE_F32 && raw_enum(t) <= FLY_DTYPE_E4M3FNUZ; }

// A dtype field for a message: its name, or the int stored when it is none.
inline std::string dtype_text(const fly_dtype_t& t) {
  return known_dtype(t) ? std::string(fly_dtype_string(t)) : std::to_string(raw_enum(t));
}

inline std::string num(int64_t v) { return std::to_string(v); }

inline std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

inline std::string address(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

inline bool aligned_to(const void* p, int64_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(bytes) == 0;
}

// The bytes [lo, hi) an argument spans (hi saturates at the top of the address space).
struct Range {
  uint64_t lo, hi;
};

inline Range range_of(const void* p, int64_t bytes) {
  auto const lo = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  auto const n = static_cast<uint64_t>(bytes);
  uint64_t const hi = lo > std::numeric_limits<uint64_t>::max() - n ? std::numeric_limits<uint64_t>::max() : lo + n;
  return {lo, hi};
}

inline bool overlap(Range x, Range y) { return x.lo < y.hi && y.lo < x.hi; }

// The struct_size rule of every argument struct (docs/c-api.md): at least `known` (this library's
// sizeof `type`), at most 4096 (beyond is an uninitialised struct, not a newer ABI), and a larger
// struct only with zero bytes past `known`. `f` is "<entry point>: ", `init` the INIT macro.
inline fly_status_t check_struct_size(const std::string& f, const void* args, size_t struct_size, size_t known,
                                      const char* type, const char* init) {
  constexpr size_t max_plausible_struct_size = 4096;
  if (struct_size < known) {
    return detail::fail(FLY_STATUS_INVALID_ARGUMENT, f + "args->struct_size (" + std::to_string(struct_size) +
                                                         ") is smaller than sizeof(" + type + ") (" + std::to_string(known) +
                                                         ") that this library reads; initialise args with " + init);
  }
  if (struct_size > max_plausible_struct_size) {
    return detail::fail(FLY_STATUS_INVALID_ARGUMENT, f + "args->struct_size (" + std::to_string(struct_size) +
                                                         ") is implausibly large (uninitialised args?); initialise args with " +
                                                         init);
  }
  auto const* tail = static_cast<const unsigned char*>(args) + known;
  for (size_t i = 0; i < struct_size - known; ++i) {
    if (tail[i] != 0) {
      return detail::fail(FLY_STATUS_NOT_SUPPORTED, f + "args->struct_size (" + std::to_string(struct_size) +
                                                        ") is larger than this library's " + type + " (" +
                                                        std::to_string(known) + ") and a field past it (byte " +
                                                        std::to_string(known + i) +
                                                        ") is set: the caller uses a newer libfly's option this library does not know");
    }
  }
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::dispatch
