// coalesce: same function on the domain, fewest modes; by-mode with a profile; filter.
#include "layout_test_util.hpp"

namespace {
using namespace fly;
using namespace fly_test;

TEST(Coalesce, WorkedExamples) {
  EXPECT_LAYOUT(coalesce(make_layout(make_shape(_2{}, make_shape(_1{}, _6{})), make_stride(_1{}, make_stride(_6{}, _2{})))),
                "_12:_1");  // CuTe docs, coalesce
  EXPECT_LAYOUT(coalesce(make_layout(make_shape(_4{}, _3{}), make_stride(_3{}, _1{}))), "(_4,_3):(_3,_1)");
  EXPECT_LAYOUT(coalesce(make_layout(make_shape(_1{}, _1{}), make_stride(_4{}, _2{}))), "_1:_0");
  EXPECT_LAYOUT(coalesce(make_layout(make_shape(_2{}, _4{}, _3{}), make_stride(_1{}, _2{}, _16{}))), "(_8,_3):(_1,_16)");
}

TEST(Coalesce, ByModeKeepsTheOuterModes) {
  auto l = make_layout(make_shape(make_shape(_2{}, _4{}), make_shape(_3{}, _5{})),
                       make_stride(make_stride(_1{}, _2{}), make_stride(_8{}, _24{})));
  EXPECT_LAYOUT(coalesce(l, make_shape(_1{}, _1{})), "(_8,_15):(_1,_8)");
  EXPECT_LAYOUT(coalesce(l), "_120:_1");
}

TEST(Coalesce, DynamicModesAreKeptWhenMergingIsNotProvable) {
  int n = 4;
  auto l = make_layout(make_shape(_2{}, n), make_stride(_1{}, _2{}));
  auto c = coalesce(l);
  EXPECT_LAYOUT(c, "(_2,4):(_1,_2)");  // 2*1 == 2 holds, but the dynamic extent stays its own mode
  for (int i = 0; i < 8; ++i) EXPECT_EQ(c(i), l(i));
}

template <class L>
void check_coalesce(L const& l) {
  auto c = coalesce(l);
  EXPECT_EQ(int(size(c)), int(size(l))) << to_string(l);
  EXPECT_LE(int(depth(c)), 1) << to_string(c);
  for (int i = 0; i < int(size(l)); ++i) EXPECT_EQ(int(c(i)), int(l(i))) << to_string(l) << " at " << i;
  // maximal: no two adjacent modes of the result could still merge, none has size 1
  std::vector<int> fs, fd;
  for_each_leaf(c.shape(), [&](auto s) { fs.push_back(int(s)); });
  for_each_leaf(c.stride(), [&](auto d) { fd.push_back(int(d)); });
  for (size_t i = 0; i + 1 < fs.size(); ++i) EXPECT_NE(fs[i] * fd[i], fd[i + 1]) << to_string(c);
  if (fs.size() > 1) {
    for (int s : fs) EXPECT_NE(s, 1) << to_string(c);
  }
}

TEST(Coalesce, PropertyOverLayoutFamilies) {
  for_each(pow2_layouts(), [](auto l) { check_coalesce(l); });
  for_each(general_layouts(), [](auto l) { check_coalesce(l); });
}

TEST(Coalesce, FilterDropsStrideZeroAndSizeOneModes) {
  auto l = make_layout(make_shape(_4{}, _3{}, _1{}, _2{}), make_stride(_1{}, _0{}, _7{}, _4{}));
  EXPECT_LAYOUT(filter(l), "_8:_1");
  EXPECT_LAYOUT(filter_zeros(l), "(_4,_1,_1,_2):(_1,_0,_7,_4)");
}
}  // namespace
