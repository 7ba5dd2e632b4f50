// Validation of fly_pa_decode_args (see pa_decode_validate.hpp).
#include "pa_decode_validate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "args_checks.hpp"
#include "dtype.hpp"
#include "status_internal.hpp"

namespace fly::dispatch {
namespace {

// Non-nested out strides are checked row by row up to this many rows (see out_rows_overlap).
constexpr int64_t max_enumerated_rows = int64_t(1) << 16;

bool known_layout(const fly_kv_layout_t& l) { return raw_enum(l) >= FLY_KV_LAYOUT_VLLM && raw_enum(l) <= FLY_KV_LAYOUT_HND; }

// r = a * b + c, false on int64 overflow (all operands >= 0).
bool mul_add(int64_t a, int64_t b, int64_t c, int64_t* r) {
  int64_t m = 0;
  return !__builtin_mul_overflow(a, b, &m) && !__builtin_add_overflow(m, c, r);
}

// Bytes from the first to past the last element of a tensor of `extents` x `strides` (elements,
// extents >= 1, strides >= 0) whose innermost `inner` elements are contiguous; -1 past INT64_MAX.
template <size_t N>
int64_t span_bytes(const std::array<int64_t, N>& extents, const std::array<int64_t, N>& strides, int64_t inner,
                   int64_t esize) {
  int64_t last = inner;  // one past the last element's offset
  for (size_t i = 0; i < N; ++i) {
    if (!mul_add(extents[i] - 1, strides[i], last, &last)) return -1;
  }
  int64_t bytes = 0;
  return mul_add(last, esize, 0, &bytes) ? bytes : -1;
}

// Whether out's rows (head_dim contiguous elements each) can be written twice. Strides sorted
// ascending that each clear the extent below them (the usual case) cannot; otherwise the rows are
// enumerated when there are few enough. Returns 1 overlap, 0 none, -1 too many rows to tell.
int out_rows_overlap(const fly_pa_decode_args& a) {
  std::array<std::pair<int64_t, int64_t>, 3> dims{{{a.out_stride_seq, a.num_seqs},
                                                   {a.out_stride_token, a.q_len},
                                                   {a.out_stride_head, a.num_q_heads}}};  // (stride, extent)
  std::sort(dims.begin(), dims.end());
  int64_t span = a.head_dim;  // elements covered by the dims below; cannot overflow (out's span fits)
  bool nested = true;
  for (auto const& [stride, extent] : dims) {
    if (extent == 1) continue;
    if (stride == 0) return 1;
    if (stride < span) nested = false;
    span = (extent - 1) * stride + span;
  }
  if (nested) return 0;
  int64_t rows = 0;
  if (!mul_add(a.num_seqs, a.q_len, 0, &rows) || !mul_add(rows, a.num_q_heads, 0, &rows) || rows > max_enumerated_rows) {
    return -1;
  }
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(rows));
  for (int64_t s = 0; s < a.num_seqs; ++s)
    for (int64_t i = 0; i < a.q_len; ++i)
      for (int64_t h = 0; h < a.num_q_heads; ++h) offsets.push_back(s * a.out_stride_seq + i * a.out_stride_token + h * a.out_stride_head);
  std::sort(offsets.begin(), offsets.end());
  for (size_t r = 1; r < offsets.size(); ++r) {
    if (offsets[r] - offsets[r - 1] < a.head_dim) return 1;
  }
  return 0;
}

// What makes up buffer `which`'s extent, for the message when it spans more than 2^63 bytes.
std::string extent_text(const fly_pa_decode_args& a, int which) {
  switch (which) {
    case PaDecodeBuffers::q:
    case PaDecodeBuffers::out: return "num_seqs x q_len x num_q_heads x head_dim with its strides";
    case PaDecodeBuffers::k_cache: return "num_blocks " + num(a.num_blocks) + " x k_block_stride " + num(a.k_block_stride);
    case PaDecodeBuffers::v_cache: return "num_blocks " + num(a.num_blocks) + " x v_block_stride " + num(a.v_block_stride);
    case PaDecodeBuffers::block_tables:
      return "num_seqs " + num(a.num_seqs) + " x block_table_stride " + num(a.block_table_stride);
    case PaDecodeBuffers::seq_lens: return "num_seqs " + num(a.num_seqs);
    case PaDecodeBuffers::sinks: return "num_q_heads " + num(a.num_q_heads);
    case PaDecodeBuffers::lse: return "num_seqs x q_len x num_q_heads";
    default: return "one float";
  }
}

}  // namespace

PaDecodeBuffers pa_decode_buffers(const fly_pa_decode_args& a) {
  int64_t const q_esize = dtype_bytes(a.q_type);
  int64_t const kv_esize = dtype_bytes(a.kv_type);
  int64_t block_elems = 0;  // one block of K (or V): num_kv_heads x block_size x head_dim; -1 past INT64_MAX
  if (!mul_add(a.num_kv_heads, a.block_size, 0, &block_elems) || !mul_add(block_elems, a.head_dim, 0, &block_elems))
    block_elems = -1;
  int64_t rows = 0;  // query rows: num_seqs x q_len x num_q_heads (-1 past INT64_MAX)
  if (!mul_add(a.num_seqs, a.q_len, 0, &rows) || !mul_add(rows, a.num_q_heads, 0, &rows)) rows = -1;
  auto cache = [&](int64_t stride) { return block_elems < 0 ? -1 : span_bytes<1>({a.num_blocks}, {stride}, block_elems, kv_esize); };
  auto rows_of = [&](const std::array<int64_t, 3>& strides) {
    return span_bytes<3>({a.num_seqs, a.q_len, a.num_q_heads}, strides, a.head_dim, q_esize);
  };
  PaDecodeBuffers b;
  b.all[PaDecodeBuffers::q] = {"q", a.q, rows_of({a.q_stride_seq, a.q_stride_token, a.q_stride_head}), false};
  b.all[PaDecodeBuffers::k_cache] = {"k_cache", a.k_cache, cache(a.k_block_stride), false};
  b.all[PaDecodeBuffers::v_cache] = {"v_cache", a.v_cache, cache(a.v_block_stride), false};
  b.all[PaDecodeBuffers::block_tables] = {
      "block_tables", a.block_tables, span_bytes<1>({a.num_seqs}, {a.block_table_stride}, a.max_blocks_per_seq, 4), false};
  b.all[PaDecodeBuffers::seq_lens] = {"seq_lens", a.seq_lens, span_bytes<1>({1}, {0}, a.num_seqs, 4), false};
  b.all[PaDecodeBuffers::k_scale] = {"k_scale", a.k_scale, a.k_scale == nullptr ? 0 : 4, false};
  b.all[PaDecodeBuffers::v_scale] = {"v_scale", a.v_scale, a.v_scale == nullptr ? 0 : 4, false};
  b.all[PaDecodeBuffers::sinks] = {"sinks", a.sinks, a.sinks == nullptr ? 0 : span_bytes<1>({1}, {0}, a.num_q_heads, 4),
                                   false};
  b.all[PaDecodeBuffers::out] = {"out", a.out, rows_of({a.out_stride_seq, a.out_stride_token, a.out_stride_head}), true};
  b.all[PaDecodeBuffers::lse] = {"lse", a.lse, a.lse == nullptr ? 0 : rows < 0 ? -1 : span_bytes<1>({1}, {0}, rows, 4),
                                 true};
  return b;
}

const char* pa_decode_buffer_overlapping(const fly_pa_decode_args& a, const void* p, int64_t bytes) {
  if (p == nullptr || bytes <= 0) return nullptr;
  Range const r = range_of(p, bytes);
  for (const PaDecodeBuffer& b : pa_decode_buffers(a).all) {
    if (overlap(r, range_of(b.base, b.bytes))) return b.name;
  }
  return nullptr;
}

fly_status_t validate_pa_decode_args(const char* fn, const fly_pa_decode_args* args, Target target, PaDecodeProblem* out) {
  std::string const f = std::string(fn) + ": ";
  auto invalid = [&](const std::string& msg) { return detail::fail(FLY_STATUS_INVALID_ARGUMENT, f + msg); };
  auto unsupported = [&](const std::string& msg) { return detail::fail(FLY_STATUS_NOT_SUPPORTED, f + msg); };

  if (args == nullptr) return invalid("args is null");
  // ---- struct_size: the ABI version of the caller's struct
  if (fly_status_t st = check_struct_size(f, args, args->struct_size, sizeof(fly_pa_decode_args), "fly_pa_decode_args",
                                          "FLY_PA_DECODE_ARGS_INIT");
      st != FLY_STATUS_SUCCESS)
    return st;
  const fly_pa_decode_args& a = *args;
  // ---- sizes
  if (a.num_seqs < 1) return invalid("num_seqs (" + num(a.num_seqs) + ") must be >= 1");
  if (a.q_len < 1) return invalid("q_len (" + num(a.q_len) + ") must be >= 1");
  if (a.num_q_heads < 1) return invalid("num_q_heads (" + num(a.num_q_heads) + ") must be >= 1");
  if (a.num_kv_heads < 1) return invalid("num_kv_heads (" + num(a.num_kv_heads) + ") must be >= 1");
  if (a.num_q_heads % a.num_kv_heads != 0) {
    return invalid("num_q_heads (" + num(a.num_q_heads) + ") must be a multiple of num_kv_heads (" + num(a.num_kv_heads) + ")");
  }
  if (a.head_dim < 1) return invalid("head_dim (" + num(a.head_dim) + ") must be >= 1");
  if (a.num_blocks < 1) return invalid("num_blocks (" + num(a.num_blocks) + ") must be >= 1");
  if (a.block_size < 1) return invalid("block_size (" + num(a.block_size) + ") must be >= 1");
  if (a.max_blocks_per_seq < 1) return invalid("max_blocks_per_seq (" + num(a.max_blocks_per_seq) + ") must be >= 1");
  if (a.block_table_stride < a.max_blocks_per_seq) {
    return invalid("block_table_stride (" + num(a.block_table_stride) + ") must be >= max_blocks_per_seq (" +
                   num(a.max_blocks_per_seq) + ")");
  }
  if (a.max_seq_len < 1) return invalid("max_seq_len (" + num(a.max_seq_len) + ") must be >= 1");
  if (a.sliding_window < 0) return invalid("sliding_window (" + num(a.sliding_window) + ") must be >= 0 (0 = off)");
  if ((a.flags & ~FLY_PA_DECODE_CHECK_BLOCK_TABLES) != 0)
    return invalid("flags (" + num(int64_t(a.flags)) + ") has bits other than FLY_PA_DECODE_CHECK_BLOCK_TABLES");
  // ---- enums are values of their C enum
  if (!known_dtype(a.q_type)) return invalid("q_type (" + dtype_text(a.q_type) + ") is not a fly_dtype_t");
  if (!known_dtype(a.kv_type)) return invalid("kv_type (" + dtype_text(a.kv_type) + ") is not a fly_dtype_t");
  if (!known_layout(a.kv_layout)) return invalid("kv_layout (" + std::to_string(raw_enum(a.kv_layout)) + ") is not a fly_kv_layout_t");
  // ---- scalars (NaN fails every comparison)
  if (!std::isfinite(a.scale)) return invalid("scale (" + num(a.scale) + ") must be finite");
  if (!(a.logit_softcap >= 0.0f) || !std::isfinite(a.logit_softcap)) {
    return invalid("logit_softcap (" + num(a.logit_softcap) + ") must be finite and >= 0 (0 = off)");
  }
  // ---- pointers (lse, k_scale, v_scale, sinks are optional)
  if (a.q == nullptr) return invalid("q is null");
  if (a.out == nullptr) return invalid("out is null");
  if (a.k_cache == nullptr) return invalid("k_cache is null");
  if (a.v_cache == nullptr) return invalid("v_cache is null");
  if (a.block_tables == nullptr) return invalid("block_tables is null");
  if (a.seq_lens == nullptr) return invalid("seq_lens is null");
  // ---- strides
  const std::pair<const char*, int64_t> strides[] = {
      {"q_stride_seq", a.q_stride_seq},     {"q_stride_token", a.q_stride_token},     {"q_stride_head", a.q_stride_head},
      {"out_stride_seq", a.out_stride_seq}, {"out_stride_token", a.out_stride_token}, {"out_stride_head", a.out_stride_head}};
  for (auto const& [name, v] : strides) {
    if (v < 0) return invalid(std::string(name) + " (" + num(v) + ") must be >= 0");
  }
  int64_t const q_esize = dtype_bytes(a.q_type);
  int64_t const kv_esize = dtype_bytes(a.kv_type);
  int64_t block_elems = 0;  // one block of K (or V): num_kv_heads x block_size x head_dim
  int64_t kv_block_bytes = 0;
  if (!mul_add(a.num_kv_heads, a.block_size, 0, &block_elems) || !mul_add(block_elems, a.head_dim, 0, &block_elems) ||
      !mul_add(block_elems, kv_esize, 0, &kv_block_bytes)) {
    return invalid("one cache block (num_kv_heads " + num(a.num_kv_heads) + " x block_size " + num(a.block_size) +
                   " x head_dim " + num(a.head_dim) + ") spans more than 2^63 bytes");
  }
  if (a.k_block_stride < block_elems) {
    return invalid("k_block_stride (" + num(a.k_block_stride) + ") must be >= one block's elements (num_kv_heads x block_size x head_dim = " +
                   num(block_elems) + ")");
  }
  if (a.v_block_stride < block_elems) {
    return invalid("v_block_stride (" + num(a.v_block_stride) + ") must be >= one block's elements (num_kv_heads x block_size x head_dim = " +
                   num(block_elems) + ")");
  }
  // ---- extents fit the address arithmetic
  const PaDecodeBuffers buffers = pa_decode_buffers(a);
  for (int i = 0; i < PaDecodeBuffers::count; ++i) {
    const PaDecodeBuffer& b = buffers.all[size_t(i)];
    if (b.bytes < 0) return invalid(std::string(b.name) + " (" + extent_text(a, i) + ") spans more than 2^63 bytes");
  }
  // ---- alignment to the element types (what any backend dereferences)
  if (!aligned_to(a.q, q_esize)) return invalid("q (" + address(a.q) + ") must be aligned to its element size (" + num(q_esize) + " bytes)");
  if (!aligned_to(a.out, q_esize)) return invalid("out (" + address(a.out) + ") must be aligned to its element size (" + num(q_esize) + " bytes)");
  if (!aligned_to(a.k_cache, kv_esize)) return invalid("k_cache (" + address(a.k_cache) + ") must be aligned to its element size (" + num(kv_esize) + " bytes)");
  if (!aligned_to(a.v_cache, kv_esize)) return invalid("v_cache (" + address(a.v_cache) + ") must be aligned to its element size (" + num(kv_esize) + " bytes)");
  const std::pair<const char*, const void*> words[] = {{"lse", a.lse},         {"k_scale", a.k_scale}, {"v_scale", a.v_scale},
                                                       {"sinks", a.sinks},     {"block_tables", a.block_tables},
                                                       {"seq_lens", a.seq_lens}};
  for (auto const& [name, p] : words) {
    if (!aligned_to(p, 4)) return invalid(std::string(name) + " (" + address(p) + ") must be aligned to 4 bytes");
  }
  // ---- what is written (out, lse) overlaps nothing else; out's rows are distinct
  Range const out_range = range_of(a.out, buffers.all[PaDecodeBuffers::out].bytes);
  Range const lse_range = range_of(a.lse, buffers.all[PaDecodeBuffers::lse].bytes);
  for (const PaDecodeBuffer& b : buffers.all) {
    if (b.written) continue;
    Range const r = range_of(b.base, b.bytes);
    if (overlap(out_range, r)) return invalid(std::string("out overlaps ") + b.name + " (out must not alias an input)");
    if (overlap(lse_range, r)) return invalid(std::string("lse overlaps ") + b.name + " (lse must not alias an input)");
  }
  if (overlap(out_range, lse_range)) return invalid("out overlaps lse");
  int const self_overlap = out_rows_overlap(a);
  if (self_overlap == 1) {
    return invalid("out's strides (seq " + num(a.out_stride_seq) + ", token " + num(a.out_stride_token) + ", head " +
                   num(a.out_stride_head) + ") make two of its rows of head_dim (" + num(a.head_dim) + ") elements overlap");
  }

  // ---- valid; what the kernels compute
  if (a.q_type != FLY_DTYPE_BF16 && a.q_type != FLY_DTYPE_F16) {
    return unsupported("q_type " + dtype_text(a.q_type) + " is not supported: q and out must be bf16 or f16");
  }
  if (a.kv_type != a.q_type && a.kv_type != FLY_DTYPE_E4M3FN && a.kv_type != FLY_DTYPE_E4M3FNUZ) {
    return unsupported("kv_type " + dtype_text(a.kv_type) + " is not supported with q_type " + dtype_text(a.q_type) +
                       ": the cache must be q_type, e4m3fn or e4m3fnuz");
  }
  if (a.head_dim != 64 && a.head_dim != 128 && a.head_dim != 256) {
    return unsupported("head_dim (" + num(a.head_dim) + ") is not supported: it must be 64, 128 or 256");
  }
  if (a.block_size != 16 && a.block_size != 32 && a.block_size != 64) {
    return unsupported("block_size (" + num(a.block_size) + ") is not supported: it must be 16, 32 or 64");
  }
  if (a.q_len > 4) return unsupported("q_len (" + num(a.q_len) + ") is not supported: it must be 1 to 4");
  if (self_overlap == -1) {
    return unsupported("out's strides (seq " + num(a.out_stride_seq) + ", token " + num(a.out_stride_token) + ", head " +
                       num(a.out_stride_head) + ") are not nested and out has too many rows to check that none overlap");
  }
  if (target != Target::host) {
    // The kernels load and store 16-byte vectors: every used base and stride is a multiple of 16 bytes.
    const std::pair<const char*, const void*> bases[] = {{"q", a.q}, {"out", a.out}, {"k_cache", a.k_cache}, {"v_cache", a.v_cache}};
    for (auto const& [name, p] : bases) {
      if (!aligned_to(p, 16)) return unsupported(std::string(name) + " (" + address(p) + ") must be 16-byte aligned on a GPU");
    }
    struct Used {
      const char* name;
      int64_t stride, extent, esize;
    };
    const Used used[] = {{"q_stride_seq", a.q_stride_seq, a.num_seqs, q_esize},
                         {"q_stride_token", a.q_stride_token, a.q_len, q_esize},
                         {"q_stride_head", a.q_stride_head, a.num_q_heads, q_esize},
                         {"out_stride_seq", a.out_stride_seq, a.num_seqs, q_esize},
                         {"out_stride_token", a.out_stride_token, a.q_len, q_esize},
                         {"out_stride_head", a.out_stride_head, a.num_q_heads, q_esize},
                         {"k_block_stride", a.k_block_stride, a.num_blocks, kv_esize},
                         {"v_block_stride", a.v_block_stride, a.num_blocks, kv_esize}};
    for (Used const& u : used) {
      if (u.extent > 1 && (u.stride * u.esize) % 16 != 0) {  // stride * esize fits: the span does
        return unsupported(std::string(u.name) + " (" + num(u.stride) + ") must be a multiple of 16 bytes (" +
                           num(16 / u.esize) + " elements) on a GPU");
      }
    }
  }

  PaDecodeProblem& p = *out;
  p.num_seqs = a.num_seqs;
  p.q_len = a.q_len;
  p.num_q_heads = a.num_q_heads;
  p.num_kv_heads = a.num_kv_heads;
  p.head_dim = a.head_dim;
  p.q_type = a.q_type;
  p.kv_type = a.kv_type;
  p.layout = a.kv_layout;
  p.q = a.q;
  p.q_stride_seq = a.q_stride_seq;
  p.q_stride_token = a.q_stride_token;
  p.q_stride_head = a.q_stride_head;
  p.out = a.out;
  p.out_stride_seq = a.out_stride_seq;
  p.out_stride_token = a.out_stride_token;
  p.out_stride_head = a.out_stride_head;
  p.lse = a.lse;
  p.k_cache = a.k_cache;
  p.v_cache = a.v_cache;
  p.num_blocks = a.num_blocks;
  p.block_size = a.block_size;
  p.k_block_stride = a.k_block_stride;
  p.v_block_stride = a.v_block_stride;
  p.block_tables = a.block_tables;
  p.block_table_stride = a.block_table_stride;
  p.max_blocks_per_seq = a.max_blocks_per_seq;
  p.seq_lens = a.seq_lens;
  p.max_seq_len = a.max_seq_len;
  p.k_scale = a.k_scale;
  p.v_scale = a.v_scale;
  p.scale = a.scale;
  p.logit_softcap = a.logit_softcap;
  p.sliding_window = a.sliding_window;
  p.sinks = a.sinks;
  p.check_block_tables = (a.flags & FLY_PA_DECODE_CHECK_BLOCK_TABLES) != 0;
  return FLY_STATUS_SUCCESS;
}

}  // namespace fly::dispatch
