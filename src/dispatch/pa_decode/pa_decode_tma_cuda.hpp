// Launching a TMA-fed paged-decode variant (pa_decode_warp_feed.cuh's TmaFeed): the K and V tensor
// maps (pa_decode_tma.hpp) are encoded on the host for this call, with no device work, and passed
// with the parameters as the kernel's __grid_constant__ argument; a captured graph keeps them, so
// replays see new data, tables and lengths in the same buffers (the maps name only the caches).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "cuda_tensor_map.hpp"
#include "pa_decode_launch_cuda.hpp"
#include "pa_decode_tma.hpp"
#include "pa_decode_warp_feed.cuh"
#include "status_internal.hpp"

namespace fly::dispatch {

inline fly_status_t encode_pa_decode_map(CUtensorMap* map, const PaDecodeTmaTensor& t) {
  PFN_cuTensorMapEncodeTiled_v12000 const encode = tensor_map_encoder();
  if (encode == nullptr)
    return detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_pa_decode: the CUDA driver has no cuTensorMapEncodeTiled");
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5];
  const cuuint32_t unit[5] = {1, 1, 1, 1, 1};
  for (int i = 0; i < 5; ++i) {
    dims[i] = t.dims[i];
    box[i] = t.box[i];
    if (i < 4) strides[i] = t.strides[i];
  }
  const CUresult r = encode(map, t.elem_bytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_UINT16, 5,
                            const_cast<void*>(t.base), dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return detail::fail(FLY_STATUS_DEVICE_ERROR, "fly_pa_decode: cuTensorMapEncodeTiled failed (CUresult " +
                                                     std::to_string(int(r)) + ")");
  return FLY_STATUS_SUCCESS;
}

template <class Tile, int ReduceThreads>
fly_status_t launch_pa_decode_tma_cuda(void (*kernel)(kernels::PaDecodeTmaArgs),
                                       void (*reduce)(kernels::PaDecodeParams, bool), const PaDecodeProblem& p,
                                       const PaDecodePlan& plan, void* stream) {
  if (std::string why = pa_decode_tma_rejection(p); !why.empty())  // the dispatcher checked it: a direct call
    return detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_pa_decode: no TMA tensor for this cache: " + why);
  return launch_pa_decode<Tile, ReduceThreads>(kernel, reduce, p, plan, stream,
                                               [&](const kernels::PaDecodeParams& params, kernels::PaDecodeTmaArgs& a) {
                                                 a.p = params;
                                                 fly_status_t s = encode_pa_decode_map(&a.k, pa_decode_tma_tensor(p, false));
                                                 if (s == FLY_STATUS_SUCCESS) s = encode_pa_decode_map(&a.v, pa_decode_tma_tensor(p, true));
                                                 return s;
                                               });
}

}  // namespace fly::dispatch
