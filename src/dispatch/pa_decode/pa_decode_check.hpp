// fly_pa_decode's checked mode (FLY_PA_DECODE_CHECK_BLOCK_TABLES): every block id a call would
// read, checked before the decode runs, the first bad one named in the status.
#pragma once

#include <cstdint>
#include <string>

#include "fly/fly.h"
#include "pa_decode_problem.hpp"

namespace fly::dispatch {

// Empty when every id the call reads (row s, columns p < ceil(L_s / block_size), L_s =
// visible_len(seq_lens[s])) lies in [0, num_blocks), else "block_tables[s][p] = id is outside
// [0, num_blocks)" for the first (smallest s, then p). Host memory: seq_lens[num_seqs], rows of
// `tables` table_stride entries apart.
std::string first_bad_block(const PaDecodeProblem& p, const int32_t* seq_lens, const int32_t* tables,
                            int64_t table_stride);

// The check on the problem's own buffers: read in place on the host backend (host = true), or
// copied to the host on `stream` and waited for on a GPU (NOT_SUPPORTED while the stream captures
// a graph). FLY_STATUS_INVALID_ARGUMENT with the bad id's text, or success.
fly_status_t check_block_tables(const char* fn, const PaDecodeProblem& p, bool host, void* stream);

}  // namespace fly::dispatch
