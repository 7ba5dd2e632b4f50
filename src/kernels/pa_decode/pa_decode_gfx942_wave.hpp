// What a gfx942 paged-decode wavefront does across its 64 lanes, behind small functions so the
// same kernel body compiles for the GPU (clang-19 -x hip) and for the host, where every lane is a
// host thread of a wavefront model (test/pa_decode/gfx942_wave_model.hpp):
//   xor_lanes     a value from lane ^ mask (ds_bpermute)
//   wave_sync     LDS written by some lanes of a wave is visible to the others
//   block_sync    __syncthreads
//   mfma<Op>      one MFMA instruction (fly/arch/mma_gfx942.hpp); on the host its lane-by-lane
//                 model (fly/atom/mma_model.hpp) over the 64 lanes' registers
//   uniform       a wave-uniform value in an SGPR (readfirstlane): buffer descriptors need one
//
// Why not rocPRIM's warp_reduce for the softmax statistics: a row of the QK product lives in lanes
// j, j + 16, j + 32, j + 48 (the MFMA C layout), a strided set of lanes, while warp_reduce reduces
// logical warps of consecutive lanes; two ds_bpermute steps (xor 16, xor 32) are the whole
// reduction, and they have a host model here where rocPRIM has none.
#pragma once

#include <cstdint>
#include <cstring>

#include "fly/layout/config.hpp"

#if !defined(__HIP_DEVICE_COMPILE__)
#include <array>

#include "fly/atom/mma_model.hpp"
#endif

namespace fly::kernels::pa::gfx942 {

inline constexpr int kLanes = 64;

#if !defined(__HIP_DEVICE_COMPILE__)
// The host model of a block's wavefronts: lanes run as host threads and meet here.
struct HostWaveModel {
  static constexpr int kExchangeBytes = 64;  // per lane: the largest MFMA operand set
  virtual ~HostWaveModel() = default;
  virtual void wave_sync(int wave) = 0;                  // every lane of `wave` arrives
  virtual void block_sync() = 0;                         // every lane of the block arrives
  virtual unsigned char* exchange(int wave, int lane) = 0;  // kExchangeBytes of lane's mailbox
};
struct HostLane {
  HostWaveModel* model = nullptr;
  int wave = 0, lane = 0;
};
inline thread_local HostLane host_lane;
#endif

FLY_HOST_DEVICE inline void wave_sync() {
#if defined(__HIP_DEVICE_COMPILE__)
  // a wave's LDS operations execute in order: only the compiler must not move them across
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
  host_lane.model->wave_sync(host_lane.wave);
#endif
}

FLY_HOST_DEVICE inline void block_sync() {
#if defined(__HIP_DEVICE_COMPILE__)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
#else
  host_lane.model->block_sync();
#endif
}

// x of lane (this lane ^ mask), mask < 64.
FLY_HOST_DEVICE inline float xor_lanes(float x, int lane, int mask) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute((lane ^ mask) << 2, __builtin_bit_cast(int, x)));
#else
  HostWaveModel& m = *host_lane.model;
  std::memcpy(m.exchange(host_lane.wave, lane), &x, sizeof x);
  m.wave_sync(host_lane.wave);
  float y;
  std::memcpy(&y, m.exchange(host_lane.wave, lane ^ mask), sizeof y);
  m.wave_sync(host_lane.wave);
  return y;
#endif
}

template <class T>
FLY_HOST_DEVICE inline T uniform(T x) {
#if defined(__HIP_DEVICE_COMPILE__)
  static_assert(sizeof(T) == 4);
  return __builtin_bit_cast(T, __builtin_amdgcn_readfirstlane(__builtin_bit_cast(int, x)));
#else
  return x;  // the callers pass values every lane of the wave computed alike
#endif
}

// d = A * B + c for one MFMA instruction; A, B, C, D are the lane's register arrays.
template <class Op, class A, class B>
FLY_HOST_DEVICE inline void mfma(float (&d)[4], A const& a, B const& b, float const (&c)[4]) {
#if defined(__HIP_DEVICE_COMPILE__)
  if constexpr (sizeof(A) == 8 && sizeof(a[0]) == 8) {
    Op::fma(d[0], d[1], d[2], d[3], a[0], b[0], c[0], c[1], c[2], c[3]);
  } else {
    Op::fma(d[0], d[1], d[2], d[3], a[0], a[1], b[0], b[1], c[0], c[1], c[2], c[3]);
  }
#else
  using Model = MMA_Model<Op>;
  static_assert(sizeof(A) + sizeof(B) + 16 <= HostWaveModel::kExchangeBytes);
  HostWaveModel& m = *host_lane.model;
  const int w = host_lane.wave, lane = host_lane.lane;
  unsigned char* box = m.exchange(w, lane);
  std::memcpy(box, &a, sizeof(A));
  std::memcpy(box + sizeof(A), &b, sizeof(B));
  std::memcpy(box + sizeof(A) + sizeof(B), &c, 16);
  m.wave_sync(w);
  if (lane == 0) {  // one lane runs the instruction's model for the wave
    typename Model::ARegs ar{};
    typename Model::BRegs br{};
    typename Model::CRegs cr{};
    typename Model::DRegs dr{};
    for (int l = 0; l < kLanes; ++l) {
      unsigned char const* src = m.exchange(w, l);
      std::memcpy(ar[size_t(l)].data(), src, sizeof(A));
      std::memcpy(br[size_t(l)].data(), src + sizeof(A), sizeof(B));
      std::memcpy(cr[size_t(l)].data(), src + sizeof(A) + sizeof(B), 16);
    }
    Model::execute(dr, ar, br, cr);
    for (int l = 0; l < kLanes; ++l) std::memcpy(m.exchange(w, l), dr[size_t(l)].data(), 16);
  }
  m.wave_sync(w);
  std::memcpy(d, box, 16);
  m.wave_sync(w);
#endif
}

}  // namespace fly::kernels::pa::gfx942
