// fly_pa_decode's checked mode (FLY_PA_DECODE_CHECK_BLOCK_TABLES) on the host backend: the first
// bad block id the call would read is named in the status and nothing is written; ids the call
// does not read (past a sequence's length, past max_blocks_per_seq) are not reported; a clean table
// runs the decode as an unchecked call does. The same on a GPU: test_pa_decode_cuda.cu.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "fly/fly.h"
#include "pa_decode_case.hpp"

namespace {

using fly_test::PaDecodeCase;
using fly_test::PaDecodeConfig;

struct Host {
  fly_handle_t h = nullptr;
  Host() { EXPECT_EQ(fly_create_host(&h), FLY_STATUS_SUCCESS); }
  ~Host() { fly_destroy(h); }
};

// Three sequences over blocks of 16: 40 tokens (columns 0-2 read), none, 33 (columns 0-2 read).
PaDecodeCase checked_case() {
  PaDecodeConfig c;
  c.num_seqs = 3;
  c.seq_lens = {40, 0, 33};
  c.max_seq_len = 48;
  c.table_padding = 3;
  c.seed = 77;
  PaDecodeCase k = fly_test::make_pa_decode_case(c);
  k.block_tables[1 * k.block_table_stride + 0] = -7;                             // sequence 1 reads nothing
  k.block_tables[0 * k.block_table_stride + k.max_blocks_per_seq] = -1;          // past max_blocks_per_seq
  return k;
}

}  // namespace

TEST(PaDecodeChecked, TheFirstBadIdIsNamedAndNothingIsWritten) {
  Host host;
  PaDecodeCase k = checked_case();
  const int32_t n = static_cast<int32_t>(k.num_blocks);
  k.block_tables[2 * k.block_table_stride + 2] = -1;
  k.block_tables[2 * k.block_table_stride + 1] = n;  // the first bad id read: (2, 1)
  fly_test::poison_outputs(k);
  const std::vector<uint16_t> out_before = k.out;
  const std::vector<float> lse_before = k.lse;
  fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  a.flags = FLY_PA_DECODE_CHECK_BLOCK_TABLES;
  ASSERT_EQ(fly_pa_decode(host.h, &a, nullptr, 0, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(fly_last_error()),
            "fly_pa_decode: block_tables[2][1] = " + std::to_string(n) + " is outside [0, num_blocks = " + std::to_string(n) + ")");
  EXPECT_EQ(std::memcmp(k.out.data(), out_before.data(), k.out.size() * 2), 0) << "a checked call that fails writes nothing";
  EXPECT_EQ(std::memcmp(k.lse.data(), lse_before.data(), k.lse.size() * 4), 0);

  // the same table unchecked: the bad ids read as zeros and the call succeeds
  a.flags = 0;
  EXPECT_EQ(fly_pa_decode(host.h, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
}

TEST(PaDecodeChecked, IdsTheCallDoesNotReadAreNotReportedAndTheDecodeRuns) {
  Host host;
  PaDecodeCase k = checked_case();
  fly_test::pa_reference(k);
  fly_test::poison_outputs(k);
  fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  a.flags = FLY_PA_DECODE_CHECK_BLOCK_TABLES;
  ASSERT_EQ(fly_pa_decode(host.h, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  EXPECT_EQ(fly_test::check_pa_decode(k), "");
}

TEST(PaDecodeChecked, SequenceLengthsAreClampedAsTheDecodeClampsThem) {
  Host host;
  PaDecodeCase k = checked_case();
  // seq_lens past max_seq_len read only max_seq_len tokens' blocks: column 3 does not exist here, and
  // a negative length reads none
  k.seq_lens[0] = 1000;
  k.seq_lens[2] = -5;
  k.block_tables[2 * k.block_table_stride + 0] = -3;
  fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  a.flags = FLY_PA_DECODE_CHECK_BLOCK_TABLES;
  EXPECT_EQ(fly_pa_decode(host.h, &a, nullptr, 0, nullptr), FLY_STATUS_SUCCESS) << fly_last_error();
  k.block_tables[0 * k.block_table_stride + 2] = static_cast<int32_t>(k.num_blocks) + 9;  // the clamped 48 tokens read it
  a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  a.flags = FLY_PA_DECODE_CHECK_BLOCK_TABLES;
  EXPECT_EQ(fly_pa_decode(host.h, &a, nullptr, 0, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fly_last_error()).find("block_tables[0][2]"), std::string::npos) << fly_last_error();
}

TEST(PaDecodeChecked, UnknownFlagBitsAreRejected) {
  Host host;
  PaDecodeCase k = checked_case();
  fly_pa_decode_args a = fly_test::pa_decode_args(k, fly_test::host_buffers(k));
  a.flags = 6;
  EXPECT_EQ(fly_pa_decode(host.h, &a, nullptr, 0, nullptr), FLY_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fly_last_error()).find("flags (6)"), std::string::npos) << fly_last_error();
}
