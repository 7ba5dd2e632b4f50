// fly_bench --tune=<table.tsv>: every sm90a variant on every tuning shape, the fastest per
// (ab, d, shape) written as a tuning table (src/dispatch/tuning/sm90a.tsv is its committed copy).
// Variants run through their launch functions directly: fly_gemm would run the one it selects.
// Timing per variant and shape: one warm-up and one probe call, then as many timed calls as fit in
// ~100 ms (3 to 50), median of their GPU times (gpu_timer.cuh: the host's enqueue cost left out).
// A variant whose probe is over twice the best median so far keeps its probe as its time: it
// cannot win, and slow variants on large shapes would cost seconds each. Every variant's D is
// checked against cuBLASLt's promoting fp32 result (gemm_check.cuh) before it may enter the table:
// a wrong variant is reported and fails the run, whatever its speed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "fly/fly.h"
#include "tuning_provenance.hpp"
#include "gemm_check.cuh"
#include "gemm_cuda_problem.cuh"
#include "gemm/gemm_registry.hpp"
#include "gemm_shapes.hpp"
#include "gemm_tune.hpp"

namespace fly::bench {
namespace {

using dispatch::GemmProblem;
using dispatch::GemmVariant;
using dispatch::Target;

constexpr double kVariantBudgetSeconds = 0.1;  // timed calls per variant and shape
constexpr int kMinReps = 3;                    // fewer fit the budget: the probe is the time
constexpr int kMaxReps = 50;
constexpr double kHopeless = 2.0;              // probe / best median beyond which a variant cannot win

struct Measured {
  const GemmVariant* variant;
  double seconds;
};

// The GEMM of `p`'s buffer set `set`: D = A B^T, scales from the device, no C.
GemmProblem gemm_problem(const Problem& p, int set) {
  GemmProblem g{};
  g.m = p.s.m;
  g.n = p.s.n;
  g.k = p.s.k;
  g.lda = g.ldb = p.s.k;
  g.ldd = p.s.n;
  g.a = g.b = p.ab;
  g.c = g.d = p.d;
  g.alpha = 1.0f;
  g.A = p.a[size_t(set)];
  g.B = p.b[size_t(set)];
  g.D = p.dd[size_t(set)];
  g.scale_a = p.scales;
  g.scale_b = p.scales + 1;
  return g;
}

// The error the last launches left behind, if any; `sticky`: the context is lost (a kernel fault),
// nothing more can run. Launch-time errors are reported by the launch functions themselves.
cudaError_t pending_error(bool* sticky) {
  cudaError_t e = cudaDeviceSynchronize();
  *sticky = e != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess;
  if (e == cudaSuccess) e = cudaGetLastError();
  return e;
}

// Seconds per call of `v` on `p`, or a negative value when it could not run (reason printed).
double time_variant(Problem& p, const GemmVariant& v, cudaStream_t stream, GpuTimer& timer, double best,
                    bool* device_lost) {
  std::string failure;
  auto call = [&](int set) {
    if (!failure.empty()) return;
    if (v.launch(gemm_problem(p, set), stream) != FLY_STATUS_SUCCESS) {
      failure = fly_last_error();
      if (failure.empty()) failure = "launch failed";
    }
  };
  double seconds = gpu_seconds(p, timer, 1, call, /*warmup=*/1);
  if (failure.empty()) {
    if (cudaError_t e = pending_error(device_lost); e != cudaSuccess) failure = cudaGetErrorString(e);
  }
  if (failure.empty() && !(best > 0 && seconds > kHopeless * best)) {
    int const reps = int(std::min<double>(kMaxReps, kVariantBudgetSeconds / std::max(seconds, 1e-7)));
    if (reps >= kMinReps) seconds = gpu_seconds(p, timer, reps, call, /*warmup=*/0);
    if (seconds < 0 && failure.empty()) failure = "no timing (a CUDA error, or the stream hold gave up)";
    if (cudaError_t e = pending_error(device_lost); failure.empty() && e != cudaSuccess) failure = cudaGetErrorString(e);
  }
  if (!failure.empty()) {
    std::fprintf(stderr, "fly_bench --tune: skipping %s: %s\n", v.name, failure.c_str());
    return -1.0;
  }
  return seconds;
}

std::string shape_text(Shape s) { return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k); }

std::string us_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  return buf;
}

std::string header(const cudaDeviceProp& prop, const std::string& command, size_t variants) {
  return tuning_provenance("GEMM", "--tune", "TUNE=1", "docs/gemm.md", prop, command, variants) +
         "#\n"
         "# One entry a line, fields separated by blanks, '#' starts a comment:\n"
         "#   ab  d  m  n  k  variant\n"
         "# A call uses the entry of its dtypes nearest to its shape (sum of |log2| ratios over m, n, k)\n"
         "# when each of m, n, k is within a factor 2 of it; failing that, m within 2 and m x n within 4;\n"
         "# failing that and for m <= 32, m alone within 2 (those two refused when they pad the call over\n"
         "# 1.25x the least padded variant). Only when the variant is compiled in and eligible for the\n"
         "# call; otherwise the heuristic. Comments: the median GPU time per call (behind a held stream, up\n"
         "# to 50 calls, inputs rotated beyond L2), the runner-up, how many variants ran.\n";
}

// The (ab, d) pairs the variants compute, in registry order.
std::vector<std::pair<fly_dtype_t, fly_dtype_t>> dtype_pairs(const std::vector<const GemmVariant*>& variants) {
  std::vector<std::pair<fly_dtype_t, fly_dtype_t>> pairs;
  for (const GemmVariant* v : variants) {
    if (std::find(pairs.begin(), pairs.end(), std::pair{v->ab_type, v->d_type}) == pairs.end()) {
      pairs.emplace_back(v->ab_type, v->d_type);
    }
  }
  return pairs;
}

}  // namespace

int run_gemm_tuning(const std::string& path, const std::string& command) {
  int device = 0;
  cudaDeviceProp prop{};
  if (!check(cudaGetDevice(&device), "cudaGetDevice") || !check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties")) {
    return 1;
  }
  if (prop.major != 9 || prop.minor != 0) {
    std::fprintf(stderr, "fly_bench --tune: %s is sm_%d%d; the sm90a variants need compute capability 9.0\n", prop.name,
                 prop.major, prop.minor);
    return 1;
  }
  std::vector<const GemmVariant*> variants;
  for (const GemmVariant& v : dispatch::gemm_variants()) {
    if (v.target == Target::sm90a && v.launch != nullptr) variants.push_back(&v);
  }
  if (variants.empty()) {
    std::fprintf(stderr, "fly_bench --tune: no sm90a GEMM variant is compiled in\n");
    return 1;
  }
  // Written beside the target and renamed at the end: a failed run leaves the old table intact.
  std::string const tmp = path + ".tmp";
  std::ofstream out(tmp);
  if (!out) {
    std::fprintf(stderr, "fly_bench --tune: cannot write %s\n", tmp.c_str());
    return 1;
  }
  out << header(prop, command, variants.size());
  std::printf("fly_bench --tune: %zu sm90a variants on %s, writing %s\n", variants.size(), prop.name, path.c_str());
  std::printf("%-14s %-16s %-56s %10s %8s  %s\n", "ab -> d", "m x n x k", "fastest", "time", "TFLOP/s", "heuristic's pick");

  cudaStream_t stream;
  if (!check(cudaStreamCreate(&stream), "cudaStreamCreate")) return 1;
  GpuTimer timer(stream);  // one host-mapped flag and event pair for the whole run
  int entries = 0;
  int status = 0;
  for (auto [ab, d] : dtype_pairs(variants)) {
    std::string const types = std::string(fly_dtype_string(ab)) + " " + fly_dtype_string(d);
    out << "\n# " << fly_dtype_string(ab) << " x " << fly_dtype_string(ab) << " -> " << fly_dtype_string(d) << "\n";
    for (Shape const& s : kTuneShapes) {
      if (skip_shape(ab, s)) continue;
      Problem p(s, ab, d);
      if (!p.ok) {
        status = 1;
        break;
      }
      GemmProblem const probe = gemm_problem(p, 0);
      int const align = dispatch::gemm_alignment_elems(probe);
      const GemmReference reference(p, stream);
      std::vector<Measured> times;
      bool device_lost = false;
      double best = 0.0;
      for (const GemmVariant* v : variants) {
        if (v->ab_type != ab || v->d_type != d || align % std::max(v->align_elems, 1) != 0) continue;
        double const t = time_variant(p, *v, stream, timer, best, &device_lost);
        if (device_lost) break;
        if (t < 0) continue;
        // set 0 once more, then its D against the reference: a wrong variant never enters the table
        std::string wrong = v->launch(probe, stream) == FLY_STATUS_SUCCESS ? reference.verify(p.dd[0], stream)
                                                                           : std::string(fly_last_error());
        if (!wrong.empty()) {
          std::fprintf(stderr, "fly_bench --tune: %s on %s: %s\n", v->name, shape_text(s).c_str(), wrong.c_str());
          status = 1;
          continue;
        }
        times.push_back({v, t});
        if (best == 0.0 || t < best) best = t;
      }
      if (device_lost) {
        std::fprintf(stderr, "fly_bench --tune: the CUDA context is lost; %s is left as it was\n", path.c_str());
        status = 1;
        break;
      }
      std::sort(times.begin(), times.end(), [](const Measured& x, const Measured& y) { return x.seconds < y.seconds; });
      char dims[64];
      std::snprintf(dims, sizeof dims, "%-8s %-4s %5lld %5lld %5lld", fly_dtype_string(ab), fly_dtype_string(d),
                    (long long)s.m, (long long)s.n, (long long)s.k);
      if (times.empty()) {
        out << "# " << dims << ": no variant ran\n";
        std::printf("%-14s %-16s none ran\n", types.c_str(), shape_text(s).c_str());
        continue;
      }
      const Measured& win = times[0];
      out << dims << "  " << win.variant->name << "  # " << us_text(win.seconds);
      if (times.size() > 1) {
        char slower[32];
        std::snprintf(slower, sizeof slower, " (+%.1f%%)", (times[1].seconds / win.seconds - 1.0) * 100.0);
        out << ", runner-up " << times[1].variant->name << " " << us_text(times[1].seconds) << slower;
      }
      out << ", " << times.size() << " measured\n";
      ++entries;
      // The heuristic alone (no tables) on the same problem: what the table changes.
      const GemmVariant* h = dispatch::select_gemm_variant(dispatch::gemm_variants(), probe, Target::sm90a, nullptr);
      std::string verdict = "none";
      if (h == win.variant) {
        verdict = "the same";
      } else if (h != nullptr) {
        auto it = std::find_if(times.begin(), times.end(), [&](const Measured& m) { return m.variant == h; });
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2fx slower", it != times.end() ? it->seconds / win.seconds : 0.0);
        verdict = std::string(h->name) + ", " + (it != times.end() ? buf : "did not run");
      }
      std::printf("%-14s %-16s %-56s %10s %8.1f  %s\n", types.c_str(), shape_text(s).c_str(), win.variant->name,
                  us_text(win.seconds).c_str(), p.flops() / win.seconds * 1e-12, verdict.c_str());
      if (std::getenv("FLY_TUNE_ALL") != nullptr)  // every variant's time, for comparing kernels
        for (const Measured& m : times)
          std::printf("    %-56s %10s %8.1f\n", m.variant->name, us_text(m.seconds).c_str(), p.flops() / m.seconds * 1e-12);
      std::fflush(stdout);
    }
    if (status != 0) break;
  }
  cudaStreamDestroy(stream);
  out.close();
  if (status != 0 || !out) {
    std::fprintf(stderr, "fly_bench --tune: failed; %s is left as it was (partial table in %s)\n", path.c_str(), tmp.c_str());
    return status != 0 ? status : 1;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "fly_bench --tune: cannot rename %s to %s\n", tmp.c_str(), path.c_str());
    return 1;
  }
  std::printf("fly_bench --tune: wrote %d entries to %s\n", entries, path.c_str());
  return 0;
}

}  // namespace fly::bench
