"""The C API of libfly (include/fly/fly.h) through ctypes: the shared library, the argument structs
field for field, the enums, and C statuses turned into exceptions carrying fly_last_error()."""

import ctypes
import os
import pathlib

# fly_status_t
SUCCESS, INVALID_ARGUMENT, NOT_SUPPORTED, INSUFFICIENT_WORKSPACE, DEVICE_ERROR, INTERNAL_ERROR = range(6)
# fly_dtype_t
F32, F16, BF16, E4M3FN, E4M3FNUZ = range(5)
DTYPES = {"f32": F32, "f16": F16, "bf16": BF16, "e4m3fn": E4M3FN, "e4m3fnuz": E4M3FNUZ}
DTYPE_BYTES = {F32: 4, F16: 2, BF16: 2, E4M3FN: 1, E4M3FNUZ: 1}
# fly_kv_layout_t
LAYOUTS = {"vllm": 0, "nhd": 1, "hnd": 2}
# FLY_BACKEND_*
BACKEND_HOST, BACKEND_CUDA, BACKEND_HIP = 1, 2, 4
PA_DECODE_CHECK_BLOCK_TABLES = 1
EXPLAIN_BYTES = 512


class Error(RuntimeError):
    """A libfly call failed: `status` is its fly_status_t, the message fly_last_error()'s text."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class NotSupportedError(Error):
    """FLY_STATUS_NOT_SUPPORTED: a valid request this device or build cannot compute."""


class GemmArgs(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
        ("a_type", ctypes.c_int), ("b_type", ctypes.c_int), ("c_type", ctypes.c_int), ("d_type", ctypes.c_int),
        ("a", ctypes.c_void_p), ("lda", ctypes.c_int64),
        ("b", ctypes.c_void_p), ("ldb", ctypes.c_int64),
        ("c", ctypes.c_void_p), ("ldc", ctypes.c_int64),
        ("d", ctypes.c_void_p), ("ldd", ctypes.c_int64),
        ("alpha", ctypes.c_float), ("beta", ctypes.c_float),
        ("scale_a", ctypes.c_void_p), ("scale_b", ctypes.c_void_p),
    ]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(GemmArgs)
        self.alpha, self.beta = 1.0, 0.0


class PaDecodeArgs(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("num_seqs", ctypes.c_int64), ("q_len", ctypes.c_int64),
        ("num_q_heads", ctypes.c_int64), ("num_kv_heads", ctypes.c_int64),
        ("head_dim", ctypes.c_int64),
        ("q_type", ctypes.c_int), ("kv_type", ctypes.c_int), ("kv_layout", ctypes.c_int),
        ("q", ctypes.c_void_p),
        ("q_stride_seq", ctypes.c_int64), ("q_stride_token", ctypes.c_int64), ("q_stride_head", ctypes.c_int64),
        ("out", ctypes.c_void_p),
        ("out_stride_seq", ctypes.c_int64), ("out_stride_token", ctypes.c_int64), ("out_stride_head", ctypes.c_int64),
        ("lse", ctypes.c_void_p),
        ("k_cache", ctypes.c_void_p), ("v_cache", ctypes.c_void_p),
        ("num_blocks", ctypes.c_int64), ("block_size", ctypes.c_int64),
        ("k_block_stride", ctypes.c_int64), ("v_block_stride", ctypes.c_int64),
        ("block_tables", ctypes.c_void_p),
        ("block_table_stride", ctypes.c_int64), ("max_blocks_per_seq", ctypes.c_int64),
        ("seq_lens", ctypes.c_void_p),
        ("max_seq_len", ctypes.c_int64),
        ("k_scale", ctypes.c_void_p), ("v_scale", ctypes.c_void_p),
        ("scale", ctypes.c_float), ("logit_softcap", ctypes.c_float),
        ("sliding_window", ctypes.c_int64),
        ("sinks", ctypes.c_void_p),
        ("flags", ctypes.c_uint32),
    ]

    def __init__(self):
        super().__init__()
        self.struct_size = ctypes.sizeof(PaDecodeArgs)


def _candidates():
    env = os.environ.get("LIBFLY_LIBRARY")
    if env:
        yield pathlib.Path(env)
        return
    here = pathlib.Path(__file__).resolve().parent
    yield here / "libfly.so"  # an installed package carries it
    root = here.parent.parent  # a checkout: the presets' build folders
    for preset in ("cuda", "default", "rocm"):
        yield root / "build" / preset / "python" / "libfly" / "libfly.so"


def _load():
    tried = []
    for path in _candidates():
        if path.is_file():
            return ctypes.CDLL(str(path)), path
        tried.append(str(path))
    raise ImportError("libfly: no libfly.so found (tried " + ", ".join(tried) + "); build it with "
                      "`cmake --workflow --preset default` or `pip install ./python`, or set LIBFLY_LIBRARY")


lib, library_path = _load()
_P = ctypes.c_void_p
for name, res, args in [
    ("fly_status_string", ctypes.c_char_p, [ctypes.c_int]),
    ("fly_last_error", ctypes.c_char_p, []),
    ("fly_version", ctypes.c_int, []),
    ("fly_compiled_backends", ctypes.c_uint, []),
    ("fly_create", ctypes.c_int, [ctypes.POINTER(_P)]),
    ("fly_create_host", ctypes.c_int, [ctypes.POINTER(_P)]),
    ("fly_destroy", ctypes.c_int, [_P]),
    ("fly_handle_backend", ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_uint)]),
    ("fly_gemm_workspace_size", ctypes.c_int, [_P, ctypes.POINTER(GemmArgs), ctypes.POINTER(ctypes.c_size_t)]),
    ("fly_gemm", ctypes.c_int, [_P, ctypes.POINTER(GemmArgs), _P, ctypes.c_size_t, _P]),
    ("fly_gemm_variant_count", ctypes.c_int, []),
    ("fly_gemm_variant_name", ctypes.c_char_p, [ctypes.c_int]),
    ("fly_gemm_explain", ctypes.c_int, [_P, ctypes.POINTER(GemmArgs), ctypes.c_char_p, ctypes.c_size_t]),
    ("fly_pa_decode_workspace_size", ctypes.c_int,
     [_P, ctypes.POINTER(PaDecodeArgs), ctypes.POINTER(ctypes.c_size_t)]),
    ("fly_pa_decode", ctypes.c_int, [_P, ctypes.POINTER(PaDecodeArgs), _P, ctypes.c_size_t, _P]),
    ("fly_pa_decode_variant_count", ctypes.c_int, []),
    ("fly_pa_decode_variant_name", ctypes.c_char_p, [ctypes.c_int]),
    ("fly_pa_decode_explain", ctypes.c_int, [_P, ctypes.POINTER(PaDecodeArgs), ctypes.c_char_p, ctypes.c_size_t]),
]:
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = res, args


def last_error():
    return lib.fly_last_error().decode()


def check(status, what):
    """Raises the exception of a failed call's status, with fly_last_error()'s detail."""
    if status == SUCCESS:
        return
    detail = last_error() or what + " failed"
    name = lib.fly_status_string(status).decode()
    cls = NotSupportedError if status == NOT_SUPPORTED else Error
    raise cls(status, f"{name}: {detail}")
