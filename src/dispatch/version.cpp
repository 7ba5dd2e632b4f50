// Version and build-configuration queries of the C API.
#include "fly/fly.h"

extern "C" int fly_version(void) { return FLY_VERSION; }

extern "C" unsigned fly_compiled_backends(void) {
  unsigned backends = FLY_BACKEND_HOST;
#if defined(FLY_HAS_CUDA)
  backends |= FLY_BACKEND_CUDA;
#endif
#if defined(FLY_HAS_HIP)
  backends |= FLY_BACKEND_HIP;
#endif
  return backends;
}
