// fly_pa_decode on the GPU: decode-shaped problems (pa_decode_cuda_problem.cuh: head_dim 128,
// blocks of 16 scattered over the pool, NHD, full contexts), each verified against the host
// backend before it is timed. bench/pa_decode_sdpa.py times the peer (PyTorch SDPA, cuDNN) on the
// same shapes; tools/h200_check.sh prints both.
//
// Verification (before timing; a mismatch fails the row and makes fly_bench exit non-zero): out is
// first filled with NaN (0xFFFF), one fly_pa_decode runs on the GPU on set 0, and every element of
// the GPU's output must be finite (so every element was written). The same call also runs on a
// host handle (fly_create_host) on host copies of the data for a subset of the sequences (their q
// rows and block-table rows, the whole K/V pool) and every element of those sequences is compared.
// The subset bounds the host reference's time (kVerifyWork: about 2 s at most): sequences spread
// over the batch: all of them in 9 of the 14 rows, at least 8 (and a quarter) in the others.
// Each is a full-length sequence of the same shape, so the subset takes every code path (split,
// reduce, group, q_len) of the full call; the unchecked sequences are at least finite.
// Tolerance, per element: |gpu - host| <= 1e-2 * max|host| + 2e-2 * |host|. out is bf16 (a rounding
// of 2^-9 relative, within the second term); the host reference accumulates in fp32 in another order
// than the kernel, which may also round the softmax probabilities to bf16 for the P.V product and
// rescale split partials: errors of a few 2^-9 relative per term that average out over thousands of
// tokens, far below 1e-2 of the largest output (the first term; random data gives a fairly flat
// softmax, so outputs are small and the term scales with them). A wrong token, block, head or
// scale moves outputs by about their own size and fails.
//
// Timing: 20 fly_pa_decode calls enqueued back to back on a stream are captured into a CUDA graph
// (input sets rotated through the 20 calls when a set fits in L2, pa_decode_cuda_problem.cuh); the
// graph is replayed 3 times to warm up, then the row's time is the median of 30 replays' GPU time
// (cudaEvents behind a held stream, gpu_timer.cuh: the host's launch cost is not in it) / 20: what
// an engine replaying its decode graph pays per call, launch gaps between the kernels included.
// Counters: us per call, KV_bytes (the K and V bytes a call must read: seqs x ctx x kv heads x
// head_dim x 2 x element size), TBs, of_hbm (TBs / read_TBs, the read-streaming rate this run
// measured on this card, read_ceiling.cuh).
// The label: the variant and split fly_pa_decode_explain names, the input sets, the verified subset.
#include <benchmark/benchmark.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_cli.hpp"
#include "bench_failures.hpp"
#include "fly/fly.h"
#include "gpu_timer.cuh"
#include "pa_decode_cuda_problem.cuh"
#include "pa_decode_measure.hpp"
#include "read_ceiling.cuh"

namespace {

using fly::bench::fail_row;
using fly::bench::GpuTimer;
using fly::bench::kPaHeadDim;
using fly::bench::PaProblem;
using fly::bench::PaShape;

constexpr int kGraphCalls = 20, kWarmupReplays = 3, kReplays = 30;
// The host reference's work: context tokens x query heads x q_len of the verified sequences. It runs
// about 5M a second on one core here (fly_bench's BM_HostPaDecode rows), so at most ~1.7 s.
constexpr int64_t kVerifyWork = int64_t(1) << 23;

float bf16_to_float(uint16_t b) { return float(fly::bfloat16::from_bits(b)); }

// What verify() found: an error message (empty when it passed) and the subset it checked.
struct Verdict {
  std::string error;
  int64_t checked_seqs = 0;
  double max_err = 0, max_ref = 0;  // the largest |gpu - host| and |host| over the checked elements
};

// The host reference of a spread subset of the sequences (set 0): computed once per problem, checked
// against every GPU run of it (`fly_bench --tune-pa` checks each variant against one reference).
struct Reference {
  std::string error;           // empty when it was computed
  std::vector<int64_t> pick;   // the verified sequences
  std::vector<uint16_t> out;   // their outputs, [pick][q_len][q_heads][head_dim]
  double max_ref = 0;          // the largest |host| over them
};

Reference host_reference(PaProblem& p) {
  Reference r;
  const PaShape& s = p.s;
  const size_t esize = size_t(p.kv_esize()), block_bytes = size_t(p.block_elems) * esize;
  const int64_t row = s.q_len * s.q_heads * kPaHeadDim;  // elements of q / out per sequence
  const fly_pa_decode_args a = p.args(0);
  const int64_t per_seq = std::max<int64_t>(1, s.ctx * s.q_heads * s.q_len);
  const int64_t nv = std::clamp<int64_t>(kVerifyWork / per_seq, 1, s.seqs);
  r.pick.resize(static_cast<size_t>(nv));
  for (int64_t k = 0; k < nv; ++k) r.pick[size_t(k)] = nv == 1 ? s.seqs - 1 : k * (s.seqs - 1) / (nv - 1);
  const PaProblem::Set& st = p.set[0];
  // The whole pool (at most 1.07 GB here: one copy beats a cudaMemcpy per scattered block), so the
  // host reads the same block ids through the chosen sequences' rows of the same table.
  const size_t pool_bytes = size_t(p.num_blocks) * block_bytes;
  std::unique_ptr<unsigned char[]> k_pool(new unsigned char[pool_bytes]), v_pool(new unsigned char[pool_bytes]);
  std::vector<int32_t> table(size_t(p.num_blocks)), host_table(size_t(nv * p.blocks_per_seq));
  std::vector<uint16_t> q(size_t(nv * row));
  r.out.resize(q.size());
  if (!p.ok(cudaMemcpy(table.data(), st.tables, table.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy tables") ||
      !p.ok(cudaMemcpy(k_pool.get(), st.k, pool_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy K") ||
      !p.ok(cudaMemcpy(v_pool.get(), st.v, pool_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy V")) {
    r.error = p.error;
    return r;
  }
  for (int64_t k = 0; k < nv; ++k) {
    const int64_t seq = r.pick[size_t(k)];
    if (!p.ok(cudaMemcpy(&q[size_t(k * row)], static_cast<const uint16_t*>(st.q) + seq * row, size_t(row) * 2,
                         cudaMemcpyDeviceToHost), "cudaMemcpy q")) {
      r.error = p.error;
      return r;
    }
    std::copy_n(&table[size_t(seq * p.blocks_per_seq)], p.blocks_per_seq, &host_table[size_t(k * p.blocks_per_seq)]);
  }
  const std::vector<int32_t> lens(static_cast<size_t>(nv), static_cast<int32_t>(s.ctx));
  const float scales[2] = {fly::bench::kPaFp8Scale, fly::bench::kPaFp8Scale};
  fly_pa_decode_args h = a;
  h.num_seqs = nv;
  h.q = q.data(); h.out = r.out.data();
  h.k_cache = k_pool.get(); h.v_cache = v_pool.get();
  h.block_tables = host_table.data(); h.seq_lens = lens.data();
  h.k_scale = p.fp8() ? &scales[0] : nullptr; h.v_scale = p.fp8() ? &scales[1] : nullptr;
  fly_handle_t host = nullptr;
  if (fly_create_host(&host) != FLY_STATUS_SUCCESS) {
    r.error = std::string("fly_create_host: ") + fly_last_error();
    return r;
  }
  size_t ws_bytes = 0;
  std::vector<unsigned char> ws;
  fly_status_t st_host = fly_pa_decode_workspace_size(host, &h, &ws_bytes);
  if (st_host == FLY_STATUS_SUCCESS) {
    ws.resize(ws_bytes);
    st_host = fly_pa_decode(host, &h, ws.empty() ? nullptr : ws.data(), ws.size(), nullptr);
  }
  const std::string host_error = fly_last_error();
  fly_destroy(host);
  if (st_host != FLY_STATUS_SUCCESS) {
    r.error = "fly_pa_decode (host reference): " + host_error;
    return r;
  }
  for (uint16_t b : r.out) r.max_ref = std::max(r.max_ref, double(std::fabs(bf16_to_float(b))));
  if (!(r.max_ref > 0) || !std::isfinite(r.max_ref))
    r.error = "the host reference output is all zero or not finite: the check would prove nothing";
  return r;
}

// One GPU call on set 0 through `gpu`, every element of the reference's sequences compared.
Verdict check(PaProblem& p, const Reference& ref, fly_handle_t gpu, cudaStream_t stream) {
  Verdict v;
  const PaShape& s = p.s;
  const int64_t row = s.q_len * s.q_heads * kPaHeadDim;
  const fly_pa_decode_args a = p.args(0);
  // 1. The GPU: out pre-filled with NaN, so an element the kernel never writes fails the check.
  std::vector<uint16_t> gpu_out(size_t(p.q_elems));
  if (!p.ok(cudaMemset(const_cast<void*>(a.out), 0xFF, gpu_out.size() * 2), "cudaMemset out")) return {p.error};
  if (fly_pa_decode(gpu, &a, p.workspace, p.workspace_bytes, stream) != FLY_STATUS_SUCCESS)
    return {std::string("fly_pa_decode (GPU): ") + fly_last_error()};
  if (!p.ok(cudaStreamSynchronize(stream), "fly_pa_decode (GPU)") ||
      !p.ok(cudaMemcpy(gpu_out.data(), a.out, gpu_out.size() * 2, cudaMemcpyDeviceToHost), "cudaMemcpy out"))
    return {p.error};
  for (size_t i = 0; i < gpu_out.size(); ++i)
    if (!std::isfinite(bf16_to_float(gpu_out[i])))
      return {"GPU output element " + std::to_string(i) + " is not finite (not written, or overflowed)"};

  // 2. Every element of the reference's sequences.
  const int64_t nv = int64_t(ref.pick.size());
  v.checked_seqs = nv;
  v.max_ref = ref.max_ref;
  int64_t bad = 0, worst = -1;
  double worst_excess = 0;
  for (int64_t k = 0; k < nv; ++k)
    for (int64_t e = 0; e < row; ++e) {
      const double want = bf16_to_float(ref.out[size_t(k * row + e)]);
      const double got = bf16_to_float(gpu_out[size_t(ref.pick[size_t(k)] * row + e)]);
      const double err = std::fabs(got - want), tol = 1e-2 * v.max_ref + 2e-2 * std::fabs(want);
      v.max_err = std::max(v.max_err, err);
      if (!(err <= tol)) {
        ++bad;
        if (worst < 0 || err - tol > worst_excess) {
          worst = k * row + e;
          worst_excess = err - tol;
        }
      }
    }
  if (bad > 0) {
    const int64_t k = worst / row, e = worst % row;
    const int64_t tok = e / (s.q_heads * kPaHeadDim), head = e / kPaHeadDim % s.q_heads, dim = e % kPaHeadDim;
    const double want = bf16_to_float(ref.out[size_t(worst)]);
    char msg[320];
    std::snprintf(msg, sizeof(msg),
                  "MISMATCH vs the host backend: %lld of %lld elements out of tolerance; worst at seq %lld token %lld "
                  "head %lld dim %lld: gpu %.6g host %.6g (tol %.3g, max|host| %.4g)",
                  (long long)bad, (long long)(nv * row), (long long)ref.pick[size_t(k)], (long long)tok, (long long)head,
                  (long long)dim, double(bf16_to_float(gpu_out[size_t(ref.pick[size_t(k)] * row + e)])), want,
                  1e-2 * v.max_ref + 2e-2 * std::fabs(want), v.max_ref);
    v.error = msg;
  }
  return v;
}

Verdict verify(PaProblem& p, fly_handle_t gpu, cudaStream_t stream) {
  const Reference ref = host_reference(p);
  if (!ref.error.empty()) return {ref.error};
  return check(p, ref, gpu, stream);
}

// GPU seconds per call: a graph of kGraphCalls calls (sets rotated), the median of kReplays replays
// / kGraphCalls; negative with `error` set on failure.
double graph_seconds(PaProblem& p, fly_handle_t h, cudaStream_t stream, std::string& error) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (!p.ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture")) {
    error = p.error;
    return -1;
  }
  std::string call_error;
  for (int i = 0; i < kGraphCalls && call_error.empty(); ++i) {
    const fly_pa_decode_args a = p.args(i % p.sets);
    if (fly_pa_decode(h, &a, p.workspace, p.workspace_bytes, stream) != FLY_STATUS_SUCCESS)
      call_error = std::string("fly_pa_decode during graph capture: ") + fly_last_error();
  }
  const bool captured = p.ok(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  double seconds = -1;
  if (!call_error.empty()) {
    error = call_error;
  } else if (!captured || !p.ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate")) {
    error = p.error;
  } else {
    for (int i = 0; i < kWarmupReplays; ++i) p.ok(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    if (p.ok(cudaStreamSynchronize(stream), "graph warm-up")) {
      GpuTimer timer(stream);
      std::vector<float> ms;
      for (int i = 0; i < kReplays; ++i) {
        const float t = timer.measure([&] { p.ok(cudaGraphLaunch(exec, stream), "cudaGraphLaunch"); });
        if (t >= 0) ms.push_back(t);
      }
      if (!p.error.empty()) {
        error = p.error;
      } else if (ms.size() < size_t(kReplays) / 2) {
        error = "fewer than half the graph replays were timed (the stream hold gave up, or a CUDA error)";
      } else {
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        seconds = double(ms[ms.size() / 2]) * 1e-3 / kGraphCalls;
      }
    } else {
      error = p.error;
    }
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  return seconds;
}

void bench_pa_decode(benchmark::State& state, PaShape s, std::string row) {
  PaProblem p(s);
  fly_handle_t h = nullptr;
  unsigned backend = 0;
  if (!p.error.empty()) return fail_row(state, row, p.error);
  if (fly_create(&h) != FLY_STATUS_SUCCESS) return fail_row(state, row, std::string("fly_create: ") + fly_last_error());
  cudaStream_t stream = nullptr;
  std::string error;
  char why[FLY_PA_DECODE_EXPLAIN_BYTES] = "";
  const fly_pa_decode_args a = p.args(0);
  if (fly_handle_backend(h, &backend) != FLY_STATUS_SUCCESS || backend != FLY_BACKEND_CUDA) {
    error = "fly_create gave a handle on another backend than CUDA (FLY_BACKEND set?)";
  } else if (fly_pa_decode_explain(h, &a, why, sizeof(why)) != FLY_STATUS_SUCCESS) {
    error = std::string("fly_pa_decode_explain: ") + fly_last_error();
  } else if (!p.make_workspace(h) || !p.ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate")) {
    error = p.error;
  }
  Verdict v;
  double seconds = -1;
  if (error.empty()) {
    v = verify(p, h, stream);
    error = v.error;
  }
  if (error.empty()) seconds = graph_seconds(p, h, stream, error);
  if (!error.empty()) {
    fail_row(state, row, error);
  } else {
    for (auto _s : state) state.SetIterationTime(seconds);
    const double tbs = p.kv_bytes() / seconds * 1e-12;
    state.counters["us"] = seconds * 1e6;
    state.counters["KV_bytes"] = p.kv_bytes();
    state.counters["TBs"] = tbs;
    fly::bench::set_hbm_counters(state.counters, tbs);
    state.counters["max_err"] = v.max_err;
    std::string line = why;  // "<variant> splits=N: why": keep the variant and the split
    if (const size_t colon = line.find(':'); colon != std::string::npos) line.resize(colon);
    state.SetLabel(line + " sets=" + std::to_string(p.sets) + " verified " + std::to_string(v.checked_seqs) + "/" +
                   std::to_string(s.seqs) + " seqs");
  }
  if (stream) cudaStreamDestroy(stream);
  fly_destroy(h);
}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// One row, named pa_decode/<kv>/<seqs>x<ctx>/h<q heads>-<kv heads>/q<q_len>/fly; returns the name.
std::string register_row(const PaShape& s) {
  const std::string name = "pa_decode/" + std::string(s.kv == FLY_DTYPE_BF16 ? "bf16" : "e4m3fn") + "/" +
                           std::to_string(s.seqs) + "x" + std::to_string(s.ctx) + "/h" + std::to_string(s.q_heads) +
                           "-" + std::to_string(s.kv_heads) + "/q" + std::to_string(s.q_len) + "/fly";
  benchmark::RegisterBenchmark(name.c_str(), bench_pa_decode, s, name)
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
  return name;
}

// Registered at start-up when a GPU is present (FLY_REQUIRE_GPU=1 makes fly_bench fail without
// one, fly_bench.cpp). Names: pa_decode/<kv>/<seqs>x<ctx>/h<q heads>-<kv heads>/q<q_len>/fly.
const int registered = [] {
  if (!have_gpu()) return 0;
  for (const PaShape& s : fly::bench::pa_bench_shapes()) register_row(s);
  return 1;
}();

}  // namespace

namespace fly::bench {

// fly_bench --op pa_decode on the GPU (bench_cli.hpp): the row under the default rows' name.
bool register_cuda_pa_decode_row(const CliRequest& r, std::vector<std::string>* names) {
  if (!have_gpu()) return false;
  names->push_back(register_row({r.batch, r.ctx, r.hq, r.hkv, r.q_len, r.kv}));
  return true;
}

}  // namespace fly::bench

namespace fly::bench {

bool measure_pa_decode(const PaShape& shape, const std::vector<fly_handle_t>& handles, size_t timed,
                       size_t min_eligible, std::vector<PaHandleResult>* results, std::string* error) {
  results->assign(handles.size(), PaHandleResult{});
  PaProblem p(shape);
  if (!p.error.empty()) {
    *error = p.error;
    return false;
  }
  const fly_pa_decode_args a = p.args(0);
  size_t runnable = 0;
  for (size_t i = 0; i < handles.size(); ++i) {
    PaHandleResult& r = (*results)[i];
    char why[FLY_PA_DECODE_EXPLAIN_BYTES] = "";
    r.eligible = fly_pa_decode_explain(handles[i], &a, why, sizeof why) == FLY_STATUS_SUCCESS;
    r.line = r.eligible ? why : fly_last_error();  // NOT_SUPPORTED: the handle cannot run this shape
    if (r.eligible && i < timed) ++runnable;
  }
  if (runnable < min_eligible) return true;
  const Reference ref = host_reference(p);
  cudaStream_t stream = nullptr;
  if (ref.error.empty()) p.ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  if (!ref.error.empty() || !p.error.empty()) {
    *error = !ref.error.empty() ? ref.error : p.error;
    return false;
  }
  bool lost = false;
  for (size_t i = 0; i < timed && i < handles.size() && !lost; ++i) {
    PaHandleResult& r = (*results)[i];
    if (!r.eligible) continue;
    p.error.clear();  // one handle's CUDA error is not the next one's
    if (p.workspace == nullptr && !p.make_workspace(handles[i])) {  // the same size for every GPU handle
      r.error = p.error;
      continue;
    }
    const Verdict v = check(p, ref, handles[i], stream);
    r.max_err = v.max_err;
    r.error = v.error;
    if (r.error.empty()) r.seconds = graph_seconds(p, handles[i], stream, r.error);
    // A kernel fault leaves the context unusable: nothing after it can be measured.
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess) {
      *error = std::string("the CUDA context is lost (") + cudaGetErrorString(e) + ")";
      if (r.error.empty()) r.error = *error;
      lost = true;
    } else if (e != cudaSuccess && r.error.empty()) {
      r.error = cudaGetErrorString(e);
    }
  }
  cudaStreamDestroy(stream);
  return !lost;
}

}  // namespace fly::bench
