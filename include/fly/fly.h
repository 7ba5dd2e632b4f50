/* libfly C API. C99; every entry point returns a status, never throws, never aborts.
 *
 * Conventions every entry follows: one status enum, a string for each status, a thread-local
 * detail message for the last failure, argument structs that carry their own size (ABI evolution),
 * and GPU work enqueued on the caller's stream without allocation or host synchronisation (so it
 * can be captured in a CUDA/HIP graph). See docs/c-api.md. */
#ifndef FLY_FLY_H
#define FLY_FLY_H

#include <stddef.h>
#include <stdint.h>

#include "fly/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fly_status_t {
  FLY_STATUS_SUCCESS = 0,
  FLY_STATUS_INVALID_ARGUMENT = 1,  /* a null pointer, a size out of range, a mismatched struct size */
  FLY_STATUS_NOT_SUPPORTED = 2,     /* valid request the device or this build cannot compute */
  FLY_STATUS_INSUFFICIENT_WORKSPACE = 3,
  FLY_STATUS_DEVICE_ERROR = 4,      /* the CUDA/HIP runtime reported an error */
  FLY_STATUS_INTERNAL_ERROR = 5
} fly_status_t;

/* A static string naming the status, e.g. "FLY_STATUS_INVALID_ARGUMENT". Unknown values give
 * "FLY_STATUS_UNKNOWN". */
const char* fly_status_string(fly_status_t status);

/* The detail message of the last failing call on this thread ("" if none). The pointer stays
 * valid until the next libfly call on the same thread. */
const char* fly_last_error(void);

/* The version of the linked library, FLY_VERSION's encoding; compare with FLY_VERSION from the
 * header you compiled against. */
int fly_version(void);

/* The backends compiled into this libfly.a, as a bit set of FLY_BACKEND_*. */
enum { FLY_BACKEND_HOST = 1, FLY_BACKEND_CUDA = 2, FLY_BACKEND_HIP = 4 };
unsigned fly_compiled_backends(void);

/* ---- element types ---------------------------------------------------------------------------- */

typedef enum fly_dtype_t {
  FLY_DTYPE_F32 = 0,      /* IEEE binary32 */
  FLY_DTYPE_F16 = 1,      /* IEEE binary16 */
  FLY_DTYPE_BF16 = 2,     /* bfloat16 */
  FLY_DTYPE_E4M3FN = 3,   /* OCP fp8 E4M3 (bias 7, max 448, no infinity): sm_90a and the host */
  FLY_DTYPE_E4M3FNUZ = 4  /* fp8 E4M3 "fnuz" (bias 8, max 240, one NaN 0x80): gfx942 and the host */
} fly_dtype_t;

/* A static lower-case name: "f32", "f16", "bf16", "e4m3fn", "e4m3fnuz"; "unknown" otherwise. */
const char* fly_dtype_string(fly_dtype_t dtype);

/* ---- handles ---------------------------------------------------------------------------------- */

/* A handle binds libfly to one device (or to the host backend) and caches the device's properties
 * and the dispatch decisions. It may be used from several threads at once. A GPU handle must be
 * used while its device is the current one. */
typedef struct fly_handle_s* fly_handle_t;

/* Creates a handle for the current CUDA device when this library was built with CUDA and a device
 * is present (HIP builds: the current AMD device), else for the host backend. The environment
 * variable FLY_BACKEND overrides the choice at creation: "host" forces the host backend, "cuda" /
 * "hip" require that GPU backend (an error when it is missing), "auto" or unset picks as above.
 * *out is null after a failure. */
fly_status_t fly_create(fly_handle_t* out);

/* Creates a host-backend handle whatever the build and the environment. */
fly_status_t fly_create_host(fly_handle_t* out);

/* Destroys a handle; null is accepted and does nothing. No call on the handle may be in flight. */
fly_status_t fly_destroy(fly_handle_t handle);

/* The handle's backend: exactly one of FLY_BACKEND_HOST, FLY_BACKEND_CUDA, FLY_BACKEND_HIP. */
fly_status_t fly_handle_backend(fly_handle_t handle, unsigned* backend);

/* ---- GEMM: D = alpha * scale_a * scale_b * (A x B^T) + beta * C ------------------------------- *
 *
 * A is m x k, B is n x k, C and D are m x n; all row-major with explicit leading dimensions (the
 * distance in elements between consecutive rows): A[i][p] = a[i * lda + p], B[j][p] = b[j * ldb + p],
 * D[i][j] = d[i * ldd + j]. Products accumulate in fp32; the result is rounded once to d_type
 * (round to nearest even). On sm_90a the fp8 tensor-core variants sum each 128-deep run of K in
 * the tensor cores' own accumulator (about 14 significant bits, as cuBLASLt's default does) and
 * add the runs in fp32: their error against an fp32 sum grows with |A| |B| per run, not with K.
 *
 * Rules (a violation returns FLY_STATUS_INVALID_ARGUMENT or, for a valid request this device or
 * build cannot compute, FLY_STATUS_NOT_SUPPORTED, with fly_last_error() naming the argument):
 *  - m, n, k >= 1; lda >= k, ldb >= k, ldd >= n, and ldc >= n when C is read.
 *  - a_type == b_type, one of E4M3FN (sm_90a, host), E4M3FNUZ (gfx942, host) or F32.
 *  - d_type is F32, F16 or BF16. When C is read, c_type must equal d_type.
 *  - C is read iff beta != 0: c may be null iff beta == 0 (then c, ldc and c_type are ignored and
 *    C's contents, NaN included, do not affect D). c may equal d (in place) when ldc == ldd;
 *    D must not otherwise overlap A, B, C or the scales (compared as spans from the first to the
 *    last element, so D in another matrix's row padding counts as overlapping).
 *  - scale_a, scale_b point to one fp32 value each, read when the GEMM runs (a captured graph sees
 *    the value current at replay); null means 1.
 *  - Every pointer is aligned to its element size (scales: 4 bytes); wider alignment of a, b, lda,
 *    ldb and k only widens the variants that may run.
 *  - Elements outside the m x n (m x k, n x k) windows, i.e. the padding of a leading dimension,
 *    are neither read nor written.
 *  - On a GPU, M, N and K of at most 2^31 - 4097 (the kernels count in 32 bits), else
 *    NOT_SUPPORTED; fly_gemm_explain says so too.
 *  - On the host backend every pointer is a host pointer and the call completes before it returns;
 *    on a GPU backend a, b, c, d, scale_a and scale_b are device pointers.
 *
 * Initialise the struct with FLY_GEMM_ARGS_INIT, then set the fields. struct_size tells the library
 * which version of the struct the caller compiled against: smaller than the fields this library
 * reads is an error; larger is accepted when the bytes past this library's struct are zero. */
typedef struct fly_gemm_args {
  size_t struct_size;                             /* sizeof(fly_gemm_args), set by FLY_GEMM_ARGS_INIT */
  int64_t m, n, k;                                /* problem size, each >= 1 */
  fly_dtype_t a_type, b_type, c_type, d_type;     /* element types */
  const void* a;                                  /* A, m x k */
  int64_t lda;                                    /* >= k */
  const void* b;                                  /* B, n x k (the product uses B transposed) */
  int64_t ldb;                                    /* >= k */
  const void* c;                                  /* C, m x n, or null when beta == 0 */
  int64_t ldc;                                    /* >= n when C is read */
  void* d;                                        /* D, m x n, written */
  int64_t ldd;                                    /* >= n */
  float alpha, beta;                              /* FLY_GEMM_ARGS_INIT: 1 and 0 */
  const float* scale_a;                           /* per-tensor scale of A, or null for 1 */
  const float* scale_b;                           /* per-tensor scale of B, or null for 1 */
} fly_gemm_args;

/* struct_size = sizeof, alpha = 1, beta = 0, every other field 0 / null (dtypes F32). */
#define FLY_GEMM_ARGS_INIT                                                                         \
  {sizeof(fly_gemm_args), 0, 0, 0, FLY_DTYPE_F32, FLY_DTYPE_F32, FLY_DTYPE_F32, FLY_DTYPE_F32,     \
   NULL, 0, NULL, 0, NULL, 0, NULL, 0, 1.0f, 0.0f, NULL, NULL}

/* The workspace fly_gemm needs for these arguments, in bytes (0 for every GEMM today). Validates
 * the arguments as fly_gemm does; reads no tensor data. */
fly_status_t fly_gemm_workspace_size(fly_handle_t handle, const fly_gemm_args* args, size_t* bytes);

/* Runs the GEMM. workspace: workspace_bytes bytes of device memory (host memory on the host
 * backend), at least fly_gemm_workspace_size's answer; may be null when workspace_bytes is 0.
 * stream: a cudaStream_t / hipStream_t (null: the default stream); the call only enqueues work, it
 * never allocates nor synchronises, so it may be captured in a graph. On the host backend stream
 * must be null and the call is synchronous (multi-threaded for large problems).
 * FLY_LOG_DISPATCH=1 in the environment (read at handle creation) prints fly_gemm_explain's line
 * to stderr on every call. */
fly_status_t fly_gemm(fly_handle_t handle, const fly_gemm_args* args, void* workspace,
                      size_t workspace_bytes, void* stream);

/* ---- GEMM introspection ----------------------------------------------------------------------- */

/* The GEMM variants compiled into this library: index 0 is "host_reference" (the host backend),
 * then the GPU kernels, e.g. "gemm_sm90a_e4m3_bf16_64x64x128_w2x2_u128". */
int fly_gemm_variant_count(void);

/* The name of variant `index` (a static string), or null when index is out of range. */
const char* fly_gemm_variant_name(int index);

/* Writes into buffer (NUL-terminated, at most buffer_bytes bytes) which variant fly_gemm would use
 * for these arguments and why, e.g. "host_reference: host backend". Returns what fly_gemm would
 * return for its choice: FLY_STATUS_NOT_SUPPORTED when no variant fits (the buffer then says why,
 * starting with "none: "), a validation failure for bad arguments (buffer ""). A buffer too small
 * for the whole line gets its truncated start and FLY_STATUS_INVALID_ARGUMENT, with the size needed
 * in fly_last_error(); FLY_GEMM_EXPLAIN_BYTES is enough for the lines libfly writes today. */
#define FLY_GEMM_EXPLAIN_BYTES 512
fly_status_t fly_gemm_explain(fly_handle_t handle, const fly_gemm_args* args, char* buffer,
                              size_t buffer_bytes);


/* ---- Paged-attention decode ------------------------------------------------------------------- *
 *
 * For each sequence s, new query token i (0 <= i < q_len) and query head h, with kv head
 * g = h / (num_q_heads / num_kv_heads):
 *   out[s,i,h,:] = sum_t softmax_t(logit(s,i,h,t)) * V[s,g,t,:],  logit = scale * q[s,i,h,:] . K[s,g,t,:]
 * (then soft-capped: cap * tanh(logit / cap) when logit_softcap > 0), over the tokens t the query may
 * see: t < L where L = seq_lens[s]; causal among the q_len new tokens, which are the last q_len of
 * the sequence (query i sees t <= L - q_len + i); with sliding_window W > 0 also t > L - q_len + i - W
 * (the query sees itself and the W - 1 tokens before it). sinks (one fp32 logit per query head, or
 * null) join the softmax denominator only. Token t of sequence s lives in physical block
 * block_tables[s * block_table_stride + t / block_size], slot t % block_size. fp8 caches are
 * dequantised as value * k_scale (K) and value * v_scale (V). Accumulation is fp32; out is rounded
 * once to q's type. A query that sees no token (seq_lens[s] == 0, or L < q_len for its position),
 * or whose logits are all -inf (no token has weight), gets out = 0 and lse = -inf, sinks or not.
 *
 * Rules (FLY_STATUS_INVALID_ARGUMENT / FLY_STATUS_NOT_SUPPORTED with fly_last_error() as for GEMM):
 *  - num_seqs, q_len, num_q_heads, num_kv_heads >= 1; num_q_heads % num_kv_heads == 0.
 *  - q and out: [num_seqs, q_len, num_q_heads, head_dim] of q_type (BF16 or F16), head_dim
 *    contiguous, the other strides explicit in elements (any order, >= 0, no overlap of out's rows).
 *  - lse: null, or [num_seqs, q_len, num_q_heads] contiguous fp32, written with the natural-log
 *    log-sum-exp of each query's logits (sinks included).
 *  - kv_type BF16 or F16 (equal to q_type), or E4M3FN / E4M3FNUZ (either q_type). k_scale,
 *    v_scale: device pointers to one fp32 each (null = 1), read when the kernel runs; they
 *    dequantise fp8 caches and are ignored for 16-bit ones. On a GPU an fp8 cache's products run
 *    in f16: q is rounded to f16 there (|q| >= 65520 becomes infinite, |q| below 2^-14 keeps fewer
 *    bits), and k_scale multiplies the logit and v_scale the output rather than each element (the
 *    same value where all is finite; an infinite scale gives inf where the product would be NaN).
 *  - k_cache / v_cache: num_blocks blocks of kv_layout (below), block i at k_cache + i *
 *    k_block_stride elements (v likewise), so K and V may share one allocation. Within a block:
 *      FLY_KV_LAYOUT_VLLM: K [num_kv_heads][head_dim / x][block_size][x], x = 16 bytes of elements;
 *                          V [num_kv_heads][head_dim][block_size]
 *      FLY_KV_LAYOUT_NHD:  [block_size][num_kv_heads][head_dim] (K and V alike)
 *      FLY_KV_LAYOUT_HND:  [num_kv_heads][block_size][head_dim] (K and V alike)
 *  - block_tables: int32 [num_seqs][block_table_stride], max_blocks_per_seq valid columns; block
 *    ids are 32-bit, addresses 64-bit. seq_lens: int32 [num_seqs].
 *  - max_seq_len (host value, >= 1) bounds every seq_lens[s] and sizes the grid: seq_lens[s] is
 *    clamped on the device to [0, min(max_seq_len, max_blocks_per_seq * block_size)], and a
 *    block id outside [0, num_blocks) reads as zeros: bad device data never reads or writes
 *    outside the caller's buffers.
 *  - head_dim 64, 128 or 256; block_size 16, 32 or 64; q_len 1 to 4 (speculative decoding).
 *  - scale finite (0, as FLY_PA_DECODE_ARGS_INIT leaves it, gives uniform weights: set it);
 *    logit_softcap finite and >= 0; sliding_window >= 0 (one of max_seq_len or more hides nothing).
 *  - On a GPU the kernels count tokens, block ids and query rows in 32 bits: num_blocks and
 *    num_seqs x q_len x num_q_heads below 2^31, max_seq_len below 2^31 - 2^16, else
 *    FLY_STATUS_NOT_SUPPORTED (fly_pa_decode_explain says so too).
 *  - out and lse overlap no input and not each other. Every pointer is aligned to its element size
 *    (else INVALID_ARGUMENT). On a GPU, q, out, k_cache and v_cache are 16-byte aligned and every
 *    stride used (extent > 1) is a multiple of 16 bytes, else NOT_SUPPORTED (the kernels move
 *    16-byte vectors). Block strides are at least one block's elements (K and V interleaved in
 *    one allocation: both strides two blocks, v_cache = k_cache + one block).
 *  - NaN and infinities follow IEEE arithmetic: a NaN a query sees (in q, K or V) makes its output
 *    NaN (V: that dimension) and its lse NaN; a NaN past a sequence's end changes nothing. On a
 *    GPU, NaN in the fp8 cache is not preserved (values are widened without NaN handling), and a
 *    NaN in V at a token that one query of a kv head sees and another does not (q_len > 1, or a
 *    window) reaches both (the masked query's weight 0 times NaN is NaN in the P V product), as does one
 *    in V within a kernel step (at most 96 tokens) before a window's start.
 *  - flags: 0, or FLY_PA_DECODE_CHECK_BLOCK_TABLES (other bits: INVALID_ARGUMENT). Checked, the
 *    call first reads seq_lens and the block ids it would use (block_tables[s][p] for p <
 *    ceil(L / block_size), L the clamped seq_lens[s] below) and, if one lies outside
 *    [0, num_blocks), returns FLY_STATUS_INVALID_ARGUMENT naming the first (smallest s, then p):
 *    "block_tables[s][p] = id is outside [0, num_blocks)", without running the decode (out and lse
 *    untouched). On a GPU it copies them to the host on `stream` and waits for it, so a capturing
 *    stream gets FLY_STATUS_NOT_SUPPORTED. Unchecked calls treat such ids as zeros (below).
 *  - Unchecked, the call reads no device memory on the host, never allocates and never
 *    synchronises: it can be captured in a CUDA graph and replayed with changed seq_lens, block
 *    tables, scales and data (within max_seq_len). workspace: fly_pa_decode_workspace_size bytes of device memory, which
 *    depend only on num_seqs, q_len, num_q_heads, head_dim and max_seq_len, aligned to 16 bytes
 *    (as cudaMalloc returns it), overlapping no argument (INVALID_ARGUMENT). */
typedef enum fly_kv_layout_t {
  FLY_KV_LAYOUT_VLLM = 0, /* vLLM's paged cache: K split in x = 16-byte groups, V dim-major */
  FLY_KV_LAYOUT_NHD = 1,  /* [block_size, num_kv_heads, head_dim] per block */
  FLY_KV_LAYOUT_HND = 2   /* [num_kv_heads, block_size, head_dim] per block */
} fly_kv_layout_t;

/* A static lower-case name: "vllm", "nhd", "hnd"; "unknown" otherwise. */
const char* fly_kv_layout_string(fly_kv_layout_t layout);

typedef struct fly_pa_decode_args {
  size_t struct_size;                  /* sizeof(fly_pa_decode_args), set by FLY_PA_DECODE_ARGS_INIT */
  int64_t num_seqs, q_len;             /* batch and new tokens per sequence (1..4) */
  int64_t num_q_heads, num_kv_heads;   /* num_q_heads % num_kv_heads == 0 */
  int64_t head_dim;                    /* 64, 128, 256 */
  fly_dtype_t q_type;                  /* BF16 or F16; out has the same type */
  fly_dtype_t kv_type;                 /* q_type, E4M3FN or E4M3FNUZ */
  fly_kv_layout_t kv_layout;
  const void* q;                       /* [num_seqs, q_len, num_q_heads, head_dim] */
  int64_t q_stride_seq, q_stride_token, q_stride_head;        /* elements */
  void* out;                           /* like q, written */
  int64_t out_stride_seq, out_stride_token, out_stride_head;  /* elements */
  float* lse;                          /* [num_seqs, q_len, num_q_heads] fp32, or null */
  const void* k_cache;
  const void* v_cache;
  int64_t num_blocks, block_size;      /* blocks in the cache; tokens per block (16, 32, 64) */
  int64_t k_block_stride, v_block_stride;  /* elements from one block to the next */
  const int32_t* block_tables;         /* [num_seqs, block_table_stride] */
  int64_t block_table_stride, max_blocks_per_seq;
  const int32_t* seq_lens;             /* [num_seqs] */
  int64_t max_seq_len;                 /* host bound of every seq_lens[s] */
  const float* k_scale;                /* fp8 K scale (device pointer) or null for 1; 16-bit: ignored */
  const float* v_scale;                /* fp8 V scale (device pointer) or null for 1; 16-bit: ignored */
  float scale;                         /* softmax scale, usually 1/sqrt(head_dim) */
  float logit_softcap;                 /* 0 = off; else logit = cap * tanh(logit / cap) */
  int64_t sliding_window;              /* 0 = off; else tokens a query sees, itself included */
  const float* sinks;                  /* [num_q_heads] fp32 sink logits, or null */
  uint32_t flags;                      /* FLY_PA_DECODE_CHECK_BLOCK_TABLES, or 0 */
} fly_pa_decode_args;

/* flags: before the decode, check every block id the call would read and report the first bad
 * one through the status (see "Rules"). Reads device memory and waits for the stream: a debugging
 * mode, not for graph capture. */
#define FLY_PA_DECODE_CHECK_BLOCK_TABLES 1u

/* struct_size = sizeof, every other field 0 / null (dtypes F32, layout VLLM): set them all. */
#define FLY_PA_DECODE_ARGS_INIT                                                                    \
  {sizeof(fly_pa_decode_args), 0, 0, 0, 0, 0, FLY_DTYPE_F32, FLY_DTYPE_F32, FLY_KV_LAYOUT_VLLM,    \
   NULL, 0, 0, 0, NULL, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0, 0, NULL, 0, 0, NULL, 0, NULL, NULL,    \
   0.0f, 0.0f, 0, NULL, 0u}

/* The workspace fly_pa_decode needs, in bytes (split-K partial results and the splits' counters; it
 * needs no initialisation). Validates the arguments as fly_pa_decode does; reads no tensor data. */
fly_status_t fly_pa_decode_workspace_size(fly_handle_t handle, const fly_pa_decode_args* args, size_t* bytes);

/* Runs the decode on `stream` (host backend: null stream, synchronous, multi-threaded). On sm_90a
 * its kernels are programmatic dependent launches: they may become resident while the kernel
 * before them on the stream finishes, and read nothing (q, the cache, the tables) before that
 * kernel has completed and its writes are visible: stream order is kept. */
fly_status_t fly_pa_decode(fly_handle_t handle, const fly_pa_decode_args* args, void* workspace,
                           size_t workspace_bytes, void* stream);

/* Variants compiled in: index 0 is "host_reference", then the GPU kernels. */
int fly_pa_decode_variant_count(void);
const char* fly_pa_decode_variant_name(int index);

/* As fly_gemm_explain: the variant and split fly_pa_decode would run, and why. */
#define FLY_PA_DECODE_EXPLAIN_BYTES 512
fly_status_t fly_pa_decode_explain(fly_handle_t handle, const fly_pa_decode_args* args, char* buffer,
                                   size_t buffer_bytes);

#ifdef __cplusplus
}
#endif

#endif /* FLY_FLY_H */
