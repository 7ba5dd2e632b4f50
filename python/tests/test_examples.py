"""The examples run: the Python decode layer (libfly beside plain NumPy) within its bound. The C
decode loop runs as its own CTest entry (examples.decode_step)."""

import importlib.util
import pathlib

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_decode_layer_matches_plain_numpy():
    spec = importlib.util.spec_from_file_location("decode_layer", EXAMPLES / "decode_layer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(batch=2, steps=18) < 5e-2  # 18 steps: a sequence crosses into its second page
