// Host functional models of the MMA instructions (fly/arch/mma_*.hpp): MMA_Model<Op>::execute
// takes the registers of every lane of the wave/warp (per lane, the same register arrays as
// Op::ARegisters, ...) and computes every lane's D registers as the instruction does.
//
// The models are written directly from the vendors' lane formulas (AMD CDNA3 ISA / Matrix
// Instruction Calculator for MFMA, NVIDIA PTX ISA "Matrix Fragments" for mma.sync and wgmma), NOT
// from the MMA_Traits layouts: test/atom/test_mma_atoms.cpp distributes operands with the traits'
// layouts, runs the model and gathers D with the traits' CLayout, so the two independent
// descriptions must agree. Products are accumulated in float, C first, then k = 0, 1, ... (the
// tests use values for which every order gives the same, exact, result).
//
// Host only (std::array); not for device code.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "fly/arch/mma_gfx942.hpp"
#include "fly/arch/mma_host.hpp"
#include "fly/arch/mma_sm90.hpp"
#include "fly/numeric/numeric.hpp"

namespace fly {

// T[N] -> std::array<T, N>: one lane's registers of an operand.
template <class Regs>
struct register_array;
template <class T, std::size_t N>
struct register_array<T[N]> {
  using type = std::array<T, N>;
};
template <class Regs>
using register_array_t = typename register_array<Regs>::type;

template <class Op>
struct MMA_Model;

namespace model {

template <class R>
inline uint64_t raw_bits(R const& r) {
  static_assert(sizeof(R) == 4 || sizeof(R) == 8);
  if constexpr (sizeof(R) == 4) {
    uint32_t u;
    std::memcpy(&u, &r, 4);
    return u;
  } else {
    uint64_t u;
    std::memcpy(&u, &r, 8);
    return u;
  }
}
template <class R>
inline R from_raw_bits(uint64_t u) {
  R r;
  if constexpr (sizeof(R) == 4) {
    uint32_t const v = uint32_t(u);
    std::memcpy(&r, &v, 4);
  } else {
    std::memcpy(&r, &u, 8);
  }
  return r;
}

// Element e (width w bits) of a lane's registers: bits [w*e, w*(e+1)) of reg0, reg1, ... with
// the lowest bits of reg0 first. An element never straddles two registers here.
template <class R, std::size_t N>
inline uint64_t get_element(std::array<R, N> const& regs, int e, int w) {
  int const rb = int(sizeof(R)) * 8;
  int const bit = e * w;
  if (bit + w > rb * int(N)) throw std::out_of_range("fly::model::get_element");
  uint64_t const reg = raw_bits(regs[std::size_t(bit / rb)]);
  uint64_t const mask = w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  return (reg >> (bit % rb)) & mask;
}
template <class R, std::size_t N>
inline void set_element(std::array<R, N>& regs, int e, int w, uint64_t value) {
  int const rb = int(sizeof(R)) * 8;
  int const bit = e * w;
  if (bit + w > rb * int(N)) throw std::out_of_range("fly::model::set_element");
  R& r = regs[std::size_t(bit / rb)];
  uint64_t const mask = (w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1) << (bit % rb);
  uint64_t const u = (raw_bits(r) & ~mask) | ((value << (bit % rb)) & mask);
  r = from_raw_bits<R>(u);
}

// The float value of an element of type T given its bits.
template <class T>
inline float value_of(uint64_t bits) {
  if constexpr (std::is_same_v<T, float>) {
    return from_raw_bits<float>(bits);
  } else if constexpr (sizeof(T) == 1) {
    return float(T::from_bits(uint8_t(bits)));
  } else {
    return float(T::from_bits(uint16_t(bits)));
  }
}
template <class T>
inline constexpr int bits_of = int(sizeof(T) * 8);

// Records that each matrix element is written exactly once by a model's lane formula.
template <int R, int C>
struct Coverage {
  std::array<std::array<int, C>, R> count{};
  void hit(int r, int c, char const* what) {
    if (r < 0 || r >= R || c < 0 || c >= C) throw std::logic_error(std::string(what) + ": coordinate out of range");
    ++count[std::size_t(r)][std::size_t(c)];
  }
  void check(char const* what) const {
    for (auto const& row : count)
      for (int n : row)
        if (n != 1) throw std::logic_error(std::string(what) + ": lane formula is not a bijection");
  }
};

// ---- gfx942 MFMA (single block, 64 lanes, CBSZ = ABID = BLGP = 0) ------------------------------
//
// AMD CDNA3 ISA, chapter 7 "Matrix Arithmetic Instructions"; AMD Matrix Instruction Calculator
// (--detail-instruction, "Matrix element to register mapping"), with KL = K*M/64 elements per lane:
//   A[i][k]   lane M*floor(k/KL) + i,  element k % KL of the lane's A registers
//   B[k][j]   lane N*floor(k/KL) + j,  element k % KL of the lane's B registers
//   C/D[i][j] 16x16: lane 16*floor(i/4) + j,        register i % 4
//             32x32: lane (32*floor(i/4)) % 64 + j, register 4*floor(i/8) + (i % 4)
template <class Op, class TAB, int M, int N, int K>
struct Gfx942MfmaModel {
  static_assert(M == N && (M == 16 || M == 32));
  static constexpr int kLanes = 64;
  static constexpr int KL = K * M / 64;
  using ARegs = std::array<register_array_t<typename Op::ARegisters>, kLanes>;
  using BRegs = std::array<register_array_t<typename Op::BRegisters>, kLanes>;
  using CRegs = std::array<register_array_t<typename Op::CRegisters>, kLanes>;
  using DRegs = std::array<register_array_t<typename Op::DRegisters>, kLanes>;

  static std::pair<int, int> a_location(int i, int k) { return {M * (k / KL) + i, k % KL}; }
  static std::pair<int, int> b_location(int k, int j) { return {N * (k / KL) + j, k % KL}; }
  static std::pair<int, int> cd_location(int i, int j) {
    if constexpr (M == 16) {
      return {16 * (i / 4) + j, i % 4};
    } else {
      return {(32 * (i / 4)) % 64 + j, 4 * (i / 8) + i % 4};
    }
  }

  static void execute(DRegs& d, ARegs const& a, BRegs const& b, CRegs const& c) {
    constexpr int w = bits_of<TAB>;
    std::array<std::array<float, K>, M> A{};
    std::array<std::array<float, N>, K> B{};
    Coverage<kLanes, KL> a_seen, b_seen;
    Coverage<kLanes, int(sizeof(typename Op::DRegisters) / 4)> d_seen;
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) {
        auto [lane, e] = a_location(i, k);
        a_seen.hit(lane, e, "MFMA A");
        A[i][k] = value_of<TAB>(get_element(a[std::size_t(lane)], e, w));
      }
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j) {
        auto [lane, e] = b_location(k, j);
        b_seen.hit(lane, e, "MFMA B");
        B[k][j] = value_of<TAB>(get_element(b[std::size_t(lane)], e, w));
      }
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        auto [lane, r] = cd_location(i, j);
        d_seen.hit(lane, r, "MFMA C/D");
        float acc = c[std::size_t(lane)][std::size_t(r)];
        for (int k = 0; k < K; ++k) acc += A[i][k] * B[k][j];
        d[std::size_t(lane)][std::size_t(r)] = acc;
      }
    a_seen.check("MFMA A");
    b_seen.check("MFMA B");
    d_seen.check("MFMA C/D");
  }
};

// ---- sm_90 mma.sync m16n8kK (32 lanes) ----------------------------------------------------------
//
// PTX ISA "Matrix Fragments for mma.m16n8k32" (8-bit A/B: K = 32) and "Matrix Fragments for
// mma.m16n8k16 with floating point type" (16-bit A/B: K = 16). groupID = laneid >> 2,
// threadID_in_group = laneid % 4.
template <class Op, class TAB, int K>
struct Sm90MmaSyncModel {
  static_assert((K == 32 && sizeof(TAB) == 1) || (K == 16 && sizeof(TAB) == 2));
  static constexpr int kLanes = 32;
  static constexpr int M = 16, N = 8;
  using ARegs = std::array<register_array_t<typename Op::ARegisters>, kLanes>;
  using BRegs = std::array<register_array_t<typename Op::BRegisters>, kLanes>;
  using CRegs = std::array<register_array_t<typename Op::CRegisters>, kLanes>;
  using DRegs = std::array<register_array_t<typename Op::DRegisters>, kLanes>;

  // (row, col) of A element a_i held by `lane`.
  static std::pair<int, int> a_coord(int lane, int i) {
    int const groupID = lane >> 2, threadID_in_group = lane % 4;
    if constexpr (K == 32) {  // a0..a15
      int const row = (i < 4 || (8 <= i && i < 12)) ? groupID : groupID + 8;
      int const col = i < 8 ? threadID_in_group * 4 + (i & 0x3) : threadID_in_group * 4 + (i & 0x3) + 16;
      return {row, col};
    } else {  // a0..a7
      int const row = (i < 2 || (4 <= i && i < 6)) ? groupID : groupID + 8;
      int const col = i < 4 ? threadID_in_group * 2 + (i & 0x1) : threadID_in_group * 2 + (i & 0x1) + 8;
      return {row, col};
    }
  }
  // (row = k, col = n) of B element b_i held by `lane`.
  static std::pair<int, int> b_coord(int lane, int i) {
    int const groupID = lane >> 2, threadID_in_group = lane % 4;
    if constexpr (K == 32) {  // b0..b7
      int const row = i < 4 ? threadID_in_group * 4 + (i & 0x3) : threadID_in_group * 4 + (i & 0x3) + 16;
      return {row, groupID};
    } else {  // b0..b3
      int const row = i < 2 ? threadID_in_group * 2 + (i & 0x1) : threadID_in_group * 2 + (i & 0x1) + 8;
      return {row, groupID};
    }
  }
  // (row, col) of C/D element c_i held by `lane` (f32 accumulators).
  static std::pair<int, int> cd_coord(int lane, int i) {
    int const groupID = lane >> 2, threadID_in_group = lane % 4;
    int const row = i < 2 ? groupID : groupID + 8;
    int const col = threadID_in_group * 2 + (i & 0x1);
    return {row, col};
  }

  static void execute(DRegs& d, ARegs const& a, BRegs const& b, CRegs const& c) {
    constexpr int w = bits_of<TAB>;
    constexpr int na = M * K / kLanes, nb = N * K / kLanes, nc = M * N / kLanes;
    std::array<std::array<float, K>, M> A{};
    std::array<std::array<float, N>, K> B{};
    std::array<std::array<float, N>, M> C{};
    Coverage<M, K> a_seen;
    Coverage<K, N> b_seen;
    Coverage<M, N> c_seen;
    for (int lane = 0; lane < kLanes; ++lane) {
      for (int i = 0; i < na; ++i) {
        auto [row, col] = a_coord(lane, i);
        a_seen.hit(row, col, "mma.sync A");
        A[std::size_t(row)][std::size_t(col)] = value_of<TAB>(get_element(a[std::size_t(lane)], i, w));
      }
      for (int i = 0; i < nb; ++i) {
        auto [row, col] = b_coord(lane, i);
        b_seen.hit(row, col, "mma.sync B");
        B[std::size_t(row)][std::size_t(col)] = value_of<TAB>(get_element(b[std::size_t(lane)], i, w));
      }
      for (int i = 0; i < nc; ++i) {
        auto [row, col] = cd_coord(lane, i);
        c_seen.hit(row, col, "mma.sync C");
        C[std::size_t(row)][std::size_t(col)] = c[std::size_t(lane)][std::size_t(i)];
      }
    }
    a_seen.check("mma.sync A");
    b_seen.check("mma.sync B");
    c_seen.check("mma.sync C");
    for (int lane = 0; lane < kLanes; ++lane) {
      for (int i = 0; i < nc; ++i) {
        auto [row, col] = cd_coord(lane, i);
        float acc = C[std::size_t(row)][std::size_t(col)];
        for (int k = 0; k < K; ++k) acc += A[std::size_t(row)][std::size_t(k)] * B[std::size_t(k)][std::size_t(col)];
        d[std::size_t(lane)][std::size_t(i)] = acc;
      }
    }
  }
};

// ---- one scalar FMA by one thread -----------------------------------------------------------------
template <class Op>
struct ScalarFmaModel {
  static constexpr int kLanes = 1;
  using ARegs = std::array<std::array<float, 1>, 1>;
  using BRegs = ARegs;
  using CRegs = ARegs;
  using DRegs = ARegs;
  static void execute(DRegs& d, ARegs const& a, BRegs const& b, CRegs const& c) {
    d[0][0] = c[0][0] + a[0][0] * b[0][0];
  }
};

}  // namespace model

template <>
struct MMA_Model<GFX942_MFMA_F32_16x16x32_F8>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_16x16x32_F8, float8_e4m3fnuz, 16, 16, 32> {};
template <>
struct MMA_Model<GFX942_MFMA_F32_32x32x16_F8>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_32x32x16_F8, float8_e4m3fnuz, 32, 32, 16> {};
template <>
struct MMA_Model<GFX942_MFMA_F32_16x16x16_BF16>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_16x16x16_BF16, bfloat16, 16, 16, 16> {};
template <>
struct MMA_Model<GFX942_MFMA_F32_32x32x8_BF16>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_32x32x8_BF16, bfloat16, 32, 32, 8> {};
template <>
struct MMA_Model<GFX942_MFMA_F32_16x16x16_F16>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_16x16x16_F16, half, 16, 16, 16> {};
template <>
struct MMA_Model<GFX942_MFMA_F32_32x32x8_F16>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_32x32x8_F16, half, 32, 32, 8> {};
template <>
struct MMA_Model<GFX942_MFMA_F32_16x16x4_F32>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_16x16x4_F32, float, 16, 16, 4> {};
template <>
struct MMA_Model<GFX942_MFMA_F32_32x32x2_F32>
    : model::Gfx942MfmaModel<GFX942_MFMA_F32_32x32x2_F32, float, 32, 32, 2> {};

template <>
struct MMA_Model<SM90_16x8x32_F32E4M3E4M3F32_TN>
    : model::Sm90MmaSyncModel<SM90_16x8x32_F32E4M3E4M3F32_TN, float8_e4m3fn, 32> {};
template <>
struct MMA_Model<SM90_16x8x16_F32BF16BF16F32_TN>
    : model::Sm90MmaSyncModel<SM90_16x8x16_F32BF16BF16F32_TN, bfloat16, 16> {};
template <>
struct MMA_Model<SM90_16x8x16_F32F16F16F32_TN>
    : model::Sm90MmaSyncModel<SM90_16x8x16_F32F16F16F32_TN, half, 16> {};

template <>
struct MMA_Model<SM90_FMA_F32> : model::ScalarFmaModel<SM90_FMA_F32> {};
template <>
struct MMA_Model<HOST_FMA> : model::ScalarFmaModel<HOST_FMA> {};

// wgmma m64n64k32 e4m3 (128 threads). A and B come from shared memory; the model takes them as
// the matrices the descriptors describe, A[m][k] and B[n][k] (both K-major), and the accumulator
// registers of every thread.
// PTX ISA, wgmma "Register Fragments", Matrix D for .m64nNk32 with .f32 accumulators:
//   row = 16 * warp_in_warpgroup + groupID (+ 8 for d_i with i % 4 >= 2)
//   col = 8 * (i / 4) + 2 * threadID_in_group + (i & 1)
template <>
struct MMA_Model<SM90_WGMMA_64x64x32_F32E4M3E4M3_SS> {
  static constexpr int kThreads = 128;
  static constexpr int M = 64, N = 64, K = 32;
  using AMatrix = std::array<std::array<float8_e4m3fn, K>, M>;
  using BMatrix = std::array<std::array<float8_e4m3fn, K>, N>;
  using DRegs = std::array<std::array<float, 32>, kThreads>;

  static std::pair<int, int> d_coord(int thread, int i) {
    int const warp = thread / 32, lane = thread % 32;
    int const groupID = lane >> 2, threadID_in_group = lane % 4;
    int const row = 16 * warp + groupID + (i % 4 >= 2 ? 8 : 0);
    int const col = 8 * (i / 4) + 2 * threadID_in_group + (i & 1);
    return {row, col};
  }

  // scale_d: true: D = A*B^T + D; false: D = A*B^T.
  static void execute(DRegs& d, AMatrix const& a, BMatrix const& b, bool scale_d = true) {
    model::Coverage<M, N> seen;
    for (int t = 0; t < kThreads; ++t)
      for (int i = 0; i < 32; ++i) {
        auto [row, col] = d_coord(t, i);
        seen.hit(row, col, "wgmma D");
        float acc = scale_d ? d[std::size_t(t)][std::size_t(i)] : 0.0f;
        for (int k = 0; k < K; ++k)
          acc += float(a[std::size_t(row)][std::size_t(k)]) * float(b[std::size_t(col)][std::size_t(k)]);
        d[std::size_t(t)][std::size_t(i)] = acc;
      }
    seen.check("wgmma D");
  }
};

}  // namespace fly
