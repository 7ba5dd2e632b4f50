// Printing matches CuTe's notation exactly.
#include "layout_test_util.hpp"

namespace {
using namespace fly;

TEST(Print, CuteNotation) {
  EXPECT_LAYOUT(make_layout(_6{}, _4{}), "_6:_4");
  EXPECT_LAYOUT(make_layout(make_shape(_2{}, _3{}), make_stride(_1{}, _8{})), "(_2,_3):(_1,_8)");
  EXPECT_LAYOUT(make_layout(make_shape(make_shape(5, 1), make_shape(2, 2)), make_stride(make_stride(16, 4), make_stride(80, 4))),
                "((5,1),(2,2)):((16,4),(80,4))");
  EXPECT_LAYOUT(make_layout(8, 1), "8:1");
  EXPECT_EQ(to_string(make_shape(_2{}, 3, make_shape(_4{}))), "(_2,3,(_4))");
  EXPECT_EQ(to_string(Int<-3>{}), "_-3");
  EXPECT_EQ(to_string(E<1>{} * 5), "5@1");
  std::ostringstream os;
  os << make_layout(make_shape(_4{}, 2));
  EXPECT_EQ(os.str(), "(_4,2):(_1,_4)");
}
}  // namespace
