// The core every kernel generator shares (CUTLASS's manifest idea): reading a variant table
// (whitespace-separated columns, comma-separated lists, '#' comments), expanding each row's lists
// into cells, the name filter, and the lines CMake reads back:
//   file <target> <path>          one translation unit per accepted cell
//   reject <name>: <reason>       a cell the op's rules refuse, with why
//   registry <path> <count>       the table of the host-linked variants
// Each op's generator keeps only its cell rules, its translation-unit text and its registry row.
#pragma once

#include <fstream>
#include <functional>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fly::gen {

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Calls row(lineno, columns) for every non-empty line of `table` that has exactly `columns`
// whitespace-separated fields. Returns false (with a message on stderr) when the table cannot be
// read, a row has the wrong number of fields, or row() returns false.
inline bool for_each_row(const std::string& table, size_t columns,
                         const std::function<bool(int, const std::vector<std::string>&)>& row) {
  std::ifstream in(table);
  if (!in) {
    std::cerr << "cannot read " << table << "\n";
    return false;
  }
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::stringstream ss(line);
    std::vector<std::string> fields;
    for (std::string f; ss >> f;) fields.push_back(f);
    if (fields.empty()) continue;
    if (fields.size() != columns) {
      std::cerr << table << ":" << lineno << ": expected " << columns << " columns, found " << fields.size() << "\n";
      return false;
    }
    if (!row(lineno, fields)) return false;
  }
  return true;
}

// Every combination of one item from each comma-separated list, in row-major order.
inline std::vector<std::vector<std::string>> expand(const std::vector<std::string>& lists) {
  std::vector<std::vector<std::string>> cells{{}};
  for (const auto& list : lists) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : cells)
      for (const auto& item : split(list, ',')) {
        next.push_back(prefix);
        next.back().push_back(item);
      }
    cells = std::move(next);
  }
  return cells;
}

// The generator's output: accepted cells (their files, for CMake) and rejected ones (with reasons).
class Emitter {
 public:
  explicit Emitter(const std::string& filter) : keep_(filter) {}
  bool wanted(const std::string& name) const { return std::regex_match(name, keep_); }
  void reject(const std::string& name, const std::string& why) { std::cout << "reject " << name << ": " << why << "\n"; }
  void file(const std::string& target, const std::string& path) { std::cout << "file " << target << " " << path << "\n"; }
  void registry(const std::string& path, size_t count) { std::cout << "registry " << path << " " << count << "\n"; }
  // Runs a cell's rules (`check` returns why the cell is invalid, empty if it is; the layout
  // algebra may throw). True when the cell is accepted; otherwise it is printed as rejected.
  template <class Check>
  bool accept(const std::string& name, Check&& check) {
    std::string why;
    try {
      why = check();
    } catch (const std::exception& e) {
      why = std::string("the layout algebra rejects the tiling: ") + e.what();
    }
    if (why.empty()) return true;
    reject(name, why);
    return false;
  }

 private:
  std::regex keep_;
};

// A kernel's body, compiled by the device pass alone (nvcc defines __CUDA_ARCH__ there, clang's HIP
// __HIP_DEVICE_COMPILE__), as CUTLASS guards its kernels: the host pass then compiles only the
// launch stub and instantiates none of the body's templates (2 of the 10 s of a byte-copy cell's
// nvcc compile, 2 of 16 s a gfx942 cell; the device code is the same). `unused` names the
// kernel's parameters, which the host pass leaves unused.
inline std::string device_only(const std::string& body, const std::vector<std::string>& unused) {
  std::string host;
  for (const auto& u : unused) host += "  (void)" + u + ";\n";
  return "#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)\n" + body + "#else\n" + host + "#endif\n";
}

// "--key value" pairs into `options` (keys without the dashes); false on an unknown key.
inline bool parse_options(int argc, char** argv, std::vector<std::pair<std::string, std::string*>> options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    bool known = false;
    for (auto& [key, value] : options)
      if (argv[i] == "--" + key) {
        *value = argv[i + 1];
        known = true;
      }
    if (!known) {
      std::cerr << "unknown option " << argv[i] << "\n";
      return false;
    }
  }
  return true;
}

}  // namespace fly::gen
