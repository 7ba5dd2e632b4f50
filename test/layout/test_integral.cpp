// Static integers: arithmetic stays static, results known regardless of a dynamic operand stay
// static, and the traits tell static from dynamic.
#include "layout_test_util.hpp"

namespace {
using namespace fly;

TEST(Integral, StaticArithmeticIsStatic) {
  auto x = _6{} * _4{} + _2{};
  static_assert(std::is_same_v<decltype(x), Int<26>>);
  static_assert(std::is_same_v<decltype(_7{} / _2{}), Int<3>>);
  static_assert(std::is_same_v<decltype(_7{} % _4{}), Int<3>>);
  static_assert(std::is_same_v<decltype(_4{} == _4{}), C<true>>);
  static_assert(std::is_same_v<decltype(-_3{}), Int<-3>>);
  EXPECT_EQ(int(x), 26);
}

TEST(Integral, MixedArithmeticIsDynamicUnlessDetermined) {
  int n = 5;
  static_assert(std::is_same_v<decltype(_3{} * n), int>);
  static_assert(std::is_same_v<decltype(_0{} * n), Int<0>>);
  static_assert(std::is_same_v<decltype(n * _0{}), Int<0>>);
  static_assert(std::is_same_v<decltype(_0{} / n), Int<0>>);
  static_assert(std::is_same_v<decltype(n % _1{}), Int<0>>);
  EXPECT_EQ(_3{} * n, 15);
  EXPECT_EQ(n + _2{}, 7);
}

TEST(Integral, Traits) {
  static_assert(is_static_v<_8> && !is_static_v<int>);
  static_assert(is_integral_v<_8> && is_integral_v<int64_t> && !is_integral_v<float>);
  static_assert(is_constant_v<8, _8> && !is_constant_v<8, _4> && !is_constant_v<8, int>);
  static_assert(std::is_empty_v<_8>);
  SUCCEED();
}

TEST(Integral, HelpersKeepStaticness) {
  static_assert(std::is_same_v<decltype(fly::min(_3{}, _5{})), Int<3>>);
  static_assert(std::is_same_v<decltype(fly::max(_3{}, _5{})), Int<5>>);
  static_assert(std::is_same_v<decltype(fly::abs(Int<-4>{})), Int<4>>);
  static_assert(std::is_same_v<decltype(fly::gcd(_12{}, _8{})), Int<4>>);
  static_assert(std::is_same_v<decltype(fly::signum(Int<-4>{})), Int<-1>>);
  EXPECT_EQ(fly::gcd(12, 18), 6);
  EXPECT_EQ(fly::min(7, _3{}), 3);
  EXPECT_EQ(fly::signum(-9), -1);
  EXPECT_EQ(fly::signum(0), 0);
}

TEST(Integral, ShapeDivAndCeilDiv) {
  static_assert(std::is_same_v<decltype(shape_div(_12{}, _4{})), Int<3>>);
  static_assert(std::is_same_v<decltype(shape_div(_4{}, _12{})), Int<1>>);  // 4 divides 12
  EXPECT_EQ(shape_div(12, 4), 3);
  EXPECT_EQ(shape_div(4, 12), 1);
  EXPECT_EQ(ceil_div(10, 4), 3);
  static_assert(std::is_same_v<decltype(ceil_div(_10{}, _4{})), Int<3>>);
  // by mode over a tuple: (6,4) / 12 divides 12 out of the modes in order
  EXPECT_EQ(to_string(shape_div(make_shape(_6{}, _4{}), _12{})), "(_1,_2)");
}
}  // namespace
