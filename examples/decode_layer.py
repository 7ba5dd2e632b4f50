"""One transformer layer's decode step through libfly, beside the same layer in plain NumPy.

fp8 weights (e4m3fn, one scale per matrix) multiply fp8-quantised activations in libfly.gemm; K and
V of the new token are written into a paged cache (NHD, f16) that a small block allocator grows;
libfly.pa_decode attends over it. The NumPy layer does the same arithmetic in float64 on the same
(dequantised) values. With torch installed the same calls take torch tensors (CPU: the host
backend; CUDA: the GPU kernels on the current stream).

    python3 examples/decode_layer.py      (libfly importable: pip install ./python, or PYTHONPATH)
"""

import numpy as np

import libfly

HIDDEN, HQ, HKV, D, BLOCK, POOL, MAX_LEN = 256, 4, 2, 64, 16, 64, 256
RNG = np.random.default_rng(11)


def e4m3fn_table():
    codes = np.arange(256)
    e, m = (codes >> 3) & 15, codes & 7
    v = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7.0))
    v = np.where(codes >> 7, -v, v)
    v[[0x7F, 0xFF]] = np.nan
    return v


FP8 = e4m3fn_table()
FINITE = np.flatnonzero(np.isfinite(FP8))


def quantise(x):
    """x / scale to the nearest e4m3fn code (per-tensor scale: max |x| to 448): (codes, scale)."""
    scale = max(float(np.abs(x).max()) / 448.0, 1e-12)
    order = FINITE[np.argsort(FP8[FINITE])]
    vals = FP8[order]
    i = np.clip(np.searchsorted(vals, x / scale), 1, len(vals) - 1)
    nearer_left = np.abs(x / scale - vals[i - 1]) <= np.abs(vals[i] - x / scale)
    return order[np.where(nearer_left, i - 1, i)].astype(np.uint8), scale


def fp8_linear(x, w_codes, w_scale):
    """x @ W.T with both in fp8: libfly.gemm, and the float64 product of the same values."""
    x_codes, x_scale = quantise(x)
    ours = libfly.gemm(libfly.typed(x_codes, "e4m3fn"), libfly.typed(w_codes, "e4m3fn"),
                       scale_a=np.array([x_scale], np.float32), scale_b=np.array([w_scale], np.float32))
    plain = (FP8[x_codes] * x_scale) @ (FP8[w_codes] * w_scale).T
    return ours, plain


def attention_plain(q, k_cache, v_cache, tables, lens):
    out = np.zeros(q.shape)
    for s in range(q.shape[0]):
        n = lens[s]
        blocks, slots = tables[s, np.arange(n) // BLOCK], np.arange(n) % BLOCK
        for h in range(HQ):
            k = k_cache[blocks, slots, h // (HQ // HKV)].astype(np.float64)
            v = v_cache[blocks, slots, h // (HQ // HKV)].astype(np.float64)
            logit = k @ q[s, 0, h].astype(np.float64) / np.sqrt(D)
            p = np.exp(logit - logit.max())
            out[s, 0, h] = p @ v / p.sum()
    return out


def main(batch=3, steps=20):
    w_qkv, s_qkv = quantise(RNG.standard_normal(((HQ + 2 * HKV) * D, HIDDEN)) / 16)
    w_o, s_o = quantise(RNG.standard_normal((HIDDEN, HQ * D)) / 16)
    k_cache = np.zeros((POOL, BLOCK, HKV, D), np.float16)
    v_cache = np.zeros((POOL, BLOCK, HKV, D), np.float16)
    tables = np.zeros((batch, MAX_LEN // BLOCK), np.int32)
    lens = np.zeros(batch, np.int32)
    free = list(range(POOL))
    worst = 0.0
    for _ in range(steps):
        x = RNG.standard_normal((batch, HIDDEN)).astype(np.float32)
        qkv, qkv_plain = fp8_linear(x, w_qkv, s_qkv)
        q = qkv[:, : HQ * D].reshape(batch, 1, HQ, D).astype(np.float16)
        for s in range(batch):  # the new token's K and V into its page
            t = lens[s]
            if t % BLOCK == 0:
                tables[s, t // BLOCK] = free.pop()
            b = tables[s, t // BLOCK]
            k_cache[b, t % BLOCK] = qkv[s, HQ * D: (HQ + HKV) * D].reshape(HKV, D)
            v_cache[b, t % BLOCK] = qkv[s, (HQ + HKV) * D:].reshape(HKV, D)
            lens[s] = t + 1
        attn = libfly.pa_decode(q, k_cache, v_cache, tables, lens, layout="nhd", max_seq_len=MAX_LEN)
        y, _ = fp8_linear(attn.reshape(batch, HQ * D).astype(np.float32), w_o, s_o)
        out = x + y

        # the plain layer: the same quantised values, float64 arithmetic
        attn_plain = attention_plain(q, k_cache, v_cache, tables, lens)
        _, y_plain = fp8_linear(attn_plain.reshape(batch, HQ * D).astype(np.float32), w_o, s_o)
        out_plain = x + y_plain
        assert np.abs(qkv - qkv_plain).max() <= 1e-4 * np.abs(qkv_plain).max() + 1e-6
        worst = max(worst, float(np.abs(out - out_plain).max() / np.abs(out_plain).max()))
    print(f"decode_layer: {steps} steps of {batch} sequences (lengths {lens.tolist()}); libfly against plain NumPy: "
          f"max relative error {worst:.2e}")
    return worst


if __name__ == "__main__":
    # attention in f16 and the second fp8 quantisation of slightly different inputs: a few percent
    assert main() < 5e-2
