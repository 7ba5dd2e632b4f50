// Shared pieces of the layout tests: families of static layouts to run properties over, and
// small checks (image, injectivity) computed by plain loops, independent of the algebra.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fly/layout.hpp"

namespace fly {
// Static integers outside the shorthand list that the tests use.
using _177 = Int<177>;
}  // namespace fly

namespace fly_test {

using namespace fly;

// Every static layout of this family has power-of-two shapes and strides, so every composition,
// divide and product between members is admissible (one of any two extents divides the other).
inline auto pow2_layouts() {
  return make_tuple(make_layout(_8{}),                                                         //
                    make_layout(_4{}, _2{}),                                                   //
                    make_layout(make_shape(_2{}, _4{})),                                       //
                    make_layout(make_shape(_4{}, _2{}), make_stride(_2{}, _1{})),              //
                    make_layout(make_shape(_2{}, _2{}, _2{}), make_stride(_4{}, _1{}, _2{})),  //
                    make_layout(make_shape(_4{}, _4{}), make_stride(_1{}, _8{})),              // gapped
                    make_layout(make_shape(make_shape(_2{}, _2{}), _4{}), make_stride(make_stride(_1{}, _8{}), _2{})),
                    make_layout(make_shape(_8{}, make_shape(_2{}, _2{})), make_stride(_4{}, make_stride(_1{}, _2{}))),
                    make_layout(make_shape(_2{}, _8{}), make_stride(_16{}, _1{})),              // gapped rows
                    make_layout(make_shape(_16{}, _4{}), make_stride(_4{}, _1{})));
}

// Tilers (right operands) for the family above.
inline auto pow2_tilers() {
  return make_tuple(make_layout(_2{}), make_layout(_4{}, _2{}), make_layout(make_shape(_2{}, _2{}), make_stride(_1{}, _4{})),
                    make_layout(make_shape(_2{}, _2{}), make_stride(_2{}, _1{})), make_layout(_8{}, _1{}),
                    make_layout(make_shape(_2{}, _4{}), make_stride(_4{}, _1{})));
}

// Layouts whose shapes are not all powers of two, for the operations that need no divisibility.
inline auto general_layouts() {
  return make_tuple(make_layout(make_shape(_3{}, _5{})),                                 //
                    make_layout(make_shape(_3{}, _5{}), make_stride(_5{}, _1{})),        //
                    make_layout(make_shape(_6{}, _2{}), make_stride(_8{}, _2{})),        //
                    make_layout(make_shape(make_shape(_3{}, _2{}), _7{}), make_stride(make_stride(_14{}, _1{}), _2{})),
                    make_layout(make_shape(_2{}, _3{}, _4{}), make_stride(_12{}, _4{}, _1{})),
                    make_layout(make_shape(_5{}, _1{}, _3{}), make_stride(_3{}, _0{}, _1{})));
}

template <class L>
std::vector<int64_t> values(L const& l) {
  std::vector<int64_t> v;
  for (int i = 0; i < int(size(l)); ++i) v.push_back(int64_t(l(i)));
  return v;
}

template <class L>
std::set<int64_t> image(L const& l) {
  auto v = values(l);
  return {v.begin(), v.end()};
}

template <class L>
bool injective(L const& l) {
  return image(l).size() == size_t(size(l));
}

}  // namespace fly_test

// EXPECT_LAYOUT(layout, "shape:stride") compares CuTe's printed notation.
#define EXPECT_LAYOUT(expr, text) EXPECT_EQ(fly::to_string(expr), std::string(text)) << #expr
