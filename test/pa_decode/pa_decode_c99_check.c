/* Compiled as C99: fly_pa_decode_args, FLY_PA_DECODE_ARGS_INIT, fly_kv_layout_t and the paged-decode
 * calls are plain C. */
#include "fly/fly.h"

/* FLY_PA_DECODE_ARGS_INIT's struct_size when every other field is as documented (0 / null, dtypes
 * F32, layout VLLM), else 0. */
size_t fly_test_c99_pa_decode_init(void) {
  fly_pa_decode_args args = FLY_PA_DECODE_ARGS_INIT;
  int const defaults = args.num_seqs == 0 && args.q_len == 0 && args.num_q_heads == 0 && args.num_kv_heads == 0 &&
                       args.head_dim == 0 && args.q_type == FLY_DTYPE_F32 && args.kv_type == FLY_DTYPE_F32 &&
                       args.kv_layout == FLY_KV_LAYOUT_VLLM && args.q == NULL && args.out == NULL && args.lse == NULL &&
                       args.k_cache == NULL && args.v_cache == NULL && args.block_tables == NULL && args.seq_lens == NULL &&
                       args.k_scale == NULL && args.v_scale == NULL && args.sinks == NULL && args.scale == 0.0f &&
                       args.logit_softcap == 0.0f && args.sliding_window == 0 && args.max_seq_len == 0 &&
                       args.num_blocks == 0 && args.block_size == 0;
  return defaults ? args.struct_size : 0;
}

/* fly_kv_layout_string of any int. */
const char* fly_test_c99_kv_layout_string(int value) { return fly_kv_layout_string((fly_kv_layout_t)value); }

/* fly_pa_decode's status for default-initialised args on `handle` (invalid: num_seqs is 0). */
int fly_test_c99_pa_decode_default_status(fly_handle_t handle) {
  fly_pa_decode_args args = FLY_PA_DECODE_ARGS_INIT;
  return (int)fly_pa_decode(handle, &args, NULL, 0, NULL);
}
