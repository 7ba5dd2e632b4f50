// Representation parity with CuTe: each expected string below was printed by CuTe's own `print`
// (CUTLASS 4.2.0, include/cute/layout.hpp, from the nvidia-cutlass wheel on PyPI), through a scratch
// harness that runs the same calls on CuTe and on libfly; they are not computed by fly. Both of
// fly's implementations must print exactly these layouts: the compile-time algebra (fly::) and the
// run-time one (fly::dyn, on the same operands converted by to_dynamic). See "Representation
// parity with CuTe" in docs/layout-algebra.md for what was compared and what is left out.
#include <optional>
#include <string>

#include "fly/layout/to_dynamic.hpp"
#include "layout_test_util.hpp"

namespace {
using namespace fly;
namespace d = fly::dyn;

// The run-time algebra with the static operands of a case: layouts through to_dynamic, a tuple
// tiler as a d::Tiler (`_` is nullopt, an integer N the layout N:1), shapes as IntTuples.
namespace dy {
template <class T>
auto operand(T const& t) {
  if constexpr (is_layout_v<T>) {
    return d::to_dynamic(t);
  } else if constexpr (is_tuple_v<T>) {  // a tiler of modes
    d::Tiler r;
    for_each(t, [&](auto const& m) {
      if constexpr (is_layout_v<decltype(m)>) {
        r.push_back(d::to_dynamic(m));
      } else if constexpr (is_underscore_v<decltype(m)>) {
        r.push_back(std::nullopt);
      } else {
        r.push_back(d::make_layout(d::to_dynamic(m)));
      }
    });
    return r;
  } else {
    return int64_t(t);
  }
}
#define FLY_DY_UNARY(f) \
  template <class A>    \
  d::Layout f(A const& a) { return d::f(operand(a)); }
#define FLY_DY_BINARY(f)           \
  template <class A, class B>      \
  d::Layout f(A const& a, B const& b) { return d::f(operand(a), operand(b)); }
FLY_DY_UNARY(left_inverse)
FLY_DY_UNARY(right_inverse)
FLY_DY_UNARY(coalesce)
FLY_DY_UNARY(complement)
FLY_DY_BINARY(blocked_product)
FLY_DY_BINARY(raked_product)
FLY_DY_BINARY(logical_product)
FLY_DY_BINARY(zipped_product)
FLY_DY_BINARY(tiled_product)
FLY_DY_BINARY(flat_product)
FLY_DY_BINARY(logical_divide)
FLY_DY_BINARY(zipped_divide)
FLY_DY_BINARY(tiled_divide)
FLY_DY_BINARY(flat_divide)
FLY_DY_BINARY(composition)
FLY_DY_BINARY(complement)
#undef FLY_DY_UNARY
#undef FLY_DY_BINARY
// The by-mode coalesce and tile_to_shape take IntTuples (profile, target shape, order).
template <class A, class P>
d::Layout coalesce(A const& a, P const& profile) {
  return d::coalesce(operand(a), d::to_dynamic(profile));
}
template <class A, class T>
d::Layout tile_to_shape(A const& a, T const& target) {
  return d::tile_to_shape(operand(a), d::to_dynamic(target));
}
template <class A, class T, class O>
d::Layout tile_to_shape(A const& a, T const& target, O const& order) {
  return d::tile_to_shape(operand(a), d::to_dynamic(target), d::to_dynamic(order));
}
}  // namespace dy

// PARITY(cute, f, args...): fly::f(args...) and fly::dyn::f(args...) both print `cute`.
#define PARITY(cute, f, ...)                                                        \
  do {                                                                              \
    EXPECT_EQ(to_string(fly::f(__VA_ARGS__)), cute) << "fly::" #f "(" #__VA_ARGS__ ")"; \
    EXPECT_EQ(d::to_string(dy::f(__VA_ARGS__)), cute) << "fly::dyn::" #f "(" #__VA_ARGS__ ")"; \
  } while (0)
// The static algebra only: fly::dyn::complement(l, int64_t) marks the plain cotarget static (it
// has no way to know better), where CuTe prints a dynamic integer.
#define STATIC_PARITY(cute, f, ...) \
  EXPECT_EQ(to_string(fly::f(__VA_ARGS__)), cute) << "fly::" #f "(" #__VA_ARGS__ ")"

// Static operands, written short.
#define N_(n) Int<n>{}
#define L1(s, d) make_layout(N_(s), N_(d))
#define L2(s0, s1, d0, d1) make_layout(make_shape(N_(s0), N_(s1)), make_stride(N_(d0), N_(d1)))
#define A22 L2(2, 2, 1, 2)
#define B34 L2(3, 4, 1, 3)

TEST(CuteParity, RankSensitiveProducts) {
  PARITY("((_4,_3)):((_1,_4))", blocked_product, L1(4, 1), L1(3, 1));
  PARITY("((_3,_4)):((_4,_1))", raked_product, L1(4, 1), L1(3, 1));
  PARITY("((_4,_2)):((_2,_1))", blocked_product, L1(4, 2), L1(2, 1));
  PARITY("((_2,_4)):((_1,_2))", raked_product, L1(4, 2), L1(2, 1));
  PARITY("((_2,_3)):((_1,_4))", blocked_product, L1(2, 1), L1(3, 2));
  PARITY("((_2,_3),(_2,_4)):((_1,_4),(_2,_12))", blocked_product, A22, B34);
  PARITY("((_3,_2),(_4,_2)):((_4,_1),(_12,_2))", raked_product, A22, B34);
  PARITY("((_2,_4),(_3,_2)):((_3,_6),(_1,_24))", blocked_product, L2(2, 3, 3, 1), L2(4, 2, 1, 4));
  PARITY("((_4,_2),(_2,_3)):((_6,_3),(_24,_1))", raked_product, L2(2, 3, 3, 1), L2(4, 2, 1, 4));
  PARITY("((_2,_2),(_2,(_2,_2))):((_2,_1),(_8,(_4,_16)))", blocked_product, L2(2, 2, 2, 8), L2(2, 4, 1, 2));
  PARITY("((_2,_2),((_2,_2),_2)):((_1,_2),((_4,_16),_8))", raked_product, L2(2, 2, 2, 8), L2(2, 4, 1, 2));
  PARITY("((_2,_3),(_4,_2)):((_4,_16),(_1,_8))", blocked_product, L2(2, 4, 4, 1), L2(3, 2, 2, 1));
  PARITY("((_3,_2),(_2,_4)):((_16,_4),(_8,_1))", raked_product, L2(2, 4, 4, 1), L2(3, 2, 2, 1));
  PARITY("((_2,_3),(_5,_4)):((_5,_40),(_1,_10))", blocked_product, L2(2, 5, 5, 1), L2(3, 4, 4, 1));
  PARITY("((_3,_2),(_4,_5)):((_40,_5),(_10,_1))", raked_product, L2(2, 5, 5, 1), L2(3, 4, 4, 1));
  PARITY("((_4,_3),(_1,_4)):((_1,_4),(_0,_12))", blocked_product, L1(4, 1), B34);
  PARITY("((_3,_4),(_4,_1)):((_4,_1),(_12,_0))", raked_product, L1(4, 1), B34);
  PARITY("((_2,_3),(_2,_1)):((_1,_4),(_2,_0))", blocked_product, A22, L1(3, 1));
  PARITY("((_3,_2),(_1,_2)):((_4,_1),(_0,_2))", raked_product, A22, L1(3, 1));
  PARITY("((_2,_4),(_3,_1)):((_3,_12),(_1,_0))", blocked_product, L2(2, 3, 3, 1), L1(4, 2));
  PARITY("((_4,_2),(_1,_3)):((_12,_3),(_0,_1))", raked_product, L2(2, 3, 3, 1), L1(4, 2));
  PARITY("(((_2,_2),_3),(_2,_4)):(((_1,_4),_8),(_2,_24))", blocked_product, make_layout(make_shape(make_shape(N_(2), N_(2)), N_(2)), make_stride(make_stride(N_(1), N_(4)), N_(2))), B34);
  PARITY("((_3,(_2,_2)),(_4,_2)):((_8,(_1,_4)),(_24,_2))", raked_product, make_layout(make_shape(make_shape(N_(2), N_(2)), N_(2)), make_stride(make_stride(N_(1), N_(4)), N_(2))), B34);
  PARITY("((_2,_3),(_2,_4),(_2,_1)):((_1,_8),(_2,_24),(_4,_0))", blocked_product, make_layout(make_shape(N_(2), N_(2), N_(2))), B34);
  PARITY("((_1,_4),(_4,_1)):((_0,_4),(_1,_0))", blocked_product, L2(1, 4, 0, 1), L2(4, 1, 1, 0));
  PARITY("((_4,_1),(_1,_4)):((_4,_0),(_0,_1))", raked_product, L2(1, 4, 0, 1), L2(4, 1, 1, 0));
  PARITY("((_2,_3),(_5,_4)):((_5,_10),(_1,_30))", blocked_product, L2(2, 5, 5, 1), L2(3, 4, 1, 3));
  PARITY("((_3,_2),(_4,_5)):((_10,_5),(_30,_1))", raked_product, L2(2, 5, 5, 1), L2(3, 4, 1, 3));
  PARITY("((_2,_3),(_2,_4)):((_1,_4),(_2,_12))", blocked_product, make_layout(make_shape(N_(2), N_(2))), make_layout(make_shape(N_(3), N_(4))));
  PARITY("((_3,_2),(_4,_2)):((_4,_1),(_12,_2))", raked_product, make_layout(make_shape(N_(2), N_(2))), make_layout(make_shape(N_(3), N_(4))));
}

TEST(CuteParity, Inverses) {
  PARITY("(_2,_4):(_0,_1)", left_inverse, L1(4, 2));
  PARITY("_1:_0", right_inverse, L1(4, 2));
  PARITY("(_2,_8,_2):(_0,_1,_4)", left_inverse, L2(4, 2, 2, 16));
  PARITY("_1:_0", right_inverse, L2(4, 2, 2, 16));
  PARITY("(_3,_2):(_2,_1)", left_inverse, L2(2, 3, 3, 1));
  PARITY("(_3,_2):(_2,_1)", right_inverse, L2(2, 3, 3, 1));
  PARITY("(_4,_3):(_1,_2)", left_inverse, L2(2, 3, 1, 4));
  PARITY("_2:_1", right_inverse, L2(2, 3, 1, 4));
  PARITY("(_4,_2):(_2,_1)", left_inverse, L2(2, 4, 4, 1));
  PARITY("(_4,_2):(_2,_1)", right_inverse, L2(2, 4, 4, 1));
  PARITY("_8:_1", left_inverse, L1(8, 1));
  PARITY("_8:_1", right_inverse, L1(8, 1));
  PARITY("(_8,_4):(_1,_4)", left_inverse, L2(4, 4, 1, 8));
  PARITY("_4:_1", right_inverse, L2(4, 4, 1, 8));
  PARITY("(_2,_4,_2):(_1,_4,_2)", left_inverse, make_layout(make_shape(make_shape(N_(2), N_(2)), N_(4)), make_stride(make_stride(N_(1), N_(8)), N_(2))));
  PARITY("(_2,_4,_2):(_1,_4,_2)", right_inverse, make_layout(make_shape(make_shape(N_(2), N_(2)), N_(4)), make_stride(make_stride(N_(1), N_(8)), N_(2))));
  PARITY("(_5,_3):(_0,_1)", left_inverse, L1(3, 5));
  PARITY("_1:_0", right_inverse, L1(3, 5));
  PARITY("(_4,_2):(_2,_1)", left_inverse, L2(2, 3, 4, 1));
  PARITY("_3:_2", right_inverse, L2(2, 3, 4, 1));
  PARITY("_4:_1", right_inverse, L2(4, 2, 1, 0));
  PARITY("_1:_0", right_inverse, L1(1, 0));
  PARITY("_4:_1", left_inverse, L2(4, 2, 1, 0));
  PARITY("(_4,_8):(_2,_1)", left_inverse, make_layout(make_shape(N_(2), N_(2), N_(2)), make_stride(N_(4), N_(1), N_(16))));
  PARITY("_2:_2", right_inverse, make_layout(make_shape(N_(2), N_(2), N_(2)), make_stride(N_(4), N_(1), N_(16))));
  PARITY("(_32,_4):(_4,_1)", left_inverse, make_layout(make_shape(make_shape(N_(4), N_(8)), N_(4)), make_stride(make_stride(N_(32), N_(1)), N_(8))));
}

TEST(CuteParity, Products) {
  PARITY("((_2,_2),(_3,_4)):((_1,_2),(_4,_12))", logical_product, A22, B34);
  PARITY("(_4,(_2,_2)):(_2,(_1,_8))", logical_product, L1(4, 2), L1(4, 1));
  PARITY("((_2,_2),(_3,(_2,_2))):((_1,_2),(_2,(_1,_6)))", logical_product, L2(2, 3, 1, 2), make_tile(L1(2, 1), L1(4, 1)));
  PARITY("((_2,_3),(_2,(_2,_2))):((_1,_2),(_2,(_1,_6)))", zipped_product, L2(2, 3, 1, 2), make_tile(L1(2, 1), L1(4, 1)));
  PARITY("((_2,_3),_2,(_2,_2)):((_1,_2),_2,(_1,_6))", tiled_product, L2(2, 3, 1, 2), make_tile(L1(2, 1), L1(4, 1)));
  PARITY("(_2,_3,_2,(_2,_2)):(_1,_2,_2,(_1,_6))", flat_product, L2(2, 3, 1, 2), make_tile(L1(2, 1), L1(4, 1)));
  PARITY("((_2,_2),(_3,_4)):((_1,_2),(_4,_12))", zipped_product, A22, B34);
  PARITY("((_2,_2),_3,_4):((_1,_2),_4,_12)", tiled_product, A22, B34);
  PARITY("(_2,_2,_3,_4):(_1,_2,_4,_12)", flat_product, A22, B34);
  PARITY("((_2,_2),((_2,_2),(_2,_2))):((_1,_2),((_2,_4),(_1,_4)))", zipped_product, A22, make_tile(L2(2, 2, 1, 2), L1(4, 1)));
  PARITY("((_2,_2),(_2,_2),(_2,_2)):((_1,_2),(_2,_4),(_1,_4))", tiled_product, A22, make_tile(L2(2, 2, 1, 2), L1(4, 1)));
  PARITY("(_2,_2,(_2,_2),(_2,_2)):(_1,_2,(_2,_4),(_1,_4))", flat_product, A22, make_tile(L2(2, 2, 1, 2), L1(4, 1)));
}

TEST(CuteParity, Divides) {
  PARITY("((_2,_3),_8):((_1,_2),_6)", logical_divide, L2(8, 6, 1, 8), L2(2, 3, 1, 2));
  PARITY("(_4,(_2,_2)):(_2,(_1,_8))", logical_divide, L1(16, 1), L1(4, 2));
  PARITY("((_2,_4),(_3,_2)):((_1,_2),(_8,_24))", logical_divide, L2(8, 6, 1, 8), make_tile(L1(2, 1), L1(3, 1)));
  PARITY("((_2,_3),(_4,_2)):((_1,_8),(_2,_24))", zipped_divide, L2(8, 6, 1, 8), make_tile(L1(2, 1), L1(3, 1)));
  PARITY("((_2,_3),_4,_2):((_1,_8),_2,_24)", tiled_divide, L2(8, 6, 1, 8), make_tile(L1(2, 1), L1(3, 1)));
  PARITY("(_2,_3,_4,_2):(_1,_8,_2,_24)", flat_divide, L2(8, 6, 1, 8), make_tile(L1(2, 1), L1(3, 1)));
  PARITY("((_2,_3),(_4,_2)):((_4,_16),(_1,_8))", zipped_divide, L2(8, 6, 1, 8), make_tile(L1(2, 4), L1(3, 2)));
  PARITY("((_2,_3),_4,_2):((_4,_16),_1,_8)", tiled_divide, L2(8, 6, 1, 8), make_tile(L1(2, 4), L1(3, 2)));
  PARITY("(_2,_3,_4,_2):(_4,_16,_1,_8)", flat_divide, L2(8, 6, 1, 8), make_tile(L1(2, 4), L1(3, 2)));
  PARITY("((_2,_3),_8):((_1,_2),_6)", zipped_divide, L2(8, 6, 1, 8), L2(2, 3, 1, 2));
  PARITY("((_2,_3),_8):((_1,_2),_6)", tiled_divide, L2(8, 6, 1, 8), L2(2, 3, 1, 2));
  PARITY("(_2,_3,_8):(_1,_2,_6)", flat_divide, L2(8, 6, 1, 8), L2(2, 3, 1, 2));
  PARITY("((_4),(_2,_6)):((_1),(_4,_8))", zipped_divide, L2(8, 6, 1, 8), make_tile(L1(4, 1)));
  PARITY("((_4),_2,_6):((_1),_4,_8)", tiled_divide, L2(8, 6, 1, 8), make_tile(L1(4, 1)));
  PARITY("((_4),_2,_6):((_1),_4,_8)", flat_divide, L2(8, 6, 1, 8), make_tile(L1(4, 1)));
  PARITY("(((_2,_2),_4),(_2,_2)):(((_1,_4),_8),(_2,_32))", zipped_divide, L2(8, 8, 1, 8), make_tile(L2(2, 2, 1, 4), L1(4, 1)));
  PARITY("(((_2,_2),_4),_2,_2):(((_1,_4),_8),_2,_32)", tiled_divide, L2(8, 8, 1, 8), make_tile(L2(2, 2, 1, 4), L1(4, 1)));
  PARITY("((_2,_2),_4,_2,_2):((_1,_4),_8,_2,_32)", flat_divide, L2(8, 8, 1, 8), make_tile(L2(2, 2, 1, 4), L1(4, 1)));
  PARITY("(_4,_2):(_1,_4)", logical_divide, L1(6, 1), L1(4, 1));
  PARITY("((_4,_2),(_4,_1)):((_1,_4),(_6,_0))", logical_divide, L2(6, 4, 1, 6), make_tile(L1(4, 1), L1(4, 1)));
  PARITY("(_5,_5):(_1,_5)", logical_divide, L2(6, 4, 1, 6), L1(5, 1));
}

TEST(CuteParity, Complement) {
  PARITY("_2:_1", complement, L1(4, 2));
  PARITY("(_2,_3):(_1,_8)", complement, L1(4, 2), N_(24));
  STATIC_PARITY("(_2,4):(_1,_8)", complement, L1(4, 2), 25);
  PARITY("_3:_2", complement, L2(2, 2, 1, 6));
  PARITY("(_3,_4):(_2,_12)", complement, L2(2, 2, 1, 6), N_(48));
  PARITY("(_2,_2,_2):(_1,_8,_32)", complement, L2(4, 2, 2, 16), N_(64));
  PARITY("_8:_1", complement, L2(4, 2, 0, 0), N_(8));
  PARITY("_1:_0", complement, L1(8, 1));
  PARITY("_2:_8", complement, L1(8, 1), N_(16));
  PARITY("_4:_3", complement, L1(3, 1), N_(10));
}

TEST(CuteParity, Coalesce) {
  PARITY("_8:_1", coalesce, L2(2, 4, 1, 2));
  PARITY("_8:_1", coalesce, make_layout(make_shape(N_(2), N_(1), N_(4)), make_stride(N_(1), N_(5), N_(2))));
  PARITY("_1:_0", coalesce, L2(1, 1, 3, 5));
  PARITY("(_4,_3):(_1,_8)", coalesce, make_layout(make_shape(make_shape(N_(2), N_(2)), N_(3)), make_stride(make_stride(N_(1), N_(2)), N_(8))));
  PARITY("(_4,_3):(_1,_4)", coalesce, make_layout(make_shape(make_shape(N_(2), N_(2)), N_(3)), make_stride(make_stride(N_(1), N_(2)), N_(4))), make_shape(N_(1), N_(1)));
  PARITY("_4:_1", coalesce, L2(4, 1, 1, 0));
}

TEST(CuteParity, Composition) {
  PARITY("(_2,_3):(_6,_1)", composition, L2(4, 6, 6, 1), L2(2, 3, 1, 4));
  PARITY("(_2,_3):(_2,_8)", composition, L2(8, 6, 1, 8), make_tile(L1(2, 2), L1(3, 1)));
  PARITY("(_4,_2):(_1,_8)", composition, L2(8, 6, 1, 8), make_tile(N_(4), N_(2)));
  PARITY("(_4):(_2)", composition, L2(8, 6, 1, 8), make_tile(L1(4, 2)));
  PARITY("(_2,(_2,_3)):(_1,(_16,_2))", composition, L2(8, 6, 1, 8), make_layout(make_shape(N_(2), make_shape(N_(2), N_(3))), make_stride(N_(1), make_stride(N_(16), N_(2)))));
  PARITY("_12:_2", composition, L2(8, 6, 1, 8), L1(12, 2));
  PARITY("_1:_0", composition, L2(8, 6, 1, 8), L1(1, 0));
}

TEST(CuteParity, TileToShape) {
  PARITY("((_2,_2),(_2,_3)):((_1,_4),(_2,_8))", tile_to_shape, A22, make_shape(N_(4), N_(6)));
  PARITY("((_2,_2),(_3,_2)):((_3,_6),(_1,_12))", tile_to_shape, L2(2, 3, 3, 1), make_shape(N_(4), N_(6)));
  PARITY("((_2,_2),(_3,_2)):((_3,_12),(_1,_6))", tile_to_shape, L2(2, 3, 3, 1), make_shape(N_(4), N_(6)), make_step(N_(1), N_(0)));
  PARITY("((_4,_2),(_1,_3)):((_1,_4),(_0,_8))", tile_to_shape, L1(4, 1), make_shape(N_(8), N_(3)));
  PARITY("((_2,_2),(_2,_3)):((_1,_4),(_2,_8))", tile_to_shape, A22, make_shape(make_shape(N_(2), N_(2)), N_(6)));
  PARITY("(((_2,_2),_2),(_2,_2)):(((_1,_4),_8),(_2,_16))", tile_to_shape, make_layout(make_shape(make_shape(N_(2), N_(2)), N_(2)), make_stride(make_stride(N_(1), N_(4)), N_(2))), make_shape(N_(8), N_(4)));
  PARITY("((_2,_4),(_2,_4)):((_1,_4),(_2,_16))", tile_to_shape, A22, make_shape(N_(8), N_(8)));
  PARITY("((_2,_4),(_2,_4)):((_1,_16),(_2,_4))", tile_to_shape, A22, make_shape(N_(8), N_(8)), make_step(N_(1), N_(0)));
  PARITY("((_4,_2),(_2,_2)):((_1,_8),(_4,_16))", tile_to_shape, L2(4, 2, 1, 4), make_shape(N_(8), N_(4)));
  PARITY("((_2,_4),(_4,_2)):((_1,_8),(_2,_32))", tile_to_shape, make_layout(make_shape(N_(2), N_(4))), make_shape(N_(8), N_(8)));
}
}  // namespace
