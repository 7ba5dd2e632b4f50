// Reads per-kernel resource use from an sm_90a cubin (ELF, EM_CUDA) and, optionally, the
// `nvcc -Xptxas -v` log that built it (the only place spills are written down).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report.hpp"

namespace fly::regreport {

// nv.info attribute records: [format:1][attribute:1] then, by format, nothing (EIFMT_NVAL),
// one byte (EIFMT_BVAL), two bytes (EIFMT_HVAL) or [size:2][payload:size] (EIFMT_SVAL); format 0
// is one byte of padding. Per-function values sit in the file-wide `.nv.info` section as
// SVAL payloads [symbol index:4][value:4].
inline constexpr std::uint8_t kEifmtNone = 0x00, kEifmtNval = 0x01, kEifmtBval = 0x02, kEifmtHval = 0x03,
                              kEifmtSval = 0x04;
inline constexpr std::uint8_t kEiattrFrameSize = 0x11, kEiattrMinStackSize = 0x12, kEiattrMaxStackSize = 0x23,
                              kEiattrRegcount = 0x2f;

// Kernels (symbols marked STO_CUDA_ENTRY) in symbol-table order: registers (EIATTR_REGCOUNT),
// stack (EIATTR_FRAME_SIZE, and the cumulative EIATTR_MIN/MAX_STACK_SIZE), static shared memory
// (size of `.nv.shared.<kernel>`, less the 1 KiB that sm_90 cubins reserve at its start when the
// cubin has a `.nv.shared.reserved.0` section; this matches ptxas's "bytes smem").
// Throws InputError on anything that is not a well-formed 64-bit little-endian CUDA ELF.
[[nodiscard]] std::vector<KernelReport> parse_cubin(const std::string& bytes, const std::string& file);

struct PtxasFunction {
  std::optional<std::int64_t> registers, smem, stack_frame, spill_stores, spill_loads;
};

// `ptxas info` lines per function: "Compiling entry function 'F' for 'sm_90a'", "Function
// properties for F", "N bytes stack frame, N bytes spill stores, N bytes spill loads",
// "Used N registers, ... N bytes smem". Entries compiled for an arch other than sm_90* are skipped.
[[nodiscard]] std::map<std::string, PtxasFunction> parse_ptxas_log(const std::string& text, const std::string& file);

// Fills spills from the log; a register or shared-memory count that disagrees with the cubin is
// recorded as an error of the kernel (the log is stale or belongs to another build).
void apply_ptxas_log(std::vector<KernelReport>& kernels, const std::map<std::string, PtxasFunction>& log,
                     const std::string& log_file);

}  // namespace fly::regreport
