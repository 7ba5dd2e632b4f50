// Every sm_90a GEMM variant compiled into libfly, launched directly, against a host reference, in
// two kinds of data: values whose products and sums are exact in fp32 (D must match bit for bit),
// and random full-range values (fp8: normal samples rounded to e4m3; f32: uniform), judged against
// a float64 reference with the worst-case bound of fp32 accumulation over K that the host tests
// use (plus the tensor cores' narrower accumulator for fp8), K = 8192 included. Shapes with tails in M, N and K, leading dimensions above the minimum,
// poisoned D with two guard rows past the last row and padded columns (all must stay poisoned),
// alpha, scales and beta*C.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

// the TMA blocks' barrier waits: a phase that never completes traps instead of hanging the test
#define FLY_MBARRIER_TRAP_AFTER_NS 2000000000ull  // 2 s

#include "common/cuda_test.hpp"
#include "common/exact_values.hpp"
#include "common/gemm_buffer.hpp"
#include "common/late_writer.cuh"
#include "common/parallel_rows.hpp"
#include "fly/fly.h"
#include "fly/atom/mma_traits_sm90.hpp"
#include "fly/numeric/numeric.hpp"
#include "gemm/gemm_launch_cuda.hpp"
#include "gemm/gemm_launch_tma_cuda.hpp"
#include "gemm/gemm_registry.hpp"
#include "gemm_cpasync_kernel.hpp"
#include "gemm_dependent_launch.hpp"
#include "gemm_wgmma_tma_kernel.hpp"
#include "gemm_wgmma_ws_kernel.hpp"

namespace {
using fly::dispatch::GemmProblem;
using fly::dispatch::GemmVariant;
using fly_test::Buffer;

enum class Data { exact, random };

bool is_persistent(const GemmVariant& v) { return std::string(v.name).find("_tmaws_") != std::string::npos; }
bool stores_by_tma(const GemmVariant& v) {
  const std::string name = v.name;
  return is_persistent(v) && (name.ends_with("_st") || name.ends_with("_stw") || name.ends_with("_st_nb") ||
                              name.ends_with("_stw_nb"));
}
// the persistent block's and the SIMT block's split-K cells (`_k2`, `_k4`, before any `_b2`)
bool splits_k(const GemmVariant& v) {
  const std::string name = std::string(v.name) + "_";
  return name.find("_k2_") != std::string::npos || name.find("_k4_") != std::string::npos;
}

// The relative rounding error of one conversion to `t` (round to nearest even).
double unit_roundoff(fly_dtype_t t) {
  return t == FLY_DTYPE_BF16 ? std::ldexp(1.0, -8) : t == FLY_DTYPE_F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
}

// The current device's multiprocessors (the persistent blocks launch about one block each).
int sm_count() {
  int device = 0, sms = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  return sms;
}

constexpr int64_t kGuardRows = 2;  // rows of D past the last one, poisoned, that must stay so

// beta = 0 leaves C unread (and lets the persistent block's epilogue store column pairs).
// behind_writer: A, B, C and the scales hold NaN until a kernel launched just before the variant
// on its stream writes them (fly_test::late_writer), after the variant's blocks may be resident.
// ldd: D's row pitch, n + 5 (rows not 16-byte aligned) unless given. d_bytes: where D's bytes go too.
void run_variant(const GemmVariant& v, int64_t m, int64_t n, int64_t k, unsigned seed, Data data = Data::exact,
                 float beta = 2.f, bool behind_writer = false, int64_t ldd_given = 0,
                 std::vector<unsigned char>* d_bytes = nullptr) {
  const int64_t lda = k + v.align_elems * 2, ldb = k + v.align_elems, ldc = n + 3, ldd = ldd_given ? ldd_given : n + 5;
  SCOPED_TRACE(std::string(v.name) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
               (data == Data::exact ? " exact" : " random") + " beta " + std::to_string(beta) + " ldd " +
               std::to_string(ldd));
  std::mt19937 rng(seed);
  Buffer A(v.ab_type, m * lda), B(v.ab_type, n * ldb), C(v.d_type, m * ldc), D(v.d_type, (m + kGuardRows) * ldd);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  auto operand = [&] {
    if (data == Data::exact) return fly_test::random_exact_value(rng);
    return v.ab_type == FLY_DTYPE_F32 ? uniform(rng) : normal(rng);  // Buffer::set rounds to e4m3
  };
  for (int64_t i = 0; i < A.elems; ++i) A.set(i, operand());
  for (int64_t i = 0; i < B.elems; ++i) B.set(i, operand());
  for (int64_t i = 0; i < C.elems; ++i) C.set(i, data == Data::exact ? fly_test::random_exact_value(rng) : uniform(rng));
  std::memset(D.bytes.data(), 0xFF, D.bytes.size());  // poison: NaN in f32, bf16 and f16
  const float alpha = 0.5f, sa = 2.f, sb = 0.25f;

  void *dA, *dB, *dC, *dD;
  float *dsa, *dsb;
  CUDA_OK(cudaMalloc(&dA, A.bytes.size()));
  CUDA_OK(cudaMalloc(&dB, B.bytes.size()));
  CUDA_OK(cudaMalloc(&dC, C.bytes.size()));
  CUDA_OK(cudaMalloc(&dD, D.bytes.size()));
  CUDA_OK(cudaMalloc(&dsa, sizeof(float)));
  CUDA_OK(cudaMalloc(&dsb, sizeof(float)));
  CUDA_OK(cudaMemcpy(dA, A.bytes.data(), A.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dB, B.bytes.data(), B.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dC, C.bytes.data(), C.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dD, D.bytes.data(), D.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dsa, &sa, sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dsb, &sb, sizeof(float), cudaMemcpyHostToDevice));
  GemmProblem p{m, n, k, lda, ldb, ldc, ldd, v.ab_type, v.ab_type, v.d_type, v.d_type, alpha, beta, dA, dB, dC, dD, dsa, dsb};
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  void* staged[5] = {};  // behind_writer: the inputs' real values, copied in by the writer
  if (behind_writer) {
    fly_test::LateCopies late{};
    const std::pair<void*, size_t> inputs[] = {{dA, A.bytes.size()}, {dB, B.bytes.size()}, {dC, C.bytes.size()},
                                               {dsa, sizeof(float)}, {dsb, sizeof(float)}};
    for (int i = 0; i < 5; ++i) {
      CUDA_OK(cudaMalloc(&staged[i], inputs[i].second));
      CUDA_OK(cudaMemcpy(staged[i], inputs[i].first, inputs[i].second, cudaMemcpyDeviceToDevice));
      CUDA_OK(cudaMemset(inputs[i].first, 0xFF, inputs[i].second));  // NaN in every operand type
      late.r[late.n++] = {inputs[i].first, staged[i], inputs[i].second};
    }
    late.delay_ns = 200'000;
    CUDA_OK(cudaDeviceSynchronize());
    fly_test::late_writer<<<1, 256, 0, stream>>>(late);
  }
  ASSERT_EQ(v.launch(p, stream), FLY_STATUS_SUCCESS);
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaStreamDestroy(stream));
  CUDA_OK(cudaMemcpy(D.bytes.data(), dD, D.bytes.size(), cudaMemcpyDeviceToHost));
  if (d_bytes != nullptr) *d_bytes = D.bytes;
  for (void* ptr : {dA, dB, dC, dD}) CUDA_OK(cudaFree(ptr));
  for (void* ptr : staged) CUDA_OK(cudaFree(ptr));
  CUDA_OK(cudaFree(dsa));
  CUDA_OK(cudaFree(dsb));

  Buffer expect(v.d_type, 1);
  const double s = double(alpha) * sa * sb;
  // the float64 sums and magnitudes, rows split among host threads (large persistent shapes)
  std::vector<double> sums(size_t(m * n)), mags(size_t(m * n));
  fly_test::parallel_rows(m, [&](int64_t i) {
    std::vector<double> a_row(static_cast<size_t>(k));
    for (int64_t kk = 0; kk < k; ++kk) a_row[size_t(kk)] = A.get(i * lda + kk);
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double ab = a_row[size_t(kk)] * double(B.get(j * ldb + kk));
        acc += ab;
        mag += std::fabs(ab);
      }
      sums[size_t(i * n + j)] = acc;
      mags[size_t(i * n + j)] = mag;
    }
  });
  for (int64_t i = 0; i < m + kGuardRows; ++i)
    for (int64_t j = 0; j < ldd; ++j) {
      const float got = D.get(i * ldd + j);
      if (i >= m || j >= n) {
        ASSERT_TRUE(std::isnan(got)) << (i >= m ? "guard row" : "padding") << " D(" << i << "," << j << ") was written";
        continue;
      }
      const double acc = sums[size_t(i * n + j)], mag = mags[size_t(i * n + j)];
      const double cterm = double(beta) * C.get(i * ldc + j);
      const double ref = s * acc + cterm;
      if (data == Data::exact) {
        expect.set(0, float(ref));
        ASSERT_EQ(got, expect.get(0)) << "D(" << i << "," << j << ")";
      } else {
        // fp32 accumulation over k products and the epilogue's two operations, then D's rounding.
        // fp8 products are summed by the tensor cores, which truncate the running sum inside an
        // MMA chain to fewer bits than fp32 (about 14 by DeepSeek-V3's account), promoted to fp32
        // every 128 of K: at most four k32 truncations per chunk. The worst seen on the H200 was
        // 2^-11.8 of sum |a b| (64x256x128, wgmma, 2026-12-03; it broke the earlier 2^-12 bound),
        // so 2^-10: 12 bits kept per truncation. Whether fp8 partial sums are promoted to fp32
        // (cuBLASLt's accuracy) is test_gemm_fp8_accuracy_cuda.cu's normwise test.
        const double tensor_core = v.ab_type == FLY_DTYPE_F32 ? 0.0 : std::ldexp(1.0, -10) * std::fabs(s) * mag;
        const double tol = double(k + 3) * std::ldexp(1.0, -24) * (std::fabs(s) * mag + std::fabs(cterm)) * 1.01 +
                           tensor_core + unit_roundoff(v.d_type) * std::fabs(ref) + 1e-30;
        ASSERT_LE(std::fabs(double(got) - ref), tol) << "D(" << i << "," << j << ") = " << got << ", reference " << ref;
      }
    }
}

TEST(GemmVariantsCuda, EveryVariantMatchesTheHostReference) {
  FLY_SKIP_WITHOUT_GPU();
  auto variants = fly::dispatch::gemm_variants();
  ASSERT_GT(variants.size(), 0u) << "no sm_90a variant compiled in";
  unsigned seed = 1;
  for (const auto& v : variants) {
    if (v.target != fly::dispatch::Target::sm90a) continue;
    const int64_t a = v.align_elems;
    // a full tile, tails in every dimension, and a skinny decode shape (a sanitizer sweep: the tails)
    run_variant(v, v.bm * 2 + 3, v.bn + 5, v.bk + 2 * a, seed++);
    if (fly_test::sanitizer_sweep()) continue;
    run_variant(v, v.bm, v.bn, v.bk, seed++);
    run_variant(v, 1, 3 * v.bn - 1, a, seed++);
    run_variant(v, 17, 31, 4 * v.bk + a, seed++);
    if (HasFatalFailure()) return;
  }
}

// Every variant behind a kernel that writes its operands and scales late: where fly_gemm is a
// programmatic dependent launch (fp8 by default, fp32 under FLY_GEMM_PDL=1; gemm_launch_cuda.hpp)
// the variant's blocks are resident and warm B's old bytes into L2 before griddepcontrol.wait; the
// results must be those of the new bytes (exact data, bit for bit; the old bytes are NaN). Without
// the programmatic launch the stream orders the variant behind the writer and nothing is tested:
// such variants are left out, and the test skips if that leaves none (FLY_GEMM_PDL=0).
TEST(GemmVariantsCuda, InputsTheKernelBeforeWritesAreTheOnesRead) {
  FLY_SKIP_WITHOUT_GPU();
  unsigned seed = 300;
  int checked = 0;
  for (const auto& v : fly::dispatch::gemm_variants()) {
    if (v.target != fly::dispatch::Target::sm90a || !fly::kernels::gemm_programmatic_launch(v.ab_type)) continue;
    run_variant(v, v.bm * 2 + 3, v.bn + 5, 3 * v.bk + 2 * v.align_elems, seed++, Data::exact, 2.f, true);
    if (HasFatalFailure()) return;
    ++checked;
  }
  if (checked == 0)
    GTEST_SKIP() << "SKIPPED: no variant is a programmatic launch (FLY_GEMM_PDL=0, or no fp8 variant built; "
                    "FLY_GEMM_PDL=1 makes every one)";
}

// Random full-range data, where truncation to a narrower type, an unpromoted accumulator or a wrong
// K-group order shows: the same shapes, and K = 8192 for every variant.
TEST(GemmVariantsCuda, EveryVariantOnRandomDataStaysWithinTheBound) {
  FLY_SKIP_WITHOUT_GPU();
  auto variants = fly::dispatch::gemm_variants();
  ASSERT_GT(variants.size(), 0u) << "no sm_90a variant compiled in";
  unsigned seed = 7001;
  for (const auto& v : variants) {
    if (v.target != fly::dispatch::Target::sm90a) continue;
    const int64_t a = v.align_elems;
    run_variant(v, v.bm * 2 + 3, v.bn + 5, v.bk + 2 * a, seed++, Data::random);
    if (fly_test::sanitizer_sweep()) continue;
    run_variant(v, v.bm, v.bn, v.bk, seed++, Data::random);
    run_variant(v, 17, 31, 8192, seed++, Data::random);
    if (HasFatalFailure()) return;
  }
}
// The persistent blocks (copy tmaws) when the tiles outnumber the SMs: some blocks walk two tiles,
// the ring's stages and phases running on from one tile into the next (3 k-tiles a tile
// against 4 or 6 stages: the second tile starts mid-ring, on the other phase), with a K tail; bf16
// and f16 D with beta = 0 (the epilogue's column pairs), f32 with beta * C (single stores).
TEST(GemmVariantsCuda, PersistentVariantsWalkEveryTile) {
  FLY_SKIP_WITHOUT_GPU();
  const int sms = sm_count();
  int checked = 0;
  unsigned seed = 9001;
  for (const auto& v : fly::dispatch::gemm_variants()) {
    if (v.target != fly::dispatch::Target::sm90a || !is_persistent(v)) continue;
    const int64_t m = v.bm + 3, tiles_n = sms / 2 + 5, n = tiles_n * v.bn - 3, k = 2 * v.bk + v.align_elems;
    ASSERT_GT(2 * tiles_n, sms) << "every block must walk more than one tile";
    const bool f32 = v.d_type == FLY_DTYPE_F32;
    run_variant(v, m, n, k, seed++, Data::random, f32 ? 2.f : 0.f);
    run_variant(v, m, n, k, seed++, Data::exact, f32 ? 0.f : 2.f);
    if (HasFatalFailure()) return;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "SKIPPED: no persistent (tmaws) variant compiled in (FLY_GEMM_FILTER)";
}

// Split-K over a cluster (`_k2`, `_k4` cells): each block finishes its slice of a tile by adding
// the other blocks' partial sums in rank order, so two calls on the same data give the same bits
// (engines compare runs; atomics would not). Uneven shares of K (a K tail and 33 k-tiles among 2
// or 4 blocks), several tiles a cluster (the exchange buffers reused), random data, beta * C for
// f32 D; each call also against the reference.
TEST(GemmVariantsCuda, SplitKVariantsGiveTheSameBitsOnEveryCall) {
  FLY_SKIP_WITHOUT_GPU();
  const int sms = sm_count();
  int checked = 0;
  for (const auto& v : fly::dispatch::gemm_variants()) {
    if (v.target != fly::dispatch::Target::sm90a || !splits_k(v)) continue;
    const int64_t m = v.bm + 3, n = (sms / 2 + 3) * v.bn - 3, k = 32 * v.bk + v.align_elems;
    const float beta = v.d_type == FLY_DTYPE_F32 ? 2.f : 0.f;
    std::vector<unsigned char> first, second;
    run_variant(v, m, n, k, 12001, Data::random, beta, false, 0, &first);
    run_variant(v, m, n, k, 12001, Data::random, beta, false, 0, &second);
    if (HasFatalFailure()) return;
    ASSERT_EQ(first.size(), second.size());
    EXPECT_TRUE(first == second) << v.name << ": two calls on the same data differ";
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "SKIPPED: no split-K (_k2, _k4) variant compiled in (FLY_GEMM_FILTER)";
}

// The TMA-store epilogue (`_st` cells): with beta = 0 and 16-byte rows of D each warpgroup's tile
// leaves through shared memory in 64-row x 128-byte boxes that the TMA clips to D. Tails in M and
// N (boxes past the last row and column), one row (a box all but one row past M), the padding
// columns and guard rows that must stay poisoned, and blocks walking several tiles (the two chunk
// buffers alternating across tiles; BN = 192 with bf16 or f16 D has three chunks a tile; one, two
// and three k-tiles a tile, for the `_nb` cells' next batch). With rows
// not 16-byte aligned or beta != 0 the same cells store directly: the other tests' shapes.
TEST(GemmVariantsCuda, TmaStoreEpilogueWritesExactlyD) {
  FLY_SKIP_WITHOUT_GPU();
  const int sms = sm_count();
  auto aligned_ldd = [](int64_t n) { return (n + 5 + 7) / 8 * 8; };  // past n, 16-byte rows for 2- and 4-byte D
  int checked = 0;
  unsigned seed = 9501;
  for (const auto& v : fly::dispatch::gemm_variants()) {
    if (v.target != fly::dispatch::Target::sm90a || !stores_by_tma(v)) continue;
    const int64_t k = 2 * v.bk + v.align_elems, walk_n = (sms / 2 + 5) * v.bn - 3;
    run_variant(v, 2 * v.bm + 3, v.bn + 5, k, seed++, Data::exact, 0.f, false, aligned_ldd(v.bn + 5));
    run_variant(v, 2 * v.bm + 3, v.bn + 5, k, seed++, Data::random, 0.f, false, aligned_ldd(v.bn + 5));
    run_variant(v, 1, 3 * v.bn - 1, v.align_elems, seed++, Data::exact, 0.f, false, aligned_ldd(3 * v.bn - 1));
    run_variant(v, v.bm + 3, walk_n, k, seed++, Data::random, 0.f, false, aligned_ldd(walk_n));
    // the walk with one and two k-tiles: a `_nb` cell issues a tile's first k-tile under the tile
    // before's epilogue, and these are the promotion loop's shortest tails after it
    for (const int64_t short_k : {v.align_elems, v.bk + v.align_elems})
      run_variant(v, v.bm + 3, walk_n, short_k, seed++, Data::random, 0.f, false, aligned_ldd(walk_n));
    if (fly::kernels::gemm_programmatic_launch(v.ab_type))  // the boxes of a launch behind a late writer
      run_variant(v, 2 * v.bm + 3, v.bn + 5, 3 * v.bk + v.align_elems, seed++, Data::exact, 0.f, true,
                  aligned_ldd(v.bn + 5));
    if (HasFatalFailure()) return;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "SKIPPED: no TMA-store (_st) variant compiled in (they are on trial: FLY_GEMM_TRIAL=ON)";
}

// The persistent block's edge boxes (GemmWgmmaWsBlock::edge_box_rows, slice_box_rows, which the
// producer loads by, and a_rows_landing, the bytes it expects): for every M and every tile row,
// inside M or past it (a block of a cluster along M), each block's box covers its slice's rows
// inside M and stops at most 7 rows past them with the edge map, or is the whole slice without
// one; no slice wholly past M loads; and the bytes every block expects are the boxes' sum. Host
// arithmetic only: runs without a GPU. The kernels with the edge map off are checked by
// `GEMM_ENVS=FLY_GEMM_EDGE_BOX=0 bash tools/h200_check.sh`.
template <class Block>
void check_edge_boxes() {
  const int slice = Block::a_slice_rows;
  for (int64_t m = 1; m <= 1100; ++m) {
    for (int64_t m0 = 0; m0 < m + 2 * Block::BM; m0 += Block::BM) {
      for (bool edge_map : {true, false}) {
        int64_t landing = 0;
        for (int rank = 0; rank < Block::cluster_n; ++rank) {
          const int64_t first = m0 + int64_t(rank) * slice;  // the slice's first row
          const int64_t inside = std::clamp<int64_t>(m - first, 0, slice);
          const int rows = Block::slice_box_rows(m, m0, rank, edge_map);
          auto at = [&] {
            return "M = " + std::to_string(m) + ", tile row " + std::to_string(m0) + ", rank " + std::to_string(rank) +
                   (edge_map ? ", edge map" : ", no edge map");
          };
          EXPECT_GE(rows, inside) << at();  // every row inside M lands
          if (inside == 0) EXPECT_EQ(rows, 0) << at();  // nothing for a slice wholly past M
          if (inside == slice) EXPECT_EQ(rows, slice) << at();
          if (inside > 0 && inside < slice) {
            if (edge_map) {
              EXPECT_LT(rows - inside, 8) << at();  // whole 8-row swizzle atoms, no more
              EXPECT_EQ(rows % 8, 0) << at();
              EXPECT_LE(rows, slice) << at();
            } else {
              EXPECT_EQ(rows, slice) << at();  // a whole box, zero-filled past M
            }
          }
          landing += rows;
        }
        EXPECT_EQ(Block::a_rows_landing(m, m0, edge_map), landing) << "M = " << m << ", tile row " << m0;
      }
    }
  }
}

TEST(GemmVariantsCuda, EdgeBoxesCoverExactlyTheRowsInsideM) {
  using fly::kernels::GemmWgmmaWsBlock;
  check_edge_boxes<GemmWgmmaWsBlock<128, 64, 8, 1, 2, fly::bfloat16, true>>();    // A over two blocks
  check_edge_boxes<GemmWgmmaWsBlock<64, 64, 12, 1, 4, fly::bfloat16, false>>();   // A over four
  check_edge_boxes<GemmWgmmaWsBlock<128, 256, 4, 2, 1, fly::bfloat16, false>>();  // B over two: A whole
  check_edge_boxes<GemmWgmmaWsBlock<64, 64, 12, 1, 1, float, false>>();
  // the numbers behind docs/gemm.md's M = 96 case: a 32-row box for the second block's slice;
  // and M = 64, where the second block's slice lies wholly past M and loads nothing
  using C1x2 = GemmWgmmaWsBlock<128, 64, 8, 1, 2, fly::bfloat16, true>;
  EXPECT_EQ(C1x2::edge_box_rows(96), 32);
  EXPECT_EQ(C1x2::a_rows_landing(96, 0, true), 96);
  EXPECT_EQ(C1x2::a_rows_landing(96, 0, false), 128);
  EXPECT_EQ(C1x2::a_rows_landing(128, 0, true), 128);
  EXPECT_EQ(C1x2::a_rows_landing(64, 0, false), 64);
  EXPECT_EQ(C1x2::a_rows_landing(192, 128, true), 64);
}

// The persistent block's direct store (GemmWgmmaWsBlock::fragment_position): the 128 consumer
// threads' totals land on every element of the warpgroup's 64 x BN tile exactly once, a tile of one
// wgmma N or of two N = 128 sub-tiles. Host arithmetic only; the GPU suites check that the values
// stored are the products.
template <class Block>
void check_fragment_positions(int rows, int cols) {
  std::vector<int> hits(size_t(rows) * cols, 0);
  for (int t = 0; t < 128; ++t)
    for (int sub = 0; sub < Block::subs; ++sub)
      for (int i = 0; i < Block::acc_size; ++i) {
        int r = -1, c = -1;
        Block::fragment_position(t, sub, i, r, c);
        ASSERT_TRUE(r >= 0 && r < rows && c >= 0 && c < cols)
            << "thread " << t << " sub-tile " << sub << " value " << i << " lands at " << r << ", " << c;
        ++hits[size_t(r) * cols + c];
      }
  for (size_t e = 0; e < hits.size(); ++e) ASSERT_EQ(hits[e], 1) << "row " << e / cols << " column " << e % cols;
}

TEST(GemmVariantsCuda, FragmentPositionsCoverTheWarpgroupTileOnce) {
  using fly::kernels::GemmWgmmaWsBlock;
  check_fragment_positions<GemmWgmmaWsBlock<128, 64, 8, 1, 2, fly::bfloat16>>(64, 64);
  check_fragment_positions<GemmWgmmaWsBlock<128, 192, 5, 1, 1, fly::bfloat16>>(64, 192);
  check_fragment_positions<GemmWgmmaWsBlock<128, 256, 4, 1, 1, fly::bfloat16>>(64, 256);
  // a pair the direct store writes as one access: adjacent columns of one row
  using B = GemmWgmmaWsBlock<128, 256, 4, 1, 1, fly::bfloat16>;
  int r0, c0, r1, c1;
  B::fragment_position(37, 1, 10, r0, c0);
  B::fragment_position(37, 1, 11, r1, c1);
  EXPECT_EQ(r1, r0);
  EXPECT_EQ(c1, c0 + 1);
}

// The launcher gives a TMA-store block D's tensor map (the kernel then stores through boxes) exactly
// where gemm_store_box allows it, the driver encoding the map; every other call stores directly.
// Without this, a map the driver refused would fall back silently and the tests above would pass
// on the direct stores. The blocks' constants only: no trial cell needs to be built.
TEST(GemmVariantsCuda, TmaStoreMapIsMadeWhereTheRuleAllows) {
  FLY_SKIP_WITHOUT_GPU();
  void* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 1 << 22));
  auto made = [&](auto block, fly_dtype_t type, float beta, int64_t ldd, int offset) {
    using Block = decltype(block);
    GemmProblem p{300, 1000, 128, 128, 128, ldd, ldd, FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FN, type, type, 1.f, beta,
                  d, d, d, static_cast<char*>(d) + offset, nullptr, nullptr};
    fly::kernels::GemmTmaArgs args{};
    fly::kernels::make_gemm_store_map<Block>(p, args);
    return args.d_by_tma;
  };
  using Bf16 = fly::kernels::GemmWgmmaWsBlock<128, 256, 4, 1, 1, fly::bfloat16, true>;
  using F32 = fly::kernels::GemmWgmmaWsBlock<128, 192, 4, 1, 1, float, true>;
  using Direct = fly::kernels::GemmWgmmaWsBlock<128, 256, 4, 1, 1, fly::bfloat16, false>;
  EXPECT_TRUE(made(Bf16{}, FLY_DTYPE_BF16, 0.f, 1000, 0));
  EXPECT_TRUE(made(F32{}, FLY_DTYPE_F32, 0.f, 1004, 0));
  EXPECT_TRUE(made(Bf16{}, FLY_DTYPE_BF16, 0.f, 1000, 16));
  EXPECT_FALSE(made(Bf16{}, FLY_DTYPE_BF16, 2.f, 1000, 0)) << "beta != 0";
  EXPECT_FALSE(made(Bf16{}, FLY_DTYPE_BF16, 0.f, 1005, 0)) << "rows not 16-byte aligned";
  EXPECT_FALSE(made(F32{}, FLY_DTYPE_F32, 0.f, 1002, 0)) << "rows not 16-byte aligned";
  EXPECT_FALSE(made(Bf16{}, FLY_DTYPE_BF16, 0.f, 1000, 2)) << "D not 16-byte aligned";
  EXPECT_FALSE(made(Direct{}, FLY_DTYPE_BF16, 0.f, 1000, 0)) << "a block without the TMA store";
  CUDA_OK(cudaFree(d));
}

// `v`'s launcher refuses m x n x k (dense leading dimensions over the 1 KB `buffer`, which it must
// never dereference) with NOT_SUPPORTED and a message holding `reason`.
void expect_launch_refused(const GemmVariant& v, int64_t m, int64_t n, int64_t k, void* buffer, const char* reason) {
  GemmProblem p{m, n, k, k, k, n, n, v.ab_type, v.ab_type, v.d_type, v.d_type, 1.f, 0.f,
                buffer, buffer, nullptr, buffer, nullptr, nullptr};
  EXPECT_EQ(v.launch(p, nullptr), FLY_STATUS_NOT_SUPPORTED) << m << " x " << n << " x " << k;
  EXPECT_NE(std::string(fly_last_error()).find(reason), std::string::npos) << fly_last_error();
}

// A grid needing more than 65535 column blocks is refused before anything is launched or read,
// by every launcher (the direct, staged, wgmma and TMA ones): the pointers are never dereferenced.
// The persistent blocks' 1-D grid has no such limit.
TEST(GemmVariantsCuda, TooManyColumnBlocksIsNotSupported) {
  FLY_SKIP_WITHOUT_GPU();
  void* buffer = nullptr;
  CUDA_OK(cudaMalloc(&buffer, 1024));
  int checked = 0;
  for (const auto& v : fly::dispatch::gemm_variants()) {
    if (v.target != fly::dispatch::Target::sm90a || is_persistent(v)) continue;
    SCOPED_TRACE(v.name);
    expect_launch_refused(v, 16, 65536 * v.bn + 1, 4 * v.bk, buffer, "65535 column blocks");
    ++checked;
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CUDA_OK(cudaFree(buffer));
  // Persistent cells walk their tiles in a loop and take any N; a build narrowed to them
  // (FLY_GEMM_FILTER) has nothing this test applies to.
  if (checked == 0) GTEST_SKIP() << "no non-persistent sm90a GEMM variant in this build (FLY_GEMM_FILTER)";
}

// M, N or K within 4096 of 2^31 is refused by every launcher (k-tile counts and a cluster's tiles
// past the end would wrap their 32-bit arithmetic: a loop that never ends, or no product at all),
// before anything is encoded, launched or read.
TEST(GemmVariantsCuda, EveryVariantRefusesSizesPastItsThirtyTwoBitCounts) {
  FLY_SKIP_WITHOUT_GPU();
  void* buffer = nullptr;
  CUDA_OK(cudaMalloc(&buffer, 1024));
  int checked = 0;
  const int64_t big = INT32_MAX - 100;
  for (const auto& v : fly::dispatch::gemm_variants()) {
    if (v.target != fly::dispatch::Target::sm90a) continue;
    SCOPED_TRACE(v.name);
    expect_launch_refused(v, 16, big, 4 * v.bk, buffer, "at most 2^31 - 4097");
    expect_launch_refused(v, big, 16, 4 * v.bk, buffer, "at most 2^31 - 4097");
    expect_launch_refused(v, 16, 16, big - big % 16, buffer, "at most 2^31 - 4097");
    ++checked;
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CUDA_OK(cudaFree(buffer));
  EXPECT_GT(checked, 0);
}

// Two kernels over one block type, over 48 KB of shared memory, told apart only by their
// __launch_bounds__ (as a cell and its `:bN` twin): each needs its own opt-in. Remembered per block
// type, the second kernel launched without it ("invalid argument", the H100, 2026-12-05).
using SharedFmaBlock = fly::kernels::GemmCpAsyncBlock<fly::SM90_FMA_F32, fly::Layout<fly::Shape<fly::Int<8>, fly::Int<8>, fly::Int<2>>>,
                                                      64, 64, 32, 3, float>;
static_assert(fly::kernels::dynamic_smem_bytes<SharedFmaBlock>() > 48 * 1024, "the opt-in is needed");

template <int MinBlocks>
__global__ void __launch_bounds__(SharedFmaBlock::threads, MinBlocks) shared_block_kernel(fly::kernels::GemmParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  fly::kernels::warm_b_then_wait<SharedFmaBlock>(p, int64_t(blockIdx.y) * SharedFmaBlock::BN, int(threadIdx.x));
  SharedFmaBlock::run(p, reinterpret_cast<SharedFmaBlock::TA*>(smem), int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
}

template <int MinBlocks>
fly_status_t launch_shared_block(const GemmProblem& problem, void* stream) {
  return fly::kernels::launch_cuda<SharedFmaBlock, shared_block_kernel<MinBlocks>>(problem, stream);
}

TEST(GemmVariantsCuda, KernelsSharingABlockTypeEachGetTheirSharedMemory) {
  FLY_SKIP_WITHOUT_GPU();
  const GemmVariant kernels[] = {
      {"shared_block_b1", fly::dispatch::Target::sm90a, FLY_DTYPE_F32, FLY_DTYPE_F32, 64, 64, 32, 4, &launch_shared_block<1>},
      {"shared_block_b2", fly::dispatch::Target::sm90a, FLY_DTYPE_F32, FLY_DTYPE_F32, 64, 64, 32, 4, &launch_shared_block<2>},
  };
  unsigned seed = 700;
  for (const auto& v : kernels) {
    run_variant(v, 131, 69, 40, seed++);
    if (HasFatalFailure()) return;
  }
}

// The TMA-fed wgmma block with A multicast over clusters of 2 and 4 blocks (outside the grid, whose
// `tma` cells have no cluster), on the shapes every generated variant runs.
template <class Block>
fly_status_t launch_tma_block(const GemmProblem& problem, void* stream) {
  return fly::kernels::launch_tma_cuda<Block, fly::kernels::gemm_wgmma_tma_kernel<Block>>(problem, stream);
}

template <class Block>
GemmVariant tma_variant(const char* name, fly_dtype_t d) {
  return {name, fly::dispatch::Target::sm90a, FLY_DTYPE_E4M3FN, d, Block::BM, Block::BN, Block::BK, 16,
          &launch_tma_block<Block>};
}

TEST(GemmWgmmaTmaCuda, MulticastClustersMatchTheHostReference) {
  FLY_SKIP_WITHOUT_GPU();
  using fly::kernels::GemmWgmmaTmaBlock;
  const GemmVariant variants[] = {
      tma_variant<GemmWgmmaTmaBlock<128, 64, 128, 4, 2, fly::bfloat16>>("tma_128x64x128_s4_c2", FLY_DTYPE_BF16),
      tma_variant<GemmWgmmaTmaBlock<16, 128, 128, 4, 2, fly::half>>("tma_16x128x128_s4_c2", FLY_DTYPE_F16),
      tma_variant<GemmWgmmaTmaBlock<32, 64, 256, 3, 4, float>>("tma_32x64x256_s3_c4", FLY_DTYPE_F32),
      tma_variant<GemmWgmmaTmaBlock<64, 128, 128, 3, 4, fly::bfloat16>>("tma_64x128x128_s3_c4", FLY_DTYPE_BF16),
  };
  unsigned seed = 500;
  for (const auto& v : variants) {
    run_variant(v, v.bm, v.bn, v.bk, seed++);
    run_variant(v, v.bm * 2 + 3, v.bn + 5, v.bk + 32, seed++);
    run_variant(v, 1, 3 * v.bn - 1, 16, seed++);
    run_variant(v, 17, 31, 4 * v.bk + 16, seed++);
    if (HasFatalFailure()) return;
  }
}

// End to end from the C API: a CUDA handle dispatches to a compiled variant on the caller's stream
// and matches the host backend bit for bit, for every dtype combination.
}  // namespace
