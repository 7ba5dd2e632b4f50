// The one source of libfly.so (CMakeLists.txt, fly_shared): its code is libfly.a, linked whole, so
// the shared library exports the same C API (fly.h) that the static one defines. The Python
// package (python/libfly) loads it.
#include "fly/fly.h"
