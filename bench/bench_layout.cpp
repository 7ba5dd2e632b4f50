// Host cost of the layout algebra: a static layout must evaluate as fast as hand-written index
// arithmetic (the same claim the device ISA checks make), and the run-time algebra used by the
// kernel generator must be cheap enough to run over a whole variant grid.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "fly/layout.hpp"
#include "fly/layout/dynamic.hpp"

namespace {

using namespace fly;

// The origin tile's A operand: 64x128 fp8, 4 wavefronts, zipped into (tile, rest).
auto origin_a_layout() {
  return zipped_divide(make_layout(make_shape(_64{}, _128{}), make_stride(_128{}, _1{})), make_tile(_16{}, _32{}));
}

void BM_StaticLayoutEval(benchmark::State& state) {
  auto l = origin_a_layout();
  int64_t acc = 0;
  for (auto _s : state) {
    for (int i = 0; i < int(size(l)); ++i) acc += l(i);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * int64_t(size(l)));
}
BENCHMARK(BM_StaticLayoutEval);

// The same index map written by hand: ((m0, k0), (m1, k1)) -> row * 128 + col.
void BM_HandWrittenEval(benchmark::State& state) {
  int64_t acc = 0;
  for (auto _s : state) {
    for (int i = 0; i < 64 * 128; ++i) {
      int m0 = i % 16, k0 = (i / 16) % 32, m1 = (i / 512) % 4, k1 = i / 2048;
      acc += (m1 * 16 + m0) * 128 + (k1 * 32 + k0);
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * 64 * 128);
}
BENCHMARK(BM_HandWrittenEval);

void BM_DynamicLayoutEval(benchmark::State& state) {
  auto l = dyn::zipped_divide(dyn::parse_layout("(64,128):(128,1)"), dyn::Tiler{dyn::make_layout(dyn::IntTuple(16)),
                                                                                dyn::make_layout(dyn::IntTuple(32))});
  int64_t acc = 0;
  for (auto _s : state) {
    for (int64_t i = 0; i < dyn::size(l); ++i) acc += l(i);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * dyn::size(l));
}
BENCHMARK(BM_DynamicLayoutEval);

// What the generator does per grid cell: divide the block tile, take complements and inverses.
void BM_DynamicAlgebraPerCell(benchmark::State& state) {
  auto block = dyn::parse_layout("(128,64):(64,1)");
  auto thr = dyn::parse_layout("(16,16):(16,1)");
  for (auto _s : state) {
    auto d = dyn::zipped_divide(block, dyn::Tiler{dyn::make_layout(dyn::IntTuple(16)), dyn::make_layout(dyn::IntTuple(16))});
    auto inv = dyn::left_inverse(thr);
    auto c = dyn::complement(thr, 1024);
    benchmark::DoNotOptimize(d);
    benchmark::DoNotOptimize(inv);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_DynamicAlgebraPerCell);

}  // namespace
