"""libfly's operations as torch custom ops (torch.library), with fake implementations that give the
output's shape and type, so a model calling libfly.gemm / libfly.pa_decode on torch tensors traces
under torch.compile. Imported by the package when torch is installed."""

from typing import Optional

import torch

if not hasattr(torch.library, "custom_op"):  # torch < 2.4: the functions work, without custom ops
    raise ImportError("libfly: torch.library.custom_op needs torch >= 2.4")

from . import _gemm as _g
from . import _pa_decode as _p

_OUT_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


@torch.library.custom_op("libfly::gemm", mutates_args=())
def gemm_op(a: torch.Tensor, b: torch.Tensor, scale_a: Optional[torch.Tensor], scale_b: Optional[torch.Tensor],
            c: Optional[torch.Tensor], alpha: float, beta: float, out_dtype: torch.dtype) -> torch.Tensor:
    return _g._gemm_direct(a, b, scale_a=scale_a, scale_b=scale_b, c=c, alpha=alpha, beta=beta,
                           out_dtype=_OUT_DTYPES[out_dtype], out=None)


@gemm_op.register_fake
def _gemm_fake(a, b, scale_a, scale_b, c, alpha, beta, out_dtype):
    return a.new_empty((a.shape[0], b.shape[0]), dtype=out_dtype)


@torch.library.custom_op("libfly::pa_decode", mutates_args=())
def pa_decode_op(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_tables: torch.Tensor,
                 seq_lens: torch.Tensor, layout: str, max_seq_len: int, scale: Optional[float],
                 k_scale: Optional[torch.Tensor], v_scale: Optional[torch.Tensor], soft_cap: float, window: int,
                 sinks: Optional[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    return _p._pa_decode_direct(q, k_cache, v_cache, block_tables, seq_lens, layout=layout, max_seq_len=max_seq_len,
                                scale=scale, k_scale=k_scale, v_scale=v_scale, soft_cap=soft_cap, window=window, sinks=sinks,
                                out=None, return_lse=True, check_block_tables=False)


@pa_decode_op.register_fake
def _pa_decode_fake(q, k_cache, v_cache, block_tables, seq_lens, layout, max_seq_len, scale, k_scale, v_scale,
                    soft_cap, window, sinks):
    return q.new_empty(q.shape), q.new_empty(q.shape[:-1], dtype=torch.float32)


_g._OP = gemm_op
_p._OP = pa_decode_op
