// The tiles the atoms are tested on: the origin case (fp8, 64x16x128, 4 wavefronts (4,1,1)) and
// 64x64x128 / 128x128x64 with 4 and 8 warps, on gfx942 (MFMA 16x16x32 fp8) and sm_90a (mma.sync
// m16n8k32 e4m3). Each is a GemmTile over a copy atom for A and B.
#pragma once

#include "fly/arch/mma_gfx942.hpp"
#include "fly/arch/mma_sm90.hpp"
#include "fly/atom/mma_traits_gfx942.hpp"
#include "fly/atom/mma_traits_sm90.hpp"
#include "gemm_tile.hpp"

namespace fly_test {

// K is permuted in blocks of 64 so that the 8 bytes a lane feeds to two consecutive MFMA k-steps
// are adjacent in memory (16 contiguous bytes per lane, as the hand-written pa_decode kernel loads
// them); the sum over k is unchanged.
using Gfx942KPermutation = Tile<Underscore, Underscore, Layout<Shape<_8, _4, _2>, Stride<_1, _16, _8>>>;

template <class WarpLayout, int M, int N, int K, class CopyA, class CopyB = CopyA>
using Gfx942Tile = GemmTile<GFX942_MFMA_F32_16x16x32_F8, WarpLayout, Gfx942KPermutation, M, N, K, CopyA, CopyB>;

template <class Copy>
using Gfx942Origin = Gfx942Tile<Layout<Shape<_4, _1, _1>>, 64, 16, 128, Copy>;
template <class Copy>
using Gfx942_64x64x128_w4 = Gfx942Tile<Layout<Shape<_2, _2, _1>>, 64, 64, 128, Copy>;
template <class Copy>
using Gfx942_64x64x128_w8 = Gfx942Tile<Layout<Shape<_4, _2, _1>>, 64, 64, 128, Copy>;
template <class Copy>
using Gfx942_128x128x64_w4 = Gfx942Tile<Layout<Shape<_2, _2, _1>>, 128, 128, 64, Copy>;
template <class Copy>
using Gfx942_128x128x64_w8 = Gfx942Tile<Layout<Shape<_4, _2, _1>>, 128, 128, 64, Copy>;

// sm_90a: each lane owns 4-byte runs of A and B in m16n8k32; wider copy atoms split into them.
using Sm90NoPermutation = Tile<Underscore, Underscore, Underscore>;
template <class WarpLayout, int M, int N, int K, class CopyA, class CopyB = CopyA>
using Sm90Tile = GemmTile<SM90_16x8x32_F32E4M3E4M3F32_TN, WarpLayout, Sm90NoPermutation, M, N, K, CopyA, CopyB>;

template <class Copy>
using Sm90Origin = Sm90Tile<Layout<Shape<_4, _1, _1>>, 64, 16, 128, Copy>;
template <class Copy>
using Sm90_64x64x128_w4 = Sm90Tile<Layout<Shape<_2, _2, _1>>, 64, 64, 128, Copy>;
template <class Copy>
using Sm90_64x64x128_w8 = Sm90Tile<Layout<Shape<_4, _2, _1>>, 64, 64, 128, Copy>;
template <class Copy>
using Sm90_128x128x64_w4 = Sm90Tile<Layout<Shape<_2, _2, _1>>, 128, 128, 64, Copy>;
template <class Copy>
using Sm90_128x128x64_w8 = Sm90Tile<Layout<Shape<_4, _2, _1>>, 128, 128, 64, Copy>;

}  // namespace fly_test
