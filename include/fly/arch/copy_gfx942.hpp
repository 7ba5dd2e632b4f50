// gfx942 buffer loads: global reads through a 128-bit buffer resource descriptor. A read past the
// descriptor's num_records returns zero, which kernels use for tails instead of branches.
// On the host the same types run a functional model (bounds-checked reads returning zero).
#pragma once

#include <cstdint>
#include <cstring>

#include "fly/arch/copy.hpp"

namespace fly {

// Buffer resource word 3 for gfx9: DATA_FORMAT = 32 (bits 15..18 = 4), everything else default.
inline constexpr uint32_t kGfx9BufferRsrcWord3 = 0x00020000;

// A typed position in a buffer: the descriptor plus an element offset. Not dereferenceable:
// only buffer copy atoms read through it.
template <class T>
struct buffer_ptr {
  using value_type = T;
#if defined(__HIP_DEVICE_COMPILE__)
  __amdgpu_buffer_rsrc_t rsrc;
#else
  T const* base = nullptr;  // host model
  uint32_t num_bytes = 0;
#endif
  int32_t offset = 0;  // in elements

  template <class I>
  FLY_HOST_DEVICE buffer_ptr operator+(I i) const {
    buffer_ptr p = *this;
    p.offset += int32_t(i);
    return p;
  }
  FLY_HOST_DEVICE int32_t byte_offset() const { return offset * int32_t(sizeof(T)); }
};

// make_buffer_ptr(p, n): reads of p[0, n) return data, reads past them return zero.
template <class T>
FLY_HOST_DEVICE buffer_ptr<T> make_buffer_ptr(T const* p, uint32_t num_elements) {
  buffer_ptr<T> b;
#if defined(__HIP_DEVICE_COMPILE__)
  b.rsrc = __builtin_amdgcn_make_buffer_rsrc(const_cast<T*>(p), 0, int(num_elements * sizeof(T)), int(kGfx9BufferRsrcWord3));
#else
  b.base = p;
  b.num_bytes = uint32_t(num_elements * sizeof(T));
#endif
  return b;
}

template <int Bits>
struct GFX942_BufferLoad {
  static_assert(Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64 || Bits == 128, "buffer_load widths");
  using value_type = std::conditional_t<Bits == 8, uint8_t,
                     std::conditional_t<Bits == 16, uint16_t,
                     std::conditional_t<Bits == 32, uint32_t, std::conditional_t<Bits == 64, uint64_t, uint128_v>>>>;
  static constexpr int bits = Bits;
  static constexpr const char* name = "GFX942_BufferLoad";
  template <int B>
  using with_bits = GFX942_BufferLoad<B>;
  // narrower buffer loads exist (ubyte/ushort), but the atoms below promise dword granularity
  static constexpr int min_bits = 32;

  template <class T, class DstIt>
  FLY_HOST_DEVICE static void copy(buffer_ptr<T> src, DstIt dst) {
    value_type v;
#if defined(__HIP_DEVICE_COMPILE__)
    if constexpr (Bits == 32) {
      v = __builtin_amdgcn_raw_buffer_load_b32(src.rsrc, src.byte_offset(), 0, 0);
    } else if constexpr (Bits == 64) {
      auto r = __builtin_amdgcn_raw_buffer_load_b64(src.rsrc, src.byte_offset(), 0, 0);
      __builtin_memcpy(&v, &r, sizeof(v));
    } else if constexpr (Bits == 128) {
      auto r = __builtin_amdgcn_raw_buffer_load_b128(src.rsrc, src.byte_offset(), 0, 0);
      __builtin_memcpy(&v, &r, sizeof(v));
    } else if constexpr (Bits == 16) {
      v = __builtin_amdgcn_raw_buffer_load_b16(src.rsrc, src.byte_offset(), 0, 0);
    } else {
      v = __builtin_amdgcn_raw_buffer_load_b8(src.rsrc, src.byte_offset(), 0, 0);
    }
#elif defined(__CUDA_ARCH__)
    (void)src;
    v = value_type{};  // no buffer loads on NVIDIA: never instantiated in CUDA kernels
#else
    // host model: each dword reads zero when it is not wholly inside the buffer (as the hardware)
    unsigned char bytes[sizeof(value_type)] = {};
    auto const* base = reinterpret_cast<unsigned char const*>(src.base);
    for (int dw = 0; dw < int(sizeof(value_type)); dw += 4) {
      int64_t at = int64_t(src.byte_offset()) + dw;
      int n = int(sizeof(value_type)) - dw < 4 ? int(sizeof(value_type)) - dw : 4;
      if (at >= 0 && at + n <= int64_t(src.num_bytes)) std::memcpy(bytes + dw, base + at, size_t(n));
    }
    std::memcpy(&v, bytes, sizeof(v));
#endif
    *reinterpret_cast<value_type*>(&*dst) = v;
  }
};

using BufferCopy32b = GFX942_BufferLoad<32>;
using BufferCopy64b = GFX942_BufferLoad<64>;
using BufferCopy128b = GFX942_BufferLoad<128>;

}  // namespace fly
