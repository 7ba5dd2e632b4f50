/* An engine's decode loop over a paged KV cache, in C: one handle, a workspace sized once for the
 * longest context, a block allocator handing out cache pages as sequences grow, and one
 * fly_pa_decode per step. It runs on the host backend (every pointer is host memory, stream NULL);
 * on a GPU the same calls take device pointers and the engine's cudaStream_t, and the workspace is
 * device memory. At the end, one query row is checked against a dense softmax written here.
 *
 * Build: part of the test suite (examples/CMakeLists.txt); `ctest -R examples` runs it. */
#include <fly/fly.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEQS = 4, HQ = 8, HKV = 2, D = 64, BLOCK = 16, MAX_LEN = 256, POOL = 64, STEPS = 40 };
enum { MAX_BLOCKS = MAX_LEN / BLOCK };

/* bf16 <-> float (round to nearest even; the data here has no NaN) */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static float rnd(uint32_t* s) { /* xorshift in [-1, 1) */
  *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
  return (float)(*s >> 8) / 8388608.0f - 1.0f;
}

#define CHECK(call)                                                                          \
  do {                                                                                       \
    fly_status_t st_ = (call);                                                               \
    if (st_ != FLY_STATUS_SUCCESS) {                                                         \
      fprintf(stderr, "%s failed: %s: %s\n", #call, fly_status_string(st_), fly_last_error()); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(void) {
  /* the cache: POOL blocks, NHD ([block][slot][kv head][dim]), K and V apart */
  static uint16_t k_cache[POOL * BLOCK * HKV * D], v_cache[POOL * BLOCK * HKV * D];
  static uint16_t q[SEQS * HQ * D], out[SEQS * HQ * D];
  int32_t tables[SEQS * MAX_BLOCKS], lens[SEQS] = {0, 0, 0, 0};
  int32_t free_blocks[POOL], free_count = POOL;
  uint32_t seed = 2026u;
  for (int i = 0; i < POOL; ++i) free_blocks[i] = POOL - 1 - i;

  fly_handle_t h = NULL;
  CHECK(fly_create_host(&h));

  fly_pa_decode_args a = FLY_PA_DECODE_ARGS_INIT;
  a.num_seqs = SEQS, a.q_len = 1, a.num_q_heads = HQ, a.num_kv_heads = HKV, a.head_dim = D;
  a.q_type = a.kv_type = FLY_DTYPE_BF16, a.kv_layout = FLY_KV_LAYOUT_NHD;
  a.q = q, a.q_stride_seq = HQ * D, a.q_stride_token = HQ * D, a.q_stride_head = D;
  a.out = out, a.out_stride_seq = HQ * D, a.out_stride_token = HQ * D, a.out_stride_head = D;
  a.k_cache = k_cache, a.v_cache = v_cache, a.num_blocks = POOL, a.block_size = BLOCK;
  a.k_block_stride = a.v_block_stride = BLOCK * HKV * D;
  a.block_tables = tables, a.block_table_stride = a.max_blocks_per_seq = MAX_BLOCKS;
  a.seq_lens = lens, a.max_seq_len = MAX_LEN;
  a.scale = 1.0f / sqrtf((float)D);

  /* the workspace depends on num_seqs, q_len, heads, head_dim and max_seq_len only: sized once */
  size_t ws_bytes = 0;
  CHECK(fly_pa_decode_workspace_size(h, &a, &ws_bytes));
  void* workspace = ws_bytes ? malloc(ws_bytes) : NULL; /* 0 on the host; a GPU engine cudaMallocs it */

  for (int step = 0; step < STEPS; ++step) {
    for (int s = 0; s < SEQS; ++s) {
      if (step < 10 * s) continue; /* sequences start at different steps */
      int32_t t = lens[s];
      if (t % BLOCK == 0) { /* a new page from the allocator */
        if (free_count == 0) return fprintf(stderr, "out of cache blocks\n"), 1;
        tables[s * MAX_BLOCKS + t / BLOCK] = free_blocks[--free_count];
      }
      int32_t b = tables[s * MAX_BLOCKS + t / BLOCK], slot = t % BLOCK;
      for (int g = 0; g < HKV; ++g)
        for (int d = 0; d < D; ++d) { /* the new token's K and V, as the model's projection would write them */
          size_t at = (((size_t)b * BLOCK + slot) * HKV + g) * D + d;
          k_cache[at] = to_bf16(rnd(&seed));
          v_cache[at] = to_bf16(rnd(&seed));
        }
      lens[s] = t + 1;
      for (int i = 0; i < HQ * D; ++i) q[s * HQ * D + i] = to_bf16(rnd(&seed));
    }
    CHECK(fly_pa_decode(h, &a, workspace, ws_bytes, NULL));
  }

  /* sequence 1, query head 5 (kv head 1), against a dense softmax over its tokens */
  const int s = 1, hq = 5, g = hq / (HQ / HKV);
  double logits[MAX_LEN], m = -INFINITY, sum = 0, err = 0;
  for (int t = 0; t < lens[s]; ++t) {
    int32_t b = tables[s * MAX_BLOCKS + t / BLOCK];
    double dot = 0;
    for (int d = 0; d < D; ++d)
      dot += (double)from_bf16(q[(s * HQ + hq) * D + d]) *
             from_bf16(k_cache[(((size_t)b * BLOCK + t % BLOCK) * HKV + g) * D + d]);
    logits[t] = dot * a.scale;
    if (logits[t] > m) m = logits[t];
  }
  for (int t = 0; t < lens[s]; ++t) sum += exp(logits[t] - m);
  for (int d = 0; d < D; ++d) {
    double o = 0;
    for (int t = 0; t < lens[s]; ++t) {
      int32_t b = tables[s * MAX_BLOCKS + t / BLOCK];
      o += exp(logits[t] - m) / sum * from_bf16(v_cache[(((size_t)b * BLOCK + t % BLOCK) * HKV + g) * D + d]);
    }
    double e = fabs(o - from_bf16(out[(s * HQ + hq) * D + d]));
    if (e > err) err = e;
  }
  printf("decode_step: %d steps, lengths %d %d %d %d, %d of %d blocks used; sequence 1 head 5: max error %.2e\n",
         STEPS, lens[0], lens[1], lens[2], lens[3], POOL - free_count, POOL, err);
  free(workspace);
  fly_destroy(h);
  return err <= 1.0 / 128 ? 0 : 1; /* bf16 output of values in [-1, 1] */
}
