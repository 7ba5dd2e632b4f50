// Divides and products: sizes and functions preserved, the worked examples of CuTe's docs.
#include "layout_test_util.hpp"

namespace {
using namespace fly;
using namespace fly_test;

TEST(Divide, WorkedExamples) {
  // CuTe docs, "Logical Divide 1-D example"
  auto a = make_layout(make_shape(_4{}, _2{}, _3{}), make_stride(_2{}, _1{}, _8{}));
  EXPECT_LAYOUT(logical_divide(a, make_layout(_4{}, _2{})), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
  // CuTe docs, "Logical Divide 2-D example"
  auto b = make_layout(make_shape(_9{}, make_shape(_4{}, _8{})), make_stride(Int<59>{}, make_stride(Int<13>{}, _1{})));
  auto tiler = make_tile(make_layout(_3{}, _3{}), make_layout(make_shape(_2{}, _4{}), make_stride(_1{}, _8{})));
  EXPECT_LAYOUT(logical_divide(b, tiler), "((_3,_3),((_2,_4),(_2,_2))):((_177,_59),((_13,_2),(_26,_1)))");
  EXPECT_LAYOUT(zipped_divide(b, tiler), "((_3,(_2,_4)),(_3,(_2,_2))):((_177,(_13,_2)),(_59,(_26,_1)))");
  EXPECT_LAYOUT(tiled_divide(b, tiler), "((_3,(_2,_4)),_3,(_2,_2)):((_177,(_13,_2)),_59,(_26,_1))");
  EXPECT_LAYOUT(flat_divide(b, tiler), "(_3,(_2,_4),_3,(_2,_2)):(_177,(_13,_2),_59,(_26,_1))");
}

TEST(Divide, TilesOfAMatrix) {
  // a 16x32 row-major matrix in 4x8 tiles: mode 0 walks a tile, mode 1 picks the tile
  auto m = make_layout(make_shape(_16{}, _32{}), make_stride(_32{}, _1{}));
  auto z = zipped_divide(m, make_tile(_4{}, _8{}));
  EXPECT_LAYOUT(z, "((_4,_8),(_4,_4)):((_32,_1),(_128,_8))");
  for (int ti = 0; ti < 4; ++ti)
    for (int tj = 0; tj < 4; ++tj)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 8; ++j)
          EXPECT_EQ(int(z(make_coord(i, j), make_coord(ti, tj))), int(m(ti * 4 + i, tj * 8 + j)));
}

template <class A, class B>
void check_divide(A const& a, B const& b) {
  auto d = logical_divide(a, b);
  std::string what = "logical_divide(" + to_string(a) + ", " + to_string(b) + ") = " + to_string(d);
  EXPECT_EQ(int(size<0>(d)), int(size(b))) << what;
  EXPECT_GE(int(size(d)), int(size(a))) << what;
  // it is A composed with (B, B*): the tile is A o B
  auto tile = composition(a, b);
  for (int i = 0; i < int(size(b)); ++i) EXPECT_EQ(int(d(i, 0)), int(tile(i))) << what;
  // and it reaches exactly A's image when B tiles A's domain evenly
  if (int(size(a)) % int(size(b)) == 0 && int(cosize(b)) <= int(size(a))) {
    std::set<int64_t> got;
    for (int i = 0; i < int(size(a)); ++i) got.insert(int64_t(d(i)));
    EXPECT_EQ(got, image(a)) << what;
  }
}

TEST(Divide, PropertyOverAdmissiblePairs) {
  for_each(pow2_layouts(), [](auto a) { for_each(pow2_tilers(), [&](auto b) { check_divide(a, b); }); });
}

TEST(Product, WorkedExamples) {
  // CuTe docs, "Logical Product 1-D example"
  EXPECT_LAYOUT(logical_product(make_layout(make_shape(_2{}, _2{}), make_stride(_4{}, _1{})), make_layout(_6{}, _1{})),
                "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
  // every other tile of the 1-D example: complement((2,2):(4,1), 28) = (2,4):(2,8) composed with 4:2
  EXPECT_LAYOUT(logical_product(make_layout(make_shape(_2{}, _2{}), make_stride(_4{}, _1{})), make_layout(_4{}, _2{})),
                "((_2,_2),_4):((_4,_1),_8)");
}

TEST(Product, BlockedAndRaked) {
  auto block = make_layout(make_shape(_2{}, _2{}));
  auto tiler = make_layout(make_shape(_3{}, _4{}));
  auto bp = blocked_product(block, tiler);
  auto rp = raked_product(block, tiler);
  EXPECT_LAYOUT(bp, "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");
  EXPECT_LAYOUT(rp, "((_3,_2),(_4,_2)):((_4,_1),(_12,_2))");
  // blocked: element (i, j) of block (bi, bj) sits at block-major position; raked interleaves
  for (int bi = 0; bi < 3; ++bi)
    for (int bj = 0; bj < 4; ++bj)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          int expect = int(block(i, j)) + 4 * int(tiler(bi, bj));
          EXPECT_EQ(int(bp(make_coord(i, bi), make_coord(j, bj))), expect);
          EXPECT_EQ(int(rp(make_coord(bi, i), make_coord(bj, j))), expect);
        }
}

template <class A, class B>
void check_product(A const& a, B const& b) {
  auto p = logical_product(a, b);
  std::string what = "logical_product(" + to_string(a) + ", " + to_string(b) + ") = " + to_string(p);
  EXPECT_EQ(int(size(p)), int(size(a)) * int(size(b))) << what;
  for (int i = 0; i < int(size(a)); ++i) EXPECT_EQ(int(p(i, 0)), int(a(i))) << what;
  if (injective(a) && injective(b)) {
    EXPECT_TRUE(injective(p)) << what;
  }
  auto bp = blocked_product(a, b);
  auto rp = raked_product(a, b);
  EXPECT_EQ(int(size(bp)), int(size(p))) << what;
  EXPECT_EQ(image(bp), image(p)) << what;
  EXPECT_EQ(image(rp), image(p)) << what;
}

TEST(Product, PropertyOverLayoutFamilies) {
  for_each(pow2_layouts(), [](auto a) { for_each(pow2_tilers(), [&](auto b) { check_product(a, b); }); });
}

TEST(Product, ZippedTiledFlat) {
  // by mode: 2:1 x 3:1 = (2,3):(1,2) and 2:2 x 4:1 = (2,(2,2)):(2,(1,4)), then re-associated
  auto a = make_layout(make_shape(_2{}, _2{}));
  auto t = make_tile(make_layout(_3{}), make_layout(_4{}));
  EXPECT_LAYOUT(logical_product(a, t), "((_2,_3),(_2,(_2,_2))):((_1,_2),(_2,(_1,_4)))");
  EXPECT_LAYOUT(zipped_product(a, t), "((_2,_2),(_3,(_2,_2))):((_1,_2),(_2,(_1,_4)))");
  EXPECT_LAYOUT(tiled_product(a, t), "((_2,_2),_3,(_2,_2)):((_1,_2),_2,(_1,_4))");
  EXPECT_LAYOUT(flat_product(a, t), "(_2,_2,_3,(_2,_2)):(_1,_2,_2,(_1,_4))");
  // by mode, each mode's copies never overlap (the modes themselves are products on their own)
  EXPECT_TRUE(fly_test::injective(get<0>(logical_product(a, t))));
  EXPECT_TRUE(fly_test::injective(get<1>(logical_product(a, t))));
}

TEST(Product, TileToShape) {
  auto block = make_layout(make_shape(_2{}, _4{}), make_stride(_4{}, _1{}));  // row-major 2x4
  auto t = tile_to_shape(block, make_shape(_8{}, _8{}));
  EXPECT_EQ(int(size(t)), 64);
  EXPECT_TRUE(injective(t));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(int(t(i, j)), int(block(i, j)));
  // the second block along M starts right after the first
  EXPECT_EQ(int(t(2, 0)), 8);
  auto r = tile_to_shape(block, make_shape(_8{}, _8{}), make_step(_1{}, _0{}));  // repeat along N first
  EXPECT_EQ(int(r(0, 4)), 8);
}
}  // namespace
