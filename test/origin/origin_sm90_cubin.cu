// The origin kernels' device code alone, compiled to a cubin for the register comparison.
#include "origin_sm90_kernels.cuh"
