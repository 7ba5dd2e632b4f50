// The paged-decode entry points of the C API: validation, dispatch (host reference or a registry
// variant with its split plan), workspace, introspection and FLY_LOG_DISPATCH.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "fly/fly.h"
#include "guarded.hpp"
#include "handle.hpp"
#include "pa_decode_check.hpp"
#include "pa_decode_host.hpp"
#include "pa_decode_registry.hpp"
#include "pa_decode_validate.hpp"
#include "status_internal.hpp"

namespace {

using fly::detail::fail;
using fly::dispatch::PaDecodePlan;
using fly::dispatch::PaDecodeProblem;
using fly::dispatch::PaDecodeVariant;

bool host_backend(const fly_handle_s& h) { return h.device.backend == FLY_BACKEND_HOST; }

fly_status_t front(const char* fn, fly_handle_t handle, const fly_pa_decode_args* args, PaDecodeProblem* problem) {
  if (handle == nullptr) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": handle is null");
  const auto target = host_backend(*handle) ? fly::dispatch::Target::host : handle->device.target;
  return fly::dispatch::validate_pa_decode_args(fn, args, target, problem);
}

struct Decision {
  bool host = false;
  const PaDecodeVariant* variant = nullptr;
  PaDecodePlan plan;
  std::string line;  // "<name> splits=N: why" or "none: why"
};

Decision decide(const fly_handle_s& h, const PaDecodeProblem& p) {
  Decision d;
  if (host_backend(h)) {
    d.host = true;
    d.line = "host_reference: host backend";
    return d;
  }
  if (!h.device.has_kernels) {
    d.line = "none: device " + h.device.name + " (" + h.device.arch + ") has no libfly paged-decode kernels";
    return d;
  }
  std::string why;
  d.variant = fly::dispatch::select_pa_decode_variant(h.pa_decode_variants, h.pa_decode_tuning, p, h.device.target,
                                                      h.device.multiprocessors, &d.plan, &why);
  d.line = d.variant != nullptr ? std::string(d.variant->name) + " splits=" + std::to_string(d.plan.splits) + ": " + why
                                : "none: " + why;
  return d;
}

std::string describe(const PaDecodeProblem& p) {
  return "seqs=" + std::to_string(p.num_seqs) + " q_len=" + std::to_string(p.q_len) + " heads=" +
         std::to_string(p.num_q_heads) + "/" + std::to_string(p.num_kv_heads) + " d=" + std::to_string(p.head_dim) +
         " block=" + std::to_string(p.block_size) + " max_seq_len=" + std::to_string(p.max_seq_len) + " q " +
         fly_dtype_string(p.q_type) + " kv " + fly_dtype_string(p.kv_type) + " " + fly_kv_layout_string(p.layout);
}

fly_status_t no_variant(const char* fn, const PaDecodeProblem& p, const std::string& line) {
  std::string why = line.rfind("none: ", 0) == 0 ? line.substr(6) : line;
  return fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) + ": no paged-decode kernel for " + describe(p) + ": " + why);
}

size_t workspace_for(const fly_handle_s& h, const PaDecodeProblem& p) {
  return host_backend(h) ? 0 : fly::dispatch::pa_decode_workspace_bytes(p);
}

}  // namespace

extern "C" int fly_pa_decode_variant_count(void) {
  return 1 + static_cast<int>(fly::dispatch::pa_decode_variants().size());
}

extern "C" const char* fly_pa_decode_variant_name(int index) {
  if (index == 0) return "host_reference";
  if (index < 0 || index >= fly_pa_decode_variant_count()) return nullptr;
  return fly::dispatch::pa_decode_variants()[static_cast<size_t>(index - 1)].name;
}

extern "C" fly_status_t fly_pa_decode_workspace_size(fly_handle_t handle, const fly_pa_decode_args* args, size_t* bytes) {
  return fly::detail::guarded("fly_pa_decode_workspace_size", [&]() -> fly_status_t {
    const char* fn = "fly_pa_decode_workspace_size";
    if (handle != nullptr && bytes == nullptr) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": bytes is null");
    PaDecodeProblem p{};
    if (fly_status_t st = front(fn, handle, args, &p); st != FLY_STATUS_SUCCESS) return st;
    *bytes = workspace_for(*handle, p);
    return FLY_STATUS_SUCCESS;
  });
}

extern "C" fly_status_t fly_pa_decode(fly_handle_t handle, const fly_pa_decode_args* args, void* workspace,
                                      size_t workspace_bytes, void* stream) {
  return fly::detail::guarded("fly_pa_decode", [&]() -> fly_status_t {
    const char* fn = "fly_pa_decode";
    PaDecodeProblem p{};
    if (fly_status_t st = front(fn, handle, args, &p); st != FLY_STATUS_SUCCESS) return st;
    if (workspace == nullptr && workspace_bytes != 0) {
      return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": workspace is null but workspace_bytes (" +
                                                   std::to_string(workspace_bytes) + ") is not 0");
    }
    // the reduction reads the partials as float4
    if (reinterpret_cast<uintptr_t>(workspace) % 16 != 0) {
      return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": workspace is not aligned to 16 bytes");
    }
    size_t const required = workspace_for(*handle, p);
    if (workspace_bytes < required) {
      return fail(FLY_STATUS_INSUFFICIENT_WORKSPACE, std::string(fn) + ": workspace_bytes (" + std::to_string(workspace_bytes) +
                                                         ") is less than the " + std::to_string(required) +
                                                         " bytes fly_pa_decode_workspace_size asks for");
    }
    if (const char* other = fly::dispatch::pa_decode_buffer_overlapping(
            *args, workspace, required > size_t(INT64_MAX) ? INT64_MAX : int64_t(required))) {
      return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": the workspace's " + std::to_string(required) +
                                                   " bytes overlap " + other + " (the kernels write the workspace while they read the arguments)");
    }
    if (host_backend(*handle) && stream != nullptr) {
      return fail(FLY_STATUS_INVALID_ARGUMENT,
                  std::string(fn) + ": stream must be null on the host backend (it runs synchronously on host memory)");
    }
    Decision d = decide(*handle, p);
    if (handle->log_dispatch) std::fprintf(stderr, "fly_pa_decode %s: %s\n", describe(p).c_str(), d.line.c_str());
    if (!d.host && d.variant == nullptr) return no_variant(fn, p, d.line);
    if (p.check_block_tables) {
      if (fly_status_t st = fly::dispatch::check_block_tables(fn, p, d.host, stream); st != FLY_STATUS_SUCCESS) return st;
    }
    if (d.host) return fly::dispatch::host_pa_decode(p);
    d.plan.workspace = workspace;
    fly_status_t const st = d.variant->launch(p, d.plan, stream);
    if (st != FLY_STATUS_SUCCESS && fly_last_error()[0] == '\0') {
      return fail(st, std::string(fn) + ": " + d.variant->name + " failed to launch");
    }
    return st;
  });
}

extern "C" fly_status_t fly_pa_decode_explain(fly_handle_t handle, const fly_pa_decode_args* args, char* buffer,
                                              size_t buffer_bytes) {
  return fly::detail::guarded("fly_pa_decode_explain", [&]() -> fly_status_t {
    const char* fn = "fly_pa_decode_explain";
    if (buffer != nullptr && buffer_bytes > 0) buffer[0] = '\0';
    if (handle != nullptr) {
      if (buffer == nullptr) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": buffer is null");
      if (buffer_bytes == 0) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": buffer_bytes is 0");
    }
    PaDecodeProblem p{};
    if (fly_status_t st = front(fn, handle, args, &p); st != FLY_STATUS_SUCCESS) return st;
    Decision const d = decide(*handle, p);
    size_t const n = d.line.size() < buffer_bytes ? d.line.size() : buffer_bytes - 1;
    std::memcpy(buffer, d.line.data(), n);
    buffer[n] = '\0';
    if (!d.host && d.variant == nullptr) return no_variant(fn, p, d.line);
    if (n < d.line.size()) {
      return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": buffer_bytes (" + std::to_string(buffer_bytes) +
                                                   ") is too small: the line needs " + std::to_string(d.line.size() + 1));
    }
    return FLY_STATUS_SUCCESS;
  });
}
