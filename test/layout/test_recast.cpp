// upcast / downcast / recast_layout: the same bytes seen through wider or narrower elements.
#include "layout_test_util.hpp"

namespace {
using namespace fly;
using namespace fly_test;

TEST(Recast, WorkedExamples) {
  auto l = make_layout(make_shape(_4{}, _8{}), make_stride(_1{}, _4{}));
  EXPECT_LAYOUT(upcast<2>(l), "(_2,_8):(_1,_2)");
  EXPECT_LAYOUT(downcast<2>(l), "(_8,_8):(_1,_8)");
  auto r = make_layout(make_shape(_4{}, _16{}), make_stride(_16{}, _1{}));  // 4 rows of 16 bytes
  EXPECT_LAYOUT((recast_layout<uint8_t, uint32_t>(r)), "(_4,_4):(_4,_1)");
  EXPECT_LAYOUT((recast_layout<uint32_t, uint8_t>(make_layout(make_shape(_4{}, _4{}), make_stride(_4{}, _1{})))),
                "(_4,_16):(_16,_1)");
  EXPECT_LAYOUT((recast_layout<float, float>(r)), "(_4,_16):(_16,_1)");
  // stride-0 (broadcast) modes stay broadcast
  EXPECT_LAYOUT(upcast<4>(make_layout(make_shape(_8{}, _3{}), make_stride(_1{}, _0{}))), "(_2,_3):(_1,_0)");
}

// Byte b of an N-byte word w: the downcast layout must address the same bytes as the original.
TEST(Recast, DowncastAddressesTheSameBytes) {
  // members with a stride-1 mode (downcast needs adjacent elements; 4:2 has none)
  auto words_family = make_tuple(make_layout(_8{}), make_layout(make_shape(_2{}, _4{})),
                                 make_layout(make_shape(_4{}, _2{}), make_stride(_2{}, _1{})),
                                 make_layout(make_shape(_2{}, _2{}, _2{}), make_stride(_4{}, _1{}, _2{})),
                                 make_layout(make_shape(_4{}, _4{}), make_stride(_1{}, _8{})),
                                 make_layout(make_shape(_2{}, _8{}), make_stride(_16{}, _1{})));
  for_each(words_family, [](auto words) {
    auto bytes = downcast<4>(words);
    EXPECT_EQ(int(size(bytes)), 4 * int(size(words))) << to_string(words);
    std::set<int64_t> expect;
    for (int w = 0; w < int(size(words)); ++w)
      for (int b = 0; b < 4; ++b) expect.insert(4 * int64_t(words(w)) + b);
    EXPECT_EQ(image(bytes), expect) << to_string(words) << " -> " << to_string(bytes);
  });
}

TEST(Recast, UpcastOfDowncastIsIdentity) {
  auto family = make_tuple(make_layout(_8{}), make_layout(make_shape(_2{}, _4{})),
                           make_layout(make_shape(_8{}, make_shape(_2{}, _2{})), make_stride(_4{}, make_stride(_1{}, _2{}))),
                           make_layout(make_shape(_16{}, _4{}), make_stride(_4{}, _1{})));
  for_each(family, [](auto l) {
    auto back = upcast<4>(downcast<4>(l));
    for (int i = 0; i < int(size(l)); ++i) EXPECT_EQ(int(back(i)), int(l(i))) << to_string(l);
  });
}

TEST(FragmentLike, CompactWithTheSameShape) {
  auto tv = make_layout(make_shape(make_shape(_4{}, _2{}), _4{}, _2{}), make_stride(make_stride(_2{}, _1{}), _64{}, _8{}));
  auto f = make_fragment_like(tv);
  EXPECT_EQ(to_string(f.shape()), to_string(tv.shape()));
  EXPECT_EQ(int(cosize(f)), int(size(f)));
  EXPECT_TRUE(injective(f));
  // mode 0 keeps its stride order: the 2-mode (stride 1 in tv) is the fastest
  EXPECT_LAYOUT(f, "((_4,_2),_4,_2):((_2,_1),_8,_32)");
  EXPECT_LAYOUT(make_layout_like(make_layout(make_shape(_3{}, _4{}), make_stride(_0{}, _5{}))), "(_3,_4):(_0,_1)");
}
}  // namespace
