// Three small sm_90a kernels whose cubin test_regreport reads and checks against ptxas -v.
__global__ void tiny_plain_kernel(int* p) { p[threadIdx.x] = static_cast<int>(threadIdx.x) * 3; }

__global__ void tiny_smem_kernel(float* p, int n) {
  __shared__ float buf[1024];
  buf[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = buf[(threadIdx.x + static_cast<unsigned>(n)) & 1023u];
}

__global__ void tiny_stack_kernel(float* p, int n) {
  float local[256];  // too big for registers and indexed by run-time values: lives on the stack
  for (int i = 0; i < 256; ++i) local[i] = p[i * n];
  p[threadIdx.x] = local[n & 255] + local[(n >> 8) & 255];
}
