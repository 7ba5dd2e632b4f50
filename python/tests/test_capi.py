"""The ctypes mirror of fly.h: every field of both argument structs at the C offset (a C program,
compiled here, prints them), statuses turned into exceptions with fly_last_error()'s text, and the
introspection calls."""

import os
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest

import libfly
from libfly import _capi as C

ROOT = pathlib.Path(__file__).resolve().parents[2]


def c_layout(struct, fields, tmp_path):
    src = tmp_path / "layout.c"
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "fly/fly.h"', "int main(void) {",
             f'  printf("sizeof %zu\\n", sizeof({struct}));']
    lines += [f'  printf("{f} %zu\\n", offsetof({struct}, {f}));' for f in fields]
    lines += ["  return 0;", "}"]
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    # fly/version.h is generated into the build folder (CTest passes it as FLY_BUILD_INCLUDE)
    version_dirs = [os.environ["FLY_BUILD_INCLUDE"]] if "FLY_BUILD_INCLUDE" in os.environ else [
        str(p.parent.parent) for p in ROOT.glob("build/*/include/fly/version.h")]
    if not version_dirs:
        pytest.fail("no build folder holds fly/version.h: configure a preset first")
    cmd = [shutil.which("cc") or "gcc", "-std=c99", "-I", str(ROOT / "include"), "-I", version_dirs[0], str(src), "-o",
           str(exe)]
    subprocess.run(cmd, check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}


@pytest.mark.parametrize("struct,cls", [("fly_gemm_args", C.GemmArgs), ("fly_pa_decode_args", C.PaDecodeArgs)])
def test_structs_match_the_c_header(struct, cls, tmp_path):
    fields = [f for f, _ in cls._fields_]
    header = (ROOT / "include/fly/fly.h").read_text()
    body = re.search(r"typedef struct " + struct + r" \{(.*?)\} " + struct + ";", header, re.S).group(1)
    declared = re.findall(r"\b(\w+)(?=\s*[,;])", re.sub(r"/\*.*?\*/", "", body, flags=re.S))
    assert declared == fields, "the ctypes struct lists fly.h's fields in order"
    layout = c_layout(struct, fields, tmp_path)
    assert layout.pop("sizeof") == C.ctypes.sizeof(cls)
    for f in fields:
        assert layout[f] == getattr(cls, f).offset, f


def test_a_failing_call_raises_with_the_libraries_message():
    a = np.ones((4, 8), np.float32)
    b = np.ones((3, 8), np.float32)
    c = np.ones((4, 3), np.float32)
    with pytest.raises(libfly.NotSupportedError) as e:  # fly.h: c_type must equal d_type when C is read
        libfly.gemm(a, b, c=c, beta=1.0, out_dtype="f16")
    assert e.value.status == C.NOT_SUPPORTED
    assert str(e.value) == ("FLY_STATUS_NOT_SUPPORTED: fly_gemm_workspace_size: c_type (f32) must equal d_type (f16) "
                            "when C is read (beta != 0)")
    with pytest.raises(libfly.Error) as e:  # a size the library rejects: INVALID_ARGUMENT
        libfly.pa_decode(np.ones((1, 1, 2, 64), np.float16), np.ones((1, 16, 1, 64), np.float16),
                         np.ones((1, 16, 1, 64), np.float16), np.zeros((1, 1), np.int32), np.ones(1, np.int32),
                         layout="nhd", max_seq_len=0)
    assert e.value.status == C.INVALID_ARGUMENT and "max_seq_len" in str(e.value), str(e.value)


def test_introspection():
    assert libfly.variants("gemm")[0] == "host_reference"
    assert libfly.variants("pa_decode")[0] == "host_reference"
    assert set(libfly.variants()) == {"gemm", "pa_decode"}
    assert "host" in libfly.backends()
    assert libfly.version() >= (0, 1, 0)
    with pytest.raises(ValueError, match="op 'conv'"):
        libfly.variants("conv")
