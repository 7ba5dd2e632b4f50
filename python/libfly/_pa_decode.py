"""libfly.pa_decode: paged-attention decode over a block table, through fly_pa_decode."""

import math

from . import _arrays as A
from . import _capi as C
from ._handles import explain, run_with_workspace

_OP = None  # torch.ops.libfly.pa_decode, set by torch_ops where torch is installed


def _cache_shape_rule(layout, kind, nb, bs, hkv, d, x):
    """The shape a cache must have (fly.h's layouts), as text and as a tuple."""
    if layout == "nhd":
        return "[num_blocks, block_size, num_kv_heads, head_dim]", (nb, bs, hkv, d)
    if layout == "hnd":
        return "[num_blocks, num_kv_heads, block_size, head_dim]", (nb, hkv, bs, d)
    if kind == "k":
        return "[num_blocks, num_kv_heads, head_dim / x, block_size, x]", (nb, hkv, d // x, bs, x)
    return "[num_blocks, num_kv_heads, head_dim, block_size]", (nb, hkv, d, bs)


def _contiguous_within_block(v):
    """Whether every dimension but the first (the block) is packed row-major."""
    expect = 1
    for size, stride in reversed(list(zip(v.shape[1:], v.strides[1:]))):
        if size > 1 and stride != expect:
            return False
        expect *= size
    return True


def _args(q, k_cache, v_cache, block_tables, seq_lens, layout, max_seq_len, scale, k_scale, v_scale, soft_cap,
          window, sinks, out, return_lse, check_block_tables):
    if layout not in C.LAYOUTS:
        raise ValueError(f"layout {layout!r} is not one of {sorted(C.LAYOUTS)}")
    vq = A.view(q, "q")
    squeeze = vq.ndim == 3  # [num_seqs, num_q_heads, head_dim]: q_len 1
    if vq.ndim not in (3, 4):
        raise ValueError(f"q must be [num_seqs, q_len, num_q_heads, head_dim] (or without q_len), got {vq.shape}")
    shape4 = (vq.shape[0], 1, vq.shape[1], vq.shape[2]) if squeeze else vq.shape
    strides4 = (vq.strides[0], 0, vq.strides[1], vq.strides[2]) if squeeze else vq.strides
    seqs, q_len, hq, d = shape4
    if vq.dtype not in (C.BF16, C.F16):
        raise ValueError(f"q must be bf16 or f16, got {A.dtype_name(vq.dtype)}")
    if strides4[3] != 1:
        raise ValueError(f"q's head_dim must be contiguous (strides {vq.strides})")
    vk, vv = A.view(k_cache, "k_cache"), A.view(v_cache, "v_cache")
    if vk.dtype != vv.dtype:
        raise ValueError(f"k_cache and v_cache differ in type ({A.dtype_name(vk.dtype)}, {A.dtype_name(vv.dtype)})")
    if vk.dtype not in (C.BF16, C.F16, C.E4M3FN, C.E4M3FNUZ):
        raise ValueError(f"k_cache must be bf16, f16, e4m3fn or e4m3fnuz, got {A.dtype_name(vk.dtype)}")
    want_ndim = 5 if layout == "vllm" else 4
    if vk.ndim != want_ndim or vv.ndim != 4:
        raise ValueError(f"layout {layout!r}: k_cache has {want_ndim} dimensions and v_cache 4, got "
                         f"{vk.shape} and {vv.shape}")
    nb = vk.shape[0]
    hkv, bs = (vk.shape[2], vk.shape[1]) if layout == "nhd" else (vk.shape[1], vk.shape[2] if layout == "hnd" else vk.shape[3])
    x = 16 // C.DTYPE_BYTES[vk.dtype]
    for v, kind, name in ((vk, "k", "k_cache"), (vv, "v", "v_cache")):
        text, want = _cache_shape_rule(layout, kind, nb, bs, hkv, d, x)
        if tuple(v.shape) != want:
            raise ValueError(f"{name} must be {text} for layout {layout!r}: {want}, got {tuple(v.shape)}")
        if not _contiguous_within_block(v):
            raise ValueError(f"{name}: everything but the block dimension must be contiguous (strides {v.strides})")
    vt, vl = A.view(block_tables, "block_tables"), A.view(seq_lens, "seq_lens")
    if vt.dtype != A.INT32 or vt.ndim != 2 or vt.shape[0] != seqs or vt.strides[1] != 1:
        raise ValueError(f"block_tables must be int32 [num_seqs = {seqs}, max_blocks] with contiguous rows "
                         f"(got {A.dtype_name(vt.dtype)} {vt.shape}, strides {vt.strides})")
    if vl.dtype != A.INT32 or vl.shape != (seqs,) or vl.strides[0] != 1:
        raise ValueError(f"seq_lens must be int32 [num_seqs = {seqs}] contiguous (got {A.dtype_name(vl.dtype)} {vl.shape})")
    views = [vq, vk, vv, vt, vl]
    for v, name in zip(views[1:], ("k_cache", "v_cache", "block_tables", "seq_lens")):
        A.require_same_device(v, vq, name, "q")
    if out is None:
        out = A.empty_like_device(vq, vq.shape, vq.dtype)
    vo = A.view(out, "out")
    A.require_same_device(vo, vq, "out", "q")
    A.require_writable(vo, "out")
    if tuple(vo.shape) != tuple(vq.shape) or vo.dtype != vq.dtype or vo.strides[-1] != 1:
        raise ValueError(f"out must be like q ({A.dtype_name(vq.dtype)} {vq.shape}, head_dim contiguous), got "
                         f"{A.dtype_name(vo.dtype)} {vo.shape}")
    ostrides4 = (vo.strides[0], 0, vo.strides[1], vo.strides[2]) if squeeze else vo.strides
    views.append(vo)
    lse = None
    a = C.PaDecodeArgs()
    if return_lse:
        lse = A.empty_like_device(vq, (seqs, hq) if squeeze else (seqs, q_len, hq), C.F32)
        vlse = A.view(lse, "lse")
        a.lse = vlse.ptr
        views.append(vlse)
    a.num_seqs, a.q_len, a.num_q_heads, a.num_kv_heads, a.head_dim = seqs, q_len, hq, hkv, d
    a.q_type, a.kv_type, a.kv_layout = vq.dtype, vk.dtype, C.LAYOUTS[layout]
    a.q = vq.ptr
    a.q_stride_seq, a.q_stride_token, a.q_stride_head = strides4[0], strides4[1], strides4[2]
    a.out = vo.ptr
    a.out_stride_seq, a.out_stride_token, a.out_stride_head = ostrides4[0], ostrides4[1], ostrides4[2]
    a.k_cache, a.v_cache = vk.ptr, vv.ptr
    a.num_blocks, a.block_size = nb, bs
    a.k_block_stride, a.v_block_stride = vk.strides[0], vv.strides[0]
    a.block_tables, a.block_table_stride, a.max_blocks_per_seq = vt.ptr, vt.strides[0], vt.shape[1]
    a.seq_lens, a.max_seq_len = vl.ptr, int(max_seq_len)
    for s, field in ((k_scale, "k_scale"), (v_scale, "v_scale"), (sinks, "sinks")):
        if s is None:
            continue
        vs = A.view(s, field)
        shapes = ((hq,),) if field == "sinks" else ((), (1,))
        # the library reads num_q_heads contiguous sinks: a strided or broadcast view would be misread
        contiguous = field != "sinks" or hq == 1 or vs.strides[0] == 1
        if vs.dtype != C.F32 or tuple(vs.shape) not in shapes or not contiguous:
            raise ValueError(f"{field} must be contiguous float32 of shape {shapes[-1]}, got "
                             f"{A.dtype_name(vs.dtype)} {tuple(vs.shape)} (strides {vs.strides})")
        A.require_same_device(vs, vq, field, "q")
        setattr(a, field, vs.ptr)
        views.append(vs)
    a.scale = float(scale) if scale is not None else 1.0 / math.sqrt(d)
    a.logit_softcap = float(soft_cap)
    a.sliding_window = int(window)
    a.flags = C.PA_DECODE_CHECK_BLOCK_TABLES if check_block_tables else 0
    return a, vq, out, lse, views


def pa_decode(q, k_cache, v_cache, block_tables, seq_lens, *, layout, max_seq_len, scale=None, k_scale=None,
              v_scale=None, soft_cap=0.0, window=0, sinks=None, out=None, return_lse=False,
              check_block_tables=False):
    """Decode attention of q over the paged caches (include/fly/fly.h, "Paged-attention decode").

    q: [num_seqs, q_len, num_q_heads, head_dim] (or [num_seqs, num_q_heads, head_dim]), bf16 or f16.
    k_cache, v_cache: the layout's shape ("nhd": [blocks, block_size, kv_heads, head_dim], "hnd":
    [blocks, kv_heads, block_size, head_dim], "vllm": K [blocks, kv_heads, head_dim / x, block_size, x],
    V [blocks, kv_heads, head_dim, block_size]), q's type or fp8; any block stride (K and V may share
    one allocation). block_tables: int32 [num_seqs, max_blocks]; seq_lens: int32 [num_seqs];
    max_seq_len bounds every length. scale defaults to 1 / sqrt(head_dim). k_scale, v_scale: one
    float32 each (fp8 caches); sinks: float32 [num_q_heads]. Returns out (like q), and the fp32
    log-sum-exp [num_seqs, q_len, num_q_heads] with return_lse. CUDA tensors run on torch's current
    stream (the workspace comes from torch's allocator, so the call is graph-capturable)."""
    if out is None and not check_block_tables and _OP is not None and A.is_torch(q):  # torch.compile sees it
        o, l = _OP(q, k_cache, v_cache, block_tables, seq_lens, layout, int(max_seq_len),
                  None if scale is None else float(scale), k_scale, v_scale, float(soft_cap), int(window), sinks)
        return (o, l) if return_lse else o
    return _pa_decode_direct(q, k_cache, v_cache, block_tables, seq_lens, layout=layout, max_seq_len=max_seq_len,
                             scale=scale, k_scale=k_scale, v_scale=v_scale, soft_cap=soft_cap, window=window,
                             sinks=sinks, out=out, return_lse=return_lse, check_block_tables=check_block_tables)


def _pa_decode_direct(q, k_cache, v_cache, block_tables, seq_lens, *, layout, max_seq_len, scale, k_scale, v_scale,
                      soft_cap, window, sinks, out, return_lse, check_block_tables):
    a, vq, out, lse, views = _args(q, k_cache, v_cache, block_tables, seq_lens, layout, max_seq_len, scale, k_scale,
                                   v_scale, soft_cap, window, sinks, out, return_lse, check_block_tables)
    run_with_workspace(vq, a, C.lib.fly_pa_decode_workspace_size, C.lib.fly_pa_decode, "fly_pa_decode")
    del views  # the arrays the arguments point into, alive through the call
    return (out, lse) if return_lse else out


def explain_pa_decode(q, k_cache, v_cache, block_tables, seq_lens, *, layout, max_seq_len, **options):
    """The line fly_pa_decode_explain gives: the variant and split plan fly_pa_decode would use."""
    a, vq, out, lse, views = _args(q, k_cache, v_cache, block_tables, seq_lens, layout, max_seq_len,
                                   options.get("scale"), options.get("k_scale"), options.get("v_scale"),
                                   options.get("soft_cap", 0.0), options.get("window", 0), options.get("sinks"),
                                   options.get("out"), False, False)
    return explain(vq, a, C.lib.fly_pa_decode_explain, "fly_pa_decode")
