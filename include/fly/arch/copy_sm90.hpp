// sm_90a cp.async: global -> shared copies of 4, 8 or 16 bytes that bypass registers, grouped by
// cp_async_fence() and completed by cp_async_wait<N>(). copy_zfill with valid == false reads nothing
// and writes zeros (src-size 0): the predicated loads of edge tiles. On the host the functional
// model keeps each thread's copies in its groups and performs them only when a wait completes the
// group, so a kernel run on host threads that reads a buffer before waiting reads stale data.
#pragma once

#include <cstdint>
#include <cstring>
#if !defined(__CUDA_ARCH__)
#include <deque>
#include <vector>
#endif

#include "fly/arch/copy.hpp"

namespace fly {

namespace detail {
#if !defined(__CUDA_ARCH__)
// The host model's copies in flight, per thread: the open group (since the last fence) and the
// committed groups, oldest first. A copy reads its source when its group completes.
struct HostCpAsync {
  struct Copy {
    void* dst;
    void const* src;
    int bytes;
    bool valid;
  };
  std::vector<Copy> open;
  std::deque<std::vector<Copy>> committed;
  static HostCpAsync& of_this_thread() {
    static thread_local HostCpAsync queue;
    return queue;
  }
  void commit() {
    committed.push_back(std::move(open));
    open.clear();
  }
  static void perform(std::vector<Copy> const& group) {
    for (auto const& c : group) {
      if (c.valid) {
        std::memcpy(c.dst, c.src, size_t(c.bytes));
      } else {
        std::memset(c.dst, 0, size_t(c.bytes));
      }
    }
  }
  void wait(size_t pending) {
    while (committed.size() > pending) {
      perform(committed.front());
      committed.pop_front();
    }
  }
};
#endif

// The 32-bit shared-memory address of a generic pointer into shared memory (on the host, the
// pointer's low bits: what the functional models and descriptor tests compute with).
FLY_HOST_DEVICE inline uint32_t smem_u32(void const* p) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
#else
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p));
#endif
}
}  // namespace detail

template <int Bits>
struct SM90_CpAsync {
  static_assert(Bits == 32 || Bits == 64 || Bits == 128, "cp.async copies 4, 8 or 16 bytes");
  using value_type = std::conditional_t<Bits == 32, uint32_t, std::conditional_t<Bits == 64, uint64_t, uint128_v>>;
  static constexpr int bits = Bits;
  static constexpr const char* name = "SM90_CpAsync";
  template <int B>
  using with_bits = SM90_CpAsync<B>;
  static constexpr int min_bits = 32;

  template <class SrcIt, class DstIt>
  FLY_HOST_DEVICE static void copy(SrcIt src, DstIt dst) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    auto smem = static_cast<uint32_t>(__cvta_generic_to_shared(&*dst));
    if constexpr (Bits == 128) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(&*src));
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(smem), "l"(&*src), "n"(Bits / 8));
    }
#elif !defined(__CUDA_ARCH__)
    detail::HostCpAsync::of_this_thread().open.push_back({&*dst, &*src, Bits / 8, true});
#endif
  }

  template <class SrcIt, class DstIt>
  FLY_HOST_DEVICE static void copy_zfill(SrcIt src, DstIt dst, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    auto smem = static_cast<uint32_t>(__cvta_generic_to_shared(&*dst));
    const int src_bytes = valid ? Bits / 8 : 0;
    if constexpr (Bits == 128) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem), "l"(&*src), "r"(src_bytes));
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem), "l"(&*src), "n"(Bits / 8),
                   "r"(src_bytes));
    }
#elif !defined(__CUDA_ARCH__)
    detail::HostCpAsync::of_this_thread().open.push_back({&*dst, &*src, Bits / 8, valid});
#endif
  }
};

// Close the group of cp.async issued since the last fence (an empty group is legal).
FLY_HOST_DEVICE inline void cp_async_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#elif !defined(__CUDA_ARCH__)
  detail::HostCpAsync::of_this_thread().commit();
#endif
}

// Wait until at most N of this thread's cp.async groups are still in flight.
template <int N>
FLY_HOST_DEVICE inline void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#elif !defined(__CUDA_ARCH__)
  detail::HostCpAsync::of_this_thread().wait(size_t(N));
#endif
}

// Make every cp.async issued so far by this thread visible in shared memory.
FLY_HOST_DEVICE inline void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#elif !defined(__CUDA_ARCH__)
  auto& q = detail::HostCpAsync::of_this_thread();
  q.commit();  // the open group too, as wait_all does
  q.wait(0);
#endif
}

using CpAsync32b = SM90_CpAsync<32>;
using CpAsync64b = SM90_CpAsync<64>;
using CpAsync128b = SM90_CpAsync<128>;

}  // namespace fly
