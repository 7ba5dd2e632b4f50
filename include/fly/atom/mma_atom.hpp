// MMA_Atom<Op>: one matrix instruction (fly/arch/mma_*.hpp) with its traits
// (fly/atom/mma_traits*.hpp), callable on register tensors holding one atom's values.
#pragma once

#include <cstring>
#include <type_traits>
#include <utility>

#include "fly/atom/mma_traits.hpp"
#include "fly/tensor/tensor.hpp"

namespace fly {

namespace detail {
template <class Op, class D, class A, class B, class C, std::size_t... Id, std::size_t... Ia, std::size_t... Ib,
          std::size_t... Ic>
FLY_HD void explode_fma(D& d, A const& a, B const& b, C const& c, std::index_sequence<Id...>,
                        std::index_sequence<Ia...>, std::index_sequence<Ib...>, std::index_sequence<Ic...>) {
  Op::fma(d[Id]..., a[Ia]..., b[Ib]..., c[Ic]...);
}

// The values of a register tensor, moved into an instruction's register array bit for bit.
template <class Regs, class T>
FLY_HD void pack(Regs& regs, T const& t) {
  static_assert(sizeof(Regs) == sizeof(typename T::value_type) * decltype(size(t))::value,
                "fly::MMA_Atom: a fragment slice must hold exactly one atom's values");
  __builtin_memcpy(&regs, &*t.data(), sizeof(Regs));
}
template <class T, class Regs>
FLY_HD void unpack(T&& t, Regs const& regs) {
  __builtin_memcpy(&*t.data(), &regs, sizeof(Regs));
}
}  // namespace detail

template <class Op>
struct MMA_Atom {
  using op_type = Op;
  using Traits = MMA_Traits<Op>;
  using ValTypeD = typename Traits::ValTypeD;
  using ValTypeA = typename Traits::ValTypeA;
  using ValTypeB = typename Traits::ValTypeB;
  using ValTypeC = typename Traits::ValTypeC;
  using Shape_MNK = typename Traits::Shape_MNK;
  using ThrID = typename Traits::ThrID;
  using ALayout = typename Traits::ALayout;
  using BLayout = typename Traits::BLayout;
  using CLayout = typename Traits::CLayout;

  // D = A * B^T + C for one atom; each argument holds this thread's values of the atom, in order.
  template <class TD, class TA, class TB, class TC>
  FLY_HD static void call(TD&& d, TA const& a, TB const& b, TC const& c) {
    using DR = typename Op::DRegisters;
    using AR = typename Op::ARegisters;
    using BR = typename Op::BRegisters;
    using CR = typename Op::CRegisters;
    AR ar;
    BR br;
    CR cr;
    DR dr;
    detail::pack(ar, a);
    detail::pack(br, b);
    detail::pack(cr, c);
    detail::explode_fma<Op>(dr, ar, br, cr, std::make_index_sequence<std::extent_v<DR>>{},
                            std::make_index_sequence<std::extent_v<AR>>{}, std::make_index_sequence<std::extent_v<BR>>{},
                            std::make_index_sequence<std::extent_v<CR>>{});
    detail::unpack(d, dr);
  }
};

}  // namespace fly
