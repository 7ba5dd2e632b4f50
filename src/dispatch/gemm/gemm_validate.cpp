// Validation of fly_gemm_args (see gemm_validate.hpp) and fly_dtype_string.
#include "gemm_validate.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include "args_checks.hpp"
#include "status_internal.hpp"

extern "C" const char* fly_dtype_string(fly_dtype_t dtype) {
  switch (fly::dispatch::raw_enum(dtype)) {
    case FLY_DTYPE_F32: return "f32";
    case FLY_DTYPE_F16: return "f16";
    case FLY_DTYPE_BF16: return "bf16";
    case FLY_DTYPE_E4M3FN: return "e4m3fn";
    case FLY_DTYPE_E4M3FNUZ: return "e4m3fnuz";
  }
  return "unknown";
}

namespace fly::dispatch {
namespace {

// Bytes spanned by a rows x cols row-major matrix with leading dimension ld (ld >= cols >= 1),
// or -1 when that exceeds INT64_MAX.
// Every product is checked before it is formed (rows = 1 with cols = 2^62 f32 must not wrap).
int64_t span_bytes(int64_t rows, int64_t cols, int64_t ld, int64_t esize) {
  constexpr int64_t max = std::numeric_limits<int64_t>::max();
  int64_t const elems_max = max / esize;
  if (cols > elems_max) return -1;
  if (rows - 1 > (elems_max - cols) / ld) return -1;
  return ((rows - 1) * ld + cols) * esize;
}

}  // namespace

fly_status_t validate_gemm_args(const char* fn, const fly_gemm_args* args, Target target, GemmProblem* out) {
  std::string const f = std::string(fn) + ": ";
  auto invalid = [&](const std::string& msg) { return detail::fail(FLY_STATUS_INVALID_ARGUMENT, f + msg); };
  auto unsupported = [&](const std::string& msg) { return detail::fail(FLY_STATUS_NOT_SUPPORTED, f + msg); };

  if (args == nullptr) return invalid("args is null");
  // ---- struct_size: the ABI version of the caller's struct
  if (fly_status_t st = check_struct_size(f, args, args->struct_size, sizeof(fly_gemm_args), "fly_gemm_args",
                                          "FLY_GEMM_ARGS_INIT");
      st != FLY_STATUS_SUCCESS)
    return st;
  const fly_gemm_args& a = *args;
  // ---- sizes
  if (a.m < 1) return invalid("m (" + num(a.m) + ") must be >= 1");
  if (a.n < 1) return invalid("n (" + num(a.n) + ") must be >= 1");
  if (a.k < 1) return invalid("k (" + num(a.k) + ") must be >= 1");
  bool const reads_c = a.beta != 0.0f;  // NaN beta reads C too
  // ---- dtypes are fly_dtype_t values
  if (!known_dtype(a.a_type)) return invalid("a_type (" + dtype_text(a.a_type) + ") is not a fly_dtype_t");
  if (!known_dtype(a.b_type)) return invalid("b_type (" + dtype_text(a.b_type) + ") is not a fly_dtype_t");
  if (!known_dtype(a.d_type)) return invalid("d_type (" + dtype_text(a.d_type) + ") is not a fly_dtype_t");
  if (reads_c && !known_dtype(a.c_type)) return invalid("c_type (" + dtype_text(a.c_type) + ") is not a fly_dtype_t");
  // ---- pointers
  if (a.a == nullptr) return invalid("a is null");
  if (a.b == nullptr) return invalid("b is null");
  if (a.d == nullptr) return invalid("d is null");
  if (reads_c && a.c == nullptr) return invalid("c is null but beta (" + num(a.beta) + ") is not 0");
  // ---- every pointer aligned to its element (a misaligned vector load faults on a GPU and is
  // undefined behaviour on the host); larger alignments only pick among variants (gemm_select.cpp)
  struct Aligned {
    const char* name;
    const void* p;
    int64_t bytes;
  };
  const Aligned pointers[] = {{"a", a.a, dtype_bytes(a.a_type)},
                              {"b", a.b, dtype_bytes(a.b_type)},
                              {"c", reads_c ? a.c : nullptr, reads_c ? dtype_bytes(a.c_type) : 1},
                              {"d", a.d, dtype_bytes(a.d_type)},
                              {"scale_a", a.scale_a, 4},
                              {"scale_b", a.scale_b, 4}};
  for (const Aligned& x : pointers) {
    if (x.p != nullptr && !aligned_to(x.p, x.bytes)) {
      return invalid(std::string(x.name) + " (" + address(x.p) + ") must be aligned to its element size (" + num(x.bytes) +
                     " bytes)");
    }
  }
  // ---- leading dimensions
  if (a.lda < a.k) return invalid("lda (" + num(a.lda) + ") must be >= k (" + num(a.k) + ")");
  if (a.ldb < a.k) return invalid("ldb (" + num(a.ldb) + ") must be >= k (" + num(a.k) + ")");
  if (reads_c && a.ldc < a.n) return invalid("ldc (" + num(a.ldc) + ") must be >= n (" + num(a.n) + ")");
  if (a.ldd < a.n) return invalid("ldd (" + num(a.ldd) + ") must be >= n (" + num(a.n) + ")");
  // ---- extents fit the address arithmetic; D does not overlap its inputs
  int64_t const a_bytes = span_bytes(a.m, a.k, a.lda, dtype_bytes(a.a_type));
  int64_t const b_bytes = span_bytes(a.n, a.k, a.ldb, dtype_bytes(a.b_type));
  int64_t const c_bytes = reads_c ? span_bytes(a.m, a.n, a.ldc, dtype_bytes(a.c_type)) : 0;
  int64_t const d_bytes = span_bytes(a.m, a.n, a.ldd, dtype_bytes(a.d_type));
  if (a_bytes < 0) return invalid("A (m " + num(a.m) + " x lda " + num(a.lda) + ") spans more than 2^63 bytes");
  if (b_bytes < 0) return invalid("B (n " + num(a.n) + " x ldb " + num(a.ldb) + ") spans more than 2^63 bytes");
  if (c_bytes < 0) return invalid("C (m " + num(a.m) + " x ldc " + num(a.ldc) + ") spans more than 2^63 bytes");
  if (d_bytes < 0) return invalid("D (m " + num(a.m) + " x ldd " + num(a.ldd) + ") spans more than 2^63 bytes");
  Range const d_range = range_of(a.d, d_bytes);
  if (overlap(d_range, range_of(a.a, a_bytes))) return invalid("d overlaps a (D must not alias A)");
  if (overlap(d_range, range_of(a.b, b_bytes))) return invalid("d overlaps b (D must not alias B)");
  // every GPU block reads the scales in its epilogue, after other blocks may have stored D
  if (overlap(d_range, range_of(a.scale_a, a.scale_a == nullptr ? 0 : 4))) return invalid("d overlaps scale_a (D must not alias a scale)");
  if (overlap(d_range, range_of(a.scale_b, a.scale_b == nullptr ? 0 : 4))) return invalid("d overlaps scale_b (D must not alias a scale)");
  if (reads_c && overlap(d_range, range_of(a.c, c_bytes))) {
    bool const in_place = a.c == a.d && a.ldc == a.ldd && a.c_type == a.d_type;
    if (!in_place) return invalid("c overlaps d without being the same matrix (c == d, ldc == ldd, c_type == d_type)");
  }
  // ---- dtype combinations this target computes
  if (a.a_type != a.b_type) {
    return unsupported("a_type (" + dtype_text(a.a_type) + ") and b_type (" + dtype_text(a.b_type) + ") must be the same");
  }
  switch (a.a_type) {
    case FLY_DTYPE_F32: break;
    case FLY_DTYPE_E4M3FN:
      if (target == Target::gfx942) {
        return unsupported("a_type e4m3fn is not computed on gfx942 (its fp8 format is e4m3fnuz)");
      }
      break;
    case FLY_DTYPE_E4M3FNUZ:
      if (target == Target::sm90a) {
        return unsupported("a_type e4m3fnuz is computed only on gfx942 and the host backend (sm90a's fp8 format is e4m3fn)");
      }
      break;
    default:
      return unsupported("a_type " + dtype_text(a.a_type) + " is not supported: A and B must be e4m3fn, e4m3fnuz or f32");
  }
  if (a.d_type != FLY_DTYPE_F32 && a.d_type != FLY_DTYPE_F16 && a.d_type != FLY_DTYPE_BF16) {
    return unsupported("d_type " + dtype_text(a.d_type) + " is not supported: D must be f32, f16 or bf16");
  }
  if (reads_c && a.c_type != a.d_type) {
    return unsupported("c_type (" + dtype_text(a.c_type) + ") must equal d_type (" + dtype_text(a.d_type) + ") when C is read (beta != 0)");
  }

  GemmProblem& p = *out;
  p.m = a.m;
  p.n = a.n;
  p.k = a.k;
  p.lda = a.lda;
  p.ldb = a.ldb;
  p.ldc = reads_c ? a.ldc : 0;
  p.ldd = a.ldd;
  p.a = a.a_type;
  p.b = a.b_type;
  p.c = a.d_type;  // C's type is D's whenever C is read
  p.d = a.d_type;
  p.alpha = a.alpha;
  p.beta = a.beta;
  p.A = a.a;
  p.B = a.b;
  p.C = reads_c ? a.c : nullptr;
  p.D = a.d;
  p.scale_a = a.scale_a;
  p.scale_b = a.scale_b;
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::dispatch
