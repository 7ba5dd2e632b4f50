// IntTuple algorithms: rank, depth, get, products, flatten, compact strides, coordinates.
#include "layout_test_util.hpp"

namespace {
using namespace fly;

TEST(IntTuple, RankDepthGet) {
  auto t = make_shape(_2{}, make_shape(3, _4{}), make_shape(make_shape(_5{})));
  static_assert(decltype(rank(t))::value == 3);
  static_assert(decltype(depth(t))::value == 3);
  static_assert(decltype(depth(_2{}))::value == 0);
  static_assert(decltype(rank<1>(t))::value == 2);
  EXPECT_EQ((get<1, 0>(t)), 3);
  static_assert(std::is_same_v<decltype(get<2, 0, 0>(t)), Int<5>>);
  EXPECT_EQ(int(product(t)), 2 * 3 * 4 * 5);
  EXPECT_EQ(int(sum(t)), 2 + 3 + 4 + 5);
}

TEST(IntTuple, StaticTuplesAreEmpty) {
  auto t = make_shape(_2{}, make_shape(_3{}, _4{}));
  static_assert(std::is_empty_v<decltype(t)> && is_static_v<decltype(t)>);
  auto d = make_shape(_2{}, 3);
  static_assert(!is_static_v<decltype(d)>);
  EXPECT_EQ(sizeof(d), sizeof(int));  // only the dynamic member takes storage
}

TEST(IntTuple, FlattenUnwrapGroupTakeAppend) {
  auto t = make_shape(_2{}, make_shape(_3{}, make_shape(_4{}, _5{})));
  EXPECT_EQ(to_string(flatten(t)), "(_2,_3,_4,_5)");
  EXPECT_EQ(to_string(unwrap(make_tuple(make_tuple(_7{})))), "_7");
  EXPECT_EQ(to_string(group<1, 3>(make_shape(_1{}, _2{}, _3{}, _4{}))), "(_1,(_2,_3),_4)");
  EXPECT_EQ(to_string(take<1, 3>(make_shape(_1{}, _2{}, _3{}, _4{}))), "(_2,_3)");
  EXPECT_EQ(to_string(append<4>(make_shape(_1{}, _2{}), _9{})), "(_1,_2,_9,_9)");
  EXPECT_EQ(to_string(prepend(make_shape(_1{}, _2{}), _9{})), "(_9,_1,_2)");
  EXPECT_EQ(to_string(select<2, 0>(make_shape(_1{}, _2{}, _3{}))), "(_3,_1)");
  EXPECT_EQ(to_string(zip(make_shape(_1{}, _2{}), make_shape(_3{}, _4{}))), "((_1,_3),(_2,_4))");
  EXPECT_EQ(to_string(reverse(make_shape(_1{}, _2{}, _3{}))), "(_3,_2,_1)");
  EXPECT_EQ(to_string(replace<1>(make_shape(_1{}, _2{}, _3{}), _7{})), "(_1,_7,_3)");
  EXPECT_EQ(to_string(remove<0>(make_shape(_1{}, _2{}, _3{}))), "(_2,_3)");
}

TEST(IntTuple, CompactStrides) {
  EXPECT_EQ(to_string(compact_col_major(make_shape(_2{}, _3{}, _4{}))), "(_1,_2,_6)");
  EXPECT_EQ(to_string(compact_row_major(make_shape(_2{}, _3{}, _4{}))), "(_12,_4,_1)");
  EXPECT_EQ(to_string(compact_col_major(make_shape(_2{}, make_shape(_3{}, 4), _5{}))), "(_1,(_2,_6),24)");
  // a static size-1 mode is never stepped
  EXPECT_EQ(to_string(compact_col_major(make_shape(_2{}, _1{}, _4{}))), "(_1,_0,_2)");
}

TEST(IntTuple, Idx2CrdIsColexicographicAndInvertsCrd2Idx) {
  auto shape = make_shape(_3{}, make_shape(_2{}, _4{}));
  auto stride = compact_col_major(shape);
  for (int i = 0; i < 24; ++i) {
    auto c = idx2crd(i, shape);
    EXPECT_EQ(int(get<0>(c)), i % 3);
    EXPECT_EQ(int(get<1, 0>(c)), (i / 3) % 2);
    EXPECT_EQ(int(get<1, 1>(c)), i / 6);
    EXPECT_EQ(int(crd2idx(c, shape, stride)), i);
    EXPECT_EQ(int(crd2idx(i, shape, stride)), i);  // a 1-D coordinate gives the same index
  }
}

TEST(IntTuple, Crd2IdxLastModeIsUnbounded) {
  // past the shape, the index keeps walking along the last mode (composition relies on it)
  auto shape = make_shape(_2{}, _3{});
  auto stride = make_stride(_1{}, _10{});
  EXPECT_EQ(int(crd2idx(7, shape, stride)), 1 + 3 * 10);
}

TEST(IntTuple, CongruenceAndEquality) {
  static_assert(congruent_v<decltype(make_shape(1, make_shape(2, 3))), decltype(make_shape(4, make_shape(5, 6)))>);
  static_assert(!congruent_v<decltype(make_shape(1, 2)), decltype(make_shape(4, make_shape(5, 6)))>);
  static_assert(weakly_congruent_v<decltype(make_shape(1, 2)), decltype(make_shape(4, make_shape(5, 6)))>);
  static_assert(decltype(make_shape(_2{}, _3{}) == make_shape(_2{}, _3{}))::value);
  static_assert(!decltype(make_shape(_2{}, _3{}) == make_shape(_2{}, _4{}))::value);
  EXPECT_TRUE(bool(make_shape(2, 3) == make_shape(2, 3)));
  EXPECT_FALSE(bool(make_shape(2, 3) == make_shape(2, 4)));
}
}  // namespace
