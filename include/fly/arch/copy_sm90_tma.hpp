// sm_90 tensor memory access (TMA) and what it synchronises through: one thread copies a 2D box of
// a global tensor into shared memory (cp.async.bulk.tensor), described by a CUtensorMap built on
// the host (src/dispatch/gemm/tma_desc_cuda.hpp) and passed as a __grid_constant__ kernel parameter. The
// box lands in the tensor map's layout (the 128-byte swizzle for the GEMM tiles) and an mbarrier in
// shared memory counts its bytes as they arrive (complete_tx). With .multicast::cluster the box
// lands at the same offset in the shared memory of every CTA of the cluster that `cta_mask` names,
// and each of their mbarriers at the barrier's offset counts it.
//
// An mbarrier phase completes when its pending arrivals reach zero and its expected bytes have
// landed; waiters name the phase by its parity. These are the raw instructions (PTX ISA, "Parallel
// synchronization and communication instructions: mbarrier", "cp.async.bulk.tensor"); without
// sm_90 they trap.
#pragma once

#include <cstdint>

#include "fly/arch/copy_sm90.hpp"
#include "fly/arch/mma_sm90.hpp"

namespace fly {

namespace mbarrier {
// Before any use, by one thread: `arrivals` arrivals complete each phase.
FLY_HOST_DEVICE inline void init(uint64_t* bar, uint32_t arrivals) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(detail::smem_u32(bar)), "r"(arrivals) : "memory");
#else
  detail::arch_unavailable_sm90(bar, arrivals);
#endif
}

// Makes initialised barriers visible to the cluster and to the async proxy (TMA) before use.
FLY_HOST_DEVICE inline void fence_init() {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

// One arrival that also announces `bytes` more to land in the current phase.
FLY_HOST_DEVICE inline void arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(detail::smem_u32(bar)), "r"(bytes)
               : "memory");
#else
  detail::arch_unavailable_sm90(bar, bytes);
#endif
}

FLY_HOST_DEVICE inline void arrive(uint64_t* bar) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(detail::smem_u32(bar)) : "memory");
#else
  detail::arch_unavailable_sm90(bar);
#endif
}

// True once the phase of parity `phase` has completed (a bounded hardware wait, then false). With
// AcquireCluster, acquiring at cluster scope: what other CTAs of the cluster stored into this CTA's
// shared memory before their release.cluster arrivals on `bar` (arrive_cluster<true>) is
// visible after it; otherwise at CTA scope (the default semantics).
template <bool AcquireCluster = false>
FLY_HOST_DEVICE inline bool try_wait(uint64_t* bar, uint32_t phase) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  uint32_t done = 0;
#define FLY_MBARRIER_TRY_WAIT(sem)                                                         \
  asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity" sem ".shared::cta.b64 p, [%1], %2;\n" \
               " selp.u32 %0, 1, 0, p;\n}\n"                                              \
               : "=r"(done)                                                                 \
               : "r"(detail::smem_u32(bar)), "r"(phase)                                     \
               : "memory")
  if constexpr (AcquireCluster) {
    FLY_MBARRIER_TRY_WAIT(".acquire.cluster");
  } else {
    FLY_MBARRIER_TRY_WAIT("");
  }
#undef FLY_MBARRIER_TRY_WAIT
  return done != 0;
#else
  detail::arch_unavailable_sm90(bar, phase);
  return false;
#endif
}

// Polls try_once(bar, phase) until it holds. Define FLY_MBARRIER_TRAP_AFTER_NS in a test or probe so
// that a phase that never completes traps (a launch error) after that many nanoseconds of global
// time instead of hanging (a poll count would not do: each try_wait may itself wait an
// implementation-defined time).
template <class Try>
FLY_HOST_DEVICE inline void spin(Try try_once, uint64_t* bar, uint32_t phase) {
#if defined(FLY_MBARRIER_TRAP_AFTER_NS) && defined(FLY_ARCH_MMA_SM90_ENABLED)
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(start));
  while (!try_once(bar, phase)) {
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(now));
    if (now - start > uint64_t(FLY_MBARRIER_TRAP_AFTER_NS)) detail::arch_unavailable_sm90(bar, phase);  // traps
  }
#else
  while (!try_once(bar, phase)) {
  }
#endif
}

// Waits for the phase of parity `phase` (spin: FLY_MBARRIER_TRAP_AFTER_NS).
FLY_HOST_DEVICE inline void wait(uint64_t* bar, uint32_t phase) { spin(try_wait<false>, bar, phase); }

// The same, acquiring at cluster scope (try_wait<true>).
FLY_HOST_DEVICE inline void wait_cluster(uint64_t* bar, uint32_t phase) { spin(try_wait<true>, bar, phase); }

// One arrival on the mbarrier at bar's offset in CTA `cta` of this cluster: how a consumer frees a
// stage that other CTAs' multicasts fill. The default semantics (release at CTA scope), as CUTLASS's
// ClusterBarrier::arrive: with .release.cluster each arrival cost ~0.5-1 us on the H200 (a GEMM
// block releasing a stage to 2 or 4 CTAs ran 2.5x and 6.5x slower than without a cluster).
// ReleaseCluster (for a once-a-tile exchange, not a per-stage release): releasing at cluster scope,
// so that the stores into that CTA's shared memory (cluster::store_remote) that come before it,
// this thread's or, through a barrier, its warpgroup's, are visible to whoever acquires the phase
// there (wait_cluster).
template <bool ReleaseCluster = false>
FLY_HOST_DEVICE inline void arrive_cluster(uint64_t* bar, uint32_t cta) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
#define FLY_MBARRIER_ARRIVE_REMOTE(sem)                                                              \
  asm volatile("{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"                 \
               " mbarrier.arrive" sem ".shared::cluster.b64 _, [remote];\n}\n" ::"r"(detail::smem_u32(bar)), \
               "r"(cta)                                                                               \
               : "memory")
  if constexpr (ReleaseCluster) {
    FLY_MBARRIER_ARRIVE_REMOTE(".release.cluster");
  } else {
    FLY_MBARRIER_ARRIVE_REMOTE("");
  }
#undef FLY_MBARRIER_ARRIVE_REMOTE
#else
  detail::arch_unavailable_sm90(bar, cta);
#endif
}
}  // namespace mbarrier

namespace cluster {
// Four floats into the shared memory of CTA `cta` of this cluster, at the offset that `addr` (a
// shared-memory address of this CTA) has in this one: distributed shared memory.
FLY_HOST_DEVICE inline void store_remote(uint32_t addr, uint32_t cta, float x, float y, float z, float w) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile(
      "{\n .reg .b32 remote;\n"
      " mapa.shared::cluster.u32 remote, %0, %1;\n"
      " st.shared::cluster.v4.f32 [remote], {%2, %3, %4, %5};\n}\n" ::"r"(addr),
      "r"(cta), "f"(x), "f"(y), "f"(z), "f"(w)
      : "memory");
#else
  detail::arch_unavailable_sm90(addr, cta, x, y, z, w);
#endif
}

// This CTA's rank in its cluster (0 without clusters).
FLY_HOST_DEVICE inline uint32_t block_rank() {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  uint32_t rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
#else
  return 0;
#endif
}

// Every thread of every CTA of the cluster arrives and waits (release / acquire).
FLY_HOST_DEVICE inline void sync() {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}

// The same rendezvous without ordering memory: for publishing mbarrier inits, which
// mbarrier::fence_init (fence.mbarrier_init.release.cluster) already releases to the cluster.
// The release form costs a GPU-scope MEMBAR and ERRBAR in every thread at the kernel's start.
FLY_HOST_DEVICE inline void sync_after_barrier_init() {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;\n" ::: "memory");
#endif
}
}  // namespace cluster

// Brings a tensor map into the TMA unit's descriptor cache ahead of its first copy (one thread,
// at the start of a kernel whose first boxes are on the critical path).
FLY_HOST_DEVICE inline void prefetch_tma_descriptor(void const* tensor_map) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(tensor_map)) : "memory");
#else
  detail::arch_unavailable_sm90(tensor_map);
#endif
}

// A 2D box at element coordinates (x = column, y = row) of the tensor map's tensor into `smem`
// (aligned as the map's swizzle requires: 1024 bytes for 128-byte swizzle); `bar` counts its bytes.
// Parts of the box outside the tensor are zero-filled.
struct SM90_TMA_LOAD_2D {
  FLY_HOST_DEVICE static void copy(void const* tensor_map, uint64_t* bar, void* smem, int32_t x, int32_t y) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
            detail::smem_u32(smem)),
        "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(detail::smem_u32(bar)), "r"(x), "r"(y)
        : "memory");
#else
    detail::arch_unavailable_sm90(tensor_map, bar, smem, x, y);
#endif
  }
};

// A 5D box at element coordinates (c0 innermost .. c4) of the tensor map's tensor into `smem`,
// counted by `bar`; parts outside the tensor are zero-filled (and still counted). The paged decode
// names a page's rows this way: (element, 128-byte part of the row, kv head, slot, block id).
struct SM90_TMA_LOAD_5D {
  FLY_HOST_DEVICE static void copy(void const* tensor_map, uint64_t* bar, void* smem, int32_t c0, int32_t c1, int32_t c2,
                                   int32_t c3, int32_t c4) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n" ::"r"(
            detail::smem_u32(smem)),
        "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(detail::smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
        : "memory");
#else
    detail::arch_unavailable_sm90(tensor_map, bar, smem, c0, c1, c2, c3, c4);
#endif
  }
  // The same, with the box's and the barrier's shared-window addresses (what smem_u32 gives) in hand.
  FLY_HOST_DEVICE static void copy(void const* tensor_map, uint32_t bar, uint32_t smem, int32_t c0, int32_t c1, int32_t c2,
                                   int32_t c3, int32_t c4) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n" ::"r"(
            smem),
        "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
        : "memory");
#else
    detail::arch_unavailable_sm90(tensor_map, bar, smem, c0, c1, c2, c3, c4);
#endif
  }
};

// Orders this thread's earlier shared-memory accesses (the generic proxy: ld/st, ldmatrix) before
// later accesses of the async proxy to the same bytes: a stage read or zeroed by the threads is
// refilled by a TMA load only after this fence, and a tile the threads wrote is read by a TMA store
// (after the fence and a barrier among the writers) only once it is whole.
FLY_HOST_DEVICE inline void fence_proxy_async_shared() {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// The same box into every CTA of the cluster whose bit is set in cta_mask, at smem's offset, each
// counted by the mbarrier at bar's offset in that CTA.
struct SM90_TMA_LOAD_2D_MULTICAST {
  FLY_HOST_DEVICE static void copy(void const* tensor_map, uint64_t* bar, uint16_t cta_mask, void* smem, int32_t x,
                                   int32_t y) {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)  // .multicast::cluster is sm_90a
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%4, %5}], [%2], %3;\n" ::"r"(detail::smem_u32(smem)),
        "l"(reinterpret_cast<uint64_t>(tensor_map)), "r"(detail::smem_u32(bar)), "h"(cta_mask), "r"(x), "r"(y)
        : "memory");
#else
    detail::arch_unavailable_sm90(tensor_map, bar, cta_mask, smem, x, y);
#endif
  }
};

// The reverse direction: a 2D box of `smem` (laid out as the tensor map's swizzle says, 1024-byte
// aligned for the 128-byte swizzle) to element coordinates (x, y) of the map's tensor. Parts of
// the box outside the tensor are not written. Asynchronous: the stores of one thread join its
// current bulk group (tma_store_commit); the box's bytes may be reused once tma_store_wait_read
// says the group has read them. The writing threads make their shared-memory writes visible to
// the TMA first (fence_proxy_async_shared, then a barrier among them).
struct SM90_TMA_STORE_2D {
  FLY_HOST_DEVICE static void copy(void const* tensor_map, void const* smem, int32_t x, int32_t y) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                     reinterpret_cast<uint64_t>(tensor_map)),
                 "r"(detail::smem_u32(smem)), "r"(x), "r"(y)
                 : "memory");
#else
    detail::arch_unavailable_sm90(tensor_map, smem, x, y);
#endif
  }

  // The store, then its commit (tma_store_commit), by the threads where `issue` holds: predicated
  // instructions, not a branch, so that a warp's one issuing lane leaves no divergent path in the
  // code around it (ptxas serialises the wgmmas in flight across one: C7518; cuBLASLt's epilogue
  // stores under a predicate the same way).
  FLY_HOST_DEVICE static void copy_commit_if(bool issue, void const* tensor_map, void const* smem, int32_t x, int32_t y) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "@p cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n"
        "@p cp.async.bulk.commit_group;\n}\n" ::"l"(reinterpret_cast<uint64_t>(tensor_map)),
        "r"(detail::smem_u32(smem)), "r"(x), "r"(y), "r"(uint32_t(issue))
        : "memory");
#else
    detail::arch_unavailable_sm90(issue, tensor_map, smem, x, y);
#endif
  }
};

// Closes this thread's current bulk group of TMA stores.
FLY_HOST_DEVICE inline void tma_store_commit() {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#else
  detail::arch_unavailable_sm90();
#endif
}

// Waits until at most `Pending` of this thread's committed store groups still read shared memory.
template <int Pending>
FLY_HOST_DEVICE inline void tma_store_wait_read() {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
#else
  detail::arch_unavailable_sm90();
#endif
}

// The same, by the threads where `wait` holds, as a predicated instruction (copy_commit_if says why).
template <int Pending>
FLY_HOST_DEVICE inline void tma_store_wait_read_if(bool wait) {
#if defined(FLY_ARCH_MMA_SM90_ENABLED)
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %1, 0;\n@p cp.async.bulk.wait_group.read %0;\n}\n" ::"n"(Pending),
               "r"(uint32_t(wait))
               : "memory");
#else
  detail::arch_unavailable_sm90(wait);
#endif
}

}  // namespace fly
