// fly_pa_decode's checked mode (pa_decode_check.hpp).
#include "pa_decode_check.hpp"

#include <string>
#include <vector>

#include "platform.hpp"
#include "status_internal.hpp"

namespace fly::dispatch {

std::string first_bad_block(const PaDecodeProblem& p, const int32_t* seq_lens, const int32_t* tables,
                            int64_t table_stride) {
  for (int64_t s = 0; s < p.num_seqs; ++s) {
    const int64_t used = (p.visible_len(seq_lens[s]) + p.block_size - 1) / p.block_size;
    for (int64_t b = 0; b < used; ++b) {
      const int32_t id = tables[s * table_stride + b];
      if (id < 0 || id >= p.num_blocks)
        return "block_tables[" + std::to_string(s) + "][" + std::to_string(b) + "] = " + std::to_string(id) +
               " is outside [0, num_blocks = " + std::to_string(p.num_blocks) + ")";
    }
  }
  return {};
}

fly_status_t check_block_tables(const char* fn, const PaDecodeProblem& p, bool host, void* stream) {
  std::string bad;
  if (host) {
    bad = first_bad_block(p, p.seq_lens, p.block_tables, p.block_table_stride);
  } else {
    bool capturing = false;
    if (fly_status_t st = platform::stream_capturing(stream, &capturing); st != FLY_STATUS_SUCCESS) return st;
    if (capturing)
      return detail::fail(FLY_STATUS_NOT_SUPPORTED, std::string(fn) +
                                                        ": FLY_PA_DECODE_CHECK_BLOCK_TABLES waits for the stream, which "
                                                        "is capturing a graph: capture unchecked calls");
    std::vector<int32_t> lens(size_t(p.num_seqs)), tables(size_t(p.num_seqs * p.max_blocks_per_seq));
    if (fly_status_t st = platform::copy_rows_to_host(lens.data(), p.seq_lens, lens.size() * 4, 1, lens.size() * 4, stream);
        st != FLY_STATUS_SUCCESS)
      return st;
    if (fly_status_t st = platform::copy_rows_to_host(tables.data(), p.block_tables, size_t(p.max_blocks_per_seq) * 4,
                                                      size_t(p.num_seqs), size_t(p.block_table_stride) * 4, stream);
        st != FLY_STATUS_SUCCESS)
      return st;
    bad = first_bad_block(p, lens.data(), tables.data(), p.max_blocks_per_seq);
  }
  if (!bad.empty()) return detail::fail(FLY_STATUS_INVALID_ARGUMENT, std::string(fn) + ": " + bad);
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::dispatch
