"""libfly.gemm: D = alpha * scale_a * scale_b * (a @ b.T) + beta * c, through fly_gemm."""

from . import _arrays as A
from . import _capi as C
from ._handles import explain, run_with_workspace

_OP = None  # torch.ops.libfly.gemm, set by torch_ops where torch is installed
_OUT_DTYPES = ("f32", "f16", "bf16")


def _out_code(name):
    """The fly_dtype_t code of an out_dtype name; a ValueError for any other name."""
    if name not in _OUT_DTYPES:
        raise ValueError(f"out_dtype {name!r} is not f32, f16 or bf16")
    return C.DTYPES[name]


def _args(a, b, scale_a, scale_b, c, alpha, beta, out_dtype, out):
    va, vb = A.view(a, "a"), A.view(b, "b")
    if va.ndim != 2 or vb.ndim != 2:
        raise ValueError(f"a and b must be 2-D (a {va.shape}, b {vb.shape})")
    (m, k), (n, kb) = va.shape, vb.shape
    if k != kb:
        raise ValueError(f"a is {m} x {k} and b is {n} x {kb}: b must be N x K with a's K (the product is a @ b.T)")
    if va.dtype != vb.dtype or va.dtype not in (C.F32, C.E4M3FN, C.E4M3FNUZ):
        raise ValueError(f"a and b must share one of f32, e4m3fn, e4m3fnuz (a {A.dtype_name(va.dtype)}, "
                         f"b {A.dtype_name(vb.dtype)})")
    for v, name in ((va, "a"), (vb, "b")):
        if v.strides[1] != 1:
            raise ValueError(f"{name} must be row-major with contiguous rows (stride {v.strides})")
    A.require_same_device(vb, va, "b", "a")
    vc = None
    if c is not None:
        vc = A.view(c, "c")
        A.require_same_device(vc, va, "c", "a")
        if vc.shape != (m, n) or vc.strides[1] != 1:
            raise ValueError(f"c must be {m} x {n} with contiguous rows (shape {vc.shape}, strides {vc.strides})")
    if out_dtype is None:
        d_code = vc.dtype if vc is not None else (A.view(out, "out").dtype if out is not None else C.F32)
    else:
        d_code = _out_code(out_dtype)
    if out is None:
        out = A.empty_like_device(va, (m, n), d_code)
    vd = A.view(out, "out")
    A.require_same_device(vd, va, "out", "a")
    A.require_writable(vd, "out")
    if vd.shape != (m, n) or vd.strides[1] != 1 or vd.dtype != d_code:
        raise ValueError(f"out must be {m} x {n} {A.dtype_name(d_code)} with contiguous rows "
                         f"(shape {vd.shape}, {A.dtype_name(vd.dtype)}, strides {vd.strides})")
    args = C.GemmArgs()
    args.m, args.n, args.k = m, n, k
    args.a_type = args.b_type = va.dtype
    args.d_type = d_code
    args.c_type = vc.dtype if vc is not None else d_code
    args.a, args.lda = va.ptr, va.strides[0] if m > 1 else k
    args.b, args.ldb = vb.ptr, vb.strides[0] if n > 1 else k
    args.d, args.ldd = vd.ptr, vd.strides[0] if m > 1 else n
    if vc is not None:
        args.c, args.ldc = vc.ptr, vc.strides[0] if m > 1 else n
    args.alpha, args.beta = float(alpha), float(beta)
    keep = [va, vb, vc, vd]
    for s, field in ((scale_a, "scale_a"), (scale_b, "scale_b")):
        if s is not None:
            vs = A.view(s, field)
            if vs.dtype != C.F32 or tuple(vs.shape) not in ((), (1,)):  # not a per-row or per-column scale
                raise ValueError(f"{field} must be one float32 (shape () or (1,)), got {A.dtype_name(vs.dtype)} "
                                 f"{tuple(vs.shape)}")
            A.require_same_device(vs, va, field, "a")
            setattr(args, field, vs.ptr)
            keep.append(vs)
    return args, va, out, keep


def gemm(a, b, *, scale_a=None, scale_b=None, c=None, alpha=1.0, beta=0.0, out_dtype=None, out=None):
    """alpha * scale_a * scale_b * (a @ b.T) + beta * c, accumulated in fp32 and rounded once.

    a: M x K, b: N x K (rows contiguous), both f32 or both fp8 (torch.float8_e4m3fn / _fnuz, or
    libfly.typed(uint8_array, "e4m3fn")). scale_a, scale_b: one float32 each where a lives, or None.
    c: M x N of out's type, read when beta != 0. out_dtype: "f32" (default without c or out),
    "f16" or "bf16". CUDA tensors run on torch's current stream; CPU arrays on the host backend."""
    if out is None and _OP is not None and A.is_torch(a):  # through the custom op: torch.compile sees it
        d = A.torch_dtype(_out_code(out_dtype or _default_out(c)))
        return _OP(a, b, scale_a, scale_b, c, float(alpha), float(beta), d)
    return _gemm_direct(a, b, scale_a=scale_a, scale_b=scale_b, c=c, alpha=alpha, beta=beta, out_dtype=out_dtype,
                        out=out)


def _default_out(c):
    """out's type name where out_dtype is not given: c's, else f32. A torch tensor's from its dtype
    alone (no data_ptr: under torch.compile the custom op's caller is traced, and reading the
    pointer would break the graph)."""
    if c is None:
        return "f32"
    return A.torch_dtype_name(c, "c") if A.is_torch(c) else A.dtype_name(A.view(c, "c").dtype)


def _gemm_direct(a, b, *, scale_a, scale_b, c, alpha, beta, out_dtype, out):
    args, va, out, keep = _args(a, b, scale_a, scale_b, c, alpha, beta, out_dtype, out)
    run_with_workspace(va, args, C.lib.fly_gemm_workspace_size, C.lib.fly_gemm, "fly_gemm")
    del keep  # the arrays the arguments point into, alive through the call
    return out


def explain_gemm(a, b, *, scale_a=None, scale_b=None, c=None, alpha=1.0, beta=0.0, out_dtype=None, out=None):
    """The line fly_gemm_explain gives for these arguments: the variant fly_gemm would run and why."""
    args, va, out, keep = _args(a, b, scale_a, scale_b, c, alpha, beta, out_dtype, out)
    return explain(va, args, C.lib.fly_gemm_explain, "fly_gemm")
