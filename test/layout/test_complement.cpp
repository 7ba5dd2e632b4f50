// complement: ordered, disjoint from the image of A, and together with A covering the cotarget.
#include "layout_test_util.hpp"

namespace {
using namespace fly;
using namespace fly_test;

TEST(Complement, WorkedExamples) {
  // CuTe docs, "Complement" examples
  EXPECT_LAYOUT(complement(make_layout(_4{}, _1{}), _24{}), "_6:_4");
  EXPECT_LAYOUT(complement(make_layout(_6{}, _4{}), _24{}), "_4:_1");
  EXPECT_LAYOUT(complement(make_layout(make_shape(_4{}, _6{}), make_stride(_1{}, _4{})), _24{}), "_1:_0");
  EXPECT_LAYOUT(complement(make_layout(_4{}, _2{}), _24{}), "(_2,_3):(_1,_8)");
  EXPECT_LAYOUT(complement(make_layout(make_shape(_2{}, _4{}), make_stride(_1{}, _6{})), _24{}), "_3:_2");
  EXPECT_LAYOUT(complement(make_layout(make_shape(_2{}, _2{}), make_stride(_1{}, _6{})), _24{}), "(_3,_2):(_2,_12)");
}

TEST(Complement, DefaultCotargetIsCosize) {
  EXPECT_LAYOUT(complement(make_layout(_4{}, _2{})), "_2:_1");
  EXPECT_LAYOUT(complement(make_layout(make_shape(_2{}, _2{}), make_stride(_4{}, _1{}))), "_2:_2");
}

TEST(Complement, RankOneWithDynamicStride) {
  int d = 3;
  auto c = complement(make_layout(_4{}, d), 24);
  EXPECT_LAYOUT(c, "(3,2):(_1,12)");
}

template <class A, class T>
void check_complement(A const& a, T cotarget) {
  auto r = complement(a, cotarget);
  std::string what = "complement(" + to_string(a) + ", " + std::to_string(int(cotarget)) + ") = " + to_string(r);
  // ordered
  for (int i = 1; i < int(size(r)); ++i) EXPECT_LT(int(r(i - 1)), int(r(i))) << what;
  // disjoint from the image of A (0 is shared by construction)
  auto img = image(a);
  for (int i = 1; i < int(size(r)); ++i) EXPECT_EQ(img.count(int64_t(r(i))), 0u) << what << " at " << i;
  // A and its complement together are injective and cover the cotarget
  auto both = make_layout(a, r);
  EXPECT_TRUE(injective(both)) << what;
  EXPECT_GE(int(size(filter(a))) * int(size(r)), int(cotarget)) << what;
  // bounded: nothing is spent past the cotarget's last tile
  EXPECT_LT(int(r(int(size(r)) - 1)), int(cotarget) * int(cosize(a))) << what;
}

TEST(Complement, PropertyOverLayoutFamilies) {
  for_each(pow2_layouts(), [](auto a) {
    check_complement(a, cosize(a));
    check_complement(a, _128{});
    check_complement(a, _256{});
  });
  for_each(general_layouts(), [](auto a) { check_complement(a, cosize(a) * _2{}); });
}
}  // namespace
