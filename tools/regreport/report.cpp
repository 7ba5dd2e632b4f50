#include "report.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fly::regreport {

std::string where(const std::string& file, std::size_t line) {
  return file + ":" + std::to_string(line);
}

const char* target_name(Target t) { return t == Target::gfx942 ? "gfx942" : "sm90"; }

std::optional<std::int64_t> KernelReport::spill_total() const {
  if (target == Target::gfx942) {
    if (!vgpr_spill && !sgpr_spill) return std::nullopt;
    return vgpr_spill.value_or(0) + sgpr_spill.value_or(0);
  }
  if (!spill_stores || !spill_loads) return std::nullopt;
  return *spill_stores + *spill_loads;
}

// CDNA3: 512 VGPRs (arch + acc) per lane per SIMD, allocated in granules of 8, at most 8 waves.
std::int64_t gfx942_waves_per_simd(std::int64_t vgpr_total) {
  const std::int64_t granule = 8;
  const std::int64_t rounded = (std::max<std::int64_t>(vgpr_total, 1) + granule - 1) / granule * granule;
  return std::min<std::int64_t>(8, 512 / rounded);
}

// Hopper: 65536 registers per SM, allocated per warp in units of 256, at most 64 warps and 32
// blocks per SM; 228 KiB of shared memory per SM of which each block also takes 1 KiB reserved.
std::int64_t sm90_warps_per_sm(std::int64_t regs, std::int64_t smem, std::int64_t block_threads) {
  const std::int64_t per_warp = (std::max<std::int64_t>(regs, 1) * 32 + 255) / 256 * 256;
  const std::int64_t by_regs = std::min<std::int64_t>(64, 65536 / per_warp);
  if (block_threads <= 0) return by_regs;
  const std::int64_t wpb = (block_threads + 31) / 32;
  const std::int64_t blocks = std::min({std::int64_t{32}, by_regs / wpb, 64 / wpb,
                                        std::int64_t{233472} / (smem + 1024)});
  return blocks * wpb;
}

std::string file_stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = base.find('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return ss.str();
}

}  // namespace fly::regreport
