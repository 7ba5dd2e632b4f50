// Handles: creation for the current device or the host, destruction, the dispatch-decision cache.
#include "handle.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "status_internal.hpp"

namespace fly::dispatch {

fly_handle_t make_handle(const platform::DeviceInfo& device, std::span<const GemmVariant> variants,
                         std::span<const GemmTuning> tuning, std::span<const GemmCostModel> model) {
  auto* h = new fly_handle_s();
  h->device = device;
  h->variants = variants;
  h->tuning = tuning;
  h->model = model;
  h->model_rows = gemm_cost_model_rows(model, variants);
  h->pa_decode_variants = pa_decode_variants();
  h->pa_decode_tuning = pa_decode_tuning();
  const char* log = std::getenv("FLY_LOG_DISPATCH");
  h->log_dispatch = log != nullptr && log[0] != '\0' && std::strcmp(log, "0") != 0;
  return h;
}

std::string describe_problem(const GemmProblem& p) {
  return "m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) + " " +
         fly_dtype_string(p.a) + " x " + fly_dtype_string(p.b) + " -> " + fly_dtype_string(p.d);
}

}  // namespace fly::dispatch

using fly::dispatch::GemmDecision;
using fly::dispatch::GemmProblem;

namespace {
// FLY_GEMM_VARIANT=<name>, read once per process: a measuring run's one GEMM variant (the bench's
// per-variant passes, a profile of one kernel; docs/gemm.md, "Tuning tables"). Unset or empty: null.
const char* forced_gemm_variant() {
  static const char* name = std::getenv("FLY_GEMM_VARIANT");
  return name != nullptr && name[0] != '\0' ? name : nullptr;
}
}  // namespace

GemmDecision fly_handle_s::decide_gemm(const GemmProblem& p, bool with_line) {
  GemmDecision decision;
  if (device.backend == FLY_BACKEND_HOST) {
    decision.host = true;
    if (with_line) decision.line = "host_reference: host backend";
    return decision;
  }
  if (!device.has_kernels) {
    if (with_line) {
      decision.line = "none: device " + device.name + " (" + device.arch + ") has no libfly GEMM kernels (this build's " +
                      fly::dispatch::target_name(device.target) + " kernels need " +
                      (device.target == fly::dispatch::Target::sm90a ? "compute capability 9.0)" : "gfx942)");
    }
    return decision;
  }
  Key const key{static_cast<int>(p.a), static_cast<int>(p.d), p.m, p.n, p.k, fly::dispatch::gemm_alignment_elems(p)};
  std::string why;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      const fly::dispatch::GemmVariant* v = fly::dispatch::select_gemm_variant(
          variants, fly::dispatch::GemmTables{tuning, model, device.multiprocessors, model_rows, forced_gemm_variant()}, p,
          device.target, &why);
      Entry entry{v != nullptr ? static_cast<int>(v - variants.data()) : -1, why};
      if (cache_.size() >= max_cached) cache_.clear();
      it = cache_.emplace(key, std::move(entry)).first;
    }
    if (it->second.variant >= 0) decision.variant = &variants[static_cast<size_t>(it->second.variant)];
    if (with_line) why = it->second.why;
  }
  if (with_line) decision.line = std::string(decision.variant != nullptr ? decision.variant->name : "none") + ": " + why;
  return decision;
}

size_t fly_handle_s::cached_decisions() {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.size();
}

namespace {

fly_status_t create(fly_handle_t* out, bool force_host) {
  using fly::detail::fail;
  if (out == nullptr) return fail(FLY_STATUS_INVALID_ARGUMENT, force_host ? "fly_create_host: out is null" : "fly_create: out is null");
  *out = nullptr;
  fly::platform::DeviceInfo device;  // host backend by default
  if (!force_host) {
    const char* env = std::getenv("FLY_BACKEND");
    std::string const want = env != nullptr ? env : "";
    if (want != "host") {
      bool const want_cuda = want == "cuda";
      bool const want_hip = want == "hip";
      if (!want.empty() && want != "auto" && !want_cuda && !want_hip) {
        return fail(FLY_STATUS_INVALID_ARGUMENT,
                    "fly_create: FLY_BACKEND=" + want + " is not one of host, cuda, hip, auto");
      }
      unsigned const runtime = fly::platform::runtime_backend();
      if ((want_cuda && runtime != FLY_BACKEND_CUDA) || (want_hip && runtime != FLY_BACKEND_HIP)) {
        return fail(FLY_STATUS_NOT_SUPPORTED, "fly_create: FLY_BACKEND=" + want + " but this libfly has no " + want +
                                                  " runtime support (compiled backends: host" +
                                                  (runtime == FLY_BACKEND_CUDA ? ", cuda)" : ")"));
      }
      bool found = false;
      fly_status_t const st = fly::platform::current_device(&device, &found);
      if (st != FLY_STATUS_SUCCESS) return st;
      if (!found && (want_cuda || want_hip)) {
        return fail(FLY_STATUS_NOT_SUPPORTED, "fly_create: FLY_BACKEND=" + want + " but no " + want + " device is present");
      }
      if (!found) device = fly::platform::DeviceInfo{};
    }
  }
  *out = fly::dispatch::make_handle(device, fly::dispatch::gemm_variants(), fly::dispatch::gemm_tuning(),
                                    fly::dispatch::gemm_cost_model());
  return FLY_STATUS_SUCCESS;
}

}  // namespace

extern "C" fly_status_t fly_create(fly_handle_t* out) {
  fly::detail::clear_error();
  try {
    return create(out, false);
  } catch (const std::bad_alloc&) {
    return fly::detail::fail(FLY_STATUS_INTERNAL_ERROR, "fly_create: out of memory");
  } catch (...) {
    return fly::detail::fail(FLY_STATUS_INTERNAL_ERROR, "fly_create: unexpected exception");
  }
}

extern "C" fly_status_t fly_create_host(fly_handle_t* out) {
  fly::detail::clear_error();
  try {
    return create(out, true);
  } catch (const std::bad_alloc&) {
    return fly::detail::fail(FLY_STATUS_INTERNAL_ERROR, "fly_create_host: out of memory");
  } catch (...) {
    return fly::detail::fail(FLY_STATUS_INTERNAL_ERROR, "fly_create_host: unexpected exception");
  }
}

extern "C" fly_status_t fly_destroy(fly_handle_t handle) {
  fly::detail::clear_error();
  delete handle;  // the destructor of std::map / std::mutex does not throw
  return FLY_STATUS_SUCCESS;
}

extern "C" fly_status_t fly_handle_backend(fly_handle_t handle, unsigned* backend) {
  fly::detail::clear_error();
  if (handle == nullptr) return fly::detail::fail(FLY_STATUS_INVALID_ARGUMENT, "fly_handle_backend: handle is null");
  if (backend == nullptr) return fly::detail::fail(FLY_STATUS_INVALID_ARGUMENT, "fly_handle_backend: backend is null");
  *backend = handle->device.backend;
  return FLY_STATUS_SUCCESS;
}
