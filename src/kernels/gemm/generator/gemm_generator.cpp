// fly_gemm_generator: expands src/kernels/gemm/variants.txt into GEMM variants, checks each cell
// with the run-time layout algebra (fly::dyn), writes one translation unit per accepted cell and
// the registry of the host-linked ones, and prints, for CMake, one line per file and per rejection:
//   file <target> <path>
//   reject <name>: <reason>
//
// Usage: fly_gemm_generator --table <variants.txt>[,<more.txt>...] --out <dir> [--filter <regex>]
//        [--targets sm90a,gfx942] [--registry sm90a]   (the targets whose launch functions are linked into libfly)
// More tables add their cells to the same grid (variants_trial.txt: cells built for a device run
// that has not measured them yet, CMake's FLY_GEMM_TRIAL).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../../generator/grid_core.hpp"
#include "fly/atom/mma_traits_gfx942.hpp"
#include "fly/atom/mma_traits_sm90.hpp"
#include "fly/layout/dynamic.hpp"
#include "fly/layout/to_dynamic.hpp"

namespace {

namespace dyn = fly::dyn;

// What the generator knows of an MMA atom: its shape, threads, the thread-value layouts of A and
// B (from the traits, as run-time layouts), and the K permutation its tiles use.
struct MmaInfo {
  std::string op;         // C++ type of the instruction
  std::string ab_cpp;     // C++ element type of A and B
  int elem_bytes;
  int atom_m, atom_n, atom_k, threads;
  dyn::Layout a_tv, b_tv;
  std::string permutation;  // C++ Tile<...> of the TiledMMA
  int k_step;               // K covered by one permutation block (atom_k without permutation)
  dyn::Layout k_perm;       // the permutation of K within k_step (identity when none)
};

template <class Op>
MmaInfo mma_info(std::string op, std::string ab_cpp, int elem_bytes, std::string permutation, int k_step,
                 dyn::Layout k_perm) {
  using T = fly::MMA_Traits<Op>;
  MmaInfo info;
  info.op = std::move(op);
  info.ab_cpp = std::move(ab_cpp);
  info.elem_bytes = elem_bytes;
  info.atom_m = int(decltype(fly::size<0>(typename T::Shape_MNK{}))::value);
  info.atom_n = int(decltype(fly::size<1>(typename T::Shape_MNK{}))::value);
  info.atom_k = int(decltype(fly::size<2>(typename T::Shape_MNK{}))::value);
  info.threads = int(decltype(fly::size(typename T::ThrID{}))::value);
  info.a_tv = dyn::to_dynamic(typename T::ALayout{});
  info.b_tv = dyn::to_dynamic(typename T::BLayout{});
  info.permutation = std::move(permutation);
  info.k_step = k_step;
  info.k_perm = std::move(k_perm);
  return info;
}

std::map<std::string, MmaInfo> mma_table() {
  std::map<std::string, MmaInfo> t;
  const std::string none = "fly::Tile<fly::Underscore, fly::Underscore, fly::Underscore>";
  t.emplace("sm90a/e4m3fn", mma_info<fly::SM90_16x8x32_F32E4M3E4M3F32_TN>(
                                "fly::SM90_16x8x32_F32E4M3E4M3F32_TN", "fly::float8_e4m3fn", 1, none, 32,
                                dyn::make_layout(dyn::IntTuple(32, true))));
  t.emplace("sm90a/f32", mma_info<fly::SM90_FMA_F32>("fly::SM90_FMA_F32", "float", 4, none, 1,
                                                     dyn::make_layout(dyn::IntTuple(1, true))));
  // gfx942 fp8: K permuted in blocks of 64 so a lane's bytes for two k-steps are adjacent (docs/atoms.md)
  t.emplace("gfx942/e4m3fnuz",
            mma_info<fly::GFX942_MFMA_F32_16x16x32_F8>(
                "fly::GFX942_MFMA_F32_16x16x32_F8", "fly::float8_e4m3fnuz", 1,
                "fly::Tile<fly::Underscore, fly::Underscore, fly::Layout<fly::Shape<fly::_8, fly::_4, fly::_2>, "
                "fly::Stride<fly::_1, fly::_16, fly::_8>>>",
                64, dyn::parse_layout("(_8,_4,_2):(_1,_16,_8)")));
  t.emplace("gfx942/f32", mma_info<fly::GFX942_MFMA_F32_16x16x4_F32>("fly::GFX942_MFMA_F32_16x16x4_F32", "float", 4, none,
                                                                      4, dyn::make_layout(dyn::IntTuple(4, true))));
  // ---- gfx942 LDS pipeline (GemmLdsBlock): "<target>/<ab>/lds<M>", M the MFMA's M = N. Each K
  // permutation makes a lane's values for consecutive k-steps one 16-byte chunk (one ds_read_b128).
  // 16x16x32 fp8: the direct-load permutation already puts a lane's two k-steps in one 16-byte chunk
  t.emplace("gfx942/e4m3fnuz/lds16", t.at("gfx942/e4m3fnuz"));
  t.emplace("gfx942/e4m3fnuz/lds32",
            mma_info<fly::GFX942_MFMA_F32_32x32x16_F8>(
                "fly::GFX942_MFMA_F32_32x32x16_F8", "fly::float8_e4m3fnuz", 1,
                "fly::Tile<fly::Underscore, fly::Underscore, fly::Layout<fly::Shape<fly::_8, fly::_2, fly::_2>, "
                "fly::Stride<fly::_1, fly::_16, fly::_8>>>",
                32, dyn::parse_layout("(_8,_2,_2):(_1,_16,_8)")));
  t.emplace("gfx942/f32/lds16",
            mma_info<fly::GFX942_MFMA_F32_16x16x4_F32>(
                "fly::GFX942_MFMA_F32_16x16x4_F32", "float", 4,
                "fly::Tile<fly::Underscore, fly::Underscore, fly::Layout<fly::Shape<fly::_4, fly::_4>, "
                "fly::Stride<fly::_4, fly::_1>>>",
                16, dyn::parse_layout("(_4,_4):(_4,_1)")));
  // ---- end gfx942 LDS pipeline
  return t;
}

// A copy spelling of the grid. Register copies load global memory straight into the MMA's
// fragments (GemmBlock); a staged copy (cp.async) streams tiles through a ring of shared-memory
// buffers (GemmCpAsyncBlock, pipeline depth from the tile's :sN; `cpasync32` copies 4 bytes at a
// time where `cpasync128` copies 16, for calls whose K or rows are not 16-byte multiples); `wgmma` stages the same way
// for the warpgroup MMA on the transposed product (GemmWgmmaBlock); `tma` feeds that MMA from a
// producer warpgroup's TMA boxes through an mbarrier ring (GemmWgmmaTmaBlock); `tmaws` is the
// persistent warp-specialised block (GemmWgmmaWsBlock: one block per SM walking the tiles, a
// producer warpgroup and one or two consumer warpgroups of 64 rows of A). `lds128`/`lds64`
// (gfx942, GemmLdsBlock) buffer-load 16/8-byte vectors into a double-buffered swizzled LDS tile.
// `simt128` (fp32 on sm_90a, GemmSimtBlock) loads 16-byte vectors along K into registers and
// stores them transposed into two shared buffers, M- and N-major, for LDS.128 fragments of four rows;
// `simt32` loads 4 bytes at a time into the same registers (any K and leading dimension).
struct CopyInfo {
  std::string cpp;
  int bits, min_bits;
  bool buffer;
  bool staged = false;
  bool wgmma = false;
  bool tma = false;
  bool lds = false;
  bool ws = false;  // persistent, warp-specialised (GemmWgmmaWsBlock)
  bool simt = false;  // fp32 FMA from M/N-major shared tiles (GemmSimtBlock)
};
const std::map<std::string, CopyInfo> kCopies = {
    {"u8", {"fly::UniversalCopy8b", 8, 8, false}},      {"u32", {"fly::UniversalCopy32b", 32, 8, false}},
    {"u64", {"fly::UniversalCopy64b", 64, 8, false}},   {"u128", {"fly::UniversalCopy128b", 128, 8, false}},
    {"buf32", {"fly::BufferCopy32b", 32, 32, true}},    {"buf64", {"fly::BufferCopy64b", 64, 32, true}},
    {"buf128", {"fly::BufferCopy128b", 128, 32, true}},
    {"cpasync128", {"fly::SM90_CpAsync<128>", 128, 128, false, true}},
    {"cpasync32", {"fly::SM90_CpAsync<32>", 32, 32, false, true}},
    {"wgmma", {"fly::SM90_CpAsync<128>", 128, 128, false, true, true}},
    {"tma", {"fly::SM90_TMA_LOAD_2D", 128, 128, false, true, true, true}},
    {"tmaws", {"fly::SM90_TMA_LOAD_2D", 128, 128, false, true, true, true, false, true}},
    {"lds128", {"fly::BufferCopy128b", 128, 32, true, false, false, false, true}},
    {"lds64", {"fly::BufferCopy64b", 64, 32, true, false, false, false, true}},
    {"simt128", {"fly::UniversalCopy128b", 128, 128, false, false, false, false, false, false, true}},
    {"simt32", {"fly::UniversalCopy32b", 32, 32, false, false, false, false, false, false, true}},
};
const std::map<std::string, std::string> kDtypeCpp = {
    {"bf16", "fly::bfloat16"}, {"f16", "fly::half"}, {"f32", "float"}};
const std::map<std::string, std::string> kDtypeEnum = {
    {"bf16", "FLY_DTYPE_BF16"}, {"f16", "FLY_DTYPE_F16"}, {"f32", "FLY_DTYPE_F32"},
    {"e4m3fn", "FLY_DTYPE_E4M3FN"}, {"e4m3fnuz", "FLY_DTYPE_E4M3FNUZ"}};

using fly::gen::split;

struct Cell {
  std::string target, ab, d, copy;
  int bm, bn, bk, wm, wn;
  int wk = 1;      // warps splitting each tile's k-steps
  int stages = 1;
  int mfma = 0;    // the MFMA's M = N when the tile names it (:m32), else the target's default
  int cluster_m = 1, cluster_n = 1;  // a cluster's blocks along M and N (:c2x1, :c1x4, ...: the persistent block's multicast)
  bool tma_store = false;            // :st, D stored through shared memory by TMA boxes (the persistent block's epilogue)
  bool warp_store = false;           // :stw, the same a warp's 16 rows at a time, no warpgroup barrier
  bool next_batch = false;           // :nb, the next tile's first batch issued under the epilogue
  int split_k = 1;                   // :kN, a tile's K split over a cluster of N blocks (the persistent and SIMT blocks)
  int min_blocks = 0;                // :bN, __launch_bounds__'s blocks an SM: a register cap (the cp.async blocks)
  int lanes_m = 0, lanes_n = 0;      // :lAxB, each warp's 32 threads as A x B of the WM x WN (the SIMT block)
  bool prefetch_frags = false;       // :pf, the SIMT block's fragments one k-step ahead, across the k-tile's barrier
  std::string name() const {
    return "gemm_" + target + "_" + ab + "_" + d + "_" + std::to_string(bm) + "x" + std::to_string(bn) + "x" +
           std::to_string(bk) + "_w" + std::to_string(wm) + "x" + std::to_string(wn) +
           (wk > 1 ? "x" + std::to_string(wk) : std::string()) + (mfma ? "_m" + std::to_string(mfma) : std::string()) +
           "_" + copy + "_s" + std::to_string(stages) + (cluster_m * cluster_n > 1 ? "_c" + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) : std::string()) +
           (split_k > 1 ? "_k" + std::to_string(split_k) : std::string()) +
           (min_blocks ? "_b" + std::to_string(min_blocks) : std::string()) +
           (lanes_m ? "_l" + std::to_string(lanes_m) + "x" + std::to_string(lanes_n) : std::string()) + (prefetch_frags ? "_pf" : "") + (tma_store ? (warp_store ? "_stw" : "_st") : "") + (next_batch ? "_nb" : "");
  }
};

// "BMxBNxBK:WMxWN[xWK][:sS][:mM][:cCMxCN][:kN][:bN][:lAxB][:pf][:st|:stw][:nb]"; false when malformed.
bool parse_tile(const std::string& tile, Cell& cell) {
  const std::regex form(R"((\d+)x(\d+)x(\d+):(\d+)x(\d+)(?:x(\d+))?(?::s(\d+))?(?::m(\d+))?(?::c(\d+)x(\d+))?(?::k(\d+))?(?::b(\d+))?(?::l(\d+)x(\d+))?(:pf)?(:stw?)?(:nb)?)");
  std::smatch m;
  if (!std::regex_match(tile, m, form)) return false;
  cell.bm = std::stoi(m[1]);
  cell.bn = std::stoi(m[2]);
  cell.bk = std::stoi(m[3]);
  cell.wm = std::stoi(m[4]);
  cell.wn = std::stoi(m[5]);
  cell.wk = m[6].matched ? std::stoi(m[6]) : 1;
  cell.stages = m[7].matched ? std::stoi(m[7]) : 1;
  cell.mfma = m[8].matched ? std::stoi(m[8]) : 0;
  cell.cluster_m = m[9].matched ? std::stoi(m[9]) : 1;
  cell.cluster_n = m[10].matched ? std::stoi(m[10]) : 1;
  cell.split_k = m[11].matched ? std::stoi(m[11]) : 1;
  cell.min_blocks = m[12].matched ? std::stoi(m[12]) : 0;
  cell.lanes_m = m[13].matched ? std::stoi(m[13]) : 0;
  cell.lanes_n = m[14].matched ? std::stoi(m[14]) : 0;
  cell.prefetch_frags = m[15].matched;
  cell.tma_store = m[16].matched;
  cell.warp_store = m[16].matched && m[16].str() == ":stw";
  cell.next_batch = m[17].matched;
  // (:k1 would drop out of the name, a second cell of the same name)
  return cell.stages >= 1 && cell.wk >= 1 && cell.cluster_m >= 1 && cell.cluster_n >= 1 &&
         (!m[11].matched || cell.split_k >= 2);
}

// The sm_90a limit on a block's dynamic shared memory (227 KB).
constexpr int kMaxSmemBytes = 232448;

// Empty when `threads` cover each operand tile (BM or BN rows of per_row 16-byte vectors) in
// whole rows, each pass a multiple of pass_rows rows (GemmWgmmaBlock: 8, so that a thread's vectors
// share row % 8 and its swizzle is one offset).
std::string staging_rejection(const Cell& cell, int threads, int per_row, int pass_rows) {
  for (int rows : {cell.bm, cell.bn}) {
    const int used = std::min(rows * per_row, threads);
    const bool ok = used % per_row == 0 && rows % (used / per_row) == 0 && (used / per_row) % pass_rows == 0;
    if (!ok)
      return std::to_string(threads) + " threads cannot cover a " + std::to_string(rows) + "x" + std::to_string(cell.bk) +
             " tile in whole rows of " + std::to_string(per_row) + " vectors" +
             (pass_rows > 1 ? ", " + std::to_string(pass_rows) + "-row multiples per pass" : "");
  }
  return {};
}

// Empty when the ring of stages (smem bytes) fits in shared memory and holds the K-groups' partial
// sums (reduce bytes).
std::string smem_rejection(const Cell& cell, int smem, int reduce) {
  if (smem > kMaxSmemBytes)
    return std::to_string(cell.stages) + " stages need " + std::to_string(smem) + " bytes of shared memory (max " +
           std::to_string(kMaxSmemBytes) + ")";
  if (reduce > smem)
    return "the k-group reduction needs " + std::to_string(reduce) + " bytes, more than the " + std::to_string(smem) +
           " of the pipeline";
  return {};
}

// fp32 accumulation (gemm_wgmma_tile.hpp, WgmmaTile::fits_registers): a total and two wgmma
// partials of BM / 2 floats each per thread, with 32 registers kept for everything else, within what
// a block of `threads` leaves each thread.
std::string register_rejection(const Cell& cell, int threads) {
  const int regs = std::min(255, 65536 / threads / 8 * 8), acc_regs = 3 * cell.bm / 2;
  if (acc_regs + 32 <= regs) return {};
  return "the promoted accumulators (3 x BM/2 = " + std::to_string(acc_regs) + " floats per thread) and 32 more exceed the " +
         std::to_string(regs) + " registers " + std::to_string(threads) + " threads leave";
}

// GemmWgmmaTmaBlock (past check_wgmma's MMA rules): the consumer warpgroups' k-steps are not
// split, the ring (stages, their full/empty barriers, the 1 KB swizzle alignment) fits in shared
// memory and the epilogue's BM x (BN + 4) fp32 tile fits in the ring. The producer warpgroup is
// not in the cell's warps. Clusters are not in the grid (gemm_wgmma_tma_kernel.hpp says why).
std::string check_wgmma_tma(const Cell& cell) {
  if (cell.wk != 1) return "the TMA block does not split a tile's k-steps among warpgroups: warps 1xN";
  if (cell.stages < 2) return "a TMA ring needs 2 stages at least";
  if (cell.bn > 256) return "a TMA box has at most 256 rows: BN=" + std::to_string(cell.bn);
  const int stage = (cell.bm + cell.bn) * cell.bk, align = 1024;
  return smem_rejection(cell, cell.stages * stage + 2 * cell.stages * 8 + align, cell.bm * (cell.bn + 4) * 4);
}

// GemmWgmmaWsBlock: one or two consumer warpgroups of 64 rows of A (BM = 64, warps 4x1, or BM =
// 128, warps 8x1: the producer warpgroup is not in them), BN one wgmma N (64, 128, 192) or two
// N = 128 sub-tiles, one 128-byte swizzle atom of K per stage, clusters of 2 or 4 along one
// dimension (their multicast slices, 16 rows at least, are whole 8-row swizzle atoms), the ring,
// its barriers and, with the TMA-store epilogue (:st), two 64-row x 128-byte chunk buffers per
// consumer warpgroup within shared memory.
std::string check_wgmma_ws(const Cell& cell, int& align_elems) {
  if (cell.ab != "e4m3fn") return "the warp-specialised wgmma block computes e4m3fn only";
  if (!((cell.bm == 64 && cell.wm == 4) || (cell.bm == 128 && cell.wm == 8)) || cell.wn != 1 || cell.wk != 1)
    return "the warp-specialised block is one or two consumer warpgroups of 64 rows of A: tile 64xBNx128:4x1 or "
           "128xBNx128:8x1";
  if (cell.bn != 64 && cell.bn != 128 && cell.bn != 192 && cell.bn != 256)
    return "BN=" + std::to_string(cell.bn) +
           ": the warp-specialised block's N is one wgmma N (64, 128, 192) or two N=128 sub-tiles (256)";
  if (cell.bk != 128) return "BK=" + std::to_string(cell.bk) + ": a warp-specialised stage is one 128-byte swizzle atom of K";
  if (cell.stages < 2) return "a TMA ring needs 2 stages at least";
  const int cluster = cell.cluster_m * cell.cluster_n;
  if ((cluster != 1 && cluster != 2 && cluster != 4) || (cell.cluster_m > 1 && cell.cluster_n > 1))
    return "clusters of " + std::to_string(cell.cluster_m) + "x" + std::to_string(cell.cluster_n) +
           ": the warp-specialised block groups 2 or 4 blocks along M (:c2x1, :c4x1) or along N (:c1x2, :c1x4), or none";
  if (cell.split_k != 1 && cell.split_k != 2 && cell.split_k != 4)
    return ":k" + std::to_string(cell.split_k) + ": the warp-specialised block splits a tile's K over a cluster of 2 or 4 blocks";
  if (cell.split_k > 1 && (cluster > 1 || cell.tma_store))
    return ":k" + std::to_string(cell.split_k) +
           ": a split-K cluster shares no loads and stores D directly: no :c cluster or :st beside it";
  if (cell.next_batch && cell.split_k > 1)
    return ":nb: the next tile's first batch goes under a whole tile's epilogue; a split-K block stores a slice";
  align_elems = 16;
  const int consumers = cell.bm / 64, stage = (cell.bm + cell.bn) * cell.bk, align = 1024;
  const int store_chunks = cell.tma_store ? consumers * 2 * 64 * 128 : 0;  // GemmWgmmaWsBlock::store_bytes
  // GemmWgmmaWsBlock::exchange_bytes: the other blocks' copies of this block's slice of a consumer
  // thread's BN / 2 floats, and two barriers per consumer warpgroup
  const int exchange = cell.split_k > 1 ? consumers * (cell.split_k - 1) * (cell.bn / 2 / cell.split_k) * 128 * 4 : 0;
  const int barriers = (cluster > 1 ? 3 : 2) * cell.stages + (cell.split_k > 1 ? 2 * consumers : 0);
  return smem_rejection(cell, cell.stages * stage + store_chunks + exchange + barriers * 8 + align, 0);
}

// GemmWgmmaBlock: warpgroups (4 warps each) along N, one per 64 rows of B, per k-group; the block's M is
// wgmma's N; tiles in shared memory in the 128-byte swizzled K-major layout.
std::string check_wgmma(const Cell& cell, const CopyInfo& copy, int threads, int& align_elems) {
  if (cell.ab != "e4m3fn") return "the wgmma block computes e4m3fn only";
  if (cell.wm != 1 || cell.wn % 4 != 0)
    return "a wgmma block is warpgroups (4 warps) along N per k-group: warps 1x4[xK], 1x8[xK], ...";
  if (cell.bn != 16 * cell.wn)
    return "a wgmma warpgroup covers 64 rows of B (wgmma's M): BN=" + std::to_string(16 * cell.wn) + " for warps 1x" +
           std::to_string(cell.wn);
  if (cell.bm != 16 && cell.bm != 32 && cell.bm != 64 && cell.bm != 128)
    return "BM=" + std::to_string(cell.bm) + " is not a wgmma N the block instantiates (16, 32, 64, 128)";
  if ((cell.bk / 32) % cell.wk != 0)
    return "the " + std::to_string(cell.bk / 32) + " k-steps of a tile do not split among " + std::to_string(cell.wk) +
           " warpgroups";
  if (cell.bk % 128 != 0) return "BK=" + std::to_string(cell.bk) + " is not a whole number of 128-byte swizzle atoms";
  align_elems = 16;
  if (copy.tma) {
    if (auto why = check_wgmma_tma(cell); !why.empty()) return why;
    return register_rejection(cell, threads + 128);  // + the producer warpgroup
  }
  if (cell.stages < 3) return "a wgmma pipeline keeps one tile in the MMA and one loading: 3 stages at least";
  if (auto why = staging_rejection(cell, threads, cell.bk / 16, 8); !why.empty()) return why;
  // GemmWgmmaBlock::smem_bytes; the epilogue: a BM x (BN + 4) fp32 tile per k-group
  const int stage = (cell.bm + cell.bn) * cell.bk, align = 1024;
  if (auto why = smem_rejection(cell, cell.stages * stage + align, cell.wk * cell.bm * (cell.bn + 4) * 4 + align);
      !why.empty())
    return why;
  return register_rejection(cell, threads);
}

// :bN (GemmCpAsyncBlock): N blocks an SM at once, which __launch_bounds__ turns into a register
// cap of 65536 / (N threads) a thread. Empty when N blocks fit an SM's 2048 threads and 228 KB of
// shared memory (1 KB of it reserved per block) and the cap leaves 32 registers beside the
// accumulators (what ptxas then spills is the tune's to judge).
std::string min_blocks_rejection(const Cell& cell, int threads, int smem, int acc_per_thread) {
  const int n = cell.min_blocks;
  if (n == 0) return {};
  if (n * threads > 2048)
    return ":b" + std::to_string(n) + ": " + std::to_string(n) + " blocks of " + std::to_string(threads) +
           " threads exceed an SM's 2048";
  constexpr int kSmemPerSm = 233472, kReservedPerBlock = 1024;
  if (n * (smem + kReservedPerBlock) > kSmemPerSm)
    return ":b" + std::to_string(n) + ": " + std::to_string(n) + " blocks of " + std::to_string(smem) +
           " bytes of shared memory (and 1 KB each reserved) exceed an SM's " + std::to_string(kSmemPerSm);
  const int cap = std::min(255, 65536 / (n * threads) / 8 * 8);
  if (cap < acc_per_thread + 32)
    return ":b" + std::to_string(n) + ": a cap of " + std::to_string(cap) + " registers leaves no room beside " +
           std::to_string(acc_per_thread) + " accumulators a thread";
  return {};
}

// Checks what the staged blocks static_assert, so that no cell fails to compile: BK a whole
// number of 16-byte vectors, threads covering each operand tile in whole rows of the copy's
// vectors, the ring within shared memory (GemmCpAsyncBlock pads each row by 16 bytes).
std::string check_staged(const Cell& cell, const MmaInfo& mma, const CopyInfo& copy, int threads, int& align_elems) {
  if (cell.target != "sm90a") return "copy " + cell.copy + " is an sm_90a instruction";
  if (copy.ws) return check_wgmma_ws(cell, align_elems);
  if (copy.wgmma) return check_wgmma(cell, copy, threads, align_elems);
  if (cell.stages < 2) return "a cp.async pipeline needs at least 2 stages (:s2 or more)";
  if ((cell.bk / mma.atom_k) % cell.wk != 0)
    return "the " + std::to_string(cell.bk / mma.atom_k) + " k-steps of a tile do not split among " +
           std::to_string(cell.wk) + " warp groups";
  const int vec = 16 / mma.elem_bytes;
  if ((cell.bk * mma.elem_bytes) % 16 != 0)
    return "BK=" + std::to_string(cell.bk) + " is not a whole number of 16-byte vectors";
  if (copy.bits % (8 * mma.elem_bytes) != 0) return "copy " + cell.copy + " splits an element";
  const int copy_vec = copy.bits / (8 * mma.elem_bytes);  // elements a cp.async moves
  if (auto why = staging_rejection(cell, threads, cell.bk / copy_vec, 1); !why.empty()) return why;
  // the k-groups' partial sums (fp32, one per accumulator) pass through the pipeline's buffers
  const int acc_per_thread = (cell.bm / (mma.atom_m * cell.wm)) * (cell.bn / (mma.atom_n * cell.wn)) *
                             (mma.atom_m * mma.atom_n / mma.threads);
  const int smem = cell.stages * (cell.bm + cell.bn) * (cell.bk + vec) * mma.elem_bytes;
  if (auto why = smem_rejection(cell, smem, (cell.wk - 1) * (threads / cell.wk) * acc_per_thread * 4); !why.empty())
    return why;
  if (auto why = min_blocks_rejection(cell, threads, smem, acc_per_thread); !why.empty()) return why;
  align_elems = copy_vec;
  return {};
}

// The longest run of a thread's operand values that is contiguous in a row-major (rows x bk) tile:
// what a copy can move in one access. tv maps (thread, value) to m + rows*k inside the atom.
int contiguous_run(const MmaInfo& mma, const dyn::Layout& tv, int rows, int bk) {
  // the atom's (rows x k_step) block of a row-major tile, with K permuted
  dyn::Layout tile = dyn::make_layout(dyn::IntTuple::tuple({dyn::IntTuple(rows), dyn::IntTuple(mma.k_step)}),
                                      dyn::IntTuple::tuple({dyn::IntTuple(bk), dyn::IntTuple(1)}));
  dyn::Layout permuted = dyn::composition(tile, dyn::Tiler{std::nullopt, mma.k_perm});
  // the atom's values of thread 0 over its consecutive k-steps, in fragment order
  int steps = mma.k_step / mma.atom_k;
  dyn::Layout atom_block = dyn::zipped_divide(
      permuted, dyn::Tiler{dyn::make_layout(dyn::IntTuple(rows)), dyn::make_layout(dyn::IntTuple(mma.atom_k))});
  dyn::Layout atom_tile = dyn::get_mode(atom_block, 0);
  dyn::Layout rest = dyn::get_mode(atom_block, 1);
  dyn::Layout values = dyn::composition(atom_tile, dyn::get_mode(tv, 1));  // thread 0's values in one step
  dyn::Layout frag = dyn::make_layout({values, dyn::get_mode(rest, 1)});    // ... over the k-steps
  (void)steps;
  dyn::Layout c = dyn::coalesce(frag);
  const dyn::IntTuple& s0 = c.shape.is_leaf() ? c.shape : c.shape[0];
  const dyn::IntTuple& d0 = c.stride.is_leaf() ? c.stride : c.stride[0];
  return d0.value() == 1 ? int(s0.value()) : 1;
}

// ---- gfx942 LDS pipeline (GemmLdsBlock) ----
// Checks what GemmLdsBlock and its LdsTile static_assert: two LDS buffers within gfx942's 64 KiB,
// rows of the swizzled tile a power of two >= 32 bytes, threads covering each operand tile in whole
// rows of load vectors, and fragments read as 16-byte runs (the K permutation's). `mma` is the
// cell's "lds<M>" entry; run is the contiguous run of a lane's A/B values (contiguous_run).
std::string check_lds(const Cell& cell, const MmaInfo& mma, const CopyInfo& copy, int threads, int run,
                      int& align_elems) {
  const std::string atom = mma.op.substr(5);  // without "fly::"
  if (cell.target != "gfx942") return "copy " + cell.copy + " is a gfx942 pipeline (buffer loads into LDS)";
  if (cell.stages != 2) return "the LDS pipeline double-buffers: stages must be :s2";
  if (cell.wk != 1) return "the LDS pipeline does not split a tile's k-steps among waves";
  const int row_bytes = cell.bk * mma.elem_bytes;
  if (row_bytes < 32 || (row_bytes & (row_bytes - 1)) != 0)
    return "the swizzled LDS tile (" + std::to_string(cell.bm) + "x" + std::to_string(cell.bk) +
           "):(" + std::to_string(cell.bk) + ",1) needs rows of 2^n >= 32 bytes for its 16-byte-chunk XOR swizzle; BK=" +
           std::to_string(cell.bk) + " is " + std::to_string(row_bytes) + " bytes";
  const int vec = copy.bits / (8 * mma.elem_bytes);
  if (auto why = staging_rejection(cell, threads, cell.bk / vec, 1); !why.empty()) return why;
  const int lds = 2 * (cell.bm + cell.bn) * row_bytes;
  if (lds > 65536)
    return "two LDS buffers of (BM + BN) x BK = (" + std::to_string(cell.bm) + " + " + std::to_string(cell.bn) + ") x " +
           std::to_string(row_bytes) + " bytes need " + std::to_string(lds) + " bytes, over gfx942's 64 KiB per workgroup";
  if (run * mma.elem_bytes < 16)
    return atom + " fragments of a " + std::to_string(cell.bm) + "x" + std::to_string(cell.bk) +
           " tile are contiguous in runs of " + std::to_string(run * mma.elem_bytes) + " bytes, not one ds_read_b128";
  align_elems = vec;
  return {};
}
// ---- end gfx942 LDS pipeline ----

// A cell's block of threads: the MMA atom's threads times its warps along M, N and K.
int block_threads(const Cell& cell, const MmaInfo& mma) { return mma.threads * cell.wm * cell.wn * cell.wk; }

// GemmSimtBlock::smem_bytes: its two buffers (rows padded by 4 floats, each group of 8 k after
// the first 8 floats further on), or, if larger, the other blocks' copies of its slices after
// split-K's k-loop. Each SIMT unit static_asserts that the block agrees.
int simt_smem_bytes(const Cell& cell, int threads) {
  const int frag = (cell.bm / cell.wm) * (cell.bn / cell.wn);
  const int group_shifts = cell.bk < 8 ? 0 : cell.bk / 8 - 1;
  auto tile_floats = [&](int rows) { return cell.bk * (rows + 4) + 8 * group_shifts; };
  return std::max(2 * (tile_floats(cell.bm) + tile_floats(cell.bn)) * 4,
                  (cell.split_k - 1) * frag / cell.split_k * threads * 4);
}

// GemmSimtBlock (what it static_asserts, so that no cell fails to compile): fp32 on sm_90a, no
// k-groups, two or three k-tiles from load to multiply (:s2, :s3), each thread's rows and columns
// in whole runs of four, the threads covering each operand tile in whole rows of 16-byte vectors,
// split-K (:k2, :k4) into whole float4s of each thread's accumulators, and :bN's blocks fitting.
std::string check_simt(const Cell& cell, const CopyInfo& copy, int threads, int& align_elems) {
  if (cell.wk != 1) return "the SIMT block does not split a tile's k-steps among threads: warps MxN";
  if (cell.stages != 2 && cell.stages != 3)
    return "the SIMT block keeps two or three k-tiles between load and multiply: stages must be :s2 or :s3";
  if (cell.bm % (4 * cell.wm) != 0 || cell.bn % (4 * cell.wn) != 0)
    return "a thread's rows and columns come in runs of four: BM a multiple of 4 x " + std::to_string(cell.wm) +
           " and BN of 4 x " + std::to_string(cell.wn);
  // a thread's accumulators are runs of four by runs of four, so 2 or 4 slices of whole float4s
  if (cell.split_k != 1 && cell.split_k != 2 && cell.split_k != 4)
    return ":k" + std::to_string(cell.split_k) + ": the SIMT block splits a tile's K over a cluster of 2 or 4 blocks";
  if (cell.bk % 4 != 0)
    return "BK=" + std::to_string(cell.bk) + " is not a whole number of 16-byte vectors";
  // BK = 4 (one vector a row) passed the checks above but computed wrong results on host threads
  // (64x64x4:8x8:s2, twenty-seventh session; docs/gemm-log.md): no grid cell had it, so it is refused
  if (cell.bk % 8 != 0)
    return "BK=" + std::to_string(cell.bk) + ": the SIMT block's shared tile shifts whole groups of eight k (BK a multiple of 8)";
  if (auto why = staging_rejection(cell, threads, cell.bk / (copy.bits / 32), 1); !why.empty()) return why;
  if (cell.lanes_m && (cell.lanes_m * cell.lanes_n != 32 || cell.wm % cell.lanes_m != 0 || cell.wn % cell.lanes_n != 0))
    return ":l" + std::to_string(cell.lanes_m) + "x" + std::to_string(cell.lanes_n) +
           ": a warp's 32 threads as A x B (A B = 32) of the " + std::to_string(cell.wm) + "x" + std::to_string(cell.wn) +
           " threads, A dividing WM and B WN";
  const int smem = simt_smem_bytes(cell, threads);
  if (auto why = smem_rejection(cell, smem, 0); !why.empty()) return why;
  if (auto why = min_blocks_rejection(cell, threads, smem, (cell.bm / cell.wm) * (cell.bn / cell.wn)); !why.empty())
    return why;
  align_elems = copy.bits / 32;
  return {};
}

// Empty string when the cell is valid, else why not.
std::string check(const Cell& cell, const MmaInfo& mma, const CopyInfo& copy, int& align_elems) {
  if (cell.min_blocks && !(copy.staged && !copy.wgmma) && !copy.simt)
    return "the register cap (:b" + std::to_string(cell.min_blocks) +
           ") is for the cp.async and SIMT blocks (cpasync128, cpasync32, simt128, simt32)";
  if (copy.simt && (cell.target != "sm90a" || cell.ab != "f32"))
    return "copy " + cell.copy + " is the fp32 SIMT block of sm_90a";
  if (cell.prefetch_frags && !copy.simt)
    return "the fragment prefetch (:pf) is the SIMT block's loop (simt128, simt32)";
  if (cell.lanes_m && !copy.simt) return "the warp's lane layout (:l" + std::to_string(cell.lanes_m) + "x" +
                                         std::to_string(cell.lanes_n) + ") is the SIMT block's (simt128, simt32)";
  const int threads = block_threads(cell, mma);
  if (threads > 1024) return std::to_string(threads) + " threads exceed a block's 1024";
  const int step_m = mma.atom_m * cell.wm, step_n = mma.atom_n * cell.wn;
  // the block tile must be a whole number of MMA steps: zipped_divide covers it exactly
  auto covers = [](int extent, int step) {
    dyn::Layout d = dyn::logical_divide(dyn::make_layout(dyn::IntTuple(extent)), dyn::make_layout(dyn::IntTuple(step)));
    return dyn::size(d) == extent;
  };
  if (!covers(cell.bm, step_m))
    return "BM=" + std::to_string(cell.bm) + " is not a multiple of the MMA's M step " + std::to_string(step_m) +
           " (atom M " + std::to_string(mma.atom_m) + " x " + std::to_string(cell.wm) + " warps)";
  if (!covers(cell.bn, step_n))
    return "BN=" + std::to_string(cell.bn) + " is not a multiple of the MMA's N step " + std::to_string(step_n);
  if (!covers(cell.bk, mma.k_step))
    return "BK=" + std::to_string(cell.bk) + " is not a multiple of the MMA's K step " + std::to_string(mma.k_step);
  if (copy.lds)
    return check_lds(cell, mma, copy, threads,
                     std::min(contiguous_run(mma, mma.a_tv, mma.atom_m, cell.bk), contiguous_run(mma, mma.b_tv, mma.atom_n, cell.bk)),
                     align_elems);
  if (copy.staged) return check_staged(cell, mma, copy, threads, align_elems);
  if (copy.simt) return check_simt(cell, copy, threads, align_elems);
  if (cell.stages != 1) return "the direct-load kernel has no pipeline: stages must be 1";
  if (cell.wk != 1) return "the direct-load kernel does not split K among warps";
  if (copy.bits % (8 * mma.elem_bytes) != 0) return "copy " + cell.copy + " splits an element";
  const int width = copy.bits / (8 * mma.elem_bytes);
  const int run_a = contiguous_run(mma, mma.a_tv, mma.atom_m, cell.bk);
  const int run_b = contiguous_run(mma, mma.b_tv, mma.atom_n, cell.bk);
  const int run = std::min(run_a, run_b);
  if (copy.min_bits > run * 8 * mma.elem_bytes)
    return "copy " + cell.copy + " reads at least " + std::to_string(copy.min_bits) +
           " bits, but the MMA's A/B values of a thread are contiguous only in runs of " + std::to_string(run) +
           " elements";
  if (width > run)
    return "copy " + cell.copy + " (" + std::to_string(width) + " elements) is wider than the thread's contiguous runs (" +
           std::to_string(run) + "): it would split into the loads of a narrower atom already in the grid";
  align_elems = width;
  return {};
}

// The tiled MMA's layout of warps (M, N, K): compact column-major, or under :lAxB (the SIMT block,
// whose "warps" are threads) each hardware warp's lanes an A x B block of the WM x WN, the warps
// column-major over the blocks: thread A b + a + 32 w for (m, n) = (a + A (w % (WM/A)), b + B (w /
// (WM/A))). A warp's LDS.128 of A then reads A runs of four rows and its LDS.128 of B B runs, where
// the column-major 16 x 16 reads 16 and 2 (two shared wavefronts a k step fewer).
std::string warp_layout(const Cell& cell) {
  auto i = [](int v) { return "fly::Int<" + std::to_string(v) + ">"; };
  if (!cell.lanes_m)
    return "fly::Layout<fly::Shape<" + i(cell.wm) + ", " + i(cell.wn) + ", " + i(cell.wk) + ">>";
  const int a = cell.lanes_m, b = cell.lanes_n, warps_m = cell.wm / a;
  return "fly::Layout<fly::Shape<fly::Shape<" + i(a) + ", " + i(warps_m) + ">, fly::Shape<" + i(b) + ", " + i(cell.wn / b) +
         ">, " + i(1) + ">, fly::Stride<fly::Stride<" + i(1) + ", " + i(32) + ">, fly::Stride<" + i(a) + ", " +
         i(32 * warps_m) + ">, " + i(0) + ">>";
}

void write_tu(const std::string& path, const Cell& cell, const MmaInfo& mma, const CopyInfo& copy) {
  std::ofstream f(path);
  const bool cuda = cell.target == "sm90a";
  const std::string warps = warp_layout(cell);
  const std::string tile = std::to_string(cell.bm) + ", " + std::to_string(cell.bn) + ", " + std::to_string(cell.bk);
  f << "// Generated by fly_gemm_generator from src/kernels/gemm/variants*.txt. Do not edit.\n";
  f << "// " << cell.name() << "\n";
  if (!cuda) f << "#include <hip/hip_runtime.h>\n";
  f << "#include \"fly/arch/copy_gfx942.hpp\"\n#include \"fly/atom/mma_traits_" << (cuda ? "sm90" : "gfx942") << ".hpp\"\n";
  f << (copy.lds      ? "#include \"gemm_lds_kernel.hpp\"\n"
        : copy.ws     ? "#include \"gemm_wgmma_ws_kernel.hpp\"\n"
        : copy.tma    ? "#include \"gemm_wgmma_tma_kernel.hpp\"\n"
        : copy.wgmma  ? "#include \"gemm_wgmma_kernel.hpp\"\n"
        : copy.staged ? "#include \"gemm_cpasync_kernel.hpp\"\n"
        : copy.simt   ? "#include \"gemm_simt_kernel.hpp\"\n"
                      : "#include \"gemm_kernel.hpp\"\n");
  if (cuda) f << "#include \"gemm_dependent_launch.hpp\"\n";
  f << (!cuda     ? "#include \"gemm/gemm_launch_hip.hpp\"\n"
        : copy.tma ? "#include \"gemm/gemm_launch_tma_cuda.hpp\"\n"
                   : "#include \"gemm/gemm_launch_cuda.hpp\"\n");
  f << "\nnamespace {\n";
  if (copy.lds) {
    f << "using Block = fly::kernels::GemmLdsBlock<" << mma.op << ", " << warps << ", " << mma.permutation << ", " << tile
      << ", " << copy.bits << ", " << kDtypeCpp.at(cell.d) << ">;\n";
  } else if (copy.ws) {
    f << "using Block = fly::kernels::GemmWgmmaWsBlock<" << cell.bm << ", " << cell.bn << ", " << cell.stages << ", "
      << cell.cluster_m << ", " << cell.cluster_n << ", " << kDtypeCpp.at(cell.d);
    // TmaStore, SplitK, WarpStore and NextBatch, each when spelled or before one that is
    if (cell.tma_store || cell.split_k > 1 || cell.warp_store || cell.next_batch) f << (cell.tma_store ? ", true" : ", false");
    if (cell.split_k > 1 || cell.warp_store || cell.next_batch) f << ", " << cell.split_k;
    if (cell.warp_store || cell.next_batch) f << (cell.warp_store ? ", true" : ", false");
    if (cell.next_batch) f << ", true";
    f << ">;\n";
  } else if (copy.tma) {
    f << "using Block = fly::kernels::GemmWgmmaTmaBlock<" << tile << ", " << cell.stages << ", 1, "
      << kDtypeCpp.at(cell.d) << ">;\n";
  } else if (copy.wgmma) {
    f << "using Block = fly::kernels::GemmWgmmaBlock<" << tile << ", " << cell.stages << ", " << cell.wk << ", "
      << kDtypeCpp.at(cell.d) << ">;\n";
  } else if (copy.staged) {
    f << "using Block = fly::kernels::GemmCpAsyncBlock<" << mma.op << ", " << warps << ", " << tile << ", " << cell.stages
      << ", " << kDtypeCpp.at(cell.d) << (copy.bits != 128 ? ", " + std::to_string(copy.bits) : std::string()) << ">;\n";
  } else if (copy.simt) {
    f << "using Block = fly::kernels::GemmSimtBlock<" << warps << ", " << tile << ", " << kDtypeCpp.at(cell.d) << ", "
      << cell.stages << ", " << cell.split_k
      << (copy.bits == 32 || cell.prefetch_frags ? ", " + std::to_string(copy.bits) : std::string())
      << (cell.prefetch_frags ? ", true" : "") << ">;\n"
      << "static_assert(Block::smem_bytes == " << simt_smem_bytes(cell, block_threads(cell, mma))
      << ", \"the generator's shared-memory check (simt_smem_bytes) and GemmSimtBlock disagree\");\n";
  } else {
    f << "using Block = fly::kernels::GemmBlock<" << mma.op << ", " << warps << ", " << mma.permutation << ", " << tile
      << ", " << copy.cpp << ", " << copy.cpp << ", " << kDtypeCpp.at(cell.d) << ">;\n";
  }
  f << "}  // namespace\n\n";
  if (copy.tma) {  // the tensor maps travel with the parameters (gemm_launch_tma_cuda.hpp)
    std::ostringstream body;
    body << "  extern __shared__ __align__(128) unsigned char smem[];\n"
         << "  fly::kernels::warm_b_then_wait<Block>(args.p, "
         << (copy.ws ? "Block::first_n0(args.p, int(blockIdx.x), int(gridDim.x))" : "int64_t(blockIdx.y) * Block::BN")
         << ", int(threadIdx.x)" << (cell.split_k > 1 ? ", Block::first_k0(args.p)" : "") << ");\n"
         << (copy.ws ? "  Block::run(args.a, args.a_by_edge ? &args.a_edge : nullptr, args.b, args.d_by_tma ? &args.d : nullptr, "
                       "args.p, smem, int(blockIdx.x), int(gridDim.x), int(threadIdx.x));\n"
                     : "  Block::run(args.a, args.b, args.p, smem, int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));\n");
    f << "extern \"C\" __global__ void __launch_bounds__(Block::threads" << (copy.ws ? ", 1" : "") << ") " << cell.name()
      << "(const __grid_constant__ fly::kernels::GemmTmaArgs args) {\n"
      << fly::gen::device_only(body.str(), {"args"}) << "}\n\n"
      << "fly_status_t " << cell.name() << "_launch(const fly::dispatch::GemmProblem& problem, void* stream) {\n"
      << "  return fly::kernels::" << (copy.ws ? "launch_tma_persistent_cuda" : "launch_tma_cuda") << "<Block, "
      << cell.name() << ">(problem, stream);\n}\n";
    return;
  }
  std::ostringstream body;
  if (copy.lds) {  // static LDS: the ISA's group segment size is the kernel's LDS
    body << "  __shared__ __attribute__((aligned(16))) unsigned char lds[Block::lds_bytes];\n"
         << "  fly::kernels::DeviceTeam<Block> team{int(threadIdx.x)};\n"
         << "  Block::run(team, p, reinterpret_cast<Block::TA*>(lds), int(blockIdx.x), int(blockIdx.y));\n";
  } else if (copy.staged || copy.simt) {
    body << "  extern __shared__ __align__(128) unsigned char smem[];\n"
         << "  fly::kernels::warm_b_then_wait<Block>(p, int64_t(blockIdx.y) * Block::BN, int(threadIdx.x));\n"
         << "  Block::run(p, reinterpret_cast<Block::TA*>(smem), int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));\n";
  } else {
    if (cuda) body << "  fly::kernels::warm_b_then_wait<Block>(p, int64_t(blockIdx.y) * Block::BN, int(threadIdx.x));\n";
    body << "  Block::run(p, int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));\n";
  }
  f << "extern \"C\" __global__ void __launch_bounds__(Block::threads"
    << (cell.min_blocks ? ", " + std::to_string(cell.min_blocks) : std::string()) << ") " << cell.name()
    << "(fly::kernels::GemmParams p) {\n"
    << fly::gen::device_only(body.str(), {"p"}) << "}\n";
  f << "\nfly_status_t " << cell.name() << "_launch(const fly::dispatch::GemmProblem& problem, void* stream) {\n";
  if (cuda) {  // the kernel as a template argument, as for tma above: its shared-memory opt-in is per kernel
    f << "  return fly::kernels::launch_cuda<Block, " << cell.name() << ">(problem, stream);\n}\n";
  } else {
    f << "  return fly::kernels::launch_hip<Block>(" << cell.name() << ", problem, stream);\n}\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string table, out, filter = ".*", targets = "sm90a,gfx942", registry_targets;
  if (!fly::gen::parse_options(argc, argv, {{"table", &table}, {"out", &out}, {"filter", &filter}, {"targets", &targets},
                                            {"registry", &registry_targets}}) ||
      table.empty() || out.empty()) {
    std::cerr << "usage: fly_gemm_generator --table <variants.txt>[,<more.txt>..] --out <dir> [--filter <regex>] "
                 "[--targets t,..] [--registry t,..]\n";
    return 2;
  }
  const auto mmas = mma_table();
  const auto enabled = split(targets, ',');
  const auto linked = split(registry_targets, ',');
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  fly::gen::Emitter emit(filter);
  std::vector<std::pair<Cell, int>> registry;
  // columns: target ab d-list tile-list copy-list
  auto expand_table = [&](const std::string& table) {
    return fly::gen::for_each_row(table, 5, [&](int lineno, const std::vector<std::string>& row) {
      auto mma_it = mmas.find(row[0] + "/" + row[1]);
      if (mma_it == mmas.end()) {
        std::cerr << table << ":" << lineno << ": no MMA atom for " << row[0] << "/" << row[1] << "\n";
        return false;
      }
      if (!has(enabled, row[0])) return true;
      for (const auto& v : fly::gen::expand(row)) {
        Cell cell;
        cell.target = v[0];
        cell.ab = v[1];
        cell.d = v[2];
        cell.copy = v[4];
        if (!parse_tile(v[3], cell) || !kDtypeCpp.count(cell.d) || !kCopies.count(cell.copy)) {
          std::cerr << table << ":" << lineno << ": bad cell " << v[2] << " " << v[3] << " " << v[4] << "\n";
          return false;
        }
        if (!emit.wanted(cell.name())) continue;
        int align = 1;
        const MmaInfo* mma = &mma_it->second;
        if ((cell.tma_store || cell.next_batch) && !kCopies.at(cell.copy).ws) {
          emit.reject(cell.name(), cell.tma_store ? "the TMA-store epilogue (:st) is the persistent block's (tmaws)"
                                                  : "the next tile's batch under the epilogue (:nb) is the persistent block's (tmaws)");
          continue;
        }
        if (cell.cluster_m * cell.cluster_n != 1 && !kCopies.at(cell.copy).ws) {
          emit.reject(cell.name(), "clusters (:c" + std::to_string(cell.cluster_m) + "x" + std::to_string(cell.cluster_n) +
                                       ") are the persistent block's (tmaws)");
          continue;
        }
        if (cell.split_k != 1 && !kCopies.at(cell.copy).ws && !kCopies.at(cell.copy).simt) {
          emit.reject(cell.name(), "split-K over a cluster (:k" + std::to_string(cell.split_k) +
                                       ") is the persistent and SIMT blocks' (tmaws, simt128, simt32)");
          continue;
        }
        if (kCopies.at(cell.copy).lds && cell.target == "gfx942") {  // the LDS pipeline's atoms and K permutations
          const std::string mfma = std::to_string(cell.mfma ? cell.mfma : 16);
          auto lds_it = mmas.find(row[0] + "/" + row[1] + "/lds" + mfma);
          if (lds_it == mmas.end()) {
            emit.reject(cell.name(), "no " + mfma + "x" + mfma + " MFMA for " + cell.ab + " in the LDS pipeline");
            continue;
          }
          mma = &lds_it->second;
        } else if (cell.mfma) {
          emit.reject(cell.name(), "the MFMA choice :m" + std::to_string(cell.mfma) + " is for the LDS pipeline (lds128, lds64)");
          continue;
        }
        if (!emit.accept(cell.name(), [&] { return check(cell, *mma, kCopies.at(cell.copy), align); })) continue;
        const std::string path = out + "/" + cell.name() + (cell.target == "sm90a" ? ".cu" : ".hip");
        write_tu(path, cell, *mma, kCopies.at(cell.copy));
        emit.file(cell.target, path);
        if (has(linked, cell.target)) registry.emplace_back(cell, align);
      }
      return true;
    });
  };
  for (const auto& t : split(table, ','))
    if (!expand_table(t)) return 2;
  // the registry of the variants whose launch functions are linked into libfly
  const std::string reg_path = out + "/gemm_registry_generated.cpp";
  std::ofstream r(reg_path);
  r << "// Generated by fly_gemm_generator. Do not edit.\n#include \"gemm/gemm_registry.hpp\"\n\n";
  for (const auto& [cell, align] : registry)
    r << "fly_status_t " << cell.name() << "_launch(const fly::dispatch::GemmProblem&, void*);\n";
  r << "\nnamespace fly::dispatch {\nnamespace {\nconst GemmVariant kVariants[] = {\n";
  for (const auto& [cell, align] : registry) {
    const bool lds = kCopies.at(cell.copy).lds;
    r << "    {\"" << cell.name() << "\", Target::" << cell.target << ", " << kDtypeEnum.at(cell.ab) << ", "
      << kDtypeEnum.at(cell.d) << ", " << cell.bm << ", " << cell.bn << ", " << cell.bk << ", " << align << ", "
      << cell.name() << "_launch";
    if (lds || cell.split_k > 1) r << (lds ? ", true" : ", false");
    if (cell.split_k > 1) r << ", " << cell.split_k;
    r << "},\n";
  }
  if (registry.empty()) r << "    {nullptr, Target::host, FLY_DTYPE_F32, FLY_DTYPE_F32, 1, 1, 1, 1, nullptr},\n";
  r << "};\n}  // namespace\n\nstd::span<const GemmVariant> gemm_variants() {\n  return std::span<const GemmVariant>(kVariants, "
    << registry.size() << ");\n}\n}  // namespace fly::dispatch\n";
  emit.registry(reg_path, registry.size());
  return 0;
}
