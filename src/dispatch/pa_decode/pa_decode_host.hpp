// The host backend's paged-attention decode: the reference every GPU variant is checked against.
#pragma once

#include "fly/fly.h"
#include "pa_decode_problem.hpp"

namespace fly::dispatch {

// fly_pa_decode on host memory for a validated problem. Semantics, per sequence s, new token i
// (0 <= i < q_len) and query head h, kv head g = h / (num_q_heads / num_kv_heads):
//  - L = clamp(seq_lens[s], 0, min(max_seq_len, max_blocks_per_seq * block_size)). Token t lives in
//    block b = block_tables[s * block_table_stride + t / block_size], slot t % block_size; a b outside
//    [0, num_blocks) reads K and V as zeros (the token still counts, with logit scale * 0).
//  - Query i sees t < L with t <= L - q_len + i and, when sliding_window W > 0, t > L - q_len + i - W.
//  - Elements convert exactly to float (fp8 through fly's numeric types); fp8 K and V are then
//    multiplied by *k_scale / *v_scale in float (null = 1; 16-bit caches ignore the scales).
//  - logit = scale * (q . k), the dot accumulated in float in d order from 0; with logit_softcap
//    c > 0, logit = c * tanh(logit / c).
//  - m = max over the seen logits and sinks[h] (when sinks is not null); p_t = exp(logit_t - m);
//    denominator = sum_t p_t (t ascending) + exp(sinks[h] - m); acc = sum_t p_t v_t (t ascending);
//    out = acc / denominator rounded once to q_type (nearest even); lse[(s * q_len + i) *
//    num_q_heads + h] = m + log(denominator). All in float.
//  - A query that sees no token gets out = 0 and lse = -inf (sinks or not).
// Elements outside out's rows and lse's entries are not written. Work items (sequence, kv head) are
// spread over threads, each computed whole by one thread: the result does not depend on the thread
// count. Never throws; fails (FLY_STATUS_INTERNAL_ERROR) only when scratch memory cannot be had or
// the problem's dtypes are outside the validated set.
fly_status_t host_pa_decode(const PaDecodeProblem& p) noexcept;

}  // namespace fly::dispatch
