// The paged-decode registry of a library built without generated GPU kernels: no variants. The
// generated table replaces this file (pa_decode_registry.hpp).
#include "pa_decode_registry.hpp"

namespace fly::dispatch {

std::span<const PaDecodeVariant> pa_decode_variants() { return {}; }

}  // namespace fly::dispatch
