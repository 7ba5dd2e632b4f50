// Encoding a TmaBox2d (tma_box.hpp) into a CUtensorMap on the host, for kernels that take it as a
// __grid_constant__ parameter: 1-, 2- or 4-byte elements, 128-byte swizzle, out-of-bounds reads
// zero-filled (and out-of-bounds parts of a stored box not written).
// The driver's encoder: cuda_tensor_map.hpp.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <string>

#include "cuda_tensor_map.hpp"
#include "fly/fly.h"
#include "status_internal.hpp"
#include "tma_box.hpp"

namespace fly::kernels {

// Encodes a box that tma_box_rejection accepted; elements as unsigned integers of b.elem_bytes
// (the TMA copies bits).
inline CUresult encode_tma_desc_2d(CUtensorMap* map, const TmaBox2d& b, PFN_cuTensorMapEncodeTiled_v12000 encode) {
  const cuuint64_t dims[2] = {cuuint64_t(b.cols / b.elem_bytes), cuuint64_t(b.rows)};
  const cuuint64_t strides[1] = {cuuint64_t(b.ld)};
  const cuuint32_t box[2] = {cuuint32_t(b.box_cols / b.elem_bytes), cuuint32_t(b.box_rows)};
  const cuuint32_t unit[2] = {1, 1};
  const CUtensorMapDataType type = b.elem_bytes == 4   ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                   : b.elem_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                                       : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  return encode(map, type, 2, const_cast<void*>(b.base), dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

inline fly_status_t make_tma_desc_2d(CUtensorMap* map, const TmaBox2d& b) {
  // a valid call whose operand the TMA cannot describe (e.g. a row pitch of 2^40 bytes or more)
  if (std::string why = tma_box_rejection(b); !why.empty())
    return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: a TMA-fed variant cannot read this operand: " + why);
  PFN_cuTensorMapEncodeTiled_v12000 const encode = fly::dispatch::tensor_map_encoder();
  if (encode == nullptr)
    return fly::detail::fail(FLY_STATUS_NOT_SUPPORTED, "fly_gemm: the CUDA driver has no cuTensorMapEncodeTiled");
  const CUresult r = encode_tma_desc_2d(map, b, encode);
  if (r != CUDA_SUCCESS)
    return fly::detail::fail(FLY_STATUS_DEVICE_ERROR, "fly_gemm: cuTensorMapEncodeTiled failed (CUresult " +
                                                          std::to_string(int(r)) + ")");
  return FLY_STATUS_SUCCESS;
}

// A tensor map for a box that tma_box_rejection accepted and the caller can do without (the
// TMA-store epilogue, which stores directly otherwise): true when it was encoded; no status, no message.
inline bool try_make_tma_desc_2d(CUtensorMap* map, const TmaBox2d& b) {
  PFN_cuTensorMapEncodeTiled_v12000 const encode = fly::dispatch::tensor_map_encoder();
  return encode != nullptr && encode_tma_desc_2d(map, b, encode) == CUDA_SUCCESS;
}

}  // namespace fly::kernels
