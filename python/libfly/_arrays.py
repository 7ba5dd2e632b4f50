"""What libfly needs of an argument array: its address, element type, shape, strides in elements and
device. torch tensors (CPU or CUDA) and NumPy arrays (host) are taken as they are; NumPy has no
bfloat16 or fp8 types, so such data is passed as uint16 / uint8 arrays wrapped in `typed`."""

from dataclasses import dataclass

import numpy as np

from . import _capi as C

try:  # torch is optional: NumPy arrays on the host work without it
    import torch
except ImportError:  # pragma: no cover - exercised where torch is absent
    torch = None


@dataclass(frozen=True)
class Typed:
    """A NumPy uint16 (bf16, f16) or uint8 (e4m3fn, e4m3fnuz) array read as that libfly type."""

    array: np.ndarray
    dtype: str


def typed(array, dtype):
    """Marks a NumPy array of raw bits as libfly element type `dtype` ("bf16", "e4m3fn", ...)."""
    if dtype not in C.DTYPES:
        raise ValueError(f"typed: dtype {dtype!r} is not one of {sorted(C.DTYPES)}")
    array = np.asarray(array)
    want = np.uint16 if C.DTYPE_BYTES[C.DTYPES[dtype]] == 2 else np.uint8
    if C.DTYPES[dtype] == C.F32:
        want = np.float32
    if array.dtype != want:
        raise ValueError(f"typed: a {dtype} array holds {np.dtype(want).name} bits, not {array.dtype.name}")
    return Typed(array, dtype)


_TORCH_DTYPES = {}
if torch is not None:
    _TORCH_DTYPES = {torch.float32: C.F32, torch.float16: C.F16, torch.bfloat16: C.BF16}
    for name, code in (("float8_e4m3fn", C.E4M3FN), ("float8_e4m3fnuz", C.E4M3FNUZ)):
        if hasattr(torch, name):
            _TORCH_DTYPES[getattr(torch, name)] = code
_NUMPY_DTYPES = {np.dtype(np.float32): C.F32, np.dtype(np.float16): C.F16}
INT32 = "int32"


@dataclass
class View:
    ptr: int
    dtype: object  # a fly_dtype_t code, or INT32
    shape: tuple
    strides: tuple  # elements
    device: str  # "cpu" or "cuda"
    device_index: int
    source: object  # keeps the array alive

    @property
    def ndim(self):
        return len(self.shape)


def is_torch(x):
    return torch is not None and isinstance(x, torch.Tensor)


def view(x, name):
    """The View of argument `name`, or a ValueError naming it."""
    if isinstance(x, Typed):
        a = x.array
        if not a.flags.aligned:
            raise ValueError(f"{name}: the array is not aligned to its element size")
        return View(a.ctypes.data, C.DTYPES[x.dtype], a.shape, _elem_strides(a, name), "cpu", -1, a)
    if is_torch(x):
        if x.dtype == torch.int32:
            code = INT32
        elif x.dtype in _TORCH_DTYPES:
            code = _TORCH_DTYPES[x.dtype]
        else:
            raise ValueError(f"{name}: torch dtype {x.dtype} is not one libfly takes")
        dev = x.device.type
        if dev not in ("cpu", "cuda"):
            raise ValueError(f"{name}: device {x.device} is neither the CPU nor a CUDA device")
        return View(x.data_ptr(), code, tuple(x.shape), tuple(x.stride()), dev,
                    x.device.index if dev == "cuda" else -1, x)
    if isinstance(x, np.ndarray):
        if x.dtype == np.int32:
            code = INT32
        elif x.dtype in _NUMPY_DTYPES:
            code = _NUMPY_DTYPES[x.dtype]
        else:
            raise ValueError(f"{name}: NumPy dtype {x.dtype.name} is not one libfly takes "
                             "(bf16 / fp8 data: libfly.typed(uint_array, 'bf16'))")
        return View(x.ctypes.data, code, x.shape, _elem_strides(x, name), "cpu", -1, x)
    raise TypeError(f"{name}: expected a torch tensor or a NumPy array, got {type(x).__name__}")


def torch_dtype(code):
    """The torch dtype of a fly_dtype_t code (the inverse of the table above)."""
    return next(t for t, c in _TORCH_DTYPES.items() if c == code)


def torch_dtype_name(t, name):
    """The libfly type name of torch tensor `t`'s dtype, without touching its data."""
    if t.dtype not in _TORCH_DTYPES:
        raise ValueError(f"{name}: torch dtype {t.dtype} is not one libfly takes")
    return dtype_name(_TORCH_DTYPES[t.dtype])


def require_same_device(v, ref, name, ref_name):
    """A ValueError unless `v` lives where `ref` does (device type and CUDA index): libfly gets raw
    pointers and cannot tell a host pointer from another GPU's."""
    if (v.device, v.device_index) != (ref.device, ref.device_index):
        where = lambda x: x.device if x.device_index < 0 else f"{x.device}:{x.device_index}"
        raise ValueError(f"{name} is on {where(v)} but {ref_name} is on {where(ref)}")


def require_writable(v, name):
    """A ValueError for a read-only NumPy array as an output (the library would write it anyway)."""
    a = v.source.array if isinstance(v.source, Typed) else v.source
    if isinstance(a, np.ndarray) and not a.flags.writeable:
        raise ValueError(f"{name} is a read-only NumPy array")


def _elem_strides(a, name):
    out = []
    for s in a.strides:
        if s % a.itemsize != 0:
            raise ValueError(f"{name}: a byte stride {s} is not a multiple of the element size {a.itemsize}")
        out.append(s // a.itemsize)
    return tuple(out)


def dtype_name(code):
    if code == INT32:
        return "int32"
    return {v: k for k, v in C.DTYPES.items()}[code]


def empty_like_device(ref, shape, code):
    """A new array of `shape` and element type `code` where `ref` lives (torch stays torch)."""
    if is_torch(ref.source):
        tdt = {v: k for k, v in _TORCH_DTYPES.items()}[code] if code != INT32 else torch.int32
        return torch.empty(shape, dtype=tdt, device=ref.source.device)
    if code in (C.F32, C.F16):
        return np.empty(shape, dtype=np.float32 if code == C.F32 else np.float16)
    if code == C.BF16:
        return typed(np.empty(shape, dtype=np.uint16), "bf16")
    raise ValueError(f"no NumPy array type for {dtype_name(code)}")


def workspace(ref, nbytes):
    """nbytes of scratch memory where `ref` lives (torch's allocator on a GPU: graph-capturable)."""
    if nbytes == 0:
        return None, 0
    if ref.device == "cuda":
        buf = torch.empty(nbytes, dtype=torch.uint8, device=ref.source.device)
        return buf, buf.data_ptr()
    buf = np.empty(nbytes + 16, dtype=np.uint8)
    off = (-buf.ctypes.data) % 16
    return buf, buf.ctypes.data + off
