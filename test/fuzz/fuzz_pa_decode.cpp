// libFuzzer target: fly_pa_decode's validation and host backend on arguments drawn from the input
// (counts, head_dim, block_size, dtypes and layouts including values outside their enums, strides,
// table widths, max_seq_len, options), with every buffer allocated to exactly the span its
// arguments describe and filled with input bytes (block ids and lengths anything, NaN codes
// included). The library must return a status, never crash, read or write outside those buffers
// (ASan), or hit undefined behaviour (UBSan). The sizes stay small so that a run explores many calls.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fly/fly.h"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fly_fuzz::Input in(data, size);
  fly_pa_decode_args a = FLY_PA_DECODE_ARGS_INIT;
  if (in.pick(16) == 0) a.struct_size = in.range(0, 2 * sizeof a);  // mostly the right size
  a.num_seqs = in.range(-1, 4);
  a.q_len = in.range(0, 5);
  a.num_kv_heads = in.range(0, 3);
  a.num_q_heads = a.num_kv_heads * in.range(1, 5) + (in.pick(8) == 0 ? 1 : 0);
  const int64_t dims[] = {64, 128, 256, 32, 0, -64};
  a.head_dim = dims[in.pick(6) * (in.pick(4) == 0)];  // mostly 64
  const int64_t blocks[] = {16, 32, 64, 8, 0};
  a.block_size = blocks[in.pick(5) * (in.pick(3) == 0)];
  const fly_dtype_t types[] = {FLY_DTYPE_BF16, FLY_DTYPE_F16, FLY_DTYPE_E4M3FN, FLY_DTYPE_E4M3FNUZ, FLY_DTYPE_F32};
  a.q_type = types[in.pick(2)];
  a.kv_type = in.pick(3) == 0 ? types[in.pick(5)] : a.q_type;
  if (in.pick(32) == 0) std::memset(&a.kv_type, 0x5A, sizeof a.kv_type);  // outside the enum
  a.kv_layout = static_cast<fly_kv_layout_t>(in.pick(3));
  if (in.pick(32) == 0) std::memset(&a.kv_layout, 0xA5, sizeof a.kv_layout);
  a.num_blocks = in.range(0, 6);
  a.max_blocks_per_seq = in.range(0, 5);
  a.block_table_stride = a.max_blocks_per_seq + in.range(-1, 2);
  a.max_seq_len = in.range(-1, 300);
  a.scale = in.pick(16) == 0 ? in.f32() : 0.125f;
  a.logit_softcap = in.pick(4) == 0 ? in.f32() : 0.f;
  a.sliding_window = in.pick(4) == 0 ? in.range(-2, 300) : 0;
  a.flags = in.pick(8) == 0 ? uint32_t(in.range(0, 3)) : 0u;

  // q and out: [seqs][q_len][heads][d] with strides from the input (head_dim contiguous)
  const int64_t d = a.head_dim > 0 ? a.head_dim : 1, hq = a.num_q_heads > 0 ? a.num_q_heads : 1;
  a.q_stride_head = d + 8 * in.range(-1, 1);
  a.q_stride_token = hq * a.q_stride_head + in.range(0, 8);
  a.q_stride_seq = (a.q_len > 0 ? a.q_len : 1) * a.q_stride_token + in.range(0, 8);
  a.out_stride_head = d + 8 * in.range(0, 1);
  a.out_stride_token = hq * a.out_stride_head;
  a.out_stride_seq = (a.q_len > 0 ? a.q_len : 1) * a.out_stride_token;
  auto span = [](int64_t n0, int64_t s0, int64_t n1, int64_t s1, int64_t n2, int64_t s2, int64_t inner) -> int64_t {
    if (n0 <= 0 || n1 <= 0 || n2 <= 0 || s0 < 0 || s1 < 0 || s2 < 0) return 1;
    return (n0 - 1) * s0 + (n1 - 1) * s1 + (n2 - 1) * s2 + inner;
  };
  const int64_t q_elems = span(a.num_seqs, a.q_stride_seq, a.q_len, a.q_stride_token, hq, a.q_stride_head, d);
  const int64_t out_elems = span(a.num_seqs, a.out_stride_seq, a.q_len, a.out_stride_token, hq, a.out_stride_head, d);
  const int64_t block_elems = (a.num_kv_heads > 0 ? a.num_kv_heads : 1) * (a.block_size > 0 ? a.block_size : 1) * d;
  a.k_block_stride = block_elems + 8 * in.range(-1, 2);
  a.v_block_stride = in.pick(4) == 0 ? a.k_block_stride : block_elems;
  const int64_t nb = a.num_blocks > 0 ? a.num_blocks : 1;
  const int64_t k_elems = (nb - 1) * (a.k_block_stride > 0 ? a.k_block_stride : 0) + block_elems;
  const int64_t v_elems = (nb - 1) * (a.v_block_stride > 0 ? a.v_block_stride : 0) + block_elems;
  const int64_t table_entries = (a.num_seqs > 0 ? a.num_seqs : 1) * (a.block_table_stride > 0 ? a.block_table_stride : 1);
  const int64_t limit = int64_t{1} << 22;  // elements: a call stays cheap
  if (q_elems > limit || out_elems > limit || k_elems > limit || v_elems > limit) return 0;

  std::vector<uint16_t> q(static_cast<size_t>(q_elems)), out(static_cast<size_t>(out_elems));
  std::vector<uint8_t> k(static_cast<size_t>(k_elems) * 2), v(static_cast<size_t>(v_elems) * 2);  // room for 16-bit elements
  std::vector<int32_t> tables(static_cast<size_t>(table_entries)), lens(static_cast<size_t>(a.num_seqs > 0 ? a.num_seqs : 1));
  std::vector<float> lse(static_cast<size_t>((a.num_seqs > 0 ? a.num_seqs : 1) * (a.q_len > 0 ? a.q_len : 1) * hq));
  std::vector<float> sinks(static_cast<size_t>(hq)), scales = {in.f32(), in.f32()};
  in.fill(q.data(), q.size() * 2);
  in.fill(k.data(), k.size());
  in.fill(v.data(), v.size());
  for (auto& t : tables) t = in.pick(8) == 0 ? int32_t(in.u32()) : int32_t(in.range(0, nb - 1));
  for (auto& l : lens) l = in.pick(8) == 0 ? int32_t(in.u32()) : int32_t(in.range(0, 300));
  for (auto& s : sinks) s = in.f32();
  a.q = q.data();
  a.out = out.data();
  a.lse = in.pick(2) ? lse.data() : nullptr;
  a.k_cache = k.data();
  a.v_cache = v.data();
  a.block_tables = tables.data();
  a.seq_lens = lens.data();
  a.k_scale = in.pick(2) ? &scales[0] : nullptr;
  a.v_scale = in.pick(2) ? &scales[1] : nullptr;
  a.sinks = in.pick(4) == 0 ? sinks.data() : nullptr;
  if (in.pick(64) == 0) a.q = nullptr;

  // the caller's struct is struct_size bytes (a newer caller's tail zero), as the C API requires
  std::vector<unsigned char> args_bytes(a.struct_size > sizeof a ? a.struct_size : sizeof a, 0);
  std::memcpy(args_bytes.data(), &a, sizeof a);
  const auto* args = reinterpret_cast<const fly_pa_decode_args*>(args_bytes.data());
  size_t ws = 0;
  if (fly_pa_decode_workspace_size(fly_fuzz::host_handle(), args, &ws) == FLY_STATUS_SUCCESS) {
    std::vector<unsigned char> workspace(ws + 16);
    (void)fly_pa_decode(fly_fuzz::host_handle(), args, ws ? workspace.data() : nullptr, ws, nullptr);
  } else {
    (void)fly_pa_decode(fly_fuzz::host_handle(), args, nullptr, 0, nullptr);  // the same rejection, or a status
  }
  char line[FLY_PA_DECODE_EXPLAIN_BYTES];
  (void)fly_pa_decode_explain(fly_fuzz::host_handle(), args, line, sizeof line);
  return 0;
}
