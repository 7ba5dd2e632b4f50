// MMA_Traits<Op>: what an MMA instruction (an arch struct of fly/arch/mma_*.hpp) computes, as
// CuTe's MMA_Traits describe it. Specialised per instruction in mma_traits_<arch>.hpp:
//
//   ValTypeD, ValTypeA, ValTypeB, ValTypeC   element types of D, A, B, C
//   Shape_MNK = Shape<M, N, K>               D(MxN) = A(MxK) * B(NxK)^T + C(MxN)
//   ThrID                                    the threads that execute one instruction
//                                            (a gfx942 wave: Layout<_64>; an sm_90 warp: _32;
//                                            a warpgroup: _128; host/scalar FMA: _1)
//   ALayout: (thread, value) -> m + M*k      offset in the column-major MxK tile of A
//   BLayout: (thread, value) -> n + N*k      offset in the column-major NxK tile of B
//   CLayout: (thread, value) -> m + M*n      offset in the column-major MxN tile of C and D
//
// Value v of a thread is the v-th element packed in that thread's registers of the operand
// (Op::ARegisters, ...), lowest bits of the first register first. The layouts are static; for an
// operand held in registers they are bijections from (thread, value) onto the tile (checked by
// test/atom/test_mma_atoms.cpp, which also runs each layout against a host model of the
// instruction written from the vendor's lane formulas, fly/atom/mma_model.hpp).
#pragma once

#include "fly/layout.hpp"
#include "fly/numeric/numeric.hpp"

namespace fly {

template <class Op>
struct MMA_Traits;

}  // namespace fly
