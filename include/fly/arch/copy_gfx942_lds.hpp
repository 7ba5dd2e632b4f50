// gfx942 LDS accesses (ds_read_b32/b64/b128, ds_write_b32/b64/b128) through a swizzle_ptr: the
// atom applies the buffer's swizzle to the whole element offset, then moves `Bits` at once. One
// op serves both directions: registers -> LDS when the destination is a swizzle_ptr, LDS ->
// registers when the source is. On the host the same types run a functional model (plain memory),
// and, when a test installs a trace, record each access's address and width (bank-conflict tests).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fly/arch/copy.hpp"
#include "fly/layout/swizzle_layout.hpp"

#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
#include <vector>
#endif

namespace fly {

#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
// Host model only: every LDS access of this thread appends (address, bytes) here when set.
struct LdsAccess {
  const void* address;
  int bytes;
  bool write;
};
inline thread_local std::vector<LdsAccess>* lds_trace = nullptr;
#endif

template <int Bits>
struct GFX942_DsCopy {
  static_assert(Bits == 32 || Bits == 64 || Bits == 128, "ds_read/ds_write widths used here: 32, 64, 128");
  using value_type =
      std::conditional_t<Bits == 32, uint32_t, std::conditional_t<Bits == 64, uint64_t, uint128_v>>;
  static constexpr int bits = Bits;
  static constexpr const char* name = "GFX942_DsCopy";
  template <int B>
  using with_bits = GFX942_DsCopy<B>;
  static constexpr int min_bits = 32;

  // LDS -> registers
  template <class T, class Swz, class DstIt>
  FLY_HOST_DEVICE static void copy(swizzle_ptr<T, Swz> src, DstIt dst) {
    *reinterpret_cast<value_type*>(&*dst) = load(src.get());
  }
  // registers -> LDS
  template <class SrcIt, class T, class Swz>
  FLY_HOST_DEVICE static void copy(SrcIt src, swizzle_ptr<T, Swz> dst) {
    store(dst.get(), *reinterpret_cast<value_type const*>(&*src));
  }

 private:
#if defined(__HIP_DEVICE_COMPILE__)
  // what an LDS access moves: a scalar or vector of dwords (a struct has no LDS-qualified copy)
  typedef uint32_t lds_word __attribute__((ext_vector_type(Bits / 32)));
#endif
  template <class T>
  FLY_HOST_DEVICE static value_type load(T const* p) {
#if defined(__HIP_DEVICE_COMPILE__)
    // the LDS address space, so that the compiler emits ds_read rather than a flat load
    // C-style: an addrspacecast. volatile: exactly one ds_read of this width (left free, clang
    // re-reads a 16-byte chunk as b64 + b128 to shorten live ranges, and b64 halves of one chunk
    // from 16 rows conflict where the b128 does not)
    using lds_ptr = __attribute__((address_space(3))) lds_word const volatile*;
    return __builtin_bit_cast(value_type, lds_word(*(lds_ptr)(p)));
#else
    if (lds_trace) lds_trace->push_back({p, Bits / 8, false});
    value_type v;
    std::memcpy(&v, p, sizeof v);
    return v;
#endif
  }
  template <class T>
  FLY_HOST_DEVICE static void store(T* p, value_type v) {
#if defined(__HIP_DEVICE_COMPILE__)
    using lds_ptr = __attribute__((address_space(3))) lds_word*;
    *(lds_ptr)(p) = __builtin_bit_cast(lds_word, v);
#else
    if (lds_trace) lds_trace->push_back({p, Bits / 8, true});
    std::memcpy(p, &v, sizeof v);
#endif
  }
};

using DsCopy32b = GFX942_DsCopy<32>;
using DsCopy64b = GFX942_DsCopy<64>;
using DsCopy128b = GFX942_DsCopy<128>;

}  // namespace fly
