// Copy_Atom<Op, T>: a copy instruction (fly/arch/copy*.hpp) applied to elements of type T.
// Op provides: bits (its access width), min_bits, with_bits<B> (the same instruction family at
// width B, for splitting), name, and a static copy(src_iterator, dst_iterator) moving `bits`.
#pragma once

#include "fly/arch/copy.hpp"
#include "fly/layout.hpp"

namespace fly {

template <class Op, class T>
struct Copy_Atom {
  using op_type = Op;
  using value_type = T;
  static constexpr int bits = Op::bits;
  static_assert(Op::bits % sizeof_bits_v<T> == 0,
                "fly::Copy_Atom<Op, T>: the access width of Op must be a whole number of elements of T");
  static constexpr int num_vals = Op::bits / sizeof_bits_v<T>;
};

template <class Op, class T>
FLY_HD auto make_copy_atom(Op, T) {
  return Copy_Atom<Op, T>{};
}

}  // namespace fly
