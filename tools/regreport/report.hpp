// fly_regreport: what one kernel uses, read from gfx942 ISA text or an sm_90a cubin.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fly::regreport {

// Bad input (unreadable file, malformed line, broken ELF): the message names the file and, where
// there is one, the line. The tool prints it and exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[nodiscard]] std::string where(const std::string& file, std::size_t line);  // "file:line"

enum class Target { gfx942, sm90 };
[[nodiscard]] const char* target_name(Target t);  // "gfx942" / "sm90"

struct KernelReport {
  Target target = Target::gfx942;
  std::string input;  // the file it was read from
  std::string stem;   // that file's name up to its first '.', e.g. "layout_eval"
  std::string name;   // mangled symbol name

  // gfx942. vgpr = architectural VGPRs, agpr = accumulation VGPRs, vgpr_total = what is allocated
  // (AGPRs start at .amdhsa_accum_offset: total = accum_offset + agpr when agpr > 0).
  // sm90: vgpr holds the registers per thread; agpr and sgpr stay empty.
  std::optional<std::int64_t> vgpr, agpr, vgpr_total, sgpr;
  // gfx942: spilled registers (counts). sm90: spill bytes from the ptxas log (stores, loads);
  // empty when no log was given.
  std::optional<std::int64_t> vgpr_spill, sgpr_spill;
  std::optional<std::int64_t> spill_stores, spill_loads;
  std::int64_t lds = 0;      // gfx942 group segment / sm90 static shared memory, bytes
  std::int64_t scratch = 0;  // gfx942 private segment / sm90 stack (max of frame and cumulative), bytes
  std::int64_t frame = 0;    // sm90 only: this kernel's own stack frame, bytes
  bool calls = false;          // gfx942: s_swappc/s_setpc in the kernel body
  bool dynamic_stack = false;  // gfx942: .uses_dynamic_stack
  std::vector<std::string> errors;  // conditions that fail the kernel whatever its budget says

  // Spills as one number for budgets: gfx942 registers spilled (vgpr + sgpr), sm90 bytes
  // (stores + loads). Empty when unknown.
  [[nodiscard]] std::optional<std::int64_t> spill_total() const;
};

// Occupancy, by registers only unless a block size is given (sm90).
[[nodiscard]] std::int64_t gfx942_waves_per_simd(std::int64_t vgpr_total);
[[nodiscard]] std::int64_t sm90_warps_per_sm(std::int64_t regs_per_thread, std::int64_t smem_bytes,
                                             std::int64_t block_threads /* 0: unknown */);

[[nodiscard]] std::string file_stem(const std::string& path);
[[nodiscard]] std::string read_file(const std::string& path);  // throws InputError

}  // namespace fly::regreport
