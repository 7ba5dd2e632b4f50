// fly_pa_decode_generator: expands src/kernels/pa_decode/variants.txt into paged-decode variants,
// checks each cell's tiling with the run-time layout algebra, writes one translation unit per
// accepted cell and the registry of the host-linked ones (the shared core: ../../generator/).
//
// Usage: fly_pa_decode_generator --table <variants.txt> --out <dir> [--filter <regex>]
//        [--targets sm90a,gfx942] [--registry sm90a,gfx942]
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "../../generator/grid_core.hpp"
#include "fly/layout/dynamic.hpp"

namespace {

namespace dyn = fly::dyn;

constexpr int kMaxSmemBytes = 232448;  // sm_90a, per block
constexpr int kGfx942LdsBytes = 65536;  // gfx942, per workgroup

struct Cell {
  std::string target, kv, vlayout;
  int head_dim = 0, tokens = 0, warps = 0, stages = 0;
  bool per_warp = false;  // each warp pipelines its own 16-token groups (pa_decode_warp_kernel.cuh)
  bool tma = false;       // ... fed by TMA boxes instead of cp.async (pa_decode_warp_feed.cuh)
  bool ring = false;      // one shared ring fed by a producer warp (pa_decode_ring_kernel.cuh)
  bool persistent = false;  // per-warp pipelines that take unit after unit (pa_decode_stream_kernel.cuh)
  int rows = 16;          // query rows a block computes: 16 (m16 products), 8 (n8, tile suffix :n8)
  int load_bits = 0;      // gfx942: BufferCopy<load_bits> for the K / V rows (tile tokens:waves:bufN)
  std::string name() const {
    if (target == "gfx942")
      return "pa_decode_gfx942_d" + std::to_string(head_dim) + "_" + kv + "_v" + vlayout + "_t" + std::to_string(tokens) +
             "w" + std::to_string(warps) + "_buf" + std::to_string(load_bits);
    return "pa_decode_" + target + "_d" + std::to_string(head_dim) + "_" + kv + "_v" + vlayout + "_t" +
           std::to_string(tokens) + "w" + std::to_string(warps) + "s" + std::to_string(stages) +
           (ring ? "ring" : persistent ? (tma ? "pstma" : "ps") : tma ? "tma" : per_warp ? "pw" : "") + (rows == 8 ? "n8" : "") +
           (load_bits ? "_buf" + std::to_string(load_bits) : "");
  }
  // the block's step, the split plan's unit: one group per warp for per-warp pipelines; one group
  // for persistent ones (each warp is the plan's block)
  int step_tokens() const { return persistent ? 16 : per_warp ? 16 * warps : tokens; }
  int elem_bytes() const { return kv == "fp8" ? 1 : 2; }
};

bool parse_tile(const std::string& tile, Cell& cell) {
  std::smatch m;
  if (std::regex_match(tile, m, std::regex(R"((\d+):(\d+):buf(\d+))"))) {  // gfx942: tokens:waves:bufBits
    cell.tokens = std::stoi(m[1]);
    cell.warps = std::stoi(m[2]);
    cell.stages = 1;
    cell.load_bits = std::stoi(m[3]);
    return true;
  }
  if (std::regex_match(tile, m, std::regex(R"((\d+):(\d+):s(\d+):ring)"))) {
    // consumers take their groups round-robin as per-warp pipelines do; every stage comes by TMA
    cell.per_warp = cell.tma = cell.ring = true;
  } else if (std::regex_match(tile, m, std::regex(R"((\d+):(\d+):s(\d+):persist(:tma)?(:n8)?)"))) {
    cell.per_warp = cell.persistent = true;
    cell.tma = m[4].matched;
    cell.rows = m[5].matched ? 8 : 16;
  } else if (std::regex_match(tile, m, std::regex(R"((\d+):(\d+):s(\d+)(:perwarp)?(:tma)?(:n8)?)"))) {
    cell.per_warp = m[4].matched;
    cell.tma = m[5].matched;
    cell.rows = m[6].matched ? 8 : 16;
  } else {
    return false;
  }
  cell.tokens = std::stoi(m[1]);
  cell.warps = std::stoi(m[2]);
  cell.stages = std::stoi(m[3]);
  return true;
}

// Whether `tiler` divides `extent` exactly: logical_divide keeps the size only then.
bool divides(int extent, int tiler) {
  if (tiler <= 0) return false;
  dyn::Layout d = dyn::logical_divide(dyn::make_layout(dyn::IntTuple(extent)), dyn::make_layout(dyn::IntTuple(tiler)));
  return dyn::size(d) == extent && extent % tiler == 0;
}

// A per-warp pipeline (pa::WarpTile): every stage is one 16-token group that one warp's 32 lanes load.
std::string check_per_warp(const Cell& c) {
  if (c.tokens != 16) return "a per-warp pipeline's stage is one 16-token group, not " + std::to_string(c.tokens) + " tokens";
  const int row_chunks = c.head_dim * c.elem_bytes() / 16;
  const int tile_chunks = 16 * row_chunks;
  if (!divides(tile_chunks, 32))
    return "a warp's 32 lanes do not load the " + std::to_string(tile_chunks) + " 16-byte chunks of a K tile in whole passes";
  if (c.stages < 2) return "a pipeline needs 2 stages at least";
  const int row_bytes = c.head_dim * c.elem_bytes();
  if (c.tma && c.vlayout != "tok")
    return "TMA boxes feed token-major tiles (NHD, HND); a dim-major V (vLLM) takes cp.async";
  if (c.tma && row_bytes % 128 != 0)
    return "a " + std::to_string(row_bytes) + "-byte row is not whole 128-byte TMA swizzle spans";
  if (c.rows == 8 && c.vlayout != "tok")
    return "the 8-row (n8) products read V^T from token-major tiles (NHD, HND); a dim-major V (vLLM) is not built";
  const int q_bytes = c.rows * (c.head_dim + 8) * 2 * (c.persistent ? c.warps : 1);  // a Q tile per warp when persistent
  const int rings = c.warps * c.stages * 2 * 16 * tile_chunks;
  // WarpTile's epilogue merges its warps in the ring (StreamTile writes from registers); TMA:
  // alignment slack and barriers
  const int ring = (c.persistent ? rings : std::max(rings, c.warps * c.rows * (c.head_dim + 6) * 4)) +
                   (c.tma ? 1008 + 8 * c.warps * c.stages : 0);
  if (q_bytes + ring > kMaxSmemBytes)
    return std::to_string(c.warps) + " warps of " + std::to_string(c.stages) + " stages need " + std::to_string(q_bytes + ring) +
           " bytes of shared memory (max " + std::to_string(kMaxSmemBytes) + ")";
  return {};
}

// A shared ring (pa::RingTile): `warps` consumers and a producer warp, `stages` one-group stages.
std::string check_ring(const Cell& c) {
  if (c.tokens != 16) return "a ring's stage is one 16-token group, not " + std::to_string(c.tokens) + " tokens";
  if (c.vlayout != "tok") return "TMA boxes feed token-major tiles (NHD, HND); a dim-major V (vLLM) takes cp.async";
  const int row_bytes = c.head_dim * c.elem_bytes();
  if (row_bytes % 128 != 0) return "a " + std::to_string(row_bytes) + "-byte row is not whole 128-byte TMA swizzle spans";
  if (c.stages < 2 * c.warps)
    return std::to_string(c.stages) + " stages leave some of " + std::to_string(c.warps) +
           " consumers no group in flight while they compute one (2 x consumers at least)";
  const int stage = 2 * 16 * row_bytes;
  const int q_bytes = 16 * (c.head_dim + 8) * 2;
  const int smem = q_bytes + 1008 + std::max(c.stages * stage, c.warps * 16 * (c.head_dim + 6) * 4) + 16 * c.stages;
  if (smem > kMaxSmemBytes)
    return std::to_string(c.stages) + " stages need " + std::to_string(smem) + " bytes of shared memory (max " +
           std::to_string(kMaxSmemBytes) + ")";
  if (c.warps + 1 > 16) return std::to_string(c.warps + 1) + " warps exceed the 16 of 128 registers an SM holds";
  return {};
}

// A gfx942 cell (pa::gfx942::Tile): `warps` wavefronts of 64 lanes, 16 tokens each (the M of the
// QK MFMA), BufferCopy<load_bits> loads of each lane's quarter of a K / token-major V row.
std::string check_gfx942(const Cell& c) {
  if (c.load_bits == 0) return "a gfx942 tile is tokens:waves:bufBits (e.g. 64:4:buf128)";
  const std::string atom = "BufferCopy" + std::to_string(c.load_bits) + "b";
  if (c.load_bits != 32 && c.load_bits != 64 && c.load_bits != 128)
    return atom + ": gfx942's buffer-load atoms for K / V rows are BufferCopy32b, 64b and 128b (dword granularity)";
  if (c.head_dim % 64 != 0) return "head_dim " + std::to_string(c.head_dim) + " is not a multiple of 64";
  if (c.warps < 1 || c.warps > 16) return std::to_string(c.warps) + " wavefronts do not form a workgroup (1 to 16)";
  if (c.tokens != 16 * c.warps)
    return "a step of " + std::to_string(c.tokens) + " tokens is not 16 tokens (one MFMA M) for each of " + std::to_string(c.warps) +
           " wavefronts";
  const int stage = c.vlayout == "tok" ? c.warps * c.head_dim * (c.elem_bytes() == 1 ? 20 : 32) : 0;  // Tile::stage_bytes
  const int merge = (c.head_dim * 16 + 128) * 4;
  const int lds = std::max(stage, merge);
  if (lds > kGfx942LdsBytes)
    return std::to_string(c.warps) + " wavefronts need " + std::to_string(lds) + " bytes of LDS (V stage " + std::to_string(stage) +
           ", merge " + std::to_string(merge) + "; max " + std::to_string(kGfx942LdsBytes) + ")";
  return {};
}

// Empty when the cell compiles (what pa::Tile static_asserts), else why not.
std::string check(const Cell& c) {
  if (c.target == "gfx942") return check_gfx942(c);
  if (c.target != "sm90a") return "target " + c.target + " has no paged-decode kernels (sm90a, gfx942)";
  if (c.load_bits != 0) return "bufBits tiles are gfx942 buffer loads; sm90a tiles are tokens:warps:sStages[...]";
  if (c.head_dim % 64 != 0) return "head_dim " + std::to_string(c.head_dim) + " is not a multiple of 64";
  if (c.vlayout != "tok" && c.vlayout != "dim") return "V layout " + c.vlayout + " is not tok or dim";
  if (c.warps < 1 || 32 * c.warps > 1024) return std::to_string(c.warps) + " warps do not form a block";
  if (c.ring) return check_ring(c);
  if (c.rows == 8 && !c.per_warp)
    return "the 8-row (n8) products run in per-warp pipelines only (16:warps:sStages:perwarp[:tma]:n8, ...:persist[:tma]:n8)";
  if (c.per_warp) return check_per_warp(c);
  if (c.tma) return "TMA feeds per-warp pipelines only (tile 16:warps:sStages:perwarp:tma)";
  if (!divides(c.tokens, 16 * c.warps))
    return "a step of " + std::to_string(c.tokens) + " tokens does not split into " + std::to_string(c.warps) +
           " warp slices of whole m16n8k16 k-steps (16 tokens)";
  const int row_chunks = c.head_dim * c.elem_bytes() / 16;
  const int tile_chunks = c.tokens * row_chunks;
  if (!divides(tile_chunks, 32 * c.warps))
    return std::to_string(32 * c.warps) + " threads do not load the " + std::to_string(tile_chunks) +
           " 16-byte chunks of a K tile in whole passes";
  const int vrow_chunks = c.tokens * c.elem_bytes() / 16;
  if (c.vlayout == "dim" && !(vrow_chunks == 1 || vrow_chunks == 2 || vrow_chunks == 4 || vrow_chunks % 8 == 0))
    return "a dim-major V row of " + std::to_string(vrow_chunks) + " chunks has no bank swizzle (1, 2, 4 or 8k)";
  if (c.stages < 2) return "a pipeline needs 2 stages at least";
  const int q_bytes = 16 * (c.head_dim + 8) * 2;
  const int ring = std::max(c.stages * 2 * 16 * tile_chunks, c.warps * 16 * (c.head_dim + 6) * 4);
  const int tables = c.stages * (2 * (c.tokens / 16) * 8 + 8);  // Tile::table_bytes
  if (q_bytes + ring + tables > kMaxSmemBytes)
    return std::to_string(c.stages) + " stages need " + std::to_string(q_bytes + ring + tables) + " bytes of shared memory (max " +
           std::to_string(kMaxSmemBytes) + ")";
  return {};
}

const std::map<std::string, std::string> kKind = {{"bf16", "bf16"}, {"f16", "f16"}, {"fp8", "fp8"}};
const std::map<std::string, std::string> kClassEnum = {
    {"bf16", "FLY_DTYPE_BF16"}, {"f16", "FLY_DTYPE_F16"}, {"fp8", "FLY_DTYPE_E4M3FN"}};

// The split-K reduce kernel and the host glue, the same in both targets' units but for the
// parameters' qualifier (CUDA passes them as __grid_constant__), the launcher and the occupancy
// query.
void write_reduce_and_launch(std::ofstream& f, const std::string& n, const char* params, const std::string& launch,
                             const std::string& blocks_per_sm) {
  f << "extern \"C\" __global__ void __launch_bounds__(Reduce::threads) " << n << "_reduce(" << params
    << "fly::kernels::PaDecodeParams p, bool out_bf16) {\n"
    << fly::gen::device_only("  Reduce::run(p, out_bf16, int64_t(blockIdx.x), int(threadIdx.x));\n", {"p", "out_bf16"})
    << "}\n\n"
    << "fly_status_t " << n
    << "_launch(const fly::dispatch::PaDecodeProblem& problem, const fly::dispatch::PaDecodePlan& plan, void* stream) {\n"
    << "  return fly::dispatch::" << launch << "<Tile, Reduce::threads>(" << n << ", " << n
    << "_reduce, problem, plan, stream);\n}\n\n"
    << "int " << n << "_blocks_per_sm() {\n  return fly::dispatch::" << blocks_per_sm << "<Tile>(" << n << ");\n}\n";
}

// A gfx942 translation unit (clang-19 -x hip): the kernel, its reduce and the host launch glue.
void write_tu_gfx942(const std::string& path, const Cell& c) {
  std::ofstream f(path);
  const std::string n = c.name();
  const std::string kind = "fly::kernels::pa::gfx942::Kv::" + kKind.at(c.kv), vdim = c.vlayout == "dim" ? "true" : "false";
  f << "// Generated by fly_pa_decode_generator from src/kernels/pa_decode/variants.txt. Do not edit.\n// " << n << "\n"
    << "#include <hip/hip_runtime.h>\n\n#include \"pa_decode_gfx942_kernel.hpp\"\n#include \"pa_decode_gfx942_reduce.hpp\"\n"
    << "#include \"pa_decode/pa_decode_launch_hip.hpp\"\n\nnamespace {\n"
    << "using Tile = fly::kernels::pa::gfx942::Tile<" << c.head_dim << ", " << kind << ", " << vdim << ", " << c.warps << ", "
    << c.load_bits << ">;\nusing Body = fly::kernels::pa::gfx942::Kernel<Tile>;\n"
    << "using Reduce = fly::kernels::pa::gfx942::Reduce<" << c.head_dim << ">;\n}  // namespace\n\n"
    << "extern \"C\" __global__ void __launch_bounds__(Tile::threads, Tile::min_waves_per_eu) " << n
    << "(const fly::kernels::PaDecodeParams p) {\n"
    << fly::gen::device_only("  __shared__ __attribute__((aligned(16))) unsigned char smem[Tile::smem_bytes];\n"
                             "  Body::run(p, smem, int(blockIdx.x), int(threadIdx.x));\n",
                             {"p"})
    << "}\n\n";
  write_reduce_and_launch(f, n, "const ", "launch_pa_decode_hip", "pa_decode_blocks_per_cu_hip");
}

void write_tu(const std::string& path, const Cell& c) {
  if (c.target == "gfx942") return write_tu_gfx942(path, c);
  std::ofstream f(path);
  const std::string n = c.name();
  const std::string kind = "fly::kernels::pa::KvKind::" + kKind.at(c.kv), vdim = c.vlayout == "dim" ? "true" : "false";
  f << "// Generated by fly_pa_decode_generator from src/kernels/pa_decode/variants.txt. Do not edit.\n// " << n << "\n"
    << (c.ring ? "#include \"pa_decode_ring_kernel.cuh\"\n"
        : c.persistent ? "#include \"pa_decode_stream_kernel.cuh\"\n"
        : c.per_warp ? "#include \"pa_decode_warp_kernel.cuh\"\n" : "#include \"pa_decode_kernel.cuh\"\n")
    << "#include \"pa_decode_reduce.cuh\"\n#include \"pa_decode/pa_decode_launch_cuda.hpp\"\n"
    << (c.tma ? "#include \"pa_decode/pa_decode_tma_cuda.hpp\"\n" : "") << "\nnamespace {\n";
  if (c.ring) {
    f << "using Tile = fly::kernels::pa::RingTile<" << c.head_dim << ", " << kind << ", " << c.warps << ", " << c.stages
      << ">;\nusing Body = fly::kernels::pa::RingKernel<Tile>;\n";
  } else if (c.persistent) {
    f << "using Tile = fly::kernels::pa::StreamTile<" << c.head_dim << ", " << kind << ", " << vdim << ", " << c.warps << ", "
      << c.stages << (c.tma ? ", true" : ", false") << ", " << c.rows << ">;\nusing Body = fly::kernels::pa::StreamKernel<Tile>;\n";
  } else if (c.per_warp) {
    f << "using Tile = fly::kernels::pa::WarpTile<" << c.head_dim << ", " << kind << ", " << vdim << ", " << c.warps << ", "
      << c.stages << (c.tma ? ", true" : ", false") << ", " << c.rows << ">;\nusing Body = fly::kernels::pa::WarpKernel<Tile>;\n";
  } else {
    f << "using Tile = fly::kernels::pa::Tile<" << c.head_dim << ", " << kind << ", " << vdim << ", " << c.tokens << ", "
      << c.warps << ", " << c.stages << ">;\nusing Body = fly::kernels::pa::Kernel<Tile>;\n";
  }
  f << "using Reduce = fly::kernels::pa::Reduce<" << c.head_dim << ">;\n}  // namespace\n\n"
    << "extern \"C\" __global__ void __launch_bounds__(Tile::threads, Tile::min_blocks) " << n;
  if (c.tma) {
    f << "(const __grid_constant__ fly::kernels::PaDecodeTmaArgs a) {\n"
      << fly::gen::device_only("  extern __shared__ __align__(128) unsigned char smem[];\n"
                               "  fly::kernels::pa::warm_l2_then_wait<Body>(a.p, int(blockIdx.x), int(threadIdx.x));\n"
                               "  Body::run(a.p, smem, int(blockIdx.x), int(threadIdx.x), &a.k, &a.v);\n",
                               {"a"})
      << "}\n\n";
  } else {
    f << "(const __grid_constant__ fly::kernels::PaDecodeParams p) {\n"
      << fly::gen::device_only("  extern __shared__ __align__(128) unsigned char smem[];\n"
                               "  fly::kernels::pa::warm_l2_then_wait<Body>(p, int(blockIdx.x), int(threadIdx.x));\n"
                               "  Body::run(p, smem, int(blockIdx.x), int(threadIdx.x));\n",
                               {"p"})
      << "}\n\n";
  }
  write_reduce_and_launch(f, n, "const __grid_constant__ ", c.tma ? "launch_pa_decode_tma_cuda" : "launch_pa_decode_cuda",
                          "pa_decode_blocks_per_sm");
}

void write_registry(const std::string& path, const std::vector<Cell>& cells) {
  std::ofstream r(path);
  r << "// Generated by fly_pa_decode_generator. Do not edit.\n#include \"pa_decode/pa_decode_registry.hpp\"\n\n";
  for (const auto& c : cells)
    r << "fly_status_t " << c.name()
      << "_launch(const fly::dispatch::PaDecodeProblem&, const fly::dispatch::PaDecodePlan&, void*);\nint " << c.name()
      << "_blocks_per_sm();\n";
  r << "\nnamespace fly::dispatch {\nnamespace {\nconst PaDecodeVariant kVariants[] = {\n";
  for (const auto& c : cells)
    r << "    {\"" << c.name() << "\", Target::" << c.target << ", " << kClassEnum.at(c.kv) << ", " << c.head_dim << ", "
      << (c.vlayout == "dim" ? "true" : "false") << ", " << c.rows << ", " << c.step_tokens() << ", " << c.warps << ", " << c.stages << ", "
      << (c.per_warp ? "true" : "false") << ", " << (c.tma ? "true" : "false") << ", " << (c.ring ? "true" : "false")
      << ", " << c.name() << "_launch, "
      << c.name() << "_blocks_per_sm, " << c.load_bits << ", " << (c.persistent ? "true" : "false") << "},\n";
  if (cells.empty())
    r << "    {nullptr, Target::host, FLY_DTYPE_F32, 0, false, 0, 0, 0, 0, false, false, false, nullptr, nullptr, 0, false},\n";
  r << "};\n}  // namespace\n\nstd::span<const PaDecodeVariant> pa_decode_variants() {\n"
    << "  return std::span<const PaDecodeVariant>(kVariants, " << cells.size() << ");\n}\n}  // namespace fly::dispatch\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string table, out, filter = ".*", targets = "sm90a", registry_targets;
  if (!fly::gen::parse_options(argc, argv, {{"table", &table}, {"out", &out}, {"filter", &filter}, {"targets", &targets},
                                            {"registry", &registry_targets}}) ||
      table.empty() || out.empty()) {
    std::cerr << "usage: fly_pa_decode_generator --table <variants.txt> --out <dir> [--filter <regex>] [--targets t,..] "
                 "[--registry t,..]\n";
    return 2;
  }
  const auto enabled = fly::gen::split(targets, ','), linked = fly::gen::split(registry_targets, ',');
  auto has = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  fly::gen::Emitter emit(filter);
  std::vector<Cell> registry;
  const bool ok = fly::gen::for_each_row(table, 5, [&](int lineno, const std::vector<std::string>& row) {
    for (const auto& v : fly::gen::expand(row)) {
      Cell c;
      c.target = v[0];
      c.kv = v[2];
      c.vlayout = v[3];
      try {
        c.head_dim = std::stoi(v[1]);
      } catch (...) {
        c.head_dim = 0;
      }
      if (!parse_tile(v[4], c) || !kKind.count(c.kv) || c.head_dim <= 0) {
        std::cerr << table << ":" << lineno << ": bad cell " << v[1] << " " << v[2] << " " << v[3] << " " << v[4] << "\n";
        return false;
      }
      if (!has(enabled, c.target) || !emit.wanted(c.name())) continue;
      if (!emit.accept(c.name(), [&] { return check(c); })) continue;
      const std::string path = out + "/" + c.name() + (c.target == "gfx942" ? ".hip" : ".cu");
      write_tu(path, c);
      emit.file(c.target, path);
      if (has(linked, c.target)) registry.push_back(c);
    }
    return true;
  });
  if (!ok) return 2;
  const std::string reg = out + "/pa_decode_registry_generated.cpp";
  write_registry(reg, registry);
  emit.registry(reg, registry.size());
  return 0;
}
