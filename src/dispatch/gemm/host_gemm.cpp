// The host reference GEMM (see host_gemm.hpp).
#include "host_gemm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "fly/numeric/numeric.hpp"
#include "host_threads.hpp"
#include "status_internal.hpp"

namespace fly::dispatch {
namespace {

// The float value of every fp8 code, so the inner loop is one load per element.
template <class F8>
const std::array<float, 256>& fp8_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (unsigned code = 0; code < 256; ++code) t[code] = static_cast<float>(F8::from_bits(static_cast<uint8_t>(code)));
    return t;
  }();
  return table;
}

// Reads element i of an A or B matrix as float.
struct F32Reader {
  const float* base;
  float operator()(int64_t i) const { return base[i]; }
};
struct Fp8Reader {
  const uint8_t* base;
  const float* table;
  float operator()(int64_t i) const { return table[base[i]]; }
};

// C / D element conversions.
float load_c(const void* c, fly_dtype_t type, int64_t i) {
  switch (type) {
    case FLY_DTYPE_F16: return static_cast<float>(static_cast<const fly::half*>(c)[i]);
    case FLY_DTYPE_BF16: return static_cast<float>(static_cast<const fly::bfloat16*>(c)[i]);
    default: return static_cast<const float*>(c)[i];
  }
}

void store_d(void* d, fly_dtype_t type, int64_t i, float v) {
  switch (type) {
    case FLY_DTYPE_F16: static_cast<fly::half*>(d)[i] = fly::half(v); break;
    case FLY_DTYPE_BF16: static_cast<fly::bfloat16*>(d)[i] = fly::bfloat16(v); break;
    default: static_cast<float*>(d)[i] = v; break;
  }
}

// Rows [row_begin, row_end) of D.
template <class Reader>
void gemm_rows(const GemmProblem& p, Reader a, Reader b, float scale, int64_t row_begin, int64_t row_end) {
  for (int64_t i = row_begin; i < row_end; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      int64_t const a_row = i * p.lda;
      int64_t const b_row = j * p.ldb;
      for (int64_t q = 0; q < p.k; ++q) acc += a(a_row + q) * b(b_row + q);
      float v = scale * acc;
      if (p.C != nullptr) v += p.beta * load_c(p.C, p.c, i * p.ldc + j);
      store_d(p.D, p.d, i * p.ldd + j, v);
    }
  }
}

// Splits the rows over `threads` parts (host_threads.hpp).
template <class Reader>
void gemm_threaded(const GemmProblem& p, Reader a, Reader b, float scale, int threads) {
  run_on_threads(threads, [&](int t, int n) { gemm_rows(p, a, b, scale, p.m * t / n, p.m * (t + 1) / n); });
}

template <class Reader>
void run(const GemmProblem& p, Reader a, Reader b) {
  float const sa = p.scale_a != nullptr ? *p.scale_a : 1.0f;
  float const sb = p.scale_b != nullptr ? *p.scale_b : 1.0f;
  float const scale = p.alpha * sa * sb;
  int const threads = host_gemm_threads(p.m, p.n, p.k);
  if (threads <= 1) {
    gemm_rows(p, a, b, scale, 0, p.m);
  } else {
    gemm_threaded(p, a, b, scale, threads);
  }
}

}  // namespace

int host_gemm_threads(int64_t m, int64_t n, int64_t k) noexcept {
  constexpr double min_work = double(1 << 22);        // below ~4M multiply-adds one thread is faster
  constexpr double work_per_thread = double(1 << 21);
  double const work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (work < min_work) return 1;
  unsigned const hw = std::thread::hardware_concurrency();
  double const limit = std::min({static_cast<double>(hw == 0 ? 1u : hw), 64.0, static_cast<double>(m),
                                 work / work_per_thread});
  return std::max(1, static_cast<int>(limit));
}

fly_status_t host_gemm(const GemmProblem& p) noexcept {
  if (p.a != p.b) return detail::fail(FLY_STATUS_INTERNAL_ERROR, "host_gemm: a and b dtypes differ");
  if (p.d != FLY_DTYPE_F32 && p.d != FLY_DTYPE_F16 && p.d != FLY_DTYPE_BF16) {
    return detail::fail(FLY_STATUS_INTERNAL_ERROR, "host_gemm: unsupported d dtype");
  }
  switch (p.a) {
    case FLY_DTYPE_F32:
      run(p, F32Reader{static_cast<const float*>(p.A)}, F32Reader{static_cast<const float*>(p.B)});
      return FLY_STATUS_SUCCESS;
    case FLY_DTYPE_E4M3FN: {
      const float* table = fp8_table<fly::float8_e4m3fn>().data();
      run(p, Fp8Reader{static_cast<const uint8_t*>(p.A), table}, Fp8Reader{static_cast<const uint8_t*>(p.B), table});
      return FLY_STATUS_SUCCESS;
    }
    case FLY_DTYPE_E4M3FNUZ: {
      const float* table = fp8_table<fly::float8_e4m3fnuz>().data();
      run(p, Fp8Reader{static_cast<const uint8_t*>(p.A), table}, Fp8Reader{static_cast<const uint8_t*>(p.B), table});
      return FLY_STATUS_SUCCESS;
    }
    default: break;
  }
  return detail::fail(FLY_STATUS_INTERNAL_ERROR, "host_gemm: unsupported a dtype");
}

}  // namespace fly::dispatch
