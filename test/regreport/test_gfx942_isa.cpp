// gfx942 ISA parser: synthetic text in the shape clang-19 writes (--offload-device-only -S).
#include <gtest/gtest.h>

#include <string>

#include "gfx942_isa.hpp"

namespace fly::regreport {
namespace {

// One kernel: body, descriptor, "; Kernel info:" comment; metadata entries come separately.
std::string kernel_text(const std::string& name, const std::string& body, int next_free_vgpr, int accum_offset,
                        int arch_vgprs, int agprs, int dynamic_stack = 0) {
  return "\t.text\n\t.globl\t" + name + "\n\t.type\t" + name + ",@function\n" + name + ":  ; @" + name +
         "\n; %bb.0:\n" + body + "\ts_endpgm\n\t.section\t.rodata,\"a\",@progbits\n\t.amdhsa_kernel " + name +
         "\n\t\t.amdhsa_group_segment_fixed_size 0\n\t\t.amdhsa_private_segment_fixed_size 0\n"
         "\t\t.amdhsa_uses_dynamic_stack " + std::to_string(dynamic_stack) +
         "\n\t\t.amdhsa_next_free_vgpr " + std::to_string(next_free_vgpr) +
         "\n\t\t.amdhsa_next_free_sgpr 16\n\t\t.amdhsa_accum_offset " + std::to_string(accum_offset) +
         "\n\t.end_amdhsa_kernel\n\t.text\n.Lfunc_end0:\n\t.size\t" + name + ", .Lfunc_end0-" + name +
         "\n\t.section\t.AMDGPU.csdata,\"\",@progbits\n; Kernel info:\n; codeLenInByte = 100\n; NumSgprs: 22\n"
         "; NumVgprs: " + std::to_string(arch_vgprs) + "\n; NumAgprs: " + std::to_string(agprs) +
         "\n; TotalNumVgprs: " + std::to_string(next_free_vgpr) + "\n; ScratchSize: 0\n\t.text\n";
}

std::string metadata_entry(const std::string& name, int vgpr_count, int agpr_count, int sgpr_count, int vspill,
                           int sspill, int lds, int scratch, bool dynamic_stack) {
  return "  - .agpr_count:     " + std::to_string(agpr_count) +
         "\n    .args:\n      - .address_space:  global\n        .offset:         0\n"
         "        .size:           8\n        .value_kind:     global_buffer\n"
         "    .group_segment_fixed_size: " + std::to_string(lds) +
         "\n    .kernarg_segment_align: 8\n    .language_version:\n      - 2\n      - 0\n"
         "    .name:           " + name + "\n    .private_segment_fixed_size: " + std::to_string(scratch) +
         "\n    .sgpr_count:     " + std::to_string(sgpr_count) +
         "\n    .sgpr_spill_count: " + std::to_string(sspill) + "\n    .symbol:         " + name +
         ".kd\n    .uses_dynamic_stack: " + (dynamic_stack ? "true" : "false") +
         "\n    .vgpr_count:     " + std::to_string(vgpr_count) +
         "\n    .vgpr_spill_count: " + std::to_string(vspill) + "\n    .wavefront_size: 64\n";
}

std::string metadata(const std::string& entries) {
  return "\t.amdgpu_metadata\n---\namdhsa.kernels:\n" + entries +
         "amdhsa.target:   amdgcn-amd-amdhsa--gfx942\namdhsa.version:\n  - 1\n  - 2\n...\n\n\t.end_amdgpu_metadata\n";
}

TEST(Gfx942Isa, ArchVgprsAndAgprsOfTwoKernels) {
  const std::string text =
      "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n" +
      kernel_text("_Z5plainPi", "\tv_mov_b32_e32 v1, 0\n", 21, 24, 21, 0) +
      kernel_text("_Z4mfmaPf", "\tv_mfma_f32_16x16x4f32 a[0:3], v0, v1, a[0:3]\n", 108, 44, 42, 64) +
      metadata(metadata_entry("_Z5plainPi", 21, 0, 22, 0, 0, 0, 0, false) +
               metadata_entry("_Z4mfmaPf", 108, 64, 30, 3, 2, 4096, 16, false));
  const auto ks = parse_gfx942_isa(text, "dir/two.gfx942.s");
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "_Z5plainPi");
  EXPECT_EQ(ks[0].stem, "two");
  EXPECT_EQ(ks[0].vgpr, 21);
  EXPECT_EQ(ks[0].agpr, 0);
  EXPECT_EQ(ks[0].vgpr_total, 21);
  EXPECT_EQ(ks[0].sgpr, 22);
  EXPECT_EQ(ks[0].spill_total(), 0);
  EXPECT_TRUE(ks[0].errors.empty());
  EXPECT_EQ(gfx942_waves_per_simd(*ks[0].vgpr_total), 8);

  EXPECT_EQ(ks[1].name, "_Z4mfmaPf");
  EXPECT_EQ(ks[1].vgpr, 42);          // from "; NumVgprs:"
  EXPECT_EQ(ks[1].agpr, 64);
  EXPECT_EQ(ks[1].vgpr_total, 108);   // accum_offset 44 + 64 AGPRs
  EXPECT_EQ(ks[1].sgpr, 30);
  EXPECT_EQ(ks[1].vgpr_spill, 3);
  EXPECT_EQ(ks[1].sgpr_spill, 2);
  EXPECT_EQ(ks[1].spill_total(), 5);
  EXPECT_EQ(ks[1].lds, 4096);
  EXPECT_EQ(ks[1].scratch, 16);
  EXPECT_EQ(gfx942_waves_per_simd(108), 4);  // 512 / 112
  EXPECT_TRUE(ks[1].errors.empty());
}

TEST(Gfx942Isa, WithoutKernelInfoCommentArchVgprsComeFromTheAccumOffset) {
  std::string text = kernel_text("_Z4mfmaPf", "", 108, 44, 42, 64) +
                     metadata(metadata_entry("_Z4mfmaPf", 108, 64, 30, 0, 0, 0, 0, false));
  const auto at = text.find("; Kernel info:");
  text.erase(at, text.find("\t.text", at) - at);
  const auto ks = parse_gfx942_isa(text, "k.s");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].vgpr, 44);
  EXPECT_EQ(ks[0].vgpr_total, 108);
}

TEST(Gfx942Isa, CallAndDynamicStackAreErrors) {
  const std::string text =
      kernel_text("_Z4callPi", "\ts_getpc_b64 s[0:1]\n\ts_swappc_b64 s[30:31], s[0:1]\n", 44, 44, 44, 0, 1) +
      metadata(metadata_entry("_Z4callPi", 44, 0, 52, 0, 0, 256, 0, true));
  const auto ks = parse_gfx942_isa(text, "k.s");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_TRUE(ks[0].calls);
  EXPECT_TRUE(ks[0].dynamic_stack);
  ASSERT_EQ(ks[0].errors.size(), 1u);
  EXPECT_NE(ks[0].errors[0].find("s_swappc_b64 at line"), std::string::npos);
  EXPECT_NE(ks[0].errors[0].find("dynamic stack"), std::string::npos);
}

TEST(Gfx942Isa, DynamicStackInMetadataAloneIsAnError) {
  const std::string text = kernel_text("_Z1kPi", "", 8, 8, 8, 0) +
                           metadata(metadata_entry("_Z1kPi", 8, 0, 10, 0, 0, 0, 0, true));
  const auto ks = parse_gfx942_isa(text, "k.s");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_FALSE(ks[0].calls);
  EXPECT_TRUE(ks[0].dynamic_stack);
  EXPECT_EQ(ks[0].errors.size(), 1u);
}

TEST(Gfx942Isa, ACallInAnotherFunctionDoesNotBlameTheKernel) {
  const std::string helper = "\t.type\t_Z6helperv,@function\n_Z6helperv:\n\ts_setpc_b64 s[30:31]\n.Lfunc_end9:\n";
  const std::string text = helper + kernel_text("_Z1kPi", "\tv_mov_b32_e32 v0, 0\n", 8, 8, 8, 0) +
                           metadata(metadata_entry("_Z1kPi", 8, 0, 10, 0, 0, 0, 0, false));
  const auto ks = parse_gfx942_isa(text, "k.s");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_FALSE(ks[0].calls);
  EXPECT_TRUE(ks[0].errors.empty());
}

void expect_input_error(const std::string& text, const std::string& needle) {
  try {
    (void)parse_gfx942_isa(text, "bad.s");
    ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Gfx942Isa, MalformedInputNamesFileAndLine) {
  expect_input_error("", "bad.s: no kernel");
  expect_input_error("hello\nworld\n", "bad.s: no kernel");
  expect_input_error("\t.amdhsa_kernel _Z1kPi\n\t\t.amdhsa_next_free_vgpr 8\n", "bad.s:1: descriptor of _Z1kPi");
  expect_input_error("\t.amdhsa_kernel _Z1kPi\n\t\t.amdhsa_next_free_vgpr eight\n\t.end_amdhsa_kernel\n",
                     "bad.s:2: expected a non-negative integer");
  // A kernel with no metadata entry.
  expect_input_error(kernel_text("_Z1kPi", "", 8, 8, 8, 0), "has no .amdgpu_metadata entry");
  // Metadata for a kernel that has no descriptor.
  expect_input_error(kernel_text("_Z1kPi", "", 8, 8, 8, 0) +
                         metadata(metadata_entry("_Z1kPi", 8, 0, 10, 0, 0, 0, 0, false) +
                                  metadata_entry("_Z5otherv", 8, 0, 10, 0, 0, 0, 0, false)),
                     "metadata for _Z5otherv but no .amdhsa_kernel");
  std::string bad_count = kernel_text("_Z1kPi", "", 8, 8, 8, 0) +
                          metadata(metadata_entry("_Z1kPi", 8, 0, 10, 0, 0, 0, 0, false));
  bad_count.replace(bad_count.find(".sgpr_count:     10"), 19, ".sgpr_count:     -3");
  expect_input_error(bad_count, "expected a non-negative integer for .sgpr_count");
  std::string unterminated = kernel_text("_Z1kPi", "", 8, 8, 8, 0) + "\t.amdgpu_metadata\n---\n";
  expect_input_error(unterminated, "has no .end_amdgpu_metadata");
}

TEST(Gfx942Isa, Occupancy) {
  EXPECT_EQ(gfx942_waves_per_simd(0), 8);
  EXPECT_EQ(gfx942_waves_per_simd(64), 8);
  EXPECT_EQ(gfx942_waves_per_simd(65), 7);   // 72
  EXPECT_EQ(gfx942_waves_per_simd(128), 4);
  EXPECT_EQ(gfx942_waves_per_simd(256), 2);
  EXPECT_EQ(gfx942_waves_per_simd(512), 1);
}

#ifdef FLY_REGREPORT_LAYOUT_ISA
// The real ISA of test/device/layout_eval.hip (rocm preset).
TEST(Gfx942Isa, LayoutEvalIsa) {
  const auto ks = parse_gfx942_isa(read_file(FLY_REGREPORT_LAYOUT_ISA), FLY_REGREPORT_LAYOUT_ISA);
  ASSERT_EQ(ks.size(), 2u);
  for (const auto& k : ks) {
    EXPECT_TRUE(k.errors.empty()) << k.name;
    EXPECT_GT(*k.vgpr, 0) << k.name;
    EXPECT_EQ(k.agpr, 0) << k.name;
    EXPECT_EQ(k.spill_total(), 0) << k.name;
    EXPECT_EQ(k.scratch, 0) << k.name;
  }
}
#endif

}  // namespace
}  // namespace fly::regreport
