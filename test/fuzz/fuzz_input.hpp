// What the fuzz targets share: their view of libFuzzer's input (small integers, floats and bytes
// taken in order, zeros once it runs out, so every input is a complete call) and the host handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fly/fly.h"

namespace fly_fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t byte() { return n_ ? (--n_, *p_++) : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | byte();
    return v;
  }
  // 0 .. n - 1
  int64_t pick(int64_t n) { return n <= 1 ? 0 : int64_t(u32() % uint32_t(n)); }
  // lo .. hi
  int64_t range(int64_t lo, int64_t hi) { return lo + pick(hi - lo + 1); }
  // any float bit pattern (NaN and infinities included) half the time, else a small value
  float f32() {
    const uint32_t bits = u32();
    if (bits & 1u) {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    return float(int32_t(bits >> 1) % 1000) / 256.0f;
  }
  // dst gets the next bytes, then a counter pattern
  void fill(void* dst, size_t bytes) {
    auto* d = static_cast<uint8_t*>(dst);
    const size_t take = bytes < n_ ? bytes : n_;
    std::memcpy(d, p_, take);
    p_ += take;
    n_ -= take;
    for (size_t i = take; i < bytes; ++i) d[i] = uint8_t(i * 37 + 11);
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

// One host-backend handle for the whole run (creating one per input would dominate the run).
inline fly_handle_t host_handle() {
  static fly_handle_t h = [] {
    fly_handle_t x = nullptr;
    fly_create_host(&x);
    return x;
  }();
  return h;
}

}  // namespace fly_fuzz
