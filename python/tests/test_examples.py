"""The examples run: the Python decode layer beside plain NumPy (always) and beside plain PyTorch
(where torch is installed: on the CPU's host backend and, with a GPU, on CUDA tensors), each within
its bound. The C decode loop runs as its own CTest entry (examples.decode_step)."""

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_decode_layer_matches_plain_numpy():
    assert load("decode_layer").main(batch=2, steps=18) < 5e-2  # 18 steps: a sequence crosses into its second page


def test_decode_layer_torch_matches_plain_pytorch():
    torch = pytest.importorskip("torch", reason="torch is not installed: the PyTorch example needs it")
    module = load("decode_layer_torch")
    assert module.main(batch=2, steps=18, device="cpu") < 5e-2
    import libfly
    if torch.cuda.is_available() and "cuda" in libfly.backends():  # a host-only libfly.so runs the CPU half
        assert module.main(batch=3, steps=20, device="cuda") < 5e-2
