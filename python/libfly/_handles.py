"""One libfly handle per place arrays live: the host backend for CPU arrays, the CUDA backend per
device for CUDA tensors; the stream a call runs on (torch's current stream); and the call itself
(workspace sized and allocated where the arrays live), shared by both operations."""

import ctypes
import threading

from . import _arrays as A
from . import _capi as C

_handles = {}
_lock = threading.Lock()


def _create(host):
    h = ctypes.c_void_p()
    C.check((C.lib.fly_create_host if host else C.lib.fly_create)(ctypes.byref(h)), "fly_create")
    if not host:
        backend = ctypes.c_uint()
        C.check(C.lib.fly_handle_backend(h, ctypes.byref(backend)), "fly_handle_backend")
        if backend.value != C.BACKEND_CUDA:
            C.lib.fly_destroy(h)
            raise C.NotSupportedError(C.NOT_SUPPORTED, "libfly: torch's GPU tensors need a libfly built with CUDA "
                                      "(ROCm torch tensors are not taken yet; this library's backends: " +
                                      backends_text() + ")")
    return h


def backends_text():
    bits = C.lib.fly_compiled_backends()
    return ", ".join(n for b, n in ((C.BACKEND_HOST, "host"), (C.BACKEND_CUDA, "cuda"), (C.BACKEND_HIP, "hip"))
                     if bits & b)


def handle_for(v):
    """The handle for arrays like View v (its device current, for a CUDA handle)."""
    key = ("cpu", -1) if v.device == "cpu" else ("cuda", v.device_index)
    with _lock:
        if key not in _handles:
            if v.device == "cpu":
                _handles[key] = _create(True)
            else:
                import torch
                with torch.cuda.device(v.device_index):
                    _handles[key] = _create(False)
        return _handles[key]


def stream_for(v):
    """The stream a call on View v's arrays runs on: None on the host, torch's current stream on a GPU."""
    if v.device == "cpu":
        return None
    import torch
    return ctypes.c_void_p(torch.cuda.current_stream(v.source.device).cuda_stream)


class on_device:
    """Makes View v's CUDA device the current one for the call (a handle is used on its device)."""

    def __init__(self, v):
        self.v = v
        self.ctx = None

    def __enter__(self):
        if self.v.device == "cuda":
            import torch
            self.ctx = torch.cuda.device(self.v.device_index)
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)


def run_with_workspace(v, args, size_fn, run_fn, name):
    """Calls `name` (run_fn: the op's C entry point) on the handle for View v's arrays, with the
    workspace size_fn asks for allocated where v lives, on the call's stream."""
    with on_device(v):
        h = handle_for(v)
        ws = ctypes.c_size_t()
        C.check(size_fn(h, ctypes.byref(args), ctypes.byref(ws)), name + "_workspace_size")
        buf, ptr = A.workspace(v, ws.value)
        C.check(run_fn(h, ctypes.byref(args), ptr, ws.value, stream_for(v)), name)
    del buf


def explain(v, args, explain_fn, name):
    """The explain line of `name` (explain_fn: its fly_*_explain) for these arguments."""
    buf = ctypes.create_string_buffer(C.EXPLAIN_BYTES)
    with on_device(v):
        C.check(explain_fn(handle_for(v), ctypes.byref(args), buf, C.EXPLAIN_BYTES), name + "_explain")
    return buf.value.decode()
