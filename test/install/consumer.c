// An engine linking libfly from C: version check, fly_create's automatic choice (which asks the GPU
// runtime a GPU build links: CUDA or HIP), and a 2x2x3 fp32 GEMM on the host backend.
#include <fly/fly.h>
#include <stdio.h>
int main(void) {
  if (fly_version() != FLY_VERSION) return 1;
  fly_handle_t h;
  if (fly_create(&h) != FLY_STATUS_SUCCESS) return 4;
  unsigned backend = 0;
  fly_handle_backend(h, &backend);
  printf("compiled backends %u, fly_create chose %u\n", fly_compiled_backends(), backend);
  fly_destroy(h);
  if (fly_create_host(&h) != FLY_STATUS_SUCCESS) return 2;
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 1, 0, 1, 0}, d[4] = {0};
  fly_gemm_args args = FLY_GEMM_ARGS_INIT;
  args.m = 2; args.n = 2; args.k = 3;
  args.a_type = args.b_type = args.c_type = args.d_type = FLY_DTYPE_F32;
  args.a = a; args.lda = 3; args.b = b; args.ldb = 3; args.d = d; args.ldd = 2;
  fly_status_t s = fly_gemm(h, &args, NULL, 0, NULL);
  printf("%s %g %g %g %g\n", fly_status_string(s), d[0], d[1], d[2], d[3]);
  fly_destroy(h);
  return s == FLY_STATUS_SUCCESS && d[0] == 4 && d[2] == 10 ? 0 : 3;
}
