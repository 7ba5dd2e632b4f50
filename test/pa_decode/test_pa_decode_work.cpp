// The block -> work mapping every paged-decode kernel shares (pa_decode_work.hpp), on the host: the
// grid's blocks are the (sequence, kv head, split, row chunk) tuples, each once, row chunk fastest;
// a block's token bounds and a row's visible tokens agree with a direct computation, and the block
// visits every token of its split that one of its rows sees; the splits' arrival count finds the
// last split of a launch from whatever the workspace held.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>
#include <cstdint>
#include <set>
#include <tuple>

#include "pa_decode_work.hpp"

namespace {

using fly::kernels::PaDecodeParams;
using fly::kernels::pa::BlockWork;
using fly::kernels::pa::row_tokens;
using fly::kernels::pa::split_arrivals;
using fly::kernels::pa::split_counter_claimed;
using fly::kernels::pa::split_counter;
using fly::kernels::pa::RowTokens;

PaDecodeParams grid(int32_t seqs, int32_t kv_heads, int32_t splits, int32_t row_chunks) {
  PaDecodeParams p{};
  p.num_seqs = seqs;
  p.num_kv_heads = kv_heads;
  p.splits = splits;
  p.row_chunks = row_chunks;
  return p;
}

TEST(PaDecodeWork, EveryBlockIsOneTupleAndEveryTupleOneBlock) {
  for (const auto& p : {grid(1, 1, 1, 1), grid(3, 8, 1, 1), grid(2, 4, 5, 1), grid(4, 2, 3, 2), grid(5, 3, 7, 4)}) {
    const int blocks = p.num_seqs * p.num_kv_heads * p.splits * p.row_chunks;
    std::set<std::tuple<int, int, int, int>> seen;
    for (int b = 0; b < blocks; ++b) {
      const BlockWork w = BlockWork::at(p, b);
      ASSERT_GE(w.seq, 0);
      ASSERT_LT(w.seq, p.num_seqs);
      ASSERT_GE(w.kv_head, 0);
      ASSERT_LT(w.kv_head, p.num_kv_heads);
      ASSERT_GE(w.split, 0);
      ASSERT_LT(w.split, p.splits);
      ASSERT_GE(w.rc, 0);
      ASSERT_LT(w.rc, p.row_chunks);
      // row chunk fastest, then split, kv head, sequence
      EXPECT_EQ(((w.seq * p.num_kv_heads + w.kv_head) * p.splits + w.split) * p.row_chunks + w.rc, b);
      EXPECT_TRUE(seen.emplace(w.seq, w.kv_head, w.split, w.rc).second) << "block " << b << " repeats a tuple";
    }
    EXPECT_EQ(seen.size(), size_t(blocks));
  }
}

// The bounds as the dispatcher's plan means them, in 64 bits without the kernels' shortcuts.
struct Bounds {
  int64_t len, lo, hi;
};
Bounds direct_bounds(const PaDecodeParams& p, int64_t stored, int64_t split, int64_t step) {
  const int64_t len = std::clamp<int64_t>(stored, 0, p.max_len);
  const int64_t begin = split * p.split_tokens, end = begin + p.split_tokens;
  int64_t lo = begin;
  if (p.window > 0) {
    const int64_t window_start = len - p.q_len + 1 - p.window;  // the first new token's
    if (window_start > 0) lo = std::max(lo, window_start - window_start % step);
  }
  return {len, lo, std::min(len, end)};
}

TEST(PaDecodeWork, TokenBoundsCoverWhatTheRowsSee) {
  for (int32_t step : {16, 64, 96}) {
    for (int32_t split_tokens : {step, 3 * step, 16 * step}) {  // the plan's splits: whole steps
      for (int32_t window : {0, 1, 5, 64, 200, 5000}) {
        for (int32_t q_len : {1, 3}) {
          PaDecodeParams p{};
          p.split_tokens = split_tokens;
          p.window = window;
          p.q_len = q_len;
          p.max_len = 4000;
          for (int32_t stored : {-7, 0, 1, 2, 17, 63, 64, 65, 1000, 3999, 4000, 4001, 100000}) {
            const int32_t splits = std::max(1, (std::clamp(stored, 0, p.max_len) + split_tokens - 1) / split_tokens);
            for (int32_t split = 0; split < splits; ++split) {
              BlockWork w{};
              w.split = split;
              w.bound(p, stored, step);
              const Bounds want = direct_bounds(p, stored, split, step);
              ASSERT_EQ(w.len, want.len);
              ASSERT_EQ(w.lo, want.lo) << "stored " << stored << " split " << split << " window " << window;
              ASSERT_EQ(w.hi, want.hi);
              EXPECT_EQ(w.lo % step, 0) << "lo on a step boundary";
              EXPECT_GE(w.lo, int64_t(split) * split_tokens) << "lo inside the split";
              // every token of the split that a row sees lies in [lo, hi)
              for (int32_t i = 0; i < q_len; ++i) {
                const RowTokens r = row_tokens(p, w.len, i);
                const int32_t first = std::max({r.lo, 0, split * split_tokens});
                const int32_t last = std::min(r.hi, (split + 1) * split_tokens - 1);
                if (first <= last) {
                  EXPECT_GE(first, w.lo) << "row " << i;
                  EXPECT_LT(last, w.hi) << "row " << i;
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(PaDecodeWork, RowTokensAreCausalWithinTheWindow) {
  PaDecodeParams p{};
  p.q_len = 4;
  for (int32_t window : {0, 1, 3, 100}) {
    p.window = window;
    for (int32_t len : {4, 10, 500}) {
      for (int32_t i = 0; i < p.q_len; ++i) {
        const RowTokens r = row_tokens(p, len, i);
        EXPECT_EQ(r.hi, len - p.q_len + i) << "new token i sits at position len - q_len + i";
        EXPECT_EQ(r.lo, window > 0 ? r.hi - window + 1 : 0);
      }
    }
  }
}

}  // namespace

namespace {

// `splits` arrivals of one launch (epoch) on `word`, as last_split_arrives makes them: the 1-based
// arrivals that saw the count complete; the completing one writes the word back to 0. `racing`:
// every arrival reads the word before the first claims it, so all but the first lose their
// compare-and-swap and must count on the winner's word.
std::vector<int> arrive(uint64_t& word, uint32_t epoch, int splits, bool racing = false) {
  std::vector<int> last;
  const uint64_t first_read = word;
  for (int a = 1; a <= splits; ++a) {
    uint64_t seen = racing ? first_read : word;
    for (int tries = 0; (seen >> 32) != epoch && tries < 2; ++tries) {  // the compare-and-swap
      const uint64_t claimed = split_counter_claimed(seen, epoch);
      if (word == seen) word = claimed;
      seen = word;
    }
    if ((seen >> 32) != epoch) return {-a};  // the device loop would not have ended after one lost race
    const uint64_t before = word++;  // the atomic add
    if (split_arrivals(before) + 1 == uint32_t(splits)) {
      last.push_back(a);
      word = 0;
    }
  }
  return last;
}

}  // namespace

TEST(PaDecodeWork, TheLastSplitOfALaunchMergesWhateverTheWorkspaceHeld) {
  std::mt19937_64 rng(7);
  const uint32_t epoch = 12345;
  std::vector<uint64_t> starts = {0, ~uint64_t{0}, uint64_t(epoch - 1) << 32 | 5, uint64_t(epoch + 1) << 32 | 63,
                                  uint64_t(epoch - 1) << 32 | 0xffffffffu};
  for (int i = 0; i < 200; ++i) {
    const uint64_t r = rng();
    if ((r >> 32) != epoch) starts.push_back(r);
  }
  for (int splits : {2, 3, 17, 64})
    for (uint64_t start : starts) {
      uint64_t word = start;
      EXPECT_EQ(arrive(word, epoch, splits), std::vector<int>{splits}) << std::hex << start;
      EXPECT_EQ(word, 0u);
      word = start;
      EXPECT_EQ(arrive(word, epoch, splits, /*racing=*/true), std::vector<int>{splits}) << std::hex << start;
      EXPECT_EQ(word, 0u);
      // a graph replays its launch's epoch: it finds the 0 the last replay left
      EXPECT_EQ(arrive(word, epoch, splits), std::vector<int>{splits});
      // a launch that stopped half-way leaves a count the next launch's epoch ignores
      word = uint64_t(epoch) << 32 | uint32_t(splits / 2);
      EXPECT_EQ(arrive(word, epoch + 1, splits), std::vector<int>{splits});
    }
}

TEST(PaDecodeWork, EachRowChunkHasItsOwnCounter) {
  for (const auto& p : {grid(1, 8, 32, 1), grid(3, 4, 5, 2), grid(5, 3, 7, 4)}) {
    const int blocks = p.num_seqs * p.num_kv_heads * p.splits * p.row_chunks;
    const int64_t counters = int64_t(p.num_seqs) * p.num_kv_heads * p.row_chunks;
    std::vector<int> splits_on(size_t(counters), 0);
    for (int b = 0; b < blocks; ++b) {
      const int64_t c = split_counter(p, BlockWork::at(p, b));
      ASSERT_GE(c, 0);
      ASSERT_LT(c, counters);
      ++splits_on[size_t(c)];
    }
    // every counter counts exactly the splits of one (sequence, kv head, row chunk)
    for (int n : splits_on) EXPECT_EQ(n, p.splits);
  }
}
