#include "cubin.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>

namespace fly::regreport {
namespace {

constexpr std::uint16_t kEmCuda = 190;
constexpr std::uint32_t kShtSymtab = 2, kShtNobits = 8;
constexpr std::uint8_t kSttFunc = 2, kStoCudaEntry = 0x10;

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& file) : b_(bytes), file_(file) {}

  template <class T>
  T get(std::uint64_t off, const char* what) const {
    if (off > b_.size() || b_.size() - off < sizeof(T))
      throw InputError(file_ + ": truncated ELF (" + what + " at offset " + std::to_string(off) + ")");
    T v{};
    std::memcpy(&v, b_.data() + off, sizeof(T));  // ELF is little-endian, checked in parse_cubin
    return v;
  }
  std::string_view span(std::uint64_t off, std::uint64_t size, const std::string& what) const {
    if (off > b_.size() || b_.size() - off < size)
      throw InputError(file_ + ": truncated ELF (" + what + " runs past the end of the file)");
    return std::string_view(b_.data() + off, size);
  }
  std::string cstr(std::string_view table, std::uint64_t off, const char* what) const {
    if (off >= table.size()) throw InputError(file_ + ": bad string offset in ELF " + what);
    const auto end = table.find('\0', off);
    if (end == std::string_view::npos) throw InputError(file_ + ": unterminated string in ELF " + what);
    return std::string(table.substr(off, end - off));
  }

 private:
  const std::string& b_;
  const std::string& file_;
};

struct Section {
  std::string name;
  std::uint32_t name_offset = 0, type = 0, link = 0;
  std::uint64_t offset = 0, size = 0, entsize = 0;
};

struct Attr {
  std::uint8_t attr;
  std::string_view payload;
};

std::vector<Attr> nv_info_records(std::string_view s, const std::string& file, const std::string& section) {
  std::vector<Attr> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto fmt = static_cast<std::uint8_t>(s[i]);
    if (fmt == kEifmtNone) {
      ++i;
      continue;
    }
    if (i + 2 > s.size()) throw InputError(file + ": truncated record in " + section);
    const auto attr = static_cast<std::uint8_t>(s[i + 1]);
    std::size_t len = 0, head = 2;
    switch (fmt) {
      case kEifmtNval: len = 0; break;
      case kEifmtBval: len = 1; break;
      case kEifmtHval: len = 2; break;
      case kEifmtSval:
        if (i + 4 > s.size()) throw InputError(file + ": truncated record in " + section);
        len = static_cast<std::size_t>(static_cast<std::uint8_t>(s[i + 2])) |
              static_cast<std::size_t>(static_cast<std::uint8_t>(s[i + 3])) << 8;
        head = 4;
        break;
      default:
        throw InputError(file + ": unknown record format " + std::to_string(fmt) + " at offset " +
                         std::to_string(i) + " of " + section);
    }
    if (i + head + len > s.size()) throw InputError(file + ": truncated record in " + section);
    out.push_back(Attr{attr, s.substr(i + head, len)});
    i += head + len;
  }
  return out;
}

std::uint32_t u32(std::string_view p, std::size_t off) {
  std::uint32_t v = 0;
  std::memcpy(&v, p.data() + off, sizeof v);
  return v;
}

bool is_function_attr(std::uint8_t a) {
  return a == kEiattrRegcount || a == kEiattrFrameSize || a == kEiattrMinStackSize || a == kEiattrMaxStackSize;
}

struct FunctionAttrs {
  std::optional<std::int64_t> regs, frame, min_stack, max_stack;
  void set(std::uint8_t a, std::int64_t v) {
    if (a == kEiattrRegcount) regs = v;
    else if (a == kEiattrFrameSize) frame = v;
    else if (a == kEiattrMinStackSize) min_stack = v;
    else if (a == kEiattrMaxStackSize) max_stack = v;
  }
};

}  // namespace

std::vector<KernelReport> parse_cubin(const std::string& bytes, const std::string& file) {
  const Reader r(bytes, file);
  if (bytes.size() < 64 || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0)
    throw InputError(file + ": not an ELF file (expected a cubin from nvcc -cubin)");
  if (bytes[4] != 2 || bytes[5] != 1) throw InputError(file + ": not a 64-bit little-endian ELF");
  if (r.get<std::uint16_t>(18, "e_machine") != kEmCuda)
    throw InputError(file + ": ELF machine is not EM_CUDA (190): not a cubin");
  const auto shoff = r.get<std::uint64_t>(0x28, "e_shoff");
  const auto shentsize = r.get<std::uint16_t>(0x3a, "e_shentsize");
  const auto shnum = r.get<std::uint16_t>(0x3c, "e_shnum");
  const auto shstrndx = r.get<std::uint16_t>(0x3e, "e_shstrndx");
  if (shentsize < 64) throw InputError(file + ": bad section header size " + std::to_string(shentsize));
  if (shnum == 0 || shstrndx >= shnum) throw InputError(file + ": ELF has no usable section-name table");

  std::vector<Section> sections(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + std::uint64_t{i} * shentsize;
    Section& s = sections[i];
    s.type = r.get<std::uint32_t>(h + 4, "section header");
    s.offset = r.get<std::uint64_t>(h + 24, "section header");
    s.size = r.get<std::uint64_t>(h + 32, "section header");
    s.link = r.get<std::uint32_t>(h + 40, "section header");
    s.entsize = r.get<std::uint64_t>(h + 56, "section header");
    s.name_offset = r.get<std::uint32_t>(h, "section header");
  }
  const Section& shstr = sections[shstrndx];
  const std::string_view shstrtab = r.span(shstr.offset, shstr.size, "section-name table");
  for (Section& s : sections) s.name = r.cstr(shstrtab, s.name_offset, "section-name table");

  auto data = [&](const Section& s) {
    if (s.type == kShtNobits) return std::string_view{};
    return r.span(s.offset, s.size, "section " + s.name);
  };

  // Symbols: index -> name; kernels are STT_FUNC symbols with STO_CUDA_ENTRY.
  std::vector<std::string> symbols;
  std::vector<std::size_t> kernel_syms;
  for (const Section& s : sections) {
    if (s.type != kShtSymtab) continue;
    if (s.entsize < 24 || s.link >= sections.size()) throw InputError(file + ": malformed ELF symbol table");
    const std::string_view tab = data(s);
    const std::string_view strtab = data(sections[s.link]);
    for (std::uint64_t off = 0; off + 24 <= tab.size(); off += s.entsize) {
      const std::uint32_t name = u32(tab, off);
      const auto info = static_cast<std::uint8_t>(tab[off + 4]);
      const auto other = static_cast<std::uint8_t>(tab[off + 5]);
      symbols.push_back(name == 0 ? std::string{} : r.cstr(strtab, name, "symbol-name table"));
      if ((info & 0xf) == kSttFunc && (other & kStoCudaEntry) != 0) kernel_syms.push_back(symbols.size() - 1);
    }
    break;
  }
  if (kernel_syms.empty()) throw InputError(file + ": no kernel (CUDA entry symbol) found in the cubin");

  std::map<std::string, FunctionAttrs> attrs;  // by function name
  bool reserved_smem = false;
  std::map<std::string, std::int64_t> shared;
  for (const Section& s : sections) {
    if (s.name == ".nv.info" || s.name.starts_with(".nv.info.")) {
      const std::string owner = s.name.size() > 9 ? s.name.substr(9) : std::string{};
      for (const Attr& a : nv_info_records(data(s), file, s.name)) {
        if (!is_function_attr(a.attr)) continue;
        if (a.payload.size() == 8) {
          const std::uint32_t sym = u32(a.payload, 0);
          if (sym >= symbols.size())
            throw InputError(file + ": " + s.name + " names symbol " + std::to_string(sym) + " of " +
                             std::to_string(symbols.size()));
          attrs[symbols[sym]].set(a.attr, u32(a.payload, 4));
        } else if (a.payload.size() == 4 && !owner.empty()) {
          attrs[owner].set(a.attr, u32(a.payload, 0));
        }
      }
    } else if (s.name.starts_with(".nv.shared.reserved.")) {
      reserved_smem = true;
    } else if (s.name.starts_with(".nv.shared.")) {
      shared[s.name.substr(11)] = static_cast<std::int64_t>(s.size);
    }
  }

  std::vector<KernelReport> out;
  for (const std::size_t sym : kernel_syms) {
    KernelReport k;
    k.target = Target::sm90;
    k.input = file;
    k.stem = file_stem(file);
    k.name = symbols[sym];
    const FunctionAttrs& f = attrs[k.name];
    if (!f.regs) throw InputError(file + ": kernel " + k.name + " has no EIATTR_REGCOUNT record");
    k.vgpr = *f.regs;
    k.frame = f.frame.value_or(0);
    k.scratch = std::max({k.frame, f.min_stack.value_or(0), f.max_stack.value_or(0)});
    if (const auto sh = shared.find(k.name); sh != shared.end())
      k.lds = reserved_smem ? std::max<std::int64_t>(0, sh->second - 1024) : sh->second;
    out.push_back(std::move(k));
  }
  return out;
}

namespace {

std::optional<std::int64_t> number_before(std::string_view line, std::string_view suffix) {
  const auto at = line.find(suffix);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t b = at;
  while (b > 0 && line[b - 1] == ' ') --b;
  std::size_t e = b;
  while (b > 0 && line[b - 1] >= '0' && line[b - 1] <= '9') --b;
  if (b == e) return std::nullopt;
  std::int64_t v = 0;
  std::from_chars(line.data() + b, line.data() + e, v);
  return v;
}

std::string quoted(std::string_view line, std::size_t from) {
  const auto a = line.find('\'', from);
  if (a == std::string_view::npos) return {};
  const auto b = line.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return std::string(line.substr(a + 1, b - a - 1));
}

}  // namespace

std::map<std::string, PtxasFunction> parse_ptxas_log(const std::string& text, const std::string& file) {
  std::map<std::string, PtxasFunction> out;
  std::string entry;       // the entry function being compiled (Used ... lines)
  std::string properties;  // the function whose properties line comes next
  bool skip = false;       // compiling for another arch
  std::size_t ln = 0, pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line(text.data() + pos, nl - pos);
    pos = nl + 1;
    ++ln;
    if (const auto at = line.find("Compiling entry function"); at != std::string_view::npos) {
      entry = quoted(line, at);
      if (entry.empty()) throw InputError(where(file, ln) + ": cannot read the function name");
      const auto arch_at = line.find(" for ", at);
      const std::string arch = arch_at == std::string_view::npos ? std::string{} : quoted(line, arch_at);
      skip = !arch.empty() && !arch.starts_with("sm_90");
      properties.clear();
    } else if (const auto fp = line.find("Function properties for "); fp != std::string_view::npos) {
      properties = std::string(line.substr(fp + 24));
      while (!properties.empty() && (properties.back() == '\r' || properties.back() == ' ')) properties.pop_back();
      if (properties.empty()) throw InputError(where(file, ln) + ": cannot read the function name");
    } else if (line.find("bytes spill stores") != std::string_view::npos) {
      if (properties.empty())
        throw InputError(where(file, ln) + ": spill counts without a 'Function properties for' line before them");
      if (!skip) {
        PtxasFunction& f = out[properties];
        f.stack_frame = number_before(line, "bytes stack frame");
        f.spill_stores = number_before(line, "bytes spill stores");
        f.spill_loads = number_before(line, "bytes spill loads");
        if (!f.spill_stores || !f.spill_loads) throw InputError(where(file, ln) + ": cannot read the spill counts");
      }
      properties.clear();
    } else if (line.find(": Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
      if (entry.empty()) continue;  // a device function's line: not needed
      if (!skip) {
        PtxasFunction& f = out[entry];
        f.registers = number_before(line, "registers");
        f.smem = number_before(line, "bytes smem").value_or(0);
        if (!f.registers) throw InputError(where(file, ln) + ": cannot read the register count");
      }
    }
  }
  return out;
}

void apply_ptxas_log(std::vector<KernelReport>& kernels, const std::map<std::string, PtxasFunction>& log,
                     const std::string& log_file) {
  for (KernelReport& k : kernels) {
    const auto it = log.find(k.name);
    if (it == log.end()) continue;
    const PtxasFunction& f = it->second;
    k.spill_stores = f.spill_stores;
    k.spill_loads = f.spill_loads;
    if (f.registers && k.vgpr && *f.registers != *k.vgpr)
      k.errors.push_back(log_file + " says " + std::to_string(*f.registers) + " registers, the cubin " +
                         std::to_string(*k.vgpr) + ": stale log?");
    if (f.smem && *f.smem != k.lds)
      k.errors.push_back(log_file + " says " + std::to_string(*f.smem) + " bytes smem, the cubin " +
                         std::to_string(k.lds) + ": stale log?");
  }
}

}  // namespace fly::regreport
