// libFuzzer target: fly_gemm's validation and host backend on arguments drawn from the input
// (sizes, leading dimensions, dtypes including values outside the enum, alpha, beta, C or not,
// C in place of D, scales), with A, B, C and D allocated to exactly the spans the arguments
// describe and filled with input bytes (NaN and infinity codes included). The library must return
// a status, never crash, read or write outside those buffers (ASan), or hit undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fly/fly.h"
#include "fuzz_input.hpp"

namespace {

size_t type_bytes(fly_dtype_t t) {
  return t == FLY_DTYPE_F32 ? 4 : t == FLY_DTYPE_F16 || t == FLY_DTYPE_BF16 ? 2 : 1;
}

// rows x ld elements of `bytes` each, the last row only `cols` long (1 for a degenerate matrix)
size_t span(int64_t rows, int64_t cols, int64_t ld, size_t bytes) {
  if (rows <= 0 || cols <= 0 || ld < 0) return bytes;
  return size_t((rows - 1) * ld + cols) * bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fly_fuzz::Input in(data, size);
  fly_gemm_args a = FLY_GEMM_ARGS_INIT;
  const fly_dtype_t types[] = {FLY_DTYPE_E4M3FN, FLY_DTYPE_F32, FLY_DTYPE_E4M3FNUZ, FLY_DTYPE_BF16, FLY_DTYPE_F16};
  a.m = in.range(-1, 40);
  a.n = in.range(-1, 40);
  a.k = in.range(-1, 70);
  a.a_type = types[in.pick(3)];
  a.b_type = in.pick(8) == 0 ? types[in.pick(5)] : a.a_type;
  a.d_type = types[1 + in.pick(4)];
  a.c_type = in.pick(8) == 0 ? types[in.pick(5)] : a.d_type;
  if (in.pick(32) == 0) std::memset(&a.d_type, 0x7E, sizeof a.d_type);  // outside the enum
  a.lda = a.k + in.range(-1, 5);
  a.ldb = a.k + in.range(-1, 5);
  a.ldd = a.n + in.range(-1, 5);
  a.ldc = in.pick(4) == 0 ? a.ldd : a.n + in.range(-1, 5);
  a.alpha = in.pick(4) == 0 ? in.f32() : 1.f;
  a.beta = in.pick(2) == 0 ? in.f32() : 0.f;
  const int64_t limit = int64_t{1} << 20;
  if (a.m * a.lda > limit || a.n * a.ldb > limit || a.m * (a.ldc > a.ldd ? a.ldc : a.ldd) > limit) return 0;

  std::vector<uint8_t> A(span(a.m, a.k, a.lda, type_bytes(a.a_type))), B(span(a.n, a.k, a.ldb, type_bytes(a.b_type)));
  std::vector<uint8_t> C(span(a.m, a.n, a.ldc, type_bytes(a.c_type))), D(span(a.m, a.n, a.ldd, 4));
  float scales[2] = {in.f32(), in.f32()};
  in.fill(A.data(), A.size());
  in.fill(B.data(), B.size());
  in.fill(C.data(), C.size());
  a.a = A.data();
  a.b = B.data();
  const int c_mode = int(in.pick(4));  // 0: no C, 1: C, 2: C is D (in place), 3: C null with beta set
  a.c = c_mode == 1 ? static_cast<const void*>(C.data()) : c_mode == 2 ? static_cast<const void*>(D.data()) : nullptr;
  if (c_mode == 2) {
    a.ldc = a.ldd;
    std::memcpy(&a.c_type, &a.d_type, sizeof a.c_type);  // d_type may hold a value outside the enum
  }
  a.d = D.data();
  a.scale_a = in.pick(2) ? &scales[0] : nullptr;
  a.scale_b = in.pick(2) ? &scales[1] : nullptr;
  if (in.pick(64) == 0) a.b = nullptr;

  size_t ws = 0;
  if (fly_gemm_workspace_size(fly_fuzz::host_handle(), &a, &ws) == FLY_STATUS_SUCCESS) {
    std::vector<unsigned char> workspace(ws + 1);
    (void)fly_gemm(fly_fuzz::host_handle(), &a, ws ? workspace.data() : nullptr, ws, nullptr);
  } else {
    (void)fly_gemm(fly_fuzz::host_handle(), &a, nullptr, 0, nullptr);
  }
  char line[FLY_GEMM_EXPLAIN_BYTES];
  (void)fly_gemm_explain(fly_fuzz::host_handle(), &a, line, sizeof line);
  return 0;
}
