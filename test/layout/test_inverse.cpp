// right_inverse: L(R(i)) == i on R's domain; left_inverse: R(L(i)) == i for injective L.
#include "layout_test_util.hpp"

namespace {
using namespace fly;
using namespace fly_test;

TEST(Inverse, WorkedExamples) {
  EXPECT_LAYOUT(right_inverse(make_layout(make_shape(_2{}, _2{}), make_stride(_2{}, _1{}))), "(_2,_2):(_2,_1)");
  EXPECT_LAYOUT(right_inverse(make_layout(make_shape(_4{}, _8{}), make_stride(_8{}, _1{}))), "(_8,_4):(_4,_1)");
  EXPECT_LAYOUT(right_inverse(make_layout(_4{}, _2{})), "_1:_0");  // stride 1 never reached
  // odd offsets are not reached: CuTe's inverse sends them through a stride-0 mode
  EXPECT_LAYOUT(left_inverse(make_layout(_4{}, _2{})), "(_2,_4):(_0,_1)");
  // a thread-value layout: 32 threads x 4 values of a 16x8 row-major tile
  auto tv = make_layout(make_shape(make_shape(_4{}, _8{}), _4{}), make_stride(make_stride(_32{}, _1{}), _8{}));
  EXPECT_LAYOUT(right_inverse(tv), "(_32,_4):(_4,_1)");
}

template <class L>
void check_right_inverse(L const& l) {
  auto r = right_inverse(l);
  for (int i = 0; i < int(size(r)); ++i) EXPECT_EQ(int(l(r(i))), i) << to_string(l) << " R=" << to_string(r);
}
template <class L>
void check_left_inverse(L const& l) {
  auto r = left_inverse(l);
  for (int i = 0; i < int(size(l)); ++i) EXPECT_EQ(int(r(l(i))), i) << to_string(l) << " L=" << to_string(r);
}

TEST(Inverse, PropertyOverLayoutFamilies) {
  for_each(pow2_layouts(), [](auto l) {
    check_right_inverse(l);
    check_left_inverse(l);
  });
  for_each(general_layouts(), [](auto l) {
    check_right_inverse(l);
    if (injective(l)) check_left_inverse(l);
  });
}

TEST(Inverse, CompactLayoutsHaveFullRightInverse) {
  for_each(pow2_layouts(), [](auto l) {
    if (int(cosize(l)) == int(size(l))) {
      EXPECT_EQ(int(size(right_inverse(l))), int(size(l))) << to_string(l);
    }
  });
}
}  // namespace
