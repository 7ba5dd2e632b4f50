// The GEMM registry of a library built without generated GPU kernels: no variants. The generated
// table replaces this file (see gemm_registry.hpp and src/dispatch/CMakeLists.txt).
#include "gemm_registry.hpp"

namespace fly::dispatch {

std::span<const GemmVariant> gemm_variants() { return {}; }

}  // namespace fly::dispatch
