"""libfly from Python: fly_gemm and fly_pa_decode on torch tensors (CPU: the host backend; CUDA:
the GPU kernels, on torch's current stream) and NumPy arrays (the host backend).

    import libfly
    out = libfly.pa_decode(q, k_cache, v_cache, block_tables, seq_lens, layout="nhd", max_seq_len=4096)
    d = libfly.gemm(a_fp8, b_fp8, scale_a=sa, scale_b=sb, out_dtype="bf16")

Errors: ValueError / TypeError for arguments this package checks (named in the message),
libfly.Error (libfly.NotSupportedError) for a failing C call, with fly_last_error()'s text."""

from . import _capi
from ._arrays import typed
from ._capi import Error, NotSupportedError
from ._gemm import explain_gemm, gemm
from ._pa_decode import explain_pa_decode, pa_decode

__all__ = ["gemm", "pa_decode", "variants", "explain_gemm", "explain_pa_decode", "typed", "Error",
           "NotSupportedError", "backends", "version", "library_path"]

library_path = str(_capi.library_path)


def variants(op="all"):
    """The compiled variant names of "gemm", "pa_decode" or both ("all"): host_reference first."""
    lib = _capi.lib
    out = {}
    if op in ("gemm", "all"):
        out["gemm"] = [lib.fly_gemm_variant_name(i).decode() for i in range(lib.fly_gemm_variant_count())]
    if op in ("pa_decode", "all"):
        out["pa_decode"] = [lib.fly_pa_decode_variant_name(i).decode() for i in range(lib.fly_pa_decode_variant_count())]
    if not out:
        raise ValueError(f"variants: op {op!r} is not 'gemm', 'pa_decode' or 'all'")
    return out if op == "all" else out[op]


def backends():
    """The backends this libfly was built with: a subset of ["host", "cuda", "hip"]."""
    from ._handles import backends_text
    return backends_text().split(", ")


def version():
    """The library's version as (major, minor, patch)."""
    v = _capi.lib.fly_version()
    return (v // 10000, v // 100 % 100, v % 100)


try:  # torch custom ops (torch.compile) where torch is installed
    from . import torch_ops  # noqa: F401
except ImportError:
    pass
