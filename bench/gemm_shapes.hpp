// The GEMM problem shapes fly_bench measures, in one place: the rows beside cuBLASLt, and the
// tuning list that `fly_bench --tune` measures every variant on (one tuning-table line each).
#pragma once

#include <cstdint>
#include <span>

#include "fly/fly.h"

namespace fly::bench {

struct Shape {
  int64_t m, n, k;
};

// fly_gemm beside cuBLASLt: large squares, decode rows against an 8192 x 8192 weight, one tiny tail.
inline constexpr Shape kBenchShapes[] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048},
                                         {16, 8192, 8192},   {64, 8192, 8192},   {128, 8192, 8192},
                                         {64, 16, 128}};

// fp8 only (fp32 would take seconds per row on the simple fp32 kernel): the MLP decode
// shape, a batch between powers of two (96 rows: 128-row tiles cut by M, docs/gemm.md "Eleventh
// session") and the medium M that prefill chunks run (256 to 2048 rows against one weight).
inline constexpr Shape kFp8BenchShapes[] = {{32, 14336, 4096},  {96, 8192, 8192},    {256, 4096, 4096},
                                            {256, 8192, 8192},  {1024, 8192, 8192},  {2048, 8192, 8192}};

// fp32 only: calls whose K, and so lda and ldb, is not a multiple of four floats (16 bytes), which
// only the 4-byte cells run (cpasync32, simt32; variants.txt): a square, a decode row
// and an M = 128 batch, one k short of the aligned rows.
inline constexpr Shape kF32OddKBenchShapes[] = {{2048, 2048, 2047}, {16, 8192, 8191}, {128, 8192, 8191}};

// Tuning shapes. A table entry applies to calls within a factor 2 of it in each of m, n, k
// (gemm_tuning.hpp), so the rows step M by at most 4x: against 8192 x 8192 every M in [1, 2048]
// finds an entry. N = 4096, K = 14336 is an MLP down-projection, N = 1024, K = 4096 a grouped-query
// K/V projection (Llama 3 8B). M = 1024 and the N = 1024 rows came after the committed table of
// 2026-11-29, 256 x 4096 x 4096 and 32 x 14336 x 4096 (an MLP up-projection) on 2026-12-03;
// M = 48, 96 and 192 on 2026-12-05: batch sizes between powers of two, where tiles pad, so that
// tools/tuning_holdout.py can check the cost model there (docs/gemm.md, "The cost model").
inline constexpr Shape kTuneShapes[] = {
    {8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048},                        // prefill, squares
    {1, 8192, 8192},    {4, 8192, 8192},    {16, 8192, 8192},   {32, 8192, 8192},      // decode rows
    {48, 8192, 8192},   {64, 8192, 8192},   {96, 8192, 8192},   {128, 8192, 8192},     //
    {192, 8192, 8192},  {256, 8192, 8192},  {1024, 8192, 8192},                        //
    {256, 4096, 4096},  {32, 14336, 4096},                                             // medium, MLP up
    {16, 4096, 4096},   {64, 4096, 4096},   {128, 4096, 4096},                         // smaller weights
    {16, 4096, 14336},  {64, 4096, 14336},  {128, 4096, 14336},                        // long K
    {16, 1024, 4096},   {128, 1024, 4096},                                             // narrow N
};

// Shapes not worth a run: 8192^3 in f32 takes minutes per fly row on the simple fp32 kernel.
inline bool skip_shape(fly_dtype_t ab, Shape s) { return ab == FLY_DTYPE_F32 && s.m == 8192; }

}  // namespace fly::bench
