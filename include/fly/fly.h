/* libfly C API. C99; every entry point returns a status, never throws, never aborts.
 *
 * Today this header carries the conventions every later entry (fly_gemm, fly_pa_decode) follows:
 * one status enum, a string for each status, a thread-local detail message for the last failure,
 * and the library version. */
#ifndef FLY_FLY_H
#define FLY_FLY_H

#include "fly/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fly_status_t {
  FLY_STATUS_SUCCESS = 0,
  FLY_STATUS_INVALID_ARGUMENT = 1,  /* a null pointer, a size out of range, a mismatched struct size */
  FLY_STATUS_NOT_SUPPORTED = 2,     /* valid request the device or this build cannot compute */
  FLY_STATUS_INSUFFICIENT_WORKSPACE = 3,
  FLY_STATUS_DEVICE_ERROR = 4,      /* the CUDA/HIP runtime reported an error */
  FLY_STATUS_INTERNAL_ERROR = 5
} fly_status_t;

/* A static string naming the status, e.g. "FLY_STATUS_INVALID_ARGUMENT". Unknown values give
 * "FLY_STATUS_UNKNOWN". */
const char* fly_status_string(fly_status_t status);

/* The detail message of the last failing call on this thread ("" if none). The pointer stays
 * valid until the next libfly call on the same thread. */
const char* fly_last_error(void);

/* The version of the linked library, FLY_VERSION's encoding; compare with FLY_VERSION from the
 * header you compiled against. */
int fly_version(void);

/* The backends compiled into this libfly.a, as a bit set of FLY_BACKEND_*. */
enum { FLY_BACKEND_HOST = 1, FLY_BACKEND_CUDA = 2, FLY_BACKEND_HIP = 4 };
unsigned fly_compiled_backends(void);

#ifdef __cplusplus
}
#endif

#endif /* FLY_FLY_H */
