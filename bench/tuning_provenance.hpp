// The first lines of a tuning table fly_bench writes (`--tune`, `--tune-pa`): what the table is,
// the device, time, library version and variant count it was measured with, the command, and how
// to regenerate it. Shared by both ops' tuners.
#pragma once

#include <cuda_runtime.h>

#include <ctime>
#include <string>

#include "fly/fly.h"

namespace fly::bench {

inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

// op: "GEMM", "paged-decode"; flag: "--tune"; regenerate: "TUNE=1"; doc: "docs/gemm.md".
inline std::string tuning_provenance(const std::string& op, const std::string& flag, const std::string& regenerate,
                                     const std::string& doc, const cudaDeviceProp& prop, const std::string& command,
                                     size_t variants) {
  return "# libfly " + op + " tuning table for sm90a: the fastest measured variant per problem shape.\n"
         "# Written by fly_bench " + flag + " on " + std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + "), " + utc_now() + ", libfly " FLY_VERSION_STRING ", " +
         std::to_string(variants) + " sm90a variants.\n"
         "#   " + command + "\n"
         "# Do not edit: regenerate on the H200 with `" + regenerate + " bash tools/h200_check.sh` (" + doc + ").\n";
}

}  // namespace fly::bench
