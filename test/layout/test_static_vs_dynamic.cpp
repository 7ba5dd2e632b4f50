// The compile-time algebra (templates) and the run-time algebra (fly::dyn, used by the generator)
// are two implementations of one definition: on every static input they must give the same layout.
#include "fly/layout/to_dynamic.hpp"
#include "layout_test_util.hpp"

namespace {
using namespace fly;
using namespace fly_test;
namespace d = fly::dyn;

#define EXPECT_SAME(static_expr, dynamic_expr)                                                     \
  do {                                                                                             \
    auto s_ = d::to_dynamic(static_expr);                                                          \
    auto d_ = (dynamic_expr);                                                                      \
    EXPECT_TRUE(s_ == d_) << #static_expr << ": static " << to_string(static_expr) << " vs dynamic " \
                          << d::to_string(d_);                                                     \
  } while (0)

TEST(StaticVsDynamic, UnaryOperations) {
  auto check = [](auto l) {
    auto dl = d::to_dynamic(l);
    EXPECT_EQ(d::to_string(dl), to_string(l));
    EXPECT_EQ(d::size(dl), int64_t(size(l)));
    EXPECT_EQ(d::cosize(dl), int64_t(cosize(l)));
    for (int i = 0; i < int(size(l)); ++i) EXPECT_EQ(dl(i), int64_t(l(i)));
    EXPECT_SAME(coalesce(l), d::coalesce(dl));
    EXPECT_SAME(complement(l), d::complement(dl));
    EXPECT_SAME(complement(l, _256{}), d::complement(dl, 256));
    EXPECT_SAME(right_inverse(l), d::right_inverse(dl));
  };
  for_each(pow2_layouts(), check);
  for_each(general_layouts(), check);
  for_each(pow2_layouts(), [](auto l) {
    auto dl = d::to_dynamic(l);
    EXPECT_SAME(left_inverse(l), d::left_inverse(dl));
    EXPECT_SAME(upcast<2>(l), d::upcast(dl, 2));
  });
  for_each(make_tuple(make_layout(_8{}), make_layout(make_shape(_2{}, _4{}), make_stride(_4{}, _1{})),
                      make_layout(make_shape(_4{}, _4{}), make_stride(_1{}, _8{}))),
           [](auto l) { EXPECT_SAME(downcast<4>(l), d::downcast(d::to_dynamic(l), 4)); });
}

TEST(StaticVsDynamic, BinaryOperations) {
  int pairs = 0;
  for_each(pow2_layouts(), [&](auto a) {
    for_each(pow2_tilers(), [&](auto b) {
      auto da = d::to_dynamic(a);
      auto db = d::to_dynamic(b);
      EXPECT_SAME(composition(a, b), d::composition(da, db));
      EXPECT_SAME(logical_divide(a, b), d::logical_divide(da, db));
      EXPECT_SAME(logical_product(a, b), d::logical_product(da, db));
      EXPECT_SAME(blocked_product(a, b), d::blocked_product(da, db));
      EXPECT_SAME(raked_product(a, b), d::raked_product(da, db));
      ++pairs;
    });
  });
  EXPECT_EQ(pairs, 60);
}

TEST(StaticVsDynamic, TilerOperations) {
  auto m = make_layout(make_shape(_16{}, _32{}), make_stride(_32{}, _1{}));
  auto tile = make_tile(make_layout(_4{}), make_layout(make_shape(_2{}, _4{}), make_stride(_1{}, _8{})));
  auto dm = d::to_dynamic(m);
  d::Tiler dt{d::to_dynamic(make_layout(_4{})), d::to_dynamic(make_layout(make_shape(_2{}, _4{}), make_stride(_1{}, _8{})))};
  EXPECT_SAME(composition(m, tile), d::composition(dm, dt));
  EXPECT_SAME(logical_divide(m, tile), d::logical_divide(dm, dt));
  EXPECT_SAME(zipped_divide(m, tile), d::zipped_divide(dm, dt));
  EXPECT_SAME(tiled_divide(m, tile), d::tiled_divide(dm, dt));
  EXPECT_SAME(flat_divide(m, tile), d::flat_divide(dm, dt));
  EXPECT_SAME(zipped_product(m, tile), d::zipped_product(dm, dt));
  EXPECT_SAME(tiled_product(m, tile), d::tiled_product(dm, dt));
  EXPECT_SAME(flat_product(m, tile), d::flat_product(dm, dt));
  auto block = make_layout(make_shape(_2{}, _4{}), make_stride(_4{}, _1{}));
  EXPECT_SAME(tile_to_shape(block, make_shape(_8{}, _8{})),
              d::tile_to_shape(d::to_dynamic(block), d::to_dynamic(make_shape(_8{}, _8{}))));
}
}  // namespace
