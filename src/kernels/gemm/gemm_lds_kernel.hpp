// The LDS-pipelined GEMM block (gfx942, MFMA):
//   D[M,N] = alpha * scale_a * scale_b * (A[M,K] x B[N,K]^T) + beta * C[M,N]   (fp32 accumulate)
// A block computes one BM x BN tile of D. Per BK-deep k-tile, each thread buffer-loads its 16- or
// 8-byte vectors of the A and B tiles into registers and writes them to one of two LDS buffers
// (swizzled, gemm_lds_layout.hpp); the MFMA fragments are read back with ds_read_b128 (K permuted
// so that a lane's values for consecutive k-steps are one 16-byte chunk). Double buffering with one
// barrier per k-step: the global loads of tile k+1 are issued before the MFMAs of tile k and land
// in the other buffer after them; the barrier then both publishes tile k+1 and retires tile k's
// buffer for tile k+2's writes. Unlike GemmBlock every value is read once from global memory per
// block, and every wave reuses the whole tile of the other operand from LDS.
//
// Edges: rows past M or N lie past the buffer descriptor (reads return zero); vectors past K in the
// last k-tile are predicated to zero (K is a multiple of the vector width: the dispatcher's
// alignment). The epilogue is the shared one (gemm_epilogue.hpp).
//
// The body is written against a Team (the block's threads): `each(f)` runs f(thread) for the
// threads this code stands for, `sync()` is the barrier, `mma(states)` runs the TiledMMA on every
// state's fragments. On the device a Team is one thread (DeviceTeam); the host tests run the same
// body with a team of every thread, barriers as phase boundaries and the MFMA's lane model.
#pragma once

#include <cstdint>

#include "fly/arch/copy_gfx942.hpp"
#include "fly/arch/copy_gfx942_lds.hpp"
#include "fly/numeric/numeric.hpp"
#include "fly/tiled.hpp"
#include "gemm_epilogue.hpp"
#include "gemm_lds_layout.hpp"

namespace fly::kernels {

template <class MmaOp, class WarpLayout, class Permutation, int BM_, int BN_, int BK_, int LoadBits, class TD>
struct GemmLdsBlock {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  using Mma = TiledMMA<MmaOp, WarpLayout, Permutation>;
  using TA = typename Mma::ValTypeA;
  using Acc = typename Mma::ValTypeC;
  static_assert(std::is_same_v<TA, typename Mma::ValTypeB>, "GemmLdsBlock: A and B share one element type");
  static_assert(Mma::WarpsK == 1, "GemmLdsBlock: the waves do not split K");
  static constexpr int threads = Mma::num_threads;
  static constexpr int vec = LoadBits / 8 / int(sizeof(TA));  // elements per global load
  static_assert(vec >= 1 && BK % vec == 0, "GemmLdsBlock: BK must be a whole number of load vectors");

  using TileA = LdsTile<BM, BK, TA>;
  using TileB = LdsTile<BN, BK, TA>;
  static constexpr int stage_elems = TileA::elems + TileB::elems;
  static constexpr int lds_bytes = 2 * stage_elems * int(sizeof(TA));  // two buffers
  static_assert(lds_bytes <= 64 * 1024, "GemmLdsBlock: gfx942 gives a workgroup at most 64 KiB of LDS");

  using LoadAtom = Copy_Atom<GFX942_BufferLoad<LoadBits>, TA>;
  using WriteAtom = Copy_Atom<GFX942_DsCopy<LoadBits>, TA>;
  using ReadAtom = Copy_Atom<GFX942_DsCopy<128>, TA>;

  // Threads over a Rows x BK tile in rows of BK / vec vectors, one vector each per pass; a tile
  // with fewer vectors than threads uses the first `used` threads.
  template <int Rows>
  struct Loader {
    static constexpr int per_row = BK / vec;
    static constexpr int used = Rows * per_row < threads ? Rows * per_row : threads;
    static constexpr int rows_per_pass = used / per_row;
    static_assert(used % per_row == 0 && rows_per_pass > 0 && Rows % rows_per_pass == 0,
                  "GemmLdsBlock: the threads cannot cover an operand tile in whole rows");
    using ThrLayout = Layout<Shape<Int<rows_per_pass>, Int<per_row>>, Stride<Int<per_row>, _1>>;
    using ValLayout = Layout<Shape<_1, Int<vec>>>;
    using Copy = decltype(make_tiled_copy(LoadAtom{}, ThrLayout{}, ValLayout{}));
    using Coords = Layout<Shape<Int<Rows>, Int<BK>>, Stride<Int<BK>, _1>>;
    // this thread's registers for the tile (the part of a Rows x BK tile it loads)
    using Regs = decltype(make_fragment_like(
        Copy{}.get_slice(0).partition_D(std::declval<decltype(LdsTile<Rows, BK, TA>::view(nullptr))&>())));
  };

  // A fragment (values, M or N repeats, k-steps) stored values first, then k-steps: the K
  // permutation's 16-byte run of a lane (its values of consecutive k-steps) is then contiguous in
  // registers too, and fly::copy reads it with one ds_read_b128.
  template <class Part>
  FLY_HD static auto k_major_fragment(Part const& part) {
    using KK = std::remove_cvref_t<decltype(get<2>(part.shape()))>;
    auto order = [] {
      if constexpr (is_tuple_v<KK>) {  // the permutation's k-steps, then the permutation blocks
        return [&]<int... I>(seq<I...>) {
          return make_tuple(_0{}, Int<1 + rank_v<KK>>{}, make_tuple(Int<1 + I>{}...));
        }(make_seq<rank_v<KK>>{});
      } else {
        return make_tuple(_0{}, _2{}, _1{});
      }
    }();
    return make_tensor<TA>(make_ordered_layout(part.shape(), order));
  }
  using FragA = decltype(k_major_fragment(Mma{}.get_slice(0).partition_A(TileA::view(nullptr))));
  using FragB = decltype(k_major_fragment(Mma{}.get_slice(0).partition_B(TileB::view(nullptr))));
  using FragC = decltype(Mma{}.get_slice(0).partition_fragment_C(
      make_tensor(static_cast<TD*>(nullptr), make_shape(Int<BM>{}, Int<BN>{}))));

  // What one thread keeps across the phases of a k-step.
  struct State {
    typename Loader<BM>::Regs ra;
    typename Loader<BN>::Regs rb;
    FragA fa;
    FragB fb;
    FragC acc;
  };

  // The zero of an element type (fp8 by bits; float plainly).
  FLY_HD static TA zero() {
    if constexpr (std::is_same_v<TA, float>) {
      return 0.f;
    } else {
      return TA::from_bits(0);
    }
  }

  // Global -> registers: thread thr's vectors of a Rows x BK tile at `g` (leading dimension ld).
  // k_left columns of the tile lie inside the matrix; rows past the matrix read zero (descriptor).
  template <int Rows, class Regs>
  FLY_HD static void load_tile(Regs& regs, buffer_ptr<TA> g, int64_t ld, int k_left, int thr) {
    using L = Loader<Rows>;
    if (L::used < threads && thr >= L::used) return;
    auto thr_copy = typename L::Copy{}.get_slice(thr);
    auto gt = make_tensor(g, make_layout(make_shape(Int<Rows>{}, Int<BK>{}), make_stride(ld, _1{})));
    auto src = thr_copy.partition_S(gt);
    if (k_left >= BK) {
      copy(LoadAtom{}, src, regs);
    } else {
      auto [coord, coord0] = thr_copy.partition_layout(typename L::Coords{});
      const int c0 = int(coord0) % BK;
      fill(regs, zero());
      copy(LoadAtom{}, src, regs, [&](int i) { return c0 + int(coord(i)) % BK < k_left; });
    }
  }

  // Registers -> LDS: the same thread's vectors into the swizzled tile.
  template <int Rows, class Regs, class Smem>
  FLY_HD static void write_tile(Regs const& regs, Smem smem, int thr) {
    using L = Loader<Rows>;
    if (L::used < threads && thr >= L::used) return;
    auto dst = typename L::Copy{}.get_slice(thr).partition_D(smem);
    copy(WriteAtom{}, regs, dst);
  }

  FLY_HD static TA* buffer_a(TA* smem, int buf) { return smem + buf * stage_elems; }
  FLY_HD static TA* buffer_b(TA* smem, int buf) { return smem + buf * stage_elems + TileA::elems; }

  // LDS -> this thread's MFMA fragments of one k-tile.
  FLY_HD static void read_fragments(State& st, TA* smem, int buf, int thr) {
    auto thr_mma = Mma{}.get_slice(thr);
    auto sa = TileA::view(buffer_a(smem, buf));
    auto sb = TileB::view(buffer_b(smem, buf));
    copy(ReadAtom{}, thr_mma.partition_A(sa), st.fa);
    copy(ReadAtom{}, thr_mma.partition_B(sb), st.fb);
  }

  // The block's whole computation for the threads `team` stands for. smem: lds_bytes, 16-aligned.
  template <class Team>
  FLY_HD static void run(Team& team, GemmParams const& p, TA* smem, int block_m, int block_n) {
    const int m0 = block_m * BM, n0 = block_n * BN;
    const int m_left = p.m - m0, n_left = p.n - n0;
    TA const* a0 = static_cast<TA const*>(p.a) + int64_t(m0) * p.lda;
    TA const* b0 = static_cast<TA const*>(p.b) + int64_t(n0) * p.ldb;
    // the block's own rows (the launcher keeps a tile's span below 2^31 bytes: no truncation)
    const auto A = make_buffer_ptr(a0, uint32_t(int64_t((m_left < BM ? m_left : BM) - 1) * p.lda + p.k));
    const auto B = make_buffer_ptr(b0, uint32_t(int64_t((n_left < BN ? n_left : BN) - 1) * p.ldb + p.k));
    const int k_tiles = (p.k + BK - 1) / BK;

    auto states = team.template make_states<State>();
    auto load = [&](int kt) {
      team.each([&](int t) {
        load_tile<BM>(states[t].ra, A + kt * BK, p.lda, p.k - kt * BK, t);
        load_tile<BN>(states[t].rb, B + kt * BK, p.ldb, p.k - kt * BK, t);
      });
    };
    auto write = [&](int buf) {
      team.each([&](int t) {
        write_tile<BM>(states[t].ra, TileA::view(buffer_a(smem, buf)), t);
        write_tile<BN>(states[t].rb, TileB::view(buffer_b(smem, buf)), t);
      });
    };

    team.each([&](int t) { fill(states[t].acc, Acc(0)); });
    load(0);
    write(0);
    team.sync();
    for (int kt = 0; kt < k_tiles; ++kt) {
      const bool more = kt + 1 < k_tiles;
      if (more) load(kt + 1);  // in flight during this tile's MFMAs
      team.each([&](int t) { read_fragments(states[t], smem, kt & 1, t); });
      team.mma(states);
      if (more) {
        write((kt + 1) & 1);
        team.sync();
      }
    }
    team.each([&](int t) { store_tile<TD, BM, BN>(Mma{}.get_slice(t), states[t].acc, p, m0, n0); });
  }
};

// The device's team: the calling thread alone; its state lives in registers.
template <class Block>
struct DeviceTeam {
  int thr;
  template <class State>
  struct One {
    State s;
    FLY_HD State& operator[](int) { return s; }
  };
  template <class State>
  FLY_HD One<State> make_states() const {
    return {};
  }
  template <class F>
  FLY_HD void each(F&& f) const {
    f(thr);
  }
  FLY_HD void sync() const {
#if defined(__HIP_DEVICE_COMPILE__)
    __syncthreads();
#endif
  }
  template <class States>
  FLY_HD void mma(States& states) const {
    auto& st = states[thr];
    gemm(typename Block::Mma{}, st.acc, st.fa, st.fb, st.acc);
  }
};

}  // namespace fly::kernels
