// sm_90a cubin and ptxas-log parsers: a synthetic ELF built here, and (CUDA builds) a real cubin
// compiled from tiny_kernels.cu at build time together with its `-Xptxas -v` log.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cubin.hpp"

namespace fly::regreport {
namespace {

// ---- a minimal EM_CUDA ELF ---------------------------------------------------------------------
struct Sec {
  std::string name;
  std::uint32_t type;
  std::string data;          // contents (empty for NOBITS)
  std::uint64_t size = 0;    // NOBITS size
  std::uint32_t link = 0;
  std::uint64_t entsize = 0;
};

template <class T>
void put(std::string& s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof v);
  s.append(b, sizeof v);
}

std::string build_elf(std::vector<Sec> secs, std::uint16_t machine = 190) {
  // secs[0] must be the null section; a .shstrtab is appended.
  std::string shstrtab(1, '\0');
  std::vector<std::uint32_t> name_off;
  for (auto& s : secs) {
    name_off.push_back(s.name.empty() ? 0u : static_cast<std::uint32_t>(shstrtab.size()));
    if (!s.name.empty()) shstrtab += s.name + '\0';
  }
  name_off.push_back(static_cast<std::uint32_t>(shstrtab.size()));
  shstrtab += std::string(".shstrtab") + '\0';
  secs.push_back(Sec{".shstrtab", 3, shstrtab});

  std::string out(64, '\0');
  std::vector<std::uint64_t> offsets;
  for (auto& s : secs) {
    offsets.push_back(out.size());
    out += s.data;
    while (out.size() % 8) out += '\0';
  }
  const std::uint64_t shoff = out.size();
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const Sec& s = secs[i];
    put<std::uint32_t>(out, name_off[i]);
    put<std::uint32_t>(out, s.type);
    put<std::uint64_t>(out, 0);  // flags
    put<std::uint64_t>(out, 0);  // addr
    put<std::uint64_t>(out, offsets[i]);
    put<std::uint64_t>(out, s.type == 8 ? s.size : s.data.size());
    put<std::uint32_t>(out, s.link);
    put<std::uint32_t>(out, 0);  // info
    put<std::uint64_t>(out, 1);  // align
    put<std::uint64_t>(out, s.entsize);
  }
  std::memcpy(out.data(), "\x7f" "ELF\x02\x01\x01", 7);
  std::memcpy(out.data() + 18, &machine, 2);
  std::memcpy(out.data() + 0x28, &shoff, 8);
  const std::uint16_t shentsize = 64, shnum = static_cast<std::uint16_t>(secs.size()),
                      shstrndx = static_cast<std::uint16_t>(secs.size() - 1);
  std::memcpy(out.data() + 0x3a, &shentsize, 2);
  std::memcpy(out.data() + 0x3c, &shnum, 2);
  std::memcpy(out.data() + 0x3e, &shstrndx, 2);
  return out;
}

std::string sym(std::uint32_t name, std::uint8_t info, std::uint8_t other, std::uint16_t shndx) {
  std::string s;
  put<std::uint32_t>(s, name);
  put<std::uint8_t>(s, info);
  put<std::uint8_t>(s, other);
  put<std::uint16_t>(s, shndx);
  put<std::uint64_t>(s, 0);
  put<std::uint64_t>(s, 0);
  return s;
}

std::string sval(std::uint8_t attr, std::uint32_t a, std::uint32_t b) {
  std::string s{char(kEifmtSval), char(attr), 8, 0};
  put<std::uint32_t>(s, a);
  put<std::uint32_t>(s, b);
  return s;
}

// Kernels _Z1kPi (40 registers, frame 256, cumulative stack 512, 4096 + 1 KiB reserved shared) and
// _Z2k2v (8 registers); _Z6helperv is a device function, not a kernel.
std::string synthetic_cubin(bool reserved = true, std::uint16_t machine = 190) {
  const std::string strtab = std::string("\0_Z6helperv\0_Z1kPi\0_Z2k2v\0", 26);
  const std::string symtab = sym(0, 0, 0, 0) + sym(1, 0x02, 0, 4) + sym(12, 0x12, 0x10, 4) + sym(19, 0x12, 0x10, 4);
  std::string info = sval(kEiattrRegcount, 2, 40) + sval(kEiattrFrameSize, 2, 256) +
                     sval(kEiattrMinStackSize, 2, 512) + sval(kEiattrRegcount, 3, 8) +
                     sval(kEiattrFrameSize, 1, 128) + sval(kEiattrRegcount, 1, 12);
  // Records the parser must step over: NVAL, BVAL + padding byte, HVAL, an SVAL of another size.
  const std::string kinfo = std::string{char(kEifmtNval), 0x04, char(kEifmtBval), 0x4c, 1, 0,
                                        char(kEifmtHval), 0x1b, char(0xff), 0, char(kEifmtSval), 0x1c, 4, 0,
                                        char(0x20), 1, 0, 0};
  std::vector<Sec> secs = {Sec{"", 0, ""},
                           Sec{".strtab", 3, strtab},
                           Sec{".symtab", 2, symtab, 0, 1, 24},
                           Sec{".nv.info", 0x70000000, info},
                           Sec{".text._Z1kPi", 1, std::string(128, '\0')},
                           Sec{".nv.info._Z1kPi", 0x70000000, kinfo},
                           Sec{".nv.shared._Z1kPi", 8, "", 4096 + (reserved ? 1024u : 0u)}};
  if (reserved) secs.push_back(Sec{".nv.shared.reserved.0", 8, "", 0});
  return build_elf(secs, machine);
}

TEST(Cubin, SyntheticKernels) {
  const auto ks = parse_cubin(synthetic_cubin(), "out/tiny.cubin");
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "_Z1kPi");
  EXPECT_EQ(ks[0].stem, "tiny");
  EXPECT_EQ(ks[0].target, Target::sm90);
  EXPECT_EQ(ks[0].vgpr, 40);
  EXPECT_EQ(ks[0].frame, 256);
  EXPECT_EQ(ks[0].scratch, 512);
  EXPECT_EQ(ks[0].lds, 4096);
  EXPECT_FALSE(ks[0].spill_total().has_value());  // no ptxas log
  EXPECT_EQ(ks[1].name, "_Z2k2v");
  EXPECT_EQ(ks[1].vgpr, 8);
  EXPECT_EQ(ks[1].scratch, 0);
  EXPECT_EQ(ks[1].lds, 0);
}

TEST(Cubin, SharedSizeWithoutReservedSection) {
  const auto ks = parse_cubin(synthetic_cubin(false), "t.cubin");
  EXPECT_EQ(ks[0].lds, 4096);
}

void expect_cubin_error(const std::string& bytes, const std::string& needle) {
  try {
    (void)parse_cubin(bytes, "bad.cubin");
    ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Cubin, BadInputIsAnInputErrorNeverACrash) {
  expect_cubin_error("", "bad.cubin: not an ELF file");
  expect_cubin_error(std::string(100, 'x'), "not an ELF file");
  expect_cubin_error(synthetic_cubin(true, 62), "not EM_CUDA");
  const std::string good = synthetic_cubin();
  // Every truncation is rejected cleanly.
  for (std::size_t n = 0; n < good.size(); n += 7) {
    try {
      (void)parse_cubin(good.substr(0, n), "cut.cubin");
    } catch (const InputError&) {
    }
  }
  // Every single corrupted byte gives a result or an InputError, nothing else.
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0xa5);
    try {
      (void)parse_cubin(bad, "flip.cubin");
    } catch (const InputError&) {
    }
  }
}

TEST(PtxasLog, SpillsRegistersAndSmem) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z1kPi' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z1kPi\n"
      "    256 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 256 bytes cumulative stack size, 4096 bytes smem\n"
      "ptxas info    : Compile time = 1.0 ms\n"
      "ptxas info    : Function properties for _Z6helperv\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_Z2k2v' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z2k2v\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 99 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function '_Z2k2v' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z2k2v\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 0 barriers\n";
  const auto fs = parse_ptxas_log(log, "k.log");
  ASSERT_TRUE(fs.contains("_Z1kPi"));
  EXPECT_EQ(fs.at("_Z1kPi").registers, 40);
  EXPECT_EQ(fs.at("_Z1kPi").spill_stores, 12);
  EXPECT_EQ(fs.at("_Z1kPi").spill_loads, 16);
  EXPECT_EQ(fs.at("_Z1kPi").smem, 4096);
  EXPECT_EQ(fs.at("_Z2k2v").registers, 8);  // the sm_80 entry is skipped
  EXPECT_EQ(fs.at("_Z2k2v").smem, 0);

  auto ks = parse_cubin(synthetic_cubin(), "tiny.cubin");
  apply_ptxas_log(ks, fs, "k.log");
  EXPECT_EQ(ks[0].spill_total(), 28);
  EXPECT_TRUE(ks[0].errors.empty());
  EXPECT_EQ(ks[1].spill_total(), 0);
  EXPECT_TRUE(ks[1].errors.empty());

  // A log from another build disagrees with the cubin: an error of the kernel.
  auto stale = parse_ptxas_log("ptxas info    : Compiling entry function '_Z2k2v' for 'sm_90a'\n"
                               "ptxas info    : Function properties for _Z2k2v\n"
                               "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                               "ptxas info    : Used 9 registers, used 0 barriers\n",
                               "old.log");
  apply_ptxas_log(ks, stale, "old.log");
  ASSERT_EQ(ks[1].errors.size(), 1u);
  EXPECT_NE(ks[1].errors[0].find("old.log says 9 registers"), std::string::npos);
}

TEST(PtxasLog, MalformedLinesNameFileAndLine) {
  try {
    (void)parse_ptxas_log("junk\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n", "x.log");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.log:2"), std::string::npos) << e.what();
  }
}

TEST(Sm90, Occupancy) {
  EXPECT_EQ(sm90_warps_per_sm(32, 0, 0), 64);
  EXPECT_EQ(sm90_warps_per_sm(8, 0, 0), 64);
  EXPECT_EQ(sm90_warps_per_sm(64, 0, 0), 32);
  EXPECT_EQ(sm90_warps_per_sm(128, 0, 0), 16);
  EXPECT_EQ(sm90_warps_per_sm(255, 0, 0), 8);
  EXPECT_EQ(sm90_warps_per_sm(40, 0, 0), 51);      // 1280 registers per warp
  EXPECT_EQ(sm90_warps_per_sm(40, 0, 256), 48);    // 6 blocks of 8 warps
  EXPECT_EQ(sm90_warps_per_sm(32, 100000, 128), 8);  // 2 blocks by shared memory
}

#ifdef FLY_REGREPORT_CUBIN
// A real cubin from tiny_kernels.cu: the ELF reading agrees with ptxas's own report.
TEST(Cubin, RealCubinAgreesWithPtxas) {
  auto ks = parse_cubin(read_file(FLY_REGREPORT_CUBIN), FLY_REGREPORT_CUBIN);
  const auto log = parse_ptxas_log(read_file(FLY_REGREPORT_PTXAS_LOG), FLY_REGREPORT_PTXAS_LOG);
  ASSERT_EQ(ks.size(), 3u);
  for (const auto& k : ks) {
    ASSERT_TRUE(log.contains(k.name)) << k.name;
    const PtxasFunction& f = log.at(k.name);
    EXPECT_EQ(k.vgpr, f.registers) << k.name;
    EXPECT_EQ(k.lds, f.smem) << k.name;
    EXPECT_EQ(k.frame, f.stack_frame) << k.name;
  }
  apply_ptxas_log(ks, log, FLY_REGREPORT_PTXAS_LOG);
  for (const auto& k : ks) EXPECT_TRUE(k.errors.empty()) << k.name;
  for (const auto& k : ks) {
    if (k.name == "_Z16tiny_smem_kernelPfi") {
      EXPECT_EQ(k.lds, 4096);
    } else if (k.name == "_Z17tiny_stack_kernelPfi") {
      EXPECT_EQ(k.frame, 1024);
      EXPECT_EQ(k.scratch, 1024);
    }
  }
}
#endif

}  // namespace
}  // namespace fly::regreport
