#include "gfx942_isa.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>

namespace fly::regreport {
namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

std::int64_t to_int(std::string_view v, const std::string& file, std::size_t line, std::string_view key) {
  v = trim(v);
  std::int64_t out = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc{} || p != v.data() + v.size() || out < 0)
    throw InputError(where(file, line) + ": expected a non-negative integer for " + std::string(key) +
                     ", got '" + std::string(v) + "'");
  return out;
}

struct Descriptor {
  std::size_t line = 0;
  std::optional<std::int64_t> next_free_vgpr, accum_offset, lds, scratch;
  bool dynamic_stack = false;
};

struct Metadata {
  std::size_t line = 0;
  std::string name;
  std::optional<std::int64_t> vgpr_count, agpr_count, sgpr_count, vgpr_spill, sgpr_spill, lds, scratch;
  bool dynamic_stack = false;
};

struct KernelInfo {
  std::optional<std::int64_t> num_vgprs, num_agprs;
};

struct Body {
  std::size_t call_line = 0;  // 0: no call
  std::string call;
};

}  // namespace

std::vector<KernelReport> parse_gfx942_isa(const std::string& text, const std::string& file) {
  std::vector<std::string> order;  // kernels, in descriptor order
  std::map<std::string, Descriptor> descriptors;
  std::map<std::string, KernelInfo> infos;
  std::map<std::string, Body> bodies;
  std::vector<std::string> functions;  // names declared with .type NAME,@function
  std::vector<Metadata> metadata;

  std::string in_descriptor;      // kernel whose .amdhsa_kernel block is open
  std::size_t descriptor_line = 0;
  std::string in_body;            // function whose body is being read
  std::string info_for;           // kernel whose "; Kernel info:" comment is being read
  std::string last_descriptor;
  bool in_metadata = false, in_kernels = false;
  std::size_t metadata_line = 0, item_column = 0, dash_column = 0;

  std::size_t ln = 0, pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view raw(text.data() + pos, nl - pos);
    pos = nl + 1;
    ++ln;
    const std::string_view line = trim(raw);

    if (in_metadata) {
      if (line == ".end_amdgpu_metadata") {
        in_metadata = false;
        continue;
      }
      if (line.empty() || line == "---" || line == "...") continue;
      const auto indent = raw.find_first_not_of(" \t");
      if (indent == 0) {  // a top-level YAML key
        in_kernels = line.starts_with("amdhsa.kernels:");
        continue;
      }
      if (!in_kernels) continue;
      std::string_view content = line;
      if (line.starts_with("- ") && (metadata.empty() || indent == dash_column)) {
        dash_column = indent;
        metadata.push_back(Metadata{});
        metadata.back().line = ln;
        item_column = indent + 2;
        content = trim(line.substr(2));
      } else if (metadata.empty() || indent != item_column) {
        continue;  // nested (.args) or other lists
      }
      if (!content.starts_with('.')) continue;
      const auto colon = content.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string_view key = content.substr(0, colon);
      const std::string_view value = trim(content.substr(colon + 1));
      Metadata& m = metadata.back();
      if (key == ".name") m.name = std::string(unquote(value));
      else if (key == ".vgpr_count") m.vgpr_count = to_int(value, file, ln, key);
      else if (key == ".agpr_count") m.agpr_count = to_int(value, file, ln, key);
      else if (key == ".sgpr_count") m.sgpr_count = to_int(value, file, ln, key);
      else if (key == ".vgpr_spill_count") m.vgpr_spill = to_int(value, file, ln, key);
      else if (key == ".sgpr_spill_count") m.sgpr_spill = to_int(value, file, ln, key);
      else if (key == ".group_segment_fixed_size") m.lds = to_int(value, file, ln, key);
      else if (key == ".private_segment_fixed_size") m.scratch = to_int(value, file, ln, key);
      else if (key == ".uses_dynamic_stack") {
        if (value != "true" && value != "false")
          throw InputError(where(file, ln) + ": expected true or false for .uses_dynamic_stack, got '" +
                           std::string(value) + "'");
        m.dynamic_stack = value == "true";
      }
      continue;
    }

    if (!in_descriptor.empty()) {
      if (line == ".end_amdhsa_kernel") {
        last_descriptor = in_descriptor;
        in_descriptor.clear();
        continue;
      }
      if (line.starts_with(".amdhsa_kernel"))
        throw InputError(where(file, ln) + ": .amdhsa_kernel inside the descriptor of " + in_descriptor +
                         " opened at line " + std::to_string(descriptor_line));
      const auto sp = line.find_first_of(" \t");
      if (sp == std::string_view::npos) continue;
      const std::string_view key = line.substr(0, sp);
      const std::string_view value = line.substr(sp + 1);
      Descriptor& d = descriptors[in_descriptor];
      if (key == ".amdhsa_next_free_vgpr") d.next_free_vgpr = to_int(value, file, ln, key);
      else if (key == ".amdhsa_accum_offset") d.accum_offset = to_int(value, file, ln, key);
      else if (key == ".amdhsa_group_segment_fixed_size") d.lds = to_int(value, file, ln, key);
      else if (key == ".amdhsa_private_segment_fixed_size") d.scratch = to_int(value, file, ln, key);
      else if (key == ".amdhsa_uses_dynamic_stack") d.dynamic_stack = to_int(value, file, ln, key) != 0;
      continue;
    }

    if (!info_for.empty()) {
      if (!line.starts_with(';')) {
        info_for.clear();
      } else {
        const std::string_view c = trim(line.substr(1));
        const auto colon = c.find(':');
        if (colon != std::string_view::npos) {
          const std::string_view key = c.substr(0, colon);
          const std::string_view value = c.substr(colon + 1);
          if (key == "NumVgprs") infos[info_for].num_vgprs = to_int(value, file, ln, key);
          else if (key == "NumAgprs") infos[info_for].num_agprs = to_int(value, file, ln, key);
        }
        continue;
      }
    }

    if (line == ".amdgpu_metadata") {
      in_metadata = true;
      in_kernels = false;
      metadata_line = ln;
      in_body.clear();
      continue;
    }
    if (line.starts_with(".amdhsa_kernel ") || line.starts_with(".amdhsa_kernel\t")) {
      in_descriptor = std::string(trim(line.substr(14)));
      if (in_descriptor.empty()) throw InputError(where(file, ln) + ": .amdhsa_kernel without a name");
      if (descriptors.contains(in_descriptor))
        throw InputError(where(file, ln) + ": second descriptor for kernel " + in_descriptor);
      descriptors[in_descriptor].line = ln;
      descriptor_line = ln;
      order.push_back(in_descriptor);
      in_body.clear();
      continue;
    }
    if (line.starts_with("; Kernel info:")) {
      info_for = last_descriptor;
      continue;
    }
    if (line.starts_with(".type")) {
      const std::string_view rest = trim(line.substr(5));
      const auto comma = rest.find(',');
      if (comma != std::string_view::npos && rest.substr(comma + 1).find("@function") != std::string_view::npos)
        functions.emplace_back(trim(rest.substr(0, comma)));
      continue;
    }
    if (line.starts_with(".section") || line.starts_with(".size") || line.starts_with(".Lfunc_end")) {
      in_body.clear();
      continue;
    }
    if (line.empty() || line.starts_with(';')) continue;
    if (raw.front() != ' ' && raw.front() != '\t') {  // a label at column 0
      const auto colon = line.find(':');
      if (colon != std::string_view::npos) {
        const std::string label(line.substr(0, colon));
        if (std::find(functions.begin(), functions.end(), label) != functions.end()) in_body = label;
      }
      continue;
    }
    if (!in_body.empty()) {
      const std::string_view insn = line.substr(0, line.find_first_of(" \t"));
      if ((insn.starts_with("s_swappc") || insn.starts_with("s_setpc")) && bodies[in_body].call_line == 0) {
        bodies[in_body].call_line = ln;
        bodies[in_body].call = std::string(insn);
      }
    }
  }
  if (!in_descriptor.empty())
    throw InputError(where(file, descriptor_line) + ": descriptor of " + in_descriptor +
                     " has no .end_amdhsa_kernel");
  if (in_metadata) throw InputError(where(file, metadata_line) + ": .amdgpu_metadata has no .end_amdgpu_metadata");

  std::map<std::string, const Metadata*> by_name;
  for (const Metadata& m : metadata) {
    if (m.name.empty()) throw InputError(where(file, m.line) + ": kernel metadata entry without .name");
    if (!descriptors.contains(m.name))
      throw InputError(where(file, m.line) + ": metadata for " + m.name + " but no .amdhsa_kernel descriptor");
    by_name[m.name] = &m;
  }
  if (order.empty()) throw InputError(file + ": no kernel (.amdhsa_kernel) found: not gfx942 ISA from clang -S?");

  std::vector<KernelReport> out;
  for (const std::string& name : order) {
    const Descriptor& d = descriptors[name];
    const auto mi = by_name.find(name);
    if (mi == by_name.end())
      throw InputError(where(file, d.line) + ": kernel " + name + " has no .amdgpu_metadata entry");
    const Metadata& m = *mi->second;
    auto need = [&](const std::optional<std::int64_t>& v, const char* key) {
      if (!v) throw InputError(where(file, m.line) + ": kernel " + name + " metadata lacks " + key);
      return *v;
    };
    KernelReport k;
    k.target = Target::gfx942;
    k.input = file;
    k.stem = file_stem(file);
    k.name = name;
    const std::int64_t vgpr_count = need(m.vgpr_count, ".vgpr_count");
    const std::int64_t agpr = m.agpr_count ? *m.agpr_count : infos[name].num_agprs.value_or(0);
    if (agpr > 0 && !d.accum_offset)
      throw InputError(where(file, d.line) + ": kernel " + name + " uses AGPRs but has no .amdhsa_accum_offset");
    // Arch VGPRs: the "; NumVgprs:" comment is exact; without it, .vgpr_count when there are no
    // AGPRs, else the accumulation offset (arch VGPRs rounded up to 4).
    const std::int64_t arch = infos[name].num_vgprs ? *infos[name].num_vgprs : (agpr > 0 ? *d.accum_offset : vgpr_count);
    std::int64_t total = agpr > 0 ? *d.accum_offset + agpr : arch;
    total = std::max({total, vgpr_count, d.next_free_vgpr.value_or(0)});
    k.vgpr = arch;
    k.agpr = agpr;
    k.vgpr_total = total;
    k.sgpr = need(m.sgpr_count, ".sgpr_count");
    k.vgpr_spill = m.vgpr_spill;
    k.sgpr_spill = m.sgpr_spill;
    k.lds = m.lds ? *m.lds : d.lds.value_or(0);
    k.scratch = m.scratch ? *m.scratch : d.scratch.value_or(0);
    k.dynamic_stack = m.dynamic_stack || d.dynamic_stack;
    std::string why;
    if (const auto b = bodies.find(name); b != bodies.end() && b->second.call_line != 0) {
      k.calls = true;
      why = "calls a function (" + b->second.call + " at line " + std::to_string(b->second.call_line) + ")";
    }
    if (k.dynamic_stack) why += std::string(why.empty() ? "" : ", ") + "uses a dynamic stack";
    if (!why.empty()) k.errors.push_back(why + ": device libraries not linked? the counts are meaningless");
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace fly::regreport
