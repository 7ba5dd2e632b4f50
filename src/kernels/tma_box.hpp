// A 2D TMA box over a row-major matrix of 1-, 2- or 4-byte elements (fp8 operands; bf16, f16 or f32
// D for the TMA-store epilogue), and what the hardware requires of it before a tensor map can be
// encoded (CUDA driver API, cuTensorMapEncodeTiled): a 16-byte aligned base, a row pitch that is a
// multiple of 16 bytes (below 2^40), extents in [1, 2^32] elements, box extents in [1, 256]
// elements with a box row a multiple of 16 bytes, and, for the 128-byte swizzle the GEMM tiles
// use, a box row of at most 128 bytes. Plain C++: the host tests check it without a GPU.
#pragma once

#include <cstdint>
#include <string>

#include "fly/layout/swizzle.hpp"

namespace fly::kernels {

struct TmaBox2d {
  const void* base;
  int64_t rows, cols, ld;  // the matrix: rows x cols bytes, rows ld bytes apart
  int box_rows, box_cols;  // the box: box_rows x box_cols bytes
  int elem_bytes = 1;      // 1, 2 or 4: the element the map counts in (coordinates, extents)
};

// Empty when the box can be encoded with the 128-byte swizzle, else the reason.
inline std::string tma_box_rejection(const TmaBox2d& b) {
  auto text = [](int64_t v) { return std::to_string(v); };
  if (b.elem_bytes != 1 && b.elem_bytes != 2 && b.elem_bytes != 4) return "elements of " + text(b.elem_bytes) + " bytes";
  if (b.cols % b.elem_bytes != 0 || b.box_cols % b.elem_bytes != 0)
    return "rows of " + text(b.cols) + " bytes or boxes of " + text(b.box_cols) + " are not whole " +
           text(b.elem_bytes) + "-byte elements";
  if (reinterpret_cast<uintptr_t>(b.base) % 16 != 0) return "the base address is not 16-byte aligned";
  const int64_t cols = b.cols / b.elem_bytes;
  if (b.rows < 1 || cols < 1 || b.rows > (int64_t{1} << 32) || cols > (int64_t{1} << 32))
    return "extents " + text(b.rows) + " x " + text(cols) + " elements are outside [1, 2^32]";
  if (b.ld < b.cols) return "the row pitch " + text(b.ld) + " is below the row's " + text(b.cols) + " bytes";
  if (b.ld % 16 != 0 || b.ld >= (int64_t{1} << 40))
    return "the row pitch " + text(b.ld) + " is not a multiple of 16 bytes below 2^40";
  if (b.box_rows < 1 || b.box_rows > 256 || b.box_cols < 1 || b.box_cols / b.elem_bytes > 256)
    return "box " + text(b.box_rows) + " x " + text(b.box_cols / b.elem_bytes) + " elements is outside [1, 256]";
  if (b.box_cols % 16 != 0) return "a box row of " + text(b.box_cols) + " bytes is not a multiple of 16";
  if (b.box_cols > 128) return "a box row of " + text(b.box_cols) + " bytes exceeds the 128-byte swizzle span";
  return {};
}

// Where byte (r, c) of a box lands in shared memory under the 128-byte swizzle (CuTe's
// Swizzle<3,4,3> of the row-major offset r * 128 + c: its 16-byte chunk c / 16 moves to chunk
// (c / 16) ^ (r % 8); the box base 1024-byte aligned).
constexpr int64_t swizzle128_offset(int64_t r, int64_t c) {
  return Swizzle<3, 4, 3>{}(r * 128 + c);
}

}  // namespace fly::kernels
