// A block's MMA step on the host: every wave's (or warp's) atoms on its lanes' fragments, through
// the instruction's lane-by-lane model (fly/atom/mma_model.hpp), as the hardware would run them.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "fly/atom/mma_atom.hpp"
#include "fly/atom/mma_model.hpp"

namespace fly_test {

// Thread t is lane t % AtomThreads of wave t / AtomThreads; fa(t), fb(t) and fc(t) return its A
// (V, M, K), B (V, N, K) and C (V, M, N) fragments, and C is accumulated in place.
template <class TiledMma, class FragA, class FragB, class FragC>
void mma_on_lane_model(int threads, FragA&& fa, FragB&& fb, FragC&& fc) {
  using fly::_;
  using Op = typename TiledMma::Atom::op_type;
  constexpr int lanes = TiledMma::AtomThreads;
  using FA = std::remove_reference_t<decltype(fa(0))>;
  using FB = std::remove_reference_t<decltype(fb(0))>;
  constexpr int MM = int(decltype(fly::size<1>(std::declval<FA&>()))::value);
  constexpr int NN = int(decltype(fly::size<1>(std::declval<FB&>()))::value);
  constexpr int KK = int(decltype(fly::size<2>(std::declval<FA&>()))::value);
  // one lane's registers of each operand, as the model takes them
  using AR = std::array<std::remove_extent_t<typename Op::ARegisters>, std::extent_v<typename Op::ARegisters>>;
  using BR = std::array<std::remove_extent_t<typename Op::BRegisters>, std::extent_v<typename Op::BRegisters>>;
  using CR = std::array<std::remove_extent_t<typename Op::CRegisters>, std::extent_v<typename Op::CRegisters>>;
  for (int w = 0; w < threads / lanes; ++w)
    for (int k = 0; k < KK; ++k)
      for (int m = 0; m < MM; ++m)
        for (int n = 0; n < NN; ++n) {
          std::array<AR, lanes> a{};
          std::array<BR, lanes> b{};
          std::array<CR, lanes> c{}, d{};
          for (int l = 0; l < lanes; ++l) {
            const int t = w * lanes + l;
            fly::detail::pack(a[size_t(l)], fa(t)(_, m, k));
            fly::detail::pack(b[size_t(l)], fb(t)(_, n, k));
            fly::detail::pack(c[size_t(l)], fc(t)(_, m, n));
          }
          fly::MMA_Model<Op>::execute(d, a, b, c);
          for (int l = 0; l < lanes; ++l) fly::detail::unpack(fc(w * lanes + l)(_, m, n), d[size_t(l)]);
        }
}

}  // namespace fly_test
