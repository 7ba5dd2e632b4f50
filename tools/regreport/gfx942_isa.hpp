// Reads per-kernel resource use from gfx942 ISA text, as written by
// `clang++-19 -x hip --offload-arch=gfx942 --offload-device-only -S`.
#pragma once

#include <string>
#include <vector>

#include "report.hpp"

namespace fly::regreport {

// Kernels in the order of their kernel descriptors. Sources, per kernel:
//  - the `.amdgpu_metadata` YAML: .vgpr_count, .agpr_count, .sgpr_count, .vgpr_spill_count,
//    .sgpr_spill_count, .group_segment_fixed_size, .private_segment_fixed_size, .uses_dynamic_stack;
//  - the `.amdhsa_kernel` descriptor: .amdhsa_next_free_vgpr, .amdhsa_accum_offset,
//    .amdhsa_uses_dynamic_stack;
//  - the "; Kernel info:" comment (NumVgprs: the architectural VGPRs) when present;
//  - the kernel body: s_swappc / s_setpc mean a call survived (device libraries not linked).
// Throws InputError (naming file:line) on malformed text or a file with no kernel.
[[nodiscard]] std::vector<KernelReport> parse_gfx942_isa(const std::string& text, const std::string& file);

}  // namespace fly::regreport
