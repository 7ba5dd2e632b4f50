// Layout construction and queries, slicing and dicing, ordered and identity layouts.
#include "layout_test_util.hpp"

namespace {
using namespace fly;

TEST(Layout, ColumnMajorDefaultAndEvaluation) {
  auto l = make_layout(make_shape(_4{}, _3{}));
  EXPECT_LAYOUT(l, "(_4,_3):(_1,_4)");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(int(l(i, j)), i + 4 * j);
  auto r = make_layout(make_shape(4, 3), make_stride(3, _1{}));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(r(i, j), 3 * i + j);
  static_assert(std::is_empty_v<decltype(l)>);
  static_assert(decltype(l(_2{}, _1{}))::value == 6);  // static coordinate, static index
}

TEST(Layout, Queries) {
  auto l = make_layout(make_shape(make_shape(_2{}, _3{}), _4{}), make_stride(make_stride(_1{}, _8{}), _2{}));
  static_assert(decltype(size(l))::value == 24);
  static_assert(decltype(cosize(l))::value == 1 + 1 * 1 + 2 * 8 + 3 * 2);
  static_assert(decltype(rank(l))::value == 2 && decltype(depth(l))::value == 2);
  static_assert(decltype(size<0>(l))::value == 6);
  EXPECT_LAYOUT(get<0>(l), "(_2,_3):(_1,_8)");
  EXPECT_LAYOUT((get<0, 1>(l)), "_3:_8");
  EXPECT_EQ(to_string(shape<0>(l)), "(_2,_3)");
  EXPECT_EQ(to_string(stride<1>(l)), "_2");
  EXPECT_LAYOUT((select<1, 0>(l)), "(_4,(_2,_3)):(_2,(_1,_8))");
  EXPECT_LAYOUT((group<0, 2>(make_layout(make_shape(_2{}, _3{}, _4{})))), "((_2,_3),_4):((_1,_2),_6)");
  EXPECT_LAYOUT(append(make_layout(_2{}), make_layout(_3{}, _5{})), "(_2,_3):(_1,_5)");
  EXPECT_LAYOUT(prepend(make_layout(_2{}), make_layout(_3{}, _5{})), "(_3,_2):(_5,_1)");
  EXPECT_LAYOUT(make_layout(make_layout(_2{}, _4{}), make_layout(_3{}, _1{})), "(_2,_3):(_4,_1)");
}

TEST(Layout, SliceDiceAndOffset) {
  auto l = make_layout(make_shape(_4{}, make_shape(_2{}, _3{})), make_stride(_3{}, make_stride(_12{}, _1{})));
  EXPECT_LAYOUT(slice(make_coord(_, 1), l), "(_4):(_3)");
  EXPECT_LAYOUT(l(_, make_coord(_, 2)), "(_4,_2):(_3,_12)");
  EXPECT_LAYOUT(dice(make_coord(_, 1), l), "((_2,_3)):((_12,_1))");
  auto [sub, off] = slice_and_offset(make_coord(_, make_coord(1, 2)), l);
  EXPECT_LAYOUT(sub, "(_4):(_3)");
  EXPECT_EQ(off, 12 + 2);
  // a sliced layout plus its offset is the original layout on that slice
  for (int i = 0; i < 4; ++i) EXPECT_EQ(int(sub(i)) + off, int(l(i, make_coord(1, 2))));
}

TEST(Layout, OrderedLayout) {
  EXPECT_LAYOUT(make_ordered_layout(make_shape(_2{}, _3{}, _4{}), make_step(_1{}, _0{}, _2{})), "(_2,_3,_4):(_3,_1,_6)");
  EXPECT_LAYOUT(make_ordered_layout(make_shape(_2{}, _3{}), make_step(_1{}, _0{})), "(_2,_3):(_3,_1)");
  // ties keep the left mode first; a size-1 mode gets stride 0
  EXPECT_LAYOUT(make_ordered_layout(make_shape(_2{}, _1{}, _4{}), make_step(_0{}, _0{}, _0{})), "(_2,_1,_4):(_1,_0,_2)");
  EXPECT_LAYOUT(make_ordered_layout(make_shape(make_shape(_2{}, _2{}), _3{}), make_step(make_step(_2{}, _0{}), _1{})),
                "((_2,_2),_3):((_6,_1),_2)");
}

TEST(Layout, IdentityLayoutMapsCoordinatesToThemselves) {
  auto id = make_identity_layout(make_shape(_4{}, _3{}));
  EXPECT_LAYOUT(id, "(_4,_3):(_1@0,_1@1)");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      auto c = id(i, j);
      EXPECT_EQ(int(get<0>(c)), i);
      EXPECT_EQ(int(get<1>(c)), j);
    }
  auto nested = make_identity_layout(make_shape(make_shape(_2{}, _2{}), _3{}));
  EXPECT_LAYOUT(nested, "((_2,_2),_3):((_1@0@0,_1@0@1),_1@1)");
  auto c = nested(make_coord(make_coord(1, 1), 2));
  EXPECT_EQ(to_string(c), "((1,1),2)");
}

TEST(Layout, DynamicAndStaticMixFreely) {
  int m = 5;
  auto l = make_layout(make_shape(m, _4{}), make_stride(_4{}, _1{}));
  EXPECT_LAYOUT(l, "(5,_4):(_4,_1)");
  EXPECT_EQ(size(l), 20);
  EXPECT_EQ(cosize(l), 20);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(l(i), (i % 5) * 4 + i / 5);
}
}  // namespace
