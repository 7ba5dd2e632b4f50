/* Compiled as C99: the public header must stay plain C. */
#include "fly/fly.h"

int fly_test_c99_version(void) { return fly_version(); }
const char* fly_test_c99_status(void) { return fly_status_string(FLY_STATUS_NOT_SUPPORTED); }
