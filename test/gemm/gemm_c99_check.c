/* Compiled as C99: fly_gemm_args, FLY_GEMM_ARGS_INIT and the GEMM calls are plain C. */
#include "fly/fly.h"

/* A 1x1x1 f32 GEMM on the host backend through the C API; returns its status, writes D to *out. */
int fly_test_c99_gemm(float a, float b, float* out) {
  fly_handle_t handle = NULL;
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  fly_status_t status = fly_create_host(&handle);
  if (status != FLY_STATUS_SUCCESS) return (int)status;
  args.m = 1;
  args.n = 1;
  args.k = 1;
  args.a = &a;
  args.lda = 1;
  args.b = &b;
  args.ldb = 1;
  args.d = out;
  args.ldd = 1;
  status = fly_gemm(handle, &args, NULL, 0, NULL);
  fly_destroy(handle);
  return (int)status;
}

/* FLY_GEMM_ARGS_INIT's values, as C sees them: 1 when all are as documented. */
int fly_test_c99_gemm_init(void) {
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  return args.struct_size == sizeof(fly_gemm_args) && args.m == 0 && args.alpha == 1.0f && args.beta == 0.0f &&
         args.a == NULL && args.c == NULL && args.scale_a == NULL && args.scale_b == NULL && args.a_type == FLY_DTYPE_F32;
}

/* fly_dtype_string of any int. */
const char* fly_test_c99_dtype_string(int value) { return fly_dtype_string((fly_dtype_t)value); }

/* fly_gemm_workspace_size's status on `handle` for a valid 1x1x1 f32 problem whose a_type is `value`. */
int fly_test_c99_a_type_status(fly_handle_t handle, int value) {
  float a = 1.0f, b = 1.0f, d = 0.0f;
  size_t bytes = 0;
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = args.n = args.k = 1;
  args.a_type = (fly_dtype_t)value;
  args.a = &a;
  args.b = &b;
  args.d = &d;
  args.lda = args.ldb = args.ldd = 1;
  return (int)fly_gemm_workspace_size(handle, &args, &bytes);
}
