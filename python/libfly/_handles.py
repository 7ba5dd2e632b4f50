"""One libfly handle per place arrays live: the host backend for CPU arrays, the CUDA backend per
device for CUDA tensors; and the stream a call runs on (torch's current stream)."""

import ctypes
import threading

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
            raise C.NotSupportedError(C.NOT_SUPPORTED, "libfly: CUDA tensors need a libfly built with CUDA "
                                      "(this library's backends: " + backends_text() + ")")
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
