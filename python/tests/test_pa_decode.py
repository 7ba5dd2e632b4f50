"""libfly.pa_decode on NumPy arrays (the host backend) against a float64 reference written here
from fly.h's definition: every cache layout, GQA groups, q_len 1-4, scattered and shared blocks,
sinks, soft-cap, sliding window, lse, bf16 through libfly.typed, the checked mode and the argument
checks."""

import numpy as np
import pytest

import libfly

RNG = np.random.default_rng(7)


def to_layout(cache, layout, kind, x):
    """A canonical [blocks, block_size, kv_heads, head_dim] cache in `layout`'s shape."""
    nb, bs, hkv, d = cache.shape
    if layout == "nhd":
        return np.ascontiguousarray(cache)
    if layout == "hnd":
        return np.ascontiguousarray(cache.transpose(0, 2, 1, 3))
    if kind == "k":
        return np.ascontiguousarray(cache.reshape(nb, bs, hkv, d // x, x).transpose(0, 2, 3, 1, 4))
    return np.ascontiguousarray(cache.transpose(0, 2, 3, 1))


def reference(q, kc, vc, tables, lens, bs, scale, softcap=0.0, window=0, sinks=None):
    """out [seqs, q_len, hq, d] and lse in float64 (fly.h, "Paged-attention decode")."""
    seqs, q_len, hq, d = q.shape
    hkv = kc.shape[2]
    out = np.zeros(q.shape)
    lse = np.full((seqs, q_len, hq), -np.inf)
    for s in range(seqs):
        length = lens[s]
        for i in range(q_len):
            last = length - q_len + i
            first = max(0, last - window + 1) if window > 0 else 0
            ts = np.arange(first, last + 1)
            if len(ts) == 0:
                continue
            blocks, slots = tables[s, ts // bs], ts % bs
            for h in range(hq):
                g = h // (hq // hkv)
                k, v = kc[blocks, slots, g], vc[blocks, slots, g]
                logit = scale * (k @ q[s, i, h])
                if softcap > 0:
                    logit = softcap * np.tanh(logit / softcap)
                m = logit.max() if sinks is None else max(logit.max(), sinks[h])
                p = np.exp(logit - m)
                denom = p.sum() + (np.exp(sinks[h] - m) if sinks is not None else 0.0)
                out[s, i, h] = (p @ v) / denom
                lse[s, i, h] = m + np.log(denom)
    return out, lse


def make(layout, seqs=3, q_len=1, hq=8, hkv=2, d=64, bs=16, lens=(40, 1, 77), nb=20, dtype=np.float16):
    x = 16 // 2
    kc = RNG.uniform(-1, 1, (nb, bs, hkv, d)).astype(dtype)
    vc = RNG.uniform(-1, 1, (nb, bs, hkv, d)).astype(dtype)
    max_blocks = (max(lens) + bs - 1) // bs
    tables = RNG.integers(0, nb, (seqs, max_blocks + 2)).astype(np.int32)  # scattered, repeated, padded rows
    q = RNG.uniform(-1, 1, (seqs, q_len, hq, d)).astype(dtype)
    return q, kc, vc, to_layout(kc, layout, "k", x), to_layout(vc, layout, "v", x), tables, np.array(lens, np.int32)


def f64(a):
    return np.asarray(a, np.float64)


@pytest.mark.parametrize("layout", ["nhd", "hnd", "vllm"])
@pytest.mark.parametrize("q_len,hq,hkv", [(1, 8, 2), (2, 6, 1), (4, 5, 5)])
def test_layouts_groups_and_new_tokens_match_float64(layout, q_len, hq, hkv):
    q, kc, vc, k, v, tables, lens = make(layout, q_len=q_len, hq=hq, hkv=hkv)
    out, lse = libfly.pa_decode(q, k, v, tables, lens, layout=layout, max_seq_len=80, return_lse=True)
    ref, ref_lse = reference(f64(q), f64(kc), f64(vc), tables, lens, 16, 1 / np.sqrt(64))
    assert out.dtype == np.float16 and out.shape == q.shape
    assert np.all(np.abs(out - ref) <= 2.0 ** -10 + 1e-6), np.abs(out - ref).max()  # f16 rounding of |out| <= 1
    assert np.allclose(lse, ref_lse, rtol=1e-5, atol=1e-5)


def test_options_sinks_softcap_window():
    q, kc, vc, k, v, tables, lens = make("nhd", q_len=3, lens=(70, 33, 5))
    sinks = RNG.uniform(-2, 2, 8).astype(np.float32)
    out, lse = libfly.pa_decode(q, k, v, tables, lens, layout="nhd", max_seq_len=70, scale=0.3, soft_cap=5.0,
                                window=20, sinks=sinks, return_lse=True)
    ref, ref_lse = reference(f64(q), f64(kc), f64(vc), tables, lens, 16, 0.3, 5.0, 20, f64(sinks))
    assert np.all(np.abs(out - ref) <= 2.0 ** -10 + 1e-6)
    assert np.allclose(lse, ref_lse, rtol=1e-5, atol=1e-5)


def test_bf16_through_typed_and_q_without_q_len():
    def bf16_bits(a):  # round to nearest even
        u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)

    def bf16_values(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    q, kc, vc, k, v, tables, lens = make("hnd", dtype=np.float32)
    qb, kb, vb = bf16_bits(q[:, 0]), bf16_bits(k), bf16_bits(v)
    out = libfly.pa_decode(libfly.typed(qb, "bf16"), libfly.typed(kb, "bf16"), libfly.typed(vb, "bf16"), tables, lens,
                           layout="hnd", max_seq_len=80)
    kcb, vcb = bf16_values(bf16_bits(kc)), bf16_values(bf16_bits(vc))
    ref, _ = reference(bf16_values(qb)[:, None], kcb, vcb, tables, lens, 16, 1 / 8)
    assert isinstance(out, libfly._arrays.Typed) and out.array.shape == qb.shape
    assert np.all(np.abs(bf16_values(out.array) - ref[:, 0]) <= 2.0 ** -7 + 1e-6)


def test_checked_block_tables_name_the_first_bad_id():
    q, kc, vc, k, v, tables, lens = make("nhd")
    tables[2, 4] = 99  # sequence 2 reads 5 blocks
    with pytest.raises(libfly.Error, match=r"block_tables\[2\]\[4\] = 99 is outside \[0, num_blocks = 20\)"):
        libfly.pa_decode(q, k, v, tables, lens, layout="nhd", max_seq_len=80, check_block_tables=True)
    libfly.pa_decode(q, k, v, tables, lens, layout="nhd", max_seq_len=80)  # unchecked: the id reads as zeros


def test_arguments_are_checked_by_name():
    q, kc, vc, k, v, tables, lens = make("nhd")
    with pytest.raises(ValueError, match="layout 'bshd'"):
        libfly.pa_decode(q, k, v, tables, lens, layout="bshd", max_seq_len=80)
    with pytest.raises(ValueError, match=r"v_cache must be \[num_blocks, block_size, num_kv_heads, head_dim\]"):
        libfly.pa_decode(q, k, v[:, :, :1], tables, lens, layout="nhd", max_seq_len=80)
    with pytest.raises(ValueError, match="block_tables: NumPy dtype int64 is not one libfly takes"):
        libfly.pa_decode(q, k, v, tables.astype(np.int64), lens, layout="nhd", max_seq_len=80)
    with pytest.raises(ValueError, match="seq_lens must be int32"):
        libfly.pa_decode(q, k, v, tables, lens[:2], layout="nhd", max_seq_len=80)
    with pytest.raises(ValueError, match="k_cache: everything but the block dimension must be contiguous"):
        libfly.pa_decode(q, k[:, :, :, ::-1], v, tables, lens, layout="nhd", max_seq_len=80)
    # the library reads num_q_heads contiguous sinks: a strided or broadcast view is refused, not misread
    sinks = np.zeros(16, np.float32)
    with pytest.raises(ValueError, match="sinks must be contiguous float32 of shape"):
        libfly.pa_decode(q, k, v, tables, lens, layout="nhd", max_seq_len=80, sinks=sinks[::2])
    with pytest.raises(ValueError, match="sinks must be contiguous float32 of shape"):
        libfly.pa_decode(q, k, v, tables, lens, layout="nhd", max_seq_len=80,
                         sinks=np.broadcast_to(np.float32(1.0), (8,)))
    with pytest.raises(libfly.Error, match="head_dim"):  # the library's own rule: head_dim 64, 128 or 256
        q2, _, _, k2, v2, t2, l2 = make("nhd", d=32)
        libfly.pa_decode(q2, k2, v2, t2, l2, layout="nhd", max_seq_len=80)
    assert libfly.explain_pa_decode(q, k, v, tables, lens, layout="nhd", max_seq_len=80) == "host_reference: host backend"
