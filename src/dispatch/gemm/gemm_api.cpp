// The GEMM entry points of the C API: validation, dispatch (host reference or a registry variant),
// introspection and FLY_LOG_DISPATCH.
#include <cstdio>
#include <cstring>
#include <string>

#include "fly/fly.h"
#include "guarded.hpp"
#include "handle.hpp"
#include "host_gemm.hpp"
#include "status_internal.hpp"
#include "gemm_validate.hpp"

namespace {

using fly::detail::fail;
using fly::dispatch::GemmDecision;
using fly::dispatch::GemmProblem;

fly::dispatch::Target target_of(const fly_handle_s& h) {
  return h.device.backend == FLY_BACKEND_HOST ? fly::dispatch::Target::host : h.device.target;
}

// The common front of every GEMM entry: handle, args, validation.
fly_status_t front(const char* fn, fly_handle_t handle, const fly_gemm_args* args, GemmProblem* problem) {
  if (handle == nullptr) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": handle is null");
  return fly::dispatch::validate_gemm_args(fn, args, target_of(*handle), problem);
}

// The FLY_STATUS_NOT_SUPPORTED message of a problem nothing can run.
fly_status_t no_variant(const char* fn, const fly_handle_s& h, const GemmProblem& p, const std::string& line) {
  std::string why = line.rfind("none: ", 0) == 0 ? line.substr(6) : line;
  return fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) + ": no " + fly::dispatch::target_name(h.device.target) +
                                            " GEMM kernel for " + fly::dispatch::describe_problem(p) + " (lda=" +
                                            std::to_string(p.lda) + " ldb=" + std::to_string(p.ldb) + "): " + why);
}

}  // namespace

extern "C" int fly_gemm_variant_count(void) {
  return 1 + static_cast<int>(fly::dispatch::gemm_variants().size());
}

extern "C" const char* fly_gemm_variant_name(int index) {
  if (index == 0) return "host_reference";
  if (index < 0 || index >= fly_gemm_variant_count()) return nullptr;
  return fly::dispatch::gemm_variants()[static_cast<size_t>(index - 1)].name;
}

extern "C" fly_status_t fly_gemm_workspace_size(fly_handle_t handle, const fly_gemm_args* args, size_t* bytes) {
  return fly::detail::guarded("fly_gemm_workspace_size", [&]() -> fly_status_t {
    const char* fn = "fly_gemm_workspace_size";
    if (handle != nullptr && bytes == nullptr) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": bytes is null");
    GemmProblem p{};
    if (fly_status_t st = front(fn, handle, args, &p); st != FLY_STATUS_SUCCESS) return st;
    *bytes = 0;  // no variant uses a workspace today
    return FLY_STATUS_SUCCESS;
  });
}

extern "C" fly_status_t fly_gemm(fly_handle_t handle, const fly_gemm_args* args, void* workspace,
                                 size_t workspace_bytes, void* stream) {
  return fly::detail::guarded("fly_gemm", [&]() -> fly_status_t {
    const char* fn = "fly_gemm";
    GemmProblem p{};
    if (fly_status_t st = front(fn, handle, args, &p); st != FLY_STATUS_SUCCESS) return st;
    if (workspace == nullptr && workspace_bytes != 0) {
      return fail(FLY_STATUS_INVALID_ARGUMENT,
                  std::string(fn) + ": workspace is null but workspace_bytes (" + std::to_string(workspace_bytes) + ") is not 0");
    }
    size_t const required = 0;  // what fly_gemm_workspace_size answers
    if (workspace_bytes < required) {
      return fail(FLY_STATUS_INSUFFICIENT_WORKSPACE, std::string(fn) + ": workspace_bytes (" + std::to_string(workspace_bytes) +
                                                         ") is less than the " + std::to_string(required) + " bytes needed");
    }
    bool const host = handle->device.backend == FLY_BACKEND_HOST;
    if (host && stream != nullptr) {
      return fail(FLY_STATUS_INVALID_ARGUMENT,
                  std::string(fn) + ": stream must be null on the host backend (it runs synchronously on host memory)");
    }
    GemmDecision const decision = handle->decide_gemm(p, handle->log_dispatch);
    if (handle->log_dispatch) {
      std::fprintf(stderr, "fly_gemm %s: %s\n", fly::dispatch::describe_problem(p).c_str(), decision.line.c_str());
    }
    if (decision.host) return fly::dispatch::host_gemm(p);
    if (decision.variant == nullptr) {
      std::string line = decision.line;
      if (line.empty()) line = handle->decide_gemm(p, true).line;
      return no_variant(fn, *handle, p, line);
    }
    fly_status_t const st = decision.variant->launch(p, stream);
    if (st != FLY_STATUS_SUCCESS && fly_last_error()[0] == '\0') {
      return fail(st, std::string(fn) + ": " + decision.variant->name + " failed to launch");
    }
    return st;
  });
}

extern "C" fly_status_t fly_gemm_explain(fly_handle_t handle, const fly_gemm_args* args, char* buffer, size_t buffer_bytes) {
  return fly::detail::guarded("fly_gemm_explain", [&]() -> fly_status_t {
    const char* fn = "fly_gemm_explain";
    if (buffer != nullptr && buffer_bytes > 0) buffer[0] = '\0';
    if (handle != nullptr) {
      if (buffer == nullptr) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": buffer is null");
      if (buffer_bytes == 0) return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": buffer_bytes is 0");
    }
    GemmProblem p{};
    if (fly_status_t st = front(fn, handle, args, &p); st != FLY_STATUS_SUCCESS) return st;
    GemmDecision const decision = handle->decide_gemm(p, true);
    std::string const& line = decision.line;
    size_t const n = line.size() < buffer_bytes ? line.size() : buffer_bytes - 1;
    std::memcpy(buffer, line.data(), n);
    buffer[n] = '\0';
    if (!decision.host && decision.variant == nullptr) return no_variant(fn, *handle, p, line);
    if (n < line.size()) {
      return fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": buffer_bytes (" + std::to_string(buffer_bytes) +
                                                   ") is too small: the line needs " + std::to_string(line.size() + 1));
    }
    return FLY_STATUS_SUCCESS;
  });
}
