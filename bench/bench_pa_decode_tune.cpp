// fly_bench --tune-pa=<table.tsv>: every compiled sm90a paged-decode variant on every bench shape
// (pa_decode_shapes.hpp) in each cache layout, the fastest per shape written as a tuning table
// (src/dispatch/tuning/pa_decode_sm90a.tsv is its committed copy; docs/pa-decode.md "Tuning table").
// Each variant runs through fly_pa_decode on a handle whose registry is that variant alone and
// which has no table: the dispatcher's own eligibility (a variant that cannot run a shape is left
// out) and its own split plan for that variant, so what is measured is what a tuned call runs. Per
// shape the host reference is computed once and every variant's output is checked against it
// before it is timed (bench_pa_decode_cuda.cu, measure_pa_decode): a wrong variant is reported,
// never enters the table, and fails the run. Times: GPU time per call in a replayed graph of 20
// calls, median of 30 replays, as fly_bench's rows. A shape only one variant can run gets a comment,
// not an entry: the ranking already picks it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "fly/fly.h"
#include "tuning_provenance.hpp"
#include "handle.hpp"
#include "pa_decode/pa_decode_registry.hpp"
#include "pa_decode_measure.hpp"
#include "pa_decode_shapes.hpp"
#include "pa_decode_tune.hpp"
#include "read_ceiling.cuh"

namespace fly::bench {
namespace {

using dispatch::PaDecodeVariant;
using dispatch::Target;

struct Measured {
  const PaDecodeVariant* variant;
  double seconds;
  std::string splits;  // "splits=N", from the explanation
};

const char* layout_name(fly_kv_layout_t l) { return l == FLY_KV_LAYOUT_VLLM ? "vllm" : l == FLY_KV_LAYOUT_HND ? "hnd" : "nhd"; }

// "splits=4" out of "<variant> splits=4: why".
std::string splits_of(const std::string& line) {
  const size_t at = line.find(" splits=");
  if (at == std::string::npos) return "";
  return line.substr(at + 1, line.find(':', at) - at - 1);
}

// The variant an explanation names ("<variant> splits=N: ..."), or "none".
std::string variant_of(const std::string& line) {
  const size_t space = line.find(' ');
  return space == std::string::npos ? "none" : line.substr(0, space);
}

double of_hbm(const PaShape& s, double seconds) {
  const double bytes = double(s.seqs) * double(s.ctx) * double(s.kv_heads) * double(kPaHeadDim) * 2.0 *
                       (s.kv == FLY_DTYPE_E4M3FN ? 1.0 : 2.0);
  return bytes / seconds * 1e-12 / read_ceiling_tbs();
}

std::string read_rate_text() {
  char buf[48];
  std::snprintf(buf, sizeof buf, read_ceiling_measured() ? "%.2f TB/s" : "%.2f TB/s, not measured: the H200's",
                read_ceiling_tbs());
  return buf;
}

std::string time_text(const PaShape& s, double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f us (of_hbm %.2f)", seconds * 1e6, of_hbm(s, seconds));
  return buf;
}

std::string header(const cudaDeviceProp& prop, const std::string& command, size_t variants) {
  return tuning_provenance("paged-decode", "--tune-pa", "TUNE_PA=1", "docs/pa-decode.md", prop, command, variants) +
         "#\n"
         "# One entry a line, fields separated by blanks, '#' starts a comment:\n"
         "#   kv  q  d  block  layout  seqs  rows  hkv  ctx  variant\n"
         "# rows: query rows per kv head (q_len x num_q_heads / num_kv_heads); ctx: max_seq_len. A call uses\n"
         "# the entry of its kv, q, d, block and layout nearest to its (seqs, rows, hkv, ctx) (sum of |log2|\n"
         "# ratios) when each of the four is within a factor 2 of it, and only when the variant is compiled\n"
         "# in and eligible for the call; otherwise the dispatcher's ranking. Comments: GPU time per call in\n"
         "# a replayed graph of 20 calls (median of 30 replays) with the variant's split plan, the fraction\n"
         "# of the HBM read rate measured in the same run (" + read_rate_text() + "), the runner-up, how many\n"
         "# variants ran.\n";
}

// A handle on the current device whose dispatcher sees `variants` and no tuning table.
fly_handle_t restricted_handle(std::span<const PaDecodeVariant> variants) {
  fly_handle_t h = nullptr;
  if (fly_create(&h) != FLY_STATUS_SUCCESS) return nullptr;
  h->pa_decode_variants = variants;
  h->pa_decode_tuning = {};
  return h;
}

}  // namespace

int run_pa_decode_tuning(const std::string& path, const std::string& command) {
  for (const char* name : {"FLY_PA_DECODE_VARIANT", "FLY_PA_DECODE_BLOCKS_PER_SM"}) {
    if (std::getenv(name) != nullptr) {
      std::fprintf(stderr, "fly_bench --tune-pa: unset %s: it would change what the dispatcher runs\n", name);
      return 2;
    }
  }
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    std::fprintf(stderr, "fly_bench --tune-pa: no usable CUDA device\n");
    return 1;
  }
  if (prop.major != 9 || prop.minor != 0) {
    std::fprintf(stderr, "fly_bench --tune-pa: %s is sm_%d%d; the sm90a variants need compute capability 9.0\n",
                 prop.name, prop.major, prop.minor);
    return 1;
  }
  std::vector<const PaDecodeVariant*> variants;
  for (const PaDecodeVariant& v : dispatch::pa_decode_variants()) {
    if (v.target == Target::sm90a && v.launch != nullptr) variants.push_back(&v);
  }
  if (variants.empty()) {
    std::fprintf(stderr, "fly_bench --tune-pa: no sm90a paged-decode variant is compiled in\n");
    return 1;
  }
  // One handle per variant (timed), then the whole registry without a table (explained only: the
  // ranking's pick, for the summary).
  std::vector<fly_handle_t> handles;
  for (const PaDecodeVariant* v : variants) handles.push_back(restricted_handle(std::span(v, 1)));
  handles.push_back(restricted_handle(dispatch::pa_decode_variants()));
  auto release = [&] {
    for (fly_handle_t h : handles) fly_destroy(h);  // null-safe
  };
  unsigned backend = 0;
  for (fly_handle_t h : handles) {
    if (h == nullptr || fly_handle_backend(h, &backend) != FLY_STATUS_SUCCESS || backend != FLY_BACKEND_CUDA) {
      std::fprintf(stderr, "fly_bench --tune-pa: fly_create gave no CUDA handle (%s)\n", fly_last_error());
      release();
      return 1;
    }
  }
  // Written beside the target and renamed at the end: a failed run leaves the old table intact.
  const std::string tmp = path + ".tmp";
  std::ofstream out(tmp);
  if (!out) {
    std::fprintf(stderr, "fly_bench --tune-pa: cannot write %s\n", tmp.c_str());
    release();
    return 1;
  }
  out << header(prop, command, variants.size());
  std::printf("fly_bench --tune-pa: %zu sm90a variants on %s, writing %s\n", variants.size(), prop.name, path.c_str());
  std::printf("%-34s %-44s %24s  %s\n", "kv layout seqs x ctx, heads, q_len", "fastest", "time", "ranking's pick");

  int entries = 0, status = 0;
  const bool tune_all = std::getenv("FLY_TUNE_ALL") != nullptr;
  for (fly_kv_layout_t layout : {FLY_KV_LAYOUT_NHD, FLY_KV_LAYOUT_HND, FLY_KV_LAYOUT_VLLM}) {
    for (fly_dtype_t kv : {FLY_DTYPE_BF16, FLY_DTYPE_E4M3FN}) {
      out << "\n# " << fly_dtype_string(kv) << " cache, bf16 queries, head_dim " << kPaHeadDim << ", blocks of " << kPaBlock
          << ", " << layout_name(layout) << "\n";
      for (PaShape s : pa_bench_shapes()) {
        if (s.kv != kv) continue;
        s.layout = layout;
        char key[96];
        std::snprintf(key, sizeof key, "%-6s  bf16  %lld  %lld  %-4s  %4lld  %2lld  %2lld  %6lld", fly_dtype_string(kv),
                      (long long)kPaHeadDim, (long long)kPaBlock, layout_name(layout), (long long)s.seqs,
                      (long long)(s.q_len * s.q_heads / s.kv_heads), (long long)s.kv_heads, (long long)s.ctx);
        char row[96];
        std::snprintf(row, sizeof row, "%s %s %lldx%lld, %lld/%lld, q%lld", fly_dtype_string(kv), layout_name(layout),
                      (long long)s.seqs, (long long)s.ctx, (long long)s.q_heads, (long long)s.kv_heads, (long long)s.q_len);
        std::vector<PaHandleResult> results;
        std::string error;
        const bool ok = measure_pa_decode(s, handles, variants.size(), 2, &results, &error);
        if (!ok) {
          std::fprintf(stderr, "fly_bench --tune-pa: %s: %s\n", row, error.c_str());
          status = 1;
          break;
        }
        std::vector<Measured> times;
        std::vector<const PaDecodeVariant*> eligible;
        for (size_t i = 0; i < variants.size(); ++i) {
          const PaHandleResult& r = results[i];
          if (!r.eligible) continue;
          eligible.push_back(variants[i]);
          if (!r.error.empty()) {  // a wrong output or a failed call: reported, never in the table
            std::fprintf(stderr, "fly_bench --tune-pa: %s on %s: %s\n", variants[i]->name, row, r.error.c_str());
            status = 1;
            continue;
          }
          if (r.seconds > 0) times.push_back({variants[i], r.seconds, splits_of(r.line)});
        }
        if (eligible.size() < 2) {
          out << "# " << key << ": " << (eligible.empty() ? std::string("no variant runs it") : std::string("only ") + eligible[0]->name + " runs it") << "\n";
          continue;
        }
        std::sort(times.begin(), times.end(), [](const Measured& x, const Measured& y) { return x.seconds < y.seconds; });
        if (times.empty()) {
          out << "# " << key << ": no variant was measured\n";
          std::printf("%-34s none measured\n", row);
          continue;
        }
        const Measured& win = times[0];
        out << key << "  " << win.variant->name << "  # " << time_text(s, win.seconds) << " " << win.splits;
        if (times.size() > 1) {
          char slower[32];
          std::snprintf(slower, sizeof slower, " (+%.1f%%)", (times[1].seconds / win.seconds - 1.0) * 100.0);
          out << ", runner-up " << times[1].variant->name << " " << time_text(s, times[1].seconds) << slower;
        }
        out << ", " << times.size() << " measured\n";
        ++entries;
        // The ranking alone (no table) on the same problem: what the table changes.
        const std::string ranked = variant_of(results.back().line);
        std::string verdict = ranked;
        if (ranked == win.variant->name) {
          verdict = "the same";
        } else {
          auto it = std::find_if(times.begin(), times.end(), [&](const Measured& m) { return ranked == m.variant->name; });
          char buf[32];
          std::snprintf(buf, sizeof buf, ", %.2fx slower", it != times.end() ? it->seconds / win.seconds : 0.0);
          verdict += it != times.end() ? buf : ", not measured";
        }
        std::printf("%-34s %-44s %24s  %s\n", row, win.variant->name, time_text(s, win.seconds).c_str(), verdict.c_str());
        if (tune_all)  // every measured variant, fastest first (FLY_TUNE_ALL=1, as the GEMM tuner)
          for (const Measured& m : times)
            std::printf("    %-48s %24s %s\n", m.variant->name, time_text(s, m.seconds).c_str(), m.splits.c_str());
        std::fflush(stdout);
      }
      if (status != 0) break;
    }
    if (status != 0) break;
  }
  release();
  out.close();
  if (status != 0 || !out) {
    std::fprintf(stderr, "fly_bench --tune-pa: failed; %s is left as it was (partial table in %s)\n", path.c_str(),
                 tmp.c_str());
    return status != 0 ? status : 1;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "fly_bench --tune-pa: cannot rename %s to %s\n", tmp.c_str(), path.c_str());
    return 1;
  }
  std::printf("fly_bench --tune-pa: wrote %d entries to %s\n", entries, path.c_str());
  return 0;
}

}  // namespace fly::bench
