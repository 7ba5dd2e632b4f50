// Each CASE must fail to compile with a static_assert that names the operation and the operand.
// test/compile_fail/CMakeLists.txt compiles this file once per case and matches the message.
#include "fly/arch/copy_gfx942.hpp"
#include "fly/layout.hpp"
#include "fly/tiled/copy.hpp"

using namespace fly;

#if defined(__CUDACC__) || defined(__HIP__)
#define FLY_CASE_FN __host__ __device__
#else
#define FLY_CASE_FN
#endif

FLY_CASE_FN int run_case(int n) {
#if CASE == 1
  // rank-2 complement with run-time strides: the modes cannot be ordered at compile time
  auto l = make_layout(make_shape(_4{}, _2{}), make_stride(n, 2 * n));
  return size(complement(l, _64{}));
#elif CASE == 2
  auto l = make_layout(make_shape(_4{}, _2{}), make_stride(_2{}, n));
  return size(right_inverse(l));
#elif CASE == 3
  // (3,2):(1,4) o 2:2 is not admissible: stride 2 does not divide shape 3
  auto a = make_layout(make_shape(_3{}, _2{}), make_stride(_1{}, _4{}));
  return a(n) + composition(a, make_layout(_2{}, _2{}))(n);
#elif CASE == 4
  return make_layout(make_shape(_4{}, _2{}), make_stride(_1{}))(n);
#elif CASE == 5
  // a block of 3 does not tile a shape of 8
  return size(tile_to_shape(make_layout(_3{}), make_shape(_8{})));
#elif CASE == 6
  // the origin report's failure, made a compile-time message: a 32-bit buffer load cannot fetch
  // fp8 values that are contiguous only in pairs
  unsigned char mem[64] = {};
  auto src = make_tensor(make_buffer_ptr(mem, 64u), make_layout(make_shape(_2{}, _8{}), make_stride(_1{}, _8{})));
  auto dst = make_tensor<unsigned char>(make_layout(make_shape(_2{}, _8{})));
  copy(Copy_Atom<BufferCopy32b, unsigned char>{}, src, dst);
  return dst[n];
#else
  return n;
#endif
}

#if defined(__CUDACC__) || defined(__HIP__)
__global__ void kernel(int* out) { out[0] = run_case(out[1]); }
#endif
int main() { return run_case(1); }
