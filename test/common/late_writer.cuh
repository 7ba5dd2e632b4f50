// A kernel that plays the one before a library call in an engine: it lets its dependents launch at
// once (griddepcontrol.launch_dependents), so a programmatic dependent launch behind it is resident
// and runs whatever it does before griddepcontrol.wait while this one waits, then it overwrites the
// call's inputs. A call that read before its wait would see the old values.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace fly_test {

// What the late writer copies: up to 8 device ranges, after delay_ns.
struct LateCopies {
  struct Range {
    void* dst;
    const void* src;
    size_t bytes;
  } r[8];
  int n;
  unsigned long long delay_ns;
};

__global__ void late_writer(LateCopies c) {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < c.delay_ns);
  for (int k = 0; k < c.n; ++k) {  // cudaMalloc's pointers: 16-byte copies, then the tail's bytes
    auto* d = static_cast<unsigned char*>(c.r[k].dst);
    auto* s = static_cast<const unsigned char*>(c.r[k].src);
    const size_t vecs = c.r[k].bytes / 16;
    for (size_t i = threadIdx.x; i < vecs; i += blockDim.x)
      reinterpret_cast<uint4*>(d)[i] = reinterpret_cast<const uint4*>(s)[i];
    for (size_t i = 16 * vecs + threadIdx.x; i < c.r[k].bytes; i += blockDim.x) d[i] = s[i];
  }
}

}  // namespace fly_test
