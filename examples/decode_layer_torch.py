"""One transformer layer's decode step through libfly on torch tensors, beside the same layer in
plain PyTorch.

The engine's view: fp8 weights (torch.float8_e4m3fn, one scale per matrix) multiply activations
quantised to fp8 in libfly.gemm; each new token's K and V go into a paged f16 cache (NHD) whose
pages a free list hands out; libfly.pa_decode attends over it. The plain layer computes the same
step with torch.matmul on the dequantised fp8 values and torch's scaled_dot_product_attention over
each sequence's gathered K and V. On a GPU everything runs on the current CUDA stream; without
one, libfly runs its host backend on CPU tensors.

    python3 examples/decode_layer_torch.py      (torch and libfly importable)
"""

import torch
import torch.nn.functional as F

import libfly

HIDDEN, HQ, HKV, D, BLOCK, POOL, MAX_LEN = 256, 8, 2, 128, 16, 64, 512


def quantise(x):
    """Per-tensor fp8: (x / scale in e4m3fn, scale as a one-element float32 tensor)."""
    scale = (x.abs().amax().float() / 448.0).clamp(min=1e-12).reshape(1)
    return (x / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn), scale


def fp8_linear(x, w, w_scale):
    """x @ W.T in fp8 through libfly, and the same product of the dequantised values in PyTorch."""
    xq, x_scale = quantise(x)
    ours = libfly.gemm(xq, w, scale_a=x_scale, scale_b=w_scale)
    plain = (xq.float() * x_scale) @ (w.float() * w_scale).T
    return ours, plain


def attention_plain(q, k_cache, v_cache, tables, lens):
    """Each sequence's pages gathered into contiguous K and V, then torch's attention (GQA)."""
    out = torch.empty_like(q)
    for s, n in enumerate(lens.tolist()):
        pos = torch.arange(n, device=q.device)
        blocks, slots = tables[s, pos // BLOCK].long(), pos % BLOCK
        k = k_cache[blocks, slots].transpose(0, 1).float()  # [HKV, n, D]
        v = v_cache[blocks, slots].transpose(0, 1).float()
        k, v = k.repeat_interleave(HQ // HKV, 0), v.repeat_interleave(HQ // HKV, 0)
        out[s, 0] = F.scaled_dot_product_attention(q[s, 0].float().unsqueeze(1), k, v).squeeze(1).to(q.dtype)
    return out


def main(batch=3, steps=20, device=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    gen = torch.Generator(device="cpu").manual_seed(11)

    def rand(*shape):  # drawn on the CPU, so both devices see the same numbers
        return torch.randn(*shape, generator=gen).to(device)

    w_qkv, s_qkv = quantise(rand((HQ + 2 * HKV) * D, HIDDEN) / 16)
    w_o, s_o = quantise(rand(HIDDEN, HQ * D) / 16)
    k_cache = torch.zeros(POOL, BLOCK, HKV, D, dtype=torch.float16, device=device)
    v_cache = torch.zeros_like(k_cache)
    tables = torch.zeros(batch, MAX_LEN // BLOCK, dtype=torch.int32, device=device)
    lens = torch.zeros(batch, dtype=torch.int32, device=device)
    free = list(range(POOL))
    worst = 0.0
    for _ in range(steps):
        x = rand(batch, HIDDEN)
        qkv, _ = fp8_linear(x, w_qkv, s_qkv)
        q = qkv[:, : HQ * D].reshape(batch, 1, HQ, D).half()
        for s in range(batch):  # the new token's K and V into its page (a new page every BLOCK tokens)
            t = int(lens[s])
            if t % BLOCK == 0:
                tables[s, t // BLOCK] = free.pop()
            b = int(tables[s, t // BLOCK])
            k_cache[b, t % BLOCK] = qkv[s, HQ * D: (HQ + HKV) * D].reshape(HKV, D).half()
            v_cache[b, t % BLOCK] = qkv[s, (HQ + HKV) * D:].reshape(HKV, D).half()
            lens[s] = t + 1
        attn = libfly.pa_decode(q, k_cache, v_cache, tables, lens, layout="nhd", max_seq_len=MAX_LEN)
        y, _ = fp8_linear(attn.reshape(batch, HQ * D).float(), w_o, s_o)
        out = x + y

        attn_plain = attention_plain(q, k_cache, v_cache, tables, lens)
        _, y_plain = fp8_linear(attn_plain.reshape(batch, HQ * D).float(), w_o, s_o)
        out_plain = x + y_plain
        worst = max(worst, float((out - out_plain).abs().max() / out_plain.abs().max()))
    print(f"decode_layer_torch on {device}: {steps} steps of {batch} sequences (lengths {lens.tolist()}); "
          f"libfly against plain PyTorch: max relative error {worst:.2e}")
    return worst


if __name__ == "__main__":
    # f16 attention outputs and the second fp8 quantisation of slightly different inputs: a few percent
    assert main() < 5e-2
