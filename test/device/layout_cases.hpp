// Layouts built by the algebra, evaluated identically on the host, in a CUDA kernel and in a HIP
// kernel. Every layout here is static, so on the device the algebra must fold away completely.
#pragma once

#include "fly/layout.hpp"

namespace fly_test {

using namespace fly;

FLY_HD auto device_cases() {
  auto a = make_layout(make_shape(_6{}, _2{}), make_stride(_8{}, _2{}));
  auto b = make_layout(make_shape(_4{}, _3{}), make_stride(_3{}, _1{}));
  auto tv = make_layout(make_shape(make_shape(_4{}, _8{}), _4{}), make_stride(make_stride(_32{}, _1{}), _8{}));
  auto m = make_layout(make_shape(_16{}, _32{}), make_stride(_32{}, _1{}));
  return make_tuple(composition(a, b),                                                      //
                    complement(make_layout(make_shape(_2{}, _2{}), make_stride(_1{}, _6{})), _24{}),  //
                    left_inverse(tv),                                                       //
                    zipped_divide(m, make_tile(_4{}, _8{})),                                //
                    logical_product(make_layout(make_shape(_2{}, _2{})), make_layout(_3{}, _4{})),  //
                    blocked_product(make_layout(make_shape(_2{}, _2{})), make_layout(make_shape(_3{}, _4{}))),
                    raked_product(make_layout(make_shape(_2{}, _2{})), make_layout(make_shape(_3{}, _4{}))),
                    upcast<2>(m),                                                           //
                    make_fragment_like(tv),                                                 //
                    tile_to_shape(make_layout(make_shape(_2{}, _4{})), make_shape(_8{}, _8{})));
}

// Total number of values written: one per index of every case.
FLY_HD int device_case_values() {
  int n = 0;
  for_each(device_cases(), [&](auto const& l) { n += int(size(l)); });
  return n;
}

// out[offset(case) + i] = case(i), strided over `lanes` workers starting at `lane`.
FLY_HD void eval_cases(int* out, int lane, int lanes) {
  int offset = 0;
  for_each(device_cases(), [&](auto const& l) {
    for (int i = lane; i < int(size(l)); i += lanes) {
      out[offset + i] = int(l(i));
    }
    offset += int(size(l));
  });
}

// A layout with run-time extents: the same code path with dynamic integers.
FLY_HD int eval_dynamic(int rows, int cols, int i) {
  auto l = make_layout(make_shape(rows, cols), make_stride(cols, _1{}));  // row-major
  auto tiled = zipped_divide(l, make_tile(_2{}, _4{}));
  return int(tiled(i));
}

}  // namespace fly_test
